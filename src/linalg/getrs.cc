// Solves with the LU factors of getrf, and gesv = getrf + getrs.
//   op = N:   A = P^T L U, so  X = U^-1 L^-1 (P B).
//   op = T/C: A^H = U^H L^H P, so X = P^T L^-H U^-H B.
// The interchanges on B are one task per tile column of B.
#include <algorithm>

#include "hetla/lu.hpp"
#include "memory/distribution.hpp"
#include "context/context.hpp"
#include "tasks/inline_call.hpp"
#include "tasks/lu.hpp"
#include "util/check_args.hpp"
#include "util/precision.hpp"

namespace hetla {

namespace {
void check_trans(Op op, int arg, const std::string& name) {
  detail::require(op == Op::NoTrans || op == Op::Trans || op == Op::ConjTrans, arg, name,
                  "trans must be NoTrans, Trans or ConjTrans");
}

template <typename T> void swap_rows(rt::Runtime& rt, Matrix<T>& B, const int64_t* ipiv, bool forward) {
  for (int64_t j = 0; j < B.nt(); ++j) tile::laswp(rt, B, j, ipiv, 0, B.m(), forward, {}, 0);
}

template <typename T>
void getrs_tiles(Op trans, const Matrix<T>& A, const int64_t* ipiv, Matrix<T>& B, const Options& opts) {
  if (A.n() == 0 || B.n() == 0) return;
  detail::CallScope scope;  // the swaps and both sweeps form one task graph
  rt::Runtime& rt = scope.rt();
  if (trans == Op::NoTrans) {
    swap_rows(rt, B, ipiv, true);
    trsm_left(Uplo::Lower, Op::NoTrans, Diag::Unit, T(1), A, B, opts);
    trsm_left(Uplo::Upper, Op::NoTrans, Diag::NonUnit, T(1), A, B, opts);
  } else {
    trsm_left(Uplo::Upper, trans, Diag::NonUnit, T(1), A, B, opts);
    trsm_left(Uplo::Lower, trans, Diag::Unit, T(1), A, B, opts);
    swap_rows(rt, B, ipiv, false);
  }
  rt.wait_all();
}
}  // namespace

template <typename T>
void getrs(Op trans, const Matrix<T>& A, const std::vector<int64_t>& ipiv, Matrix<T>& B, const Options& opts) {
  const auto name = detail::routine_name<T>("getrs");
  check_trans(trans, 1, name);
  detail::require(A.m() == A.n(), 4, name, "A must be square");
  detail::require(static_cast<int64_t>(ipiv.size()) >= A.n(), 6, name, "ipiv must hold n pivots");
  detail::require(B.m() == A.n() && detail::same_tiling(A, B), 7, name, "B must have n rows and A's tiling");
  getrs_tiles(trans, A, ipiv.data(), B, opts);
}

template <typename T>
void getrs(Op trans, int64_t n, int64_t nrhs, const T* A, int64_t lda, const int64_t* ipiv, T* B, int64_t ldb,
           const Options& opts) {
  const auto name = detail::routine_name<T>("getrs");
  check_trans(trans, 1, name);
  detail::require(n >= 0, 2, name, "n < 0");
  detail::require(nrhs >= 0, 3, name, "nrhs < 0");
  detail::check_ld(lda, n, 5, name, "lda");
  detail::check_ld(ldb, n, 8, name, "ldb");
  if (n == 0 || nrhs == 0) return;
  detail::require(A != nullptr, 4, name, "A is null");
  detail::require(ipiv != nullptr, 6, name, "ipiv is null");
  detail::require(B != nullptr, 7, name, "B is null");
  if (tile::runs_inline<T>(tune::Routine::Getrs, opts, double(n) * n * nrhs, std::max({n, nrhs, lda, ldb})))
    return tile::inline_getrs(trans, n, nrhs, A, lda, ipiv, B, ldb);
  const int64_t nb = opts.nb > 0 ? opts.nb : default_tile_size<T>(n, Panels::LU);
  detail::CallScope scope;  // the hybrid tiling follows this context's devices (as getrf's)
  const Tiling tiling = detail::call_tiling(scope.rt(), opts.distribution, n, nb, Panels::LU);
  // The factor is only read; the view API takes a mutable pointer.
  auto Am = Matrix<T>::view(n, n, const_cast<T*>(A), lda, tiling);
  auto Bm = Matrix<T>::view(n, nrhs, B, ldb, tiling);
  getrs_tiles(trans, Am, ipiv, Bm, opts);
}

template <typename T> int64_t gesv(Matrix<T>& A, std::vector<int64_t>& ipiv, Matrix<T>& B, const Options& opts) {
  const auto name = detail::routine_name<T>("gesv");
  detail::require(A.m() == A.n(), 3, name, "A must be square");
  detail::require(B.m() == A.n() && detail::same_tiling(A, B), 6, name, "B must have n rows and A's tiling");
  int64_t info = getrf(A, ipiv, opts);
  if (info == 0) getrs_tiles(Op::NoTrans, A, ipiv.data(), B, opts);
  return info;
}

template <typename T>
int64_t gesv(int64_t n, int64_t nrhs, T* A, int64_t lda, int64_t* ipiv, T* B, int64_t ldb, const Options& opts) {
  const auto name = detail::routine_name<T>("gesv");
  detail::require(n >= 0, 1, name, "n < 0");
  detail::require(nrhs >= 0, 2, name, "nrhs < 0");
  detail::check_ld(lda, n, 4, name, "lda");
  detail::check_ld(ldb, n, 7, name, "ldb");
  if (n == 0) return 0;
  detail::require(A != nullptr, 3, name, "A is null");
  detail::require(ipiv != nullptr, 5, name, "ipiv is null");
  detail::require(B != nullptr || nrhs == 0, 6, name, "B is null");
  Options o = opts;
  if (o.nb <= 0) o.nb = default_tile_size<T>(n, Panels::LU);
  int64_t info = getrf(n, n, A, lda, ipiv, o);
  if (info == 0) getrs(Op::NoTrans, n, nrhs, A, lda, ipiv, B, ldb, o);
  return info;
}

#define HETLA_INSTANTIATE(T)                                                                              \
  template void getrs<T>(Op, const Matrix<T>&, const std::vector<int64_t>&, Matrix<T>&, const Options&);  \
  template void getrs<T>(Op, int64_t, int64_t, const T*, int64_t, const int64_t*, T*, int64_t, const Options&); \
  template int64_t gesv<T>(Matrix<T>&, std::vector<int64_t>&, Matrix<T>&, const Options&);                \
  template int64_t gesv<T>(int64_t, int64_t, T*, int64_t, int64_t*, T*, int64_t, const Options&);
HETLA_FOR_EACH_PRECISION(HETLA_INSTANTIATE)
#undef HETLA_INSTANTIATE

}  // namespace hetla
