// hetla CLI: trace files (SVG, Chrome JSON) and the hybrid distribution.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <unistd.h>

#include <algorithm>
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

#include "cli_support.hpp"

using namespace hetla_cli_test;

namespace {

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
    // a Cholesky's kernels all count their flops: each has its in-run rate
    EXPECT_GT(k.value("gflops", 0.0), 0.0) << k.at("label").get<std::string>() << ": " << line;
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


// simulate --trace: the simulated run's trace (virtual time) in bench's
// formats; every accelerator's worker has tasks and its copy engine a row of
// copies in, the last event ends at the predicted seconds (the trace is in
// microseconds to the nanosecond).
TEST(Cli, SimulateWritesTheTraceOfTheSimulatedRun) {
  TempDir dir;
  const std::string args = "simulate potrf -n 2000 --nb 200 --machine seed000-system-a --cores 2 --json --trace ";
  auto r = run(args + dir.path + "/t.json");
  if (r.rc == 2 && r.err.find("no simulation") != std::string::npos) GTEST_SKIP() << "built without SimGrid";
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  const Json out = Json::parse(r.out);
  const Json doc = Json::parse(slurp(dir.path + "/t.json"));
  std::map<int, std::string> rows;
  std::map<int, int> tasks;
  double end = 0;
  for (const auto& e : doc.at("traceEvents")) {
    const int tid = e.at("tid").get<int>();
    if (e.at("ph") == "M") rows[tid] = e.at("args").at("name").get<std::string>();
    if (e.at("ph") != "X") continue;
    end = std::max(end, e.at("ts").get<double>() + e.at("dur").get<double>());
    if (e.at("cat") != "transfer") ++tasks[tid];
  }
  ASSERT_EQ(rows.size(), 20u) << "2 cores, 6 K20c, their 6 copy engines and 6 copy-out threads";
  int gpus = 0, engines = 0, cpu_tasks = 0;
  for (const auto& [tid, name] : rows) {
    if (name.find("[k20c") != std::string::npos) {
      ++gpus;
      EXPECT_GT(tasks[tid], 0) << name;
    } else if (name.find(" copy") != std::string::npos) {
      ++engines;
    } else {
      cpu_tasks += tasks[tid];
    }
  }
  EXPECT_EQ(gpus, 6);
  EXPECT_EQ(engines, 12);
  EXPECT_GT(cpu_tasks, 0) << "the panel (potrf) runs on the cores";
  EXPECT_NEAR(end, out.at("seconds").get<double>() * 1e6, 0.01);

  r = run(args + dir.path + "/t.svg");
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  const std::string svg = slurp(dir.path + "/t.svg");
  EXPECT_EQ(svg.rfind("<svg ", 0), 0u);
  EXPECT_NE(svg.find("hetla simulate potrf"), std::string::npos);
  const std::vector<int> per_row = svg_rects_per_row(svg);
  ASSERT_EQ(per_row.size(), 20u);
  for (std::size_t i = 2; i < per_row.size(); ++i) EXPECT_GT(per_row[i], 0) << "row " << i;  // GPUs, copies

  // rejected before the run, as bench's
  for (const std::string& path : {dir.path + "/t.txt", std::string("/nonexistent-hetla-dir/t.svg")}) {
    r = run(args + path);
    EXPECT_EQ(r.rc, 2) << path << r.out << r.err;
    EXPECT_NE((r.out + r.err).find("--trace: '" + path + "'"), std::string::npos) << r.out << r.err;
    EXPECT_EQ(r.out.find("\"seconds\""), std::string::npos) << "ran anyway: " << r.out;  // --json: the error is the output
  }
}

}  // namespace

// simulate --validate --measured-trace: the measured run's trace beside the
// simulated one, with the same tasks per kernel (the same Matrix API calls
// insert them), so that scripts/compare-traces.py compares like with like;
// without --validate it is a usage error.
TEST(Cli, SimulateValidateWritesTheMeasuredRunsTrace) {
  TempDir dir;
  const std::string m = dir.path + "/m.json", s = dir.path + "/s.json";
  auto r = run("simulate --validate potrf -n 1024 --nb 256 --devices cpu --json --trace " + s + " --measured-trace " + m);
  if (r.rc == 2 && r.err.find("no simulation") != std::string::npos) GTEST_SKIP() << "built without SimGrid";
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  const Json out = Json::parse(r.out);
  EXPECT_GT(out.at("measured_seconds").get<double>(), 0);
  // three rounds of (measured runs, calibration, simulation); the one
  // reported is the round of the median relative error
  const Json& rounds = out.at("rounds");
  ASSERT_EQ(rounds.size(), 3u) << r.out;
  std::vector<double> errors;
  for (const auto& rd : rounds) {
    const double m = rd.at("measured_seconds").get<double>(), p = rd.at("predicted_seconds").get<double>();
    EXPECT_GT(m, 0);
    EXPECT_GT(p, 0);
    EXPECT_NEAR(rd.at("relative_error").get<double>(), (p - m) / m, 1e-9);
    errors.push_back(rd.at("relative_error").get<double>());
  }
  std::sort(errors.begin(), errors.end());
  EXPECT_EQ(out.at("relative_error").get<double>(), errors[1]);
  auto per_kernel = [](const std::string& path) {
    std::map<std::string, int> n;
    const Json doc = Json::parse(slurp(path));
    for (const auto& e : doc.at("traceEvents"))
      if (e.at("ph") == "X" && e.at("cat") == "task") ++n[e.at("name").get<std::string>()];
    return n;
  };
  const auto measured = per_kernel(m);
  EXPECT_EQ(measured, (std::map<std::string, int>{{"gemm", 4}, {"herk", 6}, {"potrf", 4}, {"trsm", 6}}));
  EXPECT_EQ(measured, per_kernel(s));

  r = run("simulate potrf -n 512 --machine seed000-system-a --measured-trace " + m);
  EXPECT_EQ(r.rc, 2) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find("--measured-trace needs --validate"), std::string::npos) << r.out << r.err;
}
