// `--grid` in a build without MPI or ScaLAPACK (HETLA_WITH_MPI, docs/mpi.md).
#include <string_view>

#include "bench/distributed.hpp"
#include "cli.hpp"

namespace hetla::cli {

bool wants_grid(int argc, char** argv, int first) {
  for (int i = first; i < argc; ++i) {
    const std::string_view s = argv[i];
    if (s == "--grid" || s.starts_with("--grid=")) return true;
  }
  return false;
}

int bench_distributed(int, char**, int) {
  throw UsageError("--grid: this hetla was built without MPI and ScaLAPACK (HETLA_WITH_MPI; docs/mpi.md)");
}

}  // namespace hetla::cli
