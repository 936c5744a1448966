#include "trace/trace.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <sstream>

namespace hetla::trace {

namespace {
int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

Recorder::Recorder(int num_workers) : buffers_(static_cast<std::size_t>(num_workers)), origin_ns_(steady_ns()) {
  for (auto& b : buffers_) b.reserve(4096);
}

double Recorder::now() const { return static_cast<double>(steady_ns() - origin_ns_) * 1e-9; }

std::vector<Event> Recorder::events() const {
  std::vector<Event> all;
  for (const auto& b : buffers_) all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end(), [](const Event& a, const Event& b) { return a.start < b.start; });
  return all;
}

void Recorder::clear() {
  for (auto& b : buffers_) b.clear();
}

Summary summarize(const std::vector<Event>& events, int num_workers) {
  Summary s;
  s.busy_per_worker.assign(static_cast<std::size_t>(num_workers), 0.0);
  if (events.empty()) return s;
  double first = events.front().start, last = 0;
  std::map<std::string, Summary::Kernel> by_label;
  for (const auto& e : events) {
    last = std::max(last, e.end);
    auto& k = by_label[e.label];
    k.label = e.label;
    ++k.count;
    k.seconds += e.end - e.start;
    if (e.worker >= 0 && e.worker < num_workers) s.busy_per_worker[static_cast<std::size_t>(e.worker)] += e.end - e.start;
  }
  s.span = last - first;
  for (auto& [label, k] : by_label) s.kernels.push_back(k);
  std::sort(s.kernels.begin(), s.kernels.end(), [](const auto& a, const auto& b) { return a.seconds > b.seconds; });
  return s;
}

std::string to_chrome_json(const std::vector<Event>& events) {
  std::ostringstream o;
  o << "{\"traceEvents\":[";
  bool first = true;
  for (const auto& e : events) {
    if (!first) o << ',';
    first = false;
    o << "{\"name\":\"" << e.label << "\",\"cat\":\"task\",\"ph\":\"X\",\"pid\":0,\"tid\":" << e.worker
      << ",\"ts\":" << e.start * 1e6 << ",\"dur\":" << (e.end - e.start) * 1e6 << '}';
  }
  o << "],\"displayTimeUnit\":\"ms\"}\n";
  return o.str();
}

}  // namespace hetla::trace
