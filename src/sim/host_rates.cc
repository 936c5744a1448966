// The calibration of this host's kernel rates (host_rates.hpp).
#include "sim/host_rates.hpp"

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "devices/host/host_device.hpp"
#include "kernels/host/lapack_lu.hpp"
#include "kernels/host/lapack_qr.hpp"
#include "util/blas_threads.hpp"
#include "util/hwloc_topology.hpp"
#include "util/pages.hpp"

namespace hetla::sim {

namespace {

using Clock = std::chrono::steady_clock;


// One measurement of the calibration: a kernel on a pool of work items (each
// its own tiles), `units` flops (laswp: bytes) per call.
struct Job {
  std::string label;
  double units = 0;
  int items = 1;
  std::function<void()> restore;  // puts the outputs back (untimed), before each pass over the pool
  std::function<void(int)> run;   // the kernel on item i (timed)
  std::function<void(int)> prep = {};  // untimed, before each call on item i (none: nothing)
};

// Storage from util::alloc_pages, page-aligned as a Matrix's tiles are (a
// std::vector's data starts 16 bytes into its pages, so that every column of
// a tile straddles one cache line more than in a factorization).
template <typename T> class Tiles {
 public:
  void resize(std::size_t n) {
    mem_ = util::PageBuffer(std::max<std::size_t>(n, 1) * sizeof(T));
    n_ = n;
  }
  T* data() const { return static_cast<T*>(mem_.get()); }
  std::size_t size() const { return n_; }
  T* begin() const { return data(); }
  T* end() const { return data() + n_; }
  T& operator[](std::size_t i) const { return data()[i]; }

 private:
  util::PageBuffer mem_;
  std::size_t n_ = 0;
};

// Per-thread state of one measurement: builds the Jobs of a precision and
// tile size over the thread's own arena of at least `pool` bytes, so that
// every item's tiles have left the last-level cache when the pass comes
// back to them, as a factorization's trailing tiles come from memory.
//
// The tiles a kernel only reads are another matter: a step of a tile
// factorization reads each tile of its panel in a whole column (or row) of
// updates (potrf's gemm C(i,j) -= L(i,k) L(j,k)^H, L(:,k) for every j), so
// those come from the cache. gemm and herk therefore read A (and B) from a
// small panel of `panel_tiles` tiles of their own and update C from the
// pool; potrf factors a tile just written, as the herk before it wrote it.
// Measured (2026-11-26, 2-core EPYC VM, OpenBLAS, nb 256, both cores at once,
// 10th percentile per call, load 6 from other jobs): the real potrf's tasks
// (n = 2048, 4096; hetla simulate --validate --measured-trace) gemm 759-768
// us, herk 406-442, trsm 451-455, potrf 190-196; the calibration on tiles
// from a std::vector, all from memory: 787-791, 425-429, 470-477, 201-262;
// page-aligned with the panel and a hot potrf tile: 758-768, 412-420,
// 457-459, 180-181. (Aligned, gemm's A and B from memory: 791-819; potrf
// from memory: 259-262.)
// The panel heights measured: nb, 2 nb, 4 nb, ... up to 8 nb and on to the
// first at least `tallest` (the validated order: panels extrapolated beyond
// the tallest height measured were predicted too fast).
std::vector<int64_t> panel_heights(int64_t nb, int64_t tallest) {
  std::vector<int64_t> h{nb};
  while (h.back() < 8 * nb || h.back() < tallest) h.push_back(2 * h.back());
  return h;
}

template <typename T> struct Kernels {
  int64_t nb;
  std::size_t pool;
  int panel_tiles;
  int64_t tallest;  // the tallest panel measured (rows)
  CallPattern::Routine routine;
  double scale;  // complex: 4 real flops a multiply-add
  Tiles<T> arena, panel, S, Sl, pristine, gathered, W;
  std::vector<lapack_int> piv;
  std::vector<T> Tm;
  dev::HostDevice host{1};

  Kernels(int64_t nb_, std::size_t pool_, int panel_tiles_, const CallPattern& as)
      : nb(nb_), pool(pool_), panel_tiles(panel_tiles_), tallest(panel_heights(nb_, as.tallest_panel).back()),
        routine(as.routine) {
    scale = std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>> ? 4 : 1;
    arena.resize(pool / sizeof(T) + static_cast<std::size_t>(24 * nb * nb));
    panel.resize(static_cast<std::size_t>(panel_tiles * nb * nb));
    pristine.resize(static_cast<std::size_t>(tallest * nb));
    W.resize(static_cast<std::size_t>(nb * nb));
    gathered.resize(static_cast<std::size_t>(tallest * nb));
    uint64_t x = 12345;
    for (auto* v : {&arena, &panel, &pristine})
      for (auto& e : *v) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        e = T(static_cast<double>(x >> 11) / 9007199254740992.0 - 0.5);
      }
    // S: symmetric, diagonally dominant (potrf's input; trsm's and trmm's
    // triangle, whose diagonal keeps one application of the kernel in range:
    // the outputs are restored before every pass).
    S.resize(static_cast<std::size_t>(nb * nb));
    for (int64_t j = 0; j < nb; ++j)
      for (int64_t i = 0; i < nb; ++i)
        S[static_cast<std::size_t>(i + j * nb)] = T(i == j ? 2.0 * static_cast<double>(nb) : 0.5 / static_cast<double>(1 + i + j));
    piv.resize(static_cast<std::size_t>(nb));
    Tm.resize(static_cast<std::size_t>(nb * nb));
  }
  T* at(std::size_t off) { return arena.data() + off; }
  // How many items of `elems` elements the pool holds (at least 2).
  int count(std::size_t elems) const { return static_cast<int>(std::max<std::size_t>(2, pool / sizeof(T) / elems)); }

  std::vector<Job> jobs() {
    using R = real_t<T>;
    dev::Kernels<T>* kp = &host;
    const std::size_t t = static_cast<std::size_t>(nb * nb);
    const double w = static_cast<double>(nb), f3 = scale * w * w * w;
    std::vector<Job> out;
    // Items of one tile C from the pool; gemm's A and B and herk's A from the
    // panel, walked as a step walks it: A over the panel, B the next tile
    // each time A has been round (trsm, trmm: the shared triangle).
    const int n1 = count(t);
    auto C = [this, t](int i, std::size_t per) { return at(static_cast<std::size_t>(i) * per * t); };
    const int pt = panel_tiles;
    auto P = [this, t, pt](int i) { return panel.data() + static_cast<std::size_t>(i % pt) * t; };
    auto restore_from = [this, t](int items, std::size_t per, const Tiles<T>* src) {
      return [this, t, items, per, src] {
        for (int i = 0; i < items; ++i)
          std::copy(src->begin(), src->end(), at(static_cast<std::size_t>(i) * per * t));
      };
    };
    Sl.resize(t);  // the pristine C of trsm, trmm, QR's gemm
    std::copy(arena.begin(), arena.begin() + t, Sl.begin());
    if (routine == CallPattern::Routine::Qr)  // larfb as GEMMs, taking turns: W = V^H C(i) (C read), C(i) -= V W
      out.push_back({"gemm", 2 * f3, n1, [this, r = restore_from(n1, 1, &Sl)] { r(), std::fill(W.begin(), W.end(), T(0)); },
                     [=, this](int i) {
                       if (i % 2 == 0)
                         kp->gemm(Op::ConjTrans, Op::NoTrans, nb, nb, nb, T(1), P(i), nb, C(i, 1), nb, T(1), W.data(), nb);
                       else
                         kp->gemm(Op::NoTrans, Op::NoTrans, nb, nb, nb, T(-1), P(i), nb, W.data(), nb, T(1), C(i, 1), nb);
                     }});
    else  // C(i) -= A B^H (potrf) or A B (getrf): the panel's tiles cached, C from memory
      out.push_back({"gemm", 2 * f3, n1, [] {}, [=, this](int i) {
                       const Op opb = routine == CallPattern::Routine::Lu ? Op::NoTrans : Op::ConjTrans;
                       kp->gemm(Op::NoTrans, opb, nb, nb, nb, T(-1), P(i), nb, P(i / pt), nb, T(1), C(i, 1), nb);
                     }});
    out.push_back({"herk", f3, n1, [] {}, [=, this](int i) {
                     kp->herk(Uplo::Lower, Op::NoTrans, nb, nb, R(-1), P(i), nb, R(1), C(i, 1), nb);
                   }});
    out.push_back({"trsm", f3, n1, restore_from(n1, 1, &Sl), [=, this](int i) {
                     if (routine == CallPattern::Routine::Lu)  // U(k, j) = L(k, k)^-1 A(k, j)
                       kp->trsm(Side::Left, Uplo::Lower, Op::NoTrans, Diag::Unit, nb, nb, T(1), S.data(), nb, C(i, 1), nb);
                     else  // L(i, k) = A(i, k) L(k, k)^-H
                       kp->trsm(Side::Right, Uplo::Lower, Op::ConjTrans, Diag::NonUnit, nb, nb, T(1), S.data(), nb, C(i, 1), nb);
                   }});
    out.push_back({"potrf", f3 / 3, n1, [] {}, [=, this](int i) { kp->potrf(Uplo::Lower, nb, C(i, 1), nb); },
                   [=, this](int i) { std::copy(S.begin(), S.end(), C(i, 1)); }});
    out.push_back({"trmm", f3, n1, restore_from(n1, 1, &Sl), [=, this](int i) {
                     kp->trmm(Side::Left, Uplo::Upper, Op::ConjTrans, Diag::NonUnit, nb, nb, T(1), S.data(), nb, C(i, 1), nb);
                   }});
    // The host-only panels, over the panel's height h (the model's abscissa
    // for them), each item h / nb tiles of nb x nb one after the other, as a
    // Matrix stores them: the panel task gathers them into one block, factors
    // it and scatters it back (tasks/lu.hpp, tasks/qr.hpp), and so does this.
    // Restored from `pristine` (random), untimed.
    for (int64_t h : panel_heights(nb, tallest)) {
      const std::size_t e = static_cast<std::size_t>(h * nb);
      const int items = count(e);
      auto restore = [this, e, items] {
        for (int i = 0; i < items; ++i) std::copy(pristine.begin(), pristine.begin() + e, at(static_cast<std::size_t>(i) * e));
      };
      // tile r of item i, column j <-> gathered(r nb .. , j), ld h
      auto move = [this, h, e](int i, bool in) {
        for (int64_t r = 0; r < h / nb; ++r)
          for (int64_t j = 0; j < nb; ++j) {
            T* tile = at(static_cast<std::size_t>(i) * e + static_cast<std::size_t>((r * nb + j) * nb));
            T* block = gathered.data() + r * nb + j * h;
            if (in) std::copy_n(tile, nb, block);
            else std::copy_n(block, nb, tile);
          }
      };
      const double hd = static_cast<double>(h);
      out.push_back({"getrf_panel", scale * (hd * w * w - w * w * w / 3), items, restore, [=, this](int i) {
                       move(i, true);
                       blas::getrf(h, nb, gathered.data(), h, piv.data());
                       move(i, false);
                     }});
      out.push_back({"geqrf_panel", scale * 2 * w * w * (hd - w / 3), items, restore, [=, this](int i) {
                       move(i, true);
                       blas::geqrt_recursive(h, nb, gathered.data(), h, Tm.data(), nb);
                       move(i, false);
                     }});
    }
    // laswp: nb interchanges in a 4 nb x nb tile column, as a step of getrf
    // applies them; GB/s of rows exchanged (read and written).
    const std::size_t e = 4 * t;
    const int items = count(e);
    out.push_back({"laswp", 4.0 * w * w * static_cast<double>(sizeof(T)), items, [] {}, [=, this](int i) {
                     T* col = at(static_cast<std::size_t>(i) * e);
                     T* tiles[4] = {col, col + t, col + 2 * t, col + 3 * t};
                     const int64_t mb[4] = {nb, nb, nb, nb};
                     std::vector<int64_t> rows;
                     rows.reserve(static_cast<std::size_t>(2 * nb));
                     for (int64_t s = 0; s < nb; ++s) rows.insert(rows.end(), {s, (s * 7919 + nb) % (4 * nb)});
                     kp->laswp(nb, 4, tiles, mb, mb, nb, rows.data());
                   }});
    return out;
  }
};

// Every kernel of precision T at tile size nb, measured as a factorization
// runs it: `threads` threads at once (one per host worker, each pinned to
// its own core as the runtime pins workers), each cycling over its own pool
// of tiles larger than the last-level cache for `seconds` in all (in
// kCalibrationWindows windows, below). A window's rate is the mean over the
// threads of (flops of the calls) / (their time).
//
// Why: the former calibration (one core, best of 5 on one cache-resident
// tile, and the BLAS free to use every core for it) predicted potrf 40-49 %
// too fast on this 2-core host (n = 8000: 143 GFLOP/s predicted, 83 real).
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

void put(Rates& r, std::size_t k, int p, double x, double v) {
  auto& pts = r.curves[k][static_cast<std::size_t>(p)].points;
  auto it = std::lower_bound(pts.begin(), pts.end(), x, [](const auto& a, double b) { return a.first < b; });
  if (it != pts.end() && it->first == x) it->second = v;  // a panel height measured at two widths: the later
  else pts.insert(it, {x, v});
}

}  // namespace

std::size_t last_level_cache() {
  std::size_t best = 0;
  for (int i = 0; i < 8; ++i) {
    std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/size");
    std::string s;
    if (!(in >> s) || s.empty()) continue;
    std::size_t v = std::strtoull(s.c_str(), nullptr, 10);
    if (s.back() == 'K') v <<= 10;
    if (s.back() == 'M') v <<= 20;
    best = std::max(best, v);
  }
  if (best == 0) best = std::size_t{32} << 20;
  return std::clamp(best, std::size_t{4} << 20, std::size_t{128} << 20);
}

// The work of one calibration call of kernel k (precision p) at tile size x,
// in its rate's units (flops; laswp: bytes), as Kernels::jobs() counts it.
double call_units(std::size_t k, std::size_t p, double x) {
  const double scale = p >= 2 ? 4 : 1, f3 = scale * x * x * x;
  switch (static_cast<dev::KernelId>(k)) {
    case dev::KernelId::Gemm: return 2 * f3;
    case dev::KernelId::Potrf: return f3 / 3;
    case dev::KernelId::Laswp: return 4 * x * x * static_cast<double>(p == 0 ? 4 : p == 3 ? 16 : 8);
    default: return f3;  // herk, trsm, trmm
  }
}

// How late an emu device's thread wakes from the wait that stretches each
// kernel to CPU time / speed (EmulatedDevice::stretched sleeps until then):
// the least of three medians, each over 67 kernels' worth (one disturbed
// batch does not move it), of the time past the target of a
// sleep_until ~0.5 ms ahead after ~0.3 ms of computing, on an unpinned
// thread as the emu thread is. Linux's default timer slack alone is 50 us;
// measured here 67-75 us (load 6), against 800-1600 us emu tasks at nb 256:
// the emu ran every task 4-8 % longer than the model (potrf n = 2048, load
// 5-7: its gemm tasks' median 1610-1643 us = 2 x the host's ~770 + 70; herk
// 923-955 = 2 x 430 + 70). The median, not the mean: under load the mean
// lateness of this thread was 210-450 us, while the emu tasks' means stayed
// within 3 % of their medians (the loaded cores delay this probe, not them).
double measure_wake_up() {
  constexpr int kBatches = 3, kTimes = 67;
  double best = 1e300;
  volatile double sink = 0;
  for (int b = 0; b < kBatches; ++b) {
    std::vector<double> late;
    for (int i = 0; i < kTimes; ++i) {
      const auto busy_until = Clock::now() + std::chrono::microseconds(300);
      double x = 1;
      while (Clock::now() < busy_until)
        for (int k = 0; k < 64; ++k) x = x * 1.0000001 + 1e-9;
      sink = sink + x;
      const auto target = Clock::now() + std::chrono::microseconds(500);
      std::this_thread::sleep_until(target);
      late.push_back(std::chrono::duration<double>(Clock::now() - target).count());
    }
    std::nth_element(late.begin(), late.begin() + kTimes / 2, late.end());
    best = std::min(best, late[kTimes / 2]);
  }
  return best;
}

namespace {

// A kernel's time is split into kRounds windows, the rounds taking every
// kernel in turn, and its rate is that of its fastest window: a disturbance
// (another user's short job, the VM's host) only slows a window down, and
// the measured side of a validation (hetla simulate --validate) is the best
// of its runs too. With one window of 0.15 s (the mean of all calls), one
// disturbed window moved a whole prediction (2026-11-26, idle but for the
// runs: potrf 2000 on the host cores predicted +0.7 %, +54 %, +4.4 % in
// three runs a minute apart; 4000 +68 % then +5.6 %); with the median of 3
// windows, short runs measured as the best of a second of runs were
// predicted 10-14 % slow (potrf 2000, 4000, getrf 2000: the machine's speed
// moves by that much within minutes, and the best run catches its fast
// moments). The window's mean, not the calls' median: under load 5-7 a
// per-call median moved with the load more than the runs did (predictions
// 64-73 % fast).
constexpr int kRounds = kCalibrationWindows;

template <typename T>
void measure_host(HostRates& r, int p, int64_t nb, const std::vector<double>& speeds, double seconds, const CallPattern& as) {
  const int threads = static_cast<int>(speeds.size());
  const std::size_t pool = last_level_cache() * 3 / 2;
  // The panels of all threads together take at most a quarter of the
  // last-level cache (the pool streams through the rest), up to 8 tiles each;
  // for a validated order, the panel a step's updates read on average: half
  // the tile column (getrf 8192's gemm tasks took 497 us where a panel of 8
  // tiles calibrated 466).
  const std::size_t tile_bytes = static_cast<std::size_t>(nb * nb) * sizeof(T);
  const int panel_tiles =
      as.tallest_panel > 0
          ? static_cast<int>(std::max<int64_t>(2, (as.tallest_panel + 2 * nb - 1) / (2 * nb)))
          : static_cast<int>(std::clamp<std::size_t>(last_level_cache() / (4 * static_cast<std::size_t>(threads) * tile_bytes), 2, 8));
  std::size_t njobs = 0;
  {
    CallPattern small = as;  // as many panel heights as at nb
    small.tallest_panel = (as.tallest_panel * 8 + nb - 1) / std::max<int64_t>(nb, 1);
    Kernels<T> probe(8, 1 << 16, 2, small);
    njobs = probe.jobs().size();
  }
  // [job][round][thread]
  std::vector<std::vector<std::vector<double>>> rate(
      njobs, std::vector<std::vector<double>>(kRounds, std::vector<double>(static_cast<std::size_t>(threads), 0)));
  auto crate = rate;
  std::vector<std::string> labels(njobs);
  std::barrier sync(threads);
  auto body = [&](int th) {
    const double speed = speeds[static_cast<std::size_t>(th)];  // > 0: an emu device's thread, unpinned
    std::optional<util::ScopedCoreBinding> bind;
    if (speed <= 0) bind.emplace(th);
    Kernels<T> ks(nb, pool, panel_tiles, as);
    std::vector<Job> jobs = ks.jobs();
    const std::size_t me = static_cast<std::size_t>(th);
    for (int round = 0; round < kRounds; ++round)
      for (std::size_t j = 0; j < jobs.size(); ++j) {
        Job& job = jobs[j];
        sync.arrive_and_wait();  // all threads start each kernel together
        const auto end = Clock::now() + std::chrono::duration<double>(seconds / kRounds);
        double busy = 0, cpu = 0, units = 0;
        int i = 0;
        job.restore();
        for (int calls = 0;; ++calls) {
          if (i == job.items) job.restore(), i = 0;
          if (job.prep) job.prep(i);
          const auto t0 = Clock::now();
          const double c0 = thread_cpu_seconds();
          job.run(i++);
          const double c = thread_cpu_seconds() - c0;
          cpu += c;
          if (speed > 0 && speed < 1)  // as EmulatedDevice::stretched waits
            std::this_thread::sleep_until(t0 + std::chrono::nanoseconds(static_cast<int64_t>(c / speed * 1e9)));
          const auto t1 = Clock::now();
          busy += std::chrono::duration<double>(t1 - t0).count();
          units += job.units;
          if (t1 >= end && calls >= 2) break;
        }
        rate[j][static_cast<std::size_t>(round)][me] = units / busy / 1e9;
        crate[j][static_cast<std::size_t>(round)][me] = units / std::max(cpu, 1e-9) / 1e9;
        if (th == 0) labels[j] = job.label;
      }
  };
  {
    std::vector<std::jthread> team;
    for (int th = 1; th < threads; ++th) team.emplace_back(body, th);
    body(0);
  }
  // The fastest round's mean rate over the threads of a speed (0: the host's).
  auto best_of_means = [&speeds](const std::vector<std::vector<double>>& rounds, double speed) {
    double best = 0;
    for (const auto& per_thread : rounds) {
      double sum = 0;
      int count = 0;
      for (std::size_t th = 0; th < per_thread.size(); ++th)
        if (speeds[th] == speed) sum += per_thread[th], ++count;
      if (count > 0) best = std::max(best, sum / count);
    }
    return best;
  };
  // The panels' abscissa: panel_heights() in the order jobs() lists them.
  int64_t h = nb;
  for (std::size_t j = 0; j < njobs; ++j) {
    const std::size_t k = labels[j] == "gemm" ? static_cast<std::size_t>(dev::KernelId::Gemm) : model_kernel_of(labels[j].c_str());
    double x = static_cast<double>(nb);
    if (k == kGetrfPanel || k == kGeqrfPanel) {
      x = static_cast<double>(h);
      if (k == kGeqrfPanel) h *= 2;
    }
    const double wall = best_of_means(rate[j], 0), cpu = best_of_means(crate[j], 0);
    if (wall > 0) {
      put(r.wall, k, p, x, wall);
      put(r.cpu, k, p, x, std::max(wall, cpu));  // CPU time <= wall time, up to clock granularity
    }
    for (double s : speeds)
      if (s > 0) put(r.stretched[s], k, p, x, best_of_means(rate[j], s));
  }
}
}  // namespace

void measure_precision(HostRates& r, char precision, int64_t nb, const std::vector<double>& threads, double seconds,
                       const CallPattern& as) {
  if (threads.empty() || threads[0] > 0) throw std::invalid_argument("measure_precision: thread 0 is a host worker");
  const int p = precision_index(precision);
  switch (precision) {
    case 's': measure_host<float>(r, p, nb, threads, seconds, as); break;
    case 'd': measure_host<double>(r, p, nb, threads, seconds, as); break;
    case 'c': measure_host<std::complex<float>>(r, p, nb, threads, seconds, as); break;
    default: measure_host<std::complex<double>>(r, p, nb, threads, seconds, as); break;
  }
}

}  // namespace hetla::sim
