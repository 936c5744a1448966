#include "trace/trace.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace hetla::trace {

namespace {
int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void check_worker(const Event& e, int num_workers, const char* who) {
  if (e.worker < 0 || e.worker >= num_workers)
    throw std::invalid_argument(std::string(who) + ": event '" + (e.label ? e.label : "") + "' on worker " +
                                std::to_string(e.worker) + ", outside [0, " + std::to_string(num_workers) + ")");
}

}  // namespace

bool is_transfer(const Event& e) {
  return e.kind == Kind::Transfer || (e.label && std::strncmp(e.label, "copy", 4) == 0);
}

Recorder::Recorder(int num_workers) : buffers_(static_cast<std::size_t>(num_workers)), origin_ns_(steady_ns()) {
  for (auto& b : buffers_) b.reserve(4096);
}

double Recorder::now() const { return static_cast<double>(steady_ns() - origin_ns_) * 1e-9; }

std::vector<Event> Recorder::events() const {
  std::vector<Event> all;
  std::size_t total = 0;
  for (const auto& b : buffers_) total += b.size();
  all.reserve(total);
  for (const auto& b : buffers_) all.insert(all.end(), b.begin(), b.end());
  std::stable_sort(all.begin(), all.end(), [](const Event& a, const Event& b) { return a.start < b.start; });
  return all;
}

void Recorder::clear() {
  for (auto& b : buffers_) b.clear();
}

void Recorder::restart() {
  clear();
  origin_ns_ = steady_ns();
}

Summary summarize(const std::vector<Event>& events, int num_workers, double window) {
  if (num_workers < 0) throw std::invalid_argument("trace::summarize: num_workers < 0");
  Summary s;
  s.workers.assign(static_cast<std::size_t>(num_workers), {});
  s.busy_per_worker.assign(static_cast<std::size_t>(num_workers), 0.0);
  s.imbalance = std::numeric_limits<double>::quiet_NaN();
  double first = std::numeric_limits<double>::infinity(), last = -std::numeric_limits<double>::infinity();
  std::map<std::string, Summary::Kernel> by_label;
  for (const auto& e : events) {
    check_worker(e, num_workers, "trace::summarize");
    const double d = e.end - e.start;
    first = std::min(first, e.start);
    last = std::max(last, e.end);
    const char* label = e.label ? e.label : "";
    auto& k = by_label[label];
    k.label = label;
    k.transfer = k.transfer || is_transfer(e);
    ++k.count;
    k.seconds += d;
    k.flops += e.flops;
    auto& w = s.workers[static_cast<std::size_t>(e.worker)];
    w.transfers_only = (w.tasks == 0 || w.transfers_only) && is_transfer(e);
    ++w.tasks;
    w.busy += d;
    s.busy += d;
  }
  s.span = events.empty() ? 0.0 : last - first;
  s.window = window > 0 ? window : s.span;
  double max_busy = 0, compute_busy = 0;
  int compute_rows = 0;
  for (std::size_t i = 0; i < s.workers.size(); ++i) {
    auto& w = s.workers[i];
    w.busy_fraction = s.window > 0 ? w.busy / s.window : 0.0;
    s.busy_per_worker[i] = w.busy;
    if (w.transfers_only) continue;
    max_busy = std::max(max_busy, w.busy);
    compute_busy += w.busy;
    ++compute_rows;
  }
  if (compute_rows > 0 && compute_busy > 0) s.imbalance = max_busy / (compute_busy / compute_rows);
  for (auto& [label, k] : by_label) {
    k.share = s.busy > 0 ? k.seconds / s.busy : 0.0;
    s.kernels.push_back(k);
  }
  std::stable_sort(s.kernels.begin(), s.kernels.end(),
                   [](const auto& a, const auto& b) { return a.seconds > b.seconds; });
  return s;
}

std::string to_chrome_json(const std::vector<Event>& events, int num_workers,
                           const std::vector<std::string>& row_names) {
  using nlohmann::ordered_json;
  // Microseconds rounded to the nanosecond the clock gives.
  auto us = [](double seconds) { return std::round(seconds * 1e9) / 1e3; };
  ordered_json list = ordered_json::array();
  for (int w = 0; w < num_workers; ++w) {
    const std::size_t i = static_cast<std::size_t>(w);
    const std::string name = i < row_names.size() ? row_names[i] : "worker " + std::to_string(w);
    list.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", w}, {"args", {{"name", name}}}});
  }
  for (const auto& e : events) {
    ordered_json ev = {{"name", e.label ? e.label : ""},
                       {"cat", is_transfer(e) ? "transfer" : "task"},
                       {"ph", "X"},
                       {"pid", 0},
                       {"tid", e.worker},
                       {"ts", us(e.start)},
                       {"dur", us(e.end - e.start)}};
    if (e.bytes > 0) ev["args"] = {{"bytes", e.bytes}};
    list.push_back(std::move(ev));
  }
  const ordered_json doc = {{"traceEvents", std::move(list)}, {"displayTimeUnit", "ms"}};
  return doc.dump(-1, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace hetla::trace
