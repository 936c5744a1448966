// The host vendor BLAS and LAPACK (OpenBLAS through CBLAS/LAPACKE,
// column-major), overloaded by precision: the baseline that `--baseline` and
// `hetla demo` compare with, and the host reference computations of the
// benchmarks. The benchmarks reach the vendor library only through this
// header (not kernels/host/* directly). Callers set the BLAS thread count
// (util::BlasThreadsGuard, with_vendor_threads) around them.
#pragma once
#include <cstdint>

#include "kernels/host/blas.hpp"
#include "kernels/host/lapack_lu.hpp"
#include "kernels/host/lapack_qr.hpp"

namespace hetla::cli::vendor {

using blas::dcomplex;
using blas::scomplex;

// Level-3 BLAS and norms (kernels/host/blas.hpp).
using blas::gemm;
using blas::herk;
using blas::lange;
using blas::trsm;
// LU (kernels/host/lapack_lu.hpp): pivots are LAPACK's, 1-based lapack_int.
using blas::gesv;
using blas::getrf;
// QR (kernels/host/lapack_qr.hpp).
using blas::gels;
using blas::geqrf;
using blas::ungqr;

inline int64_t potrf(Uplo u, int64_t n, float* A, int64_t lda) { return blas::potrf(u, n, A, lda); }
inline int64_t potrf(Uplo u, int64_t n, double* A, int64_t lda) { return blas::potrf(u, n, A, lda); }
inline int64_t potrf(Uplo u, int64_t n, scomplex* A, int64_t lda) { return blas::potrf(u, n, A, lda); }
inline int64_t potrf(Uplo u, int64_t n, dcomplex* A, int64_t lda) { return blas::potrf(u, n, A, lda); }

inline int64_t potrs(Uplo u, int64_t n, int64_t nrhs, const float* A, int64_t lda, float* B, int64_t ldb) {
  return LAPACKE_spotrs_work(LAPACK_COL_MAJOR, blas::lapack_uplo(u), n, nrhs, A, lda, B, ldb);
}
inline int64_t potrs(Uplo u, int64_t n, int64_t nrhs, const double* A, int64_t lda, double* B, int64_t ldb) {
  return LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, blas::lapack_uplo(u), n, nrhs, A, lda, B, ldb);
}
inline int64_t potrs(Uplo u, int64_t n, int64_t nrhs, const scomplex* A, int64_t lda, scomplex* B,
                     int64_t ldb) {
  return LAPACKE_cpotrs_work(LAPACK_COL_MAJOR, blas::lapack_uplo(u), n, nrhs, A, lda, B, ldb);
}
inline int64_t potrs(Uplo u, int64_t n, int64_t nrhs, const dcomplex* A, int64_t lda, dcomplex* B,
                     int64_t ldb) {
  return LAPACKE_zpotrs_work(LAPACK_COL_MAJOR, blas::lapack_uplo(u), n, nrhs, A, lda, B, ldb);
}

inline int64_t posv(Uplo u, int64_t n, int64_t nrhs, float* A, int64_t lda, float* B, int64_t ldb) {
  return LAPACKE_sposv_work(LAPACK_COL_MAJOR, blas::lapack_uplo(u), n, nrhs, A, lda, B, ldb);
}
inline int64_t posv(Uplo u, int64_t n, int64_t nrhs, double* A, int64_t lda, double* B, int64_t ldb) {
  return LAPACKE_dposv_work(LAPACK_COL_MAJOR, blas::lapack_uplo(u), n, nrhs, A, lda, B, ldb);
}
inline int64_t posv(Uplo u, int64_t n, int64_t nrhs, scomplex* A, int64_t lda, scomplex* B, int64_t ldb) {
  return LAPACKE_cposv_work(LAPACK_COL_MAJOR, blas::lapack_uplo(u), n, nrhs, A, lda, B, ldb);
}
inline int64_t posv(Uplo u, int64_t n, int64_t nrhs, dcomplex* A, int64_t lda, dcomplex* B, int64_t ldb) {
  return LAPACKE_zposv_work(LAPACK_COL_MAJOR, blas::lapack_uplo(u), n, nrhs, A, lda, B, ldb);
}

}  // namespace hetla::cli::vendor
