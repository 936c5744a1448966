// Finding CUDA devices: the visible count, parsing a "cuda:INDEX|all" item
// into devices, and `hetla info` probing (which never throws: no GPU is a
// normal answer there).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "devices/cuda/cuda_device.hpp"
#include "devices/cuda/cuda_errors.hpp"

namespace hetla::dev {

using namespace cuda_errors;

int visible_cuda_device_count() {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    std::string hint;
    if (e == cudaErrorInsufficientDriver)
      hint = "; no NVIDIA driver is loaded, or it is older than this CUDA runtime";
    throw std::invalid_argument("cuda: no CUDA device found (cudaGetDeviceCount: " + cuda_error_text(e) + hint + ")");
  }
  if (count <= 0) throw std::invalid_argument("cuda: no CUDA device found (cudaGetDeviceCount: 0 devices)");
  return count;
}

std::vector<std::shared_ptr<Device>> make_cuda_devices(const std::string& which, const CudaConfig& cfg) {
  // The spelling is checked first, so a bad list reads the same with or without a GPU.
  const bool all = which == "all";
  int index = -1;
  if (!all) {
    const bool digits = !which.empty() && which.size() <= 6 &&
                        std::all_of(which.begin(), which.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits) throw std::invalid_argument("cuda: device '" + which + "' is not an index (0, 1, ...) or 'all'");
    index = std::stoi(which);
  }
  const int count = visible_cuda_device_count();
  if (!all && index >= count)
    throw std::invalid_argument("cuda: device " + which + " does not exist (" + std::to_string(count) +
                                " CUDA device" + (count == 1 ? "" : "s") + " visible)");
  std::vector<std::shared_ptr<Device>> out;
  for (int d = all ? 0 : index; d < (all ? count : index + 1); ++d) out.push_back(std::make_shared<CudaDevice>(d, cfg));
  return out;
}

std::vector<DeviceInfo> probe_cuda_devices() {
  std::vector<DeviceInfo> out;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return out;
  }
  int driver = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess) (void)cudaGetLastError(), driver = 0;
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) {
      (void)cudaGetLastError();
      continue;
    }
    std::string detail = "compute capability " + std::to_string(prop.major) + "." + std::to_string(prop.minor) + ", " +
                         std::to_string(prop.multiProcessorCount) + " SMs";
    if (driver > 0) detail += ", driver " + std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10);
    out.push_back({"cuda", d, prop.name, prop.totalGlobalMem, detail});
  }
  return out;
}

}  // namespace hetla::dev
