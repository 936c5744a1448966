// Execution traces: every task's worker, kernel label, start and end. Each
// worker appends to its own buffer (no locks on the hot path); the buffers are
// merged when the trace is read, after wait_all().
//
// Readers: summarize() (busy time per worker and per kernel, load imbalance),
// to_chrome_json() (chrome://tracing, Perfetto) and to_svg() (a Gantt chart).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace hetla::trace {

/// What an event is: a computational task, or a data transfer (copy between
/// memories). Transfers are drawn in their own colour; an event whose label
/// starts with "copy" counts as a transfer too (see is_transfer()).
enum class Kind : uint8_t { Task, Transfer };

struct Event {
  const char* label;  // static string (kernel name)
  int worker;         // row of the trace: worker thread (later: device stream)
  double start;       // seconds since the recorder was (re)started
  double end;
  uint64_t bytes = 0;  // bytes moved, for transfers (0 = not recorded)
  Kind kind = Kind::Task;
  float flops = 0;  // the task's flops (0 = not counted); a float fills the padding after kind
};

/// A transfer: kind Transfer, or a label starting with "copy".
bool is_transfer(const Event& e);

class Recorder {
 public:
  explicit Recorder(int num_workers);
  double now() const;  // seconds since creation or the last restart() (steady clock)
  void record(int worker, const char* label, double start, double end, double flops = 0) {
    buffers_[static_cast<std::size_t>(worker)].push_back(
        {label, worker, start, end, 0, Kind::Task, static_cast<float>(flops)});
  }
  void record(int worker, const char* label, double start, double end, Kind kind, uint64_t bytes) {
    buffers_[static_cast<std::size_t>(worker)].push_back({label, worker, start, end, bytes, kind});
  }
  /// All events, sorted by start time. Call only while no task runs.
  std::vector<Event> events() const;
  int num_workers() const { return static_cast<int>(buffers_.size()); }
  /// Drops all events; the time origin stays.
  void clear();
  /// Drops all events and moves the time origin to now. Call only while no task runs.
  void restart();

 private:
  struct alignas(64) Buffer : std::vector<Event> {};  // one cache line apart
  std::vector<Buffer> buffers_;
  int64_t origin_ns_;
};

/// Busy time per worker and per kernel, and the load imbalance.
struct Summary {
  struct Kernel {
    std::string label;
    std::size_t count = 0;
    double seconds = 0;     // summed duration of its events
    double share = 0;       // seconds / total busy time of all workers
    double flops = 0;       // summed flops of its events (those that count them)
    bool transfer = false;  // see is_transfer()
  };
  struct Worker {
    std::size_t tasks = 0;
    double busy = 0;           // seconds spent in events
    double busy_fraction = 0;  // busy / window
    bool transfers_only = false;  // it has events, all transfers: a copy engine's row
  };
  std::vector<Kernel> kernels;  // largest time first (ties: by label)
  std::vector<Worker> workers;  // one per worker, by id
  std::vector<double> busy_per_worker;  // workers[i].busy
  double span = 0;    // first start to last end
  double window = 0;  // denominator of busy_fraction: the given window, or span
  double busy = 0;    // total busy time, all workers
  /// Load imbalance: largest per-worker busy time / mean busy time (seed 004
  /// §5.3: max load over average load). 1 = perfectly balanced; num_workers =
  /// one worker did everything. NaN when nothing was busy. Rows that only
  /// moved data (transfers_only: copy engines) are not workers here.
  double imbalance = 0;
};
/// `window` > 0 (e.g. the wall time of the traced call) is the denominator of
/// busy fractions; otherwise the span of the events is. Throws
/// std::invalid_argument for an event of a worker outside [0, num_workers).
Summary summarize(const std::vector<Event>& events, int num_workers, double window = 0);

/// Chrome trace JSON (chrome://tracing, Perfetto): one complete ("X") event per
/// trace event, timestamps in microseconds. With num_workers > 0 the rows are
/// named by thread_name metadata events: row_names[i], or "worker i".
std::string to_chrome_json(const std::vector<Event>& events, int num_workers = 0,
                           const std::vector<std::string>& row_names = {});

struct SvgOptions {
  std::string title;                   // first line, e.g. "dpotrf n=2000 nb=256"
  std::string subtitle;                // second line, e.g. "12.3 ms, 45.6 GFLOP/s"
  std::vector<std::string> row_names;  // one per row; default "worker i"
  double t0 = 0;                       // time window drawn, in seconds ...
  double t1 = 0;                       // ... t1 <= t0: up to the last event's end
  int width = 1200;                    // pixels
  int row_height = 22;                 // pixels per row
  std::size_t max_tooltips = 5000;     // events get a hover <title> when there are at most this many
};

/// Gantt chart as a standalone SVG document: one row per worker, time on the
/// x axis (ms since t0), one colour per kernel label (assigned in label
/// order, so a routine's kernels keep their colours from run to run;
/// transfers in reds) with a legend (tasks by total time, largest first, then
/// transfers), each row's busy % on the right. Each event is one `<rect class="kN" ...>` (N: its label's colour
/// class); legend swatches are `<rect class="sw kN" ...>`. Throws
/// std::invalid_argument for an event of a worker outside [0, num_workers) or
/// num_workers < 1.
std::string to_svg(const std::vector<Event>& events, int num_workers, const SvgOptions& options = {});

}  // namespace hetla::trace
