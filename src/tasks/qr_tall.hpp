// Tasks of the QR family for a tall and skinny matrix (m >= 4 n; see
// LarfbWork::row_block()) on the host alone, when its tiles are a view of a
// column-major array: the work is cut into blocks of ~2048 rows instead of
// tiles. Both the block-reflector update and the panel then keep every core
// busy on the few tile columns there are, and each GEMM is tall.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "kernels/host/lapack_qr.hpp"
#include "memory/tile_block.hpp"
#include "tasks/qr_workspace.hpp"
#include "tasks/tile.hpp"

namespace hetla::tile {

/// The update below for a tall C (LarfbWork::row_block() > 0) on the host
/// alone, V and C views of column-major arrays: per block of tile columns
/// (1, 1, 2, 4, ... up to 256 columns, away from j0 as in larfb_left_blocks:
/// the next panel's column first and alone), one task per block of row_block() tile
/// rows forms its partial W_r = V_r^H C_r, one task sums them and applies
/// op(T), one task per row block does C_r -= V_r W. A few tall tile columns
/// then still keep every core busy, and each GEMM has ~2048 rows (dgeqrf
/// 20000 x 500 on 2 cores: 17416 tile GEMMs at ~24 GFLOP/s per core before).
/// Returns false (nothing inserted) when this does not apply.
template <typename T, typename Prio>
bool larfb_left_rows(rt::Runtime& rt, const Reflectors<T>& R, int64_t p, Op op, const Matrix<T>& C, int64_t j0,
                     int64_t j1, const LarfbWork<T>& work, Prio& prio) {
  using hetla::detail::as_block;
  const Matrix<T>& A = R.A();
  const Matrix<T>& P = work.partials();
  const int64_t mt = C.mt(), kp = R.width(p), rb = work.row_block();
  if (rb == 0 || rt.num_devices() != 1 || j0 >= j1) return false;
  if (!as_block(A, p, mt - 1, p, p) || !as_block(C, p, mt - 1, j0, j1 - 1)) return false;
  const int64_t blocks = (mt - p + rb - 1) / rb;
  auto first = [&](int64_t r) { return p + r * (mt - p) / blocks; };  // block r: tile rows [first(r), first(r + 1))
  const Ref<T> vd = R.v(p, p);  // the diagonal tile of V: unit diagonal, zeros above
  const Ref<T> tt = R.t(p);
  const int64_t top = vd.t.mb;  // rows of block 0 whose V is vd; the rows below follow in A
  // V_r and C_r (tile columns [ja, jb)) of row block r, with their accesses
  auto operands = [&](int64_t r, int64_t ja, int64_t jb, rt::Mode cmode, std::vector<rt::Access>& acc) {
    for (int64_t i = first(r); i < first(r + 1); ++i) {
      acc.push_back(rt::R(i == p ? vd.h : A.handle(i, p)));
      for (int64_t j = ja; j < jb; ++j) acc.push_back({C.handle(i, j), cmode});
    }
    return std::pair{*as_block(A, first(r), first(r + 1) - 1, p, p),
                     *as_block(C, first(r), first(r + 1) - 1, ja, jb - 1)};
  };
  // W_r: kp x width in tile row r of the partials, tile columns [ja, jb)
  auto partial = [&](int64_t r, int64_t ja, int64_t jb, rt::Mode mode, std::vector<rt::Access>& acc) {
    for (int64_t j = ja; j < jb; ++j) acc.push_back({P.handle(r, j), mode});
    Tile<T> w = *as_block(P, r, r, ja, jb - 1);
    w.mb = kp;
    return w;
  };
  for (int64_t ja = j0; ja < j1;) {
    const int64_t jb = std::min(j1, ja + std::clamp<int64_t>(ja - j0, 1, std::max<int64_t>(4, 256 / C.nb())));
    const Opts o{prio(ja)};
    for (int64_t r = 0; r < blocks; ++r) {  // W_r = V_r^H C_r
      std::vector<rt::Access> acc;
      const auto [V, Cb] = operands(r, ja, jb, rt::Mode::Read, acc);
      const Tile<T> W = partial(r, ja, jb, rt::Mode::Write, acc);
      const int64_t skip = r == 0 ? top : 0;
      rt.insert(
          [=, v = vd.t, V = V, Cb = Cb](rt::TaskContext&) {
            if (skip)
              blas::gemm(Op::ConjTrans, Op::NoTrans, kp, Cb.nb, skip, T(1), v.data, v.ld, Cb.data, Cb.ld, T(0), W.data,
                         W.ld);
            if (Cb.mb > skip)
              blas::gemm(Op::ConjTrans, Op::NoTrans, kp, Cb.nb, Cb.mb - skip, T(1), V.data + skip, V.ld, Cb.data + skip,
                         Cb.ld, T(skip ? 1 : 0), W.data, W.ld);
          },
          acc.data(), acc.size(),
          {o.priority, "gemm", rt::kHostOnly, dev::KernelId::None, 2.0 * flop_scale<T>() * Cb.mb * Cb.nb * kp});
    }
    std::vector<rt::Access> acc{rt::R(tt.h)};
    const Tile<T> W = partial(0, ja, jb, rt::Mode::ReadWrite, acc);
    std::vector<Tile<T>> parts;
    for (int64_t r = 1; r < blocks; ++r) parts.push_back(partial(r, ja, jb, rt::Mode::Read, acc));
    rt.insert(  // W = op(T) sum_r W_r
        [=, t = tt.t](rt::TaskContext&) {
          for (const auto& Pr : parts)
            for (int64_t c = 0; c < W.nb; ++c)
              for (int64_t i = 0; i < kp; ++i) W(i, c) += Pr(i, c);
          blas::trmm(Side::Left, Uplo::Upper, op, Diag::NonUnit, kp, W.nb, T(1), t.data, t.ld, W.data, W.ld);
        },
        acc.data(), acc.size(), {o.priority, "trmm", rt::kHostOnly});
    for (int64_t r = 0; r < blocks; ++r) {  // C_r -= V_r W
      std::vector<rt::Access> acc2;
      const auto [V, Cb] = operands(r, ja, jb, rt::Mode::ReadWrite, acc2);
      partial(0, ja, jb, rt::Mode::Read, acc2);
      const int64_t skip = r == 0 ? top : 0;
      rt.insert(
          [=, v = vd.t, V = V, Cb = Cb](rt::TaskContext&) {
            if (skip)
              blas::gemm(Op::NoTrans, Op::NoTrans, skip, Cb.nb, kp, T(-1), v.data, v.ld, W.data, W.ld, T(1), Cb.data,
                         Cb.ld);
            if (Cb.mb > skip)
              blas::gemm(Op::NoTrans, Op::NoTrans, Cb.mb - skip, Cb.nb, kp, T(-1), V.data + skip, V.ld, W.data, W.ld,
                         T(1), Cb.data + skip, Cb.ld);
          },
          acc2.data(), acc2.size(),
          {o.priority, "gemm", rt::kHostOnly, dev::KernelId::None, 2.0 * flop_scale<T>() * Cb.mb * Cb.nb * kp});
    }
    ja = jb;
  }
  return true;
}

namespace qr {

/// The panel of a tall matrix as one column-major block cut into the row
/// blocks of the update, with the handles tasks on each block access.
template <typename T> struct TallPanel {
  T* a = nullptr;  // the panel from its diagonal tile down: rows x cols, leading dimension lda
  int64_t lda = 1, rows = 0, cols = 0;
  std::vector<int64_t> lo;                  // row block r: rows [lo[r], lo[r + 1]) of the panel
  std::vector<std::vector<rt::Handle*>> h;  // the panel's tiles of each row block
  std::vector<Tile<T>> part;                // scratch of row block r (LarfbWork::partials, cols x cols)
  std::vector<rt::Handle*> part_h;
  Tile<T> t;  // T of the panel
  rt::Handle* t_h = nullptr;
  int priority = 0;

  T* at(int64_t r, int64_t c) const { return a + r + c * lda; }
  int64_t blocks() const { return static_cast<int64_t>(h.size()); }
  std::vector<rt::Access> access(int64_t r, rt::Mode mode) const {
    std::vector<rt::Access> acc;
    for (rt::Handle* x : h[static_cast<std::size_t>(r)]) acc.push_back({x, mode});
    return acc;
  }
  std::vector<rt::Access> access_all(rt::Mode mode) const {
    std::vector<rt::Access> acc;
    for (int64_t r = 0; r < blocks(); ++r)
      for (rt::Handle* x : h[static_cast<std::size_t>(r)]) acc.push_back({x, mode});
    return acc;
  }
  template <typename F>
  void task(rt::Runtime& rt, std::vector<rt::Access> acc, const char* name, double flops, F&& f) const {
    rt.insert(std::forward<F>(f), acc.data(), acc.size(), {priority, name, rt::kHostOnly, dev::KernelId::None, flops});
  }
};

/// Columns [c0, c0 + w) of the panel from row c0 down (their T at t(c0, c0)):
/// the recursive QR of geqrt_recursive, whose leaves (at most kLeaf columns)
/// are single tasks and whose products over the whole height (the left
/// half's reflectors applied to the right half, and V1^H V2 for T12) are one
/// task per row block, reduced by one more.
///
/// Why a leaf stays one task over the whole height (measured 2026-11-26, one
/// core, double, 20000 rows, load 5-7, best of 7): a TSQR leaf (row blocks
/// factored apart, their R combined by a tree) must rebuild LAPACK's
/// Householder vectors for geqrf's output and for the block reflector of the
/// update (Householder reconstruction); LAPACK's getsqrhrt, which does that
/// with blocks of 2048 rows, takes 3.2-3.9 ms for 16 columns against
/// 1.3-1.6 ms for geqrt_recursive, and 32-36 ms against 14-15 ms for 64, so
/// on 2 cores even a perfectly parallel tree is no faster and takes the
/// other core's update work. Factoring the leaf column by column with one
/// task per group of row blocks per phase (norm, v^H A, rank-one update:
/// the same reflectors, no extra flops) costs 1.5x the leaf on one worker
/// (task overhead, 4 phases a column) and was no faster on two (2.3 ms
/// against 1.3-1.8 ms for 20000 x 16).
template <typename T>
void tall_panel_node(rt::Runtime& rt, const std::shared_ptr<const TallPanel<T>>& sp, int64_t c0, int64_t w) {
  const TallPanel<T>& P = *sp;  // the tasks share it
  constexpr int64_t kLeaf = 16;
  const double s = flop_scale<T>();
  if (w <= kLeaf) {
    auto acc = P.access_all(rt::Mode::ReadWrite);
    acc.push_back(rt::RW(P.t_h));
    P.task(rt, std::move(acc), "geqrf_panel", 2.0 * s * (P.rows - c0) * w * w, [sp, c0, w](rt::TaskContext&) {
      const TallPanel<T>& P = *sp;
      throw_if_rejected(blas::geqrt_recursive(P.rows - c0, w, P.at(c0, c0), P.lda, &P.t(c0, c0), P.t.ld),
                        "geqrf panel");
    });
    return;
  }
  const int64_t n1 = w / 2, n2 = w - n1, c1 = c0 + n1;
  tall_panel_node(rt, sp, c0, n1);
  // A(c0.., c1..) = H1^H A(c0.., c1..): W_r = V1_r^H C_r per row block (V1 unit
  // lower in rows [c0, c1), all in block 0), W = T11^H sum W_r, C_r -= V1_r W
  for (int64_t r = 0; r < P.blocks(); ++r) {
    auto acc = P.access(r, rt::Mode::Read);
    acc.push_back(rt::W(P.part_h[r]));
    const int64_t lo = std::max(P.lo[r], c0), hi = P.lo[r + 1];
    P.task(rt, std::move(acc), "gemm", 2.0 * s * (hi - lo) * n1 * n2,
           [sp, r, lo, hi, c0, c1, n1, n2](rt::TaskContext&) {
             const TallPanel<T>& P = *sp;
             const Tile<T> W = P.part[r];
             if (r > 0) {
               blas::gemm(Op::ConjTrans, Op::NoTrans, n1, n2, hi - lo, T(1), P.at(lo, c0), P.lda, P.at(lo, c1), P.lda,
                          T(0), W.data, W.ld);
               return;
             }
             for (int64_t j = 0; j < n2; ++j) std::copy_n(P.at(c0, c1 + j), n1, &W(0, j));
             blas::trmm(Side::Left, Uplo::Lower, Op::ConjTrans, Diag::Unit, n1, n2, T(1), P.at(c0, c0), P.lda, W.data,
                        W.ld);
             blas::gemm(Op::ConjTrans, Op::NoTrans, n1, n2, hi - c1, T(1), P.at(c1, c0), P.lda, P.at(c1, c1), P.lda,
                        T(1), W.data, W.ld);
           });
  }
  std::vector<rt::Access> acc{rt::RW(P.part_h[0]), rt::R(P.t_h)};
  for (int64_t r = 1; r < P.blocks(); ++r) acc.push_back(rt::R(P.part_h[r]));
  P.task(rt, std::move(acc), "trmm", 0, [sp, c0, n1, n2](rt::TaskContext&) {
    const TallPanel<T>& P = *sp;
    const Tile<T> W = P.part[0];
    for (int64_t r = 1; r < P.blocks(); ++r)
      for (int64_t j = 0; j < n2; ++j)
        for (int64_t i = 0; i < n1; ++i) W(i, j) += P.part[r](i, j);
    blas::trmm(Side::Left, Uplo::Upper, Op::ConjTrans, Diag::NonUnit, n1, n2, T(1), &P.t(c0, c0), P.t.ld, W.data, W.ld);
  });
  for (int64_t r = 0; r < P.blocks(); ++r) {
    auto acc2 = P.access(r, rt::Mode::ReadWrite);
    acc2.push_back(rt::R(P.part_h[0]));
    const int64_t lo = r == 0 ? c1 : P.lo[r], hi = P.lo[r + 1];
    P.task(
        rt, std::move(acc2), "gemm", 2.0 * s * (hi - lo) * n1 * n2, [sp, r, lo, hi, c0, c1, n1, n2](rt::TaskContext&) {
          const TallPanel<T>& P = *sp;
          const Tile<T> W = P.part[0];
          blas::gemm(Op::NoTrans, Op::NoTrans, hi - lo, n2, n1, T(-1), P.at(lo, c0), P.lda, W.data, W.ld, T(1),
                     P.at(lo, c1), P.lda);
          if (r > 0) return;
          std::vector<T> X(static_cast<std::size_t>(n1 * n2));  // rows [c0, c1): C -= V1 W, V1 unit lower there
          for (int64_t j = 0; j < n2; ++j) std::copy_n(&W(0, j), n1, X.data() + j * n1);
          blas::trmm(Side::Left, Uplo::Lower, Op::NoTrans, Diag::Unit, n1, n2, T(1), P.at(c0, c0), P.lda, X.data(), n1);
          for (int64_t j = 0; j < n2; ++j)
            for (int64_t i = 0; i < n1; ++i) *P.at(c0 + i, c1 + j) -= X[i + j * n1];
        });
  }
  tall_panel_node(rt, sp, c1, n2);
  // T12 = -T11 (V1^H V2) T22 over rows [c1, rows), V2 unit lower in rows [c1, c0 + w)
  const int64_t c2 = c0 + w;
  for (int64_t r = 0; r < P.blocks(); ++r) {
    auto acc3 = P.access(r, rt::Mode::Read);
    acc3.push_back(rt::W(P.part_h[r]));
    const int64_t lo = std::max(P.lo[r], c2), hi = P.lo[r + 1];
    P.task(rt, std::move(acc3), "gemm", 2.0 * s * (hi - lo) * n1 * n2,
           [sp, r, lo, hi, c0, c1, n1, n2](rt::TaskContext&) {
             const TallPanel<T>& P = *sp;
             const Tile<T> X = P.part[r];
             if (r == 0) {
               for (int64_t j = 0; j < n2; ++j)
                 for (int64_t i = 0; i < n1; ++i) X(i, j) = conj(*P.at(c1 + j, c0 + i));
               blas::trmm(Side::Right, Uplo::Lower, Op::NoTrans, Diag::Unit, n1, n2, T(1), P.at(c1, c1), P.lda, X.data,
                          X.ld);
             }
             if (hi > lo)
               blas::gemm(Op::ConjTrans, Op::NoTrans, n1, n2, hi - lo, T(1), P.at(lo, c0), P.lda, P.at(lo, c1), P.lda,
                          T(r == 0 ? 1 : 0), X.data, X.ld);
             else if (r > 0)
               for (int64_t j = 0; j < n2; ++j) std::fill_n(&X(0, j), n1, T(0));
           });
  }
  std::vector<rt::Access> acc4{rt::RW(P.t_h)};
  for (int64_t r = 0; r < P.blocks(); ++r) acc4.push_back(rt::R(P.part_h[r]));
  P.task(rt, std::move(acc4), "trmm", 0, [sp, c0, c1, n1, n2](rt::TaskContext&) {
    const TallPanel<T>& P = *sp;
    T* t12 = &P.t(c0, c1);
    for (int64_t j = 0; j < n2; ++j)
      for (int64_t i = 0; i < n1; ++i) {
        T x = 0;
        for (int64_t r = 0; r < P.blocks(); ++r) x += P.part[r](i, j);
        t12[i + j * P.t.ld] = x;
      }
    blas::trmm(Side::Left, Uplo::Upper, Op::NoTrans, Diag::NonUnit, n1, n2, T(-1), &P.t(c0, c0), P.t.ld, t12, P.t.ld);
    blas::trmm(Side::Right, Uplo::Upper, Op::NoTrans, Diag::NonUnit, n1, n2, T(1), &P.t(c1, c1), P.t.ld, t12, P.t.ld);
  });
}

}  // namespace qr

/// The panel p of a tall matrix (as geqrf_panel: V and R over it, tau, T_p
/// and Vd_p) by tasks on its row blocks, so that a panel no update can
/// overlap (the first and the last) runs on every core, and the others take
/// a core only where the updates leave one. One core, 20000 x 64: 15 ms as
/// one geqrt_recursive, of which its four 16-column leaves take 6 ms.
/// Returns false (nothing inserted) when this does not apply.
template <typename T>
bool geqrf_panel_rows(rt::Runtime& rt, const Reflectors<T>& R, int64_t p, T* tau, const LarfbWork<T>& work, Opts o) {
  using hetla::detail::as_block;
  const Matrix<T>& A = R.A();
  const int64_t mt = A.mt(), rb = work.row_block(), kp = R.width(p);
  if (rb == 0 || rt.num_devices() != 1 || kp != A.tile_nb(p)) return false;
  const auto blk = as_block(A, p, mt - 1, p, p);
  if (!blk || blk->mb < 2 * kp) return false;
  auto sp = std::make_shared<qr::TallPanel<T>>();
  qr::TallPanel<T>& P = *sp;
  P.a = blk->data, P.lda = blk->ld, P.rows = blk->mb, P.cols = kp;
  P.t = R.t_tile(p).t, P.t_h = R.t_tile(p).h, P.priority = o.priority;
  const int64_t blocks = (mt - p + rb - 1) / rb;
  for (int64_t r = 0; r <= blocks; ++r) {
    const int64_t i0 = p + r * (mt - p) / blocks;
    P.lo.push_back(A.row_offset(std::min(i0, mt - 1)) - A.row_offset(p) + (i0 == mt ? A.tile_mb(mt - 1) : 0));
    if (r == blocks) break;
    P.h.emplace_back();
    for (int64_t i = i0; i < p + (r + 1) * (mt - p) / blocks; ++i) P.h.back().push_back(A.handle(i, p));
    P.part.push_back(work.partials().tile(r, p));
    P.part_h.push_back(work.partials().handle(r, p));
  }
  qr::tall_panel_node<T>(rt, sp, 0, kp);
  const Ref<T> vd = R.vd_tile(p);
  rt.insert(
      [sp, tau, kp, vd = vd.t](rt::TaskContext&) {
        const qr::TallPanel<T>& P = *sp;
        for (int64_t i = 0; i < kp; ++i) tau[i] = P.t(i, i);
        for (int64_t c = 0; c < kp; ++c)
          for (int64_t r = 0; r < vd.mb; ++r) vd(r, c) = r < c ? T(0) : r == c ? T(1) : *P.at(r, c);
      },
      {rt::R(A.handle(p, p)), rt::R(P.t_h), rt::W(vd.h)}, {o.priority, "larft_panel", rt::kHostOnly});
  return true;
}

}  // namespace hetla::tile
