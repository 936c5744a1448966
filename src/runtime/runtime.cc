#include "runtime/runtime.hpp"

#include <algorithm>
#include <chrono>
#include <memory>

#include "trace/trace.hpp"
#include "util/hwloc_topology.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HETLA_CPU_RELAX() _mm_pause()
#else
#define HETLA_CPU_RELAX() std::this_thread::yield()
#endif

namespace hetla::rt {

namespace {
std::atomic<uint64_t> g_runtime_ids{1};

class SpinLock {
 public:
  void lock() {
    while (flag_.exchange(true, std::memory_order_acquire))
      while (flag_.load(std::memory_order_relaxed)) HETLA_CPU_RELAX();
  }
  void unlock() { flag_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> flag_{false};
};

bool heap_less(const auto& a, const auto& b) {  // max-heap: priority, then insertion order
  return a.priority != b.priority ? a.priority < b.priority : a.seq > b.seq;
}

constexpr int kSpinIterations = 4000;  // ~tens of microseconds before sleeping
}  // namespace

struct Task {
  TaskBody body;
  std::atomic<int32_t> pending{0};  // unresolved predecessors (+1 while inserting)
  SpinLock lock;
  bool done = false;    // guarded by lock
  uint64_t seq = 0;     // written by the inserting thread only
  std::vector<Task*> successors;  // guarded by lock
  int priority = 0;
  const char* label = "";
  uint32_t flags = 0;
};

TaskBody& Runtime::body_of(Task* t) { return t->body; }

Runtime::Runtime(RuntimeConfig cfg) : cfg_(cfg), id_(g_runtime_ids.fetch_add(1)) {
  auto& topo = util::Topology::get();
  num_workers_ = cfg_.num_workers > 0 ? cfg_.num_workers : topo.cores();
  heap_.reserve(1024);
  threads_.reserve(num_workers_ - 1);
  for (int w = 1; w < num_workers_; ++w) threads_.emplace_back([this, w] { worker_loop(w); });
}

Runtime::~Runtime() {
  try {
    wait_all();
  } catch (...) {  // a destructor reports nothing; the error was the caller's to fetch
  }
  {
    std::lock_guard<std::mutex> lk(qmutex_);
    stop_ = true;
  }
  qcv_.notify_all();
  for (auto& th : threads_) th.join();
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
  t->seq = next_seq_++;
  t->done = false;
  t->priority = opt.priority;
  t->label = opt.label;
  t->flags = opt.flags;
  t->pending.store(1, std::memory_order_relaxed);
  in_flight_.fetch_add(1, std::memory_order_relaxed);

  const Handle::Ref self{t, t->seq};
  for (std::size_t a = 0; a < nacc; ++a) {
    Handle* h = acc[a].handle;
    if (h->runtime_id != id_) {  // refs from another (or a dead) runtime are void
      h->runtime_id = id_;
      h->last_writer = {};
      h->readers.clear();
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
  if (t->pending.fetch_sub(1, std::memory_order_acq_rel) == 1) push_ready(t);

  if (in_flight_.load(std::memory_order_relaxed) > cfg_.window) help_until(cfg_.window / 2);
}

void Runtime::push_ready(Task* t) { push_ready_batch(&t, 1); }

void Runtime::push_ready_batch(Task** ts, std::size_t n) {
  if (n == 0) return;
  int wake = 0;
  {
    std::lock_guard<std::mutex> lk(qmutex_);
    for (std::size_t i = 0; i < n; ++i) {
      heap_.push_back({ts[i]->priority, ts[i]->seq, ts[i]});
      std::push_heap(heap_.begin(), heap_.end(), heap_less<ReadyEntry, ReadyEntry>);
    }
    qsize_.store(heap_.size(), std::memory_order_release);
    wake = std::min<int>(sleepers_, static_cast<int>(n));
  }
  if (wake == 1) qcv_.notify_one();
  else if (wake > 1) qcv_.notify_all();
}

Task* Runtime::try_pop() {
  if (qsize_.load(std::memory_order_acquire) == 0) return nullptr;
  std::lock_guard<std::mutex> lk(qmutex_);
  if (heap_.empty()) return nullptr;
  std::pop_heap(heap_.begin(), heap_.end(), heap_less<ReadyEntry, ReadyEntry>);
  Task* t = heap_.back().task;
  heap_.pop_back();
  qsize_.store(heap_.size(), std::memory_order_release);
  return t;
}

void Runtime::execute(Task* t, int worker) {
  if (!cancelled_.load(std::memory_order_relaxed)) {
    TaskContext ctx{worker};
    trace::Recorder* rec = tracer_;
    const double start = rec ? rec->now() : 0.0;
    try {
      t->body(ctx);
      if (rec) rec->record(worker, t->label, start, rec->now());
    } catch (...) {
      std::lock_guard<std::mutex> lk(error_mutex_);
      if (!error_) error_ = std::current_exception();
      cancelled_.store(true, std::memory_order_relaxed);
    }
  }
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
    std::lock_guard<std::mutex> lk(qmutex_);  // pairs with the waiter's predicate check
    qcv_.notify_all();
  }
}

void Runtime::worker_loop(int worker) {
  if (cfg_.pin_threads) pin_to_core(worker);
  for (;;) {
    Task* t = try_pop();
    for (int spin = 0; !t && spin < kSpinIterations; ++spin) {
      HETLA_CPU_RELAX();
      if (qsize_.load(std::memory_order_relaxed) != 0) t = try_pop();
    }
    if (!t) {
      std::unique_lock<std::mutex> lk(qmutex_);
      ++sleepers_;
      qcv_.wait(lk, [&] { return stop_ || !heap_.empty(); });
      --sleepers_;
      if (stop_ && heap_.empty()) return;
      continue;
    }
    execute(t, worker);
  }
}

void Runtime::help_until(std::size_t target) {
  while (in_flight_.load(std::memory_order_acquire) > target) {
    Task* t = try_pop();
    for (int spin = 0; !t && spin < kSpinIterations; ++spin) {
      HETLA_CPU_RELAX();
      if (in_flight_.load(std::memory_order_acquire) <= target) return;
      if (qsize_.load(std::memory_order_relaxed) != 0) t = try_pop();
    }
    if (!t) {
      std::unique_lock<std::mutex> lk(qmutex_);
      ++sleepers_;
      qcv_.wait_for(lk, std::chrono::milliseconds(1), [&] {
        return !heap_.empty() || in_flight_.load(std::memory_order_acquire) <= target;
      });
      --sleepers_;
      continue;
    }
    execute(t, 0);
  }
}

void Runtime::wait_all() {
  help_until(0);
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
  // Help with any work (the marker may depend on anything) until it ran.
  while (!reached.load(std::memory_order_acquire)) {
    if (Task* t = try_pop()) execute(t, 0);
    else HETLA_CPU_RELAX();
    if (cancelled_.load(std::memory_order_relaxed)) {
      wait_all();  // rethrows
      return;
    }
  }
}

void Runtime::pin_to_core(int core) { util::Topology::get().bind_current_thread_to_core(core); }

}  // namespace hetla::rt
