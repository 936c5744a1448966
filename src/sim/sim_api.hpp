// The simulator as the CLI sees it: a plugin (libhetla_sim.so, SimGrid linked
// there), opened through the device plugin loader the first time `hetla
// simulate` runs, so that no other process pays for SimGrid at start-up (hetla
// version: 20 ms and 8 MB without it, 90 ms and 37 MB with it).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "devices/plugin.hpp"
#include "sim/model.hpp"
#include "sim/simulate.hpp"
#include "sim/this_machine.hpp"

namespace hetla::sim {

/// What libhetla_sim.so's `hetla_plugin_sim()` returns.
struct SimApi {
  int abi = dev::PluginApi::kAbi;
  std::vector<std::string> (*list_models)();
  MachineModel (*find_model)(const std::string& name_or_file);
  MachineModel (*this_machine)(const std::string& devices, char precision, int64_t nb, int cores);
  Result (*simulate)(const MachineModel& model, const Request& req);
  MachineModel (*measure_this)(const ThisOptions& opt);
  std::string (*model_json)(const MachineModel& m);
  MachineModel (*parse_model)(const std::string& text, const std::string& source);
};

/// Loads the simulator on first use; throws std::invalid_argument naming the
/// file when it cannot (hetla built without SimGrid, plugin missing).
inline const SimApi& api() { return *static_cast<const SimApi*>(dev::plugin_entry("sim")); }

}  // namespace hetla::sim
