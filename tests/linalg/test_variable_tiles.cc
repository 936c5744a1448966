// Tile sizes that shrink during a factorization (variable_tiling, seed 002
// Fig. 2b; src/linalg/tile_size.cc): the schedule covers min(m, n) and
// shrinks, and potrf, getrf and geqrf (and their solvers) on a shrinking
// tiling give the same residual bounds as on fixed tiles, on random and hard
// matrices (ill-conditioned, not positive definite, pivoting-heavy, singular,
// graded), square and m != n, in the four precisions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <numeric>
#include <vector>

#include "checks.hpp"
#include "checks_lu.hpp"
#include "checks_qr.hpp"
#include "common/cholesky.hpp"
#include "hetla/hetla.hpp"
#include "kernels/host/lapack_lu.hpp"
#include "linalg/tile_schedule.hpp"
#include "matgen.hpp"

namespace hetla {
namespace {

template <typename T> class VariableTiles : public testing::Test {};
using Precisions = testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(VariableTiles, Precisions);

constexpr double kThreshold = bench::kResidualThreshold;

/// 96, 96, 64, then 32s over k columns (the last takes what is left): a
/// shrinking schedule with a ragged last tile.
Tiling shrinking(int64_t k) {
  std::vector<int64_t> s{96, 96, 64};
  int64_t sum = 256;
  while (sum < k) s.push_back(std::min<int64_t>(32, k - sum)), sum += s.back();
  return Tiling{s, {}};
}

Options variable(int64_t nb) {
  Options o;
  o.nb = nb;
  o.variable_tiles = 1;
  return o;
}

TEST(VariableTiling, CoversMinMNAndShrinks) {
  for (Panels p : {Panels::Cholesky, Panels::LU, Panels::QR})
    for (auto [m, n, nb] : {std::array<int64_t, 3>{4000, 4000, 256}, {450, 320, 96}, {320, 450, 96},
                            {4000, 4000, 0}, {100, 3, 0}, {1, 1, 0}}) {
      SCOPED_TRACE(testing::Message() << m << " x " << n << " nb " << nb << " panels " << int(p));
      const Tiling t = variable_tiling<double>(m, n, p, nb);
      EXPECT_TRUE(t.owners.empty());
      EXPECT_EQ(std::accumulate(t.sizes.begin(), t.sizes.end(), int64_t(0)), std::min(m, n));
      if (nb > 0 && std::min(m, n) > nb) {
        EXPECT_EQ(t.sizes.front(), nb);
      }
      for (std::size_t i = 0; i + 1 < t.sizes.size(); ++i) {
        EXPECT_GE(t.sizes[i], 1);
        if (i + 2 < t.sizes.size()) {  // the last may take a remainder
          EXPECT_LE(t.sizes[i + 1], t.sizes[i]);
        }
      }
      EXPECT_LT(t.sizes.back(), 2 * t.sizes.front());
      // a large problem ends on tiles at least twice smaller than its first
      if (m == 4000 && nb > 0) {
        EXPECT_LE(2 * t.sizes[t.sizes.size() - 2], t.sizes.front());
      }
    }
}

TEST(VariableTiling, WhenTheScheduleApplies) {
  auto with = [](int v, int64_t nb, Distribution d = Distribution::Default) {
    Options o;
    o.nb = nb;
    o.variable_tiles = v;
    o.distribution = d;
    return o;
  };
  const char* saved = std::getenv("HETLA_VARIABLE_TILES");
  const std::string keep = saved ? saved : "";
  unsetenv("HETLA_VARIABLE_TILES");
  EXPECT_EQ(detail::variable_tiles(with(-1, 0), 900, 900, Panels::LU), detail::kVariableTilesDefault);
  EXPECT_TRUE(detail::variable_tiles(with(1, 0), 900, 900, Panels::LU));
  EXPECT_TRUE(detail::variable_tiles(with(1, 128), 900, 900, Panels::Cholesky));  // nb: the first size
  EXPECT_FALSE(detail::variable_tiles(with(0, 0), 900, 900, Panels::QR));
  EXPECT_TRUE(detail::variable_tiles(with(1, 0, Distribution::Hybrid), 900, 900, Panels::LU));
  EXPECT_FALSE(detail::variable_tiles(with(1, 0), 4000, 900, Panels::QR));  // tall QR keeps uniform tiles
  EXPECT_TRUE(detail::variable_tiles(with(1, 0), 4000, 900, Panels::LU));
  setenv("HETLA_VARIABLE_TILES", "1", 1);
  EXPECT_TRUE(detail::variable_tiles(with(-1, 0), 900, 900, Panels::QR));
  EXPECT_FALSE(detail::variable_tiles(with(-1, 96), 900, 900, Panels::QR));  // a fixed nb the user asked for
  EXPECT_FALSE(detail::variable_tiles(with(0, 0), 900, 900, Panels::QR));
  setenv("HETLA_VARIABLE_TILES", "0", 1);
  EXPECT_FALSE(detail::variable_tiles(with(-1, 0), 900, 900, Panels::Cholesky));
  if (saved) setenv("HETLA_VARIABLE_TILES", keep.c_str(), 1); else unsetenv("HETLA_VARIABLE_TILES");
}

TEST(VariableTiling, OptionsSwitchTheSchedule) {
  // The column-major overloads accept the schedule, with and without nb.
  const int64_t n = 300;
  auto A0 = bench::random_hpd<double>(n, n, 5);
  for (int v : {-1, 0, 1})
    for (int64_t nb : {0, 64}) {
      auto A = A0;
      Options o;
      o.nb = nb;
      o.variable_tiles = v;
      ASSERT_EQ(potrf(Uplo::Lower, n, A.data(), n, o), 0);
      EXPECT_LT(bench::potrf_residual(Uplo::Lower, n, A0.data(), n, A.data(), n), kThreshold);
    }
}

TYPED_TEST(VariableTiles, PotrfRandomIllAndNotPositiveDefinite) {
  using T = TypeParam;
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
    for (int64_t n : {320, 437}) {
      const int64_t lda = n + 3;
      SCOPED_TRACE(testing::Message() << test::uplo_name(uplo) << " n=" << n);
      for (const auto& A0 : {test::hpd_input<T>(uplo, n, lda, 11 + n), test::ill_input<T>(uplo, n, lda, 12 + n)}) {
        // column-major with the planner's schedule, and fixed tiles
        for (const Options& o : {variable(96), Options{96}}) {
          auto A = A0;
          ASSERT_EQ(potrf<T>(uplo, n, A.data(), lda, o), 0);
          EXPECT_LT(bench::potrf_residual(uplo, n, A0.data(), lda, A.data(), lda), kThreshold);
        }
        // a tile matrix cut by an explicit shrinking schedule, then potrs on it
        auto A = A0;
        auto M = Matrix<T>::view(n, n, A.data(), lda, shrinking(n));
        ASSERT_EQ(potrf(uplo, M), 0);
        EXPECT_LT(bench::potrf_residual(uplo, n, A0.data(), lda, A.data(), lda), kThreshold);
        const int64_t nrhs = 5;
        auto B0 = bench::random_matrix<T>(n, nrhs, n, 13);
        auto X = B0;
        auto Bm = Matrix<T>::view(n, nrhs, X.data(), n, shrinking(n));
        potrs(uplo, M, Bm);
        auto full = bench::full_hermitian(uplo, n, A0.data(), lda);
        EXPECT_LT(bench::solve_residual(n, n, nrhs, full.data(), n, X.data(), n, B0.data(), n), kThreshold);
      }
      // not positive definite, the failing minor in the small tiles at the
      // end and in the first large one: the same info as LAPACK
      for (int64_t k : {n - 40, int64_t(50)}) {
        auto A0 = test::hpd_input<T>(uplo, n, lda, 14 + n);
        test::make_not_pd_at(uplo, n, lda, A0, k, true);
        const int64_t want = test::lapack_info(uplo, n, lda, A0);
        EXPECT_EQ(want, k);
        auto A = A0;
        EXPECT_EQ(potrf<T>(uplo, n, A.data(), lda, variable(96)), want);
        A = A0;
        auto M = Matrix<T>::view(n, n, A.data(), lda, shrinking(n));
        EXPECT_EQ(potrf(uplo, M), want);
      }
    }
}

TYPED_TEST(VariableTiles, GetrfRandomPivotingAndSingular) {
  using T = TypeParam;
  struct Shape {
    int64_t m, n;
  };
  for (Shape s : {Shape{400, 400}, Shape{450, 320}, Shape{320, 450}}) {
    SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
    const int64_t lda = s.m + 2, k = std::min(s.m, s.n);
    auto random = bench::random_matrix<T>(s.m, s.n, lda, 21 + s.m);
    auto tiny_diag = random;  // pivoting decides everything
    for (int64_t i = 0; i < k; ++i) tiny_diag[i + i * lda] *= real_t<T>(bench::eps<T>() * bench::eps<T>());
    auto singular = random;  // a zero column inside the small tiles: info as LAPACK
    for (int64_t i = 0; i < s.m; ++i) singular[i + (k - 20) * lda] = T(0);
    for (const auto* A0 : {&random, &tiny_diag, &singular}) {
      auto G = *A0;
      std::vector<lapack_int> lp(static_cast<std::size_t>(k));
      const int64_t want = blas::getrf(s.m, s.n, G.data(), lda, lp.data());
      for (const Options& o : {variable(96), Options{96}}) {
        auto F = *A0;
        std::vector<int64_t> ipiv(static_cast<std::size_t>(k));
        EXPECT_EQ(getrf(s.m, s.n, F.data(), lda, ipiv.data(), o), want);
        EXPECT_LT(bench::getrf_residual(s.m, s.n, A0->data(), lda, F.data(), lda, ipiv.data()), kThreshold);
      }
      auto F = *A0;
      auto M = Matrix<T>::view(s.m, s.n, F.data(), lda, shrinking(k));
      std::vector<int64_t> ipiv;
      EXPECT_EQ(getrf(M, ipiv), want);
      EXPECT_LT(bench::getrf_residual(s.m, s.n, A0->data(), lda, F.data(), lda, ipiv.data()), kThreshold);
      if (s.m == s.n && A0 != &singular) {  // getrs on the variable-tiled factor
        const int64_t nrhs = 3;
        auto B0 = bench::random_matrix<T>(s.n, nrhs, s.n, 22);
        auto X = B0;
        auto Bm = Matrix<T>::view(s.n, nrhs, X.data(), s.n, shrinking(k));
        getrs(Op::NoTrans, M, ipiv, Bm);
        EXPECT_LT(bench::solve_residual(s.n, s.n, nrhs, A0->data(), lda, X.data(), s.n, B0.data(), s.n), kThreshold);
      }
    }
  }
}

TYPED_TEST(VariableTiles, GeqrfRandomAndGraded) {
  using T = TypeParam;
  using R = real_t<T>;
  struct Shape {
    int64_t m, n;
  };
  for (Shape s : {Shape{450, 320}, Shape{320, 450}}) {
    SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
    const int64_t lda = s.m + 1, k = std::min(s.m, s.n);
    auto random = bench::random_matrix<T>(s.m, s.n, lda, 31 + s.m);
    auto graded = random;  // columns over 24 (6 in single) orders of magnitude
    for (int64_t j = 0; j < s.n; ++j)
      for (int64_t i = 0; i < s.m; ++i)
        graded[i + j * lda] *= T(std::pow(R(10), -R(std::is_same_v<R, float> ? 6 : 24) * R(j) / R(s.n)));
    for (const auto* A0 : {&random, &graded}) {
      for (const Options& o : {variable(96), Options{96}}) {
        auto A = *A0;
        std::vector<T> tau(static_cast<std::size_t>(k));
        geqrf<T>(s.m, s.n, A.data(), lda, tau.data(), o);
        EXPECT_LT(bench::qr_residual(s.m, s.n, A0->data(), lda, A.data(), lda, tau.data()), kThreshold);
      }
      auto A = *A0;
      std::vector<T> tau(static_cast<std::size_t>(k));
      auto M = Matrix<T>::view(s.m, s.n, A.data(), lda, shrinking(k));
      geqrf(M, tau.data());
      EXPECT_LT(bench::qr_residual(s.m, s.n, A0->data(), lda, A.data(), lda, tau.data()), kThreshold);
    }
    if (s.m > s.n) {  // least squares on a shrinking tiling (B cut as A)
      const int64_t nrhs = 2;
      auto A = random;
      auto B0 = bench::random_matrix<T>(s.m, nrhs, s.m, 32);
      auto X = B0;
      auto Am = Matrix<T>::view(s.m, s.n, A.data(), lda, shrinking(k));
      auto Bm = Matrix<T>::view(s.m, nrhs, X.data(), s.m, shrinking(k));
      EXPECT_EQ(gels(Op::NoTrans, Am, Bm), 0);
      EXPECT_LT(bench::least_squares_residual(Op::NoTrans, s.m, s.n, nrhs, random.data(), lda, X.data(), s.m,
                                              B0.data(), s.m),
                kThreshold);
    }
  }
}

TYPED_TEST(VariableTiles, HybridTilingWithANarrowerLastRound) {
  // Host cores and an emulated accelerator under Distribution::Hybrid: the
  // hybrid pattern written out over n, its last round's large tiles halved
  // (owners kept); potrf, getrf and geqrf on it as accurate as on the fixed
  // pattern.
  using T = TypeParam;
  Config c;
  c.devices = "cpu,emu";
  init(c);
  const int64_t m = 520, n = 480, nb = 32;
  // a pattern of two host tiles and one accelerator tile (a round of 160):
  // written out over 480 columns, the last round's 96 becomes 48 + 48
  const Tiling h{{32, 32, 96}, {0, 0, 1}};
  const Tiling s = detail::shrink_hybrid_tail(h, n);
  EXPECT_EQ(s.sizes, (std::vector<int64_t>{32, 32, 96, 32, 32, 96, 32, 32, 48, 48}));
  EXPECT_EQ(s.owners, (std::vector<int>{0, 0, 1, 0, 0, 1, 0, 0, 1, 1}));
  EXPECT_EQ(detail::shrink_hybrid_tail(Tiling{{64}, {}}, n), (Tiling{{64}, {}}));
  Options o;
  o.nb = nb;
  o.distribution = Distribution::Hybrid;
  o.variable_tiles = 1;
  {
    auto A0 = bench::random_hpd<T>(n, n, 41);
    auto A = A0;
    ASSERT_EQ(potrf(Uplo::Lower, n, A.data(), n, o), 0);
    EXPECT_LT(bench::potrf_residual(Uplo::Lower, n, A0.data(), n, A.data(), n), kThreshold);
  }
  {
    auto A0 = bench::random_matrix<T>(m, n, m, 42);
    auto F = A0;
    std::vector<int64_t> ipiv(static_cast<std::size_t>(n));
    EXPECT_EQ(getrf(m, n, F.data(), m, ipiv.data(), o), 0);
    EXPECT_LT(bench::getrf_residual(m, n, A0.data(), m, F.data(), m, ipiv.data()), kThreshold);
    auto A = A0;
    std::vector<T> tau(static_cast<std::size_t>(n));
    geqrf<T>(m, n, A.data(), m, tau.data(), o);
    EXPECT_LT(bench::qr_residual(m, n, A0.data(), m, A.data(), m, tau.data()), kThreshold);
    // the tile matrix API on the written-out pattern, the accelerator's tiles halved at the end
    Options hybrid;
    hybrid.distribution = Distribution::Hybrid;
    F = A0;
    auto M = Matrix<T>::view(m, n, F.data(), m, s);
    std::vector<int64_t> piv;
    EXPECT_EQ(getrf(M, piv, hybrid), 0);
    EXPECT_LT(bench::getrf_residual(m, n, A0.data(), m, F.data(), m, piv.data()), kThreshold);
    A = A0;
    auto Q = Matrix<T>::view(m, n, A.data(), m, s);
    geqrf(Q, tau.data(), hybrid);
    EXPECT_LT(bench::qr_residual(m, n, A0.data(), m, A.data(), m, tau.data()), kThreshold);
    auto H0 = bench::random_hpd<T>(n, n, 43);
    auto H = H0;
    auto P = Matrix<T>::view(n, n, H.data(), n, s);
    EXPECT_EQ(potrf(Uplo::Lower, P, hybrid), 0);
    EXPECT_LT(bench::potrf_residual(Uplo::Lower, n, H0.data(), n, H.data(), n), kThreshold);
  }
  finalize();
}

}  // namespace
}  // namespace hetla
