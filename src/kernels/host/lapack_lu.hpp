// Precision-generic LAPACKE wrappers for LU with partial pivoting (column-major).
// Pivots are LAPACK's: 1-based row interchanges, as lapack_int.
#pragma once
#include <cstdint>

#include "kernels/host/blas.hpp"

namespace hetla::blas {

// ---- getrf: P A = L U of an m x n matrix; returns info (first zero pivot, 1-based)
inline int64_t getrf(int64_t m, int64_t n, float* A, int64_t lda, lapack_int* ipiv) {
  return LAPACKE_sgetrf_work(LAPACK_COL_MAJOR, m, n, A, lda, ipiv);
}
inline int64_t getrf(int64_t m, int64_t n, double* A, int64_t lda, lapack_int* ipiv) {
  return LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, m, n, A, lda, ipiv);
}
inline int64_t getrf(int64_t m, int64_t n, scomplex* A, int64_t lda, lapack_int* ipiv) {
  return LAPACKE_cgetrf_work(LAPACK_COL_MAJOR, m, n, A, lda, ipiv);
}
inline int64_t getrf(int64_t m, int64_t n, dcomplex* A, int64_t lda, lapack_int* ipiv) {
  return LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, m, n, A, lda, ipiv);
}

// ---- laswp: row interchanges k1..k2 (1-based, inclusive) on the n columns of A;
// incx = 1 applies them forward, -1 backward.
inline void laswp(int64_t n, float* A, int64_t lda, int64_t k1, int64_t k2, const lapack_int* ipiv,
                  int64_t incx) {
  LAPACKE_slaswp_work(LAPACK_COL_MAJOR, n, A, lda, k1, k2, ipiv, incx);
}
inline void laswp(int64_t n, double* A, int64_t lda, int64_t k1, int64_t k2, const lapack_int* ipiv,
                  int64_t incx) {
  LAPACKE_dlaswp_work(LAPACK_COL_MAJOR, n, A, lda, k1, k2, ipiv, incx);
}
inline void laswp(int64_t n, scomplex* A, int64_t lda, int64_t k1, int64_t k2, const lapack_int* ipiv,
                  int64_t incx) {
  LAPACKE_claswp_work(LAPACK_COL_MAJOR, n, A, lda, k1, k2, ipiv, incx);
}
inline void laswp(int64_t n, dcomplex* A, int64_t lda, int64_t k1, int64_t k2, const lapack_int* ipiv,
                  int64_t incx) {
  LAPACKE_zlaswp_work(LAPACK_COL_MAJOR, n, A, lda, k1, k2, ipiv, incx);
}

// ---- getrs: solves op(A) X = B with the factors from getrf; returns info (< 0: bad argument)
inline int64_t getrs(Op t, int64_t n, int64_t nrhs, const float* A, int64_t lda, const lapack_int* ipiv,
                     float* B, int64_t ldb) {
  return LAPACKE_sgetrs_work(LAPACK_COL_MAJOR, static_cast<char>(t), n, nrhs, A, lda, ipiv, B, ldb);
}
inline int64_t getrs(Op t, int64_t n, int64_t nrhs, const double* A, int64_t lda, const lapack_int* ipiv,
                     double* B, int64_t ldb) {
  return LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, static_cast<char>(t), n, nrhs, A, lda, ipiv, B, ldb);
}
inline int64_t getrs(Op t, int64_t n, int64_t nrhs, const scomplex* A, int64_t lda, const lapack_int* ipiv,
                     scomplex* B, int64_t ldb) {
  return LAPACKE_cgetrs_work(LAPACK_COL_MAJOR, static_cast<char>(t), n, nrhs, A, lda, ipiv, B, ldb);
}
inline int64_t getrs(Op t, int64_t n, int64_t nrhs, const dcomplex* A, int64_t lda, const lapack_int* ipiv,
                     dcomplex* B, int64_t ldb) {
  return LAPACKE_zgetrs_work(LAPACK_COL_MAJOR, static_cast<char>(t), n, nrhs, A, lda, ipiv, B, ldb);
}

// ---- gesv: getrf + getrs (N); returns getrf's info (the vendor baseline of `hetla bench gesv`)
inline int64_t gesv(int64_t n, int64_t nrhs, float* A, int64_t lda, lapack_int* ipiv, float* B, int64_t ldb) {
  return LAPACKE_sgesv_work(LAPACK_COL_MAJOR, n, nrhs, A, lda, ipiv, B, ldb);
}
inline int64_t gesv(int64_t n, int64_t nrhs, double* A, int64_t lda, lapack_int* ipiv, double* B, int64_t ldb) {
  return LAPACKE_dgesv_work(LAPACK_COL_MAJOR, n, nrhs, A, lda, ipiv, B, ldb);
}
inline int64_t gesv(int64_t n, int64_t nrhs, scomplex* A, int64_t lda, lapack_int* ipiv, scomplex* B,
                    int64_t ldb) {
  return LAPACKE_cgesv_work(LAPACK_COL_MAJOR, n, nrhs, A, lda, ipiv, B, ldb);
}
inline int64_t gesv(int64_t n, int64_t nrhs, dcomplex* A, int64_t lda, lapack_int* ipiv, dcomplex* B,
                    int64_t ldb) {
  return LAPACKE_zgesv_work(LAPACK_COL_MAJOR, n, nrhs, A, lda, ipiv, B, ldb);
}

}  // namespace hetla::blas
