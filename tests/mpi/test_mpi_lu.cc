// Distributed LU (mpi::getrf / getrs / gesv) under mpirun, in the same
// executable as test_mpi.cc (run with 1, 2 and 4 processes): every grid the
// communicator allows, ragged and m != n shapes, pivots that move rows
// between processes, an exactly singular column; pivots whole and info the
// same on every process; factors checked on rank 0 against LAPACK.
#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <string>
#include <vector>

#include "checks.hpp"
#include "checks_lu.hpp"
#include "kernels/host/blas.hpp"
#include "kernels/host/lapack_lu.hpp"
#include "matgen.hpp"
#include "mpi/grid.hpp"
#include "mpi/routines.hpp"
#include "mpi_support.hpp"

using namespace hetla;

namespace {

using hetla_mpi_test::grids;
using hetla_mpi_test::PrecisionName;
using hetla_mpi_test::Precisions;

template <typename T> class MpiLu : public ::testing::Test {};
TYPED_TEST_SUITE(MpiLu, Precisions, PrecisionName);

/// Random entries (|re| + |im| <= 2) plus 4 m at (m - 1 - j, j) for j <
/// min(m, n): each column is diagonally dominant after the row reversal, so
/// partial pivoting picks exactly those rows by a wide margin (the same
/// pivots as LAPACK whatever the rounding), the first half of them from the
/// bottom of the matrix: from other processes' tile rows when P > 1.
template <typename T> std::vector<T> reversed_dominant(int64_t m, int64_t n, uint64_t seed) {
  auto A = bench::random_matrix<T>(m, n, m, seed);
  for (int64_t j = 0; j < std::min(m, n); ++j) A[(m - 1 - j) + j * m] += T(static_cast<real_t<T>>(4 * m));
  return A;
}

std::vector<int64_t> lapack_pivots(int64_t m, int64_t n, auto& A, int64_t* info) {
  std::vector<lapack_int> p(static_cast<std::size_t>(std::min(m, n)));
  *info = blas::getrf(m, n, A.data(), m, p.data());
  return std::vector<int64_t>(p.begin(), p.end());
}

/// The pivots of rank 0, so each process can compare its own with them.
std::vector<int64_t> rank0_pivots(const mpi::Grid& g, const std::vector<int64_t>& ipiv) {
  std::vector<int64_t> r = ipiv;
  if (g.rank() != 0) std::fill(r.begin(), r.end(), int64_t(0));
  g.max(r);  // pivots are >= 1: rank 0's
  return r;
}

// Random matrices, square ragged, tall and wide: residual on rank 0, the
// same pivots on every process.
TYPED_TEST(MpiLu, GetrfRaggedEveryGrid) {
  using T = TypeParam;
  struct Shape {
    int64_t m, n;
  };
  // (one tile; one tile row: the pivots reach the processes that hold no panel)
  for (const Shape s : {Shape{150, 150}, Shape{173, 101}, Shape{90, 141}, Shape{20, 20}, Shape{20, 100}})
    for (auto [p, q] : grids()) {
      SCOPED_TRACE(std::to_string(s.m) + "x" + std::to_string(s.n) + " on " + std::to_string(p) + "x" +
                   std::to_string(q));
      const int64_t nb = 32;
      mpi::Grid g(p, q);
      const auto A0 = bench::random_matrix<T>(s.m, s.n, s.m, 21);
      mpi::DistMatrix<T> A(g, s.m, s.n, nb);
      A.scatter(A0.data(), s.m);
      std::vector<int64_t> ipiv;
      EXPECT_EQ(mpi::getrf(A, ipiv), 0);
      ASSERT_EQ(static_cast<int64_t>(ipiv.size()), std::min(s.m, s.n));
      EXPECT_EQ(ipiv, rank0_pivots(g, ipiv));
      std::vector<T> F(static_cast<std::size_t>(s.m * s.n));
      A.gather(F.data(), s.m);
      if (g.rank() == 0) {
        EXPECT_LT(bench::getrf_residual(s.m, s.n, A0.data(), s.m, F.data(), s.m, ipiv.data()),
                  bench::kResidualThreshold);
      }
    }
}

// Pivots from the bottom rows (other processes' tile rows when P > 1):
// LAPACK's pivots exactly, and its factors to rounding.
TEST(MpiLuPivots, CrossProcessesAsLapack) {
  const int64_t m = 170, n = 130, nb = 32;  // pivot row 170: tile row 5, process row 1 of 2 or 4
  const auto A0 = reversed_dominant<double>(m, n, 5);
  auto G = A0;
  int64_t linfo = -1;
  const auto lpiv = lapack_pivots(m, n, G, &linfo);
  ASSERT_EQ(linfo, 0);
  for (auto [p, q] : grids()) {
    SCOPED_TRACE(std::to_string(p) + "x" + std::to_string(q));
    mpi::Grid g(p, q);
    mpi::DistMatrix<double> A(g, m, n, nb);
    A.scatter(A0.data(), m);
    std::vector<int64_t> ipiv;
    EXPECT_EQ(mpi::getrf(A, ipiv), 0);
    EXPECT_EQ(ipiv, lpiv);  // on every process
    if (p > 1) {  // the first pivot row lies on another process row than row 0
      EXPECT_NE(((ipiv[0] - 1) / nb) % p, 0);
    }
    std::vector<double> F(static_cast<std::size_t>(m * n));
    A.gather(F.data(), m);
    if (g.rank() != 0) continue;
    double err = 0;
    for (std::size_t i = 0; i < F.size(); ++i) err = std::max(err, std::abs(F[i] - G[i]) / (1 + std::abs(G[i])));
    EXPECT_LT(err, 1e-11);
    EXPECT_LT(bench::getrf_residual(m, n, A0.data(), m, F.data(), m, ipiv.data()), bench::kResidualThreshold);
  }
}

// An exactly zero column: info = its index + 1 on every process, the
// factorization completed past it (LAPACK's pivots and residual), and gesv
// solves nothing anywhere.
TEST(MpiLuPivots, SingularColumnInfoOnEveryProcess) {
  const int64_t n = 150, nb = 32, zero = 100;  // in tile column 3; pivots after it are in place
  auto A0 = reversed_dominant<double>(n, n, 9);
  for (int64_t i = 0; i < n; ++i) A0[i + zero * n] = 0;
  auto G = A0;
  int64_t linfo = -1;
  const auto lpiv = lapack_pivots(n, n, G, &linfo);
  ASSERT_EQ(linfo, zero + 1);
  for (auto [p, q] : grids()) {
    SCOPED_TRACE(std::to_string(p) + "x" + std::to_string(q));
    mpi::Grid g(p, q);
    mpi::DistMatrix<double> A(g, n, n, nb);
    A.scatter(A0.data(), n);
    std::vector<int64_t> ipiv;
    EXPECT_EQ(mpi::getrf(A, ipiv), zero + 1);
    EXPECT_EQ(ipiv, lpiv);
    std::vector<double> F(static_cast<std::size_t>(n * n));
    A.gather(F.data(), n);
    if (g.rank() == 0) {
      EXPECT_LT(bench::getrf_residual(n, n, A0.data(), n, F.data(), n, ipiv.data()), bench::kResidualThreshold);
    }
    const auto B0 = bench::random_matrix<double>(n, 3, n, 2);
    A.scatter(A0.data(), n);
    mpi::DistMatrix<double> B(g, n, 3, nb);
    B.scatter(B0.data(), n);
    EXPECT_EQ(mpi::gesv(A, ipiv, B), zero + 1);
    std::vector<double> X(static_cast<std::size_t>(n * 3));
    B.gather(X.data(), n);
    if (g.rank() == 0) {
      EXPECT_EQ(X, B0);  // untouched
    }
  }
}

TYPED_TEST(MpiLu, GesvEveryGrid) {
  using T = TypeParam;
  const int64_t n = 150, nrhs = 37, nb = 32;
  for (auto [p, q] : grids()) {
    SCOPED_TRACE(std::to_string(p) + "x" + std::to_string(q));
    mpi::Grid g(p, q);
    const auto A0 = bench::random_matrix<T>(n, n, n, 15);
    const auto B0 = bench::random_matrix<T>(n, nrhs, n, 16);
    mpi::DistMatrix<T> A(g, n, n, nb), B(g, n, nrhs, nb);
    A.scatter(A0.data(), n);
    B.scatter(B0.data(), n);
    std::vector<int64_t> ipiv;
    EXPECT_EQ(mpi::gesv(A, ipiv, B), 0);
    std::vector<T> X(static_cast<std::size_t>(n * nrhs));
    B.gather(X.data(), n);
    if (g.rank() == 0) {
      EXPECT_LT(bench::solve_residual(n, n, nrhs, A0.data(), n, X.data(), n, B0.data(), n), bench::kResidualThreshold);
    }
  }
}

// getrs with A^H: X = P^T L^-H U^-H B, the interchanges last.
TEST(MpiLuPivots, GetrsConjTrans) {
  using T = std::complex<double>;
  const int64_t n = 120, nrhs = 5, nb = 32;
  const auto A0 = bench::random_matrix<T>(n, n, n, 31);
  const auto B0 = bench::random_matrix<T>(n, nrhs, n, 32);
  std::vector<T> AH(static_cast<std::size_t>(n * n));  // A^H, for the residual
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < n; ++i) AH[j + i * n] = std::conj(A0[i + j * n]);
  for (auto [p, q] : grids()) {
    SCOPED_TRACE(std::to_string(p) + "x" + std::to_string(q));
    mpi::Grid g(p, q);
    mpi::DistMatrix<T> A(g, n, n, nb), B(g, n, nrhs, nb);
    A.scatter(A0.data(), n);
    B.scatter(B0.data(), n);
    std::vector<int64_t> ipiv;
    ASSERT_EQ(mpi::getrf(A, ipiv), 0);
    mpi::getrs(Op::ConjTrans, A, ipiv, B);
    std::vector<T> X(static_cast<std::size_t>(n * nrhs));
    B.gather(X.data(), n);
    if (g.rank() == 0) {
      EXPECT_LT(bench::solve_residual(n, n, nrhs, AH.data(), n, X.data(), n, B0.data(), n), bench::kResidualThreshold);
    }
  }
}

}  // namespace
