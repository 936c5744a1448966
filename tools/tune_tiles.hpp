// `hetla tune --tiles`: the tile-size search (issue 18, item 1).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace hetla::cli {

struct TileSearch {
  std::string devices = "cpu";
  std::vector<std::string> routines = {"potrf", "getrf", "geqrf"};
  std::string precisions = "d";
  std::vector<int64_t> sizes = {1000, 2000, 4000, 8000};
  int repeat = 2;  // the two finalists run at least R times each (tile_race.hpp)
  bool json = false, dry = false, quiet = false;
};

/// --quick: double precision at n = 1000, 2000, 4000 (under 2 minutes on 2 cores).
TileSearch quick_tile_search();

/// Times each routine at each size over a pruned set of tile sizes, prints one
/// record per (routine, precision, n) and stores the best in tune::tiles_path().
int tune_tiles(const TileSearch& s);

}  // namespace hetla::cli
