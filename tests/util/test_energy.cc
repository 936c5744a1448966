// Energy counters: RAPL through a fake powercap tree (packages summed, DRAM
// apart, core sub-zones ignored, wrap-around), and a clear reason when no
// counter is readable.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "util/energy.hpp"

namespace {

namespace fs = std::filesystem;
using hetla::util::EnergyMeter;

class FakePowercap : public testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("hetla-powercap-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    zone("intel-rapl:0", "package-0", 1000, 10'000'000);
    zone("intel-rapl:1", "package-1", 9'999'000, 10'000'000);  // about to wrap
    zone("intel-rapl:0:0", "core", 500, 10'000'000);
    zone("intel-rapl:0:1", "dram", 0, 10'000'000);
  }
  void TearDown() override { fs::remove_all(root_); }
  void zone(const std::string& dir, const std::string& name, long long uj, long long range) {
    fs::create_directories(root_ / dir);
    std::ofstream(root_ / dir / "name") << name << "\n";
    set(dir, uj);
    std::ofstream(root_ / dir / "max_energy_range_uj") << range << "\n";
  }
  void set(const std::string& dir, long long uj) { std::ofstream(root_ / dir / "energy_uj") << uj << "\n"; }
  fs::path root_;
};

TEST_F(FakePowercap, PackagesSummedDramApartWrapHandled) {
  EnergyMeter m(root_.string());
  ASSERT_TRUE(m.available()) << m.unavailable_reason();
  m.start();
  set("intel-rapl:0", 3'001'000);    // +3 J
  set("intel-rapl:1", 1'000'000);    // wrapped: +0.001 J to the range, +1 J after it
  set("intel-rapl:0:0", 9'000'000);  // core: part of the package, not added again
  set("intel-rapl:0:1", 250'000);    // dram +0.25 J
  const auto s = m.stop();
  ASSERT_GE(s.size(), 2u);
  EXPECT_EQ(s[0].device, "cpu");
  EXPECT_NEAR(s[0].joules, 3.0 + 1.001, 1e-9);
  EXPECT_EQ(s[1].device, "dram");
  EXPECT_NEAR(s[1].joules, 0.25, 1e-9);
}

TEST(Energy, NoCountersSaysWhy) {
  EnergyMeter m("/nonexistent-powercap-root");
  if (m.available()) GTEST_SKIP() << "an NVIDIA GPU energy counter is readable on this machine";
  EXPECT_NE(m.unavailable_reason().find("no RAPL zones"), std::string::npos) << m.unavailable_reason();
  EXPECT_NE(m.unavailable_reason().find("GPU"), std::string::npos) << m.unavailable_reason();
  m.start();
  EXPECT_TRUE(m.stop().empty());
}

}  // namespace
