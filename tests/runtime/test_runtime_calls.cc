// Several calls on one runtime at once (rt::CallGraph, Runtime::begin_call):
// each thread inserts its own task graph and wait_all() waits for that graph
// only; a task that throws cancels its own call, not the others; the task
// pool and sequence numbers stay consistent with several inserting threads.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/watchdog.hpp"
#include "runtime/runtime.hpp"

namespace hetla::rt {
namespace {

RuntimeConfig config(int workers) {
  RuntimeConfig c;
  c.num_workers = workers;
  c.pin_threads = false;
  c.window = 64;  // insert() helps too (help_until with a target > 0)
  return c;
}

/// Per thread: `chains` independent chains of `length` tasks, each adding
/// its position to the chain's value, so a lost or reordered task shows.
struct Chains {
  explicit Chains(int chains) : handles(static_cast<std::size_t>(chains)), values(static_cast<std::size_t>(chains), 0) {}
  std::vector<Handle> handles;
  std::vector<int64_t> values;
};

void insert_chains(Runtime& rt, Chains& c, int length, int throw_at = -1) {
  for (int k = 0; k < length; ++k)
    for (std::size_t i = 0; i < c.handles.size(); ++i)
      rt.insert(
          [&c, i, k, throw_at](TaskContext&) {
            if (k == throw_at && i == 0) throw std::runtime_error("test: task failed");
            c.values[i] = c.values[i] * 3 % 1000003 + k;  // order-dependent
          },
          {RW(&c.handles[i])});
}

int64_t expected(int length) {
  int64_t v = 0;
  for (int k = 0; k < length; ++k) v = v * 3 % 1000003 + k;
  return v;
}

class RuntimeCalls : public testing::TestWithParam<int> {};

TEST_P(RuntimeCalls, EachThreadWaitsForItsOwnGraph) {
  Runtime rt(config(GetParam()));
  constexpr int kThreads = 4, kLength = 60, kRounds = 3;
  std::vector<std::string> errors(kThreads);
  test::must_finish("concurrent calls", [&] {
    std::vector<std::thread> pool;
    for (int t = 0; t < kThreads; ++t)
      pool.emplace_back([&, t] {
        for (int r = 0; r < kRounds; ++r) {
          CallGraph call;
          rt.begin_call(call);
          Chains c(3 + t);
          insert_chains(rt, c, kLength + 10 * t);
          rt.wait_all();
          rt.end_call(call);
          for (int64_t v : c.values)
            if (v != expected(kLength + 10 * t)) errors[static_cast<std::size_t>(t)] = "wrong chain value";
        }
      });
    for (auto& th : pool) th.join();
  });
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[static_cast<std::size_t>(t)], "") << "thread " << t;
  EXPECT_EQ(rt.tasks_executed(), static_cast<uint64_t>(kRounds * (3 * 60 + 4 * 70 + 5 * 80 + 6 * 90)));
}

TEST_P(RuntimeCalls, AnErrorCancelsItsOwnCallOnly) {
  Runtime rt(config(GetParam()));
  bool threw = false, cancelled_after = true;
  int64_t skipped_value = -1;
  std::string other_error = "not run";
  test::must_finish("failing and succeeding calls", [&] {
    std::thread failing([&] {
      CallGraph call;
      rt.begin_call(call);
      Chains c(1);
      insert_chains(rt, c, 200, /*throw_at=*/5);
      try {
        rt.wait_all();
      } catch (const std::runtime_error&) {
        threw = true;
      }
      cancelled_after = rt.cancelled();
      skipped_value = c.values[0];
      rt.end_call(call);
    });
    std::thread other([&] {
      CallGraph call;
      rt.begin_call(call);
      Chains c(4);
      insert_chains(rt, c, 300);
      rt.wait_all();
      rt.end_call(call);
      other_error = "";
      for (int64_t v : c.values)
        if (v != expected(300)) other_error = "wrong chain value";
    });
    failing.join();
    other.join();
  });
  EXPECT_TRUE(threw);
  EXPECT_FALSE(cancelled_after);            // wait_all resets the call's cancellation
  EXPECT_EQ(skipped_value, expected(5));    // the tasks after the throwing one were skipped
  EXPECT_EQ(other_error, "");
}

// A call left by an exception before its wait_all (CallScope's destructor):
// end_call cancels what is left and waits for it, since the tasks point to
// the call's CallGraph.
TEST_P(RuntimeCalls, EndCallFinishesAnAbandonedGraph) {
  Runtime rt(config(GetParam()));
  std::atomic<int> ran{0};
  test::must_finish("abandoned call", [&] {
    auto call = std::make_unique<CallGraph>();
    rt.begin_call(*call);
    Handle h;
    rt.insert([&](TaskContext&) { std::this_thread::sleep_for(std::chrono::milliseconds(5)), ++ran; }, {RW(&h)});
    for (int i = 0; i < 50; ++i) rt.insert([&](TaskContext&) { ++ran; }, {RW(&h)});
    rt.end_call(*call);
    call.reset();
    EXPECT_EQ(rt.tasks_executed(), 51u);  // every task released before end_call returned
    EXPECT_LT(ran.load(), 51);            // the rest of the graph was cancelled
  });
  rt.wait_all();  // the default call saw no error
}

INSTANTIATE_TEST_SUITE_P(Workers, RuntimeCalls, testing::Values(1, 2, 4),
                         [](const testing::TestParamInfo<int>& i) { return std::to_string(i.param) + "workers"; });

}  // namespace
}  // namespace hetla::rt
