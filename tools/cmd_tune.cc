// `hetla tune`: measures the capability weights alpha(device, kernel) of the
// chosen devices and stores them in the per-machine weights file, which every
// later run applies when its context starts.
#include <cstdio>
#include <string>

#include <complex>
#include <random>
#include <vector>

#include "cli.hpp"
#include "context/context.hpp"
#include "devices/spec.hpp"
#include "hetla/blas3.hpp"
#include "progress.hpp"
#include "runtime/runtime.hpp"
#include "tune/calibrate.hpp"
#include "tune/crossover_table.hpp"
#include "tune/split_model.hpp"
#include "tune/tile_table.hpp"
#include "tune_crossover.hpp"
#include "tune_tiles.hpp"

namespace hetla::cli {

namespace {
void print_tune_help(std::FILE* out) {
  std::fprintf(
      out,
      "usage: hetla tune [--devices SPEC] [--nb NB] [--repeat R] [--json] [--dry-run] [--quiet]\n"
      "       hetla tune --split [--devices SPEC] [-n N[,N...]] [--repeat R] [--json] [--dry-run] [--quiet]\n"
      "       hetla tune --tiles|--quick [--devices SPEC] [-n N[,N...]] [--precisions sdcz] [--repeat R] [--json]\n"
      "                  [--dry-run] [--quiet]\n"
      "       hetla tune --crossover [-n N[,N...]] [--precisions sdcz] [--repeat R] [--json] [--dry-run] [--quiet]\n"
      "\n"
      "Measures gemm, herk, trsm and potrf at tile size NB (default 256, double\n"
      "precision) on every device of SPEC (default: cpu; see hetla bench --help),\n"
      "taking the median of R runs (default 5) per kernel, and merges the rates into\n"
      "%s\n"
      "(override with $HETLA_WEIGHTS). --dry-run measures without writing.\n"
      "\n"
      "--split learns the work split of GEMM across the devices of SPEC at each size N\n"
      "(default 1000,2000,4000): starting from the capability weights it runs an\n"
      "N x N x N double GEMM R times (default 3), each time moving every device's share\n"
      "towards equal busy time, and stores the most balanced split in\n"
      "%s\n"
      "(override with $HETLA_SPLIT_MODEL); gemm then interpolates it in n by default.\n"
      "\n"
      "--tiles searches the tile size of potrf (also used by gemm, trsm, herk), getrf and\n"
      "geqrf on SPEC at each size N (default 1000,2000,4000,8000) in the precisions of\n"
      "--precisions (default d), best of R runs (default 2) per point, and stores the\n"
      "fastest in %s\n"
      "(override with $HETLA_TUNING); the library then uses it by default.\n"
      "\n"
      "--crossover times one potrf, getrf and geqrf call on the vendor in the calling\n"
      "thread and on hetla's tile path, alternately, at each size N (default\n"
      "24,32,48,64,96,128,160,192,256,384,512) in the precisions of --precisions\n"
      "(default sdcz), best of R loops (default 3), and stores per routine and\n"
      "precision the first size from which the tile path wins at two sizes in a row in\n"
      "%s\n"
      "(beside the tile sizes); below it a call runs the vendor inline (the C++/C API and\n"
      "the LAPACK names; posv, gesv, gels follow their factorization). The\n"
      "HETLA_LAPACK_CROSSOVER* variables still win. hetla info shows those in force.\n"
      "\n"
      "--quick: --tiles at N = 1000,2000,4000, double, then --crossover (about\n"
      "a minute and a half on 2 cores).\n"
      "\n"
      "Progress is shown on stderr when it is a terminal; --quiet silences it.\n",
      tune::weights_path().c_str(), tune::SplitModel::default_path().c_str(), tune::tiles_path().c_str(),
      tune::crossover_path().c_str());
}
/// `hetla tune --split`: learns the GEMM split of the library context's
/// devices at each size and stores it in the split model.
int tune_split(const std::string& devices, const std::vector<int64_t>& sizes, int rounds, bool json, bool dry,
               bool quiet) {
  // Before any work: A, B and C of the largest size fit in memory.
  for (int64_t n : sizes) check_memory(3.0 * sizeof(double) * static_cast<double>(n) * static_cast<double>(n), "tune --split n=" + std::to_string(n));
  hetla::Config cfg;
  cfg.devices = devices;
  try {
    hetla::init(cfg);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--devices: ") + e.what());
  }
  std::vector<std::string> names;
  std::vector<int> workers;
  std::string key;
  {
    detail::CallScope scope;
    rt::Runtime& rt = scope.rt();
    for (int d = 0; d < rt.num_devices(); ++d) {
      names.push_back(rt.device(d).name());
      workers.push_back(d == 0 ? rt.num_host_workers() : rt.device(d).num_workers());
    }
    key = tune::device_set_key(rt);
  }
  tune::SplitModel model = tune::SplitModel::load(tune::SplitModel::default_path());
  RecordPrinter printer(json);
  Progress progress("hetla tune --split", quiet);
  for (std::size_t si = 0; si < sizes.size(); ++si) {
    const int64_t n = sizes[si];
    progress.update("learning the gemm split at n=" + std::to_string(n), static_cast<int64_t>(si),
                    static_cast<int64_t>(sizes.size()));
    std::mt19937_64 g(static_cast<uint64_t>(n));
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> A(static_cast<std::size_t>(n * n)), B(A.size()), C(A.size());
    for (auto* v : {&A, &B})
      for (double& x : *v) x = u(g);
    std::vector<double> start;
    for (const auto& s : gemm_split(Options{})) start.push_back(s.share);
    double imbalance = 0;
    tune::SplitRun run = [&](const std::vector<double>& shares) {
      Options o;
      for (std::size_t d = 0; d < shares.size(); ++d)
        o.weights += (d ? "," : "") + names[d] + "=" + std::to_string(shares[d]);
      {
        detail::CallScope scope;
        scope.rt().reset_stats();
      }
      gemm(Op::NoTrans, Op::NoTrans, n, n, n, 1.0, A.data(), n, B.data(), n, 0.0, C.data(), n, o);
      detail::CallScope scope;
      const auto st = scope.rt().stats();
      std::vector<double> busy(shares.size(), 0);
      for (std::size_t d = 0; d < busy.size() && d < st.size(); ++d)
        busy[d] = st[d].busy_seconds / std::max(1, workers[d]);
      return busy;
    };
    const auto shares = tune::learn_split(start, run, rounds);
    imbalance = tune::busy_imbalance(run(shares));
    model.set({key, static_cast<double>(n), shares});
    Record rec;
    rec.add("n", n, "", 6);
    std::string list;
    for (std::size_t d = 0; d < shares.size(); ++d) list += (d ? " " : "") + names[d] + "=" + std::to_string(shares[d]).substr(0, 5);
    rec.add("split", list, "", 40).add("imbalance", imbalance, "", 9, 3);
    progress.clear();
    printer.print(rec);
  }
  hetla::finalize();
  if (!dry) {
    model.save(tune::SplitModel::default_path());
    tune::set_cached_model(model);
    if (!json) std::printf("saved to %s\n", tune::SplitModel::default_path().c_str());
  }
  return kExitOk;
}

}  // namespace

int cmd_tune(int argc, char** argv, int first) {
  std::string devices = "cpu";
  int64_t nb = 256, reps = 5;
  bool json = false, dry = false, split = false, quiet = false;
  std::vector<int64_t> sizes = {1000, 2000, 4000};
  bool reps_given = false, sizes_given = false, tiles = false, quick = false, crossover = false;
  std::string precisions;
  ArgReader args(argc, argv, first);
  while (!args.done()) {
    std::string_view a = args.next();
    if (a == "--help" || a == "-h") {
      print_tune_help(stdout);
      return kExitOk;
    } else if (a == "--devices") {
      devices = parse_device_list(args.value(a));
    } else if (a == "--nb") {
      nb = parse_int(args.value(a), "--nb", 16, 4096);
    } else if (a == "--repeat") {
      reps = parse_int(args.value(a), "--repeat", 1, 100);
      reps_given = true;
    } else if (a == "--split") {
      args.no_value(a);
      split = true;
    } else if (a == "--tiles") {
      args.no_value(a);
      tiles = true;
    } else if (a == "--crossover") {
      args.no_value(a);
      crossover = true;
    } else if (a == "--quick") {
      args.no_value(a);
      quick = true;
    } else if (a == "--precisions") {
      precisions = std::string(args.value(a));
      if (precisions.empty() || precisions.find_first_not_of("sdcz") != std::string::npos)
        throw UsageError("--precisions: '" + precisions + "' is not a list of s, d, c, z letters");
    } else if (a == "-n") {
      sizes = parse_int_list(args.value(a), "-n", 1, 100000);
      sizes_given = true;
    } else if (a == "--json") {
      args.no_value(a);
      json = true;
    } else if (a == "--quiet" || a == "-q") {
      args.no_value(a);
      quiet = true;
    } else if (a == "--dry-run") {
      args.no_value(a);
      dry = true;
    } else {
      throw UsageError("tune: unknown option '" + std::string(a) + "' (see hetla tune --help)");
    }
  }
  if (quick) tiles = crossover = true;
  if (tiles && crossover && !quick)
    throw UsageError("tune: --tiles and --crossover take different sizes: run them one at a time");
  if (tiles) {
    TileSearch ts = quick ? quick_tile_search() : TileSearch{};
    ts.devices = devices;
    if (sizes_given) ts.sizes = sizes;
    if (!quick && !precisions.empty()) ts.precisions = precisions;
    if (reps_given) ts.repeat = static_cast<int>(reps);
    ts.json = json, ts.dry = dry, ts.quiet = quiet;
    if (const int rc = tune_tiles(ts); rc != kExitOk || !crossover) return rc;
  }
  if (crossover) {
    CrossoverSearch cs;
    if (sizes_given && !quick) cs.sizes = sizes;
    if (!precisions.empty() && !quick) cs.precisions = precisions;
    if (reps_given) cs.repeat = static_cast<int>(reps);
    cs.json = json, cs.dry = dry, cs.quiet = quiet;
    return tune_crossover(cs);
  }
  if (split) return tune_split(devices, sizes, reps_given ? static_cast<int>(reps) : 3, json, dry, quiet);
  dev::DeviceSet set;
  try {
    set = dev::parse_devices(devices);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--devices: ") + e.what());
  }
  rt::RuntimeConfig rc;
  rc.num_workers = set.host_cores;
  rc.accelerators = set.accelerators;
  rt::Runtime rt(rc);
  std::vector<tune::Rate> rates;
  {
    Progress progress("hetla tune", quiet);
    rates = tune::calibrate(rt, nb, static_cast<int>(reps), [&](const std::string& label, int i, int count) {
      progress.update("measuring " + label, i, count);
    });
  }
  RecordPrinter printer(json);
  for (const auto& r : rates) {
    Record rec;
    rec.add("device", r.device, "", 24).add("kernel", r.kernel, "", 6).add("nb", nb, "", 5).add("gflops", r.gflops, "", 8, 2);
    printer.print(rec);
  }
  if (!dry) {
    tune::save(rates, tune::weights_path());
    if (!json) std::printf("saved to %s\n", tune::weights_path().c_str());
  }
  return kExitOk;
}

}  // namespace hetla::cli
