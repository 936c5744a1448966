/* Called from test_blas3_c_api.cc: the level-3 C API from a C translation
 * unit, complex scalars passed by value as C99 _Complex. */
#include <complex.h>

#include "hetla/hetla.h"

int hetla_test_blas3_c(void);

int hetla_test_blas3_c(void) {
  /* C = alpha A B + beta C with 1 x 1 "matrices": (1+2i)(3-i)(2i) + (1-i)(5) */
  double _Complex a = 3.0 - 1.0 * I, b = 2.0 * I, c = 5.0;
  double _Complex alpha = 1.0 + 2.0 * I, beta = 1.0 - 1.0 * I;
  if (hetla_zgemm('N', 'N', 1, 1, 1, alpha, &a, 1, &b, 1, beta, &c, 1) != 0) return 1;
  double _Complex expect = (1.0 + 2.0 * I) * (3.0 - 1.0 * I) * (2.0 * I) + (1.0 - 1.0 * I) * 5.0;
  if (cabs(c - expect) > 1e-12) return 2;
  float _Complex fa = 2.0f + 1.0f * I, fb = 1.0f - 1.0f * I, fc = 0.0f;
  if (hetla_cgemm('T', 'C', 1, 1, 1, 2.0f * I, &fa, 1, &fb, 1, 0.0f, &fc, 1) != 0) return 3;
  float _Complex fexpect = (2.0f * I) * (2.0f + 1.0f * I) * (1.0f + 1.0f * I);
  if (cabsf(fc - fexpect) > 1e-5f) return 4;
  /* trsm: x = 6 / (2 + 0i) * (1 + i) */
  double _Complex t = 2.0, x = 1.0 + 1.0 * I;
  if (hetla_ztrsm('L', 'L', 'N', 'N', 1, 1, 6.0, &t, 1, &x, 1) != 0) return 5;
  if (cabs(x - (3.0 + 3.0 * I)) > 1e-12) return 6;
  float h = 0;
  float _Complex ha = 3.0f + 4.0f * I, hc = 1.0f + 7.0f * I;
  if (hetla_cherk('L', 'N', 1, 1, 1.0f, &ha, 1, 2.0f, &hc, 1) != 0) return 7;
  h = crealf(hc);
  if (h < 26.99f || h > 27.01f || cimagf(hc) != 0.0f) return 8; /* |3+4i|^2 + 2 * 1, imaginary part zeroed */
  return 0;
}
