// Large calls from several threads share the library runtime (context.hpp's
// CallScope, rt::CallGraph): each builds and waits for its own task graph, so
// they run at once instead of taking turns. Matrix and column-major C API
// calls of potrf/getrf/geqrf at mixed sizes from 2 and 4 threads, each
// checked by its residual; a call that fails (info, a throwing task) leaves
// the others right. Labelled `context`: also run under TSan
// (scripts/run-tests.sh).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "checks.hpp"
#include "checks_lu.hpp"
#include "checks_qr.hpp"
#include "common/watchdog.hpp"
#include "context/context.hpp"
#include "hetla/hetla.h"
#include "hetla/hetla.hpp"
#include "matgen.hpp"

namespace hetla {
namespace {

using Clock = std::chrono::steady_clock;

class ConcurrentCalls : public testing::Test {
 protected:
  void SetUp() override {
    Config c;
    c.num_threads = 2;  // a worker thread besides the caller slot, even on one core
    c.pin_threads = false;
    init(c);
  }
  void TearDown() override { finalize(); }
};

/// Spins until `flag` is set or 20 s passed; returns whether it was set.
bool await(const std::atomic<bool>& flag) {
  const auto deadline = Clock::now() + test::kLongWait;
  while (!flag.load()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

/// One checked call: routine 0 potrf, 1 getrf, 2 geqrf; through the Matrix
/// API (tile size nb) or the C API. Returns "" or what went wrong.
std::string checked_call(int routine, bool matrix_api, int64_t n, int64_t nb, uint64_t seed) {
  const int64_t lda = n + 3;
  const std::string where = " (n=" + std::to_string(n) + (matrix_api ? ", Matrix" : ", C") + ")";
  if (routine == 0) {
    const auto A0 = bench::random_hpd<double>(n, lda, seed);
    auto A = A0;
    int64_t info;
    if (matrix_api) {
      auto M = Matrix<double>::view(n, n, A.data(), lda, nb);
      info = potrf(Uplo::Lower, M);
    } else {
      info = hetla_dpotrf('L', static_cast<int>(n), A.data(), static_cast<int>(lda));
    }
    if (info != 0) return "potrf info " + std::to_string(info) + where;
    if (bench::potrf_residual(Uplo::Lower, n, A0.data(), lda, A.data(), lda) > bench::kResidualThreshold)
      return "potrf residual" + where;
  } else if (routine == 1) {
    const auto A0 = bench::random_matrix<double>(n, n, lda, seed);
    auto A = A0;
    std::vector<int64_t> ipiv(static_cast<std::size_t>(n));
    int64_t info;
    if (matrix_api) {
      auto M = Matrix<double>::view(n, n, A.data(), lda, nb);
      info = getrf(M, ipiv);
    } else {
      std::vector<int> ip(static_cast<std::size_t>(n));
      info = hetla_dgetrf(static_cast<int>(n), static_cast<int>(n), A.data(), static_cast<int>(lda), ip.data());
      for (int64_t i = 0; i < n; ++i) ipiv[static_cast<std::size_t>(i)] = ip[static_cast<std::size_t>(i)];
    }
    if (info != 0) return "getrf info " + std::to_string(info) + where;
    if (bench::getrf_residual(n, n, A0.data(), lda, A.data(), lda, ipiv.data()) > bench::kResidualThreshold)
      return "getrf residual" + where;
  } else {
    const auto A0 = bench::random_matrix<double>(n, n, lda, seed);
    auto A = A0;
    std::vector<double> tau(static_cast<std::size_t>(n));
    if (matrix_api) {
      auto M = Matrix<double>::view(n, n, A.data(), lda, nb);
      geqrf(M, tau.data());
    } else if (const int info = hetla_dgeqrf(static_cast<int>(n), static_cast<int>(n), A.data(),
                                             static_cast<int>(lda), tau.data());
               info != 0) {
      return "geqrf info " + std::to_string(info) + where;
    }
    if (bench::qr_residual(n, n, A0.data(), lda, A.data(), lda, tau.data()) > bench::kResidualThreshold)
      return "geqrf residual" + where;
  }
  return "";
}

void run_threads(int threads) {
  const int64_t sizes[] = {64, 600, 150, 300, 96, 450};
  const int64_t nbs[] = {32, 48, 64};
  std::vector<std::string> errors(static_cast<std::size_t>(threads));
  test::must_finish("concurrent calls", [&] {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        for (int i = 0; i < 6; ++i) {
          const int routine = (t + i) % 3;
          const bool matrix_api = (t + i / 3) % 2 == 0;
          const int64_t n = sizes[(2 * t + i) % 6];
          std::string e = checked_call(routine, matrix_api, n, nbs[(t + i) % 3], 1000 * t + i);
          if (!e.empty() && errors[static_cast<std::size_t>(t)].empty()) errors[static_cast<std::size_t>(t)] = e;
        }
      });
    for (auto& th : pool) th.join();
  });
  for (int t = 0; t < threads; ++t) EXPECT_EQ(errors[static_cast<std::size_t>(t)], "") << "thread " << t;
}

TEST_F(ConcurrentCalls, TwoThreadsMixedRoutinesAndSizes) { run_threads(2); }
TEST_F(ConcurrentCalls, FourThreadsMixedRoutinesAndSizes) { run_threads(4); }

// A call whose task waits for another thread's whole large call to finish:
// with calls taking turns (one lock) that call could never start.
TEST_F(ConcurrentCalls, ALargeCallRunsWhileAnotherIsInFlight) {
  std::atomic<bool> started{false}, other_done{false};
  bool saw_other = false;
  std::string other_error = "not run";
  test::must_finish("two calls", [&] {
    std::thread first([&] {
      detail::CallScope scope;
      rt::Runtime& rt = scope.rt();
      rt::Handle h;
      rt.insert(
          [&](rt::TaskContext&) {
            started = true;
            saw_other = await(other_done);
          },
          {rt::W(&h)});
      rt.wait_all();
    });
    std::thread second([&] {
      if (!await(started)) return;
      other_error = checked_call(0, true, 256, 32, 7);
      other_done = true;
    });
    first.join();
    second.join();
  });
  EXPECT_TRUE(saw_other) << "the second call did not finish while the first was in flight";
  EXPECT_EQ(other_error, "");
}

// Not SPD: info > 0 for that call only; a throwing task cancels its own call
// (its dependents are skipped, wait_all rethrows), never the other's.
TEST_F(ConcurrentCalls, AFailingCallLeavesTheOtherRight) {
  std::atomic<bool> other_started{false};
  std::atomic<int> dependents_run{0};
  int64_t bad_info = 0;
  bool threw = false;
  std::string other_error, after_error = "not run";
  test::must_finish("failing and succeeding calls", [&] {
    std::thread failing([&] {
      const int64_t n = 300, lda = n;
      auto A = bench::random_hpd<double>(n, lda, 3);
      A[static_cast<std::size_t>(200 * lda + 200)] = -1e6;  // not positive definite from column 200 on
      auto M = Matrix<double>::view(n, n, A.data(), lda, 32);
      bad_info = potrf(Uplo::Lower, M);
      {
        detail::CallScope scope;
        rt::Runtime& rt = scope.rt();
        rt::Handle h;
        rt.insert(
            [&](rt::TaskContext&) {
              await(other_started);
              std::this_thread::sleep_for(std::chrono::milliseconds(5));  // the other call is building its graph
              throw std::runtime_error("test: task failed");
            },
            {rt::RW(&h)});
        for (int i = 0; i < 20; ++i) rt.insert([&](rt::TaskContext&) { ++dependents_run; }, {rt::RW(&h)});
        try {
          rt.wait_all();
        } catch (const std::runtime_error&) {
          threw = true;
        }
      }
      after_error = checked_call(1, true, 200, 32, 11);  // the next call of this thread is not cancelled
    });
    std::thread other([&] {
      other_started = true;
      for (int i = 0; i < 3 && other_error.empty(); ++i) other_error = checked_call(i, i != 1, 400, 32, 20 + i);
    });
    failing.join();
    other.join();
  });
  EXPECT_EQ(bad_info, 201);
  EXPECT_TRUE(threw);
  EXPECT_EQ(dependents_run.load(), 0);
  EXPECT_EQ(other_error, "");
  EXPECT_EQ(after_error, "");
}

// init/finalize wait for the calls in flight rather than pull the runtime
// from under them.
TEST_F(ConcurrentCalls, InitWaitsForCallsInFlight) {
  std::atomic<bool> started{false};
  std::string error = "not run";
  test::must_finish("init during a call", [&] {
    std::thread caller([&] {
      detail::CallScope scope;
      rt::Runtime& rt = scope.rt();
      rt::Handle h;
      rt.insert(
          [&](rt::TaskContext&) {
            started = true;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
          },
          {rt::W(&h)});
      rt.wait_all();
      error = "";
    });
    await(started);
    Config c;
    c.num_threads = 2;
    c.pin_threads = false;
    init(c);  // returns once the call ended
    EXPECT_EQ(error, "");
    caller.join();
  });
}

}  // namespace
}  // namespace hetla
