// A test accelerator whose memory is host memory of its own (malloc'd, tiles
// stored with ld == rows, copied in and out explicitly). Derived test devices
// add their kernels (member templates gemm_t<T>, ... as in devices/device.hpp).
#pragma once
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "devices/device.hpp"

namespace hetla::test {

class HostMemoryDevice : public dev::Device {
 public:
  explicit HostMemoryDevice(std::string name) : Device(dev::Kind::Emulated, std::move(name)) {}
  int num_workers() const override { return 1; }
  void* allocate(std::size_t bytes) override { return std::malloc(std::max<std::size_t>(bytes, 1)); }
  void deallocate(void* p, std::size_t) override { std::free(p); }
  void copy_in(void* d, const void* h, int64_t ld, int64_t rows, int64_t cols, std::size_t elem) override {
    for (int64_t j = 0; j < cols; ++j)
      std::memcpy(static_cast<char*>(d) + j * rows * elem, static_cast<const char*>(h) + j * ld * elem, rows * elem);
  }
  void copy_out(void* h, int64_t ld, const void* d, int64_t rows, int64_t cols, std::size_t elem) override {
    for (int64_t j = 0; j < cols; ++j)
      std::memcpy(static_cast<char*>(h) + j * ld * elem, static_cast<const char*>(d) + j * rows * elem, rows * elem);
  }
};

}  // namespace hetla::test
