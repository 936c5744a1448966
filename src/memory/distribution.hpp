// Tile -> owning device maps (seed 000 HGDD, seed 004 block cyclic) for
// owner-computes scheduling. The owners are the devices that compute: the
// host cores (when listed) and every accelerator.
#pragma once
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "hetla/context.hpp"
#include "hetla/matrix.hpp"
#include "hetla/types.hpp"
#include "context/context.hpp"
#include "runtime/runtime.hpp"

namespace hetla::detail {

/// Owner device of every tile column / grid cell for `dist` on rt's devices.
struct TileOwners {
  Distribution dist = Distribution::Default;
  std::vector<int> devices;  // computing devices
  std::vector<int> column_pattern;  // Weighted: owners of columns 0, 1, ..., repeated
  int p = 1, q = 1;                 // TwoD grid
  /// A simulated cluster (Runtime::nodes): tile (i, j) belongs to node
  /// rt::block_cyclic_rank(i, j, np, nq) (as on an MPI grid), and inside it to
  /// the device the fields above give for the node's local tile (i / np,
  /// j / nq); they name node 0's devices, node k's are node_stride * k further.
  int np = 1, nq = 1, node_stride = 0;
  int owner(int64_t i, int64_t j) const;
  /// The owner inside one node (or of the single node).
  int local_owner(int64_t i, int64_t j) const;
};

/// What a routine tells the weighted distribution about its work, so that
/// each device's *time*, not its column count, follows its capability weight.
struct Workload {
  /// Share of the time that owner-computes keeps on the host cores whoever
  /// owns the columns (the panels; see panel_share): the host gets that much
  /// less of the columns, so that its panels plus its columns take as long as
  /// every other device's columns.
  double host_pinned = 0;
  /// Relative work of tile column j over the whole routine (e.g. LU: the
  /// tiles its updates touch); empty: every column alike.
  std::function<double(int64_t j)> column_work;
};

/// Share of a routine's time spent in panels, which stay on the host: panel
/// flops are `panel_flops` x nb / n of the total (Cholesky's TRSMs 1.5, LU's
/// and QR's panels 0.75) and run `slowdown` times slower than GEMM (measured
/// per core here: QR panel 21 vs GEMM 43 GFLOP/s: 2; LU panel 34: 1.3; TRSM
/// 36: 1.25).
double panel_share(int64_t n, int64_t nb, double panel_flops, double slowdown);

/// The panels of a factorization as panel_share counts them.
struct PanelCost {
  double flops, slowdown;
};
inline PanelCost panel_cost(Panels p) {
  switch (p) {
    case Panels::LU: return {0.75, 1.3};
    case Panels::QR: return {0.75, 2.0};
    case Panels::Cholesky: break;
  }
  return {1.5, 1.25};
}

/// The workload of a right-looking factorization of A with panels on the
/// host (LU, QR), tile column j receiving one update of the tiles below row k
/// per panel k < j.
template <typename T> Workload panel_workload(const Matrix<T>& A, Panels panels) {
  const int64_t mt = A.mt(), kt = std::min(A.mt(), A.nt());
  const PanelCost c = panel_cost(panels);
  return {panel_share(std::min(A.m(), A.n()), A.nb(), c.flops, c.slowdown), [mt, kt](int64_t j) {
            const int64_t k = std::min(j, kt);  // panels 0 .. k-1 update column j
            return static_cast<double>(k * mt - k * (k - 1) / 2);
          }};
}

/// Per-device shares of the distributed work (summing to 1) from the
/// runtime's capability weights (GEMM rate x workers), less `host_pinned` for
/// the host (devices[0] == 0) as in Workload.
std::vector<double> capability_weights(const rt::Runtime& rt, const std::vector<int>& devices,
                                       double host_pinned = 0);
/// Owners of `work.size()` columns, column c costing work[c]: device k gets a
/// weights[k] / sum share of the work of every prefix, to within one column,
/// interleaved (smooth weighted round robin, generalized to unequal columns).
/// Integer weights over as many equal columns as their sum give device k
/// exactly weights[k] columns (10:8:5 -> 10, 8 and 5 of 23).
std::vector<int> weighted_round(const std::vector<double>& weights, const std::vector<double>& work);

/// Columns of the weighted pattern repeated along a matrix whose columns
/// cost alike: long enough to follow the weights to within 1/64.
inline constexpr int kWeightedRound = 64;

TileOwners make_owners(const rt::Runtime& rt, Distribution dist, int64_t nt = 0, const Workload& load = {});

/// The two-level hybrid tiling of seed 004 (§3.1, 3.4, 3.6) for an order-n
/// problem on rt's devices. Each round (about n / 6 columns, so that every
/// device has columns all along the matrix) holds host tiles of size `small`
/// spread in front of one tile per accelerator; the widths follow the
/// capability weights, the host's less its panel share (as in Workload:
/// `panel_flops` and `slowdown` as in panel_share, at the pattern's own
/// width-weighted tile size). Accelerator tiles are multiples of 16; a host
/// whose share of a round is under half a small tile gets one narrower tile.
/// No accelerator: uniform host tiles; no host cores computing (or panels
/// taking all their time): accelerator tiles only.
Tiling hybrid_tiling(const rt::Runtime& rt, int64_t n, int64_t small, double panel_flops, double slowdown);

/// The distribution a call runs with: `dist`, or the context's for Default.
inline Distribution effective(Distribution dist) { return dist == Distribution::Default ? default_distribution() : dist; }

/// Tiling of the column-major operands of a routine: hybrid when the call's
/// distribution is (planned for n columns, the routine's panels as in
/// panel_share; Cholesky's by default), else uniform nb tiles.
inline Tiling call_tiling(const rt::Runtime& rt, Distribution dist, int64_t n, int64_t nb,
                          Panels panels = Panels::Cholesky) {
  const PanelCost c = panel_cost(panels);
  if (effective(dist) == Distribution::Hybrid) return hybrid_tiling(rt, n, nb, c.flops, c.slowdown);
  return Tiling{{nb}, {}};
}

/// Owners of the tile columns of a hybrid tiling; throws std::invalid_argument
/// for a matrix without one, or one made for more devices than rt has.
template <typename T> std::vector<int> hybrid_owners(const rt::Runtime& rt, const Matrix<T>& A) {
  if (A.tiling().owners.empty())
    throw std::invalid_argument(
        "the hybrid distribution needs a matrix cut by a hybrid tiling (hetla::hybrid_tiling); the factorizations, "
        "their solvers and trsm take one");
  std::vector<int> owners;
  for (int64_t j = 0; j < A.nt(); ++j) {
    const int d = A.tile_owner(j);
    if (d >= rt.num_devices())
      throw std::invalid_argument("hybrid tiling names device " + std::to_string(d) + " but the context has " +
                                  std::to_string(rt.num_devices()) + " devices: make the tiling for this context");
    owners.push_back(d);
  }
  return owners;
}

/// Sets the home device of each tile of A (no-op unless rt schedules
/// statically or `dist` is given explicitly). A context-wide Hybrid default
/// falls back to Weighted for matrices without a hybrid tiling (routines that
/// take uniform tiles only); asked for in a call, it needs one.
template <typename T>
void distribute(const rt::Runtime& rt, const Matrix<T>& A, Distribution dist, const Workload& load = {}) {
  const bool asked = dist != Distribution::Default;
  dist = effective(dist);
  if (dist == Distribution::Hybrid && (asked || !A.tiling().owners.empty())) {
    if (rt.nodes() > 1)
      throw std::invalid_argument("hybrid tiles on a simulated cluster are not supported yet: use 1d, 2d or weighted");
    const std::vector<int> owners = hybrid_owners(rt, A);
    for (int64_t j = 0; j < A.nt(); ++j)
      for (int64_t i = 0; i < A.mt(); ++i) A.handle(i, j)->home = owners[static_cast<std::size_t>(j)];
    return;
  }
  if (dist == Distribution::Hybrid) dist = Distribution::Weighted;
  if (dist == Distribution::Default && rt.schedule() != rt::Schedule::Static) {
    for (int64_t j = 0; j < A.nt(); ++j)
      for (int64_t i = 0; i < A.mt(); ++i) A.handle(i, j)->home = -1;
    return;
  }
  TileOwners o = make_owners(rt, dist == Distribution::Default ? Distribution::Weighted : dist, A.nt(), load);
  for (int64_t j = 0; j < A.nt(); ++j)
    for (int64_t i = 0; i < A.mt(); ++i) A.handle(i, j)->home = o.owner(i, j);
}

}  // namespace hetla::detail
