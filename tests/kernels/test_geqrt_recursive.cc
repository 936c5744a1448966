// The recursive QR panel kernel (blas::geqrt_recursive, a pure host kernel of
// kernels/host/lapack_qr.hpp) against LAPACK's geqrt3 in the four precisions.
// The suite keeps the name Geqrf it had in tests/linalg/test_geqrf.cc, so
// test filters keep matching it.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "checks_qr.hpp"
#include "common/vendor_xerbla.hpp"
#include "kernels/host/lapack_qr.hpp"
#include "matgen.hpp"

namespace hetla {
namespace {

template <typename T> class Geqrf : public testing::Test {};
using Precisions = testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(Geqrf, Precisions);

constexpr double kThreshold = bench::kResidualThreshold;

TYPED_TEST(Geqrf, RecursivePanelMatchesLapackGeqrt3) {
  // The panel kernel: V, R and the block reflector's T as LAPACK's geqrt3
  // gives them, at widths below, at and above its leaf (8 columns), odd
  // splits, square, and with a zero column (tau = 0 in the middle of T).
  using T = TypeParam;
  const struct {
    int64_t m, n;
    bool zero_column;
  } cases[] = {{1, 1, false},  {50, 1, false}, {40, 8, false}, {9, 9, false},    {300, 37, false},
               {64, 64, false}, {500, 128, false}, {120, 33, true}, {33, 33, true}};
  for (const auto& c : cases) {
    SCOPED_TRACE("m=" + std::to_string(c.m) + " n=" + std::to_string(c.n));
    const int64_t lda = c.m + 3, ldt = c.n + 1;
    auto A0 = bench::random_matrix<T>(c.m, c.n, lda, 3 + c.m + 5 * c.n);
    if (c.zero_column)
      for (int64_t i = 0; i < c.m; ++i) A0[i + (c.n / 2) * lda] = T(0);
    auto A = A0, ref = A0;
    std::vector<T> Tm(static_cast<std::size_t>(ldt * c.n), T(0)), Tref = Tm;
    ASSERT_EQ(blas::geqrt_recursive(c.m, c.n, A.data(), lda, Tm.data(), ldt), 0);
    ASSERT_EQ(blas::geqrt3(c.m, c.n, ref.data(), lda, Tref.data(), ldt), 0);
    EXPECT_LT(bench::relative_difference(c.m, c.n, A.data(), lda, ref.data(), lda, c.m), kThreshold);
    for (int64_t j = 0; j < c.n; ++j)  // T's lower triangle is not part of the result
      for (int64_t i = j + 1; i < c.n; ++i) Tm[i + j * ldt] = Tref[i + j * ldt] = T(0);
    EXPECT_LT(bench::relative_difference(c.n, c.n, Tm.data(), ldt, Tref.data(), ldt, c.m), kThreshold);
    std::vector<T> tau(static_cast<std::size_t>(c.n));
    for (int64_t i = 0; i < c.n; ++i) tau[i] = Tm[i + i * ldt];
    EXPECT_LT(bench::qr_residual(c.m, c.n, A0.data(), lda, A.data(), lda, tau.data()), kThreshold);
    for (int64_t j = 0; j < c.n; ++j)  // the padding rows are not touched
      for (int64_t i = c.m; i < lda; ++i) ASSERT_EQ(A[i + j * lda], A0[i + j * lda]);
  }
}

// A leading dimension under the height is argument 4 of geqr2 (LAPACK's
// count, which the wrappers return): returned, not a half-factored panel
// taken for a result.
TYPED_TEST(Geqrf, RecursivePanelReturnsTheRejectedArgument) {
  using T = TypeParam;
  const int64_t m = 40, n = 20, ldt = n;
  std::vector<T> A(static_cast<std::size_t>(m * n), T(1)), Tm(static_cast<std::size_t>(ldt * n));
  const test::ExpectedVendorRejections expected;
  EXPECT_EQ(blas::geqrt_recursive(m, n, A.data(), m - 1, Tm.data(), ldt), -4);  // geqr2's lda
  EXPECT_EQ(expected.count(), 1);
}

}  // namespace
}  // namespace hetla
