// Host CPU cores as a device: memory space = host memory, kernels = the host
// BLAS/LAPACK run single-threaded by each worker.
#pragma once
#include <algorithm>
#include <utility>
#include <vector>

#include "devices/device.hpp"
#include "devices/laswp_plan.hpp"
#include "kernels/host/blas.hpp"
#include "kernels/host/lapack_qr.hpp"
#include "kernels/host/trsm_recursive.hpp"

namespace hetla::dev {

/// The host kernel implementations, shared by every device that computes
/// with the host BLAS (the host itself, emulated accelerators).
struct HostKernelImpl {
  template <typename T>
  static void gemm(Op ta, Op tb, int64_t m, int64_t n, int64_t k, T alpha, const T* A, int64_t lda, const T* B,
                   int64_t ldb, T beta, T* C, int64_t ldc) {
    blas::gemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  }
  template <typename T>
  static void herk(Uplo uplo, Op trans, int64_t n, int64_t k, real_t<T> alpha, const T* A, int64_t lda,
                   real_t<T> beta, T* C, int64_t ldc) {
    blas::herk(uplo, trans, n, k, alpha, A, lda, beta, C, ldc);
  }
  template <typename T>
  static void trsm(Side side, Uplo uplo, Op op, Diag diag, int64_t m, int64_t n, T alpha, const T* A,
                   int64_t lda, T* B, int64_t ldb) {
    blas::trsm_recursive(side, uplo, op, diag, m, n, alpha, A, lda, B, ldb);
  }
  template <typename T> static int64_t potrf(Uplo uplo, int64_t n, T* A, int64_t lda) {
    return blas::potrf(uplo, n, A, lda);
  }
  template <typename T>
  static void trmm(Side side, Uplo uplo, Op op, Diag diag, int64_t m, int64_t n, T alpha, const T* A, int64_t lda,
                   T* B, int64_t ldb) {
    blas::trmm(side, uplo, op, diag, m, n, alpha, A, lda, B, ldb);
  }
  /// A few columns at a time, every interchange in order: the rows touched
  /// stay within those columns' cache footprint and the columns' independent
  /// accesses overlap their memory latency (the CPU counterpart of seed 000's
  /// coalesced laswp).
  template <typename T>
  static void laswp(int64_t cols, int64_t ntiles, T* const* tiles, const int64_t* mb, const int64_t* ld,
                    int64_t npairs, const int64_t* rows) {
    const TileRows at_rows(ntiles, mb);
    struct Row {
      T* p;
      int64_t ld;
    };
    auto locate = [&](int64_t r) {
      const int64_t t = at_rows.tile(r);
      return Row{tiles[t] + at_rows.in_tile(r, t), ld[t]};
    };
    struct Pair {
      T *r, *p;
      int64_t ldr, ldp;
    };
    std::vector<Pair> pairs(static_cast<std::size_t>(npairs));
    for (int64_t s = 0; s < npairs; ++s) {
      const Row a = locate(rows[2 * s]), b = locate(rows[2 * s + 1]);
      pairs[static_cast<std::size_t>(s)] = {a.p, b.p, a.ld, b.ld};
    }
    constexpr int64_t kCols = 4;
    int64_t c = 0;
    for (; c + kCols <= cols; c += kCols)
      for (const Pair& q : pairs)
        for (int64_t cc = c; cc < c + kCols; ++cc) std::swap(q.r[cc * q.ldr], q.p[cc * q.ldp]);
    for (; c < cols; ++c)
      for (const Pair& q : pairs) std::swap(q.r[c * q.ldr], q.p[c * q.ldp]);
  }
};

class HostDevice final : public Device {
 public:
  explicit HostDevice(int workers) : Device(Kind::Host, "cpu"), workers_(workers) {}
  int num_workers() const override { return workers_; }
  HETLA_DEVICE_KERNEL_OVERRIDES

 private:
  template <typename T, typename... A> void gemm_t(A... a) { HostKernelImpl::gemm<T>(a...); }
  template <typename T, typename... A> void herk_t(A... a) { HostKernelImpl::herk<T>(a...); }
  template <typename T, typename... A> void trsm_t(A... a) { HostKernelImpl::trsm<T>(a...); }
  template <typename T, typename... A> int64_t potrf_t(A... a) { return HostKernelImpl::potrf<T>(a...); }
  template <typename T, typename... A> void trmm_t(A... a) { HostKernelImpl::trmm<T>(a...); }
  template <typename T, typename... A> void laswp_t(A... a) { HostKernelImpl::laswp<T>(a...); }
  int workers_;
};

}  // namespace hetla::dev
