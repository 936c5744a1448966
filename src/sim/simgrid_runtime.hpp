// The runtime's seams filled by SimGrid: workers as actors that block on
// SimGrid condition variables (Threads), the simulated clock (Clock), and an
// executor (Executor) that runs no task body but lets the task take the time
// its device's model gives, and moves no data but lets a copy take the time
// SimGrid's flow model gives on the modelled links (concurrent copies share
// them). Everything here runs inside a SimGrid simulation.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "runtime/clock.hpp"
#include "runtime/executor.hpp"
#include "runtime/threads.hpp"
#include "sim/model.hpp"

namespace simgrid::s4u { class Host; }

namespace hetla::sim {

/// The SimGrid platform of a model: one host for the CPU, one per
/// accelerator instance, a link per accelerator and per hub. Builds it in
/// the current engine.
struct Platform {
  simgrid::s4u::Host* cpu = nullptr;
  std::vector<simgrid::s4u::Host*> devices;  // runtime device d (>= 1) is devices[d - 1]
  explicit Platform(const MachineModel& m);
};

class SimThreads final : public rt::Threads {
 public:
  explicit SimThreads(simgrid::s4u::Host* host) : host_(host) {}
  ~SimThreads() override;
  void start(std::function<void()> fn) override;
  void join_all() override;
  void wait(int channel, const std::function<bool()>& ready) override;
  void notify(int channel, int n) override;

 private:
  struct Channel;
  Channel& channel(int c);
  simgrid::s4u::Host* host_;
  std::vector<void*> actors_;  // s4u::ActorPtr, held
  std::map<int, std::shared_ptr<Channel>> channels_;  // Channel is defined with SimGrid
};

class SimClock final : public rt::Clock {
 public:
  int64_t now_ns() const override;
};

class SimExecutor final : public rt::Executor {
 public:
  /// rates[d]: the rates of runtime device d (0: host cores); precision:
  /// the routine's (0..3 for s, d, c, z; host panel tasks carry no fp64 flag).
  SimExecutor(const Platform& p, std::vector<const Rates*> rates, int precision)
      : platform_(p), rates_(std::move(rates)), precision_(precision) {}
  void run(rt::Task& t, rt::TaskContext& ctx) override;
  void copy_in(dev::Device& d, void* dev, const void* host, int64_t host_ld, int64_t rows, int64_t cols,
               std::size_t elem) override;
  void copy_out(dev::Device& d, void* host, int64_t host_ld, const void* dev, int64_t rows, int64_t cols,
                std::size_t elem) override;
  /// Carries out the calling actor's deferred copies (see copy_out).
  void settle();
  /// Seconds task t takes on runtime device d (0 when its kernel has no rate).
  double task_seconds(const rt::Task& t, int d) const;

 private:
  const Platform& platform_;
  std::vector<const Rates*> rates_;
  int precision_;
  struct Out {
    int device;
    uint64_t bytes;
  };
  std::map<long, std::vector<Out>> deferred_;  // by actor id
};

}  // namespace hetla::sim
