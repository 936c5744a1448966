// Simulated runs (src/sim/simulate.hpp) on hand-written models: the exact
// time of a run one can compute by hand, determinism, memory limits that
// evict, and the same task counts and bytes as a real run for the same
// placement.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/simulate.hpp"

namespace hetla::sim {
namespace {

// One core; potrf 1, trsm 2, herk 4, gemm 8 GFLOP/s in double.
const char* kOneCore = R"({"name": "one-core", "host": {"cores": 1, "kernels": {
  "potrf": {"d": 1}, "trsm": {"d": 2}, "herk": {"d": 4}, "gemm": {"d": 8}}}})";

TEST(Simulate, OneCoreTimeIsTheSumOfTaskTimes) {
  const MachineModel m = parse_model(kOneCore, "one-core");
  Request r;
  r.n = 200;
  r.nb = 100;  // 2 x 2 tiles: potrf, trsm, herk, potrf on 100 x 100 tiles
  const Result res = simulate(m, r);
  const double f = 1e6;  // 100^3
  const double expect = (f / 3) / 1e9 + f / 2e9 + f / 4e9 + (f / 3) / 1e9;
  EXPECT_NEAR(res.seconds, expect, 1e-12);
  ASSERT_EQ(res.devices.size(), 1u);
  EXPECT_EQ(res.devices[0].tasks, 4u);
  EXPECT_NEAR(res.devices[0].busy_seconds, expect, 1e-8);
}

TEST(Simulate, CoresRunTasksInParallel) {
  MachineModel m = parse_model(kOneCore, "one-core");
  Request r;
  r.n = 300;
  r.nb = 100;  // 3 x 3 tiles: after potrf(0), two trsm in parallel on two cores
  const double one = simulate(m, r).seconds;
  r.cores = 2;
  const double two = simulate(m, r).seconds;
  EXPECT_LT(two, one);
  // the critical path: potrf, trsm, herk, potrf, trsm, herk, potrf
  const double f = 1e6;
  EXPECT_GE(two, 3 * (f / 3) / 1e9 + 2 * f / 2e9 + 2 * f / 4e9 - 1e-12);
}

// One core; LU's panel at 1 GFLOP/s on 100 rows, 2 on 200 (a curve over the
// panel's height), laswp 1 GB/s of rows exchanged.
const char* kOneCoreLu = R"({"name": "one-core-lu", "host": {"cores": 1, "kernels": {
  "getrf_panel": {"d": [[100, 1], [200, 2]]}, "laswp": {"d": 1}, "trsm": {"d": 2}, "gemm": {"d": 8}}}})";

TEST(Simulate, OneCoreLuTimeIsTheSumOfTaskTimes) {
  Request r;
  r.routine = "getrf";
  r.n = 200;
  r.nb = 100;  // panel 0 (200 rows), laswp and trsm on column 1, gemm, panel 1 (100 rows), laswp on column 0
  const Result res = simulate(parse_model(kOneCoreLu, "one-core-lu"), r);
  const double f = 1e6, swap = 4.0 * 100 * 100 * 8;  // every one of the 100 pivots exchanges two 100-wide rows
  const double expect =
      (200 * 1e4 - f / 3) / 2e9 + swap / 1e9 + f / 2e9 + 2 * f / 8e9 + (100 * 1e4 - f / 3) / 1e9 + swap / 1e9;
  EXPECT_NEAR(res.seconds, expect, 1e-12);
  ASSERT_EQ(res.devices.size(), 1u);
  EXPECT_EQ(res.devices[0].tasks, 6u);
  EXPECT_NEAR(res.flops, 2.0 / 3 * 200 * 200 * 200, 1e-3);
}

const char* kGpu = R"({"name": "gpu", "host": {"cores": 2, "kernels": {
  "potrf": {"d": 10}, "trsm": {"d": 10}, "herk": {"d": 10}, "gemm": {"d": 10}, "trmm": {"d": 7},
  "getrf_panel": {"d": 5}, "geqrf_panel": {"d": [[256, 3], [2048, 6]]}, "laswp": {"d": 2}}},
  "hubs": [{"bandwidth_gbs": 8}],
  "devices": [{"name": "gpu", "count": 2, "memory_gb": MEM, "link_gbs": 6, "link_latency_us": 10,
    "kernels": {"trsm": {"d": [[64, 50], [512, 200]]}, "herk": {"d": 300}, "gemm": {"d": [[64, 100], [512, 400]]},
    "trmm": {"d": 150}, "laswp": {"d": 20}}}]})";

MachineModel gpu_model(const std::string& mem) {
  std::string t = kGpu;
  t.replace(t.find("MEM"), 3, mem);
  return parse_model(t, "gpu");
}

TEST(Simulate, SameInputSameOutput) {
  const MachineModel m = gpu_model("0");
  Request r;
  r.n = 2048;
  r.nb = 256;
  const Result a = simulate(m, r), b = simulate(m, r);
  EXPECT_EQ(a.seconds, b.seconds);
  ASSERT_EQ(a.devices.size(), 3u);
  for (std::size_t d = 0; d < a.devices.size(); ++d) {
    EXPECT_EQ(a.devices[d].tasks, b.devices[d].tasks);
    EXPECT_EQ(a.devices[d].bytes_in, b.devices[d].bytes_in);
  }
  EXPECT_GT(a.devices[1].tasks + a.devices[2].tasks, 0u);  // the accelerators took work
  EXPECT_GT(a.devices[1].bytes_in, 0u);
  // faster than the host alone at 2 x 10 GFLOP/s
  EXPECT_LT(a.seconds, 2048.0 * 2048 * 2048 / 3 / 20e9);
}

// getrf, geqrf, gemm and the solvers: the same input gives the same output,
// and the accelerators take part.
TEST(Simulate, EachRoutineIsDeterministic) {
  const MachineModel m = gpu_model("0");
  for (const char* routine : {"getrf", "geqrf", "gemm", "potrs", "getrs"}) {
    SCOPED_TRACE(routine);
    Request r;
    r.routine = routine;
    r.n = 1536;
    r.nb = 256;
    r.nrhs = 512;
    const Result a = simulate(m, r), b = simulate(m, r);
    EXPECT_GT(a.seconds, 0);
    EXPECT_EQ(a.seconds, b.seconds);
    ASSERT_EQ(a.devices.size(), 3u);
    ASSERT_EQ(b.devices.size(), 3u);
    for (std::size_t d = 0; d < a.devices.size(); ++d) {
      EXPECT_EQ(a.devices[d].tasks, b.devices[d].tasks);
      EXPECT_EQ(a.devices[d].bytes_in, b.devices[d].bytes_in);
      EXPECT_EQ(a.devices[d].bytes_out, b.devices[d].bytes_out);
      EXPECT_EQ(a.devices[d].busy_seconds, b.devices[d].busy_seconds);
    }
    EXPECT_GT(a.devices[1].tasks + a.devices[2].tasks, 0u);
  }
  Request bad;
  bad.routine = "gesvd";
  bad.n = 100;
  EXPECT_THROW(simulate(m, bad), std::runtime_error);
}

// An emulated device's copies are memcpy on the host's cores
// (copies_on_host_cores): made while every thread on those cores computes
// (here the host's one worker and the device's), their time is shared by
// those threads, each kernel taking its thread's share of the copies since
// its last; made while one of them is idle, they cost nothing (they run on
// its core). gemm n = 200, nb 100 (8 gemm tasks of 2 ms at 1 GFLOP/s),
// tiles of 80 kB in at 1 GB/s (80 us) and back at 2 GB/s (40 us).
TEST(Simulate, CopiesOnTheHostCoresTakeTheComputingThreadsTime) {
  auto model = [](bool on_cores, const char* host_gemm) {
    return parse_model(std::string(R"({"name": "emu", "host": {"cores": 1, "kernels": {"gemm": {"d": )") + host_gemm +
                           R"(}}}, "devices": [{"name": "emu", "link_gbs": 1, "link_out_gbs": 2, "copies_on_host_cores": )" +
                           (on_cores ? "true" : "false") + R"(, "kernels": {"gemm": {"d": 1}}}]})",
                       "emu.json");
  };
  EXPECT_TRUE(model(true, "1").devices[0].copies_on_host_cores);
  Request r;
  r.routine = "gemm";
  r.n = 200;
  r.nb = 100;
  // every column of C on the device, the host worker idle: the copies are free
  r.weights = "cpu=0,emu=1";
  Result off = simulate(model(false, "1"), r), on = simulate(model(true, "1"), r);
  ASSERT_EQ(on.devices.size(), 2u);
  EXPECT_EQ(on.devices[1].tasks, 8u);
  EXPECT_EQ(on.devices[1].bytes_in, 12u * 80000u);
  EXPECT_EQ(on.seconds, off.seconds);
  // a column each, both computing while the device's next tiles come in
  r.weights = "cpu=0.5,emu=0.5";
  off = simulate(model(false, "1"), r), on = simulate(model(true, "1"), r);
  EXPECT_EQ(on.devices[0].tasks, 4u);
  EXPECT_EQ(on.devices[1].tasks, 4u);
  EXPECT_EQ(on.devices[1].bytes_in, off.devices[1].bytes_in);
  const double copies = static_cast<double>(on.devices[1].bytes_in) / 1e9 + static_cast<double>(on.devices[1].bytes_out) / 2e9;
  EXPECT_GT(on.seconds - off.seconds, 1e-6);
  EXPECT_LE(on.seconds - off.seconds, copies / 2 + 1e-9);  // the longest thread took at most its half
  EXPECT_GT(on.devices[0].busy_seconds, off.devices[0].busy_seconds);  // the host worker took its share
}

TEST(Simulate, DeviceMemoryLimitEvicts) {
  Request r;
  r.n = 2048;
  r.nb = 256;  // a tile: 512 KiB; 1 MB holds one
  r.schedule = rt::Schedule::Static;
  const Result roomy = simulate(gpu_model("0"), r);
  const Result tight = simulate(gpu_model("0.0016"), r);  // three tiles
  uint64_t ev_roomy = 0, ev_tight = 0;
  for (const auto& d : roomy.devices) ev_roomy += d.evictions;
  for (const auto& d : tight.devices) ev_tight += d.evictions;
  EXPECT_EQ(ev_roomy, 0u);
  EXPECT_GT(ev_tight, 0u);
  EXPECT_GT(tight.devices[1].bytes_in, roomy.devices[1].bytes_in);
}

TEST(Simulate, ErrorsNameTheField) {
  try {
    parse_model(R"({"host": {"cores": 2, "kernels": {"gemm": {"d": -1}}}})", "bad.json");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json: host.kernels.gemm.d"), std::string::npos) << e.what();
  }
  try {
    parse_model(R"({"host": {"cores": 2, "kernels": {"gemv": {"d": 1}}}})", "bad.json");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("host.kernels.gemv: unknown kernel"), std::string::npos) << e.what();
  }
  try {
    parse_model(R"({"host": {"cores": 2, "kernels": {}}, "devices": [{"name": "g", "kernels": {}}]})", "m.json");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("m.json: devices[0].link_gbs: missing"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_model(R"({"cores": 1})", "x.json"), std::runtime_error);
  EXPECT_THROW(find_model("no-such-machine"), std::runtime_error);
}

// A node of two cores and one accelerator; nodes joined by a 1 GB/s network.
const char* kNode = R"({"name": "node", "host": {"cores": 2, "kernels": {
  "potrf": {"d": 5}, "trsm": {"d": 10}, "herk": {"d": 10}, "gemm": {"d": 10}}},
  "devices": [{"name": "gpu", "link_gbs": 6, "kernels": {"trsm": {"d": 100}, "herk": {"d": 100}, "gemm": {"d": 100}}}],
  "network": {"nodes": 4, "bandwidth_gbs": 1, "latency_us": 2}})";

// 2 x 2 nodes: tile (i, j) on node (i mod 2) * 2 + j mod 2 (mpi::Grid's
// mapping), so every node owns tiles and computes; tiles cross the network.
TEST(SimulateCluster, TilesSpreadOverEveryNode) {
  const MachineModel m = parse_model(kNode, "node");
  Request r;
  r.n = 1600;
  r.nb = 200;
  r.schedule = rt::Schedule::Static;
  r.nodes = 4;
  r.grid_p = 2, r.grid_q = 2;
  const Result res = simulate(m, r);
  ASSERT_EQ(res.nodes, 4);
  ASSERT_EQ(res.devices.size(), 8u);  // per node: its host cores, its gpu
  std::vector<double> flops(4);
  uint64_t tasks = 0;
  for (const auto& d : res.devices) flops[static_cast<std::size_t>(d.node)] += d.flops, tasks += d.tasks;
  for (int k = 0; k < 4; ++k) EXPECT_GT(flops[static_cast<std::size_t>(k)], 0) << "node " << k;
  EXPECT_EQ(tasks, 8u * 9 * 10 / 6) << "8 x 8 tiles: potrf, trsm, herk and gemm once each";
  EXPECT_GT(res.network_bytes, 0u);
  EXPECT_EQ(res.devices[2].name, "n1.cpu");
  const Result again = simulate(m, r);
  EXPECT_EQ(again.seconds, res.seconds);
  EXPECT_EQ(again.network_bytes, res.network_bytes);
}

TEST(SimulateCluster, MoreNodesFinishSooner) {
  const MachineModel m = parse_model(kNode, "node");
  Request r;
  r.n = 4000;
  r.nb = 250;
  r.schedule = rt::Schedule::Static;
  r.nodes = 1;
  const double one = simulate(m, r).seconds;
  r.nodes = 4;
  const double four = simulate(m, r).seconds;
  EXPECT_LT(four, 0.6 * one) << "1 node " << one << " s, 4 nodes " << four << " s";
  r.grid_p = 3, r.grid_q = 1;
  EXPECT_THROW(simulate(m, r), std::invalid_argument);
}


// Request::trace: the runtime's recorder on the simulated clock. Every
// worker's row has tasks, the last event ends at the predicted time (the
// clock counts whole nanoseconds), a row's task time is its device's busy
// time, and copies are on the accelerator's rows with their bytes.
TEST(SimulateTrace, EveryWorkerHasTasksAndTheTraceEndsAtThePredictedTime) {
  MachineModel m = parse_model(kOneCore, "one-core");
  Request r;
  r.n = 300;
  r.nb = 100;  // 3 x 3 tiles: the two trsm after potrf(0) run on both cores
  r.cores = 2;
  const Result untraced = simulate(m, r);
  EXPECT_TRUE(untraced.trace.empty()) << "no trace unless asked";
  r.trace = true;
  const Result res = simulate(m, r);
  EXPECT_EQ(res.seconds, untraced.seconds) << "recording takes no virtual time";
  ASSERT_EQ(res.trace_rows.size(), 2u);
  EXPECT_EQ(res.trace_rows[0], "worker 0 (caller)");
  std::vector<int> tasks(2);
  double end = 0, busy = 0;
  for (const trace::Event& e : res.trace) {
    ASSERT_GE(e.worker, 0);
    ASSERT_LT(e.worker, 2);
    EXPECT_GE(e.start, 0.0);
    EXPECT_GE(e.end, e.start);
    ++tasks[static_cast<std::size_t>(e.worker)];
    end = std::max(end, e.end);
    busy += e.end - e.start;
  }
  EXPECT_GT(tasks[0], 0);
  EXPECT_GT(tasks[1], 0);
  EXPECT_EQ(static_cast<uint64_t>(tasks[0] + tasks[1]), res.devices[0].tasks);  // 3 x 4 x 5 / 6 = 10
  EXPECT_NEAR(end, res.seconds, 2e-9);
  EXPECT_NEAR(busy, res.devices[0].busy_seconds, 1e-8);
}

TEST(SimulateTrace, AcceleratorRowsHoldTheirTasksAndCopies) {
  const MachineModel m = parse_model(kNode, "node");
  Request r;
  r.n = 1600;
  r.nb = 200;
  r.nodes = 2;
  r.schedule = rt::Schedule::Static;
  r.trace = true;
  const Result res = simulate(m, r);
  ASSERT_EQ(res.devices.size(), 4u);  // n0.cpu, n0.gpu, n1.cpu, n1.gpu
  // a row per worker (device 0's inserting worker, two cores per node, a gpu per node), maybe copy engines
  ASSERT_GE(res.trace_rows.size(), 7u);
  std::vector<uint64_t> tasks(res.trace_rows.size()), copied(res.trace_rows.size());
  double end = 0;
  for (const trace::Event& e : res.trace) {
    const auto w = static_cast<std::size_t>(e.worker);
    ASSERT_LT(w, tasks.size());
    if (trace::is_transfer(e)) copied[w] += e.bytes;
    else ++tasks[w];
    end = std::max(end, e.end);
  }
  EXPECT_NEAR(end, res.seconds, 2e-9);
  for (const auto& d : res.devices) {  // the device's rows hold its task count
    uint64_t n = 0;
    for (std::size_t w = 0; w < tasks.size(); ++w)
      if (res.trace_rows[w].find("[" + d.name + "]") != std::string::npos) n += tasks[w];
    EXPECT_EQ(n, d.tasks) << d.name;
    EXPECT_GT(n, 0u) << d.name;
  }
  uint64_t bytes = 0;
  for (uint64_t b : copied) bytes += b;
  EXPECT_GT(bytes, 0u) << "the gpus' copies are in the trace";
}

}  // namespace
}  // namespace hetla::sim
