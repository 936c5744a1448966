// Tile task of Cholesky's panel: the factorization of a diagonal tile.
#pragma once
#include <cmath>
#include <cstdint>

#include "tasks/tile.hpp"

namespace hetla::tile {

namespace detail {
/// A factor's info after a successful potrf: the first non-finite diagonal
/// entry (1-based) is reported like a non-positive pivot (the host LAPACK
/// may not check for NaN), else 0.
template <typename T> int64_t nonfinite_pivot(int64_t n, const T* a, int64_t lda) {
  for (int64_t d = 0; d < n; ++d)
    if (!std::isfinite(std::real(a[d + d * lda]))) return d + 1;
  return 0;
}
}  // namespace detail

/// Cholesky of a diagonal tile; on failure records info = offset + local info
/// (a non-finite diagonal counts, detail::nonfinite_pivot).
template <typename T> void potrf(rt::Runtime& rt, Uplo uplo, Ref<T> A, int64_t offset, Opts o) {
  const int64_t n = A.t.mb;
  rt.insert(
      [=](rt::TaskContext& c) {
        if (o.skipped()) return;
        T* a = c.ptr<T>(0);
        const int64_t lda = c.ld(0);
        int64_t info = c.kernels<T>().potrf(uplo, n, a, lda);
        if (info == 0) info = detail::nonfinite_pivot(n, a, lda);
        if (info > 0 && o.status) o.status->fail(o.step, offset + info);
      },
      {rt::RW(A.h)},
      {o.priority, "potrf", rt::kHostOnly | fp64_flag<T>(), dev::KernelId::Potrf, flop_scale<T>() * n * n * n / 3.0});
}

}  // namespace hetla::tile
