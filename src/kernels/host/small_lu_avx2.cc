// The AVX2/FMA build of hetla's small LU (small_lu_impl.hpp); this file alone
// is compiled with -mavx2 -mfma (src/CMakeLists.txt), and small_lu.cc calls
// it only where the CPU has both.
#include <cstdint>
#ifdef HETLA_HAVE_AVX2_KERNELS
#include "kernels/host/small_lu_impl.hpp"

namespace hetla::small::avx2 {
int64_t getrf(int64_t m, int64_t n, double* A, int64_t lda, int64_t* ipiv) { return ::getrf_small(m, n, A, lda, ipiv); }
int64_t getrf(int64_t m, int64_t n, float* A, int64_t lda, int64_t* ipiv) { return ::getrf_small(m, n, A, lda, ipiv); }
int64_t getrf(int64_t m, int64_t n, double* A, int64_t lda, int32_t* ipiv) { return ::getrf_small(m, n, A, lda, ipiv); }
int64_t getrf(int64_t m, int64_t n, float* A, int64_t lda, int32_t* ipiv) { return ::getrf_small(m, n, A, lda, ipiv); }
}  // namespace hetla::small::avx2
#endif
