// A machine model for simulation (docs/simulation.md): the host's cores and
// the accelerators with their per-kernel rates (by precision and tile size),
// memories, and the links that copies cross. Read from JSON; every number
// in a shipped model names its source.
#pragma once
#include <array>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "devices/device.hpp"

namespace hetla::sim {

/// Rate of one kernel in one precision: GFLOP/s per worker at tile sizes,
/// linearly interpolated (constant outside the table).
struct RateCurve {
  std::vector<std::pair<double, double>> points;  // (nb, GFLOP/s), nb increasing
  bool empty() const { return points.empty(); }
  double at(double nb) const;
};

constexpr std::size_t kKernels = static_cast<std::size_t>(dev::KernelId::Count);

/// Rates of a processing unit: [kernel][precision s, d, c, z].
struct Rates {
  std::array<std::array<RateCurve, 4>, kKernels> curves;
  /// flop/s of kernel k in precision p (0..3) at tile size nb; 0 if unknown.
  double flops_per_second(dev::KernelId k, int p, double nb) const;
};

struct DeviceModel {
  std::string name;         // e.g. "m2070"; instances are name0, name1, ...
  int count = 1;
  double memory_bytes = 0;  // 0: unlimited
  bool fp64 = true;
  bool herk_as_gemm = false;
  int hub = 0;              // the I/O hub (index into MachineModel::hubs) its link hangs off
  double link_gbs = 0;      // its own link to the hub (e.g. PCIe x16), GB/s
  double link_latency_us = 0;
  Rates rates;
};

struct Hub {
  double gbs = 0;  // bandwidth every device link under it shares
  double latency_us = 0;
};

struct MachineModel {
  std::string name, file;  // file: where it was read from ("" when built)
  int cores = 1;           // host cores that compute
  Rates host;              // per core
  double memory_bandwidth_gbs = 0;  // host memory (informational)
  std::vector<DeviceModel> devices;
  std::vector<Hub> hubs;
  int nodes = 1;           // parsed; the simulation runs one node so far
  double network_gbs = 0, network_latency_us = 0;
};

/// Precision index of a letter s, d, c, z (throws otherwise).
int precision_index(char p);

/// Reads a model; errors name the file and the field (std::runtime_error).
MachineModel load_model(const std::string& path);
/// Parses JSON text; `source` names it in error messages.
MachineModel parse_model(const std::string& text, const std::string& source);
/// A shipped model by name (share/machines/NAME.json, searched in the
/// source tree, the install prefix and $HETLA_MACHINES), or a file path.
MachineModel find_model(const std::string& name_or_file);
/// Names of the shipped models.
std::vector<std::string> list_models();

}  // namespace hetla::sim
