// Versioned JSON files of the tuning layer (weights, split model): reading
// with messages that name the file and the field, and atomic writing.
// Internal: nlohmann-json stays out of the public headers.
#pragma once
#include <cstddef>
#include <iosfwd>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace hetla::tune {

/// Builds `<what> <path>: field "<field>" <why>` errors.
struct FieldError {
  std::string file;  // "weights file /path"
  std::runtime_error operator()(const std::string& field, const std::string& why) const {
    return std::runtime_error(file + ": field \"" + field + "\" " + why);
  }
};

/// "field[i]" (a field name for messages).
std::string indexed(const std::string& field, std::size_t i);
/// Parses the whole stream; throws "<what> <path>: not valid JSON (...)".
nlohmann::json read_json_file(std::istream& in, const std::string& path, const std::string& what);
/// Requires an object with an integer "version" in [1, supported].
void check_version(const nlohmann::json& doc, const std::string& path, const std::string& what, int supported);
/// obj[key], or throws naming `field` as missing.
const nlohmann::json& member(const nlohmann::json& obj, const std::string& key, const FieldError& bad,
                             const std::string& field = "");
std::string string_field(const nlohmann::json& obj, const std::string& field, const std::string& key,
                         const FieldError& bad);
/// A tuned routine's name: "potrf", "getrf" or "geqrf".
std::string routine_field(const nlohmann::json& obj, const std::string& at, const FieldError& bad);
/// A precision letter: 's', 'd', 'c' or 'z' (at.precision).
char precision_field(const nlohmann::json& obj, const std::string& at, const FieldError& bad);
/// A finite number > 0.
double positive_field(const nlohmann::json& obj, const std::string& field, const std::string& key,
                      const FieldError& bad);
/// Writes `doc` pretty-printed through a temporary file and a rename, so a
/// reader never sees half a file; creates the folder.
void write_json_file(const std::string& path, const nlohmann::json& doc);

}  // namespace hetla::tune
