// Blocked Householder QR (LAPACK geqrf; seed 001 §IV-A) as a serial loop of
// tile tasks: the panel (tile column p from the diagonal down) is factored by
// one host task, then its block reflector is applied to every trailing tile
// column as GEMM tasks (larfb as GEMMs, seed 000 §5.3). The result is in
// LAPACK's storage. Priorities fall with the column index and panels sit
// above the updates of their column, so the next panel is factored as soon as
// its column is updated: lookahead comes from the dependences. Every update
// task (GEMM, and the TRMM by T) has a device kernel, and W's tile column j is
// owned with A's (distribute_qr), so under a distribution a column's whole
// update runs on its owner; only the panels come back to the host.
#include "context/context.hpp"
#include "hetla/qr.hpp"
#include "linalg/qr_internal.hpp"
#include "linalg/tile_schedule.hpp"
#include "tasks/inline_call.hpp"
#include "tasks/priority.hpp"
#include "util/check_args.hpp"
#include "util/precision.hpp"

namespace hetla {

namespace detail {

template <typename T>
void geqrf_tasks(rt::Runtime& rt, const tile::Reflectors<T>& R, T* tau, tile::LarfbWork<T>& work) {
  const Matrix<T>& A = R.A();
  const int64_t nt = A.nt();
  for (int64_t p = 0; p < R.panels(); ++p) {
    // A(p.., p) = V_p R_pp:  Householder QR of the panel
    tile::geqrf_panel(rt, R, p, tau + R.first(p), work, {tile::prio(nt, p, true)});
    // A(p.., p+1..) = H_p^H A(p.., p+1..)
    tile::larfb_left(rt, R, p, Op::ConjTrans, A, p + 1, nt, work, p,
                     [nt](int64_t j) { return tile::prio(nt, j, false); });
  }
}

}  // namespace detail

namespace {
template <typename T> void geqrf_tiles(Matrix<T>& A, T* tau, Distribution dist) {
  const auto name = detail::routine_name<T>("geqrf");
  const int64_t k = std::min(A.m(), A.n());
  detail::require(tau != nullptr || k == 0, 5, name, "tau is null");
  if (k == 0) return;

  detail::CallScope scope;
  rt::Runtime& rt = scope.rt();
  tile::Reflectors<T> R(A, k);
  auto work = tile::LarfbWork<T>::left(A);
  detail::distribute_qr(rt, A, &work, dist, detail::panel_workload(A, Panels::QR));
  detail::geqrf_tasks(rt, R, tau, work);
  rt.wait_all();
}
}  // namespace

template <typename T> void geqrf(Matrix<T>& A, T* tau, const Options& opts) { geqrf_tiles(A, tau, opts.distribution); }

template <typename T> void geqrf(int64_t m, int64_t n, T* A, int64_t lda, T* tau, const Options& opts) {
  const auto name = detail::routine_name<T>("geqrf");
  detail::require(m >= 0, 1, name, "m < 0");
  detail::require(n >= 0, 2, name, "n < 0");
  detail::check_ld(lda, m, 4, name, "lda");
  if (m == 0 || n == 0) return;
  detail::require(A != nullptr, 3, name, "A is null");
  detail::require(tau != nullptr, 5, name, "tau is null");
  if (tile::runs_inline<T>(tune::Routine::Geqrf, opts, double(m) * n * std::min(m, n), std::max({m, n, lda})))
    return tile::inline_geqrf(m, n, A, lda, tau);
  detail::CallScope scope;  // the hybrid tiling follows this context's devices
  auto M = Matrix<T>::view(m, n, A, lda, detail::factor_tiling<T>(scope.rt(), opts, m, n, Panels::QR));
  geqrf_tiles(M, tau, opts.distribution);
}

#define HETLA_INSTANTIATE(T)                                                                          \
  template void detail::geqrf_tasks<T>(rt::Runtime&, const tile::Reflectors<T>&, T*, tile::LarfbWork<T>&); \
  template void geqrf<T>(Matrix<T>&, T*, const Options&);                                            \
  template void geqrf<T>(int64_t, int64_t, T*, int64_t, T*, const Options&);
HETLA_FOR_EACH_PRECISION(HETLA_INSTANTIATE)
#undef HETLA_INSTANTIATE

}  // namespace hetla
