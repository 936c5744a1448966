// Placement decisions on hand-made snapshots (no runtime, no threads): flags
// that keep a task on the host, owner-computes under the static schedule, the
// greedy choice under the dynamic one (queued work, rate, bytes to move), a
// forced device, host_computes, the random test hook.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "runtime/placement.hpp"

namespace hetla::rt {
namespace {

constexpr double kGflop = 1e9;

/// The host cores (4 workers at 40 Gflop/s each) and one accelerator (one
/// worker at 400 Gflop/s) with the task's kernel and fp64, nothing queued,
/// nothing to move.
std::vector<DeviceView> host_and_gpu() {
  DeviceView host;
  host.rate = 40 * kGflop;
  host.workers = 4;
  DeviceView gpu;
  gpu.has_kernel = true;
  gpu.rate = 400 * kGflop;
  gpu.bandwidth = 10e9;
  return {host, gpu};
}

PlacementSnapshot gemm(const std::vector<DeviceView>& devices, double flops = 1e9) {
  PlacementSnapshot s;
  s.kernel = dev::KernelId::Gemm;
  s.flops = flops;
  s.devices = devices;
  return s;
}

TEST(Placement, FastAcceleratorTakesAGemm) {
  auto devs = host_and_gpu();
  Placement p;
  const PlacementDecision d = p.decide(gemm(devs));
  EXPECT_EQ(d.device, 1);
  EXPECT_EQ(d.est_ns, static_cast<int64_t>(1e9 / (400 * kGflop) * 1e9));  // 2.5 ms
}

TEST(Placement, HostCoresAloneTakeEverything) {
  std::vector<DeviceView> devs{host_and_gpu()[0]};
  Placement p;
  auto s = gemm(devs);
  s.forced = -1;
  EXPECT_EQ(p.decide(s).device, 0);
  EXPECT_EQ(p.decide(s).est_ns, 0) << "a lone host queue keeps no queued-work account";
}

TEST(Placement, HostOnlyMemoryBoundAndKernelLessTasksStayOnTheHost) {
  auto devs = host_and_gpu();
  Placement p;
  for (uint32_t flag : {uint32_t{kHostOnly}, uint32_t{kMemoryBound}}) {
    auto s = gemm(devs);
    s.flags = flag;
    const PlacementDecision d = p.decide(s);
    EXPECT_EQ(d.device, 0) << "flags " << flag;
    EXPECT_EQ(d.est_ns, static_cast<int64_t>(1e9 / (40 * kGflop) * 1e9));
  }
  auto s = gemm(devs);
  s.kernel = dev::KernelId::None;
  EXPECT_EQ(p.decide(s).device, 0);
  EXPECT_FALSE(Placement::offloadable(kHostOnly, dev::KernelId::Gemm));
  EXPECT_FALSE(Placement::offloadable(kMemoryBound, dev::KernelId::Gemm));
  EXPECT_FALSE(Placement::offloadable(kNoFlags, dev::KernelId::None));
  EXPECT_TRUE(Placement::offloadable(kPanel | kFp64, dev::KernelId::Trsm));
}

TEST(Placement, AcceleratorWithoutTheKernelIsNoCandidate) {
  auto devs = host_and_gpu();
  devs[1].has_kernel = false;
  Placement p;
  EXPECT_EQ(p.decide(gemm(devs)).device, 0);
  // ... even when the host may not compute: it runs what no accelerator can.
  auto s = gemm(devs);
  s.host_computes = false;
  EXPECT_EQ(p.decide(s).device, 0);
}

TEST(Placement, Fp64TasksAvoidDevicesWithoutFp64) {
  auto devs = host_and_gpu();
  devs[1].has_fp64 = false;
  Placement p;
  auto s = gemm(devs);
  s.flags = kFp64;
  EXPECT_EQ(p.decide(s).device, 0);
  s.flags = kNoFlags;  // single precision: the device is fine
  EXPECT_EQ(p.decide(s).device, 1);
  devs[1].has_fp64 = true;
  s.flags = kFp64;
  EXPECT_EQ(p.decide(s).device, 1);
}

TEST(Placement, DynamicCountsQueuedWorkPerWorker) {
  auto devs = host_and_gpu();
  Placement p;
  // The task: 2.5 ms on the GPU, 25 ms on a core. 30 ms queued on the GPU
  // makes the host (idle) finish first.
  devs[1].queued_ns = 30'000'000;
  EXPECT_EQ(p.decide(gemm(devs)).device, 0);
  // 20 ms queued on the host, shared by its 4 workers: 5 + 25 < 30 + 2.5.
  devs[0].queued_ns = 20'000'000;
  EXPECT_EQ(p.decide(gemm(devs)).device, 0);
  // With one host worker the same 20 ms count in full: 20 + 25 > 32.5.
  devs[0].workers = 1;
  EXPECT_EQ(p.decide(gemm(devs)).device, 1);
  // 40 ms over 4 workers: 10 + 25 > 32.5.
  devs[0].workers = 4;
  devs[0].queued_ns = 40'000'000;
  EXPECT_EQ(p.decide(gemm(devs)).device, 1);
}

TEST(Placement, DynamicCountsBytesToMove) {
  auto devs = host_and_gpu();
  Placement p;
  // 2.5 ms on the GPU against 25 ms on a core: 200 MB at 10 GB/s (20 ms)
  // still leave the GPU ahead, 300 MB (30 ms) do not.
  devs[1].bytes_to_move = 200e6;
  EXPECT_EQ(p.decide(gemm(devs)).device, 1);
  devs[1].bytes_to_move = 300e6;
  EXPECT_EQ(p.decide(gemm(devs)).device, 0);
  // A faster link brings it back.
  devs[1].bandwidth = 100e9;
  EXPECT_EQ(p.decide(gemm(devs)).device, 1);
  // Bytes the host lacks count against the host as well.
  devs[1].bandwidth = 10e9;
  devs[0].bytes_to_move = 300e6;
  EXPECT_EQ(p.decide(gemm(devs)).device, 1);
}

TEST(Placement, DynamicPicksTheFastestOfSeveralAccelerators) {
  auto devs = host_and_gpu();
  DeviceView slow = devs[1];
  slow.rate = 100 * kGflop;
  devs.insert(devs.begin() + 1, slow);  // devices: host, slow, fast
  Placement p;
  EXPECT_EQ(p.decide(gemm(devs)).device, 2);
  devs[2].queued_ns = 20'000'000;  // fast: 20 + 2.5 ms, slow: 10 ms
  EXPECT_EQ(p.decide(gemm(devs)).device, 1);
}

TEST(Placement, StaticOwnerComputesFollowsTheHome) {
  auto devs = host_and_gpu();
  Placement p;
  auto s = gemm(devs);
  s.schedule = Schedule::Static;
  s.home = 0;  // the host owns the tile the task writes: it runs there, slower or not
  PlacementDecision d = p.decide(s);
  EXPECT_EQ(d.device, 0);
  EXPECT_EQ(d.est_ns, static_cast<int64_t>(1e9 / (40 * kGflop) * 1e9));
  s.home = 1;
  devs[1].queued_ns = 1'000'000'000;  // a full queue does not matter to owner-computes
  EXPECT_EQ(p.decide(s).device, 1);
  // The dynamic schedule ignores the home.
  s.schedule = Schedule::Dynamic;
  EXPECT_EQ(p.decide(s).device, 0);
}

TEST(Placement, StaticPanelsStayOnTheHost) {
  auto devs = host_and_gpu();
  Placement p;
  auto s = gemm(devs);
  s.schedule = Schedule::Static;
  s.home = 1;
  s.flags = kPanel;
  EXPECT_EQ(p.decide(s).device, 0);
  s.host_computes = false;  // ... unless the host cores may not compute
  EXPECT_EQ(p.decide(s).device, 1);
  s.schedule = Schedule::Dynamic;  // dynamic: panels are placed like any task
  s.host_computes = true;
  EXPECT_EQ(p.decide(s).device, 1);
}

TEST(Placement, StaticWithoutUsableHomeIsGreedy) {
  auto devs = host_and_gpu();
  Placement p;
  auto s = gemm(devs);
  s.schedule = Schedule::Static;
  for (int home : {-1, 7}) {  // none, or not a device
    s.home = home;
    EXPECT_EQ(p.decide(s).device, 1) << "home " << home;
  }
  // The home lacks the kernel: greedy among the others (a second GPU here).
  devs.push_back(devs[1]);
  devs[1].has_kernel = false;
  s.devices = devs;
  s.home = 1;
  EXPECT_EQ(p.decide(s).device, 2);
}

TEST(Placement, HostComputesFalseSendsCapableTasksToAccelerators) {
  auto devs = host_and_gpu();
  devs[1].rate = 1 * kGflop;  // far slower than a core
  devs[1].queued_ns = 1'000'000'000;
  Placement p;
  auto s = gemm(devs);
  EXPECT_EQ(p.decide(s).device, 0);
  s.host_computes = false;
  EXPECT_EQ(p.decide(s).device, 1);
}

TEST(Placement, ForcedDeviceWins) {
  auto devs = host_and_gpu();
  Placement p;
  auto s = gemm(devs);
  s.forced = 0;
  PlacementDecision d = p.decide(s);
  EXPECT_EQ(d.device, 0);
  EXPECT_EQ(d.est_ns, static_cast<int64_t>(1e9 / (40 * kGflop) * 1e9));
  s.flags = kHostOnly;  // the caller's choice is not second-guessed
  s.forced = 1;
  EXPECT_EQ(p.decide(s).device, 1);
  s.flags = kNoFlags;
  devs[1].queued_ns = 1'000'000'000;
  EXPECT_EQ(p.decide(s).device, 1);
}

TEST(Placement, RandomHookDrawsAmongCapableDevicesReproducibly) {
  auto devs = host_and_gpu();
  DeviceView no_kernel = devs[1];
  no_kernel.has_kernel = false;
  devs.push_back(no_kernel);  // host, gpu, a device without the kernel
  Placement a(/*random=*/true, /*seed=*/42), b(true, 42), c(true, 44);  // (seeds are made odd)
  std::vector<int> seq_a, seq_b, seq_c;
  for (int i = 0; i < 200; ++i) {
    seq_a.push_back(a.decide(gemm(devs)).device);
    seq_b.push_back(b.decide(gemm(devs)).device);
    seq_c.push_back(c.decide(gemm(devs)).device);
  }
  EXPECT_EQ(seq_a, seq_b) << "same seed, same draws";
  EXPECT_NE(seq_a, seq_c) << "another seed, other draws";
  const std::set<int> seen(seq_a.begin(), seq_a.end());
  EXPECT_EQ(seen, (std::set<int>{0, 1})) << "both capable devices, never the one without the kernel";
  // Host-only tasks are not drawn.
  auto s = gemm(devs);
  s.flags = kHostOnly;
  for (int i = 0; i < 20; ++i) EXPECT_EQ(a.decide(s).device, 0);
  // Without host_computes the host is no candidate.
  s = gemm(devs);
  s.host_computes = false;
  for (int i = 0; i < 20; ++i) EXPECT_EQ(a.decide(s).device, 1);
}

// A cluster simulated as one machine (RuntimeConfig::nodes): device 0 only
// inserts; host-only work and static panels go to the task's node host
// (snapshot.host), and device 0 is never chosen.
TEST(Placement, ClusterHostWorkGoesToTheNodeHost) {
  auto hg = host_and_gpu();
  DeviceView node_host = hg[0];
  node_host.has_kernel = true;
  std::vector<DeviceView> devs{hg[0], node_host, hg[1], node_host, hg[1]};  // root, node 0, node 1
  Placement p;
  auto s = gemm(devs);
  s.host = 3;
  s.flags = kHostOnly;
  EXPECT_EQ(p.decide(s).device, 3);
  s.flags = kPanel;
  s.schedule = Schedule::Static;
  s.home = 4;
  EXPECT_EQ(p.decide(s).device, 3) << "a static panel runs on its node's host cores";
  s.flags = kNoFlags;
  EXPECT_EQ(p.decide(s).device, 4) << "owner computes";
  s.schedule = Schedule::Dynamic;
  s.home = -1;
  for (auto& v : devs) v.queued_ns = 1000000000;
  devs[0].queued_ns = 0;  // idle, but it only inserts
  EXPECT_NE(p.decide(s).device, 0);
}

}  // namespace
}  // namespace hetla::rt
