// A matrix 2-D block-cyclic over a process grid (issue 16): tile (i, j) on
// process grid.owner(i, j); each process allocates only its own tiles, as
// ScaLAPACK's local array (Matrix::distributed_view), so the tiles a process
// holds of one tile column lie one below the other as a column-major block
// and its trailing updates can be one GEMM per column (tasks/blas3.hpp,
// gemm_column); their handles name their owner so the runtime infers the
// transfers. Conversions: scatter from / gather to one process, and the
// ScaLAPACK local array of the same distribution (block size nb, first
// block on process (0, 0)), copied or, by view_scalapack, used in place.
#pragma once
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "hetla/matrix.hpp"
#include "mpi/grid.hpp"

namespace hetla::mpi {

template <typename T> class DistMatrix {
 public:
  DistMatrix(const Grid& grid, int64_t m, int64_t n, int64_t nb);
  /// The m x n matrix whose tiles are this process's ScaLAPACK local array
  /// `a` (leading dimension lld >= local_rows(), block size nb both ways,
  /// first block on process (0, 0)), without a copy: routines read and write
  /// `a` itself; it must outlive the matrix. m and n may be smaller than the
  /// array's global size (its leading part: the same blocks on the same
  /// processes).
  static DistMatrix view_scalapack(const Grid& grid, int64_t m, int64_t n, int64_t nb, T* a, int64_t lld);

  const Grid& grid() const { return *grid_; }
  int64_t m() const { return local_.m(); }
  int64_t n() const { return local_.n(); }
  int64_t nb() const { return local_.nb(); }
  /// Every tile of the matrix; those of other processes have no data here.
  Matrix<T>& tiles() { return local_; }
  const Matrix<T>& tiles() const { return local_; }
  bool is_local(int64_t i, int64_t j) const { return grid_->owner(i, j) == grid_->rank(); }

  /// A(lda, n), significant on `root` only, into the tiles of every process.
  /// Collective.
  void scatter(const T* A, int64_t lda, int root = 0);
  /// The tiles of every process into A(lda, n) on `root` (untouched
  /// elsewhere). Collective.
  void gather(T* A, int64_t lda, int root = 0) const;

  /// ScaLAPACK's local array of this process: rows and its leading dimension
  /// (numroc of m), columns (numroc of n).
  int64_t local_rows() const;
  int64_t local_cols() const;
  void to_scalapack(T* a, int64_t lld) const;
  void from_scalapack(const T* a, int64_t lld);

 private:
  DistMatrix(const Grid& grid, Matrix<T> tiles) : grid_(&grid), local_(std::move(tiles)) {}
  const Grid* grid_;
  std::shared_ptr<std::vector<T>> owned_;  // the local array (not for view_scalapack)
  Matrix<T> local_;
};

}  // namespace hetla::mpi
