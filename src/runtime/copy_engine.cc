// Copy engines: one thread per accelerator between its ready queue and its
// workers. It stages the device's next ready tasks (inputs copied in and
// pinned) while the workers compute, and writes back, ahead of time, tiles
// the device modified that a ready host task reads. Under cooperative
// threads (a simulation) it is an actor like the workers, so simulated
// copies overlap simulated kernels as real ones do.
#include <deque>
#include <exception>
#include <mutex>

#include "runtime/runtime.hpp"
#include "runtime/runtime_detail.hpp"

namespace hetla::rt {

using namespace detail;

// Pins the task's data on d and copies its inputs there. A device error
// fails that device (recovery.cc), any other error cancels the call; the
// task is still handed to the workers, which release what was pinned and
// skip it, run it (another device failed) or place it elsewhere (d failed).
void Runtime::stage(Task* t, int d) {
  t->pinned = 0;
  if (t->call->cancelled.load(std::memory_order_relaxed) || device_failed(d)) return;
  const int row = copy_engine_row(d);
  try {
    for (const Access& a : t->acc) {
      acquire_on(a.handle, a.mode, d, row, /*pin=*/true);
      ++t->pinned;
    }
  } catch (const dev::DeviceError& e) {
    on_device_error(e);  // the device failed: its worker places the task elsewhere
  } catch (...) {
    set_error(*t->call, std::current_exception());
  }
}

// The copy engine of accelerator d. First, write-backs host tasks wait for
// (tiles Modified on d that a ready host task reads); then the device's ready
// tasks in priority order, at most prefetch_depth ahead of its workers, are
// staged. Its copies overlap the kernels the workers run meanwhile.
void Runtime::copy_loop(int d) {
  CopyEngine& e = *engines_[static_cast<std::size_t>(d)];
  Queue& q = *queues_[static_cast<std::size_t>(d)];
  const int depth = cfg_.prefetch_depth + device_workers_[static_cast<std::size_t>(d)] - 1;
  const int row = copy_engine_row(d);
  for (;;) {
    CopyEngine::Fetch f{};
    {
      std::unique_lock<std::mutex> lk(e.mutex);
      engine_wait(d, EngineEvent::Room, lk, [&] {
        return stop_.load() || !e.fetches.empty() || (e.ahead < depth && q.size.load(std::memory_order_acquire) > 0);
      });
      if (stop_.load()) return;
      if (!e.fetches.empty()) {
        f = e.fetches.front();
        e.fetches.pop_front();
        e.fetching = f.task;
      }
    }
    if (f.task) {
      write_back(f.handle, row);
      executor_->settle();
      {
        std::lock_guard<std::mutex> lk(e.mutex);
        e.fetching = nullptr;
      }
      engine_notify(d, EngineEvent::Fetch, true);
      continue;
    }
    Task* t = try_pop(d);
    if (!t) continue;
    {
      std::lock_guard<std::mutex> lk(e.mutex);
      ++e.ahead;
    }
    stage(t, d);
    executor_->settle();
    {
      std::lock_guard<std::mutex> lk(e.mutex);
      e.staged.push_back(t);
      ++e.active;
    }
    engine_notify(d, EngineEvent::Staged);  // t may finish and be recycled from here on
  }
}

// A task ran and committed its writes on d (host checkpoints on): d's
// copy-out thread copies them to the host and releases it, so d's workers run
// their next task meanwhile and the copy engine goes on staging: GPUs copy
// each direction on an engine of its own. Simulated, potrf n = 20000, nb 512
// (half-duplex links then), against 2.81 s / 1.29 s with HETLA_CHECKPOINTS=0:
// keeneland-node 4.15 s copied on the worker, 2.87 s here; seed000-system-a
// 2.70 s and 3.09 s. With full-duplex links (docs/simulation.md) system-a
// gives 2.17 s against 1.05 s: its six GPUs share two I/O hubs, and the
// checkpoints fill the hubs' direction toward the host.
void Runtime::hand_checkpoint(Task* t, int d) {
  CopyEngine& e = *engines_[static_cast<std::size_t>(d)];
  {
    std::lock_guard<std::mutex> lk(e.mutex);
    e.checkpoints.push_back(t);
  }
  engine_notify(d, EngineEvent::Checkpoint);
}

// Accelerator d's copy-out thread: the host checkpoints of d's tasks, in the
// order they finished.
void Runtime::checkpoint_loop(int d) {
  CopyEngine& e = *engines_[static_cast<std::size_t>(d)];
  for (;;) {
    Task* t = nullptr;
    {
      std::unique_lock<std::mutex> lk(e.mutex);
      engine_wait(d, EngineEvent::Checkpoint, lk, [&] { return stop_.load() || !e.checkpoints.empty(); });
      if (!e.checkpoints.empty()) {
        t = e.checkpoints.front();
        e.checkpoints.pop_front();
        e.checkpointing = t;
        e.checkpointer = std::this_thread::get_id();
      }
    }
    if (!t) return;  // stopped: no task is in flight then, so none is left
    finish_checkpoint(t, d);
  }
}

// The rest of execute() for a task handed to the engine: its writes reach the
// host, its pins go, and its successors are released.
void Runtime::finish_checkpoint(Task* t, int d) {
  const bool done = checkpoint_writes(t, d, checkpoint_row(d));
  executor_->settle();
  if (!done) run_again(t, d);
  CopyEngine& e = *engines_[static_cast<std::size_t>(d)];
  {
    std::lock_guard<std::mutex> lk(e.mutex);
    e.checkpointing = nullptr;
  }
  engine_notify(d, EngineEvent::Fetch, true);  // fail_device may wait for it
  if (!done) return;
  unpin(t, d, t->pinned);
  t->body.reset();
  executed_.fetch_add(1, std::memory_order_relaxed);
  release(t);
}

// d failed. The checkpoint in flight finishes first (unless this is its
// thread: its copy failed). With d's memory lost, the tasks whose checkpoints
// had not started are taken back and returned: their writes never reached the
// host, which still holds the versions they started from (every committed
// version is checkpointed before its writer is released), so they run again.
std::vector<Task*> Runtime::take_checkpoints(int d, bool memory_lost) {
  std::vector<Task*> taken;
  if (!has_engine(d)) return taken;
  CopyEngine& e = *engines_[static_cast<std::size_t>(d)];
  std::unique_lock<std::mutex> lk(e.mutex);
  if (!coop_ && e.checkpointer != std::this_thread::get_id())
    engine_wait(d, EngineEvent::Fetch, lk, [&] { return e.checkpointing == nullptr; });
  if (memory_lost) {
    taken.assign(e.checkpoints.begin(), e.checkpoints.end());
    e.checkpoints.clear();
  }
  return taken;
}

// A host task is about to be queued: ask the copy engine of each device that
// holds the only valid copy (Modified) of one of its inputs to write it back
// now, so the host worker does not copy it itself when the task starts. Safe
// while the task has not finished: no writer of its inputs can run before.
void Runtime::request_write_backs(Task* t) {
  for (const Access& a : t->acc) {
    Handle* h = a.handle;
    if (!reads(a.mode) || h->host_valid.load(std::memory_order_relaxed)) continue;
    for (int d = 1; d < num_devices() && d < 64; ++d) {
      if (!has_engine(d) || replica(h, d).state.load(std::memory_order_relaxed) != ReplicaState::Modified) continue;
      CopyEngine& e = *engines_[static_cast<std::size_t>(d)];
      t->fetch_engines |= uint64_t{1} << d;
      {
        std::lock_guard<std::mutex> lk(e.mutex);
        e.fetches.push_back({t, h});
      }
      engine_notify(d, EngineEvent::Room);
      break;
    }
  }
}

// A host task starts: drops its write-back requests not started yet (the
// worker copies those itself if still needed) and waits for those in flight,
// so no request outlives the task.
void Runtime::settle_write_backs(Task* t) {
  for (int d = 1; d < num_devices() && d < 64; ++d) {
    if (!(t->fetch_engines & (uint64_t{1} << d))) continue;
    CopyEngine& e = *engines_[static_cast<std::size_t>(d)];
    std::unique_lock<std::mutex> lk(e.mutex);
    for (auto it = e.fetches.begin(); it != e.fetches.end();) {
      if (it->task == t) it = e.fetches.erase(it);
      else ++it;
    }
    engine_wait(d, EngineEvent::Fetch, lk, [&] { return e.fetching != t; });
  }
  t->fetch_engines = 0;
}

void Runtime::write_back(Handle* h, int row) {
  h->lock.lock();
  try {
    if (!h->host_valid.load()) fetch_to_host(h, row);
  } catch (const dev::DeviceError& e) {
    h->lock.unlock();
    on_device_error(e);  // its tiles are read back, or the call fails
    return;
  } catch (...) {
    h->lock.unlock();
    set_error(std::current_exception());
    return;
  }
  h->lock.unlock();
}

// The next staged task of accelerator d for one of its workers; nullptr at shutdown.
Task* Runtime::take_staged(int d) {
  CopyEngine& e = *engines_[static_cast<std::size_t>(d)];
  Task* t = nullptr;
  {
    std::unique_lock<std::mutex> lk(e.mutex);
    engine_wait(d, EngineEvent::Staged, lk, [&] { return stop_.load() || !e.staged.empty(); });
    if (e.staged.empty()) return nullptr;
    t = e.staged.front();
    e.staged.pop_front();
    --e.ahead;
  }
  engine_notify(d, EngineEvent::Room);
  return t;
}

namespace {
std::condition_variable& engine_cv(CopyEngine& e, int ev) {
  switch (ev) {
    case 0: return e.staged_cv;
    case 1: return e.room_cv;
    case 2: return e.fetch_cv;
    default: return e.checkpoint_cv;
  }
}
// Threads channels of the copy engines, below Threads::kCaller and kFilling.
int engine_channel(int d, int ev) { return -3 - (4 * d + ev); }
}  // namespace

void Runtime::engine_wait(int d, EngineEvent ev, std::unique_lock<std::mutex>& lk, const std::function<bool()>& ready) {
  if (coop_) {  // actors share one system thread: never block holding the mutex
    lk.unlock();
    coop_->wait(engine_channel(d, static_cast<int>(ev)), ready);
    lk.lock();
    return;
  }
  CopyEngine& e = *engines_[static_cast<std::size_t>(d)];
  std::condition_variable& cv = engine_cv(e, static_cast<int>(ev));
  cv.wait(lk, ready);
}

void Runtime::engine_notify(int d, EngineEvent ev, bool all) {
  if (coop_) {
    coop_->notify(engine_channel(d, static_cast<int>(ev)), all ? Threads::kAll : 1);
    return;
  }
  CopyEngine& e = *engines_[static_cast<std::size_t>(d)];
  std::condition_variable& cv = engine_cv(e, static_cast<int>(ev));
  if (all) cv.notify_all();
  else cv.notify_one();
}

}  // namespace hetla::rt
