// Tile tasks for matrix polynomials and functions: the O(n^2) linear
// combinations between the products (memory-bound, so they stay on the host
// cores; the products themselves go through hetla::gemm).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "tasks/tile.hpp"

namespace hetla::tile {

/// Out = beta Out + sum_k coef[k] In[k] + (diag ? alpha I : 0) on one tile;
/// `diag` marks a tile on the diagonal of a square matrix. beta == 0 means Out
/// is not read (written only). `coef` is shared by all tiles of the call.
template <typename T>
void lincomb(rt::Runtime& rt, T beta, Ref<T> out, const std::vector<Ref<T>>& in,
             std::shared_ptr<const std::vector<T>> coef, bool diag, T alpha, Opts o) {
  const int64_t mb = out.t.mb, nb = out.t.nb;
  const std::size_t nin = in.size();
  std::vector<rt::Access> acc;
  acc.reserve(nin + 1);
  for (const auto& r : in) acc.push_back(rt::R(r.h));
  acc.push_back(beta == T(0) ? rt::W(out.h) : rt::RW(out.h));
  rt.insert(
      [=](rt::TaskContext& c) {
        T* y = c.ptr<T>(static_cast<int>(nin));
        const int64_t ldy = c.ld(static_cast<int>(nin));
        for (int64_t j = 0; j < nb; ++j) {
          T* yj = y + j * ldy;
          if (beta == T(0)) std::fill_n(yj, mb, T(0));
          else if (beta != T(1))
            for (int64_t i = 0; i < mb; ++i) yj[i] *= beta;
          for (std::size_t k = 0; k < nin; ++k) {
            const T a = (*coef)[k];
            if (a == T(0)) continue;
            const T* x = c.ptr<T>(static_cast<int>(k)) + j * c.ld(static_cast<int>(k));
            for (int64_t i = 0; i < mb; ++i) yj[i] += a * x[i];
          }
          if (diag && j < mb) yj[j] += alpha;
        }
      },
      acc.data(), acc.size(), {o.priority, "lincomb", rt::kMemoryBound});
}

/// A += alpha I on a diagonal tile.
template <typename T> void add_diag(rt::Runtime& rt, T alpha, Ref<T> A, Opts o) {
  const int64_t n = std::min(A.t.mb, A.t.nb);
  rt.insert(
      [=](rt::TaskContext& c) {
        T* a = c.ptr<T>(0);
        const int64_t lda = c.ld(0);
        for (int64_t d = 0; d < n; ++d) a[d + d * lda] += alpha;
      },
      {rt::RW(A.h)}, {o.priority, "add_diag", rt::kMemoryBound});
}

}  // namespace hetla::tile
