/* An ILP64 LAPACK with the `_64_` names, which Debian does not ship (Julia's
 * libblastrampoline and OpenBLAS built with SUFFIX64 export them): each name
 * forwards to Debian's libopenblas64 (ILP64, unsuffixed names), opened
 * privately so that its names never meet hetla's. A program linked against it
 * and run with libhetla_lapack preloaded reaches hetla's `_64_` names; hetla
 * sends its small calls on to these (the process's _64_ names). */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef int64_t i64;
static void* vendor(const char* name) {
  static void* lib = NULL;
  if (!lib) lib = dlopen("libopenblas64.so.0", RTLD_NOW | RTLD_LOCAL);
  void* f = lib ? dlsym(lib, name) : NULL;
  if (!f) {
    fprintf(stderr, "ilp64_vendor_names: no %s in libopenblas64.so.0\n", name);
    abort();
  }
  return f;
}

void dgesv_64_(const i64* n, const i64* nrhs, double* a, const i64* lda, i64* ipiv, double* b, const i64* ldb,
               i64* info) {
  typedef void F(const i64*, const i64*, double*, const i64*, i64*, double*, const i64*, i64*);
  ((F*)vendor("dgesv_"))(n, nrhs, a, lda, ipiv, b, ldb, info);
}
void dpotrf_64_(const char* uplo, const i64* n, double* a, const i64* lda, i64* info, size_t len) {
  typedef void F(const char*, const i64*, double*, const i64*, i64*, size_t);
  ((F*)vendor("dpotrf_"))(uplo, n, a, lda, info, len);
}
void dgeqrf_64_(const i64* m, const i64* n, double* a, const i64* lda, double* tau, double* work, const i64* lwork,
                i64* info) {
  typedef void F(const i64*, const i64*, double*, const i64*, double*, double*, const i64*, i64*);
  ((F*)vendor("dgeqrf_"))(m, n, a, lda, tau, work, lwork, info);
}
void dgemm_64_(const char* ta, const char* tb, const i64* m, const i64* n, const i64* k, const double* alpha,
               const double* a, const i64* lda, const double* b, const i64* ldb, const double* beta, double* c,
               const i64* ldc, size_t la, size_t lb) {
  typedef void F(const char*, const char*, const i64*, const i64*, const i64*, const double*, const double*,
                 const i64*, const double*, const i64*, const double*, double*, const i64*, size_t, size_t);
  ((F*)vendor("dgemm_"))(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, la, lb);
}
