// The tuned tile sizes in force for this process: the table at tiles_path(),
// read on first use and again when the file changes (so `hetla tune --tiles`
// takes effect at once), with one warning when it cannot be used.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "runtime/runtime.hpp"

namespace hetla::tune {

/// The tuned tile size of `routine` (potrf, getrf, geqrf) in `precision` at
/// size n on rt's device set, if the table has one.
std::optional<int64_t> tuned_tile_size(const rt::Runtime& rt, const std::string& routine, char precision, int64_t n);
/// For a size past the table's (more than twice its largest n): the tile
/// size tuned at its largest n (tile_table.hpp's largest_below).
std::optional<int64_t> largest_tuned_tile_size(const rt::Runtime& rt, const std::string& routine, char precision,
                                               int64_t n);

/// Switches the table off (tuned_tile_size() returns nothing) or on again:
/// `hetla tune --tiles` searches from the built-in defaults.
void use_tuned_tiles(bool on);

struct TuningStatus {
  std::string path;
  std::string state;        // "absent", "in use", or "ignored: <why>"
  std::size_t entries = 0;  // entries usable with this BLAS
};
/// What tuned_tile_size() reads, for `hetla info`.
TuningStatus tuning_status();

}  // namespace hetla::tune
