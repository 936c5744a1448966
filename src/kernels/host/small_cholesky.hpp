// hetla's own Cholesky for small matrices (s, d, c, z), in the calling thread. The
// vendor's small calls are not independent of each other: OpenBLAS 0.3.21
// takes a buffer from its one memory pool on each call (a lock) and starts
// its threads in ?potrf from n = 64, so two threads calling dpotrf at n = 16
// reached 0.5-1.0x and at n = 64 1.3-2.0x the throughput of one. This kernel
// shares nothing (no lock, no allocation, no global state) and is built
// twice, for the default instruction set and for AVX2 with FMA, the one the
// CPU supports chosen at the first call (small_cholesky_impl.hpp).
#pragma once
#include <complex>
#include <cstdint>
#include <type_traits>

namespace hetla::small {

/// Orders up to which potrf runs this kernel.
inline constexpr int64_t kOwnPotrfMax = 128;

/// Whether potrf of element type T and order n runs this kernel.
template <typename T> constexpr bool potrf_own(int64_t n) {
  return (std::is_same_v<T, double> || std::is_same_v<T, float> || std::is_same_v<T, std::complex<double>> ||
          std::is_same_v<T, std::complex<float>>) && n <= kOwnPotrfMax;
}

/// A = L L^T in the lower triangle of A (n x n, leading dimension lda; the
/// strictly upper triangle is not touched); LAPACK's info: 0, or the order
/// of the leading minor that is not positive definite (a NaN fails too).
int64_t potrf_lower_own(int64_t n, double* A, int64_t lda);
int64_t potrf_lower_own(int64_t n, float* A, int64_t lda);
/// A = L L^H; the pivot is the diagonal's real part (its imaginary part is
/// ignored and written 0), as LAPACK's zpotrf.
int64_t potrf_lower_own(int64_t n, std::complex<double>* A, int64_t lda);
int64_t potrf_lower_own(int64_t n, std::complex<float>* A, int64_t lda);

/// The same for A = U^T U (U^H U) in the upper triangle.
int64_t potrf_upper_own(int64_t n, double* A, int64_t lda);
int64_t potrf_upper_own(int64_t n, float* A, int64_t lda);
int64_t potrf_upper_own(int64_t n, std::complex<double>* A, int64_t lda);
int64_t potrf_upper_own(int64_t n, std::complex<float>* A, int64_t lda);

/// Whether this CPU runs the AVX2/FMA build of hetla's own small kernels
/// (this Cholesky, small_lu.hpp, small_householder.hpp): checked once.
bool own_kernels_avx2();

/// Which build of the kernel this CPU runs: "avx2" or "generic".
const char* own_kernels_isa();

}  // namespace hetla::small
