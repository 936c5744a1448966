// Internal access to the library context. Public calls that build a task graph
// (small ones run inline without it: tasks/inline_call.hpp) hold a CallScope for
// their whole duration. On a runtime that allows it (host cores only:
// rt::Runtime::concurrent_calls) calls from several threads run at once, each
// inserting into and waiting for its own task graph (rt::CallGraph) on the
// shared workers; otherwise (accelerators, simulation, MPI) a call holds
// call_mutex() and calls take turns. init/finalize/reset_devices take
// call_mutex() and wait until no call is in flight. While any call runs the
// host BLAS is set to one thread (restored when the last concurrent call
// ends) and, with pinned workers, the first caller is bound to the first core
// of the process's CPU set (worker 0's core).
#pragma once
#include <atomic>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#include "hetla/context.hpp"
#include "runtime/reentry.hpp"
#include "runtime/runtime.hpp"
#include "util/blas_threads.hpp"
#include "util/hwloc_topology.hpp"

namespace hetla::detail {

/// Guards the context (the runtime's creation and replacement). Held for a
/// whole call only where calls take turns; init/finalize/reset_devices and
/// such a call also wait, holding it, until no concurrent call is in flight.
std::recursive_mutex& call_mutex();
rt::Runtime& runtime();  // requires call_mutex() held, or a CallScope open on this thread
/// This thread's open CallScopes (nested calls open more).
int& call_depth();
/// Holds call_mutex() unless this thread is inside a call or runs its tasks
/// (a worker: rt::reentry_depth() > 0), whose context cannot change meanwhile:
/// for short reads of the context from code that runs both inside calls and
/// outside them, without waiting on an init() that waits for that call.
class ContextLock {
 public:
  ContextLock() {
    if (call_depth() == 0 && rt::reentry_depth() == 0) lock_ = std::unique_lock<std::recursive_mutex>(call_mutex());
  }

 private:
  std::unique_lock<std::recursive_mutex> lock_;
};
/// The context's distribution (Config::distribution).
Distribution default_distribution();
/// Replaces the library runtime with one built from `rc` (tests, tools).
void init_runtime(rt::RuntimeConfig rc);

/// A configuration from text "key=value;key=value": threads=N (0: one per
/// core of the CPU set), devices=LIST (as Config::devices), schedule=
/// static|dynamic, distribution=default|1d|2d|weighted|hybrid (naming one
/// without schedule selects static, as the CLI does), pin=0|1. Keys not
/// given keep Config's defaults. Throws std::invalid_argument naming
/// `source` and the key.
Config parse_config(std::string_view text, std::string_view source = "config");
/// The default context's configuration: Config's defaults overridden by
/// HETLA_NUM_THREADS, HETLA_DEVICES, HETLA_SCHEDULE, HETLA_DISTRIBUTION
/// when set (and HETLA_PIN_THREADS=0|1). Throws std::invalid_argument naming
/// the variable for a malformed value.
Config config_from_environment();

/// With pinned workers the caller, worker 0, is bound to the first core of
/// the process's CPU set (util::Topology) for the call: left free, the scheduler may park it on a core a pinned worker (or
/// another library's spinning thread) holds; measured, that halved dgetrf
/// n=2000 after an OpenBLAS call in the same process. The thread is marked
/// inside hetla (rt::ReentryScope) while it runs tasks as worker 0.
/// The runtime's record of device failures (Runtime::recoveries()) from
/// this entry on; the outermost CallScope of a call sets where the last call's
/// begin (hetla::last_recoveries()).
std::vector<rt::Recovery> recoveries_since(std::size_t first);
std::atomic<std::size_t>& last_call_first_recovery();

/// One public call. `exclusive`: the call takes turns with every other even
/// where the runtime lets calls run at once (MPI routines attach a
/// communicator to the runtime for the call).
class CallScope {
 public:
  explicit CallScope(bool exclusive = false) : entry_(exclusive), binding_(entry_.bind_core) {}
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;
  rt::Runtime& rt() { return *entry_.rt; }

 private:
  // Enters the call (context.cc): the lock or a place among the concurrent
  // calls, this thread's CallGraph, the BLAS thread count.
  struct Entry {
    explicit Entry(bool exclusive);
    ~Entry();
    rt::Runtime* rt = nullptr;
    bool concurrent = false;  // the outermost scope of a call running alongside others
    int bind_core = -1;
    std::unique_lock<std::recursive_mutex> lock;  // calls taking turns
    std::optional<util::BlasThreadsGuard> blas;   // all but concurrent calls (those count: context.cc)
    rt::CallGraph graph;
  };
  rt::ReentryScope inside_;
  Entry entry_;
  util::ScopedCoreBinding binding_;
};

}  // namespace hetla::detail
