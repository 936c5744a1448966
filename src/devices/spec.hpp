// Parsing of device lists such as "cpu,emu:speed=0.5:mem=64M,opencl:0".
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "devices/device.hpp"
#include "devices/emulated/emulated_device.hpp"

namespace hetla::dev {

struct DeviceSet {
  bool host_computes = true;  // `cpu` listed (or the list is empty)
  int host_cores = 0;         // `cpu:N`; 0 = default
  std::vector<std::shared_ptr<Device>> accelerators;
};

/// One item of a device list, checked but not opened.
struct DeviceItem {
  std::string text;    // as written (spaces trimmed), e.g. "emu:speed=0.5"
  std::string kind;    // cpu, emu, opencl or cuda
  int cores = 0;       // cpu:N; 0 = default
  EmulatedConfig emu;  // emu:key=value...
  std::string which;   // opencl/cuda: everything after "kind:" but fail=/seed= ("0" when absent); the backend parses it
  FaultPlan faults;    // opencl/cuda: fail=...:seed=... (fault injection for tests, devices/fault.hpp)
};

/// The one parser of device lists ("cpu,emu:speed=0.5,opencl"): splits and
/// checks every item without opening a device, so a command line or an
/// environment variable is rejected before any work starts. An empty list or
/// an empty item throws std::invalid_argument (messages start with "empty").
std::vector<DeviceItem> parse_device_list(const std::string& spec);

/// Parses and opens the devices; "" = the host only. Throws
/// std::invalid_argument naming the bad item.
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
