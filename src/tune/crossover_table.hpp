// Tuned crossovers (issue 17): `hetla tune --crossover` times each routine's
// call on the vendor in the caller's thread and on hetla's tile path at a
// ladder of sizes, and stores per routine and precision the size from which
// the tile path wins. Stored next to the tuned tile sizes (tiles.json), with
// the BLAS it was measured with: a file measured with another BLAS is ignored.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace hetla::tune {

struct CrossoverEntry {
  std::string routine;  // potrf, getrf, geqrf
  char precision = 'd';
  int64_t n = 0;  // the crossover: the first size at which the tile path won
};

struct CrossoverTable {
  std::string blas;  // util::blas_vendor() when measured
  std::vector<CrossoverEntry> entries;
};

/// crossover.json in the folder of tiles_path() (so $HETLA_TUNING moves both).
std::string crossover_path();
/// Reads the file; an empty table if it does not exist. Throws
/// std::runtime_error naming the file and the field on a malformed file.
CrossoverTable load_crossovers(const std::string& path);
/// Writes `table`, keeping the entries of the file on disk measured with the
/// same BLAS that `table` does not replace (same routine and precision).
void save_crossovers(const CrossoverTable& table, const std::string& path);

}  // namespace hetla::tune
