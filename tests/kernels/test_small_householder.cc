// hetla's own small Householder QR (kernels/host/small_householder.hpp) in
// s, d, c, z: every order up to 128 and rectangular shapes with lda > m, read
// back by the vendor's unmqr (||A - QR||) and ungqr (||I - Q^H Q||), close
// to the vendor's geqrf, the padding untouched; zero columns (tau = 0),
// entries near the overflow and underflow thresholds. The library's entry
// (the AVX2 build on a CPU that has it) and the default build, compiled into
// this test from the same body, are checked alike.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "checks.hpp"
#include "checks_qr.hpp"
#include "kernels/host/lapack_qr.hpp"
#include "kernels/host/small_householder.hpp"
#include "kernels/host/small_householder_impl.hpp"
#include "matgen.hpp"

namespace hetla {
namespace {

template <typename T> class SmallHouseholder : public testing::Test {};
using Precisions = testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(SmallHouseholder, Precisions);

/// The library's entry point, or the default build compiled in this file.
template <typename T> void factor(bool library, int64_t m, int64_t n, T* A, int64_t lda, T* tau) {
  using R = real_t<T>;
  if (library) return small::geqrf_own(m, n, A, lda, tau);
  householder::geqrf<R, is_complex_v<T>>(m, n, reinterpret_cast<R*>(A), lda, reinterpret_cast<R*>(tau));
}

/// A sentinel in the rows past m: the kernel must leave them.
template <typename T> T pad() { return T(real_t<T>(-7.25)); }

/// ||I - Q^H Q|| / (m eps) for Q's first min(m, n) columns from the vendor's
/// ungqr on the factors F.
template <typename T>
double orthogonality(int64_t m, int64_t n, const std::vector<T>& F, int64_t lda, const std::vector<T>& tau) {
  const int64_t k = std::min(m, n);
  if (k == 0) return 0;
  std::vector<T> Q(static_cast<std::size_t>(m * k));
  for (int64_t j = 0; j < k; ++j)
    for (int64_t i = 0; i < m; ++i) Q[i + j * m] = F[i + j * lda];
  if (blas::ungqr(m, k, k, Q.data(), m, tau.data()) != 0) return 1e300;
  return bench::orthogonality_residual(m, k, Q.data(), m);
}

/// Factors A0 (m x n, leading dimension lda, padding already set) and checks
/// the residual and Q's orthogonality (the vendor's unmqr and ungqr on the
/// factors), the padding, and, where `against_vendor`, the vendor's factors
/// to rounding. Returns the factors.
template <typename T>
std::vector<T> expect_qr(bool library, int64_t m, int64_t n, int64_t lda, const std::vector<T>& A0,
                         bool against_vendor = true) {
  const int64_t k = std::min(m, n);
  auto F = A0, V = A0;
  std::vector<T> tau(static_cast<std::size_t>(std::max<int64_t>(k, 1))), vtau(tau.size());
  factor(library, m, n, F.data(), lda, tau.data());
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = m; i < lda; ++i) EXPECT_EQ(F[i + j * lda], A0[i + j * lda]) << "padding " << i << "," << j;
  EXPECT_LT(bench::qr_residual(m, n, A0.data(), lda, F.data(), lda, tau.data()), bench::kResidualThreshold);
  EXPECT_LT(orthogonality(m, n, F, lda, tau), bench::kResidualThreshold);
  if (against_vendor && k > 0) {
    EXPECT_EQ(blas::geqrf(m, n, V.data(), lda, vtau.data()), 0);
    double diff = 0, scale = 0;
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < m; ++i) {
        diff = std::max(diff, double(std::abs(F[i + j * lda] - V[i + j * lda])));
        scale = std::max(scale, double(std::abs(V[i + j * lda])));
      }
    EXPECT_LE(diff, 100.0 * double(std::max(m, n)) * bench::eps<T>() * scale);
    for (int64_t j = 0; j < k; ++j)
      EXPECT_LE(std::abs(tau[j] - vtau[j]), 100.0 * double(std::max(m, n)) * bench::eps<T>()) << "tau " << j;
  }
  return F;
}

template <typename T> std::vector<T> padded_random(int64_t m, int64_t n, int64_t lda, uint64_t seed) {
  auto A = bench::random_matrix<T>(m, n, lda, seed);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = m; i < lda; ++i) A[i + j * lda] = pad<T>();
  return A;
}

TYPED_TEST(SmallHouseholder, EveryOrderBothBuilds) {
  using T = TypeParam;
  for (bool library : {true, false})
    for (int64_t n = 1; n <= small::kOwnGeqrfMaxCols; n += n < 20 ? 1 : n < 70 ? 5 : 19) {
      SCOPED_TRACE(std::string(library ? "library" : "default build") + " n=" + std::to_string(n));
      const int64_t lda = n + 3;
      expect_qr(library, n, n, lda, padded_random<T>(n, n, lda, 11 + n));
    }
  for (bool library : {true, false}) {
    const int64_t n = small::kOwnGeqrfMaxCols;
    expect_qr(library, n, n, n, padded_random<T>(n, n, n, 5));
  }
}

TYPED_TEST(SmallHouseholder, Rectangular) {
  using T = TypeParam;
  const std::pair<int64_t, int64_t> shapes[] = {{1, 5}, {5, 1}, {2, 9}, {7, 20}, {33, 128}, {130, 7},
                                                {200, 64}, {300, 3}, {97, 96}, {96, 97}, {40, 41}};
  for (bool library : {true, false})
    for (auto [m, n] : shapes) {
      SCOPED_TRACE(std::string(library ? "library" : "default build") + " " + std::to_string(m) + "x" +
                   std::to_string(n));
      const int64_t lda = m + 2;
      expect_qr(library, m, n, lda, padded_random<T>(m, n, lda, 3 * m + n));
    }
}

TYPED_TEST(SmallHouseholder, ZeroColumnsLeaveTauZero) {
  using T = TypeParam;
  for (bool library : {true, false}) {
    const int64_t m = 12, n = 9, lda = 14;
    auto A = padded_random<T>(m, n, lda, 77);
    for (int64_t i = 0; i < m; ++i) A[i + 0 * lda] = T(0);  // a zero first column
    expect_qr(library, m, n, lda, A, false);
    std::vector<T> tau(n);
    auto G = A;
    factor(library, m, n, G.data(), lda, tau.data());
    EXPECT_EQ(tau[0], T(0));
    for (int64_t i = 0; i < m; ++i) EXPECT_EQ(G[i], T(0));  // column 0 untouched
    // All zero: every tau 0, nothing changed.
    std::vector<T> Z(static_cast<std::size_t>(lda * n), T(0)), Z0 = Z;
    factor(library, m, n, Z.data(), lda, tau.data());
    for (int64_t j = 0; j < n; ++j) EXPECT_EQ(tau[j], T(0));
    EXPECT_EQ(Z, Z0);
    // Zero below the diagonal (upper triangular): real tau 0, complex tau 0
    // where the diagonal is real, as ?larfg.
    auto U = padded_random<T>(m, n, lda, 5);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = j + 1; i < m; ++i) U[i + j * lda] = T(0);
    if constexpr (is_complex_v<T>)
      for (int64_t j = 0; j < n; j += 2) U[j + j * lda] = T(std::real(U[j + j * lda]));
    auto U1 = U;
    factor(library, m, n, U1.data(), lda, tau.data());
    for (int64_t j = 0; j < n; ++j)
      if (!is_complex_v<T> || j % 2 == 0) {
        EXPECT_EQ(tau[j], T(0)) << j;
      }
    if constexpr (!is_complex_v<T>) {
      EXPECT_EQ(U1, U);
    }
    expect_qr(library, m, n, lda, U, false);
  }
}

TYPED_TEST(SmallHouseholder, NearOverflowAndUnderflow) {
  using T = TypeParam;
  using R = real_t<T>;
  // Entries whose squares overflow, or underflow (the last one subnormal):
  // the norms must be scaled as dnrm2's, and ?larfg's rescaling loop runs.
  const R scales[] = {std::is_same_v<R, float> ? R(1e36) : R(1e300), std::is_same_v<R, float> ? R(1e-36) : R(1e-300),
                      std::numeric_limits<R>::min() * R(4)};
  for (bool library : {true, false})
    for (R s : scales)
      for (auto [m, n] : {std::pair<int64_t, int64_t>{17, 17}, {64, 40}, {5, 9}}) {
        SCOPED_TRACE(std::string(library ? "library" : "default build") + " scale " + std::to_string(double(s)) +
                     " " + std::to_string(m) + "x" + std::to_string(n));
        const int64_t lda = m + 1;
        auto A = padded_random<T>(m, n, lda, 9 + m);
        for (int64_t j = 0; j < n; ++j)
          for (int64_t i = 0; i < m; ++i) A[i + j * lda] *= s;
        if (s >= R(1)) {
          expect_qr(library, m, n, lda, A, false);
          continue;
        }
        auto F = A;
        std::vector<T> tau(static_cast<std::size_t>(std::min(m, n)));
        factor(library, m, n, F.data(), lda, tau.data());
        for (const T& x : F) ASSERT_TRUE(std::isfinite(std::abs(x)));
        // |R(0, 0)| = ||A(:, 0)||
        double col = 0;
        for (int64_t i = 0; i < m; ++i) col = std::hypot(col, double(std::abs(A[i])));
        EXPECT_NEAR(double(std::abs(F[0])) / col, 1.0, 1e3 * bench::eps<T>());
        EXPECT_LT(orthogonality(m, n, F, lda, tau), bench::kResidualThreshold);
        // ||A - QR|| with A and R scaled up by the same power of 2 (exactly),
        // so that the check's own products stay clear of underflow.
        const R up = R(1) / std::numeric_limits<R>::min();
        auto A1 = A, F1 = F;
        for (int64_t j = 0; j < n; ++j)
          for (int64_t i = 0; i < m; ++i) A1[i + j * lda] *= up;
        for (int64_t j = 0; j < n; ++j)
          for (int64_t i = 0; i <= std::min(j, m - 1); ++i) F1[i + j * lda] *= up;
        EXPECT_LT(bench::qr_residual(m, n, A1.data(), lda, F1.data(), lda, tau.data()), bench::kResidualThreshold);
      }
}

}  // namespace
}  // namespace hetla
