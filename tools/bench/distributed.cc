// `hetla bench <routine> --grid PxQ` under mpirun (issue 16, docs/mpi.md),
// built as the plugin libhetla_benchmpi.so (bench/distributed.hpp):
// the distributed routine (src/mpi) on a P x Q grid of the launched
// processes, against ScaLAPACK on the same processes, the same block size and
// the same matrix (--baseline). Rank 0 prints one record (--json: one line).
#include "bench/distributed.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/flops.hpp"
#include "bench/scalapack.hpp"
#include "checks.hpp"
#include "checks_lu.hpp"
#include "checks_qr.hpp"
#include "cli.hpp"
#include "context/context.hpp"
#include "hetla/context.hpp"
#include "hetla/linalg.hpp"
#include "kernels/host/blas.hpp"
#include "matgen.hpp"
#include "mpi/grid.hpp"
#include "mpi/routines.hpp"
#include "options.hpp"
#include "trace/trace.hpp"
#include "util/blas_threads.hpp"
#include "util/hwloc_topology.hpp"

namespace hetla::cli {

namespace {

struct Args {
  std::string routine, grid, uplo = "L", precision = "d", devices, trace;
  int threads = 0;
  int64_t m = -1, n = 0, k = -1, nb = 0;
  int repeat = 1;
  bool check = false, baseline = false, json = false;
};

struct Result {
  double seconds = 0, baseline_seconds = 0, residual = -1, flops = 0;
  int64_t info = 0, baseline_info = 0;
  double bytes_sent = 0;  // by this process, per hetla run
};

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// This process's share of a hetla run: its workers' busy time and flops
// (the runtime's counters) and its task trace, for the per-rank busy %, the
// rank imbalance and --trace. The last timed run is kept.
struct RankCapture {
  std::unique_ptr<trace::Recorder> rec;
  std::vector<trace::Event> events;
  int rows = 0, workers = 0;
  double seconds = 0, busy_seconds = 0, flops = 0;

  void begin() {
    std::lock_guard<std::recursive_mutex> lock(detail::call_mutex());
    rt::Runtime& runtime = detail::runtime();
    if (!rec || rec->num_workers() != runtime.num_trace_rows())
      rec = std::make_unique<trace::Recorder>(runtime.num_trace_rows());
    rec->restart();
    runtime.reset_stats();
    runtime.set_trace(rec.get());
  }
  void end(double s) {
    std::lock_guard<std::recursive_mutex> lock(detail::call_mutex());
    rt::Runtime& runtime = detail::runtime();
    runtime.set_trace(nullptr);
    busy_seconds = flops = 0;
    for (const rt::DeviceStats& d : runtime.stats()) busy_seconds += d.busy_seconds, flops += d.flops;
    workers = runtime.num_workers();
    rows = rec->num_workers();
    events = rec->events();
    seconds = s;
  }
};
RankCapture g_capture;

// Best of `repeat` runs of `run` after `reset` (not timed); the time of the
// slowest process (the processes start together after a barrier). `cap`
// (hetla's runs) records each run.
template <typename R, typename F>
double best_time(const mpi::Grid& g, int repeat, R&& reset, F&& run, RankCapture* cap = nullptr) {
  double best = 1e300;
  for (int r = 0; r < repeat; ++r) {
    reset();
    g.barrier();
    if (cap) cap->begin();
    const double t0 = now();
    run();
    const double t = now() - t0;
    if (cap) cap->end(t);
    best = std::min(best, g.max(t));
  }
  return best;
}

struct Blacs {
  int ctxt = -1;
  Blacs(int p, int q) {
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "Row", p, q);
  }
  ~Blacs() { Cblacs_gridexit(ctxt); }
  std::vector<int> desc(int64_t m, int64_t n, int64_t nb, int64_t lld) const {
    std::vector<int> d(9);
    const int mi = static_cast<int>(m), ni = static_cast<int>(n), b = static_cast<int>(nb), zero = 0;
    const int ld = static_cast<int>(std::max<int64_t>(1, lld));
    int info = 0;
    descinit_(d.data(), &mi, &ni, &b, &b, &zero, &zero, &ctxt, &ld, &info);
    if (info != 0) throw std::runtime_error("descinit: info " + std::to_string(info));
    return d;
  }
};

/// ScaLAPACK on the same processes, block size and matrix as hetla: the
/// best time of `call(local array, descriptor, info)` over the repeats, the
/// input scattered from A0 and converted to ScaLAPACK's local array before
/// each (not timed). `prepare(loc, desc)` runs once before (workspace queries).
template <typename T, typename Prepare, typename Call>
double scalapack_time(const mpi::Grid& g, const Args& a, mpi::DistMatrix<T>& A, const std::vector<T>& A0, int64_t m,
                      int64_t n, int64_t nb, int& info, Prepare&& prepare, Call&& call) {
  Blacs blacs(g.p(), g.q());
  const int64_t lld = std::max<int64_t>(1, A.local_rows());
  std::vector<T> loc(static_cast<std::size_t>(lld * std::max<int64_t>(1, A.local_cols())));
  const auto desc = blacs.desc(m, n, nb, lld);
  info = 0;
  prepare(loc.data(), desc.data());
  util::BlasThreadsGuard one(1);  // one rank per core, as hetla's
  return best_time(
      g, a.repeat,
      [&] {
        A.scatter(A0.data(), m);
        A.to_scalapack(loc.data(), lld);
      },
      [&] { call(loc.data(), desc.data()); });
}

template <typename T> Result run_potrf(const mpi::Grid& g, const Args& a, int64_t nb) {
  const int64_t n = a.n;
  const Uplo uplo = a.uplo == "U" ? Uplo::Upper : Uplo::Lower;
  Result r;
  r.flops = flops::potrf<T>(static_cast<double>(n));
  std::vector<T> A0;
  if (g.rank() == 0) A0 = bench::random_hpd<T>(n, n, 42);
  mpi::DistMatrix<T> A(g, n, n, nb);
  const uint64_t sent0 = g.bytes_sent();
  r.seconds = best_time(g, a.repeat, [&] { A.scatter(A0.data(), n); }, [&] { r.info = mpi::potrf(uplo, A); }, &g_capture);
  r.bytes_sent = static_cast<double>(g.bytes_sent() - sent0) / a.repeat;
  if (a.check) {
    std::vector<T> F(g.rank() == 0 ? static_cast<std::size_t>(n * n) : 0);
    A.gather(F.data(), n);
    if (g.rank() == 0) r.residual = bench::potrf_residual(uplo, n, A0.data(), n, F.data(), n);
  }
  if (a.baseline) {
    const int ni = static_cast<int>(n);
    int info = 0;
    r.baseline_seconds = scalapack_time(
        g, a, A, A0, n, n, nb, info, [](T*, const int*) {},
        [&](T* loc, const int* desc) { scalapack::potrf(a.uplo == "U" ? "U" : "L", &ni, loc, desc, &info); });
    r.baseline_info = info;
  }
  return r;
}

template <typename T> Result run_getrf(const mpi::Grid& g, const Args& a, int64_t nb) {
  const int64_t m = a.m < 0 ? a.n : a.m, n = a.n;
  Result r;
  r.flops = flops::getrf<T>(static_cast<double>(m), static_cast<double>(n));
  std::vector<T> A0;
  if (g.rank() == 0) A0 = bench::random_matrix<T>(m, n, m, 42);
  mpi::DistMatrix<T> A(g, m, n, nb);
  std::vector<int64_t> ipiv;
  const uint64_t sent0 = g.bytes_sent();
  r.seconds = best_time(g, a.repeat, [&] { A.scatter(A0.data(), m); }, [&] { r.info = mpi::getrf(A, ipiv); }, &g_capture);
  r.bytes_sent = static_cast<double>(g.bytes_sent() - sent0) / a.repeat;
  if (a.check) {
    std::vector<T> F(g.rank() == 0 ? static_cast<std::size_t>(m * n) : 0);
    A.gather(F.data(), m);
    if (g.rank() == 0) r.residual = bench::getrf_residual(m, n, A0.data(), m, F.data(), m, ipiv.data());
  }
  if (a.baseline) {
    std::vector<int> lpiv(static_cast<std::size_t>(A.local_rows() + nb));
    int info = 0;
    r.baseline_seconds = scalapack_time(
        g, a, A, A0, m, n, nb, info, [](T*, const int*) {}, [&](T* loc, const int* desc) {
          scalapack::getrf<T>(static_cast<int>(m), static_cast<int>(n), loc, desc, lpiv.data(), &info);
        });
    r.baseline_info = info;
  }
  return r;
}

template <typename T> Result run_geqrf(const mpi::Grid& g, const Args& a, int64_t nb) {
  const int64_t m = a.m < 0 ? a.n : a.m, n = a.n;
  Result r;
  r.flops = flops::geqrf<T>(static_cast<double>(m), static_cast<double>(n));
  std::vector<T> A0;
  if (g.rank() == 0) A0 = bench::random_matrix<T>(m, n, m, 42);
  mpi::DistMatrix<T> A(g, m, n, nb);
  std::vector<T> tau;
  const uint64_t sent0 = g.bytes_sent();
  r.seconds = best_time(g, a.repeat, [&] { A.scatter(A0.data(), m); }, [&] { mpi::geqrf(A, tau); }, &g_capture);
  r.bytes_sent = static_cast<double>(g.bytes_sent() - sent0) / a.repeat;
  if (a.check) {  // ||A - Q R|| on rank 0 (the single-process bench adds ||I - Q^H Q||: tests/mpi does here)
    std::vector<T> F(g.rank() == 0 ? static_cast<std::size_t>(m * n) : 0);
    A.gather(F.data(), m);
    if (g.rank() == 0) r.residual = bench::qr_residual(m, n, A0.data(), m, F.data(), m, tau.data());
  }
  if (a.baseline) {
    std::vector<T> ltau(static_cast<std::size_t>(std::max<int64_t>(1, A.local_cols()))), work;
    const int mi = static_cast<int>(m), ni = static_cast<int>(n);
    int info = 0;
    r.baseline_seconds = scalapack_time(
        g, a, A, A0, m, n, nb, info,
        [&](T* loc, const int* desc) {  // workspace query
          T query{};
          scalapack::geqrf<T>(mi, ni, loc, desc, ltau.data(), &query, -1, &info);
          work.resize(static_cast<std::size_t>(std::max(1.0, static_cast<double>(std::real(query)))));
        },
        [&](T* loc, const int* desc) {
          scalapack::geqrf<T>(mi, ni, loc, desc, ltau.data(), work.data(), static_cast<int>(work.size()), &info);
        });
    r.baseline_info = info;
  }
  return r;
}

template <typename T> Result run_gemm(const mpi::Grid& g, const Args& a, int64_t nb) {
  const int64_t m = a.m < 0 ? a.n : a.m, n = a.n, k = a.k < 0 ? a.n : a.k;
  Result r;
  r.flops = flops::gemm<T>(static_cast<double>(m), static_cast<double>(n), static_cast<double>(k));
  std::vector<T> A0, B0, C0;
  if (g.rank() == 0) {
    A0 = bench::random_matrix<T>(m, k, m, 1);
    B0 = bench::random_matrix<T>(k, n, k, 2);
    C0 = bench::random_matrix<T>(m, n, m, 3);
  }
  mpi::DistMatrix<T> A(g, m, k, nb), B(g, k, n, nb), C(g, m, n, nb);
  A.scatter(A0.data(), m);
  B.scatter(B0.data(), k);
  const T alpha(1), beta(1);
  const uint64_t sent0 = g.bytes_sent();
  r.seconds = best_time(g, a.repeat, [&] { C.scatter(C0.data(), m); },
                        [&] { mpi::gemm(Op::NoTrans, Op::NoTrans, alpha, A, B, beta, C); }, &g_capture);
  r.bytes_sent = static_cast<double>(g.bytes_sent() - sent0) / a.repeat;
  if (a.check) {
    std::vector<T> Cd(g.rank() == 0 ? static_cast<std::size_t>(m * n) : 0);
    C.gather(Cd.data(), m);
    if (g.rank() == 0) {  // ||C - C_ref|| / (k ||A|| ||B|| eps), max norms
      auto R = C0;
      blas::gemm(Op::NoTrans, Op::NoTrans, m, n, k, alpha, A0.data(), m, B0.data(), k, beta, R.data(), m);
      double err = 0;
      for (std::size_t i = 0; i < R.size(); ++i) err = std::max(err, static_cast<double>(std::abs(R[i] - Cd[i])));
      const double an = blas::lange('M', m, k, A0.data(), m), bn = blas::lange('M', k, n, B0.data(), k);
      r.residual = err / (static_cast<double>(k) * an * bn * bench::eps<T>());
    }
  }
  if (a.baseline) {
    Blacs blacs(g.p(), g.q());
    auto local = [&](const mpi::DistMatrix<T>& M, std::vector<T>& v) {
      const int64_t lld = std::max<int64_t>(1, M.local_rows());
      v.assign(static_cast<std::size_t>(lld * std::max<int64_t>(1, M.local_cols())), T(0));
      M.to_scalapack(v.data(), lld);
      return blacs.desc(M.m(), M.n(), nb, lld);
    };
    std::vector<T> la, lb, lc;
    const auto da = local(A, la), db = local(B, lb);
    std::vector<int> dc;
    util::BlasThreadsGuard one(1);
    r.baseline_seconds = best_time(
        g, a.repeat,
        [&] {
          C.scatter(C0.data(), m);
          dc = local(C, lc);
        },
        [&] {
          scalapack::gemm<T>("N", "N", static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, la.data(),
                             da.data(), lb.data(), db.data(), beta, lc.data(), dc.data());
        });
  }
  return r;
}

// GEMM: the tile size within 1/4 of hetla's default that spreads C most
// evenly over the grid (the largest local block, ties to the default). Every
// process computes its own C blocks, so the one with the most tiles sets the
// time: n = 8000 on 1 x 2 with the default 384 leaves 11 tile columns on one
// process, 10 on the other (4160 against 3840 columns), where 400 gives 10
// and 10. ScaLAPACK runs with the same block size.
template <typename T> int64_t gemm_tile_size(const Args& a) {
  const int64_t d = default_tile_size<T>(a.n), m = a.m < 0 ? a.n : a.m;
  const auto [p, q] = mpi::parse_grid(a.grid);
  auto most = [](int64_t len, int64_t nb, int64_t procs) {  // the most rows (columns) of one process
    const int64_t tiles = (len + nb - 1) / nb;
    return std::min(len, ((tiles + procs - 1) / procs) * nb);
  };
  int64_t best = d;
  double best_load = static_cast<double>(most(m, d, p)) * static_cast<double>(most(a.n, d, q));
  for (int64_t nb = d - d / 4; nb <= d + d / 4; ++nb) {
    const double load = static_cast<double>(most(m, nb, p)) * static_cast<double>(most(a.n, nb, q));
    if (load < best_load || (load == best_load && std::abs(nb - d) < std::abs(best - d))) best = nb, best_load = load;
  }
  return best;
}

// hetla's default tile size for the routine (LU's panels want their own).
template <typename T> int64_t tile_size(const Args& a) {
  if (a.nb > 0) return a.nb;
  // LU over processes: at least 256. A process's single worker has no tuned
  // size (`hetla tune` tunes the whole machine's workers) and the built-in
  // 192 keeps its panels and update blocks small: 2 processes x 1 core,
  // n = 8000, 1 x 2 (2 alternated rounds): nb 192 126.6-130.7 GFLOP/s, 256
  // 134.5, 384 135.6-136.5.
  if (a.routine == "getrf") return std::max<int64_t>(256, default_tile_size<T>(a.n, Panels::LU));
  // QR over processes applies each panel as one larfb per tile column, whose
  // GEMMs are nb wide, where one process applies it to blocks of up to 8
  // columns: 2 processes x 1 core, n = 6000: nb 128 5.06 s, 192 4.73 s, 256 4.15 s.
  if (a.routine == "geqrf")
    return std::max<int64_t>(256, default_tile_size<T>(std::min(a.m < 0 ? a.n : a.m, a.n), Panels::QR));
  if (a.routine == "gemm") return gemm_tile_size<T>(a);
  return default_tile_size<T>(a.n);
}

template <typename T> Result run(const mpi::Grid& g, const Args& a) {
  const int64_t nb = tile_size<T>(a);
  if (a.routine == "potrf") return run_potrf<T>(g, a, nb);
  if (a.routine == "getrf") return run_getrf<T>(g, a, nb);
  if (a.routine == "geqrf") return run_geqrf<T>(g, a, nb);
  return run_gemm<T>(g, a, nb);
}

std::string fmt(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

// --trace FILE: each process writes its own, FILE with ".rankR" before the
// extension (a Gantt chart for .svg, Chrome trace JSON for .json).
void write_rank_trace(const Args& a, int rank, const RankCapture& cap) {
  std::string path = a.trace;
  const std::size_t dot = path.find_last_of('.');
  const std::string ext = dot == std::string::npos ? "" : path.substr(dot);
  path = path.substr(0, dot == std::string::npos ? path.size() : dot) + ".rank" + std::to_string(rank) + ext;
  std::string text;
  if (ends_with_nocase(ext, ".json")) {
    text = trace::to_chrome_json(cap.events, cap.rows);
  } else {
    trace::SvgOptions o;
    o.title = "hetla " + a.routine + " " + a.precision + " n=" + std::to_string(a.n) + " grid " + a.grid +
              ", rank " + std::to_string(rank);
    o.subtitle = "last timed run: " + fmt(cap.seconds) + " s";
    o.t1 = cap.seconds;
    text = trace::to_svg(cap.events, cap.rows, o);
  }
  std::FILE* f = std::fopen(path.c_str(), "wb");
  const bool ok = f && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (!f || std::fclose(f) != 0 || !ok) throw std::runtime_error("cannot write trace file '" + path + "'");
}

int bench(const Args& a) {
  const mpi::Grid g = [&]() -> mpi::Grid {
    const auto [p, q] = mpi::parse_grid(a.grid);
    return mpi::Grid(p, q);
  }();
  { detail::CallScope warm; }  // workers started and devices opened outside the timed runs
  Result r;
  switch (a.precision[0]) {
    case 's': r = run<float>(g, a); break;
    case 'c': r = run<std::complex<float>>(g, a); break;
    case 'z': r = run<std::complex<double>>(g, a); break;
    default: r = run<double>(g, a); break;
  }
  const std::vector<double> sent = g.gather(r.bytes_sent);
  const RankCapture& cap = g_capture;
  const std::vector<double> busy =
      g.gather(cap.seconds > 0 && cap.workers > 0 ? 100 * cap.busy_seconds / (cap.workers * cap.seconds) : 0.0);
  const std::vector<double> work = g.gather(cap.flops);
  if (!a.trace.empty()) write_rank_trace(a, g.rank(), cap);
  if (g.rank() != 0) return 0;
  const int64_t nb = a.precision == "s" || a.precision == "c" ? tile_size<float>(a) : tile_size<double>(a);
  const double gflops = r.flops / r.seconds * 1e-9;
  const bool ok = r.residual < 0 || r.residual < bench::kResidualThreshold;
  const bool gemm = a.routine == "gemm";
  const char* null = "null";
  // the keys of the single-process bench's records (bench/common.hpp), and the grid's
  std::string s = "{\"routine\":\"" + a.routine + "\",\"precision\":\"" + a.precision + "\",\"m\":" +
                  std::to_string(a.m < 0 ? a.n : a.m) + ",\"n\":" + std::to_string(a.n) +
                  (gemm ? ",\"k\":" + std::to_string(a.k < 0 ? a.n : a.k)
                        : a.routine == "potrf" ? ",\"uplo\":\"" + a.uplo + "\"" : std::string()) +
                  ",\"nb\":" + std::to_string(nb) + ",\"grid\":\"" + a.grid + "\",\"ranks\":" +
                  std::to_string(g.size()) + ",\"threads\":" + std::to_string(hetla::num_threads()) +
                  ",\"repeat\":" + std::to_string(a.repeat) +
                  ",\"seconds\":" + fmt(r.seconds) + ",\"gflops\":" + fmt(gflops) + ",\"info\":" +
                  std::to_string(r.info) + ",\"residual\":" + (a.check ? fmt(r.residual) : null) +
                  ",\"residual_ok\":" + (a.check ? (ok ? "true" : "false") : null);
  if (a.baseline) {
    s += ",\"baseline\":\"scalapack\",\"baseline_seconds\":" + fmt(r.baseline_seconds) +
         ",\"baseline_gflops\":" + fmt(r.flops / r.baseline_seconds * 1e-9) +
         ",\"baseline_info\":" + std::to_string(r.baseline_info) + ",\"ratio\":" + fmt(r.baseline_seconds / r.seconds);
  } else {
    s += ",\"baseline_seconds\":null,\"baseline_gflops\":null,\"ratio\":null";
  }
  auto list = [](const std::vector<double>& v) {
    std::string l = "[";
    for (std::size_t i = 0; i < v.size(); ++i) {  // appended apart: GCC 12's -Wrestrict on "," + string
      if (i) l += ',';
      l += fmt(v[i]);
    }
    return l + "]";
  };
  // rank imbalance: the most flops a process ran over the mean (seed 004 sec. 5.3)
  const double most = *std::max_element(work.begin(), work.end());
  double mean = 0;
  for (double w : work) mean += w / static_cast<double>(work.size());
  s += ",\"bytes_sent\":" + list(sent) + ",\"busy_pct\":" + list(busy) +
       ",\"imbalance\":" + (mean > 0 ? fmt(most / mean) : std::string(null)) + "}";
  if (a.json) {
    std::printf("%s\n", s.c_str());
  } else {
    std::printf("%s %c n=%lld nb=%lld grid %s: %.3f s, %.1f GFLOP/s, info %lld", a.routine.c_str(), a.precision[0],
                static_cast<long long>(a.n), static_cast<long long>(nb), a.grid.c_str(), r.seconds, gflops,
                static_cast<long long>(r.info));
    if (a.check) std::printf(", residual %.3g (%s)", r.residual, ok ? "ok" : "FAILED");
    if (a.baseline)
      std::printf(", ScaLAPACK %.3f s (%.1f GFLOP/s), ratio %.2f", r.baseline_seconds,
                  r.flops / r.baseline_seconds * 1e-9, r.baseline_seconds / r.seconds);
    std::printf("\n");
  }
  return ok ? 0 : 1;
}

}  // namespace

namespace {

int run_distributed(int argc, char** argv, int first) {
  Args a;
  CLI::App app("hetla bench ROUTINE --grid PxQ: a distributed routine under mpirun (docs/mpi.md)", "hetla bench");
  app.add_option("routine", a.routine, "potrf, getrf, geqrf or gemm")
      ->required()
      ->check(CLI::IsMember({"potrf", "getrf", "geqrf", "gemm"}));
  // the single-process bench's integer checks: "1e3" is 1000, 0 and -5 are out of range
  app.add_option("-n", a.n, "order (columns)")->required()->transform(integer(1, kMaxDim));
  app.add_option("-m", a.m, "rows (getrf, geqrf, gemm; default n)")->transform(integer(1, kMaxDim));
  app.add_option("-k", a.k, "inner dimension (gemm; default n)")->transform(integer(1, kMaxDim));
  app.add_option("--nb", a.nb,
                 "tile and ScaLAPACK block size (default: hetla's for n; gemm: the one within 1/4 of it "
                 "that spreads C most evenly over the grid)")
      ->transform(integer(1, kMaxDim));
  app.add_option("--grid", a.grid, "process grid PxQ, P Q = the number of processes")->required();
  app.add_option("-p,--precision", a.precision, "s, d, c or z")->check(CLI::IsMember({"s", "d", "c", "z"}));
  app.add_option("--uplo", a.uplo, "L or U (potrf)")->check(CLI::IsMember({"L", "U"}));
  app.add_option("-r,--repeat", a.repeat, "runs of hetla and of the baseline; the best of each is reported")
      ->transform(integer(1, 1000));
  app.add_flag("--check", a.check, "residual on rank 0");
  app.add_flag("--baseline", a.baseline, "ScaLAPACK on the same processes, block size and matrix");
  app.add_flag("--json", a.json, "one JSON line from rank 0");
  app.add_option("--trace", a.trace, "each process writes the last hetla run's trace to FILE.rankR.svg|.json")
      ->check(trace_file());
  app.add_option("--devices", a.devices, "devices of each process (as hetla bench --devices)");
  app.add_option("--threads", a.threads, "host workers per process (default: the node's cores / its processes)")
      ->transform(integer(1, 4096));
  std::vector<std::string> args;
  for (int i = argc - 1; i >= first; --i) args.emplace_back(argv[i]);  // CLI11 takes them reversed
  try {
    app.parse(args);
    // before the run, not after it: every process writes its own file there
    if (!a.trace.empty()) check_output_path(a.trace, "--trace");
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return 0;
  } catch (const std::runtime_error& e) {  // CLI::ParseError or UsageError
    std::fprintf(stderr, "hetla bench: %s\n", e.what());
    return 2;
  }
  if (!a.devices.empty()) setenv("HETLA_DEVICES", a.devices.c_str(), 1);  // read when the context starts
  if (a.threads > 0) setenv("HETLA_NUM_THREADS", std::to_string(a.threads).c_str(), 1);
  // Ranks on one node share its cores: each takes its part unless told.
  if (!std::getenv("HETLA_NUM_THREADS")) {
    const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    const int per_node = local ? std::max(1, std::atoi(local)) : 1;
    const int threads = std::max(1, util::Topology::get().cores() / per_node);
    setenv("HETLA_NUM_THREADS", std::to_string(threads).c_str(), 1);
  }
  int rc = 0;
  mpi::init(&argc, &argv);
  try {
    rc = bench(a);
  } catch (const std::exception& e) {
    // every process got the same error (a grid that does not fit) or its own
    std::fprintf(stderr, "hetla bench (rank %d): %s\n", mpi::world_rank(), e.what());
    if (a.json && mpi::world_rank() == 0) {  // as the CLI's other errors under --json
      std::string msg = e.what();
      for (std::size_t i = 0; i < msg.size(); ++i)
        if (msg[i] == '"' || msg[i] == '\\') msg.insert(i++, 1, '\\');
      std::printf("{\"error\":\"%s\"}\n", msg.c_str());
    }
    rc = dynamic_cast<const std::invalid_argument*>(&e) ? 2 : 1;
  }
  mpi::finalize();
  return rc;
}

const DistributedBenchApi kApi{DistributedBenchApi::kAbi, run_distributed};

}  // namespace

}  // namespace hetla::cli

extern "C" __attribute__((visibility("default"))) const void* hetla_plugin_benchmpi() { return &hetla::cli::kApi; }
