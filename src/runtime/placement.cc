#include "runtime/placement.hpp"

#include <limits>

namespace hetla::rt {

// xorshift; placement runs on any thread, so a step is a compare-exchange
// (the draws are the sequence a single thread would produce).
uint64_t Placement::draw() {
  uint64_t s = rng_.load(std::memory_order_relaxed), x;
  do {
    x = s;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
  } while (!rng_.compare_exchange_weak(s, x, std::memory_order_relaxed));
  return x;
}

PlacementDecision Placement::decide(const PlacementSnapshot& s) {
  const int n = static_cast<int>(s.devices.size());
  if (n <= 1) return {};
  const auto& dv = [&](int d) -> const DeviceView& { return s.devices[static_cast<std::size_t>(d)]; };
  const bool any_device = offloadable(s.flags, s.kernel);
  const bool fp64 = s.flags & kFp64;
  auto device_can = [&](int d) { return any_device && dv(d).has_kernel && (!fp64 || dv(d).has_fp64); };
  bool accel_can = false;
  for (int d = 1; d < n; ++d) accel_can = accel_can || device_can(d);
  const int host = s.host > 0 && s.host < n ? s.host : 0;
  // on a cluster (host > 0) device 0 only inserts; the task's node host is
  // "the host", the other nodes' hosts compute what they have kernels for
  auto capable = [&](int d) {
    if (d == host) return s.host_computes || !accel_can;
    return d == 0 ? false : device_can(d);
  };
  auto exec_ns = [&](int d) { return static_cast<int64_t>(s.flops / dv(d).rate * 1e9); };
  int best = host;
  if (s.forced >= 0) {
    best = s.forced;
  } else if (!any_device || !accel_can) {
    best = host;
  } else if (random_) {
    const uint64_t x = draw();
    uint64_t count = 0;
    for (int d = 0; d < n; ++d) count += capable(d);
    uint64_t pick = x % count;
    for (int d = 0; d < n; ++d)
      if (capable(d) && pick-- == 0) {
        best = d;
        break;
      }
  } else if (s.schedule == Schedule::Static && (s.flags & kPanel) && capable(host)) {
    best = host;
  } else if (s.schedule == Schedule::Static && s.home >= 0 && s.home < n && capable(s.home)) {
    best = s.home;
  } else {
    // Greedy weighted assignment (seed 000 §5.2): the device that would
    // finish the task first, counting its queued work, the kernel's rate
    // there and the bytes that must move to it.
    double best_cost = std::numeric_limits<double>::max();
    for (int d = 0; d < n; ++d) {
      if (!capable(d)) continue;
      double transfer = dv(d).bytes_to_move / dv(d).bandwidth;
      double queued = static_cast<double>(dv(d).queued_ns) * 1e-9 / dv(d).workers;
      double cost = queued + transfer + static_cast<double>(exec_ns(d)) * 1e-9;
      if (cost < best_cost) best_cost = cost, best = d;
    }
  }
  return {best, exec_ns(best)};
}

}  // namespace hetla::rt
