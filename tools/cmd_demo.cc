// hetla demo: solve a random symmetric positive definite system A X = B in
// double precision with hetla (hetla::posv) and with the vendor LAPACK
// (dposv, all cores), side by side, and check hetla's solution.
//
// The order n is chosen so that the whole demo takes about 20 s here: a short
// calibration times both solvers and the O(n^2) work (generation, copies,
// residuals) at growing sizes until a run takes long enough to extrapolate
// (n^3 and n^2), then n is solved for. Memory caps n at half the available RAM.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "bench/flops.hpp"
#include "bench/vendor.hpp"
#include "checks.hpp"
#include "cli.hpp"
#include "options.hpp"
#include "progress.hpp"
#include "hetla/context.hpp"
#include "hetla/linalg.hpp"
#include "hetla/version.hpp"
#include "matgen.hpp"
#include "util/blas_threads.hpp"
#include "util/hwloc_topology.hpp"

namespace hetla::cli {

namespace {

constexpr double kTargetSeconds = 20;  // aim for the middle of 10-30 s
constexpr int64_t kMinN = 1000;

struct Run {
  double seconds = 0;
  int64_t info = 0;
  double residual = 0;
};

/// One side-by-side solve at order n. `progress` prints the step lines.
struct Demo {
  int64_t n, nrhs;
  int workers;
  std::vector<double> A0, B0, A, X;
  double quadratic_seconds = 0;  // generation, copies and residuals

  void generate() {
    const double t0 = now_seconds();
    A0 = bench::random_hpd<double>(n, n, 20240601);
    B0 = bench::random_matrix<double>(n, nrhs, n, 20240602);
    quadratic_seconds += now_seconds() - t0;
  }
  Run solve(bool vendor_lapack) {
    Run r;
    double t0 = now_seconds();
    A = A0;
    X = B0;
    quadratic_seconds += now_seconds() - t0;
    t0 = now_seconds();
    if (vendor_lapack) {
      util::BlasThreadsGuard guard(workers);
      r.info = vendor::posv(Uplo::Lower, n, nrhs, A.data(), n, X.data(), n);
    } else {
      r.info = hetla::posv(Uplo::Lower, n, nrhs, A.data(), n, X.data(), n);
    }
    r.seconds = now_seconds() - t0;
    t0 = now_seconds();
    {
      util::BlasThreadsGuard guard(workers);
      r.residual = bench::solve_residual<double>(n, n, nrhs, A0.data(), n, X.data(), n, B0.data(), n);
    }
    quadratic_seconds += now_seconds() - t0;
    return r;
  }
};

bool passed(const Run& r) {
  return r.info == 0 && std::isfinite(r.residual) && r.residual < bench::kResidualThreshold;
}

}  // namespace

int cmd_demo(int argc, char** argv, int first) {
  int64_t n_given = 0, nrhs = 100;
  bool quiet = false;
  char threshold[32];
  std::snprintf(threshold, sizeof threshold, "%g", bench::kResidualThreshold);
  CLI::App app("Solves a random symmetric positive definite system A X = B in double precision\n"
               "with hetla::posv and with the vendor LAPACK dposv on all cores, prints both\n"
               "times and GFLOP/s, their ratio and hetla's scaled residual\n"
               "||B - A X||_1 / (n ||A||_1 ||X||_1 eps), which must be below " + std::string(threshold) + ".",
               "hetla demo");
  setup_command(app, "[-n N] [--nrhs K] [--quiet]",
                "The steps are reported on stderr (on a terminal with their running time);\n"
                "--quiet silences them.\n"
                "Exit status: 0 when hetla's residual check passed, 1 otherwise, 2 usage error.");
  app.add_option("-n", n_given, "order of A; without it a short calibration sizes the problem\nso that the demo takes about " + std::to_string(static_cast<int>(kTargetSeconds)) + " s")
      ->option_text("N")->transform(integer(1, int64_t(1) << 20))->default_str("calibrated");
  app.add_option("--nrhs", nrhs, "right-hand sides (columns of B)")
      ->option_text("K")->transform(integer(1, int64_t(1) << 20))->capture_default_str();
  app.add_flag("--quiet,-q", quiet, "no step lines on stderr");
  if (!parse_command(app, argc, argv, first)) return kExitOk;

  // Before any work: A, its copy, B and X fit in memory.
  if (n_given)
    check_memory(sizeof(double) * 2.0 * static_cast<double>(n_given) * static_cast<double>(n_given + nrhs),
                 "demo n=" + std::to_string(n_given));
  const double t_start = now_seconds();
  auto& topo = util::Topology::get();
  const int workers = hetla::num_threads();  // starts the runtime
  const int steps = n_given ? 3 : 4;
  int step = 0;
  Progress steps_shown("hetla demo", quiet);  // on a terminal each step ticks its running time
  auto progress = [&](const std::string& what) { steps_shown.step(what, ++step, steps); };
  std::printf("hetla demo: Cholesky solve A X = B in double precision, hetla vs. the vendor LAPACK\n");
  std::printf("  machine: %s, %d cores\n", topo.cpu_model().c_str(), topo.cores());
  std::printf("  LAPACK:  %s, %d threads\n", util::blas_vendor().c_str(), workers);
  std::printf("  hetla:   %s, %d worker threads\n", HETLA_VERSION_STRING, workers);
  std::fflush(stdout);

  int64_t n = n_given;
  if (!n) {
    progress("calibrating the problem size on this machine");
    // Grow the order until the two solves take long enough to extrapolate.
    // Each order is timed twice and the faster pair counts: a quickstart that
    // timed one pair stopped at n = 600 and demoed n = 1000 in 3.4 s (its pair
    // must have read seconds: a stall of the host), where it usually demoes
    // ~10 000 in ~20 s.
    double cubic = 0, quadratic = 0;
    int64_t nc = 600;
    while (true) {
      Demo d{nc, nrhs, workers, {}, {}, {}, {}};
      d.generate();
      const double generation = d.quadratic_seconds;
      cubic = std::numeric_limits<double>::infinity();
      for (int pair = 0; pair < 2; ++pair) {
        const Run h = d.solve(false);
        const Run l = d.solve(true);
        cubic = std::min(cubic, h.seconds + l.seconds);
      }
      quadratic = generation + (d.quadratic_seconds - generation) / 2;  // the demo copies and checks once
      if (cubic >= 0.6 || nc >= 6000) break;
      nc = std::min<int64_t>(6000, nc * 3 / 2);
    }
    const double budget = kTargetSeconds - (now_seconds() - t_start);
    auto predict = [&](double m) {
      const double s = m / static_cast<double>(nc);
      return cubic * s * s * s + quadratic * s * s;
    };
    double lo = static_cast<double>(kMinN), hi = 200000;
    for (int it = 0; it < 60; ++it) {
      const double mid = 0.5 * (lo + hi);
      (predict(mid) < budget ? lo : hi) = mid;
    }
    // A0 and a working copy of A dominate memory; keep them under half of the free RAM.
    const double mem_cap = std::sqrt(0.5 * available_memory_bytes() / (2.0 * sizeof(double)));
    n = std::max<int64_t>(kMinN, static_cast<int64_t>(std::min(lo, mem_cap)) / 100 * 100);
    steps_shown.clear();  // the step line ends before stdout writes on the same terminal
    std::printf("  size:    n = %lld (calibrated at n = %lld for a ~%.0f s demo%s), nrhs = %lld\n",
                static_cast<long long>(n), static_cast<long long>(nc), kTargetSeconds,
                lo > mem_cap ? "; capped by memory" : "", static_cast<long long>(nrhs));
  } else {
    std::printf("  size:    n = %lld, nrhs = %lld\n", static_cast<long long>(n), static_cast<long long>(nrhs));
  }
  std::fflush(stdout);

  Demo d{n, nrhs, workers, {}, {}, {}, {}};
  progress("generating a random SPD matrix, n=" + std::to_string(n) + ", and " + std::to_string(nrhs) +
           " right-hand sides");
  d.generate();
  progress("hetla posv n=" + std::to_string(n) + ", then its residual ...");
  const Run h = d.solve(false);
  progress("LAPACK dposv n=" + std::to_string(n) + " (" + std::to_string(workers) + " threads), then its residual ...");
  const Run l = d.solve(true);

  steps_shown.clear();
  const double flops = flops::posv<double>(static_cast<double>(n), static_cast<double>(nrhs));
  auto line = [&](const char* name, const Run& r) {
    std::printf("  %-22s %10.3f %10.2f %12.2e  %s\n", name, r.seconds, flops / r.seconds / 1e9, r.residual,
                r.info != 0 ? ("info=" + std::to_string(r.info)).c_str() : passed(r) ? "passed" : "FAILED");
  };
  std::printf("\n  %-22s %10s %10s %12s  %s\n", "solver", "seconds", "GFLOP/s", "residual", "check");
  line("hetla posv", h);
  line("LAPACK dposv", l);
  std::printf("\n  ratio LAPACK seconds / hetla seconds: %.3f (> 1 means hetla is faster)\n", l.seconds / h.seconds);
  std::printf("  residual = ||B - A X||_1 / (n ||A||_1 ||X||_1 eps), passes below %g\n", bench::kResidualThreshold);
  const bool ok = passed(h);
  std::printf("  result: %s\n", ok ? "PASSED" : "FAILED (hetla's solution did not pass the residual check)");
  std::printf("  demo wall time: %.1f s\n", now_seconds() - t_start);
  return ok ? kExitOk : kExitFailed;
}

}  // namespace hetla::cli
