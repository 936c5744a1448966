// The simulation runs the real scheduler: for the same placement (static
// schedule, 1-D block-column cyclic owners, which do not depend on rates;
// gemm's split by fixed weights; the solvers alone, after the factorization)
// a simulated routine executes the same tasks
// per device and moves the same bytes as a real one on host cores and
// emulated devices. The real run calls the Matrix API on a matrix in tile
// storage, as the simulation does on a shape-only one.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "context/context.hpp"
#include "hetla/blas3.hpp"
#include "hetla/context.hpp"
#include "hetla/linalg.hpp"
#include "hetla/lu.hpp"
#include "hetla/qr.hpp"
#include "matgen.hpp"
#include "sim/simulate.hpp"
#include "sim/this_machine.hpp"

namespace hetla::sim {
namespace {

const std::string kDevices = "cpu,emu,emu";
const char* kWeights = "cpu=0.5,emu0=0.25,emu1=0.25";
const int64_t kNrhs = 256;

Matrix<double> tiled(const std::vector<double>& a, int64_t n, int64_t nb) {
  Matrix<double> M(n, n, nb);
  M.copy_from(a.data(), n);
  return M;
}

// Per-device statistics of the real routine under the static schedule.
std::vector<rt::DeviceStats> real_run(const std::string& routine, int64_t n, int64_t nb) {
  Config cfg;
  cfg.devices = kDevices;
  cfg.num_threads = 2;
  cfg.pin_threads = false;
  cfg.schedule = Schedule::Static;
  init(cfg);
  const bool chol = routine == "potrf" || routine == "potrs";
  const auto a = chol ? bench::random_hpd<double>(n, n, 7) : bench::random_matrix<double>(n, n, n, 7);
  Matrix<double> A = tiled(a, n, nb), B = tiled(a, n, nb), C = tiled(a, n, nb);
  std::vector<int64_t> ipiv;
  std::vector<double> tau(static_cast<std::size_t>(n));
  Options o;
  o.distribution = Distribution::OneD;
  o.weights = kWeights;
  Matrix<double> X(n, kNrhs, nb);  // the solvers' B, on the factors of A
  int64_t finfo = 0;
  if (routine == "potrs") finfo = potrf(Uplo::Lower, A, o);
  if (routine == "getrs") finfo = getrf(A, ipiv, o);
  EXPECT_EQ(finfo, 0);
  {
    std::lock_guard<std::recursive_mutex> lk(detail::call_mutex());
    detail::runtime().reset_stats();
  }
  int64_t info = 0;
  if (routine == "potrf") info = potrf(Uplo::Lower, A, o);
  if (routine == "getrf") info = getrf(A, ipiv, o);
  if (routine == "geqrf") geqrf(A, tau.data(), o);
  if (routine == "gemm") gemm(Op::NoTrans, Op::NoTrans, 1.0, A, B, 1.0, C, o);
  if (routine == "potrs") potrs(Uplo::Lower, A, X, o);
  if (routine == "getrs") getrs(Op::NoTrans, A, ipiv, X, o);
  EXPECT_EQ(info, 0);
  std::vector<rt::DeviceStats> st;
  {
    std::lock_guard<std::recursive_mutex> lk(detail::call_mutex());
    st = detail::runtime().stats();
  }
  finalize();
  return st;
}

class SimVsReal : public ::testing::TestWithParam<const char*> {};

TEST_P(SimVsReal, SameTasksPerDeviceAndBytesUnderStaticPlacement) {
  const std::string routine = GetParam();
  const int64_t n = 768, nb = 128;
  const std::vector<rt::DeviceStats> real = real_run(routine, n, nb);
  Request q;
  q.routine = routine;
  q.n = n;
  q.nb = nb;
  q.schedule = rt::Schedule::Static;
  q.distribution = "1d";
  q.weights = kWeights;
  q.nrhs = kNrhs;
  q.cores = 2;
  ThisOptions to;  // measured briefly, not stored: the rates do not matter here, only the placement
  to.devices = kDevices, to.cores = 2, to.nbs = {nb}, to.seconds = 0.005;
  const Result sim = simulate(measure_this(to), q);
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

INSTANTIATE_TEST_SUITE_P(Routines, SimVsReal, ::testing::Values("potrf", "getrf", "geqrf", "gemm", "potrs", "getrs"));

}  // namespace
}  // namespace hetla::sim
