// Precision-generic host kernels for the QR family (column-major, LAPACK
// semantics): Householder panel factorizations, block-reflector triangles,
// forming Q, scaling, and the reference LAPACK drivers used as baselines and
// in tests. One template per kernel dispatches on the precision.
#pragma once
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels/host/blas.hpp"
#include "util/pages.hpp"

namespace hetla::blas {

namespace qr_detail {
template <typename T> using lapack_t = std::conditional_t<
    std::is_same_v<T, scomplex>, lapack_complex_float,
    std::conditional_t<std::is_same_v<T, dcomplex>, lapack_complex_double, T>>;
template <typename T> lapack_t<T>* lp(T* p) { return reinterpret_cast<lapack_t<T>*>(p); }
template <typename T> const lapack_t<T>* lp(const T* p) { return reinterpret_cast<const lapack_t<T>*>(p); }
template <typename T> inline constexpr bool is_s = std::is_same_v<T, float>;
template <typename T> inline constexpr bool is_d = std::is_same_v<T, double>;
template <typename T> inline constexpr bool is_c = std::is_same_v<T, scomplex>;
/// Workspace length from a LAPACK query (work[0] holds the optimal size).
template <typename T> lapack_int query_size(const T& w) { return std::max<lapack_int>(1, lapack_int(std::real(w))); }
/// LAPACK's transpose letter for the precision: 'T' for real, 'C' for complex.
template <typename T> char trans_letter(Op op) {
  return op == Op::NoTrans ? 'N' : (is_complex_v<T> ? 'C' : 'T');
}
}  // namespace qr_detail

// ---- geqrf: QR factorization A = Q R (Householder, LAPACK storage).
template <typename T> int64_t geqrf(int64_t m, int64_t n, T* A, int64_t lda, T* tau) {
  using namespace qr_detail;
  auto call = [&](T* work, lapack_int lwork) -> lapack_int {
    if constexpr (is_s<T>) return LAPACKE_sgeqrf_work(LAPACK_COL_MAJOR, m, n, A, lda, tau, work, lwork);
    else if constexpr (is_d<T>) return LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, m, n, A, lda, tau, work, lwork);
    else if constexpr (is_c<T>) return LAPACKE_cgeqrf_work(LAPACK_COL_MAJOR, m, n, lp(A), lda, lp(tau), lp(work), lwork);
    else return LAPACKE_zgeqrf_work(LAPACK_COL_MAJOR, m, n, lp(A), lda, lp(tau), lp(work), lwork);
  };
  T q{};
  call(&q, -1);
  std::vector<T> work(static_cast<std::size_t>(query_size(q)));
  return call(work.data(), static_cast<lapack_int>(work.size()));
}

// ---- geqrt3: recursive QR (m >= n) that also returns the n x n upper
// triangular T of the block reflector Q = I - V T V^H; T(i, i) = tau(i).
template <typename T> int64_t geqrt3(int64_t m, int64_t n, T* A, int64_t lda, T* Tm, int64_t ldt) {
  using namespace qr_detail;
  if constexpr (is_s<T>) return LAPACKE_sgeqrt3_work(LAPACK_COL_MAJOR, m, n, A, lda, Tm, ldt);
  else if constexpr (is_d<T>) return LAPACKE_dgeqrt3_work(LAPACK_COL_MAJOR, m, n, A, lda, Tm, ldt);
  else if constexpr (is_c<T>) return LAPACKE_cgeqrt3_work(LAPACK_COL_MAJOR, m, n, lp(A), lda, lp(Tm), ldt);
  else return LAPACKE_zgeqrt3_work(LAPACK_COL_MAJOR, m, n, lp(A), lda, lp(Tm), ldt);
}

// ---- larft (forward, columnwise): T of H(1)...H(k) = I - V T V^H, V is n x k.
template <typename T>
int64_t larft(int64_t n, int64_t k, const T* V, int64_t ldv, const T* tau, T* Tm, int64_t ldt) {
  using namespace qr_detail;
  if constexpr (is_s<T>) return LAPACKE_slarft_work(LAPACK_COL_MAJOR, 'F', 'C', n, k, V, ldv, tau, Tm, ldt);
  else if constexpr (is_d<T>) return LAPACKE_dlarft_work(LAPACK_COL_MAJOR, 'F', 'C', n, k, V, ldv, tau, Tm, ldt);
  else if constexpr (is_c<T>)
    return LAPACKE_clarft_work(LAPACK_COL_MAJOR, 'F', 'C', n, k, lp(V), ldv, lp(tau), lp(Tm), ldt);
  else return LAPACKE_zlarft_work(LAPACK_COL_MAJOR, 'F', 'C', n, k, lp(V), ldv, lp(tau), lp(Tm), ldt);
}

// ---- larfb (from the left, forward, columnwise): C = op(H) C with
// H = I - V T V^H, V m x k unit lower trapezoidal (its upper triangle is not
// read), C m x n. LAPACK builds it from TRMMs and GEMMs on the whole block.
template <typename T>
void larfb_left(Op op, int64_t m, int64_t n, int64_t k, const T* V, int64_t ldv, const T* Tm, int64_t ldt, T* C,
                int64_t ldc) {
  using namespace qr_detail;
  if (m == 0 || n == 0 || k == 0) return;
  const char tr = trans_letter<T>(op);
  T* work = util::thread_scratch<T>(static_cast<std::size_t>(n * k));  // no page faults per task
  const lapack_int ldw = static_cast<lapack_int>(n);
  if constexpr (is_s<T>)
    LAPACKE_slarfb_work(LAPACK_COL_MAJOR, 'L', tr, 'F', 'C', m, n, k, V, ldv, Tm, ldt, C, ldc, work, ldw);
  else if constexpr (is_d<T>)
    LAPACKE_dlarfb_work(LAPACK_COL_MAJOR, 'L', tr, 'F', 'C', m, n, k, V, ldv, Tm, ldt, C, ldc, work, ldw);
  else if constexpr (is_c<T>)
    LAPACKE_clarfb_work(LAPACK_COL_MAJOR, 'L', tr, 'F', 'C', m, n, k, lp(V), ldv, lp(Tm), ldt, lp(C), ldc,
                        lp(work), ldw);
  else
    LAPACKE_zlarfb_work(LAPACK_COL_MAJOR, 'L', tr, 'F', 'C', m, n, k, lp(V), ldv, lp(Tm), ldt, lp(C), ldc,
                        lp(work), ldw);
}

// ---- ungqr (orgqr for real types): the first n columns of H(1)...H(k), m >= n >= k.
template <typename T> int64_t ungqr(int64_t m, int64_t n, int64_t k, T* A, int64_t lda, const T* tau) {
  using namespace qr_detail;
  auto call = [&](T* work, lapack_int lwork) -> lapack_int {
    if constexpr (is_s<T>) return LAPACKE_sorgqr_work(LAPACK_COL_MAJOR, m, n, k, A, lda, tau, work, lwork);
    else if constexpr (is_d<T>) return LAPACKE_dorgqr_work(LAPACK_COL_MAJOR, m, n, k, A, lda, tau, work, lwork);
    else if constexpr (is_c<T>)
      return LAPACKE_cungqr_work(LAPACK_COL_MAJOR, m, n, k, lp(A), lda, lp(tau), lp(work), lwork);
    else return LAPACKE_zungqr_work(LAPACK_COL_MAJOR, m, n, k, lp(A), lda, lp(tau), lp(work), lwork);
  };
  T q{};
  call(&q, -1);
  std::vector<T> work(static_cast<std::size_t>(query_size(q)));
  return call(work.data(), static_cast<lapack_int>(work.size()));
}

// ---- trmm: B = alpha op(A) B (Left) or alpha B op(A) (Right), A triangular.
template <typename T>
void trmm(Side s, Uplo u, Op t, Diag d, int64_t m, int64_t n, T alpha, const T* A, int64_t lda, T* B,
          int64_t ldb) {
  using namespace qr_detail;
  const auto S = cblas_side(s);
  const auto U = cblas_uplo(u);
  const auto O = cblas_op(t);
  const auto D = cblas_diag(d);
  if constexpr (is_s<T>) cblas_strmm(CblasColMajor, S, U, O, D, m, n, alpha, A, lda, B, ldb);
  else if constexpr (is_d<T>) cblas_dtrmm(CblasColMajor, S, U, O, D, m, n, alpha, A, lda, B, ldb);
  else if constexpr (is_c<T>) cblas_ctrmm(CblasColMajor, S, U, O, D, m, n, &alpha, A, lda, B, ldb);
  else cblas_ztrmm(CblasColMajor, S, U, O, D, m, n, &alpha, A, lda, B, ldb);
}

// ---- lascl: A = A * (cto / cfrom) without over/underflow (general matrix).
template <typename T> int64_t lascl(real_t<T> cfrom, real_t<T> cto, int64_t m, int64_t n, T* A, int64_t lda) {
  using namespace qr_detail;
  if constexpr (is_s<T>) return LAPACKE_slascl_work(LAPACK_COL_MAJOR, 'G', 0, 0, cfrom, cto, m, n, A, lda);
  else if constexpr (is_d<T>) return LAPACKE_dlascl_work(LAPACK_COL_MAJOR, 'G', 0, 0, cfrom, cto, m, n, A, lda);
  else if constexpr (is_c<T>)
    return LAPACKE_clascl_work(LAPACK_COL_MAJOR, 'G', 0, 0, cfrom, cto, m, n, lp(A), lda);
  else return LAPACKE_zlascl_work(LAPACK_COL_MAJOR, 'G', 0, 0, cfrom, cto, m, n, lp(A), lda);
}

/// Safe minimum over precision (LAPACK's SMLNUM = lamch('S') / lamch('P')).
template <typename T> real_t<T> small_number() {
  if constexpr (std::is_same_v<real_t<T>, float>) return LAPACKE_slamch('S') / LAPACKE_slamch('P');
  else return LAPACKE_dlamch('S') / LAPACKE_dlamch('P');
}

// ---- Reference LAPACK drivers (vendor baselines and test oracles).

/// ormqr / unmqr: C = op(Q) C or C op(Q), Q from geqrf (k reflectors).
template <typename T>
int64_t unmqr(Side side, Op op, int64_t m, int64_t n, int64_t k, const T* A, int64_t lda, const T* tau, T* C,
              int64_t ldc) {
  using namespace qr_detail;
  const char s = static_cast<char>(side), t = trans_letter<T>(op);
  auto call = [&](T* work, lapack_int lwork) -> lapack_int {
    if constexpr (is_s<T>)
      return LAPACKE_sormqr_work(LAPACK_COL_MAJOR, s, t, m, n, k, A, lda, tau, C, ldc, work, lwork);
    else if constexpr (is_d<T>)
      return LAPACKE_dormqr_work(LAPACK_COL_MAJOR, s, t, m, n, k, A, lda, tau, C, ldc, work, lwork);
    else if constexpr (is_c<T>)
      return LAPACKE_cunmqr_work(LAPACK_COL_MAJOR, s, t, m, n, k, lp(A), lda, lp(tau), lp(C), ldc, lp(work),
                                 lwork);
    else
      return LAPACKE_zunmqr_work(LAPACK_COL_MAJOR, s, t, m, n, k, lp(A), lda, lp(tau), lp(C), ldc, lp(work),
                                 lwork);
  };
  T q{};
  call(&q, -1);
  std::vector<T> work(static_cast<std::size_t>(query_size(q)));
  return call(work.data(), static_cast<lapack_int>(work.size()));
}

/// gelqf: A = L Q (LAPACK storage).
template <typename T> int64_t gelqf(int64_t m, int64_t n, T* A, int64_t lda, T* tau) {
  using namespace qr_detail;
  auto call = [&](T* work, lapack_int lwork) -> lapack_int {
    if constexpr (is_s<T>) return LAPACKE_sgelqf_work(LAPACK_COL_MAJOR, m, n, A, lda, tau, work, lwork);
    else if constexpr (is_d<T>) return LAPACKE_dgelqf_work(LAPACK_COL_MAJOR, m, n, A, lda, tau, work, lwork);
    else if constexpr (is_c<T>) return LAPACKE_cgelqf_work(LAPACK_COL_MAJOR, m, n, lp(A), lda, lp(tau), lp(work), lwork);
    else return LAPACKE_zgelqf_work(LAPACK_COL_MAJOR, m, n, lp(A), lda, lp(tau), lp(work), lwork);
  };
  T q{};
  call(&q, -1);
  std::vector<T> work(static_cast<std::size_t>(query_size(q)));
  return call(work.data(), static_cast<lapack_int>(work.size()));
}

/// gels: least squares / minimum norm solution of op(A) X = B; returns info.
template <typename T>
int64_t gels(Op op, int64_t m, int64_t n, int64_t nrhs, T* A, int64_t lda, T* B, int64_t ldb) {
  using namespace qr_detail;
  const char t = trans_letter<T>(op);
  auto call = [&](T* work, lapack_int lwork) -> lapack_int {
    if constexpr (is_s<T>) return LAPACKE_sgels_work(LAPACK_COL_MAJOR, t, m, n, nrhs, A, lda, B, ldb, work, lwork);
    else if constexpr (is_d<T>)
      return LAPACKE_dgels_work(LAPACK_COL_MAJOR, t, m, n, nrhs, A, lda, B, ldb, work, lwork);
    else if constexpr (is_c<T>)
      return LAPACKE_cgels_work(LAPACK_COL_MAJOR, t, m, n, nrhs, lp(A), lda, lp(B), ldb, lp(work), lwork);
    else return LAPACKE_zgels_work(LAPACK_COL_MAJOR, t, m, n, nrhs, lp(A), lda, lp(B), ldb, lp(work), lwork);
  };
  T q{};
  call(&q, -1);
  std::vector<T> work(static_cast<std::size_t>(query_size(q)));
  return call(work.data(), static_cast<lapack_int>(work.size()));
}

}  // namespace hetla::blas
