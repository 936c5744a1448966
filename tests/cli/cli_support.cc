// Shared helpers of the hetla CLI tests; see cli_support.hpp.
#include "cli_support.hpp"

#include <sys/wait.h>

#include <unistd.h>

#include <cstdio>
#include <sstream>

namespace hetla_cli_test {

std::string slurp(const std::string& path) {
  std::string s;
  if (std::FILE* f = std::fopen(path.c_str(), "r")) {
    char buf[4096];
    std::size_t k;
    while ((k = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, k);
    std::fclose(f);
  }
  return s;
}

/// Runs `PREFIX hetla ARGS` (a prefix such as "taskset -c 1" or "VAR=x");
/// stdout through the pipe, stderr into a temporary file.
Result run_shell(const std::string& command) {
  char tmpl[] = "/tmp/hetla_cli_test_XXXXXX";
  const int fd = mkstemp(tmpl);
  if (fd < 0) throw std::runtime_error("mkstemp failed");
  close(fd);
  const std::string cmd = command + " 2>" + tmpl;
  Result r;
  std::FILE* p = popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("popen failed");
  char buf[4096];
  std::size_t k;
  while ((k = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, k);
  const int status = pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  r.err = slurp(tmpl);
  std::remove(tmpl);
  return r;
}

Result run(const std::string& args, const std::string& prefix) {
  return run_shell(prefix + " '" + HETLA_CLI_PATH + "' " + args);
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string l;
  while (std::getline(in, l))
    if (!l.empty()) out.push_back(l);
  return out;
}

std::map<std::string, std::string> flat_object(const std::string& line) {
  const Json v = Json::parse(line);
  if (!v.is_object()) throw std::runtime_error("not a JSON object: " + line);
  std::map<std::string, std::string> m;
  for (const auto& [key, value] : v.items()) m[key] = value.is_string() ? value.get<std::string>() : value.dump();
  return m;
}

std::vector<std::map<std::string, std::string>> json_lines(const std::string& out) {
  std::vector<std::map<std::string, std::string>> v;
  for (const auto& l : lines(out)) v.push_back(flat_object(l));
  return v;
}

const std::vector<std::string> kLinalgKeys = {
    "routine",         "precision", "m",        "n",         "nrhs",        "nb",     "uplo",
    "threads",         "seconds",   "gflops",   "residual",  "residual_ok", "info",   "baseline_seconds",
    "baseline_gflops", "ratio",     "busy_pct", "imbalance", "workers",     "kernels"};

bool is_positive_number(const std::string& v) {
  if (v == "null" || v == "true" || v == "false" || v.empty()) return false;
  return std::stod(v) > 0;
}

}  // namespace hetla_cli_test
