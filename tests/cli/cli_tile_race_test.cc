// tools/tile_race.hpp: the tile-size race of `hetla tune --tiles`, on made-up
// timings (no process, no clock).
#include "tile_race.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

using hetla::cli::race;

// The machine slows down while the race runs: 0.02 s a run, as much as the
// gaps between sizes. A climb that timed each size once, left to right, would
// take the first (it ran fastest); the race's forward-and-back rounds find
// the true best.
TEST(TileRace, DriftDoesNotPickTheSize) {
  const std::vector<double> truth{1.04, 1.02, 1.00, 1.01, 1.03, 1.05, 1.08};
  double drift = 0;
  const auto r = race(truth.size(), 2, [&](std::size_t i) { return truth[i] + (drift += 0.02); });
  EXPECT_EQ(r.best, 2u);
  // rounds of 7 and 4 candidates, two runs each
  EXPECT_EQ(r.total_runs, 22);
  int second_round = 0;
  for (int runs : r.runs) second_round += runs == 4;
  EXPECT_EQ(second_round, 4);
}

// A run disturbed by other work after the first round does not sink the
// best size: each candidate keeps its best round.
TEST(TileRace, ALaterSlowRunIsForgiven) {
  const std::vector<double> truth{1.03, 1.00, 1.02, 1.04, 1.06};
  int runs_of_best = 0;
  const auto r = race(truth.size(), 2, [&](std::size_t i) {
    if (i == 1 && ++runs_of_best == 3) return 2.0;  // its third run shared the cores
    return truth[i];
  });
  EXPECT_EQ(r.best, 1u);
  EXPECT_DOUBLE_EQ(r.score[1], 1.00);
  EXPECT_EQ(r.runs[1], 4);
}

// --repeat R: the finalists run until each has R runs (rounds of two); one
// candidate alone does too.
TEST(TileRace, RepeatBoundsTheFinalistsRuns) {
  const std::vector<double> truth{1.0, 0.9, 1.1};
  const auto r = race(truth.size(), 5, [&](std::size_t i) { return truth[i]; });
  EXPECT_EQ(r.best, 1u);
  EXPECT_GE(r.runs[1], 5);
  const auto one = race(1, 3, [](std::size_t) { return 1.0; });
  EXPECT_EQ(one.best, 0u);
  EXPECT_EQ(one.total_runs, 4);
  EXPECT_EQ(race(0, 3, [](std::size_t) { return 1.0; }).total_runs, 0);
}
