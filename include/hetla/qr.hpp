/// @file
/// QR factorization, applying and forming Q, least squares (geqrf, unmqr, ungqr, gels).
/// Storage and semantics are LAPACK's, so the column-major overloads are drop-in
/// replacements of ?geqrf, ?ormqr/?unmqr, ?orgqr/?ungqr and ?gels:
///   A = Q R with Q = H_1 H_2 ... H_k, k = min(m, n), H_i = I - tau_i v_i v_i^H,
///   v_i(1:i-1) = 0 and v_i(i) = 1 (implied), v_i(i+1:m) stored below the
///   diagonal of column i; R on and above the diagonal; tau of length k.
/// For real types Op::Trans and Op::ConjTrans mean the same; complex types take
/// Op::NoTrans or Op::ConjTrans (LAPACK's unmqr / gels reject 'T' there).
#pragma once
#include <cstdint>

#include "hetla/linalg.hpp"

namespace hetla {

/// Factors the m x n matrix A = Q R in place (blocked Householder: one panel
/// per tile column, tiles uniform or hybrid). tau must hold min(m, n) entries.
template <typename T> void geqrf(Matrix<T>& A, T* tau, const Options& opts = {});
/// Column-major A(lda, n) (LAPACK xGEQRF).
template <typename T> void geqrf(int64_t m, int64_t n, T* A, int64_t lda, T* tau, const Options& opts = {});

/// C = op(Q) C (Side::Left) or C op(Q) (Side::Right), Q the product of the
/// first k reflectors from geqrf stored in A: A is m x (>= k) for Left, n x
/// (>= k) for Right, C is m x n, cut in tiles as A.
template <typename T>
void unmqr(Side side, Op trans, int64_t k, const Matrix<T>& A, const T* tau, Matrix<T>& C, const Options& opts = {});
/// LAPACK ?ormqr / ?unmqr: A(lda, k) holds the reflectors (rows m for Left, n for Right).
template <typename T>
void unmqr(Side side, Op trans, int64_t m, int64_t n, int64_t k, const T* A, int64_t lda, const T* tau, T* C,
           int64_t ldc, const Options& opts = {});

/// Overwrites the m x n A (m >= n >= k), holding k reflectors from geqrf in its
/// first k columns, with the first n columns of Q = H_1 ... H_k (LAPACK ?ungqr).
template <typename T> void ungqr(int64_t k, Matrix<T>& A, const T* tau, const Options& opts = {});
/// Column-major A(lda, n) (LAPACK xORGQR / xUNGQR).
template <typename T>
void ungqr(int64_t m, int64_t n, int64_t k, T* A, int64_t lda, const T* tau, const Options& opts = {});

/// Least squares / minimum norm solution of op(A) X = B for a full-rank m x n
/// A (LAPACK ?gels). B has max(m, n) rows cut in tiles as A's; on entry its
/// first m (NoTrans) or n (Trans) rows hold the right-hand sides, on exit its
/// first n (NoTrans) or m (Trans) rows hold the solutions (for an
/// overdetermined system the remaining rows hold the residual's components,
/// as in LAPACK). On exit A holds its QR factorization (m >= n) as from geqrf,
/// or its LQ factorization (m < n) as from LAPACK's gelqf.
/// Returns info: 0, or i > 0 if the i-th diagonal element of the triangular
/// factor is exactly zero (A not of full rank; no solution is computed).
template <typename T> int64_t gels(Op trans, Matrix<T>& A, Matrix<T>& B, const Options& opts = {});
/// Column-major A(lda, n), B(ldb, nrhs) with ldb >= max(m, n) (LAPACK xGELS).
template <typename T>
int64_t gels(Op trans, int64_t m, int64_t n, int64_t nrhs, T* A, int64_t lda, T* B, int64_t ldb,
             const Options& opts = {});

}  // namespace hetla
