// Level-3 BLAS as tasks: the tile kernels every algorithm uses (trsm, herk,
// gemm), the tasks of the level-3 BLAS routines (linalg/gemm.cc, herk.cc,
// trsm.cc), and their host slices: one BLAS call per host worker on a block
// of column-major operands.
#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "kernels/host/blas.hpp"
#include "memory/tile_block.hpp"
#include "tasks/shared_panel.hpp"
#include "tasks/tile.hpp"

namespace hetla::tile {

/// B = alpha op(A)^-1 B (Left) or alpha B op(A)^-1 (Right), A triangular.
template <typename T>
void trsm(rt::Runtime& rt, Side side, Uplo uplo, Op op, Diag diag, T alpha, Ref<T> A, Ref<T> B, Opts o) {
  const int64_t m = B.t.mb, n = B.t.nb;
  rt.insert(
      [=](rt::TaskContext& c) {
        if (o.skipped()) return;
        c.kernels<T>().trsm(side, uplo, op, diag, m, n, alpha, c.ptr<T>(0), c.ld(0), c.ptr<T>(1), c.ld(1));
      },
      {rt::R(A.h), rt::RW(B.h)},
      {o.priority, "trsm", (o.panel ? rt::kPanel : rt::kNoFlags) | fp64_flag<T>(), dev::KernelId::Trsm,
       flop_scale<T>() * m * n * static_cast<double>(side == Side::Left ? m : n)});
}

/// C = alpha op(A) op(A)^H + beta C on the `uplo` triangle (syrk for real T).
/// When C's other triangle is scratch (TriangleScope) a device that prefers
/// it computes the whole tile with one GEMM (Device::herk_as_gemm).
template <typename T>
void herk(rt::Runtime& rt, Uplo uplo, Op op, real_t<T> alpha, Ref<T> A, real_t<T> beta, Ref<T> C, Opts o) {
  const int64_t n = C.t.mb, k = op == Op::NoTrans ? A.t.nb : A.t.mb;
  using Tri = rt::Handle::Triangle;
  const bool scratch = C.h->triangle == (uplo == Uplo::Lower ? Tri::Lower : Tri::Upper);
  rt.insert(
      [=](rt::TaskContext& c) {
        if (o.skipped()) return;
        if (scratch && c.device->herk_as_gemm()) {
          const Op second = op == Op::NoTrans ? Op::ConjTrans : Op::NoTrans;
          c.kernels<T>().gemm(op == Op::NoTrans ? Op::NoTrans : Op::ConjTrans, second, n, n, k, T(alpha),
                              c.ptr<T>(0), c.ld(0), c.ptr<T>(0), c.ld(0), T(beta), c.ptr<T>(1), c.ld(1));
          return;
        }
        c.kernels<T>().herk(uplo, op, n, k, alpha, c.ptr<T>(0), c.ld(0), beta, c.ptr<T>(1), c.ld(1));
      },
      {rt::R(A.h), rt::RW(C.h)},
      {o.priority, "herk", fp64_flag<T>(), dev::KernelId::Herk, flop_scale<T>() * n * n * static_cast<double>(k)});
}

/// C = alpha op(A) op(B) + beta C.
template <typename T>
void gemm(rt::Runtime& rt, Op opa, Op opb, T alpha, Ref<T> A, Ref<T> B, T beta, Ref<T> C, Opts o) {
  const int64_t m = C.t.mb, n = C.t.nb, k = opa == Op::NoTrans ? A.t.nb : A.t.mb;
  rt.insert(
      [=](rt::TaskContext& c) {
        if (o.skipped()) return;
        c.kernels<T>().gemm(opa, opb, m, n, k, alpha, c.ptr<T>(0), c.ld(0), c.ptr<T>(1), c.ld(1), beta,
                            c.ptr<T>(2), c.ld(2));
      },
      {rt::R(A.h), rt::R(B.h), rt::RW(C.h)},
      {o.priority, "gemm", fp64_flag<T>(), dev::KernelId::Gemm, 2.0 * flop_scale<T>() * m * n * static_cast<double>(k)});
}

/// gemm_column for a matrix whose tiles are spread over processes (host
/// cores only): one task per process for the tiles it holds of column j.
/// They lie one below the other in its local array (mpi::DistMatrix), so the
/// task is one tall GEMM; the A tiles it reads from another process arrive
/// there as one block (TaskOptions::block_reads), or where they cannot, as
/// separate buffers packed into one once per step and process
/// (detail::SharedPanel; rows x nb copied for 2 rows nb^2 flops).
/// Per-tile 192^3 GEMMs made the
/// distributed getrf n = 8000 on 1 x 2 processes 0.86x of ScaLAPACK, whose
/// updates are one GEMM per step.
template <typename T>
void gemm_column_by_owner(rt::Runtime& rt, Op opb, T alpha, const Matrix<T>& M, int64_t i1, int64_t k, Ref<T> B,
                          T beta, int64_t j, Opts o) {
  for (const OwnedTiles& own : owned_tiles(M, i1, j, j)) {
    const std::vector<int64_t>& rows = own.rows;  // tile rows of process own.rank
    if (rows.size() == 1) {
      gemm(rt, Op::NoTrans, opb, alpha, ref(M, rows[0], k), B, beta, ref(M, rows[0], j), o);
      continue;
    }
    const int g = static_cast<int>(rows.size());
    std::vector<rt::Access> acc;
    std::vector<int64_t> mb;
    for (int64_t i : rows) acc.push_back(rt::R(M.handle(i, k))), mb.push_back(M.tile_mb(i));
    acc.push_back(rt::R(B.h));
    for (int64_t i : rows) acc.push_back(rt::RW(M.handle(i, j)));
    const int64_t height = sum_sizes(mb);
    const int64_t n = M.tile_nb(j), kk = M.tile_nb(k);
    // One pack of the panel per step and process: column j reads its rows
    // j+1.., a tail of what the step's first column packed.
    std::shared_ptr<detail::SharedPanel<T>> panel = detail::shared_panel<T>(M.handle(k, k), own.rank);
    rt.insert(
        [=](rt::TaskContext& c) {
          if (o.skipped()) return;
          thread_local std::vector<T> apack, cpack;
          bool cp = false;
          const auto [Ab, lda] = detail::panel_as_block(c, mb, kk, *panel, apack);
          const auto [Cb, ldc] = tiles_as_block(c, g + 1, mb, n, cpack, cp);
          blas::gemm(Op::NoTrans, opb, height, n, kk, alpha, Ab, lda, c.ptr<T>(g), c.ld(g), beta, Cb, ldc);
          if (cp) unpack_tiles(c, g + 1, mb, n, Cb, ldc);
        },
        acc.data(), acc.size(),
        {o.priority, "gemm", rt::kHostOnly, dev::KernelId::None,
         2.0 * flop_scale<T>() * static_cast<double>(height * n * kk), -1, g});
  }
}

/// C = alpha op(A) op(B) + beta C for matrices whose tiles are spread over
/// processes (host cores only), as SUMMA: for each k panel l, each process
/// updates the C tiles it holds, a few blocks of them, each block one GEMM
/// (rows x cols x nb), the op(A) tiles of panel l it reads from another
/// process packed into one block first (tiles_as_grid; its own tiles and
/// its C and B blocks lie in place in its local array, mpi::DistMatrix).
/// One task per tile (i, j, l) made the distributed gemm n = 8000 on 1 x 2
/// processes 0.78x of one 2-core process (nb^3 GEMMs pack both operands for
/// nb^3 flops each). Returns false, inserting nothing, when C is not
/// distributed (or its owners do not hold row x column sets of tiles).
///
/// Blocks: about 8192 rows x 4096 columns (the packing of op(A) is paid once
/// per block column, OpenBLAS's of op(B) once per block), cut further until a
/// process has at least one block per host worker. Single core, K = 256:
/// 8000 x 4000 blocks ran 96 GFLOP/s, 4000 x 2000 91; gemm n = 8000 on 1 x 2
/// processes went from 0.86-0.87 of one 2-core process to 0.90-0.94 (4 A/B
/// pairs: +1.6 to +10 %). Each process cuts every process's blocks with its own worker
/// count, yet all agree on the transfers: a process reads op(A) tiles of panel
/// l in increasing row order and B tiles in increasing column order whatever
/// the cut, and on a block-cyclic grid the two come from different processes
/// (A from its process row, B from its process column).
template <typename T>
bool gemm_by_owner(rt::Runtime& rt, Op opa, Op opb, T alpha, const Matrix<T>& A, const Matrix<T>& B, T beta,
                   const Matrix<T>& C) {
  if (rt.num_devices() != 1) return false;
  const int64_t mt = C.mt(), nt = C.nt(), kt = opa == Op::NoTrans ? A.nt() : A.mt();
  if (mt == 0 || nt == 0 || kt == 0) return false;
  struct Owned {
    int rank;
    std::vector<int64_t> rows, cols;  // tile indices of C, increasing
  };
  std::vector<Owned> owners;
  std::vector<int64_t> count;
  for (int64_t j = 0; j < nt; ++j)
    for (int64_t i = 0; i < mt; ++i) {
      const int r = C.handle(i, j)->rank;
      if (r < 0) return false;
      auto it = std::find_if(owners.begin(), owners.end(), [r](const Owned& o) { return o.rank == r; });
      if (it == owners.end()) {
        owners.push_back({r, {}, {}});
        count.push_back(0);
        it = owners.end() - 1;
      }
      ++count[static_cast<std::size_t>(it - owners.begin())];
      if (std::find(it->rows.begin(), it->rows.end(), i) == it->rows.end()) it->rows.push_back(i);
      if (it->cols.empty() || it->cols.back() != j) it->cols.push_back(j);
    }
  for (std::size_t o = 0; o < owners.size(); ++o) {
    auto& w = owners[o];
    std::sort(w.rows.begin(), w.rows.end());
    if (count[o] != static_cast<int64_t>(w.rows.size() * w.cols.size())) return false;
    for (int64_t i : w.rows)
      for (int64_t j : w.cols)
        if (C.handle(i, j)->rank != w.rank) return false;
  }
  // Each owner's blocks: [row chunk][column chunk] as tile index ranges
  struct Block {
    std::vector<int64_t> rows, cols;
  };
  std::vector<std::vector<Block>> blocks(owners.size());
  const int64_t workers = std::max(1, rt.num_host_workers());
  for (std::size_t o = 0; o < owners.size(); ++o) {
    const auto& w = owners[o];
    int64_t height = 0, width = 0;
    for (int64_t i : w.rows) height += C.tile_mb(i);
    for (int64_t j : w.cols) width += C.tile_nb(j);
    const int64_t R = static_cast<int64_t>(w.rows.size()), Q = static_cast<int64_t>(w.cols.size());
    int64_t nr = std::min(R, (height + 8191) / 8192), nc = std::min(Q, (width + 4095) / 4096);
    while (nr * nc < workers && (nr < R || nc < Q)) {
      // cut the longer side of the blocks
      if (nc < Q && (nr >= R || width * nr >= height * nc)) ++nc;
      else ++nr;
    }
    for (int64_t p = 0; p < nr; ++p)
      for (int64_t q = 0; q < nc; ++q) {
        Block b;
        b.rows.assign(w.rows.begin() + R * p / nr, w.rows.begin() + R * (p + 1) / nr);
        b.cols.assign(w.cols.begin() + Q * q / nc, w.cols.begin() + Q * (q + 1) / nc);
        blocks[o].push_back(std::move(b));
      }
  }
  std::vector<rt::Access> acc;
  for (int64_t l = 0; l < kt; ++l) {
    const int64_t kk = opa == Op::NoTrans ? A.tile_nb(l) : A.tile_mb(l);
    const T b_l = l == 0 ? beta : T(1);
    for (const auto& owned : blocks)
      for (const Block& blk : owned) {
        std::vector<int64_t> mb, nb;
        for (int64_t i : blk.rows) mb.push_back(C.tile_mb(i));
        for (int64_t j : blk.cols) nb.push_back(C.tile_nb(j));
        const int ga = static_cast<int>(mb.size()), gb = static_cast<int>(nb.size());
        acc.clear();
        for (int64_t i : blk.rows) acc.push_back(rt::R(opa == Op::NoTrans ? A.handle(i, l) : A.handle(l, i)));
        for (int64_t j : blk.cols) acc.push_back(rt::R(opb == Op::NoTrans ? B.handle(l, j) : B.handle(j, l)));
        for (int64_t j : blk.cols)
          for (int64_t i : blk.rows) acc.push_back(rt::RW(C.handle(i, j)));
        const int64_t height = sum_sizes(mb), width = sum_sizes(nb);
        const std::vector<int64_t> one{kk};
        rt.insert(
            [=](rt::TaskContext& c) {
              thread_local std::vector<T> apack, bpack, cpack;
              bool ap = false, bp = false, cp = false;
              const auto [Ab, lda] = opa == Op::NoTrans ? tiles_as_grid(c, 0, mb, one, apack, ap)
                                                        : tiles_as_grid(c, 0, one, mb, apack, ap);
              const auto [Bb, ldb] = opb == Op::NoTrans ? tiles_as_grid(c, ga, one, nb, bpack, bp)
                                                        : tiles_as_grid(c, ga, nb, one, bpack, bp);
              const auto [Cb, ldc] = tiles_as_grid(c, ga + gb, mb, nb, cpack, cp);
              blas::gemm(opa, opb, height, width, kk, alpha, Ab, lda, Bb, ldb, b_l, Cb, ldc);
              if (cp) unpack_grid(c, ga + gb, mb, nb, Cb, ldc);
            },
            acc.data(), acc.size(),
            {static_cast<int>(kt - l), "gemm", rt::kHostOnly, dev::KernelId::None,
             2.0 * flop_scale<T>() * static_cast<double>(height * width) * static_cast<double>(kk)});
      }
  }
  return true;
}

namespace detail {
/// One host task C = alpha op(A) op(B) + beta C on blocks that are views of
/// a column-major array (hetla::detail::as_block), with the accesses of their tiles.
template <typename T>
void insert_block_gemm(rt::Runtime& rt, Op opa, Op opb, T alpha, const Tile<T>& A, const Tile<T>& B, T beta,
                       const Tile<T>& C, const std::vector<rt::Access>& acc, Opts o) {
  const int64_t k = opa == Op::NoTrans ? A.nb : A.mb;
  rt.insert(
      [=](rt::TaskContext&) {  // host memory: the blocks are views of the user's array
        if (o.skipped()) return;
        blas::gemm(opa, opb, C.mb, C.nb, k, alpha, A.data, A.ld, B.data, B.ld, beta, C.data, C.ld);
      },
      acc.data(), acc.size(),
      {o.priority, "gemm", rt::kHostOnly, dev::KernelId::None,
       2.0 * flop_scale<T>() * static_cast<double>(C.mb * C.nb * k)});
}

/// insert_block_gemm for the update of tile column j, rows i1..i2 (block C),
/// from block A, whose tile for row i has the handle a_handle(i), and tile B.
template <typename T, typename AHandle>
void insert_column_gemm(rt::Runtime& rt, Op opa, Op opb, T alpha, const Tile<T>& A, AHandle a_handle, Ref<T> B,
                        T beta, const Matrix<T>& M, int64_t i1, int64_t i2, int64_t j, const Tile<T>& C, Opts o) {
  std::vector<rt::Access> acc;
  acc.reserve(static_cast<std::size_t>(2 * (i2 - i1 + 1) + 1));
  for (int64_t i = i1; i <= i2; ++i) acc.push_back(rt::R(a_handle(i)));
  acc.push_back(rt::R(B.h));
  for (int64_t i = i1; i <= i2; ++i) acc.push_back(rt::RW(M.handle(i, j)));
  insert_block_gemm(rt, opa, opb, alpha, A, B.t, beta, C, acc, o);
}
}  // namespace detail

/// Trailing update of one tile column: C(i, j) = alpha A(i, k) op(B) + beta C(i, j)
/// for every tile row i >= i1. When the tiles of both columns form column-major
/// blocks (a view of the user's array) and only the host computes, this is one
/// tall GEMM task: OpenBLAS packs B once for the whole column instead of once
/// per tile, which tile-sized GEMMs cannot do. Otherwise one task per tile.
template <typename T>
void gemm_column(rt::Runtime& rt, Op opb, T alpha, const Matrix<T>& M, int64_t i1, int64_t k, Ref<T> B, T beta,
                 int64_t j, Opts o) {
  const int64_t i2 = M.mt() - 1;
  if (i1 > i2) return;
  std::optional<Tile<T>> a, c;
  // At every tile size: the column's tasks are few, but each runs at the tall
  // GEMM's rate. Per-tile tasks for tiles under 256 (measured 0.82x at n =
  // 2000, nb = 128 on the 2-core EPYC host) made dpotrf 12-37 % slower on the
  // Xeon host (AVX-512, 2 cores, alternated pairs, best of 3-5 GFLOP/s per-tile
  // -> one task): n = 1000 nb 128 70 -> 87, 2000 nb 128 88-94 -> 112-115,
  // 4000 nb 192 108-113 -> 137-145, 8000 nb 192 110-115 -> 134-156.
  if (rt.num_devices() == 1 && i2 > i1) {
    a = hetla::detail::as_block(M, i1, i2, k, k);
    c = hetla::detail::as_block(M, i1, i2, j, j);
  }
  if (!a || !c) {
    if (rt.num_devices() == 1 && M.handle(i1, j)->rank >= 0) {  // tiles spread over processes
      gemm_column_by_owner(rt, opb, alpha, M, i1, k, B, beta, j, o);
      return;
    }
    for (int64_t i = i1; i <= i2; ++i) gemm(rt, Op::NoTrans, opb, alpha, ref(M, i, k), B, beta, ref(M, i, j), o);
    return;
  }
  detail::insert_column_gemm(rt, Op::NoTrans, opb, alpha, *a, [&](int64_t i) { return M.handle(i, k); }, B, beta, M,
                             i1, i2, j, *c, o);
}

/// The Upper triangle's trailing update of tile column j, rows i1..i2:
/// C(i, j) = alpha A(k, i)^H B + beta C(i, j), A(k, i1..i2) a stretch of tile
/// row k. Where both form column-major blocks and only the host computes, one
/// tall GEMM task, A^H as the kernel's op (one core, dgemm, nb = 192, 1920 or
/// 7680 rows: 83-87 GFLOP/s this way against 57-70 as a wide nb-row update of
/// tile row i); otherwise one task per tile.
template <typename T>
void gemm_column_from_row(rt::Runtime& rt, T alpha, const Matrix<T>& M, int64_t k, int64_t i1, int64_t i2, Ref<T> B,
                          T beta, int64_t j, Opts o) {
  if (i1 > i2) return;
  std::optional<Tile<T>> a, c;
  if (rt.num_devices() == 1 && i2 > i1) {
    a = hetla::detail::as_block(M, k, k, i1, i2);
    c = hetla::detail::as_block(M, i1, i2, j, j);
  }
  if (!a || !c) {
    for (int64_t i = i1; i <= i2; ++i)
      gemm(rt, Op::ConjTrans, Op::NoTrans, alpha, ref(M, k, i), B, beta, ref(M, i, j), o);
    return;
  }
  detail::insert_column_gemm(rt, Op::ConjTrans, Op::NoTrans, alpha, *a, [&](int64_t i) { return M.handle(k, i); }, B,
                             beta, M, i1, i2, j, *c, o);
}

/// gemm_column for tile columns j1..j2 at once, below row i1 - 1: C(i, j) =
/// alpha A(i, k) A(j, k)^H + beta C(i, j) for i >= i1 and j1 <= j <= j2, as
/// one GEMM task when the tiles form column-major blocks and only the host
/// computes, not spread over processes (as gemm_column). Returns false,
/// inserting nothing, otherwise.
template <typename T>
bool gemm_columns(rt::Runtime& rt, T alpha, const Matrix<T>& M, int64_t i1, int64_t k, int64_t j1, int64_t j2, T beta,
                  Opts o) {
  const int64_t i2 = M.mt() - 1;
  if (i1 > i2 || rt.num_devices() != 1 || M.tile_nb(k) < 256 || M.handle(i1, j1)->rank >= 0) return false;
  const auto a = hetla::detail::as_block(M, i1, i2, k, k), b = hetla::detail::as_block(M, j1, j2, k, k),
             c = hetla::detail::as_block(M, i1, i2, j1, j2);
  if (!a || !b || !c) return false;
  std::vector<rt::Access> acc;
  for (int64_t i = i1; i <= i2; ++i) acc.push_back(rt::R(M.handle(i, k)));
  for (int64_t j = j1; j <= j2; ++j) acc.push_back(rt::R(M.handle(j, k)));
  for (int64_t j = j1; j <= j2; ++j)
    for (int64_t i = i1; i <= i2; ++i) acc.push_back(rt::RW(M.handle(i, j)));
  detail::insert_block_gemm(rt, Op::NoTrans, Op::ConjTrans, alpha, *a, *b, beta, *c, acc, o);
  return true;
}

/// C = beta C on one tile (BLAS: beta == 0 sets C to zero without reading it,
/// so NaN in C does not propagate). `uplo` restricts it to a triangle
/// (General = the whole tile). Host task: scaling is memory bound.
/// real_diag: the diagonal's imaginary part is zeroed too (herk semantics).
template <typename T>
void scale(rt::Runtime& rt, T beta, Ref<T> C, Opts o, Uplo uplo = Uplo::General, bool real_diag = false) {
  const int64_t m = C.t.mb, n = C.t.nb;
  rt.insert(
      [=](rt::TaskContext& c) {
        if (o.skipped()) return;
        T* p = c.ptr<T>(0);
        const int64_t ld = c.ld(0);
        for (int64_t j = 0; j < n; ++j) {
          const int64_t i1 = uplo == Uplo::Lower ? std::min(j, m) : 0;
          const int64_t i2 = uplo == Uplo::Upper ? std::min(j + 1, m) : m;
          T* col = p + j * ld;
          if (beta == T(0))
            for (int64_t i = i1; i < i2; ++i) col[i] = T(0);
          else
            for (int64_t i = i1; i < i2; ++i) col[i] *= beta;
          if constexpr (is_complex_v<T>)
            if (real_diag && j < m) col[j] = T(std::real(col[j]));
        }
      },
      {rt::RW(C.h)}, {o.priority, "scale", rt::kHostOnly | rt::kMemoryBound, dev::KernelId::None, 0.0});
}

/// Steady-clock nanoseconds (task completion stamps).
inline int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
/// Raises `latest` to the current time (the end of the device's last task).
inline void stamp(std::atomic<int64_t>* latest) {
  if (!latest) return;
  const int64_t t = now_ns();
  int64_t cur = latest->load(std::memory_order_relaxed);
  while (cur < t && !latest->compare_exchange_weak(cur, t, std::memory_order_relaxed)) {
  }
}

/// tile::gemm forced onto `device` (-1: placed by the runtime); `done`, when
/// given, records when the task finished.
template <typename T> void gemm_on(rt::Runtime& rt, int device, Op opa, Op opb, T alpha, Ref<T> A, Ref<T> B, T beta,
                                   Ref<T> C, Opts o, std::atomic<int64_t>* done = nullptr) {
  const int64_t m = C.t.mb, n = C.t.nb, k = opa == Op::NoTrans ? A.t.nb : A.t.mb;
  rt.insert(
      [=](rt::TaskContext& c) {
        if (o.skipped()) return;
        c.kernels<T>().gemm(opa, opb, m, n, k, alpha, c.ptr<T>(0), c.ld(0), c.ptr<T>(1), c.ld(1), beta, c.ptr<T>(2),
                            c.ld(2));
        stamp(done);
      },
      {rt::R(A.h), rt::R(B.h), rt::RW(C.h)},
      {o.priority, "gemm", fp64_flag<T>(), dev::KernelId::Gemm, 2.0 * flop_scale<T>() * m * n * static_cast<double>(k),
       device});
}

/// Complex symmetric rank-k update of a diagonal tile (no conjugation; the
/// device kernel tables have only herk): host task on the host BLAS.
template <typename T> void syrk_host(rt::Runtime& rt, Uplo uplo, Op op, T alpha, Ref<T> A, T beta, Ref<T> C, Opts o) {
  const int64_t n = C.t.mb, k = op == Op::NoTrans ? A.t.nb : A.t.mb;
  rt.insert(
      [=](rt::TaskContext& c) {
        if (o.skipped()) return;
        blas::syrk(uplo, op, n, k, alpha, c.ptr<T>(0), c.ld(0), beta, c.ptr<T>(1), c.ld(1));
      },
      {rt::R(A.h), rt::RW(C.h)},
      {o.priority, "syrk", rt::kHostOnly, dev::KernelId::None, flop_scale<T>() * n * n * static_cast<double>(k)});
}

// ---- Host slices: one host BLAS call on column-major operands (views of the
// caller's arrays), inserted without data accesses. The routine inserting
// them guarantees that, within its call, no other task touches the part of
// the output a slice writes, that the inputs are only read, and that the
// host copy is valid (see the callers in linalg/gemm.cc, herk.cc, trsm.cc).

/// Column-major operands of one host GEMM (k > 0, alpha != 0).
template <typename T> struct Dense {
  Op opa, opb;
  int64_t m, n, k;
  T alpha;
  const T* A;
  int64_t lda;
  const T* B;
  int64_t ldb;
  T beta;
  T* C;
  int64_t ldc;
};

/// C = alpha op(A) op(B) + beta C on g's operands as one host task, forced
/// onto `device` (-1: placed by the runtime); `done`, when given, records
/// when the task finished.
template <typename T> void gemm_slice(rt::Runtime& rt, const Dense<T>& g, int device,
                                      std::atomic<int64_t>* done = nullptr) {
  rt::TaskOptions to{0,
                     "gemm",
                     rt::kHostOnly,
                     dev::KernelId::None,
                     2.0 * flop_scale<T>() * static_cast<double>(g.m * g.n) * static_cast<double>(g.k),
                     device};
  rt.insert(
      [g, done](rt::TaskContext&) {
        blas::gemm(g.opa, g.opb, g.m, g.n, g.k, g.alpha, g.A, g.lda, g.B, g.ldb, g.beta, g.C, g.ldc);
        stamp(done);
      },
      nullptr, 0, to);
}

/// Columns [c0, c1) of the rank-k update C = alpha op(A) op(A)^H + beta C
/// (conj: herk, real alpha and beta; else syrk, op(A)^T) on C's `uplo`
/// triangle, as one host task: the diagonal block by one herk/syrk, the
/// block's part of the triangle outside it by one GEMM (BLAS calls over the
/// full k). A and C are column-major blocks, C n x n, A n x k (k x n when
/// `trans`).
template <typename T> void rank_k_slice(rt::Runtime& rt, Uplo uplo, bool trans, bool conj, T alpha, Tile<T> At,
                                        T beta, Tile<T> Ct, int64_t c0, int64_t c1) {
  const int64_t n = Ct.mb, k = trans ? At.mb : At.nb, nc = c1 - c0;
  const int64_t r0 = uplo == Uplo::Lower ? c1 : 0, nr = uplo == Uplo::Lower ? n - c1 : c0;  // off-diagonal rows
  const Op t = conj ? Op::ConjTrans : Op::Trans;
  // opA(i0): rows i0.. of op(A) (n x k) as a pointer into A
  auto opa = [=](int64_t i0) { return trans ? At.data + i0 * At.ld : At.data + i0; };
  const double fl = flop_scale<T>() * static_cast<double>(k) * static_cast<double>(nc) *
                    (static_cast<double>(nc) + 2.0 * static_cast<double>(nr));
  rt.insert(
      [=](rt::TaskContext&) {
        T* cd = Ct.data + c0 + c0 * Ct.ld;
        if (conj)
          blas::herk(uplo, trans ? t : Op::NoTrans, nc, k, std::real(alpha), opa(c0), At.ld, std::real(beta), cd,
                     Ct.ld);
        else
          blas::syrk(uplo, trans ? t : Op::NoTrans, nc, k, alpha, opa(c0), At.ld, beta, cd, Ct.ld);
        if (nr == 0) return;
        T* co = Ct.data + r0 + c0 * Ct.ld;  // C(r0 : r0 + nr, c0 : c1) = alpha opA(r0) opA(c0)^H + beta C
        if (trans)
          blas::gemm(t, Op::NoTrans, nr, nc, k, alpha, opa(r0), At.ld, opa(c0), At.ld, beta, co, Ct.ld);
        else
          blas::gemm(Op::NoTrans, t, nr, nc, k, alpha, opa(r0), At.ld, opa(c0), At.ld, beta, co, Ct.ld);
      },
      nullptr, 0, {0, conj ? "herk" : "syrk", rt::kHostOnly, dev::KernelId::None, fl});
}

/// B = alpha op(A)^-1 B (Left) or alpha B op(A)^-1 (Right) on column-major
/// A and B (m x n) as one host task: one BLAS trsm.
template <typename T> void trsm_slice(rt::Runtime& rt, Side side, Uplo uplo, Op op, Diag diag, int64_t m, int64_t n,
                                      T alpha, const T* A, int64_t lda, T* B, int64_t ldb) {
  const int64_t na = side == Side::Left ? m : n;  // order of the triangle
  rt.insert([=](rt::TaskContext&) { blas::trsm(side, uplo, op, diag, m, n, alpha, A, lda, B, ldb); }, nullptr, 0,
            {0, "trsm", rt::kHostOnly, dev::KernelId::None,
             flop_scale<T>() * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(na)});
}

}  // namespace hetla::tile
