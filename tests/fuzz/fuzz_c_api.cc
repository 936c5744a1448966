// libFuzzer harness for the C API: every routine (double and complex double:
// the four precisions share one template) with fuzzed sizes, leading
// dimensions, flags, NULL pointers and NaN/Inf payloads. Buffers are exactly
// as large as the arguments say, so a call that accepts a bad argument and
// touches memory it was not given is an ASan report; a call that rejects one
// must say so with a negative info and a message.
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <vector>

#include "fuzz_input.hpp"
#include "hetla/hetla.h"

namespace {

using hetla::fuzz::Input;
using Z = std::complex<double>;

// The C entry points by precision, so one template drives both.
int potrf(char u, int n, double* a, int l) { return hetla_dpotrf(u, n, a, l); }
int potrf(char u, int n, Z* a, int l) { return hetla_zpotrf(u, n, a, l); }
int potrs(char u, int n, int r, const double* a, int l, double* b, int lb) { return hetla_dpotrs(u, n, r, a, l, b, lb); }
int potrs(char u, int n, int r, const Z* a, int l, Z* b, int lb) { return hetla_zpotrs(u, n, r, a, l, b, lb); }
int posv(char u, int n, int r, double* a, int l, double* b, int lb) { return hetla_dposv(u, n, r, a, l, b, lb); }
int posv(char u, int n, int r, Z* a, int l, Z* b, int lb) { return hetla_zposv(u, n, r, a, l, b, lb); }
int getrf(int m, int n, double* a, int l, int* p) { return hetla_dgetrf(m, n, a, l, p); }
int getrf(int m, int n, Z* a, int l, int* p) { return hetla_zgetrf(m, n, a, l, p); }
int getrs(char t, int n, int r, const double* a, int l, const int* p, double* b, int lb) {
  return hetla_dgetrs(t, n, r, a, l, p, b, lb);
}
int getrs(char t, int n, int r, const Z* a, int l, const int* p, Z* b, int lb) {
  return hetla_zgetrs(t, n, r, a, l, p, b, lb);
}
int gesv(int n, int r, double* a, int l, int* p, double* b, int lb) { return hetla_dgesv(n, r, a, l, p, b, lb); }
int gesv(int n, int r, Z* a, int l, int* p, Z* b, int lb) { return hetla_zgesv(n, r, a, l, p, b, lb); }
int geqrf(int m, int n, double* a, int l, double* t) { return hetla_dgeqrf(m, n, a, l, t); }
int geqrf(int m, int n, Z* a, int l, Z* t) { return hetla_zgeqrf(m, n, a, l, t); }
int unmqr(char s, char t, int m, int n, int k, const double* a, int l, const double* tau, double* c, int lc) {
  return hetla_dormqr(s, t, m, n, k, a, l, tau, c, lc);
}
int unmqr(char s, char t, int m, int n, int k, const Z* a, int l, const Z* tau, Z* c, int lc) {
  return hetla_zunmqr(s, t, m, n, k, a, l, tau, c, lc);
}
int ungqr(int m, int n, int k, double* a, int l, const double* t) { return hetla_dorgqr(m, n, k, a, l, t); }
int ungqr(int m, int n, int k, Z* a, int l, const Z* t) { return hetla_zungqr(m, n, k, a, l, t); }
int gels(char t, int m, int n, int r, double* a, int l, double* b, int lb) { return hetla_dgels(t, m, n, r, a, l, b, lb); }
int gels(char t, int m, int n, int r, Z* a, int l, Z* b, int lb) { return hetla_zgels(t, m, n, r, a, l, b, lb); }
int gemm(char ta, char tb, int m, int n, int k, double al, const double* a, int l, const double* b, int lb, double be,
         double* c, int lc) {
  return hetla_dgemm(ta, tb, m, n, k, al, a, l, b, lb, be, c, lc);
}
int gemm(char ta, char tb, int m, int n, int k, Z al, const Z* a, int l, const Z* b, int lb, Z be, Z* c, int lc) {
  return hetla_zgemm(ta, tb, m, n, k, al, a, l, b, lb, be, c, lc);
}
int syrk(char u, char t, int n, int k, double al, const double* a, int l, double be, double* c, int lc) {
  return hetla_dsyrk(u, t, n, k, al, a, l, be, c, lc);
}
int syrk(char u, char t, int n, int k, Z al, const Z* a, int l, Z be, Z* c, int lc) {
  return hetla_zsyrk(u, t, n, k, al, a, l, be, c, lc);
}
int trsm(char s, char u, char t, char d, int m, int n, double al, const double* a, int l, double* b, int lb) {
  return hetla_dtrsm(s, u, t, d, m, n, al, a, l, b, lb);
}
int trsm(char s, char u, char t, char d, int m, int n, Z al, const Z* a, int l, Z* b, int lb) {
  return hetla_ztrsm(s, u, t, d, m, n, al, a, l, b, lb);
}
int matpoly(int n, const double* x, int lx, int deg, const double* c, double* p, int lp, char m) {
  return hetla_dmatpoly(n, x, lx, deg, c, p, lp, m);
}
int matpoly(int n, const Z* x, int lx, int deg, const Z* c, Z* p, int lp, char m) {
  return hetla_zmatpoly(n, x, lx, deg, c, p, lp, m);
}
int expm(int n, const double* a, int l, double* e, int le) { return hetla_dexpm(n, a, l, e, le); }
int expm(int n, const Z* a, int l, Z* e, int le) { return hetla_zexpm(n, a, l, e, le); }

/// The pointer to pass: the buffer, or NULL now and then.
template <typename T>
T* ptr(Input& in, std::vector<T>& v) {
  return in.rarely() ? nullptr : v.data();
}

constexpr int kMax = 40;  // sizes up to a few tiles at small nb, fast enough for many runs a second

template <typename T>
int call(Input& in, uint8_t routine) {
  switch (routine % 14) {
    case 0: {
      const int n = in.dim(kMax), lda = in.ld(n);
      auto A = in.matrix<T>(lda, n);
      return potrf(in.flag("LUlu"), n, ptr(in, A), lda);
    }
    case 1:
    case 2: {
      const int n = in.dim(kMax), r = in.dim(4), lda = in.ld(n), ldb = in.ld(n);
      auto A = in.matrix<T>(lda, n);
      auto B = in.matrix<T>(ldb, r);
      const char u = in.flag("LU");
      return routine % 14 == 1 ? potrs(u, n, r, ptr(in, A), lda, ptr(in, B), ldb)
                               : posv(u, n, r, ptr(in, A), lda, ptr(in, B), ldb);
    }
    case 3: {
      const int m = in.dim(kMax), n = in.dim(kMax), lda = in.ld(m);
      auto A = in.matrix<T>(lda, n);
      std::vector<int> piv(std::max(1, std::min(m, n)));
      return getrf(m, n, ptr(in, A), lda, ptr(in, piv));
    }
    case 4: {
      const int n = in.dim(kMax), r = in.dim(4), lda = in.ld(n), ldb = in.ld(n);
      auto A = in.matrix<T>(lda, n);
      auto B = in.matrix<T>(ldb, r);
      std::vector<int> piv(std::max(1, n));
      for (int i = 0; i < n; ++i) piv[i] = i + 1 + in.byte() % (n - i);  // valid interchanges (LAPACK trusts ipiv)
      return getrs(in.flag("NTC"), n, r, ptr(in, A), lda, ptr(in, piv), ptr(in, B), ldb);
    }
    case 5: {
      const int n = in.dim(kMax), r = in.dim(4), lda = in.ld(n), ldb = in.ld(n);
      auto A = in.matrix<T>(lda, n);
      auto B = in.matrix<T>(ldb, r);
      std::vector<int> piv(std::max(1, n));
      return gesv(n, r, ptr(in, A), lda, ptr(in, piv), ptr(in, B), ldb);
    }
    case 6: {
      const int m = in.dim(kMax), n = in.dim(kMax), lda = in.ld(m);
      auto A = in.matrix<T>(lda, n);
      std::vector<T> tau(std::max(1, std::min(m, n)));
      return geqrf(m, n, ptr(in, A), lda, ptr(in, tau));
    }
    case 7: {
      const char side = in.flag("LR"), trans = in.flag("NTC");
      const int m = in.dim(kMax), n = in.dim(kMax), k = in.dim(kMax);
      const int rows = side == 'L' || side == 'l' ? m : n;
      const int lda = in.ld(rows), ldc = in.ld(m);
      auto A = in.matrix<T>(lda, k);
      std::vector<T> tau(std::max(1, k));
      for (auto& t : tau) t = in.value<T>();
      auto C = in.matrix<T>(ldc, n);
      return unmqr(side, trans, m, n, k, ptr(in, A), lda, ptr(in, tau), ptr(in, C), ldc);
    }
    case 8: {
      const int m = in.dim(kMax), n = in.dim(kMax), k = in.dim(kMax), lda = in.ld(m);
      auto A = in.matrix<T>(lda, n);
      std::vector<T> tau(std::max(1, k));
      for (auto& t : tau) t = in.value<T>();
      return ungqr(m, n, k, ptr(in, A), lda, ptr(in, tau));
    }
    case 9: {
      const char t = in.flag("NTC");
      const int m = in.dim(kMax), n = in.dim(kMax), r = in.dim(4), lda = in.ld(m), ldb = in.ld(std::max(m, n));
      auto A = in.matrix<T>(lda, n);
      auto B = in.matrix<T>(ldb, r);
      return gels(t, m, n, r, ptr(in, A), lda, ptr(in, B), ldb);
    }
    case 10: {
      const char ta = in.flag("NTC"), tb = in.flag("NTC");
      const int m = in.dim(kMax), n = in.dim(kMax), k = in.dim(kMax);
      const bool na = ta == 'N' || ta == 'n', nb = tb == 'N' || tb == 'n';
      const int lda = in.ld(na ? m : k), ldb = in.ld(nb ? k : n), ldc = in.ld(m);
      auto A = in.matrix<T>(lda, na ? k : m);
      auto B = in.matrix<T>(ldb, nb ? n : k);
      auto C = in.matrix<T>(ldc, n);
      return gemm(ta, tb, m, n, k, in.value<T>(), ptr(in, A), lda, ptr(in, B), ldb, in.value<T>(), ptr(in, C), ldc);
    }
    case 11: {
      const char u = in.flag("LU"), t = in.flag("NT");
      const int n = in.dim(kMax), k = in.dim(kMax);
      const bool nt = t == 'N' || t == 'n';
      const int lda = in.ld(nt ? n : k), ldc = in.ld(n);
      auto A = in.matrix<T>(lda, nt ? k : n);
      auto C = in.matrix<T>(ldc, n);
      return syrk(u, t, n, k, in.value<T>(), ptr(in, A), lda, in.value<T>(), ptr(in, C), ldc);
    }
    case 12: {
      const char s = in.flag("LR"), u = in.flag("LU"), t = in.flag("NTC"), d = in.flag("NU");
      const int m = in.dim(kMax), n = in.dim(kMax);
      const int ka = s == 'L' || s == 'l' ? m : n;
      const int lda = in.ld(ka), ldb = in.ld(m);
      auto A = in.matrix<T>(lda, ka);
      auto B = in.matrix<T>(ldb, n);
      return trsm(s, u, t, d, m, n, in.value<T>(), ptr(in, A), lda, ptr(in, B), ldb);
    }
    default: {
      const int n = in.dim(16), lda = in.ld(n), ldp = in.ld(n);
      auto X = in.matrix<T>(lda, n);
      auto P = in.matrix<T>(ldp, n);
      if (in.byte() % 2) return expm(n, ptr(in, X), lda, ptr(in, P), ldp);
      const int degree = in.dim(8);
      std::vector<T> c(std::max(1, degree + 1));
      for (auto& v : c) v = in.value<T>();
      return matpoly(n, ptr(in, X), lda, degree, ptr(in, c), ptr(in, P), ldp, in.flag("HP"));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Two workers, no pinning: fuzzing runs many processes side by side.
  if (hetla_init_config("threads=2;pin=0") != 0) {
    std::fprintf(stderr, "fuzz_c_api: hetla_init_config failed: %s\n", hetla_last_error());
    std::abort();
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  Input in(data, size);
  const uint8_t routine = in.byte();
  const int info = in.byte() % 2 ? call<double>(in, routine) : call<Z>(in, routine);
  // A rejected argument is reported with its position and a message.
  if (info < 0 && hetla_last_error()[0] == '\0') {
    std::fprintf(stderr, "routine %d returned info %d without a message\n", routine % 14, info);
    std::abort();
  }
  return 0;
}
