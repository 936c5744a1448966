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
#include <unordered_map>
#include <vector>

#include "runtime/clock.hpp"
#include "runtime/executor.hpp"
#include "runtime/handle.hpp"
#include "runtime/threads.hpp"
#include "sim/model.hpp"

namespace simgrid::s4u { class Host; }

namespace hetla::sim {

/// The SimGrid platform of a model: one host for the CPU, one per
/// accelerator instance, a link per accelerator and per hub. Builds it in
/// the current engine. A full-duplex link or hub (the model's default, as
/// PCIe and NVLink are) is a SimGrid split-duplex link: copies to a device
/// and copies back (write-backs, checkpoints) each get its bandwidth; a
/// half-duplex one is shared by both directions.
///
/// A cluster (nodes > 1, seed 004 sec. 5.4) is one simulated machine whose
/// devices are grouped into nodes, each a copy of the model's node: its own
/// CPU host, accelerators, hubs and links, and a network interface, two links
/// (out of and into the node, network.bandwidth_gbs and latency_us each) that
/// every transfer leaving or entering the node shares: a full-bisection
/// switch, as Keeneland's QDR InfiniBand fat tree. A copy between nodes
/// crosses the sender's and the receiver's interface (and the receiver's
/// hub and device link when it lands in an accelerator).
struct Platform {
  simgrid::s4u::Host* cpu = nullptr;         // node 0's CPU (the inserting actor's)
  std::vector<simgrid::s4u::Host*> devices;  // one node: runtime device d (>= 1) is devices[d - 1]; a cluster: node by node
  std::vector<simgrid::s4u::Host*> node_cpus;  // per node
  int nodes = 1, accels = 0;                   // accelerators per node
  explicit Platform(const MachineModel& m, int nodes = 1);
  /// The runtime's device layout (RuntimeConfig::nodes): a cluster's device
  /// 0 only inserts; then per node its host cores and its accelerators.
  int node_of(int d) const { return nodes > 1 && d > 0 ? (d - 1) / (accels + 1) : 0; }
  bool is_node_cpu(int d) const { return nodes > 1 ? d == 0 || (d - 1) % (accels + 1) == 0 : d == 0; }
  simgrid::s4u::Host* host_of(int d) const {
    if (is_node_cpu(d)) return node_cpus[static_cast<std::size_t>(node_of(d))];
    if (nodes == 1) return devices[static_cast<std::size_t>(d - 1)];
    return devices[static_cast<std::size_t>(node_of(d) * accels + (d - 1) % (accels + 1) - 1)];
  }
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
      : platform_(p), rates_(std::move(rates)), precision_(precision), in_(rates_.size()), out_(rates_.size()) {}
  void run(rt::Task& t, rt::TaskContext& ctx) override;
  void copy_in(dev::Device& d, const rt::Handle& h, void* dev, const void* host, int64_t host_ld, int64_t rows,
               int64_t cols, std::size_t elem) override;
  void copy_out(dev::Device& d, const rt::Handle& h, void* host, int64_t host_ld, const void* dev, int64_t rows,
                int64_t cols, std::size_t elem) override;
  /// Carries out the calling actor's deferred copies (see copy_out).
  void settle() override;
  /// Runtime device d copies with memcpy on the host's cores (one node;
  /// DeviceModel::copies_on_host_cores), at in_gbs toward it and out_gbs
  /// back; `threads` threads compute on those cores (host workers and such
  /// devices' workers). See run().
  void copies_on_cores(int d, double in_gbs, double out_gbs, int threads);
  /// Seconds task t takes on runtime device d (0 when its kernel has no rate).
  double task_seconds(const rt::Task& t, int d) const;
  /// Bytes that really moved into / out of runtime device d (a cluster's node
  /// host "copies" its own node's tiles at no cost), and across the network.
  uint64_t bytes_in(int d) const { return in_[static_cast<std::size_t>(d)]; }
  uint64_t bytes_out(int d) const { return out_[static_cast<std::size_t>(d)]; }
  uint64_t network_bytes() const { return network_; }

 private:
  void charge_copy(int d, double bytes, bool in);  // see run()
  bool copies_on_cores(int d) const {  // device d's copies run on the host's cores
    const auto i = static_cast<std::size_t>(d);
    return i < core_copies_.size() && core_copies_[i].in_gbs > 0;
  }
  int home_node(const rt::Handle& h) const { return h.home > 0 ? platform_.node_of(h.home) : 0; }
  const Platform& platform_;
  std::vector<const Rates*> rates_;
  int precision_;
  struct Out {
    simgrid::s4u::Host *from, *to;
    uint64_t bytes;
  };
  std::map<long, std::vector<Out>> deferred_;  // by actor id
  std::vector<uint64_t> in_, out_;
  uint64_t network_ = 0;
  struct CoreCopies {
    double in_gbs = 0, out_gbs = 0;  // 0: not on the cores
  };
  std::vector<CoreCopies> core_copies_;  // per runtime device
  int core_threads_ = 1;
  int cores_computing_ = 0;               // threads on the host's cores in a kernel now
  double core_debt_ = 0;                  // seconds of copies on the cores so far
  std::map<long, double> debt_paid_;      // by actor id: the share its kernels took
  // A cluster: per tile, which nodes hold its current version in their host
  // memory (received once per version and cached, as the MPI layer does)
  // and how many copies each has sent; a copy out of a new version clears it.
  struct Holders {
    std::vector<uint8_t> state;   // per node: 0 none, 1 arriving, 2 held
    std::vector<uint32_t> sent;  // per node: copies of this version it sent
  };
  std::unordered_map<const rt::Handle*, Holders> received_;
};

}  // namespace hetla::sim
