#include "runtime/runtime.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>

#include "devices/host/host_device.hpp"
#include "runtime/runtime_detail.hpp"
#include "trace/trace.hpp"
#include "util/hwloc_topology.hpp"
#include "util/thread_priority.hpp"

namespace hetla::rt {

using namespace detail;

void SpinLock::relax() { HETLA_CPU_RELAX(); }

namespace {
std::atomic<uint64_t> g_runtime_ids{1};

constexpr std::size_t kKernels = static_cast<std::size_t>(dev::KernelId::Count);

// The calling thread's call (Runtime::begin_call) and the runtime it is on.
thread_local const Runtime* tl_runtime = nullptr;
thread_local CallGraph* tl_call = nullptr;

}  // namespace

TaskBody& Runtime::body_of(Task* t) { return t->body; }

Runtime::Runtime(RuntimeConfig cfg)
    : cfg_(std::move(cfg)), id_(g_runtime_ids.fetch_add(1)), clock_(cfg_.clock.get()),
      placement_(cfg_.random_placement, cfg_.random_seed) {
  auto& topo = util::Topology::get();
  int accel_workers = 0;
  for (auto& a : cfg_.accelerators) accel_workers += a->num_workers();
  host_workers_ = cfg_.num_workers > 0 ? cfg_.num_workers : std::max(1, topo.cores() - accel_workers);

  if (cfg_.nodes < 1 || cfg_.node_p < 1 || cfg_.node_q < 1 || cfg_.node_p * cfg_.node_q != cfg_.nodes ||
      (cfg_.nodes > 1 && (cfg_.accelerators.empty() || cfg_.accelerators.size() % static_cast<std::size_t>(cfg_.nodes))))
    throw std::invalid_argument("Runtime: " + std::to_string(cfg_.nodes) + " nodes need a " + std::to_string(cfg_.node_p) +
                                " x " + std::to_string(cfg_.node_q) + " grid of that many and the same devices each");
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
  if (!cfg_.executor) cfg_.executor = std::make_shared<DeviceExecutor>();
  executor_ = cfg_.executor.get();
  coop_ = cfg_.threads.get();
  if (coop_) cfg_.pin_threads = false;
  wstats_ = std::make_unique<WorkerStats[]>(static_cast<std::size_t>(num_workers_));

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
  if (const char* env = std::getenv("HETLA_CHECKPOINTS"); env && *env) cfg_.host_checkpoints = std::atoi(env) != 0;
  if (cfg_.prefetch_depth > 0 && devices_.size() > 1) {
    engines_.resize(devices_.size());
    // Not for a simulated cluster node's host cores: their copies are the
    // node's messages, which its workers wait for each on its own (as the
    // MPI progress thread keeps every receive posted), not one at a time
    // (measured: 4 Keeneland nodes, potrf n = 46 080, 16.1 s predicted
    // through one copy engine per node against 13.9 s without).
    for (std::size_t d = 1; d < devices_.size(); ++d)
      if (!is_host(static_cast<int>(d))) engines_[d] = std::make_unique<CopyEngine>();
  }
  if (coop_) {
    for (int w = 1; w < num_workers_; ++w) coop_->start([this, w] { worker_loop(w); });
    for (int d = 1; d < static_cast<int>(engines_.size()); ++d)
      if (has_engine(d)) {
        coop_->start([this, d] { copy_loop(d); });
        coop_->start([this, d] { checkpoint_loop(d); });
      }
    return;
  }
  threads_.reserve(static_cast<std::size_t>(num_workers_ - 1) + 2 * engines_.size());
  for (int w = 1; w < num_workers_; ++w) threads_.emplace_back([this, w] { worker_loop(w); });
  for (int d = 1; d < static_cast<int>(engines_.size()); ++d)
    if (has_engine(d)) {
      // Copies that are memcpy on these threads (an emulated device) fill the
      // cores' idle time: at the workers' priority a woken copy thread took
      // the core of the device's worker, which waited (potrf n = 8000 on
      // cpu,emu:speed=0.5, 2026-11-26: the emu's worker idle 11-12 % of the
      // run between tasks; 6-7 % at a lower priority, the run 1-2 % faster
      // in each of three pairs).
      const bool yield = devices_[static_cast<std::size_t>(d)]->copies_on_host_cores();
      for (void (Runtime::*loop)(int) : {&Runtime::copy_loop, &Runtime::checkpoint_loop})
        threads_.emplace_back([this, d, yield, loop] {
          if (yield) util::lower_current_thread_priority();
          (this->*loop)(d);
        });
    }
}

Runtime::~Runtime() {
  try {
    wait_all();
  } catch (...) {  // a destructor reports nothing; the error was the caller's to fetch
  }
  detach_comm();
  for (auto& q : queues_) {
    std::lock_guard<std::mutex> lk(q->mutex);
    stop_ = true;
  }
  for (auto& q : queues_) q->cv.notify_all();
  for (int d = 1; d < static_cast<int>(engines_.size()); ++d) {
    if (!has_engine(d)) continue;
    { std::lock_guard<std::mutex> lk(engines_[static_cast<std::size_t>(d)]->mutex); }  // a waiter saw stop_ or sleeps
    engine_notify(d, EngineEvent::Staged, true);
    engine_notify(d, EngineEvent::Room, true);
    engine_notify(d, EngineEvent::Checkpoint, true);
  }
  for (auto& th : threads_) th.join();
  if (coop_) {
    for (int d = 0; d < num_devices(); ++d) coop_->notify(d, Threads::kAll);
    coop_->join_all();
  }
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

uint64_t Runtime::tasks_executed() const {
  uint64_t n = executed_.load(std::memory_order_relaxed);
  for (int w = 0; w < num_workers_; ++w) n += wstats_[static_cast<std::size_t>(w)].executed.load(std::memory_order_relaxed);
  return n;
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

CallGraph& Runtime::current() { return tl_runtime == this ? *tl_call : main_call_; }

void Runtime::begin_call(CallGraph& c) {
  {
    std::lock_guard<std::mutex> lk(calls_mutex_);
    calls_.push_back(&c);
  }
  tl_runtime = this;
  tl_call = &c;
}

void Runtime::end_call(CallGraph& c) {
  // A call left by an exception before its wait_all: its tasks still point
  // to c, so they finish (or are skipped) first; the error was the call's own.
  if (c.in_flight.load(std::memory_order_acquire) != 0) {
    set_error(c, std::make_exception_ptr(std::runtime_error("hetla: call abandoned")));
    help_until(c, 0);
  }
  if (tl_call == &c) tl_runtime = nullptr, tl_call = nullptr;
  {
    std::lock_guard<std::mutex> lk(calls_mutex_);
    calls_.erase(std::remove(calls_.begin(), calls_.end(), &c), calls_.end());
  }
  if (!c.alloc_cache.empty()) {  // its unused tasks go back to the pool
    std::lock_guard<std::mutex> lk(pool_mutex_);
    free_.insert(free_.end(), c.alloc_cache.begin(), c.alloc_cache.end());
    c.alloc_cache.clear();
  }
}

std::size_t Runtime::tasks_in_flight() {
  std::lock_guard<std::mutex> lk(calls_mutex_);
  std::size_t n = main_call_.in_flight.load();
  for (CallGraph* c : calls_) n += c->in_flight.load();
  return n;
}

Task* Runtime::allocate(CallGraph& c) {
  if (c.alloc_cache.empty()) {
    std::lock_guard<std::mutex> lk(pool_mutex_);
    c.alloc_cache.swap(free_);
    if (c.alloc_cache.empty()) {
      constexpr std::size_t kChunk = 256;
      chunks_.emplace_back(new Task[kChunk]);
      for (std::size_t i = 0; i < kChunk; ++i) c.alloc_cache.push_back(&chunks_.back()[kChunk - 1 - i]);
    }
  }
  Task* t = c.alloc_cache.back();
  c.alloc_cache.pop_back();
  return t;
}

void Runtime::add_dependence(Task* t, const Handle::Ref& pred) {
  Task* p = pred.task;
  if (!p || p == t) return;
  // seq is set under the task's lock when it is inserted (by whichever call's
  // thread recycled it), so a mismatch means the task finished and was
  // recycled; a match with done==true means it finished. A mismatch seen
  // without the lock is final (seq changes only after done, and the Ref was
  // read after its seq was set): no lock then, as for most predecessors in a
  // chain, which finished and were recycled before their successor came.
  if (p->seq.load(std::memory_order_relaxed) != pred.seq) return;
  p->lock.lock();
  if (p->seq == pred.seq && !p->done) {
    p->successors.push_back(t);
    t->pending.fetch_add(1, std::memory_order_relaxed);
  }
  p->lock.unlock();
}

// Drops the readers that finished and were recycled (their seq moved on, a
// final state: see add_dependence), before the list would grow: a tile read
// by many tasks one after the other (fanout) keeps a short list instead of
// one entry per reader since the last write.
void Runtime::prune_readers(Handle& h) {
  std::erase_if(h.readers, [](const Handle::Ref& r) { return r.task->seq.load(std::memory_order_relaxed) != r.seq; });
}

void Runtime::submit(CallGraph& c, Task* t, const Access* acc, std::size_t nacc, const TaskOptions& opt) {
  if (opt.device >= num_devices()) {
    t->body.reset();
    c.alloc_cache.push_back(t);
    throw std::invalid_argument("Runtime::insert: no device " + std::to_string(opt.device));
  }
  if (comm_ && !(opt.flags & kComm) && !route(t, acc, nacc, opt.block_reads)) return;  // distributed.cc
  t->lock.lock();
  const uint64_t seq = next_seq_.fetch_add(1, std::memory_order_relaxed);
  t->seq.store(seq, std::memory_order_relaxed);
  t->done = false;
  t->lock.unlock();
  t->call = &c;
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
  c.in_flight.fetch_add(1, std::memory_order_relaxed);

  const bool multi = devices_.size() > 1;
  const Handle::Ref self{t, seq};
  for (std::size_t a = 0; a < nacc; ++a) {
    Handle* h = acc[a].handle;
    std::lock_guard<SpinLock> deps(h->deps);
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
      if (h->readers.size() >= 32 && h->readers.size() == h->readers.capacity()) prune_readers(*h);
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
  if (comm_ && !(opt.flags & kComm)) send_returns();  // distributed.cc

  if (c.in_flight.load(std::memory_order_relaxed) > cfg_.window) help_until(c, cfg_.window / 2);
}

// ---------------------------------------------------------------- placement

// Takes the snapshot placement decides on (placement.hpp): per device its
// queued work and the rate of the task's kernel and, for a task that may
// leave the host, whether the device has the kernel and how many bytes its
// inputs would have to move there; then counts the decision's estimated time
// in that device's queued work.
int Runtime::place(Task* t) {
  t->device = 0;
  t->est_ns = 0;
  if (devices_.size() == 1) return 0;
  const std::size_t n = devices_.size();
  constexpr std::size_t kInline = 8;  // devices whose views live on the stack
  DeviceView inline_views[kInline];
  std::vector<DeviceView> more;
  DeviceView* views = inline_views;
  if (n > kInline) {
    more.resize(n);
    views = more.data();
  }
  const bool offload = Placement::offloadable(t->flags, t->kernel);
  const dev::KernelId k = t->kernel == dev::KernelId::None ? dev::KernelId::Gemm : t->kernel;
  for (std::size_t d = 0; d < n; ++d) {
    DeviceView& v = views[d];
    v.rate = rate(static_cast<int>(d), k);
    v.queued_ns = queues_[d]->load_ns.load(std::memory_order_relaxed);
    v.workers = device_workers_[d];
    if (!offload) continue;
    if (d > 0) {
      const dev::Device& dv = *devices_[d];
      v.has_kernel = dv.has_kernel(t->kernel) && !device_failed(static_cast<int>(d));
      if (!v.has_kernel) continue;
      if (t->flags & kFp64) v.has_fp64 = dv.has_fp64();
      v.bandwidth = dv.bandwidth_hint();
    }
    double bytes = 0;
    for (const auto& a : t->acc) {
      if (!reads(a.mode)) continue;
      const Handle* h = a.handle;
      bool valid = d == 0 ? h->host_valid.load(std::memory_order_relaxed)
                          : h->replicas[d].state.load(std::memory_order_relaxed) != ReplicaState::Invalid;
      if (!valid) bytes += static_cast<double>(h->bytes);
    }
    v.bytes_to_move = bytes;
  }
  int home = -1;
  if (cfg_.schedule == Schedule::Static || cfg_.nodes > 1)
    for (const auto& a : t->acc)
      if (writes(a.mode)) {
        home = a.handle->home;
        break;
      }
  // on a cluster, host work runs on the host of the node owning what the task writes
  const int host = cfg_.nodes > 1 ? node_device(home > 0 ? node_of(home) : 0, 0) : 0;
  if (cfg_.schedule != Schedule::Static) home = -1;
  const int forced = t->forced > 0 && device_failed(t->forced) ? -1 : t->forced;
  const PlacementSnapshot snap{t->flags, t->kernel, t->flops, forced, home, cfg_.schedule, cfg_.host_computes,
                               std::span<const DeviceView>(views, n), host};
  const PlacementDecision p = placement_.decide(snap);
  t->device = p.device;
  t->est_ns = p.est_ns;
  queues_[static_cast<std::size_t>(p.device)]->load_ns.fetch_add(t->est_ns, std::memory_order_relaxed);
  return p.device;
}

trace::Recorder* Runtime::recorder_for(int row) const {
  trace::Recorder* rec = tracer_;
  return rec && row < rec->num_workers() ? rec : nullptr;
}

// On the steady clock, the recorder's time (the same clock, from the
// recorder's origin); on another clock, that clock's time in seconds.
double Runtime::trace_now(const trace::Recorder* rec) const {
  return clock_.steady() ? rec->now() : static_cast<double>(clock_.now_ns()) * 1e-9;
}

void Runtime::set_error(CallGraph& c, std::exception_ptr e) {
  std::lock_guard<std::mutex> lk(c.error_mutex);
  if (!c.error) c.error = e;
  c.cancelled.store(true, std::memory_order_relaxed);
}

void Runtime::set_error(std::exception_ptr e) {
  std::lock_guard<std::mutex> lk(calls_mutex_);
  set_error(main_call_, e);
  for (CallGraph* c : calls_) set_error(*c, e);
}

Task* Runtime::release(Task* t, int worker, Streak* streak) {
  CallGraph& c = *t->call;  // before t goes back to the pool
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
  // A host worker thread keeps one to run next (Streak): one device, no
  // progress thread to divert transfers to, not simulated (there every task
  // goes through the queue and its Threads channel, as the predictions were made).
  Task* next = nullptr;
  if (ready > 0 && streak && streak->keep && devices_.size() == 1 && !comm_ && !coop_)
    next = push_and_take(succ, ready);
  else
    push_ready_batch(succ, ready);

  recycle(t, worker);
  // The last task of a call: its caller may return and destroy c, so c is
  // not touched after this.
  if (c.in_flight.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    Queue& q = *queues_[0];  // the caller waits on the host queue
    std::lock_guard<std::mutex> lk(q.mutex);
    q.cv.notify_all();
    callers_cv_.notify_all();
  }
  if (coop_) coop_->notify(Threads::kCaller, 1);  // help_until waits for in_flight to drop
  return next;
}

void Runtime::recycle(Task* t, int worker) {
  if (worker < 0 || coop_) {  // simulated workers share OS threads: no per-worker state
    std::lock_guard<std::mutex> lk(pool_mutex_);
    free_.push_back(t);
    return;
  }
  std::vector<Task*>& mine = wstats_[static_cast<std::size_t>(worker)].recycled;
  mine.push_back(t);
  if (mine.size() < kRecycleBatch) return;
  std::lock_guard<std::mutex> lk(pool_mutex_);
  free_.insert(free_.end(), mine.begin(), mine.end());
  mine.clear();
}

void Runtime::wait_all() {
  CallGraph& c = current();
  help_until(c, 0);
  if (devices_.size() > 1) flush_devices();  // calls take turns then (concurrent_calls)
  std::exception_ptr err;
  {
    std::lock_guard<std::mutex> lk(c.error_mutex);
    err = c.error;
    c.error = nullptr;
  }
  c.cancelled.store(false, std::memory_order_relaxed);
  if (err) std::rethrow_exception(err);
}

void Runtime::wait(Handle* h) {
  if (coop_) throw std::logic_error("Runtime::wait(handle) is not available with cooperative threads (simulation)");
  std::atomic<bool> reached{false};
  Access a{h, Mode::Read};
  insert([&reached](TaskContext&) { reached.store(true, std::memory_order_release); }, &a, 1,
         TaskOptions{std::numeric_limits<int>::max(), "wait"});
  // Help with host work (the marker may depend on anything) until it ran,
  // as worker 0 while holding the caller slot.
  CallGraph& c = current();
  bool own = false;
  while (!reached.load(std::memory_order_acquire)) {
    if (!own) own = take_caller_slot();
    Task* t = own ? try_pop(0) : nullptr;
    if (t) execute(t, 0);
    else HETLA_CPU_RELAX();
    if (c.cancelled.load(std::memory_order_relaxed)) {
      if (own) give_caller_slot();
      wait_all();  // rethrows
      return;
    }
  }
  if (own) give_caller_slot();
}

}  // namespace hetla::rt
