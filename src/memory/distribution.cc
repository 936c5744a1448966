#include "memory/distribution.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hetla::detail {

int TileOwners::owner(int64_t i, int64_t j) const {
  if (devices.empty()) return -1;
  switch (dist) {
    case Distribution::OneD: return devices[static_cast<std::size_t>(j % static_cast<int64_t>(devices.size()))];
    case Distribution::TwoD: return devices[static_cast<std::size_t>((i % p) * q + (j % q))];
    case Distribution::Weighted:
      return column_pattern[static_cast<std::size_t>(j % static_cast<int64_t>(column_pattern.size()))];
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
  if (f > 0 && devices.size() > 1 && devices[0] == 0) {
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

TileOwners make_owners(const rt::Runtime& rt, Distribution dist, int64_t nt, const Workload& load) {
  TileOwners o;
  o.dist = dist;
  if (rt.host_computes() || rt.num_devices() == 1) o.devices.push_back(0);
  for (int d = 1; d < rt.num_devices(); ++d) o.devices.push_back(d);
  const int n = static_cast<int>(o.devices.size());
  if (dist == Distribution::TwoD) {  // the most square P x Q = n grid, P <= Q
    o.p = static_cast<int>(std::sqrt(static_cast<double>(n)));
    while (n % o.p) --o.p;
    o.q = n / o.p;
  } else if (dist == Distribution::Weighted) {
    std::vector<double> work;
    if (load.column_work && nt > 0)
      for (int64_t j = 0; j < nt; ++j) work.push_back(std::max(1e-3, load.column_work(j)));
    else
      work.assign(kWeightedRound, 1.0);
    for (int k : weighted_round(capability_weights(rt, o.devices, load.host_pinned), work))
      o.column_pattern.push_back(o.devices[static_cast<std::size_t>(k)]);
  }
  return o;
}

}  // namespace hetla::detail
