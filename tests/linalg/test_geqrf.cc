// Householder QR (geqrf), forming Q (ungqr) and applying Q (unmqr) in the four
// precisions: LAPACK-style scaled residuals on every shape class, the factor
// against LAPACK's geqrf (same storage, equal up to rounding), Q and op(Q) C
// against LAPACK, the tile-matrix (owned, tile-contiguous) API, and argument
// checking with LAPACK's argument numbers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <cstdint>
#include <vector>

#include "checks_qr.hpp"
#include "hetla/hetla.hpp"
#include "kernels/host/lapack_qr.hpp"
#include "matgen.hpp"

namespace hetla {
namespace {

template <typename T> class Geqrf : public testing::Test {};
using Precisions = testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(Geqrf, Precisions);

constexpr double kThreshold = bench::kResidualThreshold;

struct Shape {
  int64_t m, n, pad, nb;  // pad: lda = max(1, m) + pad
};
// square (tile multiple and ragged), tall and wide (ragged), smaller than a
// tile, a single row / column, empty
const Shape kShapes[] = {{96, 96, 0, 32}, {100, 100, 3, 32}, {150, 70, 0, 32}, {70, 150, 2, 32},
                         {97, 83, 5, 16}, {83, 97, 0, 16},   {40, 20, 1, 64},  {20, 40, 0, 64},
                         {200, 24, 0, 16}, {24, 200, 0, 16}, {1, 1, 0, 16},    {33, 1, 0, 16},
                         {1, 33, 0, 16},  {0, 10, 0, 16},    {10, 0, 4, 16},   {0, 0, 0, 16},
                         // nb >= 128: the trailing update as larfb blocks on views
                         {600, 450, 3, 128}, {450, 600, 0, 128},
                         // tall (m >= 4 n, m >= 4096): the update in row blocks (LarfbWork::row_block),
                         // ragged blocks, a last panel narrower than its tile; and the wide transposes
                         {4500, 37, 3, 16}, {4200, 20, 1, 64}, {37, 4500, 2, 16}, {20, 4200, 0, 64},
                         // a last tile column one wide over several tiles: in tile storage its tiles
                         // follow each other with ld = mb (not one block: the panel is gathered)
                         {64, 17, 0, 8}};

std::string describe(const Shape& s) {
  return "m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) + " pad=" + std::to_string(s.pad) +
         " nb=" + std::to_string(s.nb);
}

template <typename T> struct Factor {
  std::vector<T> A, tau;
};
template <typename T> Factor<T> lapack_geqrf(int64_t m, int64_t n, const std::vector<T>& A, int64_t lda) {
  Factor<T> f{A, std::vector<T>(static_cast<std::size_t>(std::min(m, n)))};
  if (m > 0 && n > 0) blas::geqrf(m, n, f.A.data(), lda, f.tau.data());
  return f;
}

TYPED_TEST(Geqrf, FactorResidualAndMatchesLapack) {
  using T = TypeParam;
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(describe(s));
    const int64_t lda = std::max<int64_t>(1, s.m) + s.pad, k = std::min(s.m, s.n);
    const auto A0 = bench::random_matrix<T>(s.m, s.n, lda, 11 + s.m * 7 + s.n);
    auto A = A0;
    std::vector<T> tau(static_cast<std::size_t>(k), T(-7));
    geqrf<T>(s.m, s.n, A.data(), lda, tau.data(), {s.nb});
    EXPECT_LT(bench::qr_residual(s.m, s.n, A0.data(), lda, A.data(), lda, tau.data()), kThreshold);

    // Same Householder convention as LAPACK: R, V and tau agree up to rounding.
    const auto ref = lapack_geqrf(s.m, s.n, A0, lda);
    EXPECT_LT(bench::relative_difference(s.m, s.n, A.data(), lda, ref.A.data(), lda, std::max(s.m, s.n)),
              kThreshold);
    EXPECT_LT(bench::relative_difference(k, 1, tau.data(), std::max<int64_t>(k, 1), ref.tau.data(),
                                         std::max<int64_t>(k, 1), std::max(s.m, s.n)),
              kThreshold);
    // The padding rows below m are not touched.
    for (int64_t j = 0; j < s.n; ++j)
      for (int64_t i = s.m; i < lda; ++i) ASSERT_EQ(A[i + j * lda], A0[i + j * lda]);
  }
}

TYPED_TEST(Geqrf, TileMatrixMatchesColumnMajor) {
  using T = TypeParam;
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(describe(s));
    const int64_t lda = std::max<int64_t>(1, s.m), k = std::min(s.m, s.n);
    const auto A0 = bench::random_matrix<T>(s.m, s.n, lda, 5 + s.m + s.n);
    Matrix<T> M(s.m, s.n, s.nb);  // owned, tile-contiguous: panels are gathered
    M.copy_from(A0.data(), lda);
    std::vector<T> tau(static_cast<std::size_t>(k));
    geqrf(M, tau.data());
    std::vector<T> A(A0.size());
    M.copy_to(A.data(), lda);
    EXPECT_LT(bench::qr_residual(s.m, s.n, A0.data(), lda, A.data(), lda, tau.data()), kThreshold);

    auto B = A0;
    std::vector<T> tau2(static_cast<std::size_t>(k));
    geqrf<T>(s.m, s.n, B.data(), lda, tau2.data(), {s.nb});
    EXPECT_LT(bench::relative_difference(s.m, s.n, A.data(), lda, B.data(), lda, std::max(s.m, s.n)), kThreshold);
  }
}

TYPED_TEST(Geqrf, WithDefaultTileSize) {
  using T = TypeParam;
  const int64_t m = 300, n = 200;
  const auto A0 = bench::random_matrix<T>(m, n, m, 99);
  auto A = A0;
  std::vector<T> tau(static_cast<std::size_t>(n));
  geqrf<T>(m, n, A.data(), m, tau.data());
  EXPECT_LT(bench::qr_residual(m, n, A0.data(), m, A.data(), m, tau.data()), kThreshold);
}

TYPED_TEST(Geqrf, HardMatrices) {
  // Columns graded over 24 orders of magnitude, exact rank deficiency
  // (repeated and zero columns, also a whole zero first panel), and entries
  // near the overflow and underflow thresholds: the factorization stays
  // backward stable and Q orthonormal (panels of 32 columns: recursive panels
  // with several leaves).
  using T = TypeParam;
  using R = real_t<T>;
  const int64_t m = 150, n = 100, lda = m + 1, nb = 32;
  const auto base = bench::random_matrix<T>(m, n, lda, 77);
  auto graded = base, deficient = base, zero_panel = base, big = base, small = base;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      const auto at = static_cast<std::size_t>(i + j * lda);
      graded[at] *= T(std::pow(R(10), -R(std::is_same_v<R, float> ? 6 : 24) * R(j) / R(n)));
      if (j % 3 == 2) deficient[at] = j % 2 ? T(0) : deficient[at - static_cast<std::size_t>(lda)];
      if (j < nb) zero_panel[at] = T(0);
      big[at] *= T(std::numeric_limits<R>::max() / R(16 * m));
      small[at] *= T(std::numeric_limits<R>::min() * R(1 << 20));
    }
  const std::pair<const char*, const std::vector<T>*> cases[] = {
      {"graded", &graded}, {"rank deficient", &deficient}, {"zero first panel", &zero_panel},
      {"near overflow", &big}, {"near underflow", &small}};
  for (const auto& [name, A0] : cases) {
    SCOPED_TRACE(name);
    auto A = *A0;
    std::vector<T> tau(static_cast<std::size_t>(n));
    geqrf<T>(m, n, A.data(), lda, tau.data(), {nb});
    for (const T& x : A) ASSERT_TRUE(std::isfinite(std::abs(x)));
    EXPECT_LT(bench::qr_residual(m, n, A0->data(), lda, A.data(), lda, tau.data()), kThreshold);
    std::vector<T> Q(static_cast<std::size_t>(m * n));
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < m; ++i) Q[i + j * m] = A[i + j * lda];
    blas::ungqr(m, n, n, Q.data(), m, tau.data());
    EXPECT_LT(bench::orthogonality_residual(m, n, Q.data(), m), kThreshold);
  }
}

// ---- ungqr

struct QShape {
  int64_t m, n, k, pad, nb;
};
const QShape kQShapes[] = {{96, 96, 96, 0, 32}, {100, 100, 100, 3, 32}, {150, 70, 70, 0, 32}, {150, 70, 45, 2, 32},
                           {97, 83, 20, 5, 16}, {40, 20, 20, 0, 64},    {200, 24, 24, 0, 16}, {90, 90, 0, 0, 16},
                           {33, 1, 1, 0, 16},   {1, 1, 1, 0, 16},       {10, 0, 0, 0, 16},    {0, 0, 0, 0, 16},
                           {600, 450, 300, 2, 128}};

TYPED_TEST(Geqrf, UngqrOrthonormalAndMatchesLapack) {
  using T = TypeParam;
  for (const QShape& s : kQShapes) {
    SCOPED_TRACE("m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) + " k=" + std::to_string(s.k) +
                 " nb=" + std::to_string(s.nb));
    const int64_t lda = std::max<int64_t>(1, s.m) + s.pad;
    // Reflectors of an m x k factorization, stored in the first k columns of A.
    const auto A0 = bench::random_matrix<T>(s.m, s.n, lda, 3 + s.m + s.k);
    auto F = lapack_geqrf(s.m, s.k, A0, lda);
    auto Q = F.A;
    ungqr<T>(s.m, s.n, s.k, Q.data(), lda, F.tau.data(), {s.nb});
    EXPECT_LT(bench::orthogonality_residual(s.m, s.n, Q.data(), lda), kThreshold);
    auto Qref = F.A;
    if (s.n > 0) blas::ungqr(s.m, s.n, s.k, Qref.data(), lda, F.tau.data());
    EXPECT_LT(bench::relative_difference(s.m, s.n, Q.data(), lda, Qref.data(), lda, s.m), kThreshold);

    // Tile-matrix API on owned storage.
    Matrix<T> M(s.m, s.n, s.nb);
    M.copy_from(F.A.data(), lda);
    ungqr(s.k, M, F.tau.data());
    std::vector<T> Q2(F.A.size());
    M.copy_to(Q2.data(), lda);
    EXPECT_LT(bench::relative_difference(s.m, s.n, Q2.data(), lda, Qref.data(), lda, s.m), kThreshold);
  }
}

TYPED_TEST(Geqrf, GeqrfThenUngqrReproducesA) {
  using T = TypeParam;
  const int64_t m = 130, n = 90, nb = 32;
  const auto A0 = bench::random_matrix<T>(m, n, m, 21);
  auto A = A0;
  std::vector<T> tau(n);
  geqrf<T>(m, n, A.data(), m, tau.data(), {nb});
  auto Q = A;
  ungqr<T>(m, n, n, Q.data(), m, tau.data(), {nb});
  EXPECT_LT(bench::orthogonality_residual(m, n, Q.data(), m), kThreshold);
  // A - Q R with hetla's own Q
  std::vector<T> R(static_cast<std::size_t>(n) * n, T(0));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i <= j; ++i) R[i + j * n] = A[i + j * m];
  auto D = A0;
  blas::gemm(Op::NoTrans, Op::NoTrans, m, n, n, T(-1), Q.data(), m, R.data(), n, T(1), D.data(), m);
  const double res = blas::lange('1', m, n, D.data(), m) / (m * blas::lange('1', m, n, A0.data(), m) * bench::eps<T>());
  EXPECT_LT(res, kThreshold);
}

// Tall and skinny: geqrf's row-block update, then ungqr and unmqr (whose
// updates take the same path) on hetla's factor.
TYPED_TEST(Geqrf, TallSkinnyFactorQAndApply) {
  using T = TypeParam;
  const Shape shapes[] = {{5000, 130, 0, 32}, {4100, 64, 5, 64}, {4097, 9, 0, 16}};
  for (const Shape& s : shapes) {
    SCOPED_TRACE(describe(s));
    const int64_t m = s.m, n = s.n, lda = m + s.pad;
    const auto A0 = bench::random_matrix<T>(m, n, lda, 3 + n);
    auto A = A0;
    std::vector<T> tau(static_cast<std::size_t>(n));
    geqrf<T>(m, n, A.data(), lda, tau.data(), {s.nb});
    EXPECT_LT(bench::qr_residual(m, n, A0.data(), lda, A.data(), lda, tau.data()), kThreshold);
    const auto ref = lapack_geqrf(m, n, A0, lda);
    EXPECT_LT(bench::relative_difference(m, n, A.data(), lda, ref.A.data(), lda, m), kThreshold);
    // Q^H A0 = R, then Q R = A0 (unmqr, C tall)
    auto C = A0;
    unmqr<T>(Side::Left, Op::ConjTrans, m, n, n, A.data(), lda, tau.data(), C.data(), lda, {s.nb});
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < m; ++i) {
        const T expect = i <= j ? A[i + j * lda] : T(0);
        ASSERT_LT(std::abs(C[i + j * lda] - expect), 100 * m * bench::eps<T>()) << i << "," << j;
      }
    unmqr<T>(Side::Left, Op::NoTrans, m, n, n, A.data(), lda, tau.data(), C.data(), lda, {s.nb});
    EXPECT_LT(bench::relative_difference(m, n, C.data(), lda, A0.data(), lda, m), kThreshold);
    // the explicit Q (ungqr) is orthonormal
    auto Q = A;
    ungqr<T>(m, n, n, Q.data(), lda, tau.data(), {s.nb});
    std::vector<T> Qc(static_cast<std::size_t>(m) * n);
    for (int64_t j = 0; j < n; ++j) std::copy_n(Q.data() + j * lda, m, Qc.data() + j * m);
    EXPECT_LT(bench::orthogonality_residual(m, n, Qc.data(), m), kThreshold);
  }
}

// ---- unmqr

struct CShape {
  int64_t m, n, k, pad, nb;  // C is m x n; k reflectors from the side's dimension
};
const CShape kCShapes[] = {{96, 64, 96, 0, 32}, {100, 37, 60, 3, 32}, {37, 100, 30, 2, 32}, {83, 83, 83, 0, 16},
                           {50, 20, 20, 1, 64}, {20, 50, 20, 0, 64},  {33, 5, 0, 0, 16},    {1, 1, 1, 0, 16},
                           {0, 7, 0, 0, 16},    {7, 0, 3, 0, 16},
                           {520, 400, 300, 1, 128}, {400, 520, 300, 0, 128}};

template <typename T> std::vector<Op> ops() {
  if constexpr (is_complex_v<T>) return {Op::NoTrans, Op::ConjTrans};
  else return {Op::NoTrans, Op::Trans, Op::ConjTrans};
}

TYPED_TEST(Geqrf, UnmqrMatchesExplicitQ) {
  using T = TypeParam;
  for (const CShape& s : kCShapes)
    for (Side side : {Side::Left, Side::Right})
      for (Op op : ops<T>()) {
        const int64_t nq = side == Side::Left ? s.m : s.n, k = std::min(s.k, nq);
        SCOPED_TRACE("m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) + " k=" + std::to_string(k) +
                     " side=" + static_cast<char>(side) + " op=" + static_cast<char>(op));
        const int64_t lda = std::max<int64_t>(1, nq) + s.pad, ldc = std::max<int64_t>(1, s.m) + s.pad;
        const auto A0 = bench::random_matrix<T>(nq, k, lda, 8 + nq + k);
        const auto F = lapack_geqrf(nq, k, A0, lda);
        // Explicit nq x nq Q = H_1 ... H_k
        std::vector<T> Q(static_cast<std::size_t>(nq) * std::max<int64_t>(nq, 1), T(0));
        for (int64_t j = 0; j < k; ++j)
          for (int64_t i = 0; i < nq; ++i) Q[i + j * nq] = F.A[i + j * lda];
        if (nq > 0) blas::ungqr(nq, nq, k, Q.data(), nq, F.tau.data());
        const auto C0 = bench::random_matrix<T>(s.m, s.n, ldc, 77 + s.m);
        std::vector<T> Cref(static_cast<std::size_t>(s.m) * s.n + 1, T(0));
        const Op qop = op == Op::NoTrans ? Op::NoTrans : Op::ConjTrans;
        if (s.m > 0 && s.n > 0) {
          if (side == Side::Left)
            blas::gemm(qop, Op::NoTrans, s.m, s.n, s.m, T(1), Q.data(), nq, C0.data(), ldc, T(0), Cref.data(), s.m);
          else
            blas::gemm(Op::NoTrans, qop, s.m, s.n, s.n, T(1), C0.data(), ldc, Q.data(), nq, T(0), Cref.data(), s.m);
        }
        auto C = C0;
        unmqr<T>(side, op, s.m, s.n, k, F.A.data(), lda, F.tau.data(), C.data(), ldc, {s.nb});
        EXPECT_LT(bench::relative_difference(s.m, s.n, C.data(), ldc, Cref.data(), std::max<int64_t>(1, s.m), nq),
                  kThreshold);
        for (int64_t j = 0; j < s.n; ++j)
          for (int64_t i = s.m; i < ldc; ++i) ASSERT_EQ(C[i + j * ldc], C0[i + j * ldc]);

        // Tile-matrix API on owned storage.
        Matrix<T> Am(nq, k, s.nb), Cm(s.m, s.n, s.nb);
        Am.copy_from(F.A.data(), lda);
        Cm.copy_from(C0.data(), ldc);
        unmqr(side, op, k, Am, F.tau.data(), Cm);
        std::vector<T> C2(C0.size());
        Cm.copy_to(C2.data(), ldc);
        EXPECT_LT(bench::relative_difference(s.m, s.n, C2.data(), ldc, Cref.data(), std::max<int64_t>(1, s.m), nq),
                  kThreshold);
      }
}

TYPED_TEST(Geqrf, UnmqrRoundTripOnHetlaFactor) {
  using T = TypeParam;
  const int64_t m = 120, n = 75, nb = 32;
  const auto A0 = bench::random_matrix<T>(m, n, m, 4);
  auto A = A0;
  std::vector<T> tau(n);
  geqrf<T>(m, n, A.data(), m, tau.data(), {nb});
  // Q^H A0 = R (zero below the diagonal up to rounding)
  auto C = A0;
  unmqr<T>(Side::Left, Op::ConjTrans, m, n, n, A.data(), m, tau.data(), C.data(), m, {nb});
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      const T expect = i <= j ? A[i + j * m] : T(0);
      ASSERT_LT(std::abs(C[i + j * m] - expect), 100 * m * bench::eps<T>()) << i << "," << j;
    }
  // Q (Q^H A0) = A0
  unmqr<T>(Side::Left, Op::NoTrans, m, n, n, A.data(), m, tau.data(), C.data(), m, {nb});
  EXPECT_LT(bench::relative_difference(m, n, C.data(), m, A0.data(), m, m), kThreshold);
}

// ---- arguments

template <typename Fn> void expect_arg(int arg, Fn&& fn) {
  try {
    fn();
    ADD_FAILURE() << "expected ArgumentError for argument " << arg;
  } catch (const ArgumentError& e) {
    EXPECT_EQ(e.arg(), arg) << e.what();
  }
}

TYPED_TEST(Geqrf, InvalidArguments) {
  using T = TypeParam;
  std::vector<T> A(100, T(1)), tau(10), C(100, T(1));
  expect_arg(1, [&] { geqrf<T>(-1, 5, A.data(), 5, tau.data()); });
  expect_arg(2, [&] { geqrf<T>(5, -1, A.data(), 5, tau.data()); });
  expect_arg(3, [&] { geqrf<T>(5, 5, nullptr, 5, tau.data()); });
  expect_arg(4, [&] { geqrf<T>(5, 5, A.data(), 4, tau.data()); });
  expect_arg(5, [&] { geqrf<T>(5, 5, A.data(), 5, nullptr); });

  expect_arg(1, [&] { unmqr<T>(static_cast<Side>('X'), Op::NoTrans, 5, 5, 5, A.data(), 5, tau.data(), C.data(), 5); });
  if constexpr (is_complex_v<T>)
    expect_arg(2, [&] { unmqr<T>(Side::Left, Op::Trans, 5, 5, 5, A.data(), 5, tau.data(), C.data(), 5); });
  expect_arg(2, [&] { unmqr<T>(Side::Left, static_cast<Op>('X'), 5, 5, 5, A.data(), 5, tau.data(), C.data(), 5); });
  expect_arg(3, [&] { unmqr<T>(Side::Left, Op::NoTrans, -1, 5, 0, A.data(), 5, tau.data(), C.data(), 5); });
  expect_arg(4, [&] { unmqr<T>(Side::Left, Op::NoTrans, 5, -1, 0, A.data(), 5, tau.data(), C.data(), 5); });
  expect_arg(5, [&] { unmqr<T>(Side::Left, Op::NoTrans, 5, 9, 6, A.data(), 9, tau.data(), C.data(), 5); });
  expect_arg(5, [&] { unmqr<T>(Side::Right, Op::NoTrans, 9, 5, 6, A.data(), 9, tau.data(), C.data(), 9); });
  expect_arg(7, [&] { unmqr<T>(Side::Left, Op::NoTrans, 5, 5, 5, A.data(), 4, tau.data(), C.data(), 5); });
  expect_arg(7, [&] { unmqr<T>(Side::Right, Op::NoTrans, 9, 5, 5, A.data(), 4, tau.data(), C.data(), 9); });
  expect_arg(10, [&] { unmqr<T>(Side::Right, Op::NoTrans, 9, 5, 5, A.data(), 5, tau.data(), C.data(), 5); });
  expect_arg(6, [&] { unmqr<T>(Side::Left, Op::NoTrans, 5, 5, 5, nullptr, 5, tau.data(), C.data(), 5); });
  expect_arg(8, [&] { unmqr<T>(Side::Left, Op::NoTrans, 5, 5, 5, A.data(), 5, nullptr, C.data(), 5); });
  expect_arg(9, [&] { unmqr<T>(Side::Left, Op::NoTrans, 5, 5, 5, A.data(), 5, tau.data(), nullptr, 5); });
  {
    Matrix<T> Am(6, 3, 4), Cm(6, 4, 8);
    expect_arg(9, [&] { unmqr(Side::Left, Op::NoTrans, 3, Am, tau.data(), Cm); });  // tile sizes differ
    Matrix<T> Cr(5, 4, 4);
    expect_arg(6, [&] { unmqr(Side::Left, Op::NoTrans, 3, Am, tau.data(), Cr); });  // A rows != m
  }

  expect_arg(1, [&] { ungqr<T>(-1, 0, 0, A.data(), 5, tau.data()); });
  expect_arg(2, [&] { ungqr<T>(5, 6, 0, A.data(), 5, tau.data()); });
  expect_arg(3, [&] { ungqr<T>(5, 4, 5, A.data(), 5, tau.data()); });
  expect_arg(3, [&] { ungqr<T>(5, 4, -1, A.data(), 5, tau.data()); });
  expect_arg(4, [&] { ungqr<T>(5, 4, 4, nullptr, 5, tau.data()); });
  expect_arg(5, [&] { ungqr<T>(5, 4, 4, A.data(), 4, tau.data()); });
  expect_arg(6, [&] { ungqr<T>(5, 4, 4, A.data(), 5, nullptr); });

  // Quick returns touch nothing.
  EXPECT_NO_THROW(geqrf<T>(0, 5, A.data(), 1, nullptr));
  EXPECT_NO_THROW(unmqr<T>(Side::Left, Op::NoTrans, 5, 5, 0, A.data(), 5, nullptr, C.data(), 5));
  EXPECT_NO_THROW(ungqr<T>(5, 0, 0, A.data(), 5, nullptr));
}

}  // namespace
}  // namespace hetla
