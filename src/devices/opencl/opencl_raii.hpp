// RAII owners for OpenCL handles (contexts, command queues, buffers), so an
// exception on the way out of a device call or constructor releases them.
#pragma once
#include <memory>
#include <type_traits>

#include "devices/opencl/opencl_internal.hpp"

namespace hetla::dev::ocl {

struct ContextRelease {
  void operator()(cl_context c) const { clReleaseContext(c); }
};
struct QueueRelease {
  void operator()(cl_command_queue q) const {
    clFinish(q);
    clReleaseCommandQueue(q);
  }
};
using ContextPtr = std::unique_ptr<std::remove_pointer_t<cl_context>, ContextRelease>;
using QueuePtr = std::unique_ptr<std::remove_pointer_t<cl_command_queue>, QueueRelease>;

struct MemRelease {
  void operator()(cl_mem m) const { clReleaseMemObject(m); }
};
using MemPtr = std::unique_ptr<std::remove_pointer_t<cl_mem>, MemRelease>;

/// The cl_mem behind a device pointer (the runtime carries the handle itself).
inline cl_mem buffer(const void* p) { return static_cast<cl_mem>(const_cast<void*>(p)); }

}  // namespace hetla::dev::ocl
