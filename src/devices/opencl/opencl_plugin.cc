// The entry point of libhetla_opencl.so (devices/plugin.hpp).
#include "devices/opencl/opencl_device.hpp"
#include "devices/plugin.hpp"

extern "C" __attribute__((visibility("default"))) const void* hetla_plugin_opencl() {
  static const hetla::dev::PluginApi api{hetla::dev::PluginApi::kAbi, "opencl",
                                         [](const std::string& which) { return hetla::dev::make_opencl_devices(which); },
                                         &hetla::dev::probe_opencl_devices};
  return &api;
}
