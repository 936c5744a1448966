// How fast an emu device copies tiles on this host (the calibration behind
// `--machine this`'s emu links): its copies are memcpy on host threads, so
// they run at this host's memory speed, not at the 20 GB/s hint an emu
// device without a bw parameter gives placement.
#pragma once
#include <cstddef>
#include <cstdint>

namespace hetla::sim {

struct EmuCopies {
  double in_gbs = 0;   // a tile from a column-major matrix into device memory never used before
  double out_gbs = 0;  // the same tile back, right after it was written (as a checkpoint copies a kernel's output)
};

/// Measured on an EmulatedDevice with nb x nb tiles of elem bytes (the
/// median tile of a round, the best of 3 rounds).
EmuCopies measure_emu_copies(int64_t nb, std::size_t elem);

}  // namespace hetla::sim
