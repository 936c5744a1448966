// Tile kernels as tasks: each call inserts one task with its data accesses.
// Algorithms (linalg/) are written only in terms of these, never a device.
// Today the body runs the host kernel (CBLAS/LAPACKE, one BLAS thread); the
// device layer adds per-device kernel tables behind the same calls.
#pragma once
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>

#include "hetla/matrix.hpp"
#include "kernels/host/blas.hpp"
#include "kernels/host/trsm_recursive.hpp"
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
  bool skipped() const { return status && status->skips(step); }
};

/// Cholesky of a diagonal tile; on failure records info = offset + local info.
/// A non-finite diagonal after the factorization is reported like a
/// non-positive pivot (the host LAPACK may not check for NaN).
template <typename T> void potrf(rt::Runtime& rt, Uplo uplo, Ref<T> A, int64_t offset, Opts o) {
  rt.insert(
      [=](rt::TaskContext&) {
        if (o.skipped()) return;
        Tile<T> a = A.t;
        int64_t info = blas::potrf(uplo, a.mb, a.data, a.ld);
        if (info == 0)
          for (int64_t d = 0; d < a.mb; ++d)
            if (!std::isfinite(std::real(a(d, d)))) {
              info = d + 1;
              break;
            }
        if (info > 0 && o.status) o.status->fail(o.step, offset + info);
      },
      {rt::RW(A.h)}, {o.priority, "potrf", rt::kHostOnly});
}

/// B = alpha op(A)^-1 B (Left) or alpha B op(A)^-1 (Right), A triangular.
template <typename T>
void trsm(rt::Runtime& rt, Side side, Uplo uplo, Op op, Diag diag, T alpha, Ref<T> A, Ref<T> B, Opts o) {
  rt.insert(
      [=](rt::TaskContext&) {
        if (o.skipped()) return;
        blas::trsm_recursive(side, uplo, op, diag, B.t.mb, B.t.nb, alpha, A.t.data, A.t.ld, B.t.data, B.t.ld);
      },
      {rt::R(A.h), rt::RW(B.h)}, {o.priority, "trsm"});
}

/// C = alpha op(A) op(A)^H + beta C on the `uplo` triangle (syrk for real T).
template <typename T>
void herk(rt::Runtime& rt, Uplo uplo, Op op, real_t<T> alpha, Ref<T> A, real_t<T> beta, Ref<T> C, Opts o) {
  rt.insert(
      [=](rt::TaskContext&) {
        if (o.skipped()) return;
        int64_t k = op == Op::NoTrans ? A.t.nb : A.t.mb;
        blas::herk(uplo, op, C.t.mb, k, alpha, A.t.data, A.t.ld, beta, C.t.data, C.t.ld);
      },
      {rt::R(A.h), rt::RW(C.h)}, {o.priority, "herk"});
}

/// C = alpha op(A) op(B) + beta C.
template <typename T>
void gemm(rt::Runtime& rt, Op opa, Op opb, T alpha, Ref<T> A, Ref<T> B, T beta, Ref<T> C, Opts o) {
  rt.insert(
      [=](rt::TaskContext&) {
        if (o.skipped()) return;
        int64_t k = opa == Op::NoTrans ? A.t.nb : A.t.mb;
        blas::gemm(opa, opb, C.t.mb, C.t.nb, k, alpha, A.t.data, A.t.ld, B.t.data, B.t.ld, beta, C.t.data,
                   C.t.ld);
      },
      {rt::R(A.h), rt::R(B.h), rt::RW(C.h)}, {o.priority, "gemm"});
}

}  // namespace hetla::tile
