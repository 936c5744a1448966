// Seed 000 §5.3 on devices: the rank-k update of a Cholesky diagonal tile
// runs as one GEMM over the whole tile on accelerators that prefer it
// (Device::herk_as_gemm), the tile's other triangle in the device replica
// being scratch. The caller's other triangle must still come back bit for
// bit, the factor must be right, and the device must really have run GEMMs
// and no HERK.
#include <gtest/gtest.h>

#include <atomic>
#include <complex>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "checks.hpp"
#include "common/host_memory_device.hpp"
#include "common/watchdog.hpp"
#include "devices/host/host_device.hpp"
#include "devices/spec.hpp"
#include "hetla/hetla.hpp"
#include "matgen.hpp"
#include "context/context.hpp"

namespace hetla {
namespace {

constexpr double kThreshold = bench::kResidualThreshold;

/// An accelerator with memory of its own and the host kernels that counts
/// the GEMM and HERK calls it gets.
class CountingDevice final : public test::HostMemoryDevice {
 public:
  CountingDevice() : HostMemoryDevice("counting") {}
  bool herk_as_gemm() const override { return true; }
  HETLA_DEVICE_KERNEL_OVERRIDES

  std::atomic<int> gemms{0}, herks{0};

 private:
  template <typename T, typename... A> void gemm_t(A... a) { ++gemms, dev::HostKernelImpl::gemm<T>(a...); }
  template <typename T, typename... A> void herk_t(A... a) { ++herks, dev::HostKernelImpl::herk<T>(a...); }
  template <typename T, typename... A> void trsm_t(A... a) { dev::HostKernelImpl::trsm<T>(a...); }
  template <typename T, typename... A> void trmm_t(A... a) { dev::HostKernelImpl::trmm<T>(a...); }
  template <typename T, typename... A> void laswp_t(A... a) { dev::HostKernelImpl::laswp<T>(a...); }
  template <typename T, typename... A> int64_t potrf_t(A... a) { return dev::HostKernelImpl::potrf<T>(a...); }
};

/// A Hermitian positive definite matrix whose unreferenced triangle holds a
/// sentinel; factors it and checks the factor and that the sentinel stayed.
template <typename T> void check_potrf(Uplo uplo, int64_t n, int64_t nb) {
  SCOPED_TRACE(std::string("potrf ") + precision_letter<T>() + (uplo == Uplo::Lower ? " L" : " U"));
  const int64_t lda = n + 1;
  auto A = bench::random_hpd<T>(n, lda, 50 + static_cast<uint64_t>(n));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < n; ++i)
      if (uplo == Uplo::Lower ? i < j : i > j) A[static_cast<std::size_t>(i + j * lda)] = T(-7.25);
  auto F = A;
  int64_t info = -1;
  test::must_finish("potrf", [&] { info = potrf<T>(uplo, n, F.data(), lda, Options{nb}); });
  ASSERT_EQ(info, 0);
  EXPECT_LT(bench::potrf_residual<T>(uplo, n, A.data(), lda, F.data(), lda), kThreshold);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < n; ++i) {
      if (uplo == Uplo::Lower ? i >= j : i <= j) continue;
      const auto at = static_cast<std::size_t>(i + j * lda);
      ASSERT_EQ(std::memcmp(&F[at], &A[at], sizeof(T)), 0)
          << "the unreferenced triangle changed at (" << i << ", " << j << ")";
    }
}

TEST(HerkAsGemm, DiagonalUpdatesRunAsGemmsAndTheOtherTriangleStays) {
  auto device = std::make_shared<CountingDevice>();
  rt::RuntimeConfig rc;
  rc.num_workers = 1;
  rc.pin_threads = false;
  rc.host_computes = false;  // every update on the device
  rc.accelerators = {device};
  detail::init_runtime(rc);
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper}) {
    device->gemms = 0, device->herks = 0;
    check_potrf<double>(uplo, 200, 32);
    EXPECT_GT(device->gemms.load(), 0);
    EXPECT_EQ(device->herks.load(), 0) << "a diagonal update ran as HERK on the device";
    check_potrf<float>(uplo, 150, 24);
    check_potrf<std::complex<float>>(uplo, 120, 16);
    check_potrf<std::complex<double>>(uplo, 130, 32);
  }
  // herk() itself keeps BLAS semantics: the device gets HERK for it
  device->herks = 0;
  const int64_t n = 64, k = 40;
  const auto A = bench::random_matrix<double>(n, k, n, 3);
  std::vector<double> C(static_cast<std::size_t>(n * n), 5.0), C0 = C;
  herk(Uplo::Lower, Op::NoTrans, n, k, 1.0, A.data(), n, 1.0, C.data(), n, Options{16});
  for (int64_t j = 1; j < n; ++j)
    for (int64_t i = 0; i < j; ++i) EXPECT_EQ(C[static_cast<std::size_t>(i + j * n)], 5.0);
  EXPECT_GT(device->herks.load(), 0);
  finalize();
}

TEST(HerkAsGemm, EmulatedAndOpenClDevicesUnderMixedPlacement) {
  std::vector<std::string> mixes{"cpu,emu:speed=0.5:herk=gemm"};
  if (dev::built_backends().find("opencl") != std::string::npos)
    for (const auto& d : dev::probe_devices())
      if (d.kind == "opencl") {
        mixes.push_back("cpu,opencl");
        break;
      }
  for (const auto& mix : mixes) {
    SCOPED_TRACE(mix);
    for (Schedule s : {Schedule::Dynamic, Schedule::Static}) {
      Config c;
      c.devices = mix;
      c.schedule = s;
      init(c);
      check_potrf<double>(Uplo::Lower, 260, 32);
      check_potrf<std::complex<float>>(Uplo::Upper, 150, 24);
      finalize();
    }
  }
  EXPECT_THROW(dev::parse_devices("emu:herk=syrk"), std::invalid_argument);
}

}  // namespace
}  // namespace hetla
