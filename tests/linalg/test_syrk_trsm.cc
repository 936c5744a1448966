// hetla::herk / syrk and hetla::trsm against the host BLAS: every uplo x op
// (x side x diag for trsm) x precision on shapes with ragged tiles and padded
// leading dimensions; the triangle of C not referenced stays bitwise
// untouched; BLAS edge cases (k = 0, alpha = 0, beta = 0 over NaN); the tile
// API; and a run with emulated devices.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "common/cholesky.hpp"
#include "common/watchdog.hpp"
#include "hetla/hetla.hpp"
#include "kernels/host/blas.hpp"  // blas::syrk: the complex symmetric reference

namespace hetla {
namespace {

using test::PrecisionName;
using test::Precisions;

constexpr int64_t kNb = 16;

template <typename T> double fro(int64_t m, int64_t n, const T* A, int64_t lda) {
  double s = 0;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) s += std::norm(std::complex<double>(A[i + j * lda]));
  return std::sqrt(s);
}
template <typename T> T scalar(double re, double im) {
  if constexpr (is_complex_v<T>)
    return T(static_cast<real_t<T>>(re), static_cast<real_t<T>>(im));
  else
    return static_cast<T>(re);
}

// ---- rank-k updates

struct RkCase {
  int64_t n, k;
};
// {200, 120} and {130, 240}: the host path (one BLAS call per worker's column block)
const RkCase kRk[] = {{1, 1}, {kNb + 3, 2 * kNb + 1}, {3 * kNb + 5, kNb - 1}, {2 * kNb, 0}, {200, 120}, {130, 240}};

/// Runs herk (conj) or syrk and compares the `uplo` triangle with the host
/// BLAS; returns the scaled error, or infinity if the other triangle or the
/// padding changed. nan_c: C starts as NaN (only valid with beta = 0).
template <typename T>
double rank_k_error(bool conj, Uplo uplo, Op op, RkCase c, T alpha, T beta, bool nan_c, const Options& o = {kNb}) {
  const int64_t n = c.n, k = c.k, ar = op == Op::NoTrans ? n : k, ac = op == Op::NoTrans ? k : n;
  const int64_t lda = std::max<int64_t>(1, ar) + 1, ldc = n + 2;
  const auto A = bench::random_matrix<T>(ar, ac, lda, 31 + static_cast<uint64_t>(n));
  auto C0 = bench::random_matrix<T>(n, n, ldc, 37 + static_cast<uint64_t>(k));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < ldc; ++i) {
      T& x = C0[static_cast<std::size_t>(i + j * ldc)];
      if (i >= n || !test::in_triangle(uplo, i, j))
        x = test::poison<T>(static_cast<uint64_t>(i + 3 * j));
      else if (nan_c)
        x = test::poison<T>(1);
      else if (i == j && conj)
        x = T(std::real(x));
    }
  auto C = C0, R = C0;
  test::must_finish("rank-k", [&] {
    if (conj)
      herk<T>(uplo, op, n, k, std::real(alpha), A.data(), lda, std::real(beta), C.data(), ldc, o);
    else
      syrk<T>(uplo, op, n, k, alpha, A.data(), lda, beta, C.data(), ldc, o);
  });
  if (conj)
    blas::herk(uplo, op, n, k, std::real(alpha), A.data(), lda, std::real(beta), R.data(), ldc);
  else
    blas::syrk(uplo, op, n, k, alpha, A.data(), lda, beta, R.data(), ldc);
  double err = 0, c0 = 0;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < ldc; ++i) {
      const auto idx = static_cast<std::size_t>(i + j * ldc);
      if (i >= n || !test::in_triangle(uplo, i, j)) {
        if (std::memcmp(&C[idx], &C0[idx], sizeof(T)) != 0) return std::numeric_limits<double>::infinity();
        continue;
      }
      err += std::norm(std::complex<double>(C[idx] - R[idx]));
      if (!nan_c) c0 += std::norm(std::complex<double>(C0[idx]));
    }
  err = std::sqrt(err);
  if (std::isnan(err)) return std::numeric_limits<double>::infinity();
  const double an = fro(ar, ac, A.data(), lda);
  const double scale = std::abs(alpha) * static_cast<double>(std::max<int64_t>(1, k)) * an * an +
                       (beta == T(0) ? 0.0 : std::abs(beta) * std::sqrt(c0));
  return err == 0 ? 0 : err / (std::max(scale, 1e-300) * bench::eps<T>());
}

template <typename T> class RankK : public testing::Test {};
TYPED_TEST_SUITE(RankK, Precisions, PrecisionName);

TYPED_TEST(RankK, HerkEveryUploOpShape) {
  using T = TypeParam;
  const std::vector<Op> ops = is_complex_v<T> ? std::vector<Op>{Op::NoTrans, Op::ConjTrans}
                                              : std::vector<Op>{Op::NoTrans, Op::Trans, Op::ConjTrans};
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
    for (Op op : ops)
      for (RkCase c : kRk)
        EXPECT_LT(rank_k_error<T>(true, uplo, op, c, T(1.5), T(-0.5), false), bench::kResidualThreshold)
            << test::uplo_name(uplo) << " " << static_cast<char>(op) << " n=" << c.n << " k=" << c.k;
}

TYPED_TEST(RankK, SyrkEveryUploOpShape) {
  using T = TypeParam;
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
    for (Op op : {Op::NoTrans, Op::Trans})
      for (RkCase c : kRk)
        EXPECT_LT(rank_k_error<T>(false, uplo, op, c, scalar<T>(1.5, 0.5), scalar<T>(-0.5, 1), false),
                  bench::kResidualThreshold)
            << test::uplo_name(uplo) << " " << static_cast<char>(op) << " n=" << c.n << " k=" << c.k;
}

TYPED_TEST(RankK, EdgeCases) {
  using T = TypeParam;
  const RkCase c{2 * kNb + 1, kNb + 2};
  for (bool conj : {true, false}) {
    // beta = 0 over NaN; alpha = 0 and k = 0 only scale (beta = 0 zeroes)
    EXPECT_LT(rank_k_error<T>(conj, Uplo::Lower, Op::NoTrans, c, T(2), T(0), true), bench::kResidualThreshold);
    EXPECT_LT(rank_k_error<T>(conj, Uplo::Upper, Op::NoTrans, c, T(0), T(0), true), bench::kResidualThreshold);
    EXPECT_LT(rank_k_error<T>(conj, Uplo::Lower, Op::NoTrans, c, T(0), T(3), false), bench::kResidualThreshold);
    EXPECT_LT(rank_k_error<T>(conj, Uplo::Upper, Op::NoTrans, {c.n, 0}, T(1), T(0), true), bench::kResidualThreshold);
  }
}

TEST(RankKArgs, BlasArgumentNumbers) {
  std::vector<std::complex<double>> x(64);
  auto arg_of = [&](auto&& f) {
    try {
      f();
    } catch (const ArgumentError& e) {
      return e.arg();
    }
    return 0;
  };
  using Z = std::complex<double>;
  const Z* a = x.data();
  Z* c = x.data();
  EXPECT_EQ(arg_of([&] { herk<Z>(Uplo::General, Op::NoTrans, 2, 2, 1.0, a, 2, 0.0, c, 2); }), 1);
  EXPECT_EQ(arg_of([&] { herk<Z>(Uplo::Lower, Op::Trans, 2, 2, 1.0, a, 2, 0.0, c, 2); }), 2);
  EXPECT_EQ(arg_of([&] { syrk<Z>(Uplo::Lower, Op::ConjTrans, 2, 2, 1.0, a, 2, 0.0, c, 2); }), 2);
  EXPECT_EQ(arg_of([&] { herk<Z>(Uplo::Lower, Op::NoTrans, -1, 2, 1.0, a, 2, 0.0, c, 2); }), 3);
  EXPECT_EQ(arg_of([&] { herk<Z>(Uplo::Lower, Op::NoTrans, 2, -1, 1.0, a, 2, 0.0, c, 2); }), 4);
  EXPECT_EQ(arg_of([&] { herk<Z>(Uplo::Lower, Op::NoTrans, 3, 2, 1.0, a, 2, 0.0, c, 3); }), 7);
  EXPECT_EQ(arg_of([&] { herk<Z>(Uplo::Lower, Op::ConjTrans, 2, 3, 1.0, a, 2, 0.0, c, 2); }), 7);
  EXPECT_EQ(arg_of([&] { herk<Z>(Uplo::Lower, Op::NoTrans, 3, 2, 1.0, a, 3, 0.0, c, 2); }), 10);
  EXPECT_EQ(arg_of([&] { herk<Z>(Uplo::Lower, Op::NoTrans, 2, 2, 1.0, nullptr, 2, 0.0, c, 2); }), 6);
}

// ---- triangular solves

/// Triangular test matrix: small off-diagonal entries, so unit and non-unit
/// triangles are both well conditioned; the other triangle is poison.
template <typename T> std::vector<T> tri_input(Uplo uplo, int64_t n, int64_t lda, uint64_t seed) {
  auto A = bench::random_matrix<T>(n, n, lda, seed);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < lda; ++i) {
      T& x = A[static_cast<std::size_t>(i + j * lda)];
      if (i >= n || !test::in_triangle(uplo, i, j))
        x = test::poison<T>(static_cast<uint64_t>(i + j));
      else if (i == j)
        x = T(2) + x;
      else
        x = x / T(static_cast<real_t<T>>(n));
    }
  return A;
}

struct TrCase {
  int64_t m, n;
};
// {150, 400}: the host path (one BLAS trsm per worker on a slice of B), both sides
const TrCase kTr[] = {{1, 1}, {kNb + 3, 2 * kNb + 1}, {3 * kNb + 5, kNb - 1}, {150, 400}};

template <typename T>
double trsm_error(Side side, Uplo uplo, Op op, Diag diag, TrCase c, T alpha, const Options& o = {kNb}) {
  const int64_t na = side == Side::Left ? c.m : c.n, lda = na + 1, ldb = c.m + 2;
  const auto A = tri_input<T>(uplo, na, lda, 41 + static_cast<uint64_t>(na));
  const auto A0 = A;
  auto B0 = bench::random_matrix<T>(c.m, c.n, ldb, 43);
  for (int64_t j = 0; j < c.n; ++j)
    for (int64_t i = c.m; i < ldb; ++i) B0[static_cast<std::size_t>(i + j * ldb)] = T(7);
  auto X = B0, R = B0;
  test::must_finish("trsm", [&] { trsm<T>(side, uplo, op, diag, c.m, c.n, alpha, A.data(), lda, X.data(), ldb, o); });
  blas::trsm(side, uplo, op, diag, c.m, c.n, alpha, A.data(), lda, R.data(), ldb);
  if (!test::bitwise_equal(A, A0)) return std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < c.n; ++j)
    for (int64_t i = c.m; i < ldb; ++i)
      if (X[static_cast<std::size_t>(i + j * ldb)] != T(7)) return std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < X.size(); ++i) R[i] -= X[i];
  const double err = fro(c.m, c.n, R.data(), ldb);
  if (std::isnan(err)) return std::numeric_limits<double>::infinity();
  const double xn = fro(c.m, c.n, X.data(), ldb);
  return err == 0 ? 0 : err / (std::max(xn, 1e-300) * static_cast<double>(na) * bench::eps<T>());
}

template <typename T> class Trsm : public testing::Test {};
TYPED_TEST_SUITE(Trsm, Precisions, PrecisionName);

TYPED_TEST(Trsm, EverySideUploOpDiag) {
  using T = TypeParam;
  for (Side side : {Side::Left, Side::Right})
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
      for (Op op : {Op::NoTrans, Op::Trans, Op::ConjTrans})
        for (Diag diag : {Diag::NonUnit, Diag::Unit})
          for (TrCase c : kTr)
            EXPECT_LT(trsm_error<T>(side, uplo, op, diag, c, scalar<T>(1.5, -1)), bench::kResidualThreshold)
                << static_cast<char>(side) << static_cast<char>(uplo) << static_cast<char>(op)
                << static_cast<char>(diag) << " " << c.m << "x" << c.n;
}

TYPED_TEST(Trsm, AlphaZeroClearsBWithoutReadingIt) {
  using T = TypeParam;
  const int64_t m = kNb + 5, n = 2 * kNb + 1;
  std::vector<T> B(static_cast<std::size_t>(m * n), test::poison<T>(3));
  trsm<T>(Side::Right, Uplo::Lower, Op::NoTrans, Diag::NonUnit, m, n, T(0), nullptr, n, B.data(), m, {kNb});
  for (const T& x : B) ASSERT_EQ(x, T(0));
}

TEST(TrsmArgs, BlasArgumentNumbers) {
  std::vector<double> x(64);
  auto arg_of = [&](auto&& f) {
    try {
      f();
    } catch (const ArgumentError& e) {
      return e.arg();
    }
    return 0;
  };
  const double* a = x.data();
  double* b = x.data();
  const auto L = Side::Left;
  const auto Lo = Uplo::Lower;
  const auto N = Op::NoTrans;
  const auto D = Diag::NonUnit;
  EXPECT_EQ(arg_of([&] { trsm<double>(static_cast<Side>('X'), Lo, N, D, 2, 2, 1, a, 2, b, 2); }), 1);
  EXPECT_EQ(arg_of([&] { trsm<double>(L, Uplo::General, N, D, 2, 2, 1, a, 2, b, 2); }), 2);
  EXPECT_EQ(arg_of([&] { trsm<double>(L, Lo, static_cast<Op>('X'), D, 2, 2, 1, a, 2, b, 2); }), 3);
  EXPECT_EQ(arg_of([&] { trsm<double>(L, Lo, N, static_cast<Diag>('X'), 2, 2, 1, a, 2, b, 2); }), 4);
  EXPECT_EQ(arg_of([&] { trsm<double>(L, Lo, N, D, -1, 2, 1, a, 2, b, 2); }), 5);
  EXPECT_EQ(arg_of([&] { trsm<double>(L, Lo, N, D, 2, -1, 1, a, 2, b, 2); }), 6);
  EXPECT_EQ(arg_of([&] { trsm<double>(L, Lo, N, D, 3, 2, 1, a, 2, b, 3); }), 9);
  EXPECT_EQ(arg_of([&] { trsm<double>(Side::Right, Lo, N, D, 2, 3, 1, a, 2, b, 2); }), 9);
  EXPECT_EQ(arg_of([&] { trsm<double>(L, Lo, N, D, 3, 2, 1, a, 3, b, 2); }), 11);
  EXPECT_EQ(arg_of([&] { trsm<double>(L, Lo, N, D, 2, 2, 1, nullptr, 2, b, 2); }), 8);
  EXPECT_EQ(arg_of([&] { trsm<double>(L, Lo, N, D, 2, 2, 1, a, 2, nullptr, 2); }), 10);
}

TEST(Trsm, TileApiRightSide) {
  using T = double;
  const int64_t m = 2 * kNb + 3, n = 3 * kNb + 1;
  const auto A = tri_input<T>(Uplo::Upper, n, n, 5);
  const auto B0 = bench::random_matrix<T>(m, n, m, 6);
  Matrix<T> At(n, n, kNb), Bt(m, n, kNb);
  At.copy_from(A.data(), n), Bt.copy_from(B0.data(), m);
  trsm<T>(Side::Right, Uplo::Upper, Op::Trans, Diag::NonUnit, 2.0, At, Bt);
  std::vector<T> X(B0.size()), R = B0;
  Bt.copy_to(X.data(), m);
  blas::trsm(Side::Right, Uplo::Upper, Op::Trans, Diag::NonUnit, m, n, 2.0, A.data(), n, R.data(), m);
  for (std::size_t i = 0; i < R.size(); ++i) R[i] -= X[i];
  EXPECT_LT(fro(m, n, R.data(), m) / (fro(m, n, X.data(), m) * n * bench::eps<T>()), bench::kResidualThreshold);
}

// ---- with emulated accelerators

TEST(Blas3Devices, SyrkHerkTrsmCorrect) {
  Config cfg;
  cfg.devices = "cpu,emu";
  init(cfg);
  const RkCase rc{3 * kNb + 1, 2 * kNb};
  EXPECT_LT(rank_k_error<double>(true, Uplo::Lower, Op::Trans, rc, 1, 1, false), bench::kResidualThreshold);
  EXPECT_LT(rank_k_error<std::complex<double>>(true, Uplo::Upper, Op::NoTrans, rc, 2, 0, true),
            bench::kResidualThreshold);
  EXPECT_LT(rank_k_error<std::complex<float>>(false, Uplo::Lower, Op::Trans, rc, {1, 1}, {0, 1}, false),
            bench::kResidualThreshold);
  for (Side side : {Side::Left, Side::Right})
    EXPECT_LT(trsm_error<double>(side, Uplo::Lower, Op::Trans, Diag::NonUnit, {3 * kNb + 2, 2 * kNb + 5}, 1.5),
              bench::kResidualThreshold);
  finalize();
}

}  // namespace
}  // namespace hetla
