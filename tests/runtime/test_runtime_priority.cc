// Priorities: when workers are scarce, ready tasks run highest priority first,
// ties in insertion order.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <random>
#include <vector>

#include "common/watchdog.hpp"
#include "runtime/runtime.hpp"
#include "runtime/runtime_detail.hpp"

namespace hetla::rt {
namespace {

struct Job {
  int id;
  int priority;
};

std::vector<Job> random_jobs(uint64_t seed, int n) {
  std::mt19937_64 g(seed);
  std::uniform_int_distribution<int> prio(-4, 4);
  std::vector<Job> jobs;
  for (int i = 0; i < n; ++i) jobs.push_back({i, prio(g)});
  return jobs;
}

std::vector<int> expected_order(std::vector<Job> jobs) {
  std::stable_sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.priority > b.priority; });
  std::vector<int> ids;
  for (const auto& j : jobs) ids.push_back(j.id);
  return ids;
}

TEST(Priority, SingleWorkerRunsReadyTasksByPriorityThenInsertionOrder) {
  // With one worker nothing runs until wait_all(), where the caller drains the
  // ready queue: the execution order is exactly the priority order.
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    auto jobs = random_jobs(seed, 200);
    RuntimeConfig cfg;
    cfg.num_workers = 1;
    Runtime rt(cfg);
    std::vector<Handle> hs(jobs.size());
    std::vector<int> order;
    for (const auto& j : jobs)
      rt.insert([&order, id = j.id](TaskContext& ctx) {
        EXPECT_EQ(ctx.worker, 0);
        order.push_back(id);
      }, {W(&hs[j.id])}, TaskOptions{j.priority, "job"});
    EXPECT_TRUE(order.empty()) << "a 1-worker runtime ran tasks before wait_all()";
    test::must_finish("wait_all", [&] { rt.wait_all(); });
    EXPECT_EQ(order, expected_order(jobs));
  }
}

TEST(Priority, TasksReleasedByADependenceAreOrderedToo) {
  // All jobs wait for one gate task; when it finishes they become ready
  // together and must run in priority order.
  RuntimeConfig cfg;
  cfg.num_workers = 1;
  Runtime rt(cfg);
  auto jobs = random_jobs(42, 64);
  Handle gate;
  std::vector<Handle> hs(jobs.size());
  std::vector<int> order;
  bool gate_ran = false;
  rt.insert([&](TaskContext&) { gate_ran = true; }, {W(&gate)}, TaskOptions{-100, "gate"});
  for (const auto& j : jobs)
    rt.insert([&, id = j.id](TaskContext&) {
      EXPECT_TRUE(gate_ran);
      order.push_back(id);
    }, {R(&gate), W(&hs[j.id])}, TaskOptions{j.priority, "job"});
  test::must_finish("wait_all", [&] { rt.wait_all(); });
  EXPECT_EQ(order, expected_order(jobs));
}

TEST(Priority, CallerDrainsByPriorityWhileOtherWorkersAreBusy) {
  // Three workers, two of them held by blocker tasks: the caller alone runs the
  // queued jobs inside wait_all(), in priority order. The blockers are
  // released once every job ran (bounded wait).
  RuntimeConfig cfg;
  cfg.num_workers = 3;
  cfg.pin_threads = false;
  Runtime rt(cfg);
  auto jobs = random_jobs(7, 100);
  std::vector<Handle> hs(jobs.size());
  Handle b1, b2;
  std::atomic<int> blockers_started{0};
  std::atomic<int> jobs_done{0};
  std::mutex m;
  std::vector<int> order;
  std::vector<int> ran_on_worker;
  for (Handle* b : {&b1, &b2})
    rt.insert([&](TaskContext&) {
      ++blockers_started;
      EXPECT_TRUE(test::wait_until([&] { return jobs_done.load() == static_cast<int>(jobs.size()); }));
    }, {W(b)}, TaskOptions{1000, "blocker"});
  ASSERT_TRUE(test::wait_until([&] { return blockers_started.load() == 2; }));
  for (const auto& j : jobs)
    rt.insert([&, id = j.id](TaskContext& ctx) {
      {
        std::lock_guard<std::mutex> lk(m);
        order.push_back(id);
        ran_on_worker.push_back(ctx.worker);
      }
      ++jobs_done;
    }, {W(&hs[j.id])}, TaskOptions{j.priority, "job"});
  test::must_finish("wait_all", [&] { rt.wait_all(); }, std::chrono::seconds(60));
  EXPECT_EQ(order, expected_order(jobs));
  for (int w : ran_on_worker) EXPECT_EQ(w, 0);
}

// The ready queue (a heap plus an in-order run) gives exactly a single
// heap's order, whatever order entries come in: random priorities and
// sequence numbers, runs of in-order entries, pops interleaved.
TEST(Priority, ReadyQueueTakesEntriesInExactlyAHeapsOrder) {
  constexpr int kOps = 2000;
  std::vector<Task> tasks(kOps);  // one per entry: pop() answers the task
  std::mt19937 rng(7);
  for (int round = 0; round < 30; ++round) {
    detail::ReadyQueue q;
    std::vector<detail::ReadyEntry> ref;  // std heap, the same order
    uint64_t last = 0;
    const int levels = 1 + round % 4;
    auto pop_and_compare = [&] {
      ASSERT_EQ(q.size(), ref.size());
      std::pop_heap(ref.begin(), ref.end(), detail::ReadyLess{});
      EXPECT_EQ(q.pop(), ref.back().task);
      ref.pop_back();
    };
    for (int op = 0; op < kOps; ++op) {
      if (rng() % 3 != 0 || ref.empty()) {
        // mostly in order (independent tasks), sometimes an older one (a
        // released successor); op makes every sequence number unique
        const uint64_t s = rng() % 6 == 0 ? rng() % (last + 1) : ++last;
        const int priority = rng() % 4 == 0 ? static_cast<int>(rng() % levels) : 0;
        const detail::ReadyEntry e{priority, s * kOps + static_cast<uint64_t>(op), &tasks[static_cast<std::size_t>(op)]};
        q.push(e);
        ref.push_back(e);
        std::push_heap(ref.begin(), ref.end(), detail::ReadyLess{});
      } else {
        pop_and_compare();
      }
    }
    while (!ref.empty()) pop_and_compare();
    EXPECT_TRUE(q.empty());
  }
}

}  // namespace
}  // namespace hetla::rt
