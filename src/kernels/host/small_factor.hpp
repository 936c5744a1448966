// Cholesky and LU of a small matrix that stay in the calling thread. OpenBLAS
// 0.3.21 (pthreads) starts its thread pool in ?potrf from n = 64 and in
// ?trsm from about 32 x 16, where its threading loses even for one caller
// (dpotrf n = 64: 35.7 us on 2 threads, 18.9 us on one) and two callers then
// queue on the pool's one lock (2 threads: 0.42x the throughput of one). The
// process-global thread count may not be changed per call (it would race
// with other callers), so above that order the factorization is composed
// here of vendor calls at sizes that OpenBLAS runs single-threaded (measured
// with the pool's CPU time, getrusage SELF - THREAD): potrf below 64, gemm
// with m n k <= 64^3 (complex: 32^3), syrk/herk with n k <= 9000 (complex:
// 64^2), larger ones cut into blocks, and a triangular solve of our own
// whose flops go to that gemm (its leaves, <= 16 columns, are loops).
// getrf the same way: the vendor's threads from m n >= 10^4 (dgetrf n = 128,
// 2 callers: 0.40x the throughput of one; zgetrf 0.26x), so above that the
// recursive LU of LAPACK's getrf2 with vendor getrf leaves below 10^4.
// One template for s, d, c, z; the vendor entry points come from `K`, so the
// C++ API (LAPACKE/CBLAS inside a ReentryScope) and the Fortran names (the
// explicit vendor table of src/lapack/vendor.hpp) share it.
//
// K provides, with T the element type:
//   int64_t potrf(Uplo, int64_t n, T* A, int64_t lda)               LAPACK's info
//   void herk(Uplo, Op, int64_t n, int64_t k, const T* A, int64_t lda, T* C, int64_t ldc)   C -= op(A) op(A)^H
//   void gemm(Op, Op, int64_t m, int64_t n, int64_t k, const T* A, int64_t lda, const T* B, int64_t ldb,
//             T* C, int64_t ldc)                                     C -= op(A) op(B)
//   int64_t getrf(int64_t m, int64_t n, T* A, int64_t lda, P* ipiv)  LAPACK's info and pivots (P: its integer)
#pragma once
#include <algorithm>
#include <atomic>
#include <complex>
#include <cstdint>

#include "hetla/types.hpp"
#include "kernels/host/blas.hpp"
#include "kernels/host/lapack_lu.hpp"

namespace hetla::small {

/// Orders from which the vendor's potrf starts its threads (64: d and z
/// measured, 63 not) and up to which the composition below is used.
inline constexpr int64_t kPotrfThreadedFrom = 64;
inline constexpr int64_t kPotrfComposedBelow = 192;
/// Columns of a triangular solve done by loops; wider ones split onto gemm.
inline constexpr int64_t kTrsmLeaf = 16;

/// Whether potrf of order n runs the composition (else the vendor's potrf).
inline bool potrf_composed(int64_t n) { return n >= kPotrfThreadedFrom && n < kPotrfComposedBelow; }

/// m n from which the vendor's getrf starts its threads (dgetrf 96 x 96 not,
/// 128 x 128 yes), and the largest side the LU composition takes.
inline constexpr int64_t kGetrfThreadedFrom = 10000;
inline constexpr int64_t kGetrfComposedMax = 256;
/// The largest m n k of a gemm, and n k of a syrk/herk, that OpenBLAS 0.3.21
/// runs single-threaded (measured: dgemm 64^3 single, 96^3 threaded; zgemm
/// 32^3 single, 40^3 and 32 x 32 x 64 threaded; dsyrk 96 x 95 single, 128 x
/// 128 threaded; zherk 64 x 64 single, 80 x 80 threaded).
template <typename T> inline constexpr int64_t kGemmSingleMax = is_complex_v<T> ? int64_t(1) << 15 : int64_t(1) << 18;
template <typename T> inline constexpr int64_t kHerkSingleMax = is_complex_v<T> ? 4096 : 9000;

/// Whether getrf of m x n may run the composition: the vendor would start
/// its threads, and the composition takes the size.
inline bool getrf_composable(int64_t m, int64_t n) {
  return m * n >= kGetrfThreadedFrom && m <= kGetrfComposedMax && n <= kGetrfComposedMax;
}

/// Calls in flight at sizes the vendor would thread (potrf and getrf that may
/// be composed). getrf takes the composition only when it is not alone: by
/// itself the vendor's threaded getrf is the faster (quiet, dgetrf 100-150:
/// the composition 0.7-0.9x of its speed), while two callers queue on its
/// pool's one lock (0.40x the throughput of one). The composed potrf is the
/// faster either way (dpotrf 64 / 96 / 128: 9.7 / 19.9 / 44.5 us against
/// 11.3 / 24.2 / 57.6) and only counts. Calls below those sizes do not touch it.
inline std::atomic<int> threaded_size_calls{0};
class ThreadedSizeCall {
 public:
  explicit ThreadedSizeCall(bool counts) : counts_(counts) {
    if (counts_) threaded_size_calls.fetch_add(1, std::memory_order_relaxed);
  }
  ~ThreadedSizeCall() {
    if (counts_) threaded_size_calls.fetch_sub(1, std::memory_order_relaxed);
  }
  ThreadedSizeCall(const ThreadedSizeCall&) = delete;
  ThreadedSizeCall& operator=(const ThreadedSizeCall&) = delete;
  /// Another such call is in flight in this process.
  bool concurrent() const { return counts_ && threaded_size_calls.load(std::memory_order_relaxed) > 1; }

 private:
  bool counts_;
};

namespace detail {
template <typename T> T conj_of(T x) {
  if constexpr (is_complex_v<T>) return std::conj(x);
  else return x;
}

/// y -= a0 x0 + a1 x1 over m entries (x1 may be absent: a1 = 0, x1 = x0).
/// Complex entries as (re, im) pairs of reals: the loop vectorizes, where
/// std::complex's product (its NaN check and __muldc3 call) does not; two
/// columns per pass halve the loads and stores of y.
template <typename T> void axpy2_minus(int64_t m, T a0, const T* x0, T a1, const T* x1, T* y) {
  if constexpr (is_complex_v<T>) {
    using R = real_t<T>;
    const R ar = a0.real(), ai = a0.imag(), br = a1.real(), bi = a1.imag();
    const R* u = reinterpret_cast<const R*>(x0);
    const R* v = reinterpret_cast<const R*>(x1);
    R* yr = reinterpret_cast<R*>(y);
    for (int64_t i = 0; i < 2 * m; i += 2) {
      const R ur = u[i], ui = u[i + 1], vr = v[i], vi = v[i + 1];
      yr[i] -= (ar * ur - ai * ui) + (br * vr - bi * vi);
      yr[i + 1] -= (ar * ui + ai * ur) + (br * vi + bi * vr);
    }
  } else {
    for (int64_t i = 0; i < m; ++i) y[i] -= a0 * x0[i] + a1 * x1[i];
  }
}
template <typename T> void scale(int64_t m, T a, T* y) {
  if constexpr (is_complex_v<T>) {
    using R = real_t<T>;
    const R ar = a.real(), ai = a.imag();
    R* yr = reinterpret_cast<R*>(y);
    for (int64_t i = 0; i < 2 * m; i += 2) {
      const R re = yr[i], im = yr[i + 1];
      yr[i] = ar * re - ai * im;
      yr[i + 1] = ar * im + ai * re;
    }
  } else {
    for (int64_t i = 0; i < m; ++i) y[i] *= a;
  }
}

/// C (m x n) -= op(A) op(B) in column blocks of at most kGemmSingleMax
/// m n k, the sizes the vendor runs single-threaded.
template <typename T, typename K>
void gemm_single(const K& k_, Op ta, Op tb, int64_t m, int64_t n, int64_t k, const T* A, int64_t lda, const T* B,
                 int64_t ldb, T* C, int64_t ldc) {
  if (m == 0 || n == 0 || k == 0) return;
  const int64_t w = std::max<int64_t>(1, kGemmSingleMax<T> / (m * k));
  for (int64_t j = 0; j < n; j += w)
    k_.gemm(ta, tb, m, std::min(w, n - j), k, A, lda, tb == Op::NoTrans ? B + j * ldb : B + j, ldb, C + j * ldc,
            ldc);
}

/// C -= op(A) op(A)^H (n x n, the triangle uplo; op(A) n x k): Lower with
/// NoTrans or Upper with ConjTrans, as potrf's updates. Halves C while n k
/// is past what the vendor runs single-threaded; the off-diagonal block on
/// gemm_single.
template <typename T, typename K>
void herk_single(const K& k_, Uplo uplo, Op t, int64_t n, int64_t k, const T* A, int64_t lda, T* C, int64_t ldc) {
  if (n * k <= kHerkSingleMax<T> || n < 2) return k_.herk(uplo, t, n, k, A, lda, C, ldc);
  const int64_t n1 = n / 2, n2 = n - n1;
  const T* A2 = t == Op::NoTrans ? A + n1 : A + n1 * lda;
  herk_single(k_, uplo, t, n1, k, A, lda, C, ldc);
  if (uplo == Uplo::Lower)  // C21 -= A2 A1^H
    gemm_single(k_, Op::NoTrans, Op::ConjTrans, n2, n1, k, A2, lda, A, lda, C + n1, ldc);
  else  // C12 -= A1^H A2
    gemm_single(k_, Op::ConjTrans, Op::NoTrans, n1, n2, k, A, lda, A2, lda, C + n1 * ldc, ldc);
  herk_single(k_, uplo, t, n2, k, A2, lda, C + n1 + n1 * ldc, ldc);
}

/// The leaf of both solves: Y (m x k, column j at Y + j ldy) := Y C^-1 with
/// C upper triangular, C(p, j) = coef(p, j); column axpys, contiguous.
template <typename T, typename Coef> void solve_leaf(int64_t m, int64_t k, Coef coef, T* Y, int64_t ldy) {
  for (int64_t j = 0; j < k; ++j) {
    T* yj = Y + j * ldy;
    int64_t p = 0;
    for (; p + 1 < j; p += 2) axpy2_minus(m, coef(p, j), Y + p * ldy, coef(p + 1, j), Y + (p + 1) * ldy, yj);
    if (p < j) axpy2_minus(m, coef(p, j), Y + p * ldy, T(0), Y + p * ldy, yj);
    scale(m, T(1) / coef(j, j), yj);
  }
}

/// B (m x k) := B L^-H, L lower triangular k x k (a potrf factor): the
/// off-diagonal block of a lower Cholesky. Halves onto gemm down to
/// kTrsmLeaf columns.
template <typename T, typename K>
void trsm_right_lower(const K& k_, int64_t m, int64_t k, const T* L, int64_t ldl, T* B, int64_t ldb) {
  if (k > kTrsmLeaf) {
    const int64_t k1 = k / 2, k2 = k - k1;
    trsm_right_lower(k_, m, k1, L, ldl, B, ldb);
    // B2 -= X1 L21^H
    gemm_single(k_, Op::NoTrans, Op::ConjTrans, m, k2, k1, B, ldb, L + k1, ldl, B + k1 * ldb, ldb);
    trsm_right_lower(k_, m, k2, L + k1 + k1 * ldl, ldl, B + k1 * ldb, ldb);
    return;
  }
  // B L^-H: C = L^H, C(p, j) = conj(L(j, p)).
  solve_leaf(m, k, [=](int64_t p, int64_t j) { return conj_of(L[j + p * ldl]); }, B, ldb);
}

/// B (k x m) := U^-H B, U upper triangular k x k: the off-diagonal block of
/// an upper Cholesky. Halves onto gemm down to kTrsmLeaf rows.
template <typename T, typename K>
void trsm_left_upper(const K& k_, int64_t k, int64_t m, const T* U, int64_t ldu, T* B, int64_t ldb) {
  if (k > kTrsmLeaf) {
    const int64_t k1 = k / 2, k2 = k - k1;
    trsm_left_upper(k_, k1, m, U, ldu, B, ldb);
    // B2 -= U12^H X1
    gemm_single(k_, Op::ConjTrans, Op::NoTrans, k2, m, k1, U + k1 * ldu, ldu, B, ldb, B + k1, ldb);
    trsm_left_upper(k_, k2, m, U + k1 + k1 * ldu, ldu, B + k1, ldb);
    return;
  }
  // U^H X = B is X^T conj(U) = B^T: the leaf's form on Y = B^T (m x k, on
  // the stack), C(p, j) = conj(U(p, j)); the rows of B would be strided.
  T Y[kTrsmLeaf * kPotrfComposedBelow];
  for (int64_t c = 0; c < m; ++c)
    for (int64_t i = 0; i < k; ++i) Y[c + i * m] = B[i + c * ldb];
  solve_leaf(m, k, [=](int64_t p, int64_t j) { return conj_of(U[p + j * ldu]); }, Y, m);
  for (int64_t c = 0; c < m; ++c)
    for (int64_t i = 0; i < k; ++i) B[i + c * ldb] = Y[c + i * m];
}
/// B (k x m) := L^-1 B, L unit lower triangular k x k (getrf's factor).
template <typename T, typename K>
void trsm_left_lower_unit(const K& k_, int64_t k, int64_t m, const T* L, int64_t ldl, T* B, int64_t ldb) {
  if (k > kTrsmLeaf) {
    const int64_t k1 = k / 2, k2 = k - k1;
    trsm_left_lower_unit(k_, k1, m, L, ldl, B, ldb);
    gemm_single(k_, Op::NoTrans, Op::NoTrans, k2, m, k1, L + k1, ldl, B, ldb, B + k1, ldb);  // B2 -= L21 X1
    trsm_left_lower_unit(k_, k2, m, L + k1 + k1 * ldl, ldl, B + k1, ldb);
    return;
  }
  // Forward substitution per column: b(p+1:k) -= b(p) L(p+1:k, p), down L's columns (contiguous).
  for (int64_t c = 0; c < m; ++c) {
    T* b = B + c * ldb;
    for (int64_t p = 0; p + 1 < k; ++p) {
      const T* l = L + (p + 1) + p * ldl;
      axpy2_minus(k - p - 1, b[p], l, T(0), l, b + p + 1);
    }
  }
}

/// Row interchanges ipiv[first, last) (1-based rows of the block, as LAPACK's
/// laswp with incx = 1) on n columns of A.
template <typename T, typename P> void laswp(int64_t n, T* A, int64_t lda, int64_t first, int64_t last, const P* ipiv) {
  for (int64_t j = 0; j < n; ++j) {
    T* a = A + j * lda;
    for (int64_t i = first; i < last; ++i) {
      const int64_t p = static_cast<int64_t>(ipiv[i]) - 1;
      if (p != i) std::swap(a[i], a[p]);
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
    detail::herk_single(k, Uplo::Lower, Op::NoTrans, n2, n1, A21, lda, A22, lda);
  } else {
    T* A12 = A + n1 * lda;
    detail::trsm_left_upper(k, n1, n2, A, lda, A12, lda);
    detail::herk_single(k, Uplo::Upper, Op::ConjTrans, n2, n1, A12, lda, A22, lda);
  }
  const int64_t info = potrf(k, uplo, n2, A22, lda);
  return info ? info + n1 : 0;
}

/// P A = L U of m x n, LAPACK's info (the first zero pivot, 1-based; the
/// factorization completes) and pivots (1-based, P: the caller's integer).
/// Below kGetrfThreadedFrom the vendor's getrf; above, LAPACK's recursive
/// getrf2 on halves of the columns: getrf([A11; A21]), the swaps on the
/// right, A12 := L11^-1 A12, A22 -= A21 A12, getrf(A22), its swaps on the left.
template <typename T, typename K, typename P>
int64_t getrf(const K& k, int64_t m, int64_t n, T* A, int64_t lda, P* ipiv) {
  const int64_t mn = std::min(m, n);
  if (m * n < kGetrfThreadedFrom || mn < 2) return k.getrf(m, n, A, lda, ipiv);
  const int64_t n1 = mn / 2, n2 = n - n1;
  const int64_t info1 = getrf(k, m, n1, A, lda, ipiv);
  T* A12 = A + n1 * lda;
  T* A21 = A + n1;
  T* A22 = A12 + n1;
  detail::laswp(n2, A12, lda, 0, n1, ipiv);
  detail::trsm_left_lower_unit(k, n1, n2, A, lda, A12, lda);
  detail::gemm_single(k, Op::NoTrans, Op::NoTrans, m - n1, n2, n1, A21, lda, A12, lda, A22, lda);
  const int64_t info2 = getrf(k, m - n1, n2, A22, lda, ipiv + n1);
  for (int64_t i = n1; i < mn; ++i) ipiv[i] = static_cast<P>(ipiv[i] + n1);
  detail::laswp(n1, A, lda, n1, mn, ipiv);
  return info1 ? info1 : info2 ? info2 + n1 : 0;
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
  int64_t getrf(int64_t m, int64_t n, T* A, int64_t lda, lapack_int* ipiv) const {
    return blas::getrf(m, n, A, lda, ipiv);
  }
};

}  // namespace hetla::small
