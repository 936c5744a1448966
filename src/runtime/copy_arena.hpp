// Memory for the cached copies of remote tiles (runtime/distributed.cc): one
// arena per call with a communicator, carved from chunks that a process-wide
// pool keeps from one call for the next.
#pragma once
#include <algorithm>
#include <cstddef>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#include <sys/mman.h>

namespace hetla::rt::detail {

/// Chunks of copy memory kept from one scope for the next (process-wide, up
/// to kKeep bytes): a fresh chunk's pages are faulted in and zeroed by the
/// progress thread on the worker's core when the first receive writes them.
/// potrf n = 8000, nb 384, 1 x 2, each process receiving ~120 MB a call:
/// the progress thread's system time was 19-63 ms a call (2.9-5.6k minor
/// faults) in a warm process and 350-400 ms in the first call after a build
/// (getrusage per thread); a kept chunk costs neither.
class ChunkPool {
 public:
  static ChunkPool& get() {
    static ChunkPool* pool = new ChunkPool;  // never destroyed: arenas may end after static destructors
    return *pool;
  }
  /// A kept chunk of at least `bytes`, the smallest; {nullptr, 0} if none.
  std::pair<std::byte*, std::size_t> take(std::size_t bytes) {
    std::lock_guard<std::mutex> lk(mutex_);
    auto best = chunks_.end();
    for (auto c = chunks_.begin(); c != chunks_.end(); ++c)
      if (c->second >= bytes && (best == chunks_.end() || c->second < best->second)) best = c;
    if (best == chunks_.end()) return {nullptr, 0};
    const auto out = *best;
    chunks_.erase(best);
    kept_ -= out.second;
    return out;
  }
  /// Keeps the chunk while the pool holds less than kKeep, else unmaps it.
  void give(std::byte* p, std::size_t size) {
    {
      std::lock_guard<std::mutex> lk(mutex_);
      if (kept_ + size <= kKeep) {
        chunks_.emplace_back(p, size);
        kept_ += size;
        return;
      }
    }
    munmap(p, size);
  }

 private:
  static constexpr std::size_t kKeep = std::size_t{1} << 30;
  std::mutex mutex_;
  std::vector<std::pair<std::byte*, std::size_t>> chunks_;
  std::size_t kept_ = 0;
};

/// Memory of the cached copies of remote tiles during one scope: carved from
/// large chunks, handed back to the ChunkPool when the scope ends. One
/// allocation per copy cost a page fault per 4 KiB when the receive first
/// wrote it, on the progress thread that shares the core with the worker:
/// getrf n = 8000, 1 x 2 grid, each process received 134 MB into new
/// buffers, 33k of its ~60k minor faults and most of its 0.22-0.26 s of
/// system time in the timed call (getrusage). With the arena (and the reused
/// pack buffers below, and getrf's panel pool in tasks/lu.hpp), 19-22k
/// faults. The chunks stay on 4 KiB pages: asking for transparent huge
/// pages (MADV_HUGEPAGE; the Xeon host's THP and its defrag are "madvise",
/// so a fault there compacts memory first) made a process's first call
/// slower, n = 8000 on 1 x 2, alternated pairs: potrf nb 384 1.67-1.76 s
/// against 1.40-1.50 (3 pairs), getrf nb 256 2.66-2.94 against 2.55-2.58,
/// geqrf 6.02-6.31 against 5.68 (2 pairs), and later calls no faster (best
/// of 2-3: potrf 1.31-1.40 against 1.24-1.31 s, getrf 2.64-2.75 against
/// 2.55-2.58, geqrf 5.88-5.90 against 5.55-5.64). The EPYC host had measured
/// the opposite for getrf (system time 0.71-1.75 s on 4 KiB pages against
/// 0.28-0.62 on huge pages, both processes).
class CopyArena {
 public:
  CopyArena() = default;
  CopyArena(const CopyArena&) = delete;
  CopyArena& operator=(const CopyArena&) = delete;
  ~CopyArena() {
    for (const auto& [p, bytes] : chunks_) ChunkPool::get().give(p, bytes);
  }
  std::byte* alloc(std::size_t bytes) {
    bytes = (bytes + kAlign - 1) / kAlign * kAlign;
    if (used_ + bytes > cap_) {
      // Chunks double from 4 MiB to 64 MiB, a small call
      // (libhetla_scalapack's, a few tiles) mapping little.
      const std::size_t next = chunks_.empty() ? kFirst : std::min(kChunk, 2 * chunks_.back().second);
      const std::size_t size = std::max(next, (bytes + kGranule - 1) / kGranule * kGranule);
      auto [p, got] = ChunkPool::get().take(size);
      if (!p) {
        void* m = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) throw std::bad_alloc();
        p = static_cast<std::byte*>(m), got = size;
      }
      chunks_.emplace_back(p, got);
      used_ = 0;
      cap_ = got;
    }
    std::byte* out = chunks_.back().first + used_;
    used_ += bytes;
    return out;
  }

 private:
  static constexpr std::size_t kAlign = 64, kGranule = std::size_t{2} << 20, kFirst = std::size_t{4} << 20,
                               kChunk = std::size_t{64} << 20;
  std::vector<std::pair<std::byte*, std::size_t>> chunks_;
  std::size_t used_ = 0, cap_ = 0;
};

}  // namespace hetla::rt::detail
