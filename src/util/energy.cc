#include "util/energy.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace hetla::util {

namespace {

bool read_number(const std::string& file, double& value) {
  std::ifstream in(file);
  long double v = 0;
  if (!(in >> v)) return false;
  value = static_cast<double>(v);
  return true;
}

std::string read_line(const std::string& file) {
  std::ifstream in(file);
  std::string s;
  std::getline(in, s);
  return s;
}

}  // namespace

// NVML through dlopen: the driver's library is present exactly where there is
// an NVIDIA GPU to measure, and nothing at build time depends on it. The few
// entry points used are NVML's stable C ABI (nvml.h, API version 2).
struct EnergyMeter::Nvml {
  using Device = void*;
  void* lib = nullptr;
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  int (*count)(unsigned*) = nullptr;
  int (*handle)(unsigned, Device*) = nullptr;
  int (*energy)(Device, unsigned long long*) = nullptr;  // millijoules since the driver loaded
  std::vector<Device> devices;

  ~Nvml() {
    if (lib) {
      if (shutdown) shutdown();
      dlclose(lib);
    }
  }
  /// Empty string on success, else why NVML cannot be used.
  std::string open() {
    lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return "no NVIDIA driver library (libnvidia-ml.so.1)";
    init = reinterpret_cast<int (*)()>(dlsym(lib, "nvmlInit_v2"));
    shutdown = reinterpret_cast<int (*)()>(dlsym(lib, "nvmlShutdown"));
    count = reinterpret_cast<int (*)(unsigned*)>(dlsym(lib, "nvmlDeviceGetCount_v2"));
    handle = reinterpret_cast<int (*)(unsigned, Device*)>(dlsym(lib, "nvmlDeviceGetHandleByIndex_v2"));
    energy = reinterpret_cast<int (*)(Device, unsigned long long*)>(
        dlsym(lib, "nvmlDeviceGetTotalEnergyConsumption"));
    if (!init || !shutdown || !count || !handle || !energy) return "libnvidia-ml lacks the energy API";
    if (init() != 0) {
      shutdown = nullptr;
      return "nvmlInit failed";
    }
    unsigned n = 0;
    if (count(&n) != 0) return "nvmlDeviceGetCount failed";
    for (unsigned i = 0; i < n; ++i) {
      Device d = nullptr;
      unsigned long long mj = 0;
      // Energy counters exist from Volta on; older GPUs answer NOT_SUPPORTED.
      if (handle(i, &d) == 0 && energy(d, &mj) == 0) devices.push_back(d);
    }
    return devices.empty() ? "no NVIDIA GPU with an energy counter" : "";
  }
};

EnergyMeter::EnergyMeter(std::string powercap_root) {
  namespace fs = std::filesystem;
  std::string rapl_reason;
  // RAPL domains: <root>/intel-rapl:P (package-P) and its sub-zones
  // intel-rapl:P:S (core, uncore, dram). Packages are summed into "cpu" (core
  // and uncore are parts of the package); dram is reported apart.
  Counter cpu, dram;
  cpu.device = "cpu";
  dram.device = "dram";
  std::error_code ec;
  bool any_zone = false;
  if (fs::is_directory(powercap_root, ec)) {
    std::vector<fs::path> zones;
    for (const auto& e : fs::directory_iterator(powercap_root, ec))
      if (e.path().filename().string().rfind("intel-rapl:", 0) == 0) zones.push_back(e.path());
    std::sort(zones.begin(), zones.end());
    for (const auto& z : zones) {
      any_zone = true;
      const std::string name = read_line((z / "name").string());
      Counter* into = name.rfind("package", 0) == 0 ? &cpu : name == "dram" ? &dram : nullptr;
      if (!into) continue;
      double v = 0, range = 0;
      const std::string file = (z / "energy_uj").string();
      if (!read_number(file, v)) {
        rapl_reason = "RAPL counters not readable (" + file + ": needs read permission)";
        continue;
      }
      if (!read_number((z / "max_energy_range_uj").string(), range)) range = 0;
      into->files.push_back(file);
      into->range_uj.push_back(range);
    }
  }
  if (!any_zone && rapl_reason.empty()) rapl_reason = "no RAPL zones under " + powercap_root;
  for (Counter* c : {&cpu, &dram})
    if (!c->files.empty()) counters_.push_back(std::move(*c));

  nvml_ = std::make_unique<Nvml>();
  const std::string nvml_reason = nvml_->open();
  for (std::size_t i = 0; i < nvml_->devices.size(); ++i) {
    Counter g;
    g.device = "gpu" + std::to_string(i);
    g.nvml_index = static_cast<int>(i);
    counters_.push_back(std::move(g));
  }
  if (nvml_->devices.empty()) nvml_.reset();
  if (counters_.empty()) reason_ = "CPU: " + rapl_reason + "; GPU: " + nvml_reason;
}

EnergyMeter::~EnergyMeter() = default;

std::vector<std::string> EnergyMeter::devices() const {
  std::vector<std::string> names;
  for (const auto& c : counters_) names.push_back(c.device);
  return names;
}

double EnergyMeter::read_nvml_mj(int index) const {
  unsigned long long mj = 0;
  if (!nvml_ || nvml_->energy(nvml_->devices[static_cast<std::size_t>(index)], &mj) != 0) return 0;
  return static_cast<double>(mj);
}

void EnergyMeter::start() {
  for (auto& c : counters_) {
    c.start_uj.assign(c.files.size(), 0);
    for (std::size_t f = 0; f < c.files.size(); ++f) read_number(c.files[f], c.start_uj[f]);
    if (c.nvml_index >= 0) c.nvml_start_mj = read_nvml_mj(c.nvml_index);
  }
}

std::vector<EnergySample> EnergyMeter::stop() {
  std::vector<EnergySample> out;
  for (const auto& c : counters_) {
    double joules = 0;
    for (std::size_t f = 0; f < c.files.size(); ++f) {
      double now = 0;
      read_number(c.files[f], now);
      double d = now - (f < c.start_uj.size() ? c.start_uj[f] : now);
      if (d < 0 && c.range_uj[f] > 0) d += c.range_uj[f];  // the counter wrapped
      joules += 1e-6 * std::max(0.0, d);
    }
    if (c.nvml_index >= 0) joules += 1e-3 * std::max(0.0, read_nvml_mj(c.nvml_index) - c.nvml_start_mj);
    out.push_back({c.device, joules});
  }
  return out;
}

}  // namespace hetla::util
