// A one-line progress reporter on stderr for long commands (tune, demo,
// benches): "\r<what>: <phase> i/n  12.3 s". A small ticker thread redraws
// the line ~4 times a second, so the time keeps moving inside one long step
// (a single large factorization, an OpenCL kernel build) where no update()
// comes. Silent, and no thread, when stderr is not a terminal (piped,
// redirected to a file) or with --quiet, so scripts and logs never see
// carriage returns.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace hetla::cli {

class Progress {
 public:
  /// `what` starts the line ("hetla tune"); `quiet` silences it.
  Progress(std::string what, bool quiet);
  /// Stops and joins the ticker and erases the line (also when unwinding).
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// The line is drawn (stderr is a terminal and not --quiet).
  bool enabled() const { return enabled_; }
  /// Step i of n (0-based i; n <= 0: no count) of `phase`; the line shows
  /// the time since the Progress started.
  void update(std::string_view phase, int64_t i, int64_t n);
  /// A step that stays on screen, "[i/n] <line>" (1-based i): on a terminal
  /// the previous step's line is kept with its final time and this one
  /// ticks with the time since it began; elsewhere, unless quiet, it is
  /// printed once as a plain line.
  void step(std::string_view line, int i, int n);
  /// Erases the line (before results or errors are printed), or ends a
  /// step line with its final time; nothing is drawn again until the next
  /// update() or step().
  void clear();

 private:
  void draw(double now);  // with mu_ held
  void end_step();        // with mu_ held: keeps a step line on screen
  void tick();            // the ticker thread
  void start_ticker();    // with mu_ held

  std::string what_;
  bool quiet_, enabled_;
  double start_;
  std::mutex mu_;  // guards everything below and the line on stderr
  std::condition_variable wake_;
  bool stop_ = false;
  bool shown_ = false;     // a state to draw (not cleared)
  bool stepping_ = false;  // the line is a step() line
  std::string phase_;
  int64_t i_ = 0, n_ = 0;
  double since_ = 0;       // the shown time counts from here
  double last_draw_ = -1;
  std::size_t drawn_ = 0;  // characters on the line now
  std::thread ticker_;     // started at the first update() or step() when enabled
};

}  // namespace hetla::cli
