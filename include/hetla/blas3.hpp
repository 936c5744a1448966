// Level-3 BLAS across every device of the context (seed 003): the work is
// split by the capability weights (or by weights the caller forces), with
// BLAS semantics: beta == 0 means C is not read (NaN in C does not
// propagate), k == 0 or alpha == 0 scales C by beta. Invalid arguments throw
// hetla::ArgumentError naming the BLAS argument position.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "hetla/linalg.hpp"
#include "hetla/matrix.hpp"
#include "hetla/types.hpp"

namespace hetla {

/// C = alpha op(A) op(B) + beta C.
template <typename T>
void gemm(Op opa, Op opb, T alpha, const Matrix<T>& A, const Matrix<T>& B, T beta, Matrix<T>& C,
          const Options& opts = {});
template <typename T>
void gemm(Op opa, Op opb, int64_t m, int64_t n, int64_t k, T alpha, const T* A, int64_t lda, const T* B,
          int64_t ldb, T beta, T* C, int64_t ldc, const Options& opts = {});

}  // namespace hetla
