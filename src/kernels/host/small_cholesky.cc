// The default build of hetla's small Cholesky and the choice between it and
// the AVX2/FMA one (small_cholesky_avx2.cc), made once per process.
#include "kernels/host/small_cholesky.hpp"

#include "kernels/host/small_cholesky_impl.hpp"

namespace hetla::small {
static_assert(kOwnPotrfMax <= kOwnOrderMax, "the upper factorization's stack holds kOwnOrderMax rows");

#ifdef HETLA_HAVE_AVX2_KERNELS
namespace avx2 {
int64_t potrf_lower(int64_t n, double* A, int64_t lda);
int64_t potrf_lower(int64_t n, float* A, int64_t lda);
int64_t potrf_upper(int64_t n, double* A, int64_t lda);
int64_t potrf_upper(int64_t n, float* A, int64_t lda);
int64_t cpotrf_lower(int64_t n, double* A, int64_t lda);
int64_t cpotrf_lower(int64_t n, float* A, int64_t lda);
int64_t cpotrf_upper(int64_t n, double* A, int64_t lda);
int64_t cpotrf_upper(int64_t n, float* A, int64_t lda);
}  // namespace avx2
#endif

namespace {

template <typename T> int64_t lower(int64_t n, T* A, int64_t lda) {
#ifdef HETLA_HAVE_AVX2_KERNELS
  if (own_kernels_avx2()) return avx2::potrf_lower(n, A, lda);
#endif
  return ::potrf_lower(n, A, lda);
}
template <typename T> int64_t upper(int64_t n, T* A, int64_t lda) {
#ifdef HETLA_HAVE_AVX2_KERNELS
  if (own_kernels_avx2()) return avx2::potrf_upper(n, A, lda);
#endif
  return ::potrf_upper(n, A, lda);
}
// Complex: T is the real type, A the interleaved entries.
template <typename T> int64_t clower(int64_t n, T* A, int64_t lda) {
#ifdef HETLA_HAVE_AVX2_KERNELS
  if (own_kernels_avx2()) return avx2::cpotrf_lower(n, A, lda);
#endif
  return ::cpotrf_lower(n, A, lda);
}
template <typename T> int64_t cupper(int64_t n, T* A, int64_t lda) {
#ifdef HETLA_HAVE_AVX2_KERNELS
  if (own_kernels_avx2()) return avx2::cpotrf_upper(n, A, lda);
#endif
  return ::cpotrf_upper(n, A, lda);
}
template <typename T> T* interleaved(std::complex<T>* A) { return reinterpret_cast<T*>(A); }
}  // namespace

int64_t potrf_lower_own(int64_t n, double* A, int64_t lda) { return lower(n, A, lda); }
int64_t potrf_lower_own(int64_t n, float* A, int64_t lda) { return lower(n, A, lda); }
int64_t potrf_upper_own(int64_t n, double* A, int64_t lda) { return upper(n, A, lda); }
int64_t potrf_upper_own(int64_t n, float* A, int64_t lda) { return upper(n, A, lda); }
int64_t potrf_lower_own(int64_t n, std::complex<double>* A, int64_t lda) { return clower(n, interleaved(A), lda); }
int64_t potrf_lower_own(int64_t n, std::complex<float>* A, int64_t lda) { return clower(n, interleaved(A), lda); }
int64_t potrf_upper_own(int64_t n, std::complex<double>* A, int64_t lda) { return cupper(n, interleaved(A), lda); }
int64_t potrf_upper_own(int64_t n, std::complex<float>* A, int64_t lda) { return cupper(n, interleaved(A), lda); }
bool own_kernels_avx2() {
#ifdef HETLA_HAVE_AVX2_KERNELS
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
#else
  return false;
#endif
}

const char* own_kernels_isa() { return own_kernels_avx2() ? "avx2" : "generic"; }

}  // namespace hetla::small
