// The runtime's internal records: an inserted task (Task), a device's ready
// queue, its memory bookkeeping, its copy engine, a worker's statistics.
// Included by the runtime's sources (and executors), not by its users.
#pragma once
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/handle.hpp"
#include "runtime/task.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HETLA_CPU_RELAX() _mm_pause()
#else
#define HETLA_CPU_RELAX() std::this_thread::yield()
#endif

namespace hetla::rt {

class CallGraph;

/// An inserted task. Tasks come from the runtime's pool (allocated by an
/// inserting thread, recycled by any) and are reused: `seq` tells a reused
/// task from the one a Handle::Ref names.
struct Task {
  TaskBody body;
  std::atomic<int32_t> pending{0};  // unresolved predecessors (+1 while inserting)
  SpinLock lock;
  bool done = false;              // guarded by lock
  std::atomic<uint64_t> seq{0};   // set under lock when inserted (several calls may insert at once)
  CallGraph* call = nullptr;      // the call that inserted it
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

namespace detail {

struct ReadyEntry {
  int priority;
  uint64_t seq;
  Task* task;
};

// Ready-queue order: higher priority first, then insertion order (seq, unique).
struct ReadyLess {
  bool operator()(const ReadyEntry& a, const ReadyEntry& b) const {
    return a.priority != b.priority ? a.priority < b.priority : a.seq > b.seq;
  }
};

/// A device's ready tasks, taken best first (ReadyLess): a max-heap plus a
/// run, a FIFO of entries that came in already in order (each after the
/// last one: what independent tasks of one priority inserted one after the
/// other are). pop() takes the better of the heap's top and the run's head,
/// so the order is exactly a single heap's; but a run costs O(1) per task,
/// and its producer and consumer touch different cache lines (the heap's
/// pop walks log2(n) lines, the last of them the one its inserter just wrote:
/// `bench runtime`'s fan, 16 K tasks queued, spent ~15 % of its time there).
class ReadyQueue {
 public:
  bool empty() const { return heap_.empty() && head_ == tail_; }
  std::size_t size() const { return heap_.size() + (tail_ - head_); }
  void push(const ReadyEntry& e) {
    if (head_ == tail_ || ReadyLess{}(e, run_[(tail_ - 1) & mask_])) {
      if (tail_ - head_ == run_.size()) grow();
      run_[tail_++ & mask_] = e;
      return;
    }
    heap_.push_back(e);
    std::push_heap(heap_.begin(), heap_.end(), ReadyLess{});
  }
  Task* pop() {  // not empty
    if (head_ != tail_ && (heap_.empty() || ReadyLess{}(heap_.front(), run_[head_ & mask_])))
      return run_[head_++ & mask_].task;
    std::pop_heap(heap_.begin(), heap_.end(), ReadyLess{});
    Task* t = heap_.back().task;
    heap_.pop_back();
    return t;
  }
  template <typename F> void drain(F&& f) {  // every entry to f, then empty
    for (const ReadyEntry& e : heap_) f(e.task);
    for (; head_ != tail_; ++head_) f(run_[head_ & mask_].task);
    heap_.clear();
  }
  void reserve(std::size_t n) {
    heap_.reserve(n);
    while (run_.size() < n) grow();
  }

 private:
  void grow() {  // capacity stays a power of two
    std::vector<ReadyEntry> bigger(run_.empty() ? 64 : 2 * run_.size());
    const std::size_t n = tail_ - head_;
    for (std::size_t i = 0; i < n; ++i) bigger[i] = run_[(head_ + i) & mask_];
    run_.swap(bigger);
    mask_ = run_.size() - 1;
    head_ = 0, tail_ = n;
  }
  std::vector<ReadyEntry> heap_;
  std::vector<ReadyEntry> run_;      // ring buffer
  std::size_t mask_ = 0;             // run_.size() - 1
  std::size_t head_ = 0, tail_ = 0;  // positions, taken modulo run_.size()
};

struct alignas(64) Queue {
  std::mutex mutex;
  std::condition_variable cv;
  ReadyQueue heap;
  std::atomic<std::size_t> size{0};
  int sleepers = 0;
  std::atomic<int64_t> load_ns{0};  // estimated queued + running work
};

struct alignas(64) DeviceState {
  std::mutex mutex;               // guards resident
  std::vector<Handle*> resident;  // handles with a replica on this device
  // transfer statistics, updated from any thread
  std::atomic<uint64_t> bytes_in{0}, bytes_out{0}, evictions{0};
  // failure (recovery.cc): set once the device threw a DeviceError; placement
  // skips it until Runtime::reset_failed_devices(). A task's writes become
  // the device's (Modified) under commit_mutex, only while it has not failed.
  std::atomic<bool> failed{false};
  std::mutex commit_mutex;
  int recovery = -1;  // its entry in Runtime::recoveries_ for this call (guarded by recovery_mutex_)
};

// An accelerator's copy engine: between its ready queue and its workers.
struct alignas(64) CopyEngine {
  struct Fetch {
    Task* task = nullptr;  // a ready host task that reads `handle`
    Handle* handle = nullptr;
  };
  std::mutex mutex;                   // guards what follows
  std::condition_variable staged_cv;  // workers: a staged task (or stop)
  std::condition_variable room_cv;    // the copy thread: work, room to stage, pins released (or stop)
  std::condition_variable fetch_cv;   // host workers: the write-back in flight finished
  std::condition_variable checkpoint_cv;  // the copy-out thread: a checkpoint to copy (or stop)
  std::deque<Fetch> fetches;          // write-backs to the host requested for host tasks
  Task* fetching = nullptr;           // whose write-back is in flight
  std::deque<Task*> staged;           // inputs resident and pinned, in the order workers take them
  std::deque<Task*> checkpoints;      // ran and committed there: writes to copy to the host, then released
  Task* checkpointing = nullptr;      // whose checkpoint is in flight
  std::thread::id checkpointer;       // the thread copying it
  int ahead = 0;                      // taken off the ready queue, not yet started by a worker
  int active = 0;                     // staged or running: holding pins on the device
  uint64_t unpins = 0;                // bumped whenever a task on the device released its pins
};

// Per-worker task statistics: written only by their worker (no shared
// cache line on the hot path), summed per device by stats().
struct alignas(64) WorkerStats {
  std::atomic<uint64_t> tasks{0};
  std::atomic<int64_t> busy_ns{0};
  std::atomic<double> flops{0};
  std::atomic<uint64_t> executed{0};  // never reset (Runtime::tasks_executed); the runtime-wide
                                      // counter it replaces was a cache line every task wrote
  // Tasks this worker released, on their way back to the pool: handed over
  // in batches (Runtime::recycle), one pool_mutex_ acquisition per
  // kRecycleBatch tasks instead of one per task. Its worker's thread only
  // (worker 0: the thread holding the caller slot).
  std::vector<Task*> recycled;
};
inline constexpr std::size_t kRecycleBatch = 32;

// A worker's run of tasks without idling in between (the worker loops): the
// end of its last task on the steady clock, which is the start of its next
// one (one clock read per task instead of two: a read costs ~60 ns on a VM,
// about a sixth of an empty task; busy time then also counts the pop and
// release between the two), and whether it may keep a successor that its
// task released, to run it next without the ready queue (no lock, no
// wake-up: a dependence chain stays on one core).
struct Streak {
  int64_t end_ns = 0;  // 0: idle since its last task (read the clock)
  bool keep = false;
};

}  // namespace detail
}  // namespace hetla::rt
