// Finding OpenCL devices: enumeration over all platforms, device queries,
// parsing an "opencl:INDEX|all[:mem=SIZE]" item, and `hetla info` probing.
#include <algorithm>
#include <cctype>
#include <sstream>
#include <stdexcept>

#include "devices/opencl/opencl_device.hpp"
#include "devices/opencl/opencl_internal.hpp"

namespace hetla::dev {

namespace ocl {

namespace {

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\0' || std::isspace(static_cast<unsigned char>(s.back())))) s.pop_back();
  return s;
}

}  // namespace

std::string device_string(cl_device_id d, cl_device_info what) {
  std::size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  if (clGetDeviceInfo(d, what, n, s.data(), nullptr) != CL_SUCCESS) return {};
  return trimmed(std::move(s));
}

std::string platform_string(cl_platform_id p, cl_platform_info what) {
  std::size_t n = 0;
  if (clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  if (clGetPlatformInfo(p, what, n, s.data(), nullptr) != CL_SUCCESS) return {};
  return trimmed(std::move(s));
}

bool device_has_fp64(cl_device_id d) {
  const std::string ext = device_string(d, CL_DEVICE_EXTENSIONS);
  if (ext.find("cl_khr_fp64") != std::string::npos || ext.find("cl_amd_fp64") != std::string::npos) return true;
  return device_value<cl_device_fp_config>(d, CL_DEVICE_DOUBLE_FP_CONFIG, 0) != 0;
}

/// Every device of every platform, in platform order (the device-list index).
/// When the list is empty, `problem` says why.
std::vector<Found> enumerate_devices(std::string& problem) {
  std::vector<Found> out;
  cl_uint np = 0;
  cl_int err = clGetPlatformIDs(0, nullptr, &np);
  if (err != CL_SUCCESS || np == 0) {
    problem = err == CL_SUCCESS || err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */
                  ? "no OpenCL platform found (is an OpenCL driver/ICD installed, e.g. pocl-opencl-icd?)"
                  : std::string("clGetPlatformIDs failed: ") + cl_error_name(err) + " (" + std::to_string(err) + ")";
    return out;
  }
  std::vector<cl_platform_id> platforms(np);
  if ((err = clGetPlatformIDs(np, platforms.data(), nullptr)) != CL_SUCCESS) {
    problem = std::string("clGetPlatformIDs failed: ") + cl_error_name(err) + " (" + std::to_string(err) + ")";
    return out;
  }
  for (cl_platform_id p : platforms) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
    std::vector<cl_device_id> devices(nd);
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, devices.data(), nullptr) != CL_SUCCESS) continue;
    for (cl_device_id d : devices) out.push_back({p, d});
  }
  if (out.empty()) problem = "no OpenCL device found on " + std::to_string(np) + " OpenCL platform(s)";
  return out;
}

}  // namespace ocl

namespace {

/// "0", "12" -> index; anything else -> -1.
int parse_index(const std::string& s) {
  if (s.empty() || s.size() > 6 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return -1;
  return std::stoi(s);
}

}  // namespace

using namespace ocl;

std::vector<std::shared_ptr<Device>> make_opencl_devices(const std::string& which) {
  const std::string item = "opencl:" + which;
  std::string index = which;
  std::size_t memory = 0;
  if (auto colon = which.find(':'); colon != std::string::npos) {
    index = which.substr(0, colon);
    std::istringstream opts(which.substr(colon + 1));
    std::string opt;
    while (std::getline(opts, opt, ':')) {
      if (opt.rfind("mem=", 0) != 0)
        throw std::invalid_argument("device '" + item + "': unknown option '" + opt + "' (expected mem=SIZE)");
      try {
        memory = parse_size(opt.substr(4));
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("device '" + item + "': " + e.what());
      }
    }
  }
  const int idx = parse_index(index);
  if (idx < 0 && index != "all")
    throw std::invalid_argument("device '" + item + "': expected opencl[:INDEX|all][:mem=SIZE], got '" + index + "'");

  std::string problem;
  const std::vector<Found> found = enumerate_devices(problem);
  if (found.empty()) throw std::invalid_argument("device '" + item + "': " + problem);
  std::vector<std::shared_ptr<Device>> out;
  if (index == "all") {
    for (std::size_t i = 0; i < found.size(); ++i)
      out.push_back(open_opencl_device(static_cast<int>(i), found[i].platform, found[i].device, memory, 1));
    return out;
  }
  if (static_cast<std::size_t>(idx) >= found.size()) {
    std::string list;
    for (std::size_t i = 0; i < found.size(); ++i)
      list += (i ? ", " : "") + std::to_string(i) + " = " + device_string(found[i].device, CL_DEVICE_NAME);
    throw std::invalid_argument("device '" + item + "': no OpenCL device " + index + " (" +
                                std::to_string(found.size()) + " found: " + list + ")");
  }
  const Found& f = found[static_cast<std::size_t>(idx)];
  out.push_back(open_opencl_device(idx, f.platform, f.device, memory, 1));
  return out;
}

std::vector<DeviceInfo> probe_opencl_devices() {
  std::vector<DeviceInfo> out;
  std::string problem;
  const std::vector<Found> found = enumerate_devices(problem);
  for (std::size_t i = 0; i < found.size(); ++i) {
    const cl_device_id d = found[i].device;
    DeviceInfo info;
    info.kind = "opencl";
    info.index = static_cast<int>(i);
    info.name = device_string(d, CL_DEVICE_NAME);
    info.memory = static_cast<std::size_t>(device_value<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE, 0));
    info.detail = platform_string(found[i].platform, CL_PLATFORM_NAME) + ", " + device_string(d, CL_DEVICE_VERSION) +
                  ", driver " + device_string(d, CL_DRIVER_VERSION) + ", " +
                  std::to_string(device_value<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS, 0)) + " compute units" +
                  (device_has_fp64(d) ? ", fp64" : ", no fp64");
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace hetla::dev
