// Precision-generic host kernels for the QR family (column-major, LAPACK
// semantics): Householder panel factorizations, block-reflector triangles,
// forming Q, scaling, and the reference LAPACK drivers used as baselines and
// in tests. One template per kernel dispatches on the precision.
#pragma once
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels/host/blas.hpp"
#include "util/pages.hpp"

namespace hetla::blas {

namespace qr_detail {
using namespace blas::detail;  // lapack_t, lp, is_s, is_d, is_c
/// Workspace length from a LAPACK query (work[0] holds the optimal size).
template <typename T> lapack_int query_size(const T& w) { return std::max<lapack_int>(1, lapack_int(std::real(w))); }
/// LAPACK's transpose letter for the precision: 'T' for real, 'C' for complex.
template <typename T> char trans_letter(Op op) {
  return op == Op::NoTrans ? 'N' : (is_complex_v<T> ? 'C' : 'T');
}
}  // namespace qr_detail

// ---- geqrf with the caller's workspace (lwork = -1: query into work[0]).
template <typename T> int64_t geqrf_work(int64_t m, int64_t n, T* A, int64_t lda, T* tau, T* work, lapack_int lwork) {
  using namespace qr_detail;
  if constexpr (is_s<T>) return lapack_info(LAPACKE_sgeqrf_work(LAPACK_COL_MAJOR, m, n, A, lda, tau, work, lwork));
  else if constexpr (is_d<T>) return lapack_info(LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, m, n, A, lda, tau, work, lwork));
  else if constexpr (is_c<T>)
    return lapack_info(LAPACKE_cgeqrf_work(LAPACK_COL_MAJOR, m, n, lp(A), lda, lp(tau), lp(work), lwork));
  else return lapack_info(LAPACKE_zgeqrf_work(LAPACK_COL_MAJOR, m, n, lp(A), lda, lp(tau), lp(work), lwork));
}

// ---- geqrf: QR factorization A = Q R (Householder, LAPACK storage).
template <typename T> int64_t geqrf(int64_t m, int64_t n, T* A, int64_t lda, T* tau) {
  using namespace qr_detail;
  T q{};
  geqrf_work(m, n, A, lda, tau, &q, -1);
  std::vector<T> work(static_cast<std::size_t>(query_size(q)));
  return geqrf_work(m, n, A, lda, tau, work.data(), static_cast<lapack_int>(work.size()));
}

// ---- geqrt3: recursive QR (m >= n) that also returns the n x n upper
// triangular T of the block reflector Q = I - V T V^H; T(i, i) = tau(i).
template <typename T> int64_t geqrt3(int64_t m, int64_t n, T* A, int64_t lda, T* Tm, int64_t ldt) {
  using namespace qr_detail;
  if constexpr (is_s<T>) return lapack_info(LAPACKE_sgeqrt3_work(LAPACK_COL_MAJOR, m, n, A, lda, Tm, ldt));
  else if constexpr (is_d<T>) return lapack_info(LAPACKE_dgeqrt3_work(LAPACK_COL_MAJOR, m, n, A, lda, Tm, ldt));
  else if constexpr (is_c<T>) return lapack_info(LAPACKE_cgeqrt3_work(LAPACK_COL_MAJOR, m, n, lp(A), lda, lp(Tm), ldt));
  else return lapack_info(LAPACKE_zgeqrt3_work(LAPACK_COL_MAJOR, m, n, lp(A), lda, lp(Tm), ldt));
}

// ---- larft (forward, columnwise): T of H(1)...H(k) = I - V T V^H, V is n x k.
template <typename T>
int64_t larft(int64_t n, int64_t k, const T* V, int64_t ldv, const T* tau, T* Tm, int64_t ldt) {
  using namespace qr_detail;
  if constexpr (is_s<T>)
    return lapack_info(LAPACKE_slarft_work(LAPACK_COL_MAJOR, 'F', 'C', n, k, V, ldv, tau, Tm, ldt));
  else if constexpr (is_d<T>)
    return lapack_info(LAPACKE_dlarft_work(LAPACK_COL_MAJOR, 'F', 'C', n, k, V, ldv, tau, Tm, ldt));
  else if constexpr (is_c<T>)
    return lapack_info(LAPACKE_clarft_work(LAPACK_COL_MAJOR, 'F', 'C', n, k, lp(V), ldv, lp(tau), lp(Tm), ldt));
  else return lapack_info(LAPACKE_zlarft_work(LAPACK_COL_MAJOR, 'F', 'C', n, k, lp(V), ldv, lp(tau), lp(Tm), ldt));
}

// ---- larfb (from the left, forward, columnwise): C = op(H) C with
// H = I - V T V^H, V m x k unit lower trapezoidal (its upper triangle is not
// read), C m x n: LAPACK's larfb (W = C^H V, n x k). larfb_left below is
// the same product with W = V^H C; this one serves m < k.
template <typename T>
void larfb_left_lapack(Op op, int64_t m, int64_t n, int64_t k, const T* V, int64_t ldv, const T* Tm, int64_t ldt,
                       T* C, int64_t ldc) {
  using namespace qr_detail;
  if (m == 0 || n == 0 || k == 0) return;
  const char tr = trans_letter<T>(op);
  T* work = util::thread_scratch<T>(static_cast<std::size_t>(n * k));  // no page faults per task
  const lapack_int ldw = static_cast<lapack_int>(n);
  if constexpr (is_s<T>)
    LAPACKE_slarfb_work(LAPACK_COL_MAJOR, 'L', tr, 'F', 'C', m, n, k, V, ldv, Tm, ldt, C, ldc, work, ldw);
  else if constexpr (is_d<T>)
    LAPACKE_dlarfb_work(LAPACK_COL_MAJOR, 'L', tr, 'F', 'C', m, n, k, V, ldv, Tm, ldt, C, ldc, work, ldw);
  else if constexpr (is_c<T>)
    LAPACKE_clarfb_work(LAPACK_COL_MAJOR, 'L', tr, 'F', 'C', m, n, k, lp(V), ldv, lp(Tm), ldt, lp(C), ldc,
                        lp(work), ldw);
  else
    LAPACKE_zlarfb_work(LAPACK_COL_MAJOR, 'L', tr, 'F', 'C', m, n, k, lp(V), ldv, lp(Tm), ldt, lp(C), ldc,
                        lp(work), ldw);
}

// ---- ungqr (orgqr for real types): the first n columns of H(1)...H(k), m >= n >= k.
// ungqr_work takes the caller's workspace (lwork >= n; lwork = -1 queries).
template <typename T>
int64_t ungqr_work(int64_t m, int64_t n, int64_t k, T* A, int64_t lda, const T* tau, T* work, lapack_int lwork) {
  using namespace qr_detail;
  if constexpr (is_s<T>) return lapack_info(LAPACKE_sorgqr_work(LAPACK_COL_MAJOR, m, n, k, A, lda, tau, work, lwork));
  else if constexpr (is_d<T>)
    return lapack_info(LAPACKE_dorgqr_work(LAPACK_COL_MAJOR, m, n, k, A, lda, tau, work, lwork));
  else if constexpr (is_c<T>)
    return lapack_info(LAPACKE_cungqr_work(LAPACK_COL_MAJOR, m, n, k, lp(A), lda, lp(tau), lp(work), lwork));
  else return lapack_info(LAPACKE_zungqr_work(LAPACK_COL_MAJOR, m, n, k, lp(A), lda, lp(tau), lp(work), lwork));
}
template <typename T> int64_t ungqr(int64_t m, int64_t n, int64_t k, T* A, int64_t lda, const T* tau) {
  T q{};
  ungqr_work(m, n, k, A, lda, tau, &q, -1);
  std::vector<T> work(static_cast<std::size_t>(qr_detail::query_size(q)));
  return ungqr_work(m, n, k, A, lda, tau, work.data(), static_cast<lapack_int>(work.size()));
}

// ---- trmm: B = alpha op(A) B (Left) or alpha B op(A) (Right), A triangular.
template <typename T>
void trmm(Side s, Uplo u, Op t, Diag d, int64_t m, int64_t n, T alpha, const T* A, int64_t lda, T* B,
          int64_t ldb) {
  using namespace qr_detail;
  const auto S = cblas_side(s);
  const auto U = cblas_uplo(u);
  const auto O = cblas_op(t);
  const auto D = cblas_diag(d);
  if constexpr (is_s<T>) cblas_strmm(CblasColMajor, S, U, O, D, m, n, alpha, A, lda, B, ldb);
  else if constexpr (is_d<T>) cblas_dtrmm(CblasColMajor, S, U, O, D, m, n, alpha, A, lda, B, ldb);
  else if constexpr (is_c<T>) cblas_ctrmm(CblasColMajor, S, U, O, D, m, n, &alpha, A, lda, B, ldb);
  else cblas_ztrmm(CblasColMajor, S, U, O, D, m, n, &alpha, A, lda, B, ldb);
}

// ---- larfb (from the left, forward, columnwise): C = op(H) C with
// H = I - V T V^H, V m x k unit lower trapezoidal (its upper triangle is not
// read), C m x n, m >= k:
//   W = V^H C (k x n),  W = op(T) W,  C -= V W.
// LAPACK's larfb forms the transpose, W = C^H V (n x k), and copies C's top
// rows into W row by row (strided). Here W stays k x n (the update C -= V W
// and the TRMMs on it), but from kLarfbTransposedGemmColumns columns of C
// its long-inner-dimension GEMM is formed as C2^H V2 (n x k) and added in
// transposed: one core, m = 7600, k = 256 / 384, GFLOP/s V^H C against C^H V:
// n = 128 59.6 / 55.4, 512 62.5 / 67.0, 1024 63.3 / 71.1, 2048 63.7 / 79.9
// (the update C -= V W 79-83; the 2-core EPYC host had V^H C ahead at n = 1536,
// k = 128: 39.2 against 36.4).
inline constexpr int64_t kLarfbTransposedGemmColumns = 512;

template <typename T>
void larfb_left(Op op, int64_t m, int64_t n, int64_t k, const T* V, int64_t ldv, const T* Tm, int64_t ldt, T* C,
                int64_t ldc) {
  if (m == 0 || n == 0 || k == 0) return;
  if (m < k) return larfb_left_lapack(op, m, n, k, V, ldv, Tm, ldt, C, ldc);
  const bool transposed = m > k && n >= kLarfbTransposedGemmColumns;
  // W, then (transposed) C2^H V2: one per-thread buffer, no page faults per task
  T* W = util::thread_scratch<T>(static_cast<std::size_t>((transposed ? 2 : 1) * n * k));
  for (int64_t j = 0; j < n; ++j) std::copy_n(C + j * ldc, k, W + j * k);  // W = C1
  trmm(Side::Left, Uplo::Lower, Op::ConjTrans, Diag::Unit, k, n, T(1), V, ldv, W, k);  // W = V1^H C1
  if (transposed) {
    T* Wt = W + n * k;
    gemm(Op::ConjTrans, Op::NoTrans, n, k, m - k, T(1), C + k, ldc, V + k, ldv, T(0), Wt, n);  // Wt = C2^H V2
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < k; ++i) W[i + j * k] += conj(Wt[j + i * n]);  // W += V2^H C2
  } else if (m > k) {
    gemm(Op::ConjTrans, Op::NoTrans, k, n, m - k, T(1), V + k, ldv, C + k, ldc, T(1), W, k);
  }
  trmm(Side::Left, Uplo::Upper, op, Diag::NonUnit, k, n, T(1), Tm, ldt, W, k);  // W = op(T) W
  if (m > k) gemm(Op::NoTrans, Op::NoTrans, m - k, n, k, T(-1), V + k, ldv, W, k, T(1), C + k, ldc);  // C2 -= V2 W
  trmm(Side::Left, Uplo::Lower, Op::NoTrans, Diag::Unit, k, n, T(1), V, ldv, W, k);  // W = V1 W
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < k; ++i) C[i + j * ldc] -= W[i + j * k];  // C1 -= V1 W
}

// ---- geqr2: unblocked Householder QR (LAPACK storage); work holds n entries.
template <typename T> int64_t geqr2(int64_t m, int64_t n, T* A, int64_t lda, T* tau, T* work) {
  using namespace qr_detail;
  if constexpr (is_s<T>) return lapack_info(LAPACKE_sgeqr2_work(LAPACK_COL_MAJOR, m, n, A, lda, tau, work));
  else if constexpr (is_d<T>) return lapack_info(LAPACKE_dgeqr2_work(LAPACK_COL_MAJOR, m, n, A, lda, tau, work));
  else if constexpr (is_c<T>)
    return lapack_info(LAPACKE_cgeqr2_work(LAPACK_COL_MAJOR, m, n, lp(A), lda, lp(tau), lp(work)));
  else return lapack_info(LAPACKE_zgeqr2_work(LAPACK_COL_MAJOR, m, n, lp(A), lda, lp(tau), lp(work)));
}

// ---- geqrt_recursive: what geqrt3 computes (QR of an m x n panel, m >= n,
// LAPACK storage, and the n x n upper triangular T of Q = I - V T V^H with
// T(i, i) = tau(i)), by the same column-halving recursion (Elmroth and
// Gustavson), but the recursion stops at kLeaf columns (geqr2 + larft) and
// the left half's reflectors reach the right half through larfb. geqrt3 goes
// down to single columns, each level a sweep of thin GEMMs over the whole
// height: measured on one core, 4000 x 128 takes 4.4 ms here vs 5.5 ms.
// Returns 0, or the negative info of a leaf's geqr2 that rejected an
// argument (LAPACK's numbering, as xerbla prints it; nothing factored from
// there on).
template <typename T> int64_t geqrt_recursive(int64_t m, int64_t n, T* A, int64_t lda, T* Tm, int64_t ldt) {
  constexpr int64_t kLeaf = 8;
  if (n <= kLeaf) {
    T tau[kLeaf], work[kLeaf];
    if (const int64_t info = blas::geqr2(m, n, A, lda, tau, work); info < 0) return info;
    blas::larft(m, n, A, lda, tau, Tm, ldt);
    return 0;
  }
  const int64_t n1 = n / 2, n2 = n - n1;
  T* A12 = A + n1 * lda;
  T* A22 = A12 + n1;
  T* T12 = Tm + n1 * ldt;
  T* T22 = T12 + n1;
  // [V1; R11] = QR of the left half; A(:, n1:) = H1^H A(:, n1:)
  if (const int64_t info = blas::geqrt_recursive(m, n1, A, lda, Tm, ldt); info < 0) return info;
  blas::larfb_left(Op::ConjTrans, m, n2, n1, A, lda, Tm, ldt, A12, lda);
  // [V2; R22] = QR of the right half below row n1
  if (const int64_t info = blas::geqrt_recursive(m - n1, n2, A22, lda, T22, ldt); info < 0) return info;
  // T12 = -T11 (V1^H V2) T22, V2 unit lower trapezoidal from row n1 down
  for (int64_t j = 0; j < n2; ++j)
    for (int64_t i = 0; i < n1; ++i) T12[i + j * ldt] = conj(A[n1 + j + i * lda]);
  blas::trmm(Side::Right, Uplo::Lower, Op::NoTrans, Diag::Unit, n1, n2, T(1), A22, lda, T12, ldt);
  if (m > n) blas::gemm(Op::ConjTrans, Op::NoTrans, n1, n2, m - n, T(1), A + n, lda, A22 + n2, lda, T(1), T12, ldt);
  blas::trmm(Side::Left, Uplo::Upper, Op::NoTrans, Diag::NonUnit, n1, n2, T(-1), Tm, ldt, T12, ldt);
  blas::trmm(Side::Right, Uplo::Upper, Op::NoTrans, Diag::NonUnit, n1, n2, T(1), T22, ldt, T12, ldt);
  return 0;
}

// ---- lascl: A = A * (cto / cfrom) without over/underflow (general matrix).
template <typename T> int64_t lascl(real_t<T> cfrom, real_t<T> cto, int64_t m, int64_t n, T* A, int64_t lda) {
  using namespace qr_detail;
  if constexpr (is_s<T>) return lapack_info(LAPACKE_slascl_work(LAPACK_COL_MAJOR, 'G', 0, 0, cfrom, cto, m, n, A, lda));
  else if constexpr (is_d<T>)
    return lapack_info(LAPACKE_dlascl_work(LAPACK_COL_MAJOR, 'G', 0, 0, cfrom, cto, m, n, A, lda));
  else if constexpr (is_c<T>)
    return lapack_info(LAPACKE_clascl_work(LAPACK_COL_MAJOR, 'G', 0, 0, cfrom, cto, m, n, lp(A), lda));
  else return lapack_info(LAPACKE_zlascl_work(LAPACK_COL_MAJOR, 'G', 0, 0, cfrom, cto, m, n, lp(A), lda));
}

/// Safe minimum over precision (LAPACK's SMLNUM = lamch('S') / lamch('P')).
template <typename T> real_t<T> small_number() {
  if constexpr (std::is_same_v<real_t<T>, float>) return LAPACKE_slamch('S') / LAPACKE_slamch('P');
  else return LAPACKE_dlamch('S') / LAPACKE_dlamch('P');
}

// ---- Reference LAPACK drivers (vendor baselines and test oracles).

/// ormqr / unmqr: C = op(Q) C or C op(Q), Q from geqrf (k reflectors).
template <typename T>
int64_t unmqr(Side side, Op op, int64_t m, int64_t n, int64_t k, const T* A, int64_t lda, const T* tau, T* C,
              int64_t ldc) {
  using namespace qr_detail;
  const char s = static_cast<char>(side), t = trans_letter<T>(op);
  auto call = [&](T* work, lapack_int lwork) -> lapack_int {
    if constexpr (is_s<T>)
      return lapack_info(LAPACKE_sormqr_work(LAPACK_COL_MAJOR, s, t, m, n, k, A, lda, tau, C, ldc, work, lwork));
    else if constexpr (is_d<T>)
      return lapack_info(LAPACKE_dormqr_work(LAPACK_COL_MAJOR, s, t, m, n, k, A, lda, tau, C, ldc, work, lwork));
    else if constexpr (is_c<T>)
      return lapack_info(
          LAPACKE_cunmqr_work(LAPACK_COL_MAJOR, s, t, m, n, k, lp(A), lda, lp(tau), lp(C), ldc, lp(work), lwork));
    else
      return lapack_info(
          LAPACKE_zunmqr_work(LAPACK_COL_MAJOR, s, t, m, n, k, lp(A), lda, lp(tau), lp(C), ldc, lp(work), lwork));
  };
  T q{};
  call(&q, -1);
  std::vector<T> work(static_cast<std::size_t>(query_size(q)));
  return call(work.data(), static_cast<lapack_int>(work.size()));
}

/// gelqf: A = L Q (LAPACK storage).
template <typename T> int64_t gelqf(int64_t m, int64_t n, T* A, int64_t lda, T* tau) {
  using namespace qr_detail;
  auto call = [&](T* work, lapack_int lwork) -> lapack_int {
    if constexpr (is_s<T>) return lapack_info(LAPACKE_sgelqf_work(LAPACK_COL_MAJOR, m, n, A, lda, tau, work, lwork));
    else if constexpr (is_d<T>)
      return lapack_info(LAPACKE_dgelqf_work(LAPACK_COL_MAJOR, m, n, A, lda, tau, work, lwork));
    else if constexpr (is_c<T>)
      return lapack_info(LAPACKE_cgelqf_work(LAPACK_COL_MAJOR, m, n, lp(A), lda, lp(tau), lp(work), lwork));
    else return lapack_info(LAPACKE_zgelqf_work(LAPACK_COL_MAJOR, m, n, lp(A), lda, lp(tau), lp(work), lwork));
  };
  T q{};
  call(&q, -1);
  std::vector<T> work(static_cast<std::size_t>(query_size(q)));
  return call(work.data(), static_cast<lapack_int>(work.size()));
}

/// gels: least squares / minimum norm solution of op(A) X = B; returns info.
template <typename T>
int64_t gels(Op op, int64_t m, int64_t n, int64_t nrhs, T* A, int64_t lda, T* B, int64_t ldb) {
  using namespace qr_detail;
  const char t = trans_letter<T>(op);
  auto call = [&](T* work, lapack_int lwork) -> lapack_int {
    if constexpr (is_s<T>)
      return lapack_info(LAPACKE_sgels_work(LAPACK_COL_MAJOR, t, m, n, nrhs, A, lda, B, ldb, work, lwork));
    else if constexpr (is_d<T>)
      return lapack_info(LAPACKE_dgels_work(LAPACK_COL_MAJOR, t, m, n, nrhs, A, lda, B, ldb, work, lwork));
    else if constexpr (is_c<T>)
      return lapack_info(LAPACKE_cgels_work(LAPACK_COL_MAJOR, t, m, n, nrhs, lp(A), lda, lp(B), ldb, lp(work), lwork));
    else
      return lapack_info(LAPACKE_zgels_work(LAPACK_COL_MAJOR, t, m, n, nrhs, lp(A), lda, lp(B), ldb, lp(work), lwork));
  };
  T q{};
  call(&q, -1);
  std::vector<T> work(static_cast<std::size_t>(query_size(q)));
  return call(work.data(), static_cast<lapack_int>(work.size()));
}

/// trcon: estimate of the reciprocal 1-norm condition number of the n x n upper
/// (uplo) triangular A (O(n^2); LAPACK's estimator, within a small factor).
template <typename T> real_t<T> trcon(Uplo uplo, int64_t n, const T* A, int64_t lda) {
  using namespace qr_detail;
  const char u = lapack_uplo(uplo);
  real_t<T> rcond = 0;
  if constexpr (is_s<T>) LAPACKE_strcon(LAPACK_COL_MAJOR, '1', u, 'N', n, A, lda, &rcond);
  else if constexpr (is_d<T>) LAPACKE_dtrcon(LAPACK_COL_MAJOR, '1', u, 'N', n, A, lda, &rcond);
  else if constexpr (is_c<T>) LAPACKE_ctrcon(LAPACK_COL_MAJOR, '1', u, 'N', n, lp(A), lda, &rcond);
  else LAPACKE_ztrcon(LAPACK_COL_MAJOR, '1', u, 'N', n, lp(A), lda, &rcond);
  return rcond;
}

/// gelsd: minimum-norm least squares by the SVD (divide and conquer). B(ldb >=
/// max(m, n)) holds the solutions on exit, s the min(m, n) singular values;
/// singular values <= rcond * s[0] count as zero. Returns info (> 0: the SVD
/// did not converge); `rank` is the effective rank.
template <typename T>
int64_t gelsd(int64_t m, int64_t n, int64_t nrhs, T* A, int64_t lda, T* B, int64_t ldb, real_t<T>* s, real_t<T> rcond,
              int64_t& rank) {
  using namespace qr_detail;
  lapack_int r = 0, info;
  if constexpr (is_s<T>) info = LAPACKE_sgelsd(LAPACK_COL_MAJOR, m, n, nrhs, A, lda, B, ldb, s, rcond, &r);
  else if constexpr (is_d<T>) info = LAPACKE_dgelsd(LAPACK_COL_MAJOR, m, n, nrhs, A, lda, B, ldb, s, rcond, &r);
  else if constexpr (is_c<T>) info = LAPACKE_cgelsd(LAPACK_COL_MAJOR, m, n, nrhs, lp(A), lda, lp(B), ldb, s, rcond, &r);
  else info = LAPACKE_zgelsd(LAPACK_COL_MAJOR, m, n, nrhs, lp(A), lda, lp(B), ldb, s, rcond, &r);
  rank = r;
  return info;
}

}  // namespace hetla::blas
