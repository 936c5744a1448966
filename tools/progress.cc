#include "progress.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <system_error>

#include "cli.hpp"

namespace hetla::cli {

namespace {
constexpr double kMinRedraw = 0.2;                    // update() redraws at most this often
constexpr std::chrono::milliseconds kTick{250};       // the ticker's redraw period
}  // namespace

Progress::Progress(std::string what, bool quiet)
    : what_(std::move(what)),
      quiet_(quiet),
      enabled_(!quiet && ::isatty(STDERR_FILENO) == 1),
      start_(now_seconds()) {}

Progress::~Progress() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
  clear();
}

void Progress::start_ticker() {
  if (ticker_.joinable() || stop_) return;
  try {
    ticker_ = std::thread([this] { tick(); });
  } catch (const std::system_error&) {  // no thread: the line is still drawn at each update
  }
}

void Progress::tick() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    wake_.wait_for(lock, kTick);
    if (!stop_ && shown_) draw(now_seconds());
  }
}

void Progress::draw(double now) {
  last_draw_ = now;
  char count[48] = "";
  if (!stepping_ && n_ > 0)
    std::snprintf(count, sizeof count, " %lld/%lld", static_cast<long long>(i_ + 1), static_cast<long long>(n_));
  char buf[512];
  const int len = stepping_ ? std::snprintf(buf, sizeof buf, "%s  %.1f s", phase_.c_str(), now - since_)
                            : std::snprintf(buf, sizeof buf, "%s: %s%s  %.1f s", what_.c_str(), phase_.c_str(),
                                            count, now - since_);
  const std::size_t k = len < 0 ? 0 : static_cast<std::size_t>(len) < sizeof buf ? len : sizeof buf - 1;
  // Pad with spaces over a longer previous line.
  std::fprintf(stderr, "\r%s%*s", buf, static_cast<int>(drawn_ > k ? drawn_ - k : 0), "");
  std::fflush(stderr);
  drawn_ = k;
}

void Progress::update(std::string_view phase, int64_t i, int64_t n) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (stepping_) end_step();
  // A new phase or count is drawn now; the same one again (a search's
  // inner steps) at most every kMinRedraw, the ticker shows the rest.
  const bool changed = drawn_ == 0 || phase != phase_ || i != i_ || n != n_;
  phase_.assign(phase);
  i_ = i;
  n_ = n;
  since_ = start_;
  shown_ = true;
  const double now = now_seconds();
  if (changed || now - last_draw_ >= kMinRedraw) draw(now);
  start_ticker();
}

void Progress::end_step() {
  if (shown_ && drawn_ > 0) {
    draw(now_seconds());  // its final time
    std::fputc('\n', stderr);
    std::fflush(stderr);
  }
  drawn_ = 0;
  shown_ = false;
  stepping_ = false;
}

void Progress::step(std::string_view line, int i, int n) {
  if (quiet_) return;
  if (!enabled_) {  // a log: one plain line per step
    std::fprintf(stderr, "[%d/%d] %.*s\n", i, n, static_cast<int>(line.size()), line.data());
    std::fflush(stderr);
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (stepping_) end_step();
  else if (drawn_ > 0) std::fprintf(stderr, "\r%*s\r", static_cast<int>(drawn_), "");
  drawn_ = 0;
  char count[48];
  std::snprintf(count, sizeof count, "[%d/%d] ", i, n);
  phase_.assign(count).append(line);
  stepping_ = true;
  shown_ = true;
  since_ = now_seconds();
  draw(since_);
  start_ticker();
}

void Progress::clear() {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (stepping_) {
    end_step();  // a step line stays, with its final time
    return;
  }
  shown_ = false;
  if (drawn_ == 0) return;
  std::fprintf(stderr, "\r%*s\r", static_cast<int>(drawn_), "");
  std::fflush(stderr);
  drawn_ = 0;
}

}  // namespace hetla::cli
