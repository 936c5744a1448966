#include "devices/fault.hpp"

#include <string>

#include "devices/device.hpp"

namespace hetla::dev {

void FaultInjector::arm(const FaultPlan& plan) {
  plan_ = plan;
  kernels_ = copies_ = allocs_ = 0;
  rng_ = plan.seed * 0x9E3779B97F4A7C15ull | 1;
  faulted_ = lost_ = paused_ = false;
}

void FaultInjector::check(const Device& d, FaultOp op) {
  const FaultPlan& f = plan_;
  if (paused_.load()) return;
  if (lost_.load()) throw DeviceError(d, d.name() + ": device memory lost (injected fault)", true);
  const uint64_t n = (op == FaultOp::Kernel ? kernels_ : op == FaultOp::Copy ? copies_ : allocs_).fetch_add(1) + 1;
  const char* what = op == FaultOp::Kernel ? "kernel" : op == FaultOp::Copy ? "copy" : "allocation";
  bool fire = op == FaultOp::Kernel ? n == f.kernel_at || n == f.lost_at
              : op == FaultOp::Copy ? n == f.copy_at
                                    : n == f.alloc_at;
  if (!fire && f.probability > 0) {
    uint64_t s = rng_.load(), x;
    do {
      x = s;
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    } while (!rng_.compare_exchange_weak(s, x));
    fire = static_cast<double>(x >> 11) * 0x1p-53 < f.probability;
  }
  if (!fire || faulted_.exchange(true)) return;
  const bool lost = op == FaultOp::Kernel && n == f.lost_at;
  if (lost) lost_ = true;
  throw DeviceError(d, d.name() + ": " + what + " " + std::to_string(n) + " failed (injected fault" +
                           (lost ? ", device memory lost)" : ")"),
                    lost);
}

}  // namespace hetla::dev
