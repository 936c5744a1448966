// Tile kernels as tasks: each call inserts one task with its data accesses.
// Algorithms (linalg/) are written only in terms of these, never a device:
// the runtime places the task and the body runs that device's kernel.
#pragma once
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>

#include "hetla/matrix.hpp"
#include "devices/device.hpp"
#include "runtime/runtime.hpp"

namespace hetla::tile {

/// A tile of a matrix together with its runtime handle.
template <typename T> struct Ref {
  Tile<T> t;
  rt::Handle* h;
};
template <typename T> Ref<T> ref(const Matrix<T>& A, int64_t i, int64_t j) {
  return {A.tile(i, j), A.handle(i, j)};
}

/// Shared state of one factorization: the LAPACK `info` and the step at which
/// the factorization stopped (tasks of that step or later are skipped, so the
/// leading columns hold the factor exactly as LAPACK leaves them).
struct Status {
  std::atomic<int64_t> info{0};
  std::atomic<int64_t> stop_step{std::numeric_limits<int64_t>::max()};
  bool skips(int64_t step) const { return step >= stop_step.load(std::memory_order_acquire); }
  void fail(int64_t step, int64_t global_info) {
    int64_t s = stop_step.load();
    while (step < s && !stop_step.compare_exchange_weak(s, step)) {}
    int64_t i = info.load();
    while ((i == 0 || global_info < i) && !info.compare_exchange_weak(i, global_info)) {}
  }
};

struct Opts {
  int priority = 0;
  int64_t step = 0;          // algorithm step the task belongs to
  Status* status = nullptr;  // optional: skip once the algorithm stopped
  bool panel = false;        // part of the panel factorization (critical path)
  bool skipped() const { return status && status->skips(step); }
};

/// Flop-count factor of one multiply-add in T relative to real arithmetic.
template <typename T> constexpr double flop_scale() { return is_complex_v<T> ? 4.0 : 1.0; }

// Each body calls the kernel table of the device the task was placed on,
// with the task's data as it lies in that device's memory (ctx.ptr / ctx.ld,
// in the order of the accesses).

/// Cholesky of a diagonal tile; on failure records info = offset + local info.
/// A non-finite diagonal after the factorization is reported like a
/// non-positive pivot (the host LAPACK may not check for NaN).
template <typename T> void potrf(rt::Runtime& rt, Uplo uplo, Ref<T> A, int64_t offset, Opts o) {
  const int64_t n = A.t.mb;
  rt.insert(
      [=](rt::TaskContext& c) {
        if (o.skipped()) return;
        T* a = c.ptr<T>(0);
        const int64_t lda = c.ld(0);
        int64_t info = c.kernels<T>().potrf(uplo, n, a, lda);
        if (info == 0)
          for (int64_t d = 0; d < n; ++d)
            if (!std::isfinite(std::real(a[d + d * lda]))) {
              info = d + 1;
              break;
            }
        if (info > 0 && o.status) o.status->fail(o.step, offset + info);
      },
      {rt::RW(A.h)},
      {o.priority, "potrf", rt::kHostOnly, dev::KernelId::Potrf, flop_scale<T>() * n * n * n / 3.0});
}

/// B = alpha op(A)^-1 B (Left) or alpha B op(A)^-1 (Right), A triangular.
template <typename T>
void trsm(rt::Runtime& rt, Side side, Uplo uplo, Op op, Diag diag, T alpha, Ref<T> A, Ref<T> B, Opts o) {
  const int64_t m = B.t.mb, n = B.t.nb;
  rt.insert(
      [=](rt::TaskContext& c) {
        if (o.skipped()) return;
        c.kernels<T>().trsm(side, uplo, op, diag, m, n, alpha, c.ptr<T>(0), c.ld(0), c.ptr<T>(1), c.ld(1));
      },
      {rt::R(A.h), rt::RW(B.h)},
      {o.priority, "trsm", o.panel ? rt::kPanel : rt::kNoFlags, dev::KernelId::Trsm,
       flop_scale<T>() * m * n * static_cast<double>(side == Side::Left ? m : n)});
}

/// C = alpha op(A) op(A)^H + beta C on the `uplo` triangle (syrk for real T).
template <typename T>
void herk(rt::Runtime& rt, Uplo uplo, Op op, real_t<T> alpha, Ref<T> A, real_t<T> beta, Ref<T> C, Opts o) {
  const int64_t n = C.t.mb, k = op == Op::NoTrans ? A.t.nb : A.t.mb;
  rt.insert(
      [=](rt::TaskContext& c) {
        if (o.skipped()) return;
        c.kernels<T>().herk(uplo, op, n, k, alpha, c.ptr<T>(0), c.ld(0), beta, c.ptr<T>(1), c.ld(1));
      },
      {rt::R(A.h), rt::RW(C.h)},
      {o.priority, "herk", rt::kNoFlags, dev::KernelId::Herk, flop_scale<T>() * n * n * static_cast<double>(k)});
}

/// C = alpha op(A) op(B) + beta C.
template <typename T>
void gemm(rt::Runtime& rt, Op opa, Op opb, T alpha, Ref<T> A, Ref<T> B, T beta, Ref<T> C, Opts o) {
  const int64_t m = C.t.mb, n = C.t.nb, k = opa == Op::NoTrans ? A.t.nb : A.t.mb;
  rt.insert(
      [=](rt::TaskContext& c) {
        if (o.skipped()) return;
        c.kernels<T>().gemm(opa, opb, m, n, k, alpha, c.ptr<T>(0), c.ld(0), c.ptr<T>(1), c.ld(1), beta,
                            c.ptr<T>(2), c.ld(2));
      },
      {rt::R(A.h), rt::R(B.h), rt::RW(C.h)},
      {o.priority, "gemm", rt::kNoFlags, dev::KernelId::Gemm, 2.0 * flop_scale<T>() * m * n * static_cast<double>(k)});
}

}  // namespace hetla::tile
