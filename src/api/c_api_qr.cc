// C API for QR and least squares: LAPACK argument order and numbering over the
// C++ API (geqrf, ormqr/unmqr, orgqr/ungqr, gels).
#include <cctype>

#include "api/c_api_util.hpp"
#include "hetla/hetla.hpp"

namespace {
using hetla::capi::guarded;
using hetla::capi::to_op;

/// 'L' / 'R' in either case; anything else is passed on for the C++ API to reject.
hetla::Side to_side(char c) { return static_cast<hetla::Side>(std::toupper(static_cast<unsigned char>(c))); }

template <typename T> int geqrf(int m, int n, T* A, int lda, T* tau) {
  return guarded([&] {
    hetla::geqrf<T>(m, n, A, lda, tau);
    return 0;
  });
}
template <typename T>
int unmqr(char side, char trans, int m, int n, int k, const T* A, int lda, const T* tau, T* C, int ldc) {
  return guarded([&] {
    hetla::unmqr<T>(to_side(side), to_op(trans), m, n, k, A, lda, tau, C, ldc);
    return 0;
  });
}
template <typename T> int ungqr(int m, int n, int k, T* A, int lda, const T* tau) {
  return guarded([&] {
    hetla::ungqr<T>(m, n, k, A, lda, tau);
    return 0;
  });
}
template <typename T> int gels(char trans, int m, int n, int nrhs, T* A, int lda, T* B, int ldb) {
  return guarded([&] { return hetla::gels<T>(to_op(trans), m, n, nrhs, A, lda, B, ldb); });
}

using cf = hetla_complex_float;
using zf = hetla_complex_double;
}  // namespace

extern "C" {

int hetla_sgeqrf(int m, int n, float* A, int lda, float* tau) { return geqrf(m, n, A, lda, tau); }
int hetla_dgeqrf(int m, int n, double* A, int lda, double* tau) { return geqrf(m, n, A, lda, tau); }
int hetla_cgeqrf(int m, int n, cf* A, int lda, cf* tau) { return geqrf(m, n, A, lda, tau); }
int hetla_zgeqrf(int m, int n, zf* A, int lda, zf* tau) { return geqrf(m, n, A, lda, tau); }

int hetla_sormqr(char side, char trans, int m, int n, int k, const float* A, int lda, const float* tau, float* C,
                 int ldc) {
  return unmqr(side, trans, m, n, k, A, lda, tau, C, ldc);
}
int hetla_dormqr(char side, char trans, int m, int n, int k, const double* A, int lda, const double* tau,
                 double* C, int ldc) {
  return unmqr(side, trans, m, n, k, A, lda, tau, C, ldc);
}
int hetla_cunmqr(char side, char trans, int m, int n, int k, const cf* A, int lda, const cf* tau, cf* C, int ldc) {
  return unmqr(side, trans, m, n, k, A, lda, tau, C, ldc);
}
int hetla_zunmqr(char side, char trans, int m, int n, int k, const zf* A, int lda, const zf* tau, zf* C, int ldc) {
  return unmqr(side, trans, m, n, k, A, lda, tau, C, ldc);
}

int hetla_sorgqr(int m, int n, int k, float* A, int lda, const float* tau) { return ungqr(m, n, k, A, lda, tau); }
int hetla_dorgqr(int m, int n, int k, double* A, int lda, const double* tau) { return ungqr(m, n, k, A, lda, tau); }
int hetla_cungqr(int m, int n, int k, cf* A, int lda, const cf* tau) { return ungqr(m, n, k, A, lda, tau); }
int hetla_zungqr(int m, int n, int k, zf* A, int lda, const zf* tau) { return ungqr(m, n, k, A, lda, tau); }

int hetla_sgels(char trans, int m, int n, int nrhs, float* A, int lda, float* B, int ldb) {
  return gels(trans, m, n, nrhs, A, lda, B, ldb);
}
int hetla_dgels(char trans, int m, int n, int nrhs, double* A, int lda, double* B, int ldb) {
  return gels(trans, m, n, nrhs, A, lda, B, ldb);
}
int hetla_cgels(char trans, int m, int n, int nrhs, cf* A, int lda, cf* B, int ldb) {
  return gels(trans, m, n, nrhs, A, lda, B, ldb);
}
int hetla_zgels(char trans, int m, int n, int nrhs, zf* A, int lda, zf* B, int ldb) {
  return gels(trans, m, n, nrhs, A, lda, B, ldb);
}

}  // extern "C"
