#include "devices/device.hpp"

namespace hetla::dev {

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::Host: return "cpu";
    case Kind::Emulated: return "emu";
    case Kind::OpenCL: return "opencl";
    case Kind::Cuda: return "cuda";
  }
  return "?";
}

const char* kernel_name(KernelId k) {
  switch (k) {
    case KernelId::None: return "none";
    case KernelId::Gemm: return "gemm";
    case KernelId::Herk: return "herk";
    case KernelId::Trsm: return "trsm";
    case KernelId::Potrf: return "potrf";
    case KernelId::Trmm: return "trmm";
    case KernelId::Laswp: return "laswp";
    case KernelId::Count: break;
  }
  return "?";
}

double default_relative_rate(KernelId k) {
  switch (k) {
    case KernelId::Herk: return 0.8;
    case KernelId::Trsm: return 0.7;
    case KernelId::Potrf: return 0.35;
    case KernelId::Trmm: return 0.7;
    default: return 1.0;  // None (host tasks, costed as GEMM), Gemm, Laswp (no flops)
  }
}

}  // namespace hetla::dev
