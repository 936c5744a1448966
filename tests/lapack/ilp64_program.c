/* A C program written for an ILP64 LAPACK (every INTEGER an int64_t, the
 * `_64_` names), linked with -lhetla_lapack: dgesv_64_, dpotrf_64_ (and its
 * info on a matrix that is not positive definite), dgeqrf_64_ with its
 * workspace query, and dgemm_64_, at n = argv[1] (ld = n + 3), checked by
 * scaled residuals. Run at a size below the crossovers (the ILP64 vendor, or
 * the LP64 one narrowed) and above them (hetla's path). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int64_t i64;
void dgesv_64_(const i64* n, const i64* nrhs, double* a, const i64* lda, i64* ipiv, double* b, const i64* ldb,
               i64* info);
void dpotrf_64_(const char* uplo, const i64* n, double* a, const i64* lda, i64* info, size_t);
void dgeqrf_64_(const i64* m, const i64* n, double* a, const i64* lda, double* tau, double* work, const i64* lwork,
                i64* info);
void dgemm_64_(const char* ta, const char* tb, const i64* m, const i64* n, const i64* k, const double* alpha,
               const double* a, const i64* lda, const double* b, const i64* ldb, const double* beta, double* c,
               const i64* ldc, size_t, size_t);

static double frand(unsigned* s) {
  *s = *s * 1103515245u + 12345u;
  return (double)((*s >> 8) & 0xffff) / 65536.0 - 0.5;
}
static int failures = 0;
static void check(const char* what, double resid) {
  const int ok = resid < 30 && resid == resid;
  printf("%-8s scaled residual %.3g %s\n", what, resid, ok ? "ok" : "FAILED");
  failures += !ok;
}
static void expect(const char* what, i64 got, i64 want) {
  printf("%-8s %lld (expected %lld) %s\n", what, (long long)got, (long long)want, got == want ? "ok" : "FAILED");
  failures += got != want;
}
/* max |C - A B| / (n max|A| max|B| eps) for n x n column-major, ld = lda. */
static double product_residual(i64 n, const double* c, const double* a, const double* b, i64 ld) {
  double diff = 0, amax = 0, bmax = 0;
  for (i64 j = 0; j < n; ++j)
    for (i64 i = 0; i < n; ++i) {
      double s = 0;
      for (i64 k = 0; k < n; ++k) s += a[i + k * ld] * b[k + j * ld];
      diff = fmax(diff, fabs(c[i + j * ld] - s));
      amax = fmax(amax, fabs(a[i + j * ld]));
      bmax = fmax(bmax, fabs(b[i + j * ld]));
    }
  return diff / (n * amax * bmax * 2.2e-16);
}

int main(int argc, char** argv) {
  const i64 n = argc > 1 ? atoll(argv[1]) : 300, ld = n + 3, one = 1;
  const size_t size = (size_t)(ld * n);
  double *a = malloc(size * sizeof *a), *a0 = malloc(size * sizeof *a), *l = malloc(size * sizeof *a);
  double *x = malloc(ld * sizeof *x), *b = malloc(ld * sizeof *x), *tau = malloc(n * sizeof *x);
  i64* ipiv = malloc(n * sizeof *ipiv);
  unsigned seed = 7;
  for (size_t i = 0; i < size; ++i) a0[i] = frand(&seed);
  for (i64 i = 0; i < n; ++i) a0[i + i * ld] += n;

  /* dgesv_64_: A x = b with b = A 1. */
  memcpy(a, a0, size * sizeof *a);
  for (i64 i = 0; i < n; ++i) {
    b[i] = 0;
    for (i64 j = 0; j < n; ++j) b[i] += a0[i + j * ld];
  }
  i64 info = -99;
  dgesv_64_(&n, &one, a, &ld, ipiv, b, &ld, &info);
  expect("dgesv", info, 0);
  double err = 0;
  for (i64 i = 0; i < n; ++i) err = fmax(err, fabs(b[i] - 1));
  check("dgesv", err / (n * 2.2e-16));

  /* dpotrf_64_ of A0 A0^T + n I (lower), then L L^T against it. */
  const double alpha = 1, zero = 0;
  dgemm_64_("N", "T", &n, &n, &n, &alpha, a0, &ld, a0, &ld, &zero, a, &ld, 1, 1);
  for (i64 i = 0; i < n; ++i) a[i + i * ld] += n;
  memcpy(l, a, size * sizeof *a);
  dpotrf_64_("L", &n, l, &ld, &info, 1);
  expect("dpotrf", info, 0);
  for (i64 j = 0; j < n; ++j)
    for (i64 i = 0; i < j; ++i) l[i + j * ld] = 0;
  double* llt = malloc(size * sizeof *a);
  dgemm_64_("N", "T", &n, &n, &n, &alpha, l, &ld, l, &ld, &zero, llt, &ld, 1, 1);
  double perr = 0, amax = 0;
  for (i64 j = 0; j < n; ++j)
    for (i64 i = 0; i < n; ++i)
      perr = fmax(perr, fabs(llt[i + j * ld] - a[i + j * ld])), amax = fmax(amax, fabs(a[i + j * ld]));
  check("dpotrf", perr / (n * amax * 2.2e-16));
  /* Not positive definite from the 3rd leading minor on. */
  memcpy(l, a, size * sizeof *a);
  l[2 + 2 * ld] = -1;
  dpotrf_64_("L", &n, l, &ld, &info, 1);
  expect("dpotrf!", info, 3);

  /* dgemm_64_ against the naive product. */
  dgemm_64_("N", "N", &n, &n, &n, &alpha, a0, &ld, l, &ld, &zero, llt, &ld, 1, 1);
  check("dgemm", product_residual(n, llt, a0, l, ld));

  /* dgeqrf_64_: query, then R^T R = A^T A on the leading diagonal entries (column norms). */
  double w = 0;
  const i64 query = -1;
  dgeqrf_64_(&n, &n, a, &ld, tau, &w, &query, &info);
  expect("query", info, 0);
  i64 lwork = (i64)w;
  double* work = malloc((size_t)(lwork > n ? lwork : n) * sizeof *work);
  memcpy(a, a0, size * sizeof *a);
  dgeqrf_64_(&n, &n, a, &ld, tau, work, &lwork, &info);
  expect("dgeqrf", info, 0);
  double qerr = 0;
  for (i64 j = 0; j < n; ++j) {
    double rn = 0, an = 0;
    for (i64 i = 0; i <= j; ++i) rn += a[i + j * ld] * a[i + j * ld];
    for (i64 i = 0; i < n; ++i) an += a0[i + j * ld] * a0[i + j * ld];
    qerr = fmax(qerr, fabs(sqrt(rn) - sqrt(an)) / sqrt(an));
  }
  check("dgeqrf", qerr / (n * 2.2e-16));
  printf("%s\n", failures ? "FAILED" : "all ok");
  free(work);
  free(llt);
  free(ipiv);
  free(tau);
  free(b);
  free(x);
  free(l);
  free(a0);
  free(a);
  return failures ? 1 : 0;
}
