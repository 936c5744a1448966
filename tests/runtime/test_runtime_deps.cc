// Targeted dependence tests: each would fail (with high probability) if the
// runtime dropped the dependence, because the first task is made slow while
// other workers are idle and would start the second one at once.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <ostream>
#include <thread>
#include <vector>

#include "common/watchdog.hpp"
#include "runtime/runtime.hpp"

namespace hetla::rt {

// Readable parameter names in gtest output (found by argument-dependent lookup).
void PrintTo(Mode m, std::ostream* os) { *os << (m == Mode::Read ? "R" : m == Mode::Write ? "W" : "RW"); }

namespace {

using namespace std::chrono_literals;
constexpr auto kSlow = 20ms;  // long enough for an idle worker to grab a wrongly-ready task

RuntimeConfig workers(int n) {
  RuntimeConfig c;
  c.num_workers = n;
  c.pin_threads = false;
  return c;
}

// Writer modes W and RW must both order against earlier and later accesses.
class WriterMode : public testing::TestWithParam<Mode> {};

TEST_P(WriterMode, ReadAfterWrite) {
  Runtime rt(workers(4));
  for (int rep = 0; rep < 5; ++rep) {
    Handle h;
    int value = 0;
    std::atomic<bool> writer_done{false};
    int seen = -1;
    bool seen_done = false;
    rt.insert(
        [&](TaskContext&) {
          std::this_thread::sleep_for(kSlow);
          value = 42;
          writer_done = true;
        },
        {Access{&h, GetParam()}});
    rt.insert(
        [&](TaskContext&) {
          seen_done = writer_done.load();
          seen = value;
        },
        {R(&h)});
    test::must_finish("wait_all", [&] { rt.wait_all(); });
    EXPECT_TRUE(seen_done);
    EXPECT_EQ(seen, 42);
  }
}

TEST_P(WriterMode, WriteAfterRead) {
  Runtime rt(workers(4));
  for (int rep = 0; rep < 5; ++rep) {
    Handle h;
    int value = 1;
    std::atomic<int> readers_done{0};
    int seen[3] = {-1, -1, -1};
    int readers_done_at_write = -1;
    rt.insert([&](TaskContext&) { value = 7; }, {W(&h)});
    for (int r = 0; r < 3; ++r)
      rt.insert(
          [&, r](TaskContext&) {
            std::this_thread::sleep_for(kSlow);
            seen[r] = value;
            ++readers_done;
          },
          {R(&h)});
    rt.insert(
        [&](TaskContext&) {
          readers_done_at_write = readers_done.load();
          value = 9;
        },
        {Access{&h, GetParam()}});
    test::must_finish("wait_all", [&] { rt.wait_all(); });
    for (int r = 0; r < 3; ++r) EXPECT_EQ(seen[r], 7) << "reader " << r;
    EXPECT_EQ(readers_done_at_write, 3) << "writer started before all earlier readers finished";
    EXPECT_EQ(value, 9);
  }
}

TEST_P(WriterMode, WriteAfterWrite) {
  Runtime rt(workers(4));
  for (int rep = 0; rep < 5; ++rep) {
    Handle h;
    std::vector<int> log;  // appended to by writers only: ordered by WaW
    std::atomic<bool> first_done{false};
    bool first_done_at_second = false;
    rt.insert(
        [&](TaskContext&) {
          std::this_thread::sleep_for(kSlow);
          log.push_back(1);
          first_done = true;
        },
        {W(&h)});
    rt.insert(
        [&](TaskContext&) {
          first_done_at_second = first_done.load();
          log.push_back(2);
        },
        {Access{&h, GetParam()}});
    test::must_finish("wait_all", [&] { rt.wait_all(); });
    EXPECT_TRUE(first_done_at_second);
    EXPECT_EQ(log, (std::vector<int>{1, 2}));
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, WriterMode, testing::Values(Mode::Write, Mode::ReadWrite),
                         [](const testing::TestParamInfo<Mode>& p) {
                           return p.param == Mode::Write ? std::string("W") : std::string("RW");
                         });

TEST(Dependences, ChainOfReadWritesIsSerial) {
  // 2000 RW tasks on one handle: x = 3x + i (mod 2^64) depends on the exact order.
  Runtime rt(workers(4));
  Handle h;
  uint64_t x = 1, expect = 1;
  for (uint64_t i = 0; i < 2000; ++i) {
    rt.insert([&x, i](TaskContext&) { x = 3 * x + i; }, {RW(&h)}, TaskOptions{static_cast<int>(i % 5)});
    expect = 3 * expect + i;
  }
  test::must_finish("wait_all", [&] { rt.wait_all(); });
  EXPECT_EQ(x, expect);
}

TEST(Dependences, IndependentTasksAllRun) {
  Runtime rt(workers(4));
  std::vector<Handle> hs(100);
  std::vector<int> hit(100, 0);
  for (int i = 0; i < 100; ++i) rt.insert([&hit, i](TaskContext&) { hit[i] += 1; }, {W(&hs[i])});
  test::must_finish("wait_all", [&] { rt.wait_all(); });
  for (int i = 0; i < 100; ++i) EXPECT_EQ(hit[i], 1) << i;
  EXPECT_EQ(rt.tasks_executed(), 100u);
}

TEST(Dependences, ConcurrentReadersOverlap) {
  // Two readers of one handle must be able to run at the same time: each waits
  // (bounded) for the other to arrive. A runtime that serialised readers would
  // make the first one time out.
  Runtime rt(workers(2));
  for (int rep = 0; rep < 3; ++rep) {
    Handle h;
    int value = 0;
    std::atomic<int> arrived{0};
    std::atomic<int> met{0};
    rt.insert([&](TaskContext&) { value = 5; }, {W(&h)});
    for (int r = 0; r < 2; ++r)
      rt.insert(
          [&](TaskContext&) {
            EXPECT_EQ(value, 5);
            ++arrived;
            if (test::wait_until([&] { return arrived.load() == 2; })) ++met;
          },
          {R(&h)});
    test::must_finish("wait_all", [&] { rt.wait_all(); }, std::chrono::seconds(60));
    EXPECT_EQ(met.load(), 2) << "readers of one handle did not run concurrently";
  }
}

TEST(Dependences, WaitReturnsAfterTheHandlesWriter) {
  for (int n : {1, 2, 4}) {
    SCOPED_TRACE(testing::Message() << n << " workers");
    Runtime rt(workers(n));
    Handle h, other;
    std::atomic<int> value{0};
    int other_value = 0;
    rt.insert([&](TaskContext&) { other_value = 1; }, {W(&other)});
    rt.insert(
        [&](TaskContext&) {
          std::this_thread::sleep_for(kSlow);
          value = 11;
        },
        {W(&h)});
    rt.insert([&](TaskContext&) { value = value * 2; }, {RW(&h)});
    test::must_finish("wait(h)", [&] { rt.wait(&h); });
    EXPECT_EQ(value.load(), 22);
    test::must_finish("wait_all", [&] { rt.wait_all(); });
    EXPECT_EQ(other_value, 1);
  }
}

TEST(Dependences, WaitDoesNotWaitForUnrelatedTasksOrReaders) {
  // wait(h) waits for the writers of h only: a blocked task on another handle
  // and a blocked reader of h must not delay it.
  Runtime rt(workers(3));
  Handle h, other;
  test::Gate release;
  std::atomic<int> started{0};
  std::atomic<bool> blocked_finished{false};
  int value = 0;
  rt.insert(
      [&](TaskContext&) {
        ++started;
        EXPECT_TRUE(release.wait());
        blocked_finished = true;
      },
      {RW(&other)});
  rt.insert([&](TaskContext&) { value = 3; }, {W(&h)});
  ASSERT_TRUE(test::wait_until([&] { return started.load() == 1; }));
  test::must_finish("wait(h) with a blocked reader",
                    [&] {
                      // The reader needs `value`'s writer first, so it cannot start before it.
                      rt.insert(
                          [&](TaskContext&) {
                            ++started;
                            EXPECT_TRUE(release.wait());
                          },
                          {R(&h)});
                      ASSERT_TRUE(test::wait_until([&] { return started.load() == 2; }));
                      rt.wait(&h);
                    });
  EXPECT_EQ(value, 3);
  EXPECT_FALSE(blocked_finished.load());
  release.open();
  test::must_finish("wait_all", [&] { rt.wait_all(); });
  EXPECT_TRUE(blocked_finished.load());
}

TEST(Dependences, HandlesReusableAcrossRuntimes) {
  // A handle keeps references to tasks of the runtime that used it last; a
  // different runtime must ignore them (they may be recycled or freed).
  Handle h;
  int value = 0;
  {
    Runtime a(workers(2));
    for (int i = 0; i < 10; ++i) a.insert([&](TaskContext&) { value += 1; }, {RW(&h)});
    // leave the last writer pending in `a`'s bookkeeping, then destroy `a`
  }
  EXPECT_EQ(value, 10);
  Runtime b(workers(2));
  Runtime c(workers(2));
  int seen = -1;
  b.insert([&](TaskContext&) { seen = value; }, {R(&h)});
  test::must_finish("wait_all on a second runtime", [&] { b.wait_all(); });
  EXPECT_EQ(seen, 10);
  // Alternate between two live runtimes with the same handle.
  for (int round = 0; round < 20; ++round) {
    Runtime& r = round % 2 ? b : c;
    r.insert(
        [&](TaskContext&) {
          std::this_thread::sleep_for(std::chrono::microseconds(200));
          value *= 2;
        },
        {W(&h)});
    r.insert([&](TaskContext&) { value += 1; }, {RW(&h)});
    test::must_finish("wait_all", [&] { r.wait_all(); });
  }
  int expect = 10;
  for (int round = 0; round < 20; ++round) expect = expect * 2 + 1;
  EXPECT_EQ(value, expect);
  EXPECT_NE(b.id(), c.id());
}

TEST(Dependences, ManyReadersThenWriter) {
  // More readers than a task keeps successors inline (16), all before one writer.
  Runtime rt(workers(4));
  Handle h;
  int value = 1;
  std::atomic<int> sum{0};
  std::atomic<int> readers_done{0};
  int done_at_write = -1;
  for (int r = 0; r < 100; ++r)
    rt.insert(
        [&](TaskContext&) {
          sum += value;
          ++readers_done;
        },
        {R(&h)});
  rt.insert(
      [&](TaskContext&) {
        done_at_write = readers_done.load();
        value = 2;
      },
      {W(&h)});
  for (int r = 0; r < 40; ++r) rt.insert([&](TaskContext&) { sum += value; }, {R(&h)});
  test::must_finish("wait_all", [&] { rt.wait_all(); });
  EXPECT_EQ(done_at_write, 100);
  EXPECT_EQ(sum.load(), 100 * 1 + 40 * 2);
}

TEST(Dependences, WriterWaitsForASlowReaderAmongManyFinishedOnes) {
  // The handle's list of readers drops the finished ones as it grows
  // (Runtime::prune_readers); a slow first reader, still running while
  // thousands of later readers finish and are recycled, must stay in it.
  Runtime rt(workers(2));
  Handle h;
  std::atomic<bool> slow_done{false};
  bool slow_done_at_write = false;
  rt.insert(
      [&](TaskContext&) {
        std::this_thread::sleep_for(kSlow);
        slow_done = true;
      },
      {R(&h)});
  std::atomic<int> fast{0};
  for (int r = 0; r < 5000; ++r) rt.insert([&](TaskContext&) { ++fast; }, {R(&h)});
  rt.insert([&](TaskContext&) { slow_done_at_write = slow_done.load(); }, {W(&h)});
  test::must_finish("wait_all", [&] { rt.wait_all(); });
  EXPECT_TRUE(slow_done_at_write) << "writer started before the slow reader finished";
  EXPECT_EQ(fast.load(), 5000);
}

TEST(Dependences, OneWriterManySuccessors) {
  // A writer with many dependent readers (beyond the inline successor buffer).
  Runtime rt(workers(4));
  Handle h;
  std::vector<Handle> out(64);
  int value = 0;
  std::vector<int> seen(64, -1);
  rt.insert(
      [&](TaskContext&) {
        std::this_thread::sleep_for(kSlow);
        value = 77;
      },
      {W(&h)});
  for (int r = 0; r < 64; ++r) rt.insert([&, r](TaskContext&) { seen[r] = value; }, {R(&h), W(&out[r])});
  test::must_finish("wait_all", [&] { rt.wait_all(); });
  for (int r = 0; r < 64; ++r) EXPECT_EQ(seen[r], 77) << r;
}

}  // namespace
}  // namespace hetla::rt
