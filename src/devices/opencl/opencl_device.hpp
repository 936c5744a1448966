// OpenCL accelerators through CLBlast (POCL gives a real OpenCL device on a
// CPU-only machine, so this backend is exercised in CI).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "devices/device.hpp"
#include "devices/spec.hpp"

namespace hetla::dev {

/// Opens the OpenCL device(s) named by `which` ("0", "1", … or "all"; the
/// index counts devices over all platforms). Throws std::invalid_argument
/// if there is no such device.
std::vector<std::shared_ptr<Device>> make_opencl_devices(const std::string& which);
/// Devices visible to OpenCL, for `hetla info` (empty if none / no ICD).
std::vector<DeviceInfo> probe_opencl_devices();

}  // namespace hetla::dev
