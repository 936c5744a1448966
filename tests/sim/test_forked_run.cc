// src/sim/forked_run.hpp: a function run in a forked child, and a child that
// stops making progress (as one waiting forever on a lock it inherited).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "sim/forked_run.hpp"

namespace hetla::sim {
namespace {

using std::chrono::seconds;

TEST(ForkedRun, ReturnsWhatTheChildReturned) {
  EXPECT_EQ(run_forked([] { return std::string(100000, 'x') + "end"; }).size(), 100003u);  // more than a pipe holds
}

TEST(ForkedRun, AChildThatWritesNothingIsAnError) {
  EXPECT_THROW(run_forked([] { return std::string(); }), std::runtime_error);
  EXPECT_THROW(run_forked([]() -> std::string { throw std::logic_error("in the child"); }), std::runtime_error);
}

// The first child sleeps (no CPU, no output): it is killed after the stall
// time and a second child runs.
TEST(ForkedRun, AStalledChildIsKilledAndForkedAgain) {
  char path[] = "/tmp/hetla_forked_run_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  const auto t0 = std::chrono::steady_clock::now();
  const std::string text = run_forked(
      [&] {
        if (std::remove(path) == 0) sleep(60);  // the first child only: it finds the file
        return std::string("second");
      },
      seconds(1), 2);
  EXPECT_EQ(text, "second");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, seconds(30)) << "the first child was not killed";
}

TEST(ForkedRun, GivesUpAfterItsTries) {
  EXPECT_THROW(run_forked(
                   [] {
                     sleep(60);
                     return std::string("late");
                   },
                   seconds(1), 2),
               std::runtime_error);
}

}  // namespace
}  // namespace hetla::sim
