// Cholesky solves: potrs = two triangular sweeps; posv = potrf + potrs.
#include "hetla/linalg.hpp"
#include "memory/distribution.hpp"
#include "context/context.hpp"
#include "tasks/inline_call.hpp"
#include "util/check_args.hpp"
#include "util/precision.hpp"

namespace hetla {

template <typename T> void potrs(Uplo uplo, const Matrix<T>& A, Matrix<T>& B, const Options& opts) {
  const auto name = detail::routine_name<T>("potrs");
  detail::check_uplo(uplo, 1, name);
  detail::require(A.m() == A.n(), 4, name, "A must be square");
  detail::require(B.m() == A.n() && detail::same_tiling(A, B), 6, name, "B must have n rows and A's tiling");
  // A = L L^H: L Y = B, L^H X = Y.   A = U^H U: U^H Y = B, U X = Y.
  const Op first = uplo == Uplo::Lower ? Op::NoTrans : Op::ConjTrans;
  const Op second = uplo == Uplo::Lower ? Op::ConjTrans : Op::NoTrans;
  trsm_left(uplo, first, Diag::NonUnit, T(1), A, B, opts);
  trsm_left(uplo, second, Diag::NonUnit, T(1), A, B, opts);
}

template <typename T>
void potrs(Uplo uplo, int64_t n, int64_t nrhs, const T* A, int64_t lda, T* B, int64_t ldb, const Options& opts) {
  const auto name = detail::routine_name<T>("potrs");
  detail::check_uplo(uplo, 1, name);
  detail::require(n >= 0, 2, name, "n < 0");
  detail::require(nrhs >= 0, 3, name, "nrhs < 0");
  detail::check_ld(lda, n, 5, name, "lda");
  detail::check_ld(ldb, n, 7, name, "ldb");
  if (n == 0 || nrhs == 0) return;
  detail::require(A != nullptr, 4, name, "A is null");
  detail::require(B != nullptr, 6, name, "B is null");
  if (tile::runs_inline<T>(tune::Routine::Potrs, opts, double(n) * n * nrhs, std::max({n, nrhs, lda, ldb})))
    return tile::inline_potrs(uplo, n, nrhs, A, lda, B, ldb);
  const int64_t nb = opts.nb > 0 ? opts.nb : default_tile_size<T>(n);
  detail::CallScope scope;  // the hybrid tiling follows this context's devices (as potrf's)
  const Tiling tiling = detail::call_tiling(scope.rt(), opts.distribution, n, nb);
  // The factor is only read; the view API takes a mutable pointer.
  auto Am = Matrix<T>::view(n, n, const_cast<T*>(A), lda, tiling);
  auto Bm = Matrix<T>::view(n, nrhs, B, ldb, tiling);
  potrs(uplo, Am, Bm, opts);
}

template <typename T> int64_t posv(Uplo uplo, Matrix<T>& A, Matrix<T>& B, const Options& opts) {
  const auto name = detail::routine_name<T>("posv");
  detail::check_uplo(uplo, 1, name);
  detail::require(A.m() == A.n(), 4, name, "A must be square");
  detail::require(B.m() == A.n() && detail::same_tiling(A, B), 6, name, "B must have n rows and A's tiling");
  int64_t info = potrf(uplo, A, opts);
  if (info == 0) potrs(uplo, A, B, opts);
  return info;
}

template <typename T>
int64_t posv(Uplo uplo, int64_t n, int64_t nrhs, T* A, int64_t lda, T* B, int64_t ldb, const Options& opts) {
  const auto name = detail::routine_name<T>("posv");
  detail::check_uplo(uplo, 1, name);
  detail::require(n >= 0, 2, name, "n < 0");
  detail::require(nrhs >= 0, 3, name, "nrhs < 0");
  detail::check_ld(lda, n, 5, name, "lda");
  detail::check_ld(ldb, n, 7, name, "ldb");
  // posv's own positions (potrf and potrs would name themselves and theirs)
  detail::require(A != nullptr || n == 0, 4, name, "A is null");
  detail::require(B != nullptr || n == 0 || nrhs == 0, 6, name, "B is null");
  int64_t info = potrf(uplo, n, A, lda, opts);
  if (info == 0) potrs(uplo, n, nrhs, A, lda, B, ldb, opts);
  return info;
}

#define HETLA_INSTANTIATE(T)                                                                    \
  template void potrs<T>(Uplo, const Matrix<T>&, Matrix<T>&, const Options&);                                   \
  template void potrs<T>(Uplo, int64_t, int64_t, const T*, int64_t, T*, int64_t, const Options&); \
  template int64_t posv<T>(Uplo, Matrix<T>&, Matrix<T>&, const Options&);                                       \
  template int64_t posv<T>(Uplo, int64_t, int64_t, T*, int64_t, T*, int64_t, const Options&);
HETLA_FOR_EACH_PRECISION(HETLA_INSTANTIATE)
#undef HETLA_INSTANTIATE

}  // namespace hetla
