/* hetla C API: LAPACK argument order on column-major host arrays.
 * Every routine returns LAPACK's `info`: 0 on success, -i if argument i is
 * invalid, k > 0 for a numerical failure (e.g. the leading minor of order k is
 * not positive definite). HETLA_ERR_INTERNAL (below every argument number)
 * reports a failure of the library itself (out of memory, ...);
 * hetla_last_error() then returns a message. Calls are thread-safe
 * (serialised). */
#ifndef HETLA_H
#define HETLA_H

#ifdef __cplusplus
#include <complex>
typedef std::complex<float> hetla_complex_float;
typedef std::complex<double> hetla_complex_double;
extern "C" {
#else
#include <complex.h>
typedef float _Complex hetla_complex_float;
typedef double _Complex hetla_complex_double;
#endif

#define HETLA_ERR_INTERNAL (-1000)

/* Starts the library with num_threads workers (0 = one per core). Optional:
 * the first call of any routine starts it with the defaults. */
int hetla_init(int num_threads);
void hetla_finalize(void);
/* Message of the last error on this thread ("" if none). */
const char* hetla_last_error(void);

int hetla_spotrf(char uplo, int n, float* A, int lda);
int hetla_dpotrf(char uplo, int n, double* A, int lda);
int hetla_cpotrf(char uplo, int n, hetla_complex_float* A, int lda);
int hetla_zpotrf(char uplo, int n, hetla_complex_double* A, int lda);

int hetla_spotrs(char uplo, int n, int nrhs, const float* A, int lda, float* B, int ldb);
int hetla_dpotrs(char uplo, int n, int nrhs, const double* A, int lda, double* B, int ldb);
int hetla_cpotrs(char uplo, int n, int nrhs, const hetla_complex_float* A, int lda, hetla_complex_float* B,
                 int ldb);
int hetla_zpotrs(char uplo, int n, int nrhs, const hetla_complex_double* A, int lda, hetla_complex_double* B,
                 int ldb);

int hetla_sposv(char uplo, int n, int nrhs, float* A, int lda, float* B, int ldb);
int hetla_dposv(char uplo, int n, int nrhs, double* A, int lda, double* B, int ldb);
int hetla_cposv(char uplo, int n, int nrhs, hetla_complex_float* A, int lda, hetla_complex_float* B, int ldb);
int hetla_zposv(char uplo, int n, int nrhs, hetla_complex_double* A, int lda, hetla_complex_double* B, int ldb);

/* ---- LU with partial pivoting (src/api/c_api_lu.cc) ---- */

/* ---- QR and least squares (src/api/c_api_qr.cc) ---- */

#ifdef __cplusplus
}
#endif
#endif /* HETLA_H */
