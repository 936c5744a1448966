// Names for OpenCL error codes and CLBlast status codes, so that a device
// failure reports what went wrong rather than a bare number.
#include "devices/opencl/opencl_internal.hpp"

namespace hetla::dev::ocl {

const char* cl_error_name(cl_int e) {
  switch (e) {
    case CL_SUCCESS: return "CL_SUCCESS";
    case CL_DEVICE_NOT_FOUND: return "CL_DEVICE_NOT_FOUND";
    case CL_DEVICE_NOT_AVAILABLE: return "CL_DEVICE_NOT_AVAILABLE";
    case CL_COMPILER_NOT_AVAILABLE: return "CL_COMPILER_NOT_AVAILABLE";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
    case CL_BUILD_PROGRAM_FAILURE: return "CL_BUILD_PROGRAM_FAILURE";
    case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
    case CL_INVALID_PLATFORM: return "CL_INVALID_PLATFORM";
    case CL_INVALID_DEVICE: return "CL_INVALID_DEVICE";
    case CL_INVALID_CONTEXT: return "CL_INVALID_CONTEXT";
    case CL_INVALID_COMMAND_QUEUE: return "CL_INVALID_COMMAND_QUEUE";
    case CL_INVALID_MEM_OBJECT: return "CL_INVALID_MEM_OBJECT";
    case CL_INVALID_OPERATION: return "CL_INVALID_OPERATION";
    case CL_INVALID_BUFFER_SIZE: return "CL_INVALID_BUFFER_SIZE";
    case CL_MISALIGNED_SUB_BUFFER_OFFSET: return "CL_MISALIGNED_SUB_BUFFER_OFFSET";
    case CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST: return "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST";
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "unknown OpenCL error";
  }
}

const char* status_name(clblast::StatusCode s) {
  using S = clblast::StatusCode;
  switch (s) {
    case S::kSuccess: return "success";
    case S::kOpenCLCompilerNotAvailable: return "OpenCL compiler not available";
    case S::kTempBufferAllocFailure: return "temporary buffer allocation failed";
    case S::kOpenCLOutOfResources: return "out of resources";
    case S::kOpenCLOutOfHostMemory: return "out of host memory";
    case S::kOpenCLBuildProgramFailure: return "kernel compilation failed";
    case S::kInvalidValue: return "invalid value";
    case S::kInvalidCommandQueue: return "invalid command queue";
    case S::kInvalidMemObject: return "invalid memory object";
    case S::kInvalidBinary: return "invalid binary";
    case S::kInvalidBuildOptions: return "invalid build options";
    case S::kInvalidProgram: return "invalid program";
    case S::kInvalidProgramExecutable: return "invalid program executable";
    case S::kInvalidKernelName: return "invalid kernel name";
    case S::kInvalidKernelDefinition: return "invalid kernel definition";
    case S::kInvalidKernel: return "invalid kernel";
    case S::kInvalidArgIndex: return "invalid argument index";
    case S::kInvalidArgValue: return "invalid argument value";
    case S::kInvalidArgSize: return "invalid argument size";
    case S::kInvalidKernelArgs: return "invalid kernel arguments";
    case S::kInvalidLocalNumDimensions: return "invalid work dimension";
    case S::kInvalidLocalThreadsTotal: return "invalid work-group size";
    case S::kInvalidLocalThreadsDim: return "invalid work-item size";
    case S::kInvalidGlobalOffset: return "invalid global offset";
    case S::kInvalidEventWaitList: return "invalid event wait list";
    case S::kInvalidEvent: return "invalid event";
    case S::kInvalidOperation: return "invalid operation";
    case S::kInvalidBufferSize: return "invalid buffer size";
    case S::kInvalidGlobalWorkSize: return "invalid global work size";
    case S::kNotImplemented: return "not implemented";
    case S::kInvalidMatrixA: return "matrix A is not a valid buffer";
    case S::kInvalidMatrixB: return "matrix B is not a valid buffer";
    case S::kInvalidMatrixC: return "matrix C is not a valid buffer";
    case S::kInvalidVectorX: return "vector x is not a valid buffer";
    case S::kInvalidVectorY: return "vector y is not a valid buffer";
    case S::kInvalidDimension: return "invalid dimension";
    case S::kInvalidLeadDimA: return "leading dimension of A too small";
    case S::kInvalidLeadDimB: return "leading dimension of B too small";
    case S::kInvalidLeadDimC: return "leading dimension of C too small";
    case S::kInvalidIncrementX: return "zero increment of x";
    case S::kInvalidIncrementY: return "zero increment of y";
    case S::kInsufficientMemoryA: return "buffer of A too small";
    case S::kInsufficientMemoryB: return "buffer of B too small";
    case S::kInsufficientMemoryC: return "buffer of C too small";
    case S::kInsufficientMemoryX: return "buffer of x too small";
    case S::kInsufficientMemoryY: return "buffer of y too small";
    case S::kInsufficientMemoryTemp: return "temporary buffer too small";
    case S::kInvalidBatchCount: return "invalid batch count";
    case S::kInvalidOverrideKernel: return "invalid override kernel";
    case S::kMissingOverrideParameter: return "missing override parameter";
    case S::kInvalidLocalMemUsage: return "not enough local memory on the device";
    case S::kNoHalfPrecision: return "no half precision on the device";
    case S::kNoDoublePrecision: return "no double precision on the device";
    case S::kInvalidVectorScalar: return "invalid unit-sized vector";
    case S::kInsufficientMemoryScalar: return "unit-sized vector buffer too small";
    case S::kDatabaseError: return "device not in the CLBlast database";
    case S::kUnknownError: return "unknown error";
    case S::kUnexpectedError: return "unexpected error";
  }
  return "unrecognised status";
}

}  // namespace hetla::dev::ocl
