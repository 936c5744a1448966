// The AVX2/FMA build of hetla's small Cholesky (small_cholesky_impl.hpp);
// this file alone is compiled with -mavx2 -mfma (src/CMakeLists.txt), and
// small_cholesky.cc calls it only where the CPU has both.
#include <cstdint>
#ifdef HETLA_HAVE_AVX2_KERNELS
#include "kernels/host/small_cholesky_impl.hpp"

namespace hetla::small::avx2 {
int64_t potrf_lower(int64_t n, double* A, int64_t lda) { return ::potrf_lower(n, A, lda); }
int64_t potrf_lower(int64_t n, float* A, int64_t lda) { return ::potrf_lower(n, A, lda); }
int64_t potrf_upper(int64_t n, double* A, int64_t lda) { return ::potrf_upper(n, A, lda); }
int64_t potrf_upper(int64_t n, float* A, int64_t lda) { return ::potrf_upper(n, A, lda); }
int64_t cpotrf_lower(int64_t n, double* A, int64_t lda) { return ::cpotrf_lower(n, A, lda); }
int64_t cpotrf_lower(int64_t n, float* A, int64_t lda) { return ::cpotrf_lower(n, A, lda); }
int64_t cpotrf_upper(int64_t n, double* A, int64_t lda) { return ::cpotrf_upper(n, A, lda); }
int64_t cpotrf_upper(int64_t n, float* A, int64_t lda) { return ::cpotrf_upper(n, A, lda); }
}  // namespace hetla::small::avx2
#endif
