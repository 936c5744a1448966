// `hetla tune`: measures the capability weights alpha(device, kernel) of the
// chosen devices and stores them in the per-machine weights file, which every
// later run applies when its context starts.
#include <cstdio>
#include <string>

#include <complex>
#include <random>
#include <vector>

#include "cli.hpp"
#include "options.hpp"
#include "progress.hpp"
#include "devices/spec.hpp"
#include "hetla/blas3.hpp"
#include "context/context.hpp"
#include "runtime/runtime.hpp"
#include "tune/calibrate.hpp"
#include "tune/crossover_table.hpp"
#include "tune/split_model.hpp"
#include "tune/tile_table.hpp"
#include "tune_crossover.hpp"
#include "tune_tiles.hpp"
#ifdef HETLA_HAVE_SIMGRID
#include <fstream>

#include "sim/sim_api.hpp"
#endif

namespace hetla::cli {

namespace {
/// `hetla tune --split`: learns the GEMM split of the library context's
/// devices at each size and stores it in the split model.
int tune_split(const std::string& devices, const std::vector<int64_t>& sizes, int rounds, bool json, bool dry,
               bool quiet) {
  // Before any work: A, B and C of the largest size fit in memory.
  for (int64_t n : sizes) check_memory(3.0 * sizeof(double) * static_cast<double>(n) * static_cast<double>(n), "tune --split n=" + std::to_string(n));
  Progress progress("hetla tune --split", quiet);
  progress.update("opening the devices", 0, 0);  // OpenCL: kernels compiled now, the first time
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

/// Tune's own validator: a non-empty word of the letters s, d, c, z ("dz").
CLI::Validator precision_letters() {
  return CLI::Validator(
      [](std::string& text) {
        return !text.empty() && text.find_first_not_of("sdcz") == std::string::npos
                   ? std::string()
                   : "'" + text + "' is not a list of s, d, c, z letters";
      },
      "");
}

}  // namespace

/// `hetla tune --model FILE`: the whole model of this machine for --devices
/// (docs/simulation.md "Model format"), every precision of `precisions` at
/// every tile size of `nbs`, written to FILE for `hetla simulate --machine FILE`.
int tune_model(const std::string& file, const std::string& devices, const std::string& precisions,
               const std::vector<int64_t>& nbs, double seconds, bool json, bool quiet) {
#ifdef HETLA_HAVE_SIMGRID
  sim::ThisOptions o;
  o.devices = devices, o.precisions = precisions, o.nbs = nbs, o.seconds = seconds;
  sim::MachineModel m;
  {
    Progress progress("hetla tune", quiet);
    progress.update("measuring the kernels (" + std::to_string(precisions.size() * nbs.size() * 13) + " x " +
                        std::to_string(seconds).substr(0, 4) + " s)", 0, 0);
    m = sim::api().measure_this(o);
  }
  const std::string text = sim::api().model_json(m);
  sim::api().parse_model(text, file);  // what --machine FILE will read: fail here, not there
  std::ofstream out(file);
  if (!out || !(out << text) || (out.close(), !out)) throw std::runtime_error("cannot write the model to " + file);
  if (json) std::printf("{\"model\":\"%s\",\"devices\":\"%s\",\"precisions\":\"%s\"}\n", file.c_str(), devices.c_str(), precisions.c_str());
  else std::printf("model of this machine for --devices %s written to %s (hetla simulate --machine %s)\n", devices.c_str(), file.c_str(), file.c_str());
  return kExitOk;
#else
  (void)file, (void)devices, (void)precisions, (void)nbs, (void)seconds, (void)json, (void)quiet;
  throw UsageError("tune --model: this build has no simulation (configure with SimGrid: HETLA_WITH_SIMGRID)");
#endif
}

int cmd_tune(int argc, char** argv, int first) {
  std::string devices = "cpu";
  int64_t nb = 256, reps = 5;
  bool json = false, dry = false, split = false, quiet = false;
  std::vector<int64_t> sizes = {1000, 2000, 4000};
  std::string sizes_text;
  bool tiles = false, quick = false, crossover = false;
  std::string precisions, model_file, nbs_text;
  double model_seconds = 0.15;
  CLI::App app("Measures gemm, herk, trsm, potrf and trmm at tile size NB in double precision on\n"
               "every device of SPEC, taking the median of R runs per kernel, and merges the\n"
               "rates into " + tune::weights_path() + "\n"
               "($HETLA_WEIGHTS), which every later run applies when its context starts.\n"
               "\n"
               "--split learns the work split of GEMM across the devices of SPEC at each size N:\n"
               "starting from the capability weights it runs an N x N x N double GEMM R times,\n"
               "each time moving every device's share towards equal busy time, and stores the\n"
               "most balanced split in " + tune::SplitModel::default_path() + "\n"
               "($HETLA_SPLIT_MODEL); gemm then interpolates it in n by default.\n"
               "\n"
               "--tiles searches the tile size of potrf (also used by gemm, trsm, herk), getrf\n"
               "and geqrf on SPEC at each size N in the precisions of --precisions: the sizes\n"
               "from half to twice the built-in one race in rounds (each forward, then back)\n"
               "that keep the faster half, the last two until each ran R times, and the\n"
               "winner is stored in\n" +
               tune::tiles_path() + "\n"
               "($HETLA_TUNING); the library then uses it by default.\n"
               "\n"
               "--crossover times one potrf, getrf and geqrf call on the vendor in the calling\n"
               "thread and on hetla's tile path, alternately, at each size N in the precisions of\n"
               "--precisions, best of R loops, and stores per routine and precision the first size\n"
               "from which the tile path wins at two sizes in a row in " + tune::crossover_path() + "\n"
               "(beside the tile sizes); below it a call runs the vendor inline (the C++/C API and\n"
               "the LAPACK names; posv, gesv, gels follow their factorization). The\n"
               "HETLA_LAPACK_CROSSOVER* variables still win; hetla info shows those in force.\n"
               "\n"
               "--quick: --tiles at N = 1000,2000,4000, double, then --crossover (about a minute\n"
               "and a half on 2 cores).\n"
               "\n"
               "--model FILE writes the simulation model of this machine for SPEC (hetla simulate\n"
               "--machine FILE; docs/simulation.md): every kernel and panel at each tile size of\n"
               "--nbs in each precision of --precisions, run by every host worker at once on tiles\n"
               "from memory for --seconds each (13 measurements per precision and tile size: about\n"
               "40 s of kernels for sdcz x 5 tile sizes, 80 s in all on a loaded 2-core host), and\n"
               "the emulated devices from their own parameters.",
               "hetla tune");
  setup_command(app,
                "[--devices SPEC] [--nb NB] [--repeat R] [--json] [--dry-run] [--quiet]\n"
                "       hetla tune --split [--devices SPEC] [-n N[,N...]] [--repeat R] [--json] [--dry-run] [--quiet]\n"
                "       hetla tune --tiles|--quick [--devices SPEC] [-n N[,N...]] [--precisions sdcz] [--repeat R]\n"
                "                  [--json] [--dry-run] [--quiet]\n"
                "       hetla tune --model FILE [--devices SPEC] [--precisions sdcz] [--nbs NB[,NB...]] [--seconds S]\n"
                "       hetla tune --crossover [-n N[,N...]] [--precisions sdcz] [--repeat R] [--json] [--dry-run] [--quiet]",
                "Progress is shown on stderr when it is a terminal; --quiet silences it.\n"
                "Exit status: 0 success, 1 a measurement failed, 2 usage error.");
  app.add_option("--devices", devices, "devices to measure (see hetla bench --help)")
      ->option_text("SPEC")->check(device_list())->capture_default_str();
  app.add_option("--nb", nb, "tile size of the kernel measurements")
      ->option_text("NB")->transform(integer(16, 4096))->capture_default_str();
  CLI::Option* repeat = app.add_option("--repeat", reps, "runs per kernel (median), refinement rounds per N (--split)\nor runs of the last two sizes (--tiles)")
      ->option_text("R")->transform(integer(1, 100))->default_str("5; --split: 3; --tiles: 2; --crossover: 3");
  CLI::Option* split_flag = app.add_flag("--split", split, "learn the GEMM split instead of the kernel rates");
  CLI::Option* tiles_flag = app.add_flag("--tiles", tiles, "search the tile sizes instead of the kernel rates");
  CLI::Option* crossover_flag =
      app.add_flag("--crossover", crossover, "measure the vendor/tile-path crossovers instead of the kernel rates");
  CLI::Option* quick_flag = app.add_flag("--quick", quick, "--tiles at N = 1000,2000,4000, double, then --crossover");
  // --split is its own search: with another one it would silently run only one of them.
  split_flag->excludes(tiles_flag)->excludes(crossover_flag)->excludes(quick_flag);
  CLI::Option* n_option = app.add_option("-n", sizes_text, "with --split, --tiles or --crossover: the orders to tune at")
      ->option_text("N[,N...]")->check(integer_list(1, 100000))->default_str("1000,2000,4000; --tiles: 1000,2000,4000,8000; --crossover: 24 to 512");
  app.add_option("--precisions", precisions, "with --tiles, --crossover or --model: the precisions to tune (letters of sdcz)")
      ->option_text("P")->check(precision_letters())->default_str("d; --crossover, --model: sdcz");
  CLI::Option* model_opt = app.add_option("--model", model_file, "write the simulation model of this machine for SPEC to FILE")
      ->option_text("FILE");
  app.add_option("--nbs", nbs_text, "with --model: the tile sizes measured")
      ->option_text("NB[,NB...]")->check(integer_list(16, 4096))->default_str("128,192,256,384,512");
  app.add_option("--seconds", model_seconds, "with --model: seconds per kernel and tile size")
      ->option_text("S")->check(CLI::Range(0.001, 10.0))->capture_default_str();
  model_opt->excludes(split_flag)->excludes(tiles_flag)->excludes(crossover_flag)->excludes(quick_flag);
  app.add_flag("--json", json, "one JSON object per line instead of a table; the file is still written");
  app.add_flag("--dry-run", dry, "measure and print, but write no file");
  app.add_flag("--quiet,-q", quiet, "no progress line (shown on stderr only when it is a terminal)");
  if (!parse_command(app, argc, argv, first)) return kExitOk;
  const bool reps_given = repeat->count() > 0, sizes_given = n_option->count() > 0;
  if (sizes_given) sizes = parse_int_list(sizes_text, "-n", 1, 100000);
  if (!model_file.empty()) {
    try {
      dev::parse_devices(devices);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--devices: ") + e.what());
    }
    const std::vector<int64_t> nbs =
        nbs_text.empty() ? std::vector<int64_t>{128, 192, 256, 384, 512} : parse_int_list(nbs_text, "--nbs", 16, 4096);
    return tune_model(model_file, devices, precisions.empty() ? "sdcz" : precisions, nbs, model_seconds, json, quiet);
  }
  if (tiles && crossover && !quick)
    throw UsageError("tune: --tiles and --crossover take different sizes: run them one at a time");
  if (quick) tiles = crossover = true;
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
  std::vector<tune::Rate> rates;
  {
    Progress progress("hetla tune", quiet);
    progress.update("opening the devices", 0, 0);  // OpenCL: kernels compiled now, the first time
    rt::Runtime rt(rc);
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
