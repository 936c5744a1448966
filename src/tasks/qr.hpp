// Tile tasks of the Householder QR family (seed 001 §IV-A: panel = geqr2 +
// larft, trailing update = larfb; seed 000 §5.3: larfb as GEMMs).
//
// A QR factorization is kept in LAPACK's storage: the reflectors of panel p
// (tile column p) lie below the diagonal of tile rows p.. of that column, with
// a unit diagonal implied. For the updates each panel also gets
//   T_p  the kp x kp upper triangle of its block reflector H_p = I - V T V^H,
//   Vd_p a copy of the diagonal tile's part of V with the unit diagonal and the
//        zeros above it stored explicitly,
// so H_p (or H_p^H) is applied to a tile column of C by plain GEMMs:
//   W = sum_i V_i^H C_i,  W = op(T) W,  C_i -= V_i W        (from the left)
//   W = sum_j C_j V_j,    W = W op(T),  C_j -= W V_j^H      (from the right)
// one task per tile, the W reduction as a chain of GEMMs on one W tile.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "kernels/host/lapack_qr.hpp"
#include "memory/tile_block.hpp"
#include "tasks/blas3.hpp"
#include "tasks/qr_tall.hpp"
#include "tasks/qr_workspace.hpp"
#include "tasks/shared_panel.hpp"
#include "tasks/tile.hpp"
#include "util/pages.hpp"

namespace hetla::tile {

namespace qr {

/// Tiles of one panel (a tile column from some tile row down) seen as a single
/// column-major block: in place when the tiles lie one below the other (a view
/// of a column-major array), else gathered into a copy and scattered back.
template <typename T> class PanelBlock {
 public:
  PanelBlock(const std::vector<Tile<T>>& tiles, int64_t cols) : tiles_(tiles), cols_(cols) {
    bool contiguous = true;
    for (std::size_t t = 0; t < tiles_.size(); ++t) {
      rows_ += tiles_[t].mb;
      if (t > 0)
        contiguous = contiguous && tiles_[t].ld == tiles_[0].ld &&
                     tiles_[t].data == tiles_[t - 1].data + tiles_[t - 1].mb;
    }
    // Tiles of one column stored one after the other (tile storage, nb = 1)
    // also follow each other, but with ld = mb: as a block the rows would
    // pass its leading dimension, which LAPACK rejects (zgels 153 x 216 at
    // nb 8: zgeqr2's lda error, the last panel left unfactored).
    if (contiguous && tiles_[0].ld >= rows_) {
      data_ = tiles_[0].data;
      ld_ = tiles_[0].ld;
    } else {
      gathered_ = true;
      data_ = util::thread_scratch<T>(static_cast<std::size_t>(rows_ * cols_), util::ScratchSlot::Panel);
      ld_ = std::max<int64_t>(1, rows_);
      int64_t r0 = 0;
      for (const auto& t : tiles_) {
        for (int64_t c = 0; c < cols_; ++c) std::copy_n(t.data + c * t.ld, t.mb, data_ + r0 + c * ld_);
        r0 += t.mb;
      }
    }
  }
  /// Writes a gathered copy back to the tiles (no-op when in place).
  void store() const {
    if (!gathered_) return;
    int64_t r0 = 0;
    for (const auto& t : tiles_) {
      for (int64_t c = 0; c < cols_; ++c) std::copy_n(data_ + r0 + c * ld_, t.mb, t.data + c * t.ld);
      r0 += t.mb;
    }
  }
  T* data() const { return data_; }
  int64_t ld() const { return ld_; }
  int64_t rows() const { return rows_; }
  T& operator()(int64_t r, int64_t c) const { return data_[r + c * ld_]; }

 private:
  std::vector<Tile<T>> tiles_;
  int64_t cols_ = 0, rows_ = 0;
  T* data_ = nullptr;
  int64_t ld_ = 1;
  bool gathered_ = false;  // data_ is this thread's ScratchSlot::Panel
};

/// Vd = the top rows x k block of V: unit diagonal, zeros above, V below.
template <typename T> void store_unit_lower(const PanelBlock<T>& V, int64_t k, Tile<T> Vd) {
  for (int64_t c = 0; c < k; ++c)
    for (int64_t r = 0; r < Vd.mb; ++r) Vd(r, c) = r < c ? T(0) : r == c ? T(1) : V(r, c);
}

template <typename T>
std::vector<rt::Access> accesses(const std::vector<Ref<T>>& tiles, rt::Mode mode,
                                 std::initializer_list<rt::Access> extra) {
  std::vector<rt::Access> acc;
  acc.reserve(tiles.size() + extra.size());
  for (const auto& r : tiles) acc.push_back({r.h, mode});
  acc.insert(acc.end(), extra.begin(), extra.end());
  return acc;
}

/// The first tiles.size() tiles of a task as its body sees them
/// (c.ptrs): the caller's, or under a distribution over processes the
/// copies of other processes' tiles (whose own data is null here).
template <typename T> std::vector<Tile<T>> task_tiles(std::vector<Tile<T>> tiles, rt::TaskContext& c) {
  for (std::size_t t = 0; t < tiles.size(); ++t) {
    tiles[t].data = c.ptr<T>(static_cast<int>(t));
    tiles[t].ld = c.ld(static_cast<int>(t));
  }
  return tiles;
}

template <typename T> Tile<T> task_tile(Tile<T> t, rt::TaskContext& c, std::size_t a) {
  t.data = c.ptr<T>(static_cast<int>(a));
  t.ld = c.ld(static_cast<int>(a));
  return t;
}

template <typename T> std::vector<Tile<T>> tiles_of(const std::vector<Ref<T>>& refs) {
  std::vector<Tile<T>> t;
  t.reserve(refs.size());
  for (const auto& r : refs) t.push_back(r.t);
  return t;
}

}  // namespace qr

/// Householder QR of a panel (the tiles of one tile column, top to bottom):
/// V and R overwrite it in LAPACK's storage, tau[0, kp) receives the scalar
/// factors (kp = min(rows, cols)), Tt the kp x kp triangle T and Vd the
/// diagonal tile's part of V (see above). A recursive QR (geqrt_recursive)
/// builds T while it factors; a panel wider than tall (the last one of a wide
/// matrix) uses geqrf + larft.
template <typename T> void geqrf_panel(rt::Runtime& rt, std::vector<Ref<T>> panel, T* tau, Ref<T> Tt, Ref<T> Vd,
                                       Opts o) {
  auto acc = qr::accesses(panel, rt::Mode::ReadWrite, {rt::W(Tt.h), rt::W(Vd.h)});
  double rows = 0;
  for (const auto& r : panel) rows += static_cast<double>(r.t.mb);
  const double cols = static_cast<double>(panel[0].t.nb), lo = std::min(rows, cols), hi = std::max(rows, cols);
  // LAPACK geqrf's count (the T it builds on the way is not counted); the
  // simulation times the panel by it
  const double flops = flop_scale<T>() * 2 * lo * lo * (hi - lo / 3);
  rt.insert(
      [panel_tiles = qr::tiles_of(panel), tau, tt0 = Tt.t, vd0 = Vd.t](rt::TaskContext& c) {
        const auto tiles = qr::task_tiles(panel_tiles, c);
        const Tile<T> tt = qr::task_tile(tt0, c, tiles.size()), vd = qr::task_tile(vd0, c, tiles.size() + 1);
        qr::PanelBlock<T> P(tiles, tiles[0].nb);
        const int64_t m = P.rows(), n = tiles[0].nb, k = std::min(m, n);
        const int64_t info = m >= n ? blas::geqrt_recursive(m, n, P.data(), P.ld(), tt.data, tt.ld)
                                    : blas::geqrf(m, n, P.data(), P.ld(), tau);
        throw_if_rejected(info, "geqrf panel");
        if (m >= n)
          for (int64_t i = 0; i < k; ++i) tau[i] = tt(i, i);
        else
          blas::larft(m, k, P.data(), P.ld(), tau, tt.data, tt.ld);
        qr::store_unit_lower(P, k, Tile<T>{vd.data, vd.ld, tiles[0].mb, k});
        P.store();
      },
      acc.data(), acc.size(), {o.priority, "geqrf_panel", rt::kHostOnly, dev::KernelId::None, flops});
}

/// Panel p of R's matrix: in row blocks when it is tall (geqrf_panel_rows),
/// else as one task.
template <typename T>
void geqrf_panel(rt::Runtime& rt, const Reflectors<T>& R, int64_t p, T* tau, const LarfbWork<T>& work, Opts o) {
  if (!geqrf_panel_rows(rt, R, p, tau, work, o)) geqrf_panel(rt, R.panel(p), tau, R.t_tile(p), R.vd_tile(p), o);
}

/// T and Vd of the first kp reflectors stored in a panel (larft), for
/// applying a factorization computed earlier (tau[0, kp) its scalars).
template <typename T>
void larft_panel(rt::Runtime& rt, std::vector<Ref<T>> panel, int64_t kp, const T* tau, Ref<T> Tt, Ref<T> Vd,
                 Opts o) {
  auto acc = qr::accesses(panel, rt::Mode::Read, {rt::W(Tt.h), rt::W(Vd.h)});
  rt.insert(
      [panel_tiles = qr::tiles_of(panel), kp, tau, tt0 = Tt.t, vd0 = Vd.t](rt::TaskContext& c) {
        const auto tiles = qr::task_tiles(panel_tiles, c);
        const Tile<T> tt = qr::task_tile(tt0, c, tiles.size()), vd = qr::task_tile(vd0, c, tiles.size() + 1);
        qr::PanelBlock<T> P(tiles, kp);  // read only: a gathered copy is not stored back
        blas::larft(P.rows(), kp, P.data(), P.ld(), tau, tt.data, tt.ld);
        qr::store_unit_lower(P, kp, Tile<T>{vd.data, vd.ld, tiles[0].mb, kp});
      },
      acc.data(), acc.size(), {o.priority, "larft_panel", rt::kHostOnly});
}

/// Overwrites a panel (rows x cols, holding kp reflectors with scalars
/// tau[0, kp)) with the first cols columns of H_1 ... H_kp (LAPACK ungqr).
template <typename T> void ungqr_panel(rt::Runtime& rt, std::vector<Ref<T>> panel, int64_t kp, const T* tau, Opts o) {
  auto acc = qr::accesses(panel, rt::Mode::ReadWrite, {});
  rt.insert(
      [tiles = qr::tiles_of(panel), kp, tau](rt::TaskContext&) {
        qr::PanelBlock<T> P(tiles, tiles[0].nb);
        blas::ungqr(P.rows(), tiles[0].nb, kp, P.data(), P.ld(), tau);
        P.store();
      },
      acc.data(), acc.size(), {o.priority, "ungqr_panel", rt::kHostOnly});
}

/// B = alpha op(A) B (Left) or alpha B op(A) (Right), A triangular: the
/// device's trmm kernel, so the W tile of a block-reflector update stays on
/// the device that computes its GEMMs.
template <typename T>
void trmm(rt::Runtime& rt, Side side, Uplo uplo, Op op, Diag diag, T alpha, Ref<T> A, Ref<T> B, Opts o) {
  const int64_t m = B.t.mb, n = B.t.nb;
  rt.insert(
      [=](rt::TaskContext& c) {
        if (o.skipped()) return;
        c.kernels<T>().trmm(side, uplo, op, diag, m, n, alpha, c.ptr<T>(0), c.ld(0), c.ptr<T>(1), c.ld(1));
      },
      {rt::R(A.h), rt::RW(B.h)},
      {o.priority, "trmm", fp64_flag<T>(), dev::KernelId::Trmm,
       flop_scale<T>() * m * n * static_cast<double>(side == Side::Left ? m : n)});
}

/// A = value everywhere (A may be a part of a tile).
template <typename T> void fill(rt::Runtime& rt, T value, Ref<T> A, Opts o) {
  rt.insert(
      [=](rt::TaskContext&) {
        for (int64_t c = 0; c < A.t.nb; ++c) std::fill_n(A.t.data + c * A.t.ld, A.t.mb, value);
      },
      {rt::RW(A.h)}, {o.priority, "fill", rt::kMemoryBound});
}

/// B = A^H (B is A.nb x A.mb; whole tiles). The tiles as the task sees them
/// (c.ptr): under a distribution over processes A may be a copy of another
/// process's tile (distributed gels, m < n).
template <typename T> void conj_transpose(rt::Runtime& rt, Ref<T> A, Ref<T> B, Opts o) {
  rt.insert(
      [=](rt::TaskContext& c) {
        const Tile<T> a = qr::task_tile(A.t, c, 0), b = qr::task_tile(B.t, c, 1);
        for (int64_t j = 0; j < a.nb; ++j)
          for (int64_t r = 0; r < a.mb; ++r) b(j, r) = conj(a(r, j));
      },
      {rt::R(A.h), rt::W(B.h)}, {o.priority, "conj_transpose", rt::kMemoryBound});
}

/// *result = max |a_ij| over A (NaN if A holds one, as LAPACK's lange('M')).
template <typename T> void max_abs(rt::Runtime& rt, Ref<T> A, real_t<T>* result, Opts o) {
  rt.insert(
      [=](rt::TaskContext&) {
        real_t<T> mx = 0;
        for (int64_t c = 0; c < A.t.nb; ++c)
          for (int64_t r = 0; r < A.t.mb; ++r) {
            const real_t<T> v = std::abs(A.t(r, c));
            if (v > mx || std::isnan(v)) mx = v;
            if (std::isnan(mx)) break;
          }
        *result = mx;
      },
      {rt::R(A.h)}, {o.priority, "max_abs", rt::kMemoryBound});
}

/// A = A * (cto / cfrom), computed without over/underflow (LAPACK lascl).
template <typename T> void lascl(rt::Runtime& rt, real_t<T> cfrom, real_t<T> cto, Ref<T> A, Opts o) {
  rt.insert([=](rt::TaskContext&) { blas::lascl(cfrom, cto, A.t.mb, A.t.nb, A.t.data, A.t.ld); },
            {rt::RW(A.h)}, {o.priority, "lascl", rt::kMemoryBound});
}

/// Safe minimum over precision, LAPACK's SMLNUM (gels scales A and B into
/// [SMLNUM, 1 / SMLNUM] with lascl tasks).
template <typename T> real_t<T> small_number() { return blas::small_number<T>(); }

/// The update below on the host alone, when V and C lie as column-major
/// blocks (views of the user's arrays): one task per block of tile columns,
/// each a LAPACK larfb, so the GEMMs inside span the whole column height and
/// the kernel packs V once per block instead of once per tile. Blocks widen
/// away from j0 (1, 1, 2, 4, 8, 8, ... tile columns), as in LU: the next
/// panel's column stays fine-grained, far columns make large GEMMs. Returns
/// false (nothing inserted) when this does not apply.
template <typename T, typename Prio>
bool larfb_left_blocks(rt::Runtime& rt, const Reflectors<T>& R, int64_t p, Op op, const Matrix<T>& C, int64_t j0,
                       int64_t j1, Prio& prio) {
  const Matrix<T>& A = R.A();
  const int64_t mt = C.mt(), kp = R.width(p);
  if (rt.num_devices() != 1 || j0 >= j1 || C.nb() < 128) return false;
  // Distributed over processes: every process must insert the same tasks,
  // and as_block sees only this process's tiles (null elsewhere).
  if (A.handle(p, p)->rank >= 0 || C.handle(p, j0)->rank >= 0) return false;
  const auto V = hetla::detail::as_block(A, p, mt - 1, p, p);
  if (!V || !hetla::detail::as_block(C, p, mt - 1, j0, j1 - 1)) return false;
  const Tile<T> Tt = R.t(p).t;
  for (int64_t ja = j0; ja < j1;) {
    const int64_t jb = std::min(j1, ja + std::clamp<int64_t>(ja - j0, 1, 8));
    const Tile<T> Cb = *hetla::detail::as_block(C, p, mt - 1, ja, jb - 1);
    std::vector<rt::Access> acc;
    for (int64_t i = p; i < mt; ++i) acc.push_back(rt::R(A.handle(i, p)));
    acc.push_back(rt::R(R.t(p).h));
    for (int64_t j = ja; j < jb; ++j)
      for (int64_t i = p; i < mt; ++i) acc.push_back(rt::RW(C.handle(i, j)));
    const double flops = 4.0 * flop_scale<T>() * static_cast<double>(Cb.mb) * Cb.nb * kp;
    rt.insert(
        [=, v = *V](rt::TaskContext&) {  // host memory: views of the user's arrays
          blas::larfb_left(op, Cb.mb, Cb.nb, kp, v.data, v.ld, Tt.data, Tt.ld, Cb.data, Cb.ld);
        },
        acc.data(), acc.size(), {prio(ja), "larfb", rt::kHostOnly, dev::KernelId::None, flops});
    ja = jb;
  }
  return true;
}

/// The update below for tiles spread over processes (host cores only), for
/// each tile column j whose tiles C(p.., j) one process holds (a process grid
/// with one process row): one larfb task on that process. Its tiles lie one
/// below the other in its local array (mpi::DistMatrix); V, received from the
/// panel's process as separate tiles, is packed into one block once per step
/// and process (detail::SharedPanel; packed by every task, dgeqrf n = 8000,
/// nb 320, on 1 x 2 processes ran 120-123 GFLOP/s against 126-129 in 3
/// alternated pairs). Per tile it was 2 (mt - p) + 1 small
/// GEMM/TRMM tasks per column (dgeqrf n = 8000 on 1 x 2 processes: 0.77x of
/// ScaLAPACK). The columns several processes share (V^H C summed over them)
/// go to `rest`, for the per-tile tasks.
template <typename T, typename Prio>
void larfb_left_by_owner(rt::Runtime& rt, const Reflectors<T>& R, int64_t p, Op op, const Matrix<T>& C, int64_t j0,
                         int64_t j1, Prio& prio, std::vector<int64_t>& rest) {
  const Matrix<T>& A = R.A();
  const int64_t mt = C.mt(), kp = R.width(p);
  std::vector<int64_t> mb;
  int64_t height = 0;
  for (int64_t i = p; i < mt; ++i) mb.push_back(C.tile_mb(i)), height += C.tile_mb(i);
  const int g = static_cast<int>(mt - p);
  for (int64_t j = j0; j < j1; ++j) {
    bool one = rt.num_devices() == 1 && C.handle(p, j)->rank >= 0 && g > 1;
    for (int64_t i = p + 1; i < mt && one; ++i) one = C.handle(i, j)->rank == C.handle(p, j)->rank;
    if (!one) {
      rest.push_back(j);
      continue;
    }
    std::vector<rt::Access> acc;
    for (int64_t i = p; i < mt; ++i) acc.push_back(rt::R(A.handle(i, p)));
    acc.push_back(rt::R(R.t(p).h));
    for (int64_t i = p; i < mt; ++i) acc.push_back(rt::RW(C.handle(i, j)));
    const int64_t n = C.tile_nb(j);
    std::shared_ptr<detail::SharedPanel<T>> panel = detail::shared_panel<T>(A.handle(p, p), C.handle(p, j)->rank);
    rt.insert(
        [=](rt::TaskContext& c) {
          thread_local std::vector<T> vpack, cpack;
          bool cp = false;
          const auto [V, ldv] = detail::panel_as_block(c, mb, kp, *panel, vpack);
          const auto [Cb, ldc] = tiles_as_block(c, g + 1, mb, n, cpack, cp);
          blas::larfb_left(op, height, n, kp, V, ldv, c.ptr<T>(g), c.ld(g), Cb, ldc);
          if (cp) unpack_tiles(c, g + 1, mb, n, Cb, ldc);
        },
        acc.data(), acc.size(),
        {prio(j), "larfb", rt::kHostOnly, dev::KernelId::None,
         4.0 * flop_scale<T>() * static_cast<double>(height) * n * kp, -1, g});
  }
}

/// C(p.., j) = op(H_p) C(p.., j) for the tile columns j in [j0, j1) of C, whose
/// tile rows are those of the reflectors' A; op(H) = I - V op(T) V^H.
/// `prio(j)` gives the priority of the tasks on column j.
template <typename T, typename Prio>
void larfb_left(rt::Runtime& rt, const Reflectors<T>& R, int64_t p, Op op, const Matrix<T>& C, int64_t j0,
                int64_t j1, const LarfbWork<T>& work, int64_t s, Prio&& prio) {
  if (larfb_left_rows(rt, R, p, op, C, j0, j1, work, prio)) return;
  if (larfb_left_blocks(rt, R, p, op, C, j0, j1, prio)) return;
  std::vector<int64_t> columns;  // those left to per-tile tasks
  if (j0 < j1 && C.handle(p, j0)->rank >= 0) larfb_left_by_owner(rt, R, p, op, C, j0, j1, prio, columns);
  else for (int64_t j = j0; j < j1; ++j) columns.push_back(j);
  for (int64_t j : columns) {
    const Opts o{prio(j)};
    const Ref<T> w = lead(work.w(s, j), R.width(p), C.tile_nb(j));
    for (int64_t i = p; i < C.mt(); ++i)
      gemm(rt, Op::ConjTrans, Op::NoTrans, T(1), R.v(i, p), ref(C, i, j), T(i == p ? 0 : 1), w, o);
    trmm(rt, Side::Left, Uplo::Upper, op, Diag::NonUnit, T(1), R.t(p), w, o);
    for (int64_t i = p; i < C.mt(); ++i) gemm(rt, Op::NoTrans, Op::NoTrans, T(-1), R.v(i, p), w, T(1), ref(C, i, j), o);
  }
}

/// C(i, p..) = C(i, p..) op(H_p) for the tile rows i in [i0, i1) of C, whose
/// tile columns are the tile rows of the reflectors' A.
template <typename T, typename Prio>
void larfb_right(rt::Runtime& rt, const Reflectors<T>& R, int64_t p, Op op, const Matrix<T>& C, int64_t i0,
                 int64_t i1, const LarfbWork<T>& work, int64_t s, Prio&& prio) {
  for (int64_t i = i0; i < i1; ++i) {
    const Opts o{prio(i)};
    const Ref<T> w = lead(work.w(s, i), C.tile_mb(i), R.width(p));
    for (int64_t j = p; j < C.nt(); ++j)
      gemm(rt, Op::NoTrans, Op::NoTrans, T(1), ref(C, i, j), R.v(j, p), T(j == p ? 0 : 1), w, o);
    trmm(rt, Side::Right, Uplo::Upper, op, Diag::NonUnit, T(1), R.t(p), w, o);
    for (int64_t j = p; j < C.nt(); ++j)
      gemm(rt, Op::NoTrans, Op::ConjTrans, T(-1), w, R.v(j, p), T(1), ref(C, i, j), o);
  }
}

}  // namespace hetla::tile
