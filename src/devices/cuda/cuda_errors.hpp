// CUDA, cuBLAS and cuSOLVER failures as errors that name the device and the
// call (as opencl_errors.cc does for OpenCL and CLBlast): one place that
// decides which failures are dev::DeviceErrors (the runtime recovers from
// them, docs/reliability.md) and which are plain errors (while opening).
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include <string>

#include "devices/device.hpp"
#include "hetla/types.hpp"

namespace hetla::dev::cuda_errors {

/// Who reports a CUDA failure: the device's name, and the device itself once
/// it is open. Its failures are then dev::DeviceErrors, which the runtime
/// recovers from by dropping the device (docs/reliability.md); while it opens
/// they are plain errors. The memory counts as lost: after a sticky error
/// (an illegal address, a launch failure) the CUDA context is unusable, and a
/// kernel that failed may have written part of a tile.
struct Origin {
  std::string who;
  const Device* device = nullptr;
};

/// "cudaErrorNoDevice (no CUDA-capable device is detected)".
std::string cuda_error_text(cudaError_t e);
/// Throws what `what` went wrong for `o`: a DeviceError once the device is open.
[[noreturn]] void fail(const Origin& o, const std::string& what);
/// Nothing on success, else fail() naming `call` and the error.
void check_cuda(cudaError_t e, const Origin& o, const char* call);
void check_blas(cublasStatus_t s, const Origin& o, const char* call);
void check_solver(cusolverStatus_t s, const Origin& o, const char* call);

/// "cublasDgemm", "cusolverDnZpotrf_bufferSize": built only when reporting an error.
template <typename T> std::string routine(const char* library, const char* name) {
  return std::string(library) + static_cast<char>(precision_letter<T>() - 'a' + 'A') + name;
}

template <typename T> void check_blas(cublasStatus_t s, const Origin& o, const char* name) {
  if (s != CUBLAS_STATUS_SUCCESS) check_blas(s, o, routine<T>("cublas", name).c_str());
}

template <typename T> void check_solver(cusolverStatus_t s, const Origin& o, const char* name) {
  if (s != CUSOLVER_STATUS_SUCCESS) check_solver(s, o, routine<T>("cusolverDn", name).c_str());
}

}  // namespace hetla::dev::cuda_errors
