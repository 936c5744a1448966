#include "tune/json_file.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>

namespace hetla::tune {

std::string indexed(const std::string& field, std::size_t i) {
  std::string out = field;
  out.append("[").append(std::to_string(i)).append("]");
  return out;
}

nlohmann::json read_json_file(std::istream& in, const std::string& path, const std::string& what) {
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for 2e308 (found by fuzz_files)
    throw std::runtime_error(what + " " + path + ": not valid JSON (" + e.what() + ")");
  }
}

void check_version(const nlohmann::json& doc, const std::string& path, const std::string& what, int supported) {
  const FieldError bad{what + " " + path};
  if (!doc.is_object()) throw std::runtime_error(what + " " + path + ": not a JSON object");
  const auto it = doc.find("version");
  if (it == doc.end())
    throw bad("version", "is missing (written by an older hetla? run hetla tune again or delete the file)");
  if (!it->is_number_integer() || it->get<int64_t>() < 1) throw bad("version", "must be a positive integer");
  if (it->get<int64_t>() > supported)
    throw bad("version", std::to_string(it->get<int64_t>()) + " is newer than this hetla reads (" +
                             std::to_string(supported) + ")");
}

const nlohmann::json& member(const nlohmann::json& obj, const std::string& key, const FieldError& bad,
                             const std::string& field) {
  const auto it = obj.find(key);
  if (it == obj.end()) throw bad(field.empty() ? key : field, "is missing");
  return *it;
}

std::string string_field(const nlohmann::json& obj, const std::string& field, const std::string& key,
                         const FieldError& bad) {
  const nlohmann::json& v = member(obj, key, bad, field);
  if (!v.is_string()) throw bad(field, "must be a string");
  return v.get<std::string>();
}

std::string routine_field(const nlohmann::json& obj, const std::string& at, const FieldError& bad) {
  std::string r = string_field(obj, at + ".routine", "routine", bad);
  if (r != "potrf" && r != "getrf" && r != "geqrf")
    throw bad(at + ".routine", "'" + r + "' is not one of potrf, getrf, geqrf");
  return r;
}

char precision_field(const nlohmann::json& obj, const std::string& at, const FieldError& bad) {
  const std::string p = string_field(obj, at + ".precision", "precision", bad);
  if (p.size() != 1 || std::string("sdcz").find(p[0]) == std::string::npos)
    throw bad(at + ".precision", "'" + p + "' is not one of s, d, c, z");
  return p[0];
}

double positive_field(const nlohmann::json& obj, const std::string& field, const std::string& key,
                      const FieldError& bad) {
  const nlohmann::json& v = member(obj, key, bad, field);
  if (!v.is_number() || !(v.get<double>() > 0) || !std::isfinite(v.get<double>()))
    throw bad(field, "must be a positive number");
  return v.get<double>();
}

void write_json_file(const std::string& path, const nlohmann::json& doc) {
  const std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << doc.dump(2) << '\n';
    if (!f) throw std::runtime_error("cannot write " + tmp);
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace hetla::tune
