// `hetla bench ... --grid PxQ`: the distributed benchmark (bench/distributed.cc).
#pragma once

namespace hetla::cli {

/// True when the bench arguments (argv[first..]) name a process grid.
bool wants_grid(int argc, char** argv, int first);
/// Runs the distributed benchmark; the exit status.
int bench_distributed(int argc, char** argv, int first);

}  // namespace hetla::cli
