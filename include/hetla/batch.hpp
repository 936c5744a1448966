/// @file
/// Batched factorizations and products of many independent small matrices
/// (the MAGMA / cuSOLVER batched interface): one task per group of matrices
/// on the host cores. Matrices are given either as an array of pointers or
/// strided (matrix i at A + i * stride), all of the same sizes and leading
/// dimension. Sizes, leading dimensions, strides and the arrays themselves
/// are checked as LAPACK would (hetla::ArgumentError with the argument's
/// position in the overload's own list); each matrix then has its own
/// `info[i]` (LAPACK's for that matrix, or -position when that matrix's own
/// pointer is null), so one bad matrix leaves the others computed.
/// Thread-safe as the single calls (docs/api.md): a batch whose total work is
/// below the routine's crossover runs in the caller's thread.
#pragma once
#include <cstdint>

#include "hetla/types.hpp"

namespace hetla::batch {

/// Cholesky of each n x n A[i] (LAPACK xPOTRF); info[i] as potrf's.
template <typename T> void potrf(Uplo uplo, int64_t n, T* const* A, int64_t lda, int64_t count, int64_t* info);
/// Strided: A[i] = A + i * stride_a, stride_a >= lda * n.
template <typename T>
void potrf(Uplo uplo, int64_t n, T* A, int64_t lda, int64_t stride_a, int64_t count, int64_t* info);

/// LU with partial pivoting of each m x n A[i] (LAPACK xGETRF); ipiv[i] holds
/// min(m, n) 1-based interchanges; info[i] as getrf's.
template <typename T>
void getrf(int64_t m, int64_t n, T* const* A, int64_t lda, int64_t* const* ipiv, int64_t count, int64_t* info);
/// Strided: A + i * stride_a (>= lda * n), ipiv + i * stride_ipiv (>= min(m, n)).
template <typename T>
void getrf(int64_t m, int64_t n, T* A, int64_t lda, int64_t stride_a, int64_t* ipiv, int64_t stride_ipiv, int64_t count,
           int64_t* info);

/// QR of each m x n A[i] (LAPACK xGEQRF); tau[i] holds min(m, n) scalars.
/// info[i] is 0, or -position for a null A[i] or tau[i].
template <typename T>
void geqrf(int64_t m, int64_t n, T* const* A, int64_t lda, T* const* tau, int64_t count, int64_t* info);
/// Strided: A + i * stride_a (>= lda * n), tau + i * stride_tau (>= min(m, n)).
template <typename T>
void geqrf(int64_t m, int64_t n, T* A, int64_t lda, int64_t stride_a, T* tau, int64_t stride_tau, int64_t count,
           int64_t* info);

/// C[i] = alpha op(A[i]) op(B[i]) + beta C[i] (LAPACK xGEMM sizes: C m x n,
/// op(A) m x k, op(B) k x n); info[i] is 0, or -position for a null pointer.
template <typename T>
void gemm(Op transa, Op transb, int64_t m, int64_t n, int64_t k, T alpha, const T* const* A, int64_t lda,
          const T* const* B, int64_t ldb, T beta, T* const* C, int64_t ldc, int64_t count, int64_t* info);
/// Strided: A + i * stride_a, B + i * stride_b, C + i * stride_c (C's stride >= ldc * n).
template <typename T>
void gemm(Op transa, Op transb, int64_t m, int64_t n, int64_t k, T alpha, const T* A, int64_t lda, int64_t stride_a,
          const T* B, int64_t ldb, int64_t stride_b, T beta, T* C, int64_t ldc, int64_t stride_c, int64_t count,
          int64_t* info);

}  // namespace hetla::batch
