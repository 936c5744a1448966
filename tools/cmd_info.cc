// hetla info: what hetla sees on this machine.
#include <cstdio>

#include "cli.hpp"
#include "hetla/context.hpp"
#include "hetla/version.hpp"
#include "util/blas_threads.hpp"
#include "util/hwloc_topology.hpp"

namespace hetla::cli {

int cmd_info(int argc, char** argv, int first) {
  bool json = false;
  ArgReader in(argc, argv, first);
  while (!in.done()) {
    const std::string_view opt = in.next();
    if (opt == "--json") {
      in.no_value(opt);
      json = true;
    } else if (opt == "-h" || opt == "--help") {
      std::printf("usage: hetla info [--json]\n\nPrints the CPU, cores, topology source, BLAS/LAPACK vendor,\n"
                  "library version, worker threads and the devices hetla can use.\n");
      return kExitOk;
    } else {
      throw UsageError("info: unexpected argument '" + std::string(opt) + "'");
    }
  }
  auto& topo = util::Topology::get();
  const int cores = topo.cores();
  const std::string model = topo.cpu_model().empty() ? "unknown" : topo.cpu_model();
  const bool hwloc = topo.has_hwloc();
  const int workers = hetla::num_threads();
  const std::string blas = util::blas_vendor();
  const std::string devices = "cpu (" + std::to_string(cores) + " cores); no accelerator backends built";

  if (json) {
    Record r;
    r.add("version", std::string(HETLA_VERSION_STRING))
        .add("cpu", model)
        .add("cores", static_cast<int64_t>(cores))
        .add("hardware_threads", static_cast<int64_t>(topo.pus()))
        .add("hwloc", hwloc)
        .add("blas", blas)
        .add("workers", static_cast<int64_t>(workers))
        .add("devices", std::string("cpu"))
        .add("accelerator_backends", static_cast<int64_t>(0));
    RecordPrinter(true).print(r);
    return kExitOk;
  }
  std::printf("hetla %s (heterogeneous tile linear algebra)\n", HETLA_VERSION_STRING);
  std::printf("cpu:      %s\n", model.c_str());
  std::printf("cores:    %d (%d hardware threads)\n", cores, topo.pus());
  std::printf("hwloc:    %s\n", hwloc ? "used (topology, worker threads pinned to cores)"
                                      : "not used (cores from the OS; threads not pinned)");
  std::printf("blas:     %s\n", blas.c_str());
  std::printf("workers:  %d (runtime threads, the calling thread included)\n", workers);
  std::printf("devices:  %s\n", devices.c_str());
  return kExitOk;
}

}  // namespace hetla::cli
