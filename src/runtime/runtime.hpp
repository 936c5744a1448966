// Task-superscalar runtime in the spirit of QUARK (seed 000 §4, seed 004 §4):
// one thread inserts tasks serially with data access modes; dependences
// (RaW, WaR, WaW) are inferred per data handle; ready tasks run on worker
// threads in priority order. The inserting thread is itself a worker while it
// waits (wait_all, full window), so N cores get N-1 threads plus the caller.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/inline_fn.hpp"

namespace hetla::trace { class Recorder; }

namespace hetla::rt {

enum class Mode : uint8_t { Read = 1, Write = 2, ReadWrite = 3 };

/// Task flags: hints for placement (used once several devices exist).
enum TaskFlags : uint32_t {
  kNoFlags = 0,
  kMemoryBound = 1u << 0,  // BLAS2-like: keep on CPU cores
  kHostOnly = 1u << 1,     // must run on the host
};

struct Task;
class Runtime;

/// Identity of a piece of data (a tile). The dependence state is touched only
/// by the inserting thread, so it needs no lock. Task pointers are validated by
/// sequence number, so a handle never owns (or keeps alive) a task.
struct Handle {
  struct Ref {
    Task* task = nullptr;
    uint64_t seq = 0;
  };
  uint64_t runtime_id = 0;  // which runtime the refs below belong to
  Ref last_writer;
  std::vector<Ref> readers;  // readers since the last write
  void* host_data = nullptr;  // home replica (host memory)
  std::size_t bytes = 0;
};

struct Access {
  Handle* handle;
  Mode mode;
};
inline Access R(Handle* h) { return {h, Mode::Read}; }
inline Access W(Handle* h) { return {h, Mode::Write}; }
inline Access RW(Handle* h) { return {h, Mode::ReadWrite}; }

struct TaskOptions {
  int priority = 0;            // higher runs first among ready tasks
  const char* label = "task";  // kernel name, for traces
  uint32_t flags = kNoFlags;
};

/// What a running task learns about where it runs.
struct TaskContext {
  int worker = 0;  // 0 = the inserting thread
};

using TaskBody = InlineFn<void(TaskContext&)>;

struct RuntimeConfig {
  int num_workers = 0;          // total workers incl. the caller; 0 = one per core
  bool pin_threads = true;      // pin worker threads to cores with hwloc
  std::size_t window = 1 << 14; // tasks in flight before insert() starts helping
};

struct RuntimeStats {
  uint64_t tasks_executed = 0;
};

class Runtime {
 public:
  explicit Runtime(RuntimeConfig cfg = {});
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  /// Inserts a task; `body` runs once all earlier conflicting accesses finished.
  template <typename F>
  void insert(F&& body, std::initializer_list<Access> accesses, const TaskOptions& opt = {}) {
    insert(std::forward<F>(body), accesses.begin(), accesses.size(), opt);
  }
  template <typename F>
  void insert(F&& body, const Access* acc, std::size_t nacc, const TaskOptions& opt = {}) {
    Task* t = allocate();
    body_of(t).emplace(std::forward<F>(body));
    submit(t, acc, nacc, opt);
  }

  /// Runs tasks on the calling thread until every inserted task finished.
  /// Rethrows the first exception a task threw (the rest of the work is
  /// cancelled: tasks that had not started are skipped).
  void wait_all();
  /// Waits until every task inserted so far that accesses `h` finished.
  void wait(Handle* h);

  int num_workers() const { return num_workers_; }
  uint64_t id() const { return id_; }
  uint64_t tasks_executed() const { return executed_.load(std::memory_order_relaxed); }
  /// True once a task failed and until wait_all() reported it.
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }

  /// Records every executed task into `rec` (nullptr stops recording). The
  /// recorder must have num_workers() buffers and outlive the recording.
  void set_trace(trace::Recorder* rec) { tracer_ = rec; }

 private:
  struct ReadyEntry {
    int priority;
    uint64_t seq;
    Task* task;
  };

  Task* allocate();
  static TaskBody& body_of(Task* t);
  void submit(Task* t, const Access* acc, std::size_t nacc, const TaskOptions& opt);
  void add_dependence(Task* t, const Handle::Ref& pred);
  void push_ready(Task* t);
  void push_ready_batch(Task** ts, std::size_t n);
  Task* try_pop();
  void execute(Task* t, int worker);
  void release(Task* t);
  void worker_loop(int worker);
  void help_until(std::size_t in_flight_target);
  void pin_to_core(int core);

  RuntimeConfig cfg_;
  int num_workers_ = 1;
  uint64_t id_ = 0;
  uint64_t next_seq_ = 1;

  // ready queue: a binary heap on (priority, -seq)
  std::mutex qmutex_;
  std::condition_variable qcv_;
  std::vector<ReadyEntry> heap_;
  std::atomic<std::size_t> qsize_{0};
  int sleepers_ = 0;
  bool stop_ = false;

  std::atomic<std::size_t> in_flight_{0};
  std::atomic<uint64_t> executed_{0};
  std::atomic<bool> cancelled_{false};
  std::mutex error_mutex_;
  std::exception_ptr error_;

  // task pool: tasks are allocated by the inserting thread only, recycled by
  // any thread; their memory lives as long as the runtime.
  std::mutex pool_mutex_;
  std::vector<Task*> free_;
  std::vector<std::unique_ptr<Task[]>> chunks_;
  std::vector<Task*> alloc_cache_;  // inserting thread only

  std::vector<std::thread> threads_;
  trace::Recorder* tracer_ = nullptr;
};

}  // namespace hetla::rt
