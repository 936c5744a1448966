#include "runtime/context.hpp"

#include <memory>

namespace hetla {
namespace detail {
namespace {
std::unique_ptr<rt::Runtime> g_runtime;
Config g_config;
}  // namespace

std::recursive_mutex& call_mutex() {
  static std::recursive_mutex m;
  return m;
}

rt::Runtime& runtime() {
  if (!g_runtime) {
    rt::RuntimeConfig rc;
    rc.num_workers = g_config.num_threads;
    rc.pin_threads = g_config.pin_threads;
    g_runtime = std::make_unique<rt::Runtime>(rc);
  }
  return *g_runtime;
}
}  // namespace detail

void init(const Config& cfg) {
  std::lock_guard<std::recursive_mutex> lk(detail::call_mutex());
  detail::g_runtime.reset();
  detail::g_config = cfg;
  detail::runtime();
}

void finalize() {
  std::lock_guard<std::recursive_mutex> lk(detail::call_mutex());
  detail::g_runtime.reset();
}

int num_threads() {
  std::lock_guard<std::recursive_mutex> lk(detail::call_mutex());
  return detail::runtime().num_workers();
}

}  // namespace hetla
