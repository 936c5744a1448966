// hetla's own LU with partial pivoting for small real matrices, in the
// calling thread: the vendor's dgetrf (OpenBLAS 0.3.21) took a lock for its
// memory pool on each call, 13 us at n = 32 (2 GFLOP/s) and its 2 threads at
// n = 128 (114 us). This kernel shares nothing (no lock, no allocation, no
// global state) and is built twice, for the default instruction set and for
// AVX2 with FMA, the one the CPU supports chosen at the first call
// (small_lu_impl.hpp; the choice is small_cholesky.hpp's own_kernels_isa()).
#pragma once
#include <cstdint>
#include <type_traits>

namespace hetla::small {

/// Rows and columns up to which getrf of a real matrix runs this kernel.
inline constexpr int64_t kOwnGetrfMax = 128;

/// Whether getrf of element type T, m x n, runs this kernel.
template <typename T> constexpr bool getrf_own(int64_t m, int64_t n) {
  return (std::is_same_v<T, double> || std::is_same_v<T, float>) && m <= kOwnGetrfMax && n <= kOwnGetrfMax;
}

/// A = P L U as LAPACK's getrf (m, n <= kOwnGetrfMax): L unit lower in the
/// strict lower part, U in the upper, ipiv (min(m, n) entries) 1-based, the
/// pivot the first of the largest |a| in its column (idamax), whole rows
/// interchanged; returns LAPACK's info, the first exactly zero pivot (the
/// factorization goes on; a NaN is not reported, as LAPACK's).
int64_t getrf_own(int64_t m, int64_t n, double* A, int64_t lda, int64_t* ipiv);
int64_t getrf_own(int64_t m, int64_t n, float* A, int64_t lda, int64_t* ipiv);
/// The same with the pivots of LAPACK's LP64 INTEGER.
int64_t getrf_own(int64_t m, int64_t n, double* A, int64_t lda, int32_t* ipiv);
int64_t getrf_own(int64_t m, int64_t n, float* A, int64_t lda, int32_t* ipiv);

}  // namespace hetla::small
