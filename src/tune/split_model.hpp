// The work split of a heterogeneous GEMM as a function of the problem size
// (seed 003 Table 2: per-device weights that are piecewise-linear in n).
// `hetla tune --split` learns it for a set of devices from short runs: at each
// size of a grid it starts from the capability weights, runs the product,
// and moves every device's share towards equal busy time (share / busy is the
// device's measured rate on this problem, transfers included) for a few
// rounds. Calls then interpolate linearly in n between the learned sizes
// (clamped outside them). Stored per machine next to the capability weights.
#pragma once
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace hetla::rt { class Runtime; }

namespace hetla::tune {

/// Learned shares of one device set at one size.
struct SplitPoint {
  std::string devices;  // device keys joined by '|', in runtime order
  double n = 0;
  std::vector<double> shares;  // per device, sum 1
};

class SplitModel {
 public:
  /// Shares for `devices` at size n, or nothing when no point was learned
  /// for this device set.
  std::optional<std::vector<double>> predict(const std::string& devices, double n) const;
  /// Adds or replaces the point of (devices, n).
  void set(SplitPoint p);
  const std::vector<SplitPoint>& points() const { return points_; }

  /// $HETLA_SPLIT_MODEL if set, else split.json in the weights directory.
  static std::string default_path();
  /// Empty model when the file does not exist; throws on a malformed file.
  static SplitModel load(const std::string& path);
  /// What load() does with an open file's text; `path` names it in errors.
  static SplitModel parse(std::istream& in, const std::string& path);
  void save(const std::string& path) const;

 private:
  std::vector<SplitPoint> points_;
};

/// The device set a split is learned for: the device keys (calibrate.hpp) in
/// runtime order, the host with its worker count ("cpu:<model>*2|emu:...").
std::string device_set_key(const rt::Runtime& rt);

/// Shares for rt's devices at size n from the model in
/// SplitModel::default_path() (read once per process; a damaged file counts
/// as none), or nothing when no split was learned for these devices.
std::optional<std::vector<double>> predict_split(const rt::Runtime& rt, double n);
/// Replaces the process's model (`hetla tune`, tests).
void set_cached_model(SplitModel m);

/// Busy seconds per device of one run with the given shares.
using SplitRun = std::function<std::vector<double>(const std::vector<double>& shares)>;

/// Equalises busy time: starting from `start`, runs `rounds` times, each time
/// setting share_d proportional to share_d / busy_d of the best run so far.
/// Returns the shares of the run with the smallest max(busy) / mean(busy).
std::vector<double> learn_split(const std::vector<double>& start, const SplitRun& run, int rounds = 3);

/// max / mean of the busy times (1 = perfectly balanced; idle devices count).
double busy_imbalance(const std::vector<double>& busy);

}  // namespace hetla::tune
