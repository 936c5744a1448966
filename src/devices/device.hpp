// A compute device: a memory space plus a kernel table. Host cores are the
// device whose memory space is the host; accelerators (emulated, OpenCL,
// CUDA) own separate memory and need explicit copies, which the runtime's
// coherence layer issues. Algorithms never see a device: tile tasks call the
// kernel table of whichever device the runtime placed them on.
#pragma once
#include <complex>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "devices/fault.hpp"
#include "hetla/types.hpp"
#include "util/precision.hpp"

namespace hetla::dev {

enum class Kind { Host, Emulated, OpenCL, Cuda };
const char* kind_name(Kind k);

/// Kernels every device implements for one precision (column-major tiles in
/// the device's own memory, leading dimensions in elements).
template <typename T> class Kernels {
 public:
  virtual ~Kernels() = default;
  virtual void gemm(Op ta, Op tb, int64_t m, int64_t n, int64_t k, T alpha, const T* A, int64_t lda,
                    const T* B, int64_t ldb, T beta, T* C, int64_t ldc) = 0;
  virtual void herk(Uplo uplo, Op trans, int64_t n, int64_t k, real_t<T> alpha, const T* A, int64_t lda,
                    real_t<T> beta, T* C, int64_t ldc) = 0;
  virtual void trsm(Side side, Uplo uplo, Op op, Diag diag, int64_t m, int64_t n, T alpha, const T* A,
                    int64_t lda, T* B, int64_t ldb) = 0;
  /// LAPACK potrf on one tile; returns info. Only devices with
  /// `has_potrf()` are given it (others leave it to the host).
  virtual int64_t potrf(Uplo uplo, int64_t n, T* A, int64_t lda) = 0;
  /// B = alpha op(A) B (Left) or alpha B op(A) (Right), A triangular, in place
  /// (the block-reflector updates of QR).
  virtual void trmm(Side side, Uplo uplo, Op op, Diag diag, int64_t m, int64_t n, T alpha, const T* A, int64_t lda,
                    T* B, int64_t ldb) = 0;
  /// Row interchanges on a column of tiles (LU's laswp): the tiles lie one
  /// below the other, tile t holding mb[t] rows at tiles[t] (leading dimension
  /// ld[t]), all `cols` wide (the tiles may differ in height: hybrid tilings);
  /// pair s swaps rows rows[2s] and rows[2s+1] (counted from the column's
  /// top), pairs applied in order.
  virtual void laswp(int64_t cols, int64_t ntiles, T* const* tiles, const int64_t* mb, const int64_t* ld,
                     int64_t npairs, const int64_t* rows) = 0;
};

/// Kernel identities, for capability weights and placement.
enum class KernelId : uint8_t { None = 0, Gemm, Herk, Trsm, Potrf, Trmm, Laswp, Count };
const char* kernel_name(KernelId k);
/// Default rate of kernel k relative to GEMM on the same device, until
/// calibration measures it (laswp moves data: its tasks carry no flops).
double default_relative_rate(KernelId k);

class Device;

/// A device failed an operation (a kernel, a copy, an allocation): the
/// runtime removes the device and recovers the call elsewhere (docs/
/// reliability.md). Any other exception from a task is the call's error.
/// `memory_lost`: the device's memory can no longer be read, so tiles whose
/// only valid copy was there are gone; otherwise the failed operation wrote
/// nothing and the device's memory can still be copied back.
class DeviceError : public std::runtime_error {
 public:
  DeviceError(const Device& d, const std::string& what, bool memory_lost = false)
      : std::runtime_error(what), device_(&d), memory_lost_(memory_lost) {}
  const Device* device() const { return device_; }
  bool memory_lost() const { return memory_lost_; }

 private:
  const Device* device_;
  bool memory_lost_;
};

class Device : public Kernels<float>,
               public Kernels<double>,
               public Kernels<std::complex<float>>,
               public Kernels<std::complex<double>> {
 public:
  Device(Kind kind, std::string name) : kind_(kind), name_(std::move(name)) {}
  virtual ~Device() = default;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  Kind kind() const { return kind_; }
  const std::string& name() const { return name_; }
  int id() const { return id_; }
  void set_id(int id) { id_ = id; }
  bool is_host() const { return kind_ == Kind::Host; }

  /// Threads the runtime runs for this device (host: cores; accelerator: its
  /// management threads, one per compute queue).
  virtual int num_workers() const = 0;
  /// Called once on each of the device's worker threads before it runs tasks.
  virtual void attach_worker(int local_index) { (void)local_index; }
  virtual bool has_kernel(KernelId k) const { return k != KernelId::None; }
  /// Whether the device computes in double precision (an OpenCL device may
  /// lack cl_khr_fp64): tasks on double / complex<double> data must not be
  /// placed on a device without it (rt::kFp64).
  virtual bool has_fp64() const { return true; }
  bool can_run(KernelId k, bool fp64) const { return has_kernel(k) && (!fp64 || has_fp64()); }
  /// Whether the rank-k update of a diagonal tile whose other triangle is
  /// scratch (rt::Handle::triangle) runs as one GEMM over the whole tile:
  /// accelerators run GEMM far better than small SYRK/HERK kernels, and the
  /// extra half tile costs less than the slow kernel (seed 000 §5.3).
  virtual bool herk_as_gemm() const { return false; }
  /// The hardware this device is (e.g. the OpenCL or CUDA device name), for
  /// keys that must survive re-enumeration (capability weights); the index
  /// name ("opencl0") for devices without one.
  virtual std::string model() const { return name_; }
  /// Nominal speed relative to one host core, until calibration measures it.
  virtual double nominal_speed() const { return 1.0; }
  /// Host <-> device copy bandwidth estimate in bytes/s (for placement costs).
  virtual double bandwidth_hint() const { return 10e9; }
  /// Whether its copies are computed by the calling thread on the host's
  /// cores (memcpy: an emulated device), not by a DMA engine the thread only
  /// waits for: the runtime's copy threads for it then yield the cores to
  /// the workers (runtime.cc).
  virtual bool copies_on_host_cores() const { return false; }

  // ---- memory (accelerators only; the host device never allocates) ----
  /// Returns nullptr when the device memory is full (the caller evicts).
  virtual void* allocate(std::size_t bytes) { (void)bytes; return nullptr; }
  virtual void deallocate(void* p, std::size_t bytes) { (void)p; (void)bytes; }
  /// rows x cols elements of `elem` bytes: host (leading dim host_ld) -> device (contiguous, ld = rows).
  virtual void copy_in(void* dev, const void* host, int64_t host_ld, int64_t rows, int64_t cols, std::size_t elem) {
    (void)dev, (void)host, (void)host_ld, (void)rows, (void)cols, (void)elem;
  }
  virtual void copy_out(void* host, int64_t host_ld, const void* dev, int64_t rows, int64_t cols, std::size_t elem) {
    (void)dev, (void)host, (void)host_ld, (void)rows, (void)cols, (void)elem;
  }
  virtual std::size_t memory_capacity() const { return 0; }
  virtual std::size_t memory_used() const { return 0; }

  template <typename T> Kernels<T>& kernels() { return *this; }

  /// Fault injection for tests (devices/fault.hpp): set once, before the
  /// device runs anything (the device list's fail=... keys).
  void set_fault_plan(const FaultPlan& plan) { faults_.arm(plan); }
  const FaultInjector& faults() const { return faults_; }
  /// Operations while paused neither count toward nor fire an injected fault.
  void pause_faults(bool on) { faults_.pause(on); }

 protected:
  /// Every device calls this at each kernel, copy and allocation: throws the
  /// DeviceError the fault plan asks for there; nothing when none is set.
  void inject_fault(FaultOp op) {
    if (faults_.armed()) faults_.check(*this, op);
  }

 private:
  Kind kind_;
  std::string name_;
  int id_ = 0;
  FaultInjector faults_;
};

}  // namespace hetla::dev

// Devices implement the kernels as member templates gemm_t<T>, herk_t<T>,
// trsm_t<T>, potrf_t<T>, trmm_t<T>, laswp_t<T>; this macro writes the virtual
// overrides for the four precisions once.
#define HETLA_DEVICE_KERNEL_OVERRIDES_FOR(T)                                                              \
  void gemm(Op ta, Op tb, int64_t m, int64_t n, int64_t k, T alpha, const T* A, int64_t lda, const T* B,  \
            int64_t ldb, T beta, T* C, int64_t ldc) override {                                            \
    gemm_t<T>(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);                                      \
  }                                                                                                       \
  void herk(Uplo uplo, Op trans, int64_t n, int64_t k, real_t<T> alpha, const T* A, int64_t lda,          \
            real_t<T> beta, T* C, int64_t ldc) override {                                                 \
    herk_t<T>(uplo, trans, n, k, alpha, A, lda, beta, C, ldc);                                            \
  }                                                                                                       \
  void trsm(Side side, Uplo uplo, Op op, Diag diag, int64_t m, int64_t n, T alpha, const T* A, int64_t lda, \
            T* B, int64_t ldb) override {                                                                 \
    trsm_t<T>(side, uplo, op, diag, m, n, alpha, A, lda, B, ldb);                                         \
  }                                                                                                       \
  int64_t potrf(Uplo uplo, int64_t n, T* A, int64_t lda) override { return potrf_t<T>(uplo, n, A, lda); }       \
  void trmm(Side side, Uplo uplo, Op op, Diag diag, int64_t m, int64_t n, T alpha, const T* A, int64_t lda,  \
            T* B, int64_t ldb) override {                                                                 \
    trmm_t<T>(side, uplo, op, diag, m, n, alpha, A, lda, B, ldb);                                         \
  }                                                                                                       \
  void laswp(int64_t cols, int64_t ntiles, T* const* tiles, const int64_t* mb, const int64_t* ld,         \
             int64_t npairs, const int64_t* rows) override {                                              \
    laswp_t<T>(cols, ntiles, tiles, mb, ld, npairs, rows);                                                \
  }

#define HETLA_DEVICE_KERNEL_OVERRIDES HETLA_FOR_EACH_PRECISION(HETLA_DEVICE_KERNEL_OVERRIDES_FOR)
