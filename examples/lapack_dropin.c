/* A LAPACK program that knows nothing of hetla: it calls dgesv_ by its
 * Fortran name. Built against libhetla_lapack it runs on hetla above the
 * crossover (n = 1500 here) and on the vendor below it:
 *   cc lapack_dropin.c $(pkg-config --cflags --libs hetla-lapack) -lm
 *   CMake: target_link_libraries(app PRIVATE hetla::lapack)
 * or built against the vendor LAPACK alone and run unchanged with
 *   cc lapack_dropin.c -llapack -lblas -lm
 *   LD_PRELOAD=PREFIX/lib/libhetla_lapack.so ./a.out */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void dgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, double* b, const int* ldb, int* info);

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 1500, one = 1;
  double* A = malloc(sizeof(double) * n * n);
  double* LU = malloc(sizeof(double) * n * n);
  double* x = malloc(sizeof(double) * n);
  int* ipiv = malloc(sizeof(int) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) A[i + (size_t)j * n] = LU[i + (size_t)j * n] = (i == j) * n + sin(i * 7.0 + j);
  for (int i = 0; i < n; ++i) x[i] = 1;  /* b = 1 */
  int info;
  dgesv_(&n, &one, LU, &n, ipiv, x, &n, &info);
  double r = 0; /* max |A x - b| */
  for (int i = 0; i < n; ++i) {
    double s = -1;
    for (int j = 0; j < n; ++j) s += A[i + (size_t)j * n] * x[j];
    if (fabs(s) > r) r = fabs(s);
  }
  printf("dgesv_ n=%d info=%d max|Ax-b|=%.2e\n", n, info, r);
  free(A), free(LU), free(x), free(ipiv);
  return info != 0 || !(r < 1e-8);
}
