// NVIDIA GPUs through cuBLAS / cuSOLVER: streams, pinned staging buffers.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "devices/device.hpp"
#include "devices/spec.hpp"

namespace hetla::dev {

/// Opens the CUDA device(s) named by `which` ("0", "1", … or "all").
/// Throws std::invalid_argument if there is no such device (e.g. no GPU).
std::vector<std::shared_ptr<Device>> make_cuda_devices(const std::string& which);
/// GPUs visible to CUDA, for `hetla info` (empty when no GPU or driver).
std::vector<DeviceInfo> probe_cuda_devices();

}  // namespace hetla::dev
