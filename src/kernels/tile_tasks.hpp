// Tile kernels as tasks: each call inserts one task with its data accesses.
// Algorithms (linalg/) are written only in terms of these, never a device:
// the runtime places the task and the body runs that device's kernel.
#pragma once
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "hetla/matrix.hpp"
#include "devices/device.hpp"
#include "kernels/host/blas.hpp"
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

namespace detail {
/// Tiles [i1, i2] x [j1, j2] of M as one column-major block (data, ld, rows,
/// cols), when they are laid out as one: each tile below and right of the
/// first at the offsets of a column-major array with the same stride, as in a
/// view of a column-major array (a single tile always is).
template <typename T>
std::optional<Tile<T>> as_block(const Matrix<T>& M, int64_t i1, int64_t i2, int64_t j1, int64_t j2) {
  const Tile<T> first = M.tile(i1, j1);
  Tile<T> block{first.data, first.ld, 0, 0};
  for (int64_t i = i1; i <= i2; ++i) block.mb += M.tile_mb(i);
  for (int64_t j = j1; j <= j2; ++j) block.nb += M.tile_nb(j);
  if (block.ld < block.mb) return std::nullopt;
  for (int64_t j = j1; j <= j2; ++j)
    for (int64_t i = i1; i <= i2; ++i) {
      const Tile<T> t = M.tile(i, j);
      const int64_t di = M.row_offset(i) - M.row_offset(i1), dj = M.col_offset(j) - M.col_offset(j1);
      if (t.ld != block.ld || t.data != first.data + di + dj * block.ld) return std::nullopt;
    }
  return block;
}

}  // namespace detail

/// Flop-count factor of one multiply-add in T relative to real arithmetic.
template <typename T> constexpr double flop_scale() { return is_complex_v<T> ? 4.0 : 1.0; }
/// Placement flag of a task computing in T: double-precision tasks only go to
/// devices with fp64. Every task with a KernelId ORs it into its flags.
template <typename T> constexpr uint32_t fp64_flag() { return std::is_same_v<real_t<T>, double> ? rt::kFp64 : 0u; }

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
      {o.priority, "potrf", rt::kHostOnly | fp64_flag<T>(), dev::KernelId::Potrf, flop_scale<T>() * n * n * n / 3.0});
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
      {o.priority, "trsm", (o.panel ? rt::kPanel : rt::kNoFlags) | fp64_flag<T>(), dev::KernelId::Trsm,
       flop_scale<T>() * m * n * static_cast<double>(side == Side::Left ? m : n)});
}

/// C = alpha op(A) op(A)^H + beta C on the `uplo` triangle (syrk for real T).
/// When C's other triangle is scratch (TriangleScope) a device that prefers
/// it computes the whole tile with one GEMM (Device::herk_as_gemm).
template <typename T>
void herk(rt::Runtime& rt, Uplo uplo, Op op, real_t<T> alpha, Ref<T> A, real_t<T> beta, Ref<T> C, Opts o) {
  const int64_t n = C.t.mb, k = op == Op::NoTrans ? A.t.nb : A.t.mb;
  using Tri = rt::Handle::Triangle;
  const bool scratch = C.h->triangle == (uplo == Uplo::Lower ? Tri::Lower : Tri::Upper);
  rt.insert(
      [=](rt::TaskContext& c) {
        if (o.skipped()) return;
        if (scratch && c.device->herk_as_gemm()) {
          const Op second = op == Op::NoTrans ? Op::ConjTrans : Op::NoTrans;
          c.kernels<T>().gemm(op == Op::NoTrans ? Op::NoTrans : Op::ConjTrans, second, n, n, k, T(alpha),
                              c.ptr<T>(0), c.ld(0), c.ptr<T>(0), c.ld(0), T(beta), c.ptr<T>(1), c.ld(1));
          return;
        }
        c.kernels<T>().herk(uplo, op, n, k, alpha, c.ptr<T>(0), c.ld(0), beta, c.ptr<T>(1), c.ld(1));
      },
      {rt::R(A.h), rt::RW(C.h)},
      {o.priority, "herk", fp64_flag<T>(), dev::KernelId::Herk, flop_scale<T>() * n * n * static_cast<double>(k)});
}

/// Marks the diagonal tiles of A as holding only their `uplo` triangle
/// (rt::Handle::triangle) for a routine's duration: devices may then use the
/// other triangle of their replicas as scratch, and copies back to the host
/// leave the caller's data there alone.
template <typename T> class TriangleScope {
 public:
  TriangleScope(const Matrix<T>& A, Uplo uplo) : A_(A) {
    set(uplo == Uplo::Lower ? rt::Handle::Triangle::Lower : rt::Handle::Triangle::Upper);
  }
  ~TriangleScope() { set(rt::Handle::Triangle::Whole); }
  TriangleScope(const TriangleScope&) = delete;
  TriangleScope& operator=(const TriangleScope&) = delete;

 private:
  void set(rt::Handle::Triangle t) {
    for (int64_t i = 0; i < std::min(A_.mt(), A_.nt()); ++i) A_.handle(i, i)->triangle = t;
  }
  const Matrix<T>& A_;
};

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
      {o.priority, "gemm", fp64_flag<T>(), dev::KernelId::Gemm, 2.0 * flop_scale<T>() * m * n * static_cast<double>(k)});
}

/// Trailing update of one tile column: C(i, j) = alpha A(i, k) op(B) + beta C(i, j)
/// for every tile row i >= i1. When the tiles of both columns form column-major
/// blocks (a view of the user's array) and only the host computes, this is one
/// tall GEMM task: OpenBLAS packs B once for the whole column instead of once
/// per tile, which tile-sized GEMMs cannot do. Otherwise one task per tile.
template <typename T>
void gemm_column(rt::Runtime& rt, Op opb, T alpha, const Matrix<T>& M, int64_t i1, int64_t k, Ref<T> B, T beta,
                 int64_t j, Opts o) {
  const int64_t i2 = M.mt() - 1;
  if (i1 > i2) return;
  std::optional<Tile<T>> a, c;
  // Small tiles keep per-tile tasks: the DAG needs their parallelism (measured
  // at n = 2000, nb = 128: aggregated 0.82x of per-tile).
  if (rt.num_devices() == 1 && i2 > i1 && M.tile_nb(k) >= 256) {
    a = detail::as_block(M, i1, i2, k, k);
    c = detail::as_block(M, i1, i2, j, j);
  }
  if (!a || !c) {
    for (int64_t i = i1; i <= i2; ++i) gemm(rt, Op::NoTrans, opb, alpha, ref(M, i, k), B, beta, ref(M, i, j), o);
    return;
  }
  std::vector<rt::Access> acc;
  acc.reserve(static_cast<std::size_t>(2 * (i2 - i1 + 1) + 1));
  for (int64_t i = i1; i <= i2; ++i) acc.push_back(rt::R(M.handle(i, k)));
  acc.push_back(rt::R(B.h));
  for (int64_t i = i1; i <= i2; ++i) acc.push_back(rt::RW(M.handle(i, j)));
  const Tile<T> A = *a, C = *c, Bt = B.t;
  const int64_t kk = A.nb;
  rt.insert(
      [=](rt::TaskContext&) {  // host memory: the blocks are views of the user's array
        if (o.skipped()) return;
        blas::gemm(Op::NoTrans, opb, C.mb, C.nb, kk, alpha, A.data, A.ld, Bt.data, Bt.ld, beta, C.data, C.ld);
      },
      acc.data(), acc.size(),
      {o.priority, "gemm", rt::kHostOnly, dev::KernelId::None,
       2.0 * flop_scale<T>() * static_cast<double>(C.mb * C.nb * kk)});
}

}  // namespace hetla::tile
