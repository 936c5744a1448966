// Checks for LU with partial pivoting (LAPACK Working Note 41 style), shared by
// the CLI's `bench getrf --check` and the tests. Pivots are LAPACK's: 1-based
// row interchanges, any integer type.
#pragma once
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "checks.hpp"

namespace hetla::bench {

/// Applies the interchanges ipiv[0..k) to the rows of the m x n A, in order (P A).
template <typename T, typename I>
void apply_pivots(int64_t m, int64_t n, T* A, int64_t lda, int64_t k, const I* ipiv) {
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < std::min(k, m); ++i) {
      const int64_t p = static_cast<int64_t>(ipiv[i]) - 1;
      if (p != i) std::swap(A[i + j * lda], A[p + j * lda]);
    }
}

/// ||P A - L U||_1 / (max(m, n) ||A||_1 eps): A the original m x n matrix, F
/// the factors from getrf (L unit lower m x min(m,n), U upper min(m,n) x n).
template <typename T, typename I>
double getrf_residual(int64_t m, int64_t n, const T* A, int64_t lda, const T* F, int64_t ldf, const I* ipiv) {
  if (m == 0 || n == 0) return 0;
  const int64_t k = std::min(m, n);
  std::vector<T> L(static_cast<std::size_t>(m * k), T(0)), U(static_cast<std::size_t>(k * n), T(0));
  for (int64_t j = 0; j < k; ++j) {
    L[j + j * m] = T(1);
    for (int64_t i = j + 1; i < m; ++i) L[i + j * m] = F[i + j * ldf];
  }
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i <= std::min(j, k - 1); ++i) U[i + j * k] = F[i + j * ldf];
  std::vector<T> R(static_cast<std::size_t>(m * n));  // P A - L U
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) R[i + j * m] = A[i + j * lda];
  apply_pivots(m, n, R.data(), m, k, ipiv);
  blas::gemm(Op::NoTrans, Op::NoTrans, m, n, k, T(-1), L.data(), m, U.data(), k, T(1), R.data(), m);
  const double anorm = blas::lange('1', m, n, A, lda);
  const double rnorm = blas::lange('1', m, n, R.data(), m);
  return anorm == 0 ? rnorm : rnorm / (static_cast<double>(std::max(m, n)) * anorm * eps<T>());
}

}  // namespace hetla::bench
