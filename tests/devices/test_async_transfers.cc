// Asynchronous transfers: each accelerator's copy engine stages the next
// tasks of its queue (inputs copied in and pinned) while its workers compute.
// Results must not depend on it (bit-equal to synchronous copies and to the
// host), transfers must really overlap kernels, eviction under a tiny device
// memory must still work with prefetched (pinned) tiles, and injected faults
// must surface as clear errors without hangs.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "checks.hpp"
#include "common/watchdog.hpp"
#include "devices/emulated/emulated_device.hpp"
#include "devices/spec.hpp"
#include "hetla/hetla.hpp"
#include "matgen.hpp"
#include "context/context.hpp"
#include "trace/trace.hpp"

namespace hetla {
namespace {

rt::RuntimeConfig config_for(const char* devices, int prefetch_depth,
                             rt::Schedule schedule = rt::Schedule::Dynamic) {
  dev::DeviceSet set = dev::parse_devices(devices);
  rt::RuntimeConfig rc;
  rc.accelerators = std::move(set.accelerators);
  rc.host_computes = set.host_computes;
  rc.num_workers = 1;  // small machines: one host worker besides the device threads
  rc.pin_threads = false;
  rc.prefetch_depth = prefetch_depth;
  rc.schedule = schedule;
  return rc;
}

std::vector<rt::DeviceStats> stats_now() {
  detail::CallScope scope;
  return scope.rt().stats();
}

// Factors A (n x n, lower) with the given runtime; returns the factor.
std::vector<double> factor(const std::vector<double>& A, int64_t n, int64_t nb, Distribution dist = Distribution::Default) {
  auto F = A;
  Options o;
  o.nb = nb;
  o.distribution = dist;
  int64_t info = -1;
  test::must_finish("potrf", [&] { info = potrf<double>(Uplo::Lower, n, F.data(), n, o); });
  EXPECT_EQ(info, 0);
  return F;
}

class AsyncTransfers : public testing::Test {
 protected:
  void TearDown() override { finalize(); }
};

// Throttled copies through copy engines give the same bits as copies made by
// the workers themselves (prefetch_depth 0) and as the host alone: every
// device runs the same host kernels on the same operands in dependence order.
TEST_F(AsyncTransfers, BitEqualToSynchronousCopiesAndHost) {
  const int64_t n = 360, nb = 40;
  auto A = bench::random_hpd<double>(n, n, 21);
  init(Config{});
  const auto ref = factor(A, n, nb);
  EXPECT_LT(bench::potrf_residual<double>(Uplo::Lower, n, A.data(), n, ref.data(), n), bench::kResidualThreshold);
  for (int depth : {0, 1, 2, 4}) {
    for (auto sched : {rt::Schedule::Dynamic, rt::Schedule::Static}) {
      detail::init_runtime(config_for("cpu,emu:speed=0.5:bw=2:lat=10,emu:speed=0.25:bw=2", depth, sched));
      const auto F = factor(A, n, nb, sched == rt::Schedule::Static ? Distribution::Weighted : Distribution::Default);
      EXPECT_EQ(std::memcmp(F.data(), ref.data(), F.size() * sizeof(double)), 0)
          << "prefetch depth " << depth << (sched == rt::Schedule::Static ? " static" : " dynamic");
      auto st = stats_now();
      EXPECT_GT(st[1].tasks + st[2].tasks, 0u) << "the accelerators ran nothing";
      EXPECT_GT(st[1].bytes_in + st[2].bytes_in, 0u);
    }
  }
}

// Placement at random over devices that each hold only a few tiles, copies
// throttled: prefetched tiles are pinned, so eviction must skip them and the
// copy engine must wait for the running task to release memory. The factor
// is still the host's, bit for bit, and the devices did evict.
TEST_F(AsyncTransfers, RandomPlacementTinyMemoryMatchesHost) {
  const int64_t n = 300, nb = 50;  // 6x6 tiles of 20000 bytes
  auto A = bench::random_hpd<double>(n, n, 4);
  init(Config{});
  const auto ref = factor(A, n, nb);
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    // 60K: exactly one gemm's three tiles; 100K: five tiles.
    auto rc = config_for("emu:mem=60K:bw=4,emu:speed=0.5:mem=100K:bw=4", 2);
    rc.random_placement = true;
    rc.random_seed = seed;
    detail::init_runtime(rc);
    const auto F = factor(A, n, nb);
    EXPECT_EQ(std::memcmp(F.data(), ref.data(), F.size() * sizeof(double)), 0) << "seed " << seed;
    auto st = stats_now();
    EXPECT_GT(st[1].evictions + st[2].evictions, 0u) << "seed " << seed;
  }
}

// The device memory limit far below the matrix, with deep prefetch: the
// factorization finishes out of core, equal to the host's.
TEST_F(AsyncTransfers, DeepPrefetchUnderMemoryLimitEvictsAndMatches) {
  const int64_t n = 400, nb = 50;
  auto A = bench::random_hpd<double>(n, n, 9);
  init(Config{});
  const auto ref = factor(A, n, nb);
  detail::init_runtime(config_for("emu:mem=120K:bw=8", 4));
  const auto F = factor(A, n, nb);
  EXPECT_EQ(std::memcmp(F.data(), ref.data(), F.size() * sizeof(double)), 0);
  auto st = stats_now();
  EXPECT_GT(st[1].evictions, 0u);
  EXPECT_GT(st[1].bytes_out, 0u);
}

// A device too small for a single task's tiles still fails clearly (the copy
// engine does not wait forever for memory nobody will release).
TEST_F(AsyncTransfers, DeviceTooSmallForOneTaskIsReported) {
  const int64_t n = 200, nb = 50;  // a gemm needs three 20000-byte tiles
  auto A = bench::random_hpd<double>(n, n, 2);
  detail::init_runtime(config_for("emu:mem=50K:bw=8", 2));
  try {
    test::must_finish("potrf", [&] { potrf<double>(Uplo::Lower, n, A.data(), n, Options{nb}); });
    FAIL() << "expected an out-of-memory error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("out of device memory"), std::string::npos) << e.what();
  }
}

// A transfer on the copy engine's trace row runs while the same device's
// worker runs a kernel: inputs of the next tasks arrive during the current one.
TEST_F(AsyncTransfers, TraceShowsCopiesOverlappingKernels) {
  dev::EmulatedConfig ec;
  ec.speed = 0.5;         // kernels stretched: they take wall time even on a busy machine
  ec.bandwidth_gbs = 1;   // a 128 KB tile takes ~0.13 ms to copy
  rt::RuntimeConfig rc;
  rc.accelerators = {std::make_shared<dev::EmulatedDevice>("emu0", ec)};
  rc.num_workers = 1;
  rc.pin_threads = false;
  rc.prefetch_depth = 2;
  // Host checkpoints copy each result out on the device's copy-out thread
  // (copy_engine.cc, a row of its own): off here, where every copy must be
  // the copy engine's.
  rc.host_checkpoints = false;
  rt::Runtime runtime(rc);
  ASSERT_EQ(runtime.num_trace_rows(), runtime.num_workers() + 2);
  ASSERT_EQ(runtime.checkpoint_row(1), runtime.num_workers() + 1);
  const int copy_row = runtime.copy_engine_row(1);
  ASSERT_EQ(copy_row, runtime.num_workers());
  int dev_row = -1;
  for (int w = 0; w < runtime.num_workers(); ++w)
    if (runtime.device_of_worker(w) == 1) dev_row = w;
  ASSERT_GE(dev_row, 0);

  constexpr int kTasks = 12, kN = 128;
  std::vector<std::vector<double>> a(kTasks), c(kTasks);
  std::vector<std::unique_ptr<rt::Handle>> ha, hc;
  for (int i = 0; i < kTasks; ++i) {
    a[i] = bench::random_matrix<double>(kN, kN, kN, 100 + static_cast<uint64_t>(i));
    c[i].assign(kN * kN, 1.0);
    ha.push_back(std::make_unique<rt::Handle>());
    hc.push_back(std::make_unique<rt::Handle>());
    ha.back()->set_host(a[i].data(), kN, kN, kN, sizeof(double));
    hc.back()->set_host(c[i].data(), kN, kN, kN, sizeof(double));
  }
  trace::Recorder rec(runtime.num_trace_rows());
  runtime.set_trace(&rec);
  for (int i = 0; i < kTasks; ++i) {
    rt::TaskOptions opt;
    opt.label = "gemm";
    opt.kernel = dev::KernelId::Gemm;
    opt.flops = 2.0 * kN * kN * kN;
    opt.device = 1;
    runtime.insert(
        [](rt::TaskContext& ctx) {  // C += A * A on the device
          ctx.kernels<double>().gemm(Op::NoTrans, Op::NoTrans, kN, kN, kN, 1.0, ctx.ptr<double>(0), ctx.ld(0),
                                     ctx.ptr<double>(0), ctx.ld(0), 1.0, ctx.ptr<double>(1), ctx.ld(1));
        },
        {rt::R(ha[i].get()), rt::RW(hc[i].get())}, opt);
  }
  test::must_finish("wait_all", [&] { runtime.wait_all(); });
  runtime.set_trace(nullptr);

  // Results: the host's own gemm, bit for bit (same kernel, same operands).
  for (int i = 0; i < kTasks; ++i) {
    std::vector<double> expect(kN * kN, 1.0);
    dev::HostKernelImpl::gemm<double>(Op::NoTrans, Op::NoTrans, kN, kN, kN, 1.0, a[i].data(), kN, a[i].data(), kN,
                                      1.0, expect.data(), kN);
    EXPECT_EQ(std::memcmp(expect.data(), c[i].data(), expect.size() * sizeof(double)), 0) << "task " << i;
  }

  const auto ev = rec.events();
  std::vector<trace::Event> copies, kernels;
  for (const auto& e : ev) {
    if (e.worker == copy_row) {
      EXPECT_TRUE(trace::is_transfer(e)) << e.label;
      copies.push_back(e);
    } else if (e.worker == dev_row) {
      EXPECT_FALSE(trace::is_transfer(e)) << "worker row has transfer " << e.label;  // copies left the worker
      kernels.push_back(e);
    }
  }
  EXPECT_EQ(kernels.size(), static_cast<std::size_t>(kTasks));
  ASSERT_GE(copies.size(), static_cast<std::size_t>(2 * kTasks));  // A and C of each task
  for (const auto& e : copies) EXPECT_EQ(e.bytes, static_cast<uint64_t>(kN * kN * sizeof(double)));
  int overlapping = 0;
  for (const auto& cp : copies)
    for (const auto& k : kernels)
      if (cp.start < k.end && k.start < cp.end) {
        ++overlapping;
        break;
      }
  EXPECT_GE(overlapping, kTasks / 2) << "copies overlapping a kernel of the same device";

  // Summaries tell the copy engine's row from the workers': it is no worker
  // for the load imbalance.
  const auto sum = trace::summarize(ev, runtime.num_trace_rows());
  EXPECT_TRUE(sum.workers[static_cast<std::size_t>(copy_row)].transfers_only);
  EXPECT_FALSE(sum.workers[static_cast<std::size_t>(dev_row)].transfers_only);
  const std::vector<trace::Event> synthetic = {
      {"gemm", 0, 0, 1}, {"gemm", 1, 0, 1}, {"copy_in", 2, 0, 0.5, 64, trace::Kind::Transfer}};
  EXPECT_DOUBLE_EQ(trace::summarize(synthetic, 3).imbalance, 1.0);

  // Chrome JSON names the copy row.
  std::vector<std::string> names(static_cast<std::size_t>(runtime.num_trace_rows()));
  for (int w = 0; w < runtime.num_workers(); ++w) names[static_cast<std::size_t>(w)] = "worker " + std::to_string(w);
  names[static_cast<std::size_t>(copy_row)] = "emu0 copy";
  const std::string json = trace::to_chrome_json(ev, runtime.num_trace_rows(), names);
  EXPECT_NE(json.find("\"emu0 copy\""), std::string::npos);
  EXPECT_NE(json.find("\"cat\":\"transfer\",\"ph\":\"X\",\"pid\":0,\"tid\":" + std::to_string(copy_row)),
            std::string::npos);

  // A recorder with only the workers' rows: transfers are dropped, nothing breaks.
  trace::Recorder small(runtime.num_workers());
  runtime.set_trace(&small);
  for (int i = 0; i < kTasks; ++i) {
    rt::TaskOptions opt;
    opt.label = "scale";
    opt.kernel = dev::KernelId::Gemm;
    opt.device = 1;
    runtime.insert([](rt::TaskContext&) {}, {rt::RW(hc[i].get())}, opt);
  }
  runtime.wait_all();
  runtime.set_trace(nullptr);
  for (const auto& e : small.events()) EXPECT_LT(e.worker, runtime.num_workers());
  EXPECT_EQ(small.events().size(), static_cast<std::size_t>(kTasks));
}

// Host tasks that read tiles a device wrote: the device's copy engine writes
// them back ahead of time (requested when the host task became ready), or the
// host worker copies them itself; either way the host task sees the device's
// result, the device replica stays valid (Shared), and written-back data
// reaches the user's array when the call ends.
TEST_F(AsyncTransfers, HostReadersOfDeviceResultsSeeThem) {
  dev::EmulatedConfig ec;
  ec.bandwidth_gbs = 2;
  ec.latency_us = 20;
  rt::RuntimeConfig rc;
  rc.accelerators = {std::make_shared<dev::EmulatedDevice>("emu0", ec),
                     std::make_shared<dev::EmulatedDevice>("emu1", ec)};
  rc.num_workers = 1;  // the caller: busy with `hold` below while the devices work
  rc.pin_threads = false;
  rc.host_checkpoints = false;  // with them the host copy is always valid: no write-back is ever needed
  rt::Runtime runtime(rc);
  trace::Recorder rec(runtime.num_trace_rows());
  runtime.set_trace(&rec);
  rt::Handle other;
  double other_data = 0;
  other.set_host(&other_data, 1, 1, 1, sizeof(double));
  rt::TaskOptions hold;
  hold.label = "hold";
  hold.device = 0;
  hold.priority = 1000;  // the caller runs it first, so the first host readers wait for it
  runtime.insert([](rt::TaskContext&) { std::this_thread::sleep_for(std::chrono::milliseconds(60)); },
                 {rt::RW(&other)}, hold);

  constexpr int kTiles = 16, kN = 64, kRounds = 3;
  std::vector<std::vector<double>> x(kTiles, std::vector<double>(kN * kN, 0.0));
  std::vector<std::unique_ptr<rt::Handle>> hx;
  for (int i = 0; i < kTiles; ++i) {
    hx.push_back(std::make_unique<rt::Handle>());
    hx.back()->set_host(x[i].data(), kN, kN, kN, sizeof(double));
  }
  std::atomic<int> wrong{0};
  for (int round = 0; round < kRounds; ++round) {
    for (int i = 0; i < kTiles; ++i) {
      rt::TaskOptions dev_opt;
      dev_opt.label = "dev_add";
      dev_opt.kernel = dev::KernelId::Gemm;
      dev_opt.device = 1 + (i + round) % 2;
      // On the device: every element += i + 1 (the emulated memory is host-addressable).
      runtime.insert(
          [i](rt::TaskContext& ctx) {
            double* p = ctx.ptr<double>(0);
            for (int k = 0; k < kN * kN; ++k) p[k] += i + 1;
          },
          {rt::RW(hx[i].get())}, dev_opt);
      rt::TaskOptions host_opt;
      host_opt.label = "host_check";
      host_opt.device = 0;
      const double expect = static_cast<double>((round + 1) * (i + 1));
      runtime.insert(
          [&wrong, expect](rt::TaskContext& ctx) {
            const double* p = ctx.ptr<double>(0);
            for (int k = 0; k < kN * kN; ++k)
              if (p[k] != expect) {
                ++wrong;
                break;
              }
          },
          {rt::R(hx[i].get())}, host_opt);
    }
  }
  test::must_finish("wait_all", [&] { runtime.wait_all(); });
  runtime.set_trace(nullptr);
  EXPECT_EQ(wrong.load(), 0);
  for (int i = 0; i < kTiles; ++i)
    EXPECT_EQ(x[i][0], static_cast<double>(kRounds * (i + 1))) << "tile " << i;
  const auto st = runtime.stats();
  EXPECT_GT(st[1].bytes_out + st[2].bytes_out, 0u);
  int engine_writebacks = 0;
  for (const auto& e : rec.events())
    if (e.worker >= runtime.num_workers() && std::string(e.label) == "copy_out") ++engine_writebacks;
  EXPECT_GT(engine_writebacks, 0) << "no write-back ran on a copy engine";
}

// Faults with copy engines and throttled copies: a device that cannot allocate
// (the copy engine fails while staging) reports a clear error; one whose
// kernels throw leaves the call, which another device finishes, or is an
// error when no device is left; nothing hangs and the next call works.
TEST_F(AsyncTransfers, FaultsAreReportedWithoutHangs) {
  const int64_t n = 240, nb = 40;
  auto A = bench::random_hpd<double>(n, n, 1);
  struct Case {
    const char* devices;
    const char* expect;
  };
  for (const Case& cs : {Case{"cpu,emu:fail=alloc:bw=4,emu:speed=0.5:bw=4", "out of device memory"},
                         Case{"emu:bw=4,emu:fail=kernel:bw=4", nullptr},  // recovered on emu0 (docs/reliability.md)
                         Case{"emu:fail=kernel:bw=4", "no device left"},
                         Case{"emu:fail=alloc:bw=4", "out of device memory"}}) {
    for (int depth : {1, 3}) {
      auto rc = config_for(cs.devices, depth);
      rc.random_placement = true;  // every device gets tasks
      rc.random_seed = static_cast<uint64_t>(depth);
      detail::init_runtime(rc);
      auto F = A;
      try {
        test::must_finish("potrf", [&] { potrf<double>(Uplo::Lower, n, F.data(), n, Options{nb}); });
        if (cs.expect) ADD_FAILURE() << cs.devices << ": expected an error";
        else EXPECT_LT(bench::potrf_residual(Uplo::Lower, n, A.data(), n, F.data(), n), bench::kResidualThreshold);
      } catch (const std::runtime_error& e) {
        if (!cs.expect) ADD_FAILURE() << cs.devices << ": " << e.what();
        else EXPECT_NE(std::string(e.what()).find(cs.expect), std::string::npos) << cs.devices << ": " << e.what();
      }
      // Nothing was left stuck: the same runtime runs host tasks and drains.
      detail::CallScope scope;
      rt::Runtime& r = scope.rt();
      std::atomic<int> ran{0};
      double x = 0;
      rt::Handle h;
      h.set_host(&x, 1, 1, 1, sizeof(double));
      rt::TaskOptions opt;
      opt.device = 0;
      for (int i = 0; i < 10; ++i) r.insert([&](rt::TaskContext&) { ++ran; }, {rt::RW(&h)}, opt);
      EXPECT_NO_THROW(test::must_finish("wait_all", [&] { r.wait_all(); })) << cs.devices;
      EXPECT_EQ(ran.load(), 10) << cs.devices;
    }
  }
}

}  // namespace
}  // namespace hetla
