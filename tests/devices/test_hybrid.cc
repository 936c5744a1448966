// The two-level hybrid-tile distribution (seed 004 §3.1, 3.4, 3.6): the
// planner gives the host small tiles and each accelerator one large tile per
// round, sized by its capability weight; Cholesky, LU, QR and their solvers
// run on such tilings on every device mix, each tile column on its owner;
// routines that take uniform tiles only reject hybrid ones with a clear error.
#include <gtest/gtest.h>

#include <complex>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "checks.hpp"
#include "checks_lu.hpp"
#include "checks_qr.hpp"
#include "common/watchdog.hpp"
#include "devices/emulated/emulated_device.hpp"
#include "hetla/hetla.hpp"
#include "matgen.hpp"
#include "memory/distribution.hpp"
#include "context/context.hpp"

namespace hetla {
namespace {

constexpr double kThreshold = bench::kResidualThreshold;

dev::EmulatedConfig emulated(double speed) {
  dev::EmulatedConfig c;
  c.speed = speed;
  return c;
}

rt::RuntimeConfig host_and_two_emulated(bool host_computes = true) {
  rt::RuntimeConfig c;
  c.num_workers = 1;
  c.pin_threads = false;
  c.host_computes = host_computes;
  c.schedule = rt::Schedule::Static;
  c.accelerators.push_back(std::make_shared<dev::EmulatedDevice>("emu0", emulated(0.5)));
  c.accelerators.push_back(std::make_shared<dev::EmulatedDevice>("emu1", emulated(0.25)));
  return c;
}
void set_rates(rt::Runtime& rt) {
  rt.set_rate(0, dev::KernelId::Gemm, 40e9);
  rt.set_rate(1, dev::KernelId::Gemm, 20e9);
  rt.set_rate(2, dev::KernelId::Gemm, 10e9);
}

TEST(HybridTiling, LargeTilesFollowTheWeights) {
  rt::Runtime rt(host_and_two_emulated());
  set_rates(rt);
  for (int64_t n : {2000, 8000}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const int64_t small = 200;
    const Tiling t = detail::hybrid_tiling(rt, n, small, 1.5, 1.25);
    ASSERT_EQ(t.sizes.size(), t.owners.size());
    std::vector<int64_t> width(3, 0), count(3, 0);
    for (std::size_t k = 0; k < t.sizes.size(); ++k) {
      ASSERT_GE(t.owners[k], 0);
      ASSERT_LE(t.owners[k], 2);
      width[static_cast<std::size_t>(t.owners[k])] += t.sizes[k];
      ++count[static_cast<std::size_t>(t.owners[k])];
      // the host's tiles are the small ones, the accelerators' multiples of 16
      EXPECT_EQ(t.owners[k] == 0 ? t.sizes[k] : t.sizes[k] % 16, t.owners[k] == 0 ? small : 0) << k;
    }
    EXPECT_GE(count[0], 1);
    EXPECT_EQ(count[1], 1);  // one large tile per accelerator and round
    EXPECT_EQ(count[2], 1);
    // emu0 is twice as fast as emu1: twice the width, to within the rounding
    EXPECT_NEAR(static_cast<double>(width[1]) / static_cast<double>(width[2]), 2.0, 0.3);
    // the host's width share follows its weight less its panels
    const double round = static_cast<double>(width[0] + width[1] + width[2]);
    double eff = 0;
    for (int64_t s : t.sizes) eff += static_cast<double>(s * s) / round;
    const auto w = detail::capability_weights(rt, {0, 1, 2}, detail::panel_share(n, int64_t(eff), 1.5, 1.25));
    EXPECT_NEAR(static_cast<double>(width[0]) / round, w[0], 0.03);
    EXPECT_LT(static_cast<double>(width[0]) / round, 4.0 / 7);  // it also factors the panels
    EXPECT_LE(round, static_cast<double>(n) / 4);              // several rounds along the matrix
  }
}

TEST(HybridTiling, HostAloneOrAcceleratorsAlone) {
  rt::RuntimeConfig host;
  host.num_workers = 1;
  host.pin_threads = false;
  rt::Runtime alone(host);
  EXPECT_EQ(detail::hybrid_tiling(alone, 1000, 64, 1.5, 1.25), (Tiling{{64}, {0}}));

  rt::Runtime accel(host_and_two_emulated(false));
  set_rates(accel);
  const Tiling t = detail::hybrid_tiling(accel, 1000, 64, 1.5, 1.25);
  EXPECT_EQ(t.owners, (std::vector<int>{1, 2}));
  EXPECT_EQ(t.sizes, (std::vector<int64_t>{128, 64}));
}

struct HybridRun : ::testing::Test {
  void SetUp() override {
    Config cfg;
    cfg.devices = "cpu,emu:speed=1,emu:speed=0.5";
    cfg.schedule = Schedule::Static;
    init(cfg);
  }
  void TearDown() override { finalize(); }
  static std::vector<rt::DeviceStats> stats() {
    detail::CallScope scope;
    return scope.rt().stats();
  }
  static void reset() {
    detail::CallScope scope;
    scope.rt().reset_stats();
  }
  // every device computed, and flops went where the tiling put the columns
  static void expect_all_devices_worked() {
    const auto st = stats();
    ASSERT_EQ(st.size(), 3u);
    for (std::size_t d = 0; d < st.size(); ++d) EXPECT_GT(st[d].flops, 0) << "device " << d;
  }
};

template <typename T> void check_potrf(Uplo uplo, int64_t n, int64_t nb) {
  SCOPED_TRACE(std::string("potrf ") + precision_letter<T>() + (uplo == Uplo::Lower ? " L" : " U") +
               " n=" + std::to_string(n));
  const int64_t lda = n + 3;
  const auto A = bench::random_hpd<T>(n, lda, 40 + static_cast<uint64_t>(n));
  auto F = A;
  int64_t info = -1;
  test::must_finish("potrf", [&] { info = potrf<T>(uplo, n, F.data(), lda, Options{nb, Distribution::Hybrid}); });
  EXPECT_EQ(info, 0);
  EXPECT_LT(bench::potrf_residual<T>(uplo, n, A.data(), lda, F.data(), lda), kThreshold);
}

TEST_F(HybridRun, CholeskyEveryPrecisionAndTriangle) {
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper}) {
    reset();
    check_potrf<double>(uplo, 301, 24);
    expect_all_devices_worked();
    check_potrf<float>(uplo, 190, 16);
    check_potrf<std::complex<float>>(uplo, 150, 16);
    check_potrf<std::complex<double>>(uplo, 170, 20);
    check_potrf<double>(uplo, 20, 32);  // one tile
  }
}

TEST_F(HybridRun, NotPositiveDefiniteReportsTheGlobalColumn) {
  const int64_t n = 200, nb = 16;
  auto A = bench::random_hpd<double>(n, n, 3);
  const Tiling t = hybrid_tiling<double>(n, nb);
  const int64_t bad = 137;  // falls inside some tile of the pattern
  A[static_cast<std::size_t>(bad + bad * n)] = -1e6;
  const int64_t info = potrf<double>(Uplo::Lower, n, A.data(), n, Options{nb, Distribution::Hybrid});
  EXPECT_EQ(info, bad + 1);  // LAPACK's: the leading minors before it are positive definite
  EXPECT_FALSE(t.uniform());
}

TEST_F(HybridRun, MatrixApiAndSolvers) {
  const int64_t n = 260, nrhs = 7, nb = 20;
  const auto A = bench::random_hpd<double>(n, n, 11);
  const auto B = bench::random_matrix<double>(n, nrhs, n, 12);
  const Tiling t = hybrid_tiling<double>(n, nb);
  ASSERT_FALSE(t.uniform());
  Matrix<double> M(n, n, t), X(n, nrhs, t);
  M.copy_from(A.data(), n);
  X.copy_from(B.data(), n);
  reset();
  ASSERT_EQ(posv(Uplo::Lower, M, X, Options{0, Distribution::Hybrid}), 0);
  expect_all_devices_worked();
  std::vector<double> x(static_cast<std::size_t>(n * nrhs));
  X.copy_to(x.data(), n);
  EXPECT_LT(bench::solve_residual<double>(n, n, nrhs, A.data(), n, x.data(), n, B.data(), n), kThreshold);

  // the column-major overloads cut their hybrid tiles themselves
  auto F = A, Y = B;
  ASSERT_EQ(posv<double>(Uplo::Upper, n, nrhs, F.data(), n, Y.data(), n, Options{nb, Distribution::Hybrid}), 0);
  EXPECT_LT(bench::solve_residual<double>(n, n, nrhs, A.data(), n, Y.data(), n, B.data(), n), kThreshold);

  // trsm from the right on a hybrid tiling matches the uniform-tile result
  auto L = A;
  ASSERT_EQ(potrf<double>(Uplo::Lower, n, L.data(), n, Options{nb}), 0);
  const auto C = bench::random_matrix<double>(nrhs, n, nrhs, 13);
  auto Z1 = C, Z2 = C;
  trsm<double>(Side::Right, Uplo::Lower, Op::Trans, Diag::NonUnit, nrhs, n, 2.0, L.data(), n, Z1.data(), nrhs,
               Options{nb});
  trsm<double>(Side::Right, Uplo::Lower, Op::Trans, Diag::NonUnit, nrhs, n, 2.0, L.data(), n, Z2.data(), nrhs,
               Options{nb, Distribution::Hybrid});
  double diff = 0, ref = 0;
  for (std::size_t k = 0; k < Z1.size(); ++k) {
    diff = std::max(diff, std::abs(Z1[k] - Z2[k]));
    ref = std::max(ref, std::abs(Z1[k]));
  }
  EXPECT_LT(diff, 1e-10 * ref);
}

template <typename T> void check_getrf(int64_t m, int64_t n, int64_t nb) {
  SCOPED_TRACE(std::string("getrf ") + precision_letter<T>() + " " + std::to_string(m) + "x" + std::to_string(n));
  const int64_t lda = m + 2;
  const auto A = bench::random_matrix<T>(m, n, lda, 70 + static_cast<uint64_t>(m + n));
  auto F = A;
  std::vector<int64_t> ipiv(static_cast<std::size_t>(std::min(m, n)));
  int64_t info = -1;
  const Options hybrid{nb, Distribution::Hybrid};
  test::must_finish("getrf", [&] { info = getrf<T>(m, n, F.data(), lda, ipiv.data(), hybrid); });
  EXPECT_EQ(info, 0);
  EXPECT_LT(bench::getrf_residual<T>(m, n, A.data(), lda, F.data(), lda, ipiv.data()), kThreshold);
}

TEST_F(HybridRun, LuEveryPrecisionAndShape) {
  reset();
  check_getrf<double>(301, 301, 24);
  expect_all_devices_worked();
  check_getrf<float>(190, 190, 16);
  check_getrf<std::complex<float>>(150, 150, 16);
  check_getrf<std::complex<double>>(170, 170, 20);
  check_getrf<double>(330, 170, 16);  // tall: the last panels are ragged in width
  check_getrf<double>(170, 330, 16);  // wide: the last tile row ragged, columns right of the last panel
  check_getrf<double>(20, 20, 32);    // one tile
}

TEST_F(HybridRun, LuSolversAndSingularColumn) {
  const int64_t n = 260, nrhs = 5, nb = 20;
  const auto A = bench::random_matrix<double>(n, n, n, 31);
  const auto B = bench::random_matrix<double>(n, nrhs, n, 32);
  const Tiling t = hybrid_tiling<double>(n, nb);
  ASSERT_FALSE(t.uniform());
  // Matrix API: gesv, then getrs with the transpose on the same factors
  Matrix<double> M(n, n, t), X(n, nrhs, t);
  M.copy_from(A.data(), n);
  X.copy_from(B.data(), n);
  std::vector<int64_t> ipiv;
  reset();
  ASSERT_EQ(gesv(M, ipiv, X, Options{0, Distribution::Hybrid}), 0);
  expect_all_devices_worked();
  std::vector<double> x(static_cast<std::size_t>(n * nrhs));
  X.copy_to(x.data(), n);
  EXPECT_LT(bench::solve_residual<double>(n, n, nrhs, A.data(), n, x.data(), n, B.data(), n), kThreshold);
  Matrix<double> Y(n, nrhs, t);
  Y.copy_from(B.data(), n);
  getrs(Op::Trans, M, ipiv, Y, Options{0, Distribution::Hybrid});
  Y.copy_to(x.data(), n);
  std::vector<double> At(static_cast<std::size_t>(n * n));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < n; ++i) At[static_cast<std::size_t>(j + i * n)] = A[static_cast<std::size_t>(i + j * n)];
  EXPECT_LT(bench::solve_residual<double>(n, n, nrhs, At.data(), n, x.data(), n, B.data(), n), kThreshold);

  // column-major gesv cuts its own hybrid tiles
  auto F = A, Z = B;
  std::vector<int64_t> piv(static_cast<std::size_t>(n));
  ASSERT_EQ(gesv<double>(n, nrhs, F.data(), n, piv.data(), Z.data(), n, Options{nb, Distribution::Hybrid}), 0);
  EXPECT_LT(bench::solve_residual<double>(n, n, nrhs, A.data(), n, Z.data(), n, B.data(), n), kThreshold);

  // an exactly singular matrix: info names the global column, the factorization completes
  auto S = A;
  const int64_t bad = 137;
  for (int64_t i = 0; i < n; ++i) S[static_cast<std::size_t>(i + bad * n)] = 0;
  auto G = S;
  EXPECT_EQ(getrf<double>(n, n, G.data(), n, piv.data(), Options{nb, Distribution::Hybrid}), bad + 1);
  EXPECT_LT(bench::getrf_residual<double>(n, n, S.data(), n, G.data(), n, piv.data()), kThreshold);
}

template <typename T> void check_geqrf(int64_t m, int64_t n, int64_t nb) {
  SCOPED_TRACE(std::string("geqrf ") + precision_letter<T>() + " " + std::to_string(m) + "x" + std::to_string(n));
  const int64_t lda = m + 1, k = std::min(m, n);
  const auto A = bench::random_matrix<T>(m, n, lda, 90 + static_cast<uint64_t>(m + n));
  auto F = A;
  std::vector<T> tau(static_cast<std::size_t>(k));
  const Options hybrid{nb, Distribution::Hybrid};
  test::must_finish("geqrf", [&] { geqrf<T>(m, n, F.data(), lda, tau.data(), hybrid); });
  EXPECT_LT(bench::qr_residual<T>(m, n, A.data(), lda, F.data(), lda, tau.data()), kThreshold);
  // Q from the hybrid-tiled reflectors (ungqr), orthonormal
  std::vector<T> Q(static_cast<std::size_t>(m * k));
  for (int64_t j = 0; j < k; ++j)
    for (int64_t i = 0; i < m; ++i) Q[static_cast<std::size_t>(i + j * m)] = F[static_cast<std::size_t>(i + j * lda)];
  test::must_finish("ungqr", [&] { ungqr<T>(m, k, k, Q.data(), m, tau.data(), hybrid); });
  EXPECT_LT(bench::orthogonality_residual<T>(m, k, Q.data(), m), kThreshold);
}

TEST_F(HybridRun, QrEveryPrecisionAndShape) {
  reset();
  check_geqrf<double>(301, 301, 24);
  expect_all_devices_worked();
  check_geqrf<float>(190, 190, 16);
  check_geqrf<std::complex<float>>(150, 150, 16);
  check_geqrf<std::complex<double>>(170, 170, 20);
  check_geqrf<double>(330, 170, 16);  // tall
  check_geqrf<double>(170, 330, 16);  // wide: the last panel holds fewer reflectors than columns
  check_geqrf<double>(20, 20, 32);    // one tile
}

TEST_F(HybridRun, QrSolversOnHybridTiles) {
  const int64_t m = 280, n = 200, nrhs = 4, nb = 20;
  const Options hybrid{nb, Distribution::Hybrid};
  const auto A = bench::random_matrix<double>(m, n, m, 41);
  const auto B = bench::random_matrix<double>(m, nrhs, m, 42);
  // unmqr (Q^H C from the left, C Q from the right) equals LAPACK's on the same reflectors
  auto F = A;
  std::vector<double> tau(static_cast<std::size_t>(n));
  ASSERT_EQ(blas::geqrf(m, n, F.data(), m, tau.data()), 0);
  auto C1 = B, C2 = B;
  unmqr<double>(Side::Left, Op::Trans, m, nrhs, n, F.data(), m, tau.data(), C1.data(), m, hybrid);
  blas::unmqr(Side::Left, Op::Trans, m, nrhs, n, F.data(), m, tau.data(), C2.data(), m);
  EXPECT_LT(bench::relative_difference<double>(m, nrhs, C1.data(), m, C2.data(), m, m), kThreshold);
  const auto D = bench::random_matrix<double>(nrhs, m, nrhs, 43);
  auto D1 = D, D2 = D;
  unmqr<double>(Side::Right, Op::NoTrans, nrhs, m, n, F.data(), m, tau.data(), D1.data(), nrhs, hybrid);
  blas::unmqr(Side::Right, Op::NoTrans, nrhs, m, n, F.data(), m, tau.data(), D2.data(), nrhs);
  EXPECT_LT(bench::relative_difference<double>(nrhs, m, D1.data(), nrhs, D2.data(), nrhs, m), kThreshold);

  // gels, overdetermined and underdetermined (LQ), column-major
  auto G = A, X = B;
  reset();
  ASSERT_EQ(gels<double>(Op::NoTrans, m, n, nrhs, G.data(), m, X.data(), m, hybrid), 0);
  expect_all_devices_worked();
  EXPECT_LT(bench::least_squares_residual<double>(Op::NoTrans, m, n, nrhs, A.data(), m, X.data(), m, B.data(), m),
            kThreshold);
  const auto W = bench::random_matrix<double>(n, m, n, 44);  // n x m, n < m: minimum norm
  auto H = W;
  std::vector<double> Y(static_cast<std::size_t>(m * nrhs));
  for (int64_t j = 0; j < nrhs; ++j)
    for (int64_t i = 0; i < n; ++i) Y[static_cast<std::size_t>(i + j * m)] = B[static_cast<std::size_t>(i + j * m)];
  ASSERT_EQ(gels<double>(Op::NoTrans, n, m, nrhs, H.data(), n, Y.data(), m, hybrid), 0);
  EXPECT_LT(bench::solve_residual<double>(n, m, nrhs, W.data(), n, Y.data(), m, B.data(), m), kThreshold);

  // the Matrix API takes a matrix cut by hybrid_tiling and its owners
  const Tiling t = hybrid_tiling<double>(n, nb, Panels::QR);
  ASSERT_FALSE(t.uniform());
  Matrix<double> M(m, n, t);
  M.copy_from(A.data(), m);
  std::vector<double> tau2(static_cast<std::size_t>(n));
  geqrf(M, tau2.data(), Options{0, Distribution::Hybrid});
  std::vector<double> F2(A.size());
  M.copy_to(F2.data(), m);
  EXPECT_LT(bench::qr_residual<double>(m, n, A.data(), m, F2.data(), m, tau2.data()), kThreshold);
}

TEST_F(HybridRun, UniformOnlyRoutinesSayWhy) {
  const int64_t n = 64;
  // a hybrid-tiled matrix given to a uniform-tile routine (gemm splits C's columns by weight itself)
  Matrix<double> H(n, n, hybrid_tiling<double>(n, 16));
  try {
    gemm(Op::NoTrans, Op::NoTrans, 1.0, H, H, 0.0, H);
    ADD_FAILURE() << "gemm took a hybrid tiling";
  } catch (const ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("hybrid"), std::string::npos) << e.what();
  }
  // Hybrid on a matrix without a hybrid tiling, or one made for other devices
  Matrix<double> U(n, n, 16);
  EXPECT_THROW(potrf(Uplo::Lower, U, Options{0, Distribution::Hybrid}), std::invalid_argument);
  Matrix<double> other(n, n, Tiling{{16, 32}, {0, 5}});
  EXPECT_THROW(potrf(Uplo::Lower, other, Options{0, Distribution::Hybrid}), std::invalid_argument);
}

TEST(HybridDefault, ContextDefaultFallsBackForUniformMatrices) {
  Config cfg;
  cfg.devices = "cpu,emu:speed=0.5";
  cfg.schedule = Schedule::Static;
  cfg.distribution = Distribution::Hybrid;
  init(cfg);
  const int64_t n = 150;
  const auto A = bench::random_matrix<double>(n, n, n, 21);
  // a matrix the caller cut in uniform tiles: weighted, not an error
  Matrix<double> M(n, n, 16);
  M.copy_from(A.data(), n);
  std::vector<int64_t> ipiv;
  EXPECT_EQ(getrf(M, ipiv), 0);
  std::vector<double> F(A.size());
  M.copy_to(F.data(), n);
  EXPECT_LT(bench::getrf_residual<double>(n, n, A.data(), n, F.data(), n, ipiv.data()), kThreshold);
  const auto S = bench::random_hpd<double>(n, n, 22);
  auto G = S;
  EXPECT_EQ(potrf<double>(Uplo::Lower, n, G.data(), n, Options{16}), 0);  // hybrid tiles
  EXPECT_LT(bench::potrf_residual<double>(Uplo::Lower, n, S.data(), n, G.data(), n), kThreshold);
  finalize();
}

TEST(DefaultTileSize, FactorizationsFollowTheirPanelsOnHostCoresAlone) {
  // Panels cost more with larger tiles: on host cores alone QR's default is
  // capped at 128 (256 from n = 6000) and LU's is 192 (256 from n = 4000),
  // below the general size of large orders; with an accelerator both keep
  // the general size (large tiles for the accelerator's GEMMs). Built-in
  // sizes: a tile table the user tuned (~/.cache/hetla) must not answer.
  const char* tuning = std::getenv("HETLA_TUNING");
  const bool had_tuning = tuning != nullptr;
  const std::string user_tuning = had_tuning ? tuning : "";
  setenv("HETLA_TUNING", "/nonexistent/hetla-test/tiles.json", 1);
  Config cfg;
  cfg.devices = "cpu";
  init(cfg);
  EXPECT_LE(default_tile_size<double>(3000, Panels::QR), 128);
  EXPECT_EQ(default_tile_size<double>(8000, Panels::QR), 256);
  EXPECT_LT(default_tile_size<double>(8000, Panels::QR), default_tile_size<double>(8000));
  EXPECT_EQ(default_tile_size<double>(3000, Panels::LU), 192);
  EXPECT_EQ(default_tile_size<double>(8000, Panels::LU), 256);
  EXPECT_EQ(default_tile_size<double>(8000, Panels::Cholesky), default_tile_size<double>(8000));
  EXPECT_EQ(default_tile_size<double>(100, Panels::QR), default_tile_size<double>(100));  // already small
  EXPECT_LE(default_tile_size<double>(100, Panels::LU), 64);  // still 4 tile columns per worker
  cfg.devices = "cpu,emu:speed=0.5";
  init(cfg);
  for (Panels p : {Panels::Cholesky, Panels::LU, Panels::QR})
    EXPECT_EQ(default_tile_size<double>(8000, p), default_tile_size<double>(8000));
  EXPECT_GT(default_tile_size<double>(8000, Panels::QR), 256);
  finalize();
  if (had_tuning) setenv("HETLA_TUNING", user_tuning.c_str(), 1);
  else unsetenv("HETLA_TUNING");
}

}  // namespace
}  // namespace hetla
