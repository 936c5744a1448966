// Default tile sizes: the size `hetla tune --tiles` measured best on this
// machine (src/tune/tuned_tiles.hpp) when there is one, else a built-in
// choice. The tile must be large enough for an efficient single-threaded GEMM
// (measured: OpenBLAS dgemm peaks around nb = 256-320 on one core) yet leave
// enough tiles for every worker on small problems.
#include <algorithm>
#include <mutex>
#include <optional>

#include "hetla/linalg.hpp"
#include <cstdlib>
#include <cstring>

#include "context/context.hpp"
#include "linalg/tile_schedule.hpp"
#include "memory/distribution.hpp"
#include "tune/tuned_tiles.hpp"
#include "util/precision.hpp"

namespace hetla {

namespace {
// Below ~4 tile columns per worker the DAG starves the cores: shrink tiles.
// `cols`: the tile columns per worker below which a tile is halved;
// `cols128`: the same for a 128 tile (Cholesky on the host cores keeps its
// tiles down to 2 columns per worker and 128 down to 3, see model_tile_size).
int64_t fit_workers(int64_t nb, int64_t n, int64_t cols128 = 4, int64_t cols = 4) {
  const int64_t workers = std::max(1, num_threads());
  while (nb > 64 && n / nb < (nb == 128 ? cols128 : cols) * workers) nb /= 2;
  return nb;
}

bool host_cores_alone() {
  const detail::ContextLock lock;  // also from inside a call
  return detail::runtime().num_devices() == 1;
}

// The general size (Cholesky, and the GEMM-shaped routines that share it) is
// tuned on potrf: its rate is that of its trailing GEMM/HERK updates.
// `which`: tune::tuned_tile_size (near n) or tune::largest_tuned_tile_size
// (past the table's largest order).
template <typename T, typename Which>
std::optional<int64_t> tuned(Panels panels, int64_t n, Which which) {
  const char* routine = panels == Panels::LU ? "getrf" : panels == Panels::QR ? "geqrf" : "potrf";
  const detail::ContextLock lock;  // also from inside a call
  return which(detail::runtime(), routine, precision_letter<T>(), n);
}

// `fit`: shrunk by fit_workers for the whole order n (the variable schedule
// applies its own rule at each position instead).
template <typename T> int64_t builtin_tile_size(int64_t n, bool fit = true, int64_t cols128 = 4, int64_t cols = 4) {
  // Large problems: bigger tiles make the trailing GEMMs more efficient
  // (dpotrf n = 8000: nb 384 at 100 GFLOP/s vs 94 at nb 256). Complex kept
  // 192 up to n = 3000: 256 would be halved to 128 by fit_workers at 2000
  // (cpotrf / zpotrf there 1.03 / 0.95 of the vendor at 128, 1.07 / 0.96 at
  // 192). Above it 192 lost to the vendor on the Xeon host (AVX-512, 2 cores,
  // 2026-11-27): cpotrf / zpotrf n = 4000 0.88 / 0.90 at 192, 1.01 / 1.02 at
  // 256; n = 8000 0.85 / 0.89 at 192, 0.98 / 1.06 at 384 (cgemm / zgemm 8000:
  // 378 / 190 GFLOP/s at 192, 417 / 193 at 384).
  const int64_t nb = n >= 6000 ? 384 : is_complex_v<T> && n < 3000 ? 192 : 256;
  return fit ? fit_workers(nb, n, cols128, cols) : nb;
}

// The built-in size when nothing is tuned near n; `factor` as below.
template <typename T> int64_t builtin_model_size(int64_t n, Panels panels, bool fit, bool factor) {
  // Accelerators want large tiles for their GEMMs: they keep the general size.
  if (!host_cores_alone()) return builtin_tile_size<T>(n, fit);
  // Cholesky on the host cores keeps 128 tiles down to 3 tile columns per
  // worker (n = 768 ... 1023 on 2 cores) instead of halving them to 64 below
  // 4: its 64 tiles run GEMMs at ~25 GFLOP/s per core against ~35 at 128,
  // and its per-column chain (potrf, trsm, herk of one tile) is short enough
  // for 2 workers to overlap. dpotrf n = 1000, 2 cores, loaded machine (load
  // 8), 10 alternating processes of 10 repeats each: best 7.3 ms at 128
  // against 16.5 ms at 64 (vendor 9.5 / 11.4), median ratio 1.32 against 1.05.
  // (dgemm n = 1000 showed no gain from 128, so the general size keeps 64.)
  // Its larger tiles stay down to 2 tile columns per worker (4 halved 256 to
  // 128 below n = 2048): Xeon host, 2 cores, best of 3-5, GFLOP/s at 128 /
  // 256: dpotrf n = 1500 88 / 114, n = 2000 85-94 / 118-126, spotrf n = 1500
  // 160 / 192, n = 2000 164-177 / 219-221 (0.85-0.91 of the vendor at 128,
  // 1.12-1.39 at 256), zpotrf n = 1500 128 / 146.
  if (panels == Panels::Cholesky) return builtin_tile_size<T>(n, fit, factor ? 3 : 4, factor ? 2 : 4);
  // A QR panel (a recursive QR on one core) costs ~2 m nb^2 flops at under
  // half of GEMM speed, so its share of the work grows with nb, while the
  // trailing larfb (GEMMs of inner dimension nb) gains only ~3% from 128 to
  // 256. Measured on 2 cores: dgeqrf n=4000 111-116 GFLOP/s at nb 128 vs
  // 107-112 at 256 (8000: equal), zgeqrf n=2000 +6%, dgels 6000x3000 +4%.
  // From n = 6000 the Xeon host (AVX-512, 2 cores) wants 256, GFLOP/s at
  // 128 / 256: dgeqrf n = 6000 112 / 124, n = 8000 110 / 127, sgeqrf 6000
  // 248 / 271, 8000 247 / 281, cgeqrf 8000 285 / 289, zgeqrf 8000 143 / 145
  // (at n = 4000 128 still ties or wins: sgeqrf 253 / 252, zgeqrf 140 / 135).
  if (panels == Panels::QR) return std::min<int64_t>(builtin_tile_size<T>(n, fit), n >= 6000 ? 256 : 128);
  // LU: the same trade between panel (OpenBLAS getrf on one core) and
  // trailing GEMMs settles at 192: dgetrf n=2000 +2.5% over 128, n=4000 and
  // 6000 +1-3% over 256, n=8000 equal to 384 (EPYC host). From n = 4000, 256
  // on the Xeon host (AVX-512, 2 cores, GFLOP/s at 192 / 256): sgetrf n = 4000
  // 233 / 246, n = 8000 246 / 263 (0.91 / 0.98 of the vendor), zgetrf n = 4000
  // 143 / 153; dgetrf 4000, cgetrf 4000 and zgetrf 8000 the same within noise
  // (3 alternated pairs), dgetrf 8000 139 / 143 (154 at 384).
  const int64_t nb = n >= 4000 ? 256 : 192;
  return fit ? fit_workers(nb, n) : nb;
}

// `factor`: the size of a factorization (default_tile_size(n, panels)), not
// the general one that gemm, trsm, herk and the solvers share.
template <typename T> int64_t model_tile_size(int64_t n, Panels panels, bool fit, bool factor = true) {
  const int64_t builtin = builtin_model_size<T>(n, panels, fit, factor);
  // Past the tuned orders, the larger of the built-in size and the one tuned
  // at the largest order: the best tile grows with n. Measured here (2 cores,
  // tuned at n = 1000-4000 by `hetla tune --quick`, n = 16 000, 2026-11-26):
  // dgetrf 146.8 GFLOP/s at the built-in 192 against 169.6 at 384 (tuned at
  // 4000), dgeqrf 125.3 at the built-in 128 against 153.9 at 320, and dpotrf
  // 179.7 at the built-in 384 against 164.7 at 256. From just past the largest
  // order, not from twice it: dpotrf n = 8000 with 192 tuned at 4000 ran 136.5
  // GFLOP/s against 145.1 at the built-in 384 (4 alternated rounds, best of 3).
  if (auto largest = tuned<T>(panels, n, tune::largest_tuned_tile_size)) return std::max(builtin, std::min(*largest, n));
  if (auto nb = tuned<T>(panels, n, tune::tuned_tile_size)) return *nb;
  return builtin;
}

}  // namespace

template <typename T> int64_t default_tile_size(int64_t n) {
  return model_tile_size<T>(n, Panels::Cholesky, true, false);
}

template <typename T> int64_t default_tile_size(int64_t n, Panels panels) {
  return model_tile_size<T>(n, panels, true);
}

// Tall and skinny QR (m >= 4 n, n <= 768) on the host cores: tiles of 96.
// Its update runs in row blocks (qr_workspace.hpp), so narrower tiles cost
// little GEMM speed there and give its few columns more tasks. Measured (2
// cores, 2026-11-26, best of 3, ratio to LAPACK's geqrf): 20000 x 500 d
// 1.30-1.33 at 96 against 1.20-1.25 at 128 (three pairs; s 1.42 / 1.26, z
// 1.30 / 1.22), 10000 x 500 1.26 / 1.19, 40000 x 250 1.73 / 1.50; from
// n = 1000 they tie (20000 x 1000: 1.23 / 1.19, 1.20 at 192) and at 2000
// larger tiles win (20000 x 2000: 1.26 / 1.26, 1.37 at 192).
template <typename T> int64_t default_tile_size(int64_t m, int64_t n, Panels panels) {
  if (panels == Panels::QR && m >= 4 * n && n <= 768 && host_cores_alone()) return 96;
  return default_tile_size<T>(std::min(m, n), panels);
}

namespace {
// Tile columns per worker below which a shrinking schedule halves its tiles,
// and the smallest tile it makes. Measured on 2 cores (loaded machine, A/B
// alternating processes, dpotrf n = 2000 / 4000 time ratio fixed / variable,
// median of 5 pairs): 4 columns per worker (fit_workers' rule at every
// position) 0.77 / 0.93, 2 columns 0.94 / 1.01 (0.86 / 0.92 in a later run:
// the noise is that large), 1 column 0.85 / 0.95; tiles down to 32 instead of
// 64: 0.72 at 2000. Below 64, small-tile GEMMs and per-task costs eat what
// the tail gains. None of it beat fixed tiles on 2 cores: see README.
constexpr int64_t kTailColumnsPerWorker = 2;
constexpr int64_t kSmallestTile = 64;

// HETLA_VARIABLE_TILES=1 (or on/yes/true) turns the schedule on for calls
// that leave the tile size to the library; read at each call so that a
// benchmark can switch it between runs.
bool variable_by_default() {
  const char* v = std::getenv("HETLA_VARIABLE_TILES");
  if (!v) return detail::kVariableTilesDefault;
  return !std::strcmp(v, "1") || !std::strcmp(v, "on") || !std::strcmp(v, "yes") || !std::strcmp(v, "true");
}
}  // namespace

template <typename T> Tiling variable_tiling(int64_t m, int64_t n, Panels panels, int64_t nb) {
  const int64_t k = std::min(m, n);
  if (k <= 0) return Tiling{{std::max<int64_t>(1, nb > 0 ? nb : kDefaultTileSize)}, {}};
  const int64_t first = nb > 0 ? nb : default_tile_size<T>(k, panels);
  const int64_t floor = std::max<int64_t>(std::min<int64_t>(first, kSmallestTile), first / 4);
  const int64_t workers = std::max(1, num_threads());
  std::vector<int64_t> sizes;
  int64_t cur = first;
  for (int64_t pos = 0; pos < k;) {
    const int64_t rem = k - pos;
    if (pos > 0) {  // the first tile is the fixed tiling's (fitted to all of k already)
      // the model's size for the trailing order left here (tuned or built in)
      int64_t want = std::min(cur, nb > 0 ? cur : model_tile_size<T>(rem, panels, false));
      // the tail: keep enough tile columns for every worker
      while (want > floor && rem < kTailColumnsPerWorker * workers * want) want = std::max(floor, want / 2);
      cur = std::max(floor, std::min(cur, want));
    }
    // the last tile takes a remainder of up to half a tile rather than leave a sliver
    const int64_t size = rem <= cur + cur / 2 ? rem : cur;
    sizes.push_back(size);
    pos += size;
  }
  return Tiling{std::move(sizes), {}};
}

namespace detail {
bool variable_tiles(const Options& opts, int64_t m, int64_t n, Panels panels) {
  const bool asked = opts.variable_tiles > 0 || (opts.variable_tiles < 0 && opts.nb <= 0 && variable_by_default());
  // Tall QR keeps uniform tiles: its tree-shaped update (qr_workspace.hpp)
  // needs them and has parallelism down the rows.
  return asked && !(panels == Panels::QR && m >= 4 * n);
}

Tiling shrink_hybrid_tail(const Tiling& t, int64_t n) {
  // The pattern written out over the n columns (as Matrix cuts it), then in
  // its last round each tile at least twice the host's small one is halved,
  // keeping its owner: the last panels get narrower and the accelerators'
  // last columns come as two tasks each, which the host's panels can overlap.
  if (t.owners.empty()) return t;
  int64_t small = 0, round = 0;
  for (std::size_t i = 0; i < t.sizes.size(); ++i) {
    round += t.sizes[i];
    if (t.owners[i] == 0) small = small ? std::min(small, t.sizes[i]) : t.sizes[i];
  }
  if (small == 0) small = *std::min_element(t.sizes.begin(), t.sizes.end());
  Tiling out;
  for (int64_t pos = 0, i = 0; pos < n; i = (i + 1) % static_cast<int64_t>(t.sizes.size())) {
    const int64_t size = std::min(n - pos, t.sizes[static_cast<std::size_t>(i)]);
    const int owner = t.owners[static_cast<std::size_t>(i)];
    if (n - pos <= round && size >= 2 * small) {
      const int64_t half = std::max<int64_t>(small, (size / 2 + 15) / 16 * 16);
      out.sizes.push_back(half), out.owners.push_back(owner);
      out.sizes.push_back(size - half), out.owners.push_back(owner);
    } else {
      out.sizes.push_back(size), out.owners.push_back(owner);
    }
    pos += size;
  }
  return out;
}

template <typename T>
Tiling factor_tiling(const rt::Runtime& rt, const Options& opts, int64_t m, int64_t n, Panels panels) {
  const bool variable = variable_tiles(opts, m, n, panels);
  if (variable && effective(opts.distribution) != Distribution::Hybrid) return variable_tiling<T>(m, n, panels, opts.nb);
  const int64_t nb = opts.nb > 0 ? opts.nb : default_tile_size<T>(m, n, panels);
  if (variable)  // hybrid: the pattern with its last round in narrower tiles
    return shrink_hybrid_tail(call_tiling(rt, opts.distribution, n, nb, panels), n);
  return call_tiling(rt, opts.distribution, n, nb, panels);
}
}  // namespace detail

#define HETLA_INSTANTIATE(T)                                                               \
  template int64_t default_tile_size<T>(int64_t);                                         \
  template int64_t default_tile_size<T>(int64_t, Panels);                                 \
  template int64_t default_tile_size<T>(int64_t, int64_t, Panels);                        \
  template Tiling variable_tiling<T>(int64_t, int64_t, Panels, int64_t);                  \
  template Tiling detail::factor_tiling<T>(const rt::Runtime&, const Options&, int64_t, int64_t, Panels);
HETLA_FOR_EACH_PRECISION(HETLA_INSTANTIATE)
#undef HETLA_INSTANTIATE

}  // namespace hetla
