// Helpers for the dense linear algebra benchmarks: precision dispatch,
// best-of-R timing on fresh inputs, and the standard result record.
#pragma once
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <optional>

#include "bench/flops.hpp"
#include "bench/registry.hpp"
#include "bench/vendor.hpp"
#include "checks.hpp"
#include "hetla/linalg.hpp"
#include "matgen.hpp"
#include "util/blas_threads.hpp"

namespace hetla::cli {

/// Calls f.template operator()<T>() with T the scalar type of precision p.
template <typename F> decltype(auto) with_precision(char p, F&& f) {
  switch (p) {
    case 's': return f.template operator()<float>();
    case 'd': return f.template operator()<double>();
    case 'c': return f.template operator()<std::complex<float>>();
    case 'z': return f.template operator()<std::complex<double>>();
  }
  throw UsageError(std::string("unknown precision '") + p + "'");
}

/// Best (minimum) wall time over `repeat` runs of `work`; `reset` restores
/// fresh inputs before every run and is not timed.
template <typename Reset, typename Work> double best_time(int repeat, Reset&& reset, Work&& work) {
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < std::max(1, repeat); ++r) {
    reset();
    const double t0 = now_seconds();
    work();
    best = std::min(best, now_seconds() - t0);
  }
  return best;
}

/// Runs `f` with the host BLAS on `threads` threads (the vendor baseline).
template <typename F> decltype(auto) with_vendor_threads(int threads, F&& f) {
  util::BlasThreadsGuard guard(std::max(1, threads));
  return f();
}

/// What one configuration measured.
struct LinalgResult {
  int64_t m = 0, n = 0, nrhs = 0, nb = 0;
  double flops = 0;                 // LAWN 41 count of the measured operation
  double seconds = 0;               // hetla, best of --repeat
  int64_t info = 0;                 // hetla's info
  std::optional<double> residual;   // scaled residual (with --check)
  std::optional<double> baseline_seconds;
  std::optional<int64_t> baseline_info;
};

/// Sizes and tile size (--nb, or hetla::default_tile_size<T>(n)).
template <typename T> LinalgResult start_result(const BenchConfig& c, int64_t m, int64_t n, int64_t nrhs) {
  LinalgResult r;
  r.m = m;
  r.n = n;
  r.nrhs = nrhs;
  r.nb = c.nb > 0 ? c.nb : hetla::default_tile_size<T>(n);
  return r;
}

/// Bytes of `elements` scalars of precision p.
inline double scalar_bytes(char p, double elements) {
  return elements * (p == 's' ? 4.0 : p == 'd' || p == 'c' ? 8.0 : 16.0);
}

/// The standard record: routine, precision, sizes, time, GFLOP/s, residual,
/// baseline and ratio (= baseline_seconds / seconds, > 1 when hetla is faster).
Record make_record(const BenchConfig& c, const LinalgResult& r);

}  // namespace hetla::cli
