// hetla bench runtime: overhead of the task runtime with empty tasks.
// Shapes, each timed from the first insert() to the end of wait_all():
//   chain   - N tasks, each RW on the same handle (fully serial: dependence
//             tracking plus hand-over from task to task);
//   fan     - N independent tasks, each W on its own handle (throughput of
//             insertion and scheduling);
//   fanout  - one writer, then N readers of its handle (N successors released
//             by a single task).
// us_per_task is the worst of the three. A short warm-up run of every shape
// comes first, so thread start-up and the first task-pool allocations are not
// counted; every task is verified to have run.
#include <algorithm>
#include <limits>
#include <memory>
#include <stdexcept>

#include "bench/registry.hpp"
#include "runtime/runtime.hpp"

namespace hetla::cli {
namespace {

using rt::Runtime;

enum class Shape { Chain, Fan, FanOut };

/// Seconds to insert and run the shape with n tasks (n + 1 for fanout).
double time_shape(Runtime& runtime, Shape shape, int64_t n) {
  auto noop = [](rt::TaskContext&) {};
  const uint64_t before = runtime.tasks_executed();
  int64_t expected = n;
  double seconds = 0;
  if (shape == Shape::Fan) {
    std::vector<rt::Handle> handles(static_cast<std::size_t>(n));  // fresh handles, allocated untimed
    const double t0 = now_seconds();
    for (auto& h : handles) runtime.insert(noop, {rt::W(&h)});
    runtime.wait_all();
    seconds = now_seconds() - t0;
  } else {
    auto h = std::make_unique<rt::Handle>();
    const double t0 = now_seconds();
    if (shape == Shape::Chain) {
      for (int64_t i = 0; i < n; ++i) runtime.insert(noop, {rt::RW(h.get())});
    } else {
      runtime.insert(noop, {rt::W(h.get())});
      for (int64_t i = 0; i < n; ++i) runtime.insert(noop, {rt::R(h.get())});
      expected = n + 1;
    }
    runtime.wait_all();
    seconds = now_seconds() - t0;
  }
  const uint64_t ran = runtime.tasks_executed() - before;
  if (ran != static_cast<uint64_t>(expected))
    throw std::runtime_error("runtime benchmark: " + std::to_string(expected) + " tasks inserted but " +
                             std::to_string(ran) + " executed");
  return seconds;
}

Record run(const BenchConfig& c) {
  rt::RuntimeConfig cfg;  // default: one worker per core, pinned
  cfg.num_workers = c.threads;
  Runtime runtime(cfg);
  const int64_t n = c.n;
  const Shape shapes[] = {Shape::Chain, Shape::Fan, Shape::FanOut};
  for (Shape s : shapes) time_shape(runtime, s, std::min<int64_t>(n, 10000));  // warm-up
  double best[3];
  for (int k = 0; k < 3; ++k) {
    best[k] = std::numeric_limits<double>::infinity();
    for (int r = 0; r < std::max(1, c.repeat); ++r) best[k] = std::min(best[k], time_shape(runtime, shapes[k], n));
  }
  const double us_chain = best[0] / static_cast<double>(n) * 1e6;
  const double us_fan = best[1] / static_cast<double>(n) * 1e6;
  const double us_fanout = best[2] / static_cast<double>(n + 1) * 1e6;
  Record rec;
  rec.add("routine", c.routine, "", 7)
      .add("threads", static_cast<int64_t>(runtime.num_workers()), "thr")
      .add("ntasks", n, "", 8)
      .add("repeat", static_cast<int64_t>(c.repeat), "-")
      .add("chain_us_per_task", us_chain, "chain_us", 9, 3)
      .add("fan_us_per_task", us_fan, "fan_us", 9, 3)
      .add("fanout_us_per_task", us_fanout, "fanout_us", 9, 3)
      .add("us_per_task", std::max({us_chain, us_fan, us_fanout}), "worst_us", 9, 3)
      .add("chain_seconds", best[0], "-")
      .add("fan_seconds", best[1], "-")
      .add("fanout_seconds", best[2], "-");
  return rec;
}

const Registrar reg_runtime(
    {.name = "runtime",
     .summary = "task-runtime overhead with empty tasks (chain, fan, fan-out); -n = tasks per shape",
     .options = kOptRepeat | kOptThreads,
     .default_n = 200000,
     .library = false},
    run);

}  // namespace
}  // namespace hetla::cli
