#include "sim/model.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace hetla::sim {

using nlohmann::json;

double RateCurve::at(double nb) const {
  if (points.empty()) return 0;
  if (nb <= points.front().first) return points.front().second;
  if (nb >= points.back().first) return points.back().second;
  auto hi = std::lower_bound(points.begin(), points.end(), nb, [](const auto& p, double v) { return p.first < v; });
  auto lo = hi - 1;
  return lo->second + (hi->second - lo->second) * (nb - lo->first) / (hi->first - lo->first);
}

double Rates::flops_per_second(std::size_t k, int p, double nb) const {
  return curves[k][static_cast<std::size_t>(p)].at(nb) * 1e9;
}

const char* model_kernel_name(std::size_t k) {
  if (k == kGetrfPanel) return "getrf_panel";
  if (k == kGeqrfPanel) return "geqrf_panel";
  return k == 0 || k >= kKernels ? "" : dev::kernel_name(static_cast<dev::KernelId>(k));
}

std::size_t model_kernel_of(const char* label) {
  for (std::size_t k = 1; k < kKernels; ++k)
    if (std::strcmp(label, model_kernel_name(k)) == 0) return k;
  return 0;
}

int precision_index(char p) {
  switch (p) {
    case 's': return 0;
    case 'd': return 1;
    case 'c': return 2;
    case 'z': return 3;
    default: throw std::invalid_argument(std::string("unknown precision '") + p + "' (s, d, c or z)");
  }
}

namespace {

struct Reader {
  const std::string& source;
  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw std::runtime_error(source + ": " + field + ": " + what);
  }
  double number(const json& j, const std::string& field, bool positive) const {
    if (!j.is_number()) fail(field, "expected a number");
    double v = j.get<double>();
    if (v < 0 || (positive && v == 0)) fail(field, positive ? "must be > 0" : "must be >= 0");
    return v;
  }
  double opt(const json& o, const char* key, const std::string& field, double def) const {
    return o.contains(key) ? number(o[key], field + "." + key, false) : def;
  }
  // A count (cores, devices, nodes, a hub index): a whole number in [lo, 2^20],
  // so the conversion to int is defined.
  int count(const json& j, const std::string& field, int lo) const {
    const double v = number(j, field, lo > 0);
    if (v != static_cast<double>(static_cast<int64_t>(std::min(v, 1e18))) || v < lo || v > (1 << 20))
      fail(field, "must be a whole number in [" + std::to_string(lo) + ", 2^20]");
    return static_cast<int>(v);
  }
  int opt_count(const json& o, const char* key, const std::string& field, int lo, int def) const {
    return o.contains(key) ? count(o[key], field + "." + key, lo) : def;
  }
  bool opt_flag(const json& o, const char* key, const std::string& field, bool def) const {
    if (!o.contains(key)) return def;
    if (!o[key].is_boolean()) fail(field + "." + key, "expected true or false");
    return o[key].get<bool>();
  }
  // "duplex": "full" or "half" (a link's directions: their own bandwidth each, or one shared)
  bool opt_duplex(const json& o, const char* key, const std::string& field) const {
    if (!o.contains(key)) return true;
    const json& v = o[key];
    if (!v.is_string() || (v.get<std::string>() != "full" && v.get<std::string>() != "half"))
      fail(field + "." + key, "expected \"full\" or \"half\"");
    return v.get<std::string>() == "full";
  }
  // "gemm": {"d": 10.5} or {"d": [[128, 8.0], [512, 10.5]]}
  Rates rates(const json& j, const std::string& field) const {
    Rates r;
    if (!j.is_object()) fail(field, "expected an object of kernels");
    for (auto& [kname, per] : j.items()) {
      std::size_t k = 0;
      for (std::size_t i = 1; i < kKernels; ++i)
        if (kname == model_kernel_name(i)) k = i;
      const std::string kf = field + "." + kname;
      if (k == 0) fail(kf, "unknown kernel (gemm, herk, trsm, potrf, trmm, laswp, getrf_panel, geqrf_panel)");
      if (!per.is_object()) fail(kf, "expected an object of precisions");
      for (auto& [p, v] : per.items()) {
        const std::string pf = kf + "." + p;
        if (p.size() != 1 || std::string("sdcz").find(p[0]) == std::string::npos) fail(pf, "unknown precision");
        RateCurve c;
        if (v.is_number()) {
          c.points.push_back({1, number(v, pf, true)});
        } else if (v.is_array() && !v.empty()) {
          for (std::size_t i = 0; i < v.size(); ++i) {
            const std::string ef = pf + "[" + std::to_string(i) + "]";
            if (!v[i].is_array() || v[i].size() != 2) fail(ef, "expected [nb, GFLOP/s]");
            c.points.push_back({number(v[i][0], ef + "[0]", true), number(v[i][1], ef + "[1]", true)});
            if (i > 0 && c.points[i].first <= c.points[i - 1].first) fail(ef, "tile sizes must increase");
          }
        } else {
          fail(pf, "expected GFLOP/s or a list of [nb, GFLOP/s]");
        }
        r.curves[k][static_cast<std::size_t>(precision_index(p[0]))] = std::move(c);
      }
    }
    return r;
  }
};

}  // namespace

MachineModel parse_model(const std::string& text, const std::string& source) {
  Reader rd{source};
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for 2e308 (found by fuzz_files)
    throw std::runtime_error(source + ": not valid JSON: " + e.what());
  }
  if (!j.is_object()) rd.fail("(top)", "expected an object");
  MachineModel m;
  m.file = source;
  if (j.contains("name") && !j["name"].is_string()) rd.fail("name", "expected a string");
  m.name = j.value("name", std::filesystem::path(source).stem().string());
  if (j.contains("description") && j["description"].is_string()) m.description = j["description"].get<std::string>();
  if (j.contains("sources")) {
    if (!j["sources"].is_object()) rd.fail("sources", "expected an object of \"field\": \"source\"");
    for (auto& [k, v] : j["sources"].items()) {
      if (!v.is_string()) rd.fail("sources." + k, "expected a string");
      m.sources.emplace_back(k, v.get<std::string>());
    }
  }
  if (!j.contains("host")) rd.fail("host", "missing");
  const json& h = j["host"];
  if (!h.contains("cores")) rd.fail("host.cores", "missing");
  m.cores = rd.count(h["cores"], "host.cores", 1);
  if (!h.contains("kernels")) rd.fail("host.kernels", "missing");
  m.host = rd.rates(h["kernels"], "host.kernels");
  m.memory_bandwidth_gbs = rd.opt(h, "memory_bandwidth_gbs", "host", 0);
  if (j.contains("hubs")) {
    if (!j["hubs"].is_array()) rd.fail("hubs", "expected a list");
    for (std::size_t i = 0; i < j["hubs"].size(); ++i) {
      const std::string f = "hubs[" + std::to_string(i) + "]";
      const json& o = j["hubs"][i];
      if (!o.contains("bandwidth_gbs")) rd.fail(f + ".bandwidth_gbs", "missing");
      m.hubs.push_back({rd.number(o["bandwidth_gbs"], f + ".bandwidth_gbs", true), rd.opt(o, "latency_us", f, 0),
                        rd.opt_duplex(o, "duplex", f)});
    }
  }
  if (j.contains("devices")) {
    if (!j["devices"].is_array()) rd.fail("devices", "expected a list");
    for (std::size_t i = 0; i < j["devices"].size(); ++i) {
      const std::string f = "devices[" + std::to_string(i) + "]";
      const json& o = j["devices"][i];
      DeviceModel d;
      if (!o.contains("name") || !o["name"].is_string()) rd.fail(f + ".name", "missing");
      d.name = o["name"].get<std::string>();
      d.count = rd.opt_count(o, "count", f, 1, 1);
      d.memory_bytes = rd.opt(o, "memory_gb", f, 0) * 1e9;
      d.fp64 = rd.opt_flag(o, "fp64", f, true);
      d.herk_as_gemm = rd.opt_flag(o, "herk_as_gemm", f, false);
      d.copies_on_host_cores = rd.opt_flag(o, "copies_on_host_cores", f, false);
      d.hub = rd.opt_count(o, "hub", f, 0, 0);
      if (!o.contains("link_gbs")) rd.fail(f + ".link_gbs", "missing");
      d.link_gbs = rd.number(o["link_gbs"], f + ".link_gbs", true);
      d.link_latency_us = rd.opt(o, "link_latency_us", f, 0);
      d.link_full_duplex = rd.opt_duplex(o, "link_duplex", f);
      d.link_out_gbs = rd.opt(o, "link_out_gbs", f, 0);
      if (d.link_out_gbs > 0 && !d.link_full_duplex)
        rd.fail(f + ".link_out_gbs", "a half-duplex link has one bandwidth (link_gbs)");
      if (!o.contains("kernels")) rd.fail(f + ".kernels", "missing");
      d.rates = rd.rates(o["kernels"], f + ".kernels");
      if (d.hub >= static_cast<int>(std::max<std::size_t>(1, m.hubs.size())))
        rd.fail(f + ".hub", "no hub " + std::to_string(d.hub) + " in hubs");
      m.devices.push_back(std::move(d));
    }
  }
  if (m.hubs.empty()) m.hubs.push_back({1e6, 0, true});  // no shared bus: only the device links limit
  if (j.contains("network")) {
    const json& o = j["network"];
    m.nodes = rd.opt_count(o, "nodes", "network", 1, 1);
    m.network_gbs = rd.opt(o, "bandwidth_gbs", "network", 0);
    m.network_latency_us = rd.opt(o, "latency_us", "network", 0);
  }
  return m;
}

MachineModel load_model(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open machine model");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_model(ss.str(), path);
}

namespace {
std::vector<std::filesystem::path> model_dirs() {
  std::vector<std::filesystem::path> dirs;
  if (const char* e = std::getenv("HETLA_MACHINES"); e && *e) dirs.emplace_back(e);
#ifdef HETLA_SOURCE_MACHINES
  dirs.emplace_back(HETLA_SOURCE_MACHINES);
#endif
#ifdef HETLA_INSTALL_MACHINES
  dirs.emplace_back(HETLA_INSTALL_MACHINES);
#endif
  return dirs;
}
}  // namespace

MachineModel find_model(const std::string& name) {
  if (name.find('/') != std::string::npos || name.ends_with(".json")) return load_model(name);
  for (const auto& d : model_dirs())
    if (std::filesystem::exists(d / (name + ".json"))) return load_model((d / (name + ".json")).string());
  throw std::runtime_error("no machine model named '" + name + "' (see hetla simulate --list-machines)");
}

std::vector<std::string> list_models() {
  std::vector<std::string> names;
  for (const auto& d : model_dirs()) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(d, ec))
      if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace hetla::sim
