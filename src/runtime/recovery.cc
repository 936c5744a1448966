// Device failure and recovery: an accelerator whose kernel, copy or
// allocation throws a dev::DeviceError leaves the call (and the runtime, until
// reset_failed_devices()). Its queued tasks are placed elsewhere; a task that
// had started there runs again elsewhere: a task's writes become the device's
// only when it succeeded (commit_writes), so its inputs are still valid where
// they were before it started. Tiles whose only valid copy was on the device
// are read back to the host; when its memory is lost they cannot be, and the
// call fails with an error saying so (never a wrong answer). One code path
// for every device kind: only the exception type matters.
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/runtime.hpp"
#include "runtime/runtime_detail.hpp"
#include "trace/trace.hpp"

namespace hetla::rt {

using namespace detail;

int Runtime::device_index(const dev::Device* dv) const {
  for (std::size_t d = 0; d < devices_.size(); ++d)
    if (devices_[d].get() == dv) return static_cast<int>(d);
  return -1;
}

bool Runtime::device_failed(int d) const {
  return dstate_[static_cast<std::size_t>(d)]->failed.load(std::memory_order_acquire);
}

std::vector<Recovery> Runtime::recoveries() const {
  std::lock_guard<std::mutex> lk(recovery_mutex_);
  return recoveries_;
}

void Runtime::reset_failed_devices() {
  for (auto& ds : dstate_) ds->failed.store(false, std::memory_order_release);
}

// Called in a catch block: a DeviceError of one of our accelerators fails
// that device (the task that saw it runs again); anything else (the host, a
// device we do not know) is the call's error. Returns the device, or -1.
int Runtime::on_device_error(const dev::DeviceError& e) {
  const int d = device_index(e.device());
  if (d <= 0) {
    set_error(std::current_exception());
    return -1;
  }
  fail_device(d, e);
  return d;
}

void Runtime::count_retry(int d, int64_t lost_ns) {
  std::lock_guard<std::mutex> lk(recovery_mutex_);
  const int r = dstate_[static_cast<std::size_t>(d)]->recovery;
  if (r < 0) return;  // failed in an earlier call: nothing was started there since
  Recovery& rec = recoveries_[static_cast<std::size_t>(r)];
  ++rec.tasks_rerun;
  rec.seconds_lost += static_cast<double>(lost_ns) * 1e-9;
}

void Runtime::fail_device(int d, const dev::DeviceError& e) {
  DeviceState& ds = *dstate_[static_cast<std::size_t>(d)];
  {
    std::lock_guard<std::mutex> lk(ds.commit_mutex);  // a task committing its writes there finishes first
    if (ds.failed.exchange(true)) return;
  }
  const int64_t t0 = clock_.now_ns();
  dev::Device& dv = *devices_[static_cast<std::size_t>(d)];
  {
    std::lock_guard<std::mutex> lk(recovery_mutex_);
    ds.recovery = static_cast<int>(recoveries_.size());
    recoveries_.push_back({dv.name(), e.what(), 0, 0, 0, 0});
  }

  // Tasks whose host checkpoints had not started: with the memory lost they
  // run again from the host's versions (copy_engine.cc).
  std::vector<Task*> rerun = take_checkpoints(d, e.memory_lost());
  for (Task* t : rerun) uncommit_writes(t, d);

  // Tiles whose only valid copy is there: back to the host, if its memory
  // can still be read. Its other replicas are dropped (freed by flush_devices).
  uint64_t copied = 0, lost = 0;
  {
    std::lock_guard<std::mutex> lk(ds.mutex);
    for (Handle* h : ds.resident) {
      h->lock.lock();
      Replica& r = replica(h, d);
      if (r.state.load() == ReplicaState::Modified) {
        bool ok = false;
        if (!e.memory_lost() && r.ptr) {
          try {
            copy_to_host(dv, h, r.ptr);
            ok = true;
          } catch (...) {
          }
        }
        if (ok) {
          h->host_valid = true;
          ++copied;
        } else {
          ++lost;
        }
      }
      r.state = ReplicaState::Invalid;
      h->lock.unlock();
    }
  }
  if (lost)
    set_error(std::make_exception_ptr(std::runtime_error(
        "hetla: device " + dv.name() + " failed (" + e.what() + ") and " + std::to_string(lost) +
        " tile(s) whose only valid copy was there could not be read back: recovery is impossible")));
  bool any_left = cfg_.host_computes || tasks_in_flight() == 0;  // (nothing left to run: flushing)
  for (int o = 1; o < num_devices(); ++o) any_left = any_left || !device_failed(o);
  if (!any_left)
    set_error(std::make_exception_ptr(std::runtime_error("hetla: no device left to run the call: " +
                                                         std::string(e.what()))));

  // Its queued tasks go elsewhere (push_to sends anything queued from now on
  // elsewhere too: it checks `failed` under the queue's lock).
  std::vector<Task*> moved;
  {
    Queue& q = *queues_[static_cast<std::size_t>(d)];
    std::lock_guard<std::mutex> lk(q.mutex);
    q.heap.drain([&moved](Task* t) { moved.push_back(t); });
    q.size.store(0, std::memory_order_release);
  }
  for (Task* t : moved) queues_[static_cast<std::size_t>(d)]->load_ns.fetch_sub(t->est_ns, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lk(recovery_mutex_);
    Recovery& rec = recoveries_[static_cast<std::size_t>(ds.recovery)];
    rec.tasks_moved += moved.size();
    rec.tiles_copied_back += copied;
    rec.seconds_lost += static_cast<double>(clock_.now_ns() - t0) * 1e-9;
  }
  for (Task* t : rerun) run_again(t, d);
  if (!moved.empty()) push_ready_batch(moved.data(), moved.size());
}

// The task's writes on d become the only valid copies, unless d failed while
// it ran (then nothing changes: the task runs again elsewhere).
bool Runtime::commit_writes(Task* t, int d) {
  DeviceState& ds = *dstate_[static_cast<std::size_t>(d)];
  std::lock_guard<std::mutex> lk(ds.commit_mutex);
  if (ds.failed.load(std::memory_order_relaxed)) return false;
  for (const Access& a : t->acc) {
    if (!writes(a.mode)) continue;
    Handle* h = a.handle;
    h->lock.lock();
    replica(h, d).state = ReplicaState::Modified;
    h->host_valid = false;
    for (int e = 1; e < num_devices(); ++e)
      if (e != d) replica(h, e).state = ReplicaState::Invalid;
    h->lock.unlock();
  }
  return true;
}

// Host checkpoints (RuntimeConfig::host_checkpoints): the task committed its
// writes on d; copy them to the host before the task is released, while no
// other task may touch them (its successors wait for the release). d's copy
// engine does it when d has one (copy_engine.cc), its worker otherwise. Then the
// host holds the last committed version of every tile and a replica is
// Modified only from commit_writes to here, so:
//  - a task that runs on d while d fails (a copy of d's copy engine, or a
//    device with several workers) may have half-updated a tile in place; the
//    host copy is the version it started from, so running it again elsewhere
//    is right (without checkpoints that tile was copied back half-updated:
//    wrong answers, found by `hetla bench soak`);
//  - a device whose memory is lost loses no committed version: nothing has
//    to be recomputed (re-running a tile's producers would need the tasks
//    kept after they ran, and in-place factorizations overwrote their inputs).
// The cost is one copy out per tile version written on an accelerator (most
// of them would be copied out later anyway: by flush_devices, on eviction or
// for a host reader); measured in docs/reliability.md.
// A copy that fails here fails d. If none of the task's writes had reached the
// host, it runs again (returns false); else it stays done: its result is read
// back by fail_device, or the call fails if d's memory is lost.
bool Runtime::checkpoint_writes(Task* t, int d, int row) {
  dev::Device& dv = *devices_[static_cast<std::size_t>(d)];
  bool copied = false;
  try {
    for (const Access& a : t->acc) {
      if (!writes(a.mode)) continue;
      Handle* h = a.handle;
      h->lock.lock();
      Replica& r = replica(h, d);
      if (r.state.load() == ReplicaState::Modified && r.ptr) {
        trace::Recorder* rec = recorder_for(row);
        const double t0 = rec ? trace_now(rec) : 0;
        try {
          copy_to_host(dv, h, r.ptr);
        } catch (...) {
          h->lock.unlock();
          throw;
        }
        if (rec) rec->record(row, "checkpoint", t0, trace_now(rec), trace::Kind::Transfer, h->bytes);
        dstate_[static_cast<std::size_t>(d)]->bytes_out += h->bytes;
        r.state = ReplicaState::Shared;
        h->host_valid = true;
        copied = true;
      }
      h->lock.unlock();
    }
  } catch (const dev::DeviceError& e) {
    if (!copied) uncommit_writes(t, d);  // before fail_device counts its tiles lost
    on_device_error(e);
    return copied;
  } catch (...) {
    set_error(std::current_exception());
  }
  return true;
}

// t committed its writes on d, none of them reached the host, and d failed:
// the host still holds the versions t started from (every committed version
// is checkpointed before its writer is released), so they become the valid
// ones again and t can run again elsewhere.
void Runtime::uncommit_writes(Task* t, int d) {
  for (const Access& a : t->acc) {
    if (!writes(a.mode)) continue;
    Handle* h = a.handle;
    h->lock.lock();
    if (replica(h, d).state.load() == ReplicaState::Modified) {
      replica(h, d).state = ReplicaState::Invalid;
      h->host_valid = true;
    }
    h->lock.unlock();
  }
}

// Places t, which ran on failed device d but was not released, again.
void Runtime::run_again(Task* t, int d) {
  unpin(t, d, t->pinned);
  t->pinned = 0;
  t->fetch_engines = 0;
  count_retry(d, 0);
  push_ready_batch(&t, 1);
}

// Writes d's dirty replicas back and frees its memory (flush_devices). A
// device that fails here is failed (its tiles are read back if they can be)
// and the rest is freed.
void Runtime::flush_device(int d) {
  auto& dv = *devices_[static_cast<std::size_t>(d)];
  DeviceState& ds = *dstate_[static_cast<std::size_t>(d)];
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      std::lock_guard<std::mutex> lk(ds.mutex);
      for (Handle* h : ds.resident) {
        h->lock.lock();
        Replica& r = replica(h, d);
        if (r.ptr) {
          if (r.state.load() == ReplicaState::Modified) {
            try {
              copy_to_host(dv, h, r.ptr);
            } catch (...) {
              h->lock.unlock();
              throw;
            }
            dstate_[static_cast<std::size_t>(d)]->bytes_out += h->bytes;
            h->host_valid = true;
          }
          dv.deallocate(r.ptr, h->bytes);
        }
        r.ptr = nullptr;
        r.state = ReplicaState::Invalid;
        r.pins = 0;
        h->lock.unlock();
      }
      ds.resident.clear();
      return;
    } catch (const dev::DeviceError& e) {
      if (on_device_error(e) < 0) return;
    } catch (...) {
      set_error(std::current_exception());
      return;
    }
  }
  set_error(std::make_exception_ptr(std::runtime_error("hetla: device " + dv.name() + " failed twice while its tiles were written back")));
}

}  // namespace hetla::rt
