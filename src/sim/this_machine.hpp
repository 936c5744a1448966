// A model of this machine for a device list (hetla's --devices syntax): the
// host cores' kernel rates measured here as a factorization runs them (every
// core at once, on tiles from memory: sim/host_rates.hpp), emulated
// devices from their own parameters (speed relative to a core, bandwidth,
// latency, memory). For `hetla simulate --machine this`, --validate and
// `hetla tune --model`.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/host_rates.hpp"
#include "sim/model.hpp"

namespace hetla::sim {

struct ThisOptions {
  std::string devices = "cpu";
  int cores = 0;                       // host workers (0: as the library context would choose)
  std::string precisions = "d";        // letters of sdcz
  std::vector<int64_t> nbs = {256};    // tile sizes measured (the rate curves' points)
  double seconds = 0.15;               // per kernel and tile size: the sustained interval
  CallPattern calls;                   // whose kernel calls the calibration imitates (host_rates.hpp)
};

/// Measures the host now (no stored model is read or written) and builds the
/// model of opt.devices from it. About 13 x opt.seconds per precision and nb.
MachineModel measure_this(const ThisOptions& opt);

/// The model `--machine this` uses: the host rates stored for this machine
/// (this_machine_path(); key: BLAS vendor, CPU model, threads running at
/// once) when they have `precision` at `nb`, else measured now (measure_this)
/// and added to the store.
MachineModel this_machine(const std::string& devices, char precision, int64_t nb, int cores = 0);

/// $HETLA_MACHINE_THIS if set, else $XDG_CACHE_HOME/hetla/machine-this.json
/// or ~/.cache/hetla/machine-this.json.
std::string this_machine_path();

/// A model as the JSON text of share/machines/*.json (docs/simulation.md),
/// with its "sources"; parse_model() reads it back to the same numbers.
std::string model_json(const MachineModel& m);

}  // namespace hetla::sim
