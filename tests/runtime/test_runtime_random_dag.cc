// Property tests: random task graphs over a few handles, run in parallel, must
// give exactly the serial result, for any number of workers, priorities and
// task window. Every task computes a deterministic hash of everything it reads
// and writes hashes of that into what it writes, so any reordering of two
// conflicting accesses (RaW, WaR, WaW) changes the final data or what some
// task observed. (Under ThreadSanitizer a missing dependence is also a race.)
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "common/watchdog.hpp"
#include "runtime/runtime.hpp"

namespace hetla::rt {
namespace {

constexpr int kHandles = 16;
constexpr int kWords = 4;
using Block = std::array<uint64_t, kWords>;
using Data = std::array<Block, kHandles>;

uint64_t mix(uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

struct Op {
  struct Acc {
    int h;
    Mode mode;
  };
  std::vector<Acc> acc;  // distinct handles
  int priority = 0;
  int spin = 0;          // busy iterations, to shake the schedule
  int wait_handle = -1;  // >= 0: call rt.wait(handle) right after inserting this task
};

/// The task body: reads (R, RW) into a hash, writes (W, RW) from it. Returns the hash.
uint64_t run_op(const Op& op, uint64_t id, Data& d) {
  uint64_t hash = mix(id);
  for (const auto& a : op.acc)
    if (a.mode != Mode::Write)
      for (int w = 0; w < kWords; ++w) hash = mix(hash ^ d[a.h][w]);
  volatile uint64_t sink = 0;
  for (int s = 0; s < op.spin; ++s) sink = sink + s;
  for (const auto& a : op.acc)
    if (a.mode != Mode::Read)
      for (int w = 0; w < kWords; ++w) d[a.h][w] = mix(hash + static_cast<uint64_t>(a.h * kWords + w));
  return hash;
}

std::vector<Op> random_program(std::mt19937_64& g, int ntasks, bool with_waits) {
  std::uniform_int_distribution<int> nacc(1, 3), handle(0, kHandles - 1), mode(0, 9), prio(-3, 3),
      spin(0, 3), pct(0, 99);
  std::vector<Op> ops(static_cast<std::size_t>(ntasks));
  for (auto& op : ops) {
    int k = nacc(g);
    while (static_cast<int>(op.acc.size()) < k) {
      int h = handle(g);
      bool dup = false;
      for (const auto& a : op.acc) dup |= a.h == h;
      if (dup) continue;
      int m = mode(g);  // 50% read, 20% write, 30% read-write
      op.acc.push_back({h, m < 5 ? Mode::Read : m < 7 ? Mode::Write : Mode::ReadWrite});
    }
    op.priority = prio(g);
    op.spin = spin(g) == 0 ? 200 : 0;
    if (with_waits && pct(g) < 2) op.wait_handle = handle(g);
  }
  return ops;
}

Data initial_data(uint64_t seed) {
  Data d;
  for (int h = 0; h < kHandles; ++h)
    for (int w = 0; w < kWords; ++w) d[h][w] = mix(seed * 1000 + h * kWords + w);
  return d;
}

struct Expected {
  Data final_data;
  std::vector<uint64_t> observed;     // hash seen by each task
  std::vector<Block> at_wait;         // value of the waited handle at each wait, in order
};

Expected run_serial(const std::vector<Op>& ops, uint64_t seed) {
  Expected e;
  Data d = initial_data(seed);
  e.observed.resize(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    e.observed[i] = run_op(ops[i], i, d);
    if (ops[i].wait_handle >= 0) e.at_wait.push_back(d[ops[i].wait_handle]);
  }
  e.final_data = d;
  return e;
}

struct Result {
  Data final_data;
  std::vector<uint64_t> observed;
  std::vector<Block> at_wait;
};

/// Runs the program on a runtime; `check_window` asserts that no more than
/// `window` tasks are ever in flight when insert() returns.
Result run_parallel(const std::vector<Op>& ops, uint64_t seed, RuntimeConfig cfg, bool check_window = false) {
  Result r;
  r.final_data = initial_data(seed);
  r.observed.assign(ops.size(), 0);
  std::array<Handle, kHandles> handles{};
  Data* d = &r.final_data;
  uint64_t* obs = r.observed.data();
  std::size_t max_in_flight = 0;
  {
    Runtime rt(cfg);
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const Op* op = &ops[i];
      Access acc[3];
      for (std::size_t a = 0; a < op->acc.size(); ++a) acc[a] = {&handles[op->acc[a].h], op->acc[a].mode};
      rt.insert([op, i, d, obs](TaskContext&) { obs[i] = run_op(*op, i, *d); }, acc, op->acc.size(),
                TaskOptions{op->priority, "op"});
      if (check_window) {  // inserted (tasks + wait markers) minus executed <= tasks in flight
        const std::size_t inserted = i + 1 + r.at_wait.size();
        max_in_flight = std::max<std::size_t>(max_in_flight, inserted - rt.tasks_executed());
      }
      if (op->wait_handle >= 0) {
        rt.wait(&handles[op->wait_handle]);
        // Later writers of the handle are not inserted yet; readers may still run.
        r.at_wait.push_back((*d)[op->wait_handle]);
      }
    }
    rt.wait_all();
    EXPECT_EQ(rt.tasks_executed(), ops.size() + r.at_wait.size());  // + one marker task per wait()
  }
  if (check_window) {
    EXPECT_LE(max_in_flight, cfg.window) << "task window not honoured";
  }
  return r;
}

void expect_same(const Expected& e, const Result& r) {
  ASSERT_EQ(e.observed.size(), r.observed.size());
  std::size_t first_bad = e.observed.size();
  for (std::size_t i = 0; i < e.observed.size(); ++i)
    if (e.observed[i] != r.observed[i]) {
      first_bad = i;
      break;
    }
  EXPECT_EQ(first_bad, e.observed.size()) << "task " << first_bad << " read other data than in the serial run";
  for (int h = 0; h < kHandles; ++h) EXPECT_EQ(e.final_data[h], r.final_data[h]) << "handle " << h;
  ASSERT_EQ(e.at_wait.size(), r.at_wait.size());
  for (std::size_t k = 0; k < e.at_wait.size(); ++k) EXPECT_EQ(e.at_wait[k], r.at_wait[k]) << "wait #" << k;
}

class RandomDag : public testing::TestWithParam<int> {};

TEST_P(RandomDag, MatchesSerialExecution) {
  const int workers = GetParam();
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << workers << " workers");
    std::mt19937_64 g(seed);
    auto ops = random_program(g, 400, /*with_waits=*/true);
    auto expected = run_serial(ops, seed);
    RuntimeConfig cfg;
    cfg.num_workers = workers;
    cfg.pin_threads = seed % 2 == 0;
    Result r;
    test::must_finish("random DAG", [&] { r = run_parallel(ops, seed, cfg); });
    expect_same(expected, r);
    if (HasFailure()) return;
  }
}

TEST_P(RandomDag, SmallWindowManyTasks) {
  // 100k tasks through a 64-task window: insert() must help execute, results stay exact.
  const int workers = GetParam();
  std::mt19937_64 g(1234 + workers);
  auto ops = random_program(g, 100000, /*with_waits=*/false);
  for (auto& op : ops) op.spin = 0;
  auto expected = run_serial(ops, 99);
  RuntimeConfig cfg;
  cfg.num_workers = workers;
  cfg.pin_threads = false;
  cfg.window = 64;
  Result r;
  test::must_finish("100k tasks, window 64", [&] { r = run_parallel(ops, 99, cfg, /*check_window=*/true); },
                    std::chrono::seconds(240));
  expect_same(expected, r);
}

TEST_P(RandomDag, TinyWindow) {
  // A window of 1 or 2 forces the inserting thread to help after nearly every insert.
  const int workers = GetParam();
  for (std::size_t window : {1, 2, 7}) {
    SCOPED_TRACE(testing::Message() << "window " << window);
    std::mt19937_64 g(window * 7 + workers);
    auto ops = random_program(g, 2000, /*with_waits=*/true);
    auto expected = run_serial(ops, window);
    RuntimeConfig cfg;
    cfg.num_workers = workers;
    cfg.pin_threads = false;
    cfg.window = window;
    Result r;
    test::must_finish("tiny window", [&] { r = run_parallel(ops, window, cfg, /*check_window=*/true); });
    expect_same(expected, r);
  }
}

INSTANTIATE_TEST_SUITE_P(Workers, RandomDag, testing::Values(1, 2, 4),
                         [](const testing::TestParamInfo<int>& p) { return std::to_string(p.param) + "workers"; });

}  // namespace
}  // namespace hetla::rt
