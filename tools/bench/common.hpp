// Helpers for the dense linear algebra benchmarks: precision dispatch,
// best-of-R timing on fresh inputs (traced when a TraceCapture is active),
// and the standard result record.
#pragma once
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "bench/flops.hpp"
#include "bench/registry.hpp"
#include "bench/vendor.hpp"
#include "checks.hpp"
#include "hetla/linalg.hpp"
#include "context/context.hpp"
#include "linalg/tile_schedule.hpp"
#include "matgen.hpp"
#include "runtime/runtime.hpp"
#include "trace/trace.hpp"
#include "util/blas_threads.hpp"
#include "util/energy.hpp"
#include "util/memory_peak.hpp"

namespace hetla::cli {

/// Task trace of the timed hetla runs. While a TraceCapture exists (one per
/// configuration, created by `hetla bench`), best_time() installs a recorder
/// on the library runtime around every timed run and keeps the last run's
/// events; with_vendor_threads() pauses it, so the vendor baseline (and any
/// untimed vendor call) never replaces them.
class TraceCapture {
 public:
  /// Becomes the active capture; with `energy`, also reads the energy
  /// counters around every timed run (see util::EnergyMeter).
  explicit TraceCapture(bool energy = false);
  ~TraceCapture();
  TraceCapture(const TraceCapture&) = delete;
  TraceCapture& operator=(const TraceCapture&) = delete;
  /// The capture best_time() records into: nullptr when none exists or paused.
  static TraceCapture* active();

  /// Installs a restarted recorder on the library runtime (before a timed run).
  void begin();
  /// Removes it; keeps its events when `seconds` (the run's wall time) >= 0,
  /// drops them when the run failed (seconds < 0). No-op without begin().
  void end(double seconds) noexcept;

  bool captured() const { return captured_; }  // a timed run was recorded
  const std::vector<trace::Event>& events() const { return events_; }
  int num_workers() const { return num_workers_; }
  double seconds() const { return seconds_; }  // wall time of the recorded run
  /// Trace row names: "worker W", "(caller)" for worker 0, and the worker's
  /// device in brackets when the runtime has more than one device.
  const std::vector<std::string>& row_names() const { return row_names_; }
  /// Per-device counters of the recorded run (tasks, flops, busy, bytes moved).
  struct DeviceRun {
    std::string name;
    int workers = 0;
    rt::DeviceStats stats;
  };
  const std::vector<DeviceRun>& devices() const { return devices_; }
  /// Energy of the recorded run per counter (needs `energy` and readable
  /// counters); energy_meter() is null without `energy`.
  const std::vector<util::EnergySample>& joules() const { return joules_; }
  const util::EnergyMeter* energy_meter() const { return energy_.get(); }
  /// Bytes the process's resident memory grew at most during the recorded
  /// run (nullopt where Linux's peak counter cannot be reset).
  std::optional<int64_t> memory_growth() const { return memory_growth_; }

  /// Pauses the active capture for its lifetime.
  class Pause {
   public:
    Pause();
    ~Pause();
    Pause(const Pause&) = delete;
    Pause& operator=(const Pause&) = delete;

   private:
    TraceCapture* paused_;
  };

 private:
  std::unique_ptr<trace::Recorder> rec_;
  std::vector<trace::Event> events_;
  std::vector<std::string> row_names_;
  std::vector<DeviceRun> devices_;
  std::unique_ptr<util::EnergyMeter> energy_;
  std::vector<util::EnergySample> joules_;
  util::MemoryPeak memory_;
  std::optional<int64_t> memory_growth_;
  int num_workers_ = 0;
  double seconds_ = 0;
  bool captured_ = false;
  bool recording_ = false;
  TraceCapture* previous_ = nullptr;
};

/// Best (minimum) wall time over `repeat` runs of `work`; `reset` restores
/// fresh inputs before every run and is not timed. With an active
/// TraceCapture, each run is traced and the capture keeps the last one.
template <typename Reset, typename Work> double best_time(int repeat, Reset&& reset, Work&& work) {
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < std::max(1, repeat); ++r) {
    reset();
    TraceCapture* capture = TraceCapture::active();
    struct Stop {  // removes the recorder, also when work() throws
      TraceCapture* c;
      double seconds = -1;  // < 0: the run did not finish
      ~Stop() {
        if (c) c->end(seconds);
      }
    } stop{capture};
    if (capture) capture->begin();
    const double t0 = now_seconds();
    work();
    stop.seconds = now_seconds() - t0;
    best = std::min(best, stop.seconds);
  }
  return best;
}

/// Runs `f` with the host BLAS on `threads` threads (the vendor baseline);
/// tracing is paused meanwhile.
template <typename F> decltype(auto) with_vendor_threads(int threads, F&& f) {
  util::BlasThreadsGuard guard(std::max(1, threads));
  TraceCapture::Pause pause;
  return f();
}

struct LinalgResult;

/// hetla's best time over --repeat runs and, with --baseline, the vendor's,
/// their runs alternating (vendor, hetla, vendor, hetla, ...): both meet the
/// same machine state, so a slow drift of the machine's speed (other load,
/// clocks) moves both times rather than their ratio. hetla runs last, so its
/// output is what --check reads afterwards.
template <typename Reset, typename Work, typename Vendor>
void time_against_vendor(const BenchConfig& c, LinalgResult& r, Reset&& reset, Work&& work, Vendor&& vendor);

/// What one configuration measured.
struct LinalgResult {
  int64_t m = 0, n = 0, nrhs = 0, nb = 0;
  double flops = 0;                 // LAWN 41 count of the measured operation
  double seconds = 0;               // hetla, best of --repeat
  int64_t info = 0;                 // hetla's info
  std::optional<double> residual;   // scaled residual (with --check)
  std::optional<double> baseline_seconds;
  std::optional<int64_t> baseline_info;
  std::optional<double> gemm_gflops;  // the same run's vendor GEMM rate (measure_gemm_rate)
  // what a hybrid tiling (--distribution hybrid) is planned for: the
  // routine's panels and its column count (-1: n)
  hetla::Panels panels = hetla::Panels::Cholesky;
  int64_t tiled_n = -1;
  std::vector<int64_t> tile_schedule;  // the tile sizes of a variable schedule (factor_options)
};

template <typename Reset, typename Work, typename Vendor>
void time_against_vendor(const BenchConfig& c, LinalgResult& r, Reset&& reset, Work&& work, Vendor&& vendor) {
  if (!c.baseline) {
    r.seconds = best_time(c.repeat, reset, work);
    return;
  }
  double mine = std::numeric_limits<double>::infinity(), theirs = mine;
  // Untimed runs first, two of the vendor's and one of hetla's, unless a run
  // is long (over 1e11 flops): the first vendor factorizations in a process
  // are cold. Measured here (2 threads): dpotrf n = 1000 57-67 ms in its
  // first call against 5.3-5.6 warm; dgetrf n = 1000 33-43 ms in its first
  // two calls against 12.2-12.4 from the third (12.8 in a C program's
  // loop), which read as ratios of 4-15 with --repeat 1 or 2 (a warm-up GEMM
  // on the same threads did not help); hetla's first call ran ~10 % slow.
  if (r.flops <= 1e11) {
    for (int i = 0; i < 2; ++i) with_vendor_threads(c.threads, [&] { reset(), vendor(); });
    reset(), work();
  }
  for (int i = 0; i < std::max(1, c.repeat); ++i) {
    theirs = std::min(theirs, with_vendor_threads(c.threads, [&] { return best_time(1, reset, vendor); }));
    mine = std::min(mine, best_time(1, reset, work));
  }
  r.seconds = mine;
  r.baseline_seconds = theirs;
}

/// With --baseline: the vendor GEMM rate at this size and precision (m x n
/// times n x n, on as many BLAS threads as hetla has workers, best of
/// --repeat), measured in the same run: the bound a factorization's rate is
/// held to (gemm_fraction = gflops / gemm_gflops): almost all its flops are
/// GEMM updates.
template <typename T> void measure_gemm_rate(const BenchConfig& c, LinalgResult& r, int64_t m, int64_t n) {
  if (!c.baseline) return;
  // Inner dimension min(m, n), the factorizations' update rank order: a
  // wide 500 x 20000 must not time a 500 x 20000 x 20000 product.
  const int64_t k = std::min(m, n), ldb = std::max<int64_t>(1, k);
  const auto A = bench::random_matrix<T>(m, k, m, 11), B = bench::random_matrix<T>(k, n, ldb, 12);
  std::vector<T> C(static_cast<std::size_t>(m * n));
  const double seconds = with_vendor_threads(c.threads, [&] {
    return best_time(
        c.repeat, [] {},
        [&] { blas::gemm(Op::NoTrans, Op::NoTrans, m, n, k, T(1), A.data(), m, B.data(), ldb, T(0), C.data(), m); });
  });
  const double flops = (is_complex_v<T> ? 8.0 : 2.0) * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  if (seconds > 0) r.gemm_gflops = flops / seconds / 1e9;
}

/// Sizes, the routine's panels and tile size (--nb, or
/// hetla::default_tile_size<T>(n, panels)).
template <typename T>
LinalgResult start_result(const BenchConfig& c, int64_t m, int64_t n, int64_t nrhs,
                          hetla::Panels panels = hetla::Panels::Cholesky) {
  LinalgResult r;
  r.m = m;
  r.n = n;
  r.nrhs = nrhs;
  r.panels = panels;
  // the general size for Cholesky-shaped routines (gemm, trsm, potrs, ...);
  // a factorization's own comes from factor_options
  r.nb = c.nb > 0                            ? c.nb
         : panels == hetla::Panels::Cholesky ? hetla::default_tile_size<T>(n)
                                             : hetla::default_tile_size<T>(n, panels);
  return r;
}

/// The options of a timed factorization (potrf, getrf, geqrf): --nb (0: the
/// library's own choice, so that its default tile schedule applies) and
/// --variable-tiles. Records the schedule in r when the call uses one.
template <typename T> hetla::Options factor_options(const BenchConfig& c, LinalgResult& r, int64_t m, int64_t n) {
  hetla::Options o;
  o.nb = c.nb;
  o.variable_tiles = c.variable_tiles;
  if (c.nb <= 0) r.nb = hetla::default_tile_size<T>(m, n, r.panels);  // the library's choice
  if (hetla::detail::variable_tiles(o, m, n, r.panels) && hetla::detail::default_distribution() != Distribution::Hybrid)
    r.tile_schedule = hetla::variable_tiling<T>(m, n, r.panels, c.nb).sizes;
  return o;
}

/// Bytes of `elements` scalars of precision p.
inline double scalar_bytes(char p, double elements) {
  return elements * (p == 's' ? 4.0 : p == 'd' || p == 'c' ? 8.0 : 16.0);
}

/// The standard record: routine, precision, sizes, time, GFLOP/s, residual,
/// baseline and ratio (= baseline_seconds / seconds, > 1 when hetla is faster).
Record make_record(const BenchConfig& c, const LinalgResult& r);

/// Appends the trace summary of the recorded run to `rec`: busy_pct (mean
/// over workers), imbalance (max / mean busy time), workers (per worker: id,
/// tasks, busy_pct) and kernels (per label: count, seconds, share_pct).
/// Adds `devices`: per device tasks, share of flops, busy %, bytes in/out, evictions.
void add_device_summary(Record& rec, const TraceCapture& cap);
/// Adds `peak_rss_mb` (the process's peak resident memory) and `run_rss_mb`
/// (how much it grew during the recorded run: the call's own workspace).
void add_memory_summary(Record& rec, const TraceCapture& cap);
/// Where the runtime's record of device failures ends now (Runtime::recoveries()).
std::size_t recovery_mark();
/// Vendor BLAS / LAPACK calls that rejected an argument (the CLI's xerbla_,
/// bench/vendor_rejections.cc) since the process started.
int64_t vendor_rejections();
/// `recovered`: the devices that failed since `first` and what recovering
/// cost (docs/reliability.md); nothing when none failed. Also on stderr
/// without --json.
void add_recoveries(Record& rec, std::size_t first, bool json);
/// Adds `energy` (per counter: device, joules of the recorded run) or, where
/// no counter is readable, energy null and `energy_note` saying why.
void add_energy_summary(Record& rec, const TraceCapture& cap);
void add_trace_summary(Record& rec, const trace::Summary& s);

}  // namespace hetla::cli
