// Owner computes across processes (runtime/comm.hpp), in the insertion path:
// route() decides where an inserted task runs and adds the transfers its
// accesses imply; a progress thread (progress.cc) posts them and polls them
// to completion, so compute workers never wait on the network.
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
#include <cstring>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include "runtime/comm.hpp"
#include "runtime/comm_state.hpp"
#include "runtime/runtime.hpp"
#include "runtime/runtime_detail.hpp"

namespace hetla::rt {

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
        insert_send({from == h->rank ? h : &hc.copy}, dest, cs.send_seq[static_cast<std::size_t>(dest)]++);
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
      insert_send(tiles, dest, tag);
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
  for (const auto& r : returns) insert_send({r.copy}, r.dest, r.tag);
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

// Sends a tile, or tiles of one tile column as one column-major block,
// packed unless they already form one (a tile of the caller's array is
// strided; a forwarded block is not).
void Runtime::insert_send(const std::vector<Handle*>& tiles, int dest, uint64_t tag) {
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

// Receives tiles of one tile column, sent by insert_send, into one
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

}  // namespace hetla::rt
