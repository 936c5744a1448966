// The default build of hetla's small LU and the choice between it and the
// AVX2/FMA one (small_lu_avx2.cc), made once per process.
#include "kernels/host/small_cholesky.hpp"
#include "kernels/host/small_lu.hpp"

#include "kernels/host/small_lu_impl.hpp"

namespace hetla::small {
static_assert(kOwnGetrfMax <= small_lu::kMaxPivots, "the pivots are kept on the stack");

#ifdef HETLA_HAVE_AVX2_KERNELS
namespace avx2 {
int64_t getrf(int64_t m, int64_t n, double* A, int64_t lda, int64_t* ipiv);
int64_t getrf(int64_t m, int64_t n, float* A, int64_t lda, int64_t* ipiv);
int64_t getrf(int64_t m, int64_t n, double* A, int64_t lda, int32_t* ipiv);
int64_t getrf(int64_t m, int64_t n, float* A, int64_t lda, int32_t* ipiv);
}  // namespace avx2
#endif

namespace {

template <typename T, typename I> int64_t getrf(int64_t m, int64_t n, T* A, int64_t lda, I* ipiv) {
#ifdef HETLA_HAVE_AVX2_KERNELS
  if (own_kernels_avx2()) return avx2::getrf(m, n, A, lda, ipiv);
#endif
  return ::getrf_small(m, n, A, lda, ipiv);
}
}  // namespace

int64_t getrf_own(int64_t m, int64_t n, double* A, int64_t lda, int64_t* ipiv) { return getrf(m, n, A, lda, ipiv); }
int64_t getrf_own(int64_t m, int64_t n, float* A, int64_t lda, int64_t* ipiv) { return getrf(m, n, A, lda, ipiv); }
int64_t getrf_own(int64_t m, int64_t n, double* A, int64_t lda, int32_t* ipiv) { return getrf(m, n, A, lda, ipiv); }
int64_t getrf_own(int64_t m, int64_t n, float* A, int64_t lda, int32_t* ipiv) { return getrf(m, n, A, lda, ipiv); }

}  // namespace hetla::small
