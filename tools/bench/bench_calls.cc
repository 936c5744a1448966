// Many small calls (tools/bench/calls.hpp): per-call time against the vendor,
// concurrent callers, batched calls. hetla is called through its C++ API (the
// C API and Python call it too), the vendor through bench/vendor.hpp, both at
// the BLAS's default thread count. Every call factors a fresh copy of its
// input; the copies are timed alone and subtracted in the per-call mode, and
// included (on both sides) in the throughput and batch modes.
#include "bench/calls.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <atomic>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bench/common.hpp"
#include "options.hpp"
#include "hetla/batch.hpp"
#include "hetla/linalg.hpp"
#include "hetla/lu.hpp"
#include "hetla/qr.hpp"
#include "tune/crossover.hpp"

namespace hetla::cli {
namespace {

struct CallArgs {
  std::string routine;
  std::vector<int64_t> sizes;
  int64_t calls = 0;
  int threads = 1;
  int64_t batch = 0;
  std::vector<char> precisions{'d'};
  bool baseline = false;
  bool json = false;
  int repeat = 3;
};

enum class Kind { Potrf, Getrf, Geqrf };

Kind kind_of(const std::string& r) {
  if (r == "potrf") return Kind::Potrf;
  if (r == "getrf") return Kind::Getrf;
  if (r == "geqrf") return Kind::Geqrf;
  throw UsageError("--calls/--batch measure potrf, getrf or geqrf, not '" + r + "'");
}

/// Where the copy of an input goes: half a page away from the input, modulo
/// 4096 bytes, and at least a cache line from either end of its block. Two
/// heap blocks allocated one after the other sit 16 bytes apart modulo a
/// page, where glibc's memcpy (rep movsb) on this host's CPU is 16x slower:
/// 32 KiB (dpotrf n = 64) took 11.5 us against 0.7 us, more than the call it
/// prepares, and then set the throughput figures. The cache lines at a
/// block's ends may hold another thread's data (its heap block), which the
/// copy's writes would bounce between the cores.
template <typename T> T* half_a_page_away(const T* from, std::vector<T>& room, std::size_t count) {
  constexpr std::size_t kPage = 4096, kLine = 64;
  const std::size_t lead = (kLine + sizeof(T) - 1) / sizeof(T);
  room.assign(count + (kPage + 2 * kLine) / sizeof(T) + 2, T(0));
  for (std::size_t s = lead; s < lead + kPage / sizeof(T); ++s) {
    const auto gap = reinterpret_cast<std::uintptr_t>(room.data() + s) - reinterpret_cast<std::uintptr_t>(from);
    if (gap % kPage == kPage / 2) return room.data() + s;
  }
  return room.data() + lead;  // not reachable with 16-byte aligned blocks
}

/// One routine's call on a private n x n input, copied fresh before each call.
template <typename T> struct Problem {
  Kind kind;
  int64_t n;
  std::vector<T> A0, room, tau;
  T* A;  // the copy factored, in `room`
  std::vector<int64_t> ipiv;
  std::vector<lapack_int> lpiv;
  Problem(Kind k, int64_t n_, uint64_t seed)
      : kind(k),
        n(n_),
        A0(k == Kind::Potrf ? bench::random_hpd<T>(n_, n_, seed) : bench::random_matrix<T>(n_, n_, n_, seed)),
        tau(static_cast<std::size_t>(n_)),
        A(half_a_page_away(A0.data(), room, A0.size())),
        ipiv(tau.size()),
        lpiv(tau.size()) {}
  Problem(const Problem&) = delete;
  Problem(Problem&&) = default;
  void reset() { std::memcpy(A, A0.data(), A0.size() * sizeof(T)); }
  int64_t hetla() {
    switch (kind) {
      case Kind::Potrf: return hetla::potrf<T>(Uplo::Lower, n, A, n);
      case Kind::Getrf: return hetla::getrf<T>(n, n, A, n, ipiv.data());
      case Kind::Geqrf: hetla::geqrf<T>(n, n, A, n, tau.data()); return 0;
    }
    return 0;
  }
  int64_t vendor() {
    switch (kind) {
      case Kind::Potrf: return vendor::potrf(Uplo::Lower, n, A, n);
      case Kind::Getrf: return vendor::getrf(n, n, A, n, lpiv.data());
      case Kind::Geqrf: return vendor::geqrf(n, n, A, n, tau.data());
    }
    return 0;
  }
};

template <typename F> double loop_seconds(int64_t calls, F&& f) {
  const double t0 = now_seconds();
  for (int64_t i = 0; i < calls; ++i) f();
  return now_seconds() - t0;
}

/// The path a call of order n takes: "inline" (the vendor in the caller's
/// thread) or "tiles" (the task graph), from the crossover table.
template <typename T> const char* path_of(Kind k, int64_t n) {
  const tune::Routine r = k == Kind::Potrf   ? tune::Routine::Potrf
                          : k == Kind::Getrf ? tune::Routine::Getrf
                                             : tune::Routine::Geqrf;
  return tune::above_crossover<T>(r, double(n) * n * n) ? "tiles" : "inline";
}

Record start_record(const CallArgs& a, char p, int64_t n) {
  Record r;
  r.add("routine", a.routine, "", 7).add("precision", std::string(1, p), "prec").add("n", n, "", 5);
  return r;
}

/// Chunks a measurement's --calls are split into, the two sides' chunks
/// taking turns.
constexpr int64_t kChunks = 10;

/// Per-call microseconds: the best chunk of calls of each side over
/// --repeat measurements, the copies' best chunk subtracted.
///
/// Why chunks that take turns: with one loop of all the calls per side, the
/// two sides of a call that runs the same vendor routine on both (zgetrf
/// below its composition's size, say) read up to 15 % apart in one run and
/// the other way round in the next (2026-11-26, idle: zgetrf 96 111 / 103
/// us, dgeqrf 64 68.5 / 51.6 then 1.19x in hetla's favour) — a loop of
/// 0.1-0.5 s sees one state of the machine (the VM's host, its clock) and
/// the other side's loop another. Chunks of a tenth alternate within
/// milliseconds, so each side's best chunk comes from the same states.
template <typename T> Record per_call(const CallArgs& a, char p, int64_t n) {
  Problem<T> pb(kind_of(a.routine), n, 1);
  pb.reset();
  int64_t info = pb.hetla();  // warm: the first tile call builds the context
  pb.reset();
  pb.vendor();
  const int64_t chunk = std::max<int64_t>(1, a.calls / kChunks), chunks = std::max<int64_t>(1, a.calls / chunk);
  double copy = std::numeric_limits<double>::infinity(), mine = copy, theirs = copy;
  for (int r = 0; r < a.repeat; ++r)
    for (int64_t c = 0; c < chunks; ++c) {
      // The copy is what both sides pay and is subtracted: its best chunk of
      // several, so one preempted copy chunk cannot push a short vendor call
      // below zero (seen under ASan: vendor_us 0.0 at n = 4).
      for (int k = 0; k < 3; ++k) copy = std::min(copy, loop_seconds(chunk, [&] { pb.reset(); }));
      // Each side goes first in every other chunk: the chunk after another
      // finds the caches and the CPU's clock as that one left them.
      auto vendor_chunk = [&] {
        if (a.baseline) theirs = std::min(theirs, loop_seconds(chunk, [&] { pb.reset(), pb.vendor(); }));
      };
      const bool vendor_first = (c + r) % 2 == 0;
      if (vendor_first) vendor_chunk();
      mine = std::min(mine, loop_seconds(chunk, [&] {
                        pb.reset();
                        info |= pb.hetla();
                      }));
      if (!vendor_first) vendor_chunk();
    }
  auto us = [&](double s) { return std::max(0.0, s - copy) / static_cast<double>(chunk) * 1e6; };
  Record rec = start_record(a, p, n);
  rec.add("calls", a.calls).add("path", std::string(path_of<T>(pb.kind, n)), "", 6);
  rec.add("hetla_us", us(mine), "hetla us", 9);
  if (a.baseline) {
    rec.add("vendor_us", us(theirs), "vendor us", 9);
    rec.add("ratio", us(mine) > 0 ? us(theirs) / us(mine) : 0.0, "ratio", 6, 2);
  }
  rec.add("info", info);
  rec.failed = info != 0;
  return rec;
}

/// Who a concurrent run calls: hetla, the vendor, or nobody: the input's
/// copy alone (how threads of plain memory work scale on the machine at
/// that moment), or the copy and arithmetic alone (as many multiply-adds as
/// a potrf of the order, in registers: how compute scales). They are the
/// references for the two libraries' figures: this VM's cores run one
/// thread of compute at times up to 1.5x faster than two (2026-11-26, idle:
/// a register-only FMA loop 0.22-0.33 s alone against 0.32-0.34 s for two
/// at once, speedup 1.35-2.08 within a minute), which no library can beat.
enum class Caller { Hetla, Vendor, CopyOnly, ComputeOnly };

/// `flops` of multiply-adds on 12 independent chains held in registers,
/// enough to keep both of a core's multiply-add units busy (as the small
/// kernels do) where a few chains would only measure their latency; 4-wide
/// fused multiply-adds where the CPU has AVX2 and FMA (as the kernels'
/// build then runs). Returns their sum so that nothing is optimised away.
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
__attribute__((target("avx2,fma"))) inline double compute_only_avx2(double flops) {
  using v4 = double __attribute__((vector_size(32)));
  v4 acc[12];
  for (auto& x : acc) x = v4{1, 1, 1, 1};
  const v4 b = {0.9999999, 0.9999999, 0.9999999, 0.9999999}, c = {1e-9, 1e-9, 1e-9, 1e-9};
  const auto steps = static_cast<int64_t>(flops / (12 * 8));
  for (int64_t s = 0; s < steps; ++s)
    for (auto& x : acc) x = __builtin_ia32_vfmaddpd256(x, b, c);
  double sum = 0;
  for (const auto& x : acc) sum += x[0] + x[1] + x[2] + x[3];
  return sum;
}
#endif
inline double compute_only(double flops) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (avx2) return compute_only_avx2(flops);
#endif
  double acc[12] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  const auto steps = static_cast<int64_t>(flops / 24);
  for (int64_t s = 0; s < steps; ++s)
    for (double& x : acc) x = x * 0.9999999 + 1e-9;
  double sum = 0;
  for (double x : acc) sum += x;
  return sum;
}

/// Seconds for `threads` threads to make `calls` calls together, each on its
/// own inputs (copies included); started together.
template <typename T>
double concurrent_seconds(Kind k, int64_t n, int64_t calls, int threads, Caller who, int64_t& info) {
  std::vector<Problem<T>> pbs;
  for (int t = 0; t < threads; ++t) pbs.emplace_back(k, n, 10 + t);
  // ComputeOnly: a call's flops (potrf n^3 / 3, getrf 2 n^3 / 3, geqrf 4 n^3 / 3; complex 4x)
  const double cube = static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n),
               flops = (is_complex_v<T> ? 4 : 1) * cube * (k == Kind::Potrf ? 1.0 / 3 : k == Kind::Getrf ? 2.0 / 3 : 4.0 / 3);
  std::atomic<bool> go{false};
  std::atomic<int> ready{0};
  std::atomic<int64_t> bad{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      Problem<T>& pb = pbs[static_cast<std::size_t>(t)];
      const int64_t mine = calls / threads + (t < calls % threads ? 1 : 0);
      ++ready;
      while (!go.load(std::memory_order_acquire)) {}
      for (int64_t i = 0; i < mine; ++i) {
        pb.reset();
        if (who == Caller::CopyOnly) continue;
        if (who == Caller::ComputeOnly) {
          if (compute_only(flops) == 0) bad = -1;  // never: the chains stay near 1
          continue;
        }
        if (const int64_t r = who == Caller::Vendor ? pb.vendor() : pb.hetla(); r != 0) bad = r;
      }
    });
  while (ready.load() < threads) {}
  const double t0 = now_seconds();
  go.store(true, std::memory_order_release);
  for (auto& th : pool) th.join();
  const double s = now_seconds() - t0;
  if (bad.load() != 0) info = bad.load();
  return s;
}

/// Seconds of measurements a throughput figure is the best of, at least.
inline constexpr double kThroughputSeconds = 0.5;

/// Throughput (calls/s) of --threads callers against one caller. Each
/// figure follows one untimed run at its thread count (the first concurrent
/// calls pay one-time costs: OpenBLAS allocates a buffer per concurrent
/// caller) and is the best of at least --repeat runs and of
/// kThroughputSeconds of runs: potrf n = 16, --calls 20000 is ~8 ms a run,
/// and its speedup read 1.0-1.25 from single runs against 1.85-1.95 with
/// --calls 400000. The one-caller and the many-caller runs alternate, so the
/// two bests come from the same stretch of the machine's state (timed one
/// after the other, the one-caller rate alone moved 1.26-1.76 million calls/s
/// between runs of n = 16 on the idle host).
template <typename T> Record throughput(const CallArgs& a, char p, int64_t n) {
  const Kind k = kind_of(a.routine);
  int64_t info = 0;
  // calls/s of one caller and of a.threads callers
  auto best = [&](Caller who) {
    for (int threads : {1, a.threads}) concurrent_seconds<T>(k, n, a.calls, threads, who, info);  // warm-up
    double one = std::numeric_limits<double>::infinity(), many = one;
    // The runs' wall time, setup (threads, inputs) included, bounds a short
    // run's repeats (--calls 200: 1 s, not 3 s of thread starts).
    const double start = now_seconds();
    for (int r = 0; r < a.repeat || now_seconds() - start < 2 * kThroughputSeconds; ++r) {
      one = std::min(one, concurrent_seconds<T>(k, n, a.calls, 1, who, info));
      many = std::min(many, concurrent_seconds<T>(k, n, a.calls, a.threads, who, info));
    }
    return std::pair{static_cast<double>(a.calls) / one, static_cast<double>(a.calls) / many};
  };
  Record rec = start_record(a, p, n);
  rec.add("calls", a.calls).add("threads", int64_t(a.threads)).add("path", std::string(path_of<T>(k, n)), "", 6);
  const auto [one, many] = best(Caller::Hetla);
  rec.add("hetla_calls_per_s_1", one, "hetla/s 1thr", 12).add("hetla_calls_per_s", many, "hetla/s", 10);
  rec.add("speedup", many / one, "speedup", 7, 2);
  if (a.baseline) {
    const auto [vone, vmany] = best(Caller::Vendor);
    rec.add("vendor_calls_per_s_1", vone, "vendor/s 1thr", 13).add("vendor_calls_per_s", vmany, "vendor/s", 10);
    rec.add("vendor_speedup", vmany / vone, "v.speedup", 9, 2);
    const auto [cone, cmany] = best(Caller::CopyOnly);
    rec.add("copy_speedup", cmany / cone, "copy.speedup", 12, 2);
    const auto [fone, fmany] = best(Caller::ComputeOnly);
    rec.add("compute_speedup", fmany / fone, "compute.speedup", 15, 2);
  }
  rec.add("info", info);
  rec.failed = info != 0;
  return rec;
}

/// One batched call of --batch matrices against a loop of vendor calls.
template <typename T> Record batched(const CallArgs& a, char p, int64_t n) {
  const Kind k = kind_of(a.routine);
  const int64_t count = a.batch, stride = n * n;
  std::vector<T> S0(static_cast<std::size_t>(stride * count));
  for (int64_t i = 0; i < count; ++i) {
    const Problem<T> one(k, n, 100 + static_cast<uint64_t>(i % 64));
    std::copy(one.A0.begin(), one.A0.end(), S0.begin() + i * stride);
  }
  std::vector<T> S = S0, tau(static_cast<std::size_t>(n * count));
  std::vector<int64_t> info(static_cast<std::size_t>(count)), ipiv(static_cast<std::size_t>(n * count));
  std::vector<lapack_int> lpiv(ipiv.size());
  auto reset = [&] { std::memcpy(S.data(), S0.data(), S.size() * sizeof(T)); };
  auto mine = [&] {
    if (k == Kind::Potrf) batch::potrf<T>(Uplo::Lower, n, S.data(), n, stride, count, info.data());
    else if (k == Kind::Getrf) batch::getrf<T>(n, n, S.data(), n, stride, ipiv.data(), n, count, info.data());
    else batch::geqrf<T>(n, n, S.data(), n, stride, tau.data(), n, count, info.data());
  };
  int64_t vinfo = 0;
  auto theirs = [&] {
    for (int64_t i = 0; i < count; ++i) {
      T* A = S.data() + i * stride;
      if (k == Kind::Potrf) vinfo |= vendor::potrf(Uplo::Lower, n, A, n);
      else if (k == Kind::Getrf) vinfo |= vendor::getrf(n, n, A, n, lpiv.data() + i * n);
      else vendor::geqrf(n, n, A, n, tau.data() + i * n);
    }
  };
  reset();
  mine();  // warm: builds the context
  double t_mine = std::numeric_limits<double>::infinity(), t_theirs = t_mine;
  for (int r = 0; r < a.repeat; ++r) {
    if (a.baseline) t_theirs = std::min(t_theirs, best_time(1, reset, theirs));
    t_mine = std::min(t_mine, best_time(1, reset, mine));
  }
  const int64_t failed = std::count_if(info.begin(), info.end(), [](int64_t i) { return i != 0; });
  Record rec = start_record(a, p, n);
  rec.add("batch", count).add("hetla_ms", t_mine * 1e3, "hetla ms", 9);
  if (a.baseline) {
    rec.add("vendor_loop_ms", t_theirs * 1e3, "vendor ms", 9);
    rec.add("ratio", t_theirs / t_mine, "ratio", 6, 2);
  }
  rec.add("failed_matrices", failed, "failed").add("vendor_info", vinfo);
  rec.failed = failed != 0;
  return rec;
}

/// `hetla bench ROUTINE --calls C | --batch B` options: one line each.
/// Returns false when --help was asked.
bool parse(int argc, char** argv, int first, CallArgs& a) {
  std::string sizes, precisions = "d";
  CLI::App app("The cost of many small calls: per-call microseconds of hetla (the C++ API) and,\n"
               "with --baseline, the vendor (--calls C); the throughput of T threads calling at\n"
               "once against one (--calls C --threads T); a batched call (hetla::batch) against\n"
               "a loop of vendor calls (--batch B).",
               "hetla bench");
  setup_command(app, "ROUTINE --calls C [--sizes N[,N...]] [--threads T] [--baseline] [--json]\n"
                     "       hetla bench ROUTINE --batch B [-n N[,N...]] [--baseline] [--json]",
                "Exit status: 0 success; 1 a call reported info != 0; 2 usage error.");
  app.add_option("ROUTINE", a.routine, "potrf, getrf or geqrf")->check(one_of({"potrf", "getrf", "geqrf"}));
  CLI::Option* sizes_option = app.add_option("--sizes,-n", sizes, "matrix orders, one result line each")->option_text("N[,N...]")->check(integer_list(1, 100000))->default_str("4,8,16,32,64,128; --batch: 32");
  app.add_option("--calls", a.calls, "calls per measurement")->option_text("C")->transform(integer(1, int64_t(1) << 40));
  app.add_option("--threads,-t", a.threads, "threads calling at once (--calls)")->option_text("T")->transform(integer(1, 1024))->capture_default_str();
  app.add_option("--batch", a.batch, "matrices in one batched call")->option_text("B")->transform(integer(1, int64_t(1) << 31));
  app.add_option("--repeat,-r", a.repeat, "measurements (--threads: after one untimed run, and 0.2 s of them at least); the best is reported")->option_text("R")->transform(integer(1, 1000))->capture_default_str();
  app.add_option("--precision,-p", precisions, "s, d, c or z; several: one result per precision")->option_text("P[,P...]")->check(list_of({"s", "d", "c", "z"}))->capture_default_str();
  app.add_flag("--baseline", a.baseline, "also time the vendor");
  app.add_flag("--json", a.json, "one JSON object per line instead of a table");
  app.allow_extras();  // an option of plain bench: named in the message below
  if (!parse_command(app, argc, argv, first)) return false;
  if (!app.remaining().empty()) {
    const std::string extra = app.remaining().front();
    throw UsageError(extra[0] == '-' ? "option " + extra + " does not apply to --calls/--batch"
                                     : "unexpected argument '" + extra + "'");
  }
  if (a.routine.empty()) throw UsageError("missing ROUTINE (potrf, getrf or geqrf)");
  if (a.calls > 0 && a.batch > 0) throw UsageError("--calls and --batch measure different things: give one");
  if (a.batch > 0 && a.threads != 1) throw UsageError("--threads does not apply to --batch");
  a.precisions.clear();
  for (auto p : split(precisions, ',')) a.precisions.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(p[0]))));
  if (sizes_option->count() > 0) a.sizes = parse_int_list(sizes, "--sizes", 1, 100000);
  else a.sizes = a.batch > 0 ? std::vector<int64_t>{32} : std::vector<int64_t>{4, 8, 16, 32, 64, 128};
  return true;
}

}  // namespace

bool is_call_bench(int argc, char** argv, int first) {
  for (int i = first; i < argc; ++i)
    if (!std::strncmp(argv[i], "--calls", 7) || !std::strncmp(argv[i], "--batch", 7)) return true;
  return false;
}

int cmd_bench_calls(int argc, char** argv, int first) {
  CallArgs a;
  if (!parse(argc, argv, first, a)) return kExitOk;
  RecordPrinter out(a.json);
  bool failed = false;
  for (char p : a.precisions)
    for (int64_t n : a.sizes) {
      const Record r = with_precision(p, [&]<typename T>() {
        if (a.batch > 0) return batched<T>(a, p, n);
        return a.threads > 1 ? throughput<T>(a, p, n) : per_call<T>(a, p, n);
      });
      out.print(r);
      failed |= r.failed;
    }
  return failed ? kExitFailed : kExitOk;
}

}  // namespace hetla::cli
