// hetla bench ROUTINE [options]: parses the options, expands the -n and
// --precision lists and runs the registered routine once per configuration.
#include <cctype>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <set>
#include <string>

#include "bench/calls.hpp"
#include "bench/common.hpp"
#include "bench/distributed.hpp"
#include "bench/registry.hpp"
#include "options.hpp"
#include "checks.hpp"
#include "context/context.hpp"
#include "devices/kernel_build.hpp"
#include "hetla/context.hpp"
#include "progress.hpp"
#include "trace/trace.hpp"
#include "util/blas_threads.hpp"

namespace hetla::cli {

namespace {

// Scope of an option with no BenchOption bit of its own: every routine takes
// it, or only those that run through the library (hetla::init).
constexpr unsigned kEveryRoutine = 0;
constexpr unsigned kLibraryRoutines = 1u << 31;

struct BenchArgs {
  std::string routine;
  std::string sizes;       // -n as given ("" = the routine's default)
  std::string precisions;  // --precision as given ("" = d)
  BenchConfig base;
  bool json = false;
  bool quiet = false;
  std::string trace;  // --trace FILE ("" = none)
  std::string devices = "cpu";
  Schedule schedule = Schedule::Dynamic;
  Distribution distribution = Distribution::Default;
  // each option with the routines that take it (a BenchOption bit,
  // kEveryRoutine or kLibraryRoutines), checked once ROUTINE is known
  std::vector<std::pair<const CLI::Option*, unsigned>> scope;
  const CLI::Option* schedule_option = nullptr;
};

std::string routine_list() {
  std::string s;
  for (const Routine* r : routines()) s += (s.empty() ? "" : ", ") + r->name;
  return s;
}

std::vector<std::string> routine_names() {
  std::vector<std::string> names;
  for (const Routine* r : routines()) names.push_back(r->name);
  return names;
}

std::string help_footer() {
  std::string routines_text = "routines:\n";
  for (const Routine* r : routines()) {
    char line[256];
    std::snprintf(line, sizeof line, "  %-8s %s\n", r->name.c_str(), r->summary.c_str());
    routines_text += line;
  }
  char threshold[32];
  std::snprintf(threshold, sizeof threshold, "%g", bench::kResidualThreshold);
  return routines_text +
         "\n--check computes the scaled residual (LAPACK Working Note 41):\n"
         "  potrf:       ||A - L L^H||_1 / (n ||A||_1 eps)\n"
         "  potrs, posv: ||B - A X||_1 / (n ||A||_1 ||X||_1 eps)\n"
         "  getrf:       ||P A - L U||_1 / (n ||A||_1 eps)\n"
         "  gesv:        as posv\n"
         "  geqrf:       max of ||A - Q R||_1 / (max(m, n) ||A||_1 eps) and ||I - Q^H Q||_1 / (m eps)\n"
         "  orgqr:       ||I - Q^H Q||_1 / (m eps)\n"
         "  gels:        ||A^H (B - A X)||_1 scaled as LAPACK's dqrt17 (m >= n), the solve residual (m < n)\n"
         "  others:      as their entry in the routine list says\n"
         "residual_ok = residual < " + threshold + " and info == 0.\n"
         "\n"
         "A routine rejects the options that do not apply to it. Inputs are random, well-conditioned\n"
         "Hermitian positive definite matrices. GFLOP/s use the LAWN 41 operation counts (complex: 6 flops\n"
         "per multiplication, 2 per addition). Times cover the call only: input copies, checks and the\n"
         "baseline are outside it. Library routines also report, from the task trace of the last timed\n"
         "run (recording costs two clock reads per task): busy_pct (mean share of the call's wall time\n"
         "the workers spent in tasks), imbalance (largest / mean per-worker busy time; 1 = even), and in\n"
         "JSON workers [{id, tasks, busy_pct}] and kernels [{label, count, seconds, share_pct, gflops}].\n"
         "Many small calls: potrf, getrf and geqrf with --calls C or --batch B (their options:\n"
         "hetla bench potrf --calls 1 --help).\n"
         "Exit status: 0 success; 1 a check failed, info != 0 or a run failed; 2 usage error.\n"
         "Vendor LAPACK: " + util::blas_vendor();
}

/// Every option of `hetla bench`. Adding one is one line here: the option,
/// where its value goes (a BenchConfig field), its validator and default,
/// and which routines take it (a BenchOption bit they list, kEveryRoutine or
/// kLibraryRoutines).
void add_options(CLI::App& app, BenchArgs& a) {
  BenchConfig& c = a.base;
  auto scope = [&](CLI::Option* o, unsigned routines) {
    a.scope.emplace_back(o, routines);
    return o;
  };
  app.add_option("ROUTINE", a.routine, "the routine to measure (below)")->check(one_of(routine_names()));
  scope(app.add_option("-n", a.sizes, "matrix order(s); for runtime, tasks per shape")->option_text("N[,N...]")->check(integer_list(1, kMaxDim))->default_str("2000; runtime: 200000"), kEveryRoutine);
  scope(app.add_option("-m", c.m, "rows, for routines with rectangular inputs")->option_text("M")->transform(integer(1, kMaxDim))->default_str("n"), kOptM);
  scope(app.add_option("--nrhs", c.nrhs, "right-hand sides")->option_text("K")->transform(integer(1, kMaxDim))->capture_default_str(), kOptNrhs);
  scope(app.add_option("--nb", c.nb, "tile size")->option_text("NB")->transform(integer(1, kMaxDim))->default_str("hetla::default_tile_size<T>(n)"), kOptNb);
  scope(app.add_option("--precision,-p", a.precisions, "s, d, c or z; several: one result per precision")->option_text("P[,P...]")->check(list_of({"s", "d", "c", "z"}))->default_str("d"), kOptPrecision);
  scope(add_choice(app, "--uplo", c.uplo, {{"L", Uplo::Lower}, {"U", Uplo::Upper}, {"lower", Uplo::Lower}, {"upper", Uplo::Upper}}, "triangle that is referenced", true)->option_text("L|U"), kOptUplo);
  scope(app.add_flag("--check", c.check, "compute the scaled residual and residual_ok (below)"), kOptCheck);
  scope(app.add_flag("--baseline", c.baseline, "also time the vendor LAPACK on an identical copy of the input,\nwith the BLAS running as many threads as hetla has workers;\nratio = baseline_seconds / seconds (> 1: hetla is faster)"), kOptBaseline);
  scope(app.add_option("--repeat,-r", c.repeat, "run R times, each on a fresh copy of the input, and report\nthe best (minimum) time")->option_text("R")->transform(integer(1, 1000000))->capture_default_str(), kOptRepeat);
  scope(app.add_option("--threads,-t", c.threads, "host worker threads, the calling thread included")->option_text("T")->transform(integer(1, 4096))->default_str("one per core, minus one per accelerator"), kOptThreads);
  scope(app.add_option("--devices", a.devices, "comma list: cpu[:cores], emu[:speed=F][:mem=SIZE][:bw=GB/s]\n[:lat=US][:herk=gemm] (one item per emulated accelerator;\nherk=gemm: Cholesky's diagonal updates as GEMMs, as GPUs run\nthem), opencl[:index|all], cuda[:index|all]; without cpu the\ncores only run what no accelerator can")->option_text("SPEC")->check(device_list())->capture_default_str(), kLibraryRoutines);
  a.schedule_option = scope(add_choice(app, "--schedule", a.schedule, {{"dynamic", Schedule::Dynamic}, {"static", Schedule::Static}}, "dynamic (greedy by capability weights) or static (owner\ncomputes from the distribution)")->option_text("S"), kLibraryRoutines);
  scope(add_choice(app, "--distribution", a.distribution, {{"1d", Distribution::OneD}, {"2d", Distribution::TwoD}, {"weighted", Distribution::Weighted}, {"hybrid", Distribution::Hybrid}}, "1d, 2d, weighted (capability-weighted cyclic) or hybrid\n(two-level hybrid tiles: small host tiles, one large tile per\naccelerator sized by its weight; the factorizations, their\nsolvers and trsm); naming one without --schedule selects static")->option_text("D")->default_str("weighted under static, none under dynamic"), kLibraryRoutines);
  scope(app.add_option("--trace", a.trace, "write the task trace of the last timed hetla run (never the\nbaseline): FILE.json is Chrome trace JSON (Perfetto,\nchrome://tracing), FILE.svg a Gantt chart (one row per worker).\nWith several configurations each gets its own file,\nFILE-<precision>-n<N>.<ext>")->option_text("FILE")->check(trace_file()), kLibraryRoutines);
  scope(app.add_option("-k", c.k, "inner dimension of a product")->option_text("K")->transform(integer(0, kMaxDim))->default_str("n"), kOptK);
  scope(add_choice(app, "--transa", c.transa, {{"N", Op::NoTrans}, {"T", Op::Trans}, {"C", Op::ConjTrans}}, "op() applied to A in a product", true)->option_text("N|T|C"), kOptTrans);
  scope(add_choice(app, "--transb", c.transb, {{"N", Op::NoTrans}, {"T", Op::Trans}, {"C", Op::ConjTrans}}, "op() applied to B in a product", true)->option_text("N|T|C"), kOptTrans);
  scope(app.add_option("--degree", c.degree, "degree of a matrix polynomial")->option_text("D")->transform(integer(0, 10000))->capture_default_str(), kOptDegree);
  scope(app.add_option("--method", c.method, "horner or ps (Paterson-Stockmeyer)")->option_text("M")->check(one_of({"horner", "ps"}))->capture_default_str(), kOptMethod);
  scope(app.add_option("--weights", c.weights, "force the work split, e.g. cpu=0.4,emu0=0.6 (device names\nas `hetla info` shows them)")->option_text("LIST")->default_str("learned / measured weights"), kOptWeights);
  scope(add_choice(app, "--variable-tiles", c.variable_tiles, {{"default", -1}, {"on", 1}, {"off", 0}}, "tile sizes that shrink towards the end of the factorization\n(hetla::variable_tiling; with --nb, nb is the first size);\ndefault: the library's (HETLA_VARIABLE_TILES)", true)->option_text("on|off"), kOptVariableTiles);
  scope(app.add_option("--minutes", c.minutes, "how long the soak runs")->option_text("M")->check(CLI::Range(0.0, 1e6))->default_str("1"), kOptSoak);
  scope(app.add_option("--seconds", c.seconds, "how long the soak runs, in seconds (wins over --minutes)")->option_text("S")->check(CLI::Range(0.0, 1e8)), kOptSoak);
  scope(app.add_option("--seed", c.seed, "seed of the soak's random cases (the same seed: the same cases)")->option_text("S")->capture_default_str(), kOptSoak);
  scope(app.add_flag("--energy", c.energy, "report joules per device where the platform exposes them\n(RAPL, NVML); says so where nothing is readable"), kLibraryRoutines);
  scope(app.add_flag("--json", a.json, "one JSON object per line instead of a table"), kEveryRoutine);
  scope(app.add_flag("--quiet,-q", a.quiet, "no progress line (shown on stderr only when it is a terminal)"), kEveryRoutine);
}

std::vector<char> precision_list(const std::string& text) {
  std::vector<char> out;
  for (auto item : split(text, ',')) out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(item[0]))));
  return out;
}

/// The trace file of one configuration: FILE itself when there is only one,
/// else FILE-<precision>-n<N>.<ext>.
std::string trace_path(const std::string& file, bool several, char precision, int64_t n) {
  if (!several) return file;
  const std::size_t dot = file.rfind('.');
  return file.substr(0, dot) + "-" + precision + "-n" + std::to_string(n) + file.substr(dot);
}

const Value* field(const Record& rec, std::string_view key) {
  for (const auto& f : rec.fields)
    if (f.key == key) return &f.value;
  return nullptr;
}

double number(const Record& rec, std::string_view key) {
  const Value* v = field(rec, key);
  if (v) {
    if (auto d = std::get_if<double>(v)) return *d;
    if (auto i = std::get_if<int64_t>(v)) return static_cast<double>(*i);
  }
  return std::numeric_limits<double>::quiet_NaN();
}

/// Writes the captured trace of configuration `c` (record `rec`) to `path`.
void write_trace(const std::string& path, const TraceCapture& cap, const trace::Summary& sum, const BenchConfig& c,
                 const Record& rec) {
  const std::vector<std::string>& rows = cap.row_names();
  std::string text;
  if (ends_with_nocase(path, ".json")) {
    text = trace::to_chrome_json(cap.events(), cap.num_workers(), rows);
  } else {
    trace::SvgOptions o;
    char buf[256];
    std::snprintf(buf, sizeof buf, "hetla %s   precision %c   n=%lld   nb=%lld", c.routine.c_str(), c.precision,
                  static_cast<long long>(c.n), static_cast<long long>(number(rec, "nb")));
    o.title = buf;
    // GFLOP/s of the traced run: the record's rate is for the best run.
    const double best = number(rec, "seconds"), gflop = number(rec, "gflops") * best;
    int workers = 0;  // as in the JSON: copy-engine rows are not workers
    double busy = 0;
    for (const auto& w : sum.workers)
      if (!w.transfers_only) ++workers, busy += w.busy;
    const int copy_rows = cap.num_workers() - workers;
    std::snprintf(buf, sizeof buf,
                  "traced run (last of %d): %.3f ms, %.2f GFLOP/s   |   %d workers%s, %zu tasks and copies, "
                  "busy %.1f %%, imbalance %.2f",
                  c.repeat, cap.seconds() * 1e3, gflop / cap.seconds(), workers,
                  copy_rows > 0 ? (" + " + std::to_string(copy_rows) + " copy engines").c_str() : "",
                  cap.events().size(), workers > 0 ? 100 * busy / (sum.window * workers) : 0.0, sum.imbalance);
    o.subtitle = buf;
    o.row_names = rows;
    o.t0 = 0;
    o.t1 = cap.seconds();
    text = trace::to_svg(cap.events(), cap.num_workers(), o);
  }
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot write trace file '" + path + "': " + std::strerror(errno));
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) throw std::runtime_error("error writing trace file '" + path + "'");
}

/// Bytes one configuration needs: the routine's own estimate, else ~128
/// bytes per task for the runtime benchmark (measured: ~120 with its handles
/// and task records), else three m x n matrices (input, copy, check).
double memory_estimate(const Routine& spec, const BenchConfig& c) {
  if (spec.memory_bytes) return spec.memory_bytes(c);
  const double n = static_cast<double>(c.n), m = c.m < 0 ? n : static_cast<double>(c.m);
  if (spec.name == "runtime") return 128.0 * n;
  const double elem = c.precision == 's' ? 4 : c.precision == 'z' ? 16 : 8;
  return 3.0 * m * n * elem;
}

}  // namespace

int cmd_bench(int argc, char** argv, int first) {
  if (wants_grid(argc, argv, first)) return bench_distributed(argc, argv, first);  // under mpirun (docs/mpi.md)
  if (is_call_bench(argc, argv, first)) return cmd_bench_calls(argc, argv, first);  // bench/calls.hpp
  BenchArgs a;
  CLI::App app("Measures one hetla routine; prints one result per configuration (every -n value\n"
               "for every precision).",
               "hetla bench");
  setup_command(app, "ROUTINE [options]", help_footer());
  add_options(app, a);
  if (!parse_command(app, argc, argv, first)) return kExitOk;
  if (a.routine.empty()) throw UsageError("missing ROUTINE (one of: " + routine_list() + ")");
  const Routine* spec = find_routine(a.routine);
  for (const auto& [option, routines] : a.scope) {
    if (option->count() == 0) continue;
    if (routines == kLibraryRoutines && !spec->library)
      throw UsageError("option " + option->get_name() + " does not apply to " + spec->name +
                       " (it runs no library call)");
    if (routines != kLibraryRoutines && routines != kEveryRoutine && !(spec->options & routines))
      throw UsageError("option " + option->get_name() + " does not apply to " + spec->name);
  }
  static const std::set<std::string> hybrid_routines{"potrf", "potrs", "posv",  "trsm", "getrf",
                                                     "gesv",  "geqrf", "gels", "orgqr"};
  if (a.distribution == Distribution::Hybrid && !hybrid_routines.count(spec->name))
    throw UsageError("--distribution hybrid: the factorizations, their solvers and trsm take hybrid tiles, " +
                     spec->name + " does not (use weighted)");
  const std::vector<int64_t> ns =
      a.sizes.empty() ? std::vector<int64_t>{spec->default_n} : parse_int_list(a.sizes, "-n", 1, kMaxDim);
  const std::vector<char> precisions = a.precisions.empty() ? std::vector<char>{'d'} : precision_list(a.precisions);
  const bool several = ns.size() * precisions.size() > 1;
  // Before any work: every configuration fits in memory and every trace file
  // can be written.
  for (char p : precisions)
    for (int64_t n : ns) {
      BenchConfig c = a.base;
      c.routine = spec->name;
      c.spec = spec;
      c.precision = p;
      c.n = n;
      std::string what = "bench " + spec->name + " n=" + std::to_string(n);
      if (spec->options & kOptPrecision) what += std::string(" precision ") + p;
      check_memory(memory_estimate(*spec, c), what);
      if (!a.trace.empty()) check_output_path(trace_path(a.trace, several, p, n), "--trace");
    }

  BenchConfig base = a.base;
  base.routine = spec->name;
  base.spec = spec;
  Progress progress("hetla bench " + spec->name, a.quiet);
  if (spec->library) {
    progress.update("opening the devices", 0, 0);
    hetla::Config cfg;
    cfg.num_threads = base.threads;
    cfg.devices = a.devices;
    // A distribution only places work under owner-computes: naming one
    // without --schedule means static scheduling.
    cfg.schedule = a.schedule_option->count() > 0 || a.distribution == Distribution::Default ? a.schedule : Schedule::Static;
    cfg.distribution = a.distribution;
    try {
      hetla::init(cfg);  // start the workers and open the devices now, outside every timed region
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--devices: ") + e.what());
    }
    base.threads = hetla::num_threads();
    // Device code (OpenCL kernels: tens of seconds per precision the first
    // time on a machine) is built now, not inside a timed run.
    detail::CallScope scope;
    for (char p : precisions) {
      progress.update(std::string("building the device kernels for precision ") + p, 0, 0);
      std::chrono::nanoseconds built{0};
      for (int d = 1; d < scope.rt().num_devices(); ++d) built += dev::warm_up_kernels(scope.rt().device(d), p);
      if (built > std::chrono::seconds(1)) {
        progress.clear();
        std::fprintf(stderr, "hetla bench: built the device kernels for precision %c in %.1f s (not timed)\n", p,
                     std::chrono::duration<double>(built).count());
      }
    }
  }

  RecordPrinter printer(a.json);
  const int64_t configurations = static_cast<int64_t>(ns.size() * precisions.size());
  int64_t configuration = 0;
  int status = kExitOk;
  for (char p : precisions)
    for (int64_t n : ns) {
      progress.update("n=" + std::to_string(n) + " precision " + std::string(1, p) +
                          (base.repeat > 1 ? ", best of " + std::to_string(base.repeat) : ""),
                      configuration++, configurations);
      BenchConfig c = base;
      c.precision = p;
      c.n = n;
      // A run that fails: the message on stderr and, with --json, as a JSON
      // object naming the configuration on stdout.
      auto report = [&](const std::string& message) {
        progress.clear();
        print_error(a.json, message,
                    spec->name + " (n=" + std::to_string(n) + ", precision " + std::string(1, p) + "): ",
                    {{"routine", spec->name}, {"precision", std::string(1, p)}, {"n", n}});
        status = kExitFailed;
      };
      try {
        // Library routines are always traced (see the overhead note in --help).
        std::optional<TraceCapture> capture;
        if (spec->library) capture.emplace(c.energy);
        const std::size_t first_recovery = spec->library ? recovery_mark() : 0;
        Record rec = spec->run(c);
        progress.clear();  // before any message below
        if (spec->library) add_recoveries(rec, first_recovery, a.json);
        if (capture && capture->captured()) {
          const trace::Summary sum = trace::summarize(capture->events(), capture->num_workers(), capture->seconds());
          add_trace_summary(rec, sum);
          add_device_summary(rec, *capture);
          add_memory_summary(rec, *capture);
          add_energy_summary(rec, *capture);
          if (capture->energy_meter() && !capture->energy_meter()->available() && !a.json)
            std::fprintf(stderr, "hetla bench: --energy: nothing measured (%s)\n",
                         capture->energy_meter()->unavailable_reason().c_str());
          if (!a.trace.empty()) {
            const std::string path = trace_path(a.trace, several, p, n);
            try {
              write_trace(path, *capture, sum, c, rec);
              rec.add("trace", path, "-");
            } catch (const std::exception& e) {
              std::fprintf(stderr, "hetla bench %s: %s\n", spec->name.c_str(), e.what());
              rec.add("trace", Value(), "-");
              status = kExitFailed;
            }
          }
        } else if (!a.trace.empty()) {
          std::fprintf(stderr,
                       "hetla bench %s (n=%lld, precision %c): no trace written, the library call was not reached\n",
                       spec->name.c_str(), static_cast<long long>(n), p);
          rec.add("trace", Value(), "-");
          status = kExitFailed;
        }
        progress.clear();
        printer.print(rec);
        if (rec.failed) status = kExitFailed;
      } catch (const std::bad_alloc&) {
        report("out of memory");
      } catch (const UsageError&) {
        throw;
      } catch (const std::invalid_argument&) {
        throw;  // hetla::ArgumentError: a parameter the library rejects (exit 2)
      } catch (const std::exception& e) {
        report(e.what());
      }
    }
  return status;
}

}  // namespace hetla::cli
