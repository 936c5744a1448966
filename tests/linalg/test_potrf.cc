// Tile Cholesky factorization, all four precisions: column-major API and tile
// matrices, both triangles, ragged tile edges, lda > n, well- and
// ill-conditioned inputs; LAPACK-style residual ||A - L L^H|| / (n ||A|| eps).
// Everything outside the referenced triangle is poisoned with NaNs and must
// come back bitwise unchanged.
#include <gtest/gtest.h>

#include <vector>

#include "common/cholesky.hpp"
#include "common/watchdog.hpp"
#include "hetla/hetla.hpp"

namespace hetla {
namespace {

using test::Precisions;
using test::PrecisionName;

/// n = 0, 1, nb-1, nb, nb+1 and several tiles with a ragged edge.
std::vector<int64_t> shapes(int64_t nb) { return {0, 1, nb - 1, nb, nb + 1, 3 * nb + 5}; }

template <typename T> class Potrf : public testing::Test {};
TYPED_TEST_SUITE(Potrf, Precisions, PrecisionName);

/// Factors a copy of A through the column-major API and checks it.
template <typename T>
void check_column_major(Uplo uplo, int64_t n, int64_t lda, const std::vector<T>& A0, int64_t nb) {
  auto A = A0;
  int64_t info = -1;
  test::must_finish("potrf", [&] { info = potrf<T>(uplo, n, A.data(), lda, Options{nb}); });
  ASSERT_EQ(info, 0);
  EXPECT_LT(bench::potrf_residual(uplo, n, A0.data(), lda, A.data(), lda), bench::kResidualThreshold);
  std::string where;
  EXPECT_EQ(test::count_changed_outside(uplo, n, lda, A0.data(), A.data(), &where), 0)
      << "entries outside the triangle changed, first at " << where;
}

/// Factors a copy of A as an owned tile matrix (copy_from / copy_to) and checks it.
template <typename T>
void check_tile_matrix(Uplo uplo, int64_t n, int64_t lda, const std::vector<T>& A0, int64_t nb) {
  Matrix<T> M(n, n, nb);
  EXPECT_FALSE(M.is_view());
  EXPECT_EQ(M.nt(), (n + nb - 1) / nb);
  M.copy_from(A0.data(), lda);
  int64_t info = -1;
  test::must_finish("potrf", [&] { info = potrf(uplo, M); });
  ASSERT_EQ(info, 0);
  auto A = A0;
  M.copy_to(A.data(), lda);
  EXPECT_LT(bench::potrf_residual(uplo, n, A0.data(), lda, A.data(), lda), bench::kResidualThreshold);
  std::string where;
  EXPECT_EQ(test::count_changed_outside(uplo, n, lda, A0.data(), A.data(), &where), 0)
      << "entries outside the triangle changed, first at " << where;
}

TYPED_TEST(Potrf, ColumnMajorAllShapes) {
  using T = TypeParam;
  for (int64_t nb : {16, 40})
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
      for (int64_t n : shapes(nb))
        for (int64_t pad : {0, 5}) {
          const int64_t lda = std::max<int64_t>(1, n + pad);
          SCOPED_TRACE(testing::Message() << test::uplo_name(uplo) << " n=" << n << " lda=" << lda << " nb=" << nb);
          check_column_major<T>(uplo, n, lda, test::hpd_input<T>(uplo, n, lda, 100 + n), nb);
        }
}

TYPED_TEST(Potrf, TileMatrixAllShapes) {
  using T = TypeParam;
  for (int64_t nb : {16, 40})
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
      for (int64_t n : shapes(nb))
        for (int64_t pad : {0, 3}) {
          const int64_t lda = std::max<int64_t>(1, n + pad);
          SCOPED_TRACE(testing::Message() << test::uplo_name(uplo) << " n=" << n << " lda=" << lda << " nb=" << nb);
          check_tile_matrix<T>(uplo, n, lda, test::hpd_input<T>(uplo, n, lda, 200 + n), nb);
        }
}

// Single precision's trailing update takes two tile columns a GEMM while 8
// or more are left (potrf.cc, update_width), in place for a column-major
// view with tiles of 256 and more, tile by tile for an owned tile matrix.
TEST(PotrfBlockedUpdate, SinglePrecisionTwoColumnsAGemm) {
  const int64_t nb = 256, n = 10 * nb + 37, lda = n + 3;
  const auto A0 = test::ill_input<float>(Uplo::Lower, n, lda, 7);  // off-diagonal terms that matter
  check_column_major<float>(Uplo::Lower, n, lda, A0, nb);
  check_tile_matrix<float>(Uplo::Lower, n, lda, A0, nb);
}

TYPED_TEST(Potrf, IllConditioned) {
  // cond ~1e10 (d, z) or ~1e3 (s, c): the backward error stays O(eps).
  using T = TypeParam;
  const int64_t nb = 16;
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
    for (int64_t n : {nb + 1, 3 * nb + 5, 6 * nb + 11}) {
      const int64_t lda = n + 2;
      SCOPED_TRACE(testing::Message() << test::uplo_name(uplo) << " n=" << n);
      auto A0 = test::ill_input<T>(uplo, n, lda, 300 + n);
      check_column_major<T>(uplo, n, lda, A0, nb);
      check_tile_matrix<T>(uplo, n, lda, A0, nb);
    }
}

TYPED_TEST(Potrf, DefaultTileSize) {
  using T = TypeParam;
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper}) {
    const int64_t n = 301, lda = 304;
    SCOPED_TRACE(test::uplo_name(uplo));
    auto A0 = test::hpd_input<T>(uplo, n, lda, 7);
    auto A = A0;
    ASSERT_EQ(potrf<T>(uplo, n, A.data(), lda), 0);
    EXPECT_LT(bench::potrf_residual(uplo, n, A0.data(), lda, A.data(), lda), bench::kResidualThreshold);
    EXPECT_EQ(test::count_changed_outside(uplo, n, lda, A0.data(), A.data()), 0);
  }
  const int64_t nb = default_tile_size<T>(1000);
  EXPECT_GE(nb, 1);
  EXPECT_LE(nb, 1000);
}

TYPED_TEST(Potrf, DiagonalMatrixIsExact) {
  // A = diag(d^2) with d exactly representable: the factor is diag(d) exactly,
  // and every off-diagonal entry of the triangle is exactly zero.
  using T = TypeParam;
  using R = real_t<T>;
  const int64_t n = 37, nb = 8;
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper}) {
    std::vector<T> A(static_cast<std::size_t>(n * n), T(0));
    for (int64_t i = 0; i < n; ++i) A[i + i * n] = T(R((i % 7 + 1) * (i % 7 + 1)));
    test::poison_outside(uplo, n, n, A);
    ASSERT_EQ(potrf<T>(uplo, n, A.data(), n, Options{nb}), 0);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < n; ++i)
        if (test::in_triangle(uplo, i, j)) {
          T expect = i == j ? T(R(i % 7 + 1)) : T(0);
          EXPECT_EQ(A[i + j * n], expect) << "(" << i << ", " << j << ")";
        }
  }
}

TYPED_TEST(Potrf, ThreadCountsAgree) {
  // The tile algorithm applies the updates of every tile in a fixed order (the
  // dependences serialise them), so the factor must not depend on the number of
  // workers at all: results are compared bitwise, for each storage. The two
  // storages are compared by their residuals only: on a column-major array an
  // update is one GEMM over a whole tile column (two in single precision),
  // on tile storage one GEMM per tile, and a BLAS may round the shapes
  // differently (OpenBLAS's Haswell SGEMM on the AMD EPYC host, both
  // triangles; its other precisions and the SkylakeX kernels agreed).
  using T = TypeParam;
  const int64_t nb = 16, n = 8 * nb + 3, lda = n + 1;
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper}) {
    SCOPED_TRACE(test::uplo_name(uplo));
    auto A0 = test::hpd_input<T>(uplo, n, lda, 4242);
    std::vector<T> reference, tile_reference;
    for (int threads : {1, 2, 3}) {
      SCOPED_TRACE(testing::Message() << threads << " threads");
      init(Config{threads});
      EXPECT_EQ(num_threads(), threads);
      auto A = A0;
      int64_t info = -1;
      test::must_finish("potrf", [&] { info = potrf<T>(uplo, n, A.data(), lda, Options{nb}); });
      ASSERT_EQ(info, 0);
      EXPECT_LT(bench::potrf_residual(uplo, n, A0.data(), lda, A.data(), lda), bench::kResidualThreshold);
      // Tile matrix path too.
      Matrix<T> M(n, n, nb);
      M.copy_from(A0.data(), lda);
      ASSERT_EQ(potrf(uplo, M), 0);
      auto B = A0;
      M.copy_to(B.data(), lda);
      EXPECT_LT(bench::potrf_residual(uplo, n, A0.data(), lda, B.data(), lda), bench::kResidualThreshold);
      if (reference.empty()) reference = A, tile_reference = B;
      EXPECT_TRUE(test::bitwise_equal(A, reference)) << "result differs from the 1-thread result";
      EXPECT_TRUE(test::bitwise_equal(B, tile_reference)) << "tile-matrix result differs from the 1-thread one";
    }
  }
  finalize();
}

TYPED_TEST(Potrf, RepeatedCallsReuseTheContext) {
  // Many small factorizations in a row (the context and its runtime are reused).
  using T = TypeParam;
  for (int rep = 0; rep < 50; ++rep) {
    const int64_t n = 1 + rep % 23;
    auto A0 = test::hpd_input<T>(Uplo::Lower, n, n, rep);
    auto A = A0;
    ASSERT_EQ(potrf<T>(Uplo::Lower, n, A.data(), n, Options{4}), 0);
    ASSERT_LT(bench::potrf_residual(Uplo::Lower, n, A0.data(), n, A.data(), n), bench::kResidualThreshold);
  }
}

}  // namespace
}  // namespace hetla
