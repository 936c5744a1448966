// The entry point of libhetla_cuda.so (devices/plugin.hpp).
#include "devices/cuda/cuda_device.hpp"
#include "devices/plugin.hpp"

extern "C" __attribute__((visibility("default"))) const void* hetla_plugin_cuda() {
  static const hetla::dev::PluginApi api{hetla::dev::PluginApi::kAbi, "cuda",
                                         [](const std::string& which) { return hetla::dev::make_cuda_devices(which); },
                                         &hetla::dev::probe_cuda_devices};
  return &api;
}
