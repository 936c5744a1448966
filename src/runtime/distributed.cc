// Owner computes across processes (runtime/comm.hpp), in the insertion path:
// route() decides where an inserted task runs and adds the transfers its
// accesses imply; a progress thread posts them and polls them to completion,
// so compute workers never wait on the network.
//
// Every process inserts the same tasks in the same order, so each one tracks
// every distributed handle's version (writes inserted) and takes the same
// decisions: the owner of a tile sends version v to a process once, exactly
// when that process posts the matching receive into its cached copy; the
// processes that need a version form a binary tree (each receiver forwards
// to the next ones). The n-th transfer between two processes carries tag n
// on both sides. Tiles of one tile column that a task takes as one block
// (TaskOptions::block_reads) go as one message and land as one block.
//
// A task that writes tiles of several processes (LU's panel and row
// interchanges write a whole tile column, spread over the P process rows)
// runs on the owner of the first tile it writes; it receives the others
// (as reads), writes them in its cached copies, and after the task sends
// each back to its owner, which receives it into the tile itself. The
// algorithm files stay as they are, at the cost of moving such a column
// twice: for LU on a P x Q grid, P > 1, each step's interchanges move the
// (P-1)/P of every trailing tile column that other processes hold to the
// column's first owner and back, about 2/3 (P-1)/P n^3 / nb elements over the
// factorization of an n x n matrix (n = 3000, nb = 192, 2 x 2: ~375 MB in
// all; measured 124 MB sent per process against ~30 MB for 1 x 2 at
// n = 4000), where ScaLAPACK swaps only the interchanged rows (at most nb
// rows per column and step). With a 1 x Q grid (one process per tile column)
// nothing moves twice.
//
// A handle of another process that has memory here as well (LU's pivots:
// every process holds the whole ipiv array) receives into that memory
// rather than into a private buffer, so after the call every process that
// read the pivots holds them in its own ipiv.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <new>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include <sys/mman.h>

#include "runtime/comm.hpp"
#include "runtime/runtime.hpp"
#include "runtime/runtime_detail.hpp"

namespace hetla::rt {

/// Per distributed handle: its version and where it was sent; on a process
/// that reads it remotely, the cached copy (its own handle and buffer).
struct HandleComm {
  uint64_t scope = 0;          // the CommScope it belongs to; from an earlier one it is stale
  uint64_t version = 0;        // writes inserted so far, on every process alike
  std::vector<uint64_t> sent;  // per process: 1 + the version it holds or will receive, 0 = none
  std::vector<int> holders;    // of this version, in the order they asked: [0] the owner (the tree's nodes)
  Handle copy;                 // a remote tile's copy here; rank -1
};

namespace detail {

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

struct CommState {
  std::shared_ptr<Comm> comm;
  int me = 0, size = 1;
  std::vector<uint64_t> send_seq, recv_seq;  // per process: transfers inserted so far (their tags)
  // The scope's number, and its handles' HandleComms: held here, not reached
  // through the handles, since a handle may die before the scope ends (LU's
  // pivot tokens live in getrf's frame, inside the caller's scope).
  uint64_t scope = 0;
  std::vector<std::shared_ptr<HandleComm>> touched;
  CopyArena arena;  // the cached copies' memory
  std::vector<Access> remap;                 // the task's accesses with remote tiles replaced by copies
  struct Planned {                           // a transfer of a block read (TaskOptions::block_reads)
    std::size_t access;
    int from, dest;                          // from < 0: taken into an earlier message
  };
  std::vector<Planned> planned;
  struct Return {                            // a remote tile written here, sent back after the task
    Handle* copy;
    int dest;
    uint64_t tag;
  };
  std::vector<Return> returns;
  // progress thread
  std::thread thread;
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<Task*> inbox;  // ready transfers
  bool stop = false;
  Comm::Request posted = nullptr;  // what the body of the transfer being started posted
  std::vector<std::byte> packed;   // its packed tile, when the host tile is not contiguous
  // Pack buffers of finished transfers, reused (progress thread only): a new
  // one per send of a tile of the caller's array was fresh pages to fault in.
  std::vector<std::vector<std::byte>> spare;
  // a receive into a strided tile: where `packed` is unpacked once it arrived
  std::byte* unpack_to = nullptr;
  int64_t unpack_ld = 0;
  const Handle* unpack_geometry = nullptr;
};

}  // namespace detail

using namespace detail;

namespace {

HandleComm& comm_of(CommState& cs, Handle* h) {
  if (!h->comm || h->comm->scope != cs.scope) {
    h->comm = std::make_shared<HandleComm>();
    h->comm->scope = cs.scope;
    h->comm->sent.assign(static_cast<std::size_t>(cs.size), 0);
    cs.touched.push_back(h->comm);
  }
  return *h->comm;
}

// One transfer in flight on the progress thread.
struct Pending {
  Task* task;
  Comm::Request req;
  std::vector<std::byte> packed;  // kept until a send of a packed tile finished (or a receive unpacked)
  std::byte* unpack_to = nullptr;  // a strided tile the packed receive is copied into
  int64_t unpack_ld = 0;
  const Handle* geometry = nullptr;
};

// Column by column between a contiguous buffer and a strided tile of h's
// geometry (leading dimension ld elements).
void copy_columns(const Handle& h, const std::byte* from, int64_t from_ld, std::byte* to, int64_t to_ld) {
  const std::size_t col = static_cast<std::size_t>(h.rows) * h.elem_size;
  for (int64_t j = 0; j < h.cols; ++j)
    std::memcpy(to + static_cast<std::size_t>(j * to_ld) * h.elem_size,
                from + static_cast<std::size_t>(j * from_ld) * h.elem_size, col);
}

// The cached copy of a remote handle: its memory here when it has some (a
// mirrored array), else a private buffer.
void ensure_copy(CopyArena& arena, Handle* h, HandleComm& hc) {
  if (hc.copy.host_data) return;
  if (h->host_data) {
    hc.copy.set_host(h->host_data, h->rows, h->cols, h->ld, h->elem_size);
    return;
  }
  // Not zeroed: the receive overwrites it, and zeroing every
  // remote tile at insertion delayed the first task (distributed gemm, n = 3000,
  // 1 x 2: 50-100 ms of inserting, much of it memset and page faults).
  hc.copy.set_host(arena.alloc(h->bytes), h->rows, h->cols, h->rows, h->elem_size);
}

}  // namespace

CommScope::CommScope(Runtime& rt, std::shared_ptr<Comm> comm) : rt_(rt) { rt_.attach_comm(std::move(comm)); }

CommScope::~CommScope() {
  try {
    rt_.wait_all();
  } catch (...) {  // the routine's own wait_all reported it
  }
  rt_.detach_comm();
}

void Runtime::attach_comm(std::shared_ptr<Comm> comm) {
  if (comm_) throw std::logic_error("Runtime: a communicator is already attached");
  if (coop_) throw std::invalid_argument("Runtime: distributed runs are not available with simulated threads");
  auto cs = std::make_shared<CommState>();
  static std::atomic<uint64_t> scopes{0};
  cs->scope = ++scopes;
  cs->me = comm->rank();
  cs->size = comm->size();
  cs->comm = std::move(comm);
  cs->send_seq.assign(static_cast<std::size_t>(cs->size), 0);
  cs->recv_seq.assign(static_cast<std::size_t>(cs->size), 0);
  comm_ = std::move(cs);
  comm_->thread = std::thread([this] { progress_loop(); });
}

void Runtime::detach_comm() {
  if (!comm_) return;
  {
    std::lock_guard<std::mutex> lk(comm_->mutex);
    comm_->stop = true;
  }
  comm_->cv.notify_all();
  comm_->thread.join();
  // Cached copies are valid for one call: the caller may change its tiles
  // between calls. Every process drops them at the same point.
  // A handle that outlives the scope keeps a stale HandleComm (a new scope
  // replaces it); its memory goes back to the ChunkPool now, with the arena.
  for (const auto& hc : comm_->touched) hc->copy.set_host(nullptr, 0, 0, 0, 0);
  comm_.reset();
}

int Runtime::comm_rank() const { return comm_ ? comm_->me : 0; }

bool Runtime::route(Task* t, const Access*& acc, std::size_t& nacc, int block_reads) {
  CommState& cs = *comm_;
  int exec = -1;  // the owner of the first tile the task writes; -1: every process runs it
  bool distributed = false;
  for (std::size_t a = 0; a < nacc; ++a) {
    const Handle* h = acc[a].handle;
    if (h->rank < 0) continue;
    distributed = true;
    if (writes(acc[a].mode) && exec < 0) exec = h->rank;
  }
  if (!distributed) return true;
  const bool here = exec < 0 || exec == cs.me;
  cs.remap.assign(acc, acc + nacc);
  cs.planned.clear();
  for (std::size_t a = 0; a < nacc; ++a) {
    Handle* h = acc[a].handle;
    if (h->rank < 0 || !reads(acc[a].mode)) continue;
    HandleComm& hc = comm_of(cs, h);
    // Every process that needs this version joins a binary tree rooted at
    // the owner, in the order of asking (SLATE's listBcast, seed 004 §5.4:
    // the owner of a panel tile does not send it to every process itself).
    // Each process computes the same tree from the same insertions.
    if (hc.sent[static_cast<std::size_t>(h->rank)] != hc.version + 1) {
      hc.sent[static_cast<std::size_t>(h->rank)] = hc.version + 1;
      hc.holders.assign(1, h->rank);
    }
    for (int dest = 0; dest < cs.size; ++dest) {
      if (exec >= 0 && dest != exec) continue;
      if (hc.sent[static_cast<std::size_t>(dest)] == hc.version + 1) continue;  // has it
      // dest has never held this tile: its copy has no memory yet, so it
      // may be placed in a block (the same answer on every process)
      const bool first = hc.sent[static_cast<std::size_t>(dest)] == 0;
      hc.sent[static_cast<std::size_t>(dest)] = hc.version + 1;
      const int from = hc.holders[(hc.holders.size() - 1) / 2];
      hc.holders.push_back(dest);
      if (from != cs.me && dest != cs.me) continue;
      if (first && a < static_cast<std::size_t>(block_reads)) {
        cs.planned.push_back({a, from, dest});
      } else if (from == cs.me) {
        insert_send(from == h->rank ? h : &hc.copy, dest, cs.send_seq[static_cast<std::size_t>(dest)]++);
      } else if (dest == cs.me) {
        insert_recv(h, hc, from, cs.recv_seq[static_cast<std::size_t>(from)]++);
      }
    }
    if (here && h->rank != cs.me) cs.remap[a].handle = &hc.copy;
  }
  insert_planned(acc);
  for (std::size_t a = 0; a < nacc; ++a) {
    Handle* h = acc[a].handle;
    if (h->rank < 0 || !writes(acc[a].mode)) continue;
    HandleComm& hc = comm_of(cs, h);
    ++hc.version;
    if (h->rank == exec) continue;
    // Written on exec for its owner: exec writes its copy and sends it back
    // after the task (submit() inserts the send once the task is in); the
    // owner receives it into the tile. Both then hold the new version.
    const auto owner = static_cast<std::size_t>(h->rank), runner = static_cast<std::size_t>(exec);
    if (exec == cs.me) {
      ensure_copy(cs.arena, h, hc);
      cs.remap[a].handle = &hc.copy;
      cs.returns.push_back({&hc.copy, h->rank, cs.send_seq[owner]++});
    } else if (h->rank == cs.me) {
      insert_recv(h, hc, exec, cs.recv_seq[runner]++, /*into_home=*/true);
    }
    hc.sent[owner] = hc.sent[runner] = hc.version + 1;
    hc.holders = {h->rank, exec};
  }
  if (!here) {  // another process runs it
    t->body.reset();
    current().alloc_cache.push_back(t);  // calls take turns with a communicator
    return false;
  }
  acc = cs.remap.data();
  return true;
}

// The transfers route() planned for a task's block reads: per pair of
// processes, each run of consecutive accesses is one message (a run of one,
// the tile's own transfer). Every process plans the same runs, so both ends
// agree on them and on their tags. potrf n = 8000, nb 384, 1 x 2: received
// tile by tile, the panel was packed again for the GEMMs, 40-45 ms of a
// process's ~1.45 s of kernel time a call; as blocks, +0.5 to +3.5 % (3
// alternated pairs).
void Runtime::insert_planned(const Access* acc) {
  CommState& cs = *comm_;
  std::vector<Handle*> tiles;
  for (std::size_t i = 0; i < cs.planned.size(); ++i) {
    const auto [first, from, dest] = cs.planned[i];
    if (from < 0) continue;
    tiles.assign(1, acc[first].handle);
    for (std::size_t j = i + 1, last = first; j < cs.planned.size(); ++j) {
      CommState::Planned& p = cs.planned[j];
      if (p.from != from || p.dest != dest) continue;
      Handle* h = acc[p.access].handle;
      if (p.access != last + 1 || h->cols != tiles[0]->cols || h->elem_size != tiles[0]->elem_size) break;
      tiles.push_back(h);
      last = p.access;
      p.from = -1;
    }
    if (from == cs.me) {
      for (Handle*& h : tiles)
        if (h->rank != cs.me) h = &h->comm->copy;  // a copy this process forwards
      const uint64_t tag = cs.send_seq[static_cast<std::size_t>(dest)]++;
      if (tiles.size() == 1) insert_send(tiles[0], dest, tag);
      else insert_send_block(tiles, dest, tag);
    } else {
      const uint64_t tag = cs.recv_seq[static_cast<std::size_t>(from)]++;
      if (tiles.size() == 1) insert_recv(tiles[0], *tiles[0]->comm, from, tag);
      else insert_recv_block(tiles, from, tag);
    }
  }
}

void Runtime::send_returns() {
  CommState& cs = *comm_;
  if (cs.returns.empty()) return;
  std::vector<CommState::Return> returns;
  returns.swap(cs.returns);
  for (const auto& r : returns) insert_send(r.copy, r.dest, r.tag);
}

void Runtime::insert_send(Handle* h, int dest, uint64_t tag) {
  CommState* cs = comm_.get();
  const Access a{h, Mode::Read};
  insert(
      [cs, h, dest, tag](TaskContext& c) {
        const std::size_t bytes = h->bytes;
        const void* src = c.ptrs[0];
        if (c.lds[0] != h->rows) {  // a view of the caller's array: pack the tile
          if (cs->packed.size() < bytes) cs->packed.resize(bytes);
          const std::size_t col = static_cast<std::size_t>(h->rows) * h->elem_size;
          for (int64_t j = 0; j < h->cols; ++j)
            std::memcpy(cs->packed.data() + static_cast<std::size_t>(j) * col,
                        static_cast<const std::byte*>(src) + static_cast<std::size_t>(j * c.lds[0]) * h->elem_size,
                        col);
          src = cs->packed.data();
        }
        cs->posted = cs->comm->isend(src, bytes, dest, tag);
      },
      &a, 1, TaskOptions{0, "send", kComm | kHostOnly});
}

void Runtime::insert_recv(Handle* h, HandleComm& hc, int source, uint64_t tag, bool into_home) {
  Handle* target = h;
  if (!into_home) {
    ensure_copy(comm_->arena, h, hc);
    target = &hc.copy;
  }
  CommState* cs = comm_.get();
  const std::size_t bytes = h->bytes;
  const Access a{target, Mode::Write};
  insert(
      [cs, target, bytes, source, tag](TaskContext& c) {
        void* dst = c.ptrs[0];
        if (c.lds[0] != target->rows) {  // a view of the caller's array: receive packed, unpack when done
          if (cs->packed.size() < bytes) cs->packed.resize(bytes);
          cs->unpack_to = static_cast<std::byte*>(dst);
          cs->unpack_ld = c.lds[0];
          cs->unpack_geometry = target;
          dst = cs->packed.data();
        }
        cs->posted = cs->comm->irecv(dst, bytes, source, tag);
      },
      &a, 1, TaskOptions{0, "recv", kComm | kHostOnly});
}

// Sends tiles of one tile column as one column-major block, packed unless
// they already form one (a forwarded block).
void Runtime::insert_send_block(const std::vector<Handle*>& tiles, int dest, uint64_t tag) {
  CommState* cs = comm_.get();
  std::vector<Access> acc;
  std::vector<int64_t> rows;
  for (Handle* h : tiles) acc.push_back({h, Mode::Read}), rows.push_back(h->rows);
  const int64_t cols = tiles[0]->cols, height = std::accumulate(rows.begin(), rows.end(), int64_t{0});
  const std::size_t elem = tiles[0]->elem_size, bytes = static_cast<std::size_t>(height * cols) * elem;
  insert(
      [cs, rows, cols, height, elem, bytes, dest, tag](TaskContext& c) {
        const auto* first = static_cast<const std::byte*>(c.ptrs[0]);
        bool block = true;
        for (std::size_t t = 0, r0 = 0; t < rows.size() && block; r0 += static_cast<std::size_t>(rows[t]), ++t)
          block = c.lds[t] == height && c.ptrs[t] == first + r0 * elem;
        const void* src = first;
        if (!block) {
          if (cs->packed.size() < bytes) cs->packed.resize(bytes);
          for (std::size_t t = 0, r0 = 0; t < rows.size(); r0 += static_cast<std::size_t>(rows[t]), ++t)
            for (int64_t q = 0; q < cols; ++q)
              std::memcpy(cs->packed.data() + (static_cast<std::size_t>(q * height) + r0) * elem,
                          static_cast<const std::byte*>(c.ptrs[t]) + static_cast<std::size_t>(q * c.lds[t]) * elem,
                          static_cast<std::size_t>(rows[t]) * elem);
          src = cs->packed.data();
        }
        cs->posted = cs->comm->isend(src, bytes, dest, tag);
      },
      acc.data(), acc.size(), TaskOptions{0, "send", kComm | kHostOnly});
}

// Receives tiles of one tile column, sent by insert_send_block, into one
// block of the arena: their copies are its rows (leading dimension the
// block's height), so the task that reads them finds one block in place.
void Runtime::insert_recv_block(const std::vector<Handle*>& tiles, int source, uint64_t tag) {
  CommState* cs = comm_.get();
  int64_t height = 0;
  for (const Handle* h : tiles) height += h->rows;
  const int64_t cols = tiles[0]->cols;
  const std::size_t elem = tiles[0]->elem_size, bytes = static_cast<std::size_t>(height * cols) * elem;
  std::byte* block = cs->arena.alloc(bytes);
  std::vector<Access> acc;
  int64_t r0 = 0;
  for (Handle* h : tiles) {
    Handle& copy = h->comm->copy;
    // route() plans blocks only for tiles this process never held; a tile
    // with memory here (a mirrored array) has no place in a block
    if (copy.host_data || h->host_data) throw std::logic_error("Runtime: a block read of a tile held here");
    copy.set_host(block + static_cast<std::size_t>(r0) * elem, h->rows, cols, height, static_cast<uint32_t>(elem));
    acc.push_back({&copy, Mode::Write});
    r0 += h->rows;
  }
  insert([cs, bytes, source, tag](TaskContext& c) { cs->posted = cs->comm->irecv(c.ptrs[0], bytes, source, tag); },
         acc.data(), acc.size(), TaskOptions{0, "recv", kComm | kHostOnly});
}

std::size_t Runtime::divert_comm(Task** ts, std::size_t n) {
  std::size_t kept = 0;
  bool any = false;
  {
    std::lock_guard<std::mutex> lk(comm_->mutex);
    for (std::size_t i = 0; i < n; ++i) {
      if (ts[i]->flags & kComm) {
        comm_->inbox.push_back(ts[i]);
        any = true;
      } else {
        ts[kept++] = ts[i];
      }
    }
  }
  if (any) comm_->cv.notify_one();
  return kept;
}

// Starts ready transfers (their bodies post the request), polls those in
// flight, releases the finished ones' successors. Sleeps while idle. While
// transfers are in flight it polls after kMinPoll, doubling the wait up to
// kMaxPoll while none completes and no new one comes (a completion brings it
// back to at most kResetPoll): each poll wakes this thread on a core a
// compute worker uses (one process per core under mpirun --bind-to core).
// Polling every 30 us cost a quarter of the compute: 2 processes x 1 core,
// 1 x 2 grid, n = 6000 (same minutes, ScaLAPACK the baseline): potrf 1.46 s
// at 30 us, 1.13 s at 300 us, 1.08 s at 3 ms; getrf 3.17 s -> 2.49 s and
// geqrf 7.11 s -> 4.82 s from 30 us to 1 ms. From 50 / 50 / 2000 us to
// 200 / 1000 / 5000 us (n = 8000, nb 256, 1 x 2, alternated pairs): the
// worker's involuntary context switches 1.6-1.9k -> 0.85-0.9k a run, potrf
// +1.7 to +6.9 % (4 pairs), getrf +2.3 / +5.0 %, geqrf +0.5 %; getrf
// n = 3000 on 2 x 2 and potrf 2000 on 1 x 2 the same within noise. While a
// host worker sleeps it polls every kIdlePoll (below).
void Runtime::progress_loop() {
  using us = std::chrono::microseconds;
  constexpr us kIdlePoll{50}, kMinPoll{200}, kResetPoll{1000}, kMaxPoll{5000};
  constexpr std::size_t kSpare = 64;  // pack buffers kept for reuse
  CommState& cs = *comm_;
  std::vector<Pending> active;
  std::vector<Task*> batch;
  std::vector<void*> ptrs;
  std::vector<int64_t> lds;
  std::vector<Comm::Request> reqs;
  std::vector<std::size_t> finished;  // indices into reqs
  std::vector<char> done;             // per request of reqs
  us poll = kMinPoll;
  for (;;) {
    {
      std::unique_lock<std::mutex> lk(cs.mutex);
      if (active.empty()) {
        cs.cv.wait(lk, [&] { return cs.stop || !cs.inbox.empty(); });
      } else if (cs.inbox.empty()) {
        cs.cv.wait_for(lk, poll, [&] { return cs.stop || !cs.inbox.empty(); });
        poll = std::min(kMaxPoll, 2 * poll);
      }
      if (cs.stop && cs.inbox.empty() && active.empty()) return;
      if (!cs.inbox.empty()) poll = kMinPoll;
      batch.swap(cs.inbox);
    }
    for (Task* t : batch) {
      // Transfers run even when a task failed here (the call is cancelled):
      // the other processes wait for them. They learn of the error from the
      // caller of the routine (mpi::distributed_call reduces it).
      Pending p{t, nullptr, {}};
      {
        try {
          ptrs.resize(t->acc.size());
          lds.resize(t->acc.size());
          std::size_t pinned = 0;
          prepare_data(t, 0, 0, ptrs.data(), lds.data(), pinned);
          TaskContext ctx{0, devices_[0].get(), ptrs.data(), lds.data()};
          cs.posted = nullptr;
          cs.packed.clear();
          if (!cs.spare.empty()) {
            cs.packed.swap(cs.spare.back());
            cs.spare.pop_back();
          }
          cs.unpack_to = nullptr;
          t->body(ctx);
          p.req = cs.posted;
          p.packed.swap(cs.packed);
          p.unpack_to = cs.unpack_to;
          p.unpack_ld = cs.unpack_ld;
          p.geometry = cs.unpack_geometry;
        } catch (...) {
          set_error(std::current_exception());
        }
      }
      active.push_back(std::move(p));
    }
    batch.clear();
    reqs.clear();
    for (const Pending& p : active)
      if (p.req) reqs.push_back(p.req);
    finished.clear();
    done.assign(reqs.size(), 0);
    try {
      cs.comm->test_some(reqs.data(), reqs.size(), finished);
      for (std::size_t r : finished) done[r] = 1;
    } catch (...) {
      set_error(std::current_exception());
      done.assign(reqs.size(), 1);  // as a failed test: released, so nothing waits on it
    }
    std::size_t kept = 0;
    for (std::size_t i = 0, r = 0; i < active.size(); ++i) {
      Pending& p = active[i];
      if (p.req && !done[r++]) {
        if (kept != i) active[kept] = std::move(p);
        ++kept;
        continue;
      }
      poll = std::min(poll, kResetPoll);  // a transfer completed: others of the same step are likely close
      if (p.unpack_to) copy_columns(*p.geometry, p.packed.data(), p.geometry->rows, p.unpack_to, p.unpack_ld);
      if (p.packed.capacity() != 0 && cs.spare.size() < kSpare) {
        cs.spare.push_back(std::move(p.packed));  // its size kept: resizing up to it would zero it
      }
      p.task->body.reset();
      executed_.fetch_add(1, std::memory_order_relaxed);
      release(p.task);
    }
    active.resize(kept);
    // A host worker asleep: its core is free and it may be waiting for
    // these transfers (the next panel, at the end of a factorization), so
    // poll at the fastest rate instead of backing off (up to kMaxPoll of
    // latency per transfer on the critical path otherwise). Not measurable
    // apart on the loaded 2-core machine; potrf n = 8000, 1 x 2, with it and
    // the copy arena: 2.68-3.54 s against 2.81-4.27 s, 4 alternated pairs.
    if (!active.empty() && poll > kIdlePoll) {
      Queue& q = *queues_[0];
      std::lock_guard<std::mutex> lk(q.mutex);
      if (q.sleepers > 0) poll = kIdlePoll;
    }
  }
}

}  // namespace hetla::rt
