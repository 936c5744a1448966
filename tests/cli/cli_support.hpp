// Shared helpers of the hetla CLI tests (hetla_cli_test): running the CLI as a
// child process, reading its output and JSON lines, temporary directories.
#pragma once

#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include <stdlib.h>

#include <nlohmann/json.hpp>

namespace hetla_cli_test {

using Json = nlohmann::json;

struct Result {
  int rc = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

/// The contents of the file at `path` ("" if it cannot be read).
std::string slurp(const std::string& path);

/// Runs a shell command line; stdout through the pipe, stderr into a
/// temporary file.
Result run_shell(const std::string& command);

/// Runs `PREFIX hetla ARGS` (a prefix such as "taskset -c 1" or "VAR=x").
Result run(const std::string& args, const std::string& prefix = "");

/// The non-empty lines of `s`.
std::vector<std::string> lines(const std::string& s);

/// Parses one JSON line (strictly) into key -> value text: strings without
/// their quotes, numbers, true/false/null and nested arrays/objects as written.
std::map<std::string, std::string> flat_object(const std::string& line);

/// flat_object of every line of `out`.
std::vector<std::map<std::string, std::string>> json_lines(const std::string& out);

/// The keys of every JSON line of `bench` for a linear-algebra routine.
extern const std::vector<std::string> kLinalgKeys;

bool is_positive_number(const std::string& v);

/// A fresh temporary directory, removed with its contents afterwards.
struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/hetla_cli_trace_XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

}  // namespace hetla_cli_test
