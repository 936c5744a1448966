// Matrix functions expm, cosm, sinm against closed forms, in the four precisions:
//  - normal matrices Q diag(d) Q^H with known eigenvalues (f(A) = Q f(D) Q^H,
//    reference in double), small and large norm (scaling must kick in);
//  - nilpotent matrices (the series is finite: exact reference);
//  - the rotation generator [[0, -t], [t, 0]]: exp = [[cos t, -sin t], [sin t, cos t]],
//    cos = cosh(t) I, sin = (sinh(t) / t) A;
//  - emulated devices, tile overloads, non-finite input, argument checks.
// Bounds: for a normal A the condition number of exp/cos/sin is about
// max(1, ||A||_2), so a stable method gives
//   ||F - F_ref||_1 / ||F_ref||_1 <= C n eps max(1, ||A||_2)
// with C = kResidualThreshold (30), eps of the precision under test.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "checks_matfun.hpp"
#include "hetla/hetla.hpp"

namespace hetla {
namespace {

template <typename T> class Matfun : public testing::Test {};
using Precisions = testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(Matfun, Precisions);

constexpr double kC = bench::kResidualThreshold;

enum class Fn { Exp, Cos, Sin };
template <typename T> MatfunInfo call(Fn f, int64_t n, const T* A, int64_t lda, T* F, int64_t ldf, int64_t nb) {
  switch (f) {
    case Fn::Exp: return expm<T>(n, A, lda, F, ldf, {nb});
    case Fn::Cos: return cosm<T>(n, A, lda, F, ldf, {nb});
    default: return sinm<T>(n, A, lda, F, ldf, {nb});
  }
}
template <typename W> W scalar_fn(Fn f, W x) {
  return f == Fn::Exp ? std::exp(x) : f == Fn::Cos ? std::cos(x) : std::sin(x);
}
const char* name(Fn f) { return f == Fn::Exp ? "expm" : f == Fn::Cos ? "cosm" : "sinm"; }

/// Runs f on Q diag(d) Q^H and returns the scaled error (see the file comment).
template <typename T>
double eigen_case(Fn f, int64_t n, int64_t pad, int64_t nb, double re, double im, uint64_t seed,
                  MatfunInfo* info = nullptr) {
  using W = bench::wide_t<T>;
  const auto M = bench::eigen_test_matrix<T>(n, re, im, seed);
  const int64_t ld = n + pad;
  const auto A = bench::narrow<T>(n, M.A, ld);
  std::vector<T> F(static_cast<std::size_t>(ld * n), T(-3));
  const MatfunInfo in = call<T>(f, n, A.data(), ld, F.data(), ld, nb);
  if (info) *info = in;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = n; i < ld; ++i) EXPECT_EQ(F[i + j * ld], T(-3));
  const auto ref = M.apply([f](W x) { return scalar_fn(f, x); });
  return bench::matfun_residual(n, F.data(), ld, ref, M.d);
}

TYPED_TEST(Matfun, NormalMatricesWithKnownEigenvalues) {
  using T = TypeParam;
  struct Case {
    int64_t n, pad, nb;
    double re, im;
  };
  // tiny norm (low Padé degree, no scaling), moderate, ragged tiles, one tile.
  const Case cases[] = {{40, 0, 16, 0.01, 0.01}, {60, 3, 16, 0.5, 0.5}, {97, 0, 32, 2.0, 3.0}, {50, 1, 64, 4.0, 1.0}};
  for (Fn f : {Fn::Exp, Fn::Cos, Fn::Sin})
    for (const auto& c : cases)
      EXPECT_LT(eigen_case<T>(f, c.n, c.pad, c.nb, c.re, c.im, 40 + c.n), kC)
          << name(f) << " n=" << c.n << " |d|<=" << c.re;
}

TYPED_TEST(Matfun, LargeNormNeedsScaling) {
  using T = TypeParam;
  const bool single = std::is_same_v<real_t<T>, float>;
  // ||A||_2 = 100 for cos/sin; exp over [-100, 100] overflows float, so exp uses [-60, 60] in single
  // (and [-100, 100] in double: e^100 = 2.7e43).
  for (Fn f : {Fn::Exp, Fn::Cos, Fn::Sin}) {
    const double re = f == Fn::Exp && single ? 60.0 : 100.0;
    MatfunInfo info;
    const double r = eigen_case<T>(f, 80, 0, 32, re, 0.3 * re, 90, &info);
    EXPECT_LT(r, kC) << name(f);
    EXPECT_GE(info.scaling, 4) << name(f);
    if (f == Fn::Exp) {
      EXPECT_EQ(info.degree, single ? 7 : 13);
    }
    EXPECT_GT(info.products, info.scaling);
  }
}

TYPED_TEST(Matfun, RotationGenerator) {
  using T = TypeParam;
  using R = real_t<T>;
  const double eps = bench::eps<T>();
  for (double t : {1e-3, 0.5, 1.0, 3.0, 10.0, 100.0}) {
    const T A[4] = {T(0), T(static_cast<R>(t)), T(static_cast<R>(-t)), T(0)};  // [[0, -t], [t, 0]]
    T E[4], C[4], S[4];
    expm<T>(2, A, 2, E, 2);
    const double tol = kC * 2 * eps * std::max(1.0, t);
    const double c = std::cos(t), s = std::sin(t);
    EXPECT_NEAR(std::real(E[0]), c, tol) << t;
    EXPECT_NEAR(std::real(E[1]), s, tol) << t;
    EXPECT_NEAR(std::real(E[2]), -s, tol) << t;
    EXPECT_NEAR(std::real(E[3]), c, tol) << t;
    if (t > 10) continue;  // cosh t beyond: relative checks below stay meaningful to t = 10
    cosm<T>(2, A, 2, C, 2);
    sinm<T>(2, A, 2, S, 2);
    const double ch = std::cosh(t), sh = std::sinh(t) / t;
    const double rtol = kC * 2 * eps * std::max(1.0, t);
    EXPECT_NEAR(std::real(C[0]) / ch, 1.0, rtol) << t;
    EXPECT_NEAR(std::real(C[3]) / ch, 1.0, rtol) << t;
    EXPECT_NEAR(std::abs(C[1]) / ch, 0.0, rtol) << t;
    EXPECT_NEAR(std::abs(C[2]) / ch, 0.0, rtol) << t;
    EXPECT_NEAR(std::real(S[1]) / (sh * t), 1.0, rtol) << t;
    EXPECT_NEAR(std::real(S[2]) / (-sh * t), 1.0, rtol) << t;
    EXPECT_NEAR(std::abs(S[0]) / (sh * t), 0.0, rtol) << t;
  }
}

/// Strictly upper triangular N: exp and cos are finite sums.
TYPED_TEST(Matfun, NilpotentFiniteSeries) {
  using T = TypeParam;
  using W = bench::wide_t<T>;
  const int64_t n = 45, nb = 16;
  auto N = bench::random_matrix<T>(n, n, n, 77);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = j; i < n; ++i) N[i + j * n] = T(0);
  for (auto& x : N) x *= static_cast<real_t<T>>(0.2);  // ||N||_1 about 4
  // Reference in double: exp(N) = sum_{k<n} N^k / k!, cos(N) = sum (-1)^k N^2k / (2k)!.
  std::vector<W> Nw(static_cast<std::size_t>(n * n)), Pk(static_cast<std::size_t>(n * n), W(0)), tmp(Pk.size());
  for (std::size_t e = 0; e < Nw.size(); ++e) Nw[e] = static_cast<W>(N[e]);
  for (int64_t i = 0; i < n; ++i) Pk[i + i * n] = 1;
  std::vector<W> Eref(Pk.size(), W(0)), Cref(Pk.size(), W(0)), Sref(Pk.size(), W(0));
  double fact = 1;
  for (int64_t k = 0; k < n; ++k) {
    if (k > 0) {
      blas::gemm(Op::NoTrans, Op::NoTrans, n, n, n, W(1), Pk.data(), n, Nw.data(), n, W(0), tmp.data(), n);
      std::swap(Pk, tmp);
      fact *= static_cast<double>(k);
    }
    for (std::size_t e = 0; e < Pk.size(); ++e) {
      Eref[e] += Pk[e] / fact;
      if (k % 2 == 0) Cref[e] += (k % 4 == 0 ? 1.0 : -1.0) * Pk[e] / fact;
      else Sref[e] += (k % 4 == 1 ? 1.0 : -1.0) * Pk[e] / fact;
    }
  }
  std::vector<T> F(static_cast<std::size_t>(n * n));
  const double bound = kC * n * bench::eps<T>() * 4;  // ||N|| about 4
  expm<T>(n, N.data(), n, F.data(), n, {nb});
  EXPECT_LT(bench::relative_error(n, F.data(), n, Eref), bound);
  cosm<T>(n, N.data(), n, F.data(), n, {nb});
  EXPECT_LT(bench::relative_error(n, F.data(), n, Cref), bound);
  sinm<T>(n, N.data(), n, F.data(), n, {nb});
  EXPECT_LT(bench::relative_error(n, F.data(), n, Sref), bound);

  // N^2 = 0 (a rank-one u v^T with v^T u = 0): exp = I + N, cos = I, sin = N exactly up to rounding.
  const int64_t m = 30;
  std::vector<T> Z(static_cast<std::size_t>(m * m), T(0));
  for (int64_t j = m / 2; j < m; ++j)
    for (int64_t i = 0; i < m / 2; ++i) Z[i + j * m] = T(static_cast<real_t<T>>(1 + (i + 2 * j) % 5));
  std::vector<W> Ez(Z.size()), Cz(Z.size(), W(0)), Sz(Z.size());
  for (std::size_t e = 0; e < Z.size(); ++e) Ez[e] = Sz[e] = static_cast<W>(Z[e]);
  for (int64_t i = 0; i < m; ++i) Ez[i + i * m] += 1.0, Cz[i + i * m] = 1.0;
  std::vector<T> G(Z.size());
  MatfunInfo info = cosm<T>(m, Z.data(), m, G.data(), m, {8});
  EXPECT_EQ(info.scaling, 0);  // ||Z^2|| = 0: no halving needed
  EXPECT_LT(bench::relative_error(m, G.data(), m, Cz), 4 * bench::eps<T>());
  sinm<T>(m, Z.data(), m, G.data(), m, {8});
  EXPECT_LT(bench::relative_error(m, G.data(), m, Sz), 4 * bench::eps<T>());
  expm<T>(m, Z.data(), m, G.data(), m, {8});
  EXPECT_LT(bench::relative_error(m, G.data(), m, Ez), kC * m * bench::eps<T>() * 50);  // ||Z||_1 = 45
}

TYPED_TEST(Matfun, TileOverloads) {
  using T = TypeParam;
  using W = bench::wide_t<T>;
  const int64_t n = 70, nb = 16;
  const auto M = bench::eigen_test_matrix<T>(n, 3.0, 2.0, 5);
  const auto A = bench::narrow<T>(n, M.A, n);
  Matrix<T> Am(n, n, nb), Fm(n, n, nb);
  Am.copy_from(A.data(), n);
  std::vector<T> F(static_cast<std::size_t>(n * n));
  for (Fn f : {Fn::Exp, Fn::Cos, Fn::Sin}) {
    if (f == Fn::Exp) expm(Am, Fm);
    else if (f == Fn::Cos) cosm(Am, Fm);
    else sinm(Am, Fm);
    Fm.copy_to(F.data(), n);
    const auto ref = M.apply([f](W x) { return scalar_fn(f, x); });
    EXPECT_LT(bench::matfun_residual(n, F.data(), n, ref, M.d), kC) << name(f);
  }
}

TEST(MatfunEmulated, DevicesCpuEmu) {
  Config cfg;
  cfg.devices = "cpu,emu";
  init(cfg);
  for (Fn f : {Fn::Exp, Fn::Cos, Fn::Sin}) {
    EXPECT_LT(eigen_case<double>(f, 120, 0, 32, 8.0, 0, 3), kC) << name(f);
    EXPECT_LT(eigen_case<std::complex<double>>(f, 64, 2, 16, 2.0, 6.0, 4), kC) << name(f);
  }
  finalize();
}

TEST(MatfunInfoTest, DegreeAndScalingFollowTheNorm) {
  // ||A||_1 = 0.01 <= theta_3 (1.5e-2): Padé 3, no scaling, 2 products, one solve.
  const double A[4] = {0.01, 0, 0, -0.005};
  double E[4];
  MatfunInfo i = expm<double>(2, A, 2, E, 2);
  EXPECT_EQ(i.degree, 3);
  EXPECT_EQ(i.scaling, 0);
  EXPECT_EQ(i.products, 2);
  EXPECT_EQ(i.solves, 1);
  EXPECT_NEAR(E[0], std::exp(0.01), 1e-15);
  EXPECT_NEAR(E[3], std::exp(-0.005), 1e-15);
  // ||A||_1 = 50: Padé 13 and s = ceil(log2(50 / 5.37)) = 4.
  const double B[4] = {50, 0, 0, -20};
  i = expm<double>(2, B, 2, E, 2);
  EXPECT_EQ(i.degree, 13);
  EXPECT_EQ(i.scaling, 4);
  EXPECT_EQ(i.products, 6 + 4);
  EXPECT_NEAR(E[0] / std::exp(50.0), 1.0, 1e-13);
  EXPECT_NEAR(E[3] / std::exp(-20.0), 1.0, 1e-13);
}

TEST(MatfunNonFinite, NaNAndInfGiveNaN) {
  for (double bad : {std::nan(""), HUGE_VAL}) {
    double A[4] = {1, bad, 0, 1}, F[4] = {0, 0, 0, 0};
    expm<double>(2, A, 2, F, 2);
    EXPECT_TRUE(std::isnan(F[0]) || std::isinf(F[0]));
    cosm<double>(2, A, 2, F, 2);
    EXPECT_TRUE(std::isnan(F[1]));
  }
}

TEST(MatfunArgs, InvalidArgumentsNameTheirPosition) {
  std::vector<double> A(16, 0.0), F(16, 0.0);
  auto arg_of = [](auto&& f) {
    try {
      f();
    } catch (const ArgumentError& e) {
      return e.arg();
    }
    return 0;
  };
  EXPECT_EQ(arg_of([&] { expm<double>(-1, A.data(), 4, F.data(), 4); }), 1);
  EXPECT_EQ(arg_of([&] { expm<double>(4, nullptr, 4, F.data(), 4); }), 2);
  EXPECT_EQ(arg_of([&] { cosm<double>(4, A.data(), 3, F.data(), 4); }), 3);
  EXPECT_EQ(arg_of([&] { sinm<double>(4, A.data(), 4, nullptr, 4); }), 4);
  EXPECT_EQ(arg_of([&] { expm<double>(4, A.data(), 4, A.data(), 4); }), 4);
  EXPECT_EQ(arg_of([&] { expm<double>(4, A.data(), 4, F.data(), 1); }), 5);
  EXPECT_EQ(arg_of([&] { expm<double>(0, nullptr, 1, nullptr, 1); }), 0);
  Matrix<double> R(4, 3, 2), S(4, 4, 2), U(4, 4, 4);
  EXPECT_EQ(arg_of([&] { expm(R, S); }), 1);
  EXPECT_EQ(arg_of([&] { cosm(S, U); }), 2);
  EXPECT_EQ(arg_of([&] { sinm(S, S); }), 2);
}

}  // namespace
}  // namespace hetla
