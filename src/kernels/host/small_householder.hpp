// hetla's own Householder QR for small matrices, in the calling thread, in
// LAPACK's geqrf layout (R on and above the diagonal, the reflectors below
// it with their unit leading entry implicit, tau as ?larfg's), so that the
// vendor's ?ormqr/?unmqr/?orgqr/?ungqr take its output. Up to 128 columns
// the vendor's geqrf runs LAPACK's unblocked geqr2: per column a ?larfg
// (?nrm2, ?scal) and a ?larf (?gemv, ?ger), BLAS-2 calls each with its fixed
// cost, and from m (n - 1) about 8192 (complex 4096) on OpenBLAS's thread
// pool (small_qr.hpp). This kernel fuses them per column
// (small_householder_impl.hpp); it shares nothing (no lock, no allocation,
// no workspace, no global state) and is built twice, as small_cholesky.hpp,
// for the default instruction set and for AVX2 with FMA.
#pragma once
#include <complex>
#include <cstdint>

namespace hetla::small {

/// The most columns and rows of a geqrf this kernel takes (up to 128
/// columns the vendor runs geqr2): measured faster than it from 1 x 1 to
/// 128 x 128 and up to 2048 x 64, also where OpenBLAS threads it (2 cores,
/// wall time, us own / vendor: d 1024 x 32 137 / 363, 2048 x 64 1664 / 2950;
/// z 2048 x 8 140 / 187, 2048 x 64 3729 / 5728).
inline constexpr int64_t kOwnGeqrfMaxCols = 128;
inline constexpr int64_t kOwnGeqrfMaxRows = 2048;

/// Whether geqrf of m x n runs this kernel.
inline bool geqrf_own(int64_t m, int64_t n) { return n <= kOwnGeqrfMaxCols && m <= kOwnGeqrfMaxRows; }

/// LAPACK's geqrf (geqr2) of the m x n matrix A (leading dimension lda);
/// tau: min(m, n) entries. No workspace.
void geqrf_own(int64_t m, int64_t n, float* A, int64_t lda, float* tau);
void geqrf_own(int64_t m, int64_t n, double* A, int64_t lda, double* tau);
void geqrf_own(int64_t m, int64_t n, std::complex<float>* A, int64_t lda, std::complex<float>* tau);
void geqrf_own(int64_t m, int64_t n, std::complex<double>* A, int64_t lda, std::complex<double>* tau);

}  // namespace hetla::small
