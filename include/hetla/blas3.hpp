/// @file
/// Level-3 BLAS across every device of the context (seed 003). gemm splits
/// the columns of C among the devices by their weights (see gemm_split), or by
/// Options::weights when given ("cpu=0.4,emu0=0.6"); herk/syrk and trsm are
/// tile task loops placed by the runtime (Options::weights does not apply).
/// With the host cores alone and column-major data, each host worker makes one
/// BLAS call on its slice of the result. BLAS semantics: beta == 0 means C
/// is not read (NaN in C does not propagate), k == 0 or alpha == 0 scales C by
/// beta (A and B are not referenced and may be null). Invalid arguments throw
/// hetla::ArgumentError naming the BLAS argument position.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "hetla/linalg.hpp"
#include "hetla/matrix.hpp"
#include "hetla/types.hpp"

namespace hetla {

/// C = alpha op(A) op(B) + beta C.
template <typename T> void gemm(Op opa, Op opb, T alpha, const Matrix<T>& A, const Matrix<T>& B, T beta, Matrix<T>& C,
                                const Options& opts = {});
/// Column-major A, B, C (BLAS xGEMM argument order): C is m x n, op(A) m x k.
template <typename T> void gemm(Op opa, Op opb, int64_t m, int64_t n, int64_t k, T alpha, const T* A, int64_t lda,
                                const T* B, int64_t ldb, T beta, T* C, int64_t ldc, const Options& opts = {});

/// C = alpha op(A) op(A)^H + beta C on the `uplo` triangle of the n x n C,
/// op = NoTrans (A is n x k) or ConjTrans (A is k x n); for real T this is
/// syrk (Trans accepted as ConjTrans). For complex T with real alpha/beta it
/// is herk: the diagonal of C is real on exit.
template <typename T> void herk(Uplo uplo, Op op, real_t<T> alpha, const Matrix<T>& A, real_t<T> beta, Matrix<T>& C,
                                const Options& opts = {});
/// Column-major A and C (BLAS xHERK / xSYRK argument order).
template <typename T> void herk(Uplo uplo, Op op, int64_t n, int64_t k, real_t<T> alpha, const T* A, int64_t lda,
                                real_t<T> beta, T* C, int64_t ldc, const Options& opts = {});
/// C = alpha op(A) op(A)^T + beta C (complex symmetric syrk: op = NoTrans or
/// Trans, no conjugation). For real T identical to herk.
template <typename T> void syrk(Uplo uplo, Op op, int64_t n, int64_t k, T alpha, const T* A, int64_t lda, T beta, T* C,
                                int64_t ldc, const Options& opts = {});

/// B = alpha op(A)^-1 B (Side::Left, A m x m) or alpha B op(A)^-1
/// (Side::Right, A n x n), A triangular; B is m x n.
template <typename T>
void trsm(Side side, Uplo uplo, Op op, Diag diag, T alpha, const Matrix<T>& A, Matrix<T>& B, const Options& opts = {});
/// Column-major A and B (BLAS xTRSM argument order).
template <typename T> void trsm(Side side, Uplo uplo, Op op, Diag diag, int64_t m, int64_t n, T alpha, const T* A,
                                int64_t lda, T* B, int64_t ldb, const Options& opts = {});

/// One computing device's part of a split level-3 operation.
struct DeviceShare {
  std::string device;  ///< runtime device name ("cpu", "emu0", ...)
  double share = 0;    ///< fraction of the columns of C it computes
};
/// The split gemm uses in the current context for a product of size n (the
/// cube root of m n k): opts.weights when given (throws
/// std::invalid_argument for an unknown device name or a bad number; "emu"
/// also names the only emulated device), else the split `hetla tune --split`
/// stored for this device set (interpolated in n; n = 0 skips it), else the
/// devices' throughputs measured on earlier large gemm calls of this context
/// (finish times equalised), else the capability weights (GEMM rate x workers).
/// `fp64`: for double or complex<double> operands, which devices without
/// double precision do not get (a weight forced on one throws).
std::vector<DeviceShare> gemm_split(const Options& opts = {}, double n = 0, bool fp64 = true);

}  // namespace hetla
