// Bounded waits for tests: every wait for another thread has a deadline, so a
// missing wake-up or a deadlock fails the test instead of hanging it. Time
// spent building device code (OpenCL kernels compiled on first use: tens of
// seconds with an empty POCL cache) does not count against a deadline, up to
// kMaxBuildPause (devices/kernel_build.hpp).
#pragma once
#include <atomic>
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <utility>

#include "devices/kernel_build.hpp"

namespace hetla::test {

/// Generous deadline for "the other thread will get there": only reached on a
/// failure, so it can be long enough for a loaded machine and sanitizers.
inline constexpr std::chrono::seconds kLongWait{20};

/// The most kernel-build time a deadline leaves out: a build that takes
/// longer is a hang too (a cold build of one precision's kernels takes
/// ~20 s with POCL on 2 busy cores).
inline constexpr std::chrono::minutes kMaxBuildPause{10};

/// A stopwatch that does not run while device code is being built.
class WorkClock {
 public:
  WorkClock() : start_(std::chrono::steady_clock::now()), built0_(dev::kernel_build_time()) {}
  /// Time since construction, less the kernel-build time (capped).
  std::chrono::nanoseconds elapsed() const {
    const auto built = std::min<std::chrono::nanoseconds>(dev::kernel_build_time() - built0_, kMaxBuildPause);
    return std::chrono::steady_clock::now() - start_ - built;
  }

 private:
  std::chrono::steady_clock::time_point start_;
  std::chrono::nanoseconds built0_;
};

/// Spins (yielding) until pred() is true or the timeout passed; returns pred().
template <typename Pred> bool wait_until(Pred pred, std::chrono::milliseconds timeout = kLongWait) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!pred()) {
    if (std::chrono::steady_clock::now() >= deadline) return pred();
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  return true;
}

/// A latch that can be opened once and awaited with a deadline.
class Gate {
 public:
  void open() {
    {
      std::lock_guard<std::mutex> lk(m_);
      open_ = true;
    }
    cv_.notify_all();
  }
  /// True if the gate opened before the timeout.
  bool wait(std::chrono::milliseconds timeout = kLongWait) {
    std::unique_lock<std::mutex> lk(m_);
    return cv_.wait_for(lk, timeout, [&] { return open_; });
  }
  bool is_open() {
    std::lock_guard<std::mutex> lk(m_);
    return open_;
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool open_ = false;
};

/// Runs f on another thread and returns (or rethrows) what it did. If f has
/// not returned within the timeout the process reports `what` and exits with
/// status 124: the test cannot go on safely while f may still touch its state.
/// Kernel builds inside f do not count against the timeout (WorkClock).
inline void must_finish(const char* what, std::function<void()> f,
                        std::chrono::milliseconds timeout = kLongWait) {
  std::packaged_task<void()> task(std::move(f));
  auto fut = task.get_future();
  const WorkClock clock;
  std::thread th(std::move(task));
  for (;;) {
    const auto left = timeout - clock.elapsed();
    if (left <= std::chrono::nanoseconds::zero()) {
      std::fprintf(stderr, "\n[watchdog] %s did not finish within %lld ms (kernel builds left out): hang? aborting\n",
                   what, static_cast<long long>(timeout.count()));
      std::fflush(stderr);
      std::_Exit(124);
    }
    if (fut.wait_for(left) == std::future_status::ready) break;
  }
  th.join();
  fut.get();  // rethrows what f threw
}

}  // namespace hetla::test
