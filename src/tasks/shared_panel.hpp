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
#include "util/pages.hpp"

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
  std::vector<int64_t> offsets;   // their first rows in block()
  int64_t ld = 0;
  SharedPanel() = default;
  /// Takes a pooled buffer to pack into (when the first task packs: the
  /// panels are made at insertion, long before).
  void take_pooled() {
    std::lock_guard<std::mutex> lk(pool_mutex());
    if (!pool().empty()) {
      data_ = std::move(pool().back());
      pool().pop_back();
    }
  }
  /// Room for n elements (the pooled buffer when it is large enough).
  T* reserve(std::size_t n) {
    if (n > data_.elements) data_ = Buffer{util::PageBuffer(n * sizeof(T)), n};
    return block();
  }
  T* block() const { return static_cast<T*>(data_.pages.get()); }
  ~SharedPanel() {
    // Its memory goes to a later step's panel (the panels shrink, so a
    // reused one fits). With lookahead several steps' panels live at once
    // and the pool is often empty: a new buffer's pages are mapped when it
    // is allocated (util::PageBuffer), not faulted in one by one as the
    // pack writes them. On a std::vector, potrf n = 8000, nb 256, 1 x 2:
    // the worker took 28-30k page faults in the call, all in these packs.
    std::lock_guard<std::mutex> lk(pool_mutex());
    if (data_.elements != 0 && pool().size() < 4) pool().push_back(std::move(data_));
  }
  SharedPanel(const SharedPanel&) = delete;
  SharedPanel& operator=(const SharedPanel&) = delete;

 private:
  struct Buffer {
    util::PageBuffer pages;
    std::size_t elements = 0;
  };
  Buffer data_;
  static std::vector<Buffer>& pool() {
    static std::vector<Buffer> p;
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
  const int64_t height = sum_sizes(mb);
  const int g = static_cast<int>(mb.size());
  if (tiles_form_block<T>(c, 0, mb, height)) return {c.ptr<T>(0), c.ld(0)};
  std::lock_guard<std::mutex> lk(shared.mutex);
  if (shared.sources.empty()) {
    shared.take_pooled();
    T* p = shared.reserve(static_cast<std::size_t>(height * cols));
    pack_tiles(c, 0, mb, cols, p, height);
    for (int t = 0, r0 = 0; t < g; r0 += static_cast<int>(mb[static_cast<std::size_t>(t)]), ++t)
      shared.sources.push_back(c.ptr<T>(t)), shared.offsets.push_back(r0);
    shared.ld = height;
    return {p, height};
  }
  const auto first = std::find(shared.sources.begin(), shared.sources.end(), c.ptr<T>(0));
  const auto at = static_cast<std::size_t>(first - shared.sources.begin());
  bool held = first != shared.sources.end() && shared.sources.size() - at >= static_cast<std::size_t>(g);
  for (int t = 1; t < g && held; ++t) held = shared.sources[at + static_cast<std::size_t>(t)] == c.ptr<T>(t);
  if (held) return {shared.block() + shared.offsets[at], shared.ld};
  own.resize(static_cast<std::size_t>(height * cols));
  pack_tiles(c, 0, mb, cols, own.data(), height);
  return {own.data(), height};
}

}  // namespace hetla::tile::detail
