#include "runtime/context.hpp"

#include <cstdio>
#include <memory>

#include "devices/spec.hpp"
#include "tune/calibrate.hpp"

namespace hetla {
namespace detail {
namespace {
std::unique_ptr<rt::Runtime> g_runtime;
Config g_config;

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

rt::Runtime& runtime() {
  if (!g_runtime) g_runtime = make_runtime(g_config, dev::parse_devices(g_config.devices));
  return *g_runtime;
}

Distribution default_distribution() { return g_config.distribution; }

void init_runtime(rt::RuntimeConfig rc) {
  std::lock_guard<std::recursive_mutex> lk(call_mutex());
  g_runtime.reset();
  g_runtime = std::make_unique<rt::Runtime>(std::move(rc));
  apply_saved_weights(*g_runtime);
}
}  // namespace detail

void init(const Config& cfg) {
  std::lock_guard<std::recursive_mutex> lk(detail::call_mutex());
  // Open the devices first: a bad list throws and leaves the current context.
  dev::DeviceSet set = dev::parse_devices(cfg.devices);
  detail::g_runtime.reset();
  detail::g_config = cfg;
  detail::g_runtime = detail::make_runtime(cfg, std::move(set));
}

void finalize() {
  std::lock_guard<std::recursive_mutex> lk(detail::call_mutex());
  detail::g_runtime.reset();
  detail::g_config = Config{};  // the next call starts a default context
}

int num_threads() {
  std::lock_guard<std::recursive_mutex> lk(detail::call_mutex());
  return detail::runtime().num_host_workers();
}

}  // namespace hetla
