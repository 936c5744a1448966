// hetla bench soak (tools/bench/bench_soak.cc): random checked runs with
// injected device faults. A short run here; the one-minute run of CI is
// BenchSoak.SlowOneMinute (label slow: the Release stage runs it, the
// sanitizer stages do not).
#include <gtest/gtest.h>

#include <string>

#include "cli_support.hpp"

using namespace hetla_cli_test;

namespace {

/// Runs the soak for `args` and checks its one JSON line; returns it.
Json soak(const std::string& args) {
  const Result r = run("bench soak --json " + args);
  EXPECT_EQ(r.rc, 0) << r.out << r.err;  // 1 on a mismatch (printed on stderr)
  const auto l = lines(r.out);
  EXPECT_EQ(l.size(), 1u) << r.out;
  if (l.size() != 1) return Json::object();
  const Json j = Json::parse(l[0]);
  for (const char* key : {"tasks", "faults_injected", "faults_recovered", "mismatches", "runs", "seconds", "errors"})
    EXPECT_TRUE(j.contains(key)) << "missing " << key << " in " << r.out;
  EXPECT_EQ(j.value("mismatches", -1), 0) << r.out << r.err;
  EXPECT_GT(j.value("runs", 0), 0) << r.out;
  EXPECT_GT(j.value("tasks", 0), 0) << r.out;
  EXPECT_LE(j.value("faults_recovered", 0), j.value("faults_injected", 0)) << r.out;
  return j;
}

TEST(BenchSoak, ShortRunChecksEveryCase) {
  const Json j = soak("--seconds 2 --seed 7");
  // ~100 cases a second in Release; a few even under the sanitizers, most
  // with a fault planned on an accelerator.
  EXPECT_GT(j.value("faults_injected", 0), 0) << j.dump();
}

TEST(BenchSoak, RejectsRoutineOptions) {
  EXPECT_EQ(run("bench soak --seconds 1 --check").rc, 2);
  EXPECT_EQ(run("bench potrf -n 10 --seconds 1").rc, 2);
}

TEST(BenchSoak, SlowOneMinute) {  // CI's one-minute soak (issue 19)
  const Json j = soak("--minutes 1 --seed 1");
  EXPECT_GT(j.value("faults_recovered", 0), 0) << j.dump();
}

}  // namespace
