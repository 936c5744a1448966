#include "cli.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <sys/stat.h>
#include <unistd.h>


namespace hetla::cli {

double available_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kb = 0;
  while (in >> key >> kb) {
    if (key == "MemAvailable:") return kb * 1024.0;
    in.ignore(256, '\n');
  }
  return static_cast<double>(sysconf(_SC_AVPHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

void check_memory(double bytes, const std::string& what) {
  const double have = available_memory_bytes();
  if (bytes <= have) return;
  char msg[160];
  std::snprintf(msg, sizeof msg, " needs about %.1f GiB of memory, %.1f GiB available", bytes / 1073741824.0,
                have / 1073741824.0);
  throw std::runtime_error(what + msg);
}

bool wants_json(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--json") return true;
  return false;
}

void print_error(bool json, const std::string& message, const std::string& prefix, const Json& extra) {
  std::fprintf(stderr, "hetla: %s%s\n", prefix.c_str(), message.c_str());
  if (!json) return;
  Json line = {{"error", message}};
  for (const auto& [key, value] : extra.items()) line[key] = value;
  std::printf("%s\n", line.dump(-1, ' ', false, Json::error_handler_t::replace).c_str());
  std::fflush(stdout);
}

std::string output_path_problem(const std::string& path) {
  auto problem = [&](const std::string& reason) {
    std::string s = "'";  // built by appends: GCC 12 warns (-Wrestrict) on "'" + path
    s += path;
    s += "' cannot be written: ";
    s += reason;
    return s;
  };
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return problem("it is a directory");
    if (::access(path.c_str(), W_OK) != 0) return problem(std::strerror(errno));
    return "";
  }
  const std::size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  if (::stat(dir.c_str(), &st) != 0) return problem("folder '" + dir + "': " + std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) return problem("'" + dir + "' is not a folder");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return problem("folder '" + dir + "': " + std::strerror(errno));
  return "";
}

void check_output_path(const std::string& path, std::string_view what) {
  const std::string problem = output_path_problem(path);
  if (!problem.empty()) throw UsageError(std::string(what) + ": " + problem);
}

std::string int_problem(std::string_view text, int64_t lo, int64_t hi, int64_t& v) {
  v = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (!text.empty() && *first == '+') ++first;
  auto [p, ec] = std::from_chars(first, last, v);
  bool out_of_range = ec == std::errc::result_out_of_range;
  if (!text.empty() && p != last && (*p == 'e' || *p == 'E') && ec == std::errc()) {
    // 1e7, 2E3: an integer in scientific notation
    int64_t e = 0;
    auto [q, ec2] = std::from_chars(p + 1, last, e);
    if (ec2 == std::errc() && q == last && e >= 0) {
      p = q;
      // 0e9223372036854775807 is 0: without the v != 0 test this loop ran
      // 2^63 times (a fuzz_cli timeout in CI)
      for (; e > 0 && v != 0 && !out_of_range; --e) {
        if (v > std::numeric_limits<int64_t>::max() / 10 || v < std::numeric_limits<int64_t>::min() / 10)
          out_of_range = true;
        else
          v *= 10;
      }
    }
  }
  if (text.empty() || ec == std::errc::invalid_argument || p != last)
    return std::string(1, '\'').append(text).append("' is not an integer");  // not "'" + s: GCC 12 -Wrestrict
  if (out_of_range || v < lo || v > hi)
    return std::string(text) + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  return "";
}

int64_t parse_int(std::string_view text, std::string_view what, int64_t lo, int64_t hi) {
  int64_t v = 0;
  const std::string problem = int_problem(text, lo, hi, v);
  if (!problem.empty()) throw UsageError(std::string(what) + ": " + problem);
  return v;
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    std::size_t p = text.find(sep, start);
    out.push_back(text.substr(start, p == std::string_view::npos ? std::string_view::npos : p - start));
    if (p == std::string_view::npos) break;
    start = p + 1;
  }
  return out;
}

std::vector<int64_t> parse_int_list(std::string_view text, std::string_view what, int64_t lo, int64_t hi) {
  std::vector<int64_t> out;
  for (auto item : split(text, ',')) out.push_back(parse_int(item, what, lo, hi));
  return out;
}

Json json_number(double d) { return std::isfinite(d) ? Json(d) : Json(nullptr); }

Json to_json(const Value& v) {
  if (std::holds_alternative<std::monostate>(v)) return nullptr;
  if (auto b = std::get_if<bool>(&v)) return *b;
  if (auto i = std::get_if<int64_t>(&v)) return *i;
  if (auto d = std::get_if<double>(&v)) return json_number(*d);
  if (auto raw = std::get_if<RawJson>(&v)) return raw->value;
  return std::get<std::string>(v);
}

namespace {
std::string table_value(const Field& f) {
  const Value& v = f.value;
  if (std::holds_alternative<std::monostate>(v)) return "-";
  if (auto b = std::get_if<bool>(&v)) return *b ? "yes" : "NO";
  if (auto i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (auto d = std::get_if<double>(&v)) {
    char buf[32];
    if (!std::isfinite(*d)) return std::isnan(*d) ? "nan" : "inf";
    if (f.decimals >= 0) std::snprintf(buf, sizeof buf, "%.*f", f.decimals, *d);
    else std::snprintf(buf, sizeof buf, "%.2e", *d);
    return buf;
  }
  if (auto raw = std::get_if<RawJson>(&v)) return raw->value.dump();
  return std::get<std::string>(v);
}
}  // namespace

void RecordPrinter::print(const Record& r) {
  if (json_) {
    Json line = Json::object();
    for (const auto& f : r.fields) line[f.key] = to_json(f.value);
    // Invalid UTF-8 (a device name from a driver) is replaced, not thrown on.
    std::fputs((line.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n").c_str(), out_);
    std::fflush(out_);
    return;
  }
  std::vector<std::string> keys;
  std::string header, row;
  for (const auto& f : r.fields) {
    if (f.label == "-") continue;
    keys.push_back(f.key);
    const std::string& title = f.label.empty() ? f.key : f.label;
    const int w = std::max<int>(f.width, static_cast<int>(title.size()));
    char buf[128];
    std::snprintf(buf, sizeof buf, "%s%*s", header.empty() ? "" : "  ", w, title.c_str());
    header += buf;
    std::snprintf(buf, sizeof buf, "%s%*s", row.empty() ? "" : "  ", w, table_value(f).c_str());
    row += buf;
  }
  if (keys != header_keys_) {
    std::fprintf(out_, "%s\n", header.c_str());
    header_keys_ = keys;
  }
  std::fprintf(out_, "%s\n", row.c_str());
  std::fflush(out_);
}

}  // namespace hetla::cli
