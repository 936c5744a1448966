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
// on both sides.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "runtime/comm.hpp"
#include "runtime/runtime.hpp"
#include "runtime/runtime_detail.hpp"

namespace hetla::rt {

/// Per distributed handle: its version and where it was sent; on a process
/// that reads it remotely, the cached copy (its own handle and buffer).
struct HandleComm {
  uint64_t version = 0;        // writes inserted so far, on every process alike
  std::vector<uint64_t> sent;  // per process: 1 + the version it holds or will receive, 0 = none
  std::vector<int> holders;    // of this version, in the order they asked: [0] the owner (the tree's nodes)
  Handle copy;                 // a remote tile's copy here; rank -1
  std::unique_ptr<std::byte[]> buffer;
};

namespace detail {

struct CommState {
  std::shared_ptr<Comm> comm;
  int me = 0, size = 1;
  std::vector<uint64_t> send_seq, recv_seq;  // per process: transfers inserted so far (their tags)
  std::vector<Handle*> touched;              // handles given a HandleComm (reset when the scope ends)
  std::vector<Access> remap;                 // the task's accesses with remote tiles replaced by copies
  // progress thread
  std::thread thread;
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<Task*> inbox;  // ready transfers
  bool stop = false;
  Comm::Request posted = nullptr;  // what the body of the transfer being started posted
  std::vector<std::byte> packed;   // its packed tile, when the host tile is not contiguous
};

}  // namespace detail

using namespace detail;

namespace {

HandleComm& comm_of(CommState& cs, Handle* h) {
  if (!h->comm) {
    h->comm = std::make_shared<HandleComm>();
    h->comm->sent.assign(static_cast<std::size_t>(cs.size), 0);
    cs.touched.push_back(h);
  }
  return *h->comm;
}

// One transfer in flight on the progress thread.
struct Pending {
  Task* task;
  Comm::Request req;
  std::vector<std::byte> packed;  // kept until a send of a packed tile finished
};

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
  for (Handle* h : comm_->touched) h->comm.reset();
  comm_.reset();
}

int Runtime::comm_rank() const { return comm_ ? comm_->me : 0; }

bool Runtime::route(Task* t, const Access*& acc, std::size_t& nacc) {
  CommState& cs = *comm_;
  int exec = -1;  // the owner of what the task writes; -1: every process runs it
  bool distributed = false;
  for (std::size_t a = 0; a < nacc; ++a) {
    const Handle* h = acc[a].handle;
    if (h->rank < 0) continue;
    distributed = true;
    if (!writes(acc[a].mode)) continue;
    if (exec >= 0 && h->rank != exec) {
      t->body.reset();
      alloc_cache_.push_back(t);
      throw std::invalid_argument(std::string("Runtime::insert: task '") + t->label +
                                  "' writes tiles of two processes (owner computes needs one owner)");
    }
    exec = h->rank;
  }
  if (!distributed) return true;
  const bool here = exec < 0 || exec == cs.me;
  cs.remap.assign(acc, acc + nacc);
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
      hc.sent[static_cast<std::size_t>(dest)] = hc.version + 1;
      const int from = hc.holders[(hc.holders.size() - 1) / 2];
      hc.holders.push_back(dest);
      if (from == cs.me) {
        insert_send(from == h->rank ? h : &hc.copy, dest, cs.send_seq[static_cast<std::size_t>(dest)]++);
      } else if (dest == cs.me) {
        insert_recv(h, hc.copy, hc.buffer, from, cs.recv_seq[static_cast<std::size_t>(from)]++);
      }
    }
    if (here && h->rank != cs.me) cs.remap[a].handle = &hc.copy;
  }
  for (std::size_t a = 0; a < nacc; ++a)
    if (acc[a].handle->rank >= 0 && writes(acc[a].mode)) ++comm_of(cs, acc[a].handle).version;
  if (!here) {  // another process runs it
    t->body.reset();
    alloc_cache_.push_back(t);
    return false;
  }
  acc = cs.remap.data();
  return true;
}

void Runtime::insert_send(Handle* h, int dest, uint64_t tag) {
  CommState* cs = comm_.get();
  const Access a{h, Mode::Read};
  insert(
      [cs, h, dest, tag](TaskContext& c) {
        const std::size_t bytes = h->bytes;
        const void* src = c.ptrs[0];
        if (c.lds[0] != h->rows) {  // a view of the caller's array: pack the tile
          cs->packed.resize(bytes);
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

void Runtime::insert_recv(Handle* h, Handle& copy, std::unique_ptr<std::byte[]>& buffer, int source, uint64_t tag) {
  if (!buffer) {
    buffer = std::make_unique<std::byte[]>(h->bytes);
    copy.set_host(buffer.get(), h->rows, h->cols, h->rows, h->elem_size);
  }
  CommState* cs = comm_.get();
  const std::size_t bytes = h->bytes;
  const Access a{&copy, Mode::Write};
  insert([cs, bytes, source, tag](TaskContext& c) { cs->posted = cs->comm->irecv(c.ptrs[0], bytes, source, tag); },
         &a, 1, TaskOptions{0, "recv", kComm | kHostOnly});
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
// flight, releases the finished ones' successors. Sleeps while idle; polls
// every few tens of microseconds while transfers are in flight (a spinning
// thread would take a core from the compute workers).
void Runtime::progress_loop() {
  CommState& cs = *comm_;
  std::vector<Pending> active;
  std::vector<Task*> batch;
  std::vector<void*> ptrs;
  std::vector<int64_t> lds;
  for (;;) {
    {
      std::unique_lock<std::mutex> lk(cs.mutex);
      if (active.empty())
        cs.cv.wait(lk, [&] { return cs.stop || !cs.inbox.empty(); });
      else if (cs.inbox.empty())
        cs.cv.wait_for(lk, std::chrono::microseconds(30), [&] { return cs.stop || !cs.inbox.empty(); });
      if (cs.stop && cs.inbox.empty() && active.empty()) return;
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
          t->body(ctx);
          p.req = cs.posted;
          p.packed.swap(cs.packed);
        } catch (...) {
          set_error(std::current_exception());
        }
      }
      active.push_back(std::move(p));
    }
    batch.clear();
    std::size_t kept = 0;
    for (std::size_t i = 0; i < active.size(); ++i) {
      Pending& p = active[i];
      bool done = true;
      if (p.req) {
        try {
          done = cs.comm->test(p.req);
        } catch (...) {
          set_error(std::current_exception());
        }
      }
      if (!done) {
        if (kept != i) active[kept] = std::move(p);
        ++kept;
        continue;
      }
      p.task->body.reset();
      executed_.fetch_add(1, std::memory_order_relaxed);
      release(p.task);
    }
    active.resize(kept);
  }
}

}  // namespace hetla::rt
