// Small calls below the crossover run the vendor routine in the caller's
// thread (tasks/inline_call.hpp; potrf, getrf, geqrf, their solves potrs and
// getrs, and ungqr): the same factors, pivots and info as the
// tile algorithm (crossover 0) and as the vendor, LAPACK's argument positions,
// and no lock: a small call finishes while another thread holds the library's
// call lock, so it cannot be queued behind a large call.
#include <gtest/gtest.h>

#include <mutex>
#include <thread>
#include <vector>

#include "kernels/host/small_cholesky.hpp"
#include "kernels/host/small_lu.hpp"
#include "kernels/host/small_factor.hpp"
#include "kernels/host/small_qr.hpp"
#include "checks.hpp"
#include "checks_lu.hpp"
#include "checks_qr.hpp"
#include "common/cholesky.hpp"
#include "common/watchdog.hpp"
#include "context/context.hpp"
#include "hetla/hetla.hpp"
#include "kernels/host/lapack_lu.hpp"
#include "kernels/host/lapack_qr.hpp"
#include "matgen.hpp"
#include "tune/crossover.hpp"

namespace hetla {
namespace {

using test::PrecisionName;
using test::Precisions;
using tune::Routine;

/// Sets one routine's crossover for the test's life.
class CrossoverScope {
 public:
  CrossoverScope(Routine r, int n) : r_(r), old_(tune::crossover(r, 1)) { tune::set_crossover(r, -1, n); }
  ~CrossoverScope() { tune::set_crossover(r_, -1, old_); }

 private:
  Routine r_;
  int old_;
};

template <typename T> class InlineCalls : public testing::Test {};
TYPED_TEST_SUITE(InlineCalls, Precisions, PrecisionName);

TYPED_TEST(InlineCalls, DefaultCrossoverIsAboveTheSmallSizes) {
  using T = TypeParam;
  for (Routine r : {Routine::Potrf, Routine::Getrf, Routine::Geqrf})
    EXPECT_GE(tune::crossover(r, tune::precision_index<T>()), 32);
}

TYPED_TEST(InlineCalls, PotrfEqualsTheVendorAndTheTilePath) {
  using T = TypeParam;
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
    for (int64_t n : {1, 4, 17, 40}) {
      const int64_t lda = n + 3;
      const auto A0 = bench::random_hpd<T>(n, lda, 7 + n);
      auto inl = A0, vendor = A0, tiles = A0;
      ASSERT_EQ(potrf<T>(uplo, n, inl.data(), lda), 0);
      ASSERT_EQ(blas::potrf(uplo, n, vendor.data(), lda), 0);
      // hetla's own kernel (kernels/host/small_cholesky.hpp): to rounding
      ASSERT_TRUE(small::potrf_own<T>(n));
      for (std::size_t i = 0; i < inl.size(); ++i)
        EXPECT_LE(std::abs(inl[i] - vendor[i]),
                  100 * std::numeric_limits<real_t<T>>::epsilon() * (std::abs(vendor[i]) + 1));
      {
        const CrossoverScope all_tiles(Routine::Potrf, 0);
        ASSERT_EQ(potrf<T>(uplo, n, tiles.data(), lda, Options{8}), 0);
      }
      EXPECT_LT(bench::potrf_residual(uplo, n, A0.data(), lda, inl.data(), lda), bench::kResidualThreshold);
      EXPECT_LT(bench::potrf_residual(uplo, n, A0.data(), lda, tiles.data(), lda), bench::kResidualThreshold);
    }
}

// From n = 64 (where the vendor's potrf starts its threads) the inline call
// runs hetla's own kernel up to small::kOwnPotrfMax and the
// single-threaded composition of kernels/host/small_factor.hpp above: the
// vendor's factor to rounding, the vendor's info, the other triangle untouched.
TYPED_TEST(InlineCalls, ComposedPotrfMatchesTheVendor) {
  using T = TypeParam;
  using R = real_t<T>;
  const CrossoverScope inline_path(Routine::Potrf, 1000);
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
    for (int64_t n : {64, 97, 130}) {
      SCOPED_TRACE(n);
      const int64_t lda = n + 3;
      const auto A0 = bench::random_hpd<T>(n, lda, 5 + n);
      auto inl = A0, vendor = A0;
      ASSERT_EQ(potrf<T>(uplo, n, inl.data(), lda), 0);
      ASSERT_EQ(blas::potrf(uplo, n, vendor.data(), lda), 0);
      EXPECT_LT(bench::potrf_residual(uplo, n, A0.data(), lda, inl.data(), lda), bench::kResidualThreshold);
      R diff = 0, scale = 0;
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < lda; ++i) {
          const std::size_t at = static_cast<std::size_t>(i + j * lda);
          if (i >= n || (uplo == Uplo::Lower ? i < j : i > j)) {
            ASSERT_EQ(inl[at], A0[at]) << i << "," << j;
          }
          diff = std::max(diff, std::abs(inl[at] - vendor[at]));
          scale = std::max(scale, std::abs(vendor[at]));
        }
      EXPECT_LE(diff, 1000 * std::numeric_limits<R>::epsilon() * scale);
      for (int64_t bad : {int64_t(10), n / 2 + 5, n}) {
        auto a = A0, v = A0;
        a[(bad - 1) * (lda + 1)] = v[(bad - 1) * (lda + 1)] = T(-1);
        EXPECT_EQ(potrf<T>(uplo, n, a.data(), lda), bad);
        EXPECT_EQ(blas::potrf(uplo, n, v.data(), lda), bad);
      }
    }
}

TYPED_TEST(InlineCalls, PotrfInfoAsTheTilePath) {
  using T = TypeParam;
  const int64_t n = 12;
  auto A = bench::random_hpd<T>(n, n, 3);
  A[5 + 5 * n] = T(-1e3);  // leading minor 6 is not positive definite
  auto tiles = A;
  EXPECT_EQ(potrf<T>(Uplo::Lower, n, A.data(), n), 6);
  EXPECT_EQ(potrf<T>(Uplo::Lower, n, tiles.data(), n, Options{4}), 6);
  // A NaN on the diagonal is reported like a non-positive pivot on both paths.
  auto N = bench::random_hpd<T>(n, n, 4);
  N[3 + 3 * n] = T(std::numeric_limits<real_t<T>>::quiet_NaN());
  auto Nt = N;
  const int64_t info = potrf<T>(Uplo::Lower, n, N.data(), n);
  EXPECT_GT(info, 0);
  EXPECT_LE(info, 4);
  EXPECT_EQ(potrf<T>(Uplo::Lower, n, Nt.data(), n, Options{4}), info);
}

TYPED_TEST(InlineCalls, GetrfEqualsTheVendor) {
  using T = TypeParam;
  for (auto [m, n] : {std::pair<int64_t, int64_t>{1, 1}, {5, 5}, {30, 17}, {17, 30}, {64, 64}}) {
    const int64_t lda = m + 2;
    const auto A0 = bench::random_matrix<T>(m, n, lda, 11 + m);
    auto inl = A0, vendor = A0;
    std::vector<int64_t> ipiv(static_cast<std::size_t>(std::min(m, n)), -1);
    std::vector<lapack_int> lpiv(ipiv.size());
    ASSERT_EQ(getrf<T>(m, n, inl.data(), lda, ipiv.data()), 0);
    ASSERT_EQ(blas::getrf(m, n, vendor.data(), lda, lpiv.data()), 0);
    if constexpr (is_complex_v<T>) {
      EXPECT_EQ(inl, vendor) << m << "x" << n;  // the same vendor call, bitwise
    } else {  // hetla's own kernel (kernels/host/small_lu.hpp): to rounding
      ASSERT_TRUE(small::getrf_own<T>(m, n));
      for (std::size_t i = 0; i < inl.size(); ++i)
        EXPECT_NEAR(inl[i], vendor[i], 100 * std::numeric_limits<T>::epsilon() * (std::abs(vendor[i]) + 1));
    }
    EXPECT_EQ(ipiv, std::vector<int64_t>(lpiv.begin(), lpiv.end()));
    EXPECT_LT(bench::getrf_residual(m, n, A0.data(), lda, inl.data(), lda, ipiv.data()), bench::kResidualThreshold);
  }
  // A zero column: info names the first zero pivot, as LAPACK (and the tile path).
  const int64_t n = 9;
  auto Z = bench::random_matrix<T>(n, n, n, 5);
  for (int64_t i = 0; i < n; ++i) Z[i + 4 * n] = T(0);
  auto Zt = Z;
  std::vector<int64_t> p1(n), p2(n);
  EXPECT_EQ(getrf<T>(n, n, Z.data(), n, p1.data()), 5);
  EXPECT_EQ(getrf<T>(n, n, Zt.data(), n, p2.data(), Options{4}), 5);
}

// From m n = 10^4 (where the vendor's getrf starts its threads) the inline
// call runs the single-threaded recursive LU of kernels/host/small_factor.hpp:
// the vendor's pivots, its factors to rounding, its info for a zero column.
TYPED_TEST(InlineCalls, ComposedGetrfMatchesTheVendor) {
  using T = TypeParam;
  using R = real_t<T>;
  const CrossoverScope inline_path(Routine::Getrf, 1000);
  const hetla::small::ThreadedSizeCall other(true);  // as if another call were in flight: the composition runs
  for (auto [m, n] : {std::pair<int64_t, int64_t>{100, 100}, {130, 110}, {110, 130}})
    for (int64_t zero_col : {int64_t(-1), int64_t(70)}) {
      SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + " zero column " + std::to_string(zero_col));
      const int64_t lda = m + 3;
      auto A0 = bench::random_matrix<T>(m, n, lda, 3 + m);
      if (zero_col >= 0)
        for (int64_t i = 0; i < m; ++i) A0[i + zero_col * lda] = T(0);
      auto inl = A0, vendor = A0;
      std::vector<int64_t> ipiv(static_cast<std::size_t>(std::min(m, n)), -1);
      std::vector<lapack_int> lpiv(ipiv.size());
      EXPECT_EQ(getrf<T>(m, n, inl.data(), lda, ipiv.data()), zero_col + 1);
      EXPECT_EQ(blas::getrf(m, n, vendor.data(), lda, lpiv.data()), zero_col + 1);
      EXPECT_EQ(ipiv, std::vector<int64_t>(lpiv.begin(), lpiv.end()));
      R diff = 0, scale = 0;
      for (std::size_t i = 0; i < inl.size(); ++i) {
        diff = std::max(diff, std::abs(inl[i] - vendor[i]));
        scale = std::max(scale, std::abs(vendor[i]));
      }
      EXPECT_LE(diff, 1000 * std::numeric_limits<R>::epsilon() * scale);
      if (zero_col < 0) {
        EXPECT_LT(bench::getrf_residual(m, n, A0.data(), lda, inl.data(), lda, ipiv.data()), bench::kResidualThreshold);
      }
    }
}

// Below the sizes of small_qr.hpp's composition: the vendor's geqrf, bitwise.
// Below those sizes hetla's own kernel (kernels/host/small_householder.hpp):
// the vendor's factors and tau to rounding, Q R = A.
TYPED_TEST(InlineCalls, GeqrfMatchesTheVendor) {
  using T = TypeParam;
  using R = real_t<T>;
  for (auto [m, n] : {std::pair<int64_t, int64_t>{1, 1}, {6, 6}, {40, 13}, {13, 40}, {60, 60}}) {
    ASSERT_FALSE(hetla::small::geqrf_composed<T>(m, n));
    const int64_t lda = m + 1;
    const auto A0 = bench::random_matrix<T>(m, n, lda, 21 + n);
    auto inl = A0, vendor = A0;
    std::vector<T> tau(static_cast<std::size_t>(std::min(m, n))), vtau(tau.size());
    geqrf<T>(m, n, inl.data(), lda, tau.data());
    blas::geqrf(m, n, vendor.data(), lda, vtau.data());
    EXPECT_LT(bench::qr_residual(m, n, A0.data(), lda, inl.data(), lda, tau.data()), bench::kResidualThreshold);
    R diff = 0, scale = 0;
    for (std::size_t i = 0; i < inl.size(); ++i) {
      diff = std::max(diff, std::abs(inl[i] - vendor[i]));
      scale = std::max(scale, std::abs(vendor[i]));
    }
    EXPECT_LE(diff, 1000 * std::numeric_limits<R>::epsilon() * scale) << m << "x" << n;
    for (std::size_t i = 0; i < tau.size(); ++i)
      EXPECT_LE(std::abs(tau[i] - vtau[i]), 1000 * std::numeric_limits<R>::epsilon()) << i;
  }
}

// Where the vendor's geqr2 would start its threads (m (n - 1) past 8192,
// complex 4096) the inline call runs the blocked QR of
// kernels/host/small_qr.hpp: LAPACK's layout (R, the reflectors below it,
// tau), so the vendor's ungqr forms an orthonormal Q from it and Q R = A;
// R and tau the vendor's to rounding. Tall, wide (m < n), lda > m, and
// shapes whose panels are narrower than 32 (m > 128 complex, > 256 real).
TYPED_TEST(InlineCalls, ComposedGeqrfMatchesTheVendor) {
  using T = TypeParam;
  using R = real_t<T>;
  const CrossoverScope inline_path(Routine::Geqrf, 1000);
  for (auto [m, n] : {std::pair<int64_t, int64_t>{96, 96}, {128, 128}, {150, 100}, {70, 160}, {300, 60}, {500, 40}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
    ASSERT_TRUE(hetla::small::geqrf_composed<T>(m, n));
    const int64_t lda = m + 3, k = std::min(m, n);
    const auto A0 = bench::random_matrix<T>(m, n, lda, 7 + m + n);
    auto inl = A0, vendor = A0;
    std::vector<T> tau(static_cast<std::size_t>(k), T(-7)), vtau(tau.size());
    geqrf<T>(m, n, inl.data(), lda, tau.data());
    blas::geqrf(m, n, vendor.data(), lda, vtau.data());
    EXPECT_LT(bench::qr_residual(m, n, A0.data(), lda, inl.data(), lda, tau.data()), bench::kResidualThreshold);
    R diff = 0, scale = 0;
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < lda; ++i) {
        const std::size_t at = static_cast<std::size_t>(i + j * lda);
        if (i >= m) {  // past m: untouched
          ASSERT_EQ(inl[at], A0[at]) << i << "," << j;
        }
        diff = std::max(diff, std::abs(inl[at] - vendor[at]));
        scale = std::max(scale, std::abs(vendor[at]));
      }
    EXPECT_LE(diff, 1000 * std::numeric_limits<R>::epsilon() * scale);
    for (std::size_t i = 0; i < tau.size(); ++i)
      EXPECT_LE(std::abs(tau[i] - vtau[i]), 1000 * std::numeric_limits<R>::epsilon()) << i;
    // Q (m x k) from the composed factors, by the vendor's ungqr.
    std::vector<T> Q(static_cast<std::size_t>(lda * k));
    for (int64_t j = 0; j < k; ++j)
      for (int64_t i = 0; i < m; ++i) Q[i + j * lda] = inl[i + j * lda];
    ASSERT_EQ(blas::ungqr(m, k, k, Q.data(), lda, tau.data()), 0);
    EXPECT_LT(bench::orthogonality_residual(m, k, Q.data(), lda), bench::kResidualThreshold);
  }
}

// ungqr of k = n reflectors at those sizes: small_qr.hpp's blocked orgqr,
// the vendor's Q to rounding, orthonormal, the rows past m untouched.
TYPED_TEST(InlineCalls, ComposedUngqrMatchesTheVendor) {
  using T = TypeParam;
  using R = real_t<T>;
  const CrossoverScope inline_path(Routine::Ungqr, 1000);
  for (auto [m, n] : {std::pair<int64_t, int64_t>{96, 96}, {128, 128}, {150, 100}, {300, 60}, {500, 40}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
    ASSERT_TRUE(hetla::small::ungqr_composed<T>(m, n, n));
    const int64_t lda = m + 3;
    auto F = bench::random_matrix<T>(m, n, lda, 9 + m + n);
    std::vector<T> tau(static_cast<std::size_t>(n));
    ASSERT_EQ(blas::geqrf(m, n, F.data(), lda, tau.data()), 0);
    auto inl = F, vendor = F;
    ungqr<T>(m, n, n, inl.data(), lda, tau.data());
    ASSERT_EQ(blas::ungqr(m, n, n, vendor.data(), lda, tau.data()), 0);
    EXPECT_LT(bench::orthogonality_residual(m, n, inl.data(), lda), bench::kResidualThreshold);
    R diff = 0;
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < lda; ++i) {
        const std::size_t at = static_cast<std::size_t>(i + j * lda);
        if (i >= m) {  // past m: untouched
          ASSERT_EQ(inl[at], F[at]) << i << "," << j;
        }
        diff = std::max(diff, std::abs(inl[at] - vendor[at]));  // |Q(i, j)| <= 1
      }
    EXPECT_LE(diff, 1000 * std::numeric_limits<R>::epsilon());
  }
}

// The solves and Q (potrs, getrs, ungqr) run inline too: the vendor's
// answer bitwise, and the tile path's (crossover 0) within rounding.
TYPED_TEST(InlineCalls, PotrsGetrsUngqrEqualTheVendor) {
  using T = TypeParam;
  using R = real_t<T>;
  const int64_t n = 23, nrhs = 3, lda = n + 2, ldb = n + 1;
  const auto B0 = bench::random_matrix<T>(n, nrhs, ldb, 5);
  const auto close = [](const std::vector<T>& x, const std::vector<T>& y) {
    R diff = 0, size = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
      diff = std::max(diff, std::abs(x[i] - y[i])), size = std::max(size, std::abs(y[i]));
    return diff <= R(1e3) * std::numeric_limits<R>::epsilon() * size;
  };
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper}) {
    auto A = bench::random_hpd<T>(n, lda, 9);
    ASSERT_EQ(potrf<T>(uplo, n, A.data(), lda), 0);
    auto inl = B0, vendor = B0, tiles = B0;
    potrs<T>(uplo, n, nrhs, A.data(), lda, inl.data(), ldb);
    const Op first = uplo == Uplo::Lower ? Op::NoTrans : Op::ConjTrans;
    const Op second = uplo == Uplo::Lower ? Op::ConjTrans : Op::NoTrans;
    blas::trsm(Side::Left, uplo, first, Diag::NonUnit, n, nrhs, T(1), A.data(), lda, vendor.data(), ldb);
    blas::trsm(Side::Left, uplo, second, Diag::NonUnit, n, nrhs, T(1), A.data(), lda, vendor.data(), ldb);
    EXPECT_EQ(inl, vendor);
    potrs<T>(uplo, n, nrhs, A.data(), lda, tiles.data(), ldb, Options{8});
    EXPECT_TRUE(close(tiles, inl));
  }
  auto LU = bench::random_matrix<T>(n, n, lda, 6);
  std::vector<int64_t> ipiv(n);
  ASSERT_EQ(getrf<T>(n, n, LU.data(), lda, ipiv.data()), 0);
  const std::vector<lapack_int> lpiv(ipiv.begin(), ipiv.end());
  for (Op op : {Op::NoTrans, Op::Trans, Op::ConjTrans}) {
    auto inl = B0, vendor = B0, tiles = B0;
    getrs<T>(op, n, nrhs, LU.data(), lda, ipiv.data(), inl.data(), ldb);
    blas::getrs(op, n, nrhs, LU.data(), lda, lpiv.data(), vendor.data(), ldb);
    EXPECT_EQ(inl, vendor);
    getrs<T>(op, n, nrhs, LU.data(), lda, ipiv.data(), tiles.data(), ldb, Options{8});
    EXPECT_TRUE(close(tiles, inl));
  }
  for (auto [m, k] : {std::pair<int64_t, int64_t>{30, 17}, {17, 17}}) {
    auto QR = bench::random_matrix<T>(m, k, m, 7);
    std::vector<T> tau(k);
    geqrf<T>(m, k, QR.data(), m, tau.data());
    for (int64_t cols : {k, m}) {  // economic and full Q
      std::vector<T> inl(m * m, T(0));
      std::copy(QR.begin(), QR.end(), inl.begin());
      auto vendor = inl, tiles = inl;
      ungqr<T>(m, cols, k, inl.data(), m, tau.data());
      blas::ungqr(m, cols, k, vendor.data(), m, tau.data());
      EXPECT_EQ(inl, vendor) << m << "x" << cols;
      ungqr<T>(m, cols, k, tiles.data(), m, tau.data(), Options{8});
      EXPECT_TRUE(close(tiles, inl)) << m << "x" << cols;
    }
  }
}

TYPED_TEST(InlineCalls, ArgumentPositionsUnchanged) {
  using T = TypeParam;
  std::vector<T> A(16);
  std::vector<int64_t> ipiv(4);
  auto position = [](auto&& f) {
    try {
      f();
    } catch (const ArgumentError& e) {
      return e.arg();
    }
    return 0;
  };
  EXPECT_EQ(position([&] { potrf<T>(Uplo::General, 4, A.data(), 4); }), 1);
  EXPECT_EQ(position([&] { potrf<T>(Uplo::Lower, 4, A.data(), 3); }), 4);
  EXPECT_EQ(position([&] { potrf<T>(Uplo::Lower, 4, nullptr, 4); }), 3);
  EXPECT_EQ(position([&] { getrf<T>(4, 4, A.data(), 3, ipiv.data()); }), 4);
  EXPECT_EQ(position([&] { getrf<T>(4, 4, A.data(), 4, nullptr); }), 5);
  EXPECT_EQ(position([&] { geqrf<T>(-1, 4, A.data(), 4, A.data()); }), 1);
  EXPECT_EQ(position([&] { geqrf<T>(4, 4, A.data(), 4, nullptr); }), 5);
  EXPECT_EQ(position([&] { potrs<T>(Uplo::Lower, 4, 1, A.data(), 3, A.data(), 4); }), 5);
  EXPECT_EQ(position([&] { potrs<T>(Uplo::Lower, 4, 1, A.data(), 4, A.data(), 3); }), 7);
  EXPECT_EQ(position([&] { getrs<T>(Op::NoTrans, 4, 1, A.data(), 4, nullptr, A.data(), 4); }), 6);
  EXPECT_EQ(position([&] { ungqr<T>(4, 5, 4, A.data(), 4, A.data()); }), 2);
}

TEST(InlineCallsNoLock, SmallCallsFinishWhileTheCallLockIsHeld) {
  const std::lock_guard<std::recursive_mutex> held(detail::call_mutex());  // as a large call in flight would
  test::must_finish("small calls from another thread", [] {
    std::thread t([] {
      const int64_t n = 20;
      auto A = bench::random_hpd<double>(n, n, 1);
      EXPECT_EQ(potrf<double>(Uplo::Lower, n, A.data(), n), 0);
      auto B = bench::random_matrix<double>(n, n, n, 2);
      std::vector<int64_t> ipiv(n);
      EXPECT_EQ(getrf<double>(n, n, B.data(), n, ipiv.data()), 0);
      std::vector<double> tau(n);
      geqrf<double>(n, n, B.data(), n, tau.data());
      auto X = bench::random_matrix<double>(n, 2, n, 3);
      potrs<double>(Uplo::Lower, n, 2, A.data(), n, X.data(), n);
      getrs<double>(Op::NoTrans, n, 2, B.data(), n, ipiv.data(), X.data(), n);
      ungqr<double>(n, n, n, B.data(), n, tau.data());
    });
    t.join();
  });
}

}  // namespace
}  // namespace hetla
