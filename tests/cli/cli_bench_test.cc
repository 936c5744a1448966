// hetla CLI: bench routines, sizes, table output, runtime overhead, demo,
// energy, taskset and the MPI grid.
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

#include "cli_support.hpp"

using namespace hetla_cli_test;

namespace {

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

// `bench --grid` in one process (an MPI singleton, no mpirun); several
// processes are tests/mpi's.
TEST(Cli, BenchGridOneProcess) {
#if HETLA_CLI_MPI == 1
  auto r = run("bench potrf -n 200 --nb 32 --grid 1x1 --check --baseline --json -r 2");
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  auto j = flat_object(lines(r.out).at(0));
  EXPECT_EQ(j["grid"], "1x1");
  EXPECT_EQ(j["repeat"], "2");  // -r as in the single-process bench
  EXPECT_EQ(j["ranks"], "1");
  EXPECT_EQ(j["info"], "0");
  EXPECT_EQ(j["residual_ok"], "true") << r.out;
  EXPECT_EQ(j["baseline_info"], "0");
  EXPECT_TRUE(is_positive_number(j["seconds"]));
  EXPECT_TRUE(is_positive_number(j["baseline_seconds"]));
  EXPECT_EQ(j["bytes_sent"], "[0]");  // nothing to send in one process
  auto g = run("bench gemm -n 150 -k 70 --nb 32 --grid 1x1 --check --json -p z");
  ASSERT_EQ(g.rc, 0) << g.out << g.err;
  EXPECT_EQ(flat_object(lines(g.out).at(0))["residual_ok"], "true") << g.out;
  EXPECT_EQ(flat_object(lines(g.out).at(0))["precision"], "z") << g.out;
  auto lu = run("bench getrf -m 200 -n 170 --nb 32 --grid 1x1 --check --baseline --json");
  ASSERT_EQ(lu.rc, 0) << lu.out << lu.err;
  auto l = flat_object(lines(lu.out).at(0));
  EXPECT_EQ(l["m"], "200");
  EXPECT_EQ(l["residual_ok"], "true") << lu.out;
  EXPECT_EQ(l["baseline_info"], "0");
  auto qr = run("bench geqrf -m 190 -n 130 --nb 32 --grid 1x1 --check --baseline --json --precision c");
  ASSERT_EQ(qr.rc, 0) << qr.out << qr.err;
  auto q = flat_object(lines(qr.out).at(0));
  EXPECT_EQ(q["m"], "190");
  EXPECT_EQ(q["residual_ok"], "true") << qr.out;
  EXPECT_EQ(q["baseline_info"], "0");
  auto bad = run("bench potrf -n 200 --grid 2x1 --json");
  EXPECT_EQ(bad.rc, 2);
  EXPECT_NE(bad.out.find("needs 2 processes"), std::string::npos) << bad.out;
  // --trace is checked before anything runs, as in the single-process bench,
  // and so are the sizes, as there
  for (const auto& [args, message] : {std::pair{"--trace t.txt", "must end in .json"},
                                      std::pair{"--trace /no/such/folder/t.svg", "cannot be written"},
                                      std::pair{"--nb -5", "--nb: -5 is out of range"},
                                      std::pair{"-m 0", "-m: 0 is out of range"},
                                      std::pair{"-r 0", "--repeat: 0 is out of range"}}) {
    auto t = run(std::string("bench potrf -n 200 --grid 1x1 --json ") + args);
    EXPECT_EQ(t.rc, 2) << args;
    EXPECT_NE(t.err.find(message), std::string::npos) << args << ": " << t.err;
    EXPECT_TRUE(t.out.empty()) << args << ": " << t.out;
  }
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
  auto r = run("bench potrf --sizes 4,200 --calls 20 --repeat 2 --baseline --json");
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

TEST(Cli, VariableTilesCanBeSwitchedForAnAB) {
  // --variable-tiles on: tiles that shrink (nb the first size), reported as
  // tile_schedule, with a correct result; off: fixed tiles, no schedule.
  for (const char* routine : {"potrf -n 600", "getrf -n 600 -m 700", "geqrf -n 600 -m 700"}) {
    SCOPED_TRACE(routine);
    auto on = run(std::string("bench ") + routine + " --nb 128 --variable-tiles on --check --json");
    ASSERT_EQ(on.rc, 0) << on.err;
    auto j = json_lines(on.out).at(0);
    EXPECT_EQ(j["residual_ok"], "true");
    EXPECT_EQ(j["tile_schedule"].rfind("128x", 0), 0u) << j["tile_schedule"];
    EXPECT_NE(j["tile_schedule"].find(",64x"), std::string::npos) << j["tile_schedule"];
    auto off = run(std::string("bench ") + routine + " --nb 128 --variable-tiles off --check --json");
    ASSERT_EQ(off.rc, 0) << off.err;
    auto k = json_lines(off.out).at(0);
    EXPECT_EQ(k["residual_ok"], "true");
    EXPECT_EQ(k.count("tile_schedule"), 0u);
  }
  EXPECT_EQ(run("bench potrs -n 600 --variable-tiles on").rc, 2);  // only the factorizations take it
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

}  // namespace

TEST(Cli, BenchReportsPeakMemoryOfTheRun) {
  // Issue 19: potrf on a user's column-major matrix works in place: what the
  // run adds to the process's resident memory is tile workspace, far below
  // the matrix itself (measured 1.6 MiB of 17 MiB at n = 1500).
  auto r = run("bench potrf -n 1500 --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  auto recs = json_lines(r.out);
  ASSERT_EQ(recs.size(), 1u) << r.out;
  ASSERT_TRUE(is_positive_number(recs[0]["peak_rss_mb"])) << r.out;
  if (recs[0]["run_rss_mb"] == "null") GTEST_SKIP() << "the peak cannot be reset here (/proc/self/clear_refs)";
  const double matrix_mb = 1500.0 * 1500 * 8 / (1 << 20);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // Sanitizer builds pad and quarantine every allocation (6.7 MiB measured).
  constexpr double kShare = 0.75;
#else
  constexpr double kShare = 0.35;
#endif
  EXPECT_LT(std::stod(recs[0]["run_rss_mb"]), kShare * matrix_mb) << r.out;
}
