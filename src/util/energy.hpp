// Energy counters where the platform exposes them (seed 003 reports joules
// per device): Linux powercap / RAPL for the CPU packages and DRAM, NVML for
// NVIDIA GPUs (loaded at run time: no build dependency, and machines without
// the driver simply have no GPU counter). Where nothing is readable the
// meter says why instead of reporting zeros.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hetla::util {

struct EnergySample {
  std::string device;  // "cpu" (all packages), "dram", "cuda0", ...
  double joules = 0;
};

class EnergyMeter {
 public:
  /// Discovers the readable counters (powercap root overridable for tests).
  explicit EnergyMeter(std::string powercap_root = "/sys/class/powercap");
  ~EnergyMeter();
  EnergyMeter(const EnergyMeter&) = delete;
  EnergyMeter& operator=(const EnergyMeter&) = delete;

  /// True when at least one counter can be read.
  bool available() const { return !counters_.empty(); }
  /// Why no counter is readable (empty when available()).
  const std::string& unavailable_reason() const { return reason_; }
  /// Names of the counters, in the order of the samples.
  std::vector<std::string> devices() const;

  /// Starts a measurement (reads every counter).
  void start();
  /// Joules per device since start(); counter wrap-around is handled.
  std::vector<EnergySample> stop();

 private:
  struct Counter {
    std::string device;
    std::vector<std::string> files;  // RAPL energy_uj files summed into this device
    std::vector<double> range_uj;    // their max_energy_range_uj (wrap-around)
    std::vector<double> start_uj;
    int nvml_index = -1;             // NVML device index, or -1
    double nvml_start_mj = 0;
  };
  struct Nvml;
  double read_nvml_mj(int index) const;

  std::vector<Counter> counters_;
  std::string reason_;
  std::unique_ptr<Nvml> nvml_;
};

}  // namespace hetla::util
