#include "devices/spec.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "devices/emulated/emulated_device.hpp"
#include "util/hwloc_topology.hpp"
#include "devices/plugin.hpp"

namespace hetla::dev {

namespace {
std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  if (!s.empty() && s.back() == sep) out.emplace_back();
  return out;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

double parse_number(const std::string& item, const std::string& v) {
  std::size_t pos = 0;
  double x = 0;
  try {
    x = std::stod(v, &pos);
  } catch (const std::exception&) {
    pos = 0;
  }
  if (pos == 0 || pos != v.size() || std::isnan(x)) throw std::invalid_argument("device '" + item + "': '" + v + "' is not a number");
  return x;
}
}  // namespace

std::size_t parse_size(const std::string& s) {
  if (s.empty()) throw std::invalid_argument("empty size");
  double mult = 1;
  std::string num = s;
  switch (std::toupper(static_cast<unsigned char>(s.back()))) {
    case 'K': mult = 1024.0; break;
    case 'M': mult = 1024.0 * 1024; break;
    case 'G': mult = 1024.0 * 1024 * 1024; break;
    default: break;
  }
  if (mult != 1) num.pop_back();
  double x = parse_number("size", num);
  if (!(x > 0)) throw std::invalid_argument("size must be positive: " + s);
  // Converting a double past 2^64 to size_t is undefined (found by tests/fuzz).
  if (!(x * mult < 0x1p63)) throw std::invalid_argument("size too large: " + s);
  return static_cast<std::size_t>(x * mult);
}

namespace {
const char* const kListHint = " (a comma list such as cpu, cpu,opencl or cpu,emu:speed=0.5)";

const char* const kFaultUsage = "fail must be kernel@K, copy@K, alloc@K, lost@K (K >= 1) or random:P (0 <= P <= 1)";

// fail=kernel@K|copy@K|alloc@K|lost@K (the K-th one), fail=random:P (the
// probability is the next part of the item, since ':' separates keys:
// emu:fail=random:0.01:seed=3). Shared by every device kind.
void parse_fault(const std::string& item, const std::string& val, const std::vector<std::string>& parts,
                 std::size_t& p, FaultPlan& plan, const char* usage = kFaultUsage) {
  const std::string bad = "device '" + item + "': " + usage;
  if (val == "random") {
    if (p + 1 >= parts.size() || parts[p + 1].find('=') != std::string::npos) throw std::invalid_argument(bad);
    const double x = parse_number(item, parts[++p]);
    if (!(x >= 0 && x <= 1)) throw std::invalid_argument(bad);
    plan.probability = x;
    return;
  }
  const auto at = val.find('@');
  if (at == std::string::npos) throw std::invalid_argument(bad);
  const std::string what = val.substr(0, at);
  const double k = parse_number(item, val.substr(at + 1));
  if (!(k >= 1 && k < 0x1p63) || k != std::floor(k)) throw std::invalid_argument(bad);
  const auto K = static_cast<uint64_t>(k);
  if (what == "kernel") plan.kernel_at = K;
  else if (what == "copy") plan.copy_at = K;
  else if (what == "alloc") plan.alloc_at = K;
  else if (what == "lost") plan.lost_at = K;
  else throw std::invalid_argument(bad);
}

void parse_seed(const std::string& item, const std::string& val, FaultPlan& plan) {
  const double x = parse_number(item, val);
  if (!(x >= 0 && x < 0x1p63) || x != std::floor(x)) throw std::invalid_argument("device '" + item + "': seed must be an integer >= 0");
  plan.seed = static_cast<uint64_t>(x);
}

// opencl/cuda: takes the fail= and seed= keys out of the text after "kind:"
// (the backend parses the rest: an index, mem=SIZE, ...).
std::string take_faults(const std::string& item, const std::string& which, FaultPlan& plan) {
  const auto parts = split(which, ':');
  std::string rest;
  bool took = false;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const auto eq = parts[p].find('=');
    const std::string key = eq == std::string::npos ? parts[p] : parts[p].substr(0, eq);
    if (key == "fail") parse_fault(item, parts[p].substr(eq + 1), parts, p, plan), took = true;
    else if (key == "seed") parse_seed(item, parts[p].substr(eq + 1), plan), took = true;
    else rest += (rest.empty() ? "" : ":") + parts[p];
  }
  if (!took) return which;  // as written: the backend's messages quote it
  return rest.empty() ? "0" : rest;
}

EmulatedConfig parse_emu(const std::string& item, const std::vector<std::string>& parts) {
  EmulatedConfig cfg;
  for (std::size_t p = 1; p < parts.size(); ++p) {
    auto eq = parts[p].find('=');
    if (eq == std::string::npos) throw std::invalid_argument("device '" + item + "': expected key=value, got '" + parts[p] + "'");
    std::string key = parts[p].substr(0, eq), val = parts[p].substr(eq + 1);
    if (key == "speed") {
      cfg.speed = parse_number(item, val);
      if (!(cfg.speed > 0 && cfg.speed <= 1)) throw std::invalid_argument("device '" + item + "': speed must be in (0, 1]");
    } else if (key == "mem") {
      cfg.memory = parse_size(val);
    } else if (key == "bw") {
      cfg.bandwidth_gbs = parse_number(item, val);
      if (!(cfg.bandwidth_gbs > 0 && std::isfinite(cfg.bandwidth_gbs))) throw std::invalid_argument("device '" + item + "': bw must be positive");
    } else if (key == "lat") {
      cfg.latency_us = parse_number(item, val);
      if (!(cfg.latency_us >= 0 && std::isfinite(cfg.latency_us))) throw std::invalid_argument("device '" + item + "': lat must be >= 0");
    } else if (key == "herk") {  // herk=gemm: diagonal tiles' rank-k updates as GEMMs (Device::herk_as_gemm)
      if (val != "gemm" && val != "herk") throw std::invalid_argument("device '" + item + "': herk must be gemm or herk");
      cfg.herk_as_gemm = val == "gemm";
    } else if (key == "fail") {  // fault injection for tests (docs/reliability.md)
      if (val == "alloc") cfg.fail_allocation = true;   // every allocation
      else if (val == "kernel") cfg.fail_kernels = true;  // every kernel
      else parse_fault(item, val, parts, p, cfg.faults,
                       "fail must be alloc, kernel, kernel@K, copy@K, alloc@K, lost@K (K >= 1) or random:P (0 <= P <= 1)");
    } else if (key == "seed") {
      parse_seed(item, val, cfg.faults);
    } else {
      throw std::invalid_argument("device '" + item + "': unknown key '" + key + "' (speed, mem, bw, lat, herk, fail, seed)");
    }
  }
  return cfg;
}
}  // namespace

std::vector<DeviceItem> parse_device_list(const std::string& spec) {
  if (trim(spec).empty()) throw std::invalid_argument(std::string("empty device list") + kListHint);
  std::vector<DeviceItem> out;
  bool cpu = false;
  for (const std::string& raw : split(spec, ',')) {
    DeviceItem d;
    d.text = trim(raw);
    if (d.text.empty()) throw std::invalid_argument("empty item in '" + spec + "'" + kListHint);
    const std::string& item = d.text;
    const auto parts = split(item, ':');
    d.kind = parts.empty() ? item : parts[0];
    if (d.kind == "cpu") {
      if (cpu) throw std::invalid_argument("device list: 'cpu' given twice");
      cpu = true;
      if (parts.size() > 2) throw std::invalid_argument("device '" + item + "': expected cpu[:cores]");
      if (parts.size() == 2) {
        double c = parse_number(item, parts[1]);
        // (the range test first: casting 1e30 to int is undefined; found by tests/fuzz)
        if (!(c >= 1 && c <= 1 << 20) || c != std::floor(c)) throw std::invalid_argument("device '" + item + "': cores must be a positive integer");
        d.cores = static_cast<int>(c);
      }
    } else if (d.kind == "emu") {
      d.emu = parse_emu(item, parts);
    } else if (d.kind == "opencl" || d.kind == "cuda") {
      // fail=... and seed=... are ours (fault injection, as for emu); opencl also takes :mem=SIZE
      d.which = parts.size() >= 2 ? take_faults(item, item.substr(d.kind.size() + 1), d.faults) : "0";
      if (d.kind == "cuda" && d.which.find(':') != std::string::npos)
        throw std::invalid_argument("device '" + item + "': expected cuda[:index|all][:fail=...]");
    } else {
      throw std::invalid_argument("device list: unknown device '" + item + "' (cpu, emu, opencl, cuda)");
    }
    out.push_back(std::move(d));
  }
  return out;
}

DeviceSet parse_devices(const std::string& spec) {
  DeviceSet set;
  if (spec.empty()) return set;
  set.host_computes = false;
  int emu_count = 0;
  for (const DeviceItem& entry : parse_device_list(spec)) {
    const std::string& item = entry.text;
    const std::string& kind = entry.kind;
    const std::string& which = entry.which;
    if (kind == "cpu") {
      set.host_computes = true;
      set.host_cores = entry.cores;
    } else if (kind == "emu") {
      set.accelerators.push_back(std::make_shared<EmulatedDevice>("emu" + std::to_string(emu_count++), entry.emu));
    } else {
      const auto& kinds = plugin_kinds();
      if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
        throw std::invalid_argument("device '" + item + "': the " + kind + " backend is not built into this hetla");
      for (auto& d : plugin(kind).make_devices(which)) {
        d->set_fault_plan(entry.faults);
        set.accelerators.push_back(d);
      }
    }
  }
  if (!set.host_computes && set.accelerators.empty()) throw std::invalid_argument("device list is empty");
  return set;
}

std::vector<DeviceInfo> probe_devices() {
  auto& topo = util::Topology::get();
  std::vector<DeviceInfo> out;
  out.push_back({"cpu", 0, topo.cpu_model(), 0, std::to_string(topo.cores()) + " cores"});
  for (const auto& p : plugin_status())  // a plugin that does not load shows no devices
    if (p.loaded)
      for (auto& d : plugin(p.kind).probe()) out.push_back(d);
  return out;
}

std::string built_backends() {
  std::string s = "cpu emu";
  for (const auto& kind : plugin_kinds()) s += " " + kind;  // built as plugins; plugin_status() says if they load
  return s;
}

}  // namespace hetla::dev
