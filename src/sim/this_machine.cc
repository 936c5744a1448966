#include "sim/this_machine.hpp"

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <unistd.h>
#include <vector>

#include "devices/emulated/emulated_device.hpp"
#include "devices/host/host_device.hpp"
#include "devices/spec.hpp"
#include "kernels/host/lapack_lu.hpp"
#include "kernels/host/lapack_qr.hpp"
#include "tune/json_file.hpp"
#include "util/blas_threads.hpp"
#include "util/hwloc_topology.hpp"
#include "util/cache_file.hpp"
#include "util/pages.hpp"

namespace hetla::sim {

using nlohmann::json;
using ojson = nlohmann::ordered_json;  // a written model keeps the shipped files' field order

namespace {

using Clock = std::chrono::steady_clock;

// The last-level cache in bytes (sysfs, the highest cache index of cpu0),
// clamped to [4 MB, 128 MB]; 32 MB when unknown.
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
template <typename T> struct Kernels {
  int64_t nb;
  std::size_t pool;
  int panel_tiles;
  double scale;  // complex: 4 real flops a multiply-add
  Tiles<T> arena, panel, S, Sl;
  std::vector<lapack_int> piv;
  std::vector<T> Tm;
  dev::HostDevice host{1};

  Kernels(int64_t nb_, std::size_t pool_, int panel_tiles_) : nb(nb_), pool(pool_), panel_tiles(panel_tiles_) {
    scale = std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>> ? 4 : 1;
    arena.resize(pool / sizeof(T) + static_cast<std::size_t>(24 * nb * nb));
    panel.resize(static_cast<std::size_t>(panel_tiles * nb * nb));
    uint64_t x = 12345;
    for (auto* v : {&arena, &panel})
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
    out.push_back({"gemm", 2 * f3, n1, [] {}, [=, this](int i) {
                     kp->gemm(Op::NoTrans, Op::ConjTrans, nb, nb, nb, T(-1), P(i), nb, P(i / pt), nb, T(1), C(i, 1), nb);
                   }});
    out.push_back({"herk", f3, n1, [] {}, [=, this](int i) {
                     kp->herk(Uplo::Lower, Op::NoTrans, nb, nb, R(-1), P(i), nb, R(1), C(i, 1), nb);
                   }});
    Sl.resize(t);  // the pristine C of trsm, trmm
    std::copy(arena.begin(), arena.begin() + t, Sl.begin());
    out.push_back({"trsm", f3, n1, restore_from(n1, 1, &Sl), [=, this](int i) {
                     kp->trsm(Side::Right, Uplo::Lower, Op::ConjTrans, Diag::NonUnit, nb, nb, T(1), S.data(), nb, C(i, 1), nb);
                   }});
    out.push_back({"potrf", f3 / 3, n1, [] {}, [=, this](int i) { kp->potrf(Uplo::Lower, nb, C(i, 1), nb); },
                   [=, this](int i) { std::copy(S.begin(), S.end(), C(i, 1)); }});
    out.push_back({"trmm", f3, n1, restore_from(n1, 1, &Sl), [=, this](int i) {
                     kp->trmm(Side::Left, Uplo::Upper, Op::ConjTrans, Diag::NonUnit, nb, nb, T(1), S.data(), nb, C(i, 1), nb);
                   }});
    // The host-only panels, over the panel's height h (the model's abscissa
    // for them): restored from the random arena's tail, which no item uses.
    for (int64_t h = nb; h <= 8 * nb; h *= 2) {
      const std::size_t e = static_cast<std::size_t>(h * nb), items_at = static_cast<std::size_t>(count(e));
      const int items = static_cast<int>(std::min<std::size_t>(items_at, (arena.size() - 8 * t) / e));
      const T* src = arena.data() + arena.size() - 8 * t;
      auto restore = [this, e, items, src] {
        for (int i = 0; i < items; ++i) std::copy(src, src + e, at(static_cast<std::size_t>(i) * e));
      };
      const double hd = static_cast<double>(h);
      out.push_back({"getrf_panel", scale * (hd * w * w - w * w * w / 3), items, restore,
                     [=, this](int i) { blas::getrf(h, nb, at(static_cast<std::size_t>(i) * e), h, piv.data()); }});
      out.push_back({"geqrf_panel", scale * 2 * w * w * (hd - w / 3), items, restore, [=, this](int i) {
                       blas::geqrt_recursive(h, nb, at(static_cast<std::size_t>(i) * e), h, Tm.data(), nb);
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
// of tiles larger than the last-level cache for `seconds`. A kernel's rate
// is the mean over the threads of (flops of the calls) / (their time).
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

/// The host's rates per thread in wall time (what a host worker gets) and in
/// the thread's CPU time (what an emu device's stretch counts: it waits
/// until CPU time / speed, so a kernel slowed by other processes is not
/// slowed twice). Equal on an idle machine.
struct HostRates {
  Rates wall, cpu;
  double wake_seconds = -1;  // an emu kernel's wait past its target (measure_wake_up; < 0: not measured)
};

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
// the median, over 200 kernels' worth, of the time past the target of a
// sleep_until ~0.5 ms ahead after ~0.3 ms of computing, on an unpinned
// thread as the emu thread is. Linux's default timer slack alone is 50 us;
// measured here 67-75 us (load 6), against 800-1600 us emu tasks at nb 256:
// the emu ran every task 4-8 % longer than the model (potrf n = 2048, load
// 5-7: its gemm tasks' median 1610-1643 us = 2 x the host's ~770 + 70; herk
// 923-955 = 2 x 430 + 70). The median, not the mean: under load the mean
// lateness of this thread was 210-450 us, while the emu tasks' means stayed
// within 3 % of their medians (the loaded cores delay this probe, not them).
double measure_wake_up() {
  constexpr int kTimes = 200;
  std::vector<double> late;
  volatile double sink = 0;
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
  return late[kTimes / 2];
}

template <typename T> void measure_host(HostRates& r, int p, int64_t nb, int threads, double seconds) {
  const std::size_t pool = last_level_cache() * 3 / 2;
  // The panels of all threads together take at most a quarter of the
  // last-level cache (the pool streams through the rest), up to 8 tiles each.
  const std::size_t tile_bytes = static_cast<std::size_t>(nb * nb) * sizeof(T);
  const int panel_tiles = static_cast<int>(std::clamp<std::size_t>(last_level_cache() / (4 * static_cast<std::size_t>(threads) * tile_bytes), 2, 8));
  std::vector<std::vector<double>> rate, crate;  // [job][thread]
  std::size_t njobs = 0;
  {
    Kernels<T> probe(8, 1 << 16, 2);
    njobs = probe.jobs().size();
  }
  rate.assign(njobs, std::vector<double>(static_cast<std::size_t>(threads), 0));
  crate = rate;
  std::vector<std::string> labels(njobs);
  std::barrier sync(threads);
  auto body = [&](int th) {
    util::ScopedCoreBinding bind(th);
    Kernels<T> ks(nb, pool, panel_tiles);
    std::vector<Job> jobs = ks.jobs();
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      Job& job = jobs[j];
      sync.arrive_and_wait();  // all threads start each kernel together
      const auto end = Clock::now() + std::chrono::duration<double>(seconds);
      double busy = 0, cpu = 0, units = 0;
      int i = 0;
      job.restore();
      for (int calls = 0;; ++calls) {
        if (i == job.items) job.restore(), i = 0;
        if (job.prep) job.prep(i);
        const auto t0 = Clock::now();
        const double c0 = thread_cpu_seconds();
        job.run(i++);
        cpu += thread_cpu_seconds() - c0;
        const auto t1 = Clock::now();
        busy += std::chrono::duration<double>(t1 - t0).count();
        units += job.units;
        if (t1 >= end && calls >= 2) break;
      }
      rate[j][static_cast<std::size_t>(th)] = units / busy / 1e9;
      crate[j][static_cast<std::size_t>(th)] = units / std::max(cpu, 1e-9) / 1e9;
      if (th == 0) labels[j] = job.label;
    }
  };
  {
    std::vector<std::jthread> team;
    for (int th = 1; th < threads; ++th) team.emplace_back(body, th);
    body(0);
  }
  // The panels' abscissa: heights nb, 2 nb, 4 nb, 8 nb in the order jobs() lists them.
  int64_t h = nb;
  for (std::size_t j = 0; j < njobs; ++j) {
    double sum = 0, csum = 0;
    for (std::size_t th = 0; th < rate[j].size(); ++th) sum += rate[j][th], csum += crate[j][th];
    const std::size_t k = labels[j] == "gemm" ? static_cast<std::size_t>(dev::KernelId::Gemm) : model_kernel_of(labels[j].c_str());
    double x = static_cast<double>(nb);
    if (k == kGetrfPanel || k == kGeqrfPanel) {
      x = static_cast<double>(h);
      if (k == kGeqrfPanel) h *= 2;
    }
    put(r.wall, k, p, x, sum / threads);
    put(r.cpu, k, p, x, std::max(sum, csum) / threads);  // CPU time <= wall time, up to clock granularity
  }
}

void measure_precision(HostRates& r, char precision, int64_t nb, int threads, double seconds) {
  const int p = precision_index(precision);
  switch (precision) {
    case 's': measure_host<float>(r, p, nb, threads, seconds); break;
    case 'd': measure_host<double>(r, p, nb, threads, seconds); break;
    case 'c': measure_host<std::complex<float>>(r, p, nb, threads, seconds); break;
    default: measure_host<std::complex<double>>(r, p, nb, threads, seconds); break;
  }
}

// The device set of a --devices spec, and what runs at once on the host's
// cores in a real run of it: `workers` pinned host workers, and each emu
// device's thread computing a `speed` fraction of its time (it runs its
// kernel at a core's rate, then waits: EmulatedDevice::stretched). Emu
// threads are not pinned (runtime/workers.cc pins host workers only), so
// they take whatever core is free.
struct Layout {
  dev::DeviceSet set;
  int workers = 1;        // host workers
  int threads = 1;        // measured at once: workers + emu devices, at most the cores
  double load = 1;        // cores' worth of compute: workers + sum of emu speeds
  int machine_cores = 1;
};

Layout layout(const std::string& devices, int cores) {
  Layout l;
  l.set = dev::parse_devices(devices);
  int accel_workers = 0, emus = 0;
  double speeds = 0;
  for (const auto& a : l.set.accelerators) {
    if (a->kind() != dev::Kind::Emulated)
      throw std::invalid_argument("this_machine: only cpu and emu devices are modelled so far, not '" + a->name() + "'");
    accel_workers += a->num_workers();
    ++emus;
    speeds += std::min(1.0, a->nominal_speed());
  }
  l.machine_cores = util::Topology::get().cores();
  l.workers = cores > 0 ? cores : l.set.host_cores > 0 ? l.set.host_cores : std::max(1, l.machine_cores - accel_workers);
  l.threads = std::max(1, std::min(l.machine_cores, l.workers + emus));
  l.load = l.workers + speeds;
  return l;
}

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// The model of the layout's devices on measured host rates (per thread at
// l.threads at once). When the compute load exceeds the cores (more workers
// and emu threads than cores), every computing thread gets cores / load of
// a core: the host rates shrink by that, and an emu device computes at
// min(speed, cores / load) of a core (its stretch is to CPU time / speed, so
// it only gets slower than speed when it cannot get its CPU time).
MachineModel build(const Layout& l, const HostRates& hr, const std::string& devices, const std::string& host_source) {
  const Rates& host = hr.wall;
  MachineModel m;
  m.name = "this";
  m.description = "this machine (" + util::Topology::get().cpu_model() + ", " + util::blas_vendor() +
                  ") for --devices " + devices;
  const double share = l.load > l.machine_cores ? l.machine_cores / l.load : 1.0;
  m.host = host;
  if (share < 1)
    for (auto& k : m.host.curves)
      for (auto& c : k)
        for (auto& pt : c.points) pt.second *= share;
  m.cores = l.workers;
  m.sources.emplace_back("host.cores", "host workers for --devices " + devices + " (" + std::to_string(l.machine_cores) +
                                           " cores in this process's CPU set)");
  m.sources.emplace_back("host.kernels", host_source + (share < 1 ? fmt("; times %.3f: the workers and emu threads load the cores", share) : ""));
  m.hubs.push_back({1e6, 0});
  m.sources.emplace_back("hubs", "none shared: an emu device's copies are limited by its own bw only");
  int i = 0;
  for (const auto& a : l.set.accelerators) {
    DeviceModel d;
    d.name = a->name();
    d.memory_bytes = static_cast<double>(a->memory_capacity());
    d.herk_as_gemm = a->herk_as_gemm();
    d.link_gbs = a->bandwidth_hint() / 1e9;
    const auto* e = dynamic_cast<const dev::EmulatedDevice*>(a.get());
    d.link_latency_us = e ? e->config().latency_us : 0;
    // Its kernel runs on a core for CPU time t, then it waits until t / speed
    // has passed: speed x the CPU-time rate, unless sharing the cores makes
    // the kernel itself slower than that (the wall rate, times the cores'
    // share when the workers and emu threads overload them).
    const double speed = a->nominal_speed(), cap = share;
    // a stretched kernel (speed < 1) also waits the wake-up's lateness
    const double wake = speed < 1 ? std::max(0.0, hr.wake_seconds) : 0;
    for (std::size_t k = 1; k < kDeviceKernels; ++k)
      for (std::size_t p = 0; p < 4; ++p) {
        auto c = hr.cpu.curves[k][p];
        const RateCurve& w = host.curves[k][p];
        for (auto& pt : c.points) {
          const double rate = std::min(pt.second * speed, w.at(pt.first) * cap), units = call_units(k, p, pt.first);
          pt.second = rate > 0 && wake > 0 ? units / (units / (rate * 1e9) + wake) / 1e9 : rate;
        }
        d.rates.curves[k][p] = c;
      }
    const std::string f = "devices[" + std::to_string(i++) + "]";
    m.sources.emplace_back(f + ".kernels", fmt("emu speed %g", speed) +
                                               " x the host kernels' rates in CPU time, at most their wall-time rates" +
                                               (cap < 1 ? fmt(" x %.3f (the cores are shared)", cap) : "") +
                                               " (it runs the host BLAS on its own thread, then waits until CPU time / speed)" +
                                               (wake > 0 ? ", each call " + fmt("%.1f", wake * 1e6) + " us longer: its wake-up from that wait, measured here" : ""));
    m.sources.emplace_back(f + ".link_gbs", e && e->config().bandwidth_gbs > 0 ? "emu bw parameter"
                                                                                 : "emu without bw: hetla's 20 GB/s hint (copies are memcpy)");
    m.sources.emplace_back(f + ".link_latency_us", "emu lat parameter (0 when not given)");
    m.sources.emplace_back(f + ".link_duplex", "full: an emu device times each copy on its own (EmulatedDevice::throttle), "
                                               "so a copy in and a copy out overlap");
    m.sources.emplace_back(f + ".memory_gb", "emu mem parameter (0: unlimited)");
    m.devices.push_back(std::move(d));
  }
  return m;
}

std::string host_source(const Layout& l, const std::string& precisions, const std::vector<int64_t>& nbs, double seconds) {
  std::string nb;
  for (auto v : nbs) nb += (nb.empty() ? "" : ",") + std::to_string(v);
  return "measured on this machine (" + util::Topology::get().cpu_model() + ", " + util::blas_vendor() + "): " +
         std::to_string(l.threads) + " threads at once, each pinned to a core and cycling over " +
         std::to_string(last_level_cache() * 3 / 2 >> 20) + " MB of its own tiles (1.5 x the last-level cache), " +
         fmt("%.2f", seconds) + " s per kernel; precisions " + precisions + ", nb " + nb +
         " (panels at heights nb..8nb; laswp in GB/s)";
}

HostRates measure_rates(const Layout& l, const std::string& precisions, const std::vector<int64_t>& nbs, double seconds) {
  util::BlasThreadsGuard blas(1);  // one core per thread, as the runtime's workers run the BLAS
  HostRates r;
  for (char c : precisions)
    for (int64_t nb : nbs) measure_precision(r, c, nb, l.threads, seconds);
  r.wake_seconds = measure_wake_up();
  return r;
}

// ---- the store of measured host rates ----------------------------------

constexpr int kStoreVersion = 2;  // 2: cpu_time_model added

ojson curves_json(const Rates& r, std::size_t first, std::size_t last) {
  ojson ks = ojson::object();
  for (std::size_t k = first; k < last; ++k) {
    ojson per = ojson::object();
    for (std::size_t p = 0; p < 4; ++p) {
      const auto& c = r.curves[k][p];
      if (c.empty()) continue;
      ojson pts = ojson::array();
      for (const auto& [x, v] : c.points) pts.push_back({x, v});
      per[std::string(1, "sdcz"[p])] = pts;
    }
    if (!per.empty()) ks[model_kernel_name(k)] = per;
  }
  return ks;
}

struct StoreKey {
  std::string blas, cpu;
  int threads;
};

StoreKey key_of(const Layout& l) { return {util::blas_vendor(), util::Topology::get().cpu_model(), l.threads}; }

bool has_point(const Rates& r, int p, int64_t nb) {
  const double x = static_cast<double>(nb);
  for (std::size_t k : {static_cast<std::size_t>(dev::KernelId::Gemm), kGetrfPanel, kGeqrfPanel,
                        static_cast<std::size_t>(dev::KernelId::Laswp)}) {
    const auto& pts = r.curves[k][static_cast<std::size_t>(p)].points;
    if (std::none_of(pts.begin(), pts.end(), [&](const auto& pt) { return pt.first == x; })) return false;
  }
  return true;
}

void merge(Rates& into, const Rates& from) {
  for (std::size_t k = 0; k < kKernels; ++k)
    for (std::size_t p = 0; p < 4; ++p)
      for (const auto& pt : from.curves[k][p].points) {
        auto& pts = into.curves[k][p].points;
        auto it = std::lower_bound(pts.begin(), pts.end(), pt.first, [](const auto& a, double b) { return a.first < b; });
        if (it != pts.end() && it->first == pt.first) it->second = pt.second;
        else pts.insert(it, pt);
      }
}

}  // namespace

std::string this_machine_path() { return util::cache_file("HETLA_MACHINE_THIS", "machine-this.json"); }

std::string model_json(const MachineModel& m) {
  ojson j = ojson::object();
  j["name"] = m.name;
  if (!m.description.empty()) j["description"] = m.description;
  ojson src = ojson::object();
  for (const auto& [k, v] : m.sources) src[k] = v;
  j["sources"] = src;
  j["host"] = {{"cores", m.cores}, {"kernels", curves_json(m.host, 1, kKernels)}};
  if (m.memory_bandwidth_gbs > 0) j["host"]["memory_bandwidth_gbs"] = m.memory_bandwidth_gbs;
  ojson hubs = ojson::array();
  for (const auto& h : m.hubs)
    hubs.push_back({{"bandwidth_gbs", h.gbs}, {"latency_us", h.latency_us}, {"duplex", h.full_duplex ? "full" : "half"}});
  j["hubs"] = hubs;
  ojson devs = ojson::array();
  for (const auto& d : m.devices) {
    ojson o = {{"name", d.name},         {"count", d.count},     {"memory_gb", d.memory_bytes / 1e9},
              {"hub", d.hub},           {"link_gbs", d.link_gbs}, {"link_latency_us", d.link_latency_us},
              {"link_duplex", d.link_full_duplex ? "full" : "half"},
              {"fp64", d.fp64},         {"herk_as_gemm", d.herk_as_gemm},
              {"kernels", curves_json(d.rates, 1, kDeviceKernels)}};
    devs.push_back(o);
  }
  j["devices"] = devs;
  if (m.nodes > 1 || m.network_gbs > 0)
    j["network"] = {{"nodes", m.nodes}, {"bandwidth_gbs", m.network_gbs}, {"latency_us", m.network_latency_us}};
  return j.dump(2) + "\n";
}

MachineModel measure_this(const ThisOptions& opt) {
  const Layout l = layout(opt.devices, opt.cores);
  for (char c : opt.precisions) precision_index(c);  // throws on a bad letter
  std::vector<int64_t> nbs = opt.nbs;
  std::sort(nbs.begin(), nbs.end());  // a panel height two widths share keeps the larger width's rate
  const HostRates r = measure_rates(l, opt.precisions, nbs, opt.seconds);
  return build(l, r, opt.devices, host_source(l, opt.precisions, nbs, opt.seconds));
}

MachineModel this_machine(const std::string& devices, char precision, int64_t nb, int cores) {
  const Layout l = layout(devices, cores);
  const int p = precision_index(precision);
  const std::string path = this_machine_path();
  const StoreKey key = key_of(l);
  json doc = {{"version", kStoreVersion}, {"machines", json::array()}};
  std::size_t found = SIZE_MAX;
  try {
    std::ifstream in(path);
    if (in) {
      doc = tune::read_json_file(in, path, "machine model store");
      tune::check_version(doc, path, "machine model store", kStoreVersion);
      const json& ms = doc.at("machines");
      for (std::size_t i = 0; i < ms.size(); ++i)
        if (ms[i].at("blas") == key.blas && ms[i].at("cpu") == key.cpu && ms[i].at("threads") == key.threads) found = i;
    }
  } catch (const std::exception& e) {  // a damaged store is measured again and rewritten
    std::fprintf(stderr, "hetla: %s: %s; measuring this machine again\n", path.c_str(), e.what());
    doc = {{"version", kStoreVersion}, {"machines", json::array()}};
    found = SIZE_MAX;
  }
  HostRates host;
  std::string source;
  if (found != SIZE_MAX) {
    const json& e = doc["machines"][found];
    try {
      const MachineModel stored = parse_model(e.at("model").dump(), path);
      host.wall = stored.host;
      host.cpu = parse_model(e.at("cpu_time_model").dump(), path).host;
      for (const auto& [k, v] : stored.sources)
        if (k == "host.kernels") source = v;
      if (e.contains("wake_up_us")) host.wake_seconds = e.at("wake_up_us").get<double>() * 1e-6;
    } catch (const std::exception& ex) {
      std::fprintf(stderr, "hetla: %s; measuring this machine again\n", ex.what());
      found = SIZE_MAX;
    }
  }
  bool write = false;
  if (found == SIZE_MAX || !has_point(host.wall, p, nb) || !has_point(host.cpu, p, nb)) {
    const HostRates fresh = measure_rates(l, std::string(1, precision), {nb}, 0.15);
    merge(host.wall, fresh.wall);
    merge(host.cpu, fresh.cpu);
    host.wake_seconds = fresh.wake_seconds;
    const std::string add = host_source(l, std::string(1, precision), {nb}, 0.15);
    source = source.empty() ? add : source + "; " + add;
    MachineModel stored;
    stored.name = "this";
    stored.cores = l.threads;
    stored.host = host.wall;
    stored.sources.emplace_back("host.kernels", source);
    MachineModel cpu_time = stored;
    cpu_time.host = host.cpu;
    cpu_time.sources = {{"host.kernels", "the same measurement in the threads' CPU time (the emu devices' base)"}};
    json entry = {{"blas", key.blas},
                  {"cpu", key.cpu},
                  {"threads", key.threads},
                  {"model", json::parse(model_json(stored))},
                  {"cpu_time_model", json::parse(model_json(cpu_time))}};
    if (found == SIZE_MAX) found = doc["machines"].size(), doc["machines"].push_back(entry);
    else doc["machines"][found] = entry;
    write = true;
  }
  if (host.wake_seconds < 0) host.wake_seconds = measure_wake_up();  // a store written before it was measured
  if (write || !doc["machines"][found].contains("wake_up_us")) {
    doc["machines"][found]["wake_up_us"] = host.wake_seconds * 1e6;
    try {
      tune::write_json_file(path, doc);
    } catch (const std::exception& ex) {
      std::fprintf(stderr, "hetla: cannot store the model of this machine: %s\n", ex.what());
    }
  }
  return build(l, host, devices, source + " (stored in " + path + ")");
}

}  // namespace hetla::sim
