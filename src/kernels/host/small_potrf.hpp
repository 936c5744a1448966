// Cholesky of a small matrix that stays in the calling thread. OpenBLAS
// 0.3.21 (pthreads) starts its thread pool in ?potrf from n = 64 and in
// ?trsm from about 32 x 16, where its threading loses even for one caller
// (dpotrf n = 64: 35.7 us on 2 threads, 18.9 us on one) and two callers then
// queue on the pool's one lock (2 threads: 0.42x the throughput of one). The
// process-global thread count may not be changed per call (it would race
// with other callers), so above that order the factorization is composed
// here of vendor calls at sizes that OpenBLAS runs single-threaded (measured
// with the pool's CPU time, getrusage SELF - THREAD): potrf below 64, gemm
// with m n k <= 64^3, syrk/herk with n k < 10^4, and a triangular solve of
// our own whose flops go to that gemm (its leaves, <= 16 columns, are loops).
// One template for s, d, c, z; the vendor entry points come from `K`, so the
// C++ API (LAPACKE/CBLAS inside a ReentryScope) and the Fortran names (the
// explicit vendor table of src/lapack/vendor.hpp) share it.
//
// K provides, with T the element type:
//   int64_t potrf(Uplo, int64_t n, T* A, int64_t lda)               LAPACK's info
//   void herk(Uplo, Op, int64_t n, int64_t k, const T* A, int64_t lda, T* C, int64_t ldc)   C -= op(A) op(A)^H
//   void gemm(Op, Op, int64_t m, int64_t n, int64_t k, const T* A, int64_t lda, const T* B, int64_t ldb,
//             T* C, int64_t ldc)                                     C -= op(A) op(B)
#pragma once
#include <complex>
#include <cstdint>

#include "hetla/types.hpp"
#include "kernels/host/blas.hpp"

namespace hetla::small {

/// Orders from which the vendor's potrf starts its threads (64: d and z
/// measured, 63 not) and up to which the composition below keeps every vendor
/// call single-threaded (its herk update is (n/2) x (n/2) < 10^4).
inline constexpr int64_t kPotrfThreadedFrom = 64;
inline constexpr int64_t kPotrfComposedBelow = 192;
/// Columns of a triangular solve done by loops; wider ones split onto gemm.
inline constexpr int64_t kTrsmLeaf = 16;

/// Whether potrf of order n runs the composition (else the vendor's potrf).
inline bool potrf_composed(int64_t n) { return n >= kPotrfThreadedFrom && n < kPotrfComposedBelow; }

namespace detail {
template <typename T> T conj_of(T x) {
  if constexpr (is_complex_v<T>) return std::conj(x);
  else return x;
}

/// B (m x k) := B L^-H, L lower triangular k x k (a potrf factor): the
/// off-diagonal block of a lower Cholesky.
template <typename T, typename K>
void trsm_right_lower(const K& k_, int64_t m, int64_t k, const T* L, int64_t ldl, T* B, int64_t ldb) {
  if (k > kTrsmLeaf) {
    const int64_t k1 = k / 2, k2 = k - k1;
    trsm_right_lower(k_, m, k1, L, ldl, B, ldb);
    // B2 -= X1 L21^H
    k_.gemm(Op::NoTrans, Op::ConjTrans, m, k2, k1, B, ldb, L + k1, ldl, B + k1 * ldb, ldb);
    trsm_right_lower(k_, m, k2, L + k1 + k1 * ldl, ldl, B + k1 * ldb, ldb);
    return;
  }
  // X[:, j] = (B[:, j] - sum_{p < j} X[:, p] conj(L[j, p])) / conj(L[j, j]): column axpys (contiguous).
  for (int64_t j = 0; j < k; ++j) {
    T* xj = B + j * ldb;
    for (int64_t p = 0; p < j; ++p) {
      const T l = conj_of(L[j + p * ldl]);
      const T* xp = B + p * ldb;
      for (int64_t i = 0; i < m; ++i) xj[i] -= xp[i] * l;
    }
    const T d = T(1) / conj_of(L[j + j * ldl]);
    for (int64_t i = 0; i < m; ++i) xj[i] *= d;
  }
}

/// B (k x m) := U^-H B, U upper triangular k x k: the off-diagonal block of
/// an upper Cholesky.
template <typename T, typename K>
void trsm_left_upper(const K& k_, int64_t k, int64_t m, const T* U, int64_t ldu, T* B, int64_t ldb) {
  if (k > kTrsmLeaf) {
    const int64_t k1 = k / 2, k2 = k - k1;
    trsm_left_upper(k_, k1, m, U, ldu, B, ldb);
    // B2 -= U12^H X1
    k_.gemm(Op::ConjTrans, Op::NoTrans, k2, m, k1, U + k1 * ldu, ldu, B, ldb, B + k1, ldb);
    trsm_left_upper(k_, k2, m, U + k1 + k1 * ldu, ldu, B + k1, ldb);
    return;
  }
  // Per column c of B: x_i = (b_i - sum_{p < i} conj(U[p, i]) x_p) / conj(U[i, i]); the sum runs down
  // column i of U (contiguous).
  for (int64_t c = 0; c < m; ++c) {
    T* x = B + c * ldb;
    for (int64_t i = 0; i < k; ++i) {
      const T* u = U + i * ldu;
      T s = x[i];
      for (int64_t p = 0; p < i; ++p) s -= conj_of(u[p]) * x[p];
      x[i] = s / conj_of(u[i]);
    }
  }
}
}  // namespace detail

/// A = L L^H (Lower) or U^H U (Upper) of order n, LAPACK's info (the order
/// of the leading minor that is not positive definite, 0 on success). Below
/// kPotrfThreadedFrom the vendor's potrf; above, halves recursively:
/// potrf(A11), the off-diagonal solve, A22 -= A21 A21^H, potrf(A22).
template <typename T, typename K> int64_t potrf(const K& k, Uplo uplo, int64_t n, T* A, int64_t lda) {
  if (n < kPotrfThreadedFrom) return k.potrf(uplo, n, A, lda);
  const int64_t n1 = n / 2, n2 = n - n1;
  if (const int64_t info = potrf(k, uplo, n1, A, lda)) return info;
  T* A22 = A + n1 + n1 * lda;
  if (uplo == Uplo::Lower) {
    T* A21 = A + n1;
    detail::trsm_right_lower(k, n2, n1, A, lda, A21, lda);
    k.herk(Uplo::Lower, Op::NoTrans, n2, n1, A21, lda, A22, lda);
  } else {
    T* A12 = A + n1 * lda;
    detail::trsm_left_upper(k, n1, n2, A, lda, A12, lda);
    k.herk(Uplo::Upper, Op::ConjTrans, n2, n1, A12, lda, A22, lda);
  }
  const int64_t info = potrf(k, uplo, n2, A22, lda);
  return info ? info + n1 : 0;
}

/// K of the C++ API: CBLAS/LAPACKE by name. Callers hold a rt::ReentryScope,
/// so with hetla's LAPACK names interposed the calls reach the vendor.
template <typename T> struct BlasKernels {
  int64_t potrf(Uplo u, int64_t n, T* A, int64_t lda) const { return blas::potrf(u, n, A, lda); }
  void herk(Uplo u, Op t, int64_t n, int64_t k, const T* A, int64_t lda, T* C, int64_t ldc) const {
    blas::herk(u, t, n, k, real_t<T>(-1), A, lda, real_t<T>(1), C, ldc);
  }
  void gemm(Op ta, Op tb, int64_t m, int64_t n, int64_t k, const T* A, int64_t lda, const T* B, int64_t ldb, T* C,
            int64_t ldc) const {
    blas::gemm(ta, tb, m, n, k, T(-1), A, lda, B, ldb, T(1), C, ldc);
  }
};

}  // namespace hetla::small
