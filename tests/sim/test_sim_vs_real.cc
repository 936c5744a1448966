// The simulation runs the real scheduler: for the same placement (static
// schedule, 1-D block-column cyclic owners, which do not depend on rates) a
// simulated potrf executes the same tasks per device and moves the same
// bytes as a real one on host cores and emulated devices.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "context/context.hpp"
#include "hetla/context.hpp"
#include "hetla/linalg.hpp"
#include "matgen.hpp"
#include "sim/simulate.hpp"
#include "sim/this_machine.hpp"

namespace hetla::sim {
namespace {

TEST(SimVsReal, SameTasksPerDeviceAndBytesUnderStaticPlacement) {
  const std::string devices = "cpu,emu,emu";
  const int64_t n = 768, nb = 128;
  Config cfg;
  cfg.devices = devices;
  cfg.num_threads = 2;
  cfg.pin_threads = false;
  cfg.schedule = Schedule::Static;
  init(cfg);
  std::vector<double> A = bench::random_hpd<double>(n, n, 7);
  std::vector<rt::DeviceStats> real;
  {
    std::lock_guard<std::recursive_mutex> lk(detail::call_mutex());
    detail::runtime().reset_stats();
  }
  Options o;
  o.nb = nb;
  o.distribution = Distribution::OneD;
  ASSERT_EQ(potrf(Uplo::Lower, n, A.data(), n, o), 0);
  {
    std::lock_guard<std::recursive_mutex> lk(detail::call_mutex());
    real = detail::runtime().stats();
  }
  finalize();

  Request q;
  q.n = n;
  q.nb = nb;
  q.schedule = rt::Schedule::Static;
  q.distribution = "1d";
  q.cores = 2;
  const Result sim = simulate(this_machine(devices, 'd', nb, 2), q);
  ASSERT_EQ(sim.devices.size(), real.size());
  for (std::size_t d = 0; d < real.size(); ++d) {
    SCOPED_TRACE("device " + std::to_string(d));
    EXPECT_EQ(sim.devices[d].tasks, real[d].tasks);
    EXPECT_EQ(sim.devices[d].bytes_in, real[d].bytes_in);
    EXPECT_EQ(sim.devices[d].bytes_out, real[d].bytes_out);
    EXPECT_DOUBLE_EQ(sim.devices[d].flops, real[d].flops);
  }
  EXPECT_GT(real[1].tasks, 0u);
  EXPECT_GT(real[1].bytes_in, 0u);
}

}  // namespace
}  // namespace hetla::sim
