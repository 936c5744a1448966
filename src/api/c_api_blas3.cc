// C API for the level-3 BLAS (gemm, syrk/herk, trsm): BLAS argument order and
// xerbla numbering over the C++ API (blas3.hpp). Character arguments accept
// either case; any other character is rejected with its argument number.
#include <cctype>

#include "api/c_api_util.hpp"
#include "hetla/blas3.hpp"

namespace {
using hetla::capi::guarded;
using hetla::capi::to_op;
using hetla::capi::to_uplo;

hetla::Side to_side(char c) { return static_cast<hetla::Side>(std::toupper(static_cast<unsigned char>(c))); }
hetla::Diag to_diag(char c) { return static_cast<hetla::Diag>(std::toupper(static_cast<unsigned char>(c))); }

template <typename T> int gemm(char ta, char tb, int m, int n, int k, T alpha, const T* A, int lda, const T* B, int ldb,
                               T beta, T* C, int ldc) {
  return guarded([&] {
    hetla::gemm<T>(to_op(ta), to_op(tb), m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    return 0;
  });
}
template <typename T>
int syrk(char uplo, char trans, int n, int k, T alpha, const T* A, int lda, T beta, T* C, int ldc) {
  return guarded([&] {
    hetla::syrk<T>(to_uplo(uplo), to_op(trans), n, k, alpha, A, lda, beta, C, ldc);
    return 0;
  });
}
template <typename T, typename R>
int herk(char uplo, char trans, int n, int k, R alpha, const T* A, int lda, R beta, T* C, int ldc) {
  return guarded([&] {
    hetla::herk<T>(to_uplo(uplo), to_op(trans), n, k, alpha, A, lda, beta, C, ldc);
    return 0;
  });
}
template <typename T>
int trsm(char side, char uplo, char ta, char diag, int m, int n, T alpha, const T* A, int lda, T* B, int ldb) {
  return guarded([&] {
    hetla::trsm<T>(to_side(side), to_uplo(uplo), to_op(ta), to_diag(diag), m, n, alpha, A, lda, B, ldb);
    return 0;
  });
}
}  // namespace

extern "C" {

int hetla_sgemm(char ta, char tb, int m, int n, int k, float alpha, const float* A, int lda, const float* B, int ldb,
                float beta, float* C, int ldc) {
  return gemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
int hetla_dgemm(char ta, char tb, int m, int n, int k, double alpha, const double* A, int lda, const double* B, int ldb,
                double beta, double* C, int ldc) {
  return gemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
int hetla_cgemm(char ta, char tb, int m, int n, int k, hetla_complex_float alpha, const hetla_complex_float* A, int lda,
                const hetla_complex_float* B, int ldb, hetla_complex_float beta, hetla_complex_float* C, int ldc) {
  return gemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
int hetla_zgemm(char ta, char tb, int m, int n, int k, hetla_complex_double alpha, const hetla_complex_double* A,
                int lda, const hetla_complex_double* B, int ldb, hetla_complex_double beta, hetla_complex_double* C,
                int ldc) {
  return gemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

int hetla_ssyrk(char uplo, char trans, int n, int k, float alpha, const float* A, int lda, float beta, float* C,
                int ldc) {
  return syrk(uplo, trans, n, k, alpha, A, lda, beta, C, ldc);
}
int hetla_dsyrk(char uplo, char trans, int n, int k, double alpha, const double* A, int lda, double beta, double* C,
                int ldc) {
  return syrk(uplo, trans, n, k, alpha, A, lda, beta, C, ldc);
}
int hetla_csyrk(char uplo, char trans, int n, int k, hetla_complex_float alpha, const hetla_complex_float* A, int lda,
                hetla_complex_float beta, hetla_complex_float* C, int ldc) {
  return syrk(uplo, trans, n, k, alpha, A, lda, beta, C, ldc);
}
int hetla_zsyrk(char uplo, char trans, int n, int k, hetla_complex_double alpha, const hetla_complex_double* A, int lda,
                hetla_complex_double beta, hetla_complex_double* C, int ldc) {
  return syrk(uplo, trans, n, k, alpha, A, lda, beta, C, ldc);
}
int hetla_cherk(char uplo, char trans, int n, int k, float alpha, const hetla_complex_float* A, int lda, float beta,
                hetla_complex_float* C, int ldc) {
  return herk(uplo, trans, n, k, alpha, A, lda, beta, C, ldc);
}
int hetla_zherk(char uplo, char trans, int n, int k, double alpha, const hetla_complex_double* A, int lda, double beta,
                hetla_complex_double* C, int ldc) {
  return herk(uplo, trans, n, k, alpha, A, lda, beta, C, ldc);
}

int hetla_strsm(char side, char uplo, char ta, char diag, int m, int n, float alpha, const float* A, int lda, float* B,
                int ldb) {
  return trsm(side, uplo, ta, diag, m, n, alpha, A, lda, B, ldb);
}
int hetla_dtrsm(char side, char uplo, char ta, char diag, int m, int n, double alpha, const double* A, int lda,
                double* B, int ldb) {
  return trsm(side, uplo, ta, diag, m, n, alpha, A, lda, B, ldb);
}
int hetla_ctrsm(char side, char uplo, char ta, char diag, int m, int n, hetla_complex_float alpha,
                const hetla_complex_float* A, int lda, hetla_complex_float* B, int ldb) {
  return trsm(side, uplo, ta, diag, m, n, alpha, A, lda, B, ldb);
}
int hetla_ztrsm(char side, char uplo, char ta, char diag, int m, int n, hetla_complex_double alpha,
                const hetla_complex_double* A, int lda, hetla_complex_double* B, int ldb) {
  return trsm(side, uplo, ta, diag, m, n, alpha, A, lda, B, ldb);
}

}  // extern "C"
