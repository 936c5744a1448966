// Distributed QR (mpi::geqrf / unmqr / gels) under mpirun, in the same
// executable as test_mpi.cc (run with 1, 2 and 4 processes): every grid the
// communicator allows, ragged and m != n shapes; tau whole on every process
// (LAPACK's to rounding); ||A - Q R||, the orthogonality of Q formed by
// unmqr, C Q by unmqr from the right, the least squares optimality and
// minimum norm solutions of gels (every trans), checked on rank 0 with the
// single-process thresholds and against LAPACK's gels.
#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <string>
#include <vector>

#include "checks.hpp"
#include "checks_qr.hpp"
#include "kernels/host/blas.hpp"
#include "kernels/host/lapack_qr.hpp"
#include "matgen.hpp"
#include "mpi/grid.hpp"
#include "mpi/routines.hpp"
#include "mpi_support.hpp"

using namespace hetla;

namespace {

using hetla_mpi_test::grids;
using hetla_mpi_test::PrecisionName;
using hetla_mpi_test::Precisions;

template <typename T> class MpiQr : public ::testing::Test {};
TYPED_TEST_SUITE(MpiQr, Precisions, PrecisionName);

std::string where(int64_t m, int64_t n, int p, int q) {
  return std::to_string(m) + "x" + std::to_string(n) + " on " + std::to_string(p) + "x" + std::to_string(q);
}

// Square ragged, tall, wide, one tile, one tile row: the factor's residual,
// tau as LAPACK's on every process, and Q (unmqr of the identity's first k
// columns) orthonormal.
TYPED_TEST(MpiQr, GeqrfUnmqrEveryGrid) {
  using T = TypeParam;
  struct Shape {
    int64_t m, n;
  };
  for (const Shape s : {Shape{100, 100}, Shape{173, 101}, Shape{90, 141}, Shape{20, 20}, Shape{20, 100}})
    for (auto [p, q] : grids()) {
      SCOPED_TRACE(where(s.m, s.n, p, q));
      const int64_t nb = 32, k = std::min(s.m, s.n);
      mpi::Grid g(p, q);
      const auto A0 = bench::random_matrix<T>(s.m, s.n, s.m, 41 + s.m);
      mpi::DistMatrix<T> A(g, s.m, s.n, nb);
      A.scatter(A0.data(), s.m);
      std::vector<T> tau;
      mpi::geqrf(A, tau);
      ASSERT_EQ(static_cast<int64_t>(tau.size()), k);
      auto L = A0;  // LAPACK's tau, on every process
      std::vector<T> ltau(static_cast<std::size_t>(k));
      blas::geqrf(s.m, s.n, L.data(), s.m, ltau.data());
      EXPECT_LT(bench::relative_difference(k, 1, tau.data(), k, ltau.data(), k, std::max(s.m, s.n)),
                bench::kResidualThreshold);
      std::vector<T> F(static_cast<std::size_t>(s.m * s.n));
      A.gather(F.data(), s.m);
      if (g.rank() == 0) {
        EXPECT_LT(bench::qr_residual(s.m, s.n, A0.data(), s.m, F.data(), s.m, tau.data()), bench::kResidualThreshold);
      }
      // Q = Q [I_k; 0]
      std::vector<T> I(static_cast<std::size_t>(s.m * k), T(0));
      for (int64_t i = 0; i < k; ++i) I[i + i * s.m] = T(1);
      mpi::DistMatrix<T> Q(g, s.m, k, nb);
      Q.scatter(I.data(), s.m);
      mpi::unmqr(Side::Left, Op::NoTrans, k, A, tau, Q);
      std::vector<T> Qd(static_cast<std::size_t>(s.m * k));
      Q.gather(Qd.data(), s.m);
      if (g.rank() == 0) {
        EXPECT_LT(bench::orthogonality_residual(s.m, k, Qd.data(), s.m), bench::kResidualThreshold);
      }
    }
}

// C Q^H and C Q from the right (W per tile row of C), against C times the Q
// formed from the left.
TEST(MpiQrRight, UnmqrRightMatchesExplicitQ) {
  using T = std::complex<double>;
  const int64_t m = 130, n = 70, r = 45, nb = 32;
  const auto A0 = bench::random_matrix<T>(m, n, m, 51);
  const auto C0 = bench::random_matrix<T>(r, m, r, 52);
  for (auto [p, q] : grids()) {
    SCOPED_TRACE(where(m, n, p, q));
    mpi::Grid g(p, q);
    mpi::DistMatrix<T> A(g, m, n, nb), Q(g, m, m, nb), C(g, r, m, nb);
    A.scatter(A0.data(), m);
    std::vector<T> tau;
    mpi::geqrf(A, tau);
    std::vector<T> I(static_cast<std::size_t>(m * m), T(0));
    for (int64_t i = 0; i < m; ++i) I[i + i * m] = T(1);
    Q.scatter(I.data(), m);
    mpi::unmqr(Side::Left, Op::NoTrans, n, A, tau, Q);  // the whole m x m Q
    std::vector<T> Qd(static_cast<std::size_t>(m * m));
    Q.gather(Qd.data(), m);
    for (Op op : {Op::NoTrans, Op::ConjTrans}) {
      C.scatter(C0.data(), r);
      mpi::unmqr(Side::Right, op, n, A, tau, C);
      std::vector<T> X(static_cast<std::size_t>(r * m));
      C.gather(X.data(), r);
      if (g.rank() != 0) continue;
      std::vector<T> Y(static_cast<std::size_t>(r * m));
      blas::gemm(Op::NoTrans, op, r, m, m, T(1), C0.data(), r, Qd.data(), m, T(0), Y.data(), r);
      EXPECT_LT(bench::relative_difference(r, m, X.data(), r, Y.data(), r, m), bench::kResidualThreshold);
    }
  }
}

// Least squares: m > n ragged (a tile straddles row n) and m = n, several
// right-hand sides; info 0 on every process.
TYPED_TEST(MpiQr, GelsLeastSquaresEveryGrid) {
  using T = TypeParam;
  struct Shape {
    int64_t m, n, nrhs;
  };
  for (const Shape s : {Shape{163, 75, 3}, Shape{96, 96, 40}, Shape{50, 20, 1}})
    for (auto [p, q] : grids()) {
      SCOPED_TRACE(where(s.m, s.n, p, q));
      const int64_t nb = 32;
      mpi::Grid g(p, q);
      const auto A0 = bench::random_matrix<T>(s.m, s.n, s.m, 61);
      const auto B0 = bench::random_matrix<T>(s.m, s.nrhs, s.m, 62);
      mpi::DistMatrix<T> A(g, s.m, s.n, nb), B(g, s.m, s.nrhs, nb);
      A.scatter(A0.data(), s.m);
      B.scatter(B0.data(), s.m);
      EXPECT_EQ(mpi::gels(Op::NoTrans, A, B), 0);
      std::vector<T> X(static_cast<std::size_t>(s.m * s.nrhs));
      B.gather(X.data(), s.m);
      if (g.rank() == 0) {
        EXPECT_LT(bench::least_squares_residual(Op::NoTrans, s.m, s.n, s.nrhs, A0.data(), s.m, X.data(), s.m,
                                                B0.data(), s.m),
                  bench::kResidualThreshold);
      }
    }
}

// LAPACK's scaling: A and B times s (tiny or huge) give the same X; a zero
// A gives X = 0.
TEST(MpiQrGels, ExtremeNormsScaled) {
  const int64_t m = 90, n = 50, nrhs = 2, nb = 32;
  const auto A0 = bench::random_matrix<double>(m, n, m, 81);
  const auto B0 = bench::random_matrix<double>(m, nrhs, m, 82);
  for (auto [p, q] : grids()) {
    SCOPED_TRACE(std::to_string(p) + "x" + std::to_string(q));
    mpi::Grid g(p, q);
    std::vector<double> X[3];
    int c = 0;
    for (double s : {1.0, 1e-300, 1e300}) {
      auto As = A0, Bs = B0;
      for (auto& v : As) v *= s;
      for (auto& v : Bs) v *= s;
      mpi::DistMatrix<double> A(g, m, n, nb), B(g, m, nrhs, nb);
      A.scatter(As.data(), m);
      B.scatter(Bs.data(), m);
      EXPECT_EQ(mpi::gels(Op::NoTrans, A, B), 0);
      X[c].resize(static_cast<std::size_t>(m * nrhs));
      B.gather(X[c].data(), m);
      ++c;
    }
    if (g.rank() == 0) {
      EXPECT_LT(bench::least_squares_residual(Op::NoTrans, m, n, nrhs, A0.data(), m, X[0].data(), m, B0.data(), m),
                bench::kResidualThreshold);
      for (int k = 1; k < 3; ++k)
        EXPECT_LT(bench::relative_difference(n, nrhs, X[k].data(), m, X[0].data(), m, m), bench::kResidualThreshold);
    }
    std::vector<double> Z(static_cast<std::size_t>(m * n), 0.0);
    mpi::DistMatrix<double> A(g, m, n, nb), B(g, m, nrhs, nb);
    A.scatter(Z.data(), m);
    B.scatter(B0.data(), m);
    EXPECT_EQ(mpi::gels(Op::NoTrans, A, B), 0);
    std::vector<double> X0(static_cast<std::size_t>(m * nrhs), 1.0);
    B.gather(X0.data(), m);
    if (g.rank() == 0) {
      for (double v : X0) ASSERT_EQ(v, 0.0);
    }
  }
}

// The same scaling for minimum norm solutions (A wide, or A^T of a tall A):
// B's significant rows are op(A)'s, the solution's all max(m, n).
TEST(MpiQrGels, ExtremeNormsScaledMinimumNorm) {
  struct Case {
    int64_t m, n;
    Op op;
  };
  const int64_t nrhs = 2, nb = 32;
  for (const Case c : {Case{50, 90, Op::NoTrans}, Case{90, 50, Op::Trans}}) {
    const int64_t mx = std::max(c.m, c.n), rows = c.op == Op::NoTrans ? c.m : c.n;
    const auto A0 = bench::random_matrix<double>(c.m, c.n, c.m, 83);
    auto B0 = bench::random_matrix<double>(mx, nrhs, mx, 84);
    for (auto [p, q] : grids()) {
      SCOPED_TRACE(where(c.m, c.n, p, q) + " trans " + static_cast<char>(c.op));
      mpi::Grid g(p, q);
      std::vector<double> X[3];
      int k = 0;
      for (double s : {1.0, 1e-300, 1e300}) {
        auto As = A0, Bs = B0;
        for (auto& v : As) v *= s;
        for (int64_t j = 0; j < nrhs; ++j)
          for (int64_t i = 0; i < rows; ++i) Bs[i + j * mx] *= s;  // the rows past op(A)'s are not read
        mpi::DistMatrix<double> A(g, c.m, c.n, nb), B(g, mx, nrhs, nb);
        A.scatter(As.data(), c.m);
        B.scatter(Bs.data(), mx);
        EXPECT_EQ(mpi::gels(c.op, A, B), 0);
        X[k].resize(static_cast<std::size_t>(mx * nrhs));
        B.gather(X[k].data(), mx);
        ++k;
      }
      if (g.rank() != 0) continue;
      auto Al = A0, Bl = B0;
      ASSERT_EQ(blas::gels(c.op, c.m, c.n, nrhs, Al.data(), c.m, Bl.data(), mx), 0);
      for (int t = 0; t < 3; ++t)
        EXPECT_LT(bench::relative_difference(mx, nrhs, X[t].data(), mx, Bl.data(), mx, mx), bench::kResidualThreshold);
    }
  }
}

// The rest of LAPACK gels: m < n (minimum norm through the LQ of A) and
// op(A) = A^T / A^H, both over- and underdetermined, ragged. Against
// LAPACK's gels on rank 0: the residual (||op(A)^H r|| when op(A) is tall,
// ||B - op(A) X|| when wide), X itself (the minimum norm solution is unique:
// agreeing with LAPACK's is the minimum norm check) and A's QR / LQ storage.
TYPED_TEST(MpiQr, GelsMinimumNormAndAdjointEveryGrid) {
  using T = TypeParam;
  const Op adj = is_complex_v<T> ? Op::ConjTrans : Op::Trans;
  struct Case {
    int64_t m, n, nrhs;
    Op op;
  };
  for (const Case c : {Case{75, 163, 3, Op::NoTrans}, Case{20, 50, 1, Op::NoTrans}, Case{163, 75, 2, adj},
                       Case{70, 130, 3, adj}})
    for (auto [p, q] : grids()) {
      SCOPED_TRACE(where(c.m, c.n, p, q) + " trans " + static_cast<char>(c.op));
      const int64_t nb = 32, mx = std::max(c.m, c.n);
      const int64_t rows = c.op == Op::NoTrans ? c.m : c.n, cols = c.op == Op::NoTrans ? c.n : c.m;  // op(A)
      mpi::Grid g(p, q);
      const auto A0 = bench::random_matrix<T>(c.m, c.n, c.m, 91 + c.m);
      const auto B0 = bench::random_matrix<T>(mx, c.nrhs, mx, 92 + c.n);  // rows [0, rows) are B
      mpi::DistMatrix<T> A(g, c.m, c.n, nb), B(g, mx, c.nrhs, nb);
      A.scatter(A0.data(), c.m);
      B.scatter(B0.data(), mx);
      EXPECT_EQ(mpi::gels(c.op, A, B), 0);
      std::vector<T> X(static_cast<std::size_t>(mx * c.nrhs)), F(static_cast<std::size_t>(c.m * c.n));
      B.gather(X.data(), mx);
      A.gather(F.data(), c.m);
      if (g.rank() != 0) continue;
      if (rows >= cols) {
        EXPECT_LT(bench::least_squares_residual(c.op, c.m, c.n, c.nrhs, A0.data(), c.m, X.data(), mx, B0.data(), mx),
                  bench::kResidualThreshold);
      } else {
        std::vector<T> opA(static_cast<std::size_t>(rows * cols));  // op(A), rows x cols
        for (int64_t j = 0; j < cols; ++j)
          for (int64_t i = 0; i < rows; ++i)
            opA[i + j * rows] = c.op == Op::NoTrans ? A0[i + j * c.m] : conj(A0[j + i * c.m]);
        EXPECT_LT(bench::solve_residual(rows, cols, c.nrhs, opA.data(), rows, X.data(), mx, B0.data(), mx),
                  bench::kResidualThreshold);
      }
      // LAPACK's, on copies with room past their end: OpenBLAS 0.3.21's
      // zgemv_n_ZEN (zgelq2's zlarf) reads past the last column of A, which
      // the ASan build's heap turns into a SEGV.
      std::vector<T> Al(A0.size() + 4096), Bl(B0.size() + 4096);
      std::copy(A0.begin(), A0.end(), Al.begin());
      std::copy(B0.begin(), B0.end(), Bl.begin());
      ASSERT_EQ(blas::gels(c.op, c.m, c.n, c.nrhs, Al.data(), c.m, Bl.data(), mx), 0);
      EXPECT_LT(bench::relative_difference(cols, c.nrhs, X.data(), mx, Bl.data(), mx, mx), bench::kResidualThreshold);
      EXPECT_LT(bench::relative_difference(c.m, c.n, F.data(), c.m, Al.data(), c.m, mx), bench::kResidualThreshold);
    }
}

// A zero column (m >= n) or row (m < n) makes the triangular factor
// singular: the same info on every process, as LAPACK's; what LAPACK
// rejects (T for complex, B without max(m, n) rows) is an argument error on
// every process.
TEST(MpiQrGels, RankDeficientAndInvalid) {
  const int64_t m = 100, n = 60, nb = 32, zero = 40;
  auto A0 = bench::random_matrix<double>(m, n, m, 71);
  for (int64_t i = 0; i < m; ++i) A0[i + zero * m] = 0;
  auto W0 = bench::random_matrix<double>(n, m, n, 73);  // wide: a zero row
  for (int64_t j = 0; j < m; ++j) W0[zero + j * n] = 0;
  const auto B0 = bench::random_matrix<double>(m, 2, m, 72);
  for (auto [p, q] : grids()) {
    SCOPED_TRACE(std::to_string(p) + "x" + std::to_string(q));
    mpi::Grid g(p, q);
    mpi::DistMatrix<double> A(g, m, n, nb), B(g, m, 2, nb);
    A.scatter(A0.data(), m);
    B.scatter(B0.data(), m);
    EXPECT_EQ(mpi::gels(Op::NoTrans, A, B), zero + 1);
    for (Op op : {Op::NoTrans, Op::Trans}) {
      mpi::DistMatrix<double> W(g, n, m, nb), BW(g, m, 2, nb);
      W.scatter(W0.data(), n);
      BW.scatter(B0.data(), m);
      auto Wl = W0, Bl = B0;
      const int64_t info = mpi::gels(op, W, BW);
      EXPECT_EQ(info, zero + 1);
      EXPECT_EQ(info, blas::gels(op, n, m, 2, Wl.data(), n, Bl.data(), m));
    }
    mpi::DistMatrix<std::complex<double>> Ac(g, m, n, nb), Bc(g, m, 2, nb), Bs(g, n, 2, nb);
    EXPECT_THROW(mpi::gels(Op::Trans, Ac, Bc), ArgumentError);
    EXPECT_THROW(mpi::gels(Op::NoTrans, Ac, Bs), ArgumentError);
  }
}

}  // namespace
