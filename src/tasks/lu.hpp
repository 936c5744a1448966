// Tile tasks of LU with partial pivoting: the panel factorization of a tile
// column, row interchanges on a tile column, and the trailing GEMM on a block
// of tiles. They span several tiles (the pivot search and the interchanges
// reach every row below the diagonal), so they access every tile they touch.
// Pivots are LAPACK's: ipiv[r] (1-based) is the row interchanged with row
// r + 1, rows counted from the top of the whole matrix.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/host/lapack_lu.hpp"
#include "memory/tile_block.hpp"
#include "tasks/blas3.hpp"
#include "tasks/shared_panel.hpp"
#include "tasks/tile.hpp"
#include "util/pages.hpp"

namespace hetla::tile {

/// LU keeps factoring past a zero pivot (as LAPACK does): records the first
/// one in `status.info` without stopping the algorithm.
inline void record_info(Status& status, int64_t global_info) {
  int64_t i = status.info.load();
  while ((i == 0 || global_info < i) && !status.info.compare_exchange_weak(i, global_info)) {}
}

namespace detail {

/// Accesses of tiles (i1..mt-1, j) in `mode`.
template <typename T>
std::vector<rt::Access> column_accesses(const Matrix<T>& A, int64_t j, int64_t i1, rt::Mode mode) {
  std::vector<rt::Access> acc;
  acc.reserve(static_cast<std::size_t>(A.mt() - i1 + 1));
  for (int64_t i = i1; i < A.mt(); ++i) acc.push_back({A.handle(i, j), mode});
  return acc;
}

}  // namespace detail

/// Panel factorization P A(k:, k) = L U of tile column k from tile row k down
/// (LAPACK getrf on the panel, in place when it is column-major contiguous,
/// else through a workspace). With r0 = A.row_offset(k), writes
/// ipiv[r0 .. r0 + min(rows, cols)) as
/// whole-matrix rows and `piv` (the handle that orders readers of those
/// pivots); a zero pivot is recorded in `status` and the factorization goes on.
template <typename T>
void getrf_panel(rt::Runtime& rt, const Matrix<T>& A, int64_t k, int64_t* ipiv, rt::Handle* piv, Status* status,
                 int priority) {
  auto acc = detail::column_accesses(A, k, k, rt::Mode::ReadWrite);
  const int64_t row0 = A.row_offset(k), npiv = std::min(A.m() - row0, A.tile_nb(k));
  if (const int owner = A.handle(k, k)->rank; owner >= 0) {
    // A distributed matrix (runtime/comm.hpp): the pivots are data that
    // travel with the panel's diagonal tile to the processes whose row
    // interchanges read them (into their own ipiv). Elsewhere `piv` stays a
    // token, so no device copies it.
    piv->set_host(ipiv + row0, npiv, 1, npiv, sizeof(int64_t));
    piv->rank = owner;
  }
  acc.push_back(rt::W(piv));
  const double rows = static_cast<double>(A.m() - row0), cols = static_cast<double>(A.tile_nb(k));
  const double lo = std::min(rows, cols), hi = std::max(rows, cols);
  const double flops = flop_scale<T>() * (hi * lo * lo - lo * lo * lo / 3.0);
  rt.insert(
      [A, k, ipiv, status](rt::TaskContext& c) {
        const int64_t row0 = A.row_offset(k), ntiles = A.mt() - k;
        // The tiles as the task sees them: the caller's, or (distributed)
        // copies of other processes' tiles.
        bool callers = true;
        for (int64_t t = 0; t < ntiles; ++t) callers = callers && c.ptr<T>(static_cast<int>(t)) == A.tile(k + t, k).data;
        int64_t info;
        std::vector<lapack_int> lp;
        const auto P = callers ? hetla::detail::as_block(A, k, A.mt() - 1, k, k) : std::nullopt;
        if (P) {  // in place
          lp.resize(static_cast<std::size_t>(std::min(P->mb, P->nb)));
          info = blas::getrf(P->mb, P->nb, P->data, P->ld, lp.data());
        } else {
          const int64_t rows = A.m() - row0, cols = A.tile_nb(k);
          lp.resize(static_cast<std::size_t>(std::min(rows, cols)));
          // Reused per thread: a fresh std::vector of this panel (n = 4000, nb
          // 256: 8 MB) cost 0.36 ms of zeroing and faults against the task's 3.8.
          T* const W = util::thread_scratch<T>(static_cast<std::size_t>(rows * cols), util::ScratchSlot::Panel);
          auto each_tile = [&](auto&& f) {
            for (int64_t t = 0, r = 0; t < ntiles; r += A.tile_mb(k + t), ++t)
              for (int64_t j = 0; j < cols; ++j)
                f(c.ptr<T>(static_cast<int>(t)) + j * c.ld(static_cast<int>(t)), W + r + j * rows,
                  A.tile_mb(k + t));
          };
          each_tile([](const T* tile, T* w, int64_t mb) { std::copy_n(tile, mb, w); });
          info = blas::getrf(rows, cols, W, rows, lp.data());
          each_tile([](T* tile, const T* w, int64_t mb) { std::copy_n(w, mb, tile); });
        }
        throw_if_rejected(info, "getrf panel");
        for (std::size_t r = 0; r < lp.size(); ++r) ipiv[row0 + static_cast<int64_t>(r)] = row0 + lp[r];
        if (info > 0) record_info(*status, row0 + info);
      },
      acc.data(), acc.size(), {priority, "getrf_panel", rt::kHostOnly, dev::KernelId::None, flops});
}

/// Row interchanges k1..k2-1 (0-based rows of the whole matrix, pivots in
/// ipiv) applied to tile column j, forward (as factored) or backward (to undo
/// them). Reads the handles in `pivots`, written by the pivots' producers.
/// The interchanges run in the kernel table of the device the task is placed
/// on, so a trailing column held by an accelerator stays there (devices
/// without a laswp kernel, CUDA today, leave it to the host);
/// `on_host` keeps them on the host cores (for columns the host holds).
template <typename T>
void laswp(rt::Runtime& rt, const Matrix<T>& A, int64_t j, const int64_t* ipiv, int64_t k1, int64_t k2, bool forward,
           std::span<rt::Handle> pivots, int priority, bool on_host = false) {
  if (k2 <= k1) return;
  const int64_t i1 = hetla::detail::tile_row_of(A, k1);
  auto acc = detail::column_accesses(A, j, i1, rt::Mode::ReadWrite);
  const int64_t ntiles = static_cast<int64_t>(acc.size());
  for (rt::Handle& h : pivots) acc.push_back(rt::R(&h));
  const int64_t cols = A.tile_nb(j), row0 = A.row_offset(i1);
  std::vector<int64_t> mb(static_cast<std::size_t>(ntiles));
  for (int64_t t = 0; t < ntiles; ++t) mb[static_cast<std::size_t>(t)] = A.tile_mb(i1 + t);
  rt.insert(
      [=](rt::TaskContext& c) {
        // Each interchange as two rows counted from the column's top, resolved
        // once on the host (ipiv is host memory); the device swaps them.
        std::vector<int64_t> rows;
        rows.reserve(static_cast<std::size_t>(2 * (k2 - k1)));
        for (int64_t s = 0; s < k2 - k1; ++s) {
          const int64_t r = forward ? k1 + s : k2 - 1 - s, p = ipiv[r] - 1;
          if (p != r) rows.insert(rows.end(), {r - row0, p - row0});
        }
        if (rows.empty()) return;
        std::vector<T*> tiles(static_cast<std::size_t>(ntiles));
        std::vector<int64_t> ld(static_cast<std::size_t>(ntiles));
        for (int64_t t = 0; t < ntiles; ++t) {
          const auto ut = static_cast<std::size_t>(t);
          tiles[ut] = c.ptr<T>(static_cast<int>(t));
          ld[ut] = c.ld(static_cast<int>(t));
        }
        c.kernels<T>().laswp(cols, ntiles, tiles.data(), mb.data(), ld.data(),
                             static_cast<int64_t>(rows.size() / 2), rows.data());
      },
      acc.data(), acc.size(), {priority, "laswp", (on_host ? rt::kMemoryBound : rt::kNoFlags) | fp64_flag<T>(), dev::KernelId::Laswp});
}

/// gemm_block for a matrix whose tiles are spread over processes (host cores
/// only): one task per process for the tiles it holds of the block, one GEMM
/// (its rows x its columns x nb). A process's tiles of a row set and a column
/// set lie as one block of its local array (mpi::DistMatrix), so C and B are
/// in place; the A tiles it reads from another process are packed once per
/// step (detail::SharedPanel) rather than once per tile column (a GEMM per
/// tile column: getrf n = 8000 on 1 x 2 processes, best of 4 runs of 4,
/// alternated, on a loaded machine: 4.88 s against 5.51 s; one rank was idle
/// 16 % of the time).
template <typename T>
void gemm_block_by_owner(rt::Runtime& rt, const Matrix<T>& M, int64_t k, int64_t i1, int64_t j1, int64_t j2, Opts o) {
  for (const OwnedTiles& own : owned_tiles(M, i1, j1, j2)) {
    const int r = own.rank;
    const std::vector<int64_t>& rows = own.rows;
    const std::vector<int64_t>& cols = own.cols;
    std::vector<rt::Access> acc;
    std::vector<int64_t> mb, nb, kb{M.tile_mb(k)};  // kb: B's rows
    for (int64_t i : rows) acc.push_back(rt::R(M.handle(i, k))), mb.push_back(M.tile_mb(i));
    for (int64_t j : cols) acc.push_back(rt::R(M.handle(k, j))), nb.push_back(M.tile_nb(j));
    for (int64_t j : cols)
      for (int64_t i : rows) {
        if (M.handle(i, j)->rank != r) throw std::logic_error("gemm_block_by_owner: not a block-cyclic owner");
        acc.push_back(rt::RW(M.handle(i, j)));
      }
    const int gm = static_cast<int>(rows.size()), gn = static_cast<int>(cols.size());
    const int64_t height = sum_sizes(mb), width = sum_sizes(nb);
    const int64_t kk = M.tile_nb(k);
    std::shared_ptr<detail::SharedPanel<T>> panel = detail::shared_panel<T>(M.handle(i1, k), r);
    rt.insert(
        [=](rt::TaskContext& c) {
          thread_local std::vector<T> apack, bpack, cpack;
          bool bp = false, cp = false;
          const auto [Ab, lda] = detail::panel_as_block(c, mb, kk, *panel, apack);
          const auto [Bb, ldb] = tiles_as_grid(c, gm, kb, nb, bpack, bp);
          const auto [Cb, ldc] = tiles_as_grid(c, gm + gn, mb, nb, cpack, cp);
          blas::gemm(Op::NoTrans, Op::NoTrans, height, width, kk, T(-1), Ab, lda, Bb, ldb, T(1), Cb, ldc);
          if (cp) unpack_grid(c, gm + gn, mb, nb, Cb, ldc);
        },
        acc.data(), acc.size(),
        {o.priority, "gemm", rt::kHostOnly, dev::KernelId::None,
         2.0 * flop_scale<T>() * static_cast<double>(height * width * kk), -1, gm});
  }
}

/// C -= A B on tile ranges: C = tiles [i1, mt) x [j1, j2], A = tile column k
/// rows [i1, mt), B = tile row k columns [j1, j2]. On the host alone, with
/// the three laid out as column-major blocks (views of a column-major array),
/// this is one task and one GEMM call, so the kernel packs each operand once;
/// otherwise one tile GEMM task per tile of C (which accelerators can run).
template <typename T>
void gemm_block(rt::Runtime& rt, const Matrix<T>& M, int64_t k, int64_t i1, int64_t j1, int64_t j2, Opts o) {
  const int64_t i2 = M.mt() - 1;
  if (i1 > i2 || j1 > j2) return;
  std::optional<Tile<T>> a, b, c;
  if (rt.num_devices() == 1) {
    a = hetla::detail::as_block(M, i1, i2, k, k);
    b = hetla::detail::as_block(M, k, k, j1, j2);
    c = hetla::detail::as_block(M, i1, i2, j1, j2);
  }
  if (!a || !b || !c) {  // one GEMM per tile column where its tiles form a block, else per tile
    if (rt.num_devices() == 1 && M.handle(i1, j1)->rank >= 0) {  // tiles spread over processes
      gemm_block_by_owner(rt, M, k, i1, j1, j2, o);
      return;
    }
    for (int64_t j = j1; j <= j2; ++j) tile::gemm_column(rt, Op::NoTrans, T(-1), M, i1, k, ref(M, k, j), T(1), j, o);
    return;
  }
  std::vector<rt::Access> acc;
  for (int64_t i = i1; i <= i2; ++i) acc.push_back(rt::R(M.handle(i, k)));
  for (int64_t j = j1; j <= j2; ++j) acc.push_back(rt::R(M.handle(k, j)));
  for (int64_t j = j1; j <= j2; ++j)
    for (int64_t i = i1; i <= i2; ++i) acc.push_back(rt::RW(M.handle(i, j)));
  const double flops = 2.0 * flop_scale<T>() * static_cast<double>(c->mb) * c->nb * a->nb;
  rt.insert(
      [A = *a, B = *b, C = *c](rt::TaskContext&) {
        blas::gemm(Op::NoTrans, Op::NoTrans, C.mb, C.nb, A.nb, T(-1), A.data, A.ld, B.data, B.ld, T(1), C.data, C.ld);
      },
      acc.data(), acc.size(), {o.priority, "gemm", rt::kHostOnly, dev::KernelId::None, flops});
}

}  // namespace hetla::tile
