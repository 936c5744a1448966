// Library-wide state: the runtime (worker threads, devices) used by every
// call. A default context is created on first use; init()/finalize() give
// control.
#pragma once
#include <string>

namespace hetla {

/// How tasks are placed on devices: owner-computes from the data
/// distribution (seed 004), or greedy by capability weights (seed 000).
enum class Schedule { Dynamic, Static };

struct Config {
  int num_threads = 0;      // host workers incl. the calling thread; 0 = cores minus one per accelerator
  bool pin_threads = true;  // bind worker threads to cores (hwloc)
  /// Devices, comma separated: `cpu[:cores]`, `emu[:speed=F][:mem=SIZE][:bw=GB/s][:lat=US]`
  /// (one item per emulated accelerator), `opencl[:index]`, `cuda[:index|all]`.
  /// Without `cpu` the host cores only run tasks no accelerator can run.
  std::string devices = "cpu";
  Schedule schedule = Schedule::Dynamic;
};

/// (Re)creates the library context; waits for and replaces any existing one.
/// Throws std::invalid_argument for a bad device list.
void init(const Config& cfg = {});
/// Joins the worker threads; a later call creates a fresh default context.
void finalize();
/// Number of host workers the current context runs with (creates it if needed).
int num_threads();

}  // namespace hetla
