// hetla CLI: tuned tile sizes and crossovers used by the next process.
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
