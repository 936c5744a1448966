#include "sim/this_machine.hpp"

#include "sim/host_rates.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <unistd.h>
#include <vector>

#include "devices/emulated/emulated_device.hpp"
#include "devices/spec.hpp"
#include "tune/json_file.hpp"
#include "util/blas_threads.hpp"
#include "util/hwloc_topology.hpp"
#include "util/cache_file.hpp"

namespace hetla::sim {

using nlohmann::json;
using ojson = nlohmann::ordered_json;  // a written model keeps the shipped files' field order

namespace {

// The device set of a --devices spec, and what runs at once on the host's
// cores in a real run of it: `workers` pinned host workers, and each emu
// device's thread computing a `speed` fraction of its time (it runs its
// kernel at a core's rate, then waits: EmulatedDevice::stretched). Emu
// threads are not pinned (runtime/workers.cc pins host workers only), so
// they take whatever core is free.
struct Layout {
  dev::DeviceSet set;
  int workers = 1;        // host workers
  int threads = 1;        // measured at once: workers + emu devices, at most the cores
  double load = 1;        // cores' worth of compute: workers + sum of emu speeds
  int machine_cores = 1;
  std::vector<double> measured;  // the threads measured, a speed each: 0 a host worker, s an emu device
};

Layout layout(const std::string& devices, int cores) {
  Layout l;
  l.set = dev::parse_devices(devices);
  int accel_workers = 0, emus = 0;
  double speeds = 0;
  for (const auto& a : l.set.accelerators) {
    if (a->kind() != dev::Kind::Emulated)
      throw std::invalid_argument("this_machine: only cpu and emu devices are modelled so far, not '" + a->name() + "'");
    accel_workers += a->num_workers();
    ++emus;
    speeds += std::min(1.0, a->nominal_speed());
  }
  l.machine_cores = util::Topology::get().cores();
  l.workers = cores > 0 ? cores : l.set.host_cores > 0 ? l.set.host_cores : std::max(1, l.machine_cores - accel_workers);
  l.threads = std::max(1, std::min(l.machine_cores, l.workers + emus));
  l.load = l.workers + speeds;
  l.measured.assign(static_cast<std::size_t>(std::min(l.threads, l.workers)), 0.0);
  for (const auto& a : l.set.accelerators)
    if (static_cast<int>(l.measured.size()) < l.threads) l.measured.push_back(std::min(1.0, a->nominal_speed()));
  return l;
}

std::size_t elem_bytes(char precision) {
  constexpr std::size_t kBytes[] = {4, 8, 8, 16};  // s d c z
  return kBytes[precision_index(precision)];
}

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// The model of the layout's devices on measured host rates (per thread at
// l.threads at once). When the compute load exceeds the cores (more workers
// and emu threads than cores), every computing thread gets cores / load of
// a core: the host rates shrink by that, and an emu device computes at
// min(speed, cores / load) of a core (its stretch is to CPU time / speed, so
// it only gets slower than speed when it cannot get its CPU time).
MachineModel build(const Layout& l, const HostRates& hr, const std::string& devices, const std::string& host_source) {
  const Rates& host = hr.wall;
  MachineModel m;
  m.name = "this";
  m.description = "this machine (" + util::Topology::get().cpu_model() + ", " + util::blas_vendor() +
                  ") for --devices " + devices;
  const double share = l.load > l.machine_cores ? l.machine_cores / l.load : 1.0;
  m.host = host;
  if (share < 1)
    for (auto& k : m.host.curves)
      for (auto& c : k)
        for (auto& pt : c.points) pt.second *= share;
  m.cores = l.workers;
  m.sources.emplace_back("host.cores", "host workers for --devices " + devices + " (" + std::to_string(l.machine_cores) +
                                           " cores in this process's CPU set)");
  m.sources.emplace_back("host.kernels", host_source + (share < 1 ? fmt("; times %.3f: the workers and emu threads load the cores", share) : ""));
  m.hubs.push_back({1e6, 0});
  m.sources.emplace_back("hubs", "none shared: an emu device's copies are limited by its own bw only");
  int i = 0;
  for (const auto& a : l.set.accelerators) {
    DeviceModel d;
    d.name = a->name();
    d.memory_bytes = static_cast<double>(a->memory_capacity());
    d.herk_as_gemm = a->herk_as_gemm();
    d.copies_on_host_cores = a->copies_on_host_cores();
    const auto* e = dynamic_cast<const dev::EmulatedDevice*>(a.get());
    // Its copies are memcpy (at the measured rates), then wait out its bw
    // parameter if that is slower (EmulatedDevice::throttle).
    const double bw = e ? e->config().bandwidth_gbs : 0;
    auto rate = [&](double measured) {
      if (measured <= 0) return a->bandwidth_hint() / 1e9;
      return bw > 0 ? std::min(bw, measured) : measured;
    };
    d.link_gbs = rate(hr.copies.in_gbs);
    d.link_out_gbs = hr.copies.out_gbs > 0 ? rate(hr.copies.out_gbs) : 0;
    d.link_latency_us = e ? e->config().latency_us : 0;
    // Its kernel runs on a core for CPU time t, then it waits until t / speed
    // has passed: speed x the CPU-time rate, unless sharing the cores makes
    // the kernel itself slower than that (the wall rate, times the cores'
    // share when the workers and emu threads overload them).
    const double speed = a->nominal_speed(), cap = share;
    // Measured as it runs (HostRates::stretched) when the calibration ran a
    // thread of its speed; else from the host's rates in CPU time, and a
    // stretched kernel (speed < 1) also waits the wake-up's lateness.
    const auto measured = hr.stretched.find(std::min(1.0, speed));
    const bool as_runs = measured != hr.stretched.end();
    const double wake = speed < 1 && !as_runs ? std::max(0.0, hr.wake_seconds) : 0;
    for (std::size_t k = 1; k < kDeviceKernels; ++k)
      for (std::size_t p = 0; p < 4; ++p) {
        auto c = as_runs ? measured->second.curves[k][p] : hr.cpu.curves[k][p];
        const RateCurve& w = host.curves[k][p];
        for (auto& pt : c.points) {
          const double rate = std::min(as_runs ? pt.second : pt.second * speed, w.at(pt.first) * cap);
          const double units = call_units(k, p, pt.first);
          pt.second = rate > 0 && wake > 0 ? units / (units / (rate * 1e9) + wake) / 1e9 : rate;
        }
        d.rates.curves[k][p] = c;
      }
    const std::string f = "devices[" + std::to_string(i++) + "]";
    const std::string cores_shared = cap < 1 ? fmt(" x %.3f (the cores are shared)", cap) : "";
    m.sources.emplace_back(
        f + ".kernels",
        as_runs ? fmt("emu speed %g", speed) +
                      ": its kernels measured as it runs them, on an unpinned thread beside the host workers, each"
                      " call then waiting until its CPU time / speed, wall time per call" +
                      (cap < 1 ? ", at most the host's wall-time rates" + cores_shared : "")
                : fmt("emu speed %g", speed) + " x the host kernels' rates in CPU time, at most their wall-time rates" +
                      cores_shared + " (it runs the host BLAS on its own thread, then waits until CPU time / speed)" +
                      (wake > 0 ? ", each call " + fmt("%.1f", wake * 1e6) + " us longer: its wake-up from that wait, measured here" : ""));
    const std::string copies = "an emu device's tile copies (memcpy) measured on this machine (sim/emu_copies.cc)";
    const bool copies_measured = hr.copies.in_gbs > 0;
    m.sources.emplace_back(f + ".link_gbs", copies_measured ? copies + (bw > 0 ? ", at most the emu bw parameter" : "")
                                            : bw > 0 ? "emu bw parameter"
                                                     : "emu without bw: hetla's 20 GB/s hint (copies are memcpy)");
    if (copies_measured) m.sources.emplace_back(f + ".link_out_gbs", copies + ": a tile copied back right after it was written");
    m.sources.emplace_back(f + ".link_latency_us", "emu lat parameter (0 when not given)");
    m.sources.emplace_back(f + ".link_duplex", "full: an emu device times each copy on its own (EmulatedDevice::throttle), "
                                               "so a copy in and a copy out overlap");
    m.sources.emplace_back(f + ".memory_gb", "emu mem parameter (0: unlimited)");
    m.sources.emplace_back(f + ".copies_on_host_cores", "an emu device's copies are memcpy on threads of the host's cores");
    m.devices.push_back(std::move(d));
  }
  return m;
}

// "1 host worker pinned to a core, 1 emu thread of speed 0.5".
std::string threads_text(const Layout& l) {
  const auto emus = std::count_if(l.measured.begin(), l.measured.end(), [](double s) { return s > 0; });
  const auto hosts = static_cast<long>(l.measured.size()) - emus;
  std::string t = std::to_string(hosts) + (hosts == 1 ? " host worker" : " host workers") + " pinned to a core each";
  for (double s : l.measured)
    if (s > 0) t += fmt(", an emu thread of speed %g", s);
  return t;
}

std::string host_source(const Layout& l, const std::string& precisions, const std::vector<int64_t>& nbs, double seconds) {
  std::string nb;
  for (auto v : nbs) {  // appended apart: GCC 12 reads "," + string as an overlapping memcpy (-Wrestrict)
    if (!nb.empty()) nb += ',';
    nb += std::to_string(v);
  }
  return "measured on this machine (" + util::Topology::get().cpu_model() + ", " + util::blas_vendor() + "): " +
         std::to_string(l.threads) + " threads at once (" + threads_text(l) + "), each cycling over " +
         std::to_string(last_level_cache() * 3 / 2 >> 20) + " MB of its own tiles (1.5 x the last-level cache), " +
         fmt("%.2f", seconds) + " s per kernel in " + std::to_string(kCalibrationWindows) +
         " windows, the fastest window kept; precisions " + precisions + ", nb " + nb +
         " (panels gathered from tiles as the panel tasks do, at heights nb, 2nb, .. up to 8nb and the validated order;"
         " laswp in GB/s)";
}

// Whether an emu device of speed < 1 got no calibration thread of its speed
// (more devices than cores): its model adds the wake-up (build()).
bool uses_wake_up(const Layout& l, const HostRates& r) {
  return std::any_of(l.set.accelerators.begin(), l.set.accelerators.end(), [&](const auto& a) {
    const double s = a->nominal_speed();
    return s < 1 && !r.stretched.count(s);
  });
}

HostRates measure_rates(const Layout& l, const std::string& precisions, const std::vector<int64_t>& nbs, double seconds,
                        const CallPattern& calls = {}) {
  util::BlasThreadsGuard blas(1);  // one core per thread, as the runtime's workers run the BLAS
  HostRates r;
  for (char c : precisions)
    for (int64_t nb : nbs) measure_precision(r, c, nb, l.measured, seconds, calls);
  if (uses_wake_up(l, r)) r.wake_seconds = measure_wake_up();  // 0.15 s: only when used
  if (!l.set.accelerators.empty()) r.copies = measure_emu_copies(nbs.front(), elem_bytes(precisions.front()));
  return r;
}

// ---- the store of measured host rates ----------------------------------

constexpr int kStoreVersion = 3;  // 2: cpu_time_model added; 3: emus, emu_models

ojson curves_json(const Rates& r, std::size_t first, std::size_t last) {
  ojson ks = ojson::object();
  for (std::size_t k = first; k < last; ++k) {
    ojson per = ojson::object();
    for (std::size_t p = 0; p < 4; ++p) {
      const auto& c = r.curves[k][p];
      if (c.empty()) continue;
      ojson pts = ojson::array();
      for (const auto& [x, v] : c.points) pts.push_back({x, v});
      per[std::string(1, "sdcz"[p])] = pts;
    }
    if (!per.empty()) ks[model_kernel_name(k)] = per;
  }
  return ks;
}

struct StoreKey {
  std::string blas, cpu;
  int threads;
  std::vector<double> emus;  // the speeds of the emu threads among them (they change the host's rates too)
};

StoreKey key_of(const Layout& l) {
  StoreKey k{util::blas_vendor(), util::Topology::get().cpu_model(), l.threads, {}};
  for (double s : l.measured)
    if (s > 0) k.emus.push_back(s);
  return k;
}

// device_only: an emu thread's rates (no panels: those run on the host)
bool has_point(const Rates& r, int p, int64_t nb, bool device_only = false) {
  const double x = static_cast<double>(nb);
  for (std::size_t k : {static_cast<std::size_t>(dev::KernelId::Gemm), kGetrfPanel, kGeqrfPanel,
                        static_cast<std::size_t>(dev::KernelId::Laswp)}) {
    if (device_only && k >= kDeviceKernels) continue;
    const auto& pts = r.curves[k][static_cast<std::size_t>(p)].points;
    if (std::none_of(pts.begin(), pts.end(), [&](const auto& pt) { return pt.first == x; })) return false;
  }
  return true;
}

void merge(Rates& into, const Rates& from) {
  for (std::size_t k = 0; k < kKernels; ++k)
    for (std::size_t p = 0; p < 4; ++p)
      for (const auto& pt : from.curves[k][p].points) {
        auto& pts = into.curves[k][p].points;
        auto it = std::lower_bound(pts.begin(), pts.end(), pt.first, [](const auto& a, double b) { return a.first < b; });
        if (it != pts.end() && it->first == pt.first) it->second = pt.second;
        else pts.insert(it, pt);
      }
}

}  // namespace

std::string this_machine_path() { return util::cache_file("HETLA_MACHINE_THIS", "machine-this.json"); }

std::string model_json(const MachineModel& m) {
  ojson j = ojson::object();
  j["name"] = m.name;
  if (!m.description.empty()) j["description"] = m.description;
  ojson src = ojson::object();
  for (const auto& [k, v] : m.sources) src[k] = v;
  j["sources"] = src;
  j["host"] = {{"cores", m.cores}, {"kernels", curves_json(m.host, 1, kKernels)}};
  if (m.memory_bandwidth_gbs > 0) j["host"]["memory_bandwidth_gbs"] = m.memory_bandwidth_gbs;
  ojson hubs = ojson::array();
  for (const auto& h : m.hubs)
    hubs.push_back({{"bandwidth_gbs", h.gbs}, {"latency_us", h.latency_us}, {"duplex", h.full_duplex ? "full" : "half"}});
  j["hubs"] = hubs;
  ojson devs = ojson::array();
  for (const auto& d : m.devices) {
    ojson o = {{"name", d.name},         {"count", d.count},     {"memory_gb", d.memory_bytes / 1e9},
              {"hub", d.hub},           {"link_gbs", d.link_gbs}, {"link_latency_us", d.link_latency_us},
              {"link_duplex", d.link_full_duplex ? "full" : "half"},
              {"fp64", d.fp64},         {"herk_as_gemm", d.herk_as_gemm},
              {"kernels", curves_json(d.rates, 1, kDeviceKernels)}};
    if (d.link_out_gbs > 0) o["link_out_gbs"] = d.link_out_gbs;
    if (d.copies_on_host_cores) o["copies_on_host_cores"] = true;
    devs.push_back(o);
  }
  j["devices"] = devs;
  if (m.nodes > 1 || m.network_gbs > 0)
    j["network"] = {{"nodes", m.nodes}, {"bandwidth_gbs", m.network_gbs}, {"latency_us", m.network_latency_us}};
  return j.dump(2) + "\n";
}

MachineModel measure_this(const ThisOptions& opt) {
  const Layout l = layout(opt.devices, opt.cores);
  for (char c : opt.precisions) precision_index(c);  // throws on a bad letter
  std::vector<int64_t> nbs = opt.nbs;
  std::sort(nbs.begin(), nbs.end());  // a panel height two widths share keeps the larger width's rate
  const HostRates r = measure_rates(l, opt.precisions, nbs, opt.seconds, opt.calls);
  const char* as = opt.calls.routine == CallPattern::Routine::Lu   ? "getrf"
                   : opt.calls.routine == CallPattern::Routine::Qr ? "geqrf"
                                                                   : "potrf";
  return build(l, r, opt.devices, host_source(l, opt.precisions, nbs, opt.seconds) + "; gemm and trsm called as " + as + " calls them");
}

MachineModel this_machine(const std::string& devices, char precision, int64_t nb, int cores) {
  const Layout l = layout(devices, cores);
  const int p = precision_index(precision);
  const std::string path = this_machine_path();
  const StoreKey key = key_of(l);
  json doc = {{"version", kStoreVersion}, {"machines", json::array()}};
  std::size_t found = SIZE_MAX;
  try {
    std::ifstream in(path);
    if (in) {
      doc = tune::read_json_file(in, path, "machine model store");
      tune::check_version(doc, path, "machine model store", kStoreVersion);
      const json& ms = doc.at("machines");
      for (std::size_t i = 0; i < ms.size(); ++i)
        if (ms[i].at("blas") == key.blas && ms[i].at("cpu") == key.cpu && ms[i].at("threads") == key.threads &&
            ms[i].value("emus", std::vector<double>{}) == key.emus)
          found = i;
    }
  } catch (const std::exception& e) {  // a damaged store is measured again and rewritten
    std::fprintf(stderr, "hetla: %s: %s; measuring this machine again\n", path.c_str(), e.what());
    doc = {{"version", kStoreVersion}, {"machines", json::array()}};
    found = SIZE_MAX;
  }
  HostRates host;
  std::string source;
  if (found != SIZE_MAX) {
    const json& e = doc["machines"][found];
    try {
      const MachineModel stored = parse_model(e.at("model").dump(), path);
      host.wall = stored.host;
      host.cpu = parse_model(e.at("cpu_time_model").dump(), path).host;
      for (const json& em : e.value("emu_models", json::array()))
        host.stretched[em.at("speed").get<double>()] = parse_model(em.at("model").dump(), path).host;
      for (const auto& [k, v] : stored.sources)
        if (k == "host.kernels") source = v;
      if (e.contains("wake_up_us")) host.wake_seconds = e.at("wake_up_us").get<double>() * 1e-6;
      if (e.contains("emu_copies")) {
        const json& c = e.at("emu_copies");
        host.copies = {c.at("in_gbs").get<double>(), c.at("out_gbs").get<double>()};
      }
    } catch (const std::exception& ex) {
      std::fprintf(stderr, "hetla: %s; measuring this machine again\n", ex.what());
      found = SIZE_MAX;
    }
  }
  bool write = false;
  const bool complete = std::all_of(key.emus.begin(), key.emus.end(), [&](double s) {
    return host.stretched.count(s) && has_point(host.stretched[s], p, nb, true);
  });
  if (found == SIZE_MAX || !has_point(host.wall, p, nb) || !has_point(host.cpu, p, nb) || !complete) {
    const HostRates fresh = measure_rates(l, std::string(1, precision), {nb}, 0.15);
    merge(host.wall, fresh.wall);
    merge(host.cpu, fresh.cpu);
    for (const auto& [speed, rates] : fresh.stretched) merge(host.stretched[speed], rates);
    if (fresh.wake_seconds >= 0) host.wake_seconds = fresh.wake_seconds;
    if (fresh.copies.in_gbs > 0) host.copies = fresh.copies;
    const std::string add = host_source(l, std::string(1, precision), {nb}, 0.15);
    source = source.empty() ? add : source + "; " + add;
    MachineModel stored;
    stored.name = "this";
    stored.cores = l.threads;
    stored.host = host.wall;
    stored.sources.emplace_back("host.kernels", source);
    MachineModel cpu_time = stored;
    cpu_time.host = host.cpu;
    cpu_time.sources = {{"host.kernels", "the same measurement in the threads' CPU time (the emu devices' base)"}};
    json emu_models = json::array();
    for (const auto& [speed, rates] : host.stretched) {
      MachineModel emu = stored;
      emu.host = rates;
      emu.sources = {{"host.kernels", fmt("the same measurement on the emu thread of speed %g", speed) + ", as it runs (wall time, its waits included)"}};
      emu_models.push_back({{"speed", speed}, {"model", json::parse(model_json(emu))}});
    }
    json entry = {{"blas", key.blas},
                  {"cpu", key.cpu},
                  {"threads", key.threads},
                  {"emus", key.emus},
                  {"model", json::parse(model_json(stored))},
                  {"cpu_time_model", json::parse(model_json(cpu_time))},
                  {"emu_models", emu_models}};
    if (found == SIZE_MAX) found = doc["machines"].size(), doc["machines"].push_back(entry);
    else doc["machines"][found] = entry;
    write = true;
  }
  // measured by a later version than wrote the store
  const bool wake = uses_wake_up(l, host);
  if (wake && host.wake_seconds < 0) host.wake_seconds = measure_wake_up();
  const bool emus = !l.set.accelerators.empty();
  if (emus && host.copies.in_gbs <= 0) host.copies = measure_emu_copies(nb, elem_bytes(precision));
  json& entry = doc["machines"][found];
  if (write || (wake && !entry.contains("wake_up_us")) || (emus && !entry.contains("emu_copies"))) {
    if (host.wake_seconds >= 0) entry["wake_up_us"] = host.wake_seconds * 1e6;
    if (host.copies.in_gbs > 0)
      entry["emu_copies"] = {{"in_gbs", host.copies.in_gbs}, {"out_gbs", host.copies.out_gbs}};
    try {
      tune::write_json_file(path, doc);
    } catch (const std::exception& ex) {
      std::fprintf(stderr, "hetla: cannot store the model of this machine: %s\n", ex.what());
    }
  }
  return build(l, host, devices, source + " (stored in " + path + ")");
}

}  // namespace hetla::sim
