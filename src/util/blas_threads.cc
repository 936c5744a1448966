#include "util/blas_threads.hpp"

#ifdef HETLA_HAVE_OPENBLAS
extern "C" {
void openblas_set_num_threads(int);
int openblas_get_num_threads(void);
char* openblas_get_config(void);
char* openblas_get_corename(void);
}
#endif

#ifndef HETLA_BLAS_VENDOR
#define HETLA_BLAS_VENDOR "unknown"
#endif

namespace hetla::util {

int blas_get_num_threads() {
#ifdef HETLA_HAVE_OPENBLAS
  return openblas_get_num_threads();
#else
  return 1;
#endif
}

void blas_set_num_threads(int n) {
#ifdef HETLA_HAVE_OPENBLAS
  openblas_set_num_threads(n);
#else
  (void)n;
#endif
}

std::string blas_vendor() {
#ifdef HETLA_HAVE_OPENBLAS
  return std::string("OpenBLAS (") + openblas_get_config() + ", core " + openblas_get_corename() + ")";
#else
  return HETLA_BLAS_VENDOR;
#endif
}

}  // namespace hetla::util
