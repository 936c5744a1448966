// Capability weights (seed 000 §5.2): the rate alpha(device, kernel) of each
// tile kernel on each device, measured by short micro-benchmarks at tile size
// and persisted per machine, so placement and weighted distributions use
// measured rates instead of guesses. Each rate is the median of several runs
// (one slow outlier must not send all GEMMs to one device).
#pragma once
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "runtime/runtime.hpp"

namespace hetla::tune {

struct Rate {
  std::string device;  // device key: "cpu:<model>", "opencl:<device name>", "cuda:<model>", "emu:speed=<s>"
  std::string kernel;  // gemm, herk, trsm, potrf, trmm
  double gflops = 0;   // per worker of that device
};

/// Stable identity of a device across runs (emulated devices include their speed).
std::string device_key(const dev::Device& d);

/// Measures every kernel on every device of `rt` (double precision, tiles of
/// nb) and installs the rates in `rt`. Takes well under a second per device.
/// `progress` (optional) is called before each kernel: (label, index, count).
using CalibrateProgress = std::function<void(const std::string& label, int index, int count)>;
std::vector<Rate> calibrate(rt::Runtime& rt, int64_t nb = 256, int reps = 5, const CalibrateProgress& progress = {});

/// $HETLA_WEIGHTS if set, else $XDG_CACHE_HOME/hetla/weights.json or
/// ~/.cache/hetla/weights.json.
std::string weights_path();
/// Writes/merges the rates into the JSON file (other devices' entries kept).
void save(const std::vector<Rate>& rates, const std::string& path);
/// Reads the file; empty if it does not exist. Throws on a malformed file.
std::vector<Rate> load(const std::string& path);
/// What load() does with an open file's text; `path` names it in errors.
std::vector<Rate> parse_weights(std::istream& in, const std::string& path);
/// Installs the rates whose device key matches one of rt's devices; returns how many.
int apply(rt::Runtime& rt, const std::vector<Rate>& rates);

}  // namespace hetla::tune
