// Every algorithm on every device mix (issue #4): LU (getrf, gesv), QR
// (geqrf, unmqr, ungqr, gels) and Cholesky, in double and complex<float>, on
// emulated accelerators with and without the host cores, under every
// distribution and both scheduling modes, on OpenCL when present, and with
// placement forced at random (property test). Residuals use the thresholds of
// the host tests; the accelerators must have run tasks, including the trailing
// kernels that used to be host-only (laswp, trmm). Also: double-precision
// tasks never reach a device without fp64, and capability-weight keys name
// the hardware, not the enumeration index.
#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "checks.hpp"
#include "checks_lu.hpp"
#include "checks_qr.hpp"
#include "common/host_memory_device.hpp"
#include "common/watchdog.hpp"
#include "devices/host/host_device.hpp"
#include "devices/spec.hpp"
#include "hetla/hetla.hpp"
#include "kernels/host/lapack_qr.hpp"
#include "matgen.hpp"
#include "context/context.hpp"
#include "trace/trace.hpp"
#include "tune/calibrate.hpp"

namespace hetla {
namespace {

constexpr double kThreshold = bench::kResidualThreshold;

struct Mix {
  const char* devices;
  Schedule schedule;
  Distribution dist;
};

std::vector<rt::DeviceStats> stats_now() {
  detail::CallScope scope;
  return scope.rt().stats();
}
void reset_stats() {
  detail::CallScope scope;
  scope.rt().reset_stats();
}

/// Labels of the tasks that accelerators (not the host cores) ran during f().
/// (The calls in f() run on must_finish's thread: no CallScope is held meanwhile.)
template <typename F> std::set<std::string> accelerator_kernels(F&& f) {
  std::unique_ptr<trace::Recorder> rec;
  {
    detail::CallScope scope;
    rec = std::make_unique<trace::Recorder>(scope.rt().num_trace_rows());
    scope.rt().set_trace(rec.get());
  }
  struct Stop {
    ~Stop() {
      detail::CallScope scope;
      scope.rt().set_trace(nullptr);
    }
  } stop;
  f();
  detail::CallScope scope;
  rt::Runtime& rt = scope.rt();
  std::set<std::string> out;
  for (const auto& e : rec->events())
    if (!trace::is_transfer(e) && e.worker < rt.num_workers() && rt.device_of_worker(e.worker) != 0)
      out.insert(e.label);
  return out;
}

bool opencl_available() {
  if (dev::built_backends().find("opencl") == std::string::npos) return false;
  for (const auto& d : dev::probe_devices())
    if (d.kind == "opencl") return true;
  return false;
}

// ---------------------------------------------------------------- LU

template <typename T> void check_lu(const Options& base, int64_t m, int64_t n, int64_t nb) {
  SCOPED_TRACE("getrf m=" + std::to_string(m) + " n=" + std::to_string(n) + " nb=" + std::to_string(nb));
  const int64_t lda = m + 2;
  const auto A = bench::random_matrix<T>(m, n, lda, 100 + static_cast<uint64_t>(m));
  auto F = A;
  std::vector<int64_t> ipiv(static_cast<std::size_t>(std::min(m, n)));
  Options o = base;
  o.nb = nb;
  int64_t info = -1;
  test::must_finish("getrf", [&] { info = getrf<T>(m, n, F.data(), lda, ipiv.data(), o); });
  EXPECT_EQ(info, 0);
  EXPECT_LT(bench::getrf_residual(m, n, A.data(), lda, F.data(), lda, ipiv.data()), kThreshold);
}

template <typename T> void check_gesv(const Options& base, int64_t n, int64_t nrhs, int64_t nb) {
  SCOPED_TRACE("gesv n=" + std::to_string(n));
  const auto A = bench::random_matrix<T>(n, n, n, 7);
  const auto B = bench::random_matrix<T>(n, nrhs, n, 8);
  auto F = A, X = B;
  std::vector<int64_t> ipiv(static_cast<std::size_t>(n));
  Options o = base;
  o.nb = nb;
  int64_t info = -1;
  test::must_finish("gesv", [&] { info = gesv<T>(n, nrhs, F.data(), n, ipiv.data(), X.data(), n, o); });
  ASSERT_EQ(info, 0);
  EXPECT_LT(bench::solve_residual<T>(n, n, nrhs, A.data(), n, X.data(), n, B.data(), n), kThreshold);
}

// ---------------------------------------------------------------- QR

template <typename T> void check_qr(const Options& base, int64_t m, int64_t n, int64_t nb) {
  SCOPED_TRACE("geqrf/unmqr/ungqr m=" + std::to_string(m) + " n=" + std::to_string(n) + " nb=" + std::to_string(nb));
  const int64_t k = std::min(m, n);
  const auto A = bench::random_matrix<T>(m, n, m, 200 + static_cast<uint64_t>(n));
  auto F = A;
  std::vector<T> tau(static_cast<std::size_t>(k));
  Options o = base;
  o.nb = nb;
  test::must_finish("geqrf", [&] { geqrf<T>(m, n, F.data(), m, tau.data(), o); });
  EXPECT_LT(bench::qr_residual(m, n, A.data(), m, F.data(), m, tau.data()), kThreshold);

  // Q (m x m) by LAPACK from our factor: the reference for unmqr and ungqr
  std::vector<T> Q(static_cast<std::size_t>(m * m), T(0));
  for (int64_t j = 0; j < k; ++j)
    for (int64_t i = 0; i < m; ++i) Q[i + j * m] = F[i + j * m];
  blas::ungqr(m, m, k, Q.data(), m, tau.data());
  EXPECT_LT(bench::orthogonality_residual(m, k, Q.data(), m), kThreshold);

  // unmqr: Q^H C (left) and C Q (right)
  const int64_t nc = 37;
  const auto C0 = bench::random_matrix<T>(m, nc, m, 300);
  auto C = C0;
  std::vector<T> Cref(C0.size());
  test::must_finish("unmqr", [&] {
    unmqr<T>(Side::Left, Op::ConjTrans, m, nc, k, F.data(), m, tau.data(), C.data(), m, o);
  });
  blas::gemm(Op::ConjTrans, Op::NoTrans, m, nc, m, T(1), Q.data(), m, C0.data(), m, T(0), Cref.data(), m);
  EXPECT_LT(bench::relative_difference(m, nc, C.data(), m, Cref.data(), m, m), kThreshold) << "Q^H C";
  const auto D0 = bench::random_matrix<T>(nc, m, nc, 301);
  auto D = D0;
  std::vector<T> Dref(D0.size());
  test::must_finish("unmqr", [&] {
    unmqr<T>(Side::Right, Op::NoTrans, nc, m, k, F.data(), m, tau.data(), D.data(), nc, o);
  });
  blas::gemm(Op::NoTrans, Op::NoTrans, nc, m, m, T(1), D0.data(), nc, Q.data(), m, T(0), Dref.data(), nc);
  EXPECT_LT(bench::relative_difference(nc, m, D.data(), nc, Dref.data(), nc, m), kThreshold) << "C Q";

  // ungqr: the first k columns of Q in place of the factor
  if (m >= n) {
    auto G = F;
    test::must_finish("ungqr", [&] { ungqr<T>(m, n, k, G.data(), m, tau.data(), o); });
    EXPECT_LT(bench::relative_difference(m, n, G.data(), m, Q.data(), m, m), kThreshold) << "ungqr";
  }
}

template <typename T> void check_gels(const Options& base, int64_t m, int64_t n, int64_t nrhs, int64_t nb) {
  SCOPED_TRACE("gels m=" + std::to_string(m) + " n=" + std::to_string(n));
  const int64_t ldb = std::max(m, n);
  const auto A = bench::random_matrix<T>(m, n, m, 400);
  const auto B = bench::random_matrix<T>(ldb, nrhs, ldb, 401);
  auto F = A, X = B;
  Options o = base;
  o.nb = nb;
  int64_t info = -1;
  test::must_finish("gels", [&] { info = gels<T>(Op::NoTrans, m, n, nrhs, F.data(), m, X.data(), ldb, o); });
  ASSERT_EQ(info, 0);
  EXPECT_LT(bench::least_squares_residual(Op::NoTrans, m, n, nrhs, A.data(), m, X.data(), ldb, B.data(), ldb),
            kThreshold);
}

// ---------------------------------------------------------------- Cholesky

template <typename T> void check_potrf(const Options& base, int64_t n, int64_t nb) {
  SCOPED_TRACE("potrf n=" + std::to_string(n));
  const auto A = bench::random_hpd<T>(n, n, 11);
  auto F = A;
  Options o = base;
  o.nb = nb;
  int64_t info = -1;
  test::must_finish("potrf", [&] { info = potrf<T>(Uplo::Lower, n, F.data(), n, o); });
  EXPECT_EQ(info, 0);
  EXPECT_LT(bench::potrf_residual(Uplo::Lower, n, A.data(), n, F.data(), n), kThreshold);
}

template <typename T> void all_algorithms(const Options& o, bool small) {
  const int64_t s = small ? 2 : 1;  // OpenCL (POCL) runs CLBlast far below the host BLAS: smaller problems
  check_lu<T>(o, 260 / s, 230 / s, 48 / s);
  check_gesv<T>(o, 170 / s, 4, 32);
  check_qr<T>(o, 250 / s, 190 / s, 40 / s);
  check_gels<T>(o, 230 / s, 150 / s, 3, 40 / s);
  check_gels<T>(o, 150 / s, 230 / s, 3, 40 / s);  // minimum norm (LQ)
  check_potrf<T>(o, 260 / s, 48 / s);
}

/// Every algorithm in `precision`, then: every accelerator ran tasks and (when
/// `trailing_kernels` lists some) the accelerators ran those kernels.
template <typename T> void run_mix(const Mix& s, bool small, const std::set<std::string>& trailing_kernels) {
  reset_stats();
  Options o;
  o.distribution = s.dist;
  const auto labels = accelerator_kernels([&] { all_algorithms<T>(o, small); });
  const auto st = stats_now();
  for (std::size_t d = 1; d < st.size(); ++d) {
    EXPECT_GT(st[d].tasks, 0u) << "accelerator " << d << " ran nothing";
    EXPECT_GT(st[d].bytes_in, 0u);
  }
  for (const auto& k : trailing_kernels) EXPECT_TRUE(labels.count(k)) << k << " never ran on an accelerator";
}

class AlgorithmsOnDevices : public testing::TestWithParam<Mix> {
 protected:
  void TearDown() override { finalize(); }
};

TEST_P(AlgorithmsOnDevices, CorrectAndAcceleratorsWork) {
  const Mix s = GetParam();
  const bool opencl = std::string(s.devices).find("opencl") != std::string::npos;
  if (opencl && !opencl_available()) GTEST_SKIP() << "no OpenCL device on this machine (install an ICD, e.g. pocl-opencl-icd)";
  Config c;
  c.devices = s.devices;
  c.schedule = s.schedule;
  c.distribution = s.dist;  // the APIs without Options (unmqr, ungqr, gels internals) use the context's
  init(c);
  const bool host_computes = std::string(s.devices).rfind("cpu", 0) == 0;
  // Without the host cores every device-capable task runs on an accelerator:
  // LU's interchanges and QR's trmm must be there.
  std::set<std::string> trailing;
  if (!host_computes) trailing = {"trmm", "laswp"};
  {
    SCOPED_TRACE("double");
    run_mix<double>(s, opencl, trailing);
  }
  if (!opencl) {  // POCL compiles CLBlast kernels per precision: keep the OpenCL part small
    SCOPED_TRACE("complex<float>");
    run_mix<std::complex<float>>(s, false, trailing);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Mixes, AlgorithmsOnDevices,
    testing::Values(Mix{"cpu,emu", Schedule::Dynamic, Distribution::Default},
                    Mix{"emu", Schedule::Dynamic, Distribution::Default},
                    Mix{"emu", Schedule::Static, Distribution::Weighted},
                    Mix{"cpu,emu:speed=1,emu:speed=0.5", Schedule::Dynamic, Distribution::Default},
                    Mix{"cpu,emu:speed=1,emu:speed=0.5", Schedule::Static, Distribution::OneD},
                    Mix{"cpu,emu:speed=1,emu:speed=0.5", Schedule::Static, Distribution::TwoD},
                    Mix{"cpu,emu:speed=1,emu:speed=0.5", Schedule::Static, Distribution::Weighted},
                    Mix{"cpu,emu:speed=1,emu:speed=0.5", Schedule::Dynamic, Distribution::Weighted},
                    Mix{"cpu,opencl", Schedule::Dynamic, Distribution::Default},
                    Mix{"opencl", Schedule::Dynamic, Distribution::Default}),
    [](const testing::TestParamInfo<Mix>& i) {
      std::string n = std::string(i.param.devices) + "_" + (i.param.schedule == Schedule::Static ? "static" : "dynamic") +
                      "_" + std::to_string(static_cast<int>(i.param.dist));
      for (char& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

// Placement forced at random (property test): every placement of every
// device-capable task (GEMM, TRSM, TRMM, LASWP, HERK) on the host or either
// emulated device gives a correct result, and since every device runs the
// same host kernels on the same operands in the same (dependence) order, the
// very same bits for every seed.
TEST(RandomPlacement, EveryAlgorithmGivesTheSameBitsAnywhere) {
  const int64_t n = 220, nb = 36, nrhs = 3;
  const auto A = bench::random_matrix<double>(n, n, n, 21);
  const auto B = bench::random_matrix<double>(n, nrhs, n, 22);
  const auto S = bench::random_hpd<double>(n, n, 23);
  std::vector<double> lu0, qr0, x0, ch0;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    rt::RuntimeConfig rc;
    rc.accelerators = dev::parse_devices("emu,emu:speed=0.5").accelerators;
    rc.random_placement = true;
    rc.random_seed = seed;
    detail::init_runtime(rc);
    reset_stats();
    auto lu = A;
    std::vector<int64_t> ipiv(static_cast<std::size_t>(n));
    test::must_finish("getrf", [&] { ASSERT_EQ(getrf<double>(n, n, lu.data(), n, ipiv.data(), Options{nb}), 0); });
    EXPECT_LT(bench::getrf_residual(n, n, A.data(), n, lu.data(), n, ipiv.data()), kThreshold);
    auto x = B;
    test::must_finish("getrs", [&] { getrs<double>(Op::NoTrans, n, nrhs, lu.data(), n, ipiv.data(), x.data(), n, Options{nb}); });
    EXPECT_LT(bench::solve_residual<double>(n, n, nrhs, A.data(), n, x.data(), n, B.data(), n), kThreshold);
    auto qr = A;
    std::vector<double> tau(static_cast<std::size_t>(n));
    test::must_finish("geqrf", [&] { geqrf<double>(n, n, qr.data(), n, tau.data(), Options{nb}); });
    EXPECT_LT(bench::qr_residual(n, n, A.data(), n, qr.data(), n, tau.data()), kThreshold);
    auto ch = S;
    test::must_finish("potrf", [&] { ASSERT_EQ(potrf<double>(Uplo::Lower, n, ch.data(), n, Options{nb}), 0); });
    EXPECT_LT(bench::potrf_residual(Uplo::Lower, n, S.data(), n, ch.data(), n), kThreshold);
    const auto st = stats_now();
    EXPECT_GT(st[1].tasks, 0u);
    EXPECT_GT(st[2].tasks, 0u);
    if (seed == 1) {
      lu0 = lu, qr0 = qr, x0 = x, ch0 = ch;
      continue;
    }
    EXPECT_EQ(std::memcmp(lu.data(), lu0.data(), lu.size() * sizeof(double)), 0) << "getrf";
    EXPECT_EQ(std::memcmp(x.data(), x0.data(), x.size() * sizeof(double)), 0) << "getrs";
    EXPECT_EQ(std::memcmp(qr.data(), qr0.data(), qr.size() * sizeof(double)), 0) << "geqrf";
    EXPECT_EQ(std::memcmp(ch.data(), ch0.data(), ch.size() * sizeof(double)), 0) << "potrf";
  }
  finalize();
}

// ---------------------------------------------------------------- fp64

/// An accelerator without double precision (as an OpenCL device without
/// cl_khr_fp64): host-addressable memory and the host kernels, but
/// has_fp64() == false. Its kernels refuse double-precision work.
class NoFp64Device final : public test::HostMemoryDevice {
 public:
  NoFp64Device() : HostMemoryDevice("nofp64") {}
  bool has_fp64() const override { return false; }
  HETLA_DEVICE_KERNEL_OVERRIDES

 private:
  template <typename T> static void single_only() {
    if constexpr (std::is_same_v<real_t<T>, double>) throw std::runtime_error("nofp64: a double-precision kernel");
  }
  template <typename T, typename... A> void gemm_t(A... a) { single_only<T>(), dev::HostKernelImpl::gemm<T>(a...); }
  template <typename T, typename... A> void herk_t(A... a) { single_only<T>(), dev::HostKernelImpl::herk<T>(a...); }
  template <typename T, typename... A> void trsm_t(A... a) { single_only<T>(), dev::HostKernelImpl::trsm<T>(a...); }
  template <typename T, typename... A> void trmm_t(A... a) { single_only<T>(), dev::HostKernelImpl::trmm<T>(a...); }
  template <typename T, typename... A> void laswp_t(A... a) { single_only<T>(), dev::HostKernelImpl::laswp<T>(a...); }
  template <typename T, typename... A> int64_t potrf_t(A... a) {
    single_only<T>();
    return dev::HostKernelImpl::potrf<T>(a...);
  }
};

template <typename T> uint64_t device_tasks_for_lu_and_qr() {
  rt::RuntimeConfig rc;
  rc.accelerators = {std::make_shared<NoFp64Device>()};
  rc.random_placement = true;  // would put about half the capable tasks on the device
  detail::init_runtime(rc);
  reset_stats();
  const Options o{32};
  check_lu<T>(o, 130, 130, 32);
  check_qr<T>(o, 130, 100, 32);
  check_potrf<T>(o, 130, 32);
  {  // gemm splits C's columns by weights: a device without fp64 gets none of a double product
    const int64_t n = 96;
    const auto A = bench::random_matrix<T>(n, n, n, 71), B = bench::random_matrix<T>(n, n, n, 72);
    std::vector<T> C(A.size(), T(0)), Cref(A.size(), T(0));
    gemm(Op::NoTrans, Op::NoTrans, n, n, n, T(1), A.data(), n, B.data(), n, T(0), C.data(), n, Options{32});
    blas::gemm(Op::NoTrans, Op::NoTrans, n, n, n, T(1), A.data(), n, B.data(), n, T(0), Cref.data(), n);
    EXPECT_LT(bench::relative_difference(n, n, C.data(), n, Cref.data(), n, n), kThreshold) << "gemm";
    Options forced{32};
    forced.weights = "cpu=1,nofp64=1";
    if constexpr (std::is_same_v<real_t<T>, double>)
      EXPECT_THROW(gemm_split(forced, n, true), std::invalid_argument);
    else
      EXPECT_NEAR(gemm_split(forced, n, false)[1].share, 0.5, 1e-12);
  }
  const auto st = stats_now();
  finalize();
  return st[1].tasks;
}

TEST(Fp64, DoubleTasksStayOffADeviceWithoutFp64) {
  EXPECT_EQ(device_tasks_for_lu_and_qr<double>(), 0u);
  EXPECT_EQ(device_tasks_for_lu_and_qr<std::complex<double>>(), 0u);
  EXPECT_GT(device_tasks_for_lu_and_qr<float>(), 0u);
  EXPECT_GT(device_tasks_for_lu_and_qr<std::complex<float>>(), 0u);
}

// ---------------------------------------------------------------- new kernels

/// trmm and laswp of a device against the host kernels, through the device's
/// own memory (allocate, copy in, kernel, copy out).
/// trmm in the four uses of the QR updates (T from the left or right, op(T)
/// = T or T^H) against the host.
template <typename T> void check_trmm(dev::Device& d) {
  const int64_t m = 20, n = 13;
  for (Side side : {Side::Left, Side::Right})
    for (Op op : {Op::NoTrans, Op::ConjTrans}) {
      SCOPED_TRACE(std::string(side == Side::Left ? "left " : "right ") + (op == Op::NoTrans ? "N" : "C"));
      const int64_t k = side == Side::Left ? m : n;
      auto A = bench::random_matrix<T>(k, k, k, 51);
      auto B = bench::random_matrix<T>(m, n, m, 52);
      auto* dA = d.allocate(A.size() * sizeof(T));
      auto* dB = d.allocate(B.size() * sizeof(T));
      ASSERT_TRUE(dA && dB);
      d.copy_in(dA, A.data(), k, k, k, sizeof(T));
      d.copy_in(dB, B.data(), m, m, n, sizeof(T));
      d.kernels<T>().trmm(side, Uplo::Upper, op, Diag::NonUnit, m, n, T(0.5), static_cast<T*>(dA), k,
                          static_cast<T*>(dB), m);
      std::vector<T> got(B.size());
      d.copy_out(got.data(), m, dB, m, n, sizeof(T));
      dev::HostKernelImpl::trmm<T>(side, Uplo::Upper, op, Diag::NonUnit, m, n, T(0.5), A.data(), k, B.data(), m);
      EXPECT_LT(bench::relative_difference(m, n, got.data(), m, B.data(), m, k), kThreshold) << "trmm";
      d.deallocate(dA, A.size() * sizeof(T));
      d.deallocate(dB, B.size() * sizeof(T));
    }
}

/// Row interchanges through the device's memory against the host kernel, on
/// a column of tiles of unequal heights: random pairs (rows repeat, some swap
/// with themselves), as LU's pivots and the final swaps of L make them.
template <typename T> void check_laswp(dev::Device& d) {
  SCOPED_TRACE(std::string("laswp ") + precision_letter<T>());
  const int64_t cols = 7, mb[4] = {8, 5, 8, 3}, ntiles = 4, m = 24;
  std::vector<int64_t> rows;
  uint64_t x = 12345;
  for (int s = 0; s < 30; ++s) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const int64_t a = s % m, b = static_cast<int64_t>((x >> 33) % static_cast<uint64_t>(m));
    rows.insert(rows.end(), {a, s % 7 == 3 ? a : b});
  }
  std::vector<std::vector<T>> host(ntiles);
  std::vector<T*> hp(ntiles), dp(ntiles);
  std::vector<int64_t> ld(mb, mb + ntiles);
  for (int64_t t = 0; t < ntiles; ++t) {
    const auto ut = static_cast<std::size_t>(t);
    host[ut] = bench::random_matrix<T>(mb[t], cols, mb[t], 60 + static_cast<uint64_t>(t));
    hp[ut] = host[ut].data();
    dp[ut] = static_cast<T*>(d.allocate(host[ut].size() * sizeof(T)));
    ASSERT_TRUE(dp[ut]);
    d.copy_in(dp[ut], hp[ut], mb[t], mb[t], cols, sizeof(T));
  }
  const auto npairs = static_cast<int64_t>(rows.size() / 2);
  d.kernels<T>().laswp(cols, ntiles, dp.data(), mb, ld.data(), npairs, rows.data());
  dev::HostKernelImpl::laswp<T>(cols, ntiles, hp.data(), mb, ld.data(), npairs, rows.data());
  for (int64_t t = 0; t < ntiles; ++t) {
    const auto ut = static_cast<std::size_t>(t);
    std::vector<T> back(host[ut].size());
    d.copy_out(back.data(), mb[t], dp[ut], mb[t], cols, sizeof(T));
    EXPECT_EQ(back, host[ut]) << "laswp tile " << t;
    d.deallocate(dp[ut], host[ut].size() * sizeof(T));
  }
}

void check_trmm_and_laswp(dev::Device& d) {
  SCOPED_TRACE(d.name());
  check_trmm<double>(d);
  check_trmm<std::complex<float>>(d);
  check_laswp<float>(d);
  check_laswp<double>(d);
  check_laswp<std::complex<float>>(d);
  check_laswp<std::complex<double>>(d);
}

TEST(DeviceKernels, TrmmAndLaswpMatchTheHost) {
  // the interchanges themselves against a plain row-by-row reference
  // (tiles of unequal heights, the upper one the shorter, as hybrid tilings cut them)
  const int64_t cols = 3, mb[2] = {3, 4};
  std::vector<double> a(3 * 3), b(4 * 3);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<double>(i);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = 100.0 + static_cast<double>(i);
  std::vector<double> full(7 * 3);  // the column as one 7 x 3 array
  for (int64_t c = 0; c < cols; ++c)
    for (int64_t r = 0; r < 7; ++r) full[r + c * 7] = r < 3 ? a[r + c * 3] : b[(r - 3) + c * 4];
  const int64_t rows[] = {0, 6, 2, 4, 6, 1};
  for (int s = 0; s < 3; ++s)
    for (int64_t c = 0; c < cols; ++c) std::swap(full[rows[2 * s] + c * 7], full[rows[2 * s + 1] + c * 7]);
  double* tiles[] = {a.data(), b.data()};
  const int64_t ld[] = {3, 4};
  dev::HostKernelImpl::laswp<double>(cols, 2, tiles, mb, ld, 3, rows);
  for (int64_t c = 0; c < cols; ++c)
    for (int64_t r = 0; r < 7; ++r) EXPECT_EQ(full[r + c * 7], r < 3 ? a[r + c * 3] : b[(r - 3) + c * 4]) << r << "," << c;

  check_trmm_and_laswp(*dev::parse_devices("emu:speed=1").accelerators.at(0));
  if (!opencl_available()) GTEST_SKIP() << "no OpenCL device: only the emulated device was checked";
  check_trmm_and_laswp(*dev::parse_devices("opencl:0").accelerators.at(0));
}

// ---------------------------------------------------------------- calibration keys

TEST(CalibrationKeys, NameTheHardwareNotTheIndex) {
  auto emu = dev::parse_devices("emu:speed=0.5").accelerators.at(0);
  EXPECT_EQ(tune::device_key(*emu), "emu:speed=0.5");
  if (!opencl_available()) GTEST_SKIP() << "no OpenCL device: the OpenCL key is not checked";
  std::string model;
  for (const auto& d : dev::probe_devices())
    if (d.kind == "opencl" && d.index == 0) model = d.name;
  auto cl = dev::parse_devices("opencl:0").accelerators.at(0);
  EXPECT_EQ(cl->name(), "opencl0");
  EXPECT_EQ(tune::device_key(*cl), "opencl:" + model);
  EXPECT_EQ(tune::device_key(*cl).find("opencl0"), std::string::npos);
}

}  // namespace
}  // namespace hetla
