// LU with partial pivoting (getrf, getrs, gesv) in the four precisions:
// scaled residuals on every shape class, pivots and factors against LAPACK on
// matrices whose pivot choices are unambiguous, pivoting that matters,
// exactly singular matrices, and argument checking.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <vector>

#include "checks_lu.hpp"
#include "hetla/hetla.hpp"
#include "kernels/host/lapack_lu.hpp"
#include "matgen.hpp"
#include "context/context.hpp"

namespace hetla {
namespace {

template <typename T> class Getrf : public testing::Test {};
using Precisions = testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(Getrf, Precisions);

constexpr double kThreshold = bench::kResidualThreshold;

struct Shape {
  int64_t m, n, pad, nb;  // pad: lda = max(1, m) + pad
};
// square, tile multiples and ragged; tall and wide; smaller than a tile; a last
// tile column one wide; empty
const Shape kShapes[] = {{96, 96, 0, 32},  {100, 100, 3, 32}, {150, 70, 0, 32}, {70, 150, 2, 32},
                         {97, 83, 5, 16},  {83, 97, 0, 16},   {40, 20, 1, 64},  {20, 40, 0, 64},
                         {64, 64, 0, 64},  {1, 1, 0, 16},     {33, 1, 0, 16},   {1, 33, 0, 16},
                         {64, 33, 0, 16},  {0, 10, 0, 16},    {10, 0, 4, 16},   {0, 0, 0, 16}};

template <typename T> std::vector<int64_t> lapack_getrf(int64_t m, int64_t n, std::vector<T>& A, int64_t lda,
                                                         int64_t* info) {
  std::vector<lapack_int> p(static_cast<std::size_t>(std::min(m, n)));
  *info = blas::getrf(m, n, A.data(), lda, p.data());
  return std::vector<int64_t>(p.begin(), p.end());
}

/// A = P^T L0 U0 with |L0| <= 1/2 (in LAPACK's |re| + |im| measure) below a
/// unit diagonal and P from a random interchange sequence: partial pivoting
/// must choose exactly that sequence, by a factor-2 margin, whatever the
/// rounding. Off-diagonal entries are O(1/sqrt(n)) so that L0 and U0 are
/// well conditioned and two backward-stable factorizations agree to a few
/// n eps. Columns in `zero_cols` are exactly zero (a zero pivot there, no
/// interchange, no multipliers), so the factorization goes on unambiguously.
template <typename T> struct PivotedLU {
  std::vector<T> A;
  std::vector<int64_t> ipiv;
};
template <typename T>
PivotedLU<T> pivoted_lu_matrix(int64_t m, int64_t n, int64_t lda, uint64_t seed, std::vector<int64_t> zero_cols = {}) {
  const int64_t k = std::min(m, n);
  const real_t<T> uscale = real_t<T>(1) / std::sqrt(static_cast<real_t<T>>(std::max<int64_t>(k, 1)));
  const real_t<T> lscale = (is_complex_v<T> ? real_t<T>(0.25) : real_t<T>(0.5)) * uscale;
  std::mt19937_64 g(seed);
  auto is_zero = [&](int64_t j) { return std::find(zero_cols.begin(), zero_cols.end(), j) != zero_cols.end(); };
  std::vector<T> L(static_cast<std::size_t>(m * k), T(0)), U(static_cast<std::size_t>(k * n), T(0));
  for (int64_t j = 0; j < k; ++j) {
    L[j + j * m] = T(1);
    for (int64_t i = j + 1; i < m; ++i) L[i + j * m] = is_zero(j) ? T(0) : lscale * bench::random_scalar<T>(g);
  }
  for (int64_t j = 0; j < n; ++j) {
    if (is_zero(j)) continue;
    for (int64_t i = 0; i < std::min(j, k); ++i) U[i + j * k] = uscale * bench::random_scalar<T>(g);
    if (j < k) U[j + j * k] = T(2) + bench::random_scalar<T>(g);  // |U(j,j)| >= 1
  }
  PivotedLU<T> r;
  r.A.assign(static_cast<std::size_t>(lda * n), T(0));
  if (m > 0 && n > 0 && k > 0)
    blas::gemm(Op::NoTrans, Op::NoTrans, m, n, k, T(1), L.data(), m, U.data(), k, T(0), r.A.data(), lda);
  r.ipiv.resize(static_cast<std::size_t>(k));
  for (int64_t i = 0; i < k; ++i)
    r.ipiv[i] = is_zero(i) ? i + 1 : std::uniform_int_distribution<int64_t>(i, m - 1)(g) + 1;
  for (int64_t i = k - 1; i >= 0; --i)  // A = S_0 S_1 ... S_{k-1} (L0 U0)
    for (int64_t j = 0; j < n; ++j) std::swap(r.A[i + j * lda], r.A[r.ipiv[i] - 1 + j * lda]);
  return r;
}

/// max |F - G| / max |G| over the m x n leading parts.
template <typename T> double relative_difference(int64_t m, int64_t n, const T* F, const T* G, int64_t ld) {
  double diff = 0, scale = 0;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      diff = std::max<double>(diff, std::abs(F[i + j * ld] - G[i + j * ld]));
      scale = std::max<double>(scale, std::abs(G[i + j * ld]));
    }
  return scale == 0 ? diff : diff / scale;
}
template <typename T> double factor_tolerance(int64_t n) { return static_cast<double>(n) * bench::eps<T>(); }

TYPED_TEST(Getrf, ColumnMajorAllShapes) {
  using T = TypeParam;
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(testing::Message() << s.m << " x " << s.n << " lda+" << s.pad << " nb " << s.nb);
    const int64_t lda = std::max<int64_t>(1, s.m) + s.pad;
    auto A = bench::random_matrix<T>(s.m, s.n, lda, 11 + s.m * 7 + s.n);
    for (int64_t j = 0; j < s.n; ++j)  // padding rows must stay untouched
      for (int64_t i = s.m; i < lda; ++i) A[i + j * lda] = T(7);
    auto F = A;
    std::vector<int64_t> ipiv(static_cast<std::size_t>(std::min(s.m, s.n)), -1);
    EXPECT_EQ(getrf(s.m, s.n, F.data(), lda, ipiv.data(), {s.nb}), 0);
    EXPECT_LT(bench::getrf_residual(s.m, s.n, A.data(), lda, F.data(), lda, ipiv.data()), kThreshold);
    for (int64_t i = 0; i < std::min(s.m, s.n); ++i) {
      EXPECT_GE(ipiv[i], i + 1);
      EXPECT_LE(ipiv[i], s.m);
    }
    for (int64_t j = 0; j < s.n; ++j)
      for (int64_t i = s.m; i < lda; ++i) ASSERT_EQ(F[i + j * lda], T(7));
  }
}

TYPED_TEST(Getrf, TileMatrixAllShapes) {
  using T = TypeParam;
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(testing::Message() << s.m << " x " << s.n << " nb " << s.nb);
    const int64_t ld = std::max<int64_t>(1, s.m);
    auto A = bench::random_matrix<T>(s.m, s.n, ld, 5 + s.m * 3 + s.n);
    Matrix<T> M(s.m, s.n, s.nb);
    M.copy_from(A.data(), ld);
    std::vector<int64_t> ipiv;
    EXPECT_EQ(getrf(M, ipiv), 0);
    ASSERT_EQ(static_cast<int64_t>(ipiv.size()), std::min(s.m, s.n));
    std::vector<T> F(A.size());
    M.copy_to(F.data(), ld);
    EXPECT_LT(bench::getrf_residual(s.m, s.n, A.data(), ld, F.data(), ld, ipiv.data()), kThreshold);
  }
}

TYPED_TEST(Getrf, PivotsAndFactorsMatchLapack) {
  using T = TypeParam;
  const Shape shapes[] = {{120, 120, 0, 32}, {130, 75, 3, 16}, {75, 130, 0, 16}, {50, 50, 0, 64}};
  for (const Shape& s : shapes) {
    SCOPED_TRACE(testing::Message() << s.m << " x " << s.n << " nb " << s.nb);
    const int64_t lda = s.m + s.pad;
    auto gen = pivoted_lu_matrix<T>(s.m, s.n, lda, 42 + s.m);
    auto F = gen.A, G = gen.A;
    std::vector<int64_t> ipiv(static_cast<std::size_t>(std::min(s.m, s.n)));
    EXPECT_EQ(getrf(s.m, s.n, F.data(), lda, ipiv.data(), {s.nb}), 0);
    int64_t linfo = -1;
    auto lpiv = lapack_getrf(s.m, s.n, G, lda, &linfo);
    EXPECT_EQ(linfo, 0);
    EXPECT_EQ(lpiv, gen.ipiv);  // the generator's sequence is the only valid choice
    EXPECT_EQ(ipiv, lpiv);
    EXPECT_LT(relative_difference(s.m, s.n, F.data(), G.data(), lda), factor_tolerance<T>(std::max(s.m, s.n)));
    EXPECT_LT(bench::getrf_residual(s.m, s.n, gen.A.data(), lda, F.data(), lda, ipiv.data()), kThreshold);
  }
}

// Without pivoting these fail outright (zero diagonal) or lose every digit
// (tiny diagonal: multipliers of order 1/eps^2).
TYPED_TEST(Getrf, PivotingMatters) {
  using T = TypeParam;
  const int64_t n = 100, nb = 16;
  const real_t<T> diag_scale[] = {0, static_cast<real_t<T>>(bench::eps<T>() * bench::eps<T>())};
  for (real_t<T> d : diag_scale) {
    SCOPED_TRACE(testing::Message() << "diagonal scale " << d);
    auto A = bench::random_matrix<T>(n, n, n, 99);
    for (int64_t i = 0; i < n; ++i) A[i + i * n] *= d;
    auto F = A;
    std::vector<int64_t> ipiv(n);
    EXPECT_EQ(getrf(n, n, F.data(), n, ipiv.data(), {nb}), 0);
    EXPECT_LT(bench::getrf_residual(n, n, A.data(), n, F.data(), n, ipiv.data()), kThreshold);
    EXPECT_NE(ipiv[0], 1);
    // Partial pivoting bounds the multipliers by 1 in LAPACK's |re| + |im|.
    const double bound = (is_complex_v<T> ? std::sqrt(2.0) : 1.0) * (1 + 4 * bench::eps<T>());
    double lmax = 0;
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = j + 1; i < n; ++i) lmax = std::max<double>(lmax, std::abs(F[i + j * n]));
    EXPECT_LE(lmax, bound);
  }
}

TYPED_TEST(Getrf, SingularMatchesLapack) {
  using T = TypeParam;
  struct Case {
    int64_t m, n, nb;
    std::vector<int64_t> zero_cols;
  };
  const Case cases[] = {{90, 90, 16, {37, 50}},  // inside a tile; only the first counts
                        {90, 90, 16, {32}},      // first column of a tile
                        {90, 90, 16, {89}},      // last column
                        {100, 60, 16, {0}},      // tall, first column
                        {60, 100, 16, {47, 59}}, // wide, in the last panel
                        {64, 64, 64, {20}}};     // one tile
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << c.m << " x " << c.n << " zero column " << c.zero_cols[0]);
    auto gen = pivoted_lu_matrix<T>(c.m, c.n, c.m, 7 + c.n, c.zero_cols);
    auto F = gen.A, G = gen.A;
    std::vector<int64_t> ipiv(static_cast<std::size_t>(std::min(c.m, c.n)));
    const int64_t info = getrf(c.m, c.n, F.data(), c.m, ipiv.data(), {c.nb});
    int64_t linfo = -1;
    auto lpiv = lapack_getrf(c.m, c.n, G, c.m, &linfo);
    EXPECT_EQ(info, c.zero_cols[0] + 1);
    EXPECT_EQ(info, linfo);
    // the factorization was completed past the zero pivot, as LAPACK does
    EXPECT_EQ(ipiv, lpiv);
    EXPECT_LT(relative_difference(c.m, c.n, F.data(), G.data(), c.m), factor_tolerance<T>(std::max(c.m, c.n)));
    EXPECT_LT(bench::getrf_residual(c.m, c.n, gen.A.data(), c.m, F.data(), c.m, ipiv.data()), kThreshold);
  }
  // the zero matrix: every pivot is zero, no interchanges
  const int64_t n = 40;
  std::vector<T> Z(static_cast<std::size_t>(n * n), T(0));
  std::vector<int64_t> ipiv(n);
  EXPECT_EQ(getrf(n, n, Z.data(), n, ipiv.data(), {16}), 1);
  for (int64_t i = 0; i < n; ++i) EXPECT_EQ(ipiv[i], i + 1);
  for (const T& z : Z) EXPECT_EQ(z, T(0));
}

/// op(A) as an explicit n x n matrix (ld n).
template <typename T> std::vector<T> apply_op(Op op, int64_t n, const T* A, int64_t lda) {
  std::vector<T> B(static_cast<std::size_t>(n * n));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < n; ++i)
      B[i + j * n] = op == Op::NoTrans ? A[i + j * lda] : op == Op::Trans ? A[j + i * lda] : conj(A[j + i * lda]);
  return B;
}

TYPED_TEST(Getrf, GetrsEveryTrans) {
  using T = TypeParam;
  struct Case {
    int64_t n, nrhs, nb, pad;
  };
  const Case cases[] = {{100, 7, 32, 3}, {83, 40, 16, 0}, {20, 3, 64, 1}, {1, 1, 16, 0}};
  for (const Case& c : cases)
    for (Op op : {Op::NoTrans, Op::Trans, Op::ConjTrans}) {
      SCOPED_TRACE(testing::Message() << "n " << c.n << " nrhs " << c.nrhs << " op " << static_cast<char>(op));
      const int64_t lda = c.n + c.pad, ldb = c.n + 2;
      auto A = bench::random_matrix<T>(c.n, c.n, lda, 3 + c.n);
      auto B = bench::random_matrix<T>(c.n, c.nrhs, ldb, 4 + c.n);
      auto F = A, X = B;
      std::vector<int64_t> ipiv(c.n);
      ASSERT_EQ(getrf(c.n, c.n, F.data(), lda, ipiv.data(), {c.nb}), 0);
      getrs(op, c.n, c.nrhs, F.data(), lda, ipiv.data(), X.data(), ldb, {c.nb});
      auto opA = apply_op(op, c.n, A.data(), lda);
      EXPECT_LT(bench::solve_residual(c.n, c.n, c.nrhs, opA.data(), c.n, X.data(), ldb, B.data(), ldb), kThreshold);

      // tile matrices (owned storage) give the same solution
      Matrix<T> Fm(c.n, c.n, c.nb), Xm(c.n, c.nrhs, c.nb);
      Fm.copy_from(F.data(), lda);
      Xm.copy_from(B.data(), ldb);
      getrs(op, Fm, ipiv, Xm);
      std::vector<T> Y(B.size());
      Xm.copy_to(Y.data(), ldb);
      EXPECT_LT(bench::solve_residual(c.n, c.n, c.nrhs, opA.data(), c.n, Y.data(), ldb, B.data(), ldb), kThreshold);
    }
}

TYPED_TEST(Getrf, Gesv) {
  using T = TypeParam;
  const int64_t n = 90, nrhs = 5, nb = 16, lda = 93, ldb = 91;
  auto A = bench::random_matrix<T>(n, n, lda, 21);
  auto B = bench::random_matrix<T>(n, nrhs, ldb, 22);
  auto F = A, X = B;
  std::vector<int64_t> ipiv(n);
  EXPECT_EQ(gesv(n, nrhs, F.data(), lda, ipiv.data(), X.data(), ldb, {nb}), 0);
  EXPECT_LT(bench::solve_residual(n, n, nrhs, A.data(), lda, X.data(), ldb, B.data(), ldb), kThreshold);
  EXPECT_LT(bench::getrf_residual(n, n, A.data(), lda, F.data(), lda, ipiv.data()), kThreshold);

  Matrix<T> Am(n, n, nb), Bm(n, nrhs, nb);
  Am.copy_from(A.data(), lda);
  Bm.copy_from(B.data(), ldb);
  std::vector<int64_t> ipiv2;
  EXPECT_EQ(gesv(Am, ipiv2, Bm), 0);
  Bm.copy_to(X.data(), ldb);
  EXPECT_LT(bench::solve_residual(n, n, nrhs, A.data(), lda, X.data(), ldb, B.data(), ldb), kThreshold);

  // singular: info from getrf, B untouched
  for (int64_t i = 0; i < n; ++i) A[i + 30 * lda] = T(0);
  F = A, X = B;
  EXPECT_EQ(gesv(n, nrhs, F.data(), lda, ipiv.data(), X.data(), ldb, {nb}), 31);
  EXPECT_EQ(X, B);
}

// Tile tasks placed on emulated accelerators (own memory, explicit copies)
// next to the host-only panel and interchange tasks: same pivots, same
// accuracy, under dynamic and static scheduling and with evictions.
TYPED_TEST(Getrf, WithAccelerators) {
  using T = TypeParam;
  struct Mix {
    const char* devices;
    Schedule schedule;
  };
  for (Mix mix : {Mix{"cpu,emu", Schedule::Dynamic}, Mix{"emu", Schedule::Dynamic},
                  Mix{"cpu,emu:speed=1,emu:speed=0.5", Schedule::Static}, Mix{"cpu,emu:mem=64K", Schedule::Dynamic}}) {
    SCOPED_TRACE(mix.devices);
    Config c;
    c.devices = mix.devices;
    c.schedule = mix.schedule;
    init(c);
    {
      detail::CallScope scope;
      scope.rt().reset_stats();
    }
    const int64_t m = 150, n = 130, nb = 32, nrhs = 3;
    auto gen = pivoted_lu_matrix<T>(m, n, m, 77);
    auto F = gen.A;
    std::vector<int64_t> ipiv(n);
    EXPECT_EQ(getrf(m, n, F.data(), m, ipiv.data(), {nb}), 0);
    EXPECT_EQ(ipiv, gen.ipiv);
    EXPECT_LT(bench::getrf_residual(m, n, gen.A.data(), m, F.data(), m, ipiv.data()), kThreshold);

    auto A = bench::random_matrix<T>(n, n, n, 78);
    auto B = bench::random_matrix<T>(n, nrhs, n, 79);
    auto G = A, X = B;
    EXPECT_EQ(gesv(n, nrhs, G.data(), n, ipiv.data(), X.data(), n, {nb}), 0);
    EXPECT_LT(bench::solve_residual(n, n, nrhs, A.data(), n, X.data(), n, B.data(), n), kThreshold);
    X = B;
    getrs(Op::ConjTrans, n, nrhs, G.data(), n, ipiv.data(), X.data(), n, {nb});
    auto AH = A;
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < n; ++i) AH[i + j * n] = conj(A[j + i * n]);
    EXPECT_LT(bench::solve_residual(n, n, nrhs, AH.data(), n, X.data(), n, B.data(), n), kThreshold);
    detail::CallScope scope;
    const auto stats = scope.rt().stats();
    uint64_t accelerator_tasks = 0;
    for (std::size_t d = 1; d < stats.size(); ++d) accelerator_tasks += stats[d].tasks;
    EXPECT_GT(accelerator_tasks, 0u);
  }
  finalize();
}

template <typename F> int argument_of(F&& f) {
  try {
    f();
  } catch (const ArgumentError& e) {
    return e.arg();
  }
  return 0;
}

TYPED_TEST(Getrf, InvalidArguments) {
  using T = TypeParam;
  std::vector<T> A(100, T(1)), B(100, T(1));
  std::vector<int64_t> ipiv(10, 1);
  T* a = A.data();
  T* b = B.data();
  int64_t* p = ipiv.data();
  EXPECT_EQ(argument_of([&] { getrf<T>(-1, 5, a, 5, p); }), 1);
  EXPECT_EQ(argument_of([&] { getrf<T>(5, -1, a, 5, p); }), 2);
  EXPECT_EQ(argument_of([&] { getrf<T>(5, 5, a, 4, p); }), 4);
  EXPECT_EQ(argument_of([&] { getrf<T>(5, 5, a, 5, nullptr); }), 5);
  EXPECT_EQ(argument_of([&] { getrf<T>(0, 5, a, 0, p); }), 4);  // lda >= 1 even when empty

  EXPECT_EQ(argument_of([&] { getrs<T>(static_cast<Op>('X'), 5, 1, a, 5, p, b, 5); }), 1);
  EXPECT_EQ(argument_of([&] { getrs<T>(Op::NoTrans, -1, 1, a, 5, p, b, 5); }), 2);
  EXPECT_EQ(argument_of([&] { getrs<T>(Op::NoTrans, 5, -1, a, 5, p, b, 5); }), 3);
  EXPECT_EQ(argument_of([&] { getrs<T>(Op::Trans, 5, 1, a, 4, p, b, 5); }), 5);
  EXPECT_EQ(argument_of([&] { getrs<T>(Op::NoTrans, 5, 1, a, 5, nullptr, b, 5); }), 6);
  EXPECT_EQ(argument_of([&] { getrs<T>(Op::ConjTrans, 5, 1, a, 5, p, b, 4); }), 8);

  EXPECT_EQ(argument_of([&] { gesv<T>(-1, 1, a, 5, p, b, 5); }), 1);
  EXPECT_EQ(argument_of([&] { gesv<T>(5, -1, a, 5, p, b, 5); }), 2);
  EXPECT_EQ(argument_of([&] { gesv<T>(5, 1, a, 4, p, b, 5); }), 4);
  EXPECT_EQ(argument_of([&] { gesv<T>(5, 1, a, 5, nullptr, b, 5); }), 5);
  EXPECT_EQ(argument_of([&] { gesv<T>(5, 1, a, 5, p, b, 4); }), 7);

  Matrix<T> sq(8, 8, 4), rect(8, 6, 4), rhs(8, 2, 4), rhs_nb(8, 2, 8), rhs_short(6, 2, 4);
  std::vector<int64_t> piv8(8, 1), piv4(4, 1);
  EXPECT_EQ(argument_of([&] { getrs<T>(static_cast<Op>('x'), sq, piv8, rhs); }), 1);
  EXPECT_EQ(argument_of([&] { getrs<T>(Op::NoTrans, rect, piv8, rhs); }), 4);
  EXPECT_EQ(argument_of([&] { getrs<T>(Op::NoTrans, sq, piv4, rhs); }), 6);
  EXPECT_EQ(argument_of([&] { getrs<T>(Op::NoTrans, sq, piv8, rhs_short); }), 7);
  EXPECT_EQ(argument_of([&] { getrs<T>(Op::NoTrans, sq, piv8, rhs_nb); }), 7);
  EXPECT_EQ(argument_of([&] { gesv<T>(rect, piv8, rhs); }), 3);
  EXPECT_EQ(argument_of([&] { gesv<T>(sq, piv8, rhs_short); }), 6);
}

}  // namespace
}  // namespace hetla
