// Test and benchmark matrices (column-major, host). Shared by the CLI's
// `bench --check` and the test suite, so both judge results the same way.
#pragma once
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "hetla/types.hpp"
#include "kernels/host/blas.hpp"

namespace hetla::bench {

template <typename T> T random_scalar(std::mt19937_64& g) {
  std::uniform_real_distribution<real_t<T>> u(-1, 1);
  if constexpr (is_complex_v<T>) return T(u(g), u(g));
  else return u(g);
}

/// m x n with entries uniform in [-1, 1] (real and imaginary parts), leading dimension ld.
template <typename T> std::vector<T> random_matrix(int64_t m, int64_t n, int64_t ld, uint64_t seed) {
  std::vector<T> A(static_cast<std::size_t>(ld) * n, T(0));
  std::mt19937_64 g(seed);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) A[i + j * ld] = random_scalar<T>(g);
  return A;
}

/// Well-conditioned Hermitian positive definite: (R + R^H)/2 + n I (diagonally
/// dominant, so positive definite by Gershgorin). O(n^2): fine for big n.
template <typename T> std::vector<T> random_hpd(int64_t n, int64_t ld, uint64_t seed) {
  auto A = random_matrix<T>(n, n, ld, seed);
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = j + 1; i < n; ++i) {
      T v = (A[i + j * ld] + conj(A[j + i * ld])) / real_t<T>(2);
      A[i + j * ld] = v;
      A[j + i * ld] = conj(v);
    }
    A[j + j * ld] = T(std::real(A[j + j * ld]) + static_cast<real_t<T>>(n));
  }
  return A;
}

/// Hermitian positive definite with prescribed condition number: Q diag(s) Q^H,
/// s geometric from 1 down to 1/cond, Q unitary from a random QR. O(n^3).
template <typename T> std::vector<T> ill_conditioned_hpd(int64_t n, int64_t ld, double cond, uint64_t seed) {
  if (n == 0) return std::vector<T>(static_cast<std::size_t>(ld) * n);
  auto Q = random_matrix<T>(n, n, n, seed);
  std::vector<T> tau(static_cast<std::size_t>(n));
  if constexpr (std::is_same_v<T, float>) {
    LAPACKE_sgeqrf(LAPACK_COL_MAJOR, n, n, Q.data(), n, tau.data());
    LAPACKE_sorgqr(LAPACK_COL_MAJOR, n, n, n, Q.data(), n, tau.data());
  } else if constexpr (std::is_same_v<T, double>) {
    LAPACKE_dgeqrf(LAPACK_COL_MAJOR, n, n, Q.data(), n, tau.data());
    LAPACKE_dorgqr(LAPACK_COL_MAJOR, n, n, n, Q.data(), n, tau.data());
  } else if constexpr (std::is_same_v<T, std::complex<float>>) {
    LAPACKE_cgeqrf(LAPACK_COL_MAJOR, n, n, Q.data(), n, tau.data());
    LAPACKE_cungqr(LAPACK_COL_MAJOR, n, n, n, Q.data(), n, tau.data());
  } else {
    LAPACKE_zgeqrf(LAPACK_COL_MAJOR, n, n, Q.data(), n, tau.data());
    LAPACKE_zungqr(LAPACK_COL_MAJOR, n, n, n, Q.data(), n, tau.data());
  }
  // W = Q diag(sqrt(s)); A = W W^H
  std::vector<T> W = Q;
  for (int64_t j = 0; j < n; ++j) {
    double s = n > 1 ? std::pow(cond, -static_cast<double>(j) / (n - 1)) : 1.0;
    for (int64_t i = 0; i < n; ++i) W[i + j * n] *= static_cast<real_t<T>>(std::sqrt(s));
  }
  std::vector<T> A(static_cast<std::size_t>(ld) * n, T(0));
  blas::herk(Uplo::Lower, Op::NoTrans, n, n, real_t<T>(1), W.data(), n, real_t<T>(0), A.data(), ld);
  for (int64_t j = 0; j < n; ++j) {
    A[j + j * ld] = T(std::real(A[j + j * ld]));
    for (int64_t i = j + 1; i < n; ++i) A[j + i * ld] = conj(A[i + j * ld]);
  }
  return A;
}

}  // namespace hetla::bench
