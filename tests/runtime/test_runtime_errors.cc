// Failure and shutdown: an exception in a task is rethrown by wait_all() (and
// wait()), the remaining work is cancelled, the runtime is usable afterwards,
// and destroying a runtime with pending work finishes it and joins cleanly.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/watchdog.hpp"
#include "runtime/runtime.hpp"

namespace hetla::rt {
namespace {

RuntimeConfig workers(int n) {
  RuntimeConfig c;
  c.num_workers = n;
  c.pin_threads = false;
  return c;
}

class Errors : public testing::TestWithParam<int> {};

TEST_P(Errors, ExceptionPropagatesAndDependentsAreSkipped) {
  Runtime rt(workers(GetParam()));
  Handle h, out;
  std::atomic<int> before{0}, after{0};
  rt.insert([&](TaskContext&) { ++before; }, {W(&h)});
  rt.insert([&](TaskContext&) { throw std::runtime_error("boom in task"); }, {RW(&h)});
  // Dependents of the failed task (directly and transitively) must not run.
  for (int i = 0; i < 50; ++i) rt.insert([&](TaskContext&) { ++after; }, {R(&h), RW(&out)});
  bool threw = false;
  test::must_finish("wait_all", [&] {
    try {
      rt.wait_all();
    } catch (const std::runtime_error& e) {
      threw = true;
      EXPECT_STREQ(e.what(), "boom in task");
    }
  });
  EXPECT_TRUE(threw);
  EXPECT_EQ(before.load(), 1);
  EXPECT_EQ(after.load(), 0);
  EXPECT_FALSE(rt.cancelled());

  // Reusable: the same handles, new tasks, no stale error.
  int value = 0;
  rt.insert([&](TaskContext&) { value = 1; }, {W(&h)});
  rt.insert([&](TaskContext&) { value += 1; }, {RW(&h)});
  rt.insert([&](TaskContext&) { ++after; }, {R(&h), RW(&out)});
  test::must_finish("wait_all after an error", [&] { rt.wait_all(); });
  EXPECT_EQ(value, 2);
  EXPECT_EQ(after.load(), 1);
}

TEST_P(Errors, FirstOfSeveralExceptionsIsReportedOnce) {
  Runtime rt(workers(GetParam()));
  Handle h;
  rt.insert([](TaskContext&) { throw std::logic_error("first"); }, {RW(&h)});
  rt.insert([](TaskContext&) { throw std::logic_error("second"); }, {RW(&h)});  // skipped: depends on first
  std::string what;
  test::must_finish("wait_all", [&] {
    try {
      rt.wait_all();
    } catch (const std::logic_error& e) {
      what = e.what();
    }
  });
  EXPECT_EQ(what, "first");
  test::must_finish("second wait_all", [&] { EXPECT_NO_THROW(rt.wait_all()); });
}

TEST_P(Errors, ManyIndependentFailuresDoNotHang) {
  // Failures on every worker at once; whatever runs, wait_all throws once and returns.
  Runtime rt(workers(GetParam()));
  std::vector<Handle> hs(500);
  for (int i = 0; i < 500; ++i)
    rt.insert([i](TaskContext&) {
      if (i % 3 == 0) throw std::runtime_error("fail " + std::to_string(i));
    }, {W(&hs[i])});
  test::must_finish("wait_all", [&] { EXPECT_THROW(rt.wait_all(), std::runtime_error); });
  test::must_finish("wait_all", [&] { EXPECT_NO_THROW(rt.wait_all()); });
}

TEST_P(Errors, WaitOnHandleRethrows) {
  Runtime rt(workers(GetParam()));
  Handle h;
  rt.insert([](TaskContext&) { throw std::runtime_error("writer failed"); }, {W(&h)});
  test::must_finish("wait(h)", [&] { EXPECT_THROW(rt.wait(&h), std::runtime_error); });
  test::must_finish("wait_all", [&] { EXPECT_NO_THROW(rt.wait_all()); });
  int value = 0;
  rt.insert([&](TaskContext&) { value = 4; }, {W(&h)});
  test::must_finish("wait(h) after an error", [&] { rt.wait(&h); });
  EXPECT_EQ(value, 4);
}

TEST_P(Errors, ExceptionDuringFullWindow) {
  // The failure happens while insert() is helping (window full): insertion
  // continues, everything left is skipped, wait_all throws.
  RuntimeConfig cfg = workers(GetParam());
  cfg.window = 16;
  Runtime rt(cfg);
  Handle h;
  std::atomic<int> ran_after{0};
  rt.insert([](TaskContext&) { throw std::runtime_error("early"); }, {RW(&h)});
  for (int i = 0; i < 1000; ++i) rt.insert([&](TaskContext&) { ++ran_after; }, {RW(&h)});
  test::must_finish("wait_all", [&] { EXPECT_THROW(rt.wait_all(), std::runtime_error); });
  EXPECT_EQ(ran_after.load(), 0);
}

TEST_P(Errors, DestructionRunsPendingTasksAndJoins) {
  std::atomic<int> count{0};
  test::must_finish("destroy with pending tasks", [&] {
    std::vector<Handle> hs(8);  // declared first: handles must outlive the runtime's tasks
    Runtime rt(workers(GetParam()));
    for (int i = 0; i < 2000; ++i)
      rt.insert([&](TaskContext&) { ++count; }, {RW(&hs[i % 8])});
  });
  EXPECT_EQ(count.load(), 2000);
}

TEST_P(Errors, DestructionAfterAnUnreportedErrorDoesNotThrow) {
  test::must_finish("destroy with a pending error", [&] {
    Handle h;
    auto rt = std::make_unique<Runtime>(workers(GetParam()));
    rt->insert([](TaskContext&) { throw std::runtime_error("never fetched"); }, {W(&h)});
    rt->insert([](TaskContext&) {}, {R(&h)});
    EXPECT_NO_THROW(rt.reset());
  });
}

TEST_P(Errors, IdleRuntimeShutsDown) {
  // Workers asleep on the queue must wake up and exit.
  for (int rep = 0; rep < 5; ++rep)
    test::must_finish("idle destruction", [&] {
      Runtime rt(workers(GetParam()));
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    });
}

INSTANTIATE_TEST_SUITE_P(Workers, Errors, testing::Values(1, 2, 4),
                         [](const testing::TestParamInfo<int>& p) { return std::to_string(p.param) + "workers"; });

}  // namespace
}  // namespace hetla::rt
