// The A operand of one step's distributed GEMM tasks, packed once per process
// (getrf's update blocks, potrf's tile columns, geqrf's V in its larfb columns).
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "tasks/tile.hpp"

namespace hetla::tile::detail {

/// The A operand (panel tiles of tile column k) that one process's GEMM tasks
/// of one step share: where those tiles are copies received from another
/// process (separate buffers, not one block), the first task packs them and
/// the step's later tasks reuse the block, or the part of it below their
/// first row (potrf's column j reads the panel's rows j+1.., a tail of what
/// column k+1 packed). Packing per task cost the non-owner a copy of the
/// panel per update block (up to ~9 per step): the GEMM tasks of getrf
/// n = 8000 on 1 x 2 processes took 7.71-7.99 s of thread CPU time over
/// both, one process with 2 workers 7.41-7.48 s; packed once per step,
/// 7.41-7.70 s (3 runs each, on a loaded machine: CPU time, not wall time, is
/// what stays comparable there). potrf's column tasks packed per task spent
/// 14-16 % of their time packing (n = 8000, nb 256, 1 x 2); packed once per
/// step, 131-133 GFLOP/s against 123-126 at nb 512 (3 alternated pairs), the
/// same within this host's noise at nb 192 and 256.
template <typename T> struct SharedPanel {
  std::mutex mutex;
  std::vector<const T*> sources;  // the tiles it was packed from, in order
  std::vector<int64_t> offsets;   // their first rows in data
  std::vector<T> data;
  int64_t ld = 0;
  SharedPanel() = default;
  /// Takes a pooled block to pack into (when the first task packs: the
  /// panels are made at insertion, long before).
  void take_pooled() {
    std::lock_guard<std::mutex> lk(pool_mutex());
    if (!pool().empty()) {
      data.swap(pool().back());
      pool().pop_back();
    }
  }
  ~SharedPanel() {
    // Its memory goes to the next step's panel: a new block per step was
    // fresh pages to fault in (the panels shrink, so a reused one fits).
    std::lock_guard<std::mutex> lk(pool_mutex());
    if (data.capacity() != 0 && pool().size() < 4) pool().push_back(std::move(data));
  }
  SharedPanel(const SharedPanel&) = delete;
  SharedPanel& operator=(const SharedPanel&) = delete;
  static std::vector<std::vector<T>>& pool() {
    static std::vector<std::vector<T>> p;
    return p;
  }
  static std::mutex& pool_mutex() {
    static std::mutex m;
    return m;
  }
};

/// The SharedPanel of (step `key`, process `rank`): the one the previous
/// insertion of the same step made while any of its tasks lives, else a new
/// one. `key` is a handle of the step's panel column that every insertion of
/// the step names alike. Insertion is serial per call; a stale match (a later
/// call on the same matrix) is caught by SharedPanel::sources.
template <typename T> std::shared_ptr<SharedPanel<T>> shared_panel(const void* key, int rank) {
  struct Last {
    const void* key = nullptr;
    std::vector<std::pair<int, std::weak_ptr<SharedPanel<T>>>> by_rank;
  };
  thread_local Last last;
  if (last.key != key) last = Last{key, {}};
  for (auto& [r, w] : last.by_rank)
    if (r == rank) {
      if (auto p = w.lock()) return p;
      auto p = std::make_shared<SharedPanel<T>>();
      w = p;
      return p;
    }
  auto p = std::make_shared<SharedPanel<T>>();
  last.by_rank.emplace_back(rank, p);
  return p;
}

/// tiles_as_block for the A operand (accesses 0 .. mb.size() - 1) through a
/// SharedPanel: in place when the tiles form a block, else the shared packed
/// block from this task's first tile on (packed by the first task that needs
/// it), or this task's own pack when the shared one does not hold its tiles
/// in a row.
template <typename T>
std::pair<const T*, int64_t> panel_as_block(const rt::TaskContext& c, const std::vector<int64_t>& mb, int64_t cols,
                                            SharedPanel<T>& shared, std::vector<T>& own) {
  bool packed = false;
  int64_t height = 0;
  for (int64_t h : mb) height += h;
  const int g = static_cast<int>(mb.size());
  bool block = c.ld(0) >= height;
  for (int t = 1; t < g && block; ++t)
    block = c.ld(t) == c.ld(0) && c.ptr<T>(t) == c.ptr<T>(t - 1) + mb[static_cast<std::size_t>(t - 1)];
  if (block) return {c.ptr<T>(0), c.ld(0)};
  std::lock_guard<std::mutex> lk(shared.mutex);
  if (shared.sources.empty()) {
    shared.take_pooled();
    const auto [p, ld] = tiles_as_block(c, 0, mb, cols, shared.data, packed);
    for (int t = 0, r0 = 0; t < g; r0 += static_cast<int>(mb[static_cast<std::size_t>(t)]), ++t)
      shared.sources.push_back(c.ptr<T>(t)), shared.offsets.push_back(r0);
    shared.ld = ld;
    return {p, ld};
  }
  const auto first = std::find(shared.sources.begin(), shared.sources.end(), c.ptr<T>(0));
  const auto at = static_cast<std::size_t>(first - shared.sources.begin());
  bool held = first != shared.sources.end() && shared.sources.size() - at >= static_cast<std::size_t>(g);
  for (int t = 1; t < g && held; ++t) held = shared.sources[at + static_cast<std::size_t>(t)] == c.ptr<T>(t);
  if (held) return {shared.data.data() + shared.offsets[at], shared.ld};
  const auto [p, ld] = tiles_as_block(c, 0, mb, cols, own, packed);
  return {p, ld};
}

}  // namespace hetla::tile::detail
