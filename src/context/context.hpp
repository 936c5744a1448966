// Internal access to the library context. Public calls that build a task graph
// (small ones run inline without it: tasks/inline_call.hpp) hold a CallScope for
// their whole duration: it serialises calls (one inserting thread per runtime),
// sets the host BLAS to one thread while tasks run and, with pinned workers,
// binds the caller (worker 0) to the first core of the process's CPU set.
#pragma once
#include <mutex>
#include <string_view>
#include <vector>

#include "hetla/context.hpp"
#include "runtime/reentry.hpp"
#include "runtime/runtime.hpp"
#include "util/blas_threads.hpp"
#include "util/hwloc_topology.hpp"

namespace hetla::detail {

std::recursive_mutex& call_mutex();
rt::Runtime& runtime();  // requires call_mutex() held
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
std::size_t& last_call_first_recovery();  // guarded by call_mutex()

class CallScope {
 public:
  CallScope() : lock_(call_mutex()), blas_(1), binding_(runtime().pins_threads() ? 0 : -1) {
    if (depth()++ == 0) last_call_first_recovery() = runtime().recoveries().size();
  }
  ~CallScope() { --depth(); }
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;
  rt::Runtime& rt() { return runtime(); }

 private:
  static int& depth() {  // guarded by call_mutex()
    static int n = 0;
    return n;
  }
  rt::ReentryScope inside_;
  std::unique_lock<std::recursive_mutex> lock_;
  util::BlasThreadsGuard blas_;
  util::ScopedCoreBinding binding_;
};

}  // namespace hetla::detail
