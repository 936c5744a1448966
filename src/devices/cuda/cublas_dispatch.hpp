// hetla's Op/Uplo/Side/Diag and precisions onto cuBLAS (its 64-bit integer
// API) and cuSOLVER: one template per kernel, the s/d/c/z call chosen at
// compile time (cuda_device.cc's kernels call these).
#pragma once
#include <cublas_v2.h>
#include <cusolverDn.h>

#include <complex>
#include <cstdint>
#include <type_traits>

#include "hetla/types.hpp"
#include "util/precision.hpp"

namespace hetla::dev::cuda_dispatch {


cublasOperation_t blas_op(Op op, bool complex) {
  switch (op) {
    case Op::NoTrans: return CUBLAS_OP_N;
    case Op::Trans: return CUBLAS_OP_T;
    case Op::ConjTrans: return complex ? CUBLAS_OP_C : CUBLAS_OP_T;
  }
  return CUBLAS_OP_N;
}
cublasFillMode_t blas_fill(Uplo u) { return u == Uplo::Lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER; }
cublasSideMode_t blas_side(Side s) { return s == Side::Left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT; }
cublasDiagType_t blas_diag(Diag d) { return d == Diag::Unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT; }

template <typename T> struct CudaType { using type = T; };
template <> struct CudaType<std::complex<float>> { using type = cuComplex; };
template <> struct CudaType<std::complex<double>> { using type = cuDoubleComplex; };
template <typename T> using cuda_t = typename CudaType<T>::type;
template <typename T> cuda_t<T>* cu(T* p) { return reinterpret_cast<cuda_t<T>*>(p); }
template <typename T> const cuda_t<T>* cu(const T* p) { return reinterpret_cast<const cuda_t<T>*>(p); }

static_assert(sizeof(cuComplex) == sizeof(std::complex<float>) && sizeof(cuDoubleComplex) == sizeof(std::complex<double>));

template <typename T>
cublasStatus_t xgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n, int64_t k,
                     const T* alpha, const T* A, int64_t lda, const T* B, int64_t ldb, const T* beta, T* C, int64_t ldc) {
  if constexpr (std::is_same_v<T, float>) return cublasSgemm_64(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  else if constexpr (std::is_same_v<T, double>) return cublasDgemm_64(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return cublasCgemm_64(h, ta, tb, m, n, k, cu(alpha), cu(A), lda, cu(B), ldb, cu(beta), cu(C), ldc);
  else return cublasZgemm_64(h, ta, tb, m, n, k, cu(alpha), cu(A), lda, cu(B), ldb, cu(beta), cu(C), ldc);
}

template <typename T>
cublasStatus_t xherk(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t, int64_t n, int64_t k, const real_t<T>* alpha,
                     const T* A, int64_t lda, const real_t<T>* beta, T* C, int64_t ldc) {
  if constexpr (std::is_same_v<T, float>) return cublasSsyrk_64(h, u, t, n, k, alpha, A, lda, beta, C, ldc);
  else if constexpr (std::is_same_v<T, double>) return cublasDsyrk_64(h, u, t, n, k, alpha, A, lda, beta, C, ldc);
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return cublasCherk_64(h, u, t, n, k, alpha, cu(A), lda, beta, cu(C), ldc);
  else return cublasZherk_64(h, u, t, n, k, alpha, cu(A), lda, beta, cu(C), ldc);
}

template <typename T>
cublasStatus_t xtrsm(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u, cublasOperation_t t, cublasDiagType_t d,
                     int64_t m, int64_t n, const T* alpha, const T* A, int64_t lda, T* B, int64_t ldb) {
  if constexpr (std::is_same_v<T, float>) return cublasStrsm_64(h, s, u, t, d, m, n, alpha, A, lda, B, ldb);
  else if constexpr (std::is_same_v<T, double>) return cublasDtrsm_64(h, s, u, t, d, m, n, alpha, A, lda, B, ldb);
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return cublasCtrsm_64(h, s, u, t, d, m, n, cu(alpha), cu(A), lda, cu(B), ldb);
  else return cublasZtrsm_64(h, s, u, t, d, m, n, cu(alpha), cu(A), lda, cu(B), ldb);
}

template <typename T>
cublasStatus_t xtrmm(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u, cublasOperation_t t, cublasDiagType_t d,
                     int64_t m, int64_t n, const T* alpha, const T* A, int64_t lda, T* B, int64_t ldb) {
  // cuBLAS trmm writes C = alpha op(A) B; C = B is its documented in-place form.
  if constexpr (std::is_same_v<T, float>) return cublasStrmm_64(h, s, u, t, d, m, n, alpha, A, lda, B, ldb, B, ldb);
  else if constexpr (std::is_same_v<T, double>) return cublasDtrmm_64(h, s, u, t, d, m, n, alpha, A, lda, B, ldb, B, ldb);
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return cublasCtrmm_64(h, s, u, t, d, m, n, cu(alpha), cu(A), lda, cu(B), ldb, cu(B), ldb);
  else return cublasZtrmm_64(h, s, u, t, d, m, n, cu(alpha), cu(A), lda, cu(B), ldb, cu(B), ldb);
}

template <typename T>
cusolverStatus_t xpotrf_buffer_size(cusolverDnHandle_t h, cublasFillMode_t u, int n, T* A, int lda, int* lwork) {
  if constexpr (std::is_same_v<T, float>) return cusolverDnSpotrf_bufferSize(h, u, n, A, lda, lwork);
  else if constexpr (std::is_same_v<T, double>) return cusolverDnDpotrf_bufferSize(h, u, n, A, lda, lwork);
  else if constexpr (std::is_same_v<T, std::complex<float>>) return cusolverDnCpotrf_bufferSize(h, u, n, cu(A), lda, lwork);
  else return cusolverDnZpotrf_bufferSize(h, u, n, cu(A), lda, lwork);
}

template <typename T>
cusolverStatus_t xpotrf(cusolverDnHandle_t h, cublasFillMode_t u, int n, T* A, int lda, T* work, int lwork, int* info) {
  if constexpr (std::is_same_v<T, float>) return cusolverDnSpotrf(h, u, n, A, lda, work, lwork, info);
  else if constexpr (std::is_same_v<T, double>) return cusolverDnDpotrf(h, u, n, A, lda, work, lwork, info);
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return cusolverDnCpotrf(h, u, n, cu(A), lda, cu(work), lwork, info);
  else return cusolverDnZpotrf(h, u, n, cu(A), lda, cu(work), lwork, info);
}

}  // namespace hetla::dev::cuda_dispatch
