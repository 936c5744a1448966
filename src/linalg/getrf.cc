// Right-looking tile LU with partial pivoting (seed 001 §IV-A). Step k:
//   1. the panel (tile column k, rows k nb..m) is factored by one CPU task,
//      P_k A(k:, k) = L U;
//   2. its row interchanges are applied to every tile column on its right;
//   3. the U row is solved, U(k, j) = L(k, k)^-1 A(k, j) (TRSM);
//   4. the trailing matrix is updated, A(i, j) -= L(i, k) U(k, j) (GEMM).
// Priorities fall with the column index and a panel sits above the updates
// of its column, so the next panel is factored as soon as its column is
// updated: lookahead comes from the dependences. The update is inserted by
// blocks of tile columns that widen away from the panel (1, 1, 2, 4, 8, 8,
// ...): the columns the next panels wait for stay fine-grained, the far ones
// make large GEMMs (a 256^3 tile GEMM runs ~20% slower than a 4000 x 2048 x
// 256 one on the host BLAS). The interchanges of later panels only permute
// the rows of L on the left: they are applied once per tile column at the end
// (one pass over each column instead of one per step), as LAPACK does.
// With accelerators, 2-4 run where the runtime places them (owner-computes
// under a distribution): an accelerator with a laswp kernel keeps its
// trailing columns in its memory across steps; only the panel column comes
// back to the host. Tiles may differ in size (a hybrid tiling, seed 004
// §3.4): rows and pivots are counted by tile offsets, never as k nb.
#include <algorithm>
#include <span>

#include "context/context.hpp"
#include "hetla/lu.hpp"
#include "linalg/tile_schedule.hpp"
#include "memory/distribution.hpp"
#include "tasks/inline_call.hpp"
#include "tasks/lu.hpp"
#include "tasks/priority.hpp"
#include "util/check_args.hpp"
#include "util/precision.hpp"

namespace hetla {

namespace {
/// Width (in tile columns) of the update block that starts d columns after
/// the next panel's column.
int64_t update_width(int64_t d) {
  constexpr int64_t kMaxWidth = 8;
  return std::clamp<int64_t>(d, 1, kMaxWidth);
}

template <typename T> int64_t getrf_tiles(Matrix<T>& A, int64_t* ipiv, const Options& options) {
  if (A.m() == 0 || A.n() == 0) return 0;
  detail::CallScope scope;
  rt::Runtime& rt = scope.rt();
  detail::distribute(rt, A, options.distribution, detail::panel_workload(A, Panels::LU));
  const int64_t m = A.m(), mt = A.mt(), nt = A.nt(), kt = std::min(mt, nt);
  tile::Status status;
  std::vector<rt::Handle> piv(static_cast<std::size_t>(kt));  // written by panel k: its pivots are known
  auto a = [&](int64_t i, int64_t j) { return tile::ref(A, i, j); };
  auto opts = [&](int64_t k, int64_t j) { return tile::Opts{tile::prio(nt, j, false), k, nullptr}; };
  auto pivot_end = [&](int64_t k) { return A.row_offset(k) + std::min(m - A.row_offset(k), A.tile_nb(k)); };

  for (int64_t k = 0; k < kt; ++k) {
    std::span<rt::Handle> pk(&piv[static_cast<std::size_t>(k)], 1);
    tile::getrf_panel(rt, A, k, ipiv, &pk[0], &status, tile::prio(nt, k, true));
    const int64_t k1 = A.row_offset(k), k2 = pivot_end(k);  // the rows whose interchanges panel k chose
    for (int64_t j = k + 1; j < nt; ++j) {
      tile::laswp(rt, A, j, ipiv, k1, k2, true, pk, tile::prio(nt, j, false));
      tile::trsm(rt, Side::Left, Uplo::Lower, Op::NoTrans, Diag::Unit, T(1), a(k, k), a(k, j), opts(k, j));
    }
    for (int64_t j1 = k + 1; j1 < nt; j1 += update_width(j1 - k - 1))
      tile::gemm_block(rt, A, k, k + 1, j1, std::min(nt, j1 + update_width(j1 - k - 1)) - 1, opts(k, j1));
  }
  // L(:, j) takes the interchanges of every later panel, on the host: the
  // panel task wrote L there (devices only read it), so nothing moves.
  for (int64_t j = 0; j + 1 < kt; ++j)
    tile::laswp(rt, A, j, ipiv, A.row_offset(j + 1), pivot_end(kt - 1), true,
                std::span<rt::Handle>(piv).subspan(static_cast<std::size_t>(j + 1)), 0, /*on_host=*/true);
  rt.wait_all();
  return status.info.load();
}
}  // namespace

template <typename T> int64_t getrf(Matrix<T>& A, std::vector<int64_t>& ipiv, const Options& opts) {
  ipiv.assign(static_cast<std::size_t>(std::min(A.m(), A.n())), 0);
  return getrf_tiles(A, ipiv.data(), opts);
}

template <typename T> int64_t getrf(int64_t m, int64_t n, T* A, int64_t lda, int64_t* ipiv, const Options& opts) {
  const auto name = detail::routine_name<T>("getrf");
  detail::require(m >= 0, 1, name, "m < 0");
  detail::require(n >= 0, 2, name, "n < 0");
  detail::check_ld(lda, m, 4, name, "lda");
  if (m == 0 || n == 0) return 0;
  detail::require(A != nullptr, 3, name, "A is null");
  detail::require(ipiv != nullptr, 5, name, "ipiv is null");
  if (tile::runs_inline<T>(tune::Routine::Getrf, opts, double(m) * n * std::min(m, n), std::max({m, n, lda})))
    return tile::inline_getrf(m, n, A, lda, ipiv);
  detail::CallScope scope;  // the tiling is planned for this context's devices
  auto M = Matrix<T>::view(m, n, A, lda, detail::factor_tiling<T>(scope.rt(), opts, m, n, Panels::LU));
  return getrf_tiles(M, ipiv, opts);
}

#define HETLA_INSTANTIATE(T)                                                    \
  template int64_t getrf<T>(Matrix<T>&, std::vector<int64_t>&, const Options&); \
  template int64_t getrf<T>(int64_t, int64_t, T*, int64_t, int64_t*, const Options&);
HETLA_FOR_EACH_PRECISION(HETLA_INSTANTIATE)
#undef HETLA_INSTANTIATE

}  // namespace hetla
