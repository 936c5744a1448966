// LAPACK-style scaled residuals (see LAPACK Working Note 41). A result is
// accepted when the scaled residual is below kResidualThreshold, as in
// LAPACK's own test suite (threshold 30 on ratios of this form).
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "hetla/types.hpp"
#include "kernels/host/blas.hpp"

namespace hetla::bench {

inline constexpr double kResidualThreshold = 30.0;

template <typename T> double eps() { return std::numeric_limits<real_t<T>>::epsilon(); }

/// Hermitian matrix from its `uplo` triangle, as a full n x n (ld = n) copy.
template <typename T> std::vector<T> full_hermitian(Uplo uplo, int64_t n, const T* A, int64_t lda) {
  std::vector<T> F(static_cast<std::size_t>(n) * n);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < n; ++i) {
      bool stored = uplo == Uplo::Lower ? i >= j : i <= j;
      F[i + j * n] = stored ? A[i + j * lda] : conj(A[j + i * lda]);
    }
  return F;
}

/// ||A - L L^H||_1 / (n ||A||_1 eps) (or U^H U), A the original, F the factor.
template <typename T>
double potrf_residual(Uplo uplo, int64_t n, const T* A, int64_t lda, const T* F, int64_t ldf) {
  if (n == 0) return 0;
  auto Af = full_hermitian(uplo, n, A, lda);
  std::vector<T> L(static_cast<std::size_t>(n) * n, T(0));  // the triangle of F only
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < n; ++i)
      if (uplo == Uplo::Lower ? i >= j : i <= j) L[i + j * n] = F[i + j * ldf];
  std::vector<T> P(static_cast<std::size_t>(n) * n, T(0));
  Op op = uplo == Uplo::Lower ? Op::NoTrans : Op::ConjTrans;  // L L^H or U^H U
  blas::herk(uplo, op, n, n, real_t<T>(1), L.data(), n, real_t<T>(0), P.data(), n);
  auto Pf = full_hermitian(uplo, n, P.data(), n);
  for (std::size_t k = 0; k < Pf.size(); ++k) Pf[k] -= Af[k];
  double anorm = blas::lange('1', n, n, Af.data(), n);
  double rnorm = blas::lange('1', n, n, Pf.data(), n);
  return anorm == 0 ? rnorm : rnorm / (static_cast<double>(n) * anorm * eps<T>());
}

/// ||B - A X||_1 / (n ||A||_1 ||X||_1 eps) for a general m x n A, X n x nrhs.
template <typename T>
double solve_residual(int64_t m, int64_t n, int64_t nrhs, const T* A, int64_t lda, const T* X, int64_t ldx,
                      const T* B, int64_t ldb) {
  if (m == 0 || n == 0 || nrhs == 0) return 0;
  std::vector<T> R(static_cast<std::size_t>(m) * nrhs);
  for (int64_t j = 0; j < nrhs; ++j)
    for (int64_t i = 0; i < m; ++i) R[i + j * m] = B[i + j * ldb];
  blas::gemm(Op::NoTrans, Op::NoTrans, m, nrhs, n, T(-1), A, lda, X, ldx, T(1), R.data(), m);
  double anorm = blas::lange('1', m, n, A, lda);
  double xnorm = blas::lange('1', n, nrhs, X, ldx);
  double rnorm = blas::lange('1', m, nrhs, R.data(), m);
  double denom = static_cast<double>(std::max(m, n)) * anorm * xnorm * eps<T>();
  return denom == 0 ? rnorm : rnorm / denom;
}

}  // namespace hetla::bench
