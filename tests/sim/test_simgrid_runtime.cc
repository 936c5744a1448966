// The SimGrid platform built from a model (src/sim/simgrid_runtime.cc):
// a full-duplex link or hub carries a copy to a device and one back at the
// same time, each at the full bandwidth; a half-duplex one shares it.
// Hand-computable: one copy of B bytes alone over a link of G bytes/s and
// latency L takes L + B / G (CM02 model, as simulate() configures it).
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <simgrid/s4u.hpp>
#include <string>
#include <utility>
#include <vector>

#include "sim/forked_run.hpp"
#include "sim/model.hpp"
#include "sim/simgrid_runtime.hpp"

namespace hetla::sim {
namespace {

namespace s4u = simgrid::s4u;

struct Copy {
  std::function<s4u::Host*(const Platform&)> from, to;
};

// The simulated time at which each copy (all started at time 0) ends, on
// the platform of `m` with `nodes` nodes. In a child process (run_forked:
// SimGrid allows one simulation per process, and a child stuck on a lock
// that fork() copied is forked again).
std::vector<double> copy_end_times(const MachineModel& m, int nodes, const std::vector<Copy>& copies, double bytes) {
  const std::string raw = run_forked([&] {
    int argc = 4;
    char a0[] = "test", a1[] = "--cfg=network/model:CM02", a2[] = "--cfg=network/crosstraffic:0",
         a3[] = "--log=root.thresh:critical";
    char* argv[] = {a0, a1, a2, a3, nullptr};
    std::vector<double> ends(copies.size(), -1);
    {
      s4u::Engine engine(&argc, argv);
      s4u::Engine::set_config("network/TCP-gamma:0");
      const Platform p(m, nodes);
      for (std::size_t i = 0; i < copies.size(); ++i)
        s4u::Actor::create("copy" + std::to_string(i), p.cpu, [&, i] {
          s4u::Comm::sendto(copies[i].from(p), copies[i].to(p), static_cast<uint64_t>(bytes));
          ends[i] = s4u::Engine::get_clock();
        });
      engine.run();
    }
    return std::string(reinterpret_cast<const char*>(ends.data()), ends.size() * sizeof(double));
  });
  if (raw.size() != copies.size() * sizeof(double)) return {};
  std::vector<double> ends(copies.size());
  std::memcpy(ends.data(), raw.data(), raw.size());
  return ends;
}

// One accelerator: its link 1 GB/s with 10 us latency, under a hub of
// `hub_gbs`; the duplex fields as given ("" leaves the default).
MachineModel one_gpu(double hub_gbs, const std::string& hub_duplex, const std::string& link_duplex) {
  std::string j = R"({"name": "duplex", "host": {"cores": 1, "kernels": {"gemm": {"d": 1}}}, "hubs": [{"bandwidth_gbs": )" +
                  std::to_string(hub_gbs) + (hub_duplex.empty() ? "" : R"(, "duplex": ")" + hub_duplex + "\"") +
                  R"(}], "devices": [{"name": "gpu", "link_gbs": 1, "link_latency_us": 10)" +
                  (link_duplex.empty() ? "" : R"(, "link_duplex": ")" + link_duplex + "\"") +
                  R"(, "kernels": {"gemm": {"d": 100}}}], "network": {"bandwidth_gbs": 1, "latency_us": 2}})";
  return parse_model(j, "duplex.json");
}

const double kBytes = 1e8, kAlone = 10e-6 + 0.1;  // 100 MB over 1 GB/s after 10 us

// A copy in to the accelerator and a copy out of it, at once.
const std::vector<Copy> kInAndOut = {{[](const Platform& p) { return p.cpu; }, [](const Platform& p) { return p.devices[0]; }},
                                     {[](const Platform& p) { return p.devices[0]; }, [](const Platform& p) { return p.cpu; }}};

TEST(SimPlatform, OneCopyTakesLatencyPlusBytesOverBandwidth) {
  for (const char* duplex : {"full", "half"}) {
    const auto t = copy_end_times(one_gpu(4, duplex, duplex), 1, {kInAndOut[0]}, kBytes);
    ASSERT_EQ(t.size(), 1u) << duplex;
    EXPECT_NEAR(t[0], kAlone, 1e-9) << duplex;
    const auto back = copy_end_times(one_gpu(4, duplex, duplex), 1, {kInAndOut[1]}, kBytes);
    ASSERT_EQ(back.size(), 1u) << duplex;
    EXPECT_NEAR(back[0], kAlone, 1e-9) << duplex;
  }
}

TEST(SimPlatform, FullDuplexLinkCarriesACopyEachWayAtFullBandwidth) {
  const auto t = copy_end_times(one_gpu(4, "", ""), 1, kInAndOut, kBytes);  // full by default
  ASSERT_EQ(t.size(), 2u);
  EXPECT_NEAR(t[0], kAlone, 1e-9);
  EXPECT_NEAR(t[1], kAlone, 1e-9);
}

TEST(SimPlatform, HalfDuplexLinkSharesItsBandwidthBetweenDirections) {
  const auto t = copy_end_times(one_gpu(4, "full", "half"), 1, kInAndOut, kBytes);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_NEAR(t[0], 10e-6 + 0.2, 1e-9);  // each at 0.5 GB/s
  EXPECT_NEAR(t[1], 10e-6 + 0.2, 1e-9);
}

TEST(SimPlatform, HubDuplexLimitsTheSameWay) {
  // a 1 GB/s hub over the 1 GB/s link: full duplex, each direction its own 1 GB/s
  auto t = copy_end_times(one_gpu(1, "full", "full"), 1, kInAndOut, kBytes);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_NEAR(t[0], kAlone, 1e-9);
  EXPECT_NEAR(t[1], kAlone, 1e-9);
  t = copy_end_times(one_gpu(1, "half", "full"), 1, kInAndOut, kBytes);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_NEAR(t[0], 10e-6 + 0.2, 1e-9);
  EXPECT_NEAR(t[1], 10e-6 + 0.2, 1e-9);
}

// Two nodes: node 0's memory to node 1's accelerator, and that accelerator
// back to node 0, cross different network interfaces (node 0 out and node 1
// in; node 1 out and node 0 in) and the accelerator's link both ways.
TEST(SimPlatform, ClusterCopiesUseTheLinkDirections) {
  const std::vector<Copy> across = {
      {[](const Platform& p) { return p.node_cpus[0]; }, [](const Platform& p) { return p.devices[1]; }},
      {[](const Platform& p) { return p.devices[1]; }, [](const Platform& p) { return p.node_cpus[0]; }}};
  const double lat = 10e-6 + 2 * 2e-6;  // the link's and two interfaces'
  auto t = copy_end_times(one_gpu(4, "full", "full"), 2, across, kBytes);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_NEAR(t[0], lat + 0.1, 1e-9);
  EXPECT_NEAR(t[1], lat + 0.1, 1e-9);
  t = copy_end_times(one_gpu(4, "full", "half"), 2, across, kBytes);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_NEAR(t[0], lat + 0.2, 1e-9);
  EXPECT_NEAR(t[1], lat + 0.2, 1e-9);
}

// link_out_gbs: the way back at its own bandwidth (an emu device copies a
// tile out faster than in), on one node and across nodes.
TEST(SimPlatform, LinkOutBandwidthTimesTheWayBack) {
  MachineModel m = one_gpu(4, "full", "full");
  m.devices[0].link_out_gbs = 2;
  auto t = copy_end_times(m, 1, kInAndOut, kBytes);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_NEAR(t[0], kAlone, 1e-9);
  EXPECT_NEAR(t[1], 10e-6 + 0.05, 1e-9);  // 100 MB at 2 GB/s
  const std::vector<Copy> back = {{[](const Platform& p) { return p.devices[1]; }, [](const Platform& p) { return p.node_cpus[0]; }}};
  t = copy_end_times(m, 2, back, kBytes);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_NEAR(t[0], 10e-6 + 2 * 2e-6 + 0.1, 1e-9);  // the 1 GB/s interfaces limit it
}

TEST(SimPlatform, LinkOutFieldIsChecked) {
  const std::string dev = R"({"name": "m", "host": {"cores": 1, "kernels": {"gemm": {"d": 1}}}, "devices": [{"name": "gpu", "link_gbs": 1, )";
  EXPECT_EQ(parse_model(dev + R"("link_out_gbs": 3, "kernels": {"gemm": {"d": 1}}}]})", "m.json").devices[0].link_out_gbs, 3);
  for (const auto& [field, message] : std::vector<std::pair<std::string, std::string>>{
           {R"("link_out_gbs": -1)", "m.json: devices[0].link_out_gbs: must be >= 0"},
           {R"("link_out_gbs": 3, "link_duplex": "half")", "m.json: devices[0].link_out_gbs: a half-duplex link"}}) {
    try {
      parse_model(dev + field + R"(, "kernels": {"gemm": {"d": 1}}}]})", "m.json");
      ADD_FAILURE() << field;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
}

TEST(SimPlatform, DuplexFieldsAreParsedAndChecked) {
  const MachineModel m = one_gpu(4, "half", "");
  EXPECT_FALSE(m.hubs[0].full_duplex);
  EXPECT_TRUE(m.devices[0].link_full_duplex);
  try {
    one_gpu(4, "both", "");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(R"(duplex.json: hubs[0].duplex: expected "full" or "half")"), std::string::npos)
        << e.what();
  }
  try {
    one_gpu(4, "", "simplex");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("duplex.json: devices[0].link_duplex: expected"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hetla::sim
