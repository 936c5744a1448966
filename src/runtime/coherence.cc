// Coherence: a handle's data lives on the host (its home copy) and in
// replicas on accelerators, each Invalid, Shared or Modified. Before a task
// runs on a device its inputs are made valid there; a write invalidates the
// other copies. Device memory is allocated on demand, evicting least recently
// used unpinned replicas; wait_all() writes everything back (flush_devices).
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "runtime/runtime.hpp"
#include "runtime/runtime_detail.hpp"
#include "trace/trace.hpp"

namespace hetla::rt {

using namespace detail;

Replica& Runtime::replica(Handle* h, int d) { return h->replicas[static_cast<std::size_t>(d)]; }

// Device replica -> host copy of h. A tile whose data is one triangle goes
// through a staging buffer so that the other triangle on the host stays the
// caller's: the replica may hold scratch there (Device::herk_as_gemm).
void Runtime::copy_to_host(dev::Device& dv, Handle* h, const void* replica) {
  if (h->triangle == Handle::Triangle::Whole) {
    executor_->copy_out(dv, *h, h->host_data, h->ld, replica, h->rows, h->cols, h->elem_size);
    return;
  }
  if (!h->host_data) {  // a shape-only handle (simulation): no host copy to keep
    executor_->copy_out(dv, *h, nullptr, h->rows, replica, h->rows, h->cols, h->elem_size);
    return;
  }
  thread_local std::vector<std::byte> stage;
  stage.resize(h->bytes);
  executor_->copy_out(dv, *h, stage.data(), h->rows, replica, h->rows, h->cols, h->elem_size);
  const bool lower = h->triangle == Handle::Triangle::Lower;
  for (int64_t j = 0; j < h->cols; ++j) {
    const int64_t i1 = lower ? std::min(j, h->rows) : 0, i2 = lower ? h->rows : std::min(j + 1, h->rows);
    std::memcpy(static_cast<std::byte*>(h->host_data) + (i1 + j * h->ld) * h->elem_size,
                stage.data() + (i1 + j * h->rows) * h->elem_size, static_cast<std::size_t>(i2 - i1) * h->elem_size);
  }
}

// Brings the newest copy (a Modified replica) back to host memory; h locked.
void Runtime::fetch_to_host(Handle* h, int row) {
  for (int d = 1; d < num_devices(); ++d) {
    Replica& r = replica(h, d);
    if (r.state.load() != ReplicaState::Modified) continue;
    trace::Recorder* rec = recorder_for(row);
    double t0 = rec ? trace_now(rec) : 0;
    copy_to_host(*devices_[static_cast<std::size_t>(d)], h, r.ptr);
    if (rec) rec->record(row, "copy_out", t0, trace_now(rec), trace::Kind::Transfer, h->bytes);
    dstate_[static_cast<std::size_t>(d)]->bytes_out += h->bytes;
    r.state = ReplicaState::Shared;
    break;
  }
  h->host_valid = true;
}

// Allocates on device d, evicting least recently used unpinned replicas
// (writing dirty ones back) until the allocation fits. When everything
// resident is pinned and `wait_for_memory` (the copy engine staging a task),
// waits for tasks staged or running on d to release their pins rather than
// fail: only when nothing else holds pins is the device really too small.
void* Runtime::allocate_on(int d, std::size_t bytes, int row, bool wait_for_memory) {
  auto& dv = *devices_[static_cast<std::size_t>(d)];
  if (void* p = dv.allocate(bytes)) return p;
  CopyEngine* e = wait_for_memory && has_engine(d) ? engines_[static_cast<std::size_t>(d)].get() : nullptr;
  DeviceState& ds = *dstate_[static_cast<std::size_t>(d)];
  for (;;) {
    uint64_t seen = 0;
    if (e) {
      std::lock_guard<std::mutex> lk(e->mutex);
      seen = e->unpins;
    }
    void* p = nullptr;
    {
      std::lock_guard<std::mutex> lk(ds.mutex);
      // Least recently used first: sorted 16 at a time as the walk needs
      // them (usually one eviction makes room; a full sort per allocation
      // took a fifth of a 100-node simulation, 750 tiles resident per GPU).
      auto older = [&](Handle* a, Handle* b) { return replica(a, d).last_use < replica(b, d).last_use; };
      std::size_t kept = 0, sorted = 0;
      for (std::size_t i = 0; i < ds.resident.size(); ++i) {
        if (!p && i == sorted) {
          sorted = std::min(ds.resident.size(), i + 16);
          std::partial_sort(ds.resident.begin() + static_cast<std::ptrdiff_t>(i),
                            ds.resident.begin() + static_cast<std::ptrdiff_t>(sorted), ds.resident.end(), older);
        }
        Handle* h = ds.resident[i];
        bool evicted = false;
        if (!p) {
          h->lock.lock();
          Replica& r = replica(h, d);
          if (r.ptr && r.pins == 0) {
            trace::Recorder* rec = recorder_for(row);
            double t0 = rec ? trace_now(rec) : 0;
            if (r.state.load() == ReplicaState::Modified) {
              try {
                copy_to_host(dv, h, r.ptr);
              } catch (...) {
                h->lock.unlock();
                // [kept, i) holds entries already moved down (or dropped)
                ds.resident.erase(ds.resident.begin() + static_cast<std::ptrdiff_t>(kept),
                                  ds.resident.begin() + static_cast<std::ptrdiff_t>(i));
                throw;
              }
              dstate_[static_cast<std::size_t>(d)]->bytes_out += h->bytes;
              h->host_valid = true;
            }
            dv.deallocate(r.ptr, h->bytes);
            r.ptr = nullptr;
            r.state = ReplicaState::Invalid;
            evicted = true;
            dstate_[static_cast<std::size_t>(d)]->evictions++;
            if (rec) rec->record(row, "evict", t0, trace_now(rec), trace::Kind::Transfer, h->bytes);
          }
          h->lock.unlock();
          if (evicted) p = dv.allocate(bytes);
        }
        if (!evicted) ds.resident[kept++] = h;
      }
      ds.resident.resize(kept);
    }
    if (p) return p;
    if (e) {
      std::unique_lock<std::mutex> lk(e->mutex);
      if (e->unpins != seen) continue;  // pins were released meanwhile: try again
      if (e->active > 0) {
        engine_wait(d, EngineEvent::Room, lk, [&] { return e->unpins != seen || stop_.load(); });
        if (!stop_.load()) continue;
      }
    }
    throw std::runtime_error(dv.name() + ": out of device memory (" + std::to_string(bytes) +
                             " bytes needed, nothing left to evict)");
  }
}

// Makes h's replica on accelerator d allocated and, for a read, valid; `pin`:
// also pins it (else the caller's task pinned it already). The copy itself
// runs without h's lock: the replica is pinned (not evictable) and marked
// filling (it stays Invalid, so nobody uses it, until the copy completed).
// Dependences keep the source stable meanwhile: a task that reads h is ready
// only once h's last writer finished, and no later writer starts before it.
// On an exception nothing stays pinned by this call.
void Runtime::acquire_on(Handle* h, Mode m, int d, int row, bool pin) {
  auto& dv = *devices_[static_cast<std::size_t>(d)];
  Replica& r = replica(h, d);
  h->lock.lock();
  if (pin) {
    bool added = false;
    while (!r.ptr) {
      h->lock.unlock();
      void* p = allocate_on(d, h->bytes, row, /*wait_for_memory=*/row >= num_workers_);
      h->lock.lock();
      if (!r.ptr) {
        r.ptr = p;
        added = true;
      } else {  // another thread of d won
        h->lock.unlock();
        dv.deallocate(p, h->bytes);
        h->lock.lock();
      }
    }
    ++r.pins;
    r.last_use = use_clock_.fetch_add(1, std::memory_order_relaxed);
    if (added) {  // pinned already, so it stays while unlocked
      h->lock.unlock();
      {
        DeviceState& ds = *dstate_[static_cast<std::size_t>(d)];
        std::lock_guard<std::mutex> lk(ds.mutex);
        ds.resident.push_back(h);
      }
      h->lock.lock();
    }
  }
  auto fail = [&] {  // h locked
    if (pin && r.pins > 0) --r.pins;
    h->lock.unlock();
  };
  if (reads(m)) {
    while (r.filling) {  // another thread of d is filling it
      h->lock.unlock();
      // a simulated actor must block in the simulator (only one runs at a
      // time: spinning would never let the filling one finish)
      if (coop_) coop_->wait(Threads::kFilling, [&r] { return !r.filling; });
      else std::this_thread::yield();
      h->lock.lock();
    }
    if (r.state.load() == ReplicaState::Invalid) {
      try {
        if (!h->host_valid.load()) fetch_to_host(h, row);
      } catch (...) {
        fail();
        throw;
      }
      r.filling = true;
      void* dst = r.ptr;
      h->lock.unlock();
      trace::Recorder* rec = recorder_for(row);
      double t0 = rec ? trace_now(rec) : 0;
      try {
        executor_->copy_in(dv, *h, dst, h->host_data, h->ld, h->rows, h->cols, h->elem_size);
      } catch (...) {
        h->lock.lock();
        r.filling = false;
        fail();
        if (coop_) coop_->notify(Threads::kFilling, Threads::kAll);
        throw;
      }
      if (rec) rec->record(row, "copy_in", t0, trace_now(rec), trace::Kind::Transfer, h->bytes);
      dstate_[static_cast<std::size_t>(d)]->bytes_in += h->bytes;
      h->lock.lock();
      r.state = ReplicaState::Shared;
      r.filling = false;
      h->lock.unlock();
      if (coop_) coop_->notify(Threads::kFilling, Threads::kAll);
      return;
    }
  }
  h->lock.unlock();
}

// Makes the task's data valid where it runs (d). On the host it records
// exclusive ownership for what it writes; on an accelerator that waits until
// the task succeeded (commit_writes, recovery.cc), so the copies it read stay
// valid if the device fails meanwhile. Dependences guarantee that no other
// task uses a written handle meanwhile, so invalidating other copies is safe.
// On an accelerator the first t->pinned accesses were staged by the copy
// engine (pinned, inputs copied); `pinned` counts the pinned accesses.
void Runtime::prepare_data(Task* t, int d, int worker, void** ptrs, int64_t* lds, std::size_t& pinned) {
  const bool multi = devices_.size() > 1;
  for (std::size_t i = 0; i < t->acc.size(); ++i) {
    Handle* h = t->acc[i].handle;
    const Mode m = t->acc[i].mode;
    if (d == 0) {
      if (multi) {
        h->lock.lock();
        if (!h->host_valid.load() && reads(m)) {
          try {
            fetch_to_host(h, worker);
          } catch (...) {
            h->lock.unlock();
            throw;
          }
        }
        if (writes(m)) {
          h->host_valid = true;
          for (int e = 1; e < num_devices(); ++e) replica(h, e).state = ReplicaState::Invalid;
        }
        h->lock.unlock();
      }
      ptrs[i] = h->host_data;
      lds[i] = h->ld;
      continue;
    }
    const bool staged = i < pinned;
    acquire_on(h, m, d, worker, /*pin=*/!staged);  // staged: only checks its input is valid
    if (!staged) ++pinned;
    Replica& r = replica(h, d);
    h->lock.lock();  // (its writes become the valid copy once it succeeded: commit_writes)
    ptrs[i] = r.ptr;
    lds[i] = h->rows;
    h->lock.unlock();
  }
}

void Runtime::unpin(Task* t, int d, std::size_t pinned) {
  for (std::size_t i = 0; i < pinned; ++i) {
    Handle* h = t->acc[i].handle;
    h->lock.lock();
    Replica& r = replica(h, d);
    if (r.pins > 0) --r.pins;
    h->lock.unlock();
  }
  if (has_engine(d)) {  // the copy engine may wait for memory these pins held
    CopyEngine& e = *engines_[static_cast<std::size_t>(d)];
    {
      std::lock_guard<std::mutex> lk(e.mutex);
      --e.active;
      ++e.unpins;
    }
    engine_notify(d, EngineEvent::Room);
  }
}

// Writes every dirty replica back to the host and frees device memory; runs
// when no task is in flight, so the user's arrays are current on return.
void Runtime::flush_devices() {
  for (int d = 1; d < num_devices(); ++d) flush_device(d);  // recovery.cc
}

}  // namespace hetla::rt
