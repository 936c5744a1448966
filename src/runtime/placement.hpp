// Placement: where a ready task runs. A pure decision on a snapshot the
// runtime takes when the task becomes ready (per device: its queued work, the
// kernel's rate, the bytes that would have to move there; the task's flags,
// the schedule); the runtime then queues the task there and counts its
// estimated time in that device's queued work. No threads, no locks: tests
// hand it snapshots of their own (tests/runtime/test_placement.cc).
#pragma once
#include <atomic>
#include <cstdint>
#include <span>

#include "devices/device.hpp"
#include "runtime/task.hpp"

namespace hetla::rt {

enum class Schedule { Dynamic, Static };

/// What placement sees of one device. Device 0 is the host cores.
struct DeviceView {
  bool has_kernel = false;   // an accelerator that has the task's kernel (Device::has_kernel)
  bool has_fp64 = true;      // it computes in double precision (Device::has_fp64)
  double rate = 1;           // flop/s of the task's kernel there, one worker (Gemm's for a body without kernel)
  int64_t queued_ns = 0;     // estimated work queued or running there
  int workers = 1;           // workers sharing that work
  double bytes_to_move = 0;  // bytes the task reads that have no valid copy there
  double bandwidth = 10e9;   // bytes/s of those moves
};

/// A ready task and the policy in force.
struct PlacementSnapshot {
  uint32_t flags = kNoFlags;
  dev::KernelId kernel = dev::KernelId::None;
  double flops = 0;
  int forced = -1;  // TaskOptions::device
  int home = -1;    // static schedule: home device of the first handle the task writes (-1: none)
  Schedule schedule = Schedule::Dynamic;
  bool host_computes = true;  // RuntimeConfig::host_computes
  std::span<const DeviceView> devices;  // [0] = host cores
  /// The device whose workers are "the host cores" for this task: 0, or on a
  /// cluster simulated as one machine (RuntimeConfig::nodes) the host of the
  /// node that owns what the task writes. Host-only work and static panels go
  /// there; device 0 then computes nothing.
  int host = 0;
};

struct PlacementDecision {
  int device = 0;
  int64_t est_ns = 0;  // its estimated duration there (queued-work accounting)
};

class Placement {
 public:
  /// `random`: every accelerator-capable task goes to a random capable
  /// device (test hook), drawn from an xorshift generator seeded by `seed`.
  explicit Placement(bool random = false, uint64_t seed = 1) : random_(random), rng_(seed | 1) {}

  /// Whether a task may run anywhere but the host cores (it has a kernel
  /// and neither kHostOnly nor kMemoryBound): if not, the runtime need not
  /// fill the accelerators' has_kernel and bytes_to_move.
  static bool offloadable(uint32_t flags, dev::KernelId k) {
    return k != dev::KernelId::None && !(flags & (kHostOnly | kMemoryBound));
  }

  /// Decides where the task runs. Thread-safe (the random draw is atomic).
  PlacementDecision decide(const PlacementSnapshot& s);

 private:
  uint64_t draw();
  bool random_;
  std::atomic<uint64_t> rng_;
};

}  // namespace hetla::rt
