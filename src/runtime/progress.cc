// The progress thread of owner computes across processes (distributed.cc
// inserts the transfers): ready transfer tasks are diverted to it from the
// ready queues; it runs their bodies, which post nonblocking MPI requests,
// polls them all in one test, and releases a transfer's successors when it
// completed, so compute workers never wait on the network.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <mutex>
#include <utility>
#include <vector>

#include "runtime/comm_state.hpp"
#include "runtime/runtime.hpp"
#include "runtime/runtime_detail.hpp"

namespace hetla::rt {

using namespace detail;

namespace {

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

}  // namespace

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
