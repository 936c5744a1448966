// The block-reflector update from the left (blas::larfb_left, kernels/host/
// lapack_qr.hpp) against LAPACK's larfb, in the four precisions, both ops,
// on both of its forms of V^H C: by columns of C below
// kLarfbTransposedGemmColumns, and as (C^H V)^H from it.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "checks_qr.hpp"
#include "kernels/host/lapack_qr.hpp"
#include "matgen.hpp"

namespace hetla {
namespace {

template <typename T> class Larfb : public testing::Test {};
using Precisions = testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(Larfb, Precisions);

TYPED_TEST(Larfb, LeftMatchesLapackOnBothForms) {
  using T = TypeParam;
  const int64_t wide = blas::kLarfbTransposedGemmColumns;
  const struct {
    int64_t m, n, k;
  } cases[] = {{300, wide - 1, 24}, {300, wide, 24}, {301, wide + 37, 40}, {40, wide + 3, 40}, {97, 5, 13}};
  for (Op op : {Op::NoTrans, Op::ConjTrans})
    for (const auto& c : cases) {
      SCOPED_TRACE("m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) + " k=" + std::to_string(c.k) +
                   (op == Op::NoTrans ? " NoTrans" : " ConjTrans"));
      const int64_t ldv = c.m + 2, ldt = c.k + 1, ldc = c.m + 3;
      // Any V and T will do: the two implementations must agree (V's upper
      // triangle, which neither reads, holds garbage).
      const auto V = bench::random_matrix<T>(c.m, c.k, ldv, 5 + c.n);
      const auto Tm = bench::random_matrix<T>(c.k, c.k, ldt, 7 + c.n);
      const auto C0 = bench::random_matrix<T>(c.m, c.n, ldc, 11 + c.n);
      auto C = C0, ref = C0;
      blas::larfb_left(op, c.m, c.n, c.k, V.data(), ldv, Tm.data(), ldt, C.data(), ldc);
      blas::larfb_left_lapack(op, c.m, c.n, c.k, V.data(), ldv, Tm.data(), ldt, ref.data(), ldc);
      EXPECT_LT(bench::relative_difference(c.m, c.n, C.data(), ldc, ref.data(), ldc, c.m), bench::kResidualThreshold);
      for (int64_t j = 0; j < c.n; ++j)  // the padding rows are not touched
        for (int64_t i = c.m; i < ldc; ++i) ASSERT_EQ(C[i + j * ldc], C0[i + j * ldc]);
    }
}

}  // namespace
}  // namespace hetla
