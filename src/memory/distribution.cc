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

std::vector<int> capability_weights(const rt::Runtime& rt, const std::vector<int>& devices) {
  std::vector<double> w;
  for (int d : devices) {
    int workers = 0;
    for (int k = 0; k < rt.num_workers(); ++k) workers += rt.device_of_worker(k) == d;
    w.push_back(rt.rate(d, dev::KernelId::Gemm) * std::max(1, workers));
  }
  double lo = *std::min_element(w.begin(), w.end());
  std::vector<int> out;
  for (double x : w) out.push_back(std::max(1, static_cast<int>(std::lround(5.0 * x / lo))));
  int g = 0;
  for (int x : out) g = std::gcd(g, x);
  for (int& x : out) x /= g;
  return out;
}

std::vector<int> weighted_round(const std::vector<int>& weights) {
  const int total = std::accumulate(weights.begin(), weights.end(), 0);
  std::vector<int> credit(weights.size(), 0), round;
  for (int s = 0; s < total; ++s) {
    for (std::size_t k = 0; k < weights.size(); ++k) credit[k] += weights[k];
    auto best = static_cast<std::size_t>(std::max_element(credit.begin(), credit.end()) - credit.begin());
    credit[best] -= total;
    round.push_back(static_cast<int>(best));
  }
  return round;
}

TileOwners make_owners(const rt::Runtime& rt, Distribution dist) {
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
    for (int k : weighted_round(capability_weights(rt, o.devices))) o.column_pattern.push_back(o.devices[static_cast<std::size_t>(k)]);
  }
  return o;
}

}  // namespace hetla::detail
