// C API for matrix polynomials and functions over the C++ API (hetla/matfun.hpp).
#include <cctype>

#include "api/c_api_util.hpp"
#include "hetla/hetla.hpp"

namespace {
using hetla::capi::guarded;

/// 'H' / 'P' in either case; anything else reaches the C++ check (argument 8).
hetla::PolyMethod to_method(char c) {
  return static_cast<hetla::PolyMethod>(std::toupper(static_cast<unsigned char>(c)));
}

template <typename T>
int matpoly(int n, const T* X, int ldx, int degree, const T* coeffs, T* P, int ldp, char method) {
  return guarded([&] {
    hetla::matpoly<T>(n, X, ldx, degree, coeffs, P, ldp, to_method(method));
    return 0;
  });
}
template <typename T> int expm(int n, const T* A, int lda, T* E, int lde) {
  return guarded([&] {
    hetla::expm<T>(n, A, lda, E, lde);
    return 0;
  });
}
template <typename T> int cosm(int n, const T* A, int lda, T* C, int ldc) {
  return guarded([&] {
    hetla::cosm<T>(n, A, lda, C, ldc);
    return 0;
  });
}
template <typename T> int sinm(int n, const T* A, int lda, T* S, int lds) {
  return guarded([&] {
    hetla::sinm<T>(n, A, lda, S, lds);
    return 0;
  });
}
}  // namespace

extern "C" {

int hetla_smatpoly(int n, const float* X, int ldx, int d, const float* a, float* P, int ldp, char m) {
  return matpoly(n, X, ldx, d, a, P, ldp, m);
}
int hetla_dmatpoly(int n, const double* X, int ldx, int d, const double* a, double* P, int ldp, char m) {
  return matpoly(n, X, ldx, d, a, P, ldp, m);
}
int hetla_cmatpoly(int n, const hetla_complex_float* X, int ldx, int d, const hetla_complex_float* a,
                   hetla_complex_float* P, int ldp, char m) {
  return matpoly(n, X, ldx, d, a, P, ldp, m);
}
int hetla_zmatpoly(int n, const hetla_complex_double* X, int ldx, int d, const hetla_complex_double* a,
                   hetla_complex_double* P, int ldp, char m) {
  return matpoly(n, X, ldx, d, a, P, ldp, m);
}

int hetla_sexpm(int n, const float* A, int lda, float* E, int lde) { return expm(n, A, lda, E, lde); }
int hetla_dexpm(int n, const double* A, int lda, double* E, int lde) { return expm(n, A, lda, E, lde); }
int hetla_cexpm(int n, const hetla_complex_float* A, int lda, hetla_complex_float* E, int lde) {
  return expm(n, A, lda, E, lde);
}
int hetla_zexpm(int n, const hetla_complex_double* A, int lda, hetla_complex_double* E, int lde) {
  return expm(n, A, lda, E, lde);
}

int hetla_scosm(int n, const float* A, int lda, float* C, int ldc) { return cosm(n, A, lda, C, ldc); }
int hetla_dcosm(int n, const double* A, int lda, double* C, int ldc) { return cosm(n, A, lda, C, ldc); }
int hetla_ccosm(int n, const hetla_complex_float* A, int lda, hetla_complex_float* C, int ldc) {
  return cosm(n, A, lda, C, ldc);
}
int hetla_zcosm(int n, const hetla_complex_double* A, int lda, hetla_complex_double* C, int ldc) {
  return cosm(n, A, lda, C, ldc);
}

int hetla_ssinm(int n, const float* A, int lda, float* S, int lds) { return sinm(n, A, lda, S, lds); }
int hetla_dsinm(int n, const double* A, int lda, double* S, int lds) { return sinm(n, A, lda, S, lds); }
int hetla_csinm(int n, const hetla_complex_float* A, int lda, hetla_complex_float* S, int lds) {
  return sinm(n, A, lda, S, lds);
}
int hetla_zsinm(int n, const hetla_complex_double* A, int lda, hetla_complex_double* S, int lds) {
  return sinm(n, A, lda, S, lds);
}

}  // extern "C"
