// Default tile sizes. The tile must be large enough for an efficient
// single-threaded GEMM (measured: OpenBLAS dgemm peaks around nb = 256-320 on
// one core) yet leave enough tiles for every worker on small problems.
#include "hetla/linalg.hpp"
#include "runtime/context.hpp"

namespace hetla {

template <typename T> int64_t default_tile_size(int64_t n) {
  // Large real problems: bigger tiles make the trailing GEMMs more efficient
  // (dpotrf n = 8000: nb 384 at 100 GFLOP/s vs 94 at nb 256).
  int64_t nb = is_complex_v<T> ? 192 : (n >= 6000 ? 384 : 256);
  // Below ~4 tile columns per worker the DAG starves the cores: shrink tiles.
  const int64_t workers = std::max(1, num_threads());
  while (nb > 64 && n / nb < 4 * workers) nb /= 2;
  return nb;
}

template int64_t default_tile_size<float>(int64_t);
template int64_t default_tile_size<double>(int64_t);
template int64_t default_tile_size<std::complex<float>>(int64_t);
template int64_t default_tile_size<std::complex<double>>(int64_t);

}  // namespace hetla
