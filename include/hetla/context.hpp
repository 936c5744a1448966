/// @file
/// Library-wide state: the runtime (worker threads, devices) used by every
/// call. A default context is created on first use; init()/finalize() give
/// control.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace hetla {

/// How tasks are placed on devices: owner-computes from the data
/// distribution (seed 004), or greedy by capability weights (seed 000).
enum class Schedule { Dynamic, Static };

/// Which device owns which tile when tasks are placed by owner-computes
/// (Schedule::Static); with Schedule::Dynamic the greedy placement decides
/// unless a distribution is asked for explicitly.
enum class Distribution {
  Default,   ///< the context's choice: Weighted under Schedule::Static, none under Dynamic
  OneD,      ///< 1-D block-column cyclic over the computing devices
  TwoD,      ///< 2-D block cyclic over a P x Q grid of the computing devices
  Weighted,  ///< capability-weighted column cyclic (HGDD, seed 000): weights 10:8:5
             ///< give 10, 8 and 5 tile columns per round
  Hybrid,    ///< two-level hybrid tiles (seed 004): small tile columns on the host
             ///< cores, one large tile column per accelerator and round, sized by
             ///< its capability weight (hybrid_tiling()); the factorizations and
             ///< their solvers (Cholesky, LU, QR) and trsm
};

/// What init() starts: host workers, devices and how tasks are placed.
struct Config {
  int num_threads = 0;      ///< host workers incl. the calling thread; 0 = cores minus one per accelerator
  bool pin_threads = true;  ///< bind worker threads to cores (hwloc)
  /// Devices, comma separated: `cpu[:cores]`, `emu[:speed=F][:mem=SIZE][:bw=GB/s][:lat=US][:fail=...]`
  /// (one item per emulated accelerator), `opencl[:index|all][:mem=SIZE]`, `cuda[:index|all]`.
  /// Without `cpu` the host cores only run tasks no accelerator can run.
  std::string devices = "cpu";
  Schedule schedule = Schedule::Dynamic;  ///< Dynamic (greedy, weighted) or Static (owner-computes)
  Distribution distribution = Distribution::Default;  ///< per-call Options override it
};

/// (Re)creates the library context; waits for and replaces any existing one.
/// Throws std::invalid_argument for a bad device list.
void init(const Config& cfg = {});
/// Joins the worker threads; a later call creates a fresh default context.
void finalize();
/// Number of host workers the current context runs with (creates it if needed).
int num_threads();

/// An accelerator that failed during the last call and how the call recovered
/// (docs/reliability.md): the device left the call, its tasks ran elsewhere,
/// tiles whose only valid copy it held were read back; the result is right.
struct Recovery {
  std::string device;          ///< e.g. "emu1"
  std::string error;           ///< what the device reported
  double seconds_lost = 0;     ///< failed attempts there plus copying its tiles back
  uint64_t tasks_rerun = 0;    ///< tasks started or staged there that ran again elsewhere
  uint64_t tasks_moved = 0;    ///< tasks queued there that were placed elsewhere
  uint64_t tiles_copied_back = 0;  ///< tiles whose only valid copy was there
};
/// Recoveries of the context's last call that built a task graph (empty: no
/// device failed; a small call run inline leaves them as they were). A failed device stays out of the context until
/// reset_devices() or the next init().
std::vector<Recovery> last_recoveries();
/// The same, one line each ("device emu1 failed (...); recovered: ...").
std::vector<std::string> last_warnings();
/// Lets devices that failed take work again.
void reset_devices();

}  // namespace hetla
