// Distributed QR (mpi::geqrf / unmqr / gels) under mpirun, in the same
// executable as test_mpi.cc (run with 1, 2 and 4 processes): every grid the
// communicator allows, ragged and m != n shapes; tau whole on every process
// (LAPACK's to rounding); ||A - Q R||, the orthogonality of Q formed by
// unmqr, C Q by unmqr from the right and the least squares optimality of
// gels, checked on rank 0 with the single-process thresholds.
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

// A zero column makes R singular: the same info on every process, and the
// cases not distributed yet are argument errors on every process.
TEST(MpiQrGels, RankDeficientAndUnsupported) {
  const int64_t m = 100, n = 60, nb = 32, zero = 40;
  auto A0 = bench::random_matrix<double>(m, n, m, 71);
  for (int64_t i = 0; i < m; ++i) A0[i + zero * m] = 0;
  const auto B0 = bench::random_matrix<double>(m, 2, m, 72);
  for (auto [p, q] : grids()) {
    SCOPED_TRACE(std::to_string(p) + "x" + std::to_string(q));
    mpi::Grid g(p, q);
    mpi::DistMatrix<double> A(g, m, n, nb), B(g, m, 2, nb);
    A.scatter(A0.data(), m);
    B.scatter(B0.data(), m);
    EXPECT_EQ(mpi::gels(Op::NoTrans, A, B), zero + 1);
    mpi::DistMatrix<double> W(g, n, m, nb), BW(g, n, 2, nb);
    EXPECT_THROW(mpi::gels(Op::NoTrans, W, BW), ArgumentError);
    EXPECT_THROW(mpi::gels(Op::Trans, A, B), ArgumentError);
  }
}

}  // namespace
