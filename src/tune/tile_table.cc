#include "tune/tile_table.hpp"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>

#include "tune/json_file.hpp"
#include "util/cache_file.hpp"

namespace hetla::tune {

namespace {
constexpr int kTilesVersion = 1;

using Key = std::tuple<std::string, char, std::string, int64_t>;
Key key_of(const TileEntry& e) { return {e.routine, e.precision, e.devices, e.n}; }

// A matrix or tile dimension: a whole number in [1, 2^40].
int64_t size_field(const nlohmann::json& obj, const std::string& field, const std::string& key, const FieldError& bad) {
  const nlohmann::json& v = member(obj, key, bad, field);
  if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > (int64_t{1} << 40))
    throw bad(field, "must be a whole number in [1, 2^40]");
  return v.get<int64_t>();
}
}  // namespace

std::string tiles_path() { return util::cache_file("HETLA_TUNING", "tiles.json"); }

// {"version": 1, "blas": "OpenBLAS (...)", "tiles": [{"routine": "potrf",
//  "precision": "d", "devices": "cpu*2", "n": 4000, "nb": 320, "gflops": 98.1}, ...]}
TileTable load_tiles(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};
  return parse_tiles(in, path);
}

TileTable parse_tiles(std::istream& in, const std::string& path) {
  const nlohmann::json doc = read_json_file(in, path, "tuning file");
  check_version(doc, path, "tuning file", kTilesVersion);
  const FieldError bad{"tuning file " + path};
  TileTable t;
  t.blas = string_field(doc, "blas", "blas", bad);
  const nlohmann::json& list = member(doc, "tiles", bad);
  if (!list.is_array()) throw bad("tiles", "must be an array");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = indexed("tiles", i);
    const nlohmann::json& j = list[i];
    if (!j.is_object()) throw bad(at, "must be an object");
    TileEntry e;
    e.routine = routine_field(j, at, bad);
    e.precision = precision_field(j, at, bad);
    e.devices = string_field(j, at + ".devices", "devices", bad);
    e.n = size_field(j, at + ".n", "n", bad);
    e.nb = size_field(j, at + ".nb", "nb", bad);
    if (e.nb > e.n) throw bad(at + ".nb", "is larger than n");
    e.gflops = j.contains("gflops") ? positive_field(j, at + ".gflops", "gflops", bad) : 0;
    t.entries.push_back(std::move(e));
  }
  return t;
}

void save_tiles(const TileTable& table, const std::string& path) {
  std::map<Key, TileEntry> merged;
  try {
    const TileTable old = load_tiles(path);
    if (old.blas == table.blas)
      for (const TileEntry& e : old.entries) merged[key_of(e)] = e;
  } catch (const std::exception&) {  // a broken or older file is replaced
  }
  for (const TileEntry& e : table.entries) merged[key_of(e)] = e;
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [k, e] : merged)
    list.push_back({{"routine", e.routine}, {"precision", std::string(1, e.precision)}, {"devices", e.devices},
                    {"n", e.n}, {"nb", e.nb}, {"gflops", e.gflops}});
  write_json_file(path, {{"version", kTilesVersion}, {"blas", table.blas}, {"tiles", std::move(list)}});
}

std::optional<int64_t> lookup(const TileTable& table, const std::string& routine, char precision,
                              const std::string& devices, int64_t n) {
  if (n < 1) return std::nullopt;
  const TileEntry* best = nullptr;
  double best_distance = std::log(2.0) + 1e-9;
  for (const TileEntry& e : table.entries) {
    if (e.routine != routine || e.precision != precision || e.devices != devices) continue;
    const double d = std::abs(std::log(static_cast<double>(n) / static_cast<double>(e.n)));
    if (d < best_distance) best_distance = d, best = &e;
  }
  if (!best) return std::nullopt;
  return std::min(best->nb, n);
}

std::optional<int64_t> largest_below(const TileTable& table, const std::string& routine, char precision,
                                     const std::string& devices, int64_t n) {
  const TileEntry* largest = nullptr;
  for (const TileEntry& e : table.entries)
    if (e.routine == routine && e.precision == precision && e.devices == devices && (!largest || e.n > largest->n))
      largest = &e;
  if (!largest || n <= largest->n) return std::nullopt;
  return largest->nb;
}

}  // namespace hetla::tune
