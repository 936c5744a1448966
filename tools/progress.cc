#include "progress.hpp"

#include <unistd.h>

#include <cstdio>

#include "cli.hpp"

namespace hetla::cli {

Progress::Progress(std::string what, bool quiet)
    : what_(std::move(what)), enabled_(!quiet && ::isatty(STDERR_FILENO) == 1), start_(now_seconds()) {}

Progress::~Progress() { clear(); }

void Progress::update(std::string_view phase, int64_t i, int64_t n) {
  if (!enabled_) return;
  const double now = now_seconds();
  if (last_draw_ >= 0 && now - last_draw_ < 0.2) return;  // a redraw per step would slow short steps down
  last_draw_ = now;
  char count[48] = "";
  if (n > 0) std::snprintf(count, sizeof count, " %lld/%lld", static_cast<long long>(i + 1), static_cast<long long>(n));
  char buf[512];
  const int len = std::snprintf(buf, sizeof buf, "%s: %.*s%s  %.1f s", what_.c_str(), static_cast<int>(phase.size()),
                                phase.data(), count, now - start_);
  const std::size_t k = len < 0 ? 0 : static_cast<std::size_t>(len) < sizeof buf ? len : sizeof buf - 1;
  // Pad with spaces over a longer previous line.
  std::fprintf(stderr, "\r%s%*s", buf, static_cast<int>(drawn_ > k ? drawn_ - k : 0), "");
  std::fflush(stderr);
  drawn_ = k;
}

void Progress::clear() {
  if (!enabled_ || drawn_ == 0) return;
  std::fprintf(stderr, "\r%*s\r", static_cast<int>(drawn_), "");
  std::fflush(stderr);
  drawn_ = 0;
}

}  // namespace hetla::cli
