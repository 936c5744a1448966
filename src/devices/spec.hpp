// Parsing of device lists such as "cpu,emu:speed=0.5:mem=64M,opencl:0".
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "devices/device.hpp"

namespace hetla::dev {

struct DeviceSet {
  bool host_computes = true;  // `cpu` listed (or the list is empty)
  int host_cores = 0;         // `cpu:N`; 0 = default
  std::vector<std::shared_ptr<Device>> accelerators;
};

/// Throws std::invalid_argument naming the bad item.
DeviceSet parse_devices(const std::string& spec);

/// What `hetla info` shows for a device a backend found (not yet opened).
struct DeviceInfo {
  std::string kind;    // cpu, emu, opencl, cuda
  int index = 0;       // index within its kind, as used in the device list
  std::string name;
  std::size_t memory = 0;  // bytes; 0 = unknown
  std::string detail;      // driver / platform / compute capability
};
/// Every device the built backends can see (the host CPU included).
std::vector<DeviceInfo> probe_devices();
/// Which backends this build includes, e.g. "emu opencl".
std::string built_backends();

/// "64M", "2G", "1048576" -> bytes.
std::size_t parse_size(const std::string& s);

}  // namespace hetla::dev
