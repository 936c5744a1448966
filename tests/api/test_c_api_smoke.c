/* Compiled as C: the public header must work from C (C99 complex types), and
 * the routines must give correct results through it. Returns 0 on success or
 * the number of the first failed check. */
#include <complex.h>
#include <math.h>

#include "hetla/hetla.h"

int hetla_test_c_smoke(void);

int hetla_test_c_smoke(void) {
  /* Hermitian positive definite (diagonally dominant), column-major, full. */
  double _Complex A[9] = {4.0, 1.0 - 1.0 * I, 0.0, 1.0 + 1.0 * I, 5.0, -2.0 * I, 0.0, 2.0 * I, 6.0};
  const double _Complex x[3] = {1.0, 2.0 * I, -1.0 + 0.5 * I};
  double _Complex b[3];
  float As[4] = {4.0f, 2.0f, 2.0f, 3.0f}; /* [[4, 2], [2, 3]] */
  float bs[2] = {8.0f, 7.0f};             /* x = (1.25, 1.5) */
  double Ad[4] = {1.0, 2.0, 2.0, 1.0};    /* indefinite: second minor -3 */
  int i, j, info;

  for (i = 0; i < 3; ++i) {
    b[i] = 0;
    for (j = 0; j < 3; ++j) b[i] += A[i + 3 * j] * x[j];
  }
  info = hetla_zposv('L', 3, 1, A, 3, b, 3);
  if (info != 0) return 1;
  for (i = 0; i < 3; ++i)
    if (cabs(b[i] - x[i]) > 1e-12) return 2;

  info = hetla_sposv('u', 2, 1, As, 2, bs, 2);
  if (info != 0) return 3;
  if (fabsf(bs[0] - 1.25f) > 1e-5f || fabsf(bs[1] - 1.5f) > 1e-5f) return 4;

  if (hetla_dpotrf('L', 2, Ad, 2) != 2) return 5;
  if (hetla_dpotrf('Q', 2, Ad, 2) != -1) return 6;
  if (hetla_last_error()[0] == '\0') return 7;
  return 0;
}
