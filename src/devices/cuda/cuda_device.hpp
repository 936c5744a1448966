// NVIDIA GPUs through cuBLAS / cuSOLVER: one Device per GPU. Each worker
// (management thread) owns a "lane": a CUDA stream with a cuBLAS and a
// cuSOLVER handle bound to it, double-buffered pinned staging memory for
// host <-> device copies, and the potrf workspace. Threads that are not the
// device's workers (host workers fetching a Modified tile, the caller's
// flush) use a separate auxiliary lane. Every call synchronizes its stream
// before returning, as the runtime expects data and results to be ready.
// Device memory comes from cudaMalloc through an exact-size cache (tiles have
// few sizes, and cudaFree synchronizes the whole GPU), within an optional
// capacity limit; allocate() returns nullptr when full so the runtime evicts.
// This header has no CUDA types, so it compiles without the toolkit.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "devices/device.hpp"
#include "devices/spec.hpp"

namespace hetla::dev {

struct CudaConfig {
  /// Cap on the device memory held for tiles (live plus cached), in bytes;
  /// 0 = no cap beyond what cudaMalloc can get.
  std::size_t memory = 0;
  /// Management threads (each with its own stream and handles), 1 to 16.
  int workers = 1;
};

class CudaDevice final : public Device {
 public:
  /// Opens GPU `ordinal` (as numbered by the CUDA runtime, after
  /// CUDA_VISIBLE_DEVICES). Throws std::invalid_argument for a bad ordinal or
  /// config and std::runtime_error when the GPU cannot be initialised.
  CudaDevice(int ordinal, CudaConfig cfg = {});
  ~CudaDevice() override;

  int ordinal() const { return ordinal_; }
  std::string model() const override { return model_; }  // e.g. "NVIDIA H100 80GB HBM3"
  const CudaConfig& config() const { return cfg_; }

  int num_workers() const override { return cfg_.workers; }
  /// Every kernel; laswp only when our own CUDA kernels were built (nvcc
  /// present: cuda_kernels.cu), else the runtime keeps LU's interchanges on
  /// the host (laswp_t then goes through host memory for a direct call).
  bool has_kernel(KernelId k) const override;
  bool herk_as_gemm() const override { return true; }
  void attach_worker(int local_index) override;
  double nominal_speed() const override { return nominal_speed_; }
  double bandwidth_hint() const override { return bandwidth_; }

  void* allocate(std::size_t bytes) override;
  void deallocate(void* p, std::size_t bytes) override;
  void copy_in(void* dev, const void* host, int64_t host_ld, int64_t rows, int64_t cols, std::size_t elem) override;
  void copy_out(void* host, int64_t host_ld, const void* dev, int64_t rows, int64_t cols, std::size_t elem) override;
  /// The capacity limit if one is set, else the GPU's total memory.
  std::size_t memory_capacity() const override;
  /// Bytes handed out by allocate() and not yet deallocated.
  std::size_t memory_used() const override;
  /// Bytes held in the allocation cache (freed tiles kept for reuse).
  std::size_t memory_cached() const;
  /// Returns every cached block to CUDA.
  void release_cached();

  HETLA_DEVICE_KERNEL_OVERRIDES

 private:
  struct State;  // CUDA objects (lanes, allocation cache)

  template <typename T>
  void gemm_t(Op ta, Op tb, int64_t m, int64_t n, int64_t k, T alpha, const T* A, int64_t lda, const T* B,
              int64_t ldb, T beta, T* C, int64_t ldc);
  template <typename T>
  void herk_t(Uplo uplo, Op trans, int64_t n, int64_t k, real_t<T> alpha, const T* A, int64_t lda,
              real_t<T> beta, T* C, int64_t ldc);
  template <typename T>
  void trsm_t(Side side, Uplo uplo, Op op, Diag diag, int64_t m, int64_t n, T alpha, const T* A, int64_t lda,
              T* B, int64_t ldb);
  template <typename T> int64_t potrf_t(Uplo uplo, int64_t n, T* A, int64_t lda);
  template <typename T>
  void trmm_t(Side side, Uplo uplo, Op op, Diag diag, int64_t m, int64_t n, T alpha, const T* A, int64_t lda,
              T* B, int64_t ldb);
  template <typename T>
  void laswp_t(int64_t cols, int64_t ntiles, T* const* tiles, const int64_t* mb, const int64_t* ld, int64_t npairs,
               const int64_t* rows);

  int ordinal_;
  CudaConfig cfg_;
  std::string model_;
  std::size_t total_memory_ = 0;
  double nominal_speed_ = 20.0;
  double bandwidth_ = 20e9;
  uint64_t serial_ = 0;  // distinguishes this device from any earlier one at the same address
  std::unique_ptr<State> s_;
};

/// Opens the CUDA device(s) named by `which` ("0", "1", … or "all").
/// Throws std::invalid_argument if there is no such device (e.g. no GPU or
/// no driver: "cuda: no CUDA device found (cudaGetDeviceCount: …)").
std::vector<std::shared_ptr<Device>> make_cuda_devices(const std::string& which, const CudaConfig& cfg = {});
/// GPUs visible to CUDA, for `hetla info` (empty when no GPU or driver).
std::vector<DeviceInfo> probe_cuda_devices();
/// The number of CUDA devices this process sees; throws std::invalid_argument
/// (with the driver's reason) when there are none.
int visible_cuda_device_count();

}  // namespace hetla::dev
