/// @file
/// Tile matrices: an m x n matrix split into nb x nb tiles (the last tile row
/// and column may be smaller). Storage is either owned and tile-contiguous, or
/// a view of a user's column-major array (no copy; tiles have stride lda).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "hetla/types.hpp"

namespace hetla {

namespace rt { struct Handle; }

/// One tile in host memory: column-major with leading dimension `ld`.
template <typename T> struct Tile {
  T* data = nullptr;  ///< element (0, 0)
  int64_t ld = 1;     ///< leading dimension (column stride)
  int64_t mb = 0;     ///< rows
  int64_t nb = 0;     ///< columns
  /// Element (i, j) of the tile.
  T& operator()(int64_t i, int64_t j) const { return data[i + j * ld]; }
};

/// Tile size of a Matrix constructed without one.
inline constexpr int64_t kDefaultTileSize = 256;

/// How a matrix is cut into tiles: a pattern of tile sizes repeated along the
/// rows and, identically, along the columns (so diagonal tiles are square).
/// Uniform tiles are the one-size pattern {nb}. A hybrid tiling (seed 004
/// §3.1, 3.4: small tiles for the CPU cores, large tiles for accelerators)
/// also names the device that owns each tile column of the pattern; the
/// Distribution::Hybrid places tasks by it. See hybrid_tiling().
struct Tiling {
  std::vector<int64_t> sizes;  ///< tile sizes, repeated; every entry >= 1
  std::vector<int> owners;     ///< empty, or one device index per entry of sizes (0 = host cores)
  /// True for uniform tiles (a one-size pattern).
  bool uniform() const { return sizes.size() == 1; }
  /// Same sizes and owners.
  bool operator==(const Tiling&) const = default;
};

/// A dense m x n matrix of T (float, double, std::complex<float> or
/// std::complex<double>) cut into tiles; copies share the storage.
template <typename T> class Matrix {
 public:
  /// Empty 0 x 0 matrix.
  Matrix();
  /// Owned, zero-initialised, tile-contiguous storage.
  Matrix(int64_t m, int64_t n, int64_t nb = kDefaultTileSize);
  /// Owned storage cut by a tiling (e.g. hybrid_tiling()).
  Matrix(int64_t m, int64_t n, const Tiling& tiling);
  /// View of a column-major array A(lda, n); the array must outlive the view.
  static Matrix view(int64_t m, int64_t n, T* A, int64_t lda, int64_t nb = kDefaultTileSize);
  /// View of a column-major array A(lda, n) cut by a tiling.
  static Matrix view(int64_t m, int64_t n, T* A, int64_t lda, const Tiling& tiling);
  /// Tiles and their handles without any element storage (tile data null):
  /// for a simulated run, whose tasks never touch data.
  static Matrix shape_only(int64_t m, int64_t n, int64_t nb = kDefaultTileSize);
  /// One process's part of a matrix distributed over processes: tile (i, j)
  /// belongs to process `ranks[i + j * mt]` (mt x nt tiles of size nb); only
  /// the tiles of process `me` have storage here (zeroed, each tile
  /// contiguous); the others are shape-only (tile data null).
  static Matrix distributed(int64_t m, int64_t n, int64_t nb, const std::vector<int>& ranks, int me);
  /// distributed() over the caller's memory, without a copy: this process's
  /// tile (i, j) is at `tiles[i + j * mt]` with leading dimension `ld` (e.g.
  /// inside a ScaLAPACK local array); the memory must outlive the matrix.
  static Matrix distributed_view(int64_t m, int64_t n, int64_t nb, const std::vector<int>& ranks, int me,
                                 const std::vector<T*>& tiles, int64_t ld);

  /// Column-major A(lda, n) into the tiles, converted by parallel tasks.
  void copy_from(const T* A, int64_t lda);
  /// The tiles into a column-major A(lda, n), converted by parallel tasks.
  void copy_to(T* A, int64_t lda) const;

  /// Rows.
  int64_t m() const { return m_; }
  /// Columns.
  int64_t n() const { return n_; }
  /// The tile size of a uniform tiling; for other tilings the first size of
  /// the pattern (hybrid_tiling(): the small host tiles). Routines that take
  /// uniform tiles only check uniform_tiles() first.
  int64_t nb() const { return nb_; }
  /// How the matrix is cut into tiles.
  const Tiling& tiling() const;
  /// True when every tile (but the last row and column) is nb() x nb().
  bool uniform_tiles() const;
  /// First row of tile row i.
  int64_t row_offset(int64_t i) const;
  /// First column of tile column j.
  int64_t col_offset(int64_t j) const;
  /// Owner of tile column j under a hybrid tiling, -1 without owners.
  int tile_owner(int64_t j) const;
  int64_t mt() const { return mt_; }  ///< tile rows
  int64_t nt() const { return nt_; }  ///< tile columns
  /// Rows of tile row i.
  int64_t tile_mb(int64_t i) const;
  /// Columns of tile column j.
  int64_t tile_nb(int64_t j) const;
  /// True for a view of a user's array (Matrix::view, sub() of one).
  bool is_view() const;

  /// Tile (i, j) in host memory.
  Tile<T> tile(int64_t i, int64_t j) const;
  /// The runtime's handle of tile (i, j) (data dependences; internal).
  rt::Handle* handle(int64_t i, int64_t j) const;
  /// Element access (slow; for tests and small fix-ups).
  T& at(int64_t i, int64_t j) const;

  /// Tiles [i1, i2] x [j1, j2] (inclusive) as a view sharing storage.
  Matrix sub(int64_t i1, int64_t i2, int64_t j1, int64_t j2) const;

  struct Storage;

 private:
  std::shared_ptr<Storage> store_;
  int64_t ioff_ = 0, joff_ = 0;  // tile offsets into the storage
  int64_t m_ = 0, n_ = 0, nb_ = kDefaultTileSize, mt_ = 0, nt_ = 0;
};

extern template class Matrix<float>;
extern template class Matrix<double>;
extern template class Matrix<std::complex<float>>;
extern template class Matrix<std::complex<double>>;

}  // namespace hetla
