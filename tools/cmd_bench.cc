// hetla bench ROUTINE [options]: parses the options, expands the -n and
// --precision lists and runs the registered routine once per configuration.
#include <cctype>
#include <cstdio>
#include <new>

#include "bench/registry.hpp"
#include "checks.hpp"
#include "hetla/context.hpp"
#include "util/blas_threads.hpp"

namespace hetla::cli {

void print_bench_help(std::FILE* out) {
  std::fprintf(out,
               "usage: hetla bench ROUTINE [-n N[,N...]] [-m M] [--nrhs K] [--nb NB] [--precision P[,P...]]\n"
               "                   [--uplo L|U] [--check] [--baseline] [--repeat R] [--threads T] [--json]\n"
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
               "                       residual_ok = residual < %g and info == 0\n"
               "  --baseline           also time the vendor LAPACK on an identical copy of the input,\n"
               "                       with the BLAS running as many threads as hetla has workers;\n"
               "                       ratio = baseline_seconds / seconds (> 1: hetla is faster)\n"
               "  --repeat R           run R times, each on a fresh copy of the input, and report the\n"
               "                       best (minimum) time [default: 1]\n"
               "  --threads T          worker threads, the calling thread included\n"
               "                       [default: one per core]\n"
               "  --json               one JSON object per line instead of a table\n"
               "  -h, --help           this text\n"
               "\n"
               "Inputs are random, well-conditioned Hermitian positive definite matrices. GFLOP/s use the\n"
               "LAWN 41 operation counts (complex: 6 flops per multiplication, 2 per addition).\n"
               "Times cover the call only: input copies, checks and the baseline are outside it.\n"
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
    } else if (opt == "--json") {
      in.no_value(opt);
      a.json = true;
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

std::string routine_list() {
  std::string s;
  for (const Routine* r : routines()) s += (s.empty() ? "" : ", ") + r->name;
  return s;
}

}  // namespace

int cmd_bench(int argc, char** argv, int first) {
  BenchArgs a;
  if (!parse(argc, argv, first, a)) {
    print_bench_help(stdout);
    return kExitOk;
  }
  if (a.routine.empty()) throw UsageError("missing ROUTINE (one of: " + routine_list() + ")");
  const Routine* spec = find_routine(a.routine);
  if (!spec) throw UsageError("unknown routine '" + a.routine + "' (one of: " + routine_list() + ")");
  const unsigned bits[] = {kOptM, kOptNrhs, kOptNb, kOptPrecision, kOptUplo, kOptCheck, kOptBaseline, kOptRepeat,
                           kOptThreads};
  const char* names[] = {"-m", "--nrhs", "--nb", "--precision", "--uplo", "--check", "--baseline", "--repeat",
                         "--threads"};
  for (std::size_t k = 0; k < std::size(bits); ++k)
    if ((a.given & bits[k]) && !(spec->options & bits[k]))
      throw UsageError(std::string("option ") + names[k] + " does not apply to " + spec->name);
  if (a.ns.empty()) a.ns.push_back(spec->default_n);
  if (a.precisions.empty()) a.precisions.push_back('d');

  BenchConfig base = a.base;
  base.routine = spec->name;
  base.spec = spec;
  if (spec->library) {
    hetla::Config cfg;
    cfg.num_threads = base.threads;
    hetla::init(cfg);  // start the workers now, outside every timed region
    base.threads = hetla::num_threads();
  }

  RecordPrinter printer(a.json);
  int status = kExitOk;
  for (char p : a.precisions)
    for (int64_t n : a.ns) {
      BenchConfig c = base;
      c.precision = p;
      c.n = n;
      try {
        if (spec->memory_bytes) {
          const double need = spec->memory_bytes(c), have = available_memory_bytes();
          if (need > have) {
            char msg[160];
            std::snprintf(msg, sizeof msg, "needs about %.1f GiB of memory, %.1f GiB available", need / 1073741824.0,
                          have / 1073741824.0);
            throw std::runtime_error(msg);
          }
        }
        Record rec = spec->run(c);
        printer.print(rec);
        if (rec.failed) status = kExitFailed;
      } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "hetla bench %s: out of memory for n=%lld precision %c\n", spec->name.c_str(),
                     static_cast<long long>(n), p);
        status = kExitFailed;
      } catch (const UsageError&) {
        throw;
      } catch (const std::invalid_argument&) {
        throw;  // hetla::ArgumentError: a parameter the library rejects (exit 2)
      } catch (const std::exception& e) {
        std::fprintf(stderr, "hetla bench %s (n=%lld, precision %c): %s\n", spec->name.c_str(),
                     static_cast<long long>(n), p, e.what());
        status = kExitFailed;
      }
    }
  return status;
}

}  // namespace hetla::cli
