// Capability-weighted column distributions (seed 000 HGDD): every prefix of
// the columns follows the weights (by count, or by work when columns cost
// differently), the host's share drops by the time its panels take, and the
// factorizations' workloads grow with the column index.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <numeric>
#include <vector>

#include "devices/emulated/emulated_device.hpp"
#include "memory/distribution.hpp"
#include "runtime/runtime.hpp"

namespace hetla::detail {
namespace {

dev::EmulatedConfig emulated(double speed) {
  dev::EmulatedConfig c;
  c.speed = speed;
  return c;
}

// Device k's work in every prefix stays within one column of its share.
void expect_prefix_balance(const std::vector<double>& weights, const std::vector<double>& work,
                           const std::vector<int>& owners) {
  ASSERT_EQ(owners.size(), work.size());
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  const double biggest = *std::max_element(work.begin(), work.end());
  std::vector<double> got(weights.size(), 0.0);
  double done = 0;
  for (std::size_t c = 0; c < work.size(); ++c) {
    got[static_cast<std::size_t>(owners[c])] += work[c];
    done += work[c];
    for (std::size_t k = 0; k < weights.size(); ++k)
      EXPECT_LE(std::abs(got[k] - done * weights[k] / total), biggest + 1e-9) << "device " << k << " column " << c;
  }
}

TEST(WeightedRound, IntegerWeightsGiveExactCounts) {
  const std::vector<double> w{10, 8, 5};
  const std::vector<double> work(23, 1.0);
  const auto owners = weighted_round(w, work);
  EXPECT_EQ(std::count(owners.begin(), owners.end(), 0), 10);
  EXPECT_EQ(std::count(owners.begin(), owners.end(), 1), 8);
  EXPECT_EQ(std::count(owners.begin(), owners.end(), 2), 5);
  expect_prefix_balance(w, work, owners);
  // interleaved, not blocked: the slowest device appears within its first 23/5 columns
  EXPECT_NE(std::find(owners.begin(), owners.begin() + 5, 2), owners.begin() + 5);
}

TEST(WeightedRound, UnequalColumnsBalanceWork) {
  const std::vector<double> w{0.55, 0.3, 0.15};
  std::vector<double> work;
  for (int j = 0; j < 21; ++j) work.push_back(j * (21.0 - j) + 1);  // Cholesky-like
  const auto owners = weighted_round(w, work);
  expect_prefix_balance(w, work, owners);
  std::vector<double> got(3, 0.0);
  for (std::size_t c = 0; c < work.size(); ++c) got[static_cast<std::size_t>(owners[c])] += work[c];
  const double total = std::accumulate(work.begin(), work.end(), 0.0);
  for (std::size_t k = 0; k < 3; ++k) EXPECT_NEAR(got[k] / total, w[k], 0.08) << "device " << k;
}

TEST(WeightedRound, DegenerateInputs) {
  EXPECT_TRUE(weighted_round({}, {1, 1}).empty());
  EXPECT_TRUE(weighted_round({0, 0}, {1, 1}).empty());
  const auto one = weighted_round({3}, {1, 2, 3});
  EXPECT_EQ(one, (std::vector<int>{0, 0, 0}));
}

rt::RuntimeConfig two_emulated() {
  rt::RuntimeConfig c;
  c.num_workers = 1;
  c.pin_threads = false;
  c.prefetch_depth = 0;
  c.schedule = rt::Schedule::Static;
  c.accelerators.push_back(std::make_shared<dev::EmulatedDevice>("emu0", emulated(0.5)));
  c.accelerators.push_back(std::make_shared<dev::EmulatedDevice>("emu1", emulated(0.25)));
  return c;
}

TEST(CapabilityWeights, FollowRatesAndTakePanelsOffTheHost) {
  rt::Runtime rt(two_emulated());
  rt.set_rate(0, dev::KernelId::Gemm, 40e9);
  rt.set_rate(1, dev::KernelId::Gemm, 20e9);
  rt.set_rate(2, dev::KernelId::Gemm, 10e9);
  const std::vector<int> devices{0, 1, 2};
  const auto w = capability_weights(rt, devices);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_NEAR(w[0], 4.0 / 7, 1e-12);
  EXPECT_NEAR(w[1], 2.0 / 7, 1e-12);
  EXPECT_NEAR(w[2], 1.0 / 7, 1e-12);

  const double f = 0.1;  // the host's panels: its columns plus its panels take its capability share
  const auto p = capability_weights(rt, devices, f);
  EXPECT_NEAR(p[0] * (1 - f) + f, 4.0 / 7, 1e-12);
  EXPECT_NEAR(p[1] * (1 - f), 2.0 / 7, 1e-12);
  EXPECT_NEAR(p[0] + p[1] + p[2], 1.0, 1e-12);
  EXPECT_NEAR(p[1] / p[2], 2.0, 1e-12);

  const auto all = capability_weights(rt, devices, 0.8);  // panels alone outweigh the host's share
  EXPECT_EQ(all[0], 0.0);
  EXPECT_NEAR(all[1] + all[2], 1.0, 1e-12);
}

TEST(MakeOwners, WorkloadShiftsColumnsOffTheHost) {
  rt::Runtime rt(two_emulated());
  rt.set_rate(0, dev::KernelId::Gemm, 40e9);
  rt.set_rate(1, dev::KernelId::Gemm, 20e9);
  rt.set_rate(2, dev::KernelId::Gemm, 10e9);
  const int64_t nt = 40;
  const TileOwners plain = make_owners(rt, Distribution::Weighted, nt);
  Matrix<double> A(nt * 8, nt * 8, 8);
  const Workload lu = panel_workload(A, Panels::QR);
  EXPECT_GT(lu.host_pinned, 0);
  Workload more = lu;
  more.host_pinned = 0.2;
  const TileOwners shifted = make_owners(rt, Distribution::Weighted, nt, more);
  int host_plain = 0, host_shifted = 0;
  for (int64_t j = 0; j < nt; ++j) {
    host_plain += plain.owner(0, j) == 0;
    host_shifted += shifted.owner(0, j) == 0;
    EXPECT_GE(shifted.owner(0, j), 0);
    EXPECT_LE(shifted.owner(0, j), 2);
  }
  EXPECT_LT(host_shifted, host_plain);
  // every tile of a column has its column's owner; the pattern repeats
  EXPECT_EQ(plain.owner(3, 5), plain.owner(0, 5));
  EXPECT_EQ(plain.owner(0, 5), plain.owner(0, 5 + kWeightedRound));
}

TEST(PanelWorkload, GrowsWithTheColumnAndStopsAtTheLastPanel) {
  Matrix<double> tall(100, 40, 10);  // mt 10, nt 4: every column below the panels
  const Workload w = panel_workload(tall, Panels::LU);
  EXPECT_EQ(w.column_work(0), 0);
  EXPECT_EQ(w.column_work(1), 10);
  EXPECT_EQ(w.column_work(2), 19);
  Matrix<double> wide(20, 100, 10);  // kt = 2 panels update every later column
  const Workload v = panel_workload(wide, Panels::LU);
  EXPECT_EQ(v.column_work(5), v.column_work(9));
  EXPECT_NEAR(panel_share(8000, 384, 0.75, 2.0), 0.75 * 2.0 * 384 / 8000, 1e-12);
  EXPECT_LE(panel_share(100, 384, 1.5, 2.0), 0.5);
  EXPECT_EQ(panel_share(0, 384, 1.5, 2.0), 0);
}

}  // namespace
}  // namespace hetla::detail
