// main() for every test executable: GoogleTest plus a per-test watchdog. A
// test that runs longer than HETLA_TEST_WATCHDOG_S seconds (default 300) is
// reported by name and the process exits with status 124, so a deadlock fails
// the run instead of blocking CI (CTest's own TIMEOUT is the second line).
// Time spent building device code (OpenCL kernels on first use) is left out
// (test::WorkClock), so a cold kernel cache does not fail a test.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "common/watchdog.hpp"

namespace {

class Watchdog : public testing::EmptyTestEventListener {
 public:
  explicit Watchdog(std::chrono::seconds limit) : limit_(limit), thread_([this] { loop(); }) {}
  ~Watchdog() override {
    {
      std::lock_guard<std::mutex> lk(m_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

  void OnTestStart(const testing::TestInfo& info) override {
    std::lock_guard<std::mutex> lk(m_);
    name_ = std::string(info.test_suite_name()) + "." + info.name();
    clock_.emplace();
    armed_ = true;
    cv_.notify_all();
  }
  void OnTestEnd(const testing::TestInfo&) override {
    std::lock_guard<std::mutex> lk(m_);
    armed_ = false;
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lk(m_);
    while (!stop_) {
      if (!armed_) {
        cv_.wait(lk);
        continue;
      }
      const auto left = limit_ - clock_->elapsed();
      if (left <= std::chrono::nanoseconds::zero()) {
        std::fprintf(stderr, "\n[watchdog] %s did not finish within %lld s (kernel builds left out): hang? aborting\n",
                     name_.c_str(), static_cast<long long>(limit_.count()));
        std::fflush(stderr);
        std::fflush(stdout);
        std::_Exit(124);
      }
      cv_.wait_for(lk, left);
    }
  }

  std::chrono::seconds limit_;
  std::mutex m_;
  std::condition_variable cv_;
  std::string name_;
  std::optional<hetla::test::WorkClock> clock_;  // since the test started
  bool armed_ = false;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  long limit = 300;
  if (const char* s = std::getenv("HETLA_TEST_WATCHDOG_S")) limit = std::strtol(s, nullptr, 10);
  if (limit > 0)
    testing::UnitTest::GetInstance()->listeners().Append(new Watchdog(std::chrono::seconds(limit)));
  return RUN_ALL_TESTS();
}
