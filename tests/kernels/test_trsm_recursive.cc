// blas::trsm_recursive (kernels/host/trsm_recursive.hpp), with its Left-side
// base solved through the transpose (trsm_left_base.hpp): every Side, Uplo,
// Op and Diag, s/d/c/z, orders around the recursion bases, alpha != 1,
// leading dimensions past the matrices (the padding untouched), against the
// vendor's trsm; backward error ||op(A) X - alpha B|| / (||A|| ||X|| k eps)
// on a well-conditioned triangle and on the Cholesky factor of an
// ill-conditioned matrix (what potrs solves with).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "checks.hpp"
#include "kernels/host/blas.hpp"
#include "kernels/host/trsm_recursive.hpp"
#include "matgen.hpp"

namespace hetla {
namespace {

template <typename T> class TrsmRecursive : public testing::Test {};
using Precisions = testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(TrsmRecursive, Precisions);

const std::vector<int64_t> kSizes = {1, 5, 31, 32, 33, 64, 100, 256, 300};

/// op(A) as a dense k x k matrix: the uplo triangle of A, 1 on the diagonal for Unit.
template <typename T> std::vector<T> dense_op(Uplo uplo, Op op, Diag diag, int64_t k, const std::vector<T>& A, int64_t lda) {
  std::vector<T> D(static_cast<std::size_t>(k * k), T(0));
  for (int64_t j = 0; j < k; ++j)
    for (int64_t i = 0; i < k; ++i) {
      const bool in = i == j || (uplo == Uplo::Lower ? i > j : i < j);
      if (!in) continue;
      T v = i == j && diag == Diag::Unit ? T(1) : A[static_cast<std::size_t>(i + j * lda)];
      if (op == Op::NoTrans) D[static_cast<std::size_t>(i + j * k)] = v;
      else D[static_cast<std::size_t>(j + i * k)] = op == Op::ConjTrans ? conj(v) : v;
    }
  return D;
}

/// ||op(A) X - alpha B|| / (||op(A)|| ||X|| k eps) (Left), or X op(A) (Right), 1-norms.
template <typename T>
double backward_error(Side side, const std::vector<T>& opA, int64_t m, int64_t n, T alpha, const std::vector<T>& X,
                      const std::vector<T>& B0, int64_t ldb) {
  const int64_t k = side == Side::Left ? m : n;
  std::vector<T> R(B0);
  if (side == Side::Left)
    blas::gemm(Op::NoTrans, Op::NoTrans, m, n, k, T(1), opA.data(), k, X.data(), ldb, -alpha, R.data(), ldb);
  else
    blas::gemm(Op::NoTrans, Op::NoTrans, m, n, k, T(1), X.data(), ldb, opA.data(), k, -alpha, R.data(), ldb);
  const double r = blas::lange('1', m, n, R.data(), ldb);
  const double a = blas::lange('1', k, k, opA.data(), k);
  const double x = blas::lange('1', m, n, X.data(), ldb);
  if (r == 0) return 0;
  return r / (a * x * static_cast<double>(k) * bench::eps<T>());
}

/// A k x k (leading dimension k + 3) whose both triangles are set: random
/// entries below 1/k off the diagonal and 1 + |u| on it (well-conditioned), or
/// the Cholesky factor of a matrix of condition 1/(100 eps) in the uplo
/// triangle, the other triangle left as it was (garbage the solve must not read).
template <typename T> std::vector<T> triangle(bool ill, Uplo uplo, int64_t k, uint64_t seed) {
  const int64_t lda = k + 3;
  if (!ill) {
    auto A = bench::random_matrix<T>(lda, k, lda, seed);
    for (int64_t j = 0; j < k; ++j)
      for (int64_t i = 0; i < k; ++i) {
        auto& a = A[static_cast<std::size_t>(i + j * lda)];
        a = i == j ? T(1 + std::abs(a)) : a / static_cast<real_t<T>>(k);
      }
    return A;
  }
  auto A = bench::ill_conditioned_hpd<T>(k, lda, 0.01 / bench::eps<T>(), seed);
  EXPECT_EQ(blas::potrf(uplo, k, A.data(), lda), 0);
  return A;
}

template <typename T> void check_all(bool ill) {
  T alpha(-0.75);
  if constexpr (is_complex_v<T>) alpha = T(0.75, -0.5);
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
    for (int64_t k : kSizes) {
      const int64_t lda = k + 3;
      const auto A = triangle<T>(ill, uplo, k, 100 + static_cast<uint64_t>(k));
      for (Side side : {Side::Left, Side::Right})
        for (int64_t other : kSizes) {
          const int64_t m = side == Side::Left ? k : other, n = side == Side::Left ? other : k;
          const int64_t ldb = m + 2;
          const auto B0 = bench::random_matrix<T>(ldb, n, ldb, 7 + static_cast<uint64_t>(m * 1000 + n));
          for (Op op : {Op::NoTrans, Op::Trans, Op::ConjTrans})
            for (Diag diag : {Diag::NonUnit, Diag::Unit}) {
              const char variant[] = {char(side), char(uplo), char(op), char(diag), '\0'};
              SCOPED_TRACE(std::string(ill ? "ill " : "well ") + variant + " m=" + std::to_string(m) +
                           " n=" + std::to_string(n));
              auto X = B0, V = B0;
              blas::trsm_recursive(side, uplo, op, diag, m, n, alpha, A.data(), lda, X.data(), ldb);
              blas::trsm(side, uplo, op, diag, m, n, alpha, A.data(), lda, V.data(), ldb);
              for (int64_t j = 0; j < n; ++j)
                for (int64_t i = m; i < ldb; ++i) {
                  const auto at = static_cast<std::size_t>(i + j * ldb);
                  ASSERT_EQ(X[at], B0[at]) << "padding touched at " << i << "," << j;
                }
              const auto opA = dense_op(uplo, op, diag, k, A, lda);
              const double ours = backward_error(side, opA, m, n, alpha, X, B0, ldb);
              const double vendor = backward_error(side, opA, m, n, alpha, V, B0, ldb);
              // k = 1 is two roundings (alpha b, then / a): 1.0 eps for the vendor too.
              EXPECT_LT(ours, 4.0) << "vendor's " << vendor;
              if (!ill) {
                // Well-conditioned: the solutions agree to rounding.
                const double diff = [&] {
                  auto D = X;
                  for (std::size_t i = 0; i < D.size(); ++i) D[i] -= V[i];
                  return blas::lange('1', m, n, D.data(), ldb) / blas::lange('1', m, n, V.data(), ldb);
                }();
                EXPECT_LT(diff, 100 * static_cast<double>(k) * bench::eps<T>());
              }
            }
        }
    }
}

TYPED_TEST(TrsmRecursive, EveryVariantWellConditioned) { check_all<TypeParam>(false); }
TYPED_TEST(TrsmRecursive, EveryVariantIllConditioned) { check_all<TypeParam>(true); }

}  // namespace
}  // namespace hetla
