// Default tile sizes: the size `hetla tune --tiles` measured best on this
// machine (src/tune/tuned_tiles.hpp) when there is one, else a built-in
// choice. The tile must be large enough for an efficient single-threaded GEMM
// (measured: OpenBLAS dgemm peaks around nb = 256-320 on one core) yet leave
// enough tiles for every worker on small problems.
#include <algorithm>
#include <mutex>
#include <optional>

#include "hetla/linalg.hpp"
#include "context/context.hpp"
#include "tune/tuned_tiles.hpp"
#include "util/precision.hpp"

namespace hetla {

namespace {
// Below ~4 tile columns per worker the DAG starves the cores: shrink tiles.
int64_t fit_workers(int64_t nb, int64_t n) {
  const int64_t workers = std::max(1, num_threads());
  while (nb > 64 && n / nb < 4 * workers) nb /= 2;
  return nb;
}

bool host_cores_alone() {
  const detail::ContextLock lock;  // also from inside a call
  return detail::runtime().num_devices() == 1;
}

// The general size (Cholesky, and the GEMM-shaped routines that share it) is
// tuned on potrf: its rate is that of its trailing GEMM/HERK updates.
template <typename T> std::optional<int64_t> tuned(Panels panels, int64_t n) {
  const char* routine = panels == Panels::LU ? "getrf" : panels == Panels::QR ? "geqrf" : "potrf";
  const detail::ContextLock lock;  // also from inside a call
  return tune::tuned_tile_size(detail::runtime(), routine, precision_letter<T>(), n);
}

template <typename T> int64_t builtin_tile_size(int64_t n) {
  // Large real problems: bigger tiles make the trailing GEMMs more efficient
  // (dpotrf n = 8000: nb 384 at 100 GFLOP/s vs 94 at nb 256).
  return fit_workers(is_complex_v<T> ? 192 : (n >= 6000 ? 384 : 256), n);
}

}  // namespace

template <typename T> int64_t default_tile_size(int64_t n) {
  if (auto nb = tuned<T>(Panels::Cholesky, n)) return *nb;
  return builtin_tile_size<T>(n);
}

template <typename T> int64_t default_tile_size(int64_t n, Panels panels) {
  if (auto nb = tuned<T>(panels, n)) return *nb;
  // Accelerators want large tiles for their GEMMs: they keep the general size.
  if (panels == Panels::Cholesky || !host_cores_alone()) return builtin_tile_size<T>(n);
  // A QR panel (a recursive QR on one core) costs ~2 m nb^2 flops at under
  // half of GEMM speed, so its share of the work grows with nb, while the
  // trailing larfb (GEMMs of inner dimension nb) gains only ~3% from 128 to
  // 256. Measured on 2 cores: dgeqrf n=4000 111-116 GFLOP/s at nb 128 vs
  // 107-112 at 256 (8000: equal), zgeqrf n=2000 +6%, dgels 6000x3000 +4%.
  if (panels == Panels::QR) return std::min<int64_t>(builtin_tile_size<T>(n), 128);
  // LU: the same trade between panel (OpenBLAS getrf on one core) and
  // trailing GEMMs settles at 192: dgetrf n=2000 +2.5% over 128, n=4000 and
  // 6000 +1-3% over 256, n=8000 equal to 384.
  return fit_workers(192, n);
}

#define HETLA_INSTANTIATE(T)                       \
  template int64_t default_tile_size<T>(int64_t); \
  template int64_t default_tile_size<T>(int64_t, Panels);
HETLA_FOR_EACH_PRECISION(HETLA_INSTANTIATE)
#undef HETLA_INSTANTIATE

}  // namespace hetla
