// The default build of hetla's small Householder QR and the choice between
// it and the AVX2/FMA one (small_householder_avx2.cc), made once per process.
#include "kernels/host/small_cholesky.hpp"
#include "kernels/host/small_householder.hpp"

#include "kernels/host/small_householder_impl.hpp"

namespace hetla::small {

#ifdef HETLA_HAVE_AVX2_KERNELS
namespace avx2 {
void geqrf(int64_t m, int64_t n, float* A, int64_t lda, float* tau, bool complex);
void geqrf(int64_t m, int64_t n, double* A, int64_t lda, double* tau, bool complex);
}  // namespace avx2
#endif

namespace {

/// Complex matrices as pairs of reals (std::complex's layout), lda in entries.
template <typename R> void run(int64_t m, int64_t n, R* A, int64_t lda, R* tau, bool complex) {
#ifdef HETLA_HAVE_AVX2_KERNELS
  if (own_kernels_avx2()) return avx2::geqrf(m, n, A, lda, tau, complex);
#endif
  if (complex) householder::geqrf<R, true>(m, n, A, lda, tau);
  else householder::geqrf<R, false>(m, n, A, lda, tau);
}
}  // namespace

void geqrf_own(int64_t m, int64_t n, float* A, int64_t lda, float* tau) { run(m, n, A, lda, tau, false); }
void geqrf_own(int64_t m, int64_t n, double* A, int64_t lda, double* tau) { run(m, n, A, lda, tau, false); }
void geqrf_own(int64_t m, int64_t n, std::complex<float>* A, int64_t lda, std::complex<float>* tau) {
  run(m, n, reinterpret_cast<float*>(A), lda, reinterpret_cast<float*>(tau), true);
}
void geqrf_own(int64_t m, int64_t n, std::complex<double>* A, int64_t lda, std::complex<double>* tau) {
  run(m, n, reinterpret_cast<double*>(A), lda, reinterpret_cast<double*>(tau), true);
}

}  // namespace hetla::small
