// Recursive triangular solve. Single-threaded OpenBLAS runs TRSM at about
// half its GEMM rate on tile-sized problems (measured: 18-20 vs 40+ GFLOP/s
// at 256); halving the triangle recursively moves 7/8 of the flops into GEMM
// (measured ~1.7x faster) with the same backward error as blocked TRSM.
// The Left side's base differs: OpenBLAS's Left trsm is 2-3x slower than its
// Right one on base blocks, so it is solved through the transpose
// (trsm_left_base.hpp). Whole 256x256 tiles, single thread, before -> after:
// Left Lower NoTrans Unit d 568-575 -> 405-408 us, z 1324-1350 -> 1162-1172;
// Left Upper NoTrans NonUnit d 539-556 -> 383-393, z 1383-1390 -> 1174-1220;
// s 321-325 -> 241-242, c 792-798 -> 704-708 (Left Lower NoTrans Unit);
// Right Lower ConjTrans NonUnit unchanged (d 332-333 / 328-329). getrf
// n=4000 nb=256, 2 threads: trsm tasks 630-670 -> 421-455 us, the run
// 0.305-0.323 -> 0.288-0.312 s.
#pragma once
#include "kernels/host/blas.hpp"
#include "kernels/host/trsm_left_base.hpp"

namespace hetla::blas {

inline constexpr int64_t kTrsmRecursionBase = 32;
/// The Left side stops at 16 where its base goes through the transpose:
/// halving once more measured 4-7% faster on 256x256 (d 427-470 against
/// 451-486 us, z 1282-1393 against 1372-1440); the Right side gained nothing.
inline constexpr int64_t kTrsmLeftRecursionBase = 16;
/// Left-side base blocks with at least this many columns go through the
/// transpose (trsm_left_base.hpp); narrower ones to OpenBLAS's Left trsm
/// (k = 32, d: 0.30 against 0.56 us at n = 1, 0.88 against 0.83 at n = 4).
inline constexpr int64_t kTrsmLeftTransposedMinColumns = 4;

/// Same contract as blas::trsm: op(A) X = alpha B (Left) or X op(A) = alpha B (Right).
template <typename T>
void trsm_recursive(Side side, Uplo uplo, Op op, Diag diag, int64_t m, int64_t n, T alpha, const T* A,
                    int64_t lda, T* B, int64_t ldb) {
  const int64_t k = side == Side::Left ? m : n;  // order of the triangle
  const bool transposed = side == Side::Left && n >= kTrsmLeftTransposedMinColumns;
  if (k <= (transposed ? kTrsmLeftRecursionBase : kTrsmRecursionBase) || m == 0 || n == 0) {
    if (transposed && m > 0)
      blas::trsm_left_transposed(uplo, op, diag, m, n, alpha, A, lda, B, ldb);
    else
      blas::trsm(side, uplo, op, diag, m, n, alpha, A, lda, B, ldb);
    return;
  }
  const int64_t k1 = k / 2, k2 = k - k1;
  const T* A11 = A;
  const T* A22 = A + k1 + k1 * lda;
  // op(A) = [T11 T12; T21 T22]: the off-diagonal block that is not zero, and
  // the op to apply to the stored block to get it.
  const bool lower = (uplo == Uplo::Lower) == (op == Op::NoTrans);  // op(A) lower triangular?
  const T* off = uplo == Uplo::Lower ? A + k1 : A + k1 * lda;        // A21 or A12 as stored
  const T one(1);
  if (side == Side::Left) {
    T* B1 = B;
    T* B2 = B + k1;
    if (lower) {  // X1 = T11^-1 B1; B2 -= T21 X1; X2 = T22^-1 B2
      blas::trsm_recursive(side, uplo, op, diag, k1, n, alpha, A11, lda, B1, ldb);
      blas::gemm(op, Op::NoTrans, k2, n, k1, T(-1), off, lda, B1, ldb, alpha, B2, ldb);
      blas::trsm_recursive(side, uplo, op, diag, k2, n, one, A22, lda, B2, ldb);
    } else {  // X2 first, then B1 -= T12 X2
      blas::trsm_recursive(side, uplo, op, diag, k2, n, alpha, A22, lda, B2, ldb);
      blas::gemm(op, Op::NoTrans, k1, n, k2, T(-1), off, lda, B2, ldb, alpha, B1, ldb);
      blas::trsm_recursive(side, uplo, op, diag, k1, n, one, A11, lda, B1, ldb);
    }
  } else {
    T* B1 = B;
    T* B2 = B + k1 * ldb;
    if (lower) {  // X [T11 0; T21 T22] = B: X2 first, then B1 -= X2 T21
      blas::trsm_recursive(side, uplo, op, diag, m, k2, alpha, A22, lda, B2, ldb);
      blas::gemm(Op::NoTrans, op, m, k1, k2, T(-1), B2, ldb, off, lda, alpha, B1, ldb);
      blas::trsm_recursive(side, uplo, op, diag, m, k1, one, A11, lda, B1, ldb);
    } else {  // X [T11 T12; 0 T22] = B: X1 first, then B2 -= X1 T12
      blas::trsm_recursive(side, uplo, op, diag, m, k1, alpha, A11, lda, B1, ldb);
      blas::gemm(Op::NoTrans, op, m, k2, k1, T(-1), B1, ldb, off, lda, alpha, B2, ldb);
      blas::trsm_recursive(side, uplo, op, diag, m, k2, one, A22, lda, B2, ldb);
    }
  }
}

}  // namespace hetla::blas
