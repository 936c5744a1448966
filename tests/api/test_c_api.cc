// C API: LAPACK argument order and info convention (0, -i for a bad argument
// i, k > 0 for a failed minor), error messages, context lifecycle and calls
// from several threads.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "common/cholesky.hpp"
#include "common/watchdog.hpp"
#include "hetla/hetla.h"
#include "hetla/hetla.hpp"

extern "C" int hetla_test_c_smoke(void);

namespace hetla {
namespace {

using test::Precisions;
using test::PrecisionName;

template <typename T> struct CApi;
template <> struct CApi<float> {
  static constexpr auto potrf = hetla_spotrf;
  static constexpr auto potrs = hetla_spotrs;
  static constexpr auto posv = hetla_sposv;
};
template <> struct CApi<double> {
  static constexpr auto potrf = hetla_dpotrf;
  static constexpr auto potrs = hetla_dpotrs;
  static constexpr auto posv = hetla_dposv;
};
template <> struct CApi<std::complex<float>> {
  static constexpr auto potrf = hetla_cpotrf;
  static constexpr auto potrs = hetla_cpotrs;
  static constexpr auto posv = hetla_cposv;
};
template <> struct CApi<std::complex<double>> {
  static constexpr auto potrf = hetla_zpotrf;
  static constexpr auto potrs = hetla_zpotrs;
  static constexpr auto posv = hetla_zposv;
};

Uplo uplo_of(char c) { return c == 'L' || c == 'l' ? Uplo::Lower : Uplo::Upper; }

template <typename T> class CApiTest : public testing::Test {};
TYPED_TEST_SUITE(CApiTest, Precisions, PrecisionName);

TYPED_TEST(CApiTest, FactorAndSolve) {
  using T = TypeParam;
  using C = CApi<T>;
  const int n = 70, lda = 73, nrhs = 3, ldb = 71;
  for (char u : {'L', 'l', 'U', 'u'}) {
    SCOPED_TRACE(testing::Message() << "uplo " << u);
    const Uplo uplo = uplo_of(u);
    auto A0 = test::hpd_input<T>(uplo, n, lda, 1);
    auto Afull = bench::full_hermitian(uplo, n, A0.data(), lda);
    auto A = A0;
    EXPECT_EQ(C::potrf(u, n, A.data(), lda), 0) << hetla_last_error();
    EXPECT_STREQ(hetla_last_error(), "");
    EXPECT_LT(bench::potrf_residual(uplo, n, A0.data(), lda, A.data(), lda), bench::kResidualThreshold);
    EXPECT_EQ(test::count_changed_outside(uplo, n, lda, A0.data(), A.data()), 0);

    const auto B0 = bench::random_matrix<T>(n, nrhs, ldb, 2);
    auto X = B0;
    EXPECT_EQ(C::potrs(u, n, nrhs, A.data(), lda, X.data(), ldb), 0);
    EXPECT_LT(bench::solve_residual(n, n, nrhs, Afull.data(), n, X.data(), ldb, B0.data(), ldb),
              bench::kResidualThreshold);

    auto A2 = A0;
    auto X2 = B0;
    EXPECT_EQ(C::posv(u, n, nrhs, A2.data(), lda, X2.data(), ldb), 0);
    EXPECT_LT(bench::solve_residual(n, n, nrhs, Afull.data(), n, X2.data(), ldb, B0.data(), ldb),
              bench::kResidualThreshold);
  }
}

TYPED_TEST(CApiTest, InvalidArgumentsGiveNegativeInfo) {
  using T = TypeParam;
  using C = CApi<T>;
  const int n = 5;
  auto A = test::hpd_input<T>(Uplo::Lower, n, n, 3);
  auto B = bench::random_matrix<T>(n, 2, n, 4);
  const auto A0 = A, B0 = B;
  auto expect_info = [](int info, int expected) {
    EXPECT_EQ(info, expected);
    const std::string msg = hetla_last_error();
    EXPECT_NE(msg.find(std::string("argument ") + std::to_string(-expected)), std::string::npos) << msg;
  };
  expect_info(C::potrf('X', n, A.data(), n), -1);
  expect_info(C::potrf('G', n, A.data(), n), -1);
  expect_info(C::potrf('L', -1, A.data(), n), -2);
  expect_info(C::potrf('L', n, A.data(), n - 1), -4);
  expect_info(C::potrf('U', 0, A.data(), 0), -4);
  for (bool solve_only : {true, false}) {
    SCOPED_TRACE(solve_only ? "potrs" : "posv");
    auto call = [&](char u, int nn, int nrhs, int lda, int ldb) {
      return solve_only ? C::potrs(u, nn, nrhs, A.data(), lda, B.data(), ldb)
                        : C::posv(u, nn, nrhs, A.data(), lda, B.data(), ldb);
    };
    expect_info(call('x', n, 2, n, n), -1);
    expect_info(call('L', -3, 2, n, n), -2);
    expect_info(call('L', n, -1, n, n), -3);
    expect_info(call('L', n, 2, n - 1, n), -5);
    expect_info(call('U', n, 2, n, n - 1), -7);
  }
  EXPECT_TRUE(test::bitwise_equal(A, A0));
  EXPECT_TRUE(test::bitwise_equal(B, B0));
  // A successful call clears the message.
  EXPECT_EQ(C::potrf('L', n, A.data(), n), 0);
  EXPECT_STREQ(hetla_last_error(), "");
}

TYPED_TEST(CApiTest, NotPositiveDefiniteInfoMatchesLapack) {
  using T = TypeParam;
  using C = CApi<T>;
  const int n = 300;  // several tiles of the default size (64 for this n on few cores)
  for (char u : {'L', 'U'}) {
    const Uplo uplo = uplo_of(u);
    for (int k : {1, 64, 65, 200, 299}) {
      SCOPED_TRACE(testing::Message() << "uplo " << u << " k=" << k);
      auto A0 = test::hpd_input<T>(uplo, n, n, 5 + k);
      test::make_not_pd_at(uplo, n, n, A0, k, /*subtle=*/true);
      const int64_t lapack = test::lapack_info(uplo, n, n, A0);
      EXPECT_EQ(lapack, k);
      auto A = A0;
      int info = 0;
      test::must_finish("potrf", [&] { info = C::potrf(u, n, A.data(), n); });
      EXPECT_EQ(info, lapack);
      EXPECT_EQ(test::count_changed_outside(uplo, n, n, A0.data(), A.data()), 0);
      auto A2 = A0;
      auto B = bench::random_matrix<T>(n, 1, n, 1);
      const auto B0 = B;
      test::must_finish("posv", [&] { info = C::posv(u, n, 1, A2.data(), n, B.data(), n); });
      EXPECT_EQ(info, lapack);
      EXPECT_TRUE(test::bitwise_equal(B, B0));
    }
  }
}

TYPED_TEST(CApiTest, NaNIsReportedNotHung) {
  using T = TypeParam;
  using C = CApi<T>;
  const int n = 300;
  for (int p : {0, 150, 299}) {
    auto A = test::hpd_input<T>(Uplo::Lower, n, n, 8);
    A[p + p * n] = T(std::numeric_limits<real_t<T>>::quiet_NaN());
    int info = 0;
    test::must_finish("potrf with NaN", [&] { info = C::potrf('L', n, A.data(), n); });
    EXPECT_EQ(info, p + 1);
  }
}

TEST(CApiContext, InitArguments) {
  EXPECT_EQ(hetla_init(-1), -1);
  EXPECT_NE(std::string(hetla_last_error()).find("argument 1"), std::string::npos) << hetla_last_error();
  EXPECT_EQ(hetla_init(0), 0);
  EXPECT_STREQ(hetla_last_error(), "");
  EXPECT_GE(hetla::num_threads(), 1);  // 0 = one worker per core
  for (int t : {1, 2, 3}) {
    EXPECT_EQ(hetla_init(t), 0);
    EXPECT_EQ(hetla::num_threads(), t);
    double A[4] = {4, 2, 2, 3};
    EXPECT_EQ(hetla_dpotrf('L', 2, A, 2), 0);
    EXPECT_DOUBLE_EQ(A[0], 2.0);
    EXPECT_DOUBLE_EQ(A[1], 1.0);
    EXPECT_DOUBLE_EQ(A[3], std::sqrt(2.0));
  }
  hetla_finalize();
}

TEST(CApiContext, CallsAfterFinalizeUseAFreshDefaultContext) {
  // The default context (one worker per core) as created on first use.
  EXPECT_EQ(hetla_init(0), 0);
  const int default_threads = hetla::num_threads();
  hetla_finalize();
  EXPECT_EQ(hetla_init(default_threads + 1), 0);
  EXPECT_EQ(hetla::num_threads(), default_threads + 1);
  hetla_finalize();
  hetla_finalize();  // twice is harmless
  double A[4] = {9, 3, 3, 5};
  EXPECT_EQ(hetla_dpotrf('U', 2, A, 2), 0);  // starts a new context
  EXPECT_DOUBLE_EQ(A[0], 3.0);
  EXPECT_DOUBLE_EQ(A[2], 1.0);
  EXPECT_DOUBLE_EQ(A[3], 2.0);
  EXPECT_EQ(hetla::num_threads(), default_threads) << "after finalize, calls must use a default context";
  hetla_finalize();
  // Init and finalize repeatedly, with work in between.
  for (int rep = 0; rep < 10; ++rep) {
    EXPECT_EQ(hetla_init(1 + rep % 3), 0);
    auto A0 = test::hpd_input<double>(Uplo::Lower, 40, 40, rep);
    auto F = A0;
    EXPECT_EQ(hetla_dpotrf('L', 40, F.data(), 40), 0);
    EXPECT_LT(bench::potrf_residual(Uplo::Lower, 40, A0.data(), 40, F.data(), 40), bench::kResidualThreshold);
    hetla_finalize();
  }
}

TEST(CApiContext, CallsFromSeveralThreads) {
  // Calls are thread-safe (serialised): every thread gets its own correct result.
  const int n = 96, nrhs = 2;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 10; ++rep) {
        auto A0 = test::hpd_input<double>(Uplo::Upper, n, n, 100 * t + rep);
        auto Afull = bench::full_hermitian(Uplo::Upper, n, A0.data(), n);
        auto A = A0;
        const auto B0 = bench::random_matrix<double>(n, nrhs, n, t + rep);
        auto X = B0;
        if (hetla_dposv('U', n, nrhs, A.data(), n, X.data(), n) != 0) ++failures;
        else if (!(bench::solve_residual(n, n, nrhs, Afull.data(), n, X.data(), n, B0.data(), n) <
                   bench::kResidualThreshold))
          ++failures;
        double Bad[1] = {1};
        if (hetla_dpotrf('L', -1, Bad, 1) != -2 || std::string(hetla_last_error()).empty()) ++failures;
      }
    });
  test::must_finish("joining caller threads", [&] {
    for (auto& th : threads) th.join();
  }, std::chrono::seconds(120));
  EXPECT_EQ(failures.load(), 0);
}

TEST(CApiC, HeaderAndCallsWorkFromC) { EXPECT_EQ(hetla_test_c_smoke(), 0); }

}  // namespace
}  // namespace hetla
