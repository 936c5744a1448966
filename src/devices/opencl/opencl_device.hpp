// OpenCL accelerators through CLBlast (POCL gives a real OpenCL device on a
// CPU-only machine, so this backend is exercised in CI).
//
// Each device owns an OpenCL context, one in-order command queue per worker
// thread and one more for copies issued from other threads (the coherence
// layer fetches Modified tiles from whichever thread needs them). Device
// memory is a cl_mem per tile; the runtime carries it as an opaque pointer
// (the cl_mem handle itself, never a host address). gemm, herk (syrk for real
// types) and trsm run in CLBlast and are finished when the call returns;
// LU's row interchanges run in our own OpenCL kernels (a gather / scatter of
// the rows that move, devices/laswp_plan.hpp); CLBlast has no potrf, so the
// device reports no potrf kernel and the runtime keeps potrf on the host.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "devices/device.hpp"
#include "devices/spec.hpp"

namespace hetla::dev {

/// Opens the OpenCL device(s) named by `which`: "0", "1", … or "all" (the
/// index counts devices over all platforms), optionally followed by
/// ":mem=SIZE" to cap the device memory the runtime may use (default: the
/// device's global memory). Throws std::invalid_argument if there is no
/// such device or the text is malformed.
std::vector<std::shared_ptr<Device>> make_opencl_devices(const std::string& which);
/// Devices visible to OpenCL, for `hetla info` (empty if none / no ICD).
std::vector<DeviceInfo> probe_opencl_devices();

}  // namespace hetla::dev
