// Helpers shared by the Cholesky tests (C++ and C API): the precision list,
// test matrices with poison outside the referenced triangle, bitwise checks of
// what must not change, and matrices that stop being positive definite at a
// chosen leading minor. Generators and residuals themselves come from bench/.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "checks.hpp"
#include "hetla/types.hpp"
#include "kernels/host/blas.hpp"
#include "matgen.hpp"

namespace hetla::test {

using Precisions = testing::Types<float, double, std::complex<float>, std::complex<double>>;

struct PrecisionName {
  template <typename T> static std::string GetName(int) { return std::string(1, precision_letter<T>()); }
};

inline const char* uplo_name(Uplo u) { return u == Uplo::Lower ? "Lower" : "Upper"; }

inline bool in_triangle(Uplo uplo, int64_t i, int64_t j) { return uplo == Uplo::Lower ? i >= j : i <= j; }

/// Values no correct code ever produces: a quiet NaN with a payload, so reading
/// them poisons results and writing anything over them is visible bitwise.
template <typename T> T poison(uint64_t k) {
  using R = real_t<T>;
  R v = std::numeric_limits<R>::quiet_NaN();
  if constexpr (std::is_same_v<R, double>) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    bits |= (k * 0x9e3779b97f4a7c15ull) & 0x0007ffffffffffffull;
    bits |= 1;  // keep it a NaN even if the payload is zero
    std::memcpy(&v, &bits, sizeof bits);
  } else {
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    bits |= static_cast<uint32_t>(k * 2654435761u) & 0x003fffffu;
    bits |= 1;
    std::memcpy(&v, &bits, sizeof bits);
  }
  if constexpr (is_complex_v<T>) return T(v, v);
  else return v;
}

/// Overwrites everything outside the `uplo` triangle of the leading n x n
/// block (the other triangle and the rows n..lda-1) with poison.
template <typename T> void poison_outside(Uplo uplo, int64_t n, int64_t lda, std::vector<T>& A) {
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < lda; ++i)
      if (i >= n || !in_triangle(uplo, i, j)) A[i + j * lda] = poison<T>(i + j * lda);
}

/// Number of entries outside the `uplo` triangle (incl. padding rows) whose
/// bits differ between `before` and `after`; the first one's "row, col" goes to `where`.
template <typename T>
int64_t count_changed_outside(Uplo uplo, int64_t n, int64_t lda, const T* before, const T* after,
                              std::string* where = nullptr) {
  int64_t bad = 0;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < lda; ++i)
      if ((i >= n || !in_triangle(uplo, i, j)) &&
          std::memcmp(before + i + j * lda, after + i + j * lda, sizeof(T)) != 0) {
        if (bad++ == 0 && where) *where = std::to_string(i) + ", " + std::to_string(j);
      }
  return bad;
}

template <typename T> bool bitwise_equal(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

/// Random HPD (diagonally dominant) matrix in the `uplo` triangle, poison elsewhere.
template <typename T> std::vector<T> hpd_input(Uplo uplo, int64_t n, int64_t lda, uint64_t seed) {
  auto A = bench::random_hpd<T>(n, lda, seed);
  poison_outside(uplo, n, lda, A);
  return A;
}

/// Condition number used for "ill-conditioned" inputs: far from the precision's
/// limit 1/eps, so the matrix is numerically positive definite.
template <typename T> double ill_condition() { return std::is_same_v<real_t<T>, double> ? 1e10 : 1e3; }

template <typename T> std::vector<T> ill_input(Uplo uplo, int64_t n, int64_t lda, uint64_t seed) {
  auto A = bench::ill_conditioned_hpd<T>(n, lda, ill_condition<T>(), seed);
  poison_outside(uplo, n, lda, A);
  return A;
}

/// Makes the leading minor of order k (1-based) the first one that is not
/// positive definite. `subtle`: the diagonal entry stays positive and only the
/// Schur complement (the pivot after all earlier updates) is negative,
/// A(k,k) = s/2 with s = a^H A11^{-1} a; otherwise A(k,k) = -1. Minors of order
/// < k are untouched, so LAPACK returns info = k.
template <typename T> void make_not_pd_at(Uplo uplo, int64_t n, int64_t lda, std::vector<T>& A, int64_t k,
                                          bool subtle) {
  using R = real_t<T>;
  const int64_t p = k - 1;  // 0-based pivot
  R value = R(-1);
  if (subtle && p > 0) {
    // s = a^H A11^{-1} a = ||L^{-1} a||^2 with A11 = L L^H the leading p x p block.
    auto F = bench::full_hermitian(uplo, n, A.data(), lda);
    std::vector<T> L(static_cast<std::size_t>(p * p));
    std::vector<T> y(static_cast<std::size_t>(p));  // a = A(0:p, p), the column above the pivot
    for (int64_t j = 0; j < p; ++j) {
      for (int64_t i = 0; i < p; ++i) L[i + j * p] = F[i + j * n];
      y[j] = F[j + p * n];
    }
    EXPECT_EQ(blas::potrf(Uplo::Lower, p, L.data(), p), 0) << "leading block must be positive definite";
    blas::trsm(Side::Left, Uplo::Lower, Op::NoTrans, Diag::NonUnit, p, 1, T(1), L.data(), p, y.data(), p);
    R s = 0;
    for (const auto& v : y) s += std::norm(std::complex<R>(v));
    value = s / 2;
  }
  A[p + p * lda] = T(value);
}

/// LAPACK's info for a copy of A (host LAPACK).
template <typename T> int64_t lapack_info(Uplo uplo, int64_t n, int64_t lda, std::vector<T> A) {
  if (n == 0) return 0;
  return blas::potrf(uplo, n, A.data(), lda);
}

/// ||X - Y||_F / ||Y||_F over the first `c` columns (Lower) or rows (Upper) of the
/// factor's triangle; Y the reference.
template <typename T>
double leading_factor_diff(Uplo uplo, int64_t n, int64_t c, const T* X, const T* Y, int64_t ld) {
  double num = 0, den = 0;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < n; ++i) {
      bool leading = uplo == Uplo::Lower ? (j < c && i >= j) : (i < c && j >= i);
      if (!leading) continue;
      num += std::norm(std::complex<double>(X[i + j * ld]) - std::complex<double>(Y[i + j * ld]));
      den += std::norm(std::complex<double>(Y[i + j * ld]));
    }
  return den == 0 ? std::sqrt(num) : std::sqrt(num / den);
}

}  // namespace hetla::test
