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

/// The model's kernels: dev::KernelId's (index = its value), then the
/// host-only panel tasks, which have no device kernel id (their task label).
constexpr std::size_t kDeviceKernels = static_cast<std::size_t>(dev::KernelId::Count);
constexpr std::size_t kGetrfPanel = kDeviceKernels, kGeqrfPanel = kDeviceKernels + 1;
constexpr std::size_t kKernels = kDeviceKernels + 2;
/// "gemm", ..., "laswp", "getrf_panel", "geqrf_panel" ("" for 0, KernelId::None).
const char* model_kernel_name(std::size_t k);
/// The model kernel of a task label ("getrf_panel"; "gemm" for a host block
/// GEMM), 0 when none.
std::size_t model_kernel_of(const char* label);

/// Rates of a processing unit: [kernel][precision s, d, c, z]. laswp moves
/// rows and computes nothing: its rate is GB/s of rows exchanged (read and
/// written), the others' GFLOP/s.
struct Rates {
  std::array<std::array<RateCurve, 4>, kKernels> curves;
  /// flop/s (laswp: bytes/s) of kernel k in precision p (0..3) at tile size nb; 0 if unknown.
  double flops_per_second(std::size_t k, int p, double nb) const;
  double flops_per_second(dev::KernelId k, int p, double nb) const {
    return flops_per_second(static_cast<std::size_t>(k), p, nb);
  }
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
  /// Full duplex (JSON "link_duplex": "full", the default): a copy to the
  /// device and one from it each get link_gbs, as on PCIe and NVLink, which
  /// have separate lanes per direction. "half": both directions share it.
  bool link_full_duplex = true;
  /// Toward the host, GB/s, when it differs from link_gbs (full duplex only;
  /// 0: link_gbs). An emu device's copy out reads memory its kernel just
  /// wrote and is faster than its copy in (here 26 against 58 us a 512 KB
  /// tile, sim/emu_copies.cc).
  double link_out_gbs = 0;
  /// Its copies are memcpy by threads on the host's cores (an emulated
  /// device, Device::copies_on_host_cores), not a DMA engine: their time is
  /// CPU time the cores' computing threads lose (SimExecutor::run).
  bool copies_on_host_cores = false;
  Rates rates;
};

struct Hub {
  double gbs = 0;  // bandwidth every device link under it shares (per direction when full duplex)
  double latency_us = 0;
  bool full_duplex = true;  // JSON "duplex": "full" (default) or "half", as DeviceModel::link_full_duplex
};

struct MachineModel {
  std::string name, file;  // file: where it was read from ("" when built)
  std::string description;
  std::vector<std::pair<std::string, std::string>> sources;  // field -> where its number comes from
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
