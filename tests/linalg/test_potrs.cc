// Cholesky solves (potrs after potrf, and posv), all four precisions, both
// triangles, several right-hand-side counts (1, 3, more than a tile), column-
// major and tile-matrix APIs: LAPACK-style residual ||B - A X|| / (n ||A|| ||X|| eps).
// Also the tile triangular solve trsm_left that potrs is built on, in every variant.
#include <gtest/gtest.h>

#include <vector>

#include "common/cholesky.hpp"
#include "common/watchdog.hpp"
#include "hetla/hetla.hpp"

namespace hetla {
namespace {

using test::Precisions;
using test::PrecisionName;

constexpr int64_t kNb = 16;

template <typename T> class Solve : public testing::Test {};
TYPED_TEST_SUITE(Solve, Precisions, PrecisionName);

/// n x nrhs right-hand side with leading dimension ldb; rows n..ldb-1 poisoned.
template <typename T> std::vector<T> rhs(int64_t n, int64_t nrhs, int64_t ldb, uint64_t seed) {
  auto B = bench::random_matrix<T>(n, nrhs, ldb, seed);
  for (int64_t j = 0; j < nrhs; ++j)
    for (int64_t i = n; i < ldb; ++i) B[i + j * ldb] = test::poison<T>(i + j);
  return B;
}

template <typename T> int64_t changed_padding(int64_t n, int64_t nrhs, int64_t ldb, const T* B0, const T* B) {
  int64_t bad = 0;
  for (int64_t j = 0; j < nrhs; ++j)
    for (int64_t i = n; i < ldb; ++i) bad += std::memcmp(B0 + i + j * ldb, B + i + j * ldb, sizeof(T)) != 0;
  return bad;
}

struct Case {
  Uplo uplo;
  int64_t n, nrhs;
};

std::vector<Case> cases() {
  std::vector<Case> cs;
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
    for (int64_t n : {int64_t{1}, kNb - 1, kNb + 1, 3 * kNb + 5})
      for (int64_t nrhs : {int64_t{1}, int64_t{3}, kNb + 3}) cs.push_back({uplo, n, nrhs});
  return cs;
}

template <typename T> void check_potrs(const Case& c, bool ill) {
  const int64_t n = c.n, nrhs = c.nrhs, lda = n + 2, ldb = n + 3;
  auto A0 = ill ? test::ill_input<T>(c.uplo, n, lda, 11 + n) : test::hpd_input<T>(c.uplo, n, lda, 11 + n);
  auto Afull = bench::full_hermitian(c.uplo, n, A0.data(), lda);
  auto F = A0;
  ASSERT_EQ(potrf<T>(c.uplo, n, F.data(), lda, Options{kNb}), 0);
  const auto F0 = F;
  const auto B0 = rhs<T>(n, nrhs, ldb, 5 + nrhs);
  auto X = B0;
  test::must_finish("potrs", [&] { potrs<T>(c.uplo, n, nrhs, F.data(), lda, X.data(), ldb, Options{kNb}); });
  EXPECT_LT(bench::solve_residual(n, n, nrhs, Afull.data(), n, X.data(), ldb, B0.data(), ldb),
            bench::kResidualThreshold);
  EXPECT_TRUE(test::bitwise_equal(F, F0)) << "potrs modified the factor";
  EXPECT_EQ(changed_padding(n, nrhs, ldb, B0.data(), X.data()), 0) << "padding rows of B changed";
}

template <typename T> void check_posv(const Case& c) {
  const int64_t n = c.n, nrhs = c.nrhs, lda = n + 1, ldb = n + 4;
  auto A0 = test::hpd_input<T>(c.uplo, n, lda, 21 + n);
  auto Afull = bench::full_hermitian(c.uplo, n, A0.data(), lda);
  auto A = A0;
  const auto B0 = rhs<T>(n, nrhs, ldb, 9 + nrhs);
  auto X = B0;
  int64_t info = -1;
  test::must_finish("posv", [&] { info = posv<T>(c.uplo, n, nrhs, A.data(), lda, X.data(), ldb, Options{kNb}); });
  ASSERT_EQ(info, 0);
  EXPECT_LT(bench::potrf_residual(c.uplo, n, A0.data(), lda, A.data(), lda), bench::kResidualThreshold);
  EXPECT_LT(bench::solve_residual(n, n, nrhs, Afull.data(), n, X.data(), ldb, B0.data(), ldb),
            bench::kResidualThreshold);
  EXPECT_EQ(test::count_changed_outside(c.uplo, n, lda, A0.data(), A.data()), 0);
  EXPECT_EQ(changed_padding(n, nrhs, ldb, B0.data(), X.data()), 0) << "padding rows of B changed";
}

template <typename T> void check_tile_posv(const Case& c) {
  const int64_t n = c.n, nrhs = c.nrhs;
  auto A0 = test::hpd_input<T>(c.uplo, n, n, 31 + n);
  auto Afull = bench::full_hermitian(c.uplo, n, A0.data(), n);
  const auto B0 = bench::random_matrix<T>(n, nrhs, n, 3 + nrhs);
  Matrix<T> A(n, n, kNb), B(n, nrhs, kNb);
  A.copy_from(A0.data(), n);
  B.copy_from(B0.data(), n);
  int64_t info = -1;
  test::must_finish("posv", [&] { info = posv(c.uplo, A, B); });
  ASSERT_EQ(info, 0);
  std::vector<T> X(B0.size()), F(A0.size());
  B.copy_to(X.data(), n);
  A.copy_to(F.data(), n);
  EXPECT_LT(bench::potrf_residual(c.uplo, n, A0.data(), n, F.data(), n), bench::kResidualThreshold);
  EXPECT_LT(bench::solve_residual(n, n, nrhs, Afull.data(), n, X.data(), n, B0.data(), n), bench::kResidualThreshold);
  // potrs with the factor left in A solves again, for a new right-hand side.
  const auto C0 = bench::random_matrix<T>(n, nrhs, n, 77);
  Matrix<T> C(n, nrhs, kNb);
  C.copy_from(C0.data(), n);
  potrs(c.uplo, A, C);
  C.copy_to(X.data(), n);
  EXPECT_LT(bench::solve_residual(n, n, nrhs, Afull.data(), n, X.data(), n, C0.data(), n), bench::kResidualThreshold);
}

TYPED_TEST(Solve, PotrsColumnMajor) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(testing::Message() << test::uplo_name(c.uplo) << " n=" << c.n << " nrhs=" << c.nrhs);
    check_potrs<TypeParam>(c, /*ill=*/false);
  }
}

TYPED_TEST(Solve, PotrsIllConditioned) {
  for (const Case& c : cases()) {
    if (c.n < kNb) continue;
    SCOPED_TRACE(testing::Message() << test::uplo_name(c.uplo) << " n=" << c.n << " nrhs=" << c.nrhs);
    check_potrs<TypeParam>(c, /*ill=*/true);
  }
}

TYPED_TEST(Solve, PosvColumnMajor) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(testing::Message() << test::uplo_name(c.uplo) << " n=" << c.n << " nrhs=" << c.nrhs);
    check_posv<TypeParam>(c);
  }
}

TYPED_TEST(Solve, PosvTileMatrix) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(testing::Message() << test::uplo_name(c.uplo) << " n=" << c.n << " nrhs=" << c.nrhs);
    check_tile_posv<TypeParam>(c);
  }
}

TYPED_TEST(Solve, DefaultTileSize) {
  using T = TypeParam;
  const int64_t n = 260, nrhs = 5;
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper}) {
    auto A0 = test::hpd_input<T>(uplo, n, n, 1);
    auto Afull = bench::full_hermitian(uplo, n, A0.data(), n);
    auto A = A0;
    const auto B0 = bench::random_matrix<T>(n, nrhs, n, 2);
    auto X = B0;
    ASSERT_EQ(posv<T>(uplo, n, nrhs, A.data(), n, X.data(), n), 0);
    EXPECT_LT(bench::solve_residual(n, n, nrhs, Afull.data(), n, X.data(), n, B0.data(), n),
              bench::kResidualThreshold);
  }
}

TYPED_TEST(Solve, EmptyProblemsAreNoOps) {
  using T = TypeParam;
  std::vector<T> A = {T(4)}, B = {T(1), T(2)};
  const auto A0 = A, B0 = B;
  // n = 0 (lda, ldb >= 1), nrhs = 0: nothing is read or written.
  EXPECT_EQ(posv<T>(Uplo::Lower, 0, 2, A.data(), 1, B.data(), 1), 0);
  potrs<T>(Uplo::Upper, 0, 2, A.data(), 1, B.data(), 1);
  EXPECT_EQ(posv<T>(Uplo::Lower, 1, 0, A.data(), 1, B.data(), 1), 0);  // factors A, no right-hand side
  EXPECT_EQ(A[0], T(2));
  potrs<T>(Uplo::Lower, 1, 0, A.data(), 1, B.data(), 1);
  EXPECT_TRUE(test::bitwise_equal(B, B0));
  EXPECT_EQ(potrf<T>(Uplo::Lower, 0, nullptr, 1), 0);
}

TYPED_TEST(Solve, PosvNotPositiveDefiniteLeavesBUntouched) {
  using T = TypeParam;
  const int64_t n = 3 * kNb + 5, nrhs = 4, lda = n, ldb = n + 1;
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper}) {
    for (int64_t k : {int64_t{3}, 2 * kNb + 1}) {
      SCOPED_TRACE(testing::Message() << test::uplo_name(uplo) << " k=" << k);
      auto A = test::hpd_input<T>(uplo, n, lda, 5);
      test::make_not_pd_at(uplo, n, lda, A, k, /*subtle=*/true);
      const auto B0 = rhs<T>(n, nrhs, ldb, 6);
      auto B = B0;
      int64_t info = -1;
      test::must_finish("posv", [&] { info = posv<T>(uplo, n, nrhs, A.data(), lda, B.data(), ldb, Options{kNb}); });
      EXPECT_EQ(info, k);
      EXPECT_TRUE(test::bitwise_equal(B, B0)) << "B changed although the factorization failed";
      // Tile-matrix posv reports the same and leaves B alone too.
      auto A2 = test::hpd_input<T>(uplo, n, n, 5);
      test::make_not_pd_at(uplo, n, n, A2, k, /*subtle=*/true);
      Matrix<T> MA(n, n, kNb), MB(n, nrhs, kNb);
      MA.copy_from(A2.data(), n);
      MB.copy_from(B0.data(), ldb);
      EXPECT_EQ(posv(uplo, MA, MB), k);
      auto B2 = B0;
      MB.copy_to(B2.data(), ldb);
      EXPECT_TRUE(test::bitwise_equal(B2, B0));
    }
  }
}

TYPED_TEST(Solve, TrsmLeftAllVariants) {
  // B := alpha op(A)^-1 B for both triangles, all three ops, unit and non-unit
  // diagonals. Entries that must not be referenced (the other triangle, and the
  // diagonal when it is unit) are poisoned with NaN.
  // Residual: ||op(A) X - alpha B|| / (n ||op(A)|| ||X|| eps).
  using T = TypeParam;
  using R = real_t<T>;
  T alpha;
  if constexpr (is_complex_v<T>) alpha = T(R(0.5), R(-1.25));
  else alpha = T(-1.5);
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
    for (Op op : {Op::NoTrans, Op::Trans, Op::ConjTrans})
      for (Diag diag : {Diag::NonUnit, Diag::Unit})
        for (int64_t n : {int64_t{1}, kNb + 1, 3 * kNb + 5}) {
          const int64_t nrhs = kNb + 3, lda = n + 1, ldb = n + 2;
          SCOPED_TRACE(testing::Message() << test::uplo_name(uplo) << " op=" << static_cast<char>(op)
                                          << " diag=" << static_cast<char>(diag) << " n=" << n);
          // Well-conditioned triangle: random entries scaled by 1/n, diagonal ~2.
          auto A = bench::random_matrix<T>(n, n, lda, 40 + n);
          for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i) A[i + j * lda] /= R(n);
          for (int64_t i = 0; i < n; ++i) A[i + i * lda] += T(R(2));
          test::poison_outside(uplo, n, lda, A);
          if (diag == Diag::Unit)
            for (int64_t i = 0; i < n; ++i) A[i + i * lda] = test::poison<T>(i);
          // op(A) explicitly, as a full n x n matrix.
          std::vector<T> M(static_cast<std::size_t>(n * n), T(0));
          for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i) {
              T a = T(0);
              if (i == j) a = diag == Diag::Unit ? T(1) : A[i + i * lda];
              else if (test::in_triangle(uplo, i, j)) a = A[i + j * lda];
              if (op == Op::NoTrans) M[i + j * n] = a;
              else M[j + i * n] = op == Op::Trans ? a : conj(a);
            }
          const auto B0 = rhs<T>(n, nrhs, ldb, 50 + n);
          auto X = B0;
          const auto A0 = A;
          auto Av = Matrix<T>::view(n, n, A.data(), lda, kNb);
          auto Xv = Matrix<T>::view(n, nrhs, X.data(), ldb, kNb);
          test::must_finish("trsm_left", [&] { trsm_left(uplo, op, diag, alpha, Av, Xv); });
          std::vector<T> alphaB(static_cast<std::size_t>(n * nrhs));
          for (int64_t j = 0; j < nrhs; ++j)
            for (int64_t i = 0; i < n; ++i) alphaB[i + j * n] = alpha * B0[i + j * ldb];
          EXPECT_LT(bench::solve_residual(n, n, nrhs, M.data(), n, X.data(), ldb, alphaB.data(), n),
                    bench::kResidualThreshold);
          EXPECT_TRUE(test::bitwise_equal(A, A0)) << "trsm_left modified A";
          EXPECT_EQ(changed_padding(n, nrhs, ldb, B0.data(), X.data()), 0);
        }
}

}  // namespace
}  // namespace hetla
