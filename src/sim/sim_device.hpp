// A simulated accelerator: no memory, no kernels. Allocations are counted
// against the model's capacity (so evictions happen as on the real device)
// and return addresses nobody dereferences; the simulated executor never
// calls its kernels or copies.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

#include "devices/device.hpp"
#include "sim/model.hpp"

namespace hetla::sim {

class SimDevice final : public dev::Device {
 public:
  /// workers > 1: a simulated cluster node's host cores (a device of its own).
  SimDevice(std::string name, const DeviceModel& m, int model_index, int workers = 1)
      : Device(dev::Kind::Emulated, std::move(name)), model_(m), index_(model_index), workers_(workers) {}
  int num_workers() const override { return workers_; }
  bool has_kernel(dev::KernelId k) const override {
    if (k == dev::KernelId::None) return false;
    for (const auto& c : model_.rates.curves[static_cast<std::size_t>(k)])
      if (!c.empty()) return true;
    return false;
  }
  bool has_fp64() const override { return model_.fp64; }
  bool herk_as_gemm() const override { return model_.herk_as_gemm; }
  std::string model() const override { return model_.name; }
  double bandwidth_hint() const override { return model_.link_gbs * 1e9; }
  void* allocate(std::size_t bytes) override {
    if (model_.memory_bytes > 0 && static_cast<double>(used_ + bytes) > model_.memory_bytes) return nullptr;
    used_ += bytes;
    next_ += (bytes + 63) / 64 * 64;  // distinct, never dereferenced
    return reinterpret_cast<void*>(next_);
  }
  void deallocate(void*, std::size_t bytes) override { used_ -= bytes; }
  std::size_t memory_capacity() const override { return static_cast<std::size_t>(model_.memory_bytes); }
  std::size_t memory_used() const override { return used_; }
  const DeviceModel& spec() const { return model_; }
  int model_index() const { return index_; }

  template <typename T> void gemm_t(Op, Op, int64_t, int64_t, int64_t, T, const T*, int64_t, const T*, int64_t, T, T*,
                                    int64_t) { none(); }
  template <typename T> void herk_t(Uplo, Op, int64_t, int64_t, real_t<T>, const T*, int64_t, real_t<T>, T*, int64_t) {
    none();
  }
  template <typename T> void trsm_t(Side, Uplo, Op, Diag, int64_t, int64_t, T, const T*, int64_t, T*, int64_t) { none(); }
  template <typename T> int64_t potrf_t(Uplo, int64_t, T*, int64_t) { none(); }
  template <typename T> void trmm_t(Side, Uplo, Op, Diag, int64_t, int64_t, T, const T*, int64_t, T*, int64_t) { none(); }
  template <typename T> void laswp_t(int64_t, int64_t, T* const*, const int64_t*, const int64_t*, int64_t,
                                     const int64_t*) { none(); }
  HETLA_DEVICE_KERNEL_OVERRIDES

 private:
  [[noreturn]] static void none() { throw std::logic_error("a simulated device runs no kernels"); }
  DeviceModel model_;
  int index_;
  int workers_;
  std::size_t used_ = 0;
  std::uintptr_t next_ = 4096;
};

}  // namespace hetla::sim
