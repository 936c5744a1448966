#include "util/memory_peak.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace {

// Touching 64 MiB after start() shows as at least that much growth; nothing
// touched shows as much less (the peak was reset, not the process's history).
TEST(MemoryPeak, MeasuresTheGrowthOfOneStretch) {
  hetla::util::MemoryPeak meter;
  {
    std::vector<char> before(96 << 20);
    std::memset(before.data(), 1, before.size());  // a peak before start()
  }
  meter.start();
  const auto idle = meter.growth();
  if (!idle) GTEST_SKIP() << "/proc/self/clear_refs is not writable here";
  EXPECT_LT(*idle, 32 << 20);
  constexpr std::size_t kBytes = 64 << 20;
  std::vector<char> block(kBytes);
  std::memset(block.data(), 1, block.size());
  const auto grown = meter.growth();
  ASSERT_TRUE(grown.has_value());
  EXPECT_GE(*grown, static_cast<int64_t>(kBytes) * 9 / 10);
  EXPECT_LT(*grown, static_cast<int64_t>(kBytes) * 2);
  ASSERT_TRUE(hetla::util::MemoryPeak::peak().has_value());
  EXPECT_GE(*hetla::util::MemoryPeak::peak(), *grown);
}

}  // namespace
