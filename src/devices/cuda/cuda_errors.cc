#include "devices/cuda/cuda_errors.hpp"

#include <stdexcept>

namespace hetla::dev::cuda_errors {

namespace {

const char* cusolver_status_name(cusolverStatus_t s) {
  switch (s) {
    case CUSOLVER_STATUS_SUCCESS: return "CUSOLVER_STATUS_SUCCESS";
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "CUSOLVER_STATUS_NOT_INITIALIZED (library not initialised)";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED (resource allocation failed)";
    case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE (invalid argument)";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "CUSOLVER_STATUS_ARCH_MISMATCH (unsupported GPU architecture)";
    case CUSOLVER_STATUS_MAPPING_ERROR: return "CUSOLVER_STATUS_MAPPING_ERROR";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED (kernel failed to run)";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED: return "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    case CUSOLVER_STATUS_INVALID_WORKSPACE: return "CUSOLVER_STATUS_INVALID_WORKSPACE";
    default: return "cuSOLVER error";
  }
}

}  // namespace

std::string cuda_error_text(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")";
}

[[noreturn]] void fail(const Origin& o, const std::string& what) {
  if (o.device) throw DeviceError(*o.device, o.who + ": " + what, /*memory_lost=*/true);
  throw std::runtime_error(o.who + ": " + what);
}

void check_cuda(cudaError_t e, const Origin& o, const char* call) {
  if (e == cudaSuccess) return;
  (void)cudaGetLastError();  // clear a non-sticky error so later calls start clean
  fail(o, std::string(call) + " failed: " + cuda_error_text(e));
}

void check_blas(cublasStatus_t s, const Origin& o, const char* call) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  fail(o, std::string(call) + " failed: " + cublasGetStatusName(s) + " (" + cublasGetStatusString(s) + ")");
}
void check_solver(cusolverStatus_t s, const Origin& o, const char* call) {
  if (s == CUSOLVER_STATUS_SUCCESS) return;
  fail(o, std::string(call) + " failed: " + cusolver_status_name(s));
}

}  // namespace hetla::dev::cuda_errors
