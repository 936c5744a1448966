// Runs the hetla CLI as a child process and checks exit codes and output.
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

namespace {

using Json = nlohmann::json;

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

Result run(const std::string& args, const std::string& prefix = "") {
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

/// Parses one JSON line (strictly) into key -> value text: strings without
/// their quotes, numbers, true/false/null and nested arrays/objects as written.
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
    "routine", "precision", "m",        "n",           "nrhs", "nb",
    "uplo",    "threads",   "seconds",  "gflops",      "residual", "residual_ok",
    "info",    "baseline_seconds", "baseline_gflops", "ratio", "busy_pct", "imbalance", "workers", "kernels"};

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
  for (const char* s : {"cpu:", "cores:", "hwloc:", "blas:", "workers:", "backends:", "devices:", "cpu:0",
                        HETLA_VERSION_STRING})
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

// `bench --grid` in one process (an MPI singleton, no mpirun); several
// processes are tests/mpi's.
TEST(Cli, BenchGridOneProcess) {
#if HETLA_CLI_MPI == 1
  auto r = run("bench potrf -n 200 --nb 32 --grid 1x1 --check --baseline --json");
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  auto j = flat_object(lines(r.out).at(0));
  EXPECT_EQ(j["grid"], "1x1");
  EXPECT_EQ(j["ranks"], "1");
  EXPECT_EQ(j["info"], "0");
  EXPECT_EQ(j["residual_ok"], "true") << r.out;
  EXPECT_EQ(j["baseline_info"], "0");
  EXPECT_TRUE(is_positive_number(j["seconds"]));
  EXPECT_TRUE(is_positive_number(j["baseline_seconds"]));
  EXPECT_EQ(j["bytes_sent"], "[0]");  // nothing to send in one process
  auto g = run("bench gemm -n 150 -k 70 --nb 32 --grid 1x1 --check --json --precision z");
  ASSERT_EQ(g.rc, 0) << g.out << g.err;
  EXPECT_EQ(flat_object(lines(g.out).at(0))["residual_ok"], "true") << g.out;
  auto bad = run("bench potrf -n 200 --grid 2x1 --json");
  EXPECT_EQ(bad.rc, 2);
  EXPECT_NE(bad.out.find("needs 2 processes"), std::string::npos) << bad.out;
#elif HETLA_CLI_MPI == 0
  auto r = run("bench potrf -n 200 --grid 1x1 --json");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE((r.out + r.err).find("needs MPI"), std::string::npos) << r.out << r.err;
#else
  GTEST_SKIP() << "bench --grid is not run under sanitizers (Open MPI's own leaks)";
#endif
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

TEST(Cli, BenchManySmallCalls) {
  // Per-call times, one line per size, the path each size takes.
  auto r = run("bench potrf --sizes 4,200 --calls 20 --repeat 1 --baseline --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  auto recs = json_lines(r.out);
  ASSERT_EQ(recs.size(), 2u) << r.out;
  EXPECT_EQ(recs[0]["path"], "inline");
  EXPECT_EQ(recs[1]["path"], "tiles");
  for (auto& j : recs) {
    EXPECT_TRUE(is_positive_number(j["vendor_us"])) << r.out;
    EXPECT_TRUE(is_positive_number(j["ratio"])) << r.out;
    EXPECT_EQ(j["info"], "0");
  }
  // Concurrent callers and a batch.
  auto t = run("bench getrf --threads 2 -n 16 --calls 200 --repeat 1 --json");
  ASSERT_EQ(t.rc, 0) << t.err;
  auto trecs = json_lines(t.out);
  ASSERT_EQ(trecs.size(), 1u);
  EXPECT_TRUE(is_positive_number(trecs[0]["speedup"])) << t.out;
  auto b = run("bench geqrf --batch 50 -n 8 --baseline --repeat 1 --json");
  ASSERT_EQ(b.rc, 0) << b.err;
  auto brecs = json_lines(b.out);
  ASSERT_EQ(brecs.size(), 1u);
  EXPECT_TRUE(is_positive_number(brecs[0]["ratio"])) << b.out;
  EXPECT_EQ(brecs[0]["failed_matrices"], "0");
  // Options of other modes are usage errors.
  EXPECT_EQ(run("bench potrf --calls 10 --batch 10").rc, 2);
  EXPECT_EQ(run("bench gemm --calls 10").rc, 2);
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

/// The trace summary of a bench JSON line; checks its shape and returns the
/// tasks per worker.
std::vector<int> check_trace_summary(const std::string& line, int workers) {
  const Json rec = Json::parse(line);
  const double imbalance = rec.at("imbalance").get<double>();
  EXPECT_GE(imbalance, 1.0 - 1e-9) << line;
  EXPECT_LE(imbalance, workers + 1e-9) << line;
  EXPECT_GT(rec.at("busy_pct").get<double>(), 0.0) << line;
  EXPECT_LE(rec.at("busy_pct").get<double>(), 100.0 + 1e-9) << line;
  const auto& ws = rec.at("workers");
  EXPECT_EQ(ws.size(), static_cast<std::size_t>(workers)) << line;
  std::vector<int> tasks;
  double max_busy = 0, sum_busy = 0;
  for (std::size_t w = 0; w < ws.size(); ++w) {
    EXPECT_EQ(ws[w].at("id").get<double>(), static_cast<double>(w));
    tasks.push_back(static_cast<int>(ws[w].at("tasks").get<double>()));
    const double busy = ws[w].at("busy_pct").get<double>();
    EXPECT_GE(busy, 0.0);
    EXPECT_LE(busy, 100.0 + 1e-9);
    max_busy = std::max(max_busy, busy);
    sum_busy += busy;
  }
  if (sum_busy > 0) {
    EXPECT_NEAR(imbalance, max_busy / (sum_busy / workers), 1e-3 * imbalance) << line;
  }
  int kernel_tasks = 0;
  std::map<std::string, int> labels;
  for (const auto& k : rec.at("kernels")) {
    labels[k.at("label").get<std::string>()] = static_cast<int>(k.at("count").get<double>());
    kernel_tasks += static_cast<int>(k.at("count").get<double>());
    EXPECT_GT(k.at("seconds").get<double>(), 0.0);
  }
  int total = 0;
  for (int t : tasks) total += t;
  EXPECT_EQ(kernel_tasks, total) << line;
  EXPECT_GT(labels["potrf"], 0) << line;  // Cholesky: the diagonal tile kernel is in it
  return tasks;
}

/// Rects of each row group of a Gantt chart written by --trace FILE.svg.
std::vector<int> svg_rects_per_row(const std::string& svg) {
  std::vector<int> rows;
  for (std::size_t g = svg.find("<g transform="); g != std::string::npos; g = svg.find("<g transform=", g + 1)) {
    const std::size_t end = svg.find("</g>", g);
    int n = 0;
    for (std::size_t p = svg.find("<rect class=\"k", g); p != std::string::npos && p < end;
         p = svg.find("<rect class=\"k", p + 1))
      ++n;
    rows.push_back(n);
  }
  return rows;
}

/// Complete events per thread of a Chrome trace written by --trace FILE.json.
std::vector<int> chrome_events_per_thread(const std::string& text, int workers) {
  const Json doc = Json::parse(text);
  std::vector<int> per(static_cast<std::size_t>(workers), 0);
  int named = 0;
  for (const auto& e : doc.at("traceEvents")) {
    const int tid = static_cast<int>(e.at("tid").get<double>());
    EXPECT_GE(tid, 0);
    EXPECT_LT(tid, workers);
    if (e.at("ph").get<std::string>() == "M") ++named;
    if (e.at("ph").get<std::string>() == "X" && tid >= 0 && tid < workers) {
      ++per[static_cast<std::size_t>(tid)];
      EXPECT_GE(e.at("ts").get<double>(), 0.0);
      EXPECT_GE(e.at("dur").get<double>(), 0.0);
    }
  }
  EXPECT_EQ(named, workers);
  return per;
}

// The trace of `bench potrf --threads 2` has tasks on both workers, and the
// file agrees task for task with the JSON line's summary. n=1000 with nb=64
// (816 tasks, several ms) rather than n=500 (120 tasks, about 1 ms): on a
// loaded machine a sleeping worker can miss a millisecond-long factorization
// entirely; even so each format gets three attempts at the every-worker
// property.
TEST(Cli, TraceFilesHaveTasksOnEveryWorker) {
  TempDir dir;
  for (const std::string ext : {"svg", "json"}) {
    const std::string file = dir.path + "/t." + ext;
    bool every_worker = false;
    for (int attempt = 0; attempt < 3 && !every_worker; ++attempt) {
      std::filesystem::remove(file);
      auto r = run("bench potrf -n 1000 --nb 64 --threads 2 --json --trace " + file);
      ASSERT_EQ(r.rc, 0) << r.out << r.err;
      auto ls = lines(r.out);
      ASSERT_EQ(ls.size(), 1u) << r.out;
      const auto rec = flat_object(ls[0]);
      EXPECT_EQ(rec.at("trace"), file);
      const std::vector<int> tasks = check_trace_summary(ls[0], 2);
      ASSERT_EQ(tasks.size(), 2u);
      const std::string text = slurp(file);
      ASSERT_FALSE(text.empty()) << file;
      if (ext == "svg") {
        EXPECT_EQ(text.rfind("<svg ", 0), 0u);
        EXPECT_EQ(text.substr(text.size() - 7), "</svg>\n");
        EXPECT_EQ(svg_rects_per_row(text), tasks);
        for (const char* s : {">worker 0 (caller)<", ">worker 1<", "hetla potrf", "n=1000", "nb=64", "GFLOP/s",
                              "imbalance", ">time (ms)<"})
          EXPECT_NE(text.find(s), std::string::npos) << s;
        const Json line = Json::parse(ls[0]);
        for (const auto& k : line.at("kernels")) {  // legend: "label (count, share%)"
          std::string entry = ">";  // appended: GCC 12 warns (-Wrestrict, a false positive) on ">" + string
          entry += k.at("label").get<std::string>() + " (" + k.at("count").dump() + ", ";
          EXPECT_NE(text.find(entry), std::string::npos) << entry;
        }
      } else {
        EXPECT_EQ(chrome_events_per_thread(text, 2), tasks);
      }
      every_worker = tasks[0] > 0 && tasks[1] > 0;
    }
    EXPECT_TRUE(every_worker) << "." << ext << ": a worker ran no task in three attempts";
  }
}

TEST(Cli, HybridDistributionReportsItsTilesAndUsesEveryDevice) {
  for (const char* routine : {"potrf", "getrf", "geqrf"}) {
    SCOPED_TRACE(routine);
    auto r = run(std::string("bench ") + routine +
                 " -n 600 --nb 32 --devices cpu,emu:speed=1,emu:speed=0.5 --distribution hybrid --check --json");
    ASSERT_EQ(r.rc, 0) << r.out << r.err;
    const auto ls = lines(r.out);
    ASSERT_EQ(ls.size(), 1u) << r.out;
    const Json v = Json::parse(ls[0]);
    EXPECT_EQ(v.at("residual_ok").dump(), "true") << r.out;
    const auto& sizes = v.at("tiling").at("sizes");
    const auto& owners = v.at("tiling").at("owners");
    ASSERT_EQ(sizes.size(), owners.size());
    ASSERT_GE(sizes.size(), 3u) << r.out;  // host tiles and one large tile per accelerator
    EXPECT_EQ(sizes[0].get<double>(), 32);
    EXPECT_EQ(owners[0].get<double>(), 0);
    for (const auto& d : v.at("devices")) EXPECT_GT(d.at("flops_share_pct").get<double>(), 0) << r.out;
  }
}

/// Total tasks of one run, from the summary of a bench JSON line.
int total_tasks(const std::string& line) {
  int total = 0;
  const Json v = Json::parse(line);  // must outlive the loop (a temporary would not)
  for (const auto& w : v.at("workers")) total += static_cast<int>(w.at("tasks").get<double>());
  return total;
}

TEST(Cli, TraceCoversTheHetlaRunNotTheBaseline) {
  auto once = run("bench potrf -n 400 --nb 64 --json");
  ASSERT_EQ(once.rc, 0) << once.out << once.err;
  const int one_run = total_tasks(once.out);
  ASSERT_GT(one_run, 0) << once.out;
  TempDir dir;
  const std::string file = dir.path + "/t.json";
  auto r = run("bench potrf -n 400 --nb 64 --baseline --repeat 2 --json --trace " + file);
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  auto ls = lines(r.out);
  ASSERT_EQ(ls.size(), 1u);
  const Json rec = Json::parse(ls[0]);
  const int workers = static_cast<int>(rec.at("threads").get<double>());
  const std::vector<int> tasks = check_trace_summary(ls[0], workers);
  const std::vector<int> per = chrome_events_per_thread(slurp(file), workers);
  EXPECT_EQ(per, tasks);
  int total = 0;
  for (int t : per) total += t;
  EXPECT_EQ(total, one_run);  // the last of the two runs only; the vendor baseline adds nothing
}

TEST(Cli, TraceFilePerConfigurationAndTableColumns) {
  TempDir dir;
  auto r = run("bench potrf -n 200,300 --precision s --trace " + dir.path + "/t.svg");
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  auto ls = lines(r.out);
  ASSERT_EQ(ls.size(), 3u) << r.out;
  EXPECT_NE(ls[0].find("imbal"), std::string::npos) << ls[0];
  EXPECT_NE(ls[0].find("busy%"), std::string::npos) << ls[0];
  EXPECT_FALSE(std::filesystem::exists(dir.path + "/t.svg"));
  for (const char* name : {"/t-s-n200.svg", "/t-s-n300.svg"}) {
    const std::string svg = slurp(dir.path + name);
    EXPECT_EQ(svg.rfind("<svg ", 0), 0u) << name;
  }
}

// An output path that cannot be written is rejected before any work starts.
TEST(Cli, TraceFileThatCannotBeWrittenIsRejectedBeforeTheRun) {
  for (const char* path : {"/nonexistent-hetla-dir/t.svg", "/nonexistent-hetla-dir/t.json"}) {
    auto r = run(std::string("bench potrf -n 200 --trace ") + path);
    EXPECT_EQ(r.rc, 2) << r.out << r.err;
    EXPECT_NE(r.err.find(std::string("--trace: '") + path + "' cannot be written"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << "ran anyway: " << r.out;
  }
  // several configurations: every file is checked, in an existing folder too
  auto dir = std::filesystem::temp_directory_path() / "hetla_cli_test_trace_dir";
  std::filesystem::create_directories(dir / "t-d-n100.json");  // a folder where a file must go
  auto r = run("bench potrf -n 100,200 --trace " + (dir / "t.json").string());
  EXPECT_EQ(r.rc, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  std::filesystem::remove_all(dir);
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
  for (const char* args : {"bench potrf -n 200,300 --repeat 2", "bench potrf -n 200 --quiet --json",
                           "demo -n 300 --nrhs 2 --quiet"}) {
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
  auto quiet = run_shell("script -qc \"'" + std::string(HETLA_CLI_PATH) + "' bench potrf -n 200,300 --quiet\" /dev/null");
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

// --energy: joules per counter where readable, else null with the reason
// (never zeros that were not measured).
TEST(Cli, EnergyIsMeasuredOrExplained) {
  auto r = run("bench potrf -n 300 --energy --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  auto recs = json_lines(r.out);
  ASSERT_EQ(recs.size(), 1u);
  if (recs[0]["energy"] == "null") {
    EXPECT_NE(recs[0]["energy_note"].find("not measured"), std::string::npos) << r.out;
  } else {
    EXPECT_NE(recs[0]["energy"].find("joules"), std::string::npos) << r.out;
  }
}

// Under taskset (as under Slurm or mpirun --bind-to core) hetla starts one
// worker per core of the process's CPU set, and the result is right.
TEST(Cli, TasksetOneCoreMeansOneWorker) {
  if (std::system("taskset -c 0 true >/dev/null 2>&1") != 0) GTEST_SKIP() << "no taskset";
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const std::string cpu = std::to_string(cpus > 1 ? cpus - 1 : 0);
  auto r = run("bench potrf -n 2000 --json --check", "taskset -c " + cpu);
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  auto recs = json_lines(r.out);
  ASSERT_EQ(recs.size(), 1u) << r.out;
  EXPECT_EQ(recs[0]["threads"], "1") << r.out;
  EXPECT_EQ(recs[0]["residual_ok"], "true") << r.out;
  auto info = run("info --json", "taskset -c " + cpu);
  ASSERT_EQ(info.rc, 0) << info.err;
  auto j = flat_object(lines(info.out).at(0));
  EXPECT_EQ(j["cores"], "1");
  EXPECT_EQ(j["cpu_set"], cpu);
  EXPECT_EQ(j["workers"], "1");
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
    for (std::size_t j = i + 1; j < ls.size() && ls[j].rfind("    ", 0) == 0 && ls[j].find_first_not_of(' ') > 4;
         ++j)
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
      {"tune", "--precisions", "[default: d; --crossover: sdcz]"},
      {"tune", "--crossover", "crossovers"},
      {"tune", "--dry-run", "no file"},
      {"demo", "-n", "[default: calibrated]"},
      {"demo", "--nrhs", "[default: 100]"},
      {"demo", "--quiet", "step"},
      {"info", "--json", "JSON"},
      {"simulate", "--nb", "[default: 512]"},
      {"simulate", "--schedule", "[default: dynamic]"},
      {"simulate", "--devices", "[default: cpu]"},
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
  for (const char* args :
       {"tune --bogus", "tune -n x --split", "demo -n 0", "simulate --bogus", "bench potrf --calls 5 --batch 5",
        "bench potrf --batch 5 --threads 2", "", "frobnicate", "bench", "bench nosuchroutine", "bench potrf --bogus", "bench potrf -n", "bench potrf -n x",
        "bench potrf -n 0", "bench potrf -n 100,-5", "bench potrf --precision q", "bench potrf --uplo X",
        "bench potrf --nrhs 3", "bench potrf --check=yes", "bench runtime --precision d", "bench potrf extra arg",
        "bench posv --repeat 0", "info --bogus", "demo --bogus", "version extra", "bench potrf --trace t.txt",
        "bench potrf --trace t.svgz", "bench potrf --trace .svg", "bench potrf --trace",
        "bench runtime --trace t.json", "bench runtime --energy", "bench potrf --energy=1", "bench potrf -k 3",
        "bench potrf --degree 3", "bench getrf --transa X", "bench gemm --distribution hybrid",
        "bench potrf --distribution tiles"}) {
    auto r = run(args);
    EXPECT_EQ(r.rc, 2) << "hetla " << args << "\n" << r.out << r.err;
    EXPECT_FALSE(r.err.empty()) << "no message for: hetla " << args;
  }
}

}  // namespace

// `hetla tune --tiles` stores one tile size per routine and size, and the next
// bench without --nb runs with it; bench --baseline measures the GEMM rate of
// the same run (gemm_fraction).
TEST(Cli, TunedTileSizesAreUsedByTheNextBench) {
  TempDir dir;
  const std::string env = "HETLA_TUNING='" + dir.path + "/tiles.json'";
  Result r = run("tune --tiles -n 400 --repeat 1 --json", env);
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto recs = json_lines(r.out);
  ASSERT_EQ(recs.size(), 3u) << r.out;  // potrf, getrf, geqrf at n = 400
  std::map<std::string, int64_t> nb;
  for (const auto& rec : recs) {
    EXPECT_EQ(rec.at("n"), "400");
    EXPECT_TRUE(is_positive_number(rec.at("gflops"))) << rec.at("gflops");
    nb[rec.at("routine")] = std::stoll(rec.at("nb"));
  }
  const Json file = Json::parse(slurp(dir.path + "/tiles.json"));
  EXPECT_EQ(file.at("tiles").size(), 3u);
  for (const std::string routine : {"potrf", "getrf", "geqrf"}) {
    r = run("bench " + routine + " -n 400 --check --baseline --json", env);
    ASSERT_EQ(r.rc, 0) << r.err;
    const auto line = flat_object(lines(r.out).at(0));
    EXPECT_EQ(std::stoll(line.at("nb")), nb[routine]) << routine;
    EXPECT_TRUE(is_positive_number(line.at("gemm_fraction"))) << routine;
  }
  r = run("info --json", env);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("\"tuning\""), std::string::npos) << r.out;
}

// `hetla tune --crossover` stores one crossover per routine and precision
// beside the tile sizes, and the next process (hetla info) has them in force.
TEST(Cli, TunedCrossoversAreInForceInTheNextProcess) {
  TempDir dir;
  const std::string env = "HETLA_TUNING='" + dir.path + "/tiles.json'";
  Result r = run("tune --crossover -n 24,256 --precisions d --repeat 1 --json", env);
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto recs = json_lines(r.out);
  ASSERT_EQ(recs.size(), 3u) << r.out;  // potrf, getrf, geqrf in d
  std::map<std::string, int64_t> stored;
  for (const auto& rec : recs) {
    EXPECT_EQ(rec.at("precision"), "d");
    stored[std::string("d").append(rec.at("routine"))] = std::stoll(rec.at("crossover"));
  }
  const Json file = Json::parse(slurp(dir.path + "/crossover.json"));
  EXPECT_EQ(file.at("crossovers").size(), 3u);
  r = run("info --json", env);
  ASSERT_EQ(r.rc, 0) << r.err;
  const Json info = Json::parse(lines(r.out).at(0));
  EXPECT_EQ(info.at("crossovers").at("state"), "in use") << r.out;
  int tuned = 0;
  for (const auto& e : info.at("crossovers").at("in_force")) {
    const std::string name = e.at("routine");
    if (!stored.count(name)) continue;
    EXPECT_EQ(e.at("n").get<int64_t>(), stored[name]) << name;
    EXPECT_EQ(e.at("source"), "tuned") << name;
    ++tuned;
  }
  EXPECT_EQ(tuned, 3);
  r = run("info", env + " HETLA_LAPACK_CROSSOVER_DPOTRF=7");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("d 7 environment"), std::string::npos) << r.out;
}
