// Task-superscalar runtime in the spirit of QUARK (seed 000 §4-5, seed 004 §4):
// a call's thread inserts its tasks serially with data access modes (several
// calls may insert at once, each into its own CallGraph); dependences
// (RaW, WaR, WaW) are inferred per data handle; a ready task is placed on a
// device (host cores or an accelerator) by a placement policy and queued in
// that device's priority-ordered ready queue. Before a task runs on a device
// the coherence layer makes its inputs valid in that device's memory; a write
// invalidates the other replicas; wait_all() writes device data back to the
// host. The inserting thread is itself a host worker while it waits, so N
// cores get N-1 host threads plus the caller (one caller at a time: the
// caller slot, workers.cc).
// Each accelerator has a copy engine (a thread of its own, issuing copies on
// the device's non-worker queue/stream): it takes the next ready tasks of the
// device's queue, a bounded number ahead of the workers, brings their inputs
// into device memory while the workers compute (data-availability-driven, seed
// 004 §4), and hands them to the workers in a staged queue. It also writes
// back tiles the device modified that a ready host task reads, so host
// workers do not wait for those copies either.
//
// Layers, one file each: tasks and dependences (runtime.cc), placement
// (placement.hpp, a pure decision on a snapshot), coherence (coherence.cc),
// copy engines (copy_engine.cc), workers and ready queues (workers.cc).
// Time is read through a Clock (clock.hpp); task bodies and copies are
// carried out by an Executor (executor.hpp).
#pragma once
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "devices/device.hpp"
#include "runtime/clock.hpp"
#include "runtime/executor.hpp"
#include "runtime/handle.hpp"
#include "runtime/inline_fn.hpp"
#include "runtime/placement.hpp"
#include "runtime/task.hpp"
#include "runtime/threads.hpp"

namespace hetla::trace { class Recorder; }

namespace hetla::rt {

struct Task;
class Runtime;
namespace detail {
struct Queue;
struct DeviceState;
struct CopyEngine;
struct WorkerStats;
struct Streak;
struct CommState;
}  // namespace detail
class Comm;

/// One public call's task graph (context/context.hpp's CallScope): the tasks
/// it inserted and have not finished, its first error and whether it is
/// cancelled, and the tasks it allocated ahead. Several calls from different
/// threads share one Runtime (its workers and ready queues): each inserts
/// into and waits for its own graph only. Dependences stay per Handle, so
/// calls on different data never wait on each other, and calls on the same
/// data are ordered as they were inserted. A thread that inserts without a
/// call of its own (tests, calibration, tools) uses the runtime's default one.
class CallGraph {
 public:
  CallGraph() = default;
  CallGraph(const CallGraph&) = delete;
  CallGraph& operator=(const CallGraph&) = delete;

 private:
  friend class Runtime;
  std::atomic<std::size_t> in_flight{0};  // inserted, not yet released
  std::atomic<bool> cancelled{false};
  std::mutex error_mutex;
  std::exception_ptr error;        // guarded by error_mutex
  std::vector<Task*> alloc_cache;  // its inserting thread only
};

struct RuntimeConfig {
  int num_workers = 0;           // host workers incl. the caller; 0 = cores minus one per accelerator
  bool pin_threads = true;       // pin host worker threads to cores with hwloc
  std::size_t window = 1 << 14;  // tasks in flight before insert() starts helping
  std::vector<std::shared_ptr<dev::Device>> accelerators;  // devices besides the host cores
  Schedule schedule = Schedule::Dynamic;
  bool host_computes = true;     // false: host cores run only what no accelerator can
  double host_core_gflops = 40;  // per-core rate estimate for placement (refined by calibration)
  /// Tasks an accelerator's copy engine stages ahead of its workers (inputs
  /// copied in and pinned while the workers compute). 0: no copy engine; a
  /// worker copies a task's inputs itself right before running it. The
  /// environment variable HETLA_PREFETCH_DEPTH overrides it (A/B benchmarks).
  int prefetch_depth = 2;
  /// Host checkpoints (recovery.cc): a task on an accelerator that succeeded
  /// copies what it wrote to the host before it is released (on the device's
  /// copy engine when it has one, so its workers go on meanwhile), so the host
  /// always holds every tile's last committed version and a device that
  /// fails, even with its memory lost, or while a kernel there updates a tile
  /// in place, costs the tasks it had not finished, never a tile. Costs one
  /// copy out per tile version written on an accelerator. The environment
  /// variable HETLA_CHECKPOINTS=0 turns them off (A/B benchmarks).
  bool host_checkpoints = true;
  /// Test hook: place every accelerator-capable task on a random capable device.
  bool random_placement = false;
  uint64_t random_seed = 1;
  /// Where the runtime reads time (busy time in stats, trace time stamps);
  /// null: the steady clock. A simulation sets its own.
  std::shared_ptr<const Clock> clock;
  /// What carries out task bodies and copies between host and device
  /// memory; null: the devices themselves (DeviceExecutor).
  std::shared_ptr<Executor> executor;
  /// Worker and copy-engine threads and their blocking; null: std::thread
  /// (threads.hpp). Set: no pinning.
  std::shared_ptr<Threads> threads;
  /// A cluster simulated as one machine (sim/, seed 004 sec. 5.4): nodes > 1
  /// groups the accelerators into that many nodes of the same make-up, node
  /// by node, the first device of each being the node's host cores (a device
  /// with one worker per core). Device 0, the process's own host, then only
  /// inserts tasks (num_workers 1). Distributions put tile (i, j) on node
  /// comm.hpp's block_cyclic_rank(i, j, node_p, node_q), as the MPI grid
  /// does, and host work runs on the host of the node owning what the task
  /// writes (PlacementSnapshot::host).
  int nodes = 1;
  int node_p = 1, node_q = 1;
};

/// Per-device counters since the last reset_stats().
struct DeviceStats {
  uint64_t tasks = 0;
  double flops = 0;
  double busy_seconds = 0;
  uint64_t bytes_in = 0, bytes_out = 0;
  uint64_t evictions = 0;
};

/// An accelerator that failed during a call and what recovering cost
/// (recovery.cc, docs/reliability.md).
struct Recovery {
  std::string device;          // its name, e.g. "emu1"
  std::string error;           // what it reported
  double seconds_lost = 0;     // failed attempts there, plus copying its tiles back
  uint64_t tasks_rerun = 0;    // tasks started or staged there that ran again elsewhere
  uint64_t tasks_moved = 0;    // tasks queued there, placed elsewhere
  uint64_t tiles_copied_back = 0;  // tiles whose only valid copy was there, read back
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
    CallGraph& c = current();
    Task* t = allocate(c);
    body_of(t).emplace(std::forward<F>(body));
    submit(c, t, acc, nacc, opt);
  }

  /// Runs tasks on the calling thread until every task this thread's call
  /// inserted finished, then writes data held by accelerators back to the
  /// host and frees it. Rethrows the first exception one of the call's
  /// tasks threw (the rest of the call is cancelled: its tasks that had not
  /// started are skipped; other calls go on). The caller runs tasks as
  /// worker 0 only while it holds the caller slot (one thread at a time:
  /// worker 0's statistics and trace row have a single writer); a second
  /// concurrent caller sleeps until its graph finished or the slot is free.
  void wait_all();
  /// Waits until every task inserted so far that writes `h` finished.
  void wait(Handle* h);

  /// Calls from several threads (CallGraph): true when this runtime lets
  /// them run at once: host cores only, real threads, no communicator.
  /// Otherwise (accelerators: their flush at the end of a call and recovery
  /// concern every resident tile; simulation; MPI) calls take turns.
  bool concurrent_calls() const { return devices_.size() == 1 && !coop_ && !comm_; }
  /// Makes `c` the calling thread's call on this runtime until end_call(),
  /// which first cancels and waits for what is left of its graph (a call
  /// left by an exception before its wait_all).
  void begin_call(CallGraph& c);
  void end_call(CallGraph& c);

  int num_workers() const { return num_workers_; }        // all threads incl. the caller
  int num_host_workers() const { return host_workers_; }  // incl. the caller
  uint64_t id() const { return id_; }
  uint64_t tasks_executed() const;
  bool cancelled() { return current().cancelled.load(std::memory_order_relaxed); }  // this thread's call

  int num_devices() const { return static_cast<int>(devices_.size()); }
  dev::Device& device(int d) const { return *devices_[static_cast<std::size_t>(d)]; }
  int device_of_worker(int w) const { return worker_device_[static_cast<std::size_t>(w)]; }
  Schedule schedule() const { return cfg_.schedule; }
  bool host_computes() const { return cfg_.host_computes; }
  bool pins_threads() const { return cfg_.pin_threads; }
  void set_schedule(Schedule s) { cfg_.schedule = s; }
  /// Cluster layout (RuntimeConfig::nodes): nodes, their P x Q grid, the
  /// devices of each (host first), device i of node k, the node of device d
  /// (-1 for device 0 on a cluster), whether d is a node's host cores.
  int nodes() const { return cfg_.nodes; }
  int node_p() const { return cfg_.node_p; }
  int node_q() const { return cfg_.node_q; }
  int devices_per_node() const { return cfg_.nodes > 1 ? (num_devices() - 1) / cfg_.nodes : num_devices(); }
  int node_device(int k, int i) const { return (cfg_.nodes > 1 ? 1 + k * devices_per_node() : 0) + i; }
  int node_of(int d) const { return cfg_.nodes > 1 ? (d == 0 ? -1 : (d - 1) / devices_per_node()) : 0; }
  bool is_host(int d) const { return d == node_device(std::max(0, node_of(d)), 0); }
  /// Capability weight: rate in flop/s of `kernel` on device d (one worker).
  double rate(int d, dev::KernelId k) const;
  void set_rate(int d, dev::KernelId k, double flops_per_second);

  std::vector<DeviceStats> stats() const;
  void reset_stats();

  /// Devices that failed since the runtime started, in order, and how the
  /// calls recovered. A failed device stays out of placement until
  /// reset_failed_devices().
  std::vector<Recovery> recoveries() const;
  bool device_failed(int d) const;
  void reset_failed_devices();  // no call in progress

  /// Records every executed task and transfer into `rec` (nullptr stops).
  /// Rows [0, num_workers()) are the workers, then one row per accelerator's
  /// copy engine (copy_engine_row()), then one per accelerator's copy-out
  /// thread (checkpoint_row()); the recorder needs num_trace_rows()
  /// buffers to hold the copy engines' transfers (with fewer, those are not
  /// recorded). It must outlive the recording.
  void set_trace(trace::Recorder* rec) { tracer_ = rec; }
  int num_trace_rows() const { return num_workers_ + (copy_engines_on() ? 2 * (num_devices() - 1) : 0); }
  /// Trace row of accelerator d's copy engine, or -1 when it has none.
  int copy_engine_row(int d) const { return has_engine(d) ? num_workers_ + d - 1 : -1; }
  /// Trace row of accelerator d's copy-out thread (host checkpoints), or -1.
  int checkpoint_row(int d) const { return has_engine(d) ? num_workers_ + num_devices() - 1 + d - 1 : -1; }

  /// This process's rank while a communicator is attached (CommScope), else 0.
  int comm_rank() const;

 private:
  // owner computes across processes (distributed.cc, progress.cc; runtime/comm.hpp)
  friend class CommScope;
  void attach_comm(std::shared_ptr<Comm> comm);
  void detach_comm();
  bool route(Task* t, const Access*& acc, std::size_t& nacc, int block_reads);  // false: another process runs it
  // a tile, or several of one tile column as one message (TaskOptions::block_reads)
  void insert_send(const std::vector<Handle*>& tiles, int dest, uint64_t tag);
  void insert_recv_block(const std::vector<Handle*>& tiles, int source, uint64_t tag);
  void insert_planned(const Access* acc);  // the block reads' transfers route() planned
  // into h's cached copy, or (into_home) into h itself: a tile this process
  // owns that another process wrote
  void insert_recv(Handle* h, HandleComm& hc, int source, uint64_t tag, bool into_home = false);
  void send_returns();  // the sends route() left for after the task (remote tiles it wrote)
  std::size_t divert_comm(Task** ts, std::size_t n);  // transfers to the progress thread; returns the rest
  void progress_loop();

  // tasks and dependences (runtime.cc)
  CallGraph& current();  // this thread's call (begin_call), else the default one
  Task* allocate(CallGraph& c);
  static TaskBody& body_of(Task* t);
  void submit(CallGraph& c, Task* t, const Access* acc, std::size_t nacc, const TaskOptions& opt);
  void add_dependence(Task* t, const Handle::Ref& pred);
  int place(Task* t);  // the snapshot for placement_, and the decision's queued work
  // its ready successors to the queue; returns one of them to run next when
  // `streak` (a worker loop's) may keep one, else null. worker < 0: not a worker's thread.
  Task* release(Task* t, int worker = -1, detail::Streak* streak = nullptr);
  void recycle(Task* t, int worker);  // back to the pool
  void set_error(CallGraph& c, std::exception_ptr e);  // cancels that call
  void set_error(std::exception_ptr e);  // no task at hand (a device, the progress thread): every open call
  std::size_t tasks_in_flight();         // of every open call
  trace::Recorder* recorder_for(int row) const;  // the recorder if it has that row
  double trace_now(const trace::Recorder* rec) const;  // a trace time stamp, from clock_

  // workers and ready queues (workers.cc)
  void push_ready_batch(Task** ts, std::size_t n);
  void push_to(int d, Task** ts, std::size_t n);
  Task* try_pop(int d);
  static void prune_readers(Handle& h);
  Task* execute(Task* t, int worker, detail::Streak* streak = nullptr);  // returns a kept successor (release)
  Task* push_and_take(Task** ts, std::size_t n);  // ready host tasks: all but the best (or the queue's best) queued
  void worker_loop(int worker);
  void help_until(CallGraph& c, std::size_t in_flight_target);
  bool take_caller_slot();
  void give_caller_slot();

  // coherence: replicas, their states, device memory (coherence.cc)
  void prepare_data(Task* t, int d, int worker, void** ptrs, int64_t* lds, std::size_t& pinned);
  void acquire_on(Handle* h, Mode m, int d, int row, bool pin);
  void unpin(Task* t, int d, std::size_t pinned);
  Replica& replica(Handle* h, int d);
  void fetch_to_host(Handle* h, int row);
  void copy_to_host(dev::Device& dv, Handle* h, const void* replica);
  void* allocate_on(int d, std::size_t bytes, int row, bool wait_for_memory);
  void flush_devices();

  // device failure and recovery (recovery.cc)
  int device_index(const dev::Device* dv) const;  // -1: none of ours
  int on_device_error(const dev::DeviceError& e);  // the failed device; -1: not recoverable (set_error done)
  void fail_device(int d, const dev::DeviceError& e);
  void count_retry(int d, int64_t lost_ns);  // a task started or staged on failed device d runs again
  bool commit_writes(Task* t, int d);  // false: d failed meanwhile, the task's results are dropped
  bool checkpoint_writes(Task* t, int d, int row);  // RuntimeConfig::host_checkpoints; false: t runs again
  void uncommit_writes(Task* t, int d);
  void run_again(Task* t, int d);
  void flush_device(int d);

  // copy engines (copy_engine.cc)
  bool copy_engines_on() const { return !engines_.empty(); }
  bool has_engine(int d) const { return d > 0 && d < static_cast<int>(engines_.size()) && engines_[static_cast<std::size_t>(d)]; }
  void copy_loop(int d);
  void checkpoint_loop(int d);
  void stage(Task* t, int d);
  Task* take_staged(int d);
  void request_write_backs(Task* t);
  void settle_write_backs(Task* t);
  void write_back(Handle* h, int row);
  void hand_checkpoint(Task* t, int d);  // the engine checkpoints t's writes, then releases t
  void finish_checkpoint(Task* t, int d);
  std::vector<Task*> take_checkpoints(int d, bool memory_lost);  // fail_device
  // A copy engine's condition variables, or under cooperative threads (a
  // simulation) their Threads channels; engine_wait releases lk while blocked.
  enum class EngineEvent { Staged, Room, Fetch, Checkpoint };
  void engine_wait(int d, EngineEvent ev, std::unique_lock<std::mutex>& lk, const std::function<bool()>& ready);
  void engine_notify(int d, EngineEvent ev, bool all = false);

  RuntimeConfig cfg_;
  int num_workers_ = 1;
  int host_workers_ = 1;
  uint64_t id_ = 0;
  std::atomic<uint64_t> next_seq_{1};
  std::atomic<uint64_t> use_clock_{0};

  std::vector<std::shared_ptr<dev::Device>> devices_;  // [0] = host cores
  std::vector<int> worker_device_;
  std::vector<int> device_workers_;
  ClockRef clock_;                // cfg_.clock
  Executor* executor_ = nullptr;  // cfg_.executor
  Threads* coop_ = nullptr;       // cfg_.threads: cooperative (simulated) workers
  std::vector<std::unique_ptr<detail::Queue>> queues_;          // per device
  std::vector<std::unique_ptr<detail::DeviceState>> dstate_;    // per device
  std::unique_ptr<detail::WorkerStats[]> wstats_;               // per worker
  std::vector<std::unique_ptr<detail::CopyEngine>> engines_;    // per device ([0] null); empty: no copy engines
  std::vector<double> rates_;                           // [device][kernel] flop/s
  Placement placement_;  // its random draws have their own state

  std::atomic<bool> stop_{false};  // read by workers of every queue
  std::atomic<uint64_t> executed_{0};  // besides the workers' own counts (WorkerStats::executed)
  CallGraph main_call_;             // threads without a call of their own
  std::mutex calls_mutex_;          // guards calls_
  std::vector<CallGraph*> calls_;   // open calls (begin_call)
  // Worker 0 is whichever waiting caller holds this slot (help_until);
  // callers_cv_ (on the host queue's mutex) wakes the callers waiting for it.
  std::atomic<bool> caller_slot_{false};
  std::atomic<int> slot_waiters_{0};
  std::condition_variable callers_cv_;
  mutable std::mutex recovery_mutex_;
  std::vector<Recovery> recoveries_;

  // task pool: tasks are allocated by each call's inserting thread from its
  // CallGraph::alloc_cache, refilled from free_ (or a new chunk) under
  // pool_mutex_, recycled by any thread; their memory lives as long as the runtime.
  std::mutex pool_mutex_;
  std::vector<Task*> free_;
  std::vector<std::unique_ptr<Task[]>> chunks_;

  std::vector<std::thread> threads_;  // workers, then copy engines
  trace::Recorder* tracer_ = nullptr;
  std::shared_ptr<detail::CommState> comm_;  // while a CommScope is open (shared: its type is comm_state.hpp's)
};

}  // namespace hetla::rt
