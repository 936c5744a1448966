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
    case KernelId::Count: break;
  }
  return "?";
}

}  // namespace hetla::dev
