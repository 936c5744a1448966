#include "hetla/matrix.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "context/context.hpp"
#include "runtime/runtime.hpp"
#include "util/pages.hpp"
#include "util/precision.hpp"

namespace hetla {

namespace {
/// Tile boundaries 0 = o[0] < o[1] < ... < o[t] = len of `len` cut by the
/// repeated pattern `sizes` (the last tile takes what is left).
std::vector<int64_t> cut(int64_t len, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> o{0};
  for (std::size_t k = 0; o.back() < len; k = (k + 1) % sizes.size()) o.push_back(std::min(len, o.back() + sizes[k]));
  return o;
}

void check_tiling(const Tiling& t, int pos, const char* where) {
  if (t.sizes.empty()) throw ArgumentError(pos, where, "tiling has no tile sizes");
  for (int64_t s : t.sizes)
    if (s < 1) throw ArgumentError(pos, where, "tile size < 1");
  if (!t.owners.empty() && t.owners.size() != t.sizes.size())
    throw ArgumentError(pos, where, "tiling owners must be empty or one per tile size");
  for (int d : t.owners)
    if (d < 0) throw ArgumentError(pos, where, "tiling owner < 0");
}
}  // namespace

template <typename T> struct Matrix<T>::Storage {
  int64_t m = 0, n = 0, mt = 0, nt = 0;
  Tiling tiling{{1}, {}};
  std::vector<int64_t> row_off{0}, col_off{0};  // tile boundaries: mt + 1 and nt + 1 entries
  T* base = nullptr;
  int64_t lda = 0;  // > 0: view of a column-major array; 0: owned tile-contiguous
  util::PageBuffer owned;
  std::vector<rt::Handle> handles;  // column-major over tiles
  std::vector<T*> tile_ptr;         // distributed(): per tile (column-major), null = another process's
  int64_t tile_ld = 0;              // distributed_view(): the tiles' leading dimension (0: contiguous tiles)

  void set_shape(int64_t rows, int64_t cols, Tiling t) {
    m = rows, n = cols, tiling = std::move(t);
    row_off = cut(m, tiling.sizes);
    col_off = cut(n, tiling.sizes);
    mt = static_cast<int64_t>(row_off.size()) - 1;
    nt = static_cast<int64_t>(col_off.size()) - 1;
  }
  int64_t mb_of(int64_t i) const { return row_off[i + 1] - row_off[i]; }
  int64_t nb_of(int64_t j) const { return col_off[j + 1] - col_off[j]; }
  Tile<T> tile(int64_t i, int64_t j) const {
    if (!tile_ptr.empty())
      return {tile_ptr[static_cast<std::size_t>(i + j * mt)], tile_ld > 0 ? tile_ld : mb_of(i), mb_of(i), nb_of(j)};
    if (!base) return {nullptr, mb_of(i), mb_of(i), nb_of(j)};  // empty or shape-only
    if (lda > 0) return {base + row_off[i] + col_off[j] * lda, lda, mb_of(i), nb_of(j)};
    // owned: tile column j starts at col_off[j] m; tile i in it at row_off[i] nb_of(j)
    return {base + col_off[j] * m + row_off[i] * nb_of(j), mb_of(i), mb_of(i), nb_of(j)};
  }
  void init_handles() {
    handles = std::vector<rt::Handle>(static_cast<std::size_t>(mt * nt));  // handles are not movable
    for (int64_t j = 0; j < nt; ++j)
      for (int64_t i = 0; i < mt; ++i) {
        Tile<T> t = tile(i, j);
        handles[i + j * mt].set_host(t.data, t.mb, t.nb, t.ld, sizeof(T));
      }
  }
};

template <typename T> Matrix<T>::Matrix() : store_(std::make_shared<Storage>()) {}

// nb < 1 is rejected by the tiling check (argument 3, "tile size < 1").
template <typename T> Matrix<T>::Matrix(int64_t m, int64_t n, int64_t nb) : Matrix(m, n, Tiling{{nb}, {}}) {}

template <typename T> Matrix<T>::Matrix(int64_t m, int64_t n, const Tiling& tiling) {
  if (m < 0) throw ArgumentError(1, "Matrix", "m < 0");
  if (n < 0) throw ArgumentError(2, "Matrix", "n < 0");
  check_tiling(tiling, 3, "Matrix");
  auto s = std::make_shared<Storage>();
  s->set_shape(m, n, tiling);
  std::size_t bytes = static_cast<std::size_t>(m) * static_cast<std::size_t>(n) * sizeof(T);
  if (bytes > 0) {
    s->owned = util::PageBuffer(bytes);
    if (!s->owned.zeroed()) std::memset(s->owned.get(), 0, bytes);
    s->base = static_cast<T*>(s->owned.get());
  }
  s->init_handles();
  store_ = s;
  m_ = m, n_ = n, nb_ = tiling.sizes[0], mt_ = s->mt, nt_ = s->nt;
}

template <typename T>
Matrix<T> Matrix<T>::view(int64_t m, int64_t n, T* A, int64_t lda, int64_t nb) {
  if (nb < 1) throw ArgumentError(5, "Matrix::view", "nb < 1");
  return view(m, n, A, lda, Tiling{{nb}, {}});
}

template <typename T>
Matrix<T> Matrix<T>::view(int64_t m, int64_t n, T* A, int64_t lda, const Tiling& tiling) {
  if (m < 0) throw ArgumentError(1, "Matrix::view", "m < 0");
  if (n < 0) throw ArgumentError(2, "Matrix::view", "n < 0");
  if (!A && m > 0 && n > 0) throw ArgumentError(3, "Matrix::view", "A is null");
  if (lda < std::max<int64_t>(1, m)) throw ArgumentError(4, "Matrix::view", "lda < max(1, m)");
  check_tiling(tiling, 5, "Matrix::view");
  Matrix M;
  auto s = std::make_shared<Storage>();
  s->set_shape(m, n, tiling);
  s->base = A;
  s->lda = lda;
  s->init_handles();
  M.store_ = s;
  M.m_ = m, M.n_ = n, M.nb_ = tiling.sizes[0], M.mt_ = s->mt, M.nt_ = s->nt;
  return M;
}

template <typename T> Matrix<T> Matrix<T>::shape_only(int64_t m, int64_t n, int64_t nb) {
  if (m < 0) throw ArgumentError(1, "Matrix::shape_only", "m < 0");
  if (n < 0) throw ArgumentError(2, "Matrix::shape_only", "n < 0");
  const Tiling tiling{{nb}, {}};
  check_tiling(tiling, 3, "Matrix::shape_only");
  Matrix M;
  auto s = std::make_shared<Storage>();
  s->set_shape(m, n, tiling);
  s->init_handles();
  M.store_ = s;
  M.m_ = m, M.n_ = n, M.nb_ = nb, M.mt_ = s->mt, M.nt_ = s->nt;
  return M;
}

template <typename T>
Matrix<T> Matrix<T>::distributed(int64_t m, int64_t n, int64_t nb, const std::vector<int>& ranks, int me) {
  if (m < 0) throw ArgumentError(1, "Matrix::distributed", "m < 0");
  if (n < 0) throw ArgumentError(2, "Matrix::distributed", "n < 0");
  const Tiling tiling{{nb}, {}};
  check_tiling(tiling, 3, "Matrix::distributed");
  auto s = std::make_shared<Storage>();
  s->set_shape(m, n, tiling);
  if (ranks.size() != static_cast<std::size_t>(s->mt * s->nt))
    throw ArgumentError(4, "Matrix::distributed", "ranks must name one process per tile");
  std::size_t elems = 0;  // local tiles, one after the other
  for (int64_t j = 0; j < s->nt; ++j)
    for (int64_t i = 0; i < s->mt; ++i)
      if (ranks[static_cast<std::size_t>(i + j * s->mt)] == me) elems += static_cast<std::size_t>(s->mb_of(i) * s->nb_of(j));
  if (elems > 0) {
    s->owned = util::PageBuffer(elems * sizeof(T));
    if (!s->owned.zeroed()) std::memset(s->owned.get(), 0, elems * sizeof(T));
  }
  s->tile_ptr.assign(static_cast<std::size_t>(s->mt * s->nt), nullptr);
  T* next = static_cast<T*>(s->owned.get());
  for (int64_t j = 0; j < s->nt; ++j)
    for (int64_t i = 0; i < s->mt; ++i)
      if (ranks[static_cast<std::size_t>(i + j * s->mt)] == me) {
        s->tile_ptr[static_cast<std::size_t>(i + j * s->mt)] = next;
        next += s->mb_of(i) * s->nb_of(j);
      }
  s->init_handles();
  for (std::size_t t = 0; t < ranks.size(); ++t) s->handles[t].rank = ranks[t];
  Matrix M;
  M.store_ = s;
  M.m_ = m, M.n_ = n, M.nb_ = nb, M.mt_ = s->mt, M.nt_ = s->nt;
  return M;
}

template <typename T>
Matrix<T> Matrix<T>::distributed_view(int64_t m, int64_t n, int64_t nb, const std::vector<int>& ranks, int me,
                                      const std::vector<T*>& tiles, int64_t ld) {
  if (m < 0) throw ArgumentError(1, "Matrix::distributed_view", "m < 0");
  if (n < 0) throw ArgumentError(2, "Matrix::distributed_view", "n < 0");
  const Tiling tiling{{nb}, {}};
  check_tiling(tiling, 3, "Matrix::distributed_view");
  auto s = std::make_shared<Storage>();
  s->set_shape(m, n, tiling);
  const std::size_t count = static_cast<std::size_t>(s->mt * s->nt);
  if (ranks.size() != count) throw ArgumentError(4, "Matrix::distributed_view", "ranks must name one process per tile");
  if (tiles.size() != count) throw ArgumentError(6, "Matrix::distributed_view", "tiles must hold one pointer per tile");
  s->tile_ptr.assign(count, nullptr);
  for (std::size_t t = 0; t < count; ++t)
    if (ranks[t] == me) {
      if (!tiles[t]) throw ArgumentError(6, "Matrix::distributed_view", "a tile of this process is null");
      if (ld < s->mb_of(static_cast<int64_t>(t) % s->mt))
        throw ArgumentError(7, "Matrix::distributed_view", "ld < the rows of a tile of this process");
      s->tile_ptr[t] = tiles[t];
    }
  s->tile_ld = ld;
  s->init_handles();
  for (std::size_t t = 0; t < count; ++t) s->handles[t].rank = ranks[t];
  Matrix M;
  M.store_ = s;
  M.m_ = m, M.n_ = n, M.nb_ = nb, M.mt_ = s->mt, M.nt_ = s->nt;
  return M;
}

template <typename T> const Tiling& Matrix<T>::tiling() const { return store_->tiling; }
template <typename T> bool Matrix<T>::uniform_tiles() const { return store_->tiling.uniform(); }
template <typename T> int64_t Matrix<T>::row_offset(int64_t i) const {
  return store_->row_off[i + ioff_] - store_->row_off[ioff_];
}
template <typename T> int64_t Matrix<T>::col_offset(int64_t j) const {
  return store_->col_off[j + joff_] - store_->col_off[joff_];
}
template <typename T> int Matrix<T>::tile_owner(int64_t j) const {
  const auto& own = store_->tiling.owners;
  return own.empty() ? -1 : own[static_cast<std::size_t>((j + joff_) % static_cast<int64_t>(own.size()))];
}

template <typename T> int64_t Matrix<T>::tile_mb(int64_t i) const { return store_->mb_of(i + ioff_); }
template <typename T> int64_t Matrix<T>::tile_nb(int64_t j) const { return store_->nb_of(j + joff_); }
template <typename T> bool Matrix<T>::is_view() const { return store_->lda > 0; }

template <typename T> Tile<T> Matrix<T>::tile(int64_t i, int64_t j) const {
  return store_->tile(i + ioff_, j + joff_);
}

template <typename T> rt::Handle* Matrix<T>::handle(int64_t i, int64_t j) const {
  return &store_->handles[(i + ioff_) + (j + joff_) * store_->mt];
}

template <typename T> T& Matrix<T>::at(int64_t i, int64_t j) const {
  if (store_->tiling.uniform()) {
    Tile<T> t = tile(i / nb_, j / nb_);
    return t(i % nb_, j % nb_);
  }
  // hybrid: the tile holding (i, j), found among the boundaries of the view
  const auto& ro = store_->row_off;
  const auto& co = store_->col_off;
  const int64_t gi = i + ro[ioff_], gj = j + co[joff_];
  const int64_t ti = std::upper_bound(ro.begin(), ro.end(), gi) - ro.begin() - 1;
  const int64_t tj = std::upper_bound(co.begin(), co.end(), gj) - co.begin() - 1;
  return store_->tile(ti, tj)(gi - ro[ti], gj - co[tj]);
}

template <typename T>
Matrix<T> Matrix<T>::sub(int64_t i1, int64_t i2, int64_t j1, int64_t j2) const {
  if (i1 < 0 || j1 < 0 || i2 >= mt_ || j2 >= nt_ || i1 > i2 + 1 || j1 > j2 + 1)
    throw std::out_of_range("Matrix::sub: tile range out of bounds");
  Matrix S = *this;
  S.ioff_ = ioff_ + i1;
  S.joff_ = joff_ + j1;
  S.mt_ = i2 - i1 + 1;
  S.nt_ = j2 - j1 + 1;
  S.m_ = 0;
  for (int64_t i = 0; i < S.mt_; ++i) S.m_ += S.tile_mb(i);
  S.n_ = 0;
  for (int64_t j = 0; j < S.nt_; ++j) S.n_ += S.tile_nb(j);
  return S;
}

namespace {
template <typename T> void copy_block(int64_t mb, int64_t nb, const T* src, int64_t lds, T* dst, int64_t ldd) {
  for (int64_t j = 0; j < nb; ++j) std::memcpy(dst + j * ldd, src + j * lds, sizeof(T) * mb);
}
}  // namespace

template <typename T> void Matrix<T>::copy_from(const T* A, int64_t lda) {
  if (lda < std::max<int64_t>(1, m_)) throw ArgumentError(2, "Matrix::copy_from", "lda < max(1, m)");
  detail::CallScope scope;
  auto& rt = scope.rt();
  for (int64_t j = 0; j < nt_; ++j)
    for (int64_t i = 0; i < mt_; ++i) {
      Tile<T> t = tile(i, j);
      const T* src = A + row_offset(i) + col_offset(j) * lda;
      rt.insert([t, src, lda](rt::TaskContext&) { copy_block(t.mb, t.nb, src, lda, t.data, t.ld); },
                {rt::W(handle(i, j))}, {0, "copy_in", rt::kMemoryBound});
    }
  rt.wait_all();
}

template <typename T> void Matrix<T>::copy_to(T* A, int64_t lda) const {
  if (lda < std::max<int64_t>(1, m_)) throw ArgumentError(2, "Matrix::copy_to", "lda < max(1, m)");
  detail::CallScope scope;
  auto& rt = scope.rt();
  for (int64_t j = 0; j < nt_; ++j)
    for (int64_t i = 0; i < mt_; ++i) {
      Tile<T> t = tile(i, j);
      T* dst = A + row_offset(i) + col_offset(j) * lda;
      rt.insert([t, dst, lda](rt::TaskContext&) { copy_block(t.mb, t.nb, t.data, t.ld, dst, lda); },
                {rt::R(handle(i, j))}, {0, "copy_out", rt::kMemoryBound});
    }
  rt.wait_all();
}

#define HETLA_INSTANTIATE(T) template class Matrix<T>;
HETLA_FOR_EACH_PRECISION(HETLA_INSTANTIATE)
#undef HETLA_INSTANTIATE

}  // namespace hetla
