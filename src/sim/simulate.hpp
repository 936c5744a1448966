// A simulated run of a routine on a machine model: the real runtime and
// routine on SimGrid's clock, shape-only matrices (no element storage).
// Each run happens in a child process (SimGrid allows one simulation per
// process), so the caller may simulate repeatedly.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/placement.hpp"
#include "sim/model.hpp"
#include "trace/trace.hpp"

namespace hetla::sim {

struct Request {
  std::string routine = "potrf";  // potrf, getrf, geqrf, gemm (n x n, C += A B), potrs, getrs
  int64_t n = 0;
  int64_t nrhs = 1;  // potrs, getrs: columns of B (the solve alone, factors given)
  int64_t nb = 0;  // 0: 512
  char precision = 'd';
  rt::Schedule schedule = rt::Schedule::Dynamic;
  int cores = 0;   // host workers; 0: the model's cores
  /// Static schedule: the distribution ("1d", "2d", "weighted"; "" default).
  std::string distribution;
  /// gemm's split of C's columns ("cpu=0.4,emu0=0.6"; Options::weights).
  std::string weights;
  /// A cluster: nodes of the model's node (0: the model's network.nodes),
  /// tiles 2-D block-cyclic over a grid_p x grid_q grid of them (0: the most
  /// square grid, grid_p <= grid_q). See simgrid_runtime.hpp.
  int nodes = 0;
  int grid_p = 0, grid_q = 0;
  /// Record the task trace of the run (Result::trace): the runtime's own
  /// trace recorder on the simulated clock, as `hetla bench --trace` records
  /// a real run.
  bool trace = false;
};

struct DeviceResult {
  std::string name;
  int workers = 1;
  uint64_t tasks = 0;
  double flops = 0, busy_seconds = 0;
  uint64_t bytes_in = 0, bytes_out = 0, evictions = 0;
  int node = 0;  // on a cluster, the node it belongs to
};

struct Result {
  double seconds = 0;
  double flops = 0;  // the routine's nominal flop count
  std::vector<DeviceResult> devices;  // on a cluster, node by node (node k's host cores first)
  int nodes = 1, grid_p = 1, grid_q = 1;
  uint64_t network_bytes = 0;  // bytes that crossed the network between nodes
  /// Request::trace: every task and copy, in virtual seconds since the
  /// routine's start (the runtime's rows: its workers, then each
  /// accelerator's copy engine), and a name per row as bench names them
  /// ("worker 3 [gpu1]"; on a cluster the device names carry the node,
  /// "n2.gpu1"). Labels point to strings that live as long as the process.
  std::vector<trace::Event> trace;
  std::vector<std::string> trace_rows;
};

/// The routines simulate() takes, for messages.
std::string routines();
/// The routine's nominal real flop count at order n (LAPACK's: getrf 2n^3/3,
/// geqrf 4n^3/3, potrf n^3/3, gemm 2n^3; potrs and getrs 2n^2 nrhs).
double nominal_flops(const std::string& routine, double n, double nrhs);

/// Simulates `req` on `model`; throws std::runtime_error with the child's
/// message when the simulation fails.
Result simulate(const MachineModel& model, const Request& req);

}  // namespace hetla::sim
