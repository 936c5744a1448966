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

/// "64M", "2G", "1048576" -> bytes.
std::size_t parse_size(const std::string& s);

}  // namespace hetla::dev
