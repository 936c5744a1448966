// Tile triangular solves. Left: B = alpha op(A)^-1 B, a sweep over tile rows
// of B, forward (op(A) lower: Lower/NoTrans, Upper/[Conj]Trans) or backward;
// each step solves one tile row and updates the rows still to be solved with
// GEMMs. Right: B = alpha B op(A)^-1, the same over tile columns (forward
// when op(A) is upper triangular). The first step applies alpha to the rows
// (columns) it updates, so every tile is scaled exactly once. With the host
// cores alone on column-major data, B is instead cut into one slice of
// independent columns (rows) per worker, each one BLAS trsm.
#include <algorithm>

#include "hetla/blas3.hpp"
#include "hetla/linalg.hpp"
#include "memory/distribution.hpp"
#include "memory/tile_block.hpp"
#include "context/context.hpp"
#include "tasks/blas3.hpp"
#include "util/check_args.hpp"
#include "util/precision.hpp"

namespace hetla {

namespace {

template <typename T>
void trsm_tiles(rt::Runtime& rt, Side side, Uplo uplo, Op op, Diag diag, T alpha, const Matrix<T>& A, Matrix<T>& B) {
  const bool left = side == Side::Left;
  const int64_t st = A.mt();  // steps: tiles of the triangular dimension
  const int64_t other = left ? B.nt() : B.mt();
  // op(A) lower: left solves top-down; right solves right-to-left (and vice versa)
  const bool lower_op = (uplo == Uplo::Lower) == (op == Op::NoTrans);
  const bool forward = left ? lower_op : !lower_op;
  // op(A)(i, k) as the stored tile (op applied by the kernel)
  auto opa = [&](int64_t i, int64_t k) { return op == Op::NoTrans ? tile::ref(A, i, k) : tile::ref(A, k, i); };
  auto b = [&](int64_t t, int64_t o) { return left ? tile::ref(B, t, o) : tile::ref(B, o, t); };
  if (alpha == T(0)) {  // BLAS: B = 0, A not referenced
    for (int64_t j = 0; j < B.nt(); ++j)
      for (int64_t i = 0; i < B.mt(); ++i) tile::scale(rt, T(0), tile::ref(B, i, j), {});
    return;
  }
  for (int64_t s = 0; s < st; ++s) {
    const int64_t k = forward ? s : st - 1 - s;
    const T beta = s == 0 ? alpha : T(1);  // rows/columns not reached yet still need alpha
    const int pr = static_cast<int>(2 * (st - s));
    for (int64_t o = 0; o < other; ++o) {
      tile::trsm(rt, side, uplo, op, diag, beta, tile::ref(A, k, k), b(k, o), {pr + 1, s});
      for (int64_t t = s + 1; t < st; ++t) {
        const int64_t i = forward ? t : st - 1 - t;
        if (left)  // B(i) = beta B(i) - op(A)(i, k) B(k)
          tile::gemm(rt, op, Op::NoTrans, T(-1), opa(i, k), b(k, o), beta, b(i, o), {t == s + 1 ? pr : pr - 1, s});
        else  // B(:, i) = beta B(:, i) - B(:, k) op(A)(k, i)
          tile::gemm(rt, Op::NoTrans, op, T(-1), b(k, o), opa(k, i), beta, b(i, o), {t == s + 1 ? pr : pr - 1, s});
      }
    }
  }
}

/// Host cores only, column-major A and B: the columns (Left) or rows (Right)
/// of B are independent solves, so one BLAS trsm per host worker on a slice
/// of B loses nothing to the split (no tile GEMM updates, A packed once per
/// slice). Returns false (nothing inserted) when this does not apply or B is
/// too narrow to give every worker a slice worth a task.
template <typename T> bool trsm_host_slices(rt::Runtime& rt, Side side, Uplo uplo, Op op, Diag diag, T alpha,
                                            const Matrix<T>& A, Matrix<T>& B) {
  if (rt.num_devices() != 1 || alpha == T(0)) return false;
  const int64_t workers = rt.num_host_workers(), na = A.m();
  const int64_t len = side == Side::Left ? B.n() : B.m();  // the independent dimension
  const double flops =
      tile::flop_scale<T>() * static_cast<double>(na) * static_cast<double>(na) * static_cast<double>(len);
  if (len < 32 * workers || flops < 2e6 * static_cast<double>(workers)) return false;
  const auto a = detail::as_block(A, 0, A.mt() - 1, 0, A.nt() - 1);
  const auto b = detail::as_block(B, 0, B.mt() - 1, 0, B.nt() - 1);
  if (!a || !b) return false;
  const Tile<T> At = *a, Bt = *b;
  for (int64_t w = 0; w < workers; ++w) {
    const int64_t lo = len * w / workers, hi = len * (w + 1) / workers;
    const bool left = side == Side::Left;
    T* bp = left ? Bt.data + lo * Bt.ld : Bt.data + lo;
    const int64_t m = left ? Bt.mb : hi - lo, n = left ? hi - lo : Bt.nb;
    // no accesses: within this call only this task touches its slice of B, A is only read
    tile::trsm_slice(rt, side, uplo, op, diag, m, n, alpha, At.data, At.ld, bp, Bt.ld);
  }
  return true;
}

void check_trsm_enums(Side side, Uplo uplo, Op op, Diag diag, const std::string& name) {
  detail::require(side == Side::Left || side == Side::Right, 1, name, "side must be Left or Right");
  detail::check_uplo(uplo, 2, name);
  detail::require(op == Op::NoTrans || op == Op::Trans || op == Op::ConjTrans, 3, name, "invalid transa");
  detail::require(diag == Diag::Unit || diag == Diag::NonUnit, 4, name, "diag must be Unit or NonUnit");
}

}  // namespace

template <typename T>
void trsm_left(Uplo uplo, Op op, Diag diag, T alpha, const Matrix<T>& A, Matrix<T>& B, const Options& options) {
  const auto name = detail::routine_name<T>("trsm");
  detail::check_uplo(uplo, 2, name);
  detail::require(A.m() == A.n(), 6, name, "A must be square");
  detail::require(A.m() == B.m() && detail::same_tiling(A, B), 7, name, "B rows / tiling must match A");
  if (B.m() == 0 || B.n() == 0) return;

  detail::CallScope scope;
  rt::Runtime& rt = scope.rt();
  if (!trsm_host_slices(rt, Side::Left, uplo, op, diag, alpha, A, B)) {
    detail::distribute(rt, B, options.distribution);
    trsm_tiles(rt, Side::Left, uplo, op, diag, alpha, A, B);
  }
  rt.wait_all();
}

template <typename T>
void trsm(Side side, Uplo uplo, Op op, Diag diag, T alpha, const Matrix<T>& A, Matrix<T>& B, const Options& options) {
  const auto name = detail::routine_name<T>("trsm");
  check_trsm_enums(side, uplo, op, diag, name);
  detail::require(A.m() == A.n(), 8, name, "A must be square");
  detail::require((side == Side::Left ? B.m() : B.n()) == A.m(), 10, name, "B does not match A");
  detail::require(detail::same_tiling(A, B), 10, name, "A and B must share the tiling");
  if (B.m() == 0 || B.n() == 0) return;

  detail::CallScope scope;
  rt::Runtime& rt = scope.rt();
  if (!trsm_host_slices(rt, side, uplo, op, diag, alpha, A, B)) {
    detail::distribute(rt, B, options.distribution);
    trsm_tiles(rt, side, uplo, op, diag, alpha, A, B);
  }
  rt.wait_all();
}

template <typename T> void trsm(Side side, Uplo uplo, Op op, Diag diag, int64_t m, int64_t n, T alpha, const T* A,
                                int64_t lda, T* B, int64_t ldb, const Options& opts) {
  const auto name = detail::routine_name<T>("trsm");
  check_trsm_enums(side, uplo, op, diag, name);
  detail::require(m >= 0, 5, name, "m < 0");
  detail::require(n >= 0, 6, name, "n < 0");
  const int64_t na = side == Side::Left ? m : n;
  detail::check_ld(lda, na, 9, name, "lda");
  detail::check_ld(ldb, m, 11, name, "ldb");
  if (m == 0 || n == 0) return;
  detail::require(A || alpha == T(0), 8, name, "A is null");
  detail::require(B != nullptr, 10, name, "B is null");
  const int64_t nb = opts.nb > 0 ? opts.nb : default_tile_size<T>(std::max(m, n));
  // A is only read; the view API takes a mutable pointer.
  T unused{};  // A may be null when alpha == 0 (not referenced: B is set to zero)
  detail::CallScope scope;  // the hybrid tiling follows this context's devices
  const Tiling tiling = detail::call_tiling(scope.rt(), opts.distribution, na, nb);
  auto Am = Matrix<T>::view(na, na, A ? const_cast<T*>(A) : &unused, lda, tiling);
  auto Bm = Matrix<T>::view(m, n, B, ldb, tiling);
  trsm(side, uplo, op, diag, alpha, Am, Bm, opts);
}

#define HETLA_INSTANTIATE(T)                                                                    \
  template void trsm_left<T>(Uplo, Op, Diag, T, const Matrix<T>&, Matrix<T>&, const Options&);  \
  template void trsm<T>(Side, Uplo, Op, Diag, T, const Matrix<T>&, Matrix<T>&, const Options&); \
  template void trsm<T>(Side, Uplo, Op, Diag, int64_t, int64_t, T, const T*, int64_t, T*, int64_t, const Options&);
HETLA_FOR_EACH_PRECISION(HETLA_INSTANTIATE)
#undef HETLA_INSTANTIATE

}  // namespace hetla
