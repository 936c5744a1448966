// Tile tasks used only by the level-3 BLAS routines (linalg/gemm.cc,
// herk.cc, trsm.cc).
#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>

#include "kernels/tile_tasks.hpp"

namespace hetla::tile {

namespace detail {
// syrk without conjugation (complex symmetric); blas.hpp wraps only herk.
inline void syrk(Uplo u, Op t, int64_t n, int64_t k, float alpha, const float* A, int64_t lda, float beta, float* C,
                 int64_t ldc) {
  blas::herk(u, t, n, k, alpha, A, lda, beta, C, ldc);
}
inline void syrk(Uplo u, Op t, int64_t n, int64_t k, double alpha, const double* A, int64_t lda, double beta, double* C,
                 int64_t ldc) {
  blas::herk(u, t, n, k, alpha, A, lda, beta, C, ldc);
}
inline void syrk(Uplo u, Op t, int64_t n, int64_t k, std::complex<float> alpha, const std::complex<float>* A,
                 int64_t lda, std::complex<float> beta, std::complex<float>* C, int64_t ldc) {
  cblas_csyrk(CblasColMajor, blas::cblas_uplo(u), t == Op::NoTrans ? CblasNoTrans : CblasTrans, n, k, &alpha, A, lda,
              &beta, C, ldc);
}
inline void syrk(Uplo u, Op t, int64_t n, int64_t k, std::complex<double> alpha, const std::complex<double>* A,
                 int64_t lda, std::complex<double> beta, std::complex<double>* C, int64_t ldc) {
  cblas_zsyrk(CblasColMajor, blas::cblas_uplo(u), t == Op::NoTrans ? CblasNoTrans : CblasTrans, n, k, &alpha, A, lda,
              &beta, C, ldc);
}
}  // namespace detail

/// C = beta C on one tile (BLAS: beta == 0 sets C to zero without reading it,
/// so NaN in C does not propagate). `uplo` restricts it to a triangle
/// (General = the whole tile). Host task: scaling is memory bound.
/// real_diag: the diagonal's imaginary part is zeroed too (herk semantics).
template <typename T>
void scale(rt::Runtime& rt, T beta, Ref<T> C, Opts o, Uplo uplo = Uplo::General, bool real_diag = false) {
  const int64_t m = C.t.mb, n = C.t.nb;
  rt.insert(
      [=](rt::TaskContext& c) {
        if (o.skipped()) return;
        T* p = c.ptr<T>(0);
        const int64_t ld = c.ld(0);
        for (int64_t j = 0; j < n; ++j) {
          const int64_t i1 = uplo == Uplo::Lower ? std::min(j, m) : 0;
          const int64_t i2 = uplo == Uplo::Upper ? std::min(j + 1, m) : m;
          T* col = p + j * ld;
          if (beta == T(0))
            for (int64_t i = i1; i < i2; ++i) col[i] = T(0);
          else
            for (int64_t i = i1; i < i2; ++i) col[i] *= beta;
          if constexpr (is_complex_v<T>)
            if (real_diag && j < m) col[j] = T(std::real(col[j]));
        }
      },
      {rt::RW(C.h)}, {o.priority, "scale", rt::kHostOnly | rt::kMemoryBound, dev::KernelId::None, 0.0});
}

/// Steady-clock nanoseconds (task completion stamps).
inline int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
/// Raises `latest` to the current time (the end of the device's last task).
inline void stamp(std::atomic<int64_t>* latest) {
  if (!latest) return;
  const int64_t t = now_ns();
  int64_t cur = latest->load(std::memory_order_relaxed);
  while (cur < t && !latest->compare_exchange_weak(cur, t, std::memory_order_relaxed)) {
  }
}

/// tile::gemm forced onto `device` (-1: placed by the runtime); `done`, when
/// given, records when the task finished.
template <typename T> void gemm_on(rt::Runtime& rt, int device, Op opa, Op opb, T alpha, Ref<T> A, Ref<T> B, T beta,
                                   Ref<T> C, Opts o, std::atomic<int64_t>* done = nullptr) {
  const int64_t m = C.t.mb, n = C.t.nb, k = opa == Op::NoTrans ? A.t.nb : A.t.mb;
  rt.insert(
      [=](rt::TaskContext& c) {
        if (o.skipped()) return;
        c.kernels<T>().gemm(opa, opb, m, n, k, alpha, c.ptr<T>(0), c.ld(0), c.ptr<T>(1), c.ld(1), beta, c.ptr<T>(2),
                            c.ld(2));
        stamp(done);
      },
      {rt::R(A.h), rt::R(B.h), rt::RW(C.h)},
      {o.priority, "gemm", fp64_flag<T>(), dev::KernelId::Gemm, 2.0 * flop_scale<T>() * m * n * static_cast<double>(k),
       device});
}

/// Complex symmetric rank-k update of a diagonal tile (no conjugation; the
/// device kernel tables have only herk): host task on the host BLAS.
template <typename T> void syrk_host(rt::Runtime& rt, Uplo uplo, Op op, T alpha, Ref<T> A, T beta, Ref<T> C, Opts o) {
  const int64_t n = C.t.mb, k = op == Op::NoTrans ? A.t.nb : A.t.mb;
  rt.insert(
      [=](rt::TaskContext& c) {
        if (o.skipped()) return;
        detail::syrk(uplo, op, n, k, alpha, c.ptr<T>(0), c.ld(0), beta, c.ptr<T>(1), c.ld(1));
      },
      {rt::R(A.h), rt::RW(C.h)},
      {o.priority, "syrk", rt::kHostOnly, dev::KernelId::None, flop_scale<T>() * n * n * static_cast<double>(k)});
}

}  // namespace hetla::tile
