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

namespace detail {
/// LAPACKE's type for T (its complex types are std::complex here, see above).
template <typename T> using lapack_t = std::conditional_t<
    std::is_same_v<T, scomplex>, lapack_complex_float,
    std::conditional_t<std::is_same_v<T, dcomplex>, lapack_complex_double, T>>;
template <typename T> lapack_t<T>* lp(T* p) { return reinterpret_cast<lapack_t<T>*>(p); }
template <typename T> const lapack_t<T>* lp(const T* p) { return reinterpret_cast<const lapack_t<T>*>(p); }
template <typename T> inline constexpr bool is_s = std::is_same_v<T, float>;
template <typename T> inline constexpr bool is_d = std::is_same_v<T, double>;
template <typename T> inline constexpr bool is_c = std::is_same_v<T, scomplex>;
/// Scalars are not deduced: T comes from the arrays, a scalar converts to it.
template <typename T> using scalar_t = std::type_identity_t<T>;
/// LAPACK's info from a LAPACKE `_work` call: LAPACKE counts its layout as
/// argument 1 and so returns a rejected argument's position one further than
/// LAPACK (and its xerbla, "parameter number N") numbers it.
inline lapack_int lapack_info(lapack_int lapacke_info) { return lapacke_info < 0 ? lapacke_info + 1 : lapacke_info; }
}  // namespace detail

// One template per routine dispatches on the precision (s, d, c, z).

// ---- gemm: C = alpha op(A) op(B) + beta C
template <typename T>
void gemm(Op ta, Op tb, int64_t m, int64_t n, int64_t k, detail::scalar_t<T> alpha, const T* A, int64_t lda,
          const T* B, int64_t ldb, detail::scalar_t<T> beta, T* C, int64_t ldc) {
  using namespace detail;
  const auto TA = cblas_op(ta), TB = cblas_op(tb);
  if constexpr (is_s<T>) cblas_sgemm(CblasColMajor, TA, TB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  else if constexpr (is_d<T>) cblas_dgemm(CblasColMajor, TA, TB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  else if constexpr (is_c<T>) cblas_cgemm(CblasColMajor, TA, TB, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
  else cblas_zgemm(CblasColMajor, TA, TB, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
}

// ---- herk (syrk for real types): C = alpha op(A) op(A)^H + beta C, alpha/beta real
template <typename T>
void herk(Uplo u, Op t, int64_t n, int64_t k, real_t<T> alpha, const T* A, int64_t lda, real_t<T> beta, T* C,
          int64_t ldc) {
  using namespace detail;
  const auto U = cblas_uplo(u);
  if constexpr (is_s<T>)
    cblas_ssyrk(CblasColMajor, U, t == Op::NoTrans ? CblasNoTrans : CblasTrans, n, k, alpha, A, lda, beta, C, ldc);
  else if constexpr (is_d<T>)
    cblas_dsyrk(CblasColMajor, U, t == Op::NoTrans ? CblasNoTrans : CblasTrans, n, k, alpha, A, lda, beta, C, ldc);
  else if constexpr (is_c<T>)
    cblas_cherk(CblasColMajor, U, t == Op::NoTrans ? CblasNoTrans : CblasConjTrans, n, k, alpha, A, lda, beta, C,
                ldc);
  else
    cblas_zherk(CblasColMajor, U, t == Op::NoTrans ? CblasNoTrans : CblasConjTrans, n, k, alpha, A, lda, beta, C,
                ldc);
}

// ---- syrk: C = alpha op(A) op(A)^T + beta C (no conjugation: complex symmetric)
template <typename T>
void syrk(Uplo u, Op t, int64_t n, int64_t k, detail::scalar_t<T> alpha, const T* A, int64_t lda,
          detail::scalar_t<T> beta, T* C, int64_t ldc) {
  using namespace detail;
  const auto U = cblas_uplo(u);
  const auto O = t == Op::NoTrans ? CblasNoTrans : CblasTrans;
  if constexpr (is_s<T>) cblas_ssyrk(CblasColMajor, U, O, n, k, alpha, A, lda, beta, C, ldc);
  else if constexpr (is_d<T>) cblas_dsyrk(CblasColMajor, U, O, n, k, alpha, A, lda, beta, C, ldc);
  else if constexpr (is_c<T>) cblas_csyrk(CblasColMajor, U, O, n, k, &alpha, A, lda, &beta, C, ldc);
  else cblas_zsyrk(CblasColMajor, U, O, n, k, &alpha, A, lda, &beta, C, ldc);
}

// ---- trsm: op(A) X = alpha B (Left) or X op(A) = alpha B (Right)
template <typename T>
void trsm(Side s, Uplo u, Op t, Diag d, int64_t m, int64_t n, detail::scalar_t<T> alpha, const T* A, int64_t lda,
          T* B, int64_t ldb) {
  using namespace detail;
  const auto S = cblas_side(s);
  const auto U = cblas_uplo(u);
  const auto O = cblas_op(t);
  const auto D = cblas_diag(d);
  if constexpr (is_s<T>) cblas_strsm(CblasColMajor, S, U, O, D, m, n, alpha, A, lda, B, ldb);
  else if constexpr (is_d<T>) cblas_dtrsm(CblasColMajor, S, U, O, D, m, n, alpha, A, lda, B, ldb);
  else if constexpr (is_c<T>) cblas_ctrsm(CblasColMajor, S, U, O, D, m, n, &alpha, A, lda, B, ldb);
  else cblas_ztrsm(CblasColMajor, S, U, O, D, m, n, &alpha, A, lda, B, ldb);
}

// ---- potrf (LAPACK semantics: returns info)
template <typename T> int64_t potrf(Uplo u, int64_t n, T* A, int64_t lda) {
  using namespace detail;
  const char U = lapack_uplo(u);
  if constexpr (is_s<T>) return lapack_info(LAPACKE_spotrf_work(LAPACK_COL_MAJOR, U, n, A, lda));
  else if constexpr (is_d<T>) return lapack_info(LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, U, n, A, lda));
  else if constexpr (is_c<T>) return lapack_info(LAPACKE_cpotrf_work(LAPACK_COL_MAJOR, U, n, lp(A), lda));
  else return lapack_info(LAPACKE_zpotrf_work(LAPACK_COL_MAJOR, U, n, lp(A), lda));
}

// ---- lange: norm ('M' max abs, '1' one, 'I' infinity, 'F' Frobenius) of a general matrix
template <typename T> real_t<T> lange(char norm, int64_t m, int64_t n, const T* A, int64_t lda) {
  using namespace detail;
  std::vector<real_t<T>> w(norm == 'I' || norm == 'i' ? m : 0);
  if constexpr (is_s<T>) return LAPACKE_slange_work(LAPACK_COL_MAJOR, norm, m, n, A, lda, w.data());
  else if constexpr (is_d<T>) return LAPACKE_dlange_work(LAPACK_COL_MAJOR, norm, m, n, A, lda, w.data());
  else if constexpr (is_c<T>) return LAPACKE_clange_work(LAPACK_COL_MAJOR, norm, m, n, lp(A), lda, w.data());
  else return LAPACKE_zlange_work(LAPACK_COL_MAJOR, norm, m, n, lp(A), lda, w.data());
}

}  // namespace hetla::blas
