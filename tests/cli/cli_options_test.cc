// hetla CLI: info, version and help, invalid values, usage and JSON errors,
// memory checks and progress output.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetla/version.hpp"

#include "cli_support.hpp"

using namespace hetla_cli_test;

namespace {

TEST(Cli, InfoReportsMachineAndDevices) {
  auto r = run("info");
  ASSERT_EQ(r.rc, 0) << r.err;
  for (const char* s :
       {"cpu:", "cores:", "hwloc:", "blas:", "workers:", "backends:", "devices:", "cpu:0", HETLA_VERSION_STRING})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  auto j = run("info --json");
  ASSERT_EQ(j.rc, 0);
  auto recs = json_lines(j.out);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_TRUE(is_positive_number(recs[0]["cores"]));
  EXPECT_NE(recs[0]["backends"].find("cpu"), std::string::npos) << j.out;
  const Json info = Json::parse(lines(j.out).at(0));
  const auto& devices = info.at("devices");
  ASSERT_FALSE(devices.empty()) << j.out;
  EXPECT_EQ(devices[0].at("kind").get<std::string>(), "cpu");  // the host comes first
}

TEST(Cli, VersionAndHelp) {
  auto v = run("version");
  EXPECT_EQ(v.rc, 0);
  EXPECT_EQ(v.out, std::string("hetla ") + HETLA_VERSION_STRING + "\n");
  auto dv = run("--version");
  EXPECT_EQ(dv.rc, 0);
  EXPECT_EQ(dv.out, v.out);
  auto h = run("--help");
  EXPECT_EQ(h.rc, 0);
  for (const char* s : {"info", "bench", "demo", "tune", "version", "--version", "Exit status"})
    EXPECT_NE(h.out.find(s), std::string::npos) << s;
  auto help = run("help");
  EXPECT_EQ(help.rc, 0);
  EXPECT_EQ(help.out, h.out);
  auto unknown = run("frobnicate");
  EXPECT_EQ(unknown.rc, 2);
  EXPECT_NE(unknown.err.find("unknown command 'frobnicate'"), std::string::npos) << unknown.err;
  for (const char* cmd : {"info", "demo", "tune"}) {  // every command has its own help
    auto c = run(std::string(cmd) + " --help");
    EXPECT_EQ(c.rc, 0) << cmd;
    EXPECT_NE(c.out.find(std::string("usage: hetla ") + cmd), std::string::npos) << c.out;
  }
  auto b = run("bench --help");
  EXPECT_EQ(b.rc, 0);
  for (const char* s : {"potrf", "potrs", "posv", "runtime", "--repeat", "best (minimum)", "30"})
    EXPECT_NE(b.out.find(s), std::string::npos) << s;
}

// With --json every error is one JSON object {"error": ...} on stdout and the
// exit status is not 0 (a script never gets an empty stdout).
TEST(Cli, JsonErrorsAreJsonObjectsOnStdout) {
  for (const char* args :
       {"bench potrf -n -5 --json", "bench nosuchroutine --json", "bench potrf --bogus --json",
        "bench potrf -n x --json", "bench potrf --devices '' --json", "bench --json", "info --bogus --json",
        "bench potrf -n 200 --json --trace /nonexistent-hetla-dir/t.svg", "bench potrf -n 10000000 --json",
        "bench potrf --devices nosuchdevice --json", "version --json", "bench potrf -n abc --json",
        "bench potrf --devices emu:speed=3 --json", "tune --devices cpu,,emu --json", "tune --nb 1 --json",
        "demo --bogus --json", "simulate potrf -n -5 --json", "bench potrf --calls 0 --json"}) {
    auto r = run(args);
    EXPECT_NE(r.rc, 0) << "hetla " << args;
    const auto out = lines(r.out);
    ASSERT_EQ(out.size(), 1u) << "hetla " << args << "\n" << r.out << r.err;
    auto obj = flat_object(out[0]);
    ASSERT_TRUE(obj.count("error")) << out[0];
    EXPECT_FALSE(obj["error"].empty()) << out[0];
    EXPECT_FALSE(r.err.empty()) << "hetla " << args;  // and the message on stderr as before
  }
}

TEST(Cli, EmptyDeviceListIsRejected) {
  for (const char* args : {"bench potrf -n 100 --devices ''", "bench potrf -n 100 --devices ' '",
                           "bench potrf -n 100 --devices cpu,,emu", "tune --devices ''"}) {
    auto r = run(args);
    EXPECT_EQ(r.rc, 2) << "hetla " << args << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find("--devices: empty"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

// Sizes are checked against the available memory before anything is
// allocated; the message names the size and the memory. 1e7 is a size too.
TEST(Cli, SizesAreCheckedAgainstMemory) {
  for (const char* args : {"bench potrf -n 10000000", "bench potrf -n 1e7 --json", "bench runtime -n 1e9",
                           "bench potrf -n 100,10000000", "bench gemm -n 3000000"}) {
    auto r = run(args);
    EXPECT_EQ(r.rc, 1) << "hetla " << args << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(" n="), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("GiB of memory"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("GiB available"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("\"routine\""), std::string::npos) << "ran before the check: " << r.out;
  }
}

// demo and tune --split check their sizes before allocating too.
TEST(Cli, DemoAndTuneSizesAreCheckedAgainstMemory) {
  for (const char* args : {"demo -n 1000000 --nrhs 1", "tune --split -n 100000 --dry-run"}) {
    auto r = run(args);
    EXPECT_EQ(r.rc, 1) << "hetla " << args << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(" n="), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("GiB of memory"), std::string::npos) << r.err;
  }
}

// Progress lines ("\r...") go to a terminal only: piped or redirected output
// has none, with or without --quiet.
TEST(Cli, PipedOutputHasNoProgress) {
  for (const char* args :
       {"bench potrf -n 200,300 --repeat 2", "bench potrf -n 200 --quiet --json", "demo -n 300 --nrhs 2 --quiet"}) {
    auto r = run(args);
    ASSERT_EQ(r.rc, 0) << "hetla " << args << "\n" << r.out << r.err;
    EXPECT_EQ(r.out.find('\r'), std::string::npos) << "hetla " << args;
    EXPECT_EQ(r.err.find('\r'), std::string::npos) << "hetla " << args;
  }
  auto q = run("demo -n 300 --nrhs 2 --quiet");
  EXPECT_TRUE(q.err.empty()) << q.err;  // --quiet: not even the step lines
  auto h = run("bench --help");
  EXPECT_NE(h.out.find("--quiet"), std::string::npos);
}

// A terminal (script(1) gives the child one) gets the progress line, erased
// before the results.
TEST(Cli, TerminalGetsProgress) {
  if (std::system("script -qc true /dev/null >/dev/null 2>&1") != 0) GTEST_SKIP() << "no script(1)";
  auto r = run_shell("script -qc \"'" + std::string(HETLA_CLI_PATH) + "' bench potrf -n 200,300\" /dev/null");
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("\rhetla bench potrf: n=200 precision d 1/2"), std::string::npos) << r.out;
  auto quiet =
      run_shell("script -qc \"'" + std::string(HETLA_CLI_PATH) + "' bench potrf -n 200,300 --quiet\" /dev/null");
  EXPECT_EQ(quiet.out.find("hetla bench potrf: n="), std::string::npos) << quiet.out;
}

/// Runs `hetla ARGS` with a terminal for stdout and stderr (script(1)); the
/// exit status is the command's.
Result run_on_terminal(const std::string& args) {
  return run_shell("script -qec \"'" + std::string(HETLA_CLI_PATH) + "' " + args + "\" /dev/null");
}

/// The times of the progress lines "\r<prefix>...  T s" in `out`, in order.
std::vector<double> progress_times(const std::string& out, const std::string& prefix) {
  std::vector<double> times;
  for (std::size_t p = out.find("\r" + prefix); p != std::string::npos; p = out.find("\r" + prefix, p + 1)) {
    const std::size_t end = out.find(" s", out.find("  ", p + 1 + prefix.size()));
    const std::size_t start = out.rfind(' ', end - 1);
    if (end == std::string::npos || start == std::string::npos || start < p) continue;
    times.push_back(std::stod(out.substr(start + 1, end - start - 1)));
  }
  return times;
}

// One long configuration still moves the time on its progress line (a
// ticker redraws it ~4 times a second); the line is gone before the results.
TEST(Cli, TerminalProgressTicksInsideOneLongRun) {
  if (std::system("script -qec true /dev/null >/dev/null 2>&1") != 0) GTEST_SKIP() << "no script(1)";
  const double t0 = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  auto r = run_on_terminal("bench potrf -n 1500 --repeat 15 --check");
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count() - t0;
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  const auto times = progress_times(r.out, "hetla bench potrf: n=1500 precision d, best of 15");
  ASSERT_FALSE(times.empty()) << r.out;
  if (wall > 1.5) {  // the configuration lasted over a second: several redraws, later times
    EXPECT_GE(times.size(), 3u) << r.out;
    EXPECT_GT(times.back(), times.front()) << r.out;
  }
  EXPECT_NE(r.out.find("  yes  "), std::string::npos) << r.out;  // the table's residual check
  // demo: each step stays on its own line with its time
  auto d = run_on_terminal("demo -n 500 --nrhs 2");
  ASSERT_EQ(d.rc, 0) << d.out << d.err;
  EXPECT_NE(d.out.find("[2/3] hetla posv n=500, then its residual ..."), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("PASSED"), std::string::npos) << d.out;
  // an error after the line was drawn: the ticker is joined, the usage error reported
  auto e = run_on_terminal("bench potrf -n 200 --devices cuda:7");
  EXPECT_EQ(e.rc, 2) << e.out << e.err;
  EXPECT_NE(e.out.find("--devices"), std::string::npos) << e.out;
  EXPECT_EQ(e.out.find("terminate"), std::string::npos) << e.out;
}

/// The line of `help` that documents `option` (it starts "  <option>" or
/// "  -x,<option>"), with the lines of its description that follow it.
std::string help_entry(const std::string& help, const std::string& option) {
  const auto ls = lines(help);
  for (std::size_t i = 0; i < ls.size(); ++i) {
    const std::string& l = ls[i];
    const bool match = l.rfind("  " + option + " ", 0) == 0 || l == "  " + option ||
                       (l.size() > 5 && l.rfind("  -", 0) == 0 && l[4] == ',' &&
                        (l.compare(5, option.size() + 1, option + " ") == 0 || l.substr(5) == option));
    if (!match) continue;
    std::string entry = l;
    for (std::size_t j = i + 1; j < ls.size() && ls[j].rfind("    ", 0) == 0 && ls[j].find_first_not_of(' ') > 4; ++j)
      entry += "\n" + ls[j];
    return entry;
  }
  return "";
}

// Every command's --help lists its options with their defaults.
TEST(Cli, CommandHelpShowsOptionsAndDefaults) {
  struct Expect {
    const char* command;
    const char* option;
    const char* text;  // in the option's entry
  };
  const Expect expects[] = {
      {"bench", "-n", "[default: 2000; runtime: 200000]"},
      {"bench", "--nrhs", "[default: 1]"},
      {"bench", "--repeat", "[default: 1]"},
      {"bench", "--precision", "[default: d]"},
      {"bench", "--uplo", "[default: L]"},
      {"bench", "--schedule", "[default: dynamic]"},
      {"bench", "--devices", "[default: cpu]"},
      {"bench", "--method", "[default: ps]"},
      {"bench", "--degree", "[default: 10]"},
      {"bench", "--check", "residual"},
      {"bench", "--quiet", "progress"},
      {"tune", "--devices", "[default: cpu]"},
      {"tune", "--nb", "[default: 256]"},
      {"tune", "--repeat", "[default: 5; --split: 3; --tiles: 2; --crossover: 3]"},
      {"tune", "-n", "[default: 1000,2000,4000; --tiles: 1000,2000,4000,8000; --crossover: 24 to 512]"},
      {"tune", "--precisions", "[default: d; --crossover, --model: sdcz]"},
      {"tune", "--nbs", "[default: 128,192,256,384,512]"},
      {"tune", "--seconds", "[default: 0.15]"},
      {"tune", "--crossover", "crossovers"},
      {"tune", "--dry-run", "no file"},
      {"demo", "-n", "[default: calibrated]"},
      {"demo", "--nrhs", "[default: 100]"},
      {"demo", "--quiet", "step"},
      {"info", "--json", "JSON"},
      {"simulate", "--nb", "[default: 512]"},
      {"simulate", "--schedule", "[default: dynamic]"},
      {"simulate", "--devices", "[default: cpu]"},
      {"simulate", "--accelerators", "[default: all]"},
  };
  std::map<std::string, std::string> help;
  for (const Expect& e : expects) {
    if (!help.count(e.command)) {
      auto r = run(std::string(e.command) + " --help");
      ASSERT_EQ(r.rc, 0) << e.command << "\n" << r.err;
      EXPECT_EQ(r.out.rfind(std::string("usage: hetla ") + e.command, 0), 0u) << r.out;
      EXPECT_TRUE(r.err.empty()) << r.err;
      help[e.command] = r.out;
    }
    const std::string entry = help_entry(help[e.command], e.option);
    ASSERT_FALSE(entry.empty()) << "hetla " << e.command << " --help has no " << e.option << "\n" << help[e.command];
    EXPECT_NE(entry.find(e.text), std::string::npos) << e.command << " " << e.option << ": " << entry;
  }
  // -h is --help; help after other arguments too
  EXPECT_EQ(run("bench -h").out, help["bench"]);
  EXPECT_EQ(run("bench potrf -n 100 --help").out, help["bench"]);
  EXPECT_EQ(run("tune --split -h").out, help["tune"]);
  EXPECT_EQ(run("demo -n 100 --help").out, help["demo"]);
  // --calls/--batch have their own help
  auto calls = run("bench potrf --calls 10 --help");
  EXPECT_EQ(calls.rc, 0) << calls.err;
  EXPECT_NE(help_entry(calls.out, "--threads").find("[default: 1]"), std::string::npos) << calls.out;
  EXPECT_NE(help_entry(calls.out, "--repeat").find("[default: 3]"), std::string::npos) << calls.out;
}

// A value a command rejects: exit status 2, a message naming the option,
// nothing on stdout, no work done.
TEST(Cli, InvalidValuesNameTheOption) {
  const std::pair<const char*, const char*> cases[] = {
      {"bench potrf -n -5", "-n: -5 is out of range"},
      {"bench potrf -n 100,0", "-n: 0 is out of range"},
      {"bench potrf -n 1.5", "-n: '1.5' is not an integer"},
      {"bench potrf -n 0e9223372036854775807", "-n: 0e9223372036854775807 is out of range"},  // was a hang
      {"bench potrf --nb 0", "--nb: 0 is out of range"},
      {"bench potrf --nb=x", "--nb: 'x' is not an integer"},
      {"bench potrf --repeat 0", "--repeat: 0 is out of range"},
      {"bench potrf -t 0", "--threads: 0 is out of range"},
      {"bench potrf --precision s,q", "--precision: 'q'"},
      {"bench potrf --uplo X", "--uplo: 'X'"},
      {"bench potrf --schedule fast", "--schedule: 'fast'"},
      {"bench potrf --distribution=tiles", "--distribution: 'tiles'"},
      {"bench gemm --transa X", "--transa: 'X'"},
      {"bench matpoly --method taylor", "--method: 'taylor'"},
      {"bench potrf --devices cpu,,emu", "--devices: empty"},
      {"bench potrf --trace t.txt", "--trace: 't.txt'"},
      {"bench potrf --check=yes", "--check takes no value"},
      {"bench potrf --nb", "--nb needs a value"},
      {"bench nosuchroutine", "'nosuchroutine' is not"},
      {"bench potrf --nrhs 2", "option --nrhs does not apply to potrf"},
      {"bench runtime --devices cpu", "option --devices does not apply to runtime"},
      {"bench potrf --calls 0", "--calls: 0 is out of range"},
      {"bench potrf --calls 5 --nb 64", "option --nb does not apply to --calls/--batch"},
      {"bench potrf --calls 5 --precision q", "--precision: 'q'"},
      {"bench gemm --batch 5", "'gemm' is not potrf, getrf or geqrf"},
      {"tune --nb 8", "--nb: 8 is out of range"},
      {"tune --repeat 0", "--repeat: 0 is out of range"},
      {"tune --precisions dq", "--precisions: 'dq' is not a list of s, d, c, z letters"},
      {"tune --tiles -n 0", "-n: 0 is out of range"},
      {"tune --split=yes", "--split takes no value"},
      {"tune --split --tiles", "--split excludes --tiles"},
      {"tune --devices", "--devices needs a value"},
      {"demo -n x", "-n: 'x' is not an integer"},
      {"demo --nrhs 0", "--nrhs: 0 is out of range"},
      {"demo --quiet=1", "--quiet takes no value"},
      {"demo extra", "not expected: extra"},
      {"info --json=1", "--json takes no value"},
      {"simulate potrf -n 0 --machine this", "-n: 0 is out of range"},
      {"simulate potrf -n 10 --schedule fast", "--schedule: 'fast'"},
      {"simulate gesv -n 10", "'gesv' is not potrf, getrf, geqrf, gemm, potrs or getrs"},
  };
  for (const auto& [args, message] : cases) {
    auto r = run(args);
    EXPECT_EQ(r.rc, 2) << "hetla " << args << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << "hetla " << args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << "hetla " << args << ": " << r.out;
  }
}

// --json: the error is one JSON object on stdout whose message is the one on
// stderr, and the exit status is that of the error (2: usage, 1: run).
TEST(Cli, JsonErrorCarriesTheMessageAndExitStatus) {
  const std::tuple<const char*, int, const char*> cases[] = {
      {"bench potrf -n -5 --json", 2, "-n: -5 is out of range"},
      {"bench potrf --json --precision x", 2, "--precision: 'x'"},
      {"bench potrf --json --nrhs 3", 2, "does not apply to potrf"},
      {"bench potrf -n 1e7 --json", 1, "GiB of memory"},
  };
  for (const auto& [args, rc, message] : cases) {
    auto r = run(args);
    EXPECT_EQ(r.rc, rc) << "hetla " << args << "\n" << r.out << r.err;
    const auto out = lines(r.out);
    ASSERT_EQ(out.size(), 1u) << "hetla " << args << "\n" << r.out;
    const Json v = Json::parse(out[0]);
    ASSERT_TRUE(v.is_object() && v.contains("error")) << out[0];
    const std::string error = v.at("error").get<std::string>();
    EXPECT_NE(error.find(message), std::string::npos) << error;
    EXPECT_NE(r.err.find(error), std::string::npos) << r.err;
  }
}

TEST(Cli, UsageErrorsExitWith2) {
  for (const char* args : {"tune --bogus",
                           "tune -n x --split",
                           "demo -n 0",
                           "simulate --bogus",
                           "bench potrf --calls 5 --batch 5",
                           "bench potrf --batch 5 --threads 2",
                           "",
                           "frobnicate",
                           "bench",
                           "bench nosuchroutine",
                           "bench potrf --bogus",
                           "bench potrf -n",
                           "bench potrf -n x",
                           "bench potrf -n 0",
                           "bench potrf -n 100,-5",
                           "bench potrf --precision q",
                           "bench potrf --uplo X",
                           "bench potrf --nrhs 3",
                           "bench potrf --check=yes",
                           "bench runtime --precision d",
                           "bench potrf extra arg",
                           "bench posv --repeat 0",
                           "info --bogus",
                           "demo --bogus",
                           "version extra",
                           "bench potrf --trace t.txt",
                           "bench potrf --trace t.svgz",
                           "bench potrf --trace .svg",
                           "bench potrf --trace",
                           "bench runtime --trace t.json",
                           "bench runtime --energy",
                           "bench potrf --energy=1",
                           "bench potrf -k 3",
                           "bench potrf --degree 3",
                           "bench getrf --transa X",
                           "bench gemm --distribution hybrid",
                           "bench potrf --distribution tiles"}) {
    auto r = run(args);
    EXPECT_EQ(r.rc, 2) << "hetla " << args << "\n" << r.out << r.err;
    EXPECT_FALSE(r.err.empty()) << "no message for: hetla " << args;
  }
}

}  // namespace
