// Workspaces of the QR tasks (tasks/qr.hpp): the block reflectors of a
// factorization (T_p and Vd_p per panel, see qr.hpp) and the W tiles of the
// block-reflector updates.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "hetla/matrix.hpp"
#include "tasks/tile.hpp"
#include "util/pages.hpp"

namespace hetla::tile {

/// The leading rows x cols block of a tile (same handle: the whole tile is
/// still the unit of dependence).
template <typename T> Ref<T> lead(Ref<T> r, int64_t rows, int64_t cols) {
  r.t.mb = rows;
  r.t.nb = cols;
  return r;
}

/// Tile (i, j) of A restricted to the global rows [r0, r1); rows == 0 when
/// the tile lies outside.
template <typename T> Ref<T> row_range(const Matrix<T>& A, int64_t i, int64_t j, int64_t r0, int64_t r1) {
  Ref<T> r = ref(A, i, j);
  const int64_t top = A.row_offset(i);
  const int64_t lo = std::clamp<int64_t>(r0 - top, 0, r.t.mb);
  const int64_t hi = std::clamp<int64_t>(r1 - top, lo, r.t.mb);
  r.t.data += lo;
  r.t.mb = hi - lo;
  return r;
}

/// True when no tile of A has storage here (Matrix::shape_only: a simulated
/// run, whose workspaces need none either).
template <typename T> bool no_data(const Matrix<T>& A) {
  for (int64_t j = 0; j < A.nt(); ++j)
    for (int64_t i = 0; i < A.mt(); ++i)
      if (A.tile(i, j).data) return false;
  return true;
}

/// One rows x cols tile over memory that is not initialised (its pages are
/// mapped up front, util::PageBuffer), for workspaces that tasks write before
/// they read; shape-only (no memory) for a matrix without data.
template <typename T> class ScratchTile {
 public:
  ScratchTile(int64_t rows, int64_t cols, bool shape_only = false)
      : mem_(shape_only ? util::PageBuffer()
                        : util::PageBuffer(sizeof(T) * static_cast<std::size_t>(std::max<int64_t>(1, rows * cols)))),
        M_(shape_only ? Matrix<T>::shape_only(rows, cols, std::max<int64_t>({1, rows, cols}))
                      : Matrix<T>::view(rows, cols, static_cast<T*>(mem_.get()), std::max<int64_t>(1, rows),
                                        std::max<int64_t>({1, rows, cols}))) {}
  Ref<T> ref() const { return tile::ref(M_, 0, 0); }
  /// The process the tile lives on when the matrix it serves is distributed
  /// over processes (Handle::rank; -1: every process's own).
  void set_rank(int rank) { M_.handle(0, 0)->rank = rank; }

 private:
  util::PageBuffer mem_;
  Matrix<T> M_;
};

/// The largest tile size of A's tiling (the widest panel).
template <typename T> int64_t widest_tile(const Matrix<T>& A) {
  const auto& s = A.tiling().sizes;
  return *std::max_element(s.begin(), s.end());
}

/// The block reflectors of the first k Householder vectors stored in A (LAPACK
/// storage, tile column p holding panel p), with T_p and Vd_p per panel. Holds
/// its own storage for T and Vd; A's storage is shared. Tiles may differ in
/// size (hybrid tilings): panel p is as wide as tile column p.
template <typename T> class Reflectors {
 public:
  Reflectors(const Matrix<T>& A, int64_t k) : A_(A), k_(k) {
    while (np_ < A.nt() && A.col_offset(np_) < k) ++np_;
    const bool none = no_data(A);
    for (int64_t p = 0; p < np_; ++p) {
      T_.emplace_back(A.tile_nb(p), A.tile_nb(p), none);
      Vd_.emplace_back(A.tile_mb(p), A.tile_nb(p), none);
      // Distributed over processes: T_p and Vd_p live with the panel's
      // diagonal tile (its owner factors the panel; the processes that
      // update other columns receive them as they receive V).
      T_.back().set_rank(A.handle(p, p)->rank);
      Vd_.back().set_rank(A.handle(p, p)->rank);
    }
  }

  const Matrix<T>& A() const { return A_; }
  int64_t panels() const { return np_; }
  /// kp: reflectors in panel p.
  int64_t width(int64_t p) const { return std::min(A_.tile_nb(p), k_ - A_.col_offset(p)); }
  /// The first reflector of panel p (its scalar's index in tau).
  int64_t first(int64_t p) const { return A_.col_offset(p); }
  /// The tiles (p.., p) of the panel, full width.
  std::vector<Ref<T>> panel(int64_t p) const {
    std::vector<Ref<T>> tiles;
    for (int64_t i = p; i < A_.mt(); ++i) tiles.push_back(ref(A_, i, p));
    return tiles;
  }
  /// V tile i of panel p (i >= p): tile rows x kp; the diagonal tile from Vd.
  Ref<T> v(int64_t i, int64_t p) const {
    return lead(i == p ? vd_tile(p) : ref(A_, i, p), A_.tile_mb(i), width(p));
  }
  Ref<T> t(int64_t p) const { return lead(t_tile(p), width(p), width(p)); }
  /// Whole workspace tiles the panel kernels write (T_p: tile_nb(p) square;
  /// Vd_p: the diagonal tile's shape).
  Ref<T> t_tile(int64_t p) const { return T_[static_cast<std::size_t>(p)].ref(); }
  Ref<T> vd_tile(int64_t p) const { return Vd_[static_cast<std::size_t>(p)].ref(); }

 private:
  Matrix<T> A_;
  int64_t k_, np_ = 0;
  std::vector<ScratchTile<T>> T_, Vd_;
};

/// Scratch of the block-reflector updates: the W tiles, two sets used by
/// alternate panels so that consecutive panels overlap. C's tiling is the
/// reflectors' (the same pattern), so no panel is wider than its widest tile.
template <typename T> class LarfbWork {
 public:
  /// For C from the left: one kp x tile_nb(j) W per tile column j of C, and
  /// for a tall C the partial W of every row block (see partial()).
  static LarfbWork left(const Matrix<T>& C) {
    LarfbWork w;
    const bool none = no_data(C);
    for (auto& set : w.set_)
      for (int64_t j = 0; j < C.nt(); ++j) {
        set.emplace_back(widest_tile(C), C.tile_nb(j), none);
        // Distributed: with the column's first tile, so that on a 1 x Q
        // process grid a column's whole update stays on its process (with
        // P > 1 the column's other tiles travel to it for the W reduction).
        set.back().set_rank(C.mt() > 0 ? C.handle(0, j)->rank : -1);
      }
    // Tall and skinny (m >= 4 n, uniform tiles): the update of a tile column
    // is cut into blocks of ~kTallRows rows instead of tiles, because a
    // 64 x 64 tile GEMM runs at ~24 GFLOP/s here and a 2048 x 64 x 64 one at
    // ~40 (one core, dgemm), and fewer, taller tasks also cost less runtime.
    if (!none && C.uniform_tiles() && C.m() >= 4 * C.n() && C.m() >= 2 * kTallRows) {
      w.rb_ = std::max<int64_t>(1, kTallRows / C.nb());
      const int64_t blocks = (C.mt() + w.rb_ - 1) / w.rb_, rows = blocks * C.nb();
      w.pmem_ = util::PageBuffer(sizeof(T) * static_cast<std::size_t>(rows * C.n()));
      w.P_ = Matrix<T>::view(rows, C.n(), static_cast<T*>(w.pmem_.get()), rows, C.nb());
    }
    return w;
  }
  /// For C from the right: one tile_mb(i) x kp W per tile row i of C.
  static LarfbWork right(const Matrix<T>& C) {
    LarfbWork w;
    const bool none = no_data(C);
    for (auto& set : w.set_)
      for (int64_t i = 0; i < C.mt(); ++i) {
        set.emplace_back(C.tile_mb(i), widest_tile(C), none);
        set.back().set_rank(C.nt() > 0 ? C.handle(i, 0)->rank : -1);  // with the row's first tile (as left)
      }
    return w;
  }
  /// W of tile column (left) or tile row (right) c in the set the s-th
  /// panel applied uses.
  Ref<T> w(int64_t s, int64_t c) const { return set_[s % 2][static_cast<std::size_t>(c)].ref(); }
  /// Tile rows per row block of a tall update; 0: C is not tall (tile tasks).
  int64_t row_block() const { return rb_; }
  /// Partials of a tall update: tile (r, j) is the nb x tile_nb(j) W = V_r^H C_r of row
  /// block r (at most ceil(mt / row_block()) blocks) and tile column j of a
  /// tall update; tiles of a row lie as one column-major block.
  const Matrix<T>& partials() const { return P_; }

  static constexpr int64_t kTallRows = 2048;

 private:
  LarfbWork() = default;
  std::vector<ScratchTile<T>> set_[2];
  int64_t rb_ = 0;
  util::PageBuffer pmem_;
  Matrix<T> P_;
};

}  // namespace hetla::tile
