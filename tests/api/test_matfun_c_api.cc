// C API of matrix polynomials and functions: argument numbers (-i), one
// result per precision against closed forms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <complex>
#include <string>
#include <vector>

#include "hetla/hetla.h"

namespace {

template <typename T> struct CApi;
template <> struct CApi<float> {
  static constexpr auto matpoly = hetla_smatpoly;
  static constexpr auto expm = hetla_sexpm;
  static constexpr auto cosm = hetla_scosm;
  static constexpr auto sinm = hetla_ssinm;
};
template <> struct CApi<double> {
  static constexpr auto matpoly = hetla_dmatpoly;
  static constexpr auto expm = hetla_dexpm;
  static constexpr auto cosm = hetla_dcosm;
  static constexpr auto sinm = hetla_dsinm;
};
template <> struct CApi<std::complex<float>> {
  static constexpr auto matpoly = hetla_cmatpoly;
  static constexpr auto expm = hetla_cexpm;
  static constexpr auto cosm = hetla_ccosm;
  static constexpr auto sinm = hetla_csinm;
};
template <> struct CApi<std::complex<double>> {
  static constexpr auto matpoly = hetla_zmatpoly;
  static constexpr auto expm = hetla_zexpm;
  static constexpr auto cosm = hetla_zcosm;
  static constexpr auto sinm = hetla_zsinm;
};

template <typename T> class MatfunCApi : public testing::Test {};
using Precisions = testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(MatfunCApi, Precisions);

template <typename T> double tol() {
  using R = decltype(std::abs(T()));
  return 100 * static_cast<double>(std::numeric_limits<R>::epsilon());
}

TYPED_TEST(MatfunCApi, ClosedForms) {
  using T = TypeParam;
  using C = CApi<T>;
  // Upper triangular A = [[a, b], [0, c]] (lda 3): f(A) = [[f(a), b (f(a) - f(c)) / (a - c)], [0, f(c)]].
  const double a = 0.7, b = -1.3, c = -0.4;
  const T A[6] = {T(a), T(0), T(99), T(b), T(c), T(99)};
  auto check = [&](const T* F, double (*f)(double), const char* what) {
    EXPECT_NEAR(std::real(F[0]), f(a), tol<T>()) << what;
    EXPECT_NEAR(std::abs(F[1]), 0.0, tol<T>()) << what;
    EXPECT_NEAR(std::real(F[3]), b * (f(a) - f(c)) / (a - c), tol<T>()) << what;
    EXPECT_NEAR(std::real(F[4]), f(c), tol<T>()) << what;
    EXPECT_EQ(F[2], T(5)) << what;  // padding untouched
    EXPECT_EQ(F[5], T(5)) << what;
  };
  T F[6];
  std::fill(F, F + 6, T(5));
  ASSERT_EQ(C::expm(2, A, 3, F, 3), 0);
  check(F, [](double x) { return std::exp(x); }, "expm");
  std::fill(F, F + 6, T(5));
  ASSERT_EQ(C::cosm(2, A, 3, F, 3), 0);
  check(F, [](double x) { return std::cos(x); }, "cosm");
  std::fill(F, F + 6, T(5));
  ASSERT_EQ(C::sinm(2, A, 3, F, 3), 0);
  check(F, [](double x) { return std::sin(x); }, "sinm");
  // p(x) = 1 - 2x + 3x^3 by both methods.
  const T coeffs[4] = {T(1), T(-2), T(0), T(3)};
  for (char m : {'H', 'P', 'h', 'p'}) {
    std::fill(F, F + 6, T(5));
    ASSERT_EQ(C::matpoly(2, A, 3, 3, coeffs, F, 3, m), 0);
    check(F, [](double x) { return 1 - 2 * x + 3 * x * x * x; }, "matpoly");
  }
}

TEST(MatfunCApiArgs, NegativeArgumentNumbers) {
  std::vector<double> A(16, 0.0), F(16, 0.0), a(3, 1.0);
  EXPECT_EQ(hetla_dexpm(-1, A.data(), 4, F.data(), 4), -1);
  EXPECT_EQ(hetla_dexpm(4, nullptr, 4, F.data(), 4), -2);
  EXPECT_EQ(hetla_dexpm(4, A.data(), 3, F.data(), 4), -3);
  EXPECT_EQ(hetla_dexpm(4, A.data(), 4, nullptr, 4), -4);
  EXPECT_EQ(hetla_dexpm(4, A.data(), 4, A.data(), 4), -4);
  EXPECT_EQ(hetla_dexpm(4, A.data(), 4, F.data(), 3), -5);
  EXPECT_NE(std::string(hetla_last_error()), "");
  EXPECT_EQ(hetla_scosm(-2, nullptr, 1, nullptr, 1), -1);
  EXPECT_EQ(hetla_zsinm(2, nullptr, 2, nullptr, 2), -2);
  EXPECT_EQ(hetla_dexpm(0, nullptr, 1, nullptr, 1), 0);
  EXPECT_STREQ(hetla_last_error(), "");

  EXPECT_EQ(hetla_dmatpoly(-1, A.data(), 4, 2, a.data(), F.data(), 4, 'P'), -1);
  EXPECT_EQ(hetla_dmatpoly(4, nullptr, 4, 2, a.data(), F.data(), 4, 'P'), -2);
  EXPECT_EQ(hetla_dmatpoly(4, A.data(), 2, 2, a.data(), F.data(), 4, 'P'), -3);
  EXPECT_EQ(hetla_dmatpoly(4, A.data(), 4, -1, a.data(), F.data(), 4, 'P'), -4);
  EXPECT_EQ(hetla_dmatpoly(4, A.data(), 4, 2, nullptr, F.data(), 4, 'P'), -5);
  EXPECT_EQ(hetla_dmatpoly(4, A.data(), 4, 2, a.data(), nullptr, 4, 'P'), -6);
  EXPECT_EQ(hetla_dmatpoly(4, A.data(), 4, 2, a.data(), F.data(), 3, 'P'), -7);
  EXPECT_EQ(hetla_dmatpoly(4, A.data(), 4, 2, a.data(), F.data(), 4, 'X'), -8);
  EXPECT_EQ(hetla_cmatpoly(4, nullptr, 4, 2, nullptr, nullptr, 4, 'H'), -2);
}

}  // namespace
