// Distributed routines (issue 16): the single-process algorithms (linalg/)
// run unchanged on a DistMatrix's tiles while the runtime carries the
// transfers (rt::CommScope); results that LAPACK reports (info) and errors
// are made the same on every process.
#pragma once
#include <cstdint>
#include <vector>

#include "hetla/linalg.hpp"
#include "hetla/types.hpp"
#include "mpi/dist_matrix.hpp"

namespace hetla::mpi {

/// Cholesky of a distributed Hermitian positive definite matrix; returns
/// info (0, or the order of the first leading minor that is not positive
/// definite) on every process. Collective.
template <typename T> int64_t potrf(Uplo uplo, DistMatrix<T>& A, const Options& opts = {});

/// Solves A X = B with potrf's factor of A; B (n x nrhs, A's tile size) is
/// overwritten by X. Collective.
template <typename T> void potrs(Uplo uplo, const DistMatrix<T>& A, DistMatrix<T>& B, const Options& opts = {});

/// potrf, then potrs when the factorization succeeded (on every process:
/// the decision follows the reduced info). Returns info. Collective.
template <typename T> int64_t posv(Uplo uplo, DistMatrix<T>& A, DistMatrix<T>& B, const Options& opts = {});

/// LU with partial pivoting of a distributed m x n matrix (LAPACK getrf:
/// A = P L U, the factors over A). ipiv (min(m, n) entries, 1-based global
/// rows as LAPACK's) is whole on every process; info (0, or the first zero
/// pivot U(info, info), the factorization completed) is the same on every
/// process. Collective.
template <typename T> int64_t getrf(DistMatrix<T>& A, std::vector<int64_t>& ipiv, const Options& opts = {});

/// Solves op(A) X = B with getrf's factors and pivots of an n x n A; B (n x
/// nrhs, A's tile size) is overwritten by X. Collective.
template <typename T>
void getrs(Op trans, const DistMatrix<T>& A, const std::vector<int64_t>& ipiv, DistMatrix<T>& B,
           const Options& opts = {});

/// getrf, then getrs when the factorization succeeded (the decision follows
/// the reduced info). Returns info. Collective.
template <typename T>
int64_t gesv(DistMatrix<T>& A, std::vector<int64_t>& ipiv, DistMatrix<T>& B, const Options& opts = {});

/// Householder QR of a distributed m x n matrix (LAPACK geqrf: R and the
/// reflectors over A); tau (min(m, n) entries) is whole on every process.
/// Collective.
template <typename T> void geqrf(DistMatrix<T>& A, std::vector<T>& tau, const Options& opts = {});

/// C = op(Q) C (Side::Left) or C op(Q) (Side::Right) with the first k
/// reflectors of geqrf's A and tau (LAPACK unmqr / ormqr); C has A's tile
/// size, on the same grid. Collective.
template <typename T>
void unmqr(Side side, Op trans, int64_t k, const DistMatrix<T>& A, const std::vector<T>& tau, DistMatrix<T>& C,
           const Options& opts = {});

/// LAPACK gels over distributed matrices: for an m x n A and trans NoTrans
/// (or Trans / ConjTrans, A^T / A^H), least squares min ||op(A) X - B|| when
/// op(A) has at least as many rows as columns, else the minimum norm
/// solution of op(A) X = B. A receives its QR (m >= n) or LQ (m < n)
/// factorization as LAPACK leaves it; B (max(m, n) x nrhs, A's tile size)
/// X in its first n (NoTrans) or m rows. Returns info (0, or i when the
/// triangular factor's (i, i) is zero: A is not of full rank), the same on
/// every process. Collective.
template <typename T> int64_t gels(Op trans, DistMatrix<T>& A, DistMatrix<T>& B, const Options& opts = {});

/// C = alpha op(A) op(B) + beta C over distributed matrices on one grid, the
/// same tile size. Collective.
template <typename T>
void gemm(Op opa, Op opb, T alpha, const DistMatrix<T>& A, const DistMatrix<T>& B, T beta, DistMatrix<T>& C,
          const Options& opts = {});

}  // namespace hetla::mpi
