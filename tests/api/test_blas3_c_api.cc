// Level-3 BLAS C API: results equal the host BLAS for every precision (gemm,
// syrk, herk, trsm), invalid arguments return -i with BLAS (xerbla)
// numbering, and a C translation unit passes complex scalars by value.
#include <gtest/gtest.h>

#include <vector>

#include "common/cholesky.hpp"
#include "hetla/hetla.h"
#include "hetla/hetla.hpp"
#include "kernels/host/blas.hpp"  // blas::syrk: the complex symmetric reference

extern "C" int hetla_test_blas3_c(void);

namespace hetla {
namespace {

using test::PrecisionName;
using test::Precisions;

template <typename T> struct CApi;
template <> struct CApi<float> {
  static constexpr auto gemm = hetla_sgemm;
  static constexpr auto syrk = hetla_ssyrk;
  static constexpr auto trsm = hetla_strsm;
};
template <> struct CApi<double> {
  static constexpr auto gemm = hetla_dgemm;
  static constexpr auto syrk = hetla_dsyrk;
  static constexpr auto trsm = hetla_dtrsm;
};
template <> struct CApi<std::complex<float>> {
  static constexpr auto gemm = hetla_cgemm;
  static constexpr auto syrk = hetla_csyrk;
  static constexpr auto trsm = hetla_ctrsm;
  static constexpr auto herk = hetla_cherk;
};
template <> struct CApi<std::complex<double>> {
  static constexpr auto gemm = hetla_zgemm;
  static constexpr auto syrk = hetla_zsyrk;
  static constexpr auto trsm = hetla_ztrsm;
  static constexpr auto herk = hetla_zherk;
};

/// max |x - y| / max(1, max |y|)
template <typename T> double rel_diff(const std::vector<T>& x, const std::vector<T>& y) {
  double d = 0, s = 1;
  for (std::size_t i = 0; i < x.size(); ++i) {
    d = std::max(d, static_cast<double>(std::abs(x[i] - y[i])));
    s = std::max(s, static_cast<double>(std::abs(y[i])));
  }
  return d / s;
}
template <typename T> double tol() { return 1000 * bench::eps<T>(); }

template <typename T> class Blas3C : public testing::Test {};
TYPED_TEST_SUITE(Blas3C, Precisions, PrecisionName);

TYPED_TEST(Blas3C, EqualsHostBlas) {
  using T = TypeParam;
  const int m = 70, n = 45, k = 33;
  const auto A = bench::random_matrix<T>(k, m, k, 1);  // A^T is m x k
  const auto B = bench::random_matrix<T>(k, n, k, 2);
  const auto C0 = bench::random_matrix<T>(m, n, m, 3);
  auto C = C0, R = C0;
  EXPECT_EQ(CApi<T>::gemm('t', 'N', m, n, k, T(2), A.data(), k, B.data(), k, T(-1), C.data(), m), 0);
  blas::gemm(Op::Trans, Op::NoTrans, m, n, k, T(2), A.data(), k, B.data(), k, T(-1), R.data(), m);
  EXPECT_LT(rel_diff(C, R), tol<T>());

  // syrk: C (m x m lower) = A^T A (A k x m)
  std::vector<T> S = bench::random_matrix<T>(m, m, m, 4), SR = S;
  EXPECT_EQ(CApi<T>::syrk('L', 'T', m, k, T(1), A.data(), k, T(0.5), S.data(), m), 0);
  blas::syrk(Uplo::Lower, Op::Trans, m, k, T(1), A.data(), k, T(0.5), SR.data(), m);
  EXPECT_LT(rel_diff(S, SR), tol<T>());
  if constexpr (is_complex_v<T>) {
    S = SR = bench::random_matrix<T>(m, m, m, 5);
    EXPECT_EQ(CApi<T>::herk('u', 'C', m, k, 1.0f, A.data(), k, 0.5f, S.data(), m), 0);
    blas::herk(Uplo::Upper, Op::ConjTrans, m, k, real_t<T>(1), A.data(), k, real_t<T>(0.5), SR.data(), m);
    EXPECT_LT(rel_diff(S, SR), tol<T>());
    EXPECT_EQ(CApi<T>::herk('U', 'T', m, k, 1.0f, A.data(), k, 0.5f, S.data(), m), -2);
  }

  // trsm: B (m x n) = 3 B U^-H from the right, U n x n upper, well conditioned
  auto U = bench::random_matrix<T>(n, n, n, 6);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      U[i + j * n] = i == j ? T(2) + U[i + j * n] : U[i + j * n] / T(static_cast<real_t<T>>(n));
  auto X = C0, XR = C0;
  EXPECT_EQ(CApi<T>::trsm('R', 'U', 'C', 'N', m, n, T(3), U.data(), n, X.data(), m), 0);
  blas::trsm(Side::Right, Uplo::Upper, Op::ConjTrans, Diag::NonUnit, m, n, T(3), U.data(), n, XR.data(), m);
  EXPECT_LT(rel_diff(X, XR), tol<T>());
}

TEST(Blas3CArgs, NegativeInfo) {
  std::vector<double> x(64);
  const double* a = x.data();
  double* c = x.data();
  EXPECT_EQ(hetla_dgemm('X', 'N', 2, 2, 2, 1, a, 2, a, 2, 0, c, 2), -1);
  EXPECT_EQ(hetla_dgemm('N', 'Q', 2, 2, 2, 1, a, 2, a, 2, 0, c, 2), -2);
  EXPECT_EQ(hetla_dgemm('N', 'N', -1, 2, 2, 1, a, 2, a, 2, 0, c, 2), -3);
  EXPECT_EQ(hetla_dgemm('N', 'N', 2, -1, 2, 1, a, 2, a, 2, 0, c, 2), -4);
  EXPECT_EQ(hetla_dgemm('N', 'N', 2, 2, -1, 1, a, 2, a, 2, 0, c, 2), -5);
  EXPECT_EQ(hetla_dgemm('N', 'N', 3, 2, 2, 1, a, 2, a, 2, 0, c, 3), -8);
  EXPECT_EQ(hetla_dgemm('N', 'N', 2, 2, 3, 1, a, 2, a, 2, 0, c, 2), -10);
  EXPECT_EQ(hetla_dgemm('N', 'N', 3, 2, 2, 1, a, 3, a, 2, 0, c, 2), -13);
  EXPECT_EQ(hetla_dgemm('N', 'N', 2, 2, 2, 1, nullptr, 2, a, 2, 0, c, 2), -7);
  EXPECT_EQ(hetla_dgemm('N', 'N', 2, 2, 2, 1, a, 2, nullptr, 2, 0, c, 2), -9);
  EXPECT_EQ(hetla_dgemm('N', 'N', 2, 2, 2, 1, a, 2, a, 2, 0, nullptr, 2), -12);
  EXPECT_STRNE(hetla_last_error(), "");
  EXPECT_EQ(hetla_dgemm('n', 't', 2, 2, 2, 1, a, 2, a, 2, 0, c, 2), 0);
  EXPECT_STREQ(hetla_last_error(), "");

  EXPECT_EQ(hetla_dsyrk('X', 'N', 2, 2, 1, a, 2, 0, c, 2), -1);
  EXPECT_EQ(hetla_dsyrk('L', 'X', 2, 2, 1, a, 2, 0, c, 2), -2);
  EXPECT_EQ(hetla_dsyrk('L', 'N', -1, 2, 1, a, 2, 0, c, 2), -3);
  EXPECT_EQ(hetla_dsyrk('L', 'N', 2, -1, 1, a, 2, 0, c, 2), -4);
  EXPECT_EQ(hetla_dsyrk('L', 'T', 2, 3, 1, a, 2, 0, c, 2), -7);
  EXPECT_EQ(hetla_dsyrk('L', 'N', 3, 2, 1, a, 3, 0, c, 2), -10);

  EXPECT_EQ(hetla_dtrsm('X', 'L', 'N', 'N', 2, 2, 1, a, 2, c, 2), -1);
  EXPECT_EQ(hetla_dtrsm('L', 'X', 'N', 'N', 2, 2, 1, a, 2, c, 2), -2);
  EXPECT_EQ(hetla_dtrsm('L', 'L', 'X', 'N', 2, 2, 1, a, 2, c, 2), -3);
  EXPECT_EQ(hetla_dtrsm('L', 'L', 'N', 'X', 2, 2, 1, a, 2, c, 2), -4);
  EXPECT_EQ(hetla_dtrsm('L', 'L', 'N', 'N', -1, 2, 1, a, 2, c, 2), -5);
  EXPECT_EQ(hetla_dtrsm('L', 'L', 'N', 'N', 2, -1, 1, a, 2, c, 2), -6);
  EXPECT_EQ(hetla_dtrsm('R', 'L', 'N', 'N', 2, 3, 1, a, 2, c, 2), -9);
  EXPECT_EQ(hetla_dtrsm('L', 'L', 'N', 'N', 3, 2, 1, a, 3, c, 2), -11);
  EXPECT_EQ(hetla_dtrsm('l', 'u', 't', 'u', 2, 2, 1, a, 2, c, 2), 0);
}

TEST(Blas3CArgs, FromC) { EXPECT_EQ(hetla_test_blas3_c(), 0); }

}  // namespace
}  // namespace hetla
