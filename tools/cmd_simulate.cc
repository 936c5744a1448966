// hetla simulate: predicts a routine's run on a machine model (SimGrid; see
// docs/simulation.md) with the real scheduler on a simulated clock, and
// --validate compares a prediction for this machine with a measured run.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli.hpp"
#include "options.hpp"
#include "hetla/context.hpp"
#include "hetla/blas3.hpp"
#include "hetla/linalg.hpp"
#include "hetla/lu.hpp"
#include "hetla/qr.hpp"
#include "matgen.hpp"
#include "bench/common.hpp"

#ifdef HETLA_HAVE_SIMGRID
#include "sim/sim_api.hpp"
#endif

namespace hetla::cli {

namespace {

/// The command line of `hetla simulate` (checked before SimGrid is needed).
struct SimulateArgs {
  std::string routine, machine, devices = "cpu", validate, precision = "d", schedule, grid;
  std::string trace;           // --trace FILE ("" = none)
  std::string measured_trace;  // --measured-trace FILE: the trace of --validate's measured run
  int64_t n = 0, nb = 0, cores = 0, nodes = 0;  // 0: not given (nb 512, cores and nodes: the model's)
  int64_t nrhs = 1;
  int64_t accelerators = -1;  // -1: all of the model's
  bool list = false, json = false;
};

/// What simulate() takes: n x n matrices (gemm: C += A B; the solvers: B n x
/// nrhs, the factors given).
const std::vector<std::string> kRoutines = {"potrf", "getrf", "geqrf", "gemm", "potrs", "getrs"};

/// Every option of `hetla simulate`: one line each.
void add_options(CLI::App& app, SimulateArgs& a) {
  app.add_option("ROUTINE", a.routine, "the routine to predict (potrf, getrf, geqrf, gemm, potrs, getrs)")->check(one_of(kRoutines));
  app.add_option("-n", a.n, "matrix order")->option_text("N")->transform(integer(1, int64_t{1} << 40));
  app.add_option("--machine", a.machine, "a model's name (--list-machines), a model file, or 'this'\n(this machine with --devices)")->option_text("NAME|FILE");
  app.add_option("--nrhs", a.nrhs, "right-hand sides of potrs and getrs")->option_text("K")->transform(integer(1, int64_t{1} << 40))->capture_default_str();
  app.add_option("--nb", a.nb, "tile size (on several nodes at least n / 230: about 2 M potrf tasks)")->option_text("NB")->transform(integer(1, 1 << 20))->default_str("512");
  app.add_option("--precision", a.precision, "s, d, c or z")->option_text("P")->check(one_of({"s", "d", "c", "z"}))->capture_default_str();
  app.add_option("--cores", a.cores, "host worker cores")->option_text("N")->transform(integer(1, 1 << 16))->default_str("the model's");
  app.add_option("--accelerators", a.accelerators, "keep the model's first K accelerators (per node), e.g. 1..6 of\nseed000-system-a's K20c")->option_text("K")->transform(integer(0, 1 << 14))->default_str("all");
  app.add_option("--schedule", a.schedule, "dynamic or static (with --nodes > 1: static)")->option_text("S")->check(one_of({"dynamic", "static"}))->default_str("dynamic");
  app.add_option("--nodes", a.nodes, "nodes of a cluster model (the first K; or K copies of a node model)")->option_text("K")->transform(integer(1, 1 << 14))->default_str("the model's");
  app.add_option("--grid", a.grid, "the nodes' grid for the 2-D block-cyclic tiles")->option_text("PxQ")->default_str("the most square");
  app.add_option("--devices", a.devices, "devices of --machine this and of --validate's run\n(see hetla bench --help)")->option_text("SPEC")->check(device_list())->capture_default_str();
  app.add_flag("--list-machines", a.list, "print the machine models' names");
  app.add_option("--validate", a.validate, "run ROUTINE here and the simulation of it (--machine this),\nand print both")->option_text("ROUTINE")->check(one_of(kRoutines));
  app.add_option("--trace", a.trace, "write the task trace of the simulated run (virtual time):\nFILE.json is Chrome trace JSON, FILE.svg a Gantt chart\n(as hetla bench --trace)")->option_text("FILE")->check(trace_file());
  app.add_option("--measured-trace", a.measured_trace, "with --validate: write the task trace of the reported round's\nlast measured run (wall time), in --trace's formats, to compare per-task\ntimes with the simulated --trace")->option_text("FILE")->check(trace_file());
  app.add_flag("--json", a.json, "one JSON object instead of text");
}

}  // namespace

#ifdef HETLA_HAVE_SIMGRID

namespace {

Json device_json(const sim::Result& r, double* imbalance, uint64_t* moved) {
  double total = 0;
  for (const auto& d : r.devices) total += d.flops;
  Json list = Json::array();
  double max_busy = 0, sum_busy = 0;
  *moved = 0;
  for (const auto& d : r.devices) {
    const double busy = r.seconds > 0 ? d.busy_seconds / (d.workers * r.seconds) : 0;
    max_busy = std::max(max_busy, busy);
    sum_busy += busy;
    *moved += d.bytes_in + d.bytes_out;
    list.push_back({{"device", d.name},
                    {"workers", d.workers},
                    {"tasks", d.tasks},
                    {"flops_share_pct", json_number(total > 0 ? 100 * d.flops / total : 0.0)},
                    {"busy_pct", json_number(100 * busy)},
                    {"bytes_in", d.bytes_in},
                    {"bytes_out", d.bytes_out},
                    {"evictions", d.evictions}});
  }
  *imbalance = sum_busy > 0 ? max_busy / (sum_busy / static_cast<double>(r.devices.size())) : 0;
  return list;
}

// A cluster's nodes: busy % of all their workers, share of the flops, and
// node_imbalance, the most-loaded node's work (flops) over the average (seed
// 004 sec. 5.4 reports the most- vs least-loaded node: node_spread).
Json node_json(const sim::Result& r) {
  std::vector<double> flops(static_cast<std::size_t>(r.nodes)), busy(flops.size()), workers(flops.size());
  double total = 0;
  for (const auto& d : r.devices) {
    const auto k = static_cast<std::size_t>(d.node);
    flops[k] += d.flops, busy[k] += d.busy_seconds, workers[k] += d.workers;
    total += d.flops;
  }
  Json list = Json::array();
  for (std::size_t k = 0; k < flops.size(); ++k)
    list.push_back({{"node", k},
                    {"busy_pct", json_number(r.seconds > 0 ? 100 * busy[k] / (workers[k] * r.seconds) : 0.0)},
                    {"flops_share_pct", json_number(total > 0 ? 100 * flops[k] / total : 0.0)}});
  const double mx = *std::max_element(flops.begin(), flops.end()), mn = *std::min_element(flops.begin(), flops.end());
  const double avg = total / static_cast<double>(flops.size());
  return {{"nodes", r.nodes},
          {"grid", std::to_string(r.grid_p) + "x" + std::to_string(r.grid_q)},
          {"network_bytes", r.network_bytes},
          {"node_imbalance", json_number(avg > 0 ? mx / avg : 0.0)},
          {"node_spread", json_number(mx > 0 ? (mx - mn) / mx : 0.0)},
          {"node_list", std::move(list)}};
}

void print_result(bool json, const std::string& machine, const sim::Request& q, const sim::Result& r,
                  const Json& extra = Json::object()) {
  double imbalance = 0;
  uint64_t moved = 0;
  Json devs = device_json(r, &imbalance, &moved);
  const double gflops = r.seconds > 0 ? r.flops / r.seconds / 1e9 : 0;
  if (json) {
    Json out = {{"routine", q.routine},
                {"precision", std::string(1, q.precision)},
                {"n", q.n},
                {"nb", q.nb},
                {"machine", machine},
                {"seconds", json_number(r.seconds)},
                {"gflops", json_number(gflops)},
                {"imbalance", json_number(imbalance)},
                {"bytes_moved", moved},
                {"devices", std::move(devs)}};
    out["tflops"] = json_number(gflops / 1e3);
    if (r.nodes > 1) {
      const Json nodes = node_json(r);
      for (const auto& [k, v] : nodes.items()) out[k] = v;
    }
    for (const auto& [k, v] : extra.items()) out[k] = v;
    std::printf("%s\n", out.dump().c_str());
    return;
  }
  if (r.nodes > 1) {
    const Json nj = node_json(r);
    std::printf("%s n=%lld nb=%lld on %s, %d nodes (%s grid): predicted %.4f s, %.2f TFLOP/s, node imbalance %.3f "
                "(max/avg flops; spread %.1f%%), %.3g GB over the network\n",
                q.routine.c_str(), static_cast<long long>(q.n), static_cast<long long>(q.nb), machine.c_str(), r.nodes,
                nj["grid"].get<std::string>().c_str(), r.seconds, gflops / 1e3, nj["node_imbalance"].get<double>(),
                100 * nj["node_spread"].get<double>(), static_cast<double>(r.network_bytes) / 1e9);
    for (const auto& n : nj["node_list"])
      std::printf("  node %-4d busy %5.1f%%  flops %5.2f%%\n", n["node"].get<int>(), n["busy_pct"].get<double>(),
                  n["flops_share_pct"].get<double>());
    return;
  }
  std::printf("%s n=%lld nb=%lld on %s: predicted %.4f s, %.1f GFLOP/s, imbalance %.2f, %.3g GB moved\n",
              q.routine.c_str(), static_cast<long long>(q.n), static_cast<long long>(q.nb), machine.c_str(), r.seconds,
              gflops, imbalance, static_cast<double>(moved) / 1e9);
  for (const auto& d : r.devices)
    std::printf("  %-10s tasks %8llu  busy %5.1f%%  in %.3g GB  out %.3g GB  evictions %llu\n", d.name.c_str(),
                static_cast<unsigned long long>(d.tasks), r.seconds > 0 ? 100 * d.busy_seconds / (d.workers * r.seconds) : 0,
                static_cast<double>(d.bytes_in) / 1e9, static_cast<double>(d.bytes_out) / 1e9,
                static_cast<unsigned long long>(d.evictions));
}

// Writes a trace's text to path, or throws with the file's name.
void write_trace_text(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot write trace file '" + path + "': " + std::strerror(errno));
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) throw std::runtime_error("error writing trace file '" + path + "'");
}

// The trace of the simulated run, in bench's formats (tools/cmd_bench.cc
// write_trace): Chrome trace JSON or a Gantt chart in virtual time.
void write_trace(const std::string& path, const std::string& machine, const sim::Request& q, const sim::Result& r) {
  const int rows = static_cast<int>(r.trace_rows.size());
  std::string text;
  if (ends_with_nocase(path, ".json")) {
    text = trace::to_chrome_json(r.trace, rows, r.trace_rows);
  } else {
    const trace::Summary sum = trace::summarize(r.trace, rows, r.seconds);
    int workers = 0;  // copy-engine rows are not workers
    double busy = 0;
    for (const auto& w : sum.workers)
      if (!w.transfers_only) ++workers, busy += w.busy;
    trace::SvgOptions o;
    char buf[256];
    std::snprintf(buf, sizeof buf, "hetla simulate %s   precision %c   n=%lld   nb=%lld   on %s", q.routine.c_str(),
                  q.precision, static_cast<long long>(q.n), static_cast<long long>(q.nb), machine.c_str());
    o.title = buf;
    std::snprintf(buf, sizeof buf,
                  "simulated run: %.3f ms (virtual), %.2f GFLOP/s   |   %d workers%s, %zu tasks and copies, busy %.1f %%, "
                  "imbalance %.2f",
                  r.seconds * 1e3, r.seconds > 0 ? r.flops / r.seconds / 1e9 : 0.0, workers,
                  rows > workers ? (" + " + std::to_string(rows - workers) + " copy engines").c_str() : "",
                  r.trace.size(), workers > 0 && sum.window > 0 ? 100 * busy / (sum.window * workers) : 0.0,
                  sum.imbalance);
    o.subtitle = buf;
    o.row_names = r.trace_rows;
    o.t0 = 0;
    o.t1 = r.seconds;
    text = trace::to_svg(r.trace, rows, o);
  }
  write_trace_text(path, text);
}

// The trace of a --validate round's last measured run (wall time), for a
// per-task comparison with the simulated --trace (docs/simulation.md,
// "Validated so far"), in the format `path` names.
std::string measured_trace_text(const std::string& path, const TraceCapture& cap) {
  std::string text;
  if (ends_with_nocase(path, ".json")) {
    text = trace::to_chrome_json(cap.events(), cap.num_workers(), cap.row_names());
  } else {
    trace::SvgOptions o;
    o.title = "hetla simulate --validate: the measured run";
    o.row_names = cap.row_names();
    text = trace::to_svg(cap.events(), cap.num_workers(), o);
  }
  return text;
}

// An owned matrix (tile storage) holding the column-major a: the measured run
// calls the Matrix API on it, as the simulation does on a shape-only matrix,
// so both insert the same tasks (a view of a column-major array would take
// the host block paths, which a matrix without data cannot).
Matrix<double> tiled(const std::vector<double>& a, int64_t n, int64_t nb) {
  Matrix<double> M(n, n, nb);
  M.copy_from(a.data(), n);
  return M;
}

// The measured runs of one round of --validate (below): the best of at
// least one run and of a third of a second of runs (potrs, getrs: the solve
// alone, on factors computed beforehand), after a warm-up run: each round
// starts the library afresh, and its first run maps an emulated device's
// memory anew (potrf 4000 on cpu,emu, one run a round: 0.29-0.37 s in the
// rounds without a warm-up, 0.28-0.30 in those with one). With `cap`, the last run
// is traced into it.
//
// Why a third of a second a round: of two 40-60 ms runs (potrf n = 2000),
// both were slowed at times (2026-11-26, idle machine: potrf 2000 cpu,emu
// best of two 71 ms where a minute before and after it read 52-56 ms).
double measure(const std::string& routine, int64_t n, int64_t nrhs, int64_t nb, const std::string& devices,
               Schedule schedule, TraceCapture* cap) {
  Config cfg;
  cfg.devices = devices;
  cfg.schedule = schedule;
  init(cfg);
  const bool chol = routine == "potrf" || routine == "potrs", solve = routine == "potrs" || routine == "getrs";
  const std::vector<double> A0 =
      chol ? bench::random_hpd<double>(n, n, 20240601) : bench::random_matrix<double>(n, n, n, 20240601);
  const std::vector<double> B0 = routine == "gemm" ? bench::random_matrix<double>(n, n, n, 20240602) : std::vector<double>{};
  Options o;
  o.nb = nb;
  Matrix<double> F = solve ? tiled(A0, n, nb) : Matrix<double>{};  // the factors of the solvers
  std::vector<int64_t> fpiv;
  if (solve && (chol ? potrf(Uplo::Lower, F, o) : getrf(F, fpiv, o)) != 0)
    throw std::runtime_error("the factorization before " + routine + " failed");
  const std::vector<double> X0 = solve ? bench::random_matrix<double>(n, nrhs, n, 20240603) : std::vector<double>{};
  double best = 1e300, timed = 0;
  constexpr double kMeasuredSeconds = 1.0 / 3;
  constexpr int kMostRuns = 8;
  constexpr int first = 1;  // the warm-up
  for (int r = 0; r <= first || (timed < kMeasuredSeconds && r < first + kMostRuns); ++r) {
    Matrix<double> X = solve ? Matrix<double>(n, nrhs, nb) : Matrix<double>{};
    if (solve) X.copy_from(X0.data(), n);
    Matrix<double> A = tiled(A0, n, nb), B = routine == "gemm" ? tiled(B0, n, nb) : Matrix<double>{},
                   C = routine == "gemm" ? tiled(B0, n, nb) : Matrix<double>{};
    std::vector<int64_t> ipiv;
    std::vector<double> tau(static_cast<std::size_t>(n));
    if (cap && r >= first) cap->begin();  // each run restarts it: the last one is kept
    const double t0 = now_seconds();
    int64_t info = 0;
    if (routine == "potrf") info = potrf(Uplo::Lower, A, o);
    else if (routine == "getrf") info = getrf(A, ipiv, o);
    else if (routine == "geqrf") geqrf(A, tau.data(), o);
    else if (routine == "gemm") gemm(Op::NoTrans, Op::NoTrans, 1.0, A, B, 1.0, C, o);
    else if (routine == "potrs") potrs(Uplo::Lower, F, X, o);
    else getrs(Op::NoTrans, F, fpiv, X, o);
    const double s = now_seconds() - t0;
    if (cap && r >= first) cap->end(s);
    if (info != 0) throw std::runtime_error(routine + " failed: info " + std::to_string(info));
    if (r >= first) best = std::min(best, s), timed += s;
  }
  return best;
}

/// Runs a checked command line; a failure of the run exits with 1.
int simulate(const SimulateArgs& a) {
  const bool json = a.json;
  const std::string& devices = a.devices;
  const std::string& machine = a.machine;
  const std::string& validate = a.validate;
  const bool list = a.list;
  std::string routine = a.routine;
  sim::Request q;
  q.n = a.n;
  q.nrhs = a.nrhs;
  q.nb = a.nb;
  q.cores = static_cast<int>(a.cores);
  q.precision = a.precision[0];
  q.nodes = static_cast<int>(a.nodes);
  if (!a.grid.empty()) {
    const auto x = a.grid.find('x');
    char* end = nullptr;
    const long p = x == std::string::npos ? 0 : std::strtol(a.grid.c_str(), &end, 10);
    const long qq = x == std::string::npos ? 0 : std::strtol(a.grid.c_str() + x + 1, nullptr, 10);
    if (p < 1 || qq < 1 || end != a.grid.c_str() + x || p > (1 << 14) || qq > (1 << 14))
      throw UsageError("--grid: expected PxQ, e.g. 10x10 (got '" + a.grid + "')");
    q.grid_p = static_cast<int>(p), q.grid_q = static_cast<int>(qq);
    if (q.nodes == 0) q.nodes = q.grid_p * q.grid_q;
  }
  const std::string see = " (see hetla simulate --help)";
  q.trace = !a.trace.empty();
  try {
    if (list) {
      if (json) {
        Json names = Json::array();
        for (const auto& m : sim::api().list_models()) names.push_back(m);
        names.push_back("this");
        std::printf("%s\n", Json{{"machines", names}}.dump().c_str());
      } else {
        for (const auto& m : sim::api().list_models()) std::printf("%s\n", m.c_str());
        std::printf("this\n");
      }
      return kExitOk;
    }
    if (!validate.empty()) routine = validate;
    if (routine.empty()) throw UsageError("which routine? (potrf, getrf, geqrf, gemm, potrs, getrs)" + see);
    if (q.n < 1) throw UsageError("-n is required" + see);
    q.routine = routine;
    if (q.nb == 0) q.nb = 512;
    q.schedule = a.schedule == "static" ? rt::Schedule::Static : rt::Schedule::Dynamic;
    if (q.trace) check_output_path(a.trace, "--trace");  // before the run, as bench
    if (!a.measured_trace.empty() && validate.empty()) throw UsageError("--measured-trace needs --validate" + see);
    if (!validate.empty()) {
      if (q.precision != 'd') throw UsageError("--validate measures double precision");
      if (q.nodes > 1) throw UsageError("--validate runs on this machine: one node");
      const Schedule sch = q.schedule == rt::Schedule::Static ? Schedule::Static : Schedule::Dynamic;
      if (!a.measured_trace.empty()) check_output_path(a.measured_trace, "--measured-trace");
      // Rounds of (measured runs, then the calibration of this machine and
      // the simulation on it), the reported one the round of the median
      // relative error: the measured side and the model are taken seconds
      // apart, and the machine's speed moves by 5-15 % between minutes
      // (2026-11-27, idle but for the runs: getrf 4000 on cpu,emu measured
      // 0.575-0.634 s in four validations, predicted -1.4 to +7.2 %; potrf
      // 8000 on cpu,emu -0.9, -3.6, -10.9 %, the last measured at 2.21 s
      // where the others read 1.97-2.05). A round disturbed on one side only
      // is outvoted.
      struct Round {
        double measured = 0, rel = 0;
        sim::Result sim;
        std::string measured_trace;
      };
      constexpr int kRounds = 3;
      std::vector<Round> rounds;
      for (int k = 0; k < kRounds; ++k) {
        Round rd;
        std::optional<TraceCapture> cap;
        if (!a.measured_trace.empty()) cap.emplace();
        rd.measured = measure(q.routine, q.n, q.nrhs, q.nb, devices, sch, cap ? &*cap : nullptr);
        if (cap && cap->captured()) rd.measured_trace = measured_trace_text(a.measured_trace, *cap);
        cap.reset();
        const int cores = num_threads();
        finalize();
        // Measured now, not the stored model: a validation compares the model
        // with the machine as it is at this moment.
        sim::ThisOptions to;
        to.devices = devices, to.cores = cores, to.precisions = "d", to.nbs = {q.nb};
        to.calls = {sim::pattern_of(q.routine), q.n};
        const sim::MachineModel m = sim::api().measure_this(to);
        rd.sim = sim::api().simulate(m, q);
        rd.rel = (rd.sim.seconds - rd.measured) / rd.measured;
        rounds.push_back(std::move(rd));
      }
      std::vector<const Round*> by_error;
      for (const Round& rd : rounds) by_error.push_back(&rd);
      std::sort(by_error.begin(), by_error.end(), [](const Round* x, const Round* y) { return x->rel < y->rel; });
      const Round& med = *by_error[by_error.size() / 2];
      if (!a.measured_trace.empty() && !med.measured_trace.empty()) write_trace_text(a.measured_trace, med.measured_trace);
      const sim::Result& r = med.sim;
      if (q.trace) write_trace(a.trace, "this:" + devices, q, r);
      if (json) {
        Json all = Json::array();
        for (const Round& rd : rounds)
          all.push_back(Json{{"measured_seconds", json_number(rd.measured)},
                             {"predicted_seconds", json_number(rd.sim.seconds)},
                             {"relative_error", json_number(rd.rel)}});
        print_result(true, "this:" + devices, q, r,
                     Json{{"measured_seconds", json_number(med.measured)},
                          {"predicted_seconds", json_number(r.seconds)},
                          {"relative_error", json_number(med.rel)},
                          {"rounds", all}});
      } else {
        print_result(false, "this:" + devices, q, r);
        for (std::size_t k = 0; k < rounds.size(); ++k)
          std::printf("round %zu: measured_seconds %.4f predicted_seconds %.4f relative_error %+.3f\n", k + 1,
                      rounds[k].measured, rounds[k].sim.seconds, rounds[k].rel);
        std::printf("measured_seconds %.4f predicted_seconds %.4f relative_error %+.3f (the round of the median error)\n",
                    med.measured, r.seconds, med.rel);
      }
      return kExitOk;
    }
    if (machine.empty()) throw UsageError("--machine NAME|FILE is required (--list-machines)" + see);
    sim::MachineModel m = machine == "this" ? sim::api().this_machine(devices, q.precision, q.nb, q.cores)
                                            : sim::api().find_model(machine);
    if (a.accelerators >= 0) {  // the first K instances, in the model's order (hub by hub as listed)
      int64_t keep = a.accelerators;
      for (auto& d : m.devices) {
        d.count = static_cast<int>(std::min<int64_t>(d.count, keep));
        keep -= d.count;
      }
      std::erase_if(m.devices, [](const sim::DeviceModel& d) { return d.count == 0; });
    }
    // owner computes across nodes (seed 004 sec. 5.4, as the MPI layer) unless asked otherwise
    const int nodes = q.nodes > 0 ? q.nodes : m.nodes;
    q.schedule = a.schedule == "static" || (a.schedule.empty() && nodes > 1) ? rt::Schedule::Static : rt::Schedule::Dynamic;
    // A cluster's default tiles: at most 230 a side (n = 230 000: nb 1000,
    // 2.05 M potrf tasks, simulated in about 6 minutes at 100 nodes; nb 512
    // would be 15 M tasks)
    if (a.nb == 0 && nodes > 1) q.nb = std::max<int64_t>(512, ((q.n + 229) / 230 + 7) / 8 * 8);
    const sim::Result r = sim::api().simulate(m, q);
    if (q.trace) write_trace(a.trace, m.name, q, r);
    print_result(json, m.name, q, r);
    return kExitOk;
  } catch (const UsageError&) {
    throw;  // exit 2, reported by main
  } catch (const std::exception& e) {
    print_error(json, e.what(), "simulate: ");
    return kExitFailed;
  }
}

}  // namespace
#endif

int cmd_simulate(int argc, char** argv, int first) {
  SimulateArgs a;
  CLI::App app("Predicts a routine's run on a machine model with the real scheduler on a\n"
               "simulated clock (SimGrid; no data, no kernels). --machine this models this\n"
               "machine for --devices. --validate runs the routine here and the simulation\n"
               "of it in three rounds, and prints the round of the median error (and all three).",
               "hetla simulate");
  setup_command(app,
                "ROUTINE -n N --machine NAME|FILE [--nb NB] [--nrhs K] [--precision d] [--cores N]\n"
                "                      [--schedule dynamic|static] [--devices SPEC] [--nodes K --grid PxQ]\n"
                "                      [--trace FILE.svg|FILE.json] [--json]\n"
                "       hetla simulate --list-machines [--json]\n"
                "       hetla simulate --validate ROUTINE -n N [--devices SPEC] [--nb NB] [--json]",
                "See docs/simulation.md. Exit status: 0 success, 1 the simulation or the run failed,\n"
                "2 usage error (or a build without SimGrid).");
  add_options(app, a);
  if (!parse_command(app, argc, argv, first)) return kExitOk;
#ifdef HETLA_HAVE_SIMGRID
  return simulate(a);
#else
  throw UsageError("this build has no simulation (configure with SimGrid: HETLA_WITH_SIMGRID)");
#endif
}

}  // namespace hetla::cli
