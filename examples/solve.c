/* Solves a small symmetric positive definite system A x = b through hetla's
 * C API (hetla_dposv): the solution is all ones. */
#include <hetla/hetla.h>
#include <math.h>
#include <stdio.h>

int main(void) {
  enum { n = 50 };
  static double A[n * n], b[n];
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) A[i + j * n] = i == j ? 2.0 * n : 1.0;
    b[j] = 3.0 * n - 1.0; /* row sum: x = 1 solves A x = b */
  }
  int info = hetla_dposv('L', n, 1, A, n, b, n);
  double err = 0;
  for (int i = 0; i < n; ++i) err = fmax(err, fabs(b[i] - 1.0));
  printf("solve info=%d err=%g\n", info, err);
  hetla_finalize();
  return info == 0 && err < 1e-12 ? 0 : 1;
}
