// A plugin left over from another hetla, for test_plugin.cc: its entry table
// carries another ABI number, which the loader must refuse.
#include "devices/plugin.hpp"

namespace {
const struct {
  int abi;
} kStale{hetla::dev::PluginApi::kAbi + 1};
}  // namespace

extern "C" __attribute__((visibility("default"))) const void* hetla_plugin_stale() { return &kStale; }
