#include "sim/simulate.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <simgrid/s4u.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "context/context.hpp"
#include "hetla/blas3.hpp"
#include "hetla/linalg.hpp"
#include "hetla/lu.hpp"
#include "hetla/qr.hpp"
#include "runtime/runtime.hpp"
#include "sim/forked_run.hpp"
#include "sim/sim_device.hpp"
#include "sim/simgrid_runtime.hpp"
#include "trace/trace.hpp"

namespace hetla::sim {

namespace s4u = simgrid::s4u;
using nlohmann::json;

std::string routines() { return "potrf, getrf, geqrf, gemm, potrs, getrs"; }

double nominal_flops(const std::string& routine, double n, double nrhs) {
  if (routine == "potrs" || routine == "getrs") return 2 * n * n * nrhs;
  if (routine == "potrf") return n * n * n / 3;
  if (routine == "getrf") return 2 * n * n * n / 3;
  if (routine == "geqrf") return 4 * n * n * n / 3;
  return 2 * n * n * n;  // gemm
}

namespace {

Distribution distribution_of(const std::string& s) {
  if (s.empty() || s == "default") return Distribution::Default;
  if (s == "1d") return Distribution::OneD;
  if (s == "2d") return Distribution::TwoD;
  if (s == "weighted") return Distribution::Weighted;
  throw std::invalid_argument("simulate: unknown distribution '" + s + "' (default, 1d, 2d, weighted)");
}

// The routine on shape-only matrices: the same Matrix API calls a program
// makes (the measured run of --validate makes them too), so the same tasks.
// Task bodies do not run, so nothing reads the matrices: getrf's pivots and
// geqrf's tau are written by nobody, and the insertion loops do not depend on
// them.
template <typename T> void run_routine(const Request& req, int64_t nb) {
  Options o;
  o.distribution = distribution_of(req.distribution);
  o.weights = req.weights;
  Matrix<T> A = Matrix<T>::shape_only(req.n, req.n, nb);
  if (req.routine == "potrf") {
    potrf(Uplo::Lower, A, o);
  } else if (req.routine == "getrf") {
    std::vector<int64_t> ipiv;
    getrf(A, ipiv, o);
  } else if (req.routine == "geqrf") {
    std::vector<T> tau(static_cast<std::size_t>(req.n));
    geqrf(A, tau.data(), o);
  } else if (req.routine == "gemm") {
    Matrix<T> B = Matrix<T>::shape_only(req.n, req.n, nb), C = Matrix<T>::shape_only(req.n, req.n, nb);
    gemm(Op::NoTrans, Op::NoTrans, T(1), A, B, T(1), C, o);
  } else if (req.routine == "potrs" || req.routine == "getrs") {
    Matrix<T> B = Matrix<T>::shape_only(req.n, req.nrhs, nb);
    if (req.routine == "potrs") {
      potrs(Uplo::Lower, A, B, o);
    } else {
      const std::vector<int64_t> ipiv(static_cast<std::size_t>(req.n), 0);  // read by task bodies only
      getrs(Op::NoTrans, A, ipiv, B, o);
    }
  } else {
    throw std::invalid_argument("simulate: routine '" + req.routine + "' not simulated (" + routines() + ")");
  }
}

// A trace label read back from the child: trace::Event keeps a static
// string, so each distinct label is kept for the life of the process (a
// routine has a dozen).
const char* intern_label(const std::string& s) {
  static std::mutex m;
  static std::set<std::string> labels;
  std::lock_guard<std::mutex> lk(m);
  return labels.insert(s).first->c_str();
}

// The algorithm's actor: builds the runtime on the simulated seams, runs the
// routine (its serial loop of insertions), collects the statistics.
//
// A cluster (nodes > 1) is one runtime over every node's devices
// (RuntimeConfig::nodes): device 0 only inserts, then per node its host
// cores (a SimDevice with a worker per core and the model's host rates) and
// its accelerators. The same task insertion, distribution (node 2-D
// block-cyclic, then the node-level one), placement and coherence run as on
// one node; the executor routes copies between nodes over the network.
json simulate_in_engine(const MachineModel& model, const Request& req, int nodes, int gp, int gq) {
  Platform platform(model, nodes);
  std::vector<const Rates*> rates{&model.host};
  rt::RuntimeConfig rc;
  const int cores = req.cores > 0 ? req.cores : model.cores;
  rc.num_workers = nodes > 1 ? 1 : cores;
  rc.schedule = req.schedule;
  rc.nodes = nodes, rc.node_p = gp, rc.node_q = gq;
  DeviceModel host_cores;  // a cluster node's host cores as a device
  host_cores.name = "cpu";
  host_cores.rates = model.host;
  host_cores.link_gbs = 1e6;  // its own node's memory
  for (int node = 0; node < nodes; ++node) {
    std::string pre;  // appended, not "n" + ...: GCC 12 reads that as an overlapping memcpy (-Wrestrict)
    if (nodes > 1) pre.append("n").append(std::to_string(node)).append(".");
    if (nodes > 1) {
      rc.accelerators.push_back(std::make_shared<SimDevice>(pre + "cpu", host_cores, -1, cores));
      rates.push_back(&model.host);
    }
    for (std::size_t i = 0; i < model.devices.size(); ++i)
      for (int k = 0; k < model.devices[i].count; ++k) {
        rc.accelerators.push_back(std::make_shared<SimDevice>(
            pre + (model.devices[i].count == 1 ? model.devices[i].name : model.devices[i].name + std::to_string(k)),
            model.devices[i], static_cast<int>(i)));
        rates.push_back(&model.devices[i].rates);
      }
  }
  auto executor = std::make_shared<SimExecutor>(platform, rates, precision_index(req.precision));
  if (nodes == 1) {  // emulated devices: their copies run on the host's cores
    int threads = cores, d = 1;
    for (const auto& dm : model.devices) threads += dm.copies_on_host_cores ? dm.count : 0;
    for (const auto& dm : model.devices)
      for (int k = 0; k < dm.count; ++k, ++d)
        if (dm.copies_on_host_cores) executor->copies_on_cores(d, dm.link_gbs, dm.link_out_gbs, threads);
  }
  rc.executor = executor;
  rc.clock = std::make_shared<SimClock>();
  rc.threads = std::make_shared<SimThreads>(platform.cpu);
  const int64_t nb = req.nb > 0 ? req.nb : 512;
  const int p = precision_index(req.precision);
  json out;
  std::unique_ptr<trace::Recorder> recorder;
  s4u::Actor::create("main", platform.cpu, [&] {
    try {
      detail::init_runtime(rc);
      {
        std::lock_guard<std::recursive_mutex> lk(detail::call_mutex());
        rt::Runtime& rt = detail::runtime();
        if (req.trace) {  // its time stamps come from the runtime's clock: SimClock
          recorder = std::make_unique<trace::Recorder>(rt.num_trace_rows());
          rt.set_trace(recorder.get());
        }
        // Placement weighs devices by the model's rates at this tile size, as
        // calibration would on the real machine.
        for (int d = 0; d < rt.num_devices(); ++d)
          for (std::size_t k = 1; k < kDeviceKernels; ++k) {
            const double r = rates[static_cast<std::size_t>(d)]->flops_per_second(static_cast<dev::KernelId>(k), p,
                                                                                   static_cast<double>(nb));
            rt.set_rate(d, static_cast<dev::KernelId>(k), r);
          }
        rt.reset_stats();
      }
      const double t0 = s4u::Engine::get_clock();
      switch (req.precision) {
        case 's': run_routine<float>(req, nb); break;
        case 'd': run_routine<double>(req, nb); break;
        case 'c': run_routine<std::complex<float>>(req, nb); break;
        default: run_routine<std::complex<double>>(req, nb); break;
      }
      executor->settle();  // the final write-backs
      out["seconds"] = s4u::Engine::get_clock() - t0;
      std::lock_guard<std::recursive_mutex> lk(detail::call_mutex());
      rt::Runtime& rt = detail::runtime();
      auto st = rt.stats();
      json devs = json::array();
      for (int d = nodes > 1 ? 1 : 0; d < rt.num_devices(); ++d) {  // a cluster's device 0 computes nothing
        const auto& s = st[static_cast<std::size_t>(d)];
        devs.push_back({{"name", rt.device(d).name()}, {"workers", d == 0 ? rt.num_host_workers() : rt.device(d).num_workers()},
                        {"tasks", s.tasks}, {"flops", s.flops}, {"busy_seconds", s.busy_seconds},
                        {"bytes_in", nodes > 1 ? executor->bytes_in(d) : s.bytes_in},
                        {"bytes_out", nodes > 1 ? executor->bytes_out(d) : s.bytes_out},
                        {"evictions", s.evictions}, {"node", std::max(0, rt.node_of(d))}});
      }
      out["devices"] = devs;
      out["network_bytes"] = executor->network_bytes();
      if (recorder) {
        rt.set_trace(nullptr);
        // Rows named as bench names them (tools/bench/common.cc TraceCapture).
        json rows = json::array(), events = json::array();
        for (int w = 0; w < rt.num_workers(); ++w) {
          std::string name = "worker " + std::to_string(w) + (w == 0 ? " (caller)" : "");
          if (rt.num_devices() > 1) name += " [" + rt.device(rt.device_of_worker(w)).name() + "]";
          rows.push_back(std::move(name));
        }
        if (rt.num_trace_rows() > rt.num_workers())  // a row per accelerator (none for a node's host cores)
          for (const char* row : {" copy", " copy out"})
            for (int d = 1; d < rt.num_devices(); ++d)
              rows.push_back(rt.device(d).name() + (rt.copy_engine_row(d) >= 0 ? row : " (no copy engine)"));
        // Time stamps are absolute virtual seconds (SimClock): from the
        // routine's start, as the predicted seconds are.
        for (const trace::Event& e : recorder->events())
          events.push_back({e.label, e.worker, e.start - t0, e.end - t0, e.bytes, static_cast<int>(e.kind)});
        out["trace_rows"] = std::move(rows);
        out["trace"] = std::move(events);
      }
    } catch (const std::exception& e) {
      out["error"] = e.what();
    }
    hetla::finalize();  // ends the workers (actors) before the simulation ends
  });
  s4u::Engine::get_instance()->run();
  return out;
}

}  // namespace

Result simulate(const MachineModel& model, const Request& req) {
  if (req.n < 1) throw std::invalid_argument("simulate: n must be >= 1");
  if (req.nrhs < 1) throw std::invalid_argument("simulate: nrhs must be >= 1");
  precision_index(req.precision);
  const int nodes = req.nodes > 0 ? req.nodes : model.nodes;
  int gp = req.grid_p, gq = req.grid_q;
  if (gp <= 0 || gq <= 0) {  // the most square grid, P <= Q
    gp = static_cast<int>(std::sqrt(static_cast<double>(nodes)));
    while (nodes % gp) --gp;
    gq = nodes / gp;
  }
  if (gp * gq != nodes)
    throw std::invalid_argument("simulate: a " + std::to_string(gp) + "x" + std::to_string(gq) + " grid is not " +
                                std::to_string(nodes) + " nodes");
  if (nodes > 1 && !(model.network_gbs > 0))
    throw std::invalid_argument(model.file + ": network.bandwidth_gbs: needed for " + std::to_string(nodes) + " nodes");
  hetla::finalize();  // no runtime threads across fork()
  const std::string text = run_forked([&] {
    json out;
    try {
      int argc = 5;
#if defined(__SANITIZE_ADDRESS__)
      // AddressSanitizer cannot follow raw context switches between actors'
      // stacks (stack-use-after-return reports in SimThreads::wait): real
      // threads, which SimGrid runs one at a time all the same.
      char a1[] = "--cfg=contexts/factory:thread";
#else
      char a1[] = "--cfg=contexts/factory:raw";
#endif
      char a0[] = "hetla", a2[] = "--cfg=network/model:CM02",
           a3[] = "--cfg=network/crosstraffic:0", a4[] = "--log=root.thresh:critical";
      char* argv[] = {a0, a1, a2, a3, a4, nullptr};
      s4u::Engine engine(&argc, argv);
      s4u::Engine::set_config("network/TCP-gamma:0");
      out = simulate_in_engine(model, req, nodes, gp, gq);
    } catch (const std::exception& e) {
      out["error"] = e.what();
    }
    return out.dump();
  });
  json out = json::parse(text);
  if (out.contains("error")) throw std::runtime_error("simulate: " + out["error"].get<std::string>());
  Result res;
  res.seconds = out["seconds"].get<double>();
  const double n = static_cast<double>(req.n);
  res.flops = nominal_flops(req.routine, n, static_cast<double>(req.nrhs)) * (req.precision == 'c' || req.precision == 'z' ? 4 : 1);
  for (const auto& d : out["devices"])
    res.devices.push_back({d["name"], d["workers"], d["tasks"], d["flops"], d["busy_seconds"], d["bytes_in"], d["bytes_out"],
                           d["evictions"], d["node"]});
  res.nodes = nodes, res.grid_p = gp, res.grid_q = gq;
  res.network_bytes = out["network_bytes"].get<uint64_t>();
  if (out.contains("trace")) {
    res.trace_rows = out["trace_rows"].get<std::vector<std::string>>();
    res.trace.reserve(out["trace"].size());
    for (const auto& e : out["trace"]) {
      trace::Event ev{intern_label(e[0].get<std::string>()), e[1].get<int>(), e[2].get<double>(), e[3].get<double>()};
      ev.bytes = e[4].get<uint64_t>();
      ev.kind = static_cast<trace::Kind>(e[5].get<int>());
      res.trace.push_back(ev);
    }
  }
  return res;
}

}  // namespace hetla::sim
