// Tile -> owning device maps (seed 000 HGDD, seed 004 block cyclic) for
// owner-computes scheduling. The owners are the devices that compute: the
// host cores (when listed) and every accelerator.
#pragma once
#include <vector>

#include "hetla/linalg.hpp"
#include "hetla/matrix.hpp"
#include "runtime/context.hpp"
#include "runtime/runtime.hpp"

namespace hetla::detail {

/// Owner device of every tile column / grid cell for `dist` on rt's devices.
struct TileOwners {
  Distribution dist = Distribution::Default;
  std::vector<int> devices;  // computing devices
  std::vector<int> column_pattern;  // Weighted: one round of owners
  int p = 1, q = 1;                 // TwoD grid
  int owner(int64_t i, int64_t j) const;
};

/// Integer per-device weights from the runtime's capability weights (GEMM
/// rate x workers), scaled so the smallest is about 5.
std::vector<int> capability_weights(const rt::Runtime& rt, const std::vector<int>& devices);
/// One round of a weighted cyclic distribution: device k appears weights[k]
/// times, interleaved (smooth weighted round robin).
std::vector<int> weighted_round(const std::vector<int>& weights);

TileOwners make_owners(const rt::Runtime& rt, Distribution dist);

/// Sets the home device of each tile of A (no-op unless rt schedules
/// statically or `dist` is given explicitly).
template <typename T> void distribute(const rt::Runtime& rt, const Matrix<T>& A, Distribution dist) {
  if (dist == Distribution::Default) dist = default_distribution();
  if (dist == Distribution::Default && rt.schedule() != rt::Schedule::Static) {
    for (int64_t j = 0; j < A.nt(); ++j)
      for (int64_t i = 0; i < A.mt(); ++i) A.handle(i, j)->home = -1;
    return;
  }
  TileOwners o = make_owners(rt, dist == Distribution::Default ? Distribution::Weighted : dist);
  for (int64_t j = 0; j < A.nt(); ++j)
    for (int64_t i = 0; i < A.mt(); ++i) A.handle(i, j)->home = o.owner(i, j);
}

}  // namespace hetla::detail
