// Tile task of Cholesky's panel: the factorization of a diagonal tile.
#pragma once
#include <cmath>
#include <cstdint>

#include "tasks/tile.hpp"

namespace hetla::tile {

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

}  // namespace hetla::tile
