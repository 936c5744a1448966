#include "tune/crossover_table.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <utility>

#include "tune/json_file.hpp"
#include "tune/tile_table.hpp"

namespace hetla::tune {

namespace {
constexpr int kCrossoverVersion = 1;
constexpr const char* kWhat = "crossover file";
}  // namespace

std::string crossover_path() { return (std::filesystem::path(tiles_path()).parent_path() / "crossover.json").string(); }

// {"version": 1, "blas": "OpenBLAS (...)", "crossovers": [{"routine": "potrf", "precision": "d", "n": 160}, ...]}
CrossoverTable load_crossovers(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};
  const nlohmann::json doc = read_json_file(in, path, kWhat);
  check_version(doc, path, kWhat, kCrossoverVersion);
  const FieldError bad{std::string(kWhat) + " " + path};
  CrossoverTable t;
  t.blas = string_field(doc, "blas", "blas", bad);
  const nlohmann::json& list = member(doc, "crossovers", bad);
  if (!list.is_array()) throw bad("crossovers", "must be an array");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = indexed("crossovers", i);
    const nlohmann::json& j = list[i];
    if (!j.is_object()) throw bad(at, "must be an object");
    CrossoverEntry e;
    e.routine = routine_field(j, at, bad);
    e.precision = precision_field(j, at, bad);
    const nlohmann::json& n = member(j, "n", bad, at + ".n");
    if (!n.is_number_integer() || n.get<int64_t>() < 0 || n.get<int64_t>() > 1000000)
      throw bad(at + ".n", "must be a whole number in [0, 1000000]");
    e.n = n.get<int64_t>();
    t.entries.push_back(std::move(e));
  }
  return t;
}

void save_crossovers(const CrossoverTable& table, const std::string& path) {
  std::map<std::pair<std::string, char>, int64_t> merged;
  try {
    const CrossoverTable old = load_crossovers(path);
    if (old.blas == table.blas)
      for (const CrossoverEntry& e : old.entries) merged[{e.routine, e.precision}] = e.n;
  } catch (const std::exception&) {  // a broken or older file is replaced
  }
  for (const CrossoverEntry& e : table.entries) merged[{e.routine, e.precision}] = e.n;
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [k, n] : merged)
    list.push_back({{"routine", k.first}, {"precision", std::string(1, k.second)}, {"n", n}});
  write_json_file(path, {{"version", kCrossoverVersion}, {"blas", table.blas}, {"crossovers", std::move(list)}});
}

}  // namespace hetla::tune
