// This host's kernel rates, measured as a factorization runs them: every
// host worker's core at once, each cycling over tiles from memory with its
// panel tiles cached (the calibration behind `--machine this`; the model
// built on them and their store are this_machine.cc's).
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/emu_copies.hpp"
#include "sim/model.hpp"

namespace hetla::sim {

/// The host's rates per thread in wall time (what a host worker gets) and in
/// the thread's CPU time (what an emu device's stretch counts: it waits
/// until CPU time / speed, so a kernel slowed by other processes is not
/// slowed twice). Equal on an idle machine.
struct HostRates {
  Rates wall, cpu;
  /// An emu device's rates by its speed, measured as it runs: the kernel on an
  /// unpinned thread beside the host workers, then the wait until CPU time /
  /// speed (EmulatedDevice::stretched), wall time per call, wait and wake-up
  /// included. A thread that computes half its time runs its kernels slower
  /// in CPU time than one that never waits: gemm nb 256 here 596-601 us at
  /// speed 0.5 against 545-565 at 1, 625 at 0.25 (2026-11-26, Xeon VM), which
  /// the model built on `cpu` x speed missed (the emu points 1-14 % fast).
  std::map<double, Rates> stretched;
  double wake_seconds = -1;  // an emu kernel's wait past its target (measure_wake_up; < 0: not measured)
  EmuCopies copies;          // an emu device's copies (0: not measured)
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

/// What the calibration imitates besides the tile size: whose kernel calls
/// (the routine's transposes, and which operands come from memory: OpenBLAS
/// gemm nb 256 here 457-466 us with C from memory as potrf and getrf call it,
/// 478-518 us as QR's W = V^H C reads C; trsm 345 us on the right as potrf
/// solves, 405-455 on the left as getrf does), and the tallest panel.
struct CallPattern {
  enum class Routine { Cholesky, Lu, Qr } routine = Routine::Cholesky;
  int64_t tallest_panel = 0;  // panels measured up to this height at least, past 8 nb
};
/// The pattern of a routine's name (potrf, getrf, geqrf and their solvers;
/// others: Cholesky's).
inline CallPattern::Routine pattern_of(const std::string& routine) {
  if (routine == "getrf" || routine == "getrs" || routine == "gesv") return CallPattern::Routine::Lu;
  if (routine == "geqrf" || routine == "gels" || routine == "unmqr" || routine == "ormqr") return CallPattern::Routine::Qr;
  return CallPattern::Routine::Cholesky;
}

/// Every kernel of `precision` (s, d, c, z) at tile size nb on as many
/// threads at once as `threads` has entries, for `seconds` each, into r: a
/// thread of speed 0 as a host worker (pinned to its core; r.wall, r.cpu),
/// one of speed s > 0 as an emu device of that speed (r.stretched[s]).
void measure_precision(HostRates& r, char precision, int64_t nb, const std::vector<double>& threads, double seconds,
                       const CallPattern& as = {});

/// How late an emu device's thread wakes from the wait that stretches each
/// kernel (the median, in seconds).
double measure_wake_up();

}  // namespace hetla::sim
