// Tuned tile sizes (issue 18): `hetla tune --tiles` times each routine at a
// few sizes and keeps the fastest tile size per (routine, precision, device
// set, n); the library then uses it instead of the built-in default. The file
// records the BLAS it was measured with (vendor, version and core kernel, so
// a different BLAS or OPENBLAS_CORETYPE is not served stale numbers): a table
// measured with another BLAS is ignored.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace hetla::tune {

struct TileEntry {
  std::string routine;  // potrf (also the size of gemm, trsm, herk), getrf, geqrf
  char precision = 'd';
  std::string devices;  // tile_devices_key() of the runtime measured on
  int64_t n = 0;
  int64_t nb = 0;
  double gflops = 0;    // what the best nb reached (informational)
};

struct TileTable {
  std::string blas;  // util::blas_vendor() when measured
  std::vector<TileEntry> entries;
};

/// $HETLA_TUNING if set, else $XDG_CACHE_HOME/hetla/tiles.json or ~/.cache/hetla/tiles.json.
std::string tiles_path();
/// Reads the file; an empty table if it does not exist. Throws
/// std::runtime_error naming the file and the field on a malformed file.
TileTable load_tiles(const std::string& path);
/// What load_tiles() does with an open file's text; `path` names it in errors.
TileTable parse_tiles(std::istream& in, const std::string& path);
/// Writes `table`, keeping the entries of the file on disk measured with the
/// same BLAS that `table` does not replace (same routine, precision, devices, n).
void save_tiles(const TileTable& table, const std::string& path);
/// The tuned tile size for a call at size n: the entry of the same routine,
/// precision and devices whose n is nearest on a log scale, if n is within
/// a factor 2 of it (tile sizes tuned at 1000 say nothing about 16 000);
/// never larger than n.
std::optional<int64_t> lookup(const TileTable& table, const std::string& routine, char precision,
                              const std::string& devices, int64_t n);
/// For a call larger than every tuned n of the same routine, precision and
/// devices: the tile size tuned at the largest n (a floor: the best tile
/// grows with n, so tile sizes tuned below n are lower bounds).
std::optional<int64_t> largest_below(const TileTable& table, const std::string& routine, char precision,
                                     const std::string& devices, int64_t n);

}  // namespace hetla::tune
