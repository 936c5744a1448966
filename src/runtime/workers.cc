// Workers and ready queues: a device's ready tasks wait in its
// priority-ordered queue; its workers (and the inserting thread, a host
// worker while it waits) pop and execute them.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/reentry.hpp"
#include "runtime/runtime.hpp"
#include "runtime/runtime_detail.hpp"
#include "trace/trace.hpp"
#include "util/hwloc_topology.hpp"

namespace hetla::rt {

using namespace detail;

void DeviceExecutor::run(Task& t, TaskContext& ctx) { t.body(ctx); }

namespace {

bool writes_one_tile(const Task& t) {
  int n = 0;
  for (const Access& a : t.acc) n += writes(a.mode);
  return n == 1;
}

constexpr int kSpinIterations = 4000;  // ~tens of microseconds before sleeping

// Tasks this thread is running now (execute): a call made from inside a task
// (on a worker, or on the caller as worker 0) waits without running tasks
// itself, since a nested execute() would reuse this thread's scratch (the
// access pointers the running task holds) and worker 0's slot.
// One thread_local record (one TLS look-up per task in the shared library).
struct ThreadScratch {
  int executing = 0;
  std::vector<void*> ptrs;
  std::vector<int64_t> lds;
};
thread_local ThreadScratch tl_scratch;

}  // namespace

void Runtime::push_ready_batch(Task** ts, std::size_t n) {
  if (comm_) n = divert_comm(ts, n);  // transfers go to the progress thread (progress.cc)
  if (n == 0) return;
  if (devices_.size() == 1) {
    push_to(0, ts, n);
    return;
  }
  for (std::size_t i = 0; i < n; ++i) push_to(place(ts[i]), &ts[i], 1);
}

void Runtime::push_to(int d, Task** ts, std::size_t n) {
  Queue& q = *queues_[static_cast<std::size_t>(d)];
  if (d == 0 && copy_engines_on())  // before the task is visible to host workers
    for (std::size_t i = 0; i < n; ++i) request_write_backs(ts[i]);
  int wake = 0;
  {
    std::unique_lock<std::mutex> lk(q.mutex);
    if (d != 0 && device_failed(d)) {  // under the lock: fail_device drains the queue under it
      lk.unlock();
      for (std::size_t i = 0; i < n; ++i) {
        queues_[static_cast<std::size_t>(d)]->load_ns.fetch_sub(ts[i]->est_ns, std::memory_order_relaxed);
        push_to(place(ts[i]), &ts[i], 1);
      }
      return;
    }
    for (std::size_t i = 0; i < n; ++i) {
      q.heap.push({ts[i]->priority, ts[i]->seq.load(std::memory_order_relaxed), ts[i]});
    }
    q.size.store(q.heap.size(), std::memory_order_release);
    wake = std::min<int>(q.sleepers, static_cast<int>(n));
  }
  if (has_engine(d)) {  // the copy engine takes the device's ready tasks
    CopyEngine& e = *engines_[static_cast<std::size_t>(d)];
    { std::lock_guard<std::mutex> lk(e.mutex); }  // it saw the new size or is asleep now
    engine_notify(d, EngineEvent::Room);
    return;
  }
  if (wake == 1) q.cv.notify_one();
  else if (wake > 1) q.cv.notify_all();
  if (coop_) {
    coop_->notify(d, static_cast<int>(n));
    if (d == 0) coop_->notify(Threads::kCaller, 1);
  }
}

Task* Runtime::try_pop(int d) {
  Queue& q = *queues_[static_cast<std::size_t>(d)];
  if (q.size.load(std::memory_order_acquire) == 0) return nullptr;
  std::lock_guard<std::mutex> lk(q.mutex);
  if (q.heap.empty()) return nullptr;
  Task* t = q.heap.pop();
  q.size.store(q.heap.size(), std::memory_order_release);
  return t;
}

// Ready host tasks released by a worker that keeps one (Streak): returns
// the best of them, or the queue's best when it beats theirs, and queues the
// rest, under one acquisition of the queue's lock; none when the queue is
// empty and there is one (a chain: no lock, no wake-up).
Task* Runtime::push_and_take(Task** ts, std::size_t n) {
  Queue& q = *queues_[0];
  if (n == 1 && q.size.load(std::memory_order_acquire) == 0) return ts[0];
  int wake = 0;
  Task* t;
  {
    std::lock_guard<std::mutex> lk(q.mutex);
    for (std::size_t i = 0; i < n; ++i) {
      q.heap.push({ts[i]->priority, ts[i]->seq.load(std::memory_order_relaxed), ts[i]});
    }
    t = q.heap.pop();
    q.size.store(q.heap.size(), std::memory_order_release);
    wake = std::min<int>(q.sleepers, static_cast<int>(n) - 1);
  }
  if (wake == 1) q.cv.notify_one();
  else if (wake > 1) q.cv.notify_all();
  return t;
}

// A device error (dev::DeviceError) on an accelerator fails that device
// (recovery.cc) and the task is placed again, elsewhere when it was there.
Task* Runtime::execute(Task* t, int worker, Streak* streak) {
  const int d = worker_device_[static_cast<std::size_t>(worker)];
  std::size_t pinned = d != 0 ? t->pinned : 0;  // staged by the copy engine
  if (t->fetch_engines) settle_write_backs(t);
  bool again = false;       // place it again: a device failed
  bool checkpoint = false;  // its copy engine checkpoints and releases it
  if (!t->call->cancelled.load(std::memory_order_relaxed)) {
    // per thread, but per call for simulated workers: those share OS threads
    // and may yield to one another inside prepare_data and run
    ThreadScratch& scratch = tl_scratch;
    std::vector<void*> own_ptrs;
    std::vector<int64_t> own_lds;
    std::vector<void*>& ptrs = coop_ ? own_ptrs : scratch.ptrs;
    std::vector<int64_t>& lds = coop_ ? own_lds : scratch.lds;
    ptrs.resize(t->acc.size());
    lds.resize(t->acc.size());
    trace::Recorder* rec = tracer_;
    // on the steady clock, a streak's tasks start where the last one ended
    const int64_t t0 = streak && streak->end_ns != 0 && clock_.steady() ? streak->end_ns : clock_.now_ns();
    try {
      if (d != 0 && device_failed(d)) {  // queued or staged there before it failed
        again = true;
        count_retry(d, 0);
      } else {
        prepare_data(t, d, worker, ptrs.data(), lds.data(), pinned);
        TaskContext ctx{worker, devices_[static_cast<std::size_t>(d)].get(), ptrs.data(), lds.data()};
        const double start = rec ? trace_now(rec) : 0.0;
        ++scratch.executing;
        try {
          executor_->run(*t, ctx);
        } catch (...) {
          --scratch.executing;
          throw;
        }
        --scratch.executing;
        if (d != 0 && !commit_writes(t, d)) {  // d failed while it ran
          again = true;
          count_retry(d, clock_.now_ns() - t0);
        } else {
          if (rec) rec->record(worker, t->label, start, trace_now(rec), t->flops);
          if (d != 0 && cfg_.host_checkpoints) {
            // One written tile: its copy either happened or not, so a device
            // lost meanwhile costs a rerun. A task writing several (a panel)
            // could be left half copied: it copies here, before the worker
            // goes on (soak: 2 in 9545 runs lost a getrf panel's column).
            if (has_engine(d) && writes_one_tile(*t)) {
              checkpoint = true;
            } else if (!checkpoint_writes(t, d, worker)) {  // d failed before any write reached the host
              again = true;
              count_retry(d, clock_.now_ns() - t0);
            }
          }
          WorkerStats& c = wstats_[static_cast<std::size_t>(worker)];
          const int64_t end = clock_.now_ns();
          if (streak) streak->end_ns = end;
          c.tasks.store(c.tasks.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);  // single writer
          c.flops.store(c.flops.load(std::memory_order_relaxed) + t->flops, std::memory_order_relaxed);
          c.busy_ns.store(c.busy_ns.load(std::memory_order_relaxed) + (end - t0), std::memory_order_relaxed);
        }
      }
    } catch (const dev::DeviceError& e) {
      const int failed = on_device_error(e);
      again = failed > 0;
      if (again) count_retry(failed, clock_.now_ns() - t0);
    } catch (...) {
      set_error(*t->call, std::current_exception());
    }
  }
  if (t->est_ns != 0)  // only placement (several devices) counts queued work
    queues_[static_cast<std::size_t>(t->device)]->load_ns.fetch_sub(t->est_ns, std::memory_order_relaxed);
  if (checkpoint) {  // the body stays: the task runs again if d's memory is lost before its copy
    t->pinned = pinned;  // prepare_data may have pinned more: finish_checkpoint releases them all
    hand_checkpoint(t, d);
    return nullptr;
  }
  if (d != 0) unpin(t, d, pinned);
  if (again) {
    if (streak) streak->end_ns = 0;
    t->pinned = 0;
    t->fetch_engines = 0;
    push_ready_batch(&t, 1);
    return nullptr;
  }
  t->body.reset();
  std::atomic<uint64_t>& ran = wstats_[static_cast<std::size_t>(worker)].executed;
  if (coop_) executed_.fetch_add(1, std::memory_order_relaxed);  // simulated workers may share worker 0
  else ran.store(ran.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);  // its thread only
  return release(t, worker, streak);
}

void Runtime::worker_loop(int worker) {
  const ReentryScope inside;  // vendor calls from tasks must not re-enter hetla (reentry.hpp)
  const int d = worker_device_[static_cast<std::size_t>(worker)];
  if (d == 0) {
    if (cfg_.pin_threads) util::Topology::get().bind_current_thread_to_core(worker);
  } else {
    int local = 0;
    for (int w = 0; w < worker; ++w) local += worker_device_[static_cast<std::size_t>(w)] == d;
    devices_[static_cast<std::size_t>(d)]->attach_worker(local);
    if (has_engine(d)) {  // the copy engine stages the device's tasks
      while (Task* t = take_staged(d)) execute(t, worker);
      return;
    }
  }
  Queue& q = *queues_[static_cast<std::size_t>(d)];
  if (coop_) {  // no spinning: only one actor runs at a time
    for (;;) {
      if (Task* t = try_pop(d)) {
        execute(t, worker);
        continue;
      }
      if (stop_) return;
      coop_->wait(d, [&] { return stop_.load() || q.size.load(std::memory_order_acquire) != 0; });
    }
  }
  Streak streak;
  streak.keep = d == 0;
  for (Task* next = nullptr;;) {
    Task* t = next ? next : try_pop(d);
    if (!t) streak.end_ns = 0;  // idle from here
    for (int spin = 0; !t && spin < kSpinIterations; ++spin) {
      HETLA_CPU_RELAX();
      if (q.size.load(std::memory_order_relaxed) != 0) t = try_pop(d);
    }
    if (!t) {
      std::unique_lock<std::mutex> lk(q.mutex);
      ++q.sleepers;
      q.cv.wait(lk, [&] { return stop_ || !q.heap.empty(); });
      --q.sleepers;
      if (stop_ && q.heap.empty()) return;
      continue;
    }
    next = execute(t, worker, &streak);
  }
}

bool Runtime::take_caller_slot() {
  return tl_scratch.executing == 0 && !caller_slot_.load(std::memory_order_relaxed) && !caller_slot_.exchange(true);
}

void Runtime::give_caller_slot() {
  caller_slot_.store(false);
  if (slot_waiters_.load() > 0) {  // seq_cst with the waiter's increment: it sees the slot free or is woken
    std::lock_guard<std::mutex> lk(queues_[0]->mutex);
    callers_cv_.notify_all();
  }
}

// The caller runs host tasks (of any call: the pool is shared) as worker 0
// while it holds the caller slot; a caller without it sleeps until its own
// graph shrank to `target` or the slot is free. Why not a worker index of its
// own for each further caller: the workers already spin on every core (a
// third runner on 2 cores only preempts one), and per-worker statistics,
// trace rows and host scratch are sized by worker index at construction.
void Runtime::help_until(CallGraph& c, std::size_t target) {
  Queue& q = *queues_[0];
  auto busy = [&] { return c.in_flight.load(std::memory_order_acquire) > target; };
  if (coop_) {  // one call at a time (concurrent_calls)
    while (busy()) {
      if (Task* t = try_pop(0)) {
        execute(t, 0);
        continue;
      }
      coop_->wait(Threads::kCaller, [&] { return q.size.load(std::memory_order_acquire) != 0 || !busy(); });
    }
    return;
  }
  bool own = false;
  Streak streak;  // keep stays false: the caller returns to its own work once its graph shrank
  while (busy()) {
    if (!own && !(own = take_caller_slot())) {
      std::unique_lock<std::mutex> lk(q.mutex);
      slot_waiters_.fetch_add(1);
      callers_cv_.wait_for(lk, std::chrono::milliseconds(1),
                           [&] { return !busy() || (!caller_slot_.load() && tl_scratch.executing == 0); });
      slot_waiters_.fetch_sub(1);
      continue;
    }
    Task* t = try_pop(0);
    if (!t) streak.end_ns = 0;
    for (int spin = 0; !t && spin < kSpinIterations; ++spin) {
      HETLA_CPU_RELAX();
      if (!busy()) break;
      if (q.size.load(std::memory_order_relaxed) != 0) t = try_pop(0);
    }
    if (!t) {
      if (!busy()) break;
      std::unique_lock<std::mutex> lk(q.mutex);
      ++q.sleepers;
      q.cv.wait_for(lk, std::chrono::milliseconds(1), [&] { return !q.heap.empty() || !busy(); });
      --q.sleepers;
      continue;
    }
    execute(t, 0, &streak);
  }
  if (own) give_caller_slot();
}

}  // namespace hetla::rt
