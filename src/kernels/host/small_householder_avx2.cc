// The AVX2/FMA build of hetla's small Householder QR
// (small_householder_impl.hpp); this file alone is compiled with -mavx2
// -mfma (src/CMakeLists.txt), and small_householder.cc calls it only where
// the CPU has both.
#include <cstdint>
#ifdef HETLA_HAVE_AVX2_KERNELS
#include "kernels/host/small_householder_impl.hpp"

namespace hetla::small::avx2 {
void geqrf(int64_t m, int64_t n, float* A, int64_t lda, float* tau, bool complex) {
  if (complex) householder::geqrf<float, true>(m, n, A, lda, tau);
  else householder::geqrf<float, false>(m, n, A, lda, tau);
}
void geqrf(int64_t m, int64_t n, double* A, int64_t lda, double* tau, bool complex) {
  if (complex) householder::geqrf<double, true>(m, n, A, lda, tau);
  else householder::geqrf<double, false>(m, n, A, lda, tau);
}
}  // namespace hetla::small::avx2
#endif
