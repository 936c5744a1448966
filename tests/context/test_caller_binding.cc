// The calling thread is worker 0 of a library call: with pinned workers it is
// bound to core 0 for the call (so the scheduler cannot park it on a core a
// pinned worker holds), and gets its own binding back afterwards.
#include <gtest/gtest.h>
#include <sched.h>

#include <vector>

#include "hetla/hetla.hpp"
#include "matgen.hpp"
#include "util/hwloc_topology.hpp"

namespace hetla {
namespace {

cpu_set_t current_affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  return set;
}

TEST(CallerBinding, BoundToCoreZeroDuringACallAndGivenBackAfter) {
  if (!util::Topology::get().has_hwloc() || util::Topology::get().cores() < 2)
    GTEST_SKIP() << "needs hwloc and two cores";
  const cpu_set_t before = current_affinity();
  ASSERT_GT(CPU_COUNT(&before), 1) << "the test thread must be free to run on several cores";
  Config cfg;
  cfg.pin_threads = true;
  init(cfg);
  {
    util::ScopedCoreBinding bind(0);  // what a call does
    const cpu_set_t during = current_affinity();
    EXPECT_EQ(CPU_COUNT(&during), 1);
  }
  auto unchanged = [&] {
    const cpu_set_t now = current_affinity();
    return CPU_EQUAL(&before, &now);
  };
  EXPECT_TRUE(unchanged());

  const int64_t n = 300;
  auto A = bench::random_hpd<double>(n, n, 5);
  ASSERT_EQ(potrf<double>(Uplo::Lower, n, A.data(), n, Options{64}), 0);
  EXPECT_TRUE(unchanged());

  cfg.pin_threads = false;  // unpinned workers: the caller is left alone as well
  init(cfg);
  A = bench::random_hpd<double>(n, n, 5);
  ASSERT_EQ(potrf<double>(Uplo::Lower, n, A.data(), n, Options{64}), 0);
  EXPECT_TRUE(unchanged());
  finalize();
}

}  // namespace
}  // namespace hetla
