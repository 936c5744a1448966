// Matrix polynomials (matpoly): Horner and Paterson–Stockmeyer against a
// naive evaluation (seed 003 Algorithm 1: X^i one product at a time,
// accumulated in double), product counts (PS < Horner), tile and column-major
// overloads, emulated devices, argument checking.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <vector>

#include "checks_matfun.hpp"
#include "hetla/hetla.hpp"
#include "matgen.hpp"

namespace hetla {
namespace {

template <typename T> class Matpoly : public testing::Test {};
using Precisions = testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(Matpoly, Precisions);

/// Naive evaluation in double: P = a_0 I + a_1 X + ..., B = X^i by repeated products.
template <typename T>
std::vector<bench::wide_t<T>> naive(int64_t n, const std::vector<T>& X, int64_t ldx, const std::vector<T>& a) {
  using W = bench::wide_t<T>;
  const int64_t d = static_cast<int64_t>(a.size()) - 1;
  std::vector<W> Xw(static_cast<std::size_t>(n * n)), P(static_cast<std::size_t>(n * n), W(0)), B, Bn;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < n; ++i) Xw[i + j * n] = static_cast<W>(X[i + j * ldx]);
  if (d < 0) return P;
  for (int64_t i = 0; i < n; ++i) P[i + i * n] = static_cast<W>(a[0]);
  B = Xw;
  Bn.resize(B.size());
  for (int64_t k = 1; k <= d; ++k) {
    if (k > 1) {
      blas::gemm(Op::NoTrans, Op::NoTrans, n, n, n, W(1), Xw.data(), n, B.data(), n, W(0), Bn.data(), n);
      std::swap(B, Bn);
    }
    for (std::size_t e = 0; e < P.size(); ++e) P[e] += static_cast<W>(a[static_cast<std::size_t>(k)]) * B[e];
  }
  return P;
}

/// X with ||X||_1 about `norm` and coefficients in [-1, 1].
template <typename T> std::vector<T> test_x(int64_t n, int64_t ld, double norm, uint64_t seed) {
  auto X = bench::random_matrix<T>(n, n, ld, seed);
  for (auto& x : X) x *= static_cast<real_t<T>>(2.0 * norm / std::max<int64_t>(1, n));
  return X;
}
template <typename T> std::vector<T> test_coeffs(int64_t d, uint64_t seed) {
  return bench::random_matrix<T>(d + 1, 1, d + 1, seed);
}

/// ||P - Pref||_1 / (n (d + 1) eps sum |a_i| ||X||_1^i): rounding-error level
/// of either evaluation order; accepted below kResidualThreshold (30).
template <typename T>
double poly_error(int64_t n, const std::vector<T>& X, int64_t ldx, const std::vector<T>& a, const T* P, int64_t ldp) {
  using W = bench::wide_t<T>;
  const auto ref = naive(n, X, ldx, a);
  double xn = 0;
  for (int64_t j = 0; j < n; ++j) {
    double c = 0;
    for (int64_t i = 0; i < n; ++i) c += std::abs(X[i + j * ldx]);
    xn = std::max(xn, c);
  }
  double scale = 0, pw = 1;
  for (const auto& c : a) {
    scale += std::abs(c) * pw;
    pw *= xn;
  }
  double err = 0;
  for (int64_t j = 0; j < n; ++j) {
    double e = 0;
    for (int64_t i = 0; i < n; ++i) e += std::abs(static_cast<W>(P[i + j * ldp]) - ref[i + j * n]);
    err = std::max(err, e);
  }
  const double d = static_cast<double>(a.size());
  return err / (static_cast<double>(n) * d * bench::eps<T>() * std::max(scale, 1e-300));
}

struct Case {
  int64_t n, pad, nb, degree;
  double xnorm;
};
const Case kCases[] = {{1, 0, 16, 5, 0.9},    {37, 2, 16, 0, 1.0},  {37, 0, 16, 1, 1.0},  {37, 1, 16, 2, 1.0},
                       {64, 0, 32, 3, 1.0},   {100, 3, 32, 7, 1.0}, {100, 0, 32, 13, 1.2}, {90, 0, 32, 30, 1.0},
                       {70, 5, 16, 36, 0.8},  {50, 0, 16, 55, 0.9}, {33, 0, 64, 12, 3.0}};

TYPED_TEST(Matpoly, HornerAndPatersonStockmeyerMatchNaive) {
  using T = TypeParam;
  for (const auto& c : kCases) {
    const int64_t ld = c.n + c.pad;
    const auto X = test_x<T>(c.n, ld, c.xnorm, 100 + c.n + c.degree);
    const auto a = test_coeffs<T>(c.degree, 7 + c.degree);
    for (auto method : {PolyMethod::Horner, PolyMethod::PatersonStockmeyer}) {
      std::vector<T> P(static_cast<std::size_t>(ld * c.n), T(7));
      const int64_t products = matpoly<T>(c.n, X.data(), ld, c.degree, a.data(), P.data(), ld, method, {c.nb});
      EXPECT_EQ(products, matpoly_products(c.degree, method));
      const double err = poly_error(c.n, X, ld, a, P.data(), ld);
      EXPECT_LT(err, bench::kResidualThreshold)
          << "n=" << c.n << " degree=" << c.degree << " method=" << static_cast<char>(method);
      // Padding rows untouched.
      for (int64_t j = 0; j < c.n; ++j)
        for (int64_t i = c.n; i < ld; ++i) ASSERT_EQ(P[i + j * ld], T(7));
    }
  }
}

TYPED_TEST(Matpoly, TileOverloadMatchesNaive) {
  using T = TypeParam;
  const int64_t n = 75, nb = 16, d = 30;
  const auto X = test_x<T>(n, n, 1.0, 5);
  const auto a = test_coeffs<T>(d, 6);
  Matrix<T> Xm(n, n, nb), Pm(n, n, nb);
  Xm.copy_from(X.data(), n);
  for (auto method : {PolyMethod::Horner, PolyMethod::PatersonStockmeyer}) {
    EXPECT_EQ(matpoly(Xm, std::span<const T>(a), Pm, method), matpoly_products(d, method));
    std::vector<T> P(static_cast<std::size_t>(n * n));
    Pm.copy_to(P.data(), n);
    EXPECT_LT(poly_error(n, X, n, a, P.data(), n), bench::kResidualThreshold);
  }
  // Empty coefficient list: P = 0.
  matpoly(Xm, std::span<const T>(), Pm);
  EXPECT_EQ(Pm.at(3, 3), T(0));
  EXPECT_EQ(Pm.at(4, 3), T(0));
}

TEST(MatpolyProducts, PatersonStockmeyerUsesFewerProducts) {
  EXPECT_EQ(matpoly_products(0, PolyMethod::PatersonStockmeyer), 0);
  EXPECT_EQ(matpoly_products(1, PolyMethod::Horner), 0);
  EXPECT_EQ(matpoly_products(30, PolyMethod::Horner), 29);
  // s = 5: X^2..X^5 (4) + 5 Horner steps in X^5 (a_30 X^5 needs none) = 9.
  EXPECT_EQ(matpoly_products(30, PolyMethod::PatersonStockmeyer), 9);
  for (int64_t d = 2; d <= 80; ++d) {
    const int64_t ps = matpoly_products(d, PolyMethod::PatersonStockmeyer);
    const int64_t h = matpoly_products(d, PolyMethod::Horner);
    EXPECT_LE(ps, h) << d;
    EXPECT_LE(ps, static_cast<int64_t>(2 * std::ceil(std::sqrt(static_cast<double>(d))))) << d;
    if (d >= 5) {
      EXPECT_LT(ps, h) << d;
    }
  }
}

TEST(MatpolyEmulated, DevicesCpuEmuMatchNaive) {
  Config cfg;
  cfg.devices = "cpu,emu";
  init(cfg);
  const int64_t n = 130, d = 30;
  const auto X = test_x<double>(n, n, 1.0, 11);
  const auto a = test_coeffs<double>(d, 12);
  for (auto method : {PolyMethod::Horner, PolyMethod::PatersonStockmeyer}) {
    std::vector<double> P(static_cast<std::size_t>(n * n));
    matpoly<double>(n, X.data(), n, d, a.data(), P.data(), n, method, {32});
    EXPECT_LT(poly_error(n, X, n, a, P.data(), n), bench::kResidualThreshold);
    EXPECT_LT(bench::matpoly_residual(n, X.data(), n, a.data(), d, P.data(), n, 3), bench::kResidualThreshold);
  }
  finalize();
}

TEST(MatpolyArgs, InvalidArgumentsNameTheirPosition) {
  std::vector<double> X(16, 0.0), P(16, 0.0), a(3, 1.0);
  auto arg_of = [](auto&& f) {
    try {
      f();
    } catch (const ArgumentError& e) {
      return e.arg();
    }
    return 0;
  };
  EXPECT_EQ(arg_of([&] { matpoly<double>(-1, X.data(), 4, 2, a.data(), P.data(), 4); }), 1);
  EXPECT_EQ(arg_of([&] { matpoly<double>(4, nullptr, 4, 2, a.data(), P.data(), 4); }), 2);
  EXPECT_EQ(arg_of([&] { matpoly<double>(4, X.data(), 3, 2, a.data(), P.data(), 4); }), 3);
  EXPECT_EQ(arg_of([&] { matpoly<double>(4, X.data(), 4, -1, a.data(), P.data(), 4); }), 4);
  EXPECT_EQ(arg_of([&] { matpoly<double>(4, X.data(), 4, 2, nullptr, P.data(), 4); }), 5);
  EXPECT_EQ(arg_of([&] { matpoly<double>(4, X.data(), 4, 2, a.data(), nullptr, 4); }), 6);
  EXPECT_EQ(arg_of([&] { matpoly<double>(4, X.data(), 4, 2, a.data(), X.data(), 4); }), 6);
  EXPECT_EQ(arg_of([&] { matpoly<double>(4, X.data(), 4, 2, a.data(), P.data(), 2); }), 7);
  EXPECT_EQ(arg_of([&] {
              matpoly<double>(4, X.data(), 4, 2, a.data(), P.data(), 4, static_cast<PolyMethod>('Q'));
            }),
            8);
  EXPECT_EQ(arg_of([&] { matpoly<double>(0, nullptr, 1, 2, nullptr, nullptr, 1); }), 0);  // quick return
  Matrix<double> A(4, 3, 2), B(4, 4, 2), C(4, 4, 4);
  EXPECT_EQ(arg_of([&] { matpoly(A, std::span<const double>(a), B); }), 1);
  EXPECT_EQ(arg_of([&] { matpoly(B, std::span<const double>(a), C); }), 3);
  EXPECT_EQ(arg_of([&] { matpoly(B, std::span<const double>(a), B); }), 3);
}

}  // namespace
}  // namespace hetla
