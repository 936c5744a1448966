#include "context/context.hpp"

#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

#include "devices/spec.hpp"
#include "tune/calibrate.hpp"

namespace hetla {
namespace detail {
namespace {
std::unique_ptr<rt::Runtime> g_runtime;
Config g_config;
bool g_config_given = false;  // init() was called: the environment is not read

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string_view::npos ? std::string() : std::string(s.substr(b, e - b + 1));
}

[[noreturn]] void bad(std::string_view source, std::string_view key, std::string_view value, std::string_view want) {
  throw std::invalid_argument(std::string(source) + ": " + std::string(key) + "='" + std::string(value) +
                              "': expected " + std::string(want));
}

/// Sets one key of a configuration; `source` and `key` name it in errors.
void set_key(Config& c, bool& schedule_given, std::string_view source, std::string_view key, const std::string& v) {
  if (key == "threads" || key == "num_threads" || key == "HETLA_NUM_THREADS") {
    char* end = nullptr;
    errno = 0;
    const long n = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || errno != 0 || n < 0 || n > 4096)
      bad(source, key, v, "a number of threads from 0 (one per core) to 4096");
    c.num_threads = static_cast<int>(n);
  } else if (key == "devices" || key == "HETLA_DEVICES") {
    try {
      dev::parse_device_list(v);  // syntax now, naming the variable; devices open with the context
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string(source) + ": " + std::string(key) + "='" + v + "': " + e.what());
    }
    c.devices = v;
  } else if (key == "schedule" || key == "HETLA_SCHEDULE") {
    if (v == "static") c.schedule = Schedule::Static;
    else if (v == "dynamic") c.schedule = Schedule::Dynamic;
    else bad(source, key, v, "static or dynamic");
    schedule_given = true;
  } else if (key == "distribution" || key == "HETLA_DISTRIBUTION") {
    if (v == "default") c.distribution = Distribution::Default;
    else if (v == "1d") c.distribution = Distribution::OneD;
    else if (v == "2d") c.distribution = Distribution::TwoD;
    else if (v == "weighted") c.distribution = Distribution::Weighted;
    else if (v == "hybrid") c.distribution = Distribution::Hybrid;
    else bad(source, key, v, "default, 1d, 2d, weighted or hybrid");
  } else if (key == "pin" || key == "pin_threads" || key == "HETLA_PIN_THREADS") {
    if (v == "1" || v == "true" || v == "yes") c.pin_threads = true;
    else if (v == "0" || v == "false" || v == "no") c.pin_threads = false;
    else bad(source, key, v, "0 or 1");
  } else {
    throw std::invalid_argument(std::string(source) + ": unknown key '" + std::string(key) +
                                "' (threads, devices, schedule, distribution, pin)");
  }
}

/// A distribution places work only under owner-computes: naming one without
/// a schedule selects static scheduling (as `hetla bench` does).
void settle_schedule(Config& c, bool schedule_given) {
  if (!schedule_given && c.distribution != Distribution::Default) c.schedule = Schedule::Static;
}

/// Opens the configuration's devices; an error names where the list came from.
dev::DeviceSet open_devices(const Config& cfg, const std::string& source) {
  try {
    return dev::parse_devices(cfg.devices);
  } catch (const std::invalid_argument& e) {
    if (source.empty()) throw;
    throw std::invalid_argument(source + "='" + cfg.devices + "': " + e.what());
  }
}

/// Where the default context's device list came from ("" : the code).
std::string devices_source() { return std::getenv("HETLA_DEVICES") ? "HETLA_DEVICES" : ""; }

// Capability weights measured by `hetla tune` on this machine, if any.
void apply_saved_weights(rt::Runtime& rt) {
  const std::string path = tune::weights_path();
  try {
    tune::apply(rt, tune::load(path));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hetla: ignoring capability weights: %s\n", e.what());
  }
}

std::unique_ptr<rt::Runtime> make_runtime(const Config& cfg, dev::DeviceSet set) {
  // The cores are those of the CPU set the process runs in now (taskset,
  // Slurm, mpirun --bind-to): workers are counted and pinned inside it.
  util::Topology::get().refresh_cpu_set();
  rt::RuntimeConfig rc;
  rc.num_workers = cfg.num_threads > 0 ? cfg.num_threads : set.host_cores;
  rc.pin_threads = cfg.pin_threads;
  rc.accelerators = std::move(set.accelerators);
  rc.host_computes = set.host_computes;
  rc.schedule = cfg.schedule == Schedule::Static ? rt::Schedule::Static : rt::Schedule::Dynamic;
  auto rt = std::make_unique<rt::Runtime>(std::move(rc));
  apply_saved_weights(*rt);
  return rt;
}
}  // namespace

std::recursive_mutex& call_mutex() {
  static std::recursive_mutex m;
  return m;
}

int& call_depth() {
  thread_local int depth = 0;
  return depth;
}

namespace {
// Calls running at once (CallScope on a runtime with concurrent_calls()):
// how many, and the BLAS thread count the first of them found (restored by
// the last). Not guarded by call_mutex(): a call leaving must never wait on
// init() waiting for it.
struct ConcurrentCalls {
  std::mutex mutex;
  std::condition_variable cv;
  int active = 0;
  int saved_blas_threads = 0;
};
ConcurrentCalls& concurrent() {
  static ConcurrentCalls c;
  return c;
}

/// With call_mutex() held (so no call starts): waits until the concurrent
/// calls in flight ended. `who` names the waiter if this thread is itself
/// inside one (it would wait for itself); `own`: scopes of the waiter's own
/// (an entering call's).
void wait_for_calls(const char* who, int own = 0) {
  ConcurrentCalls& c = concurrent();
  std::unique_lock<std::mutex> lk(c.mutex);
  if (call_depth() > own && c.active > 0)
    throw std::logic_error(std::string(who) + ": called from inside a hetla call (a task or callback)");
  c.cv.wait(lk, [&] { return c.active == 0; });
}

/// Enters a concurrent call; returns whether it is the only one.
bool enter_concurrent() {
  ConcurrentCalls& c = concurrent();
  std::lock_guard<std::mutex> lk(c.mutex);
  if (c.active++ > 0) return false;
  c.saved_blas_threads = util::blas_get_num_threads();
  if (c.saved_blas_threads != 1) util::blas_set_num_threads(1);
  return true;
}

void leave_concurrent() {
  ConcurrentCalls& c = concurrent();
  std::lock_guard<std::mutex> lk(c.mutex);
  if (--c.active > 0) return;
  if (util::blas_get_num_threads() != c.saved_blas_threads) util::blas_set_num_threads(c.saved_blas_threads);
  c.cv.notify_all();
}
}  // namespace

CallScope::Entry::Entry(bool exclusive) {
  if (call_depth()++ > 0) {  // nested in this thread's call: its context, graph and lock
    rt = &runtime();
    blas.emplace(1);
    return;
  }
  try {
    lock = std::unique_lock<std::recursive_mutex>(call_mutex());
    rt = &runtime();
    const std::size_t first_recovery = rt->recoveries().size();
    if (exclusive || !rt->concurrent_calls()) {  // takes turns: keeps the lock
      wait_for_calls("hetla", 1);
      blas.emplace(1);
      bind_core = rt->pins_threads() ? 0 : -1;
    } else {
      const bool alone = enter_concurrent();
      concurrent = true;
      // The first caller is worker 0's core; a second one concurrently would
      // only share that core with it (it sleeps in wait_all, or runs worker 0
      // when the first left).
      bind_core = alone && rt->pins_threads() ? 0 : -1;
      rt->begin_call(graph);
      lock.unlock();
    }
    last_call_first_recovery().store(first_recovery);
  } catch (...) {
    --call_depth();
    throw;
  }
}

CallScope::Entry::~Entry() {
  if (concurrent) {
    rt->end_call(graph);
    leave_concurrent();
  }
  --call_depth();
}

Config parse_config(std::string_view text, std::string_view source) {
  Config c;
  bool schedule_given = false;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(';', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string item = trim(text.substr(start, end - start));
    start = end + 1;
    if (item.empty()) continue;
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos)
      throw std::invalid_argument(std::string(source) + ": '" + item + "' is not key=value");
    set_key(c, schedule_given, source, trim(std::string_view(item).substr(0, eq)), trim(item.substr(eq + 1)));
  }
  settle_schedule(c, schedule_given);
  return c;
}

Config config_from_environment() {
  Config c;
  bool schedule_given = false;
  for (const char* var : {"HETLA_NUM_THREADS", "HETLA_DEVICES", "HETLA_SCHEDULE", "HETLA_DISTRIBUTION",
                          "HETLA_PIN_THREADS"})
    if (const char* v = std::getenv(var)) set_key(c, schedule_given, "environment", var, trim(v));
  settle_schedule(c, schedule_given);
  return c;
}

rt::Runtime& runtime() {
  if (!g_runtime) {
    if (!g_config_given) g_config = config_from_environment();
    g_runtime = make_runtime(g_config, open_devices(g_config, g_config_given ? "" : devices_source()));
  }
  return *g_runtime;
}

Distribution default_distribution() { return g_config.distribution; }

void init_runtime(rt::RuntimeConfig rc) {
  std::lock_guard<std::recursive_mutex> lk(call_mutex());
  wait_for_calls("init_runtime");
  g_runtime.reset();
  util::Topology::get().refresh_cpu_set();
  last_call_first_recovery() = 0;
  g_runtime = std::make_unique<rt::Runtime>(std::move(rc));
  apply_saved_weights(*g_runtime);
}
}  // namespace detail

void init(const Config& cfg) {
  std::lock_guard<std::recursive_mutex> lk(detail::call_mutex());
  detail::wait_for_calls("hetla::init");
  // Open the devices first: a bad list throws and leaves the current context.
  dev::DeviceSet set = dev::parse_devices(cfg.devices);
  detail::g_runtime.reset();
  detail::g_config = cfg;
  detail::g_config_given = true;
  detail::g_runtime = detail::make_runtime(cfg, std::move(set));
  detail::last_call_first_recovery() = 0;
}

void finalize() {
  std::lock_guard<std::recursive_mutex> lk(detail::call_mutex());
  detail::wait_for_calls("hetla::finalize");
  detail::g_runtime.reset();
  detail::last_call_first_recovery() = 0;
  detail::g_config = Config{};  // the next call starts a default context (from the environment)
  detail::g_config_given = false;
}

int num_threads() {
  const detail::ContextLock lk;  // also from inside a call (tile sizes)
  return detail::runtime().num_host_workers();
}

namespace detail {
std::atomic<std::size_t>& last_call_first_recovery() {
  static std::atomic<std::size_t> first{0};
  return first;
}

std::vector<rt::Recovery> recoveries_since(std::size_t first) {
  const ContextLock lk;
  if (!g_runtime) return {};
  auto all = g_runtime->recoveries();
  if (first >= all.size()) return {};
  return {all.begin() + static_cast<std::ptrdiff_t>(first), all.end()};
}
}  // namespace detail

std::vector<Recovery> last_recoveries() {
  const detail::ContextLock lk;
  std::vector<Recovery> out;
  for (const rt::Recovery& r : detail::recoveries_since(detail::last_call_first_recovery()))
    out.push_back({r.device, r.error, r.seconds_lost, r.tasks_rerun, r.tasks_moved, r.tiles_copied_back});
  return out;
}

std::vector<std::string> last_warnings() {
  std::vector<std::string> out;
  for (const Recovery& r : last_recoveries()) {
    char lost[32];
    std::snprintf(lost, sizeof lost, "%.3f", r.seconds_lost);
    out.push_back("device " + r.device + " failed (" + r.error + "); recovered: " + std::to_string(r.tasks_rerun) +
                  " task(s) re-run, " + std::to_string(r.tasks_moved) + " moved, " +
                  std::to_string(r.tiles_copied_back) + " tile(s) copied back, " + lost +
                  " s lost; the device is out of the context until hetla::reset_devices()");
  }
  return out;
}

void reset_devices() {
  std::lock_guard<std::recursive_mutex> lk(detail::call_mutex());
  detail::wait_for_calls("hetla::reset_devices");
  if (detail::g_runtime) detail::g_runtime->reset_failed_devices();
}

}  // namespace hetla
