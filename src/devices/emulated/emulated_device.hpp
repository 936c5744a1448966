// An emulated accelerator for tests and demos of heterogeneity on machines
// without one: its own memory arena with a capacity, explicit copies
// (optionally throttled to a bandwidth and latency), and kernels that run the
// host BLAS on a dedicated thread and are then stretched to t / speed by
// *waiting*, so several emulated devices can share a small machine and still
// behave as devices of known relative speed (speed is relative to one core).
#pragma once
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <cstdint>
#include <stdexcept>
#include <thread>

#include "devices/device.hpp"
#include "devices/fault.hpp"
#include "devices/host/host_device.hpp"

namespace hetla::dev {

struct EmulatedConfig {
  double speed = 1.0;            // relative to one host core, 0 < speed <= 1
  std::size_t memory = 0;        // arena capacity in bytes; 0 = unlimited
  double bandwidth_gbs = 0;      // copy bandwidth; 0 = unthrottled
  double latency_us = 0;         // per-copy latency
  bool fail_allocation = false;  // fault injection: every allocation fails
  bool fail_kernels = false;     // fault injection: every kernel throws a DeviceError
  FaultPlan faults;              // fault injection: one fault at a chosen or random operation
  bool herk_as_gemm = false;     // diagonal-tile rank-k updates as GEMMs, as GPUs run them (Device::herk_as_gemm)
};

class EmulatedDevice final : public Device {
 public:
  EmulatedDevice(std::string name, EmulatedConfig cfg);
  ~EmulatedDevice() override;
  int num_workers() const override { return 1; }
  const EmulatedConfig& config() const { return cfg_; }
  /// An injected fault (FaultPlan) has fired on this device (hetla bench soak counts them).
  bool fault_fired() const { return faults().fired(); }

  void* allocate(std::size_t bytes) override;
  void deallocate(void* p, std::size_t bytes) override;
  void copy_in(void* dev, const void* host, int64_t host_ld, int64_t rows, int64_t cols, std::size_t elem) override;
  void copy_out(void* host, int64_t host_ld, const void* dev, int64_t rows, int64_t cols, std::size_t elem) override;
  std::size_t memory_capacity() const override { return cfg_.memory; }
  std::size_t memory_used() const override { return used_.load(); }
  double nominal_speed() const override { return cfg_.speed; }
  bool herk_as_gemm() const override { return cfg_.herk_as_gemm; }
  double bandwidth_hint() const override { return cfg_.bandwidth_gbs > 0 ? cfg_.bandwidth_gbs * 1e9 : 20e9; }
  bool copies_on_host_cores() const override { return true; }

  HETLA_DEVICE_KERNEL_OVERRIDES

 private:
  /// Runs f, then waits until t / speed has elapsed since it started, t being
  /// the CPU time the kernel took on this thread (not its wall time: on a
  /// machine shared by several emulated devices a kernel that waited for a
  /// core must not be stretched for that wait, or the slow device gets slower
  /// still under contention).
  template <typename F> auto stretched(F&& f) {
    if (cfg_.fail_kernels) throw DeviceError(*this, name() + ": kernel failed (injected fault)");
    inject_fault(FaultOp::Kernel);
    struct Stretch {
      std::chrono::steady_clock::time_point t0;
      double cpu0, speed;
      ~Stretch() {
        if (speed >= 1.0) return;
        const double t = thread_cpu_seconds() - cpu0;
        std::this_thread::sleep_until(t0 + std::chrono::nanoseconds(static_cast<int64_t>(t / speed * 1e9)));
      }
    } stretch{std::chrono::steady_clock::now(), thread_cpu_seconds(), cfg_.speed};
    return f();
  }
  static double thread_cpu_seconds();
  void throttle(std::chrono::steady_clock::time_point t0, std::size_t bytes) const;

  template <typename T, typename... A> void gemm_t(A... a) { stretched([&] { HostKernelImpl::gemm<T>(a...); }); }
  template <typename T, typename... A> void herk_t(A... a) { stretched([&] { HostKernelImpl::herk<T>(a...); }); }
  template <typename T, typename... A> void trsm_t(A... a) { stretched([&] { HostKernelImpl::trsm<T>(a...); }); }
  template <typename T, typename... A> int64_t potrf_t(A... a) {
    return stretched([&] { return HostKernelImpl::potrf<T>(a...); });
  }
  template <typename T, typename... A> void trmm_t(A... a) { stretched([&] { HostKernelImpl::trmm<T>(a...); }); }
  // Host code on the device's own memory (the arena is host-addressable), so
  // an LU trailing column stays on the device between its updates.
  template <typename T, typename... A> void laswp_t(A... a) { stretched([&] { HostKernelImpl::laswp<T>(a...); }); }

  void release_pool();

  EmulatedConfig cfg_;
  std::atomic<std::size_t> used_{0};
  // Freed blocks by size, reused by the next allocation of that size (tiles
  // come in few sizes), as a GPU's caching allocator does: fresh pages are
  // slow to map and device memory is slow to allocate. Outside used_: the
  // emulated capacity counts what the runtime holds.
  std::mutex pool_mutex_;
  std::multimap<std::size_t, void*> pool_;
};

}  // namespace hetla::dev
