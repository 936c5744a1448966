#include "mpi/dist_matrix.hpp"

#include <algorithm>
#include <complex>
#include <cstring>
#include <vector>

#include "util/check_args.hpp"
#include "util/precision.hpp"

namespace hetla::mpi {

namespace {
template <typename T> void copy_block(int64_t mb, int64_t nb, const T* src, int64_t lds, T* dst, int64_t ldd) {
  for (int64_t j = 0; j < nb; ++j) std::memcpy(dst + j * ldd, src + j * lds, sizeof(T) * static_cast<std::size_t>(mb));
}

// ScaLAPACK's numroc for a first block on process 0.
int64_t numroc(int64_t n, int64_t nb, int iproc, int nprocs) {
  const int64_t blocks = n / nb;
  int64_t num = (blocks / nprocs) * nb;
  const int64_t extra = blocks % nprocs;
  if (iproc < extra) num += nb;
  else if (iproc == extra) num += n % nb;
  return num;
}

std::vector<int> owners(const Grid& g, int64_t m, int64_t n, int64_t nb) {
  const int64_t mt = nb > 0 ? (m + nb - 1) / nb : 0, nt = nb > 0 ? (n + nb - 1) / nb : 0;
  std::vector<int> r(static_cast<std::size_t>(mt * nt));
  for (int64_t j = 0; j < nt; ++j)
    for (int64_t i = 0; i < mt; ++i) r[static_cast<std::size_t>(i + j * mt)] = g.owner(i, j);
  return r;
}
}  // namespace

template <typename T>
DistMatrix<T>::DistMatrix(const Grid& grid, int64_t m, int64_t n, int64_t nb) : grid_(&grid) {
  detail::require(m >= 0, 2, "DistMatrix", "m < 0");
  detail::require(n >= 0, 3, "DistMatrix", "n < 0");
  detail::require(nb > 0, 4, "DistMatrix", "nb < 1");
  const int64_t lld = std::max<int64_t>(1, numroc(m, nb, grid.rank() / grid.q(), grid.p()));
  const int64_t cols = numroc(n, nb, grid.rank() % grid.q(), grid.q());
  owned_ = std::make_shared<std::vector<T>>(static_cast<std::size_t>(lld * cols));
  local_ = view_scalapack(grid, m, n, nb, owned_->data(), lld).local_;
}

template <typename T> void DistMatrix<T>::scatter(const T* A, int64_t lda, int root) {
  const int me = grid_->rank();
  // every process learns of a bad lda at the root: no one waits for tiles
  const bool bad = me == root && lda < std::max<int64_t>(1, m());
  if (grid_->max(bad ? 1.0 : 0.0) > 0) detail::check_ld(me == root ? lda : 0, m(), 2, "DistMatrix::scatter", "lda (at the root)");
  std::vector<T> buf;
  for (int64_t j = 0; j < local_.nt(); ++j)
    for (int64_t i = 0; i < local_.mt(); ++i) {
      const int o = grid_->owner(i, j);
      const Tile<T> t = local_.tile(i, j);
      const std::size_t bytes = sizeof(T) * static_cast<std::size_t>(t.mb * t.nb);
      if (me == root) {
        const T* src = A + local_.row_offset(i) + local_.col_offset(j) * lda;
        if (o == root) {
          copy_block(t.mb, t.nb, src, lda, t.data, t.ld);
        } else {
          buf.resize(static_cast<std::size_t>(t.mb * t.nb));
          copy_block(t.mb, t.nb, src, lda, buf.data(), t.mb);
          grid_->send(buf.data(), bytes, o);
        }
      } else if (o == me) {
        buf.resize(static_cast<std::size_t>(t.mb * t.nb));
        grid_->recv(buf.data(), bytes, root);
        copy_block(t.mb, t.nb, buf.data(), t.mb, t.data, t.ld);
      }
    }
}

template <typename T> void DistMatrix<T>::gather(T* A, int64_t lda, int root) const {
  const int me = grid_->rank();
  // every process learns of a bad lda at the root: no one waits for tiles
  const bool bad = me == root && lda < std::max<int64_t>(1, m());
  if (grid_->max(bad ? 1.0 : 0.0) > 0) detail::check_ld(me == root ? lda : 0, m(), 2, "DistMatrix::gather", "lda (at the root)");
  std::vector<T> buf;
  for (int64_t j = 0; j < local_.nt(); ++j)
    for (int64_t i = 0; i < local_.mt(); ++i) {
      const int o = grid_->owner(i, j);
      const Tile<T> t = local_.tile(i, j);
      const std::size_t bytes = sizeof(T) * static_cast<std::size_t>(t.mb * t.nb);
      if (me == root) {
        T* dst = A + local_.row_offset(i) + local_.col_offset(j) * lda;
        if (o == root) {
          copy_block(t.mb, t.nb, t.data, t.ld, dst, lda);
        } else {
          buf.resize(static_cast<std::size_t>(t.mb * t.nb));
          grid_->recv(buf.data(), bytes, o);
          copy_block(t.mb, t.nb, buf.data(), t.mb, dst, lda);
        }
      } else if (o == me) {
        buf.resize(static_cast<std::size_t>(t.mb * t.nb));
        copy_block(t.mb, t.nb, t.data, t.ld, buf.data(), t.mb);
        grid_->send(buf.data(), bytes, root);
      }
    }
}

template <typename T> int64_t DistMatrix<T>::local_rows() const {
  return numroc(m(), nb(), grid_->rank() / grid_->q(), grid_->p());
}
template <typename T> int64_t DistMatrix<T>::local_cols() const {
  return numroc(n(), nb(), grid_->rank() % grid_->q(), grid_->q());
}

// Tile (i, j) of this process is block (i / P, j / Q) of the local array.
template <typename T> void DistMatrix<T>::to_scalapack(T* a, int64_t lld) const {
  for (int64_t j = 0; j < local_.nt(); ++j)
    for (int64_t i = 0; i < local_.mt(); ++i) {
      if (!is_local(i, j)) continue;
      const Tile<T> t = local_.tile(i, j);
      copy_block(t.mb, t.nb, t.data, t.ld, a + (i / grid_->p()) * nb() + (j / grid_->q()) * nb() * lld, lld);
    }
}

template <typename T> void DistMatrix<T>::from_scalapack(const T* a, int64_t lld) {
  for (int64_t j = 0; j < local_.nt(); ++j)
    for (int64_t i = 0; i < local_.mt(); ++i) {
      if (!is_local(i, j)) continue;
      const Tile<T> t = local_.tile(i, j);
      copy_block(t.mb, t.nb, a + (i / grid_->p()) * nb() + (j / grid_->q()) * nb() * lld, lld, t.data, t.ld);
    }
}

template <typename T>
DistMatrix<T> DistMatrix<T>::view_scalapack(const Grid& grid, int64_t m, int64_t n, int64_t nb, T* a, int64_t lld) {
  const int64_t mt = nb > 0 ? (m + nb - 1) / nb : 0, nt = nb > 0 ? (n + nb - 1) / nb : 0;
  std::vector<T*> tiles(static_cast<std::size_t>(mt * nt), nullptr);
  for (int64_t j = 0; j < nt; ++j)
    for (int64_t i = 0; i < mt; ++i)
      if (grid.owner(i, j) == grid.rank()) tiles[static_cast<std::size_t>(i + j * mt)] = a + (i / grid.p()) * nb + (j / grid.q()) * nb * lld;
  return DistMatrix(grid, Matrix<T>::distributed_view(m, n, nb, owners(grid, m, n, nb), grid.rank(), tiles, lld));
}

#define HETLA_INSTANTIATE(T) template class DistMatrix<T>;
HETLA_FOR_EACH_PRECISION(HETLA_INSTANTIATE)
#undef HETLA_INSTANTIATE

}  // namespace hetla::mpi
