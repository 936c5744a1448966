// A task as the inserting code describes it: placement hints (TaskFlags,
// TaskOptions) and what its body sees when it runs (TaskContext). The
// runtime's own record of an inserted task (struct Task) is internal
// (runtime/runtime_detail.hpp).
#pragma once
#include <cstdint>

#include "devices/device.hpp"
#include "runtime/inline_fn.hpp"

namespace hetla::rt {

/// Task flags: hints for placement.
enum TaskFlags : uint32_t {
  kNoFlags = 0,
  kMemoryBound = 1u << 0,  // BLAS2-like / latency-bound: keep on CPU cores
  kHostOnly = 1u << 1,     // must run on the host
  kPanel = 1u << 2,        // on the critical path: owner-computes keeps it on the CPU cores (seed 000 Alg. 5)
  kFp64 = 1u << 3,         // computes in double precision: never on a device without fp64 (Device::has_fp64)
  kComm = 1u << 4,         // internal: a transfer to or from another process, run by the progress thread
};

struct TaskOptions {
  int priority = 0;            // higher runs first among ready tasks
  const char* label = "task";  // kernel name, for traces
  uint32_t flags = kNoFlags;
  dev::KernelId kernel = dev::KernelId::None;  // None: a host-only task body
  double flops = 0;                            // work estimate for placement
  int device = -1;                             // >= 0: run on this device (calibration, tests)
  /// The first block_reads accesses read tiles that lie one below the other
  /// in one tile column and that the body takes as one column-major block
  /// (tasks/tile.hpp's tiles_as_block). Distributed: a process that gets
  /// several of them from one other process for the first time receives
  /// them in one message into one block (runtime/distributed.cc), which the
  /// body then uses in place.
  int block_reads = 0;
};

/// Where a running task runs and where its data is.
struct TaskContext {
  int worker = 0;  // global worker index; 0 = the inserting thread
  dev::Device* device = nullptr;
  void* const* ptrs = nullptr;    // per access: the data in the device's memory
  const int64_t* lds = nullptr;   // per access: its leading dimension there
  template <typename T> T* ptr(int i) const { return static_cast<T*>(ptrs[i]); }
  int64_t ld(int i) const { return lds[i]; }
  template <typename T> dev::Kernels<T>& kernels() const { return device->kernels<T>(); }
};

using TaskBody = InlineFn<void(TaskContext&)>;

}  // namespace hetla::rt
