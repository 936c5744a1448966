// The model of this machine (src/sim/this_machine.hpp): `hetla tune --model`'s
// file reads back to the same predictions, the stored `this` model (kernel
// rates, an emu device's measured copy rates) is reused,
// and every shipped model loads, names its sources and simulates.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "sim/host_rates.hpp"
#include "sim/simulate.hpp"
#include "sim/this_machine.hpp"

namespace hetla::sim {
namespace {

Request potrf_request(int64_t n, int64_t nb) {
  Request r;
  r.routine = "potrf";
  r.n = n;
  r.nb = nb;
  return r;
}

// What `hetla tune --model FILE` writes (one precision, one tile size, short
// intervals) parses back to the same rates and the same prediction.
TEST(ThisMachine, ModelFileRoundTrip) {
  ThisOptions o;
  o.devices = "cpu,emu:speed=0.5:bw=4:lat=3";
  o.cores = 1;
  o.precisions = "d";
  o.nbs = {128};
  o.seconds = 0.01;
  const MachineModel m = measure_this(o);
  ASSERT_EQ(m.devices.size(), 1u);
  const double gemm = m.host.flops_per_second(dev::KernelId::Gemm, 1, 128);
  EXPECT_GT(gemm, 1e8);  // a core does far more than 0.1 GFLOP/s
  // the emu device (1 worker + 0.5 of a core): measured as it runs when the
  // machine has a core for its thread (HostRates::stretched): about half the
  // host's rate (each call waits as long again as it computed), never more
  // than the wall-time rate; else half the host's rate in CPU time, each call
  // longer by the measured wake-up from its stretching wait (named in its
  // source)
  const double emu = m.devices[0].rates.flops_per_second(dev::KernelId::Gemm, 1, 128);
  std::string source;
  for (const auto& [k, v] : m.sources)
    if (k == "devices[0].kernels") source = v;
  if (source.find("as it runs") != std::string::npos) {
    EXPECT_GT(emu, 0.1 * gemm);  // its stretch: HostRates.AnEmuThreadWaitsAsLongAgainAsItComputes
  } else {
    const auto at = source.find("each call ");
    ASSERT_NE(at, std::string::npos) << source;
    const double wake_us = std::stod(source.substr(at + 10));
    ASSERT_GE(wake_us, 0);
    EXPECT_LT(wake_us, 20000);  // a wake-up, not a time slice of a loaded core
    const double call = 2.0 * 128 * 128 * 128;  // the flops of one gemm call
    const double wake = 0.1e-6;                 // the source's 0.1 us rounding
    EXPECT_GE(emu, call / (call / (0.5 * gemm) + wake_us * 1e-6 + wake) * (1 - 1e-12));
  }
  EXPECT_LE(emu, gemm * (1 + 1e-12));
  // its copies at the rates measured (sim/emu_copies.cc), at most its bw
  EXPECT_GT(m.devices[0].link_gbs, 0);
  EXPECT_LE(m.devices[0].link_gbs, 4);
  EXPECT_GT(m.devices[0].link_out_gbs, 0);
  EXPECT_LE(m.devices[0].link_out_gbs, 4);
  EXPECT_EQ(m.devices[0].link_latency_us, 3);
  EXPECT_TRUE(m.devices[0].copies_on_host_cores);  // memcpy on the host's cores (SimExecutor::run)
  EXPECT_GT(m.host.flops_per_second(kGetrfPanel, 1, 1024), 0);  // panels at heights nb..8nb
  EXPECT_GT(m.host.flops_per_second(dev::KernelId::Laswp, 1, 128), 0);
  EXPECT_EQ(m.host.flops_per_second(dev::KernelId::Gemm, 0, 128), 0);  // only what was measured

  const MachineModel back = parse_model(model_json(m), "tuned.json");
  bool sourced = false;
  for (const auto& [k, v] : back.sources) sourced |= k == "host.kernels" && v.find("measured") != std::string::npos;
  EXPECT_TRUE(sourced);
  EXPECT_TRUE(back.devices[0].copies_on_host_cores);  // written and read back
  for (std::size_t k = 1; k < kKernels; ++k) {
    EXPECT_EQ(back.host.curves[k][1].points, m.host.curves[k][1].points) << model_kernel_name(k);
    if (k < kDeviceKernels) {
      EXPECT_EQ(back.devices[0].rates.curves[k][1].points, m.devices[0].rates.curves[k][1].points);
    }
  }
  const Request r = potrf_request(1024, 128);
  const Result a = simulate(m, r), b = simulate(back, r);
  EXPECT_GT(a.seconds, 0);
  EXPECT_EQ(a.seconds, b.seconds);
  EXPECT_EQ(a.devices.at(1).tasks, b.devices.at(1).tasks);
}

// An emu thread of speed 0.5 in the calibration waits after each call until
// twice its CPU time has passed: its rate in wall time is at most half its
// rate in CPU time, which is about the host thread's (against the host's CPU
// time, not its wall time: other jobs on the machine slow the host thread's
// wall time, not the stretch, which counts CPU time).
TEST(HostRates, AnEmuThreadWaitsAsLongAgainAsItComputes) {
  HostRates r;
  measure_precision(r, 'd', 64, {0.0, 0.5}, 0.03);
  const auto gemm = static_cast<std::size_t>(dev::KernelId::Gemm);
  ASSERT_EQ(r.stretched.count(0.5), 1u);
  const double emu = r.stretched[0.5].curves[gemm][1].at(64), host_cpu = r.cpu.curves[gemm][1].at(64);
  EXPECT_GT(emu, 0);
  EXPECT_LT(emu, 0.75 * host_cpu);  // unstretched it would be about host_cpu
  EXPECT_GT(r.wall.curves[gemm][1].at(64), 0);  // the host thread's own rates
  EXPECT_THROW(measure_precision(r, 'd', 64, {0.5}, 0.01), std::invalid_argument);  // thread 0 is a host worker
}

// `--machine this` measures once, stores the host rates, and then reuses
// them: the second call gives the same model without measuring.
TEST(ThisMachine, StoredModelIsReused) {
  const std::string path = (std::filesystem::temp_directory_path() / ("hetla-this-" + std::to_string(::getpid()) + ".json")).string();
  ::setenv("HETLA_MACHINE_THIS", path.c_str(), 1);
  std::filesystem::remove(path);
  const MachineModel a = this_machine("cpu", 'd', 96, 1);
  ASSERT_TRUE(std::filesystem::exists(path));
  const auto written = std::filesystem::last_write_time(path);
  const MachineModel b = this_machine("cpu", 'd', 96, 1);
  EXPECT_EQ(std::filesystem::last_write_time(path), written);  // nothing measured, nothing written
  for (std::size_t k = 1; k < kKernels; ++k) EXPECT_EQ(a.host.curves[k][1].points, b.host.curves[k][1].points);
  EXPECT_GT(b.host.flops_per_second(dev::KernelId::Gemm, 1, 96), 0);
  // with an emu device: its own entry (its thread changes the host's rates),
  // its measured rates stored and reused as well
  const MachineModel c = this_machine("cpu,emu:speed=0.5", 'd', 96, 1);
  const auto with_emu = std::filesystem::last_write_time(path);
  const MachineModel d = this_machine("cpu,emu:speed=0.5", 'd', 96, 1);
  EXPECT_EQ(std::filesystem::last_write_time(path), with_emu);
  ASSERT_EQ(d.devices.size(), 1u);
  for (std::size_t k = 1; k < kDeviceKernels; ++k)
    EXPECT_EQ(c.devices[0].rates.curves[k][1].points, d.devices[0].rates.curves[k][1].points);
  EXPECT_GT(d.devices[0].rates.flops_per_second(dev::KernelId::Gemm, 1, 96), 0);
  // and its copies' rates (no bw parameter: as measured, not the 20 GB/s hint)
  EXPECT_EQ(c.devices[0].link_gbs, d.devices[0].link_gbs);
  EXPECT_EQ(c.devices[0].link_out_gbs, d.devices[0].link_out_gbs);
  EXPECT_GT(d.devices[0].link_out_gbs, 0);
  bool measured = false;
  for (const auto& [k, v] : d.sources) measured |= k == "devices[0].link_gbs" && v.find("measured") != std::string::npos;
  EXPECT_TRUE(measured);
  std::filesystem::remove(path);
  ::unsetenv("HETLA_MACHINE_THIS");
}

// Every shipped model (share/machines) loads, says where its numbers come
// from, and simulates a small potrf on every device it has.
TEST(ShippedModels, EachLoadsAndSimulates) {
  const auto names = list_models();
  ASSERT_GE(names.size(), 5u);
  bool system_c = false;
  for (const auto& name : names) {
    SCOPED_TRACE(name);
    const MachineModel m = find_model(name);
    EXPECT_FALSE(m.sources.empty());
    Request r = potrf_request(6144, 512);
    r.nodes = 1;
    const Result res = simulate(m, r);
    EXPECT_GT(res.seconds, 0);
    EXPECT_GT(res.flops, 0);
    if (name == "seed000-system-c") {
      system_c = true;
      ASSERT_EQ(m.devices.size(), 3u);
      EXPECT_EQ(res.devices.size(), 4u);  // the host cores and 3 Xeon Phi
      for (std::size_t d = 1; d < res.devices.size(); ++d) EXPECT_GT(res.devices[d].tasks, 0u);
    }
  }
  EXPECT_TRUE(system_c);
}

}  // namespace
}  // namespace hetla::sim
