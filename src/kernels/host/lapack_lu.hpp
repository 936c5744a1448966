// Precision-generic LAPACKE wrappers for LU with partial pivoting (column-major).
// Pivots are LAPACK's: 1-based row interchanges, as lapack_int.
#pragma once
#include <cstdint>

#include "kernels/host/blas.hpp"

namespace hetla::blas {

// One template per routine dispatches on the precision (s, d, c, z).

// ---- getrf: P A = L U of an m x n matrix; returns info (first zero pivot, 1-based)
template <typename T> int64_t getrf(int64_t m, int64_t n, T* A, int64_t lda, lapack_int* ipiv) {
  using namespace detail;
  if constexpr (is_s<T>) return lapack_info(LAPACKE_sgetrf_work(LAPACK_COL_MAJOR, m, n, A, lda, ipiv));
  else if constexpr (is_d<T>) return lapack_info(LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, m, n, A, lda, ipiv));
  else if constexpr (is_c<T>) return lapack_info(LAPACKE_cgetrf_work(LAPACK_COL_MAJOR, m, n, lp(A), lda, ipiv));
  else return lapack_info(LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, m, n, lp(A), lda, ipiv));
}

// ---- laswp: row interchanges k1..k2 (1-based, inclusive) on the n columns of A;
// incx = 1 applies them forward, -1 backward.
template <typename T>
void laswp(int64_t n, T* A, int64_t lda, int64_t k1, int64_t k2, const lapack_int* ipiv, int64_t incx) {
  using namespace detail;
  if constexpr (is_s<T>) LAPACKE_slaswp_work(LAPACK_COL_MAJOR, n, A, lda, k1, k2, ipiv, incx);
  else if constexpr (is_d<T>) LAPACKE_dlaswp_work(LAPACK_COL_MAJOR, n, A, lda, k1, k2, ipiv, incx);
  else if constexpr (is_c<T>) LAPACKE_claswp_work(LAPACK_COL_MAJOR, n, lp(A), lda, k1, k2, ipiv, incx);
  else LAPACKE_zlaswp_work(LAPACK_COL_MAJOR, n, lp(A), lda, k1, k2, ipiv, incx);
}

// ---- getrs: solves op(A) X = B with the factors from getrf; returns info (< 0: bad argument)
template <typename T>
int64_t getrs(Op t, int64_t n, int64_t nrhs, const T* A, int64_t lda, const lapack_int* ipiv, T* B, int64_t ldb) {
  using namespace detail;
  const char tr = static_cast<char>(t);
  if constexpr (is_s<T>) return lapack_info(LAPACKE_sgetrs_work(LAPACK_COL_MAJOR, tr, n, nrhs, A, lda, ipiv, B, ldb));
  else if constexpr (is_d<T>)
    return lapack_info(LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, tr, n, nrhs, A, lda, ipiv, B, ldb));
  else if constexpr (is_c<T>)
    return lapack_info(LAPACKE_cgetrs_work(LAPACK_COL_MAJOR, tr, n, nrhs, lp(A), lda, ipiv, lp(B), ldb));
  else return lapack_info(LAPACKE_zgetrs_work(LAPACK_COL_MAJOR, tr, n, nrhs, lp(A), lda, ipiv, lp(B), ldb));
}

// ---- gesv: getrf + getrs (N); returns getrf's info (the vendor baseline of `hetla bench gesv`)
template <typename T> int64_t gesv(int64_t n, int64_t nrhs, T* A, int64_t lda, lapack_int* ipiv, T* B, int64_t ldb) {
  using namespace detail;
  if constexpr (is_s<T>) return lapack_info(LAPACKE_sgesv_work(LAPACK_COL_MAJOR, n, nrhs, A, lda, ipiv, B, ldb));
  else if constexpr (is_d<T>) return lapack_info(LAPACKE_dgesv_work(LAPACK_COL_MAJOR, n, nrhs, A, lda, ipiv, B, ldb));
  else if constexpr (is_c<T>)
    return lapack_info(LAPACKE_cgesv_work(LAPACK_COL_MAJOR, n, nrhs, lp(A), lda, ipiv, lp(B), ldb));
  else return lapack_info(LAPACKE_zgesv_work(LAPACK_COL_MAJOR, n, nrhs, lp(A), lda, ipiv, lp(B), ldb));
}

}  // namespace hetla::blas
