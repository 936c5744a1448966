// A one-line progress reporter on stderr for long commands (tune, demo,
// benches with several configurations or repeats): "\r<what>: <phase> i/n
// 12.3 s", redrawn at most ~5 times a second. Silent when stderr is not a
// terminal (piped, redirected to a file) or with --quiet, so scripts and logs
// never see carriage returns.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace hetla::cli {

class Progress {
 public:
  /// `what` starts the line ("hetla tune"); `quiet` silences it.
  Progress(std::string what, bool quiet);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  bool enabled() const { return enabled_; }
  /// Step i of n (0-based i; n <= 0: no count) of `phase`.
  void update(std::string_view phase, int64_t i, int64_t n);
  /// Erases the line (before results or errors are printed).
  void clear();

 private:
  std::string what_;
  bool enabled_;
  double start_, last_draw_ = -1;
  std::size_t drawn_ = 0;  // characters on the line now
};

}  // namespace hetla::cli
