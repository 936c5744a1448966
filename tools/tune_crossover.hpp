// `hetla tune --crossover`: where hetla's tile path starts beating the vendor
// call in the caller's thread (issue 17, item 3).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace hetla::cli {

struct CrossoverSearch {
  std::vector<std::string> routines = {"potrf", "getrf", "geqrf"};
  std::string precisions = "sdcz";
  std::vector<int64_t> sizes = {24, 32, 48, 64, 96, 128, 160, 192, 256, 384, 512};
  int repeat = 3;  // best of R loops per path and size
  bool json = false, dry = false, quiet = false;
};

/// Times each routine and precision at the ladder of sizes, vendor inline
/// and tile path alternately, prints one record per (routine, precision)
/// and stores the crossovers in tune::crossover_path().
int tune_crossover(const CrossoverSearch& s);

}  // namespace hetla::cli
