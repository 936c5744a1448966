// Precision-generic wrappers over CBLAS / LAPACKE (column-major) so that
// algorithms and tile kernels are written once for s, d, c, z.
#pragma once
#include <complex>
// LAPACKE's complex types are std::complex (layout-compatible with C99 complex).
#ifndef lapack_complex_float
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#endif
#include <cblas.h>
#include <lapacke.h>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "hetla/types.hpp"

namespace hetla::blas {

using scomplex = std::complex<float>;
using dcomplex = std::complex<double>;
using lapack_idx = lapack_int;

inline CBLAS_TRANSPOSE cblas_op(Op op) {
  return op == Op::NoTrans ? CblasNoTrans : op == Op::Trans ? CblasTrans : CblasConjTrans;
}
inline CBLAS_UPLO cblas_uplo(Uplo u) { return u == Uplo::Lower ? CblasLower : CblasUpper; }
inline CBLAS_SIDE cblas_side(Side s) { return s == Side::Left ? CblasLeft : CblasRight; }
inline CBLAS_DIAG cblas_diag(Diag d) { return d == Diag::Unit ? CblasUnit : CblasNonUnit; }
inline char lapack_uplo(Uplo u) { return static_cast<char>(u); }

// ---- gemm: C = alpha op(A) op(B) + beta C
inline void gemm(Op ta, Op tb, int64_t m, int64_t n, int64_t k, float alpha, const float* A, int64_t lda,
                 const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  cblas_sgemm(CblasColMajor, cblas_op(ta), cblas_op(tb), m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
inline void gemm(Op ta, Op tb, int64_t m, int64_t n, int64_t k, double alpha, const double* A, int64_t lda,
                 const double* B, int64_t ldb, double beta, double* C, int64_t ldc) {
  cblas_dgemm(CblasColMajor, cblas_op(ta), cblas_op(tb), m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
inline void gemm(Op ta, Op tb, int64_t m, int64_t n, int64_t k, scomplex alpha, const scomplex* A,
                 int64_t lda, const scomplex* B, int64_t ldb, scomplex beta, scomplex* C, int64_t ldc) {
  cblas_cgemm(CblasColMajor, cblas_op(ta), cblas_op(tb), m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
}
inline void gemm(Op ta, Op tb, int64_t m, int64_t n, int64_t k, dcomplex alpha, const dcomplex* A,
                 int64_t lda, const dcomplex* B, int64_t ldb, dcomplex beta, dcomplex* C, int64_t ldc) {
  cblas_zgemm(CblasColMajor, cblas_op(ta), cblas_op(tb), m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
}

// ---- herk (syrk for real types): C = alpha op(A) op(A)^H + beta C, alpha/beta real
inline void herk(Uplo u, Op t, int64_t n, int64_t k, float alpha, const float* A, int64_t lda, float beta,
                 float* C, int64_t ldc) {
  cblas_ssyrk(CblasColMajor, cblas_uplo(u), t == Op::NoTrans ? CblasNoTrans : CblasTrans, n, k, alpha, A,
              lda, beta, C, ldc);
}
inline void herk(Uplo u, Op t, int64_t n, int64_t k, double alpha, const double* A, int64_t lda,
                 double beta, double* C, int64_t ldc) {
  cblas_dsyrk(CblasColMajor, cblas_uplo(u), t == Op::NoTrans ? CblasNoTrans : CblasTrans, n, k, alpha, A,
              lda, beta, C, ldc);
}
inline void herk(Uplo u, Op t, int64_t n, int64_t k, float alpha, const scomplex* A, int64_t lda,
                 float beta, scomplex* C, int64_t ldc) {
  cblas_cherk(CblasColMajor, cblas_uplo(u), t == Op::NoTrans ? CblasNoTrans : CblasConjTrans, n, k, alpha,
              A, lda, beta, C, ldc);
}
inline void herk(Uplo u, Op t, int64_t n, int64_t k, double alpha, const dcomplex* A, int64_t lda,
                 double beta, dcomplex* C, int64_t ldc) {
  cblas_zherk(CblasColMajor, cblas_uplo(u), t == Op::NoTrans ? CblasNoTrans : CblasConjTrans, n, k, alpha,
              A, lda, beta, C, ldc);
}

// ---- syrk: C = alpha op(A) op(A)^T + beta C (no conjugation: complex symmetric)
template <typename T>
void syrk(Uplo u, Op t, int64_t n, int64_t k, std::type_identity_t<T> alpha, const T* A, int64_t lda,
          std::type_identity_t<T> beta, T* C, int64_t ldc) {
  const auto U = cblas_uplo(u);
  const auto O = t == Op::NoTrans ? CblasNoTrans : CblasTrans;
  if constexpr (std::is_same_v<T, float>) cblas_ssyrk(CblasColMajor, U, O, n, k, alpha, A, lda, beta, C, ldc);
  else if constexpr (std::is_same_v<T, double>) cblas_dsyrk(CblasColMajor, U, O, n, k, alpha, A, lda, beta, C, ldc);
  else if constexpr (std::is_same_v<T, scomplex>)
    cblas_csyrk(CblasColMajor, U, O, n, k, &alpha, A, lda, &beta, C, ldc);
  else cblas_zsyrk(CblasColMajor, U, O, n, k, &alpha, A, lda, &beta, C, ldc);
}

// ---- trsm: op(A) X = alpha B (Left) or X op(A) = alpha B (Right)
inline void trsm(Side s, Uplo u, Op t, Diag d, int64_t m, int64_t n, float alpha, const float* A,
                 int64_t lda, float* B, int64_t ldb) {
  cblas_strsm(CblasColMajor, cblas_side(s), cblas_uplo(u), cblas_op(t), cblas_diag(d), m, n, alpha, A, lda,
              B, ldb);
}
inline void trsm(Side s, Uplo u, Op t, Diag d, int64_t m, int64_t n, double alpha, const double* A,
                 int64_t lda, double* B, int64_t ldb) {
  cblas_dtrsm(CblasColMajor, cblas_side(s), cblas_uplo(u), cblas_op(t), cblas_diag(d), m, n, alpha, A, lda,
              B, ldb);
}
inline void trsm(Side s, Uplo u, Op t, Diag d, int64_t m, int64_t n, scomplex alpha, const scomplex* A,
                 int64_t lda, scomplex* B, int64_t ldb) {
  cblas_ctrsm(CblasColMajor, cblas_side(s), cblas_uplo(u), cblas_op(t), cblas_diag(d), m, n, &alpha, A,
              lda, B, ldb);
}
inline void trsm(Side s, Uplo u, Op t, Diag d, int64_t m, int64_t n, dcomplex alpha, const dcomplex* A,
                 int64_t lda, dcomplex* B, int64_t ldb) {
  cblas_ztrsm(CblasColMajor, cblas_side(s), cblas_uplo(u), cblas_op(t), cblas_diag(d), m, n, &alpha, A,
              lda, B, ldb);
}

// ---- potrf (LAPACK semantics: returns info)
inline int64_t potrf(Uplo u, int64_t n, float* A, int64_t lda) {
  return LAPACKE_spotrf_work(LAPACK_COL_MAJOR, lapack_uplo(u), n, A, lda);
}
inline int64_t potrf(Uplo u, int64_t n, double* A, int64_t lda) {
  return LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, lapack_uplo(u), n, A, lda);
}
inline int64_t potrf(Uplo u, int64_t n, scomplex* A, int64_t lda) {
  return LAPACKE_cpotrf_work(LAPACK_COL_MAJOR, lapack_uplo(u), n, reinterpret_cast<lapack_complex_float*>(A),
                             lda);
}
inline int64_t potrf(Uplo u, int64_t n, dcomplex* A, int64_t lda) {
  return LAPACKE_zpotrf_work(LAPACK_COL_MAJOR, lapack_uplo(u), n,
                             reinterpret_cast<lapack_complex_double*>(A), lda);
}

// ---- lange: norm ('M' max abs, '1' one, 'I' infinity, 'F' Frobenius) of a general matrix
inline float lange(char norm, int64_t m, int64_t n, const float* A, int64_t lda) {
  std::vector<float> w(norm == 'I' || norm == 'i' ? m : 0);
  return LAPACKE_slange_work(LAPACK_COL_MAJOR, norm, m, n, A, lda, w.data());
}
inline double lange(char norm, int64_t m, int64_t n, const double* A, int64_t lda) {
  std::vector<double> w(norm == 'I' || norm == 'i' ? m : 0);
  return LAPACKE_dlange_work(LAPACK_COL_MAJOR, norm, m, n, A, lda, w.data());
}
inline float lange(char norm, int64_t m, int64_t n, const scomplex* A, int64_t lda) {
  std::vector<float> w(norm == 'I' || norm == 'i' ? m : 0);
  return LAPACKE_clange_work(LAPACK_COL_MAJOR, norm, m, n, A, lda, w.data());
}
inline double lange(char norm, int64_t m, int64_t n, const dcomplex* A, int64_t lda) {
  std::vector<double> w(norm == 'I' || norm == 'i' ? m : 0);
  return LAPACKE_zlange_work(LAPACK_COL_MAJOR, norm, m, n, A, lda, w.data());
}

}  // namespace hetla::blas
