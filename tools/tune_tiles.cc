// The search does not time every tile size: candidates that leave fewer
// than two tile columns per worker are pruned (the DAG would starve the cores
// — the rule default_tile_size applies), and of the rest only those from half
// to twice the built-in default race (tile_race.hpp: rounds that halve the
// field, so drift of the machine while it runs does not pick the size), which
// on the rate-vs-nb curves of these routines (seed 002 Fig. 2a; measured
// here: dpotrf n=4000 85/96/98/95 GFLOP/s at nb 128/256/320/384) holds the
// best one.
#include "tune_tiles.hpp"

#include <algorithm>
#include <complex>
#include <functional>
#include <cstdio>
#include <stdexcept>
#include <utility>

#include "cli.hpp"
#include "progress.hpp"
#include "tile_race.hpp"
#include "context/context.hpp"
#include "hetla/hetla.hpp"
#include "matgen.hpp"
#include "tune/split_model.hpp"
#include "tune/tile_table.hpp"
#include "tune/tuned_tiles.hpp"
#include "util/blas_threads.hpp"

namespace hetla::cli {

namespace {

constexpr int64_t kCandidates[] = {64, 96, 128, 160, 192, 256, 320, 384, 448, 512};

template <typename T> double flop_count(const std::string& routine, double n) {
  const double scale = is_complex_v<T> ? 4 : 1;
  if (routine == "potrf") return scale * n * n * n / 3;
  if (routine == "getrf") return scale * 2 * n * n * n / 3;
  return scale * 4 * n * n * n / 3;  // geqrf
}

/// One timed run of a routine at (n, nb), each on a fresh copy of A0 in
/// buffers kept across the race's runs (allocated once, not per run).
template <typename T> class RoutineTimer {
 public:
  RoutineTimer(std::string routine, int64_t n, const std::vector<T>& A0)
      : routine_(std::move(routine)), n_(n), A0_(A0), A_(A0.size()), tau_(static_cast<std::size_t>(n)),
        ipiv_(static_cast<std::size_t>(n)) {}

  double seconds(int64_t nb) {
    Options o;
    o.nb = nb;
    A_ = A0_;
    const double t0 = now_seconds();
    if (routine_ == "potrf") {
      if (potrf<T>(Uplo::Lower, n_, A_.data(), n_, o) != 0) throw std::runtime_error("tune: potrf test matrix not HPD");
    } else if (routine_ == "getrf") {
      getrf<T>(n_, n_, A_.data(), n_, ipiv_.data(), o);
    } else {
      geqrf<T>(n_, n_, A_.data(), n_, tau_.data(), o);
    }
    return now_seconds() - t0;
  }

 private:
  std::string routine_;
  int64_t n_;
  const std::vector<T>& A0_;
  std::vector<T> A_, tau_;
  std::vector<int64_t> ipiv_;
};

struct Found {
  int64_t nb = 0;
  double gflops = 0;
  int timed = 0;  // candidates timed
  int runs = 0;   // runs in all
};

template <typename T>
Found search(const std::string& routine, int64_t n, int workers, int repeat, const std::function<void()>& tick) {
  const std::vector<T> A0 =
      routine == "potrf" ? bench::random_hpd<T>(n, n, 1) : bench::random_matrix<T>(n, n, n, 1);
  const Panels panels = routine == "potrf" ? Panels::Cholesky : routine == "getrf" ? Panels::LU : Panels::QR;
  const int64_t start = default_tile_size<T>(n, panels);
  std::vector<int64_t> cand;
  for (int64_t nb : kCandidates)
    if (nb <= n && (n + nb - 1) / nb >= 2 * workers && 2 * nb >= start && nb <= 2 * start) cand.push_back(nb);
  if (cand.empty()) cand.push_back(std::min<int64_t>(start, n));
  RoutineTimer<T> timer(routine, n, A0);
  const RaceResult r = race(cand.size(), repeat, [&](std::size_t i) {
    const double seconds = timer.seconds(cand[i]);
    tick();
    return seconds;
  });
  Found f{cand[r.best], flop_count<T>(routine, static_cast<double>(n)) / r.seconds[r.best] / 1e9, 0, r.total_runs};
  for (int runs : r.runs) f.timed += runs > 0;
  return f;
}

}  // namespace

TileSearch quick_tile_search() {
  TileSearch s;
  s.sizes = {1000, 2000, 4000};
  return s;
}

int tune_tiles(const TileSearch& s) {
  for (int64_t n : s.sizes)
    check_memory(2.0 * 16 * static_cast<double>(n) * static_cast<double>(n), "tune --tiles n=" + std::to_string(n));
  hetla::Config cfg;
  cfg.devices = s.devices;
  try {
    hetla::init(cfg);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--devices: ") + e.what());
  }
  const std::string path = tune::tiles_path();
  std::string key;
  int workers = 1;
  {
    detail::CallScope scope;
    key = tune::device_set_key(scope.rt());
    workers = scope.rt().num_host_workers();
    for (int d = 1; d < scope.rt().num_devices(); ++d) workers += scope.rt().device(d).num_workers();
  }
  tune::use_tuned_tiles(false);  // search from the built-in defaults, not an earlier table
  struct Restore {
    ~Restore() { tune::use_tuned_tiles(true); }
  } restore;
  tune::TileTable table;
  table.blas = util::blas_vendor();
  RecordPrinter printer(s.json);
  Progress progress("hetla tune --tiles", s.quiet);
  // Progress counts searches; the time left extrapolates from the work done,
  // weighting each search by its flops (n^3): the large sizes dominate.
  double total_work = 0, done_work = 0;
  for (std::size_t r = 0; r < s.routines.size() * s.precisions.size(); ++r)
    for (int64_t n : s.sizes) total_work += static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  const double t_start = now_seconds();
  const int64_t steps = static_cast<int64_t>(s.routines.size() * s.precisions.size() * s.sizes.size());
  int64_t step = 0;
  for (const std::string& routine : s.routines)
    for (char p : s.precisions)
      for (int64_t n : s.sizes) {
        const double work = static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
        std::string phase = std::string(1, p) + routine + " n=" + std::to_string(n);
        if (done_work > 0) {
          const double left = (now_seconds() - t_start) * (total_work - done_work) / done_work;
          phase += ", about " + std::to_string(static_cast<int>(left + 0.5)) + " s left";
        }
        auto tick = [&] { progress.update(phase, step, steps); };
        tick();
        Found f;
        switch (p) {
          case 's': f = search<float>(routine, n, workers, s.repeat, tick); break;
          case 'd': f = search<double>(routine, n, workers, s.repeat, tick); break;
          case 'c': f = search<std::complex<float>>(routine, n, workers, s.repeat, tick); break;
          default: f = search<std::complex<double>>(routine, n, workers, s.repeat, tick); break;
        }
        done_work += work;
        ++step;
        table.entries.push_back({routine, p, key, n, f.nb, f.gflops});
        Record rec;
        rec.add("routine", routine, "", 6).add("precision", std::string(1, p), "", 9).add("n", n, "", 6);
        rec.add("nb", f.nb, "", 4).add("gflops", f.gflops, "", 8, 2).add("timed", static_cast<int64_t>(f.timed), "", 5);
        rec.add("runs", static_cast<int64_t>(f.runs), "", 4);
        progress.clear();
        printer.print(rec);
      }
  progress.clear();
  hetla::finalize();
  if (!s.dry) {
    tune::save_tiles(table, path);
    if (!s.json) std::printf("saved to %s (%.0f s)\n", path.c_str(), now_seconds() - t_start);
  }
  return kExitOk;
}

}  // namespace hetla::cli
