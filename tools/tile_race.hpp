// Which of a few tile sizes is fastest, when the machine itself drifts. A
// climb that times one point after another follows the drift: this host ran
// `hetla tune --tiles -n 4000` twice, 7 minutes apart, and the climb picked
// dpotrf nb 192 (89.4 GFLOP/s) then 448 (81.0), dgetrf 192 then 320, while
// `hetla bench` between the two read dgetrf 192 and 256 within 1 % of each
// other. So the candidates race in rounds: a round times every one still in
// the race forward then backward, and scores each by the mean of its two
// runs (a drift linear in time adds the same to every score); a candidate's
// score is its best round (a burst of other work in a later round does not
// undo a clean one); each round keeps the better half, down to two, which
// stop once each has R runs. 7 candidates, R <= 4: rounds of 7 and 4, 22 runs.
#pragma once
#include <algorithm>
#include <cstddef>
#include <limits>
#include <numeric>
#include <vector>

namespace hetla::cli {

struct RaceResult {
  std::size_t best = 0;         // index of the fastest candidate
  std::vector<double> seconds;  // each candidate's fastest run (infinity: never timed)
  std::vector<double> score;    // each candidate's best round: the mean of its two runs
  std::vector<int> runs;        // runs of each candidate
  int total_runs = 0;
};

/// `time_once(i)`: one timed run of candidate i, in seconds.
template <typename TimeOnce> RaceResult race(std::size_t candidates, int repeat, TimeOnce&& time_once) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  RaceResult r;
  r.seconds.assign(candidates, inf);
  r.score.assign(candidates, inf);
  r.runs.assign(candidates, 0);
  if (candidates == 0) return r;
  std::vector<std::size_t> alive(candidates);
  std::iota(alive.begin(), alive.end(), std::size_t{0});
  std::vector<double> round(candidates);
  auto run = [&](std::size_t i) {
    const double t = time_once(i);
    r.seconds[i] = std::min(r.seconds[i], t);
    round[i] += t / 2;
    ++r.runs[i], ++r.total_runs;
  };
  auto better = [&](std::size_t a, std::size_t b) { return r.score[a] < r.score[b]; };
  for (;;) {
    for (std::size_t i : alive) round[i] = 0;
    std::for_each(alive.begin(), alive.end(), run);
    std::for_each(alive.rbegin(), alive.rend(), run);
    for (std::size_t i : alive) r.score[i] = std::min(r.score[i], round[i]);
    if (alive.size() > 2) {
      std::sort(alive.begin(), alive.end(), better);
      alive.resize(std::max<std::size_t>(2, (alive.size() + 1) / 2));
      std::sort(alive.begin(), alive.end());  // candidate order for the next round's sweeps
    }
    if (alive.size() <= 2 && std::all_of(alive.begin(), alive.end(), [&](std::size_t i) { return r.runs[i] >= repeat; }))
      break;
  }
  r.best = *std::min_element(alive.begin(), alive.end(), better);
  return r;
}

}  // namespace hetla::cli
