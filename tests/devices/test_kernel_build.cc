// Kernel builds (OpenCL programs compiled on first use) are left out of the
// test watchdogs' time, and warm_up_kernels builds what a tile algorithm
// later uses, so no build falls inside a timed call.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "common/watchdog.hpp"
#include "devices/kernel_build.hpp"
#include "devices/spec.hpp"
#include "hetla/hetla.hpp"
#include "context/context.hpp"

namespace hetla {
namespace {

using namespace std::chrono_literals;

TEST(KernelBuild, ClockCountsOpenScopesOnceAndTheWatchdogLeavesThemOut) {
  const auto t0 = dev::kernel_build_time();
  test::must_finish(
      "a long kernel build",
      [] {
        dev::KernelBuildScope outer;
        EXPECT_EQ(dev::kernel_builds_in_progress(), 1);
        std::thread other([] { dev::KernelBuildScope inner; std::this_thread::sleep_for(100ms); });
        std::this_thread::sleep_for(300ms);
        other.join();
      },
      100ms);  // 300 ms of "building" against a 100 ms limit
  EXPECT_EQ(dev::kernel_builds_in_progress(), 0);
  const auto built = dev::kernel_build_time() - t0;
  EXPECT_GE(built, 300ms);
  EXPECT_LT(built, 2s);  // overlapping scopes count once
}

TEST(KernelBuild, WarmUpBuildsWhatPotrfUsesOnOpenCl) {
  bool have = false;
  if (dev::built_backends().find("opencl") != std::string::npos)
    for (const auto& d : dev::probe_devices()) have = have || d.kind == "opencl";
  if (!have) GTEST_SKIP() << "no OpenCL device";
  Config c;
  c.devices = "cpu,opencl";
  init(c);
  {
    detail::CallScope scope;
    for (int d = 1; d < scope.rt().num_devices(); ++d) dev::warm_up_kernels(scope.rt().device(d), 'd');
  }
  const int64_t n = 300;
  std::vector<double> A(n * n, 0.0);
  for (int64_t i = 0; i < n; ++i) A[static_cast<std::size_t>(i * (n + 1))] = 2.0;
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper}) {
    auto F = A;
    const auto t0 = dev::kernel_build_time();
    EXPECT_EQ(potrf(uplo, n, F.data(), n, Options{32}), 0);
    EXPECT_EQ(dev::kernel_build_time(), t0) << "potrf built device code after the warm-up";
  }
  finalize();
}

}  // namespace
}  // namespace hetla
