// The runtime's seams for simulation: a Clock and an Executor given in
// RuntimeConfig are what the runtime reads time from and carries work out
// with. Here a simulated executor does not run task bodies; it advances a
// (per-thread) simulated clock by a task's flops in nanoseconds, and counts
// the copies to and from an accelerator instead of making them. Also: the
// copy threads of a device whose copies are memcpy yield the cores.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/host_memory_device.hpp"
#include "devices/emulated/emulated_device.hpp"
#include "runtime/runtime.hpp"
#include "runtime/runtime_detail.hpp"  // Task, as an executor sees it
#include "trace/trace.hpp"

namespace hetla::rt {
namespace {

thread_local int64_t t_sim_ns = 0;

class SimClock final : public Clock {
 public:
  int64_t now_ns() const override { return t_sim_ns; }
};

class SimExecutor final : public Executor {
 public:
  std::atomic<int> runs{0}, copies_in{0}, copies_out{0};
  void run(Task& t, TaskContext&) override {
    ++runs;
    t_sim_ns += static_cast<int64_t>(t.flops);  // at 1 flop/ns
  }
  void copy_in(dev::Device&, const Handle&, void*, const void*, int64_t, int64_t, int64_t, std::size_t) override {
    ++copies_in;
  }
  void copy_out(dev::Device&, const Handle&, void*, int64_t, const void*, int64_t, int64_t, std::size_t) override {
    ++copies_out;
  }
};

/// An accelerator with gemm only, whose kernels must never run here.
class NoRunDevice final : public test::HostMemoryDevice {
 public:
  NoRunDevice() : HostMemoryDevice("norun") {}
  bool has_kernel(dev::KernelId k) const override { return k == dev::KernelId::Gemm; }
  HETLA_DEVICE_KERNEL_OVERRIDES

 private:
  template <typename T, typename... A> void gemm_t(A...) { ADD_FAILURE() << "kernel ran"; }
  template <typename T, typename... A> void herk_t(A...) { ADD_FAILURE() << "kernel ran"; }
  template <typename T, typename... A> void trsm_t(A...) { ADD_FAILURE() << "kernel ran"; }
  template <typename T, typename... A> void trmm_t(A...) { ADD_FAILURE() << "kernel ran"; }
  template <typename T, typename... A> void laswp_t(A...) { ADD_FAILURE() << "kernel ran"; }
  template <typename T, typename... A> int64_t potrf_t(A...) {
    ADD_FAILURE() << "kernel ran";
    return 0;
  }
};

TEST(RuntimeSeams, BusyTimeAndTracesComeFromTheClockAndBodiesFromTheExecutor) {
  auto exec = std::make_shared<SimExecutor>();
  RuntimeConfig rc;
  rc.num_workers = 2;
  rc.pin_threads = false;
  rc.clock = std::make_shared<SimClock>();
  rc.executor = exec;
  Runtime rt(rc);
  trace::Recorder rec(rt.num_trace_rows());
  rt.set_trace(&rec);

  constexpr int kTasks = 40;
  std::vector<double> tiles(kTasks, 0.0);
  std::vector<Handle> handles(kTasks);
  std::atomic<int> bodies{0};
  for (int i = 0; i < kTasks; ++i) {
    handles[static_cast<std::size_t>(i)].set_host(&tiles[static_cast<std::size_t>(i)], 1, 1, 1, sizeof(double));
    TaskOptions opt;
    opt.flops = i % 2 ? 1000 : 2000;  // 1 or 2 us at the executor's 1 flop/ns
    rt.insert([&bodies](TaskContext&) { ++bodies; }, {RW(&handles[static_cast<std::size_t>(i)])}, opt);
  }
  rt.wait_all();
  rt.set_trace(nullptr);

  EXPECT_EQ(bodies.load(), 0) << "the executor runs the tasks";
  EXPECT_EQ(exec->runs.load(), kTasks);
  EXPECT_EQ(rt.tasks_executed(), static_cast<uint64_t>(kTasks));
  const double expected = (kTasks / 2) * 1e-6 + (kTasks / 2) * 2e-6;
  EXPECT_NEAR(rt.stats()[0].busy_seconds, expected, 1e-12);
  const auto events = rec.events();
  ASSERT_EQ(events.size(), static_cast<std::size_t>(kTasks));
  for (const auto& e : events) {
    const double d = e.end - e.start;
    EXPECT_TRUE(std::abs(d - 1e-6) < 1e-12 || std::abs(d - 2e-6) < 1e-12) << d;
  }
}

TEST(RuntimeSeams, CopiesGoThroughTheExecutor) {
  auto exec = std::make_shared<SimExecutor>();
  for (int depth : {0, 2}) {  // a worker copies, or the copy engine
    SCOPED_TRACE(depth);
    exec->copies_in = 0, exec->copies_out = 0;
    RuntimeConfig rc;
    rc.num_workers = 1;
    rc.pin_threads = false;
    rc.prefetch_depth = depth;
    rc.accelerators.push_back(std::make_shared<NoRunDevice>());
    rc.clock = std::make_shared<SimClock>();
    rc.executor = exec;
    Runtime rt(rc);
    double a = 0, b = 0;
    Handle ha, hb;
    ha.set_host(&a, 1, 1, 1, sizeof(double));
    hb.set_host(&b, 1, 1, 1, sizeof(double));
    TaskOptions on_device;
    on_device.kernel = dev::KernelId::Gemm;
    on_device.device = 1;
    rt.insert([](TaskContext&) {}, {R(&ha), RW(&hb)}, on_device);  // a and b in, b Modified there
    rt.insert([](TaskContext&) {}, {R(&hb)});                        // host reads b: b out
    rt.wait_all();
    EXPECT_EQ(exec->copies_in.load(), 2);
    EXPECT_EQ(exec->copies_out.load(), 1);
  }
}

// The nice of every thread of this process (Linux: /proc/self/task/*/stat,
// field 19).
std::vector<int> thread_nices() {
  std::vector<int> nices;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream in(e.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto close = stat.rfind(')');  // the name may hold spaces
    if (close == std::string::npos) continue;
    std::istringstream fields(stat.substr(close + 2));
    std::string f;
    for (int i = 3; i <= 19 && fields >> f; ++i)
      if (i == 19) nices.push_back(std::stoi(f));
  }
  return nices;
}

// An emulated device's copies are memcpy on the copy engine's and copy-out
// threads: those yield the cores to the workers (nice 10); a device whose
// copies it only waits for keeps them at the workers' priority.
TEST(RuntimeSeams, CopyThreadsOfAnEmulatedDeviceYieldTheCores) {
  auto at_ten = [] {
    const auto n = thread_nices();
    return std::count(n.begin(), n.end(), 10);
  };
  if (getpriority(PRIO_PROCESS, 0) != 0) GTEST_SKIP() << "run niced: new threads inherit it";
  const auto before = at_ten();
  for (bool emulated : {false, true}) {
    RuntimeConfig rc;
    rc.num_workers = 1;
    rc.pin_threads = false;
    if (emulated) rc.accelerators.push_back(std::make_shared<dev::EmulatedDevice>("emu0", dev::EmulatedConfig{}));
    else rc.accelerators.push_back(std::make_shared<NoRunDevice>());
    Runtime rt(rc);
    rt.wait_all();
    // the threads lower their own priority as they start: give them 2 s
    const auto want = emulated ? 2 : 0;
    for (int ms = 0; ms < 2000 && at_ten() - before != want; ++ms) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(at_ten() - before, want) << (emulated ? "emulated" : "host memory device");
  }
}

}  // namespace
}  // namespace hetla::rt
