// hetla's own small Cholesky (kernels/host/small_cholesky.hpp), real and
// complex: both triangles, every order up to its largest with ragged blocks
// and row vectors, random and ill-conditioned matrices, LAPACK's info. The library's entry (the AVX2
// build on a CPU that has it) and the default build, compiled into this test
// from the same body, are checked alike.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "checks.hpp"
#include "kernels/host/blas.hpp"
#include "kernels/host/small_cholesky.hpp"
#include "kernels/host/small_cholesky_impl.hpp"
#include "matgen.hpp"

namespace hetla {
namespace {

template <typename T> class SmallCholesky : public testing::Test {};
using Precisions = testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(SmallCholesky, Precisions);

/// The library's entry point, or the default build compiled in this file.
template <typename T> int64_t factor(bool library, Uplo uplo, int64_t n, T* A, int64_t lda) {
  if (library)
    return uplo == Uplo::Lower ? small::potrf_lower_own(n, A, lda) : small::potrf_upper_own(n, A, lda);
  if constexpr (is_complex_v<T>) {
    auto* a = reinterpret_cast<real_t<T>*>(A);
    return uplo == Uplo::Lower ? ::cpotrf_lower(n, a, lda) : ::cpotrf_upper(n, a, lda);
  } else {
    return uplo == Uplo::Lower ? ::potrf_lower(n, A, lda) : ::potrf_upper(n, A, lda);
  }
}

/// Factors A0 and checks the residual, that the other triangle and the rows
/// past n are untouched, and the vendor's factor to rounding.
template <typename T>
void expect_factor(bool library, Uplo uplo, int64_t n, int64_t lda, const std::vector<T>& A0, double residual_bound) {
  auto F = A0, V = A0;
  ASSERT_EQ(factor(library, uplo, n, F.data(), lda), 0);
  ASSERT_EQ(blas::potrf(uplo, n, V.data(), lda), 0);
  EXPECT_LT(bench::potrf_residual(uplo, n, A0.data(), lda, F.data(), lda), residual_bound);
  double diff = 0, scale = 0;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < lda; ++i) {
      const auto at = static_cast<std::size_t>(i + j * lda);
      if (i >= n || (uplo == Uplo::Lower ? i < j : i > j)) {
        ASSERT_EQ(F[at], A0[at]) << "touched " << i << "," << j;
      } else {
        diff = std::max(diff, double(std::abs(F[at] - V[at])));
        scale = std::max(scale, double(std::abs(V[at])));
      }
    }
  EXPECT_LE(diff, 1000 * std::numeric_limits<real_t<T>>::epsilon() * scale);
  if constexpr (is_complex_v<T>) {  // a real diagonal, as LAPACK writes it
    for (int64_t j = 0; j < n; ++j) ASSERT_EQ(std::imag(F[static_cast<std::size_t>(j + j * lda)]), 0) << j;
  }
}

TYPED_TEST(SmallCholesky, EveryOrderBothTrianglesBothBuilds) {
  using T = TypeParam;
  for (bool library : {true, false})
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
      // Every order up to 40 and from 120 (each remainder of the 4-column
      // blocks and of the 2-, 4-, 8- and 16-row vectors, at both ends);
      // every order in all four precisions took 2.8 s.
      for (int64_t n = 1; n <= small::kOwnPotrfMax; n += n < 40 || n >= 120 ? 1 : n < 70 ? 3 : 7) {
        SCOPED_TRACE(std::string(library ? "library " : "default build ") + (uplo == Uplo::Lower ? "L" : "U") +
                     " n=" + std::to_string(n));
        const int64_t lda = n + 3;
        expect_factor(library, uplo, n, lda, bench::random_hpd<T>(n, lda, 11 + n), bench::kResidualThreshold);
      }
  for (bool library : {true, false})
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper}) {
      const int64_t n = small::kOwnPotrfMax;
      expect_factor(library, uplo, n, n, bench::random_hpd<T>(n, n, 5), bench::kResidualThreshold);
    }
}

TYPED_TEST(SmallCholesky, IllConditioned) {
  using T = TypeParam;
  const double cond = std::is_same_v<real_t<T>, float> ? 1e5 : 1e12;
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
    for (int64_t n : {13, 64, 101}) {
      SCOPED_TRACE(n);
      const int64_t lda = n + 1;
      const auto A0 = bench::ill_conditioned_hpd<T>(n, lda, cond, 3 + n);
      auto F = A0;
      ASSERT_EQ(factor(true, uplo, n, F.data(), lda), 0);
      EXPECT_LT(bench::potrf_residual(uplo, n, A0.data(), lda, F.data(), lda), bench::kResidualThreshold);
    }
}

TYPED_TEST(SmallCholesky, InfoIsTheVendors) {
  using T = TypeParam;
  for (bool library : {true, false})
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
      for (int64_t n : {1, 6, 37, 128})
        for (int64_t bad : {int64_t(1), int64_t(2), n / 2 + 1, n - 1, n}) {
          if (bad < 1 || bad > n) continue;
          SCOPED_TRACE("n=" + std::to_string(n) + " bad=" + std::to_string(bad));
          auto F = bench::random_hpd<T>(n, n, 7 + n);
          F[(bad - 1) * (n + 1)] = T(-1);
          auto V = F;
          EXPECT_EQ(factor(library, uplo, n, F.data(), n), blas::potrf(uplo, n, V.data(), n));
          // A NaN fails as LAPACK's check does.
          auto N = bench::random_hpd<T>(n, n, 7 + n);
          N[(bad - 1) * (n + 1)] = std::numeric_limits<T>::quiet_NaN();
          EXPECT_EQ(factor(library, uplo, n, N.data(), n), bad);
        }
}

// The other triangle and the rows past n are never read: NaNs there leave
// the factor's bits as they were (vector lanes over them are discarded).
TYPED_TEST(SmallCholesky, OtherTriangleNotRead) {
  using T = TypeParam;
  for (bool library : {true, false})
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
      for (int64_t n : {3, 8, 13, 36, 128}) {
        SCOPED_TRACE(n);
        const int64_t lda = n + 5;
        auto F = bench::random_hpd<T>(n, lda, 23 + n), G = F;
        const T nan(std::numeric_limits<real_t<T>>::quiet_NaN());
        for (int64_t j = 0; j < n; ++j)
          for (int64_t i = 0; i < lda; ++i)
            if (i >= n || (uplo == Uplo::Lower ? i < j : i > j)) G[static_cast<std::size_t>(i + j * lda)] = nan;
        ASSERT_EQ(factor(library, uplo, n, F.data(), lda), 0);
        ASSERT_EQ(factor(library, uplo, n, G.data(), lda), 0);
        for (int64_t j = 0; j < n; ++j)
          for (int64_t i = 0; i < n; ++i)
            if (i == j || (uplo == Uplo::Lower) == (i > j)) {
              const auto at = static_cast<std::size_t>(i + j * lda);
              ASSERT_EQ(F[at], G[at]) << i << "," << j;
            }
      }
}

// zpotrf reads only the diagonal's real part: an imaginary part there
// (which a Hermitian matrix cannot have) changes nothing.
TYPED_TEST(SmallCholesky, DiagonalImaginaryPartIgnored) {
  using T = TypeParam;
  if constexpr (is_complex_v<T>) {
    for (bool library : {true, false})
      for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
        for (int64_t n : {1, 5, 8, 33, 128}) {
          SCOPED_TRACE(n);
          const int64_t lda = n + 2;
          auto F = bench::random_hpd<T>(n, lda, 19 + n), G = F;
          for (int64_t j = 0; j < n; ++j) G[static_cast<std::size_t>(j + j * lda)] += T(0, real_t<T>(j + 3));
          ASSERT_EQ(factor(library, uplo, n, F.data(), lda), 0);
          ASSERT_EQ(factor(library, uplo, n, G.data(), lda), 0);
          for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i) {
              const auto at = static_cast<std::size_t>(i + j * lda);
              if (i == j || (uplo == Uplo::Lower) == (i > j)) {
                ASSERT_EQ(F[at], G[at]) << i << "," << j;
              }
            }
        }
  }
}

}  // namespace
}  // namespace hetla
