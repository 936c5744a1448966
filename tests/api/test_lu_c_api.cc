// C API of LU (hetla_?getrf, ?getrs, ?gesv): LAPACK argument order, int
// pivots equal to LAPACK's, info as LAPACK (negative argument numbers).
#include <gtest/gtest.h>

#include <cctype>
#include <complex>
#include <string>
#include <vector>

#include "checks_lu.hpp"
#include "hetla/hetla.h"
#include "kernels/host/lapack_lu.hpp"
#include "matgen.hpp"

namespace hetla {
namespace {

template <typename T> struct CApi;
template <> struct CApi<float> {
  static constexpr auto getrf = hetla_sgetrf;
  static constexpr auto getrs = hetla_sgetrs;
  static constexpr auto gesv = hetla_sgesv;
};
template <> struct CApi<double> {
  static constexpr auto getrf = hetla_dgetrf;
  static constexpr auto getrs = hetla_dgetrs;
  static constexpr auto gesv = hetla_dgesv;
};
template <> struct CApi<std::complex<float>> {
  static constexpr auto getrf = hetla_cgetrf;
  static constexpr auto getrs = hetla_cgetrs;
  static constexpr auto gesv = hetla_cgesv;
};
template <> struct CApi<std::complex<double>> {
  static constexpr auto getrf = hetla_zgetrf;
  static constexpr auto getrs = hetla_zgetrs;
  static constexpr auto gesv = hetla_zgesv;
};

template <typename T> class GetrfCApi : public testing::Test {};
using Precisions = testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(GetrfCApi, Precisions);

constexpr double kThreshold = bench::kResidualThreshold;

// Diagonally dominant columns make every pivot the diagonal entry: the int
// pivots can be compared with LAPACK's exactly.
template <typename T> std::vector<T> diagonally_dominant(int n, int lda, uint64_t seed) {
  auto A = bench::random_matrix<T>(n, n, lda, seed);
  for (int i = 0; i < n; ++i) A[i + static_cast<std::size_t>(i) * lda] += T(static_cast<real_t<T>>(4 * n));
  return A;
}

TYPED_TEST(GetrfCApi, FactorAndSolve) {
  using T = TypeParam;
  using C = CApi<T>;
  const int m = 70, n = 50, lda = 73;
  auto A = bench::random_matrix<T>(m, n, lda, 1);
  auto F = A;
  std::vector<int> ipiv(n);
  EXPECT_EQ(C::getrf(m, n, F.data(), lda, ipiv.data()), 0);
  EXPECT_LT(bench::getrf_residual(m, n, A.data(), lda, F.data(), lda, ipiv.data()), kThreshold);

  const int nn = 60, nrhs = 4, ldb = 61;
  auto S = diagonally_dominant<T>(nn, nn, 2);
  auto B = bench::random_matrix<T>(nn, nrhs, ldb, 3);
  auto Sf = S, Sl = S;
  std::vector<int> piv(nn);
  std::vector<lapack_int> lpiv(nn);
  ASSERT_EQ(C::getrf(nn, nn, Sf.data(), nn, piv.data()), 0);
  ASSERT_EQ(blas::getrf(nn, nn, Sl.data(), nn, lpiv.data()), 0);
  EXPECT_EQ(piv, std::vector<int>(lpiv.begin(), lpiv.end()));
  for (char trans : {'N', 'n', 'T', 'C', 'c'}) {
    SCOPED_TRACE(testing::Message() << "trans " << trans);
    auto X = B;
    EXPECT_EQ(C::getrs(trans, nn, nrhs, Sf.data(), nn, piv.data(), X.data(), ldb), 0);
    std::vector<T> opS(S.size());
    const char t = static_cast<char>(std::toupper(trans));
    for (int j = 0; j < nn; ++j)
      for (int i = 0; i < nn; ++i)
        opS[i + j * nn] = t == 'N' ? S[i + j * nn] : t == 'T' ? S[j + i * nn] : conj(S[j + i * nn]);
    EXPECT_LT(bench::solve_residual(nn, nn, nrhs, opS.data(), nn, X.data(), ldb, B.data(), ldb), kThreshold);
  }
  auto G = S;
  auto X = B;
  EXPECT_EQ(C::gesv(nn, nrhs, G.data(), nn, piv.data(), X.data(), ldb), 0);
  EXPECT_LT(bench::solve_residual(nn, nn, nrhs, S.data(), nn, X.data(), ldb, B.data(), ldb), kThreshold);

  // exactly singular: info as LAPACK's
  for (int i = 0; i < nn; ++i) S[i + 17 * nn] = T(0);
  G = S;
  Sl = S;
  X = B;
  EXPECT_EQ(C::gesv(nn, nrhs, G.data(), nn, piv.data(), X.data(), ldb), 18);
  EXPECT_EQ(blas::getrf(nn, nn, Sl.data(), nn, lpiv.data()), 18);
  EXPECT_EQ(X, B);
}

TYPED_TEST(GetrfCApi, EmptyAndInvalid) {
  using T = TypeParam;
  using C = CApi<T>;
  std::vector<T> A(64, T(1)), B(64, T(1));
  std::vector<int> ipiv(8, 1);
  T* a = A.data();
  T* b = B.data();
  int* p = ipiv.data();
  EXPECT_EQ(C::getrf(0, 0, nullptr, 1, nullptr), 0);
  EXPECT_EQ(C::getrs('N', 0, 3, nullptr, 1, nullptr, nullptr, 1), 0);
  EXPECT_EQ(C::gesv(0, 0, nullptr, 1, nullptr, nullptr, 1), 0);

  EXPECT_EQ(C::getrf(-1, 4, a, 4, p), -1);
  EXPECT_NE(std::string(hetla_last_error()).find("getrf"), std::string::npos) << hetla_last_error();
  EXPECT_EQ(C::getrf(4, -1, a, 4, p), -2);
  EXPECT_EQ(C::getrf(4, 4, a, 3, p), -4);
  EXPECT_EQ(C::getrf(4, 4, a, 4, nullptr), -5);

  EXPECT_EQ(C::getrs('X', 4, 1, a, 4, p, b, 4), -1);
  EXPECT_EQ(C::getrs('N', -1, 1, a, 4, p, b, 4), -2);
  EXPECT_EQ(C::getrs('T', 4, -1, a, 4, p, b, 4), -3);
  EXPECT_EQ(C::getrs('C', 4, 1, a, 3, p, b, 4), -5);
  EXPECT_EQ(C::getrs('N', 4, 1, a, 4, nullptr, b, 4), -6);
  EXPECT_EQ(C::getrs('N', 4, 1, a, 4, p, b, 3), -8);

  EXPECT_EQ(C::gesv(-1, 1, a, 4, p, b, 4), -1);
  EXPECT_EQ(C::gesv(4, -1, a, 4, p, b, 4), -2);
  EXPECT_EQ(C::gesv(4, 1, a, 3, p, b, 4), -4);
  EXPECT_EQ(C::gesv(4, 1, a, 4, nullptr, b, 4), -5);
  EXPECT_EQ(C::gesv(4, 1, a, 4, p, b, 3), -7);
}

}  // namespace
}  // namespace hetla
