// Execution traces: every task's worker, kernel label, start and end. Each
// worker appends to its own buffer (no locks on the hot path); the buffers are
// merged when the trace is read, after wait_all().
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace hetla::trace {

struct Event {
  const char* label;  // static string (kernel name)
  int worker;
  double start;  // seconds since the recorder was created
  double end;
};

class Recorder {
 public:
  explicit Recorder(int num_workers);
  double now() const;  // seconds since creation (steady clock)
  void record(int worker, const char* label, double start, double end) {
    buffers_[static_cast<std::size_t>(worker)].push_back({label, worker, start, end});
  }
  /// All events, sorted by start time. Call only while no task runs.
  std::vector<Event> events() const;
  int num_workers() const { return static_cast<int>(buffers_.size()); }
  void clear();

 private:
  struct alignas(64) Buffer : std::vector<Event> {};  // one cache line apart
  std::vector<Buffer> buffers_;
  int64_t origin_ns_;
};

/// Per-kernel busy time and the workers' idle share over [first start, last end].
struct Summary {
  struct Kernel {
    std::string label;
    std::size_t count = 0;
    double seconds = 0;
  };
  std::vector<Kernel> kernels;
  std::vector<double> busy_per_worker;
  double span = 0;
};
Summary summarize(const std::vector<Event>& events, int num_workers);

/// Chrome trace JSON (chrome://tracing, Perfetto).
std::string to_chrome_json(const std::vector<Event>& events);

}  // namespace hetla::trace
