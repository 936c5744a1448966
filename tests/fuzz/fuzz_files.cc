// libFuzzer harness for every file hetla reads, through the library's own
// readers, parsed from memory (no disk I/O per input): the first byte picks
// the reader, the rest is the file's text. 0: capability weights
// (tune::parse_weights), 1: tuned tile table (tune::parse_tiles), 2: GEMM
// split model (tune::SplitModel::parse), 3: machine model (sim::parse_model).
// Each result is then used as the library uses it (lookups, predictions,
// rates), so a file that parses but breaks its consumer is found too. A bad
// file must be a std::runtime_error or std::invalid_argument that says what
// is wrong; any other exception (nlohmann's type_error, say) is a finding.
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

#include "sim/model.hpp"
#include "tune/calibrate.hpp"
#include "tune/split_model.hpp"
#include "tune/tile_table.hpp"

namespace {

using namespace hetla;

void weights(std::istream& in) {
  for (const tune::Rate& r : tune::parse_weights(in, "fuzz"))
    if (r.device.empty() && r.kernel.empty() && !(r.gflops > 0)) __builtin_trap();
}

void tiles(std::istream& in) {
  const tune::TileTable t = tune::parse_tiles(in, "fuzz");
  for (const tune::TileEntry& e : t.entries)
    for (int64_t n : {int64_t{1}, e.n / 2, e.n - 1, e.n, e.n + 1, e.n * 2, e.n * 3}) {
      const auto nb = tune::lookup(t, e.routine, e.precision, e.devices, n);
      if (nb && (*nb < 1 || *nb > std::max<int64_t>(n, 1))) __builtin_trap();  // never larger than n
    }
}

void split(std::istream& in) {
  const tune::SplitModel m = tune::SplitModel::parse(in, "fuzz");
  for (const tune::SplitPoint& p : m.points())
    for (double n : {0.0, p.n * 0.5, p.n, p.n * 1.5, p.n * 2, 1e300})
      if (auto s = m.predict(p.devices, n))
        for (double x : *s)
          if (!(x >= 0)) __builtin_trap();  // shares are never negative or NaN
}

void machine(const std::string& text) {
  const sim::MachineModel m = sim::parse_model(text, "fuzz");
  if (m.cores < 1 || m.hubs.empty()) __builtin_trap();
  for (std::size_t k = 0; k < sim::kKernels; ++k)
    for (int p = 0; p < 4; ++p)
      for (double nb : {1.0, 64.0, 300.0, 1e6}) {
        (void)m.host.flops_per_second(static_cast<dev::KernelId>(k), p, nb);
        for (const sim::DeviceModel& d : m.devices) {
          if (d.hub < 0 || d.hub >= static_cast<int>(m.hubs.size())) __builtin_trap();
          (void)d.rates.flops_per_second(static_cast<dev::KernelId>(k), p, nb);
        }
      }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::istringstream in(text);
  try {
    switch (data[0] % 4) {
      case 0: weights(in); break;
      case 1: tiles(in); break;
      case 2: split(in); break;
      default: machine(text); break;
    }
  } catch (const std::runtime_error& e) {
    if (std::string(e.what()).empty()) __builtin_trap();  // an error says what is wrong
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).empty()) __builtin_trap();
  }
  return 0;
}
