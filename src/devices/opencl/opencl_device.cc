// OpenCL device: context, command queues, cl_mem tiles and CLBlast kernels.
#include "devices/opencl/opencl_device.hpp"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>

#include "devices/host/host_device.hpp"
#include "devices/kernel_build.hpp"
#include "devices/laswp_plan.hpp"
#include "devices/opencl/opencl_internal.hpp"
#include "devices/opencl/opencl_raii.hpp"

namespace hetla::dev {

using namespace ocl;

namespace {

// CLBlast caches compiled programs per context; the cached programs keep
// their context alive. The cache is cleared when the last device closes, so
// closing every device releases every context.
struct LiveDevices {
  std::mutex mutex;
  int count = 0;
};
LiveDevices& live_devices() {
  static auto* live = new LiveDevices;  // never destroyed: devices may close during static destruction
  return *live;
}

std::atomic<uint64_t> g_device_serials{1};

// The command queue a worker thread was attached to (attach_worker).
struct AttachedQueue {
  uint64_t device_serial = 0;
  std::size_t queue = 0;
};
thread_local AttachedQueue t_attached;

template <typename T> clblast::Transpose cl_trans(Op op) {
  if (op == Op::NoTrans) return clblast::Transpose::kNo;
  return op == Op::ConjTrans && is_complex_v<T> ? clblast::Transpose::kConjugate : clblast::Transpose::kYes;
}
clblast::Side cl_side(Side s) { return s == Side::Left ? clblast::Side::kLeft : clblast::Side::kRight; }
clblast::Diagonal cl_diag(Diag d) { return d == Diag::Unit ? clblast::Diagonal::kUnit : clblast::Diagonal::kNonUnit; }

/// A call's transposes, sides, triangles as text (kernel build keys).
template <typename... E> std::string call_flags(E... e) { return {static_cast<char>(e)...}; }

class OpenCLDevice final : public Device {
 public:
  OpenCLDevice(int index, cl_platform_id platform, cl_device_id device, std::size_t memory_limit, int workers);
  ~OpenCLDevice() override;

  int num_workers() const override { return static_cast<int>(worker_queues_.size()); }
  void attach_worker(int local_index) override;
  // laswp: CLBlast has no row interchange; our own kernels (kLaswpSource)
  // move the rows of the tiles, separate cl_mem buffers, through a staging
  // block. potrf: CLBlast has none; it stays on the host.
  bool has_kernel(KernelId k) const override {
    return k == KernelId::Gemm || k == KernelId::Herk || k == KernelId::Trsm || k == KernelId::Trmm ||
           k == KernelId::Laswp;
  }
  bool has_fp64() const override { return fp64_; }
  bool herk_as_gemm() const override { return true; }
  std::string model() const override { return device_name_; }
  double nominal_speed() const override { return speed_; }
  double bandwidth_hint() const override { return bandwidth_; }

  void* allocate(std::size_t bytes) override;
  void deallocate(void* p, std::size_t bytes) override;
  void copy_in(void* dev, const void* host, int64_t host_ld, int64_t rows, int64_t cols, std::size_t elem) override;
  void copy_out(void* host, int64_t host_ld, const void* dev, int64_t rows, int64_t cols, std::size_t elem) override;
  std::size_t memory_capacity() const override { return capacity_; }
  std::size_t memory_used() const override { return used_.load(); }

  HETLA_DEVICE_KERNEL_OVERRIDES

 private:
  struct Queue {
    std::mutex mutex;  // a queue is used by one thread at a time
    QueuePtr queue;
    cl_mem gemm_temp = nullptr;  // scratch for CLBlast's indirect gemm, kept between calls
    std::size_t gemm_temp_bytes = 0;
    cl_kernel laswp[3][2] = {};  // [4, 8, 16-byte words][gather, scatter], made on first use
    Queue() = default;
    Queue(const Queue&) = delete;
    Queue& operator=(const Queue&) = delete;
    ~Queue() {
      if (queue) clFinish(queue.get());
      if (gemm_temp) clReleaseMemObject(gemm_temp);
      for (auto& w : laswp)
        for (cl_kernel k : w)
          if (k) clReleaseKernel(k);
    }
  };

  std::string who() const { return name() + " (" + device_name_ + ")"; }
  // A DeviceError: the runtime removes the device and recovers the call
  // (docs/reliability.md). Its memory counts as lost: a kernel that failed
  // may have written part of a tile, so only copies elsewhere are trusted.
  [[noreturn]] void fail_cl(const std::string& what, cl_int err) const {
    throw DeviceError(*this, who() + ": " + what + " failed: " + cl_error_name(err) + " (" + std::to_string(err) + ")",
                      /*memory_lost=*/true);
  }
  /// The calling thread's queue: its own if it is one of this device's
  /// workers, otherwise the queue shared by all other threads.
  Queue& caller_queue() {
    if (t_attached.device_serial == serial_) return *worker_queues_[t_attached.queue];
    return shared_queue_;
  }
  /// rows x cols elements between a device buffer (leading dimension dev_ld)
  /// and host memory (host_ld); blocking.
  void transfer(bool to_device, cl_mem buf, int64_t dev_ld, void* host, int64_t host_ld, int64_t rows, int64_t cols,
                std::size_t elem);
  /// Open while a call may build device code: until a call with this key
  /// (routine, precision, flags) has once completed on this device. CLBlast
  /// builds a routine's program for a precision on its first call in a
  /// context (POCL: from source the first time on a machine, ~5-10 s per
  /// program on 2 cores; from its cache, ~40 ms, after), and POCL compiles a
  /// kernel's variant for a work-group size on its first launch. Test
  /// watchdogs and benchmarks leave that time out (devices/kernel_build.hpp).
  void open_build_scope(const std::string& key, std::optional<KernelBuildScope>& scope) {
    std::lock_guard<std::mutex> lk(built_mutex_);
    if (!built_.count(key)) scope.emplace();
  }
  void mark_built(const std::string& key) {
    std::lock_guard<std::mutex> lk(built_mutex_);
    built_.insert(key);
  }
  /// Runs one CLBlast call on the caller's queue and waits for it; `flags`
  /// tell the call's kernels apart (transposes, sides, triangles).
  template <typename T, typename F> void run(const char* routine, std::string flags, F&& call) {
    Queue& q = caller_queue();
    std::lock_guard<std::mutex> lk(q.mutex);
    if constexpr (!is_complex_v<T>) std::replace(flags.begin(), flags.end(), 'C', 'T');  // the same kernels
    const std::string key = std::string(routine) + precision_letter<T>() + flags;
    std::optional<KernelBuildScope> building;
    open_build_scope(key, building);
    cl_command_queue cq = q.queue.get();
    const clblast::StatusCode s = call(&cq, q);
    const cl_int fin = clFinish(cq);  // also after a failure: nothing may still use the buffers
    if (s != clblast::StatusCode::kSuccess)
      throw DeviceError(*this,
                        who() + ": CLBlast " + routine + " failed: code " + std::to_string(static_cast<int>(s)) + " (" +
                            status_name(s) + ")",
                        /*memory_lost=*/true);
    if (fin != CL_SUCCESS) fail_cl(std::string("clFinish after CLBlast ") + routine, fin);
    if (building) mark_built(key);
  }
  template <typename T> void require(const char* routine) const {
    if constexpr (std::is_same_v<real_t<T>, double>)
      if (!fp64_)
        throw std::runtime_error(who() + ": " + precision_letter<T>() + routine +
                                 " needs double precision (cl_khr_fp64), which this device does not support");
  }
  void require_dims(const char* routine, std::initializer_list<int64_t> dims) const {
    for (int64_t d : dims)
      if (d < 0) throw std::invalid_argument(who() + ": " + routine + ": negative dimension " + std::to_string(d));
  }
  /// C(rows x cols, ldc) = beta C on the host (BLAS quick paths that never
  /// read A or B): the General matrix, or the `uplo` triangle of a Hermitian
  /// one whose diagonal becomes real (as BLAS herk leaves it).
  template <typename T> void scale_on_host(T* C, int64_t n_rows, int64_t n_cols, int64_t ldc, T beta, Uplo part) {
    std::vector<T> h(static_cast<std::size_t>(n_rows * n_cols));
    transfer(false, buffer(C), ldc, h.data(), n_rows, n_rows, n_cols, sizeof(T));
    for (int64_t j = 0; j < n_cols; ++j) {
      const int64_t i0 = part == Uplo::Lower ? j : 0;
      const int64_t i1 = part == Uplo::Upper ? std::min(j + 1, n_rows) : n_rows;
      for (int64_t i = i0; i < i1; ++i) {
        T& c = h[static_cast<std::size_t>(i + j * n_rows)];
        c = beta == T(0) ? T(0) : beta * c;
        if (part != Uplo::General && i == j) c = T(std::real(c));
      }
    }
    transfer(true, buffer(C), ldc, h.data(), n_rows, n_rows, n_cols, sizeof(T));
  }

  template <typename T>
  void gemm_t(Op ta, Op tb, int64_t m, int64_t n, int64_t k, T alpha, const T* A, int64_t lda, const T* B, int64_t ldb,
              T beta, T* C, int64_t ldc) {
    require<T>("gemm");
    inject_fault(FaultOp::Kernel);  // fault injection (fail=kernel@K, devices/fault.hpp)
    require_dims("gemm", {m, n, k});
    if (m == 0 || n == 0 || ((k == 0 || alpha == T(0)) && beta == T(1))) return;
    if (k == 0 || alpha == T(0)) return scale_on_host(C, m, n, ldc, beta, Uplo::General);
    const auto um = static_cast<std::size_t>(m), un = static_cast<std::size_t>(n), uk = static_cast<std::size_t>(k);
    const auto ua = static_cast<std::size_t>(lda), ub = static_cast<std::size_t>(ldb),
               uc = static_cast<std::size_t>(ldc);
    run<T>("Gemm", call_flags(ta, tb), [&](cl_command_queue* q, Queue& qs) {
      // The indirect kernel pads/transposes into scratch memory; a scratch
      // buffer kept per queue saves CLBlast an allocation per call.
      std::size_t temp = 0;
      auto s = clblast::GemmTempBufferSize<T>(clblast::Layout::kColMajor, cl_trans<T>(ta), cl_trans<T>(tb), um, un, uk,
                                              0, ua, 0, ub, 0, uc, q, temp);
      if (s != clblast::StatusCode::kSuccess) return s;
      if (temp > qs.gemm_temp_bytes) {
        if (qs.gemm_temp) clReleaseMemObject(qs.gemm_temp);
        qs.gemm_temp = nullptr;
        qs.gemm_temp_bytes = 0;
        cl_int err = CL_SUCCESS;
        cl_mem t = clCreateBuffer(context_.get(), CL_MEM_READ_WRITE, temp, nullptr, &err);
        if (err != CL_SUCCESS || !t) return clblast::StatusCode::kTempBufferAllocFailure;
        qs.gemm_temp = t;
        qs.gemm_temp_bytes = temp;
      }
      return clblast::Gemm<T>(clblast::Layout::kColMajor, cl_trans<T>(ta), cl_trans<T>(tb), um, un, uk, alpha,
                              buffer(A), 0, ua, buffer(B), 0, ub, beta, buffer(C), 0, uc, q, nullptr,
                              temp > 0 ? qs.gemm_temp : nullptr);
    });
  }

  template <typename T>
  void herk_t(Uplo uplo, Op trans, int64_t n, int64_t k, real_t<T> alpha, const T* A, int64_t lda, real_t<T> beta, T* C,
              int64_t ldc) {
    require<T>("herk");
    inject_fault(FaultOp::Kernel);
    require_dims("herk", {n, k});
    if (uplo == Uplo::General) throw std::invalid_argument(who() + ": herk: uplo must be Lower or Upper");
    if (n == 0 || ((k == 0 || alpha == 0) && beta == 1)) return;
    if (k == 0 || alpha == 0) return scale_on_host(C, n, n, ldc, T(beta), uplo);
    const auto tri = uplo == Uplo::Lower ? clblast::Triangle::kLower : clblast::Triangle::kUpper;
    const auto un = static_cast<std::size_t>(n), uk = static_cast<std::size_t>(k);
    run<T>(is_complex_v<T> ? "Herk" : "Syrk", call_flags(uplo, trans), [&](cl_command_queue* q, Queue&) {
      if constexpr (is_complex_v<T>) {
        const auto t = trans == Op::NoTrans ? clblast::Transpose::kNo : clblast::Transpose::kConjugate;
        return clblast::Herk<real_t<T>>(clblast::Layout::kColMajor, tri, t, un, uk, alpha, buffer(A), 0,
                                        static_cast<std::size_t>(lda), beta, buffer(C), 0,
                                        static_cast<std::size_t>(ldc), q);
      } else {
        const auto t = trans == Op::NoTrans ? clblast::Transpose::kNo : clblast::Transpose::kYes;
        return clblast::Syrk<T>(clblast::Layout::kColMajor, tri, t, un, uk, alpha, buffer(A), 0,
                                static_cast<std::size_t>(lda), beta, buffer(C), 0, static_cast<std::size_t>(ldc), q);
      }
    });
  }

  template <typename T>
  void trsm_t(Side side, Uplo uplo, Op op, Diag diag, int64_t m, int64_t n, T alpha, const T* A, int64_t lda, T* B,
              int64_t ldb) {
    require<T>("trsm");
    inject_fault(FaultOp::Kernel);
    require_dims("trsm", {m, n});
    if (uplo == Uplo::General) throw std::invalid_argument(who() + ": trsm: uplo must be Lower or Upper");
    if (m == 0 || n == 0) return;
    if (alpha == T(0)) return scale_on_host(B, m, n, ldb, T(0), Uplo::General);
    const auto tri = uplo == Uplo::Lower ? clblast::Triangle::kLower : clblast::Triangle::kUpper;
    run<T>("Trsm", call_flags(side, uplo, op, diag), [&](cl_command_queue* q, Queue&) {
      return clblast::Trsm<T>(clblast::Layout::kColMajor, cl_side(side), tri, cl_trans<T>(op), cl_diag(diag),
                              static_cast<std::size_t>(m), static_cast<std::size_t>(n), alpha, buffer(A), 0,
                              static_cast<std::size_t>(lda), buffer(B), 0, static_cast<std::size_t>(ldb), q);
    });
  }

  template <typename T>
  void trmm_t(Side side, Uplo uplo, Op op, Diag diag, int64_t m, int64_t n, T alpha, const T* A, int64_t lda, T* B,
              int64_t ldb) {
    require<T>("trmm");
    inject_fault(FaultOp::Kernel);
    require_dims("trmm", {m, n});
    if (uplo == Uplo::General) throw std::invalid_argument(who() + ": trmm: uplo must be Lower or Upper");
    if (m == 0 || n == 0) return;
    if (alpha == T(0)) return scale_on_host(B, m, n, ldb, T(0), Uplo::General);
    const auto tri = uplo == Uplo::Lower ? clblast::Triangle::kLower : clblast::Triangle::kUpper;
    run<T>("Trmm", call_flags(side, uplo, op, diag), [&](cl_command_queue* q, Queue&) {
      return clblast::Trmm<T>(clblast::Layout::kColMajor, cl_side(side), tri, cl_trans<T>(op), cl_diag(diag),
                              static_cast<std::size_t>(m), static_cast<std::size_t>(n), alpha, buffer(A), 0,
                              static_cast<std::size_t>(lda), buffer(B), 0, static_cast<std::size_t>(ldb), q);
    });
  }

  /// The interchanges as a permutation (plan_laswp): the rows that move are
  /// gathered into a staging buffer, then scattered to their places, one
  /// kernel launch per tile and sweep, on the caller's queue.
  template <typename T>
  void laswp_t(int64_t cols, int64_t ntiles, T* const* tiles, const int64_t* mb, const int64_t* ld, int64_t npairs,
               const int64_t* rows) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16);
    require<T>("laswp");
    inject_fault(FaultOp::Kernel);
    require_dims("laswp", {cols, ntiles, npairs});
    if (cols == 0 || npairs == 0) return;
    const LaswpPlan plan = plan_laswp(ntiles, mb, npairs, rows);
    if (plan.slots == 0) return;
    std::vector<cl_int> moves;  // every part's (row, slot) pairs, gathers first
    for (const auto* parts : {&plan.gather, &plan.scatter})
      for (const auto& part : *parts) moves.insert(moves.end(), part.moves.begin(), part.moves.end());
    const std::size_t word = sizeof(T) == 4 ? 0 : sizeof(T) == 8 ? 1 : 2;

    Queue& q = caller_queue();
    std::lock_guard<std::mutex> lk(q.mutex);
    const std::string key = "laswp" + std::to_string(word);
    std::optional<KernelBuildScope> building;
    open_build_scope(key, building);
    cl_kernel* k = laswp_kernels(q, word);
    cl_int err = CL_SUCCESS;
    MemPtr stage(clCreateBuffer(context_.get(), CL_MEM_READ_WRITE,
                                static_cast<std::size_t>(plan.slots * cols) * sizeof(T), nullptr, &err));
    if (err != CL_SUCCESS) fail_cl("laswp staging buffer", err);
    MemPtr index(clCreateBuffer(context_.get(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, moves.size() * sizeof(cl_int),
                                moves.data(), &err));
    if (err != CL_SUCCESS) fail_cl("laswp index buffer", err);
    const cl_int sld = static_cast<cl_int>(plan.slots);
    const cl_mem stage_mem = stage.get(), moves_mem = index.get();
    cl_int first = 0;  // the part's first pair in `moves`
    auto sweep = [&](cl_kernel kernel, const std::vector<LaswpPlan::Part>& parts) {
      for (const auto& part : parts) {
        const cl_mem tile = buffer(tiles[part.tile]);
        const cl_int tld = static_cast<cl_int>(ld[part.tile]), count = static_cast<cl_int>(part.count());
        if ((err = clSetKernelArg(kernel, 0, sizeof(cl_mem), &tile)) != CL_SUCCESS ||
            (err = clSetKernelArg(kernel, 1, sizeof(cl_int), &tld)) != CL_SUCCESS ||
            (err = clSetKernelArg(kernel, 2, sizeof(cl_mem), &stage_mem)) != CL_SUCCESS ||
            (err = clSetKernelArg(kernel, 3, sizeof(cl_int), &sld)) != CL_SUCCESS ||
            (err = clSetKernelArg(kernel, 4, sizeof(cl_mem), &moves_mem)) != CL_SUCCESS ||
            (err = clSetKernelArg(kernel, 5, sizeof(cl_int), &first)) != CL_SUCCESS ||
            (err = clSetKernelArg(kernel, 6, sizeof(cl_int), &count)) != CL_SUCCESS)
          fail_cl("laswp kernel arguments", err);
        first += count;
        const std::size_t global[2] = {static_cast<std::size_t>(count), static_cast<std::size_t>(cols)};
        if ((err = clEnqueueNDRangeKernel(q.queue.get(), kernel, 2, nullptr, global, nullptr, 0, nullptr, nullptr)) !=
            CL_SUCCESS)
          fail_cl("laswp kernel launch", err);
      }
    };
    sweep(k[0], plan.gather);
    sweep(k[1], plan.scatter);  // in-order queue: every gather has finished
    if ((err = clFinish(q.queue.get())) != CL_SUCCESS) fail_cl("clFinish after laswp", err);
    if (building) mark_built(key);
  }

  /// The laswp kernels of queue q for words of 4 << word bytes ({gather,
  /// scatter}); the program is built once per device. q.mutex held.
  cl_kernel* laswp_kernels(Queue& q, std::size_t word) {
    std::call_once(laswp_built_, [&] { build_laswp_program(); });
    if (!laswp_program_) throw std::runtime_error(who() + ": laswp kernels: " + laswp_error_);
    cl_kernel* k = q.laswp[word];
    if (!k[0]) {
      static const char* const names[3][2] = {{"laswp_gather_uint", "laswp_scatter_uint"},
                                              {"laswp_gather_uint2", "laswp_scatter_uint2"},
                                              {"laswp_gather_uint4", "laswp_scatter_uint4"}};
      for (int s = 0; s < 2; ++s) {
        cl_int err = CL_SUCCESS;
        k[s] = clCreateKernel(laswp_program_, names[word][s], &err);
        if (err != CL_SUCCESS) fail_cl(std::string("clCreateKernel ") + names[word][s], err);
      }
    }
    return k;
  }

  void build_laswp_program() {
    cl_int err = CL_SUCCESS;
    const char* source = kLaswpSource;
    cl_program p = clCreateProgramWithSource(context_.get(), 1, &source, nullptr, &err);
    if (err != CL_SUCCESS) {
      laswp_error_ = std::string("clCreateProgramWithSource: ") + cl_error_name(err);
      return;
    }
    if ((err = clBuildProgram(p, 1, &device_, "", nullptr, nullptr)) != CL_SUCCESS) {
      std::size_t n = 0;
      clGetProgramBuildInfo(p, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
      std::string log(n, '\0');
      clGetProgramBuildInfo(p, device_, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
      laswp_error_ = std::string("clBuildProgram: ") + cl_error_name(err) + ": " + log;
      clReleaseProgram(p);
      return;
    }
    laswp_program_ = p;
  }

  /// CLBlast has no Cholesky: the tile goes through host memory and LAPACK.
  /// (has_kernel(Potrf) is false, so the runtime never places potrf here;
  /// this keeps a direct call correct.)
  template <typename T> int64_t potrf_t(Uplo uplo, int64_t n, T* A, int64_t lda) {
    require<T>("potrf");
    inject_fault(FaultOp::Kernel);
    require_dims("potrf", {n});
    if (n == 0) return 0;
    std::vector<T> h(static_cast<std::size_t>(n * n));
    transfer(false, buffer(A), lda, h.data(), n, n, n, sizeof(T));
    const int64_t info = HostKernelImpl::potrf<T>(uplo, n, h.data(), n);
    transfer(true, buffer(A), lda, h.data(), n, n, n, sizeof(T));
    return info;
  }

  const uint64_t serial_;
  cl_device_id device_;
  std::string device_name_;
  bool fp64_ = false;
  std::size_t capacity_ = 0;
  std::size_t max_buffer_ = 0;
  double speed_ = 1.0;
  double bandwidth_ = 10e9;
  std::atomic<std::size_t> used_{0};
  ContextPtr context_;
  std::vector<std::unique_ptr<Queue>> worker_queues_;
  Queue shared_queue_;
  std::mutex built_mutex_;
  std::set<std::string> built_;  // open_build_scope keys of the calls that completed once
  std::once_flag laswp_built_;
  cl_program laswp_program_ = nullptr;  // released after the queues' kernels
  std::string laswp_error_;
};

OpenCLDevice::OpenCLDevice(int index, cl_platform_id platform, cl_device_id device, std::size_t memory_limit,
                           int workers)
    : Device(Kind::OpenCL, "opencl" + std::to_string(index)), serial_(g_device_serials.fetch_add(1)), device_(device) {
  device_name_ = device_string(device, CL_DEVICE_NAME);
  if (device_name_.empty()) device_name_ = "unnamed device";
  fp64_ = device_has_fp64(device);
  const auto global = static_cast<std::size_t>(device_value<cl_ulong>(device, CL_DEVICE_GLOBAL_MEM_SIZE, 0));
  max_buffer_ = static_cast<std::size_t>(device_value<cl_ulong>(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, 0));
  capacity_ = memory_limit > 0 && (global == 0 || memory_limit < global) ? memory_limit : global;
  if (capacity_ == 0) throw std::runtime_error(who() + ": the device reports no global memory");

  // Relative to one host core, until calibration measures it. An OpenCL CPU
  // device (e.g. POCL) shares the host's cores and runs CLBlast's untuned
  // kernels far below the host BLAS (measured with POCL 3.1 on 2 cores:
  // dgemm 1.6-7 GFLOP/s against 20-44 GFLOP/s for one OpenBLAS core), so
  // 0.05 per compute unit; GPUs and other accelerators are assumed to be
  // several cores' worth.
  const auto type = device_value<cl_device_type>(device, CL_DEVICE_TYPE, CL_DEVICE_TYPE_DEFAULT);
  const auto units = device_value<cl_uint>(device, CL_DEVICE_MAX_COMPUTE_UNITS, 1);
  const bool unified = device_value<cl_bool>(device, CL_DEVICE_HOST_UNIFIED_MEMORY, CL_FALSE) == CL_TRUE;
  speed_ = (type & CL_DEVICE_TYPE_CPU) ? std::clamp(0.05 * units, 0.05, 1.0) : 8.0;
  bandwidth_ = unified ? 20e9 : 10e9;

  cl_int err = CL_SUCCESS;
  const cl_context_properties props[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(platform), 0};
  context_.reset(clCreateContext(props, 1, &device, nullptr, nullptr, &err));
  if (err != CL_SUCCESS || !context_) fail_cl("clCreateContext", err);
  auto make_queue = [&] {
    cl_int e = CL_SUCCESS;
    QueuePtr q(clCreateCommandQueue(context_.get(), device, 0, &e));
    if (e != CL_SUCCESS || !q) fail_cl("clCreateCommandQueue", e);
    return q;
  };
  for (int w = 0; w < std::max(1, workers); ++w) {
    worker_queues_.push_back(std::make_unique<Queue>());
    worker_queues_.back()->queue = make_queue();
  }
  shared_queue_.queue = make_queue();
  std::lock_guard<std::mutex> lk(live_devices().mutex);
  ++live_devices().count;
}

OpenCLDevice::~OpenCLDevice() {
  worker_queues_.clear();  // each queue is finished, then released
  shared_queue_.queue.reset();
  for (auto& w : shared_queue_.laswp)
    for (cl_kernel& k : w)
      if (k) clReleaseKernel(k), k = nullptr;
  if (laswp_program_) clReleaseProgram(laswp_program_);
  context_.reset();
  auto& live = live_devices();
  std::lock_guard<std::mutex> lk(live.mutex);
  if (--live.count == 0) clblast::ClearCache();
}

void OpenCLDevice::attach_worker(int local_index) {
  if (local_index < 0 || local_index >= num_workers())
    throw std::out_of_range(who() + ": no worker " + std::to_string(local_index));
  t_attached = {serial_, static_cast<std::size_t>(local_index)};
}

void* OpenCLDevice::allocate(std::size_t bytes) {
  inject_fault(FaultOp::Alloc);
  if (max_buffer_ > 0 && bytes > max_buffer_)
    throw std::runtime_error(who() + ": a tile of " + std::to_string(bytes) +
                             " bytes exceeds the device's largest buffer (" + std::to_string(max_buffer_) +
                             " bytes); use smaller tiles");
  std::size_t used = used_.load();
  do {
    if (used + bytes > capacity_) return nullptr;
  } while (!used_.compare_exchange_weak(used, used + bytes));
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(context_.get(), CL_MEM_READ_WRITE, std::max<std::size_t>(bytes, 1), nullptr, &err);
  if (err == CL_SUCCESS && m) return m;
  used_ -= bytes;
  if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY)
    return nullptr;  // full after all: the runtime evicts and retries
  fail_cl("clCreateBuffer(" + std::to_string(bytes) + " bytes)", err);
}

void OpenCLDevice::deallocate(void* p, std::size_t bytes) {
  if (!p) return;
  clReleaseMemObject(buffer(p));
  used_ -= bytes;
}

void OpenCLDevice::transfer(bool to_device, cl_mem buf, int64_t dev_ld, void* host, int64_t host_ld, int64_t rows,
                            int64_t cols, std::size_t elem) {
  if (rows < 0 || cols < 0) throw std::invalid_argument(who() + ": copy: negative dimension");
  if (rows == 0 || cols == 0) return;
  if (host_ld < rows || dev_ld < rows)
    throw std::invalid_argument(who() + ": copy: leading dimension smaller than the number of rows");
  Queue& q = caller_queue();
  std::lock_guard<std::mutex> lk(q.mutex);
  cl_int err;
  const auto ur = static_cast<std::size_t>(rows), uc = static_cast<std::size_t>(cols);
  if (host_ld == rows && dev_ld == rows) {
    err = to_device ? clEnqueueWriteBuffer(q.queue.get(), buf, CL_TRUE, 0, ur * uc * elem, host, 0, nullptr, nullptr)
                    : clEnqueueReadBuffer(q.queue.get(), buf, CL_TRUE, 0, ur * uc * elem, host, 0, nullptr, nullptr);
  } else {
    const std::size_t origin[3] = {0, 0, 0};
    const std::size_t region[3] = {ur * elem, uc, 1};
    const std::size_t dev_pitch = static_cast<std::size_t>(dev_ld) * elem;
    const std::size_t host_pitch = static_cast<std::size_t>(host_ld) * elem;
    err = to_device ? clEnqueueWriteBufferRect(q.queue.get(), buf, CL_TRUE, origin, origin, region, dev_pitch, 0,
                                               host_pitch, 0, host, 0, nullptr, nullptr)
                    : clEnqueueReadBufferRect(q.queue.get(), buf, CL_TRUE, origin, origin, region, dev_pitch, 0,
                                              host_pitch, 0, host, 0, nullptr, nullptr);
  }
  if (err != CL_SUCCESS) fail_cl(to_device ? "copy to device" : "copy from device", err);
}

void OpenCLDevice::copy_in(void* dev, const void* host, int64_t host_ld, int64_t rows, int64_t cols, std::size_t elem) {
  inject_fault(FaultOp::Copy);
  transfer(true, buffer(dev), rows, const_cast<void*>(host), host_ld, rows, cols, elem);
}

void OpenCLDevice::copy_out(void* host, int64_t host_ld, const void* dev, int64_t rows, int64_t cols,
                            std::size_t elem) {
  inject_fault(FaultOp::Copy);
  transfer(false, buffer(dev), rows, host, host_ld, rows, cols, elem);
}

}  // namespace

std::shared_ptr<Device> ocl::open_opencl_device(int index, cl_platform_id platform, cl_device_id device,
                                                std::size_t memory_limit, int workers) {
  return std::make_shared<OpenCLDevice>(index, platform, device, memory_limit, workers);
}

}  // namespace hetla::dev
