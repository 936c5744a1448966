// hetla's own small LU (kernels/host/small_lu.hpp): every order up to its
// largest (ragged blocks, row vectors of every length), rectangular shapes,
// lda > m with the padding untouched, the vendor's pivots on random
// matrices, LAPACK's info for zero columns, the division below the smallest
// normal pivot, NaNs. The library's entry (the AVX2 build on a CPU that has
// it) and the default build, compiled into this test from the same body,
// are checked alike.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "checks.hpp"
#include "checks_lu.hpp"
#include "kernels/host/blas.hpp"
#include "kernels/host/lapack_lu.hpp"
#include "kernels/host/small_lu.hpp"
#include "kernels/host/small_lu_impl.hpp"
#include "matgen.hpp"

namespace hetla {
namespace {

template <typename T> class SmallLu : public testing::Test {};
using Reals = testing::Types<float, double>;
TYPED_TEST_SUITE(SmallLu, Reals);

/// The library's entry point, or the default build compiled in this file.
template <typename T, typename I> int64_t factor(bool library, int64_t m, int64_t n, T* A, int64_t lda, I* ipiv) {
  return library ? small::getrf_own(m, n, A, lda, ipiv) : ::getrf_small(m, n, A, lda, ipiv);
}

/// Factors A0 (m x n, leading dimension lda) and checks LAPACK's info and
/// pivots against the vendor's, the backward error, the factors to
/// rounding, and that the rows past m are untouched.
template <typename T> void expect_factor(bool library, int64_t m, int64_t n, int64_t lda, const std::vector<T>& A0) {
  const auto k = static_cast<std::size_t>(std::min(m, n));
  auto F = A0, V = A0;
  std::vector<int64_t> ipiv(k, -7);
  std::vector<lapack_int> vpiv(k, -8);
  const int64_t info = factor(library, m, n, F.data(), lda, ipiv.data());
  ASSERT_EQ(info, blas::getrf(m, n, V.data(), lda, vpiv.data()));
  ASSERT_EQ(ipiv, std::vector<int64_t>(vpiv.begin(), vpiv.end()));
  if (info == 0) {
    EXPECT_LT(bench::getrf_residual(m, n, A0.data(), lda, F.data(), lda, ipiv.data()), bench::kResidualThreshold);
  }
  double diff = 0, scale = 0;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < lda; ++i) {
      const auto at = static_cast<std::size_t>(i + j * lda);
      if (i >= m) {
        ASSERT_EQ(F[at], A0[at]) << "touched " << i << "," << j;
      } else {
        diff = std::max(diff, double(std::abs(F[at] - V[at])));
        scale = std::max(scale, double(std::abs(V[at])));
      }
    }
  EXPECT_LE(diff, 1000 * std::numeric_limits<T>::epsilon() * scale);
}

TYPED_TEST(SmallLu, EveryOrderBothBuilds) {
  using T = TypeParam;
  for (bool library : {true, false})
    for (int64_t n = 1; n <= small::kOwnGetrfMax; ++n) {
      SCOPED_TRACE(std::string(library ? "library" : "default build") + " n=" + std::to_string(n));
      const int64_t lda = n + 3;
      expect_factor(library, n, n, lda, bench::random_matrix<T>(lda, n, lda, 11 + n));
    }
}

TYPED_TEST(SmallLu, RectangularBothBuilds) {
  using T = TypeParam;
  const int64_t top = small::kOwnGetrfMax;
  for (bool library : {true, false})
    for (auto [m, n] : {std::pair<int64_t, int64_t>{top, 1}, {1, top}, {2, 9}, {9, 2}, {13, 7}, {7, 13}, {100, 37},
                        {37, 100}, {top, 5}, {5, top}, {top, top - 1}, {top - 1, top}, {64, 67}, {67, 64}}) {
      SCOPED_TRACE(std::string(library ? "library " : "default build ") + std::to_string(m) + "x" + std::to_string(n));
      const int64_t lda = m + 2;
      expect_factor(library, m, n, lda, bench::random_matrix<T>(lda, n, lda, 5 + m + 3 * n));
    }
}

// A zero column: the factorization goes on (the column unscaled), info the
// first zero pivot, as the vendor's; the pivots and factors the vendor's.
TYPED_TEST(SmallLu, ZeroColumnsGiveTheVendorsInfo) {
  using T = TypeParam;
  for (bool library : {true, false})
    for (auto [m, n] : {std::pair<int64_t, int64_t>{1, 1}, {6, 6}, {37, 37}, {128, 128}, {50, 20}, {20, 50}})
      for (int64_t zero : {int64_t(0), int64_t(1), std::min(m, n) / 2, std::min(m, n) - 1}) {
        if (zero >= std::min(m, n)) continue;
        SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + " zero column " + std::to_string(zero));
        const int64_t lda = m + 1;
        auto A = bench::random_matrix<T>(lda, n, lda, 7 + m);
        for (int64_t i = 0; i < m; ++i) A[i + zero * lda] = T(0);
        auto F = A;
        std::vector<int64_t> ipiv(std::min(m, n));
        EXPECT_EQ(factor(library, m, n, F.data(), lda, ipiv.data()), zero + 1);
        expect_factor(library, m, n, lda, A);
      }
  // All zero: every pivot its own row, info 1.
  const int64_t n = 9;
  std::vector<T> Z(n * n, T(0));
  std::vector<int64_t> ipiv(n);
  EXPECT_EQ(small::getrf_own(n, n, Z.data(), n, ipiv.data()), 1);
  for (int64_t j = 0; j < n; ++j) EXPECT_EQ(ipiv[j], j + 1);
}

// A pivot below the smallest normal number divides (its reciprocal would
// overflow), as LAPACK's dgetf2: the multipliers exact.
TYPED_TEST(SmallLu, TinyPivotDivides) {
  using T = TypeParam;
  const T d = std::numeric_limits<T>::min() / 8;  // subnormal; 1/d is inf
  for (bool library : {true, false}) {
    // (the second column's pivot stays on its row: no interchange moves the multipliers)
    std::vector<T> A = {d, d / 2, d / 4, T(1), T(3), T(2), T(4), T(0), T(1)};
    std::vector<int64_t> ipiv(3);
    EXPECT_EQ(factor(library, int64_t(3), int64_t(3), A.data(), int64_t(3), ipiv.data()), 0);
    EXPECT_EQ(ipiv[0], 1);
    EXPECT_EQ(ipiv[1], 2);
    EXPECT_EQ(A[1], T(0.5));
    EXPECT_EQ(A[2], T(0.25));
  }
}

// NaNs: no crash, no info (LAPACK reports exact zeros only), NaN in the
// factors; a NaN at the top of a column stays the pivot (idamax never finds
// a larger magnitude than NaN, nor takes a NaN after the first).
TYPED_TEST(SmallLu, NaNsPropagate) {
  using T = TypeParam;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  for (bool library : {true, false})
    for (int64_t at : {int64_t(0), int64_t(5), int64_t(17 * 20 + 3)}) {
      const int64_t n = 20;
      auto A = bench::random_matrix<T>(n, n, n, 3);
      A[at] = nan;
      std::vector<int64_t> ipiv(n);
      EXPECT_EQ(factor(library, n, n, A.data(), n, ipiv.data()), 0);
      if (at == 0) {
        EXPECT_EQ(ipiv[0], 1);
      } else if (at == 5) {
        EXPECT_NE(ipiv[0], 6);
      }
      bool any = false;
      for (T x : A) any = any || std::isnan(x);
      EXPECT_TRUE(any);
      for (int64_t j = 0; j < n; ++j) {
        EXPECT_GE(ipiv[j], j + 1);
        EXPECT_LE(ipiv[j], n);
      }
    }
}

// LAPACK's LP64 INTEGER pivots (the Fortran names): the same as int64_t.
TYPED_TEST(SmallLu, Int32PivotsAsInt64) {
  using T = TypeParam;
  for (int64_t n : {3, 45, 128}) {
    const auto A0 = bench::random_matrix<T>(n, n, n, 9 + n);
    auto F = A0, G = A0;
    std::vector<int64_t> p64(n);
    std::vector<int32_t> p32(n);
    EXPECT_EQ(small::getrf_own(n, n, F.data(), n, p64.data()), 0);
    EXPECT_EQ(small::getrf_own(n, n, G.data(), n, p32.data()), 0);
    EXPECT_EQ(F, G);
    EXPECT_EQ(p64, std::vector<int64_t>(p32.begin(), p32.end()));
  }
}

}  // namespace
}  // namespace hetla
