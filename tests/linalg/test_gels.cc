// Least squares and minimum norm solutions (gels) in the four precisions:
// optimality of overdetermined solutions (residual orthogonal to the range),
// backward error and agreement with LAPACK's gels for the minimum norm
// solutions, both transpositions, the LQ storage left in A when m < n,
// rank deficiency (info as LAPACK), a zero A, LAPACK's scaling of tiny and
// huge matrices, the tile-matrix API and argument checking.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "checks_qr.hpp"
#include "hetla/hetla.hpp"
#include "kernels/host/lapack_qr.hpp"
#include "matgen.hpp"

namespace hetla {
namespace {

template <typename T> class Gels : public testing::Test {};
using Precisions = testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(Gels, Precisions);

constexpr double kThreshold = bench::kResidualThreshold;

struct Shape {
  int64_t m, n, nrhs, pad, nb;  // pad: lda = max(1, m) + pad, ldb = max(1, m, n) + pad
};
const Shape kShapes[] = {{96, 96, 3, 0, 32},  {150, 70, 4, 2, 32}, {70, 150, 4, 0, 32}, {97, 40, 1, 5, 16},
                         {40, 97, 2, 1, 16},  {60, 20, 3, 0, 64},  {20, 60, 3, 0, 64},  {200, 24, 5, 0, 16},
                         {24, 200, 5, 3, 16}, {33, 1, 2, 0, 16},   {1, 33, 2, 0, 16},   {1, 1, 1, 0, 16},
                         {500, 300, 130, 1, 128}, {300, 500, 130, 0, 128},  // nb 128: larfb blocks
                         {4300, 40, 3, 1, 16}, {40, 4300, 2, 0, 16},  // tall / wide: QR in row blocks
                         {153, 216, 4, 0, 8}};  // A^H in tile storage: its last tile column one wide over 8 tiles

template <typename T> Op adjoint() { return is_complex_v<T> ? Op::ConjTrans : Op::Trans; }

std::string describe(const Shape& s, Op op) {
  return "m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) + " nrhs=" + std::to_string(s.nrhs) +
         " nb=" + std::to_string(s.nb) + " trans=" + static_cast<char>(op);
}

/// Solves A X = B with hetla and with LAPACK; checks optimality
/// (overdetermined), the backward error (underdetermined: A X = B holds) and
/// the solution against LAPACK's (unique for a full-rank A).
template <typename T> void check_solve(const Shape& s) {
  SCOPED_TRACE(describe(s, Op::NoTrans));
  const int64_t p = std::max(s.m, s.n), lda = std::max<int64_t>(1, s.m) + s.pad, ldb = std::max<int64_t>(1, p) + s.pad;
  const auto A0 = bench::random_matrix<T>(s.m, s.n, lda, 17 + s.m * 3 + s.n);
  const auto B0 = bench::random_matrix<T>(s.m, s.nrhs, ldb, 29 + s.nrhs);
  auto A = A0, B = B0;
  ASSERT_EQ(gels<T>(Op::NoTrans, s.m, s.n, s.nrhs, A.data(), lda, B.data(), ldb, {s.nb}), 0);
  auto Al = A0, Bl = B0;
  ASSERT_EQ(blas::gels(Op::NoTrans, s.m, s.n, s.nrhs, Al.data(), lda, Bl.data(), ldb), 0);
  if (s.m >= s.n)
    EXPECT_LT(bench::least_squares_residual(Op::NoTrans, s.m, s.n, s.nrhs, A0.data(), lda, B.data(), ldb, B0.data(),
                                            ldb),
              kThreshold);
  else
    EXPECT_LT(bench::solve_residual(s.m, s.n, s.nrhs, A0.data(), lda, B.data(), ldb, B0.data(), ldb), kThreshold);
  // Random rectangular matrices are well conditioned: the solutions agree.
  EXPECT_LT(bench::relative_difference(s.n, s.nrhs, B.data(), ldb, Bl.data(), ldb, p), kThreshold);
  // A holds the QR (m >= n) or LQ (m < n) factorization in LAPACK's storage.
  EXPECT_LT(bench::relative_difference(s.m, s.n, A.data(), lda, Al.data(), lda, p), kThreshold);
}

TYPED_TEST(Gels, NoTrans) {
  for (const Shape& s : kShapes) check_solve<TypeParam>(s);
}

// op(A) = A^T (real) or A^H (complex); the check builds A^H for the backward error.
TYPED_TEST(Gels, Adjoint) {
  using T = TypeParam;
  for (const Shape& s : kShapes) {
    const Op op = adjoint<T>();
    SCOPED_TRACE(describe(s, op));
    const int64_t p = std::max(s.m, s.n), lda = std::max<int64_t>(1, s.m) + s.pad,
                  ldb = std::max<int64_t>(1, p) + s.pad;
    const auto A0 = bench::random_matrix<T>(s.m, s.n, lda, 41 + s.m + s.n);
    const auto B0 = bench::random_matrix<T>(s.n, s.nrhs, ldb, 43 + s.nrhs);  // op(A) has n rows
    auto A = A0, B = B0;
    ASSERT_EQ(gels<T>(op, s.m, s.n, s.nrhs, A.data(), lda, B.data(), ldb, {s.nb}), 0);
    auto Al = A0, Bl = B0;
    ASSERT_EQ(blas::gels(op, s.m, s.n, s.nrhs, Al.data(), lda, Bl.data(), ldb), 0);
    if (s.n >= s.m) {
      EXPECT_LT(bench::least_squares_residual(op, s.m, s.n, s.nrhs, A0.data(), lda, B.data(), ldb, B0.data(), ldb),
                kThreshold);
    } else {
      std::vector<T> AH(static_cast<std::size_t>(s.n) * s.m);  // A^H, n x m
      for (int64_t j = 0; j < s.n; ++j)
        for (int64_t i = 0; i < s.m; ++i) AH[j + i * s.n] = conj(A0[i + j * lda]);
      EXPECT_LT(bench::solve_residual(s.n, s.m, s.nrhs, AH.data(), s.n, B.data(), ldb, B0.data(), ldb), kThreshold);
    }
    EXPECT_LT(bench::relative_difference(s.m, s.nrhs, B.data(), ldb, Bl.data(), ldb, p), kThreshold);
    EXPECT_LT(bench::relative_difference(s.m, s.n, A.data(), lda, Al.data(), lda, p), kThreshold);
  }
}

TYPED_TEST(Gels, OverdeterminedResidualRowsMatchLapack) {
  // Rows n..m-1 of B hold Q^H B's tail (the residual's components) as in LAPACK.
  using T = TypeParam;
  const int64_t m = 90, n = 50, nrhs = 2, nb = 16;
  const auto A0 = bench::random_matrix<T>(m, n, m, 3);
  const auto B0 = bench::random_matrix<T>(m, nrhs, m, 4);
  auto A = A0, B = B0, Al = A0, Bl = B0;
  ASSERT_EQ(gels<T>(Op::NoTrans, m, n, nrhs, A.data(), m, B.data(), m, {nb}), 0);
  ASSERT_EQ(blas::gels(Op::NoTrans, m, n, nrhs, Al.data(), m, Bl.data(), m), 0);
  // ||tail||_2 is the residual norm: compare column norms.
  for (int64_t c = 0; c < nrhs; ++c) {
    double h = 0, l = 0;
    for (int64_t i = n; i < m; ++i) {
      h += std::norm(B[i + c * m]);
      l += std::norm(Bl[i + c * m]);
    }
    EXPECT_NEAR(std::sqrt(h), std::sqrt(l), 100 * m * bench::eps<T>() * std::sqrt(l));
  }
}

TYPED_TEST(Gels, RankDeficientInfoAsLapack) {
  using T = TypeParam;
  struct Case {
    int64_t m, n, zero;  // the zero column (m >= n) or row (m < n) of A
    Op op;
  };
  const Case cases[] = {{80, 50, 37, Op::NoTrans}, {80, 50, 0, Op::NoTrans},  {50, 80, 21, Op::NoTrans},
                        {80, 50, 49, adjoint<T>()}, {50, 80, 33, adjoint<T>()}, {40, 40, 39, Op::NoTrans}};
  for (const Case& c : cases) {
    SCOPED_TRACE("m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) + " zero=" + std::to_string(c.zero));
    const int64_t p = std::max(c.m, c.n);
    auto A = bench::random_matrix<T>(c.m, c.n, c.m, 5);
    if (c.m >= c.n)
      for (int64_t i = 0; i < c.m; ++i) A[i + c.zero * c.m] = T(0);
    else
      for (int64_t j = 0; j < c.n; ++j) A[c.zero + j * c.m] = T(0);
    auto B = bench::random_matrix<T>(p, 2, p, 6);
    auto Al = A, Bl = B;
    const int64_t info = gels<T>(c.op, c.m, c.n, 2, A.data(), c.m, B.data(), p, {16});
    const int64_t info_l = blas::gels(c.op, c.m, c.n, 2, Al.data(), c.m, Bl.data(), p);
    EXPECT_EQ(info, c.zero + 1);
    EXPECT_EQ(info, info_l);
  }
}

TYPED_TEST(Gels, ZeroMatrixAndEmptyGiveZeroSolution) {
  using T = TypeParam;
  for (auto [m, n, nrhs] : {std::tuple<int64_t, int64_t, int64_t>{30, 20, 2}, {20, 30, 2}, {0, 10, 2}, {10, 0, 3}}) {
    const int64_t p = std::max(m, n), lda = std::max<int64_t>(1, m);
    std::vector<T> A(static_cast<std::size_t>(lda * n), T(0));
    auto B = bench::random_matrix<T>(p, nrhs, p, 8);
    ASSERT_EQ(gels<T>(Op::NoTrans, m, n, nrhs, A.data(), lda, B.data(), p, {16}), 0);
    for (T v : B) ASSERT_EQ(v, T(0));
  }
  std::vector<T> A(10, T(1)), B(10, T(1));
  EXPECT_EQ(gels<T>(Op::NoTrans, 5, 2, 0, A.data(), 5, B.data(), 5), 0);  // nrhs = 0: nothing to do
}

TYPED_TEST(Gels, TinyAndHugeMatricesAreScaledLikeLapack) {
  using T = TypeParam;
  using R = real_t<T>;
  const R tiny = blas::small_number<T>() * R(1e-3);
  const R huge = R(1) / tiny;
  // (A, B) scales whose solution X ~ B / A is representable
  const std::pair<R, R> scales[] = {{tiny, tiny}, {huge, huge}, {tiny, R(1)}, {R(1), tiny}, {huge, R(1)}, {R(1), huge}};
  for (auto [a_scale, b_scale] : scales)
      for (auto [m, n] : {std::pair<int64_t, int64_t>{70, 30}, {30, 70}}) {
        SCOPED_TRACE("m=" + std::to_string(m) + " a_scale=" + std::to_string(a_scale) +
                     " b_scale=" + std::to_string(b_scale));
        const int64_t p = std::max(m, n), nrhs = 2;
        auto A = bench::random_matrix<T>(m, n, m, 12);
        auto B = bench::random_matrix<T>(p, nrhs, p, 13);
        for (auto& v : A) v *= a_scale;
        for (auto& v : B) v *= b_scale;
        auto Al = A, Bl = B;
        ASSERT_EQ(gels<T>(Op::NoTrans, m, n, nrhs, A.data(), m, B.data(), p, {16}), 0);
        ASSERT_EQ(blas::gels(Op::NoTrans, m, n, nrhs, Al.data(), m, Bl.data(), p), 0);
        for (T v : B) ASSERT_TRUE(std::isfinite(std::abs(v)));
        EXPECT_LT(bench::relative_difference(n, nrhs, B.data(), p, Bl.data(), p, p), kThreshold);
      }
}

TYPED_TEST(Gels, TileMatrixApi) {
  using T = TypeParam;
  for (auto [m, n] : {std::pair<int64_t, int64_t>{100, 45}, {45, 100}}) {
    const int64_t p = std::max(m, n), nrhs = 3, nb = 16;
    const auto A0 = bench::random_matrix<T>(m, n, m, 31);
    const auto B0 = bench::random_matrix<T>(p, nrhs, p, 32);
    Matrix<T> A(m, n, nb), B(p, nrhs, nb);
    A.copy_from(A0.data(), m);
    B.copy_from(B0.data(), p);
    ASSERT_EQ(gels(Op::NoTrans, A, B), 0);
    std::vector<T> X(B0.size()), Al = A0, Bl = B0;
    B.copy_to(X.data(), p);
    ASSERT_EQ(blas::gels(Op::NoTrans, m, n, nrhs, Al.data(), m, Bl.data(), p), 0);
    EXPECT_LT(bench::relative_difference(n, nrhs, X.data(), p, Bl.data(), p, p), kThreshold);
  }
}

template <typename Fn> void expect_arg(int arg, Fn&& fn) {
  try {
    fn();
    ADD_FAILURE() << "expected ArgumentError for argument " << arg;
  } catch (const ArgumentError& e) {
    EXPECT_EQ(e.arg(), arg) << e.what();
  }
}

TYPED_TEST(Gels, InvalidArguments) {
  using T = TypeParam;
  std::vector<T> A(100, T(1)), B(100, T(1));
  expect_arg(1, [&] { gels<T>(static_cast<Op>('X'), 5, 5, 1, A.data(), 5, B.data(), 5); });
  if constexpr (is_complex_v<T>) expect_arg(1, [&] { gels<T>(Op::Trans, 5, 5, 1, A.data(), 5, B.data(), 5); });
  expect_arg(2, [&] { gels<T>(Op::NoTrans, -1, 5, 1, A.data(), 5, B.data(), 5); });
  expect_arg(3, [&] { gels<T>(Op::NoTrans, 5, -1, 1, A.data(), 5, B.data(), 5); });
  expect_arg(4, [&] { gels<T>(Op::NoTrans, 5, 5, -1, A.data(), 5, B.data(), 5); });
  expect_arg(5, [&] { gels<T>(Op::NoTrans, 5, 5, 1, nullptr, 5, B.data(), 5); });
  expect_arg(6, [&] { gels<T>(Op::NoTrans, 5, 5, 1, A.data(), 4, B.data(), 5); });
  expect_arg(7, [&] { gels<T>(Op::NoTrans, 5, 5, 1, A.data(), 5, nullptr, 5); });
  expect_arg(8, [&] { gels<T>(Op::NoTrans, 4, 6, 1, A.data(), 4, B.data(), 5); });  // ldb < max(m, n)
  Matrix<T> Am(6, 4, 4), Bm(4, 1, 4), Bn(6, 1, 8);
  expect_arg(7, [&] { gels(Op::NoTrans, Am, Bm); });  // B needs max(m, n) rows
  expect_arg(7, [&] { gels(Op::NoTrans, Am, Bn); });  // and A's tile size
}

}  // namespace
}  // namespace hetla
