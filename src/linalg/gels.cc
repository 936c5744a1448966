// Least squares and minimum norm solutions of op(A) X = B (LAPACK gels).
// F = A (m >= n) or F = A^H (m < n) is factored F = Q R (p x q, p >= q), so
// op(A) is either F or F^H:
//   op(A) = F   (overdetermined): X = R^-1 (Q^H B)(1:q)          least squares
//   op(A) = F^H (underdetermined): X = Q [R^-H B(1:q); 0]        minimum norm
// (for m < n this is LAPACK's LQ route: A = L Q with L = R^H; A receives the
// LQ factorization in gelqf's storage). As in LAPACK, A and B are first scaled
// into [smlnum, bignum] when their largest entry lies outside, and a zero on
// the diagonal of R stops the solve with info = its position.
#include <vector>

#include "hetla/qr.hpp"
#include "linalg/qr_internal.hpp"
#include "context/context.hpp"
#include "util/check_args.hpp"
#include "util/precision.hpp"

namespace hetla {

namespace {

/// max |a_ij| over the rows [0, rows) of A (NaN if one is NaN).
template <typename T> real_t<T> max_abs(rt::Runtime& rt, const Matrix<T>& A, int64_t rows) {
  std::vector<real_t<T>> part(static_cast<std::size_t>(A.mt() * A.nt()), 0);
  for (int64_t j = 0; j < A.nt(); ++j)
    for (int64_t i = 0; i < A.mt(); ++i) {
      auto t = tile::row_range(A, i, j, 0, rows);
      if (t.t.mb > 0) tile::max_abs(rt, t, &part[i + j * A.mt()], {});
    }
  rt.wait_all();
  real_t<T> mx = 0;
  for (real_t<T> v : part)
    if (v > mx || std::isnan(v)) mx = v;
  return mx;
}

/// Rows [0, rows) of A times cto / cfrom.
template <typename T>
void scale(rt::Runtime& rt, const Matrix<T>& A, int64_t rows, real_t<T> cfrom, real_t<T> cto) {
  for (int64_t j = 0; j < A.nt(); ++j)
    for (int64_t i = 0; i < A.mt(); ++i) {
      auto t = tile::row_range(A, i, j, 0, rows);
      if (t.t.mb > 0) tile::lascl(rt, cfrom, cto, t, {});
    }
}

}  // namespace

namespace detail {

/// Rows [r0, r1) of A set to zero.
template <typename T> void gels_zero_rows(rt::Runtime& rt, const Matrix<T>& A, int64_t r0, int64_t r1) {
  for (int64_t j = 0; j < A.nt(); ++j)
    for (int64_t i = 0; i < A.mt(); ++i) {
      auto t = tile::row_range(A, i, j, r0, r1);
      if (t.t.mb > 0) tile::fill(rt, T(0), t, {});
    }
}

/// B(0:q, :) = op(R)^-1 B(0:q, :), R the leading q x q upper triangle of F.
template <typename T> void gels_trsm(rt::Runtime& rt, Op op, const Matrix<T>& F, int64_t q, const Matrix<T>& B) {
  int64_t qt = 0;  // tile rows (and columns) of F holding R's q rows
  while (qt < F.mt() && F.row_offset(qt) < q) ++qt;
  auto len = [&](int64_t i) { return std::min(F.tile_mb(i), q - F.row_offset(i)); };
  auto r = [&](int64_t i, int64_t j) { return tile::lead(tile::ref(F, i, j), len(i), len(j)); };
  auto b = [&](int64_t i, int64_t c) { return tile::row_range(B, i, c, 0, q); };
  const bool forward = op != Op::NoTrans;  // R^H is lower triangular
  for (int64_t s = 0; s < qt; ++s) {
    const int64_t k = forward ? s : qt - 1 - s;
    const int pr = static_cast<int>(2 * (qt - s));
    for (int64_t c = 0; c < B.nt(); ++c) {
      tile::trsm(rt, Side::Left, Uplo::Upper, op, Diag::NonUnit, T(1), r(k, k), b(k, c), {pr + 1});
      for (int64_t t = s + 1; t < qt; ++t) {
        const int64_t i = forward ? t : qt - 1 - t;
        tile::gemm(rt, op, Op::NoTrans, T(-1), op == Op::NoTrans ? r(i, k) : r(k, i), b(k, c), T(1), b(i, c), {pr});
      }
    }
  }
}

template <typename T>
void gels_factor_tasks(rt::Runtime& rt, Op trans, const Matrix<T>& A, const tile::Reflectors<T>& R, T* tau,
                       const Matrix<T>& B, tile::LarfbWork<T>& work_f, tile::LarfbWork<T>& work_b, Distribution dist) {
  const Matrix<T>& F = R.A();
  const int64_t m = A.m(), n = A.n();
  if (m < n)  // F = A^H
    for (int64_t j = 0; j < A.nt(); ++j)
      for (int64_t i = 0; i < A.mt(); ++i) tile::conj_transpose(rt, tile::ref(A, i, j), tile::ref(F, j, i), {});
  distribute_qr(rt, F, &work_f, dist);
  distribute_qr(rt, B, &work_b, dist);
  geqrf_tasks(rt, R, tau, work_f);
  if (gels_least_squares(trans, m, n)) unmqr_tasks(rt, Side::Left, Op::ConjTrans, R, B, work_b);  // B = Q^H B
  if (m < n)  // A = L Q in gelqf's storage: L = R^H, the reflectors conjugated
    for (int64_t j = 0; j < F.nt(); ++j)
      for (int64_t i = 0; i < F.mt(); ++i) tile::conj_transpose(rt, tile::ref(F, i, j), tile::ref(A, j, i), {});
}

template <typename T>
void gels_solve_tasks(rt::Runtime& rt, Op trans, int64_t m, int64_t n, const tile::Reflectors<T>& R,
                      const Matrix<T>& B, tile::LarfbWork<T>& work_b) {
  const Matrix<T>& F = R.A();
  const int64_t p = std::max(m, n), q = std::min(m, n);
  if (gels_least_squares(trans, m, n)) {
    gels_trsm(rt, Op::NoTrans, F, q, B);  // X = R^-1 B(1:q)
  } else {
    gels_trsm(rt, Op::ConjTrans, F, q, B);  // B(1:q) = R^-H B(1:q)
    gels_zero_rows(rt, B, q, p);
    unmqr_tasks(rt, Side::Left, Op::NoTrans, R, B, work_b);  // X = Q B
  }
}

}  // namespace detail

template <typename T> int64_t gels(Op trans, Matrix<T>& A, Matrix<T>& B, const Options& opts) {
  const auto name = detail::routine_name<T>("gels");
  detail::check_qr_trans<T>(trans, 1, name);
  const int64_t m = A.m(), n = A.n(), nrhs = B.n();
  const int64_t p = std::max(m, n), q = std::min(m, n);
  detail::require(B.m() == p && detail::same_tiling(A, B), 7, name, "B must have max(m, n) rows, cut as A's");

  detail::CallScope scope;
  rt::Runtime& rt = scope.rt();
  if (q == 0 || nrhs == 0) {  // LAPACK: X = 0
    detail::gels_zero_rows(rt, B, 0, p);
    rt.wait_all();
    return 0;
  }

  // Scale A and B into [smlnum, bignum] if needed; a zero A gives X = 0.
  using R_t = real_t<T>;
  const R_t smlnum = tile::small_number<T>(), bignum = R_t(1) / smlnum;
  const R_t anrm = max_abs(rt, A, m);
  int iascl = 0, ibscl = 0;
  if (anrm > 0 && anrm < smlnum) {
    scale(rt, A, m, anrm, smlnum);
    iascl = 1;
  } else if (anrm > bignum) {
    scale(rt, A, m, anrm, bignum);
    iascl = 2;
  } else if (anrm == 0) {
    detail::gels_zero_rows(rt, B, 0, p);
    rt.wait_all();
    return 0;
  }
  const int64_t brow = trans == Op::NoTrans ? m : n;
  const R_t bnrm = max_abs(rt, B, brow);
  if (bnrm > 0 && bnrm < smlnum) {
    scale(rt, B, brow, bnrm, smlnum);
    ibscl = 1;
  } else if (bnrm > bignum) {
    scale(rt, B, brow, bnrm, bignum);
    ibscl = 2;
  }

  // F = Q R with F = A or A^H (p x q)
  Matrix<T> F = m >= n ? A : Matrix<T>(n, m, A.tiling());
  std::vector<T> tau(static_cast<std::size_t>(q));
  tile::Reflectors<T> R(F, q);
  auto work_f = tile::LarfbWork<T>::left(F);
  auto work_b = tile::LarfbWork<T>::left(B);
  detail::gels_factor_tasks(rt, trans, A, R, tau.data(), B, work_f, work_b, opts.distribution);
  rt.wait_all();

  for (int64_t i = 0; i < q; ++i)  // LAPACK trtrs: R(i, i) == 0 -> A not of full rank
    if (F.at(i, i) == T(0)) return i + 1;

  detail::gels_solve_tasks(rt, trans, m, n, R, B, work_b);
  const int64_t scllen = detail::gels_least_squares(trans, m, n) ? q : p;
  if (iascl == 1) scale(rt, B, scllen, anrm, smlnum);
  if (iascl == 2) scale(rt, B, scllen, anrm, bignum);
  if (ibscl == 1) scale(rt, B, scllen, smlnum, bnrm);
  if (ibscl == 2) scale(rt, B, scllen, bignum, bnrm);
  rt.wait_all();
  return 0;
}

template <typename T>
int64_t gels(Op trans, int64_t m, int64_t n, int64_t nrhs, T* A, int64_t lda, T* B, int64_t ldb,
             const Options& opts) {
  const auto name = detail::routine_name<T>("gels");
  detail::check_qr_trans<T>(trans, 1, name);
  detail::require(m >= 0, 2, name, "m < 0");
  detail::require(n >= 0, 3, name, "n < 0");
  detail::require(nrhs >= 0, 4, name, "nrhs < 0");
  detail::check_ld(lda, m, 6, name, "lda");
  detail::check_ld(ldb, std::max(m, n), 8, name, "ldb");
  detail::require(A != nullptr || m == 0 || n == 0, 5, name, "A is null");
  detail::require(B != nullptr || nrhs == 0 || std::max(m, n) == 0, 7, name, "B is null");
  const int64_t nb = opts.nb > 0 ? opts.nb : default_tile_size<T>(m, n, Panels::QR);
  detail::CallScope scope;  // the hybrid tiling follows this context's devices
  const Tiling tiling = detail::call_tiling(scope.rt(), opts.distribution, std::min(m, n), nb, Panels::QR);
  auto Am = Matrix<T>::view(m, n, A, lda, tiling);
  auto Bm = Matrix<T>::view(std::max(m, n), nrhs, B, ldb, tiling);
  return gels(trans, Am, Bm, opts);
}

#define HETLA_INSTANTIATE(T)                                                                                   \
  template void detail::gels_factor_tasks<T>(rt::Runtime&, Op, const Matrix<T>&, const tile::Reflectors<T>&, T*,   \
                                             const Matrix<T>&, tile::LarfbWork<T>&, tile::LarfbWork<T>&,           \
                                             Distribution);                                                        \
  template void detail::gels_solve_tasks<T>(rt::Runtime&, Op, int64_t, int64_t, const tile::Reflectors<T>&,        \
                                            const Matrix<T>&, tile::LarfbWork<T>&);                                \
  template void detail::gels_zero_rows<T>(rt::Runtime&, const Matrix<T>&, int64_t, int64_t);                       \
  template int64_t gels<T>(Op, Matrix<T>&, Matrix<T>&, const Options&); \
  template int64_t gels<T>(Op, int64_t, int64_t, int64_t, T*, int64_t, T*, int64_t, const Options&);
HETLA_FOR_EACH_PRECISION(HETLA_INSTANTIATE)
#undef HETLA_INSTANTIATE

}  // namespace hetla
