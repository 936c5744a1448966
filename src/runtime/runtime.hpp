// Task-superscalar runtime in the spirit of QUARK (seed 000 §4-5, seed 004 §4):
// one thread inserts tasks serially with data access modes; dependences
// (RaW, WaR, WaW) are inferred per data handle; a ready task is placed on a
// device (host cores or an accelerator) by a placement policy and queued in
// that device's priority-ordered ready queue. Before a task runs on a device
// the coherence layer makes its inputs valid in that device's memory; a write
// invalidates the other replicas; wait_all() writes device data back to the
// host. The inserting thread is itself a host worker while it waits, so N
// cores get N-1 host threads plus the caller.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "devices/device.hpp"
#include "runtime/inline_fn.hpp"

namespace hetla::trace { class Recorder; }

namespace hetla::rt {

enum class Mode : uint8_t { Read = 1, Write = 2, ReadWrite = 3 };
inline bool reads(Mode m) { return static_cast<uint8_t>(m) & 1u; }
inline bool writes(Mode m) { return static_cast<uint8_t>(m) & 2u; }

/// Task flags: hints for placement.
enum TaskFlags : uint32_t {
  kNoFlags = 0,
  kMemoryBound = 1u << 0,  // BLAS2-like / latency-bound: keep on CPU cores
  kHostOnly = 1u << 1,     // must run on the host
  kPanel = 1u << 2,        // on the critical path: owner-computes keeps it on the CPU cores (seed 000 Alg. 5)
};

struct Task;
class Runtime;

/// Spin lock for short critical sections (dependence edges, replica states).
class SpinLock {
 public:
  void lock() {
    while (flag_.exchange(true, std::memory_order_acquire))
      while (flag_.load(std::memory_order_relaxed)) relax();
  }
  void unlock() { flag_.store(false, std::memory_order_release); }

 private:
  static void relax();
  std::atomic<bool> flag_{false};
};

enum class ReplicaState : uint8_t { Invalid, Shared, Modified };

/// A copy of a handle's data in one accelerator's memory.
struct Replica {
  void* ptr = nullptr;
  std::atomic<ReplicaState> state{ReplicaState::Invalid};
  int pins = 0;           // tasks using it right now (not evictable)
  uint64_t last_use = 0;  // for LRU eviction
};

/// Identity of a piece of data (a tile). The dependence state is touched only
/// by the inserting thread, so it needs no lock. Task pointers are validated by
/// sequence number, so a handle never owns (or keeps alive) a task.
/// Data: the home copy lives in host memory (rows x cols elements of
/// elem_size bytes, leading dimension ld); accelerators hold replicas.
struct Handle {
  struct Ref {
    Task* task = nullptr;
    uint64_t seq = 0;
  };
  Handle() = default;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  uint64_t runtime_id = 0;  // which runtime the refs below belong to
  Ref last_writer;
  std::vector<Ref> readers;  // readers since the last write

  // host (home) copy and its geometry
  void* host_data = nullptr;
  std::size_t bytes = 0;
  int64_t rows = 0, cols = 0, ld = 0;
  uint32_t elem_size = 0;
  int home = -1;  // owning device for static (owner-computes) scheduling; -1 = none

  // coherence (guarded by `lock`); replicas indexed by device id
  SpinLock lock;
  std::atomic<bool> host_valid{true};
  std::unique_ptr<Replica[]> replicas;
  uint64_t replicas_runtime = 0;

  /// Describes the host copy (tile geometry) so it can be copied to devices.
  void set_host(void* data, int64_t r, int64_t c, int64_t leading, uint32_t elem) {
    host_data = data;
    rows = r, cols = c, ld = leading, elem_size = elem;
    bytes = static_cast<std::size_t>(r * c) * elem;
  }
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
  dev::KernelId kernel = dev::KernelId::None;  // None: a host-only task body
  double flops = 0;                            // work estimate for placement
  int device = -1;                             // >= 0: run on this device (calibration, tests)
};

/// Where a running task runs and where its data is.
struct TaskContext {
  int worker = 0;  // global worker index; 0 = the inserting thread
  dev::Device* device = nullptr;
  void* const* ptrs = nullptr;    // per access: the data in the device's memory
  const int64_t* lds = nullptr;   // per access: its leading dimension there
  template <typename T> T* ptr(int i) const { return static_cast<T*>(ptrs[i]); }
  int64_t ld(int i) const { return lds[i]; }
  template <typename T> dev::Kernels<T>& kernels() const { return device->kernels<T>(); }
};

using TaskBody = InlineFn<void(TaskContext&)>;

enum class Schedule { Dynamic, Static };

struct RuntimeConfig {
  int num_workers = 0;           // host workers incl. the caller; 0 = cores minus one per accelerator
  bool pin_threads = true;       // pin host worker threads to cores with hwloc
  std::size_t window = 1 << 14;  // tasks in flight before insert() starts helping
  std::vector<std::shared_ptr<dev::Device>> accelerators;  // devices besides the host cores
  Schedule schedule = Schedule::Dynamic;
  bool host_computes = true;     // false: host cores run only what no accelerator can
  double host_core_gflops = 40;  // per-core rate estimate for placement (refined by calibration)
  /// Test hook: place every accelerator-capable task on a random capable device.
  bool random_placement = false;
  uint64_t random_seed = 1;
};

/// Per-device counters since the last reset_stats().
struct DeviceStats {
  uint64_t tasks = 0;
  double flops = 0;
  double busy_seconds = 0;
  uint64_t bytes_in = 0, bytes_out = 0;
  uint64_t evictions = 0;
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

  /// Runs tasks on the calling thread until every inserted task finished,
  /// then writes data held by accelerators back to the host and frees it.
  /// Rethrows the first exception a task threw (the rest of the work is
  /// cancelled: tasks that had not started are skipped).
  void wait_all();
  /// Waits until every task inserted so far that writes `h` finished.
  void wait(Handle* h);

  int num_workers() const { return num_workers_; }        // all threads incl. the caller
  int num_host_workers() const { return host_workers_; }  // incl. the caller
  uint64_t id() const { return id_; }
  uint64_t tasks_executed() const { return executed_.load(std::memory_order_relaxed); }
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }

  int num_devices() const { return static_cast<int>(devices_.size()); }
  dev::Device& device(int d) const { return *devices_[static_cast<std::size_t>(d)]; }
  int device_of_worker(int w) const { return worker_device_[static_cast<std::size_t>(w)]; }
  Schedule schedule() const { return cfg_.schedule; }
  bool host_computes() const { return cfg_.host_computes; }
  void set_schedule(Schedule s) { cfg_.schedule = s; }
  /// Capability weight: rate in flop/s of `kernel` on device d (one worker).
  double rate(int d, dev::KernelId k) const;
  void set_rate(int d, dev::KernelId k, double flops_per_second);

  std::vector<DeviceStats> stats() const;
  void reset_stats();

  /// Records every executed task and transfer into `rec` (nullptr stops).
  /// The recorder must have num_workers() buffers and outlive the recording.
  void set_trace(trace::Recorder* rec) { tracer_ = rec; }

 private:
  struct ReadyEntry {
    int priority;
    uint64_t seq;
    Task* task;
  };
  struct alignas(64) Queue {
    std::mutex mutex;
    std::condition_variable cv;
    std::vector<ReadyEntry> heap;
    std::atomic<std::size_t> size{0};
    int sleepers = 0;
    std::atomic<int64_t> load_ns{0};  // estimated queued + running work
  };
  struct alignas(64) DeviceState {
    std::mutex mutex;               // guards resident
    std::vector<Handle*> resident;  // handles with a replica on this device
    // transfer statistics, updated from any thread
    std::atomic<uint64_t> bytes_in{0}, bytes_out{0}, evictions{0};
  };
  // Per-worker task statistics: written only by their worker (no shared
  // cache line on the hot path), summed per device by stats().
  struct alignas(64) WorkerStats {
    std::atomic<uint64_t> tasks{0};
    std::atomic<int64_t> busy_ns{0};
    std::atomic<double> flops{0};
  };

  Task* allocate();
  static TaskBody& body_of(Task* t);
  void submit(Task* t, const Access* acc, std::size_t nacc, const TaskOptions& opt);
  void add_dependence(Task* t, const Handle::Ref& pred);
  int place(Task* t);
  void push_ready_batch(Task** ts, std::size_t n);
  void push_to(int d, Task** ts, std::size_t n);
  Task* try_pop(int d);
  void execute(Task* t, int worker);
  void prepare_data(Task* t, int d, int worker, void** ptrs, int64_t* lds, std::size_t& pinned);
  void unpin(Task* t, int d, std::size_t pinned);
  Replica& replica(Handle* h, int d);
  void fetch_to_host(Handle* h, int worker);
  void* allocate_on(int d, std::size_t bytes, int worker);
  void flush_devices();
  void release(Task* t);
  void worker_loop(int worker);
  void help_until(std::size_t in_flight_target);

  RuntimeConfig cfg_;
  int num_workers_ = 1;
  int host_workers_ = 1;
  uint64_t id_ = 0;
  uint64_t next_seq_ = 1;
  std::atomic<uint64_t> use_clock_{0};

  std::vector<std::shared_ptr<dev::Device>> devices_;  // [0] = host cores
  std::vector<int> worker_device_;
  std::vector<int> device_workers_;
  std::vector<std::unique_ptr<Queue>> queues_;          // per device
  std::vector<std::unique_ptr<DeviceState>> dstate_;    // per device
  std::unique_ptr<WorkerStats[]> wstats_;               // per worker
  std::vector<double> rates_;                           // [device][kernel] flop/s
  uint64_t rng_state_ = 1;

  std::atomic<bool> stop_{false};  // read by workers of every queue
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
