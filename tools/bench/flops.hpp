// Floating-point operation counts from LAPACK Working Note 41 (the formulas
// of LAPACK's dopla.f / MAGMA's flops.h): flops = multiplications + additions
// for real types and 6 * multiplications + 2 * additions for complex types.
#pragma once
#include "hetla/types.hpp"

namespace hetla::cli::flops {

template <typename T> double combine(double fmuls, double fadds) {
  return is_complex_v<T> ? 6.0 * fmuls + 2.0 * fadds : fmuls + fadds;
}

// Cholesky factorization of an n x n matrix.
inline double fmuls_potrf(double n) { return n * (((1.0 / 6.0) * n + 0.5) * n + 1.0 / 3.0); }
inline double fadds_potrf(double n) { return n * (((1.0 / 6.0) * n) * n - 1.0 / 6.0); }
// Two triangular solves with nrhs right-hand sides.
inline double fmuls_potrs(double n, double nrhs) { return nrhs * n * (n + 1.0); }
inline double fadds_potrs(double n, double nrhs) { return nrhs * n * (n - 1.0); }

template <typename T> double potrf(double n) { return combine<T>(fmuls_potrf(n), fadds_potrf(n)); }
template <typename T> double potrs(double n, double nrhs) {
  return combine<T>(fmuls_potrs(n, nrhs), fadds_potrs(n, nrhs));
}
template <typename T> double posv(double n, double nrhs) { return potrf<T>(n) + potrs<T>(n, nrhs); }

// LU of a general m x n matrix; getrs with nrhs right-hand sides.
inline double fmuls_getrf(double m, double n) {
  return m < n ? 0.5 * m * (m * (n - m / 3.0 - 1.0) + n) + 2.0 * m / 3.0
               : 0.5 * n * (n * (m - n / 3.0 - 1.0) + m) + 2.0 * n / 3.0;
}
inline double fadds_getrf(double m, double n) {
  return m < n ? 0.5 * m * (m * (n - m / 3.0) - n) + m / 6.0 : 0.5 * n * (n * (m - n / 3.0) - m) + n / 6.0;
}
inline double fmuls_getrs(double n, double nrhs) { return nrhs * n * n; }
inline double fadds_getrs(double n, double nrhs) { return nrhs * n * (n - 1.0); }

template <typename T> double getrf(double m, double n) { return combine<T>(fmuls_getrf(m, n), fadds_getrf(m, n)); }
template <typename T> double getrs(double n, double nrhs) {
  return combine<T>(fmuls_getrs(n, nrhs), fadds_getrs(n, nrhs));
}
template <typename T> double gesv(double n, double nrhs) { return getrf<T>(n, n) + getrs<T>(n, nrhs); }

// Householder QR of an m x n matrix (bench_qr.cc has its own copy with the
// solvers' counts; this one serves the distributed bench).
inline double fmuls_geqrf(double m, double n) {
  return m > n ? n * (n * (0.5 - (1.0 / 3.0) * n + m) + m + 23.0 / 6.0)
               : m * (m * (-0.5 - (1.0 / 3.0) * m + n) + 2.0 * n + 23.0 / 6.0);
}
inline double fadds_geqrf(double m, double n) {
  return m > n ? n * (n * (0.5 - (1.0 / 3.0) * n + m) + 5.0 / 6.0)
               : m * (m * (-0.5 - (1.0 / 3.0) * m + n) + n + 5.0 / 6.0);
}
template <typename T> double geqrf(double m, double n) { return combine<T>(fmuls_geqrf(m, n), fadds_geqrf(m, n)); }

// Level-3 BLAS: gemm (m x n x k), syrk/herk (n x n, rank k), trsm from the left (B m x n).
inline double fmuls_gemm(double m, double n, double k) { return m * n * k; }
inline double fadds_gemm(double m, double n, double k) { return m * n * k; }
inline double fmuls_syrk(double n, double k) { return 0.5 * k * n * (n + 1.0); }
inline double fadds_syrk(double n, double k) { return 0.5 * k * n * (n + 1.0); }
inline double fmuls_trsm_left(double m, double n) { return 0.5 * n * m * (m + 1.0); }
inline double fadds_trsm_left(double m, double n) { return 0.5 * n * m * (m - 1.0); }

template <typename T> double gemm(double m, double n, double k) {
  return combine<T>(fmuls_gemm(m, n, k), fadds_gemm(m, n, k));
}
template <typename T> double syrk(double n, double k) { return combine<T>(fmuls_syrk(n, k), fadds_syrk(n, k)); }
template <typename T> double trsm_left(double m, double n) {
  return combine<T>(fmuls_trsm_left(m, n), fadds_trsm_left(m, n));
}

// Matrix polynomials and functions: `products` n x n x n products plus
// `solves` LU solves with n right-hand sides (the lincombs are O(n^2)).
template <typename T> double matfun(double n, double products, double solves) {
  return products * gemm<T>(n, n, n) + solves * gesv<T>(n, n);
}

}  // namespace hetla::cli::flops
