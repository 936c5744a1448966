// hetla simulate: predicts a routine's run on a machine model (SimGrid; see
// docs/simulation.md) with the real scheduler on a simulated clock, and
// --validate compares a prediction for this machine with a measured run.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "cli.hpp"
#include "hetla/context.hpp"
#include "hetla/linalg.hpp"
#include "matgen.hpp"

#ifdef HETLA_HAVE_SIMGRID
#include "sim/sim_api.hpp"
#endif

namespace hetla::cli {

namespace {

void help(std::FILE* out) {
  std::fprintf(out,
               "usage: hetla simulate potrf -n N --machine NAME|FILE [--nb NB] [--precision d] [--cores N]\n"
               "                      [--schedule dynamic|static] [--devices SPEC] [--json]\n"
               "       hetla simulate --list-machines\n"
               "       hetla simulate --validate potrf -n N [--devices SPEC] [--nb NB] [--json]\n"
               "Predicts the run on the machine model with the real scheduler on a simulated clock\n"
               "(no data, no kernels). --machine this models this machine for --devices (default cpu).\n"
               "--validate runs the routine here and the simulation of it, and prints both.\n");
}

}  // namespace

#ifndef HETLA_HAVE_SIMGRID
int cmd_simulate(int argc, char** argv, int first) {
  (void)first;
  print_error(wants_json(argc, argv), "this build has no simulation (configure with SimGrid: HETLA_WITH_SIMGRID)");
  return kExitUsage;
}
#else

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
    for (const auto& [k, v] : extra.items()) out[k] = v;
    std::printf("%s\n", out.dump().c_str());
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

// The measured run of potrf on this machine: best of two after a warm-up.
double measure_potrf(int64_t n, int64_t nb, const std::string& devices, Schedule schedule) {
  Config cfg;
  cfg.devices = devices;
  cfg.schedule = schedule;
  init(cfg);
  const std::vector<double> A0 = bench::random_hpd<double>(n, n, 20240601);
  Options o;
  o.nb = nb;
  double best = 1e300;
  for (int r = 0; r < 3; ++r) {
    std::vector<double> A = A0;
    const double t0 = now_seconds();
    const int64_t info = potrf(Uplo::Lower, n, A.data(), n, o);
    const double s = now_seconds() - t0;
    if (info != 0) throw std::runtime_error("potrf failed: info " + std::to_string(info));
    if (r > 0) best = std::min(best, s);
  }
  return best;
}

}  // namespace

int cmd_simulate(int argc, char** argv, int first) {
  const bool json = wants_json(argc, argv);
  try {
    sim::Request q;
    std::string machine, devices = "cpu", routine, validate;
    bool list = false;
    for (int i = first; i < argc; ++i) {
      const std::string a = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw UsageError(a + " needs a value");
        return argv[++i];
      };
      if (a == "--json") continue;
      if (a == "-h" || a == "--help") {
        help(stdout);
        return kExitOk;
      }
      if (a == "-n") q.n = parse_int(value(), "-n", 1, int64_t{1} << 40);
      else if (a == "--nb") q.nb = parse_int(value(), "--nb", 1, 1 << 20);
      else if (a == "--cores") q.cores = static_cast<int>(parse_int(value(), "--cores", 1, 1 << 16));
      else if (a == "--machine") machine = value();
      else if (a == "--devices") devices = parse_device_list(value());
      else if (a == "--precision") {
        const std::string p = value();
        if (p.size() != 1 || std::string("sdcz").find(p[0]) == std::string::npos) throw UsageError("--precision: s, d, c or z");
        q.precision = p[0];
      } else if (a == "--schedule") {
        const std::string s = value();
        if (s != "dynamic" && s != "static") throw UsageError("--schedule: dynamic or static");
        q.schedule = s == "static" ? rt::Schedule::Static : rt::Schedule::Dynamic;
      } else if (a == "--list-machines") list = true;
      else if (a == "--validate") validate = value();
      else if (!a.empty() && a[0] != '-' && routine.empty()) routine = a;
      else throw UsageError("unknown argument '" + a + "'");
    }
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
    if (routine.empty()) throw UsageError("which routine? (potrf)");
    if (routine != "potrf") throw UsageError("routine '" + routine + "' is not simulated yet (potrf)");
    if (q.n < 1) throw UsageError("-n is required");
    q.routine = routine;
    if (q.nb == 0) q.nb = 512;
    if (!validate.empty()) {
      if (q.precision != 'd') throw UsageError("--validate measures double precision");
      const Schedule sch = q.schedule == rt::Schedule::Static ? Schedule::Static : Schedule::Dynamic;
      const double measured = measure_potrf(q.n, q.nb, devices, sch);
      const int cores = num_threads();
      finalize();
      const sim::MachineModel m = sim::api().this_machine(devices, 'd', q.nb, cores);
      const sim::Result r = sim::api().simulate(m, q);
      const double rel = (r.seconds - measured) / measured;
      if (json) {
        print_result(true, "this:" + devices, q, r,
                     Json{{"measured_seconds", json_number(measured)},
                          {"predicted_seconds", json_number(r.seconds)},
                          {"relative_error", json_number(rel)}});
      } else {
        print_result(false, "this:" + devices, q, r);
        std::printf("measured_seconds %.4f predicted_seconds %.4f relative_error %+.3f\n", measured, r.seconds, rel);
      }
      return kExitOk;
    }
    if (machine.empty()) throw UsageError("--machine NAME|FILE is required (--list-machines)");
    const sim::MachineModel m = machine == "this" ? sim::api().this_machine(devices, q.precision, q.nb, q.cores)
                                                  : sim::api().find_model(machine);
    const sim::Result r = sim::api().simulate(m, q);
    print_result(json, m.name, q, r);
    return kExitOk;
  } catch (const UsageError& e) {
    print_error(json, e.what(), "simulate: ");
    if (!json) help(stderr);
    return kExitUsage;
  } catch (const std::exception& e) {
    print_error(json, e.what(), "simulate: ");
    return kExitFailed;
  }
}
#endif

}  // namespace hetla::cli
