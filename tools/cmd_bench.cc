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
#include "bench/registry.hpp"
#include "checks.hpp"
#include "context/context.hpp"
#include "devices/kernel_build.hpp"
#include "hetla/context.hpp"
#include "progress.hpp"
#include "trace/trace.hpp"
#include "util/blas_threads.hpp"

namespace hetla::cli {

void print_bench_help(std::FILE* out) {
  std::fprintf(out,
               "usage: hetla bench ROUTINE [-n N[,N...]] [-m M] [--nrhs K] [--nb NB] [--precision P[,P...]]\n"
               "                   [--uplo L|U] [--check] [--baseline] [--repeat R] [--threads T] [--json]\n"
               "                   [--devices SPEC] [--schedule static|dynamic] [--distribution 1d|2d|weighted|hybrid]\n"
               "                   [--trace FILE.json|FILE.svg] [-k K] [--transa N|T|C] [--transb N|T|C]\n"
               "                   [--degree D] [--method horner|ps] [--weights DEV=W,...] [--energy] [--quiet]\n"
               "\n"
               "Measures one hetla routine; prints one result per configuration (every -n value\n"
               "for every precision).\n"
               "\nroutines:\n");
  for (const Routine* r : routines()) std::fprintf(out, "  %-8s %s\n", r->name.c_str(), r->summary.c_str());
  std::fprintf(out,
               "\noptions (a routine rejects those that do not apply to it):\n"
               "  -n N[,N...]          matrix order(s); for runtime, tasks per shape\n"
               "                       [default: 2000; runtime: 200000]\n"
               "  -m M                 rows, for routines with rectangular inputs [default: n]\n"
               "  --nrhs K             right-hand sides [default: 1]\n"
               "  --nb NB              tile size [default: hetla::default_tile_size<T>(n)]\n"
               "  --precision P[,P...] s, d, c or z [default: d]\n"
               "  --uplo L|U           triangle that is referenced [default: L]\n"
               "  --check              compute the scaled residual (LAPACK Working Note 41):\n"
               "                         potrf:       ||A - L L^H||_1 / (n ||A||_1 eps)\n"
               "                         potrs, posv: ||B - A X||_1 / (n ||A||_1 ||X||_1 eps)\n"
               "                         getrf:       ||P A - L U||_1 / (n ||A||_1 eps)\n"
               "                         gesv:        as posv\n"
               "                         geqrf:       max of ||A - Q R||_1 / (max(m, n) ||A||_1 eps)\n"
               "                                      and ||I - Q^H Q||_1 / (m eps)\n"
               "                         orgqr:       ||I - Q^H Q||_1 / (m eps)\n"
               "                         gels:        ||A^H (B - A X)||_1 scaled as LAPACK's dqrt17\n"
               "                                      (m >= n), the solve residual (m < n)\n"
               "                         others:      as their entry in the routine list says\n"
               "                       residual_ok = residual < %g and info == 0\n"
               "  --baseline           also time the vendor LAPACK on an identical copy of the input,\n"
               "                       with the BLAS running as many threads as hetla has workers;\n"
               "                       ratio = baseline_seconds / seconds (> 1: hetla is faster)\n"
               "  --repeat R           run R times, each on a fresh copy of the input, and report the\n"
               "                       best (minimum) time [default: 1]\n"
               "  --threads T          host worker threads, the calling thread included\n"
               "                       [default: one per core, minus one per accelerator]\n"
               "  --devices SPEC       comma list: cpu[:cores], emu[:speed=F][:mem=SIZE][:bw=GB/s][:lat=US]\n"
               "                       [:herk=gemm] (one item per emulated accelerator; herk=gemm: Cholesky's\n"
               "                       diagonal updates as GEMMs, as GPUs run them), opencl[:index|all],\n"
               "                       cuda[:index|all]; without cpu the cores only run what no\n"
               "                       accelerator can [default: cpu]\n"
               "  --schedule S         dynamic (greedy by capability weights) or static (owner\n"
               "                       computes from the distribution) [default: dynamic]\n"
               "  --distribution D     1d, 2d, weighted (capability-weighted cyclic) or hybrid\n"
               "                       (two-level hybrid tiles: small host tiles, one large tile per\n"
               "                       accelerator sized by its weight; the factorizations, their\n"
               "                       solvers and trsm)\n"
               "                       [default: weighted under static, none under dynamic]; naming one\n"
               "                       without --schedule selects static\n"
               "  -k K                 inner dimension of a product [default: n]\n"
               "  --transa/--transb X  N, T or C: op() applied to A / B in a product [default: N]\n"
               "  --degree D           degree of a matrix polynomial [default: 10]\n"
               "  --method M           horner or ps (Paterson-Stockmeyer) [default: ps]\n"
               "  --weights LIST       force the work split, e.g. cpu=0.4,emu0=0.6 (device names as\n"
               "                       `hetla info` shows them) [default: learned / measured weights]\n"
               "  --energy             report joules per device where the platform exposes them\n"
               "                       (RAPL, NVML); says so where nothing is readable\n"
               "  --json               one JSON object per line instead of a table\n"
               "  --trace FILE         write the task trace of the last timed hetla run (never the\n"
               "                       baseline): FILE.json is Chrome trace JSON (Perfetto,\n"
               "                       chrome://tracing), FILE.svg a Gantt chart (one row per worker).\n"
               "                       With several configurations each gets its own file,\n"
               "                       FILE-<precision>-n<N>.<ext>. Library routines only.\n"
               "  -q, --quiet          no progress line (shown on stderr only when it is a terminal)\n"
               "  -h, --help           this text\n"
               "\n"
               "Inputs are random, well-conditioned Hermitian positive definite matrices. GFLOP/s use the\n"
               "LAWN 41 operation counts (complex: 6 flops per multiplication, 2 per addition).\n"
               "Times cover the call only: input copies, checks and the baseline are outside it.\n"
               "Library routines also report, from the task trace of the last timed run (recording\n"
               "costs two clock reads per task): busy_pct (mean share of the call's wall time the\n"
               "workers spent in tasks), imbalance (largest / mean per-worker busy time; 1 = even),\n"
               "and in JSON workers [{id, tasks, busy_pct}] and kernels [{label, count, seconds,\n"
               "share_pct}].\n"
               "Exit status: 0 success; 1 a check failed, info != 0 or a run failed; 2 usage error.\n"
               "Vendor LAPACK: %s\n",
               bench::kResidualThreshold, util::blas_vendor().c_str());
}

namespace {

struct BenchArgs {
  std::string routine;
  std::vector<int64_t> ns;
  std::vector<char> precisions;
  BenchConfig base;
  bool json = false;
  bool quiet = false;
  std::string trace;   // --trace FILE ("" = none)
  std::string devices = "cpu";
  Schedule schedule = Schedule::Dynamic;
  bool schedule_given = false;
  Distribution distribution = Distribution::Default;
  bool devices_given = false;
  unsigned given = 0;  // BenchOption bits given on the command line
};

constexpr int64_t kMaxDim = 2147483647;  // LAPACK integers are 32-bit

Uplo parse_uplo(std::string_view v) {
  if (v == "L" || v == "l" || v == "lower") return Uplo::Lower;
  if (v == "U" || v == "u" || v == "upper") return Uplo::Upper;
  throw UsageError("--uplo: '" + std::string(v) + "' is not L or U");
}

std::vector<char> parse_precisions(std::string_view v) {
  std::vector<char> out;
  for (auto item : split(v, ',')) {
    const char p = item.size() == 1 ? static_cast<char>(std::tolower(static_cast<unsigned char>(item[0]))) : 0;
    if (p != 's' && p != 'd' && p != 'c' && p != 'z')
      throw UsageError("--precision: '" + std::string(item) + "' is not one of s, d, c, z");
    out.push_back(p);
  }
  return out;
}

bool ends_with_nocase(std::string_view s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  for (std::size_t i = 0; i < suffix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) != suffix[i]) return false;
  return true;
}

std::string parse_trace_file(std::string_view v) {
  const bool ok = (ends_with_nocase(v, ".json") && v.size() > 5) || (ends_with_nocase(v, ".svg") && v.size() > 4);
  if (!ok)
    throw UsageError("--trace: '" + std::string(v) + "' must end in .json (Chrome trace) or .svg (Gantt chart)");
  return std::string(v);
}

/// Returns false when help was requested.
bool parse(int argc, char** argv, int first, BenchArgs& a) {
  ArgReader in(argc, argv, first);
  auto mark = [&](unsigned bit) { a.given |= bit; };
  while (!in.done()) {
    const std::string_view opt = in.next();
    if (opt == "-h" || opt == "--help") {
      return false;
    } else if (opt == "-n") {
      a.ns = parse_int_list(in.value(opt), "-n", 1, kMaxDim);
    } else if (opt == "-m") {
      a.base.m = parse_int(in.value(opt), "-m", 1, kMaxDim);
      mark(kOptM);
    } else if (opt == "--nrhs") {
      a.base.nrhs = parse_int(in.value(opt), "--nrhs", 1, kMaxDim);
      mark(kOptNrhs);
    } else if (opt == "--nb") {
      a.base.nb = parse_int(in.value(opt), "--nb", 1, kMaxDim);
      mark(kOptNb);
    } else if (opt == "--precision" || opt == "-p") {
      a.precisions = parse_precisions(in.value(opt));
      mark(kOptPrecision);
    } else if (opt == "--uplo") {
      a.base.uplo = parse_uplo(in.value(opt));
      mark(kOptUplo);
    } else if (opt == "--check") {
      in.no_value(opt);
      a.base.check = true;
      mark(kOptCheck);
    } else if (opt == "--baseline") {
      in.no_value(opt);
      a.base.baseline = true;
      mark(kOptBaseline);
    } else if (opt == "--repeat" || opt == "-r") {
      a.base.repeat = static_cast<int>(parse_int(in.value(opt), "--repeat", 1, 1000000));
      mark(kOptRepeat);
    } else if (opt == "--threads" || opt == "-t") {
      a.base.threads = static_cast<int>(parse_int(in.value(opt), "--threads", 1, 4096));
      mark(kOptThreads);
    } else if (opt == "-k") {
      a.base.k = parse_int(in.value(opt), "-k", 0, kMaxDim);
      mark(kOptK);
    } else if (opt == "--transa" || opt == "--transb") {
      const std::string_view v = in.value(opt);
      if (v != "N" && v != "T" && v != "C" && v != "n" && v != "t" && v != "c")
        throw UsageError(std::string(opt) + ": '" + std::string(v) + "' is not N, T or C");
      (opt == "--transa" ? a.base.transa : a.base.transb) =
          static_cast<Op>(std::toupper(static_cast<unsigned char>(v[0])));
      mark(kOptTrans);
    } else if (opt == "--degree") {
      a.base.degree = static_cast<int>(parse_int(in.value(opt), "--degree", 0, 10000));
      mark(kOptDegree);
    } else if (opt == "--method") {
      const std::string_view v = in.value(opt);
      if (v != "horner" && v != "ps") throw UsageError("--method: '" + std::string(v) + "' is not horner or ps");
      a.base.method = std::string(v);
      mark(kOptMethod);
    } else if (opt == "--weights") {
      a.base.weights = std::string(in.value(opt));
      mark(kOptWeights);
    } else if (opt == "--energy") {
      in.no_value(opt);
      a.base.energy = true;
    } else if (opt == "--json") {
      in.no_value(opt);
      a.json = true;
    } else if (opt == "--quiet" || opt == "-q") {
      in.no_value(opt);
      a.quiet = true;
    } else if (opt == "--trace") {
      a.trace = parse_trace_file(in.value(opt));
    } else if (opt == "--devices") {
      a.devices = parse_device_list(in.value(opt));
      a.devices_given = true;
    } else if (opt == "--schedule") {
      const std::string_view v = in.value(opt);
      a.schedule_given = true;
      if (v == "dynamic") a.schedule = Schedule::Dynamic;
      else if (v == "static") a.schedule = Schedule::Static;
      else throw UsageError("--schedule: '" + std::string(v) + "' is not static or dynamic");
      a.devices_given = true;
    } else if (opt == "--distribution") {
      const std::string_view v = in.value(opt);
      if (v == "1d") a.distribution = Distribution::OneD;
      else if (v == "2d") a.distribution = Distribution::TwoD;
      else if (v == "weighted") a.distribution = Distribution::Weighted;
      else if (v == "hybrid") a.distribution = Distribution::Hybrid;
      else throw UsageError("--distribution: '" + std::string(v) + "' is not 1d, 2d, weighted or hybrid");
      a.devices_given = true;
    } else if (opt.size() > 1 && opt[0] == '-') {
      throw UsageError("unknown option '" + std::string(opt) + "' (see hetla bench --help)");
    } else if (a.routine.empty()) {
      a.routine = opt;
    } else {
      throw UsageError("unexpected argument '" + std::string(opt) + "' (one ROUTINE per run)");
    }
  }
  return true;
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

std::string routine_list() {
  std::string s;
  for (const Routine* r : routines()) s += (s.empty() ? "" : ", ") + r->name;
  return s;
}

}  // namespace

int cmd_bench(int argc, char** argv, int first) {
  if (is_call_bench(argc, argv, first)) return cmd_bench_calls(argc, argv, first);  // bench/calls.hpp
  BenchArgs a;
  if (!parse(argc, argv, first, a)) {
    print_bench_help(stdout);
    return kExitOk;
  }
  if (a.routine.empty()) throw UsageError("missing ROUTINE (one of: " + routine_list() + ")");
  const Routine* spec = find_routine(a.routine);
  if (!spec) throw UsageError("unknown routine '" + a.routine + "' (one of: " + routine_list() + ")");
  const unsigned bits[] = {kOptM,      kOptNrhs,  kOptNb,     kOptPrecision, kOptUplo,    kOptCheck,  kOptBaseline,
                           kOptRepeat, kOptThreads, kOptK, kOptTrans,     kOptDegree, kOptMethod, kOptWeights};
  const char* names[] = {"-m",       "--nrhs",    "--nb", "--precision",       "--uplo",   "--check",
                         "--baseline", "--repeat", "--threads", "-k", "--transa/--transb", "--degree",
                         "--method", "--weights"};
  for (std::size_t k = 0; k < std::size(bits); ++k)
    if ((a.given & bits[k]) && !(spec->options & bits[k]))
      throw UsageError(std::string("option ") + names[k] + " does not apply to " + spec->name);
  if (a.devices_given && !spec->library)
    throw UsageError("options --devices/--schedule/--distribution do not apply to " + spec->name);
  static const std::set<std::string> hybrid_routines{"potrf", "potrs", "posv",  "trsm", "getrf",
                                                     "gesv",  "geqrf", "gels", "orgqr"};
  if (a.distribution == Distribution::Hybrid && !hybrid_routines.count(spec->name))
    throw UsageError("--distribution hybrid: the factorizations, their solvers and trsm take hybrid tiles, " +
                     spec->name + " does not (use weighted)");
  if (a.base.energy && !spec->library)
    throw UsageError("option --energy does not apply to " + spec->name + " (it runs no library call)");
  if (!a.trace.empty() && !spec->library)
    throw UsageError("option --trace does not apply to " + spec->name + " (it runs no library call)");
  if (a.ns.empty()) a.ns.push_back(spec->default_n);
  if (a.precisions.empty()) a.precisions.push_back('d');
  const bool several = a.ns.size() * a.precisions.size() > 1;
  // Before any work: every configuration fits in memory and every trace file
  // can be written.
  for (char p : a.precisions)
    for (int64_t n : a.ns) {
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
  if (spec->library) {
    hetla::Config cfg;
    cfg.num_threads = base.threads;
    cfg.devices = a.devices;
    // A distribution only places work under owner-computes: naming one
    // without --schedule means static scheduling.
    cfg.schedule = a.schedule_given || a.distribution == Distribution::Default ? a.schedule : Schedule::Static;
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
    for (char p : a.precisions) {
      std::chrono::nanoseconds built{0};
      for (int d = 1; d < scope.rt().num_devices(); ++d) built += dev::warm_up_kernels(scope.rt().device(d), p);
      if (built > std::chrono::seconds(1))
        std::fprintf(stderr, "hetla bench: built the device kernels for precision %c in %.1f s (not timed)\n", p,
                     std::chrono::duration<double>(built).count());
    }
  }

  RecordPrinter printer(a.json);
  Progress progress("hetla bench " + spec->name, a.quiet);
  const int64_t configurations = static_cast<int64_t>(a.ns.size() * a.precisions.size());
  int64_t configuration = 0;
  int status = kExitOk;
  for (char p : a.precisions)
    for (int64_t n : a.ns) {
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
        Record rec = spec->run(c);
        if (capture && capture->captured()) {
          const trace::Summary sum = trace::summarize(capture->events(), capture->num_workers(), capture->seconds());
          add_trace_summary(rec, sum);
          add_device_summary(rec, *capture);
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
