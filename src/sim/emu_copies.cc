// The calibration of an emu device's copies (emu_copies.hpp).
#include "sim/emu_copies.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "devices/emulated/emulated_device.hpp"
#include "sim/host_rates.hpp"
#include "util/pages.hpp"

namespace hetla::sim {

namespace {

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

}  // namespace

// Each round is a fresh device (its memory never used) filled with 32 tiles
// spread over a matrix of 1.5 x the last-level cache (as the kernels'
// calibration cycles over its tiles: the copies read memory, not cache),
// tile by tile as a copy engine stages them: a fresh block, the tile copied
// in, then back (its checkpoint, from memory just written, as a kernel's
// output is). Measured here (nb 256, double, 2026-11-26): in 58 us, out
// 26 us a tile (9.0 and 20 GB/s, the 20 GB/s hint for both before); traced
// in potrf n = 8000 on cpu,emu:speed=0.5, beside the host worker's GEMMs,
// 90 and 33 us.
EmuCopies measure_emu_copies(int64_t nb, std::size_t elem) {
  using Clock = std::chrono::steady_clock;
  constexpr int kRounds = 3, kRows = 8, kTiles = 32;
  const int64_t ld = kRows * nb;
  const std::size_t bytes = static_cast<std::size_t>(nb * nb) * elem;
  const int64_t cols = std::max<int64_t>(kTiles / kRows, static_cast<int64_t>(last_level_cache() * 3 / 2 / (bytes * kRows)));
  util::PageBuffer matrix(static_cast<std::size_t>(ld * cols * nb) * elem);
  auto gbs = [&](double seconds) { return seconds > 0 ? static_cast<double>(bytes) / seconds / 1e9 : 0.0; };
  auto secs = [](Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
  EmuCopies best;
  for (int round = 0; round < kRounds; ++round) {
    dev::EmulatedDevice device("calibration", dev::EmulatedConfig{});
    std::vector<double> in, out;
    std::vector<void*> blocks;
    for (int64_t k = 0; k < kTiles; ++k) {  // each round its own tiles, when the matrix has enough
      const int64_t i = k % kRows, j = (k / kRows * (cols / (kTiles / kRows)) + round) % cols;
      char* tile = static_cast<char*>(matrix.get()) + static_cast<std::size_t>(j * nb * ld + i * nb) * elem;
      void* p = device.allocate(bytes);
      if (!p) break;
      blocks.push_back(p);
      const auto t0 = Clock::now();
      device.copy_in(p, tile, ld, nb, nb, elem);
      const auto t1 = Clock::now();
      device.copy_out(tile, ld, p, nb, nb, elem);
      in.push_back(secs(t0, t1)), out.push_back(secs(t1, Clock::now()));
    }
    for (void* p : blocks) device.deallocate(p, bytes);
    if (in.empty()) return {};  // no memory: the hint stays
    best.in_gbs = std::max(best.in_gbs, gbs(median(in)));
    best.out_gbs = std::max(best.out_gbs, gbs(median(out)));
  }
  return best;
}

}  // namespace hetla::sim
