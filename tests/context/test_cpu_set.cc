// The library respects the process's CPU set (taskset, Slurm, mpirun
// --bind-to): the default context starts one worker per core of the set,
// pins workers only inside it, binds the caller to the set's first core for a
// call and gives the caller its own binding back afterwards.
#include <gtest/gtest.h>
#include <sched.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "hetla/hetla.hpp"
#include "matgen.hpp"
#include "context/context.hpp"
#include "util/hwloc_topology.hpp"

namespace hetla {
namespace {

cpu_set_t affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  return set;
}

std::set<int> thread_ids() {
  std::set<int> out;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/task"))
    out.insert(std::stoi(e.path().filename().string()));
  return out;
}

/// The threads not in `before`: the CPUs their affinity allows.
std::vector<cpu_set_t> new_thread_affinities(const std::set<int>& before) {
  std::vector<cpu_set_t> out;
  for (int tid : thread_ids()) {
    if (before.count(tid)) continue;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(tid, sizeof set, &set) == 0) out.push_back(set);
  }
  return out;
}

/// Restricts the test thread (and the threads it starts) to one CPU for the
/// scope, then restores its affinity and the library's default context.
class OneCpu {
 public:
  explicit OneCpu(int cpu) : saved_(affinity()) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    ok_ = sched_setaffinity(0, sizeof one, &one) == 0;
  }
  ~OneCpu() {
    finalize();
    sched_setaffinity(0, sizeof saved_, &saved_);
    util::Topology::get().refresh_cpu_set();
  }
  bool ok() const { return ok_; }

 private:
  cpu_set_t saved_;
  bool ok_ = false;
};

TEST(CpuSet, OneWorkerPerCoreOfTheSetAndTheCallerOnItsFirstCore) {
  auto& topo = util::Topology::get();
  const cpu_set_t all = affinity();
  if (!topo.has_hwloc() || CPU_COUNT(&all) < 2) GTEST_SKIP() << "needs hwloc and two CPUs";
  int last = -1;  // the set's last CPU: not core 0, which the old code bound to
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &all)) last = c;
  {
    OneCpu one(last);
    ASSERT_TRUE(one.ok());
    finalize();
    Config cfg;  // defaults: one worker per core, pinned
    init(cfg);
    EXPECT_EQ(num_threads(), 1) << "workers must be the cores of the process's CPU set";
    EXPECT_EQ(topo.cores(), 1);
    EXPECT_EQ(topo.cpu_set(), std::vector<int>{last});
    {
      detail::CallScope call;  // what every library call holds
      const cpu_set_t during = affinity();
      EXPECT_EQ(CPU_COUNT(&during), 1);
      EXPECT_TRUE(CPU_ISSET(last, &during)) << "the caller must be bound inside the CPU set";
    }
    const cpu_set_t after = affinity();
    EXPECT_EQ(CPU_COUNT(&after), 1);
    EXPECT_TRUE(CPU_ISSET(last, &after));

    // More workers than cores, pinned: every worker stays inside the set
    // (worker i goes to the set's i-th core, modulo its size).
    finalize();
    const std::set<int> before = thread_ids();
    cfg.num_threads = 3;
    init(cfg);
    const int64_t n = 256;
    auto A = bench::random_hpd<double>(n, n, 9);
    ASSERT_EQ(potrf<double>(Uplo::Lower, n, A.data(), n, Options{64}), 0);
    const auto workers = new_thread_affinities(before);
    EXPECT_GE(workers.size(), 2u);
    for (const cpu_set_t& s : workers) {
      EXPECT_EQ(CPU_COUNT(&s), 1);
      EXPECT_TRUE(CPU_ISSET(last, &s)) << "a thread was pinned outside the process's CPU set";
    }
  }
  // The whole set again: as many workers as before.
  init(Config{});
  EXPECT_EQ(num_threads(), topo.cores());
  EXPECT_GE(topo.cores(), 1);
  const cpu_set_t restored = affinity();
  EXPECT_TRUE(CPU_EQUAL(&restored, &all));
  finalize();
}

}  // namespace
}  // namespace hetla
