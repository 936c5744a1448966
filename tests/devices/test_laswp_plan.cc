// plan_laswp (devices/laswp_plan.hpp): the gather / scatter plan a device
// kernel follows must move rows exactly as the interchanges applied one
// after the other do, on tiles of unequal heights, with rows that repeat,
// swap with themselves, or return to where they started.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "devices/laswp_plan.hpp"

namespace hetla::dev {
namespace {

/// Applies the plan to one column of row labels cut in tiles of heights mb.
std::vector<int64_t> apply(const LaswpPlan& plan, const std::vector<int64_t>& mb, std::vector<int64_t> col) {
  std::vector<int64_t> start(mb.size(), 0), stage(static_cast<std::size_t>(plan.slots), -1);
  for (std::size_t t = 1; t < mb.size(); ++t) start[t] = start[t - 1] + mb[t - 1];
  for (const auto& part : plan.gather)
    for (int64_t r = 0; r < part.count(); ++r)
      stage[static_cast<std::size_t>(part.moves[2 * r + 1])] =
          col[static_cast<std::size_t>(start[static_cast<std::size_t>(part.tile)] + part.moves[2 * r])];
  for (const auto& part : plan.scatter)
    for (int64_t r = 0; r < part.count(); ++r)
      col[static_cast<std::size_t>(start[static_cast<std::size_t>(part.tile)] + part.moves[2 * r])] =
          stage[static_cast<std::size_t>(part.moves[2 * r + 1])];
  return col;
}

TEST(LaswpPlan, EqualsTheInterchangesInOrder) {
  std::mt19937_64 gen(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<int64_t> mb;
    const int ntiles = 1 + static_cast<int>(gen() % 5);
    for (int t = 0; t < ntiles; ++t) mb.push_back(1 + static_cast<int64_t>(gen() % 9));
    const int64_t m = std::accumulate(mb.begin(), mb.end(), int64_t{0});
    std::vector<int64_t> rows;
    const int npairs = static_cast<int>(gen() % 40);
    for (int s = 0; s < npairs; ++s) {
      const auto a = static_cast<int64_t>(gen() % static_cast<uint64_t>(m));
      rows.insert(rows.end(), {a, gen() % 5 == 0 ? a : static_cast<int64_t>(gen() % static_cast<uint64_t>(m))});
    }
    std::vector<int64_t> want(static_cast<std::size_t>(m));
    std::iota(want.begin(), want.end(), 0);
    const std::vector<int64_t> start = want;
    for (int s = 0; s < npairs; ++s)
      std::swap(want[static_cast<std::size_t>(rows[2 * s])], want[static_cast<std::size_t>(rows[2 * s + 1])]);
    const LaswpPlan plan = plan_laswp(ntiles, mb.data(), npairs, rows.data());
    ASSERT_EQ(apply(plan, mb, start), want) << "trial " << trial;
    // only rows that end elsewhere move, each once each way
    int64_t moved = 0;
    for (int64_t r = 0; r < m; ++r) moved += want[static_cast<std::size_t>(r)] != r;
    EXPECT_EQ(plan.slots, moved);
    for (const auto& part : plan.gather) EXPECT_GT(part.count(), 0);
  }
  // a swap undone is no move at all
  const int64_t mb1[1] = {4}, back[4] = {1, 3, 3, 1};
  EXPECT_EQ(plan_laswp(1, mb1, 2, back).slots, 0);
}

}  // namespace
}  // namespace hetla::dev
