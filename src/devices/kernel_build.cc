#include "devices/kernel_build.hpp"

#include <complex>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "devices/device.hpp"

namespace hetla::dev {

namespace {

struct BuildClock {
  std::mutex mutex;
  int open = 0;
  std::chrono::steady_clock::time_point busy_since{};
  std::chrono::nanoseconds total{0};
};

BuildClock& build_clock() {
  static auto* clock = new BuildClock;  // never destroyed: devices may close during static destruction
  return *clock;
}

}  // namespace

KernelBuildScope::KernelBuildScope() {
  auto& c = build_clock();
  std::lock_guard<std::mutex> lk(c.mutex);
  if (c.open++ == 0) c.busy_since = std::chrono::steady_clock::now();
}

KernelBuildScope::~KernelBuildScope() {
  auto& c = build_clock();
  std::lock_guard<std::mutex> lk(c.mutex);
  if (--c.open == 0) c.total += std::chrono::steady_clock::now() - c.busy_since;
}

std::chrono::nanoseconds kernel_build_time() {
  auto& c = build_clock();
  std::lock_guard<std::mutex> lk(c.mutex);
  auto t = c.total;
  if (c.open > 0) t += std::chrono::steady_clock::now() - c.busy_since;
  return t;
}

int kernel_builds_in_progress() {
  auto& c = build_clock();
  std::lock_guard<std::mutex> lk(c.mutex);
  return c.open;
}

namespace {

/// A tile in device memory, freed on scope exit.
struct DeviceTile {
  DeviceTile(Device& d, std::size_t bytes) : d(d), bytes(bytes), p(d.allocate(bytes)) {
    if (!p) throw std::runtime_error(d.name() + ": no device memory for a kernel warm-up tile");
  }
  ~DeviceTile() { d.deallocate(p, bytes); }
  DeviceTile(const DeviceTile&) = delete;
  DeviceTile& operator=(const DeviceTile&) = delete;
  Device& d;
  std::size_t bytes;
  void* p;
};

template <typename T> void warm_up(Device& d) {
  constexpr int64_t n = 8;
  const std::size_t bytes = n * n * sizeof(T);
  std::vector<T> host(n * n, T(0));
  for (int64_t i = 0; i < n; ++i) host[static_cast<std::size_t>(i * (n + 1))] = T(1);  // the identity
  DeviceTile a(d, bytes), b(d, bytes), c(d, bytes);
  for (void* p : {a.p, b.p, c.p}) d.copy_in(p, host.data(), n, n, n, sizeof(T));
  T* A = static_cast<T*>(a.p);
  T* B = static_cast<T*>(b.p);
  T* C = static_cast<T*>(c.p);
  Kernels<T>& k = d;
  const Op trans = is_complex_v<T> ? Op::ConjTrans : Op::Trans;
  if (d.has_kernel(KernelId::Gemm))
    for (Op ta : {Op::NoTrans, trans})
      for (Op tb : {Op::NoTrans, trans}) k.gemm(ta, tb, n, n, n, T(1), A, n, B, n, T(0), C, n);
  if (d.has_kernel(KernelId::Herk))
    for (Uplo u : {Uplo::Lower, Uplo::Upper})
      for (Op t : {Op::NoTrans, trans}) k.herk(u, t, n, n, real_t<T>(1), A, n, real_t<T>(0), C, n);
  for (Side s : {Side::Left, Side::Right})
    for (Uplo u : {Uplo::Lower, Uplo::Upper})
      for (Op t : {Op::NoTrans, trans}) {
        if (d.has_kernel(KernelId::Trsm)) k.trsm(s, u, t, Diag::NonUnit, n, n, T(1), A, n, B, n);
        if (d.has_kernel(KernelId::Trmm)) k.trmm(s, u, t, Diag::NonUnit, n, n, T(1), A, n, B, n);
      }
  if (d.has_kernel(KernelId::Laswp)) {
    T* tiles[1] = {C};
    const int64_t mb[1] = {n}, ld[1] = {n}, rows[2] = {0, 1};
    k.laswp(n, 1, tiles, mb, ld, 1, rows);
  }
}

}  // namespace

std::chrono::nanoseconds warm_up_kernels(Device& d, char precision) {
  // Emulated devices run the host kernels: nothing to build (and a warm-up
  // kernel must not count toward an injected fault, emu:fail=kernel@K).
  if (d.is_host() || d.kind() == Kind::Emulated) return {};
  // Nor on OpenCL / CUDA (opencl:fail=kernel@K counts the calls' kernels):
  // the warm-up runs outside any call, where a DeviceError has no runtime to
  // recover it (measured: hetla bench with opencl:fail=kernel@2 was an error).
  struct Paused {
    Device& d;
    ~Paused() { d.pause_faults(false); }
  } paused{d};
  d.pause_faults(true);
  const auto t0 = kernel_build_time();
  switch (precision) {
    case 's': warm_up<float>(d); break;
    case 'd':
      if (d.has_fp64()) warm_up<double>(d);
      break;
    case 'c': warm_up<std::complex<float>>(d); break;
    case 'z':
      if (d.has_fp64()) warm_up<std::complex<double>>(d);
      break;
    default: throw std::invalid_argument(std::string("warm_up_kernels: unknown precision '") + precision + "'");
  }
  return kernel_build_time() - t0;
}

}  // namespace hetla::dev
