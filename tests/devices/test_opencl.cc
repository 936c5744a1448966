// The OpenCL device (CLBlast): copies with a host leading dimension, gemm /
// herk / trsm in all four precisions against the host BLAS (ragged sizes,
// every transpose/side/triangle, BLAS quick paths, the untouched triangle),
// concurrent use from a worker and a foreign thread, clear errors, and tile
// Cholesky end to end on "opencl" and "cpu,opencl". Everything is skipped,
// with a message, when hetla was built without OpenCL or no OpenCL device
// exists (e.g. no ICD installed).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "checks.hpp"
#include "common/cholesky.hpp"
#include "devices/spec.hpp"
#include "hetla/hetla.hpp"
#include "kernels/host/blas.hpp"
#include "matgen.hpp"
#include "context/context.hpp"

namespace hetla {
namespace {

using test::Precisions;
using test::PrecisionName;

bool opencl_built() { return dev::built_backends().find("opencl") != std::string::npos; }

int opencl_devices() {
  int n = 0;
  for (const auto& d : dev::probe_devices()) n += d.kind == "opencl";
  return n;
}

#define HETLA_REQUIRE_OPENCL()                                                                              \
  do {                                                                                                      \
    if (!opencl_built()) GTEST_SKIP() << "hetla was built without OpenCL (configure -DHETLA_WITH_OPENCL=ON)"; \
    if (opencl_devices() == 0) GTEST_SKIP() << "no OpenCL platform/device on this machine (install an ICD, e.g. pocl-opencl-icd)"; \
  } while (0)

/// The first OpenCL device, opened once for the device-level tests (every
/// context compiles its CLBlast kernels anew).
std::shared_ptr<dev::Device> open_device() {
  static std::shared_ptr<dev::Device> device = [] {
    auto set = dev::parse_devices("opencl:0");
    if (set.accelerators.size() != 1) throw std::runtime_error("opencl:0 did not open one device");
    return set.accelerators[0];
  }();
  return device;
}

/// A device buffer holding a host matrix (rows x cols, host leading dimension
/// ld) contiguously; freed on destruction.
class DeviceMatrix {
 public:
  template <typename T>
  DeviceMatrix(dev::Device& d, const std::vector<T>& host, int64_t rows, int64_t cols, int64_t ld)
      : d_(d), bytes_(static_cast<std::size_t>(rows * cols) * sizeof(T)), rows_(rows), cols_(cols) {
    p_ = d_.allocate(bytes_);
    if (!p_) throw std::runtime_error("device allocation failed");
    d_.copy_in(p_, host.data(), ld, rows, cols, sizeof(T));
  }
  ~DeviceMatrix() { d_.deallocate(p_, bytes_); }
  DeviceMatrix(const DeviceMatrix&) = delete;
  DeviceMatrix& operator=(const DeviceMatrix&) = delete;
  template <typename T> T* ptr() const { return static_cast<T*>(p_); }
  template <typename T> std::vector<T> download() const {
    std::vector<T> h(static_cast<std::size_t>(rows_ * cols_));
    d_.copy_out(h.data(), rows_, p_, rows_, cols_, sizeof(T));
    return h;
  }

 private:
  dev::Device& d_;
  std::size_t bytes_;
  int64_t rows_, cols_;
  void* p_ = nullptr;
};

template <typename T> double max_abs_diff(const std::vector<T>& a, const std::vector<T>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, static_cast<double>(std::abs(a[i] - b[i])));
  return m;
}

/// re + i im for complex T, re for real T.
template <typename T> T scalar(double re, double im) {
  if constexpr (is_complex_v<T>) return T(static_cast<real_t<T>>(re), static_cast<real_t<T>>(im));
  else return static_cast<T>(re);
}

const char* op_name(Op op) { return op == Op::NoTrans ? "N" : op == Op::Trans ? "T" : "C"; }

// ------------------------------------------------------------ device level

TEST(OpenCLDevice, ProbeAndCapabilities) {
  HETLA_REQUIRE_OPENCL();
  bool seen = false;
  for (const auto& info : dev::probe_devices()) {
    if (info.kind != "opencl") continue;
    seen = true;
    EXPECT_FALSE(info.name.empty());
    EXPECT_GT(info.memory, 0u);
    EXPECT_FALSE(info.detail.empty());
    std::printf("  opencl:%d  %s  %.1f GiB  (%s)\n", info.index, info.name.c_str(),
                static_cast<double>(info.memory) / (1 << 30), info.detail.c_str());
  }
  EXPECT_TRUE(seen);
  auto d = open_device();
  EXPECT_EQ(d->kind(), dev::Kind::OpenCL);
  EXPECT_EQ(d->name(), "opencl0");
  EXPECT_EQ(d->num_workers(), 1);
  EXPECT_TRUE(d->has_kernel(dev::KernelId::Gemm));
  EXPECT_TRUE(d->has_kernel(dev::KernelId::Herk));
  EXPECT_TRUE(d->has_kernel(dev::KernelId::Trsm));
  EXPECT_FALSE(d->has_kernel(dev::KernelId::Potrf)) << "CLBlast has no potrf: it must stay on the host";
  EXPECT_GT(d->nominal_speed(), 0);
  EXPECT_GT(d->bandwidth_hint(), 0);
  EXPECT_GT(d->memory_capacity(), 0u);
  EXPECT_EQ(d->memory_used(), 0u);
}

TEST(OpenCLDevice, CopyRoundTripWithHostLeadingDimension) {
  HETLA_REQUIRE_OPENCL();
  auto d = open_device();
  const int64_t rows = 37, cols = 23, ld_in = 50, ld_out = 45;
  auto check = [&](auto tag) {
    using T = decltype(tag);
    auto host = bench::random_matrix<T>(rows, cols, ld_in, 7);
    const std::size_t before = d->memory_used();
    {
      DeviceMatrix m(*d, host, rows, cols, ld_in);
      EXPECT_EQ(d->memory_used(), before + static_cast<std::size_t>(rows * cols) * sizeof(T));
      std::vector<T> out(static_cast<std::size_t>(ld_out * cols), T(-99));
      d->copy_out(out.data(), ld_out, m.template ptr<T>(), rows, cols, sizeof(T));
      for (int64_t j = 0; j < cols; ++j)
        for (int64_t i = 0; i < ld_out; ++i) {
          const T expect = i < rows ? host[i + j * ld_in] : T(-99);  // padding rows untouched
          ASSERT_EQ(std::memcmp(&out[i + j * ld_out], &expect, sizeof(T)), 0) << i << ", " << j;
        }
      EXPECT_EQ(m.template download<T>().size(), static_cast<std::size_t>(rows * cols));
    }
    EXPECT_EQ(d->memory_used(), before);
  };
  check(float{});
  check(double{});
  check(std::complex<float>{});
  check(std::complex<double>{});
}

template <typename T> class OpenCLKernels : public testing::Test {};
TYPED_TEST_SUITE(OpenCLKernels, Precisions, PrecisionName);

/// Elementwise error bound for sums of k products of entries |x| <= 1
/// (complex: |x| <= sqrt 2), with a safety factor.
template <typename T> double gemm_tol(int64_t k, double scale) {
  return 8.0 * static_cast<double>(k + 2) * scale * static_cast<double>(bench::eps<T>());
}

TYPED_TEST(OpenCLKernels, GemmMatchesHostBlas) {
  HETLA_REQUIRE_OPENCL();
  using T = TypeParam;
  auto d = open_device();
  const T alpha = is_complex_v<T> ? scalar<T>(0.7, -0.4) : scalar<T>(-1.3, 0);
  const T beta = scalar<T>(0.75, 0.25);
  struct Size {
    int64_t m, n, k;
  };
  for (Size s : {Size{37, 29, 50}, Size{64, 64, 64}, Size{1, 7, 3}, Size{130, 97, 128}})
    for (Op ta : {Op::NoTrans, Op::Trans, Op::ConjTrans})
      for (Op tb : {Op::NoTrans, Op::Trans, Op::ConjTrans}) {
        SCOPED_TRACE(testing::Message() << op_name(ta) << op_name(tb) << " m=" << s.m << " n=" << s.n << " k=" << s.k);
        const int64_t ar = ta == Op::NoTrans ? s.m : s.k, ac = ta == Op::NoTrans ? s.k : s.m;
        const int64_t br = tb == Op::NoTrans ? s.k : s.n, bc = tb == Op::NoTrans ? s.n : s.k;
        auto A = bench::random_matrix<T>(ar, ac, ar, 1);
        auto B = bench::random_matrix<T>(br, bc, br, 2);
        auto C = bench::random_matrix<T>(s.m, s.n, s.m, 3);
        DeviceMatrix dA(*d, A, ar, ac, ar), dB(*d, B, br, bc, br), dC(*d, C, s.m, s.n, s.m);
        d->kernels<T>().gemm(ta, tb, s.m, s.n, s.k, alpha, dA.ptr<T>(), ar, dB.ptr<T>(), br, beta, dC.ptr<T>(), s.m);
        blas::gemm(ta, tb, s.m, s.n, s.k, alpha, A.data(), ar, B.data(), br, beta, C.data(), s.m);
        EXPECT_LE(max_abs_diff(dC.download<T>(), C), gemm_tol<T>(s.k, 2.0 * static_cast<double>(s.k) + 1));
      }
}

TYPED_TEST(OpenCLKernels, HerkMatchesHostBlasAndKeepsOtherTriangle) {
  HETLA_REQUIRE_OPENCL();
  using T = TypeParam;
  using R = real_t<T>;
  auto d = open_device();
  for (int64_t n : {37, 64, 100})
    for (int64_t k : {29, 64})
      for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
        for (Op op : {Op::NoTrans, Op::ConjTrans}) {
          SCOPED_TRACE(testing::Message() << test::uplo_name(uplo) << " " << op_name(op) << " n=" << n << " k=" << k);
          const int64_t ar = op == Op::NoTrans ? n : k, ac = op == Op::NoTrans ? k : n;
          auto A = bench::random_matrix<T>(ar, ac, ar, 4);
          auto C = bench::random_matrix<T>(n, n, n, 5);
          for (int64_t j = 0; j < n; ++j)  // the other triangle: poison that must come back bitwise
            for (int64_t i = 0; i < n; ++i)
              if (!test::in_triangle(uplo, i, j)) C[i + j * n] = test::poison<T>(i + j * n);
          DeviceMatrix dA(*d, A, ar, ac, ar), dC(*d, C, n, n, n);
          d->kernels<T>().herk(uplo, op, n, k, R(-1), dA.ptr<T>(), ar, R(0.5), dC.ptr<T>(), n);
          blas::herk(uplo, op, n, k, R(-1), A.data(), ar, R(0.5), C.data(), n);
          auto got = dC.download<T>();
          double err = 0;
          for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i) {
              const std::size_t x = static_cast<std::size_t>(i + j * n);
              if (test::in_triangle(uplo, i, j)) err = std::max(err, static_cast<double>(std::abs(got[x] - C[x])));
              else ASSERT_EQ(std::memcmp(&got[x], &C[x], sizeof(T)), 0) << "other triangle changed at " << i << ", " << j;
            }
          EXPECT_LE(err, gemm_tol<T>(k, 2.0 * static_cast<double>(k) + 1));
        }
}

TYPED_TEST(OpenCLKernels, TrsmMatchesHostBlas) {
  HETLA_REQUIRE_OPENCL();
  using T = TypeParam;
  auto d = open_device();
  const T alpha = scalar<T>(1.5, 0.5);
  for (int64_t m : {37, 64})
    for (int64_t n : {29, 70})
      for (Side side : {Side::Left, Side::Right})
        for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
          for (Op op : {Op::NoTrans, Op::Trans, Op::ConjTrans})
            for (Diag diag : {Diag::NonUnit, Diag::Unit}) {
              SCOPED_TRACE(testing::Message() << (side == Side::Left ? "L" : "R") << test::uplo_name(uplo)
                                              << op_name(op) << (diag == Diag::Unit ? "U" : "N") << " m=" << m
                                              << " n=" << n);
              const int64_t na = side == Side::Left ? m : n;
              // Well conditioned: small off-diagonal entries, a dominant diagonal.
              auto A = bench::random_matrix<T>(na, na, na, 6);
              for (int64_t j = 0; j < na; ++j)
                for (int64_t i = 0; i < na; ++i)
                  A[i + j * na] = i == j ? A[i + j * na] + T(real_t<T>(2)) : A[i + j * na] / real_t<T>(na);
              auto B = bench::random_matrix<T>(m, n, m, 7);
              DeviceMatrix dA(*d, A, na, na, na), dB(*d, B, m, n, m);
              d->kernels<T>().trsm(side, uplo, op, diag, m, n, alpha, dA.ptr<T>(), na, dB.ptr<T>(), m);
              blas::trsm(side, uplo, op, diag, m, n, alpha, A.data(), na, B.data(), m);
              EXPECT_LE(max_abs_diff(dB.download<T>(), B), gemm_tol<T>(na, 4.0));
            }
}

TYPED_TEST(OpenCLKernels, BlasQuickPathsAndDirectPotrf) {
  HETLA_REQUIRE_OPENCL();
  using T = TypeParam;
  using R = real_t<T>;
  auto d = open_device();
  const int64_t n = 21;
  auto C = bench::random_matrix<T>(n, n, n, 8);
  auto A = bench::random_matrix<T>(n, n, n, 9);
  {  // gemm with k = 0 scales C by beta; alpha = 0 never reads A, B (NaN there)
    DeviceMatrix dC(*d, C, n, n, n);
    std::vector<T> nan_matrix(static_cast<std::size_t>(n * n), test::poison<T>(1));
    DeviceMatrix dN(*d, nan_matrix, n, n, n);
    d->kernels<T>().gemm(Op::NoTrans, Op::NoTrans, n, n, 0, T(1), dN.ptr<T>(), n, dN.ptr<T>(), n, T(2), dC.ptr<T>(), n);
    d->kernels<T>().gemm(Op::NoTrans, Op::NoTrans, n, n, n, T(0), dN.ptr<T>(), n, dN.ptr<T>(), n, T(3), dC.ptr<T>(), n);
    auto got = dC.download<T>();
    for (std::size_t i = 0; i < C.size(); ++i) ASSERT_EQ(got[i], T(6) * C[i]) << i;
    // trsm with alpha = 0 sets B to zero without reading A
    d->kernels<T>().trsm(Side::Left, Uplo::Lower, Op::NoTrans, Diag::NonUnit, n, n, T(0), dN.ptr<T>(), n,
                         dC.ptr<T>(), n);
    for (const T& v : dC.download<T>()) ASSERT_EQ(v, T(0));
  }
  {  // herk with k = 0: C = beta C on the triangle only, diagonal made real
    DeviceMatrix dC(*d, C, n, n, n), dA(*d, A, n, n, n);
    d->kernels<T>().herk(Uplo::Lower, Op::NoTrans, n, 0, R(1), dA.ptr<T>(), n, R(2), dC.ptr<T>(), n);
    auto ref = C;
    blas::herk(Uplo::Lower, Op::NoTrans, n, 0, R(1), A.data(), n, R(2), ref.data(), n);
    auto got = dC.download<T>();
    for (std::size_t i = 0; i < C.size(); ++i) ASSERT_EQ(got[i], ref[i]) << i;
  }
  {  // potrf of a tile (through the host: CLBlast has none), info as LAPACK's
    auto H = bench::random_hpd<T>(n, n, 10);
    DeviceMatrix dH(*d, H, n, n, n);
    EXPECT_EQ(d->kernels<T>().potrf(Uplo::Upper, n, dH.ptr<T>(), n), 0);
    EXPECT_EQ(blas::potrf(Uplo::Upper, n, H.data(), n), 0);
    EXPECT_EQ(max_abs_diff(dH.download<T>(), H), 0.0);
    auto N = bench::random_hpd<T>(n, n, 11);
    N[5 + 5 * n] = T(-1);
    DeviceMatrix dN(*d, N, n, n, n);
    EXPECT_EQ(d->kernels<T>().potrf(Uplo::Lower, n, dN.ptr<T>(), n), 6);
  }
}

TEST(OpenCLDevice, KernelErrorsAreClearExceptions) {
  HETLA_REQUIRE_OPENCL();
  auto d = open_device();
  std::vector<double> A(64 * 64, 1.0);
  DeviceMatrix dA(*d, A, 64, 64, 64);
  try {  // leading dimension too small for m
    d->kernels<double>().gemm(Op::NoTrans, Op::NoTrans, 64, 64, 64, 1.0, dA.ptr<double>(), 10, dA.ptr<double>(), 64,
                              0.0, dA.ptr<double>(), 64);
    FAIL() << "gemm with lda < m must throw";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("opencl0 ("), std::string::npos) << what;
    EXPECT_NE(what.find("CLBlast Gemm failed: code"), std::string::npos) << what;
  }
  try {  // the buffer is too small for a 64 x 100 matrix
    d->kernels<double>().trsm(Side::Left, Uplo::Lower, Op::NoTrans, Diag::NonUnit, 64, 100, 1.0, dA.ptr<double>(), 64,
                              dA.ptr<double>(), 64);
    FAIL() << "trsm on a too small buffer must throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("CLBlast Trsm failed"), std::string::npos) << e.what();
  }
  EXPECT_THROW(d->copy_in(dA.ptr<double>(), A.data(), 10, 64, 64, sizeof(double)), std::invalid_argument);
  // The device still works after the errors.
  d->kernels<double>().gemm(Op::NoTrans, Op::NoTrans, 64, 64, 64, 1.0, dA.ptr<double>(), 64, dA.ptr<double>(), 64,
                            0.0, dA.ptr<double>(), 64);
}

TEST(OpenCLDevice, WorkerAndForeignThreadsConcurrently) {
  HETLA_REQUIRE_OPENCL();
  auto d = open_device();
  const int64_t n = 96;
  auto A = bench::random_matrix<double>(n, n, n, 12);
  auto B = bench::random_matrix<double>(n, n, n, 13);
  std::vector<double> C0(static_cast<std::size_t>(n * n), 0.0), C = C0;
  blas::gemm(Op::NoTrans, Op::Trans, n, n, n, 1.0, A.data(), n, B.data(), n, 0.0, C.data(), n);
  DeviceMatrix dA(*d, A, n, n, n), dB(*d, B, n, n, n);
  std::string worker_error;
  std::thread worker([&] {  // the runtime's device thread: its own queue
    try {
      d->attach_worker(0);
      DeviceMatrix dC(*d, C0, n, n, n);
      for (int r = 0; r < 20; ++r) {
        d->kernels<double>().gemm(Op::NoTrans, Op::Trans, n, n, n, 1.0, dA.ptr<double>(), n, dB.ptr<double>(), n, 0.0,
                                  dC.ptr<double>(), n);
        if (max_abs_diff(dC.download<double>(), C) > 1e-12) worker_error = "wrong gemm result on the worker queue";
      }
    } catch (const std::exception& e) {
      worker_error = e.what();
    }
  });
  for (int r = 0; r < 200; ++r) {  // another thread (coherence fetches): the shared queue
    DeviceMatrix dX(*d, A, n, n, n);
    ASSERT_EQ(max_abs_diff(dX.download<double>(), A), 0.0);
  }
  worker.join();
  EXPECT_EQ(worker_error, "");
  EXPECT_THROW(d->attach_worker(1), std::out_of_range);
}

// ------------------------------------------------------------ end to end

struct ContextGuard {
  ~ContextGuard() { hetla::init(); }  // back to the default (cpu) context
};

/// potrf of one precision, both triangles, on the current context (host +
/// one OpenCL device); checks the residual, the untouched other triangle and
/// the release of device memory; with `every_call_uses_device`, that the
/// device ran tasks in each call. Returns the tasks run by {host, device}.
template <typename T>
std::pair<uint64_t, uint64_t> potrf_on_devices(int64_t n, int64_t nb, bool every_call_uses_device) {
  std::pair<uint64_t, uint64_t> total{0, 0};
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper}) {
    SCOPED_TRACE(testing::Message() << precision_letter<T>() << " " << test::uplo_name(uplo) << " n=" << n
                                    << " nb=" << nb);
    const int64_t lda = n + 3;
    const auto A0 = test::hpd_input<T>(uplo, n, lda, static_cast<uint64_t>(n));
    auto A = A0;
    {
      detail::CallScope scope;
      scope.rt().reset_stats();
    }
    const int64_t info = potrf<T>(uplo, n, A.data(), lda, Options{nb});
    EXPECT_EQ(info, 0);
    if (info != 0) return total;
    EXPECT_LT(bench::potrf_residual(uplo, n, A0.data(), lda, A.data(), lda), bench::kResidualThreshold);
    std::string where;
    EXPECT_EQ(test::count_changed_outside(uplo, n, lda, A0.data(), A.data(), &where), 0)
        << "entries outside the triangle changed, first at " << where;
    detail::CallScope scope;
    auto& rt = scope.rt();
    if (rt.num_devices() != 2 || rt.device(1).kind() != dev::Kind::OpenCL) {
      ADD_FAILURE() << "expected the host and one OpenCL device, got " << rt.num_devices() << " devices";
      return total;
    }
    const auto stats = rt.stats();
    if (every_call_uses_device) {
      EXPECT_GT(stats[1].tasks, 0u) << "the OpenCL device ran no task";
    }
    EXPECT_EQ(rt.device(1).memory_used(), 0u) << "device memory not released after the call";
    total.first += stats[0].tasks;
    total.second += stats[1].tasks;
    std::printf("  %c %s n=%lld nb=%lld: cpu %llu tasks, opencl %llu tasks (%.1f MB in, %.1f MB out)\n",
                precision_letter<T>(), test::uplo_name(uplo), static_cast<long long>(n), static_cast<long long>(nb),
                static_cast<unsigned long long>(stats[0].tasks), static_cast<unsigned long long>(stats[1].tasks),
                static_cast<double>(stats[1].bytes_in) / 1e6, static_cast<double>(stats[1].bytes_out) / 1e6);
  }
  return total;
}

/// Sizes per precision: n in 300..700, nb in 64..128, ragged last tiles.
struct PotrfCase {
  int64_t n, nb;
};
template <typename T> PotrfCase opencl_only_case() {
  if constexpr (std::is_same_v<T, float>) return {517, 128};
  else if constexpr (std::is_same_v<T, double>) return {300, 64};
  else if constexpr (std::is_same_v<T, std::complex<float>>) return {450, 96};
  else return {333, 64};
}
template <typename T> PotrfCase mixed_case() {
  if constexpr (std::is_same_v<T, float>) return {700, 64};
  else if constexpr (std::is_same_v<T, double>) return {640, 100};
  else if constexpr (std::is_same_v<T, std::complex<float>>) return {389, 64};
  else return {400, 80};
}

// One test per precision: the first use of a precision compiles its CLBlast
// kernels (slow on POCL with a cold kernel cache), so each test pays for at
// most one precision.
template <typename T> class OpenCLPotrf : public testing::Test {};
TYPED_TEST_SUITE(OpenCLPotrf, Precisions, PrecisionName);

TYPED_TEST(OpenCLPotrf, OpenCLOnlyThenCpuAndOpenCL) {
  HETLA_REQUIRE_OPENCL();
  using T = TypeParam;
  ContextGuard restore;
  {  // without `cpu` the host runs only what the device cannot: potrf
    hetla::init(Config{.devices = "opencl"});
    const auto c = opencl_only_case<T>();
    potrf_on_devices<T>(c.n, c.nb, true);
  }
  {  // placement shares the work; the device must get some of it
    hetla::init(Config{.devices = "cpu,opencl"});
    const auto c = mixed_case<T>();
    potrf_on_devices<T>(c.n, c.nb, false);
  }
}

TEST(OpenCLPotrf, CpuAndOpenCLShareWork) {
  HETLA_REQUIRE_OPENCL();
  ContextGuard restore;
  hetla::init(Config{.devices = "cpu,opencl"});
  const auto [host_tasks, device_tasks] = potrf_on_devices<double>(700, 64, false);
  EXPECT_GT(host_tasks, 0u) << "with cpu,opencl the host cores ran nothing";
  EXPECT_GT(device_tasks, 0u) << "with cpu,opencl the OpenCL device never got a task";
}

TEST(OpenCLPotrf, MemoryLimitForcesEviction) {
  HETLA_REQUIRE_OPENCL();
  dev::DeviceSet set;
  try {
    set = dev::parse_devices("opencl:0:mem=1M");
  } catch (const std::invalid_argument& e) {
    GTEST_SKIP() << "the device list does not pass options to opencl yet: " << e.what();
  }
  ASSERT_EQ(set.accelerators.size(), 1u);
  EXPECT_EQ(set.accelerators[0]->memory_capacity(), std::size_t(1) << 20);
  set.accelerators.clear();
  EXPECT_THROW(dev::parse_devices("opencl:0:mem=lots"), std::invalid_argument);
  EXPECT_THROW(dev::parse_devices("opencl:0:speed=2"), std::invalid_argument);
  ContextGuard restore;
  hetla::init(Config{.devices = "opencl:0:mem=1M"});  // 1 MiB: 32 tiles of 64 x 64 doubles, the triangle has 55
  const int64_t n = 640, lda = n;
  const auto A0 = test::hpd_input<double>(Uplo::Lower, n, lda, 3);
  auto A = A0;
  ASSERT_EQ(potrf<double>(Uplo::Lower, n, A.data(), lda, Options{64}), 0);
  EXPECT_LT(bench::potrf_residual(Uplo::Lower, n, A0.data(), lda, A.data(), lda), bench::kResidualThreshold);
  detail::CallScope scope;
  const auto stats = scope.rt().stats();
  EXPECT_GT(stats[1].tasks, 0u);
  EXPECT_GT(stats[1].evictions, 0u);
  std::printf("  opencl (1 MiB): %llu tasks, %llu evictions\n", static_cast<unsigned long long>(stats[1].tasks),
              static_cast<unsigned long long>(stats[1].evictions));
}

TEST(OpenCLDeviceList, BadIndexIsAClearError) {
  HETLA_REQUIRE_OPENCL();
  ContextGuard restore;
  try {
    hetla::init(Config{.devices = "opencl:99"});
    FAIL() << "opencl:99 must be rejected";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("opencl:99"), std::string::npos) << what;
    EXPECT_NE(what.find("no OpenCL device 99"), std::string::npos) << what;
  }
  EXPECT_THROW(dev::parse_devices("opencl:x"), std::invalid_argument);
  EXPECT_THROW(dev::parse_devices("opencl:-1"), std::invalid_argument);
  auto all = dev::parse_devices("opencl:all");
  EXPECT_EQ(static_cast<int>(all.accelerators.size()), opencl_devices());
}


// Fault injection on a real device (devices/fault.hpp): the K-th OpenCL kernel
// throws the dev::DeviceError a failing CLBlast call would; the runtime drops
// the device and finishes the call on the host cores (docs/reliability.md).
// Static 1-D cyclic: the device owns every other tile column, so it runs a
// second kernel for sure. n = 256: ~0.3 s each once POCL's cache is warm.
std::vector<double> factor_on(const std::string& devices, bool lu, std::vector<int64_t>* ipiv) {
  ContextGuard restore;
  Config cfg;
  cfg.devices = devices;
  cfg.schedule = Schedule::Static;
  hetla::init(cfg);
  constexpr int64_t n = 256;
  Options o;
  o.nb = 64;
  o.distribution = Distribution::OneD;
  std::vector<double> A;
  if (lu) {
    A = bench::random_matrix<double>(n, n, n, 2);
    ipiv->assign(n, 0);
    EXPECT_EQ(getrf<double>(n, n, A.data(), n, ipiv->data(), o), 0);
  } else {
    A = bench::random_hpd<double>(n, n, 1);
    EXPECT_EQ(potrf<double>(Uplo::Lower, n, A.data(), n, o), 0);
  }
  const auto rec = last_recoveries();
  const bool faulty = devices.find("fail=") != std::string::npos;
  EXPECT_EQ(rec.size(), faulty ? 1u : 0u) << devices;
  for (const auto& r : rec) {
    EXPECT_EQ(r.device, "opencl0");
    EXPECT_NE(r.error.find("kernel 2 failed (injected fault)"), std::string::npos) << r.error;
    EXPECT_GE(r.tasks_rerun, 1u);
  }
  return A;
}

TEST(OpenCLRecovery, InjectedKernelFaultIsRecoveredOnTheHost) {
  HETLA_REQUIRE_OPENCL();
  for (bool lu : {false, true}) {
    SCOPED_TRACE(lu ? "getrf" : "potrf");
    std::vector<int64_t> want_piv, got_piv;
    const auto want = factor_on("cpu", lu, &want_piv);
    const auto got = factor_on("cpu,opencl:fail=kernel@2", lu, &got_piv);
    ASSERT_EQ(got.size(), want.size());
    double diff = 0, scale = 0;  // OpenCL's kernels round differently from the host BLAS: not bit for bit
    for (std::size_t i = 0; i < got.size(); ++i)
      diff = std::max(diff, std::abs(got[i] - want[i])), scale = std::max(scale, std::abs(want[i]));
    EXPECT_LT(diff / scale, 1e-10);  // a lost or stale tile shows as O(1)
    EXPECT_EQ(got_piv, want_piv);
  }
}



// The benchmarks' warm-up (dev::warm_up_kernels) runs outside any call with
// the device's faults paused: its kernels must not count toward fail=kernel@K,
// or the fault fires where no runtime recovers it (hetla bench ...
// opencl:fail=kernel@2 was an error). The pause itself, on one small gemm (the
// whole warm-up builds every variant: 19 s on a fresh context here).
TEST(OpenCLRecovery, PausedFaultsDoNotCount) {
  HETLA_REQUIRE_OPENCL();
  auto set = dev::parse_devices("opencl:0:fail=kernel@1");
  ASSERT_EQ(set.accelerators.size(), 1u);
  dev::Device& d = *set.accelerators[0];
  std::vector<double> h(16, 1.0);
  DeviceMatrix a(d, h, 4, 4, 4), c(d, h, 4, 4, 4);
  auto gemm = [&] {
    d.kernels<double>().gemm(Op::NoTrans, Op::NoTrans, 4, 4, 4, 1.0, a.ptr<double>(), 4, a.ptr<double>(), 4, 0.0,
                             c.ptr<double>(), 4);
  };
  d.pause_faults(true);
  EXPECT_NO_THROW(gemm());
  d.pause_faults(false);
  try {
    gemm();
    ADD_FAILURE() << "fail=kernel@1: the first kernel outside the pause must throw";
  } catch (const dev::DeviceError& e) {
    EXPECT_EQ(e.device(), &d);
    EXPECT_NE(std::string(e.what()).find("kernel 1 failed (injected fault)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hetla
