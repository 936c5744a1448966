/// @file
/// LU factorization with partial pivoting and its solvers (getrf, getrs, gesv).
/// Semantics are LAPACK's: P A = L U with L unit lower triangular (trapezoidal
/// if m > n) and U upper triangular (trapezoidal if m < n), both stored over A;
/// ipiv holds min(m, n) 1-based row interchanges (row i was interchanged with
/// row ipiv[i - 1], in order), counted from the top of the whole matrix.
#pragma once
#include <cstdint>
#include <vector>

#include "hetla/linalg.hpp"

namespace hetla {

/// Factors the m x n matrix A in place; ipiv is resized to min(m, n).
/// Returns info: 0, or i > 0 if U(i, i) is exactly zero (the first such i).
/// The factorization is completed in that case, as in LAPACK, but U is
/// singular and must not be used to solve.
template <typename T> int64_t getrf(Matrix<T>& A, std::vector<int64_t>& ipiv, const Options& opts = {});
/// Column-major A(lda, n); ipiv must hold min(m, n) entries.
template <typename T>
int64_t getrf(int64_t m, int64_t n, T* A, int64_t lda, int64_t* ipiv, const Options& opts = {});

/// Solves op(A) X = B with the factors of an n x n A from getrf; B (n x nrhs,
/// its rows cut in tiles as A's) is overwritten by X. `trans` is Op::NoTrans,
/// Op::Trans or Op::ConjTrans.
template <typename T>
void getrs(Op trans, const Matrix<T>& A, const std::vector<int64_t>& ipiv, Matrix<T>& B, const Options& opts = {});
/// Column-major A(lda, n), B(ldb, nrhs) (LAPACK xGETRS); ipiv from getrf.
template <typename T>
void getrs(Op trans, int64_t n, int64_t nrhs, const T* A, int64_t lda, const int64_t* ipiv, T* B, int64_t ldb,
           const Options& opts = {});

/// Factors A (getrf) and solves A X = B; returns getrf's info (B untouched if info > 0).
template <typename T>
int64_t gesv(Matrix<T>& A, std::vector<int64_t>& ipiv, Matrix<T>& B, const Options& opts = {});
/// Column-major A(lda, n), B(ldb, nrhs) (LAPACK xGESV); ipiv receives n entries.
template <typename T>
int64_t gesv(int64_t n, int64_t nrhs, T* A, int64_t lda, int64_t* ipiv, T* B, int64_t ldb,
             const Options& opts = {});

}  // namespace hetla
