// hetla info: what hetla sees on this machine.
#include <cstdio>
#include <string>
#include <vector>

#include "cli.hpp"
#include "options.hpp"
#include "hetla/context.hpp"
#include "hetla/version.hpp"
#include "devices/plugin.hpp"
#include "devices/spec.hpp"
#include "kernels/host/small_cholesky.hpp"
#include "kernels/host/small_householder.hpp"
#include "kernels/host/small_lu.hpp"
#include "tune/calibrate.hpp"
#include "tune/crossover.hpp"
#include "tune/tuned_tiles.hpp"
#include "util/blas_threads.hpp"
#include "util/hwloc_topology.hpp"

namespace hetla::cli {

int cmd_info(int argc, char** argv, int first) {
  bool json = false;
  CLI::App app("Prints the CPU, cores, topology source, BLAS/LAPACK vendor, library version,\n"
               "worker threads, the device plugins and the devices hetla can use, with their\n"
               "calibrated rates, and the weights and tile-size files. Nothing is measured.",
               "hetla info");
  setup_command(app, "[--json]", "Exit status: 0 success, 2 usage error.");
  app.add_flag("--json", json, "one JSON object instead of the text");
  if (!parse_command(app, argc, argv, first)) return kExitOk;
  auto& topo = util::Topology::get();
  const int cores = topo.cores();  // in the process's CPU set
  std::string cpu_set;             // as taskset -c lists it: 0-3,8
  const std::vector<int> cpus = topo.cpu_set();
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    cpu_set += (cpu_set.empty() ? "" : ",") + std::to_string(cpus[i]) +
               (j > i ? "-" + std::to_string(cpus[j]) : std::string());
    i = j + 1;
  }
  const std::string model = topo.cpu_model().empty() ? "unknown" : topo.cpu_model();
  const bool hwloc = topo.has_hwloc();
  const int workers = hetla::num_threads();
  const std::string blas = util::blas_vendor();
  const auto found = dev::probe_devices();
  const tune::TuningStatus tuning = tune::tuning_status();
  const tune::CrossoverStatus crossovers = tune::crossover_status();
  std::vector<tune::Rate> rates;
  try {
    rates = tune::load(tune::weights_path());
  } catch (const std::exception&) {  // a broken weights file: show none
  }
  // Calibrated rates of a device, "gemm 36.8, herk 28.9, ..." GFLOP/s per worker.
  auto rates_of = [&](const dev::DeviceInfo& d) {
    const std::string key = d.kind == "cpu" ? "cpu:" + topo.cpu_model() : d.kind + ":" + d.name;
    std::string out;
    for (const auto& r : rates)
      if (r.device == key) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%s%s %.1f", out.empty() ? "" : ", ", r.kernel.c_str(), r.gflops);
        out += buf;
      }
    return out;
  };

  if (json) {
    Record r;
    r.add("version", std::string(HETLA_VERSION_STRING))
        .add("cpu", model)
        .add("cores", static_cast<int64_t>(cores))
        .add("machine_cores", static_cast<int64_t>(topo.machine_cores()))
        .add("cpu_set", cpu_set)
        .add("hardware_threads", static_cast<int64_t>(topo.pus()))
        .add("hwloc", hwloc)
        .add("blas", blas)
        .add("small_kernels", std::string(small::own_kernels_isa()))
        .add("small_routines", std::string("potrf getrf geqrf"))
        .add("small_qr_kernels", std::string(small::own_kernels_isa()))
        .add("workers", static_cast<int64_t>(workers))
        .add("backends", dev::built_backends());
    Json list = Json::array();
    for (const auto& d : found)
      list.push_back({{"kind", d.kind},
                      {"index", d.index},
                      {"name", d.name},
                      {"memory_bytes", d.memory},
                      {"detail", d.detail},
                      {"calibrated_gflops", rates_of(d)}});
    Json plugins = Json::array();
    for (const auto& p : dev::plugin_status())
      plugins.push_back({{"kind", p.kind}, {"loaded", p.loaded}, {"path", p.path}, {"reason", p.reason}});
    r.add("devices", RawJson{list}).add("plugins", RawJson{plugins}).add("weights_file", tune::weights_path());
    r.add("tuning", RawJson{Json{{"file", tuning.path}, {"state", tuning.state}, {"entries", tuning.entries}}});
    Json in_force = Json::array();
    for (const auto& e : crossovers.entries)
      in_force.push_back({{"routine", e.name}, {"n", e.n}, {"source", tune::source_name(e.source)}});
    r.add("crossovers",
          RawJson{Json{{"file", crossovers.path}, {"state", crossovers.state}, {"in_force", std::move(in_force)}}});
    RecordPrinter(true).print(r);
    return kExitOk;
  }
  std::printf("hetla %s (heterogeneous tile linear algebra)\n", HETLA_VERSION_STRING);
  std::printf("cpu:      %s\n", model.c_str());
  if (cores == topo.machine_cores())
    std::printf("cores:    %d (%d hardware threads)\n", cores, topo.pus());
  else
    std::printf("cores:    %d in the process's CPU set %s (machine: %d cores, %d hardware threads)\n", cores,
                cpu_set.c_str(), topo.machine_cores(), topo.pus());
  std::printf("hwloc:    %s\n", hwloc ? "used (topology, worker threads pinned to cores)"
                                      : "not used (cores from the OS; threads not pinned)");
  std::printf("blas:     %s\n", blas.c_str());
  std::printf("small:    hetla's own Cholesky (s, d, c, z; n <= %lld) and LU (s, d; m, n <= %lld) in the caller's thread (%s build)\n",
              static_cast<long long>(small::kOwnPotrfMax), static_cast<long long>(small::kOwnGetrfMax),
              small::own_kernels_isa());
  std::printf("          hetla's own QR (geqrf) for s, d, c, z up to %lld x %lld in the caller's thread (%s build)\n",
              static_cast<long long>(small::kOwnGeqrfMaxRows), static_cast<long long>(small::kOwnGeqrfMaxCols),
              small::own_kernels_isa());
  std::printf("workers:  %d (runtime threads, the calling thread included)\n", workers);
  std::printf("backends: %s (emu = emulated accelerators, --devices emu:speed=F)\n", dev::built_backends().c_str());
  for (const auto& p : dev::plugin_status())
    std::printf("plugin:   %-6s %s\n", p.kind.c_str(),
                p.loaded ? ("loaded from " + p.path).c_str() : ("not loaded: " + p.reason).c_str());
  std::printf("devices:\n");
  for (const auto& d : found) {
    std::string line = d.name;
    if (d.memory) line += ", " + std::to_string(d.memory >> 20) + " MiB";
    if (!d.detail.empty()) line += ", " + d.detail;
    std::string r = rates_of(d);
    if (r.empty()) r = "not calibrated (run hetla tune)";
    std::printf("  %s:%d  %s\n         calibrated GFLOP/s per worker: %s\n", d.kind.c_str(), d.index, line.c_str(), r.c_str());
  }
  std::printf("weights:  %s\n", tune::weights_path().c_str());
  std::printf("tiles:    %s: %s", tuning.path.c_str(), tuning.state.c_str());
  if (tuning.state == "in use") std::printf(" (%zu tuned sizes; hetla tune --tiles)", tuning.entries);
  else if (tuning.state == "absent") std::printf(" (built-in tile sizes; hetla tune --tiles measures them)");
  std::printf("\n");
  // One line per routine: "potrf  s 160 built-in, d 128 tuned, ..." (four precisions in order).
  std::printf("crossovers: %s: %s%s\n", crossovers.path.c_str(), crossovers.state.c_str(),
              crossovers.state == "absent" ? " (built-in; hetla tune --crossover measures them)" : "");
  for (std::size_t i = 0; i + 3 < crossovers.entries.size(); i += 4) {
    std::string line;
    for (std::size_t p = i; p < i + 4; ++p) {
      const auto& e = crossovers.entries[p];
      if (p > i) line += ", ";
      line.append(e.name, 0, 1).append(" ").append(std::to_string(e.n)).append(" ").append(tune::source_name(e.source));
    }
    std::printf("  %-6s %s\n", crossovers.entries[i].name.substr(1).c_str(), line.c_str());
  }
  return kExitOk;
}

}  // namespace hetla::cli
