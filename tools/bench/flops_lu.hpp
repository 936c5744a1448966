// Operation counts of LU (LAPACK Working Note 41, as in LAPACK's dopla.f):
// getrf for a general m x n matrix, getrs with nrhs right-hand sides.
#pragma once
#include "bench/flops.hpp"

namespace hetla::cli::flops {

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

}  // namespace hetla::cli::flops
