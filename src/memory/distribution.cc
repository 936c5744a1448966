#include "memory/distribution.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "runtime/comm.hpp"

namespace hetla::detail {

int TileOwners::owner(int64_t i, int64_t j) const {
  if (np * nq <= 1) return local_owner(i, j);
  const int d = local_owner(i / np, j / nq);
  return d < 0 ? d : d + node_stride * rt::block_cyclic_rank(i, j, np, nq);
}

int TileOwners::local_owner(int64_t i, int64_t j) const {
  if (devices.empty()) return -1;
  switch (dist) {
    case Distribution::OneD: return devices[static_cast<std::size_t>(j % static_cast<int64_t>(devices.size()))];
    case Distribution::TwoD: return devices[static_cast<std::size_t>((i % p) * q + (j % q))];
    case Distribution::Weighted:
      return column_pattern[static_cast<std::size_t>(j % static_cast<int64_t>(column_pattern.size()))];
    case Distribution::Hybrid:  // owners come with the matrix's tiling (distribute)
    case Distribution::Default: break;
  }
  return -1;
}

double panel_share(int64_t n, int64_t nb, double panel_flops, double slowdown) {
  if (n <= 0 || nb <= 0) return 0;
  return std::min(0.5, panel_flops * slowdown * static_cast<double>(std::min(nb, n)) / static_cast<double>(n));
}

std::vector<double> capability_weights(const rt::Runtime& rt, const std::vector<int>& devices, double host_pinned) {
  std::vector<double> w;
  for (int d : devices) {
    int workers = 0;
    for (int k = 0; k < rt.num_workers(); ++k) workers += rt.device_of_worker(k) == d;
    w.push_back(rt.rate(d, dev::KernelId::Gemm) * std::max(1, workers));
  }
  const double total = std::accumulate(w.begin(), w.end(), 0.0);
  for (double& x : w) x /= total;
  // The host takes host_pinned of the time for panels and its column share
  // s_h of the rest: s_h (1 - f) + f = w_h, the others w_d / (1 - f).
  const double f = std::clamp(host_pinned, 0.0, 0.9);
  if (f > 0 && devices.size() > 1 && rt.is_host(devices[0])) {
    w[0] = std::max(0.0, w[0] - f) / (1 - f);
    for (std::size_t k = 1; k < w.size(); ++k) w[k] /= 1 - f;
    const double t = std::accumulate(w.begin(), w.end(), 0.0);
    for (double& x : w) x /= t;
  }
  return w;
}

std::vector<int> weighted_round(const std::vector<double>& weights, const std::vector<double>& work) {
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::vector<double> credit(weights.size(), 0);
  std::vector<int> owners;
  if (weights.empty() || !(total > 0)) return owners;
  for (double c : work) {  // every device earns its share of c; the richest takes the column and pays c
    for (std::size_t k = 0; k < weights.size(); ++k) credit[k] += c * weights[k] / total;
    auto best = static_cast<std::size_t>(std::max_element(credit.begin(), credit.end()) - credit.begin());
    credit[best] -= c;
    owners.push_back(static_cast<int>(best));
  }
  return owners;
}

namespace {
/// Computing devices as make_owners lists them: the host (when it computes)
/// first; on a simulated cluster, node 0's (the others have the same).
std::vector<int> computing_devices(const rt::Runtime& rt) {
  std::vector<int> devices;
  const int per = rt.devices_per_node();
  if (rt.host_computes() || per == 1) devices.push_back(rt.node_device(0, 0));
  for (int i = 1; i < per; ++i) devices.push_back(rt.node_device(0, i));
  return devices;
}
int64_t round16(double x) { return std::max<int64_t>(16, 16 * std::llround(x / 16)); }
}  // namespace

TileOwners make_owners(const rt::Runtime& rt, Distribution dist, int64_t nt, const Workload& load) {
  TileOwners o;
  o.dist = dist;
  o.devices = computing_devices(rt);
  if (rt.nodes() > 1) {  // the node-level distribution of each node's local tiles
    o.np = rt.node_p(), o.nq = rt.node_q(), o.node_stride = rt.devices_per_node();
    nt = (nt + o.nq - 1) / o.nq;
  }
  const int n = static_cast<int>(o.devices.size());
  if (dist == Distribution::TwoD) {  // the most square P x Q = n grid, P <= Q
    o.p = static_cast<int>(std::sqrt(static_cast<double>(n)));
    while (n % o.p) --o.p;
    o.q = n / o.p;
  } else if (dist == Distribution::Weighted) {
    std::vector<double> work;
    if (load.column_work && nt > 0)
      for (int64_t j = 0; j < nt; ++j) work.push_back(std::max(1e-3, load.column_work(j * o.nq)));
    else
      work.assign(kWeightedRound, 1.0);
    for (int k : weighted_round(capability_weights(rt, o.devices, load.host_pinned), work))
      o.column_pattern.push_back(o.devices[static_cast<std::size_t>(k)]);
  }
  return o;
}

Tiling hybrid_tiling(const rt::Runtime& rt, int64_t n, int64_t small, double panel_flops, double slowdown) {
  small = std::max<int64_t>(1, small);
  const std::vector<int> devices = computing_devices(rt);
  const bool host = devices.front() == 0;
  const std::size_t accels = devices.size() - (host ? 1 : 0);
  if (accels == 0) return Tiling{{small}, {0}};
  // A round spans about n / kRounds columns: the work of a tile column changes
  // along n (Cholesky: j (n - j)), so every device needs columns all along.
  constexpr int64_t kRounds = 6;
  const double target = static_cast<double>(std::max(n / kRounds, small * static_cast<int64_t>(accels + 1)));
  Tiling t;
  double eff = static_cast<double>(small);  // the tile width the panels run at (refined below)
  for (int pass = 0; pass < 3; ++pass) {
    const double pinned = host ? panel_share(n, static_cast<int64_t>(eff), panel_flops, slowdown) : 0;
    const std::vector<double> w = capability_weights(rt, devices, pinned);
    t = Tiling{};
    const std::size_t first = host ? 1 : 0;  // accelerators in devices[first..]
    // The host's tiles per round: `small` ones, or one narrower tile when its
    // share of a round is less; the round then follows from the host's width.
    int64_t host_tiles = 0, host_size = small;
    double round = target;
    if (host && w[0] * target >= 0.5 * static_cast<double>(small)) {
      host_tiles = std::max<int64_t>(1, std::llround(w[0] * target / static_cast<double>(small)));
      round = static_cast<double>(host_tiles * small) / w[0];
    } else if (host && w[0] > 0) {
      host_tiles = 1;
      host_size = round16(w[0] * target);
      round = static_cast<double>(host_size) / w[0];
    }
    // host tiles spread evenly in front of the accelerators' tiles (seed 004 Fig. 7)
    for (std::size_t k = first; k < devices.size(); ++k) {
      const auto slot = static_cast<int64_t>(k - first), slots = static_cast<int64_t>(accels);
      const int64_t before = host_tiles / slots + (slot < host_tiles % slots ? 1 : 0);
      for (int64_t i = 0; i < before; ++i) t.sizes.push_back(host_size), t.owners.push_back(0);
      t.sizes.push_back(round16(w[k] * round)), t.owners.push_back(devices[k]);
    }
    double sum = 0, sum2 = 0;  // panels run at the tile widths, weighted by width
    for (int64_t s : t.sizes) sum += static_cast<double>(s), sum2 += static_cast<double>(s * s);
    eff = sum2 / sum;
  }
  return t;
}

}  // namespace hetla::detail
