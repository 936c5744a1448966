// The search times one call of each path through the C++ API, the path
// forced by the crossover table itself (set_crossover: huge for the vendor
// in the caller's thread, 0 for the task graph), so it measures exactly what
// a call on either side of the crossover runs. Sizes are climbed from small
// to large; the crossover is the first size from which the tile path wins
// at two ladder sizes in a row (one win among losses is taken for noise: the
// ratios swing by 2x between runs on a loaded machine), and the climb stops
// there. A loop repeats a call for about 10 ms; the input is copied back
// before each call, and the copies, timed alone, are subtracted.
#include "tune_crossover.hpp"

#include <algorithm>
#include <complex>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>

#include "cli.hpp"
#include "hetla/linalg.hpp"
#include "hetla/lu.hpp"
#include "hetla/qr.hpp"
#include "matgen.hpp"
#include "progress.hpp"
#include "tune/crossover.hpp"
#include "tune/crossover_table.hpp"
#include "util/blas_threads.hpp"

namespace hetla::cli {

namespace {

constexpr double kLoopSeconds = 0.01;
constexpr int kNever = 1 << 30;  // a crossover that keeps every call on the vendor

tune::Routine routine_of(const std::string& r) {
  return r == "potrf" ? tune::Routine::Potrf : r == "getrf" ? tune::Routine::Getrf : tune::Routine::Geqrf;
}

/// One call of `routine` on a copy of A0, either path.
template <typename T> struct Call {
  std::string routine;
  int64_t n;
  std::vector<T> A0, A, tau;
  std::vector<int64_t> ipiv;
  Call(const std::string& r, int64_t n_)
      : routine(r),
        n(n_),
        A0(r == "potrf" ? bench::random_hpd<T>(n_, n_, 1) : bench::random_matrix<T>(n_, n_, n_, 1)),
        A(A0),
        tau(static_cast<std::size_t>(n_)),
        ipiv(tau.size()) {}
  void reset() { std::memcpy(A.data(), A0.data(), A.size() * sizeof(T)); }
  void run() {
    reset();
    if (routine == "potrf") {
      if (potrf<T>(Uplo::Lower, n, A.data(), n) != 0) throw std::runtime_error("tune: potrf test matrix not HPD");
    } else if (routine == "getrf") {
      getrf<T>(n, n, A.data(), n, ipiv.data());
    } else {
      geqrf<T>(n, n, A.data(), n, tau.data());
    }
  }
};

template <typename F> double loop_seconds(int64_t calls, F&& f) {
  const double t0 = now_seconds();
  for (int64_t i = 0; i < calls; ++i) f();
  return now_seconds() - t0;
}

/// vendor seconds / tile seconds per call at size n (> 1: the tile path wins).
template <typename T> double ratio_at(const std::string& routine, int64_t n, int repeat) {
  const tune::Routine r = routine_of(routine);
  const int p = tune::precision_index<T>();
  Call<T> c(routine, n);
  auto use = [&](bool tiles) { tune::set_crossover(r, p, tiles ? 0 : kNever); };
  use(true);
  double tile1 = loop_seconds(1, [&] { c.run(); });  // the first builds the context
  tile1 = loop_seconds(1, [&] { c.run(); });
  use(false);
  const double vendor1 = loop_seconds(1, [&] { c.run(); });
  const int64_t calls = std::clamp<int64_t>(static_cast<int64_t>(kLoopSeconds / std::max(tile1, vendor1)), 1, 10000);
  double copy = std::numeric_limits<double>::infinity(), tile = copy, vendor = copy;
  for (int k = 0; k < repeat; ++k) {
    copy = std::min(copy, loop_seconds(calls, [&] { c.reset(); }));
    use(false);
    vendor = std::min(vendor, loop_seconds(calls, [&] { c.run(); }));
    use(true);
    tile = std::min(tile, loop_seconds(calls, [&] { c.run(); }));
  }
  const double floor = 1e-9 * static_cast<double>(calls);
  return std::max(floor, vendor - copy) / std::max(floor, tile - copy);
}

struct Found {
  int64_t n = 0;  // the crossover, or 2x the largest size when the tile path never won
  bool won = false;
  std::string ratios;  // "n:ratio ..." as measured
};

template <typename T>
Found search(const std::string& routine, const CrossoverSearch& s, const std::function<void()>& tick) {
  Found f;
  int64_t first_win = 0;
  for (std::size_t i = 0; i < s.sizes.size(); ++i) {
    const int64_t n = s.sizes[i];
    const double ratio = ratio_at<T>(routine, n, s.repeat);
    tick();
    char buf[48];
    std::snprintf(buf, sizeof buf, "%s%lld:%.2f", f.ratios.empty() ? "" : " ", static_cast<long long>(n), ratio);
    f.ratios += buf;
    if (ratio <= 1) {
      first_win = 0;
      continue;
    }
    if (!first_win) first_win = n;
    if (first_win != n || i + 1 == s.sizes.size()) {  // two wins in a row, or a win at the largest size
      f.n = first_win, f.won = true;
      return f;
    }
  }
  f.n = 2 * s.sizes.back();
  return f;
}

}  // namespace

int tune_crossover(const CrossoverSearch& s) {
  const std::string path = tune::crossover_path();
  tune::CrossoverTable table;
  table.blas = util::blas_vendor();
  RecordPrinter printer(s.json);
  Progress progress("hetla tune --crossover", s.quiet);
  const double t_start = now_seconds();
  const int64_t steps = static_cast<int64_t>(s.routines.size() * s.precisions.size() * s.sizes.size());
  int64_t step = 0;
  for (const std::string& routine : s.routines)
    for (char p : s.precisions) {
      const std::string phase = std::string(1, p) + routine;
      auto tick = [&] { progress.update(phase, step++, steps); };
      Found f;
      switch (p) {
        case 's': f = search<float>(routine, s, tick); break;
        case 'd': f = search<double>(routine, s, tick); break;
        case 'c': f = search<std::complex<float>>(routine, s, tick); break;
        default: f = search<std::complex<double>>(routine, s, tick); break;
      }
      table.entries.push_back({routine, p, f.n});
      Record rec;
      rec.add("routine", routine, "", 6).add("precision", std::string(1, p), "", 9);
      rec.add("crossover", f.n, "", 9).add("won", f.won, "", 5).add("ratios", f.ratios, "vendor/tiles at n", 0);
      progress.clear();
      printer.print(rec);
    }
  progress.clear();
  if (!s.dry) {
    tune::save_crossovers(table, path);
    if (!s.json) std::printf("saved to %s (%.0f s)\n", path.c_str(), now_seconds() - t_start);
  }
  tune::reload_crossovers();  // drop the forced values: the table as a new process would see it
  return kExitOk;
}

}  // namespace hetla::cli
