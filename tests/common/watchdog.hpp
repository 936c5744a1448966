// Bounded waits for tests: every wait for another thread has a deadline, so a
// missing wake-up or a deadlock fails the test instead of hanging it.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <utility>

namespace hetla::test {

/// Generous deadline for "the other thread will get there": only reached on a
/// failure, so it can be long enough for a loaded machine and sanitizers.
inline constexpr std::chrono::seconds kLongWait{20};

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
inline void must_finish(const char* what, std::function<void()> f,
                        std::chrono::milliseconds timeout = kLongWait) {
  std::packaged_task<void()> task(std::move(f));
  auto fut = task.get_future();
  std::thread th(std::move(task));
  if (fut.wait_for(timeout) != std::future_status::ready) {
    std::fprintf(stderr, "\n[watchdog] %s did not finish within %lld ms: hang? aborting\n", what,
                 static_cast<long long>(timeout.count()));
    std::fflush(stderr);
    std::_Exit(124);
  }
  th.join();
  fut.get();  // rethrows what f threw
}

}  // namespace hetla::test
