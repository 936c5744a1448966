// Views of a Matrix's tiles as column-major arrays: a block of tiles that
// lies as one (a view of the caller's array), and a tile column gathered
// into / scattered from a workspace.
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "hetla/matrix.hpp"

namespace hetla::detail {

/// Tiles [i1, i2] x [j1, j2] of M as one column-major block (data, ld, rows,
/// cols), when they are laid out as one: each tile below and right of the
/// first at the offsets of a column-major array with the same stride, as in a
/// view of a column-major array (a single tile always is).
template <typename T>
std::optional<Tile<T>> as_block(const Matrix<T>& M, int64_t i1, int64_t i2, int64_t j1, int64_t j2) {
  const Tile<T> first = M.tile(i1, j1);
  if (!first.data) return std::nullopt;  // shape-only, or another process's tile
  Tile<T> block{first.data, first.ld, 0, 0};
  for (int64_t i = i1; i <= i2; ++i) block.mb += M.tile_mb(i);
  for (int64_t j = j1; j <= j2; ++j) block.nb += M.tile_nb(j);
  if (block.ld < block.mb) return std::nullopt;
  for (int64_t j = j1; j <= j2; ++j)
    for (int64_t i = i1; i <= i2; ++i) {
      const Tile<T> t = M.tile(i, j);
      const int64_t di = M.row_offset(i) - M.row_offset(i1), dj = M.col_offset(j) - M.col_offset(j1);
      if (t.ld != block.ld || t.data != first.data + di + dj * block.ld) return std::nullopt;
    }
  return block;
}

/// The tiles (i1.., j) of tile column j, one below the other.
template <typename T> class ColumnRows {
 public:
  ColumnRows(const Matrix<T>& A, int64_t j, int64_t i1) {
    for (int64_t i = i1; i < A.mt(); ++i) tiles_.push_back(A.tile(i, j));
  }
  int64_t rows() const {
    int64_t r = 0;
    for (const auto& t : tiles_) r += t.mb;
    return r;
  }
  int64_t cols() const { return tiles_.front().nb; }
  /// Copies to / from a column-major rows() x cols() array.
  void copy_to(T* W, int64_t ldw) const {
    int64_t r0 = 0;
    for (const auto& t : tiles_) {
      for (int64_t c = 0; c < t.nb; ++c) std::copy_n(t.data + c * t.ld, t.mb, W + r0 + c * ldw);
      r0 += t.mb;
    }
  }
  void copy_from(const T* W, int64_t ldw) const {
    int64_t r0 = 0;
    for (const auto& t : tiles_) {
      for (int64_t c = 0; c < t.nb; ++c) std::copy_n(W + r0 + c * ldw, t.mb, t.data + c * t.ld);
      r0 += t.mb;
    }
  }

 private:
  std::vector<Tile<T>> tiles_;
};

/// The tile row that holds row r of A (0 <= r < A.m()).
template <typename T> int64_t tile_row_of(const Matrix<T>& A, int64_t r) {
  if (A.uniform_tiles()) return r / A.nb();
  int64_t lo = 0, hi = A.mt() - 1;  // the last i with row_offset(i) <= r
  while (lo < hi) {
    const int64_t mid = (lo + hi + 1) / 2;
    if (A.row_offset(mid) <= r)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

}  // namespace hetla::detail
