// The learned GEMM split (seed 003 Table 2): interpolation in n, the file
// round trip, and the busy-time equalisation that learns it.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "tune/split_model.hpp"

namespace hetla::tune {
namespace {

TEST(SplitModel, InterpolatesLinearlyAndClamps) {
  SplitModel m;
  m.set({"cpu|emu", 1000, {0.8, 0.2}});
  m.set({"cpu|emu", 3000, {0.4, 0.6}});
  m.set({"cpu|emu|emu", 1000, {0.5, 0.3, 0.2}});
  EXPECT_FALSE(m.predict("cpu|opencl", 2000));
  auto s = *m.predict("cpu|emu", 2000);
  EXPECT_NEAR(s[0], 0.6, 1e-12);
  EXPECT_NEAR(s[1], 0.4, 1e-12);
  EXPECT_NEAR((*m.predict("cpu|emu", 500))[0], 0.8, 1e-12);   // below the grid: first point
  EXPECT_NEAR((*m.predict("cpu|emu", 9000))[0], 0.4, 1e-12);  // above: last point
  EXPECT_EQ(m.predict("cpu|emu|emu", 7000)->size(), 3u);
  m.set({"cpu|emu", 3000, {1, 1}});  // replaces, normalised
  EXPECT_NEAR((*m.predict("cpu|emu", 3000))[0], 0.5, 1e-12);
}

TEST(SplitModel, SavesAndLoads) {
  const auto path = std::filesystem::temp_directory_path() / ("hetla-split-" + std::to_string(::getpid()) + ".json");
  SplitModel m;
  m.set({"cpu:x|emu:speed=0.5", 2000, {0.25, 0.75}});
  m.set({"cpu:x|emu:speed=0.5", 4000, {0.3, 0.7}});
  m.save(path.string());
  const SplitModel r = SplitModel::load(path.string());
  ASSERT_EQ(r.points().size(), 2u);
  EXPECT_EQ(r.points()[1].devices, "cpu:x|emu:speed=0.5");
  EXPECT_DOUBLE_EQ(r.points()[1].shares[1], 0.7);
  std::ofstream(path) << "{\"gemm_split\": [\n  {\"devices\": \"cpu\", \"n\": x, \"shares\": [1]}\n]}\n";
  EXPECT_THROW(SplitModel::load(path.string()), std::runtime_error);
  std::filesystem::remove(path);
  EXPECT_TRUE(SplitModel::load(path.string()).points().empty());  // no file: empty model
}

TEST(SplitModel, LearningEqualisesBusyTime) {
  // Devices of rates 4, 1 and 0.5 with a fixed start-up cost each: the
  // capability guess (equal shares) is far off; a few rounds balance them.
  const std::vector<double> rate = {4, 1, 0.5};
  int runs = 0;
  SplitRun run = [&](const std::vector<double>& s) {
    ++runs;
    std::vector<double> busy(s.size());
    for (std::size_t d = 0; d < s.size(); ++d) busy[d] = s[d] > 0 ? 0.01 + s[d] / rate[d] : 0;
    return busy;
  };
  const auto shares = learn_split({1, 1, 1}, run, 4);
  EXPECT_EQ(runs, 4);
  EXPECT_LT(busy_imbalance(run(shares)), 1.10);
  EXPECT_GT(shares[0], shares[1]);
  EXPECT_GT(shares[1], shares[2]);
  EXPECT_GT(busy_imbalance(run({1. / 3, 1. / 3, 1. / 3})), 1.5);
}

}  // namespace
}  // namespace hetla::tune
