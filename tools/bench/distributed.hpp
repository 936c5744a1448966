// `hetla bench ... --grid PxQ`: the distributed benchmark. Its code
// (bench/distributed.cc, with libhetla_mpi and ScaLAPACK) is a plugin,
// libhetla_benchmpi.so, opened only when --grid is given, so the CLI itself
// loads no libmpi (hetla version stays a few milliseconds). The CLI side is
// bench/distributed_loader.cc.
#pragma once

namespace hetla::cli {

/// What the plugin's `hetla_plugin_benchmpi()` returns (devices/plugin.hpp's loader).
struct DistributedBenchApi {
  static constexpr int kAbi = 1;
  int abi = kAbi;
  int (*run)(int argc, char** argv, int first);  // the exit status
};

/// True when the bench arguments (argv[first..]) name a process grid.
bool wants_grid(int argc, char** argv, int first);
/// Runs the distributed benchmark from the plugin; the exit status. Throws
/// UsageError when the plugin is not there (a build without MPI).
int bench_distributed(int argc, char** argv, int first);

}  // namespace hetla::cli
