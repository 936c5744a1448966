// What the OpenCL plugin's files share: error names, device enumeration and
// queries, the laswp kernel source and the device factory. Internal to the
// plugin (namespace ocl keeps these names apart from other plugins').
#pragma once
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <clblast.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "devices/device.hpp"

namespace hetla::dev::ocl {

/// "CL_INVALID_VALUE" etc. for an OpenCL error code (opencl_errors.cc).
const char* cl_error_name(cl_int e);
/// A CLBlast status code in words (opencl_errors.cc).
const char* status_name(clblast::StatusCode s);

/// A device / platform text property, trailing NULs and spaces removed;
/// empty if the query fails (opencl_probe.cc).
std::string device_string(cl_device_id d, cl_device_info what);
std::string platform_string(cl_platform_id p, cl_platform_info what);
/// A fixed-size device property, or `fallback` if the query fails.
template <typename V> V device_value(cl_device_id d, cl_device_info what, V fallback) {
  V v{};
  return clGetDeviceInfo(d, what, sizeof v, &v, nullptr) == CL_SUCCESS ? v : fallback;
}
bool device_has_fp64(cl_device_id d);

struct Found {
  cl_platform_id platform;
  cl_device_id device;
};

/// Every device of every platform, in platform order (the device-list index).
/// When the list is empty, `problem` says why.
std::vector<Found> enumerate_devices(std::string& problem);

/// Our laswp kernels' OpenCL C source (laswp_kernels_cl.cc).
extern const char* const kLaswpSource;

/// Opens one device (opencl_device.cc keeps the class itself).
std::shared_ptr<Device> open_opencl_device(int index, cl_platform_id platform, cl_device_id device,
                                           std::size_t memory_limit, int workers);

}  // namespace hetla::dev::ocl
