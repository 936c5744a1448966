// Runs the hetla CLI as a child process and checks exit codes and output.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cctype>
#include <cstdio>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "hetla/version.hpp"

namespace {

struct Result {
  int rc = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

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

/// Runs `hetla ARGS`; stdout through the pipe, stderr into a temporary file.
Result run(const std::string& args) {
  char tmpl[] = "/tmp/hetla_cli_test_XXXXXX";
  const int fd = mkstemp(tmpl);
  if (fd < 0) throw std::runtime_error("mkstemp failed");
  close(fd);
  const std::string cmd = std::string("'") + HETLA_CLI_PATH + "' " + args + " 2>" + tmpl;
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

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string l;
  while (std::getline(in, l))
    if (!l.empty()) out.push_back(l);
  return out;
}

/// Strict parser for one flat JSON object (values: string, number, true,
/// false, null). Returns key -> value text (strings without quotes); throws
/// on malformed input or duplicate keys.
class FlatJson {
 public:
  explicit FlatJson(const std::string& s) : s_(s) {}
  std::map<std::string, std::string> parse() {
    std::map<std::string, std::string> m;
    ws();
    expect('{');
    ws();
    if (peek() == '}') {
      ++i_;
    } else {
      while (true) {
        ws();
        std::string key = string();
        ws();
        expect(':');
        ws();
        std::string v = value();
        if (!m.emplace(key, v).second) fail("duplicate key " + key);
        ws();
        if (peek() == ',') {
          ++i_;
          continue;
        }
        expect('}');
        break;
      }
    }
    ws();
    if (i_ != s_.size()) fail("trailing characters");
    return m;
  }

 private:
  [[noreturn]] void fail(const std::string& what) {
    throw std::runtime_error("bad JSON (" + what + ") at " + std::to_string(i_) + ": " + s_);
  }
  char peek() { return i_ < s_.size() ? s_[i_] : '\0'; }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected ") + c);
    ++i_;
  }
  void ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  std::string string() {
    expect('"');
    std::string out;
    while (peek() != '"') {
      if (i_ >= s_.size()) fail("unterminated string");
      char c = s_[i_++];
      if (c == '\\') {
        char e = s_[i_++];
        if (e == 'u') {
          i_ += 4;
          out += '?';
        } else {
          out += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
        }
      } else {
        out += c;
      }
    }
    ++i_;
    return out;
  }
  std::string value() {
    if (peek() == '"') return string();
    for (const char* lit : {"true", "false", "null"})
      if (s_.compare(i_, std::string(lit).size(), lit) == 0) {
        i_ += std::string(lit).size();
        return lit;
      }
    const std::size_t start = i_;
    if (peek() == '-') ++i_;
    if (!std::isdigit(static_cast<unsigned char>(peek()))) fail("expected a value");
    while (std::isdigit(static_cast<unsigned char>(peek())) || peek() == '.' || peek() == 'e' || peek() == 'E' ||
           peek() == '+' || peek() == '-')
      ++i_;
    std::string num = s_.substr(start, i_ - start);
    std::size_t used = 0;
    (void)std::stod(num, &used);
    if (used != num.size()) fail("bad number " + num);
    return num;
  }
  const std::string& s_;
  std::size_t i_ = 0;
};

std::vector<std::map<std::string, std::string>> json_lines(const std::string& out) {
  std::vector<std::map<std::string, std::string>> v;
  for (const auto& l : lines(out)) v.push_back(FlatJson(l).parse());
  return v;
}

const std::vector<std::string> kLinalgKeys = {
    "routine", "precision", "m",        "n",           "nrhs", "nb",
    "uplo",    "threads",   "seconds",  "gflops",      "residual", "residual_ok",
    "info",    "baseline_seconds", "baseline_gflops", "ratio"};

bool is_positive_number(const std::string& v) {
  if (v == "null" || v == "true" || v == "false" || v.empty()) return false;
  return std::stod(v) > 0;
}

void check_checked_lines(const Result& r, const std::string& routine, const std::vector<std::string>& precisions,
                         const std::string& uplo, bool baseline) {
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  auto recs = json_lines(r.out);
  ASSERT_EQ(recs.size(), precisions.size()) << r.out;
  for (std::size_t k = 0; k < recs.size(); ++k) {
    auto& j = recs[k];
    for (const auto& key : kLinalgKeys) EXPECT_TRUE(j.count(key)) << "missing key " << key << " in " << r.out;
    EXPECT_EQ(j["routine"], routine);
    EXPECT_EQ(j["precision"], precisions[k]);
    EXPECT_EQ(j["uplo"], uplo);
    EXPECT_EQ(j["residual_ok"], "true") << r.out;
    EXPECT_EQ(j["info"], "0");
    EXPECT_TRUE(is_positive_number(j["residual"]) || j["residual"] == "0") << j["residual"];
    EXPECT_LT(std::stod(j["residual"]), 30.0);
    EXPECT_TRUE(is_positive_number(j["seconds"]));
    EXPECT_TRUE(is_positive_number(j["gflops"]));
    EXPECT_TRUE(is_positive_number(j["threads"]));
    if (baseline) {
      EXPECT_TRUE(is_positive_number(j["baseline_seconds"]));
      EXPECT_TRUE(is_positive_number(j["baseline_gflops"]));
      EXPECT_NEAR(std::stod(j["ratio"]), std::stod(j["baseline_seconds"]) / std::stod(j["seconds"]),
                  1e-3 * std::stod(j["ratio"]) + 1e-6);
    } else {
      EXPECT_EQ(j["ratio"], "null");
      EXPECT_EQ(j["baseline_seconds"], "null");
    }
  }
}

TEST(Cli, InfoReportsMachineAndDevices) {
  auto r = run("info");
  ASSERT_EQ(r.rc, 0) << r.err;
  for (const char* s : {"cpu:", "cores:", "hwloc:", "blas:", "workers:", "devices:", "no accelerator backends built",
                        HETLA_VERSION_STRING})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  auto j = run("info --json");
  ASSERT_EQ(j.rc, 0);
  auto recs = json_lines(j.out);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_TRUE(is_positive_number(recs[0]["cores"]));
  EXPECT_EQ(recs[0]["devices"], "cpu");
}

TEST(Cli, VersionAndHelp) {
  auto v = run("version");
  EXPECT_EQ(v.rc, 0);
  EXPECT_EQ(v.out, std::string("hetla ") + HETLA_VERSION_STRING + "\n");
  auto h = run("--help");
  EXPECT_EQ(h.rc, 0);
  for (const char* s : {"info", "bench", "demo", "version"}) EXPECT_NE(h.out.find(s), std::string::npos) << s;
  auto b = run("bench --help");
  EXPECT_EQ(b.rc, 0);
  for (const char* s : {"potrf", "potrs", "posv", "runtime", "--repeat", "best (minimum)", "30"})
    EXPECT_NE(b.out.find(s), std::string::npos) << s;
}

TEST(Cli, PotrfAllPrecisionsLower) {
  auto r = run("bench potrf -n 300 --nb 64 --check --baseline --json --precision s,d,c,z --uplo L");
  check_checked_lines(r, "potrf", {"s", "d", "c", "z"}, "L", true);
  for (auto& j : json_lines(r.out)) {
    EXPECT_EQ(j["n"], "300");
    EXPECT_EQ(j["m"], "300");
    EXPECT_EQ(j["nb"], "64");
    EXPECT_EQ(j["nrhs"], "0");
  }
}

TEST(Cli, PotrfAllPrecisionsUpper) {
  auto r = run("bench potrf -n 300 --nb 64 --check --baseline --json --precision s,d,c,z --uplo U");
  check_checked_lines(r, "potrf", {"s", "d", "c", "z"}, "U", true);
}

TEST(Cli, PosvAndPotrsCheck) {
  auto posv = run("bench posv -n 250 --nrhs 7 --check --json --precision d,c --uplo U --repeat 2");
  check_checked_lines(posv, "posv", {"d", "c"}, "U", false);
  auto potrs = run("bench potrs -n 250 --nrhs 7 --check --baseline --json --precision s,z");
  check_checked_lines(potrs, "potrs", {"s", "z"}, "L", true);
  for (auto& j : json_lines(potrs.out)) EXPECT_EQ(j["nrhs"], "7");
}

TEST(Cli, SizeListAndUncheckedResidual) {
  auto r = run("bench potrf -n 150,200 --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  auto recs = json_lines(r.out);
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0]["n"], "150");
  EXPECT_EQ(recs[1]["n"], "200");
  for (auto& j : recs) {
    EXPECT_EQ(j["residual"], "null");
    EXPECT_EQ(j["precision"], "d");
    EXPECT_TRUE(is_positive_number(j["nb"]));
  }
}

TEST(Cli, TableOutput) {
  auto r = run("bench posv -n 200 --check --baseline");
  ASSERT_EQ(r.rc, 0) << r.err;
  auto ls = lines(r.out);
  ASSERT_EQ(ls.size(), 2u) << r.out;  // header + one row
  EXPECT_NE(ls[0].find("gflops"), std::string::npos);
  EXPECT_NE(ls[0].find("ratio"), std::string::npos);
  EXPECT_NE(ls[1].find("posv"), std::string::npos);
  EXPECT_NE(ls[1].find("yes"), std::string::npos);
}

TEST(Cli, RuntimeOverhead) {
  auto r = run("bench runtime -n 20000 --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  auto recs = json_lines(r.out);
  ASSERT_EQ(recs.size(), 1u);
  auto& j = recs[0];
  EXPECT_EQ(j["ntasks"], "20000");
  for (const char* k : {"us_per_task", "chain_us_per_task", "fan_us_per_task", "fanout_us_per_task", "threads"})
    EXPECT_TRUE(is_positive_number(j[k])) << k << " in " << r.out;
  const double worst = std::stod(j["us_per_task"]);
  EXPECT_GE(worst, std::stod(j["chain_us_per_task"]));
  EXPECT_GE(worst, std::stod(j["fan_us_per_task"]));
}

TEST(Cli, SmallDemoPasses) {
  auto r = run("demo -n 400 --nrhs 3");
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("PASSED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("LAPACK dposv"), std::string::npos);
  EXPECT_NE(r.err.find("hetla posv n=400"), std::string::npos) << r.err;
}

TEST(Cli, UsageErrorsExitWith2) {
  for (const char* args :
       {"", "frobnicate", "bench", "bench nosuchroutine", "bench potrf --bogus", "bench potrf -n", "bench potrf -n x",
        "bench potrf -n 0", "bench potrf -n 100,-5", "bench potrf --precision q", "bench potrf --uplo X",
        "bench potrf --nrhs 3", "bench potrf --check=yes", "bench runtime --precision d", "bench potrf extra arg",
        "bench posv --repeat 0", "info --bogus", "demo --bogus", "version extra"}) {
    auto r = run(args);
    EXPECT_EQ(r.rc, 2) << "hetla " << args << "\n" << r.out << r.err;
    EXPECT_FALSE(r.err.empty()) << "no message for: hetla " << args;
  }
}

}  // namespace
