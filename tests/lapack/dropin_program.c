/* A program as a LAPACK user writes it: Fortran names, declared here, linked
 * against the vendor LAPACK alone (run with libhetla_lapack LD_PRELOADed) or
 * with -lhetla_lapack first. It calls dgesv_, dpotrf_, dgeqrf_ and dgels_
 * at n = argv[1] (default 600, above every crossover) and checks scaled
 * residuals. A hang here is a re-entry bug (a call from inside hetla routed
 * back into hetla); ctest's TIMEOUT turns it into a failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, double* b, const int* ldb, int* info);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work, const int* lwork,
             int* info);
void dgels_(const char* trans, const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b,
            const int* ldb, double* work, const int* lwork, int* info, size_t);
void dgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k, const double* alpha,
            const double* a, const int* lda, const double* b, const int* ldb, const double* beta, double* c,
            const int* ldc, size_t, size_t);

static double frand(unsigned* s) {
  *s = *s * 1103515245u + 12345u;
  return (double)((*s >> 8) & 0xffff) / 65536.0 - 0.5;
}
static double norm1(int m, int n, const double* a, int lda) {
  double best = 0;
  for (int j = 0; j < n; ++j) {
    double s = 0;
    for (int i = 0; i < m; ++i) s += fabs(a[i + (size_t)j * lda]);
    if (s > best) best = s;
  }
  return best;
}
static int failures = 0;
static void check(const char* what, double resid) {
  const int ok = resid < 30 && resid == resid;
  printf("%-8s scaled residual %.3g %s\n", what, resid, ok ? "ok" : "FAILED");
  failures += !ok;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 600, lda = n + 3, one = 1;
  const double eps = 2.220446049250313e-16, p1 = 1, m1 = -1, zero = 0;
  double* A = malloc(sizeof(double) * lda * n);
  double* F = malloc(sizeof(double) * lda * n);
  double* b = malloc(sizeof(double) * n);
  double* x = malloc(sizeof(double) * n);
  int* ipiv = malloc(sizeof(int) * n);
  unsigned seed = 7;
  int info;
  for (int i = 0; i < lda * n; ++i) A[i] = frand(&seed);
  for (int i = 0; i < n; ++i) b[i] = frand(&seed);

  /* dgesv: ||A x - b|| / (n ||A|| ||x|| eps) */
  memcpy(F, A, sizeof(double) * lda * n);
  memcpy(x, b, sizeof(double) * n);
  dgesv_(&n, &one, F, &lda, ipiv, x, &n, &info);
  double* r = malloc(sizeof(double) * n);
  memcpy(r, b, sizeof(double) * n);
  dgemm_("N", "N", &n, &one, &n, &p1, A, &lda, x, &n, &m1, r, &n, 1, 1);
  check("dgesv", info ? 1e9 : norm1(n, 1, r, n) / (n * norm1(n, n, A, lda) * norm1(n, 1, x, n) * eps));

  /* dpotrf on S = A^T A + n I: ||S - L L^T|| / (n ||S|| eps) */
  double* S = malloc(sizeof(double) * lda * n);
  dgemm_("T", "N", &n, &n, &n, &p1, A, &lda, A, &lda, &zero, S, &lda, 1, 1);
  for (int i = 0; i < n; ++i) S[i + (size_t)i * lda] += n;
  memcpy(F, S, sizeof(double) * lda * n);
  dpotrf_("L", &n, F, &lda, &info, 1);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < j; ++i) F[i + (size_t)j * lda] = 0;
  double* LLt = malloc(sizeof(double) * lda * n);
  memcpy(LLt, S, sizeof(double) * lda * n);
  dgemm_("N", "T", &n, &n, &n, &p1, F, &lda, F, &lda, &m1, LLt, &lda, 1, 1);
  check("dpotrf", info ? 1e9 : norm1(n, n, LLt, lda) / (n * norm1(n, n, S, lda) * eps));

  /* dgeqrf: the workspace query, then R^T R = A^T A: ||A^T A - R^T R|| / (n ||A||^2 eps) */
  double* tau = malloc(sizeof(double) * n);
  double wq;
  const int query = -1;
  memcpy(F, A, sizeof(double) * lda * n);
  dgeqrf_(&n, &n, F, &lda, tau, &wq, &query, &info);
  int lwork = (int)wq;
  double* work = malloc(sizeof(double) * (lwork > 1 ? lwork : 1));
  dgeqrf_(&n, &n, F, &lda, tau, work, &lwork, &info);
  for (int j = 0; j < n; ++j)
    for (int i = j + 1; i < n; ++i) F[i + (size_t)j * lda] = 0;
  dgemm_("T", "N", &n, &n, &n, &p1, A, &lda, A, &lda, &zero, LLt, &lda, 1, 1);
  dgemm_("T", "N", &n, &n, &n, &p1, F, &lda, F, &lda, &m1, LLt, &lda, 1, 1);
  const double an = norm1(n, n, A, lda);
  check("dgeqrf", info ? 1e9 : norm1(n, n, LLt, lda) / (n * an * an * eps));

  /* dgels on the square system: as dgesv's residual */
  memcpy(F, A, sizeof(double) * lda * n);
  memcpy(x, b, sizeof(double) * n);
  dgels_("N", &n, &n, &one, F, &lda, x, &n, &wq, &query, &info, 1);
  lwork = (int)wq;
  free(work);
  work = malloc(sizeof(double) * (lwork > 1 ? lwork : 1));
  dgels_("N", &n, &n, &one, F, &lda, x, &n, work, &lwork, &info, 1);
  memcpy(r, b, sizeof(double) * n);
  dgemm_("N", "N", &n, &one, &n, &p1, A, &lda, x, &n, &m1, r, &n, 1, 1);
  check("dgels", info ? 1e9 : norm1(n, 1, r, n) / (n * an * norm1(n, 1, x, n) * eps));

  free(A), free(F), free(b), free(x), free(ipiv), free(r), free(S), free(LLt), free(tau), free(work);
  return failures != 0;
}
