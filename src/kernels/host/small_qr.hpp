// Householder QR of a small matrix that stays in the calling thread. Up to
// 128 columns the vendor's geqrf runs LAPACK's unblocked geqr2, whose ?larf
// calls ?gemv and ?ger/?gerc on the whole trailing matrix; OpenBLAS 0.3.21
// (pthreads) runs those on its thread pool once m (n - 1) passes about 8192
// (real) or 4096 (complex) (measured with the pool's CPU time, getrusage
// SELF - THREAD: dgeqrf 90 x 90 and 256 x 32 single, 96 x 95 and 256 x 36
// threaded; zgeqrf 64 x 64 and 512 x 8 single, 80 x 80 threaded; a grid of
// m x n, n = 8..128, puts the edge at m (n - 1) = 7.7-8.8 k, complex
// 4.0-4.4 k; tall panels of 2 or 3 columns stay single). There the
// threads cost more than they bring and make the time erratic (idle machine,
// 2000 calls: z96 380-835 us, z128 690-1480 us run to run), and two callers
// queue on the pool's one lock. So above that size the factorization is
// composed here, as LAPACK's blocked geqrf, of vendor calls at sizes OpenBLAS
// runs single-threaded: geqr2 on panels of kGeqrfPanel columns (narrower
// where the panel is tall, so its ?larf stays below the thresholds), the
// panel's T as larft's (from one gemm, V^H V), and the trailing update
// C := H^H C = C - V (T^H (V^H C)) as three gemm products (gemm_single's
// blocks: m n k <= 64^3, complex 32^3).
// The result is LAPACK's layout: R on and above the diagonal, the reflectors
// below it, tau as geqrf's (ormqr, orgqr/ungqr take it as the vendor's).
// One template for s, d, c, z; the vendor entry points come from `K`, as in
// small_factor.hpp (C++ API: LAPACKE/CBLAS; Fortran names: the vendor table).
//
// K provides, beside small_factor.hpp's gemm (C -= op(A) op(B)):
//   void geqr2(int64_t m, int64_t n, T* A, int64_t lda, T* tau, T* work)    work: n entries
//   void ungqr(int64_t m, int64_t n, int64_t k, T* A, int64_t lda, const T* tau, T* work)   work: n entries
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/host/lapack_qr.hpp"
#include "kernels/host/small_factor.hpp"

namespace hetla::small {

/// The largest m (n - 1) at which the vendor's geqr2 (its ?larf: ?gemv and
/// ?ger/?gerc of m x (n - 1) for the first column) stays on one thread, as
/// measured above for d and z; s and c assumed as d and z (OpenBLAS's
/// interface uses the same thresholds for both widths).
template <typename T> inline constexpr int64_t kGeqr2SingleMax = is_complex_v<T> ? 4095 : 8192;
/// Panel width of the composition (measured, thread CPU time, 8 / 16 / 32:
/// dgeqrf 128 x 128 215 / 207 / 232 us, 160 x 160 379 / 355 / 409; zgeqrf
/// 96 x 96 199 / 225 / 296, 160 x 160 792 / 940 / 1057; the vendor's geqr2 on
/// one thread 318, 558, 262, 1492), and the largest side it takes.
template <typename T> inline constexpr int64_t kGeqrfPanel = is_complex_v<T> ? 8 : 16;
inline constexpr int64_t kGeqrfComposedMax = 512;

/// Whether geqrf of m x n runs the composition (else the vendor's geqrf):
/// the vendor's geqr2 would start its threads, and the composition takes
/// the size (m <= 512: panels at least 7 wide).
template <typename T> bool geqrf_composed(int64_t m, int64_t n) {
  return n > 1 && m * (n - 1) > kGeqr2SingleMax<T> && m <= kGeqrfComposedMax && n <= kGeqrfComposedMax;
}

namespace detail {
/// larft's T (forward, columnwise; k x k upper triangular, zero below) of
/// the k reflectors in V (m x k, unit diagonal and zeros above it stored):
/// T(0:i, i) = -tau(i) T(0:i, 0:i) V(:, 0:i)^H V(:, i), the inner products
/// by one gemm (G = -V^H V, the k x k x m flops of larft's gemvs) and the
/// triangular products (k^3 / 6) by loops. The vendor's dlarft (a dgemv and
/// a dtrmv per column) goes onto the thread pool at k = 32: 96 x 32 88 us a
/// call, 45 us of it on the pool's threads (96 x 16: 3.7 us); in the
/// composition at 96 x 96, panels of 32: 191 of 352 us, this 19 us.
template <typename T, typename K>
void qr_triangle(const K& k_, int64_t m, int64_t k, const T* V, int64_t ldv, const T* tau, T* Tm, int64_t ldt) {
  std::fill(Tm, Tm + k * ldt, T(0));
  gemm_single(k_, Op::ConjTrans, Op::NoTrans, k, k, m, V, ldv, V, ldv, Tm, ldt);  // below: -V^H V, above: T
  for (int64_t i = 0; i < k; ++i) {
    // Column i above the diagonal holds -V(:, 0:i)^H V(:, i) = -G(0:i, i);
    // T(r, i) = -tau(i) sum_{c = r..i-1} T(r, c) G(c, i), rows from the top
    // (T(r, c), c > r, of earlier columns are final; G(c, i), c >= r, not yet overwritten).
    T* ti = Tm + i * ldt;
    for (int64_t r = 0; r < i; ++r) {
      T s(0);
      for (int64_t c = r; c < i; ++c) s += Tm[r + c * ldt] * ti[c];
      ti[r] = tau[i] * s;
    }
    ti[i] = tau[i];
  }
  for (int64_t j = 0; j < k; ++j) std::fill(Tm + j + 1 + j * ldt, Tm + k + j * ldt, T(0));
}

/// Workspace of the blocked QR and Q of an m x n matrix with panels of nb:
/// V (m x nb, the panel's reflectors with their unit diagonal and zeros
/// above it, for a plain gemm), Tm (nb x nb, zero below its diagonal), W and
/// TW (nb x n), and geqr2's/ungqr's nb entries.
template <typename T> struct BlockWork {
  std::vector<T> buf;
  T *V, *Tm, *W, *TW, *work;
  BlockWork(int64_t m, int64_t n, int64_t nb)
      : buf(static_cast<std::size_t>(m * nb + nb * nb + 2 * nb * n + nb)),
        V(buf.data()),
        Tm(V + m * nb),
        W(Tm + nb * nb),
        TW(W + nb * n),
        work(TW + nb * n) {}
};

/// The jb reflectors stored in P (mp x jb, geqrf's layout) applied to the
/// mp x n2 columns right of them, C = P + jb lda: C := H^H C (trans =
/// ConjTrans, geqrf) or H C (NoTrans, ungqr), H = I - V T V^H, as three
/// single-threaded gemm products: W = -(V^H C), TW = -(op(T) W), C -= V TW.
/// Workspace V (mp x jb), Tm (jb x jb), W and TW (jb x n2).
template <typename T, typename K>
void apply_block_reflector(const K& k, Op trans, int64_t mp, int64_t n2, int64_t jb, T* P, int64_t lda,
                           const T* tau, T* V, T* Tm, T* W, T* TW) {
  for (int64_t j = 0; j < jb; ++j)
    for (int64_t r = 0; r < mp; ++r) V[r + j * mp] = r < j ? T(0) : r == j ? T(1) : P[r + j * lda];
  qr_triangle(k, mp, jb, V, mp, tau, Tm, jb);
  T* C = P + jb * lda;
  std::fill(W, W + jb * n2, T(0));
  std::fill(TW, TW + jb * n2, T(0));
  gemm_single(k, Op::ConjTrans, Op::NoTrans, jb, n2, mp, V, mp, C, lda, W, jb);
  gemm_single(k, trans, Op::NoTrans, jb, n2, jb, Tm, jb, W, jb, TW, jb);
  gemm_single(k, Op::NoTrans, Op::NoTrans, mp, n2, jb, V, mp, TW, jb, C, lda);
}
}  // namespace detail

/// A = Q R of m x n in LAPACK's storage (geqrf's A and tau, min(m, n)
/// entries), LAPACK's blocked algorithm on single-threaded vendor calls.
template <typename T, typename K> void geqrf(const K& k, int64_t m, int64_t n, T* A, int64_t lda, T* tau) {
  const int64_t mn = std::min(m, n);
  if (!geqrf_composed<T>(m, n)) {
    std::vector<T> work(static_cast<std::size_t>(std::max<int64_t>(n, 1)));
    return k.geqr2(m, n, A, lda, tau, work.data());
  }
  // The panel as wide as kGeqrfPanel, narrower where its first ?larf (m x
  // (nb - 1)) would reach the threads.
  const int64_t nb = std::clamp<int64_t>(kGeqr2SingleMax<T> / m, 2, kGeqrfPanel<T>);
  detail::BlockWork<T> ws(m, n, nb);
  T *V = ws.V, *Tm = ws.Tm, *W = ws.W, *TW = ws.TW, *work = ws.work;
  for (int64_t i = 0; i < mn; i += nb) {
    const int64_t jb = std::min(nb, mn - i), mp = m - i, n2 = n - i - jb;
    T* P = A + i + i * lda;
    k.geqr2(mp, jb, P, lda, tau + i, work);
    if (n2 > 0) detail::apply_block_reflector(k, Op::ConjTrans, mp, n2, jb, P, lda, tau + i, V, Tm, W, TW);
  }
}

/// Whether ungqr (orgqr) of m x n from k reflectors runs the composition
/// below: its unblocked org2r applies the reflectors with the same ?larf as
/// geqr2 (the same thresholds); k = n only (Q of a geqrf's m x n, m >= n).
template <typename T> bool ungqr_composed(int64_t m, int64_t n, int64_t k) {
  return k == n && m >= n && geqrf_composed<T>(m, n);
}

/// The m x n Q = H(1) ... H(n) of geqrf's reflectors in A (and tau), over
/// them, as LAPACK's blocked orgqr: blocks of columns from the last, each
/// applying its block reflector to the columns right of it (C := H C =
/// C - V (T (V^H C)), three gemm products) and then forming its own columns
/// by the vendor's ungqr on the block (unblocked at these widths); rows
/// above the block zero. Measured (loaded machine, best of 7; vendor
/// threaded / on one thread / composition): dorgqr 96 x 96 196 / 160 / 128
/// us, 128 x 128 530 / 262 / 154, 256 x 64 344 / 153 / 119; zungqr 708 / 255
/// / 184, 1378 / 559 / 404, 692 / 406 / 400.
template <typename T, typename K> void ungqr(const K& k, int64_t m, int64_t n, T* A, int64_t lda, const T* tau) {
  const int64_t nb = std::clamp<int64_t>(kGeqr2SingleMax<T> / m, 2, kGeqrfPanel<T>);
  detail::BlockWork<T> ws(m, n, nb);
  T *V = ws.V, *Tm = ws.Tm, *W = ws.W, *TW = ws.TW, *work = ws.work;
  for (int64_t i = ((n - 1) / nb) * nb; i >= 0; i -= nb) {
    const int64_t jb = std::min(nb, n - i), mp = m - i, n2 = n - i - jb;
    T* P = A + i + i * lda;
    if (n2 > 0) detail::apply_block_reflector(k, Op::NoTrans, mp, n2, jb, P, lda, tau + i, V, Tm, W, TW);
    k.ungqr(mp, jb, jb, P, lda, tau + i, work);
    for (int64_t j = i; j < i + jb; ++j) std::fill(A + j * lda, A + i + j * lda, T(0));
  }
}

/// K of the C++ API for geqrf and ungqr: small_factor.hpp's, with LAPACKE's
/// geqr2 and ungqr (inside a ReentryScope, as there).
template <typename T> struct BlasQrKernels : BlasKernels<T> {
  void geqr2(int64_t m, int64_t n, T* A, int64_t lda, T* tau, T* work) const { blas::geqr2(m, n, A, lda, tau, work); }
  void ungqr(int64_t m, int64_t n, int64_t k, T* A, int64_t lda, const T* tau, T* work) const {
    blas::ungqr_work(m, n, k, A, lda, tau, work, static_cast<lapack_int>(std::max<int64_t>(n, 1)));
  }
};

}  // namespace hetla::small
