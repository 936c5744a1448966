// This host's kernel rates, measured as a factorization runs them: every
// host worker's core at once, each cycling over tiles from memory with its
// panel tiles cached (the calibration behind `--machine this`; the model
// built on them and their store are this_machine.cc's).
#pragma once
#include <cstddef>
#include <cstdint>

#include "sim/model.hpp"

namespace hetla::sim {

/// The host's rates per thread in wall time (what a host worker gets) and in
/// the thread's CPU time (what an emu device's stretch counts: it waits
/// until CPU time / speed, so a kernel slowed by other processes is not
/// slowed twice). Equal on an idle machine.
struct HostRates {
  Rates wall, cpu;
  double wake_seconds = -1;  // an emu kernel's wait past its target (measure_wake_up; < 0: not measured)
};

/// The last-level cache in bytes (sysfs, the highest cache index of cpu0),
/// clamped to [4 MB, 128 MB]; 32 MB when unknown.
std::size_t last_level_cache();

/// The work of one calibration call of kernel k (precision index p) at tile
/// size x, in its rate's units (flops; laswp: bytes).
double call_units(std::size_t k, std::size_t p, double x);

/// How many windows a kernel's `seconds` are split into; its rate is the
/// fastest window's (host_rates.cc says why).
inline constexpr int kCalibrationWindows = 3;

/// Every kernel of `precision` (s, d, c, z) at tile size nb on `threads`
/// threads at once for `seconds` each, into r.
void measure_precision(HostRates& r, char precision, int64_t nb, int threads, double seconds, int64_t tallest = 0);

/// How late an emu device's thread wakes from the wait that stretches each
/// kernel (the median, in seconds).
double measure_wake_up();

}  // namespace hetla::sim
