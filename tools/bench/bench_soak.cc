// hetla bench soak: until the time is up (--minutes M or --seconds S), random
// cases, each checked:
//   - a library routine (potrf, posv, getrf, gesv, geqrf, gels, gemm, syrk /
//     herk, trsm, sometimes expm or matpoly) in a random precision, small
//     random shape (m != n where the routine takes one, n up to -n, default
//     300) and tile size, on a random device list (cpu alone, cpu with one or
//     two emulated accelerators of random speeds, or accelerators alone),
//     schedule (dynamic, static) and distribution (1d, 2d, weighted, hybrid
//     where the routine takes it), with random injected faults on the
//     accelerators (fail=kernel@K, copy@K, alloc@K, lost@K, random:P with a
//     seed). The case is the registered bench routine itself run with
//     --check, so each result is held to the same LAPACK-style scaled
//     residual as `hetla bench ROUTINE --check` (bench::kResidualThreshold);
//   - one case in eight: a random task graph through a fresh task runtime
//     (host workers), each task hashing what it reads into what it writes,
//     compared with the same program run serially (as
//     tests/runtime/test_runtime_random_dag.cc).
// A fault that leaves no device to run the call (every accelerator failed and
// no `cpu`) makes the call fail with an error: an expected outcome
// (`errors`), not a mismatch; so does, with host checkpoints off
// (HETLA_CHECKPOINTS=0), a lost device memory that held a tile's only copy.
// Anything else that fails (a residual over the threshold, info != 0, another
// exception) is a mismatch, printed on stderr with the case to reproduce it;
// the exit status is then 1.
// The same --seed gives the same cases (not the same count: that depends on
// the time).
#include <array>
#include <cstdlib>
#include <cstdio>
#include <random>
#include <set>
#include <stdexcept>
#include <string>

#include "bench/common.hpp"
#include "context/context.hpp"
#include "hetla/context.hpp"

namespace hetla::cli {
namespace {

struct Totals {
  int64_t runs = 0, tasks = 0, faults_injected = 0, faults_recovered = 0, mismatches = 0, errors = 0, dags = 0;
};

using Rng = std::mt19937_64;

int64_t uniform(Rng& g, int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(g); }
template <typename T, std::size_t N> const T& pick(Rng& g, const std::array<T, N>& a) {
  return a[static_cast<std::size_t>(uniform(g, 0, N - 1))];
}

// ---- random task graphs (the runtime alone)

constexpr int kHandles = 12;
using Data = std::array<std::array<uint64_t, 2>, kHandles>;

uint64_t mix(uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

struct DagOp {
  std::array<int, 3> h{};
  std::array<rt::Mode, 3> mode{};
  int count = 0;
  int priority = 0;
};

/// Reads (R, RW) hashed with the task id; writes (W, RW) from the hash. Any
/// reordering of two conflicting accesses changes the result.
uint64_t run_dag_op(const DagOp& op, uint64_t id, Data& d) {
  uint64_t hash = mix(id);
  for (int a = 0; a < op.count; ++a)
    if (op.mode[a] != rt::Mode::Write)
      for (uint64_t w : d[op.h[a]]) hash = mix(hash ^ w);
  for (int a = 0; a < op.count; ++a)
    if (op.mode[a] != rt::Mode::Read)
      for (std::size_t w = 0; w < 2; ++w) d[op.h[a]][w] = mix(hash + static_cast<uint64_t>(op.h[a] * 2) + w);
  return hash;
}

/// One random graph: returns true when the parallel run equals the serial one.
bool soak_dag(Rng& g, Totals& t, std::string& what) {
  const int ntasks = static_cast<int>(uniform(g, 50, 2000));
  std::vector<DagOp> ops(static_cast<std::size_t>(ntasks));
  for (auto& op : ops) {
    op.count = static_cast<int>(uniform(g, 1, 3));
    for (int a = 0; a < op.count; ++a) {
      int h;
      bool dup;
      do {
        h = static_cast<int>(uniform(g, 0, kHandles - 1));
        dup = false;
        for (int b = 0; b < a; ++b) dup |= op.h[b] == h;
      } while (dup);
      const int64_t m = uniform(g, 0, 9);  // 50% read, 20% write, 30% read-write
      op.h[a] = h;
      op.mode[a] = m < 5 ? rt::Mode::Read : m < 7 ? rt::Mode::Write : rt::Mode::ReadWrite;
    }
    op.priority = static_cast<int>(uniform(g, -3, 3));
  }
  Data serial{}, parallel{};
  for (int h = 0; h < kHandles; ++h) serial[h] = parallel[h] = {mix(h), mix(h + 100)};
  std::vector<uint64_t> seen_serial(ops.size()), seen(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) seen_serial[i] = run_dag_op(ops[i], i, serial);
  rt::RuntimeConfig cfg;
  cfg.num_workers = static_cast<int>(uniform(g, 1, 3));
  cfg.pin_threads = false;
  cfg.window = static_cast<std::size_t>(uniform(g, 0, 1) ? 16 : 1 << 14);
  what = "dag tasks=" + std::to_string(ntasks) + " workers=" + std::to_string(cfg.num_workers) +
         " window=" + std::to_string(cfg.window);
  std::array<rt::Handle, kHandles> handles{};
  uint64_t ran = 0;
  {
    rt::Runtime runtime(cfg);
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const DagOp* op = &ops[i];
      rt::Access acc[3];
      for (int a = 0; a < op->count; ++a) acc[a] = {&handles[op->h[a]], op->mode[a]};
      runtime.insert([op, i, d = &parallel, s = seen.data()](rt::TaskContext&) { s[i] = run_dag_op(*op, i, *d); },
                     acc, static_cast<std::size_t>(op->count), rt::TaskOptions{op->priority, "soak"});
    }
    runtime.wait_all();
    ran = runtime.tasks_executed();
  }
  t.tasks += static_cast<int64_t>(ran);
  ++t.dags;
  return ran == ops.size() && seen == seen_serial && parallel == serial;
}

// ---- library routines

struct Case {
  std::string routine;
  BenchConfig c;
  Config cfg;
  std::string distribution;
};

const char* distribution_name(Distribution d) {
  switch (d) {
    case Distribution::OneD: return "1d";
    case Distribution::TwoD: return "2d";
    case Distribution::Weighted: return "weighted";
    case Distribution::Hybrid: return "hybrid";
    default: return "default";
  }
}

/// fail=... for one emulated accelerator, or "" (no fault).
std::string random_fault(Rng& g) {
  switch (uniform(g, 0, 5)) {
    case 0: return "";
    case 1: return "fail=kernel@" + std::to_string(uniform(g, 1, 40));
    case 2: return "fail=copy@" + std::to_string(uniform(g, 1, 60));
    case 3: return "fail=alloc@" + std::to_string(uniform(g, 1, 40));
    case 4: return "fail=lost@" + std::to_string(uniform(g, 1, 40));
    default: {
      static const std::array<const char*, 3> p{"0.005", "0.02", "0.1"};
      return std::string("fail=random:") + pick(g, p) + ":seed=" + std::to_string(uniform(g, 1, 1000000));
    }
  }
}

Case random_case(Rng& g, int64_t max_n) {
  static const std::array<const char*, 13> routines{"potrf", "posv", "getrf", "gesv", "geqrf", "gels", "gemm",
                                                    "gemm",  "syrk", "trsm", "potrf", "getrf", "geqrf"};
  static const std::set<std::string> hybrid{"potrf", "posv", "getrf", "gesv", "geqrf", "gels", "trsm"};
  Case k;
  // One case in twenty a matrix function (its many products make it the slowest case).
  k.routine = uniform(g, 0, 19) == 0 ? (uniform(g, 0, 1) ? "expm" : "matpoly") : pick(g, routines);
  BenchConfig& c = k.c;
  c.routine = k.routine;
  c.spec = find_routine(k.routine);
  if (!c.spec) throw std::logic_error("bench soak: no routine " + k.routine);
  static const std::array<char, 4> precisions{'s', 'd', 'c', 'z'};
  c.precision = pick(g, precisions);
  const bool matfun = k.routine == "expm" || k.routine == "matpoly";
  const int64_t top = matfun ? std::min<int64_t>(max_n, 120) : max_n;
  // Mostly small orders, where edge tiles and few-tile graphs live.
  c.n = uniform(g, 0, 3) == 0 ? uniform(g, 1, 16) : uniform(g, 1, top);
  if (c.spec->options & kOptM) c.m = uniform(g, 0, 2) == 0 ? c.n : uniform(g, 1, top);
  if (c.spec->options & kOptK) c.k = uniform(g, 1, top);
  if (c.spec->options & kOptNrhs) c.nrhs = uniform(g, 1, 8);
  if (c.spec->options & kOptUplo) c.uplo = uniform(g, 0, 1) ? Uplo::Lower : Uplo::Upper;
  if (c.spec->options & kOptTrans) {
    static const std::array<Op, 3> ops{Op::NoTrans, Op::Trans, Op::ConjTrans};
    c.transa = pick(g, ops);
    c.transb = pick(g, ops);
    if (k.routine == "syrk" && c.transa == Op::Trans && (c.precision == 'c' || c.precision == 'z'))
      c.transa = Op::ConjTrans;  // herk takes N or C
  }
  if (matfun) c.degree = static_cast<int>(uniform(g, 1, 12));
  static const std::array<int64_t, 6> nbs{0, 8, 16, 32, 48, 96};
  c.nb = pick(g, nbs);
  c.check = true;
  c.repeat = 1;

  // Devices: cpu alone (1 in 6), cpu with accelerators, or accelerators alone (1 in 6).
  static const std::array<const char*, 3> speeds{"1", "0.5", "0.25"};
  const int64_t shape = uniform(g, 0, 5);
  std::string devices = shape == 5 ? "" : "cpu";
  if (shape != 0) {
    const int64_t n_emu = uniform(g, 1, 2);
    for (int64_t e = 0; e < n_emu; ++e) {
      std::string item = std::string("emu:speed=") + pick(g, speeds);
      const std::string fault = random_fault(g);
      if (!fault.empty()) item += ":" + fault;
      devices += (devices.empty() ? "" : ",") + item;
    }
  }
  k.cfg.devices = devices;
  k.cfg.num_threads = static_cast<int>(uniform(g, 1, 2));
  k.cfg.pin_threads = false;  // a shared machine: no binding
  k.cfg.schedule = uniform(g, 0, 1) ? Schedule::Static : Schedule::Dynamic;
  static const std::array<Distribution, 5> dists{Distribution::Default, Distribution::OneD, Distribution::TwoD,
                                                 Distribution::Weighted, Distribution::Hybrid};
  Distribution d = pick(g, dists);
  if (d == Distribution::Hybrid && !hybrid.count(k.routine)) d = Distribution::Weighted;
  k.cfg.distribution = d;
  return k;
}

std::string describe(const Case& k) {
  const BenchConfig& c = k.c;
  std::string s = "hetla bench " + k.routine + " -p " + std::string(1, c.precision) + " -n " + std::to_string(c.n);
  if (c.m >= 0) s += " -m " + std::to_string(c.m);
  if (c.k >= 0) s += " -k " + std::to_string(c.k);
  if (c.spec->options & kOptNrhs) s += " --nrhs " + std::to_string(c.nrhs);
  if (c.nb > 0) s += " --nb " + std::to_string(c.nb);
  if (c.spec->options & kOptUplo) s += std::string(" --uplo ") + static_cast<char>(c.uplo);
  if (c.spec->options & kOptTrans)
    s += std::string(" --transa ") + static_cast<char>(c.transa) + " --transb " + static_cast<char>(c.transb);
  if (c.spec->options & kOptDegree) s += " --degree " + std::to_string(c.degree);
  s += " --threads " + std::to_string(k.cfg.num_threads) + " --devices " + k.cfg.devices + " --schedule " +
       (k.cfg.schedule == Schedule::Static ? "static" : "dynamic");
  if (k.cfg.distribution != Distribution::Default)
    s += std::string(" --distribution ") + distribution_name(k.cfg.distribution);
  return s + " --check";
}

/// Errors a fault may rightly cause (docs/reliability.md): nothing left to
/// run the call on, or, only with host checkpoints off (HETLA_CHECKPOINTS=0),
/// a lost memory that held a tile's only copy.
bool expected_error(const std::string& message) {
  static const bool checkpoints = [] {
    const char* env = std::getenv("HETLA_CHECKPOINTS");
    return !(env && *env && std::atoi(env) == 0);
  }();
  return message.find("no device left") != std::string::npos ||
         (!checkpoints && message.find("recovery is impossible") != std::string::npos);
}

int count_fired_faults() {
  detail::CallScope scope;
  int fired = 0;
  for (int d = 1; d < scope.rt().num_devices(); ++d) fired += scope.rt().device(d).faults().fired();  // any kind
  return fired;
}

uint64_t tasks_so_far() {
  detail::CallScope scope;
  return scope.rt().tasks_executed();
}

const Value* field(const Record& rec, std::string_view key) {
  for (const auto& f : rec.fields)
    if (f.key == key) return &f.value;
  return nullptr;
}

/// Runs one library case; false on a mismatch (`why` says what).
bool soak_routine(const Case& k, Totals& t, std::string& why) {
  hetla::init(k.cfg);
  BenchConfig c = k.c;
  c.threads = hetla::num_threads();
  const std::size_t mark = recovery_mark();
  const uint64_t tasks0 = tasks_so_far();
  const int64_t rejections0 = vendor_rejections();
  bool ok = true;
  try {
    const Record rec = c.spec->run(c);
    const Value* residual = field(rec, "residual");
    const bool checked = residual && std::holds_alternative<double>(*residual);
    if (rec.failed || !checked) {
      ok = false;
      why = "check failed: info " + (field(rec, "info") ? to_json(*field(rec, "info")).dump() : std::string("?")) +
            ", residual " + (residual ? to_json(*residual).dump() : std::string("none"));
    } else {
      t.faults_recovered += static_cast<int64_t>(detail::recoveries_since(mark).size());
    }
  } catch (const std::exception& e) {
    if (expected_error(e.what())) {
      ++t.errors;
    } else {
      ok = false;
      why = std::string("error: ") + e.what();
    }
  }
  if (ok && vendor_rejections() != rejections0) {
    ok = false;
    why = "the vendor library rejected an argument of a call (its line is above)";
  }
  t.faults_injected += count_fired_faults();
  t.tasks += static_cast<int64_t>(tasks_so_far() - tasks0);
  return ok;
}

Record run(const BenchConfig& base) {
  const double budget = base.seconds >= 0 ? base.seconds : base.minutes >= 0 ? base.minutes * 60 : 60;
  const int64_t max_n = base.n;
  Rng g(base.seed);
  Totals t;
  const double t0 = now_seconds();
  while (now_seconds() - t0 < budget || t.runs == 0) {
    ++t.runs;
    std::string what, why;
    bool ok;
    if (uniform(g, 0, 7) == 0) {
      ok = soak_dag(g, t, what);
      if (!ok) why = "parallel result differs from the serial one";
    } else {
      const Case k = random_case(g, max_n);
      what = describe(k);
      ok = soak_routine(k, t, why);
    }
    if (!ok) {
      ++t.mismatches;
      std::fprintf(stderr, "hetla bench soak: mismatch (run %lld, seed %llu): %s: %s\n", static_cast<long long>(t.runs),
                   static_cast<unsigned long long>(base.seed), what.c_str(), why.c_str());
    }
  }
  const double seconds = now_seconds() - t0;
  hetla::finalize();  // no failed device or injected fault stays in the context
  Record rec;
  rec.add("routine", std::string("soak"), "", 7)
      .add("seed", static_cast<int64_t>(base.seed), "seed")
      .add("runs", t.runs, "runs", 6)
      .add("dags", t.dags, "dags", 5)
      .add("tasks", t.tasks, "tasks", 9)
      .add("faults_injected", t.faults_injected, "faults", 6)
      .add("faults_recovered", t.faults_recovered, "recov", 6)
      .add("errors", t.errors, "errors", 6)
      .add("mismatches", t.mismatches, "mismatch", 8)
      .add("seconds", seconds, "", 8, 1);
  rec.failed = t.mismatches > 0;
  return rec;
}

const Registrar reg_soak({.name = "soak",
                          .summary = "random routines, shapes, devices, schedules and injected device faults until "
                                     "--minutes is up, each checked; -n = largest order",
                          .options = kOptSoak,
                          .default_n = 300,
                          .library = false},
                         run);

}  // namespace
}  // namespace hetla::cli
