#include "runtime/runtime.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "devices/host/host_device.hpp"
#include "trace/trace.hpp"
#include "util/hwloc_topology.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HETLA_CPU_RELAX() _mm_pause()
#else
#define HETLA_CPU_RELAX() std::this_thread::yield()
#endif

namespace hetla::rt {

void SpinLock::relax() { HETLA_CPU_RELAX(); }

namespace {
std::atomic<uint64_t> g_runtime_ids{1};

template <typename E> bool heap_less(const E& a, const E& b) {  // max-heap: priority, then insertion order
  return a.priority != b.priority ? a.priority < b.priority : a.seq > b.seq;
}

constexpr int kSpinIterations = 4000;  // ~tens of microseconds before sleeping
constexpr std::size_t kKernels = static_cast<std::size_t>(dev::KernelId::Count);

}  // namespace

struct Task {
  TaskBody body;
  std::atomic<int32_t> pending{0};  // unresolved predecessors (+1 while inserting)
  SpinLock lock;
  bool done = false;              // guarded by lock
  uint64_t seq = 0;               // written by the inserting thread only
  std::vector<Task*> successors;  // guarded by lock
  std::vector<Access> acc;        // the task's data accesses (for coherence)
  int priority = 0;
  const char* label = "";
  uint32_t flags = 0;
  dev::KernelId kernel = dev::KernelId::None;
  double flops = 0;
  int device = 0;      // where it was placed
  int forced = -1;     // TaskOptions::device
  int64_t est_ns = 0;  // its estimated duration there (queued-work accounting)
  std::size_t pinned = 0;  // leading accesses its device's copy engine pinned (staged) there
  uint64_t fetch_engines = 0;  // host task: bit e = write-backs of its inputs requested from device e's copy engine
};

TaskBody& Runtime::body_of(Task* t) { return t->body; }

Runtime::Runtime(RuntimeConfig cfg) : cfg_(std::move(cfg)), id_(g_runtime_ids.fetch_add(1)) {
  auto& topo = util::Topology::get();
  int accel_workers = 0;
  for (auto& a : cfg_.accelerators) accel_workers += a->num_workers();
  host_workers_ = cfg_.num_workers > 0 ? cfg_.num_workers : std::max(1, topo.cores() - accel_workers);

  devices_.push_back(std::make_shared<dev::HostDevice>(host_workers_));
  for (auto& a : cfg_.accelerators) devices_.push_back(a);
  for (std::size_t d = 0; d < devices_.size(); ++d) {
    devices_[d]->set_id(static_cast<int>(d));
    queues_.push_back(std::make_unique<Queue>());
    dstate_.push_back(std::make_unique<DeviceState>());
    int nw = d == 0 ? host_workers_ : devices_[d]->num_workers();
    device_workers_.push_back(nw);
    for (int w = 0; w < nw; ++w) worker_device_.push_back(static_cast<int>(d));
  }
  num_workers_ = static_cast<int>(worker_device_.size());
  wstats_ = std::make_unique<WorkerStats[]>(static_cast<std::size_t>(num_workers_));
  rng_state_ = cfg_.random_seed | 1;

  // Capability weights until calibration replaces them: the host rate per
  // kernel, scaled by each device's nominal speed.
  const double host = cfg_.host_core_gflops * 1e9;
  rates_.assign(devices_.size() * kKernels, 0.0);
  for (std::size_t d = 0; d < devices_.size(); ++d)
    for (std::size_t k = 0; k < kKernels; ++k)
      rates_[d * kKernels + k] =
          host * dev::default_relative_rate(static_cast<dev::KernelId>(k)) * devices_[d]->nominal_speed();

  for (auto& q : queues_) q->heap.reserve(1024);
  if (const char* env = std::getenv("HETLA_PREFETCH_DEPTH"); env && *env)  // A/B runs: 0 = synchronous copies
    cfg_.prefetch_depth = std::max(0, std::atoi(env));
  if (cfg_.prefetch_depth > 0 && devices_.size() > 1) {
    engines_.resize(devices_.size());
    for (std::size_t d = 1; d < devices_.size(); ++d) engines_[d] = std::make_unique<CopyEngine>();
  }
  threads_.reserve(static_cast<std::size_t>(num_workers_ - 1) + engines_.size());
  for (int w = 1; w < num_workers_; ++w) threads_.emplace_back([this, w] { worker_loop(w); });
  for (int d = 1; d < static_cast<int>(engines_.size()); ++d) threads_.emplace_back([this, d] { copy_loop(d); });
}

Runtime::~Runtime() {
  try {
    wait_all();
  } catch (...) {  // a destructor reports nothing; the error was the caller's to fetch
  }
  for (auto& q : queues_) {
    std::lock_guard<std::mutex> lk(q->mutex);
    stop_ = true;
  }
  for (auto& q : queues_) q->cv.notify_all();
  for (auto& e : engines_) {
    if (!e) continue;
    { std::lock_guard<std::mutex> lk(e->mutex); }  // a waiter has either seen stop_ or is asleep now
    e->staged_cv.notify_all();
    e->room_cv.notify_all();
  }
  for (auto& th : threads_) th.join();
}

double Runtime::rate(int d, dev::KernelId k) const {
  return rates_[static_cast<std::size_t>(d) * kKernels + static_cast<std::size_t>(k)];
}

void Runtime::set_rate(int d, dev::KernelId k, double r) {
  if (r > 0) rates_[static_cast<std::size_t>(d) * kKernels + static_cast<std::size_t>(k)] = r;
}

std::vector<DeviceStats> Runtime::stats() const {
  std::vector<DeviceStats> out;
  for (std::size_t d = 0; d < devices_.size(); ++d) {
    const DeviceState& c = *dstate_[d];
    DeviceStats s;
    for (int w = 0; w < num_workers_; ++w) {
      if (worker_device_[static_cast<std::size_t>(w)] != static_cast<int>(d)) continue;
      const WorkerStats& ws = wstats_[static_cast<std::size_t>(w)];
      s.tasks += ws.tasks.load();
      s.flops += ws.flops.load();
      s.busy_seconds += static_cast<double>(ws.busy_ns.load()) * 1e-9;
    }
    s.bytes_in = c.bytes_in.load();
    s.bytes_out = c.bytes_out.load();
    s.evictions = c.evictions.load();
    out.push_back(s);
  }
  return out;
}

void Runtime::reset_stats() {
  for (auto& c : dstate_) {
    c->bytes_in = 0, c->bytes_out = 0, c->evictions = 0;
  }
  for (int w = 0; w < num_workers_; ++w) {
    WorkerStats& ws = wstats_[static_cast<std::size_t>(w)];
    ws.tasks = 0, ws.busy_ns = 0, ws.flops = 0;
  }
}

Task* Runtime::allocate() {
  if (alloc_cache_.empty()) {
    {
      std::lock_guard<std::mutex> lk(pool_mutex_);
      alloc_cache_.swap(free_);
    }
    if (alloc_cache_.empty()) {
      constexpr std::size_t kChunk = 256;
      chunks_.emplace_back(new Task[kChunk]);
      for (std::size_t i = 0; i < kChunk; ++i) alloc_cache_.push_back(&chunks_.back()[kChunk - 1 - i]);
    }
  }
  Task* t = alloc_cache_.back();
  alloc_cache_.pop_back();
  return t;
}

void Runtime::add_dependence(Task* t, const Handle::Ref& pred) {
  Task* p = pred.task;
  if (!p || p == t) return;
  // Only this thread reassigns seq, so a mismatch means the task finished and
  // was recycled; a match with done==true means it finished.
  if (p->seq != pred.seq) return;
  p->lock.lock();
  if (!p->done) {
    p->successors.push_back(t);
    t->pending.fetch_add(1, std::memory_order_relaxed);
  }
  p->lock.unlock();
}

void Runtime::submit(Task* t, const Access* acc, std::size_t nacc, const TaskOptions& opt) {
  if (opt.device >= num_devices()) {
    t->body.reset();
    alloc_cache_.push_back(t);
    throw std::invalid_argument("Runtime::insert: no device " + std::to_string(opt.device));
  }
  t->seq = next_seq_++;
  t->done = false;
  t->priority = opt.priority;
  t->label = opt.label;
  t->flags = opt.flags;
  t->kernel = opt.kernel;
  t->flops = opt.flops;
  t->forced = opt.device;
  t->pinned = 0;
  t->fetch_engines = 0;
  t->acc.assign(acc, acc + nacc);
  t->pending.store(1, std::memory_order_relaxed);
  in_flight_.fetch_add(1, std::memory_order_relaxed);

  const bool multi = devices_.size() > 1;
  const Handle::Ref self{t, t->seq};
  for (std::size_t a = 0; a < nacc; ++a) {
    Handle* h = acc[a].handle;
    if (h->runtime_id != id_) {  // refs from another (or a dead) runtime are void
      h->runtime_id = id_;
      h->last_writer = {};
      h->readers.clear();
    }
    if (multi && h->replicas_runtime != id_) {  // replica slots for this runtime's devices
      h->replicas = std::make_unique<Replica[]>(devices_.size());
      h->replicas_runtime = id_;
      h->host_valid.store(true);
    }
    if (acc[a].mode == Mode::Read) {
      add_dependence(t, h->last_writer);  // RaW
      h->readers.push_back(self);
    } else {
      if (h->readers.empty()) {
        add_dependence(t, h->last_writer);  // WaW
      } else {
        for (const auto& r : h->readers) add_dependence(t, r);  // WaR (implies WaW)
        h->readers.clear();
      }
      h->last_writer = self;
    }
  }
  if (t->pending.fetch_sub(1, std::memory_order_acq_rel) == 1) push_ready_batch(&t, 1);

  if (in_flight_.load(std::memory_order_relaxed) > cfg_.window) help_until(cfg_.window / 2);
}

// ---------------------------------------------------------------- placement

int Runtime::place(Task* t) {
  t->device = 0;
  t->est_ns = 0;
  if (devices_.size() == 1) return 0;
  const bool any_device = t->kernel != dev::KernelId::None && !(t->flags & (kHostOnly | kMemoryBound));
  const bool fp64 = t->flags & kFp64;
  auto device_can = [&](int d) { return any_device && devices_[static_cast<std::size_t>(d)]->can_run(t->kernel, fp64); };
  bool accel_can = false;
  for (int d = 1; d < num_devices(); ++d) accel_can = accel_can || device_can(d);
  auto capable = [&](int d) { return d == 0 ? (cfg_.host_computes || !accel_can) : device_can(d); };
  auto exec_ns = [&](int d) {
    double r = t->kernel == dev::KernelId::None ? rate(d, dev::KernelId::Gemm) : rate(d, t->kernel);
    return static_cast<int64_t>(t->flops / r * 1e9);
  };
  int best = 0;
  if (t->forced >= 0) {
    best = t->forced;
  } else if (!any_device || !accel_can) {
    best = 0;
  } else if (cfg_.random_placement) {
    uint64_t x;
    {  // xorshift; placement runs on any thread
      std::lock_guard<std::mutex> lk(pool_mutex_);
      rng_state_ ^= rng_state_ << 13, rng_state_ ^= rng_state_ >> 7, rng_state_ ^= rng_state_ << 17;
      x = rng_state_;
    }
    std::vector<int> c;
    for (int d = 0; d < num_devices(); ++d)
      if (capable(d)) c.push_back(d);
    best = c[x % c.size()];
  } else {
    int home = -1;
    if (cfg_.schedule == Schedule::Static)
      for (const auto& a : t->acc)
        if (writes(a.mode)) {
          home = a.handle->home;
          break;
        }
    if (cfg_.schedule == Schedule::Static && (t->flags & kPanel) && capable(0)) {
      best = 0;
    } else if (home >= 0 && home < num_devices() && capable(home)) {
      best = home;
    } else {
      // Greedy weighted assignment (seed 000 §5.2): the device that would
      // finish the task first, counting its queued work, the kernel's rate
      // there and the bytes that must move to it.
      double best_cost = std::numeric_limits<double>::max();
      for (int d = 0; d < num_devices(); ++d) {
        if (!capable(d)) continue;
        double bytes = 0;
        for (const auto& a : t->acc) {
          if (!reads(a.mode)) continue;
          const Handle* h = a.handle;
          bool valid = d == 0 ? h->host_valid.load(std::memory_order_relaxed)
                              : h->replicas[static_cast<std::size_t>(d)].state.load(std::memory_order_relaxed) !=
                                    ReplicaState::Invalid;
          if (!valid) bytes += static_cast<double>(h->bytes);
        }
        const auto& dv = *devices_[static_cast<std::size_t>(d)];
        double transfer = d == 0 ? bytes / 10e9 : bytes / dv.bandwidth_hint();
        double queued = static_cast<double>(queues_[static_cast<std::size_t>(d)]->load_ns.load(std::memory_order_relaxed)) *
                        1e-9 / device_workers_[static_cast<std::size_t>(d)];
        double cost = queued + transfer + static_cast<double>(exec_ns(d)) * 1e-9;
        if (cost < best_cost) best_cost = cost, best = d;
      }
    }
  }
  t->device = best;
  t->est_ns = exec_ns(best);
  queues_[static_cast<std::size_t>(best)]->load_ns.fetch_add(t->est_ns, std::memory_order_relaxed);
  return best;
}

void Runtime::push_ready_batch(Task** ts, std::size_t n) {
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
    std::lock_guard<std::mutex> lk(q.mutex);
    for (std::size_t i = 0; i < n; ++i) {
      q.heap.push_back({ts[i]->priority, ts[i]->seq, ts[i]});
      std::push_heap(q.heap.begin(), q.heap.end(), heap_less<ReadyEntry>);
    }
    q.size.store(q.heap.size(), std::memory_order_release);
    wake = std::min<int>(q.sleepers, static_cast<int>(n));
  }
  if (d != 0 && copy_engines_on()) {  // the copy engine takes the device's ready tasks
    CopyEngine& e = *engines_[static_cast<std::size_t>(d)];
    { std::lock_guard<std::mutex> lk(e.mutex); }  // it saw the new size or is asleep now
    e.room_cv.notify_one();
    return;
  }
  if (wake == 1) q.cv.notify_one();
  else if (wake > 1) q.cv.notify_all();
}

Task* Runtime::try_pop(int d) {
  Queue& q = *queues_[static_cast<std::size_t>(d)];
  if (q.size.load(std::memory_order_acquire) == 0) return nullptr;
  std::lock_guard<std::mutex> lk(q.mutex);
  if (q.heap.empty()) return nullptr;
  std::pop_heap(q.heap.begin(), q.heap.end(), heap_less<ReadyEntry>);
  Task* t = q.heap.back().task;
  q.heap.pop_back();
  q.size.store(q.heap.size(), std::memory_order_release);
  return t;
}

// ---------------------------------------------------------------- coherence

Replica& Runtime::replica(Handle* h, int d) { return h->replicas[static_cast<std::size_t>(d)]; }

trace::Recorder* Runtime::recorder_for(int row) const {
  trace::Recorder* rec = tracer_;
  return rec && row < rec->num_workers() ? rec : nullptr;
}

// Device replica -> host copy of h. A tile whose data is one triangle goes
// through a staging buffer so that the other triangle on the host stays the
// caller's: the replica may hold scratch there (Device::herk_as_gemm).
void Runtime::copy_to_host(dev::Device& dv, Handle* h, const void* replica) {
  if (h->triangle == Handle::Triangle::Whole) {
    dv.copy_out(h->host_data, h->ld, replica, h->rows, h->cols, h->elem_size);
    return;
  }
  thread_local std::vector<std::byte> stage;
  stage.resize(h->bytes);
  dv.copy_out(stage.data(), h->rows, replica, h->rows, h->cols, h->elem_size);
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
    double t0 = rec ? rec->now() : 0;
    copy_to_host(*devices_[static_cast<std::size_t>(d)], h, r.ptr);
    if (rec) rec->record(row, "copy_out", t0, rec->now(), trace::Kind::Transfer, h->bytes);
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
  CopyEngine* e = wait_for_memory && copy_engines_on() ? engines_[static_cast<std::size_t>(d)].get() : nullptr;
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
      std::sort(ds.resident.begin(), ds.resident.end(),
                [&](Handle* a, Handle* b) { return replica(a, d).last_use < replica(b, d).last_use; });
      std::size_t kept = 0;
      for (std::size_t i = 0; i < ds.resident.size(); ++i) {
        Handle* h = ds.resident[i];
        bool evicted = false;
        if (!p) {
          h->lock.lock();
          Replica& r = replica(h, d);
          if (r.ptr && r.pins == 0) {
            trace::Recorder* rec = recorder_for(row);
            double t0 = rec ? rec->now() : 0;
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
            if (rec) rec->record(row, "evict", t0, rec->now(), trace::Kind::Transfer, h->bytes);
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
        e->room_cv.wait(lk, [&] { return e->unpins != seen || stop_.load(); });
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
      std::this_thread::yield();
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
      double t0 = rec ? rec->now() : 0;
      try {
        dv.copy_in(dst, h->host_data, h->ld, h->rows, h->cols, h->elem_size);
      } catch (...) {
        h->lock.lock();
        r.filling = false;
        fail();
        throw;
      }
      if (rec) rec->record(row, "copy_in", t0, rec->now(), trace::Kind::Transfer, h->bytes);
      dstate_[static_cast<std::size_t>(d)]->bytes_in += h->bytes;
      h->lock.lock();
      r.state = ReplicaState::Shared;
      r.filling = false;
    }
  }
  h->lock.unlock();
}

// Makes the task's data valid where it runs (d) and records exclusive
// ownership for what it writes. Dependences guarantee that no other task
// uses a written handle meanwhile, so invalidating other copies is safe here.
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
    h->lock.lock();
    if (writes(m)) {
      r.state = ReplicaState::Modified;
      h->host_valid = false;
      for (int e = 1; e < num_devices(); ++e)
        if (e != d) replica(h, e).state = ReplicaState::Invalid;
    }
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
  if (copy_engines_on()) {  // the copy engine may wait for memory these pins held
    CopyEngine& e = *engines_[static_cast<std::size_t>(d)];
    {
      std::lock_guard<std::mutex> lk(e.mutex);
      --e.active;
      ++e.unpins;
    }
    e.room_cv.notify_one();
  }
}

// ---------------------------------------------------------------- copy engines

void Runtime::set_error(std::exception_ptr e) {
  std::lock_guard<std::mutex> lk(error_mutex_);
  if (!error_) error_ = e;
  cancelled_.store(true, std::memory_order_relaxed);
}

// Pins the task's data on d and copies its inputs there. A failure cancels
// the call (as a failing task does); the task is still handed to the workers,
// which skip it and release what was pinned.
void Runtime::stage(Task* t, int d) {
  t->pinned = 0;
  if (cancelled_.load(std::memory_order_relaxed)) return;
  const int row = copy_engine_row(d);
  try {
    for (const Access& a : t->acc) {
      acquire_on(a.handle, a.mode, d, row, /*pin=*/true);
      ++t->pinned;
    }
  } catch (...) {
    set_error(std::current_exception());
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
      e.room_cv.wait(lk, [&] {
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
      {
        std::lock_guard<std::mutex> lk(e.mutex);
        e.fetching = nullptr;
      }
      e.fetch_cv.notify_all();
      continue;
    }
    Task* t = try_pop(d);
    if (!t) continue;
    {
      std::lock_guard<std::mutex> lk(e.mutex);
      ++e.ahead;
    }
    stage(t, d);
    {
      std::lock_guard<std::mutex> lk(e.mutex);
      e.staged.push_back(t);
      ++e.active;
    }
    e.staged_cv.notify_one();  // t may finish and be recycled from here on
  }
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
      if (replica(h, d).state.load(std::memory_order_relaxed) != ReplicaState::Modified) continue;
      CopyEngine& e = *engines_[static_cast<std::size_t>(d)];
      t->fetch_engines |= uint64_t{1} << d;
      {
        std::lock_guard<std::mutex> lk(e.mutex);
        e.fetches.push_back({t, h});
      }
      e.room_cv.notify_one();
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
    e.fetch_cv.wait(lk, [&] { return e.fetching != t; });
  }
  t->fetch_engines = 0;
}

void Runtime::write_back(Handle* h, int row) {
  h->lock.lock();
  try {
    if (!h->host_valid.load()) fetch_to_host(h, row);
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
    e.staged_cv.wait(lk, [&] { return stop_.load() || !e.staged.empty(); });
    if (e.staged.empty()) return nullptr;
    t = e.staged.front();
    e.staged.pop_front();
    --e.ahead;
  }
  e.room_cv.notify_one();
  return t;
}

// Writes every dirty replica back to the host and frees device memory; runs
// when no task is in flight, so the user's arrays are current on return.
void Runtime::flush_devices() {
  for (int d = 1; d < num_devices(); ++d) {
    auto& dv = *devices_[static_cast<std::size_t>(d)];
    DeviceState& ds = *dstate_[static_cast<std::size_t>(d)];
    std::lock_guard<std::mutex> lk(ds.mutex);
    for (Handle* h : ds.resident) {
      h->lock.lock();
      Replica& r = replica(h, d);
      if (r.ptr) {
        if (r.state.load() == ReplicaState::Modified) {
          copy_to_host(dv, h, r.ptr);
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
  }
}

// ---------------------------------------------------------------- execution

void Runtime::execute(Task* t, int worker) {
  const int d = worker_device_[static_cast<std::size_t>(worker)];
  std::size_t pinned = d != 0 ? t->pinned : 0;  // staged by the copy engine
  if (t->fetch_engines) settle_write_backs(t);
  if (!cancelled_.load(std::memory_order_relaxed)) {
    thread_local std::vector<void*> ptrs;
    thread_local std::vector<int64_t> lds;
    ptrs.resize(t->acc.size());
    lds.resize(t->acc.size());
    trace::Recorder* rec = tracer_;
    try {
      prepare_data(t, d, worker, ptrs.data(), lds.data(), pinned);
      TaskContext ctx{worker, devices_[static_cast<std::size_t>(d)].get(), ptrs.data(), lds.data()};
      auto t0 = std::chrono::steady_clock::now();
      const double start = rec ? rec->now() : 0.0;
      t->body(ctx);
      if (rec) rec->record(worker, t->label, start, rec->now());
      WorkerStats& c = wstats_[static_cast<std::size_t>(worker)];
      c.tasks.store(c.tasks.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);  // single writer
      c.flops.store(c.flops.load(std::memory_order_relaxed) + t->flops, std::memory_order_relaxed);
      c.busy_ns.store(c.busy_ns.load(std::memory_order_relaxed) +
                          std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count(),
                      std::memory_order_relaxed);
    } catch (...) {
      set_error(std::current_exception());
    }
  }
  if (d != 0) unpin(t, d, pinned);
  queues_[static_cast<std::size_t>(t->device)]->load_ns.fetch_sub(t->est_ns, std::memory_order_relaxed);
  t->body.reset();
  executed_.fetch_add(1, std::memory_order_relaxed);
  release(t);
}

void Runtime::release(Task* t) {
  // Take the successors out under the lock; after done=true nobody adds more.
  Task* local[16];
  std::vector<Task*> spill;
  std::size_t n = 0;
  t->lock.lock();
  t->done = true;
  if (t->successors.size() <= 16) {
    for (Task* s : t->successors) local[n++] = s;
  } else {
    spill = t->successors;
  }
  t->successors.clear();
  t->lock.unlock();

  Task** succ = spill.empty() ? local : spill.data();
  std::size_t count = spill.empty() ? n : spill.size();
  std::size_t ready = 0;
  for (std::size_t i = 0; i < count; ++i)
    if (succ[i]->pending.fetch_sub(1, std::memory_order_acq_rel) == 1) succ[ready++] = succ[i];
  push_ready_batch(succ, ready);

  {
    std::lock_guard<std::mutex> lk(pool_mutex_);
    free_.push_back(t);
  }
  if (in_flight_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    Queue& q = *queues_[0];  // the caller waits on the host queue
    std::lock_guard<std::mutex> lk(q.mutex);
    q.cv.notify_all();
  }
}

void Runtime::worker_loop(int worker) {
  const int d = worker_device_[static_cast<std::size_t>(worker)];
  if (d == 0) {
    if (cfg_.pin_threads) util::Topology::get().bind_current_thread_to_core(worker);
  } else {
    int local = 0;
    for (int w = 0; w < worker; ++w) local += worker_device_[static_cast<std::size_t>(w)] == d;
    devices_[static_cast<std::size_t>(d)]->attach_worker(local);
    if (copy_engines_on()) {  // the copy engine stages the device's tasks
      while (Task* t = take_staged(d)) execute(t, worker);
      return;
    }
  }
  Queue& q = *queues_[static_cast<std::size_t>(d)];
  for (;;) {
    Task* t = try_pop(d);
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
    execute(t, worker);
  }
}

void Runtime::help_until(std::size_t target) {
  Queue& q = *queues_[0];
  while (in_flight_.load(std::memory_order_acquire) > target) {
    Task* t = try_pop(0);
    for (int spin = 0; !t && spin < kSpinIterations; ++spin) {
      HETLA_CPU_RELAX();
      if (in_flight_.load(std::memory_order_acquire) <= target) return;
      if (q.size.load(std::memory_order_relaxed) != 0) t = try_pop(0);
    }
    if (!t) {
      std::unique_lock<std::mutex> lk(q.mutex);
      ++q.sleepers;
      q.cv.wait_for(lk, std::chrono::milliseconds(1), [&] {
        return !q.heap.empty() || in_flight_.load(std::memory_order_acquire) <= target;
      });
      --q.sleepers;
      continue;
    }
    execute(t, 0);
  }
}

void Runtime::wait_all() {
  help_until(0);
  if (devices_.size() > 1) flush_devices();
  std::exception_ptr err;
  {
    std::lock_guard<std::mutex> lk(error_mutex_);
    err = error_;
    error_ = nullptr;
  }
  cancelled_.store(false, std::memory_order_relaxed);
  if (err) std::rethrow_exception(err);
}

void Runtime::wait(Handle* h) {
  std::atomic<bool> reached{false};
  Access a{h, Mode::Read};
  insert([&reached](TaskContext&) { reached.store(true, std::memory_order_release); }, &a, 1,
         TaskOptions{std::numeric_limits<int>::max(), "wait"});
  // Help with host work (the marker may depend on anything) until it ran.
  while (!reached.load(std::memory_order_acquire)) {
    if (Task* t = try_pop(0)) execute(t, 0);
    else HETLA_CPU_RELAX();
    if (cancelled_.load(std::memory_order_relaxed)) {
      wait_all();  // rethrows
      return;
    }
  }
}

}  // namespace hetla::rt
