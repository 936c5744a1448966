// Right-looking tile Cholesky (seed 000 Algorithm 5; seed 004 §3): a serial
// loop of tile tasks. Panel tasks carry the highest priority of their column,
// and priorities fall with the column index, so the next panel is factored as
// soon as its inputs are ready: lookahead comes from the dependences.
#include <algorithm>
#include <type_traits>

#include "context/context.hpp"
#include "hetla/linalg.hpp"
#include "memory/distribution.hpp"
#include "memory/triangle_scope.hpp"
#include "linalg/tile_schedule.hpp"
#include "tasks/blas3.hpp"
#include "tasks/cholesky.hpp"
#include "tasks/inline_call.hpp"
#include "tasks/priority.hpp"
#include "util/check_args.hpp"
#include "util/precision.hpp"

namespace hetla {

namespace {
/// Tile columns a trailing update (Lower) gives one GEMM, `left` columns
/// after the panel: in single precision two while 8 or more are left (one
/// core: a 7680 x 768 x 384 sgemm 4-18 % faster than 7680 x 384 x 384;
/// spotrf n = 8000 +1 to +11 %, 8 alternated pairs, 0.92-0.94 of the vendor
/// -> 0.96-1.00, 6000 +2 %); double gained 1-2 % at n = 8000 and lost 5-7 %
/// at 4000 (two tile columns a GEMM at every step), complex 8000 -2..+3 %.
template <typename T> int64_t update_width(int64_t left) { return std::is_same_v<T, float> && left >= 8 ? 2 : 1; }
}  // namespace

template <typename T> int64_t potrf(Uplo uplo, Matrix<T>& A, const Options& options) {
  const auto name = detail::routine_name<T>("potrf");
  detail::check_uplo(uplo, 1, name);
  detail::require(A.m() == A.n(), 2, name, "matrix must be square");
  if (A.n() == 0) return 0;

  detail::CallScope scope;
  rt::Runtime& rt = scope.rt();
  const int64_t nt = A.nt();
  // The host factors and solves every panel (the TRSMs: 1.5 nb / n of the
  // flops); tile column j (row, for Upper) takes j updates of nt - j tiles.
  const detail::PanelCost panels = detail::panel_cost(Panels::Cholesky);
  detail::Workload load{detail::panel_share(A.n(), A.nb(), panels.flops, panels.slowdown), [nt, uplo](int64_t j) {
                          return static_cast<double>(uplo == Uplo::Lower ? j * (nt - j) : j * j / 2);
                        }};
  detail::distribute(rt, A, options.distribution, load);
  const detail::TriangleScope<T> diagonal(A, uplo);  // devices may use the other triangle as scratch
  const real_t<T> one = 1;
  tile::Status status;
  auto a = [&](int64_t i, int64_t j) { return tile::ref(A, i, j); };
  auto opts = [&](int64_t k, int64_t col, bool panel) {
    return tile::Opts{tile::prio(nt, col, panel), k, &status, panel};
  };

  if (uplo == Uplo::Lower) {
    for (int64_t k = 0; k < nt; ++k) {
      tile::potrf(rt, Uplo::Lower, a(k, k), A.row_offset(k), opts(k, k, true));
      for (int64_t i = k + 1; i < nt; ++i)
        tile::trsm(rt, Side::Right, Uplo::Lower, Op::ConjTrans, Diag::NonUnit, T(1), a(k, k), a(i, k),
                   opts(k, k, true));
      // the next panel's column alone, then blocks of update_width columns
      for (int64_t j1 = k + 1; j1 < nt;) {
        const int64_t j2 = std::min(nt - 1, j1 == k + 1 ? j1 : j1 + update_width<T>(nt - k - 1) - 1);
        for (int64_t j = j1; j <= j2; ++j) {
          tile::herk(rt, Uplo::Lower, Op::NoTrans, -one, a(j, k), one, a(j, j), opts(k, j, false));
          for (int64_t i = j + 1; i <= j2; ++i)
            tile::gemm(rt, Op::NoTrans, Op::ConjTrans, T(-1), a(i, k), a(j, k), T(1), a(i, j), opts(k, j, false));
        }
        // A(i, j) -= A(i, k) A(j, k)^H for i > j2
        if (j2 == j1 || !tile::gemm_columns(rt, T(-1), A, j2 + 1, k, j1, j2, T(1), opts(k, j1, false)))
          for (int64_t j = j1; j <= j2; ++j)
            tile::gemm_column(rt, Op::ConjTrans, T(-1), A, j2 + 1, k, a(j, k), T(1), j, opts(k, j, false));
        j1 = j2 + 1;
      }
    }
  } else {
    for (int64_t k = 0; k < nt; ++k) {
      tile::potrf(rt, Uplo::Upper, a(k, k), A.row_offset(k), opts(k, k, true));
      for (int64_t j = k + 1; j < nt; ++j)
        tile::trsm(rt, Side::Left, Uplo::Upper, Op::ConjTrans, Diag::NonUnit, T(1), a(k, k), a(k, j),
                   opts(k, k, true));
      // the next panel's row tile by tile, the rows below it a column at a time
      for (int64_t j = k + 1; j < nt; ++j) {
        tile::herk(rt, Uplo::Upper, Op::ConjTrans, -one, a(k, j), one, a(j, j), opts(k, j, false));
        if (j > k + 1)
          tile::gemm(rt, Op::ConjTrans, Op::NoTrans, T(-1), a(k, k + 1), a(k, j), T(1), a(k + 1, j),
                     opts(k, k + 1, false));
        // A(i, j) -= A(k, i)^H A(k, j) for k + 1 < i < j
        tile::gemm_column_from_row(rt, T(-1), A, k, k + 2, j - 1, a(k, j), T(1), j, opts(k, j, false));
      }
    }
  }
  rt.wait_all();
  return status.info.load();
}

template <typename T> int64_t potrf(Uplo uplo, int64_t n, T* A, int64_t lda, const Options& opts) {
  const auto name = detail::routine_name<T>("potrf");
  detail::check_uplo(uplo, 1, name);
  detail::require(n >= 0, 2, name, "n < 0");
  detail::check_ld(lda, n, 4, name, "lda");
  if (n == 0) return 0;
  detail::require(A != nullptr, 3, name, "A is null");
  if (tile::runs_inline<T>(tune::Routine::Potrf, opts, double(n) * n * n, std::max(n, lda)))
    return tile::inline_potrf(uplo, n, A, lda);
  detail::CallScope scope;  // the hybrid tiling follows this context's devices
  auto M = Matrix<T>::view(n, n, A, lda, detail::factor_tiling<T>(scope.rt(), opts, n, n, Panels::Cholesky));
  return potrf(uplo, M, opts);
}

#define HETLA_INSTANTIATE(T)                                   \
  template int64_t potrf<T>(Uplo, Matrix<T>&, const Options&);                 \
  template int64_t potrf<T>(Uplo, int64_t, T*, int64_t, const Options&);
HETLA_FOR_EACH_PRECISION(HETLA_INSTANTIATE)
#undef HETLA_INSTANTIATE

}  // namespace hetla
