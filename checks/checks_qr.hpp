// LAPACK-style scaled residuals of the QR family (LAPACK's dqrt01 / dqrt17
// tests, LAWN 41), judged against kResidualThreshold like checks.hpp. The
// checks use the host LAPACK only to read hetla's output (in LAPACK's storage)
// back, so they also verify that storage.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "checks.hpp"
#include "kernels/host/lapack_qr.hpp"

namespace hetla::bench {

/// ||A - Q R||_1 / (max(m, n) ||A||_1 eps): A the original m x n matrix, F and
/// tau its QR factorization in LAPACK's storage (geqrf).
template <typename T>
double qr_residual(int64_t m, int64_t n, const T* A, int64_t lda, const T* F, int64_t ldf, const T* tau) {
  if (m == 0 || n == 0) return 0;
  const int64_t k = std::min(m, n);
  std::vector<T> QR(static_cast<std::size_t>(m) * n, T(0));  // R (upper trapezoid), then Q R
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i <= std::min(j, m - 1); ++i) QR[i + j * m] = F[i + j * ldf];
  blas::unmqr(Side::Left, Op::NoTrans, m, n, k, F, ldf, tau, QR.data(), m);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) QR[i + j * m] -= A[i + j * lda];
  const double anorm = blas::lange('1', m, n, A, lda);
  const double rnorm = blas::lange('1', m, n, QR.data(), m);
  const double denom = static_cast<double>(std::max(m, n)) * anorm * eps<T>();
  return denom == 0 ? rnorm : rnorm / denom;
}

/// ||I - Q^H Q||_1 / (m eps) for the m x n Q (orthonormal columns expected).
template <typename T> double orthogonality_residual(int64_t m, int64_t n, const T* Q, int64_t ldq) {
  if (m == 0 || n == 0) return 0;
  std::vector<T> G(static_cast<std::size_t>(n) * n, T(0));
  blas::gemm(Op::ConjTrans, Op::NoTrans, n, n, m, T(1), Q, ldq, Q, ldq, T(0), G.data(), n);
  for (int64_t j = 0; j < n; ++j) G[j + j * n] -= T(1);
  return blas::lange('1', n, n, G.data(), n) / (static_cast<double>(m) * eps<T>());
}

/// Least squares optimality of X for min ||op(A) X - B||: the residual
/// R = B - op(A) X must be orthogonal to the range of op(A):
///   ||op(A)^H R||_1 / (max(m, n, nrhs) ||A||_1 max(||B||_1, ||A||_1 ||X||_1) eps)
/// (after LAPACK's dqrt17). A is m x n; op(A) is rows x cols.
template <typename T>
double least_squares_residual(Op trans, int64_t m, int64_t n, int64_t nrhs, const T* A, int64_t lda, const T* X,
                              int64_t ldx, const T* B, int64_t ldb) {
  const int64_t rows = trans == Op::NoTrans ? m : n, cols = trans == Op::NoTrans ? n : m;
  if (rows == 0 || cols == 0 || nrhs == 0) return 0;
  const Op op = trans == Op::NoTrans ? Op::NoTrans : Op::ConjTrans;
  const Op adj = trans == Op::NoTrans ? Op::ConjTrans : Op::NoTrans;
  std::vector<T> R(static_cast<std::size_t>(rows) * nrhs);
  for (int64_t j = 0; j < nrhs; ++j)
    for (int64_t i = 0; i < rows; ++i) R[i + j * rows] = B[i + j * ldb];
  blas::gemm(op, Op::NoTrans, rows, nrhs, cols, T(-1), A, lda, X, ldx, T(1), R.data(), rows);
  std::vector<T> G(static_cast<std::size_t>(cols) * nrhs);
  blas::gemm(adj, Op::NoTrans, cols, nrhs, rows, T(1), A, lda, R.data(), rows, T(0), G.data(), cols);
  const double anorm = blas::lange('1', m, n, A, lda);
  const double bnorm = blas::lange('1', rows, nrhs, B, ldb);
  const double xnorm = blas::lange('1', cols, nrhs, X, ldx);
  const double denom = static_cast<double>(std::max({m, n, nrhs})) * anorm * std::max(bnorm, anorm * xnorm) *
                       eps<T>();
  const double gnorm = blas::lange('1', cols, nrhs, G.data(), cols);
  return denom == 0 ? gnorm : gnorm / denom;
}

/// ||X - Y||_1 / (scale_dim ||Y||_1 eps) for two rows x cols results.
template <typename T>
double relative_difference(int64_t rows, int64_t cols, const T* X, int64_t ldx, const T* Y, int64_t ldy,
                           int64_t scale_dim) {
  if (rows == 0 || cols == 0) return 0;
  std::vector<T> D(static_cast<std::size_t>(rows) * cols);
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = 0; i < rows; ++i) D[i + j * rows] = X[i + j * ldx] - Y[i + j * ldy];
  const double ynorm = blas::lange('1', rows, cols, Y, ldy);
  const double dnorm = blas::lange('1', rows, cols, D.data(), rows);
  const double denom = static_cast<double>(std::max<int64_t>(1, scale_dim)) * ynorm * eps<T>();
  return denom == 0 ? dnorm : dnorm / denom;
}

}  // namespace hetla::bench
