// How work is actually carried out on a device once the runtime decided
// where and made the data valid there: a task's body, a copy between host
// memory and a device's. The real executor runs the body and calls the
// Device's copy functions; a simulated one (SimGrid) or one that moves data
// to a remote memory (MPI) replaces it without touching placement or
// coherence (RuntimeConfig::executor).
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/task.hpp"

namespace hetla::rt {

struct Task;  // runtime/runtime_detail.hpp
struct Handle;  // runtime/handle.hpp

class Executor {
 public:
  virtual ~Executor() = default;
  /// Runs task t (its body, kernel, flops and label are in t) on ctx.device;
  /// ctx holds its data there. Runs on a worker of that device.
  virtual void run(Task& t, TaskContext& ctx) = 0;
  /// rows x cols elements from host memory (leading dimension host_ld) into
  /// the replica `dev` on device d (leading dimension rows), of handle h (a
  /// simulated cluster routes the copy by where h's home copy lives).
  virtual void copy_in(dev::Device& d, const Handle& h, void* dev, const void* host, int64_t host_ld, int64_t rows,
                       int64_t cols, std::size_t elem) = 0;
  /// The replica `dev` on device d back to host memory.
  virtual void copy_out(dev::Device& d, const Handle& h, void* host, int64_t host_ld, const void* dev, int64_t rows,
                        int64_t cols, std::size_t elem) = 0;
  /// Takes the time of copies that could not take it where they ran (under
  /// a handle's lock: a simulation's copy_out); the runtime calls it where
  /// the calling thread holds no lock. Nothing to do in a real run.
  virtual void settle() {}
};

/// The real executor: the task's body, the device's copies.
class DeviceExecutor final : public Executor {
 public:
  void run(Task& t, TaskContext& ctx) override;
  void copy_in(dev::Device& d, const Handle&, void* dev, const void* host, int64_t host_ld, int64_t rows,
               int64_t cols, std::size_t elem) override {
    d.copy_in(dev, host, host_ld, rows, cols, elem);
  }
  void copy_out(dev::Device& d, const Handle&, void* host, int64_t host_ld, const void* dev, int64_t rows,
                int64_t cols, std::size_t elem) override {
    d.copy_out(host, host_ld, dev, rows, cols, elem);
  }
};

}  // namespace hetla::rt
