// Inputs with known matrix functions and the checks of `bench matpoly|expm|
// cosm|sinm --check`, shared with the tests. References are computed in
// double (or complex<double>) whatever the precision under test, so they are
// independent of the arithmetic being checked.
#pragma once
#include <cmath>
#include <complex>
#include <cstdint>
#include <functional>
#include <random>
#include <type_traits>
#include <vector>

#include "checks.hpp"
#include "hetla/types.hpp"
#include "kernels/host/blas.hpp"
#include "matgen.hpp"

namespace hetla::bench {

/// double for real T, complex<double> for complex T.
template <typename T> using wide_t = std::conditional_t<is_complex_v<T>, std::complex<double>, double>;

/// n x n orthogonal (unitary) Q from the Householder QR of a random matrix (ld = n).
template <typename W> std::vector<W> random_unitary(int64_t n, uint64_t seed) {
  auto Q = random_matrix<W>(n, n, std::max<int64_t>(1, n), seed);
  if (n == 0) return Q;
  std::vector<W> tau(static_cast<std::size_t>(n));
  if constexpr (std::is_same_v<W, double>) {
    LAPACKE_dgeqrf(LAPACK_COL_MAJOR, n, n, Q.data(), n, tau.data());
    LAPACKE_dorgqr(LAPACK_COL_MAJOR, n, n, n, Q.data(), n, tau.data());
  } else {
    LAPACKE_zgeqrf(LAPACK_COL_MAJOR, n, n, Q.data(), n, tau.data());
    LAPACKE_zungqr(LAPACK_COL_MAJOR, n, n, n, Q.data(), n, tau.data());
  }
  return Q;
}

/// Q diag(d) Q^H (ld = n).
template <typename W> std::vector<W> conjugate_diag(int64_t n, const std::vector<W>& Q, const std::vector<W>& d) {
  std::vector<W> QD = Q, R(static_cast<std::size_t>(n * n));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < n; ++i) QD[i + j * n] *= d[static_cast<std::size_t>(j)];
  if (n > 0)
    blas::gemm(Op::NoTrans, Op::ConjTrans, n, n, n, W(1), QD.data(), n, Q.data(), n, W(0), R.data(), n);
  return R;
}

/// A normal matrix Q diag(d) Q^H with known eigenvalues d: real in
/// [-re, re] for real T; for complex T with imaginary parts in [-im, im].
template <typename T> struct EigenTestMatrix {
  using W = wide_t<T>;
  int64_t n = 0;
  std::vector<W> Q, d;
  std::vector<W> A;  // Q diag(d) Q^H in double
  /// Q diag(f(d)) Q^H in double.
  std::vector<W> apply(const std::function<W(W)>& f) const {
    std::vector<W> fd(d.size());
    for (std::size_t i = 0; i < d.size(); ++i) fd[i] = f(d[i]);
    return conjugate_diag(n, Q, fd);
  }
};
template <typename T>
EigenTestMatrix<T> eigen_test_matrix(int64_t n, double re, double im, uint64_t seed) {
  using W = wide_t<T>;
  EigenTestMatrix<T> M;
  M.n = n;
  M.Q = random_unitary<W>(n, seed);
  std::mt19937_64 g(seed + 17);
  std::uniform_real_distribution<double> u(-1, 1);
  M.d.resize(static_cast<std::size_t>(n));
  for (auto& x : M.d) {
    if constexpr (is_complex_v<T>) x = W(re * u(g), im * u(g));
    else x = re * u(g);
  }
  M.A = conjugate_diag(n, M.Q, M.d);
  return M;
}

/// Like eigen_test_matrix, but Q = H_1 ... H_k is a product of k random
/// Householder reflectors H = I - tau v v^H (tau = 2 / v^H v), so building
/// A = Q diag(d) Q^H and any Q diag(f(d)) Q^H costs O(k n^2): the benchmarks
/// check n in the thousands without an O(n^3) reference.
template <typename T> struct ReflectorTestMatrix {
  using W = wide_t<T>;
  int64_t n = 0;
  std::vector<std::vector<W>> v;  // the reflectors' vectors
  std::vector<W> d;
  /// Q diag(f(d)) Q^H in double (ld n).
  std::vector<W> apply(const std::function<W(W)>& f) const {
    std::vector<W> M(static_cast<std::size_t>(n * n), W(0)), w(static_cast<std::size_t>(n));
    for (int64_t i = 0; i < n; ++i) M[i + i * n] = f(d[static_cast<std::size_t>(i)]);
    for (std::size_t k = v.size(); k-- > 0;) {  // M = H_k M H_k, innermost first
      const auto& x = v[k];
      double vv = 0;
      for (const auto& e : x) vv += std::norm(e);
      const double tau = 2 / vv;
      for (int64_t j = 0; j < n; ++j) {  // left: M -= tau x (x^H M)
        W s = 0;
        for (int64_t i = 0; i < n; ++i) s += hetla::conj(x[i]) * M[i + j * n];
        s *= tau;
        for (int64_t i = 0; i < n; ++i) M[i + j * n] -= x[i] * s;
      }
      std::fill(w.begin(), w.end(), W(0));  // right: M -= tau (M x) x^H
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) w[i] += M[i + j * n] * x[j];
      for (int64_t j = 0; j < n; ++j) {
        const W c = tau * hetla::conj(x[j]);
        for (int64_t i = 0; i < n; ++i) M[i + j * n] -= w[i] * c;
      }
    }
    return M;
  }
};
template <typename T>
ReflectorTestMatrix<T> reflector_test_matrix(int64_t n, double re, double im, uint64_t seed, int reflectors = 3) {
  using W = wide_t<T>;
  ReflectorTestMatrix<T> M;
  M.n = n;
  for (int k = 0; k < reflectors; ++k) M.v.push_back(random_matrix<W>(n, 1, std::max<int64_t>(1, n), seed + 31 * k));
  std::mt19937_64 g(seed + 17);
  std::uniform_real_distribution<double> u(-1, 1);
  M.d.resize(static_cast<std::size_t>(n));
  for (auto& x : M.d) {
    if constexpr (is_complex_v<T>) x = W(re * u(g), im * u(g));
    else x = re * u(g);
  }
  return M;
}

/// W (ld n) -> T (ld ld), rounded.
template <typename T, typename W> std::vector<T> narrow(int64_t n, const std::vector<W>& A, int64_t ld) {
  std::vector<T> R(static_cast<std::size_t>(ld * n), T(0));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < n; ++i) R[i + j * ld] = static_cast<T>(A[i + j * n]);
  return R;
}

/// ||X - Ref||_1 / ||Ref||_1 in double (X in T with leading dimension ldx, Ref ld n).
template <typename T, typename W>
double relative_error(int64_t n, const T* X, int64_t ldx, const std::vector<W>& Ref) {
  double err = 0, ref = 0;
  for (int64_t j = 0; j < n; ++j) {
    double e = 0, r = 0;
    for (int64_t i = 0; i < n; ++i) {
      const W x = static_cast<W>(X[i + j * ldx]);
      e += std::abs(x - Ref[i + j * n]);
      r += std::abs(Ref[i + j * n]);
    }
    if (std::isnan(e)) return e;
    err = std::max(err, e);
    ref = std::max(ref, r);
  }
  return ref == 0 ? err : err / ref;
}

/// Scaled error of a matrix function f(A) for a normal A with known
/// eigenvalues: relative error / (n eps max(1, ||A||_2)). ||A||_2 = max |d_i|
/// is the condition number of exp, cos and sin at a normal matrix (up to a
/// constant), so a backward-stable method lands below kResidualThreshold.
template <typename T, typename W>
double matfun_residual(int64_t n, const T* F, int64_t ldf, const std::vector<W>& Ref, const std::vector<W>& d) {
  if (n == 0) return 0;
  double a2 = 0;
  for (const auto& x : d) a2 = std::max(a2, static_cast<double>(std::abs(x)));
  return relative_error(n, F, ldf, Ref) / (static_cast<double>(n) * eps<T>() * std::max(1.0, a2));
}

/// Check of P = sum a_i X^i with one random vector x: y = P(X) x by Horner on
/// vectors (O(d n^2), in double), then
///   ||P x - y||_1 / (n (d + 1) eps ||x||_1 sum_i |a_i| ||X||_1^i).
template <typename T>
double matpoly_residual(int64_t n, const T* X, int64_t ldx, const T* a, int64_t d, const T* P, int64_t ldp,
                        uint64_t seed) {
  using W = wide_t<T>;
  if (n == 0 || d < 0) return 0;
  const auto x = random_matrix<W>(n, 1, n, seed);
  std::vector<W> y(static_cast<std::size_t>(n)), t(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<W>(a[d]) * x[i];
  for (int64_t k = d - 1; k >= 0; --k) {  // y = X y + a_k x
    std::fill(t.begin(), t.end(), W(0));
    for (int64_t j = 0; j < n; ++j) {
      const W yj = y[j];
      for (int64_t i = 0; i < n; ++i) t[i] += static_cast<W>(X[i + j * ldx]) * yj;
    }
    for (int64_t i = 0; i < n; ++i) y[i] = t[i] + static_cast<W>(a[k]) * x[i];
  }
  double xnorm = 0, rnorm = 0, xn1 = 0;
  for (int64_t i = 0; i < n; ++i) xnorm += std::abs(x[i]);
  for (int64_t j = 0; j < n; ++j) {  // ||X||_1
    double c = 0;
    for (int64_t i = 0; i < n; ++i) c += std::abs(static_cast<W>(X[i + j * ldx]));
    xn1 = std::max(xn1, c);
  }
  for (int64_t i = 0; i < n; ++i) {
    W px = 0;
    for (int64_t j = 0; j < n; ++j) px += static_cast<W>(P[i + j * ldp]) * x[j];
    rnorm += std::abs(px - y[i]);
  }
  double scale = 0, pw = 1;
  for (int64_t k = 0; k <= d; ++k, pw *= xn1) scale += std::abs(static_cast<W>(a[k])) * pw;
  const double denom = static_cast<double>(n) * static_cast<double>(d + 1) * eps<T>() * xnorm * scale;
  return denom == 0 ? rnorm : rnorm / denom;
}

}  // namespace hetla::bench
