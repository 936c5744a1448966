// Several user threads calling potrf, getrf and geqrf at once, at mixed sizes:
// small ones (below the crossover: the vendor inline, in parallel) and large
// ones (each its own task graph on the shared workers: tests/context/test_concurrent_calls.cc). Every
// result is checked; run under TSan by scripts/run-tests.sh.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "checks.hpp"
#include "checks_lu.hpp"
#include "checks_qr.hpp"
#include "common/watchdog.hpp"
#include "hetla/hetla.hpp"
#include "matgen.hpp"
#include "tune/crossover.hpp"

namespace hetla {
namespace {

/// One call of `routine` (0 potrf, 1 getrf, 2 geqrf) at order n, checked;
/// returns "" or what went wrong.
std::string checked_call(int routine, int64_t n, uint64_t seed) {
  const int64_t lda = n + 1;
  if (routine == 0) {
    const auto A0 = bench::random_hpd<double>(n, lda, seed);
    auto A = A0;
    if (const int64_t info = potrf<double>(Uplo::Lower, n, A.data(), lda); info != 0)
      return "potrf info " + std::to_string(info);
    if (bench::potrf_residual(Uplo::Lower, n, A0.data(), lda, A.data(), lda) > bench::kResidualThreshold)
      return "potrf residual";
  } else if (routine == 1) {
    const auto A0 = bench::random_matrix<std::complex<double>>(n, n, lda, seed);
    auto A = A0;
    std::vector<int64_t> ipiv(static_cast<std::size_t>(n));
    if (const int64_t info = getrf(n, n, A.data(), lda, ipiv.data()); info != 0)
      return "getrf info " + std::to_string(info);
    if (bench::getrf_residual(n, n, A0.data(), lda, A.data(), lda, ipiv.data()) > bench::kResidualThreshold)
      return "getrf residual";
  } else {
    const auto A0 = bench::random_matrix<double>(n, n, lda, seed);
    auto A = A0;
    std::vector<double> tau(static_cast<std::size_t>(n));
    geqrf(n, n, A.data(), lda, tau.data());
    if (bench::qr_residual(n, n, A0.data(), lda, A.data(), lda, tau.data()) > bench::kResidualThreshold)
      return "geqrf residual";
  }
  return "";
}

void run_callers(int threads) {
  // Sizes on both sides of the crossovers (128 for these routines).
  ASSERT_LT(tune::crossover(tune::Routine::Potrf, 1), 180);
  const int64_t sizes[] = {4, 16, 50, 180, 9, 64, 200, 33};
  std::vector<std::string> errors(static_cast<std::size_t>(threads));
  std::atomic<int> calls{0};
  test::must_finish("concurrent callers", [&] {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        for (int i = 0; i < 8; ++i) {
          const int routine = (t + i) % 3;
          const int64_t n = sizes[(3 * t + i) % 8];
          std::string e = checked_call(routine, n, 100 * t + i);
          ++calls;
          if (!e.empty() && errors[t].empty()) errors[t] = e + " at n=" + std::to_string(n);
        }
      });
    for (auto& th : pool) th.join();
  });
  EXPECT_EQ(calls.load(), 8 * threads);
  for (int t = 0; t < threads; ++t) EXPECT_EQ(errors[t], "") << "thread " << t;
}

TEST(ApiConcurrentCallers, TwoThreadsMixedSizes) { run_callers(2); }
TEST(ApiConcurrentCallers, FourThreadsMixedSizes) { run_callers(4); }

}  // namespace
}  // namespace hetla
