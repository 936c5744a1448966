// Tile kernels as tasks: each call inserts one task with its data accesses.
// Algorithms (linalg/) are written only in terms of these, never a device:
// the runtime places the task and the body runs that device's kernel.
// Each body calls the kernel table of the device the task was placed on,
// with the task's data as it lies in that device's memory (ctx.ptr / ctx.ld,
// in the order of the accesses). This header holds what every task wrapper
// shares (tasks/blas3.hpp, cholesky.hpp, lu.hpp, qr.hpp, matfun.hpp hold the
// wrappers).
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "hetla/matrix.hpp"
#include "devices/device.hpp"
#include "runtime/runtime.hpp"

namespace hetla::tile {

/// A tile of a matrix together with its runtime handle.
template <typename T> struct Ref {
  Tile<T> t;
  rt::Handle* h;
};
template <typename T> Ref<T> ref(const Matrix<T>& A, int64_t i, int64_t j) {
  return {A.tile(i, j), A.handle(i, j)};
}

/// Shared state of one factorization: the LAPACK `info` and the step at which
/// the factorization stopped (tasks of that step or later are skipped, so the
/// leading columns hold the factor exactly as LAPACK leaves them).
struct Status {
  std::atomic<int64_t> info{0};
  std::atomic<int64_t> stop_step{std::numeric_limits<int64_t>::max()};
  bool skips(int64_t step) const { return step >= stop_step.load(std::memory_order_acquire); }
  void fail(int64_t step, int64_t global_info) {
    int64_t s = stop_step.load();
    while (step < s && !stop_step.compare_exchange_weak(s, step)) {}
    int64_t i = info.load();
    while ((i == 0 || global_info < i) && !info.compare_exchange_weak(i, global_info)) {}
  }
};

struct Opts {
  int priority = 0;
  int64_t step = 0;          // algorithm step the task belongs to
  Status* status = nullptr;  // optional: skip once the algorithm stopped
  bool panel = false;        // part of the panel factorization (critical path)
  bool skipped() const { return status && status->skips(step); }
};

/// Flop-count factor of one multiply-add in T relative to real arithmetic.
template <typename T> constexpr double flop_scale() { return is_complex_v<T> ? 4.0 : 1.0; }
/// Placement flag of a task computing in T: double-precision tasks only go to
/// devices with fp64. Every task with a KernelId ORs it into its flags.
template <typename T> constexpr uint32_t fp64_flag() { return std::is_same_v<real_t<T>, double> ? rt::kFp64 : 0u; }

/// What one process holds of the tile range rows [i1, mt) x columns
/// [j1, j2] of a matrix spread over processes: under a 2-D block-cyclic
/// layout a row set x a column set (every tile of those rows and columns).
struct OwnedTiles {
  int rank = 0;
  std::vector<int64_t> rows, cols;
};
/// Each process's OwnedTiles of that range, in the order of first
/// appearance (column by column).
template <typename T> std::vector<OwnedTiles> owned_tiles(const Matrix<T>& M, int64_t i1, int64_t j1, int64_t j2) {
  std::vector<OwnedTiles> out;
  for (int64_t j = j1; j <= j2; ++j)
    for (int64_t i = i1; i < M.mt(); ++i) {
      const int r = M.handle(i, j)->rank;
      auto it = std::find_if(out.begin(), out.end(), [r](const OwnedTiles& o) { return o.rank == r; });
      if (it == out.end()) it = out.insert(out.end(), OwnedTiles{r, {}, {}});
      if (it->cols.empty() || it->cols.back() != j) it->cols.push_back(j);
      if (j == it->cols.front()) it->rows.push_back(i);
    }
  return out;
}

/// A panel task's vendor call that rejected an argument (info < 0, LAPACK's
/// position) is a bug of ours, never a result: the task fails with it.
inline void throw_if_rejected(int64_t info, const char* task) {
  if (info < 0) throw std::logic_error(std::string(task) + ": LAPACK rejected argument " + std::to_string(-info));
}

/// Rows of tiles of mb[t] rows one below the other (or columns of tiles
/// side by side).
inline int64_t sum_sizes(const std::vector<int64_t>& sizes) {
  int64_t sum = 0;
  for (int64_t s : sizes) sum += s;
  return sum;
}

/// Whether accesses first .. first + mb.size() - 1 of a task, tiles of mb[t]
/// rows and `height` = sum_sizes(mb) rows in all, lie one below the other
/// with one leading dimension (a process's tiles of a tile column in its
/// local array): one column-major block in place.
template <typename T>
bool tiles_form_block(const rt::TaskContext& c, int first, const std::vector<int64_t>& mb, int64_t height) {
  bool block = c.ld(first) >= height;
  for (int t = 1; t < static_cast<int>(mb.size()) && block; ++t)
    block = c.ld(first + t) == c.ld(first) && c.ptr<T>(first + t) == c.ptr<T>(first + t - 1) + mb[t - 1];
  return block;
}

/// Copies accesses first .. first + mb.size() - 1 of a task, tiles of mb[t]
/// rows and `cols` columns, one below the other into `to` (column-major,
/// leading dimension ld = sum_sizes(mb)).
template <typename T>
void pack_tiles(const rt::TaskContext& c, int first, const std::vector<int64_t>& mb, int64_t cols, T* to, int64_t ld) {
  for (int t = 0, r0 = 0; t < static_cast<int>(mb.size()); r0 += static_cast<int>(mb[t]), ++t)
    for (int64_t q = 0; q < cols; ++q)
      std::copy_n(c.ptr<T>(first + t) + q * c.ld(first + t), mb[t], to + r0 + q * ld);
}

/// Accesses first .. first + mb.size() - 1 of a task, tiles of mb[t] rows
/// and `cols` columns, as one column-major block of sum(mb) rows: in place
/// where they form one (tiles_form_block), else packed into `pack`. Returns
/// the block and its leading dimension; `packed` says which.
/// unpack_tiles() writes a packed block back.
template <typename T>
std::pair<T*, int64_t> tiles_as_block(const rt::TaskContext& c, int first, const std::vector<int64_t>& mb,
                                      int64_t cols, std::vector<T>& pack, bool& packed) {
  const int64_t height = sum_sizes(mb);
  packed = !tiles_form_block<T>(c, first, mb, height);
  if (!packed) return {c.ptr<T>(first), c.ld(first)};
  pack.resize(static_cast<std::size_t>(height * cols));
  pack_tiles(c, first, mb, cols, pack.data(), height);
  return {pack.data(), height};
}
template <typename T>
void unpack_tiles(const rt::TaskContext& c, int first, const std::vector<int64_t>& mb, int64_t cols, const T* block,
                  int64_t ld) {
  for (int t = 0, r0 = 0; t < static_cast<int>(mb.size()); r0 += static_cast<int>(mb[t]), ++t)
    for (int64_t q = 0; q < cols; ++q)
      std::copy_n(block + r0 + q * ld, mb[t], c.ptr<T>(first + t) + q * c.ld(first + t));
}

/// tiles_as_block for a grid of tiles: accesses first .. first + mb.size() *
/// nb.size() - 1, column by column (tile (p, q) is access first + p + q *
/// mb.size(), mb[p] x nb[q]), as one column-major block of sum(mb) x sum(nb):
/// in place where they lie as one block of a column-major array (a process's
/// tiles of a row and a column range in its local array), else packed.
template <typename T>
std::pair<T*, int64_t> tiles_as_grid(const rt::TaskContext& c, int first, const std::vector<int64_t>& mb,
                                     const std::vector<int64_t>& nb, std::vector<T>& pack, bool& packed) {
  const int64_t height = sum_sizes(mb), width = sum_sizes(nb);
  const int gm = static_cast<int>(mb.size()), gn = static_cast<int>(nb.size());
  const int64_t ld = c.ld(first);
  T* const base = c.ptr<T>(first);
  bool block = ld >= height;
  for (int q = 0, c0 = 0; q < gn && block; c0 += static_cast<int>(nb[q]), ++q)
    for (int p = 0, r0 = 0; p < gm && block; r0 += static_cast<int>(mb[p]), ++p)
      block = c.ld(first + p + q * gm) == ld && c.ptr<T>(first + p + q * gm) == base + r0 + c0 * ld;
  packed = !block;
  if (block) return {base, ld};
  pack.resize(static_cast<std::size_t>(height * width));
  for (int q = 0, c0 = 0; q < gn; c0 += static_cast<int>(nb[q]), ++q)
    for (int p = 0, r0 = 0; p < gm; r0 += static_cast<int>(mb[p]), ++p) {
      const int a = first + p + q * gm;
      for (int64_t col = 0; col < nb[q]; ++col)
        std::copy_n(c.ptr<T>(a) + col * c.ld(a), mb[p], pack.data() + r0 + (c0 + col) * height);
    }
  return {pack.data(), height};
}
template <typename T>
void unpack_grid(const rt::TaskContext& c, int first, const std::vector<int64_t>& mb, const std::vector<int64_t>& nb,
                 const T* block, int64_t ld) {
  const int gm = static_cast<int>(mb.size());
  for (int q = 0, c0 = 0; q < static_cast<int>(nb.size()); c0 += static_cast<int>(nb[q]), ++q)
    for (int p = 0, r0 = 0; p < gm; r0 += static_cast<int>(mb[p]), ++p) {
      const int a = first + p + q * gm;
      for (int64_t col = 0; col < nb[q]; ++col)
        std::copy_n(block + r0 + (c0 + col) * ld, mb[p], c.ptr<T>(a) + col * c.ld(a));
    }
}

}  // namespace hetla::tile
