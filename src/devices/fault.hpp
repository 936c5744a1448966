// Fault injection for tests (`emu:fail=...`, `opencl:...:fail=...`,
// `cuda:...:fail=...`; docs/reliability.md): one piece every device kind
// shares, so an injected fault takes the same path (a dev::DeviceError from a
// kernel, a copy or an allocation) as a real failure of that device.
#pragma once
#include <atomic>
#include <cstdint>

namespace hetla::dev {

class Device;

/// What to inject. Counts are per device and 1-based; 0 = off. Only the
/// first injected fault of a device fires: the runtime has removed the device
/// by then, and copying its tiles back (the recovery) must not fail again,
/// unless its memory is lost.
struct FaultPlan {
  uint64_t kernel_at = 0;  // fail=kernel@K: the K-th kernel throws a DeviceError
  uint64_t copy_at = 0;    // fail=copy@K: the K-th copy (either direction)
  uint64_t alloc_at = 0;   // fail=alloc@K: the K-th allocation
  uint64_t lost_at = 0;    // fail=lost@K: the K-th kernel, and the device's memory is lost with it
  double probability = 0;  // fail=random:P: each kernel, copy or allocation, with probability P
  uint64_t seed = 1;       // seed=S: the random faults' generator
  bool any() const { return kernel_at || copy_at || alloc_at || lost_at || probability > 0; }
};

enum class FaultOp { Kernel, Copy, Alloc };

/// The counters of one device's plan (thread-safe: a device's workers and
/// copy engine count concurrently).
class FaultInjector {
 public:
  FaultInjector() = default;
  FaultInjector(const FaultInjector&) = delete;
  FaultInjector& operator=(const FaultInjector&) = delete;

  /// Sets the plan and restarts the counts (before the device is used).
  void arm(const FaultPlan& plan);
  const FaultPlan& plan() const { return plan_; }
  bool armed() const { return plan_.any(); }
  /// Counts one operation of `d` and throws the DeviceError the plan asks for
  /// there (and at any operation once the memory is lost).
  void check(const Device& d, FaultOp op);
  /// An injected fault has fired (hetla bench soak counts them).
  bool fired() const { return faulted_.load(); }
  /// While paused, operations neither count nor fail (warm_up_kernels: work
  /// outside any call must not move the K of fail=kernel@K).
  void pause(bool on) { paused_ = on; }

 private:
  FaultPlan plan_;
  std::atomic<uint64_t> kernels_{0}, copies_{0}, allocs_{0};  // operations so far
  std::atomic<uint64_t> rng_{1};                              // random faults' xorshift state
  std::atomic<bool> faulted_{false}, lost_{false}, paused_{false};
};

}  // namespace hetla::dev
