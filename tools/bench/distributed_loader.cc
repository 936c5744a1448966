// The CLI's side of `--grid` (bench/distributed.hpp): finds and runs the
// distributed benchmark's plugin.
#include <stdexcept>
#include <string>
#include <string_view>

#include "bench/distributed.hpp"
#include "cli.hpp"
#include "devices/plugin.hpp"

namespace hetla::cli {

bool wants_grid(int argc, char** argv, int first) {
  for (int i = first; i < argc; ++i) {
    const std::string_view s = argv[i];
    if (s == "--grid" || s.starts_with("--grid=")) return true;
  }
  return false;
}

int bench_distributed(int argc, char** argv, int first) {
  const void* entry = nullptr;
  try {
    entry = dev::plugin_entry("benchmpi");
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--grid needs MPI and ScaLAPACK (HETLA_WITH_MPI; docs/mpi.md): ") + e.what());
  }
  const auto* api = static_cast<const DistributedBenchApi*>(entry);
  if (api->abi != DistributedBenchApi::kAbi) throw UsageError("--grid: libhetla_benchmpi.so is from another hetla version");
  return api->run(argc, argv, first);
}

}  // namespace hetla::cli
