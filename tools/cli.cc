#include "cli.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
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

int64_t parse_int(std::string_view text, std::string_view what, int64_t lo, int64_t hi) {
  int64_t v = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (!text.empty() && *first == '+') ++first;
  auto [p, ec] = std::from_chars(first, last, v);
  if (text.empty() || ec == std::errc::invalid_argument || p != last)
    throw UsageError(std::string(what) + ": '" + std::string(text) + "' is not an integer");
  if (ec == std::errc::result_out_of_range || v < lo || v > hi)
    throw UsageError(std::string(what) + ": " + std::string(text) + " is out of range [" + std::to_string(lo) +
                     ", " + std::to_string(hi) + "]");
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

std::string_view ArgReader::next() {
  inline_value_.reset();
  std::string_view a = argv_[i_++];
  if (a.size() > 2 && a.substr(0, 2) == "--") {
    auto eq = a.find('=');
    if (eq != std::string_view::npos) {
      inline_value_ = a.substr(eq + 1);
      return a.substr(0, eq);
    }
  }
  return a;
}

std::string_view ArgReader::value(std::string_view opt) {
  if (inline_value_) {
    auto v = *inline_value_;
    inline_value_.reset();
    return v;
  }
  if (i_ >= argc_) throw UsageError("option " + std::string(opt) + " needs a value");
  return argv_[i_++];
}

void ArgReader::no_value(std::string_view opt) {
  if (inline_value_) throw UsageError("option " + std::string(opt) + " takes no value");
}

std::string json_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

std::string json_value(const Value& v) {
  if (std::holds_alternative<std::monostate>(v)) return "null";
  if (auto b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (auto i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (auto d = std::get_if<double>(&v)) {
    if (!std::isfinite(*d)) return "null";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", *d);
    return buf;
  }
  if (auto raw = std::get_if<RawJson>(&v)) return raw->text;
  return json_escape(std::get<std::string>(v));
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
  if (auto raw = std::get_if<RawJson>(&v)) return raw->text;
  return std::get<std::string>(v);
}
}  // namespace

void RecordPrinter::print(const Record& r) {
  if (json_) {
    std::string line = "{";
    for (std::size_t k = 0; k < r.fields.size(); ++k) {
      if (k) line += ',';
      line += json_escape(r.fields[k].key) + ':' + json_value(r.fields[k].value);
    }
    line += "}\n";
    std::fputs(line.c_str(), out_);
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
