#include "bench/common.hpp"

#include <cstdio>
#include <mutex>

#include "devices/device.hpp"
#include "context/context.hpp"

namespace hetla::cli {

namespace {
TraceCapture* g_active = nullptr;
TraceCapture* g_paused = nullptr;
}  // namespace

TraceCapture::TraceCapture(bool energy)
    : energy_(energy ? std::make_unique<util::EnergyMeter>() : nullptr), previous_(g_active) {
  g_active = this;
}

TraceCapture::~TraceCapture() {
  end(-1);
  g_active = previous_;
}

TraceCapture* TraceCapture::active() { return g_active && g_active != g_paused ? g_active : nullptr; }

void TraceCapture::begin() {
  std::lock_guard<std::recursive_mutex> lock(detail::call_mutex());
  rt::Runtime& runtime = detail::runtime();
  const int rows = runtime.num_trace_rows();  // the workers, then each accelerator's copy engine and copy-out thread
  if (!rec_ || rec_->num_workers() != rows) rec_ = std::make_unique<trace::Recorder>(rows);
  if (static_cast<int>(row_names_.size()) != rows) {
    row_names_.clear();
    for (int w = 0; w < runtime.num_workers(); ++w) {
      std::string name = "worker " + std::to_string(w) + (w == 0 ? " (caller)" : "");
      if (runtime.num_devices() > 1) name += " [" + runtime.device(runtime.device_of_worker(w)).name() + "]";
      row_names_.push_back(std::move(name));
    }
    for (int d = 1; d < runtime.num_devices(); ++d)
      if (runtime.copy_engine_row(d) >= 0) row_names_.push_back(runtime.device(d).name() + " copy");
    for (int d = 1; d < runtime.num_devices(); ++d)
      if (runtime.checkpoint_row(d) >= 0) row_names_.push_back(runtime.device(d).name() + " copy out");
  }
  rec_->restart();
  runtime.reset_stats();
  runtime.set_trace(rec_.get());
  recording_ = true;
  if (energy_) energy_->start();
  memory_.start();
}

void TraceCapture::end(double seconds) noexcept {
  if (!recording_) return;
  std::lock_guard<std::recursive_mutex> lock(detail::call_mutex());
  detail::runtime().set_trace(nullptr);
  std::vector<util::EnergySample> joules;
  if (energy_) joules = energy_->stop();
  const std::optional<int64_t> growth = memory_.growth();
  recording_ = false;
  if (seconds < 0) return;  // the run failed: keep the previous run, if any
  try {
    rt::Runtime& runtime = detail::runtime();
    auto st = runtime.stats();
    devices_.clear();
    for (int d = 0; d < runtime.num_devices(); ++d) {
      int workers = 0;
      for (int w = 0; w < runtime.num_workers(); ++w) workers += runtime.device_of_worker(w) == d;
      devices_.push_back({runtime.device(d).name(), workers, st[static_cast<std::size_t>(d)]});
    }
    events_ = rec_->events();
    num_workers_ = rec_->num_workers();
    seconds_ = seconds;
    joules_ = std::move(joules);
    memory_growth_ = growth;
    captured_ = true;
  } catch (const std::bad_alloc&) {
    events_.clear();
    captured_ = false;
  }
}

TraceCapture::Pause::Pause() : paused_(g_paused) { g_paused = g_active; }

TraceCapture::Pause::~Pause() { g_paused = paused_; }

void add_trace_summary(Record& rec, const trace::Summary& s) {
  Json workers = Json::array(), kernels = Json::array();
  double mean_busy = 0;  // over the workers, not the copy engines' rows
  std::size_t compute_rows = 0;
  for (const auto& ws : s.workers) compute_rows += !ws.transfers_only;
  for (std::size_t w = 0; w < s.workers.size(); ++w) {
    const auto& ws = s.workers[w];
    if (!ws.transfers_only) mean_busy += ws.busy_fraction / static_cast<double>(compute_rows);
    workers.push_back({{"id", w}, {"tasks", ws.tasks}, {"busy_pct", json_number(100 * ws.busy_fraction)}});
  }
  for (const auto& ks : s.kernels) {
    Json k = {{"label", ks.label},
              {"count", ks.count},
              {"seconds", json_number(ks.seconds)},
              {"share_pct", json_number(100 * ks.share)}};
    // The rate of one worker running this kernel in this run: the kernels'
    // in-run rates against the same run's GEMM bound where the time goes.
    if (ks.flops > 0 && ks.seconds > 0) k["gflops"] = json_number(ks.flops / ks.seconds / 1e9);
    kernels.push_back(std::move(k));
  }
  rec.add("busy_pct", 100 * mean_busy, "busy%", 5, 1)
      .add("imbalance", s.imbalance, "imbal", 5, 2)
      .add("workers", RawJson{std::move(workers)}, "-")
      .add("kernels", RawJson{std::move(kernels)}, "-");
}

void add_device_summary(Record& rec, const TraceCapture& cap) {
  const auto& devs = cap.devices();
  if (devs.empty()) return;
  double total_flops = 0;
  for (const auto& d : devs) total_flops += d.stats.flops;
  Json list = Json::array();
  for (const auto& d : devs) {
    const double busy = cap.seconds() > 0 && d.workers > 0 ? d.stats.busy_seconds / (d.workers * cap.seconds()) : 0;
    list.push_back({{"device", d.name},
                    {"workers", d.workers},
                    {"tasks", d.stats.tasks},
                    {"flops_share_pct", json_number(total_flops > 0 ? 100 * d.stats.flops / total_flops : 0.0)},
                    {"busy_pct", json_number(100 * busy)},
                    {"bytes_in", d.stats.bytes_in},
                    {"bytes_out", d.stats.bytes_out},
                    {"evictions", d.stats.evictions}});
  }
  rec.add("devices", RawJson{std::move(list)}, "-");
}

void add_memory_summary(Record& rec, const TraceCapture& cap) {
  constexpr double kMiB = 1024.0 * 1024.0;
  const auto peak = util::MemoryPeak::peak();
  const auto growth = cap.memory_growth();
  rec.add("peak_rss_mb", peak ? Value(static_cast<double>(*peak) / kMiB) : Value(), "-")
      .add("run_rss_mb", growth ? Value(static_cast<double>(*growth) / kMiB) : Value(), "-");
}

std::size_t recovery_mark() {
  detail::CallScope scope;  // (an empty call: the runtime exists)
  return scope.rt().recoveries().size();
}

void add_recoveries(Record& rec, std::size_t first, bool json) {
  const auto all = detail::recoveries_since(first);
  if (all.empty()) return;
  Json list = Json::array();
  for (const auto& r : all) {
    list.push_back({{"device", r.device},
                    {"error", r.error},
                    {"seconds_lost", json_number(r.seconds_lost)},
                    {"tasks_rerun", r.tasks_rerun},
                    {"tasks_moved", r.tasks_moved},
                    {"tiles_copied_back", r.tiles_copied_back}});
    if (!json)
      std::fprintf(stderr, "hetla bench: device %s failed (%s); recovered: %llu task(s) re-run, %.3f s lost\n",
                   r.device.c_str(), r.error.c_str(), static_cast<unsigned long long>(r.tasks_rerun), r.seconds_lost);
  }
  rec.add("recovered", RawJson{std::move(list)}, "-");
}

void add_energy_summary(Record& rec, const TraceCapture& cap) {
  const util::EnergyMeter* meter = cap.energy_meter();
  if (!meter) return;
  if (!meter->available()) {
    rec.add("energy", Value(), "-").add("energy_note", "not measured: " + meter->unavailable_reason(), "-");
    return;
  }
  Json list = Json::array();
  for (const auto& e : cap.joules()) list.push_back({{"device", e.device}, {"joules", json_number(e.joules)}});
  rec.add("energy", RawJson{std::move(list)}, "-");
}

Record make_record(const BenchConfig& c, const LinalgResult& r) {
  auto gflops = [&](double s) { return s > 0 ? r.flops / s / 1e9 : std::numeric_limits<double>::quiet_NaN(); };
  const bool has_uplo = c.spec && (c.spec->options & kOptUplo);
  Value residual, residual_ok;
  bool failed = r.info != 0;
  if (r.residual) {
    const bool ok = std::isfinite(*r.residual) && *r.residual < bench::kResidualThreshold && r.info == 0;
    residual = *r.residual;
    residual_ok = ok;
    failed = failed || !ok;
  }
  Value base_s, base_gf, base_info, ratio;
  if (r.baseline_seconds) {
    base_s = *r.baseline_seconds;
    base_gf = gflops(*r.baseline_seconds);
    ratio = r.seconds > 0 ? *r.baseline_seconds / r.seconds : std::numeric_limits<double>::quiet_NaN();
  }
  if (r.baseline_info) {
    base_info = *r.baseline_info;
    failed = failed || *r.baseline_info != 0;
  }
  Record rec;
  rec.add("routine", c.routine, "", 7)
      .add("precision", std::string(1, c.precision), "prec")
      .add("m", r.m, "", 6)
      .add("n", r.n, "", 6)
      .add("nrhs", r.nrhs)
      .add("nb", r.nb, "", 4)
      .add("uplo", has_uplo ? Value(std::string(1, static_cast<char>(c.uplo))) : Value())
      .add("threads", static_cast<int64_t>(c.threads), "thr")
      .add("repeat", static_cast<int64_t>(c.repeat), "-")
      .add("seconds", r.seconds, "", 9, 4)
      .add("gflops", gflops(r.seconds), "", 8, 2)
      .add("info", r.info)
      .add("residual", residual, "", 8)
      .add("residual_ok", residual_ok, "ok")
      .add("baseline_seconds", base_s, "base_s", 9, 4)
      .add("baseline_gflops", base_gf, "base_gf", 8, 2)
      .add("baseline_info", base_info, "-")
      .add("ratio", ratio, "", 6, 3);
  if (r.gemm_gflops) {
    rec.add("gemm_gflops", *r.gemm_gflops, "gemm_gf", 8, 2);
    rec.add("gemm_fraction", gflops(r.seconds) / *r.gemm_gflops, "of_gemm", 7, 3);
  }
  if (!r.tile_schedule.empty()) {  // "256x9,128x8,64x14": size x count, in order
    std::string s;
    for (std::size_t i = 0; i < r.tile_schedule.size();) {
      std::size_t j = i;
      while (j < r.tile_schedule.size() && r.tile_schedule[j] == r.tile_schedule[i]) ++j;
      if (!s.empty()) s += ',';  // appended piecewise: GCC 12's -Wrestrict misfires on "," + std::string&&
      s += std::to_string(r.tile_schedule[i]);
      s += 'x';
      s += std::to_string(j - i);
      i = j;
    }
    rec.add("tile_schedule", s, "tiles");
  }
  if (hetla::detail::default_distribution() == Distribution::Hybrid) {  // the tiles the run was cut in
    const Tiling t = hetla::hybrid_tiling<double>(r.tiled_n < 0 ? r.n : r.tiled_n, r.nb, r.panels);
    rec.add("tiling", RawJson{Json{{"sizes", t.sizes}, {"owners", t.owners}}}, "-");
  }
  rec.failed = failed;
  return rec;
}

}  // namespace hetla::cli
