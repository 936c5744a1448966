// Applies Q or Q^H from a QR factorization (LAPACK ormqr / unmqr): for each
// panel, T is rebuilt from V and tau (larft, as LAPACK does), then the block
// reflectors are applied panel after panel as GEMM tasks on the tiles of C.
//   Q^H C, C Q: panels first to last.   Q C, C Q^H: last to first.
#include "hetla/qr.hpp"
#include "linalg/qr_internal.hpp"
#include "context/context.hpp"
#include "util/check_args.hpp"
#include "util/precision.hpp"

namespace hetla {

namespace detail {

template <typename T> void larft_tasks(rt::Runtime& rt, const tile::Reflectors<T>& R, const T* tau) {
  const int pr = static_cast<int>(R.panels() + 1);  // above every update
  for (int64_t p = 0; p < R.panels(); ++p)
    tile::larft_panel(rt, R.panel(p), R.width(p), tau + R.first(p), R.t_tile(p), R.vd_tile(p), {pr});
}

template <typename T>
void unmqr_tasks(rt::Runtime& rt, Side side, Op op, const tile::Reflectors<T>& R, const Matrix<T>& C,
                 tile::LarfbWork<T>& work) {
  const int64_t np = R.panels();
  const bool forward = (side == Side::Left) == (op != Op::NoTrans);
  for (int64_t s = 0; s < np; ++s) {
    const int64_t p = forward ? s : np - 1 - s;
    const int pr = static_cast<int>(np - s);  // earlier panels first
    auto prio = [pr](int64_t) { return pr; };
    if (side == Side::Left)
      tile::larfb_left(rt, R, p, op, C, 0, C.nt(), work, s, prio);   // C = op(H_p) C
    else
      tile::larfb_right(rt, R, p, op, C, 0, C.mt(), work, s, prio);  // C = C op(H_p)
  }
}

}  // namespace detail

template <typename T>
void unmqr(Side side, Op trans, int64_t k, const Matrix<T>& A, const T* tau, Matrix<T>& C, const Options& opts) {
  const auto name = detail::routine_name<T>("unmqr");
  detail::require(side == Side::Left || side == Side::Right, 1, name, "side must be Left or Right");
  detail::check_qr_trans<T>(trans, 2, name);
  const int64_t nq = side == Side::Left ? C.m() : C.n();
  detail::require(k >= 0 && k <= nq, 5, name, "k must be in [0, rows of Q]");
  detail::require(A.m() == nq && A.n() >= k, 6, name, "A must have the rows of Q and at least k columns");
  detail::require(tau != nullptr || k == 0, 8, name, "tau is null");
  detail::require(detail::same_tiling(A, C), 9, name, "C must be cut in tiles as A");
  if (C.m() == 0 || C.n() == 0 || k == 0) return;

  detail::CallScope scope;
  rt::Runtime& rt = scope.rt();
  tile::Reflectors<T> R(A, k);
  auto work = side == Side::Left ? tile::LarfbWork<T>::left(C) : tile::LarfbWork<T>::right(C);
  detail::distribute_qr(rt, C, side == Side::Left ? &work : nullptr, opts.distribution);
  detail::larft_tasks(rt, R, tau);
  detail::unmqr_tasks(rt, side, trans, R, C, work);
  rt.wait_all();
}

template <typename T>
void unmqr(Side side, Op trans, int64_t m, int64_t n, int64_t k, const T* A, int64_t lda, const T* tau, T* C,
           int64_t ldc, const Options& opts) {
  const auto name = detail::routine_name<T>("unmqr");
  detail::require(side == Side::Left || side == Side::Right, 1, name, "side must be Left or Right");
  detail::check_qr_trans<T>(trans, 2, name);
  detail::require(m >= 0, 3, name, "m < 0");
  detail::require(n >= 0, 4, name, "n < 0");
  const int64_t nq = side == Side::Left ? m : n;
  detail::require(k >= 0 && k <= nq, 5, name, "k must be in [0, m] (Left) or [0, n] (Right)");
  detail::check_ld(lda, nq, 7, name, "lda");
  detail::check_ld(ldc, m, 10, name, "ldc");
  if (m == 0 || n == 0 || k == 0) return;
  detail::require(A != nullptr, 6, name, "A is null");
  detail::require(tau != nullptr, 8, name, "tau is null");
  detail::require(C != nullptr, 9, name, "C is null");
  const int64_t nb = opts.nb > 0 ? opts.nb : default_tile_size<T>(nq, Panels::QR);
  detail::CallScope scope;  // the hybrid tiling follows this context's devices
  const Tiling tiling = detail::call_tiling(scope.rt(), opts.distribution, nq, nb, Panels::QR);
  // The reflectors are only read; the view API takes a mutable pointer.
  auto Am = Matrix<T>::view(nq, k, const_cast<T*>(A), lda, tiling);
  auto Cm = Matrix<T>::view(m, n, C, ldc, tiling);
  unmqr(side, trans, k, Am, tau, Cm, opts);
}

#define HETLA_INSTANTIATE(T)                                                                             \
  template void detail::larft_tasks<T>(rt::Runtime&, const tile::Reflectors<T>&, const T*);              \
  template void detail::unmqr_tasks<T>(rt::Runtime&, Side, Op, const tile::Reflectors<T>&, const Matrix<T>&, \
                                       tile::LarfbWork<T>&);                                             \
  template void unmqr<T>(Side, Op, int64_t, const Matrix<T>&, const T*, Matrix<T>&, const Options&);     \
  template void unmqr<T>(Side, Op, int64_t, int64_t, int64_t, const T*, int64_t, const T*, T*, int64_t,     \
                         const Options&);
HETLA_FOR_EACH_PRECISION(HETLA_INSTANTIATE)
#undef HETLA_INSTANTIATE

}  // namespace hetla
