/// @file
/// Matrix polynomials and matrix functions (issue #5, seed 003). Every matrix
/// product goes through hetla::gemm, so the work is spread over all devices of
/// the context; the O(n^2) linear combinations between products are tile tasks.
///
/// All routines take square n x n matrices. The output must not overlap the
/// input (X / A). The tile overloads need every matrix to share one tile size.
#pragma once
#include <cstdint>
#include <span>

#include "hetla/linalg.hpp"
#include "hetla/matrix.hpp"
#include "hetla/types.hpp"

namespace hetla {

/// How matpoly() evaluates a polynomial.
enum class PolyMethod : char {
  Horner = 'H',              ///< P = (..((a_d X + a_{d-1} I) X + a_{d-2} I) X ..) + a_0 I: d - 1 products
  PatersonStockmeyer = 'P',  ///< X^2..X^s once, then Horner in X^s over blocks: about 2 sqrt(d) products
};

/// Number of matrix products `method` needs for a polynomial of degree
/// `degree` (0 for degree <= 1). Paterson–Stockmeyer picks the block size s
/// that minimises it.
int64_t matpoly_products(int64_t degree, PolyMethod method);

/// P = sum_{i=0}^{d} coeffs[i] X^i with d = coeffs.size() - 1 (coeffs[0] is
/// the constant term; an empty span gives P = 0). Returns the number of
/// matrix products used (= matpoly_products(d, method)).
template <typename T>
int64_t matpoly(const Matrix<T>& X, std::span<const T> coeffs, Matrix<T>& P,
                PolyMethod method = PolyMethod::PatersonStockmeyer, const Options& opts = {});
/// Column-major X(ldx, n), P(ldp, n); `coeffs` holds degree + 1 values.
template <typename T>
int64_t matpoly(int64_t n, const T* X, int64_t ldx, int64_t degree, const T* coeffs, T* P, int64_t ldp,
                PolyMethod method = PolyMethod::PatersonStockmeyer, const Options& opts = {});

/// What a matrix function computed: the approximant's degree (Padé m for expm,
/// Taylor degree in A^2 for cosm/sinm), the scaling A / 2^scaling, and the
/// matrix products and linear solves (n right-hand sides) it took.
struct MatfunInfo {
  int degree = 0;        ///< Padé degree m (expm) or Taylor degree in A^2 (cosm, sinm)
  int64_t scaling = 0;   ///< s: the function was evaluated on A / 2^s
  int64_t products = 0;  ///< matrix products
  int64_t solves = 0;    ///< linear solves with n right-hand sides (expm's Padé denominator)
};

/// E = exp(A): scaling and squaring with a diagonal Padé approximant
/// (Higham 2005), degree and scaling from ||A||_1 for full accuracy in T.
template <typename T> MatfunInfo expm(const Matrix<T>& A, Matrix<T>& E, const Options& opts = {});
/// Column-major A(lda, n), E(lde, n).
template <typename T>
MatfunInfo expm(int64_t n, const T* A, int64_t lda, T* E, int64_t lde, const Options& opts = {});

/// C = cos(A): Taylor series in A^2 on A / 2^s, then s double-angle steps
/// cos 2B = 2 cos^2 B - I.
template <typename T> MatfunInfo cosm(const Matrix<T>& A, Matrix<T>& C, const Options& opts = {});
/// Column-major A(lda, n), C(ldc, n).
template <typename T>
MatfunInfo cosm(int64_t n, const T* A, int64_t lda, T* C, int64_t ldc, const Options& opts = {});

/// S = sin(A): Taylor series of sin and cos on A / 2^s, then s steps of
/// sin 2B = 2 sin B cos B, cos 2B = 2 cos^2 B - I.
template <typename T> MatfunInfo sinm(const Matrix<T>& A, Matrix<T>& S, const Options& opts = {});
/// Column-major A(lda, n), S(lds, n).
template <typename T>
MatfunInfo sinm(int64_t n, const T* A, int64_t lda, T* S, int64_t lds, const Options& opts = {});

}  // namespace hetla
