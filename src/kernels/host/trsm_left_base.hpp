// The Left-side base case of trsm_recursive, solved through the transpose.
// Single-threaded OpenBLAS (SkylakeX kernels) runs its Left-side trsm at
// 2-3x the time of the Right-side one on the base blocks (B 32x256: Left
// Lower NoTrans Unit 45 us, the Right analogue on B^T 16 us, d). So
//   op(A) X = alpha B   <=>   X^T op(A)^T = alpha B^T
// is solved as a Right-side trsm on a transposed copy of B: the same
// substitution on the same numbers, so the same backward error (no inverse
// is formed). With both transposes, B 32x256: d 24-26 against 42-47 us,
// z 52-57 against 69-80, s 20-21 against 29-31, c 37-41 against 50-61
// (every Uplo and Op alike); B 16x256: d 11 against 19, z 22 against 28.
#pragma once
#include <algorithm>
#include <complex>
#include <cstdint>
#include <type_traits>

#include "kernels/host/blas.hpp"
#include "util/pages.hpp"

namespace hetla::blas {

namespace detail {
/// dst (n x k, leading dimension ldd) = src^T, or src^H where Conj (src:
/// k x n, leading dimension lds), in 16x16 blocks so that neither side
/// strides through a whole column per element. Both transposes of a 32x256
/// block: 4.6 us (d), 8.2 (z); 7.1 and 8.7 with 8x8 blocks. Not inlined:
/// inlined into the caller GCC made it 1.5x slower (d, -O3).
template <bool Conj, typename T>
[[gnu::noinline]] void transpose_block(int64_t k, int64_t n, const T* src, int64_t lds, T* dst, int64_t ldd) {
  constexpr int64_t bs = 16;
  for (int64_t j0 = 0; j0 < n; j0 += bs) {
    const int64_t j1 = std::min(n, j0 + bs);
    for (int64_t i0 = 0; i0 < k; i0 += bs) {
      const int64_t i1 = std::min(k, i0 + bs);
      for (int64_t i = i0; i < i1; ++i)
        for (int64_t j = j0; j < j1; ++j) {
          if constexpr (Conj && is_complex_v<T>) dst[j + i * ldd] = std::conj(src[i + j * lds]);
          else dst[j + i * ldd] = src[i + j * lds];
        }
    }
  }
}
}  // namespace detail

/// Columns of B solved per transposed block: bounds the per-thread buffer
/// (m <= the Left recursion base) and keeps it in L2 (16 x 264 z: 68 KB).
inline constexpr int64_t kTrsmLeftBaseColumns = 256;

/// blas::trsm with Side::Left, through a Right-side trsm on B^T (or B^H for
/// ConjTrans): op(A) X = alpha B, A k x k (k = m), B m x n.
template <typename T>
void trsm_left_transposed(Uplo uplo, Op op, Diag diag, int64_t m, int64_t n, T alpha, const T* A, int64_t lda, T* B,
                          int64_t ldb) {
  // X^T op(A)^T = alpha B^T with op(A)^T = A^T (NoTrans) or A (Trans); for
  // ConjTrans, op(A)^T = conj(A) has no BLAS op, so conjugate both sides:
  // X^H A = conj(alpha) B^H.
  const bool conj = is_complex_v<T> && op == Op::ConjTrans;
  const Op rop = op == Op::NoTrans ? Op::Trans : Op::NoTrans;
  T ralpha = alpha;
  if constexpr (is_complex_v<T>) {
    if (conj) ralpha = std::conj(alpha);
  }
  // One workspace per thread, grown once (tasks run on many threads at once).
  // Its leading dimension is padded off a power of two (8 elements; both
  // transposes of 32x256, d, 8x8 blocks: 6.7 against 7.2 us unpadded).
  const int64_t nc_max = std::min(n, kTrsmLeftBaseColumns);
  const int64_t ldt = nc_max + 8;
  T* Bt = util::thread_scratch<T>(static_cast<std::size_t>(ldt * m), util::ScratchSlot::TrsmBase);
  for (int64_t j0 = 0; j0 < n; j0 += nc_max) {
    const int64_t nc = std::min(nc_max, n - j0);
    T* Bj = B + j0 * ldb;
    if (conj) detail::transpose_block<true>(m, nc, Bj, ldb, Bt, ldt);
    else detail::transpose_block<false>(m, nc, Bj, ldb, Bt, ldt);
    blas::trsm(Side::Right, uplo, rop, diag, nc, m, ralpha, A, lda, Bt, ldt);
    if (conj) detail::transpose_block<true>(nc, m, Bt, ldt, Bj, ldb);
    else detail::transpose_block<false>(nc, m, Bt, ldt, Bj, ldb);
  }
}

}  // namespace hetla::blas
