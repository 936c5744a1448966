// A whole small call as one task body run in the caller's thread: below the
// routine's crossover (tune/crossover.hpp) the column-major overloads call
// the vendor routine here, with no context, task graph, lock, thread binding
// or BLAS thread-count change, so they cost what the vendor costs and calls
// from several threads share nothing. The results and info are the tile
// algorithm's (LAPACK's, plus the non-finite pivot check of tile::potrf).
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "hetla/linalg.hpp"
#include "kernels/host/lapack_lu.hpp"
#include "kernels/host/lapack_qr.hpp"
#include "kernels/host/small_cholesky.hpp"
#include "kernels/host/small_factor.hpp"
#include "kernels/host/small_householder.hpp"
#include "kernels/host/small_lu.hpp"
#include "kernels/host/small_qr.hpp"
#include "runtime/reentry.hpp"
#include "tasks/cholesky.hpp"
#include "tune/crossover.hpp"

namespace hetla::tile {

/// Whether a call runs inline: no tile size asked for (Options::nb > 0 asks
/// for the tile algorithm), `product` (the sizes that set its flops, n^3 for
/// potrf) below the routine's crossover, and every size within LAPACK's int.
template <typename T>
bool runs_inline(tune::Routine r, const Options& opts, double product, int64_t largest_size) noexcept {
  return opts.nb <= 0 && largest_size <= std::numeric_limits<lapack_int>::max() &&
         !tune::above_crossover<T>(r, product);
}

namespace detail {
/// min(m, n) pivots of the vendor's int type; on the stack up to this many.
inline constexpr int64_t kStackPivots = 256;
}  // namespace detail

/// potrf in the caller's thread. Marked inside hetla (rt::ReentryScope): with
/// hetla's LAPACK names interposed, the vendor's own calls stay the vendor's.
/// Matrices up to kOwnPotrfMax: hetla's own kernel, which shares nothing
/// with other callers (kernels/host/small_cholesky.hpp). Elsewhere, where the
/// vendor's potrf would start its thread pool, the single-threaded
/// composition of kernels/host/small_factor.hpp.
template <typename T> int64_t inline_potrf(Uplo uplo, int64_t n, T* A, int64_t lda) {
  if (small::potrf_own<T>(n)) {
    const int64_t info = uplo == Uplo::Lower ? small::potrf_lower_own(n, A, lda) : small::potrf_upper_own(n, A, lda);
    return info != 0 ? info : detail::nonfinite_pivot(n, A, lda);
  }
  const rt::ReentryScope inside;
  const small::ThreadedSizeCall counted(small::potrf_composed(n));
  const int64_t info = small::potrf_composed(n) ? small::potrf(small::BlasKernels<T>{}, uplo, n, A, lda)
                                                : blas::potrf(uplo, n, A, lda);
  return info != 0 ? info : detail::nonfinite_pivot(n, A, lda);
}

/// getrf in the caller's thread; ipiv (min(m, n) entries) as hetla's int64_t.
/// Real matrices up to kOwnGetrfMax rows and columns: hetla's own kernel
/// (kernels/host/small_lu.hpp), which shares nothing with other callers.
template <typename T> int64_t inline_getrf(int64_t m, int64_t n, T* A, int64_t lda, int64_t* ipiv) {
  if constexpr (!is_complex_v<T>) {
    if (small::getrf_own<T>(m, n)) return small::getrf_own(m, n, A, lda, ipiv);
  }
  const rt::ReentryScope inside;
  const int64_t k = std::min(m, n);
  lapack_int stack[detail::kStackPivots];
  std::vector<lapack_int> heap(k > detail::kStackPivots ? static_cast<std::size_t>(k) : 0);
  lapack_int* p = k > detail::kStackPivots ? heap.data() : stack;
  // Where the vendor's getrf would start its thread pool while another call
  // may use it: the single-threaded composition.
  const small::ThreadedSizeCall counted(small::getrf_composable(m, n));
  const int64_t info = counted.concurrent() ? small::getrf(small::BlasKernels<T>{}, m, n, A, lda, p)
                                            : blas::getrf(m, n, A, lda, p);
  for (int64_t i = 0; i < k; ++i) ipiv[i] = p[i];
  return info;
}

namespace detail {
/// small_qr.hpp's composition with hetla's own kernel for its panels.
template <typename T> struct OwnPanelQrKernels : small::BlasQrKernels<T> {
  void geqr2(int64_t m, int64_t n, T* A, int64_t lda, T* tau, T*) const { small::geqrf_own(m, n, A, lda, tau); }
};
}  // namespace detail

/// geqrf in the caller's thread. Up to 128 columns (and 2048 rows) hetla's
/// own kernel, which shares nothing with other callers
/// (kernels/host/small_householder.hpp); where the composition below takes
/// the size, that composition with the kernel for its panels (its gemm
/// updates were faster than the kernel alone: busy machine, 1000 calls,
/// us kernel / composition, d96 113-146 / 83-96, z128 623-660 / 496-542).
/// Else, up to 128 columns, the
/// vendor's geqrf runs its unblocked code (LAPACK's crossover NX = 128),
/// which needs n words of workspace: kept on the stack, no query, no
/// allocation. Where that code would start the vendor's thread pool, the
/// single-threaded blocked QR of kernels/host/small_qr.hpp.
template <typename T> void inline_geqrf(int64_t m, int64_t n, T* A, int64_t lda, T* tau) {
  if (small::geqrf_own(m, n)) {
    if (!small::geqrf_composed<T>(m, n)) return small::geqrf_own(m, n, A, lda, tau);
    const rt::ReentryScope inside;
    return small::geqrf(detail::OwnPanelQrKernels<T>{}, m, n, A, lda, tau);
  }
  const rt::ReentryScope inside;
  constexpr int64_t kStackWork = 128;
  if (small::geqrf_composed<T>(m, n)) {
    small::geqrf(small::BlasQrKernels<T>{}, m, n, A, lda, tau);
  } else if (n <= kStackWork) {
    T work[kStackWork];
    blas::geqrf_work(m, n, A, lda, tau, work, static_cast<lapack_int>(n));
  } else {
    blas::geqrf(m, n, A, lda, tau);
  }
}

/// potrs in the caller's thread: the vendor's two triangular solves (what its
/// potrs calls), A = L L^H or U^H U from potrf.
template <typename T>
void inline_potrs(Uplo uplo, int64_t n, int64_t nrhs, const T* A, int64_t lda, T* B, int64_t ldb) {
  const rt::ReentryScope inside;
  const bool lower = uplo == Uplo::Lower;
  blas::trsm(Side::Left, uplo, lower ? Op::NoTrans : Op::ConjTrans, Diag::NonUnit, n, nrhs, T(1), A, lda, B, ldb);
  blas::trsm(Side::Left, uplo, lower ? Op::ConjTrans : Op::NoTrans, Diag::NonUnit, n, nrhs, T(1), A, lda, B, ldb);
}

/// getrs in the caller's thread; ipiv (n entries, 1-based) as hetla's int64_t.
template <typename T>
void inline_getrs(Op trans, int64_t n, int64_t nrhs, const T* A, int64_t lda, const int64_t* ipiv, T* B, int64_t ldb) {
  const rt::ReentryScope inside;
  lapack_int stack[detail::kStackPivots];
  std::vector<lapack_int> heap(n > detail::kStackPivots ? static_cast<std::size_t>(n) : 0);
  lapack_int* p = n > detail::kStackPivots ? heap.data() : stack;
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<lapack_int>(ipiv[i]);
  blas::getrs(trans, n, nrhs, A, lda, p, B, ldb);
}

/// ungqr in the caller's thread. Up to 128 columns the vendor runs its
/// unblocked code (as geqrf), which needs n words: on the stack, no query.
/// Where that code would start the vendor's thread pool, the blocked
/// single-threaded composition of kernels/host/small_qr.hpp.
template <typename T> void inline_ungqr(int64_t m, int64_t n, int64_t k, T* A, int64_t lda, const T* tau) {
  const rt::ReentryScope inside;
  constexpr int64_t kStackWork = 128;
  if (small::ungqr_composed<T>(m, n, k)) {
    small::ungqr(small::BlasQrKernels<T>{}, m, n, A, lda, tau);
  } else if (n <= kStackWork) {
    T work[kStackWork];
    blas::ungqr_work(m, n, k, A, lda, tau, work, static_cast<lapack_int>(std::max<int64_t>(n, 1)));
  } else {
    blas::ungqr(m, n, k, A, lda, tau);
  }
}

/// gemm in the caller's thread (the batched products).
template <typename T>
void inline_gemm(Op ta, Op tb, int64_t m, int64_t n, int64_t k, T alpha, const T* A, int64_t lda, const T* B,
                 int64_t ldb, T beta, T* C, int64_t ldc) {
  const rt::ReentryScope inside;
  blas::gemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

}  // namespace hetla::tile
