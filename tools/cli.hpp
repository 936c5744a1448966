// Shared pieces of the `hetla` command-line tool: usage errors, value checks
// (the commands' options are parsed by CLI11 through options.hpp) and result
// records printed either as aligned table lines or as one JSON object per
// line (nlohmann-json, keys in insertion order).
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetla::cli {

/// A mistake on the command line: reported on stderr, exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;  // a check failed or the library reported an error
inline constexpr int kExitUsage = 2;

/// Seconds on a monotonic clock.
inline double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// MemAvailable from /proc/meminfo (free physical memory if unreadable).
double available_memory_bytes();
/// Throws std::runtime_error "<what> needs about X GiB of memory, Y GiB
/// available" when `bytes` exceeds the available memory.
void check_memory(double bytes, const std::string& what);

// ---- errors ---------------------------------------------------------------------

/// True if the command line asks for JSON output (an argument "--json"):
/// errors are then also printed on stdout as one JSON object.
bool wants_json(int argc, char** argv);
/// Reports an error: "hetla: <prefix><message>" on stderr and, with `json`,
/// {"error": "<message>", <extra fields>} on stdout (one line).
void print_error(bool json, const std::string& message, const std::string& prefix = "",
                 const nlohmann::ordered_json& extra = nlohmann::ordered_json::object());

// ---- values ---------------------------------------------------------------------

/// Why `path` cannot be created or overwritten ("'<path>' cannot be
/// written: reason"), or "" when it can (its folder exists and is writable,
/// or it is a writable file). Creates nothing.
std::string output_path_problem(const std::string& path);
/// Throws UsageError "<what>: <output_path_problem>" unless `path` can be written.
void check_output_path(const std::string& path, std::string_view what);

/// Why `text` is not a whole decimal integer in [lo, hi] ("1e7" is one), or
/// "" when it is, with its value in `v`.
std::string int_problem(std::string_view text, int64_t lo, int64_t hi, int64_t& v);
/// Parses a whole decimal integer in [lo, hi]; `what` names it in the message.
int64_t parse_int(std::string_view text, std::string_view what, int64_t lo, int64_t hi);
/// Comma-separated integers, each in [lo, hi] ("2000,4000").
std::vector<int64_t> parse_int_list(std::string_view text, std::string_view what, int64_t lo, int64_t hi);
std::vector<std::string_view> split(std::string_view text, char sep);

// ---- JSON and result records -------------------------------------------------

using Json = nlohmann::ordered_json;  // keys stay in the order they were added

/// Nested JSON (an array or object) as a record value.
struct RawJson {
  Json value;
};

using Value = std::variant<std::monostate, bool, int64_t, double, std::string, RawJson>;  // monostate = null

/// The JSON of a value; non-finite doubles become null (JSON has no inf/nan).
Json to_json(const Value& v);
/// A double as JSON: null when not finite.
Json json_number(double d);

struct Field {
  std::string key;    // JSON key
  Value value;
  std::string label;  // table column title ("" = key; "-" = JSON only)
  int width = 0;      // minimum table column width
  int decimals = -1;  // doubles in the table: fixed decimals, or -1 for 3 significant digits
};

/// One measured configuration.
struct Record {
  std::vector<Field> fields;
  bool failed = false;  // a check failed or info != 0: the command exits with 1
  Record& add(std::string key, Value v, std::string label = "", int width = 0, int decimals = -1) {
    fields.push_back({std::move(key), std::move(v), std::move(label), width, decimals});
    return *this;
  }
};

/// Prints records as they come: JSON lines, or a table whose header is
/// repeated whenever the set of columns changes.
class RecordPrinter {
 public:
  explicit RecordPrinter(bool json, std::FILE* out = stdout) : json_(json), out_(out) {}
  void print(const Record& r);

 private:
  bool json_;
  std::FILE* out_;
  std::vector<std::string> header_keys_;
};

// ---- commands -------------------------------------------------------------------
int cmd_info(int argc, char** argv, int first);
int cmd_bench(int argc, char** argv, int first);
int cmd_demo(int argc, char** argv, int first);
int cmd_tune(int argc, char** argv, int first);
int cmd_simulate(int argc, char** argv, int first);

}  // namespace hetla::cli
