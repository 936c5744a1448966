// The entry point of libhetla_sim.so (sim/sim_api.hpp).
#include "sim/sim_api.hpp"
#include "sim/this_machine.hpp"

extern "C" __attribute__((visibility("default"))) const void* hetla_plugin_sim() {
  static const hetla::sim::SimApi api{hetla::dev::PluginApi::kAbi, &hetla::sim::list_models,
                                      &hetla::sim::find_model, &hetla::sim::this_machine, &hetla::sim::simulate,
                                      &hetla::sim::measure_this, &hetla::sim::model_json, &hetla::sim::parse_model};
  return &api;
}
