/** @file
 * hetla C API: LAPACK argument order on column-major host arrays.
 * Every routine returns LAPACK's `info`: 0 on success, -i if argument i is
 * invalid, k > 0 for a numerical failure (e.g. the leading minor of order k is
 * not positive definite). HETLA_ERR_INTERNAL (below every argument number)
 * reports a failure of the library itself (out of memory, ...);
 * hetla_last_error() then returns a message. Calls are thread-safe: on
 * host cores calls from several threads run at once (docs/api.md). */
#ifndef HETLA_H
#define HETLA_H

#ifdef __cplusplus
#include <complex>
typedef std::complex<float> hetla_complex_float;   /**< Single complex (C: float _Complex). */
typedef std::complex<double> hetla_complex_double; /**< Double complex (C: double _Complex). */
extern "C" {
#else
#include <complex.h>
typedef float _Complex hetla_complex_float;   /**< Single complex (C++: std::complex<float>). */
typedef double _Complex hetla_complex_double; /**< Double complex (C++: std::complex<double>). */
#endif

/** info of a failure of the library itself (below every argument number): see hetla_last_error(). */
#define HETLA_ERR_INTERNAL (-1000)

/** Starts the library with num_threads workers (0 = one per core). Optional:
 * the first call of any routine starts it with the defaults. */
int hetla_init(int num_threads);
/** Starts the library from a configuration string, "key=value" items separated
 * by ';' (every key optional), e.g. "devices=cpu,opencl;schedule=static;threads=2":
 * @verbatim
 *   threads=N        host workers incl. the caller (0 = one per core of the
 *                    process's CPU set, minus one per accelerator)
 *   devices=LIST     cpu[:cores], emu[...], opencl[:index|all][:mem=SIZE], cuda[:index|all]
 *   schedule=S       dynamic or static
 *   distribution=D   default, 1d, 2d, weighted or hybrid (alone: selects static)
 *   pin=0|1          pin the workers to cores (default 1)
 * @endverbatim
 * Returns 0, or -1 for a malformed string or device list (hetla_last_error()
 * says which key), HETLA_ERR_INTERNAL if a device cannot be opened. Without
 * any init call the first routine starts the library from the environment:
 * HETLA_NUM_THREADS, HETLA_DEVICES, HETLA_SCHEDULE, HETLA_DISTRIBUTION. */
int hetla_init_config(const char* config);
/** Stops the library (joins its worker threads); the next routine starts it again. */
void hetla_finalize(void);
/** Message of the last error on this thread ("" if none). */
const char* hetla_last_error(void);
/** Warning of the last call: a device that failed during it and how the call
 * recovered (the result is right), one line per device; "" if none. A failed
 * device stays out of the library until hetla_reset_devices() or the next
 * init (docs/reliability.md). */
const char* hetla_last_warning(void);
/** Lets devices that failed take work again. */
void hetla_reset_devices(void);

/**@{*/
/** Cholesky factorization A = L L^H (uplo 'L') or U^H U ('U') in place (LAPACK xPOTRF);
 * returns k > 0 if the leading minor of order k is not positive definite. */
int hetla_spotrf(char uplo, int n, float* A, int lda);
int hetla_dpotrf(char uplo, int n, double* A, int lda);
int hetla_cpotrf(char uplo, int n, hetla_complex_float* A, int lda);
int hetla_zpotrf(char uplo, int n, hetla_complex_double* A, int lda);
/**@}*/

/**@{*/
/** Solves A X = B with the factor from ?potrf; B (n x nrhs) is overwritten by X (LAPACK xPOTRS). */
int hetla_spotrs(char uplo, int n, int nrhs, const float* A, int lda, float* B, int ldb);
int hetla_dpotrs(char uplo, int n, int nrhs, const double* A, int lda, double* B, int ldb);
int hetla_cpotrs(char uplo, int n, int nrhs, const hetla_complex_float* A, int lda, hetla_complex_float* B,
                 int ldb);
int hetla_zpotrs(char uplo, int n, int nrhs, const hetla_complex_double* A, int lda, hetla_complex_double* B,
                 int ldb);
/**@}*/

/**@{*/
/** Factors A (?potrf) and solves A X = B (LAPACK xPOSV); B untouched if the returned info > 0. */
int hetla_sposv(char uplo, int n, int nrhs, float* A, int lda, float* B, int ldb);
int hetla_dposv(char uplo, int n, int nrhs, double* A, int lda, double* B, int ldb);
int hetla_cposv(char uplo, int n, int nrhs, hetla_complex_float* A, int lda, hetla_complex_float* B, int ldb);
int hetla_zposv(char uplo, int n, int nrhs, hetla_complex_double* A, int lda, hetla_complex_double* B, int ldb);
/**@}*/

/* ---- LU with partial pivoting (src/api/c_api_lu.cc) ---- */
/**@{*/
/** P A = L U of the m x n A (LAPACK xGETRF): ipiv receives min(m, n) 1-based
 * row interchanges; returns i > 0 if U(i, i) is exactly zero (the
 * factorization is still completed). */
int hetla_sgetrf(int m, int n, float* A, int lda, int* ipiv);
int hetla_dgetrf(int m, int n, double* A, int lda, int* ipiv);
int hetla_cgetrf(int m, int n, hetla_complex_float* A, int lda, int* ipiv);
int hetla_zgetrf(int m, int n, hetla_complex_double* A, int lda, int* ipiv);
/**@}*/

/**@{*/
/** Solves op(A) X = B with the factors from ?getrf; trans is 'N', 'T' or 'C'. */
int hetla_sgetrs(char trans, int n, int nrhs, const float* A, int lda, const int* ipiv, float* B, int ldb);
int hetla_dgetrs(char trans, int n, int nrhs, const double* A, int lda, const int* ipiv, double* B, int ldb);
int hetla_cgetrs(char trans, int n, int nrhs, const hetla_complex_float* A, int lda, const int* ipiv,
                 hetla_complex_float* B, int ldb);
int hetla_zgetrs(char trans, int n, int nrhs, const hetla_complex_double* A, int lda, const int* ipiv,
                 hetla_complex_double* B, int ldb);
/**@}*/

/**@{*/
/** Factors A and solves A X = B (B untouched if the returned info > 0). */
int hetla_sgesv(int n, int nrhs, float* A, int lda, int* ipiv, float* B, int ldb);
int hetla_dgesv(int n, int nrhs, double* A, int lda, int* ipiv, double* B, int ldb);
int hetla_cgesv(int n, int nrhs, hetla_complex_float* A, int lda, int* ipiv, hetla_complex_float* B, int ldb);
int hetla_zgesv(int n, int nrhs, hetla_complex_double* A, int lda, int* ipiv, hetla_complex_double* B, int ldb);
/**@}*/

/* ---- QR and least squares (src/api/c_api_qr.cc) ---- */
/**@{*/
/** A = Q R of the m x n A (LAPACK xGEQRF storage): R on and above the
 * diagonal, the Householder vectors below it (unit diagonal implied), tau
 * receives min(m, n) scalar factors. */
int hetla_sgeqrf(int m, int n, float* A, int lda, float* tau);
int hetla_dgeqrf(int m, int n, double* A, int lda, double* tau);
int hetla_cgeqrf(int m, int n, hetla_complex_float* A, int lda, hetla_complex_float* tau);
int hetla_zgeqrf(int m, int n, hetla_complex_double* A, int lda, hetla_complex_double* tau);
/**@}*/

/**@{*/
/** C = op(Q) C (side 'L') or C op(Q) (side 'R') with Q from ?geqrf (k
 * reflectors in A); trans is 'N' or 'T' (real; 'C' is accepted as 'T'),
 * 'N' or 'C' (complex). */
int hetla_sormqr(char side, char trans, int m, int n, int k, const float* A, int lda, const float* tau, float* C,
                 int ldc);
int hetla_dormqr(char side, char trans, int m, int n, int k, const double* A, int lda, const double* tau,
                 double* C, int ldc);
int hetla_cunmqr(char side, char trans, int m, int n, int k, const hetla_complex_float* A, int lda,
                 const hetla_complex_float* tau, hetla_complex_float* C, int ldc);
int hetla_zunmqr(char side, char trans, int m, int n, int k, const hetla_complex_double* A, int lda,
                 const hetla_complex_double* tau, hetla_complex_double* C, int ldc);
/**@}*/

/**@{*/
/** Overwrites A (m >= n >= k) with the first n columns of Q from ?geqrf. */
int hetla_sorgqr(int m, int n, int k, float* A, int lda, const float* tau);
int hetla_dorgqr(int m, int n, int k, double* A, int lda, const double* tau);
int hetla_cungqr(int m, int n, int k, hetla_complex_float* A, int lda, const hetla_complex_float* tau);
int hetla_zungqr(int m, int n, int k, hetla_complex_double* A, int lda, const hetla_complex_double* tau);
/**@}*/

/**@{*/
/** Least squares (overdetermined) or minimum norm (underdetermined) solution
 * of op(A) X = B, trans 'N' or 'T' (real) / 'C' (complex), as LAPACK xGELS;
 * returns i > 0 if the i-th diagonal element of the triangular factor is
 * exactly zero (A not of full rank). */
int hetla_sgels(char trans, int m, int n, int nrhs, float* A, int lda, float* B, int ldb);
int hetla_dgels(char trans, int m, int n, int nrhs, double* A, int lda, double* B, int ldb);
int hetla_cgels(char trans, int m, int n, int nrhs, hetla_complex_float* A, int lda, hetla_complex_float* B,
                int ldb);
int hetla_zgels(char trans, int m, int n, int nrhs, hetla_complex_double* A, int lda, hetla_complex_double* B,
                int ldb);
/**@}*/

/* ---- Matrix polynomials and functions (src/api/c_api_matfun.cc) ---- */
/**@{*/
/** P = sum_{i=0}^{degree} coeffs[i] X^i for an n x n X (coeffs[0] is the
 * constant term; degree + 1 values). method 'H': Horner (degree - 1 matrix
 * products), 'P': Paterson-Stockmeyer (about 2 sqrt(degree)). P must not
 * overlap X. */
int hetla_smatpoly(int n, const float* X, int ldx, int degree, const float* coeffs, float* P, int ldp, char method);
int hetla_dmatpoly(int n, const double* X, int ldx, int degree, const double* coeffs, double* P, int ldp,
                   char method);
int hetla_cmatpoly(int n, const hetla_complex_float* X, int ldx, int degree, const hetla_complex_float* coeffs,
                   hetla_complex_float* P, int ldp, char method);
int hetla_zmatpoly(int n, const hetla_complex_double* X, int ldx, int degree, const hetla_complex_double* coeffs,
                   hetla_complex_double* P, int ldp, char method);
/**@}*/

/**@{*/
/** E = exp(A) (scaling and squaring, Pade), C = cos(A), S = sin(A) (Taylor,
 * double-angle recovery) for an n x n A, to full accuracy in the precision.
 * Not in place: the result must not overlap A. */
int hetla_sexpm(int n, const float* A, int lda, float* E, int lde);
int hetla_dexpm(int n, const double* A, int lda, double* E, int lde);
int hetla_cexpm(int n, const hetla_complex_float* A, int lda, hetla_complex_float* E, int lde);
int hetla_zexpm(int n, const hetla_complex_double* A, int lda, hetla_complex_double* E, int lde);
int hetla_scosm(int n, const float* A, int lda, float* C, int ldc);
int hetla_dcosm(int n, const double* A, int lda, double* C, int ldc);
int hetla_ccosm(int n, const hetla_complex_float* A, int lda, hetla_complex_float* C, int ldc);
int hetla_zcosm(int n, const hetla_complex_double* A, int lda, hetla_complex_double* C, int ldc);
int hetla_ssinm(int n, const float* A, int lda, float* S, int lds);
int hetla_dsinm(int n, const double* A, int lda, double* S, int lds);
int hetla_csinm(int n, const hetla_complex_float* A, int lda, hetla_complex_float* S, int lds);
int hetla_zsinm(int n, const hetla_complex_double* A, int lda, hetla_complex_double* S, int lds);
/**@}*/

/* ---- Level-3 BLAS (src/api/c_api_blas3.cc) ----
 * BLAS argument order on column-major arrays, split across the context's
 * devices; returns 0, or -i if argument i is invalid (xerbla numbering).
 * Characters in either case. beta == 0: C is not read (NaN does not spread). */
/**@{*/
/** C = alpha op(A) op(B) + beta C; transa/transb 'N', 'T' or 'C'. */
int hetla_sgemm(char transa, char transb, int m, int n, int k, float alpha, const float* A, int lda, const float* B,
                int ldb, float beta, float* C, int ldc);
int hetla_dgemm(char transa, char transb, int m, int n, int k, double alpha, const double* A, int lda,
                const double* B, int ldb, double beta, double* C, int ldc);
int hetla_cgemm(char transa, char transb, int m, int n, int k, hetla_complex_float alpha, const hetla_complex_float* A,
                int lda, const hetla_complex_float* B, int ldb, hetla_complex_float beta, hetla_complex_float* C,
                int ldc);
int hetla_zgemm(char transa, char transb, int m, int n, int k, hetla_complex_double alpha,
                const hetla_complex_double* A, int lda, const hetla_complex_double* B, int ldb,
                hetla_complex_double beta, hetla_complex_double* C, int ldc);
/**@}*/
/**@{*/
/** C = alpha op(A) op(A)^T + beta C on the uplo triangle ('N': A n x k; 'T': A k x n; real also 'C'). */
int hetla_ssyrk(char uplo, char trans, int n, int k, float alpha, const float* A, int lda, float beta, float* C,
                int ldc);
int hetla_dsyrk(char uplo, char trans, int n, int k, double alpha, const double* A, int lda, double beta, double* C,
                int ldc);
int hetla_csyrk(char uplo, char trans, int n, int k, hetla_complex_float alpha, const hetla_complex_float* A, int lda,
                hetla_complex_float beta, hetla_complex_float* C, int ldc);
int hetla_zsyrk(char uplo, char trans, int n, int k, hetla_complex_double alpha, const hetla_complex_double* A,
                int lda, hetla_complex_double beta, hetla_complex_double* C, int ldc);
/**@}*/
/**@{*/
/** C = alpha op(A) op(A)^H + beta C on the uplo triangle, trans 'N' or 'C'. */
int hetla_cherk(char uplo, char trans, int n, int k, float alpha, const hetla_complex_float* A, int lda, float beta,
                hetla_complex_float* C, int ldc);
int hetla_zherk(char uplo, char trans, int n, int k, double alpha, const hetla_complex_double* A, int lda,
                double beta, hetla_complex_double* C, int ldc);
/**@}*/
/**@{*/
/** B = alpha op(A)^-1 B (side 'L', A m x m) or alpha B op(A)^-1 (side 'R', A n x n); diag 'N' or 'U'. */
int hetla_strsm(char side, char uplo, char transa, char diag, int m, int n, float alpha, const float* A, int lda,
                float* B, int ldb);
int hetla_dtrsm(char side, char uplo, char transa, char diag, int m, int n, double alpha, const double* A, int lda,
                double* B, int ldb);
int hetla_ctrsm(char side, char uplo, char transa, char diag, int m, int n, hetla_complex_float alpha,
                const hetla_complex_float* A, int lda, hetla_complex_float* B, int ldb);
int hetla_ztrsm(char side, char uplo, char transa, char diag, int m, int n, hetla_complex_double alpha,
                const hetla_complex_double* A, int lda, hetla_complex_double* B, int ldb);
/**@}*/

/**@{*/
/** Batched Cholesky (include/hetla/batch.hpp): each n x n *A[i] factored as by ?potrf. Returns 0, or -i for an invalid
 * argument common to the batch; info[i] is the matrix's own info (-3 for a null A[i]). */
int hetla_spotrf_batched(char uplo, int n, float* const* A, int lda, int count, int* info);
int hetla_dpotrf_batched(char uplo, int n, double* const* A, int lda, int count, int* info);
int hetla_cpotrf_batched(char uplo, int n, hetla_complex_float* const* A, int lda, int count, int* info);
int hetla_zpotrf_batched(char uplo, int n, hetla_complex_double* const* A, int lda, int count, int* info);
/**@}*/
/**@{*/
/** Strided batched Cholesky: matrix i at A + i * stride_a (stride_a >= lda * n); returns and info as ?potrf_batched. */
int hetla_spotrf_strided_batched(char uplo, int n, float* A, int lda, long long stride_a, int count, int* info);
int hetla_dpotrf_strided_batched(char uplo, int n, double* A, int lda, long long stride_a, int count, int* info);
int hetla_cpotrf_strided_batched(char uplo, int n, hetla_complex_float* A, int lda, long long stride_a, int count,
                                 int* info);
int hetla_zpotrf_strided_batched(char uplo, int n, hetla_complex_double* A, int lda, long long stride_a, int count,
                                 int* info);
/**@}*/
/**@{*/
/** Batched LU: each m x n *A[i] factored as by ?getrf, its min(m, n) pivots in ipiv[i]; info[i] as getrf's (-3 / -5 for
 * a null A[i] / ipiv[i]). */
int hetla_sgetrf_batched(int m, int n, float* const* A, int lda, int* const* ipiv, int count, int* info);
int hetla_dgetrf_batched(int m, int n, double* const* A, int lda, int* const* ipiv, int count, int* info);
int hetla_cgetrf_batched(int m, int n, hetla_complex_float* const* A, int lda, int* const* ipiv, int count, int* info);
int hetla_zgetrf_batched(int m, int n, hetla_complex_double* const* A, int lda, int* const* ipiv, int count, int* info);
/**@}*/
/**@{*/
/** Batched QR: each m x n *A[i] factored as by ?geqrf, its min(m, n) scalars in tau[i]; info[i] 0 (-3 / -5 for a null
 * A[i] / tau[i]). */
int hetla_sgeqrf_batched(int m, int n, float* const* A, int lda, float* const* tau, int count, int* info);
int hetla_dgeqrf_batched(int m, int n, double* const* A, int lda, double* const* tau, int count, int* info);
int hetla_cgeqrf_batched(int m, int n, hetla_complex_float* const* A, int lda, hetla_complex_float* const* tau,
                         int count, int* info);
int hetla_zgeqrf_batched(int m, int n, hetla_complex_double* const* A, int lda, hetla_complex_double* const* tau,
                         int count, int* info);
/**@}*/
/**@{*/
/** Batched products C[i] = alpha op(A[i]) op(B[i]) + beta C[i] (sizes as ?gemm); info[i] 0, or -7 / -9 / -12 for a null
 * A[i] / B[i] / C[i]. */
int hetla_sgemm_batched(char transa, char transb, int m, int n, int k, float alpha, const float* const* A, int lda,
                        const float* const* B, int ldb, float beta, float* const* C, int ldc, int count, int* info);
int hetla_dgemm_batched(char transa, char transb, int m, int n, int k, double alpha, const double* const* A, int lda,
                        const double* const* B, int ldb, double beta, double* const* C, int ldc, int count, int* info);
int hetla_cgemm_batched(char transa, char transb, int m, int n, int k, hetla_complex_float alpha,
                        const hetla_complex_float* const* A, int lda, const hetla_complex_float* const* B, int ldb,
                        hetla_complex_float beta, hetla_complex_float* const* C, int ldc, int count, int* info);
int hetla_zgemm_batched(char transa, char transb, int m, int n, int k, hetla_complex_double alpha,
                        const hetla_complex_double* const* A, int lda, const hetla_complex_double* const* B, int ldb,
                        hetla_complex_double beta, hetla_complex_double* const* C, int ldc, int count, int* info);
/**@}*/

#ifdef __cplusplus
}
#endif
#endif /* HETLA_H */
