/* A ScaLAPACK user's program, ScaLAPACK and BLACS API only (tests/scalapack):
 * pdpotrf + pdpotrs, pdposv, pzpotrf + pzpotrs, pdgemm (N N and T N),
 * pdgetrf + pdgetrs, pdgesv, pdgeqrf, pdormqr / pzunmqr (each side and
 * trans) and pdgels / pzgels (tall and wide, each trans) on
 * matrices made from formulas, so that every process checks its own part
 * against the exact answer (and, for ormqr / gels, against the result of
 * the real ScaLAPACK routine, looked up in the ScaLAPACK library itself:
 * with libhetla_scalapack loaded the plain names are hetla's); then cases libhetla_scalapack passes to
 * ScaLAPACK (a submatrix at ia = ja = nb + 1, pdgemm at ia = 2, pdgemm with
 * mb != nb), invalid arguments (pxerbla's number), and a matrix that is not
 * positive definite (info on every process). Built against ScaLAPACK alone
 * (run plain or with libhetla_scalapack in LD_PRELOAD) and linked with
 * -lhetla_scalapack first.
 *
 *   scalapack_program [--grid PxQ] [--order R|C] [--expect-hetla | --expect-scalapack] [--time N NB]
 *
 * --expect-scalapack: as --expect-hetla, but every call must have gone to
 * ScaLAPACK (run with a crossover above every size).
 * --time N NB: only times pdpotrf of order N, block NB (best of 3, rank 0
 * prints it): the same binary plain and preloaded compares the two.
 * --expect-hetla: hetla_scalapack_calls (looked up at run time, absent from
 * plain ScaLAPACK) must show which calls ran on hetla. Exit status 0 when
 * every check passed on every process. */
#define _GNU_SOURCE /* dladdr, RTLD_NOLOAD */
#include <complex.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void Cblacs_pinfo(int* me, int* np);
void Cblacs_get(int ctxt, int what, int* val);
void Cblacs_gridinit(int* ctxt, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int ctxt);
void Cblacs_exit(int cont);
void Cigamx2d(int ctxt, const char* scope, const char* top, int m, int n, int* a, int lda, int* ra, int* ca,
              int ldia, int rdest, int cdest);
void Cigamn2d(int ctxt, const char* scope, const char* top, int m, int n, int* a, int lda, int* ra, int* ca,
              int ldia, int rdest, int cdest);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc,
               const int* icsrc, const int* ctxt, const int* lld, int* info);
void pdpotrf_(const char* uplo, const int* n, double* a, const int* ia, const int* ja, const int* desca, int* info);
void pdpotrs_(const char* uplo, const int* n, const int* nrhs, const double* a, const int* ia, const int* ja,
              const int* desca, double* b, const int* ib, const int* jb, const int* descb, int* info);
void pdposv_(const char* uplo, const int* n, const int* nrhs, double* a, const int* ia, const int* ja,
             const int* desca, double* b, const int* ib, const int* jb, const int* descb, int* info);
void pzpotrf_(const char* uplo, const int* n, double complex* a, const int* ia, const int* ja, const int* desca,
              int* info);
void pzpotrs_(const char* uplo, const int* n, const int* nrhs, const double complex* a, const int* ia,
              const int* ja, const int* desca, double complex* b, const int* ib, const int* jb, const int* descb,
              int* info);
void pdgetrf_(const int* m, const int* n, double* a, const int* ia, const int* ja, const int* desca, int* ipiv,
              int* info);
void pdgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* ia, const int* ja,
              const int* desca, const int* ipiv, double* b, const int* ib, const int* jb, const int* descb, int* info);
void pdgesv_(const int* n, const int* nrhs, double* a, const int* ia, const int* ja, const int* desca, int* ipiv,
             double* b, const int* ib, const int* jb, const int* descb, int* info);
void pdgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k, const double* alpha,
             const double* a, const int* ia, const int* ja, const int* desca, const double* b, const int* ib,
             const int* jb, const int* descb, const double* beta, double* c, const int* ic, const int* jc,
             const int* descc);
void pdgeqrf_(const int* m, const int* n, double* a, const int* ia, const int* ja, const int* desca, double* tau,
              double* work, const int* lwork, int* info);
void pdormqr_(const char* side, const char* trans, const int* m, const int* n, const int* k, const double* a,
              const int* ia, const int* ja, const int* desca, const double* tau, double* c, const int* ic,
              const int* jc, const int* descc, double* work, const int* lwork, int* info);
void pzgeqrf_(const int* m, const int* n, double complex* a, const int* ia, const int* ja, const int* desca,
              double complex* tau, double complex* work, const int* lwork, int* info);
typedef void pzunmqr_fn(const char* side, const char* trans, const int* m, const int* n, const int* k,
                        const double complex* a, const int* ia, const int* ja, const int* desca,
                        const double complex* tau, double complex* c, const int* ic, const int* jc, const int* descc,
                        double complex* work, const int* lwork, int* info);
pzunmqr_fn pzunmqr_;
typedef void pdormqr_fn(const char* side, const char* trans, const int* m, const int* n, const int* k,
                        const double* a, const int* ia, const int* ja, const int* desca, const double* tau, double* c,
                        const int* ic, const int* jc, const int* descc, double* work, const int* lwork, int* info);
typedef void pdgels_fn(const char* trans, const int* m, const int* n, const int* nrhs, double* a, const int* ia,
                       const int* ja, const int* desca, double* b, const int* ib, const int* jb, const int* descb,
                       double* work, const int* lwork, int* info);
pdgels_fn pdgels_;
typedef void pzgels_fn(const char* trans, const int* m, const int* n, const int* nrhs, double complex* a,
                       const int* ia, const int* ja, const int* desca, double complex* b, const int* ib,
                       const int* jb, const int* descb, double complex* work, const int* lwork, int* info);
pzgels_fn pzgels_;

/* ScaLAPACK's error handler, replaced as ScaLAPACK allows: records the last
 * report instead of printing it. */
static int g_xerbla_info = 0;
static char g_xerbla_name[16];
void pxerbla_(const int* ctxt, const char* name, const int* info, size_t len) {
  (void)ctxt;
  g_xerbla_info = *info;
  size_t n = len < sizeof g_xerbla_name - 1 ? len : sizeof g_xerbla_name - 1;
  memcpy(g_xerbla_name, name, n);
  g_xerbla_name[n] = 0;
  while (n > 0 && g_xerbla_name[n - 1] == ' ') g_xerbla_name[--n] = 0;
}

static int ctxt, nprow, npcol, myrow, mycol, me;
static int failures = 0;
static const int izero = 0, ione = 1;

static void fail(const char* what) {
  fprintf(stderr, "[%d] FAILED: %s\n", me, what);
  ++failures;
}

/* global (0-based) index of local index l, block size nb, on process p of np */
static int l2g(int l, int nb, int p, int np) { return (l / nb) * nb * np + p * nb + l % nb; }

typedef struct {
  int desc[9], lr, lc; /* local rows (= lld) and columns */
} Dist;

static Dist make(int m, int n, int mb, int nb) {
  Dist d;
  int info;
  d.lr = numroc_(&m, &mb, &myrow, &izero, &nprow);
  d.lc = numroc_(&n, &nb, &mycol, &izero, &npcol);
  int lld = d.lr > 1 ? d.lr : 1;
  descinit_(d.desc, &m, &n, &mb, &nb, &izero, &izero, &ctxt, &lld, &info);
  if (info != 0) fail("descinit");
  d.lr = lld;
  return d;
}

/* Hermitian positive definite by diagonal dominance (ntot on the diagonal) */
static double complex hpd(int i, int j, int ntot, int complex_part) {
  const double d = fabs((double)(i - j));
  double complex v = (1.0 + 0.1 * sin((double)(i + j))) / (1.0 + d);
  if (complex_part) v += I * 0.3 * sin((double)(i - j)) / (1.0 + d);
  if (i == j) v = creal(v) + ntot;
  return v;
}
static double xtrue(int i, int r) { return 1.0 + 0.1 * (i % 7) + r; }

/* fill A (ntot x ntot, minus 3 ntot at (bad, bad) when bad >= 0) and B = A X
 * from the formulas */
static void fill_system(double* a, const Dist* A, double* b, const Dist* B, int ntot, int bad) {
  for (int lj = 0; lj < A->lc; ++lj)
    for (int li = 0; li < numroc_(&ntot, &A->desc[4], &myrow, &izero, &nprow); ++li) {
      int i = l2g(li, A->desc[4], myrow, nprow), j = l2g(lj, A->desc[5], mycol, npcol);
      a[li + (size_t)lj * A->desc[8]] = creal(hpd(i, j, ntot, 0)) - (bad >= 0 && i == bad && j == bad ? 3.0 * ntot : 0);
    }
  if (!b) return;
  int rows = numroc_(&ntot, &B->desc[4], &myrow, &izero, &nprow);
  for (int lj = 0; lj < B->lc; ++lj)
    for (int li = 0; li < rows; ++li) {
      int i = l2g(li, B->desc[4], myrow, nprow), r = l2g(lj, B->desc[5], mycol, npcol);
      double s = 0;
      for (int j = 0; j < ntot; ++j) s += creal(hpd(i, j, ntot, 0)) * xtrue(j, r);
      b[li + (size_t)lj * B->desc[8]] = s;
    }
}

/* max |x - xtrue| over this process's rows [off, off + n) of B */
static double solve_error(const double* b, const Dist* B, int off, int n) {
  double e = 0;
  int rows = numroc_(&B->desc[2], &B->desc[4], &myrow, &izero, &nprow);
  for (int lj = 0; lj < B->lc; ++lj)
    for (int li = 0; li < rows; ++li) {
      int i = l2g(li, B->desc[4], myrow, nprow), r = l2g(lj, B->desc[5], mycol, npcol);
      if (i < off || i >= off + n) continue;
      double d = fabs(b[li + (size_t)lj * B->desc[8]] - xtrue(i - off, r));
      if (d > e) e = d;
    }
  return e;
}

static long (*calls)(int) = NULL; /* hetla_scalapack_calls, when hetla is there */
static long hetla_before;
static int all_to_scalapack = 0;
static void route_begin(void) { hetla_before = calls ? calls(1) : 0; }
/* expect: 1 = ran on hetla, 0 = passed to ScaLAPACK */
static void route_end(int expect, const char* what) {
  if (!calls) return;
  if (all_to_scalapack) expect = 0;
  int on_hetla = calls(1) > hetla_before;
  if (on_hetla != expect) {
    char msg[128];
    snprintf(msg, sizeof msg, "%s: expected %s", what, expect ? "hetla" : "ScaLAPACK");
    fail(msg);
  }
}

static void check_small(double err, double tol, const char* what) {
  if (!(err <= tol)) {
    char msg[160];
    snprintf(msg, sizeof msg, "%s: error %.3g > %.3g", what, err, tol);
    fail(msg);
  }
}

static void test_potrf_potrs(const char* uplo, int n, int nb, int off) {
  /* the n x n system at (off + 1, off + 1) of an (n + off) x (n + off) array */
  const int ntot = n + off, nrhs = 3, ia = off + 1;
  Dist A = make(ntot, ntot, nb, nb), B = make(ntot, nrhs, nb, nb);
  double* a = calloc((size_t)A.lr * (A.lc ? A.lc : 1), sizeof *a);
  double* b = calloc((size_t)B.lr * (B.lc ? B.lc : 1), sizeof *b);
  /* the trailing n x n block of the formula matrix, B = that block * X */
  for (int lj = 0; lj < A.lc; ++lj)
    for (int li = 0; li < numroc_(&ntot, &nb, &myrow, &izero, &nprow); ++li) {
      int i = l2g(li, nb, myrow, nprow), j = l2g(lj, nb, mycol, npcol);
      a[li + (size_t)lj * A.lr] = i >= off && j >= off ? creal(hpd(i - off, j - off, n, 0)) : (i == j ? 1.0 : 0.0);
    }
  for (int lj = 0; lj < B.lc; ++lj)
    for (int li = 0; li < numroc_(&ntot, &nb, &myrow, &izero, &nprow); ++li) {
      int i = l2g(li, nb, myrow, nprow), r = l2g(lj, nb, mycol, npcol);
      double s = 0;
      if (i >= off)
        for (int j = 0; j < n; ++j) s += creal(hpd(i - off, j, n, 0)) * xtrue(j, r);
      b[li + (size_t)lj * B.lr] = s;
    }
  int info = -99;
  char what[64];
  snprintf(what, sizeof what, "pdpotrf %s n=%d nb=%d ia=%d", uplo, n, nb, ia);
  route_begin();
  pdpotrf_(uplo, &n, a, &ia, &ia, A.desc, &info);
  route_end(off == 0, what);
  if (info != 0) fail(what);
  route_begin();
  pdpotrs_(uplo, &n, &nrhs, a, &ia, &ia, A.desc, b, &ia, &ione, B.desc, &info);
  route_end(off == 0, "pdpotrs");
  if (info != 0) fail("pdpotrs info");
  check_small(solve_error(b, &B, off, n), 1e-10, what);
  free(a);
  free(b);
}

static void test_posv(int n, int nb) {
  const int nrhs = 2;
  Dist A = make(n, n, nb, nb), B = make(n, nrhs, nb, nb);
  double* a = calloc((size_t)A.lr * (A.lc ? A.lc : 1), sizeof *a);
  double* b = calloc((size_t)B.lr * (B.lc ? B.lc : 1), sizeof *b);
  fill_system(a, &A, b, &B, n, -1);
  int info = -99;
  route_begin();
  pdposv_("U", &n, &nrhs, a, &ione, &ione, A.desc, b, &ione, &ione, B.desc, &info);
  route_end(1, "pdposv");
  if (info != 0) fail("pdposv info");
  check_small(solve_error(b, &B, 0, n), 1e-10, "pdposv");
  free(a);
  free(b);
}

static void test_zpotrf(int n, int nb) {
  const int nrhs = 2;
  Dist A = make(n, n, nb, nb), B = make(n, nrhs, nb, nb);
  double complex* a = calloc((size_t)A.lr * (A.lc ? A.lc : 1), sizeof *a);
  double complex* b = calloc((size_t)B.lr * (B.lc ? B.lc : 1), sizeof *b);
  int rows = numroc_(&n, &nb, &myrow, &izero, &nprow);
  for (int lj = 0; lj < A.lc; ++lj)
    for (int li = 0; li < rows; ++li)
      a[li + (size_t)lj * A.lr] = hpd(l2g(li, nb, myrow, nprow), l2g(lj, nb, mycol, npcol), n, 1);
  for (int lj = 0; lj < B.lc; ++lj)
    for (int li = 0; li < rows; ++li) {
      int i = l2g(li, nb, myrow, nprow), r = l2g(lj, nb, mycol, npcol);
      double complex s = 0;
      for (int j = 0; j < n; ++j) s += hpd(i, j, n, 1) * xtrue(j, r);
      b[li + (size_t)lj * B.lr] = s;
    }
  int info = -99;
  route_begin();
  pzpotrf_("L", &n, a, &ione, &ione, A.desc, &info);
  route_end(1, "pzpotrf");
  if (info != 0) fail("pzpotrf info");
  pzpotrs_("L", &n, &nrhs, a, &ione, &ione, A.desc, b, &ione, &ione, B.desc, &info);
  double e = 0;
  for (int lj = 0; lj < B.lc; ++lj)
    for (int li = 0; li < rows; ++li) {
      double d = cabs(b[li + (size_t)lj * B.lr] - xtrue(l2g(li, nb, myrow, nprow), l2g(lj, nb, mycol, npcol)));
      if (d > e) e = d;
    }
  check_small(e, 1e-10, "pzpotrf + pzpotrs");
  free(a);
  free(b);
}

static double fa(int i, int j) { return sin(0.3 * i + 0.7 * j); }
static double fb(int i, int j) { return cos(0.5 * i - 0.2 * j); }
static double fc(int i, int j) { return 0.01 * (i - j); }

/* C(m x n) at (ic, 1) = alpha op(A) B + beta C, A's op(A) at (ia, 1); arrays
 * with offset rows above, mb x nb blocks. */
static void test_gemm(const char* ta, int m, int n, int k, int mb, int nb, int off, int expect_hetla) {
  const double alpha = 1.5, beta = -0.5;
  const int ar = ta[0] == 'N' ? m : k, ac = ta[0] == 'N' ? k : m;
  const int mo = m + off, aro = ar + off;
  Dist A = make(aro, ac, mb, nb), B = make(k, n, mb, nb), C = make(mo, n, mb, nb);
  double* a = calloc((size_t)A.lr * (A.lc ? A.lc : 1), sizeof *a);
  double* b = calloc((size_t)B.lr * (B.lc ? B.lc : 1), sizeof *b);
  double* c = calloc((size_t)C.lr * (C.lc ? C.lc : 1), sizeof *c);
  for (int lj = 0; lj < A.lc; ++lj)
    for (int li = 0; li < numroc_(&aro, &mb, &myrow, &izero, &nprow); ++li) {
      int i = l2g(li, mb, myrow, nprow) - off, j = l2g(lj, nb, mycol, npcol);
      /* element (i, j) of the stored A: op(A)(x, y) = fa(x, y) */
      a[li + (size_t)lj * A.lr] = i < 0 ? 1e300 : (ta[0] == 'N' ? fa(i, j) : fa(j, i));
    }
  for (int lj = 0; lj < B.lc; ++lj)
    for (int li = 0; li < numroc_(&k, &mb, &myrow, &izero, &nprow); ++li)
      b[li + (size_t)lj * B.lr] = fb(l2g(li, mb, myrow, nprow), l2g(lj, nb, mycol, npcol));
  for (int lj = 0; lj < C.lc; ++lj)
    for (int li = 0; li < numroc_(&mo, &mb, &myrow, &izero, &nprow); ++li) {
      int i = l2g(li, mb, myrow, nprow) - off, j = l2g(lj, nb, mycol, npcol);
      c[li + (size_t)lj * C.lr] = i < 0 ? 7.0 : fc(i, j);
    }
  const int i1 = off + 1;
  char what[80];
  snprintf(what, sizeof what, "pdgemm %s m=%d n=%d k=%d mb=%d nb=%d ia=%d", ta, m, n, k, mb, nb, i1);
  route_begin();
  pdgemm_(ta, "N", &m, &n, &k, &alpha, a, &i1, &ione, A.desc, b, &ione, &ione, B.desc, &beta, c, &i1, &ione, C.desc);
  route_end(expect_hetla, what);
  double e = 0;
  for (int lj = 0; lj < C.lc; ++lj)
    for (int li = 0; li < numroc_(&mo, &mb, &myrow, &izero, &nprow); ++li) {
      int i = l2g(li, mb, myrow, nprow) - off, j = l2g(lj, nb, mycol, npcol);
      double want = 7.0;
      if (i >= 0) {
        double s = 0;
        for (int p = 0; p < k; ++p) s += fa(i, p) * fb(p, j);
        want = alpha * s + beta * fc(i, j);
      }
      double d = fabs(c[li + (size_t)lj * C.lr] - want);
      if (d > e) e = d;
    }
  check_small(e, 1e-11 * k, what);
  free(a);
  free(b);
  free(c);
}

/* nonsymmetric, diagonally dominant after reversing the rows: the pivots
 * come from the bottom rows (other process rows) */
static double gen(int i, int j, int n) {
  return 0.5 / n * sin(0.37 * i * j + 1.3 * j + 0.1 * i) + (i + j == n - 1 ? 4.0 : 0.0);
}

/* pdgetrf + pdgetrs (or pdgesv) of A X = B, B = gen * xtrue. rhs_nb != nb:
 * B's blocks are not square, so pdgetrs goes to ScaLAPACK with the pivots
 * of the pdgetrf that ran on hetla (their ScaLAPACK layout checked). */
static void test_getrf(int n, int nb, int rhs_nb, int gesv) {
  const int nrhs = 3;
  Dist A = make(n, n, nb, nb), B = make(n, nrhs, nb, rhs_nb);
  double* a = calloc((size_t)A.lr * (A.lc ? A.lc : 1), sizeof *a);
  double* b = calloc((size_t)B.lr * (B.lc ? B.lc : 1), sizeof *b);
  int* ipiv = calloc((size_t)A.lr + nb, sizeof *ipiv);
  const int rows = numroc_(&n, &nb, &myrow, &izero, &nprow);
  for (int lj = 0; lj < A.lc; ++lj)
    for (int li = 0; li < rows; ++li)
      a[li + (size_t)lj * A.lr] = gen(l2g(li, nb, myrow, nprow), l2g(lj, nb, mycol, npcol), n);
  for (int lj = 0; lj < B.lc; ++lj)
    for (int li = 0; li < rows; ++li) {
      int i = l2g(li, nb, myrow, nprow), r = l2g(lj, rhs_nb, mycol, npcol);
      double s = 0;
      for (int j = 0; j < n; ++j) s += gen(i, j, n) * xtrue(j, r);
      b[li + (size_t)lj * B.lr] = s;
    }
  int info = -99;
  char what[64];
  snprintf(what, sizeof what, "%s n=%d nb=%d", gesv ? "pdgesv" : "pdgetrf", n, nb);
  route_begin();
  if (gesv) {
    pdgesv_(&n, &nrhs, a, &ione, &ione, A.desc, ipiv, b, &ione, &ione, B.desc, &info);
  } else {
    pdgetrf_(&n, &n, a, &ione, &ione, A.desc, ipiv, &info);
  }
  route_end(1, what);
  if (info != 0) fail(what);
  /* the first pivot: row n (the antidiagonal), on every process of row 0 */
  if (myrow == 0 && rows > 0 && ipiv[0] != n) fail("pdgetrf: IPIV(1) is not n");
  if (!gesv) {
    route_begin();
    pdgetrs_("N", &n, &nrhs, a, &ione, &ione, A.desc, ipiv, b, &ione, &ione, B.desc, &info);
    route_end(rhs_nb == nb, "pdgetrs");
    if (info != 0) fail("pdgetrs info");
  }
  double e = 0;
  for (int lj = 0; lj < B.lc; ++lj)
    for (int li = 0; li < rows; ++li) {
      double d = fabs(b[li + (size_t)lj * B.lr] - xtrue(l2g(li, nb, myrow, nprow), l2g(lj, rhs_nb, mycol, npcol)));
      if (d > e) e = d;
    }
  check_small(e, 1e-10, what);
  free(a);
  free(b);
  free(ipiv);
}

/* The real ScaLAPACK routine `name`: the definition in the library that
 * holds descinit_ (which hetla does not export), not the one the plain name
 * resolves to (hetla's when libhetla_scalapack is loaded). Its inner calls
 * (pdgels' pdgeqrf and pdormqr) may still go to hetla. */
static void* real_scalapack(const char* name) {
  static void* lib = NULL;
  if (!lib) {
    Dl_info info;
    void* sym = dlsym(RTLD_DEFAULT, "descinit_");
    if (!sym || !dladdr(sym, &info) || !info.dli_fname) return NULL;
    lib = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    if (!lib) return NULL;
  }
  void* f = dlsym(lib, name);
  if (!f || (calls && f == dlsym(RTLD_DEFAULT, name))) {
    fail("the real ScaLAPACK routine not found");
    return NULL;
  }
  return f;
}

/* *out = real_scalapack(name) (ISO C has no object-to-function pointer cast) */
static void real_fn(const char* name, void* out, size_t size) {
  void* f = real_scalapack(name);
  memcpy(out, &f, size);
}

/* pdgeqrf (m x n, tall or wide) with its workspace query, then Q R by
 * the real ScaLAPACK pdormqr from R and the reflectors and tau hetla left
 * (ScaLAPACK's layout of them): every process checks its part of A. */
static void test_geqrf(int m, int n, int nb) {
  const int k = m < n ? m : n;
  Dist A = make(m, n, nb, nb), C = make(m, n, nb, nb);
  double* a = calloc((size_t)A.lr * (A.lc ? A.lc : 1), sizeof *a);
  double* c = calloc((size_t)C.lr * (C.lc ? C.lc : 1), sizeof *c);
  double* tau = calloc((size_t)A.lc + 1, sizeof *tau);
  const int rows = numroc_(&m, &nb, &myrow, &izero, &nprow);
  for (int lj = 0; lj < A.lc; ++lj)
    for (int li = 0; li < rows; ++li) a[li + (size_t)lj * A.lr] = gen(l2g(li, nb, myrow, nprow), l2g(lj, nb, mycol, npcol), m);
  int info = -99, lwork = -1;
  double q = 0;
  pdgeqrf_(&m, &n, a, &ione, &ione, A.desc, tau, &q, &lwork, &info); /* a query: ScaLAPACK answers */
  lwork = (int)q;
  double* work = malloc(((size_t)lwork + 1) * sizeof *work);
  char what[64];
  snprintf(what, sizeof what, "pdgeqrf m=%d n=%d nb=%d", m, n, nb);
  route_begin();
  pdgeqrf_(&m, &n, a, &ione, &ione, A.desc, tau, work, &lwork, &info);
  route_end(1, what);
  if (info != 0) fail(what);
  free(work);
  for (int lj = 0; lj < C.lc; ++lj) /* C = R */
    for (int li = 0; li < rows; ++li)
      c[li + (size_t)lj * C.lr] = l2g(li, nb, myrow, nprow) <= l2g(lj, nb, mycol, npcol) ? a[li + (size_t)lj * A.lr] : 0;
  pdormqr_fn* ormqr = NULL;
  real_fn("pdormqr_", &ormqr, sizeof ormqr);
  if (!ormqr) ormqr = pdormqr_;
  lwork = -1;
  ormqr("L", "N", &m, &n, &k, a, &ione, &ione, A.desc, tau, c, &ione, &ione, C.desc, &q, &lwork, &info);
  lwork = (int)q;
  work = malloc(((size_t)lwork + 1) * sizeof *work);
  ormqr("L", "N", &m, &n, &k, a, &ione, &ione, A.desc, tau, c, &ione, &ione, C.desc, work, &lwork, &info);
  if (info != 0) fail("pdormqr after pdgeqrf");
  double e = 0;
  for (int lj = 0; lj < C.lc; ++lj)
    for (int li = 0; li < rows; ++li) {
      double d = fabs(c[li + (size_t)lj * C.lr] - gen(l2g(li, nb, myrow, nprow), l2g(lj, nb, mycol, npcol), m));
      if (d > e) e = d;
    }
  check_small(e, 1e-12 * (m > n ? m : n), what);
  free(work);
  free(a);
  free(c);
  free(tau);
}

static double fg(int i, int j) { return sin(0.37 * i * j + 1.3 * j + 0.1 * i) + (i == j ? 2.0 : 0.0); }
static double complex fgz(int i, int j) { return fg(i, j) + I * 0.5 * cos(0.21 * i + 0.5 * j); }
static int local_rows(const Dist* D) { return numroc_(&D->desc[2], &D->desc[4], &myrow, &izero, &nprow); }
static size_t local_size(const Dist* D) { return (size_t)D->lr * (D->lc ? D->lc : 1); }
/* global row / column of local (li, lj) of D */
static int grow(const Dist* D, int li) { return l2g(li, D->desc[4], myrow, nprow); }
static int gcol(const Dist* D, int lj) { return l2g(lj, D->desc[5], mycol, npcol); }

/* largest |x - y| over this process's part of D's local arrays */
static double max_diff_d(const Dist* D, const double* x, const double* y) {
  double e = 0;
  for (int lj = 0; lj < D->lc; ++lj)
    for (int li = 0; li < local_rows(D); ++li) {
      double d = fabs(x[li + (size_t)lj * D->lr] - y[li + (size_t)lj * D->lr]);
      if (!(d <= e)) e = d; /* NaN sticks */
    }
  return e;
}
static double max_diff_z(const Dist* D, const double complex* x, const double complex* y) {
  double e = 0;
  for (int lj = 0; lj < D->lc; ++lj)
    for (int li = 0; li < local_rows(D); ++li) {
      double d = cabs(x[li + (size_t)lj * D->lr] - y[li + (size_t)lj * D->lr]);
      if (!(d <= e)) e = d;
    }
  return e;
}

/* p?ormqr / p?unmqr after p?geqrf of the nq x k A (nq = m for side L, n for
 * R): C (m x n) = op(Q) C or C op(Q) on hetla, against the real routine on
 * a copy of C; WORK(1) after hetla's call is the workspace query's answer
 * (hetla's formula for ScaLAPACK's minimum); LWORK one below it is
 * ScaLAPACK's error -16. */
static void test_ormqr(const char* side, const char* trans, int m, int n, int k, int nb, int bad_lwork) {
  const int nq = side[0] == 'L' ? m : n;
  Dist A = make(nq, k, nb, nb), C = make(m, n, nb, nb);
  double* a = calloc(local_size(&A), sizeof *a);
  double* c = calloc(local_size(&C), sizeof *c);
  double* c2 = calloc(local_size(&C), sizeof *c2);
  double* tau = calloc((size_t)A.lc + 1, sizeof *tau);
  for (int lj = 0; lj < A.lc; ++lj)
    for (int li = 0; li < local_rows(&A); ++li) a[li + (size_t)lj * A.lr] = fg(grow(&A, li), gcol(&A, lj));
  for (int lj = 0; lj < C.lc; ++lj)
    for (int li = 0; li < local_rows(&C); ++li)
      c[li + (size_t)lj * C.lr] = c2[li + (size_t)lj * C.lr] = fb(grow(&C, li), gcol(&C, lj));
  int info = -99, lwork = -1;
  double q = 0;
  pdgeqrf_(&nq, &k, a, &ione, &ione, A.desc, tau, &q, &lwork, &info);
  lwork = (int)q;
  double* work = malloc(((size_t)lwork + 1) * sizeof *work);
  pdgeqrf_(&nq, &k, a, &ione, &ione, A.desc, tau, work, &lwork, &info);
  free(work);
  if (info != 0) fail("pdgeqrf before pdormqr");
  lwork = -1;
  pdormqr_(side, trans, &m, &n, &k, a, &ione, &ione, A.desc, tau, c, &ione, &ione, C.desc, &q, &lwork, &info);
  lwork = (int)q;
  work = malloc(((size_t)lwork + 1) * sizeof *work);
  char what[80];
  snprintf(what, sizeof what, "pdormqr %s %s m=%d n=%d k=%d nb=%d", side, trans, m, n, k, nb);
  route_begin();
  pdormqr_(side, trans, &m, &n, &k, a, &ione, &ione, A.desc, tau, c, &ione, &ione, C.desc, work, &lwork, &info);
  route_end(1, what);
  if (info != 0) fail(what);
  if (work[0] != q) fail("pdormqr: WORK(1) is not the workspace query's answer");
  pdormqr_fn* real = NULL;
  real_fn("pdormqr_", &real, sizeof real);
  if (real) {
    real(side, trans, &m, &n, &k, a, &ione, &ione, A.desc, tau, c2, &ione, &ione, C.desc, work, &lwork, &info);
    if (info != 0) fail("the real pdormqr");
    check_small(max_diff_d(&C, c, c2), 1e-12 * (m > n ? m : n), what);
  }
  if (bad_lwork) {
    lwork = (int)q - 1;
    g_xerbla_info = 0;
    route_begin();
    pdormqr_(side, trans, &m, &n, &k, a, &ione, &ione, A.desc, tau, c, &ione, &ione, C.desc, work, &lwork, &info);
    route_end(0, "pdormqr lwork too small");
    if (info != -16 || g_xerbla_info != 16) fail("pdormqr lwork too small: not argument 16");
  }
  free(work);
  free(a);
  free(c);
  free(c2);
  free(tau);
}

/* pzunmqr as pdormqr, complex */
static void test_zunmqr(const char* side, const char* trans, int m, int n, int k, int nb) {
  const int nq = side[0] == 'L' ? m : n;
  Dist A = make(nq, k, nb, nb), C = make(m, n, nb, nb);
  double complex* a = calloc(local_size(&A), sizeof *a);
  double complex* c = calloc(local_size(&C), sizeof *c);
  double complex* c2 = calloc(local_size(&C), sizeof *c2);
  double complex* tau = calloc((size_t)A.lc + 1, sizeof *tau);
  for (int lj = 0; lj < A.lc; ++lj)
    for (int li = 0; li < local_rows(&A); ++li) a[li + (size_t)lj * A.lr] = fgz(grow(&A, li), gcol(&A, lj));
  for (int lj = 0; lj < C.lc; ++lj)
    for (int li = 0; li < local_rows(&C); ++li)
      c[li + (size_t)lj * C.lr] = c2[li + (size_t)lj * C.lr] = fgz(gcol(&C, lj), grow(&C, li));
  int info = -99, lwork = -1;
  double complex q = 0;
  pzgeqrf_(&nq, &k, a, &ione, &ione, A.desc, tau, &q, &lwork, &info);
  lwork = (int)creal(q);
  double complex* work = malloc(((size_t)lwork + 1) * sizeof *work);
  pzgeqrf_(&nq, &k, a, &ione, &ione, A.desc, tau, work, &lwork, &info);
  free(work);
  if (info != 0) fail("pzgeqrf before pzunmqr");
  lwork = -1;
  pzunmqr_(side, trans, &m, &n, &k, a, &ione, &ione, A.desc, tau, c, &ione, &ione, C.desc, &q, &lwork, &info);
  lwork = (int)creal(q);
  work = malloc(((size_t)lwork + 1) * sizeof *work);
  char what[80];
  snprintf(what, sizeof what, "pzunmqr %s %s m=%d n=%d k=%d nb=%d", side, trans, m, n, k, nb);
  route_begin();
  pzunmqr_(side, trans, &m, &n, &k, a, &ione, &ione, A.desc, tau, c, &ione, &ione, C.desc, work, &lwork, &info);
  route_end(1, what);
  if (info != 0) fail(what);
  if (work[0] != q) fail("pzunmqr: WORK(1) is not the workspace query's answer");
  pzunmqr_fn* real = NULL;
  real_fn("pzunmqr_", &real, sizeof real);
  if (real) {
    real(side, trans, &m, &n, &k, a, &ione, &ione, A.desc, tau, c2, &ione, &ione, C.desc, work, &lwork, &info);
    if (info != 0) fail("the real pzunmqr");
    check_small(max_diff_z(&C, c, c2), 1e-12 * (m > n ? m : n), what);
  }
  free(work);
  free(a);
  free(c);
  free(c2);
  free(tau);
}

/* pdgels of op(A) X = B, B = op(A) xtrue (consistent: an overdetermined
 * op(A) gives X = xtrue), B's blocks nb x rhs_nb (rhs_nb != nb: passed to
 * ScaLAPACK). X and A's QR / LQ factor against the real pdgels on copies;
 * WORK(1) as the workspace query's. */
static void test_gels(const char* trans, int m, int n, int nb, int rhs_nb) {
  const int nrhs = 3, p = m > n ? m : n, tr = trans[0] != 'N';
  const int rows = tr ? n : m, cols = tr ? m : n; /* op(A) */
  Dist A = make(m, n, nb, nb), B = make(p, nrhs, nb, rhs_nb);
  double* a = calloc(local_size(&A), sizeof *a);
  double* a2 = calloc(local_size(&A), sizeof *a2);
  double* b = calloc(local_size(&B), sizeof *b);
  double* b2 = calloc(local_size(&B), sizeof *b2);
  for (int lj = 0; lj < A.lc; ++lj)
    for (int li = 0; li < local_rows(&A); ++li)
      a[li + (size_t)lj * A.lr] = a2[li + (size_t)lj * A.lr] = fg(grow(&A, li), gcol(&A, lj));
  for (int lj = 0; lj < B.lc; ++lj)
    for (int li = 0; li < local_rows(&B); ++li) {
      int i = grow(&B, li), r = gcol(&B, lj);
      double s = 7.0; /* rows past op(A)'s are not read (minimum norm: set to 0 first) */
      if (i < rows) {
        s = 0;
        for (int j = 0; j < cols; ++j) s += (tr ? fg(j, i) : fg(i, j)) * xtrue(j, r);
      }
      b[li + (size_t)lj * B.lr] = b2[li + (size_t)lj * B.lr] = s;
    }
  int info = -99, lwork = -1;
  double q = 0;
  pdgels_(trans, &m, &n, &nrhs, a, &ione, &ione, A.desc, b, &ione, &ione, B.desc, &q, &lwork, &info);
  lwork = (int)q;
  double* work = malloc(((size_t)lwork + 1) * sizeof *work);
  char what[80];
  snprintf(what, sizeof what, "pdgels %s m=%d n=%d nb=%d rhs_nb=%d", trans, m, n, nb, rhs_nb);
  route_begin();
  pdgels_(trans, &m, &n, &nrhs, a, &ione, &ione, A.desc, b, &ione, &ione, B.desc, work, &lwork, &info);
  route_end(rhs_nb == nb, what);
  if (info != 0) fail(what);
  if (work[0] != q) fail("pdgels: WORK(1) is not the workspace query's answer");
  if (rows >= cols) check_small(solve_error(b, &B, 0, cols), 1e-10, what);
  pdgels_fn* real = NULL;
  real_fn("pdgels_", &real, sizeof real);
  if (real) {
    real(trans, &m, &n, &nrhs, a2, &ione, &ione, A.desc, b2, &ione, &ione, B.desc, work, &lwork, &info);
    if (info != 0) fail("the real pdgels");
    check_small(max_diff_d(&B, b, b2), 1e-10, what);
    check_small(max_diff_d(&A, a, a2), 1e-10, what);
  }
  free(work);
  free(a);
  free(a2);
  free(b);
  free(b2);
}

/* pzgels as pdgels, complex, B general (X against the real pzgels only) */
static void test_zgels(const char* trans, int m, int n, int nb) {
  const int nrhs = 2, p = m > n ? m : n;
  const int rows = trans[0] != 'N' ? n : m;
  Dist A = make(m, n, nb, nb), B = make(p, nrhs, nb, nb);
  double complex* a = calloc(local_size(&A), sizeof *a);
  double complex* a2 = calloc(local_size(&A), sizeof *a2);
  double complex* b = calloc(local_size(&B), sizeof *b);
  double complex* b2 = calloc(local_size(&B), sizeof *b2);
  for (int lj = 0; lj < A.lc; ++lj)
    for (int li = 0; li < local_rows(&A); ++li)
      a[li + (size_t)lj * A.lr] = a2[li + (size_t)lj * A.lr] = fgz(grow(&A, li), gcol(&A, lj));
  for (int lj = 0; lj < B.lc; ++lj)
    for (int li = 0; li < local_rows(&B); ++li) {
      int i = grow(&B, li);
      b[li + (size_t)lj * B.lr] = b2[li + (size_t)lj * B.lr] = i < rows ? fgz(gcol(&B, lj) + 3, i) : 7.0; /* not read */
    }
  int info = -99, lwork = -1;
  double complex q = 0;
  pzgels_(trans, &m, &n, &nrhs, a, &ione, &ione, A.desc, b, &ione, &ione, B.desc, &q, &lwork, &info);
  lwork = (int)creal(q);
  double complex* work = malloc(((size_t)lwork + 1) * sizeof *work);
  char what[80];
  snprintf(what, sizeof what, "pzgels %s m=%d n=%d nb=%d", trans, m, n, nb);
  route_begin();
  pzgels_(trans, &m, &n, &nrhs, a, &ione, &ione, A.desc, b, &ione, &ione, B.desc, work, &lwork, &info);
  route_end(1, what);
  if (info != 0) fail(what);
  if (work[0] != q) fail("pzgels: WORK(1) is not the workspace query's answer");
  pzgels_fn* real = NULL;
  real_fn("pzgels_", &real, sizeof real);
  if (real) {
    real(trans, &m, &n, &nrhs, a2, &ione, &ione, A.desc, b2, &ione, &ione, B.desc, work, &lwork, &info);
    if (info != 0) fail("the real pzgels");
    check_small(max_diff_z(&B, b, b2), 1e-10, what);
    check_small(max_diff_z(&A, a, a2), 1e-10, what);
  }
  free(work);
  free(a);
  free(a2);
  free(b);
  free(b2);
}

/* invalid arguments: ScaLAPACK's report (pxerbla's number) and info */
static void test_bad_arguments(void) {
  const int n = 64, nb = 16;
  Dist A = make(n, n, nb, nb);
  double* a = calloc((size_t)A.lr * (A.lc ? A.lc : 1), sizeof *a);
  int info = 0;
  g_xerbla_info = 0;
  pdpotrf_("X", &n, a, &ione, &ione, A.desc, &info);
  if (info != -1 || g_xerbla_info != 1 || strcmp(g_xerbla_name, "PDPOTRF") != 0) fail("pdpotrf uplo = X: not argument 1");
  int bad[9];
  memcpy(bad, A.desc, sizeof bad);
  bad[8] = 0; /* lld */
  g_xerbla_info = 0;
  pdpotrf_("L", &n, a, &ione, &ione, bad, &info);
  if (info != -609 || g_xerbla_info != 609) fail("pdpotrf lld = 0: not 609 (argument 6, entry 9)");
  g_xerbla_info = 0;
  const int nrhs = 1, two = 2; /* B at row 2: not aligned with A's blocks */
  pdposv_("L", &n, &nrhs, a, &ione, &ione, A.desc, a, &two, &ione, A.desc, &info);
  if (info != -9 || g_xerbla_info != 9 || strcmp(g_xerbla_name, "PDPOSV") != 0) fail("pdposv ib = 2: not argument 9");
  /* pdgels: trans 'C' is not a real type's; LWORK one below the minimum */
  double q = 0, tau = 0;
  int lwork = -1;
  g_xerbla_info = 0;
  pdgels_("C", &n, &n, &nrhs, a, &ione, &ione, A.desc, a, &ione, &ione, A.desc, &q, &lwork, &info);
  if (info != -1 || g_xerbla_info != 1 || strcmp(g_xerbla_name, "PDGELS") != 0) fail("pdgels trans = C: not argument 1");
  pdgels_("N", &n, &n, &nrhs, a, &ione, &ione, A.desc, a, &ione, &ione, A.desc, &q, &lwork, &info);
  lwork = (int)q - 1;
  double* work = malloc(((size_t)q + 1) * sizeof *work);
  g_xerbla_info = 0;
  route_begin();
  pdgels_("N", &n, &n, &nrhs, a, &ione, &ione, A.desc, a, &ione, &ione, A.desc, work, &lwork, &info);
  route_end(0, "pdgels lwork too small");
  if (info != -14 || g_xerbla_info != 14) fail("pdgels lwork too small: not argument 14");
  /* pdormqr: k > m (argument 5); C in another context is -(1400 + 2) in ScaLAPACK */
  const int k = n + 1;
  g_xerbla_info = 0;
  lwork = (int)q;
  pdormqr_("L", "N", &n, &n, &k, a, &ione, &ione, A.desc, &tau, a, &ione, &ione, A.desc, work, &lwork, &info);
  if (info >= 0 || g_xerbla_info != -info || strcmp(g_xerbla_name, "PDORMQR") != 0) fail("pdormqr k > m: not reported");
  free(work);
  free(a);
}

/* not positive definite at global row `bad`: info = bad + 1 on every process */
static void test_not_spd(int n, int nb, int bad) {
  Dist A = make(n, n, nb, nb);
  double* a = calloc((size_t)A.lr * (A.lc ? A.lc : 1), sizeof *a);
  fill_system(a, &A, NULL, NULL, n, bad);
  int info = -99;
  route_begin();
  pdpotrf_("L", &n, a, &ione, &ione, A.desc, &info);
  route_end(1, "pdpotrf not SPD");
  int lo = info, hi = info;
  Cigamn2d(ctxt, "All", " ", 1, 1, &lo, 1, NULL, NULL, -1, -1, -1);
  Cigamx2d(ctxt, "All", " ", 1, 1, &hi, 1, NULL, NULL, -1, -1, -1);
  if (lo != hi) fail("not SPD: info differs between processes");
  if (info != bad + 1) {
    char msg[80];
    snprintf(msg, sizeof msg, "not SPD: info %d, expected %d", info, bad + 1);
    fail(msg);
  }
  free(a);
}

/* pdpotrf of order n, block nb: best of 3 wall times (MPI_Wtime via BLACS' dwalltime00) */
double dwalltime00_(void);
static void time_potrf(int n, int nb) {
  Dist A = make(n, n, nb, nb);
  double* a = calloc((size_t)A.lr * (A.lc ? A.lc : 1), sizeof *a);
  double best = 1e30;
  for (int r = 0; r < 3; ++r) {
    fill_system(a, &A, NULL, NULL, n, -1);
    int info = -99;
    Cigamx2d(ctxt, "All", " ", 1, 1, &info, 1, NULL, NULL, -1, -1, -1); /* a barrier */
    double t = dwalltime00_();
    pdpotrf_("L", &n, a, &ione, &ione, A.desc, &info);
    int done = info;
    Cigamx2d(ctxt, "All", " ", 1, 1, &done, 1, NULL, NULL, -1, -1, -1);
    t = dwalltime00_() - t;
    if (info != 0) fail("timed pdpotrf");
    if (t < best) best = t;
  }
  if (me == 0)
    printf("pdpotrf n=%d nb=%d grid %dx%d (%s): %.4f s, %.1f GFLOP/s\n", n, nb, nprow, npcol,
           calls ? "libhetla_scalapack" : "ScaLAPACK", best, (double)n * n * n / 3e9 / best);
  free(a);
}

int main(int argc, char** argv) {
  int np, expect_hetla = 0, p = 0, q = 0, time_n = 0, time_nb = 0;
  const char* order = "Row";
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--expect-hetla")) expect_hetla = 1;
    else if (!strcmp(argv[i], "--expect-scalapack")) expect_hetla = all_to_scalapack = 1;
    else if (!strcmp(argv[i], "--grid") && i + 1 < argc) sscanf(argv[++i], "%dx%d", &p, &q);
    else if (!strcmp(argv[i], "--order") && i + 1 < argc) order = argv[++i][0] == 'C' ? "Col" : "Row";
    else if (!strcmp(argv[i], "--time") && i + 2 < argc) time_n = atoi(argv[++i]), time_nb = atoi(argv[++i]);
  }
  Cblacs_pinfo(&me, &np);
  if (p < 1 || q < 1) {
    for (p = 1; (p + 1) * (p + 1) <= np; ++p) {}
    while (np % p) --p;
    q = np / p;
  }
  if (p * q != np) {
    if (me == 0) fprintf(stderr, "grid %dx%d does not fit %d processes\n", p, q, np);
    return 2;
  }
  void* sym = dlsym(RTLD_DEFAULT, "hetla_scalapack_calls");
  memcpy(&calls, &sym, sizeof calls); /* ISO C has no object-to-function pointer cast */
  if (expect_hetla && !calls) {
    fprintf(stderr, "[%d] hetla_scalapack_calls not found: libhetla_scalapack is not loaded\n", me);
    return 1;
  }
  Cblacs_get(-1, 0, &ctxt);
  Cblacs_gridinit(&ctxt, order, p, q);
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
  if (time_n > 0) {
    time_potrf(time_n, time_nb);
    Cblacs_gridexit(ctxt);
    Cblacs_exit(0);
    return failures ? 1 : 0;
  }

  test_potrf_potrs("L", 300, 32, 0);
  test_potrf_potrs("U", 203, 16, 0);
  test_posv(250, 32);
  test_zpotrf(180, 24);
  test_gemm("N", 150, 130, 170, 32, 32, 0, 1);
  test_gemm("T", 120, 90, 100, 16, 16, 0, 1);
  /* passed to ScaLAPACK: a submatrix at a block boundary, ia = 2, mb != nb */
  test_potrf_potrs("L", 200, 32, 32);
  test_gemm("N", 100, 80, 60, 16, 16, 1, 0);
  test_gemm("N", 100, 80, 60, 16, 32, 0, 0);
  test_bad_arguments();
  test_not_spd(220, 32, 150);
  test_getrf(230, 32, 32, 0);
  test_getrf(190, 16, 16, 1);
  test_getrf(170, 32, 8, 0); /* pdgetrs on ScaLAPACK with hetla's pivots */
  test_geqrf(230, 150, 32);
  test_geqrf(90, 170, 16);
  test_ormqr("L", "T", 190, 70, 110, 32, 1);
  test_ormqr("L", "N", 130, 90, 100, 16, 0);
  test_ormqr("R", "N", 60, 150, 120, 32, 0);
  test_ormqr("R", "T", 70, 110, 110, 16, 0);
  test_zunmqr("L", "C", 120, 50, 90, 16);
  test_zunmqr("R", "N", 40, 100, 70, 32);
  test_gels("N", 200, 120, 32, 32);
  test_gels("N", 110, 190, 32, 32); /* minimum norm */
  test_gels("T", 190, 100, 16, 16); /* A^T: minimum norm */
  test_gels("T", 90, 160, 32, 32);
  test_gels("N", 150, 80, 16, 8); /* B's blocks not square: to ScaLAPACK */
  test_zgels("N", 160, 90, 32);
  test_zgels("C", 160, 90, 32);
  test_zgels("N", 70, 130, 16);

  int total = failures;
  Cigamx2d(ctxt, "All", " ", 1, 1, &total, 1, NULL, NULL, -1, -1, -1);
  if (me == 0)
    printf("scalapack_program: grid %dx%d (%s), %s: %s\n", nprow, npcol, order,
           calls ? "libhetla_scalapack loaded" : "plain ScaLAPACK", total ? "FAILED" : "all checks passed");
  Cblacs_gridexit(ctxt);
  Cblacs_exit(0);
  return total ? 1 : 0;
}
