// Forms the first n columns of Q = H_1 ... H_k in place (LAPACK orgqr /
// ungqr, blocked): tile columns are processed last to first; at tile column p
// the block reflector H_p is applied to the columns on its right (already
// holding their part of Q), then the panel's own columns are formed from its
// reflectors (host ungqr on the panel) and the tiles above it set to zero.
// Tile columns without reflectors (k < n) start as columns of the identity.
#include "hetla/qr.hpp"
#include "linalg/qr_internal.hpp"
#include "context/context.hpp"
#include "tasks/inline_call.hpp"
#include "util/check_args.hpp"
#include "util/precision.hpp"

namespace hetla {

template <typename T> void ungqr(int64_t k, Matrix<T>& A, const T* tau, const Options& opts) {
  const auto name = detail::routine_name<T>("ungqr");
  detail::require(A.n() <= A.m(), 2, name, "n > m");
  detail::require(k >= 0 && k <= A.n(), 3, name, "k must be in [0, n]");
  detail::require(tau != nullptr || k == 0, 6, name, "tau is null");
  if (A.n() == 0) return;

  detail::CallScope scope;
  rt::Runtime& rt = scope.rt();
  const int64_t nt = A.nt();
  tile::Reflectors<T> R(A, k);
  auto work = tile::LarfbWork<T>::left(A);
  detail::distribute_qr(rt, A, &work, opts.distribution);
  detail::larft_tasks(rt, R, tau);  // T_p, Vd_p before the panels are overwritten
  for (int64_t p = nt - 1; p >= 0; --p) {
    const int64_t kp = p < R.panels() ? R.width(p) : 0;
    const int pr = static_cast<int>(2 * p);  // earlier steps (higher p) first
    // A(p.., p+1..) = H_p A(p.., p+1..)
    if (kp > 0) tile::larfb_left(rt, R, p, Op::NoTrans, A, p + 1, nt, work, p, [pr](int64_t) { return pr; });
    // A(p.., p) = first columns of H_p;  A(0..p-1, p) = 0
    tile::ungqr_panel(rt, R.panel(p), kp, kp > 0 ? tau + R.first(p) : tau, {pr + 1});
    for (int64_t r = 0; r < p; ++r) tile::fill(rt, T(0), tile::ref(A, r, p), {pr});
  }
  rt.wait_all();
}

template <typename T>
void ungqr(int64_t m, int64_t n, int64_t k, T* A, int64_t lda, const T* tau, const Options& opts) {
  const auto name = detail::routine_name<T>("ungqr");
  detail::require(m >= 0, 1, name, "m < 0");
  detail::require(n >= 0 && n <= m, 2, name, "n must be in [0, m]");
  detail::require(k >= 0 && k <= n, 3, name, "k must be in [0, n]");
  detail::check_ld(lda, m, 5, name, "lda");
  if (n == 0) return;
  detail::require(A != nullptr, 4, name, "A is null");
  detail::require(tau != nullptr || k == 0, 6, name, "tau is null");
  if (tile::runs_inline<T>(tune::Routine::Ungqr, opts, double(m) * n * k, std::max({m, n, lda})))
    return tile::inline_ungqr(m, n, k, A, lda, tau);
  detail::CallScope scope;  // the hybrid tiling follows this context's devices
  const int64_t nb = opts.nb > 0 ? opts.nb : default_tile_size<T>(n, Panels::QR);
  auto M = Matrix<T>::view(m, n, A, lda, detail::call_tiling(scope.rt(), opts.distribution, n, nb, Panels::QR));
  ungqr(k, M, tau, opts);
}

#define HETLA_INSTANTIATE(T)                                   \
  template void ungqr<T>(int64_t, Matrix<T>&, const T*, const Options&); \
  template void ungqr<T>(int64_t, int64_t, int64_t, T*, int64_t, const T*, const Options&);
HETLA_FOR_EACH_PRECISION(HETLA_INSTANTIATE)
#undef HETLA_INSTANTIATE

}  // namespace hetla
