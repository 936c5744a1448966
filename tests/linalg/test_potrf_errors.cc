// Cholesky on bad input: matrices that are not positive definite (info = k as
// LAPACK, the leading factor columns as LAPACK's, nothing outside the triangle
// touched), NaN and Inf entries (reported, never a hang), and invalid
// arguments (hetla::ArgumentError naming the LAPACK argument position).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/cholesky.hpp"
#include "common/watchdog.hpp"
#include "hetla/hetla.hpp"

namespace hetla {
namespace {

using test::Precisions;
using test::PrecisionName;

constexpr int64_t kNb = 16;
constexpr int64_t kN = 3 * kNb + 5;  // 4 tile columns, the last one ragged

template <typename T> class NotPositiveDefinite : public testing::Test {};
TYPED_TEST_SUITE(NotPositiveDefinite, Precisions, PrecisionName);

/// Failing minors: in the first tile, at both sides of tile boundaries, in a
/// later tile, and the very last one.
std::vector<int64_t> failing_orders() { return {1, 5, kNb, kNb + 1, 2 * kNb, 2 * kNb + 1, 2 * kNb + 9, kN}; }

/// Checks one factorization that must stop at minor k: info, LAPACK's info on
/// a copy, untouched entries outside the triangle, and the leading columns
/// (before the failing tile column) equal to LAPACK's factor to rounding.
template <typename T>
void check_failure(Uplo uplo, int64_t n, int64_t lda, const std::vector<T>& A0, const std::vector<T>& A,
                   int64_t info, int64_t k) {
  EXPECT_EQ(test::lapack_info(uplo, n, lda, A0), k) << "test matrix construction";
  EXPECT_EQ(info, k);
  std::string where;
  EXPECT_EQ(test::count_changed_outside(uplo, n, lda, A0.data(), A.data(), &where), 0)
      << "entries outside the triangle changed, first at " << where;
  // Reference for the leading columns: LAPACK on a copy whose trailing diagonal
  // is made dominant; the first c columns of a Cholesky factor depend only on
  // the first c columns of A, so they are the same as for A itself.
  const int64_t c = (k - 1) / kNb * kNb;
  if (c == 0) return;
  auto R = A0;
  for (int64_t i = c; i < n; ++i) R[i + i * lda] = T(real_t<T>(4 * n));
  ASSERT_EQ(blas::potrf(uplo, n, R.data(), lda), 0);
  const double diff = test::leading_factor_diff(uplo, n, c, A.data(), R.data(), lda);
  EXPECT_LT(diff, bench::kResidualThreshold * n * bench::eps<T>())
      << "leading " << c << " columns differ from LAPACK's factor";
}

TYPED_TEST(NotPositiveDefinite, InfoIsTheFirstFailingMinor) {
  using T = TypeParam;
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
    for (bool subtle : {false, true})
      for (int64_t k : failing_orders()) {
        const int64_t lda = kN + 3;
        SCOPED_TRACE(testing::Message() << test::uplo_name(uplo) << " k=" << k
                                        << (subtle ? " (negative Schur complement)" : " (negative diagonal)"));
        auto A0 = test::hpd_input<T>(uplo, kN, lda, 1000 + k);
        test::make_not_pd_at(uplo, kN, lda, A0, k, subtle);
        auto A = A0;
        int64_t info = -1;
        test::must_finish("potrf", [&] { info = potrf<T>(uplo, kN, A.data(), lda, Options{kNb}); });
        check_failure(uplo, kN, lda, A0, A, info, k);
      }
}

TYPED_TEST(NotPositiveDefinite, TileMatrixReportsTheSameInfo) {
  using T = TypeParam;
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
    for (int64_t k : failing_orders()) {
      SCOPED_TRACE(testing::Message() << test::uplo_name(uplo) << " k=" << k);
      auto A0 = test::hpd_input<T>(uplo, kN, kN, 2000 + k);
      test::make_not_pd_at(uplo, kN, kN, A0, k, /*subtle=*/true);
      Matrix<T> M(kN, kN, kNb);
      M.copy_from(A0.data(), kN);
      int64_t info = -1;
      test::must_finish("potrf", [&] { info = potrf(uplo, M); });
      auto A = A0;
      M.copy_to(A.data(), kN);
      check_failure(uplo, kN, kN, A0, A, info, k);
    }
}

TYPED_TEST(NotPositiveDefinite, FirstOfSeveralFailuresIsReported) {
  // Minors fail at k1 and (independently) at later k2, k3 in other tiles: info
  // is k1 whatever order the tasks run in, with any number of workers.
  using T = TypeParam;
  for (int threads : {1, 2, 3}) {
    init(Config{threads});
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
      for (int64_t k1 : {int64_t{3}, kNb + 2}) {
        SCOPED_TRACE(testing::Message() << test::uplo_name(uplo) << " k1=" << k1 << " threads=" << threads);
        auto A0 = test::hpd_input<T>(uplo, kN, kN, 3000 + k1);
        test::make_not_pd_at(uplo, kN, kN, A0, kN, false);
        test::make_not_pd_at(uplo, kN, kN, A0, 2 * kNb + 4, false);
        test::make_not_pd_at(uplo, kN, kN, A0, k1, true);
        auto A = A0;
        int64_t info = -1;
        test::must_finish("potrf", [&] { info = potrf<T>(uplo, kN, A.data(), kN, Options{kNb}); });
        check_failure(uplo, kN, kN, A0, A, info, k1);
      }
  }
  finalize();
}

TYPED_TEST(NotPositiveDefinite, ZeroMatrixAndSingularMatrix) {
  using T = TypeParam;
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper}) {
    std::vector<T> Z(static_cast<std::size_t>(kN * kN), T(0));
    EXPECT_EQ(potrf<T>(uplo, kN, Z.data(), kN, Options{kNb}), 1);
    // Rank-1 positive semidefinite matrix v v^H: the second minor is singular.
    std::vector<T> S(static_cast<std::size_t>(kN * kN));
    for (int64_t j = 0; j < kN; ++j)
      for (int64_t i = 0; i < kN; ++i) S[i + j * kN] = T(real_t<T>(1));
    const int64_t lapack = test::lapack_info(uplo, kN, kN, S);
    EXPECT_EQ(lapack, 2);
    EXPECT_EQ(potrf<T>(uplo, kN, S.data(), kN, Options{kNb}), lapack);
  }
}

// ---- NaN and Inf ----

template <typename T> class NonFinite : public testing::Test {};
TYPED_TEST_SUITE(NonFinite, Precisions, PrecisionName);

template <typename T> T nan_value() {
  const auto q = std::numeric_limits<real_t<T>>::quiet_NaN();
  if constexpr (is_complex_v<T>) return T(q, 0);
  else return q;
}
template <typename T> T inf_value() {
  const auto inf = std::numeric_limits<real_t<T>>::infinity();
  return T(inf);
}

/// Puts `v` at (r, c) of the referenced triangle (given as r >= c) and checks
/// that the factorization reports a failure no later than the row it poisons:
/// the first max(r, c) rows of a factor do not depend on the entry, so
/// info = max(r, c) + 1 exactly.
template <typename T> void check_non_finite(Uplo uplo, int64_t r, int64_t c, T v, bool tile_matrix) {
  const int64_t n = kN, lda = n + 2;
  auto A0 = test::hpd_input<T>(uplo, n, lda, 77 + r * n + c);
  const int64_t i = uplo == Uplo::Lower ? r : c, j = uplo == Uplo::Lower ? c : r;
  A0[i + j * lda] = r == c ? T(std::real(v)) : v;
  auto A = A0;
  int64_t info = -1;
  test::must_finish("potrf with NaN/Inf", [&] {
    if (tile_matrix) {
      Matrix<T> M(n, n, kNb);
      M.copy_from(A0.data(), lda);
      info = potrf(uplo, M);
      M.copy_to(A.data(), lda);
    } else {
      info = potrf<T>(uplo, n, A.data(), lda, Options{kNb});
    }
  });
  EXPECT_EQ(info, std::max(r, c) + 1);
  EXPECT_EQ(test::count_changed_outside(uplo, n, lda, A0.data(), A.data()), 0);
}

TYPED_TEST(NonFinite, OnTheDiagonal) {
  using T = TypeParam;
  for (bool tm : {false, true})
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
      for (int64_t p : {int64_t{0}, int64_t{4}, kNb, 2 * kNb + 3, kN - 1}) {
        SCOPED_TRACE(testing::Message() << test::uplo_name(uplo) << " diagonal " << p << (tm ? " tiles" : ""));
        {
          SCOPED_TRACE("NaN");
          check_non_finite<T>(uplo, p, p, nan_value<T>(), tm);
        }
        {
          SCOPED_TRACE("Inf");
          check_non_finite<T>(uplo, p, p, inf_value<T>(), tm);
        }
      }
}

TYPED_TEST(NonFinite, OffTheDiagonal) {
  using T = TypeParam;
  struct Pos {
    int64_t r, c;
  };
  // Same tile, same tile column below, across tile rows, last row.
  const Pos positions[] = {{1, 0}, {kNb - 1, 3}, {kNb + 2, 1}, {2 * kNb + 7, kNb + 3}, {kN - 1, kN - 2}, {kN - 1, 0}};
  for (bool tm : {false, true})
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
      for (const Pos& p : positions) {
        SCOPED_TRACE(testing::Message() << test::uplo_name(uplo) << " at row " << p.r << " col " << p.c
                                        << (tm ? " tiles" : ""));
        {
          SCOPED_TRACE("NaN");
          check_non_finite<T>(uplo, p.r, p.c, nan_value<T>(), tm);
        }
        {
          SCOPED_TRACE("Inf");
          check_non_finite<T>(uplo, p.r, p.c, inf_value<T>(), tm);
        }
      }
}

TYPED_TEST(NonFinite, PosvReportsAndLeavesBUntouched) {
  using T = TypeParam;
  const int64_t n = kN, nrhs = 3;
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper}) {
    auto A = test::hpd_input<T>(uplo, n, n, 9);
    A[(kNb + 1) * (n + 1)] = nan_value<T>();  // diagonal entry kNb+1 (real NaN)
    const auto B0 = bench::random_matrix<T>(n, nrhs, n, 10);
    auto B = B0;
    int64_t info = -1;
    test::must_finish("posv with NaN", [&] { info = posv<T>(uplo, n, nrhs, A.data(), n, B.data(), n, Options{kNb}); });
    EXPECT_EQ(info, kNb + 2);
    EXPECT_TRUE(test::bitwise_equal(B, B0));
  }
}

TYPED_TEST(NonFinite, InTheOtherTriangleIsIgnored) {
  // Only `uplo` is referenced: the poison (NaN) elsewhere must not matter.
  using T = TypeParam;
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper}) {
    auto A0 = test::hpd_input<T>(uplo, kN, kN, 12);  // NaNs everywhere outside the triangle
    auto A = A0;
    EXPECT_EQ(potrf<T>(uplo, kN, A.data(), kN, Options{kNb}), 0);
    EXPECT_LT(bench::potrf_residual(uplo, kN, A0.data(), kN, A.data(), kN), bench::kResidualThreshold);
  }
}

// ---- invalid arguments ----

template <typename T> class Arguments : public testing::Test {};
TYPED_TEST_SUITE(Arguments, Precisions, PrecisionName);

/// Runs f, expects hetla::ArgumentError for argument `arg` of `routine`.
template <typename F> void expect_argument_error(F&& f, int arg, const std::string& routine) {
  try {
    f();
    ADD_FAILURE() << "no ArgumentError for argument " << arg;
  } catch (const ArgumentError& e) {
    EXPECT_EQ(e.arg(), arg) << e.what();
    const std::string what = e.what();
    EXPECT_NE(what.find(routine), std::string::npos) << what;
    EXPECT_NE(what.find(std::string("argument ") + std::to_string(arg)), std::string::npos) << what;
    const std::invalid_argument& base = e;  // an ArgumentError is a std::invalid_argument
    EXPECT_STREQ(base.what(), e.what());
  }
}

TYPED_TEST(Arguments, Potrf) {
  using T = TypeParam;
  const std::string name = std::string(1, precision_letter<T>()) + "potrf";
  auto A = test::hpd_input<T>(Uplo::Lower, 10, 10, 1);
  const auto A0 = A;
  expect_argument_error([&] { potrf<T>(Uplo::General, 10, A.data(), 10); }, 1, name);
  expect_argument_error([&] { potrf<T>(static_cast<Uplo>('X'), 10, A.data(), 10); }, 1, name);
  expect_argument_error([&] { potrf<T>(Uplo::Lower, -1, A.data(), 10); }, 2, name);
  expect_argument_error([&] { potrf<T>(Uplo::Lower, 10, A.data(), 9); }, 4, name);
  expect_argument_error([&] { potrf<T>(Uplo::Upper, 0, A.data(), 0); }, 4, name);  // lda >= max(1, n)
  EXPECT_TRUE(test::bitwise_equal(A, A0)) << "an invalid call modified A";
  Matrix<T> R(4, 5, 2);
  expect_argument_error([&] { potrf(Uplo::Lower, R); }, 2, name);
  Matrix<T> S(4, 4, 2);
  expect_argument_error([&] { potrf(Uplo::General, S); }, 1, name);
}

TYPED_TEST(Arguments, PotrsAndPosv) {
  using T = TypeParam;
  const char p = precision_letter<T>();
  auto A = test::hpd_input<T>(Uplo::Lower, 10, 10, 1);
  auto B = bench::random_matrix<T>(10, 2, 10, 2);
  const auto A0 = A, B0 = B;
  for (const std::string& name : {std::string(1, p) + "potrs", std::string(1, p) + "posv"}) {
    SCOPED_TRACE(name);
    const bool solve_only = name.find("potrs") != std::string::npos;
    auto call = [&](Uplo u, int64_t n, int64_t nrhs, int64_t lda, int64_t ldb) {
      if (solve_only) potrs<T>(u, n, nrhs, A.data(), lda, B.data(), ldb);
      else posv<T>(u, n, nrhs, A.data(), lda, B.data(), ldb);
    };
    expect_argument_error([&] { call(Uplo::General, 10, 2, 10, 10); }, 1, name);
    expect_argument_error([&] { call(Uplo::Lower, -1, 2, 10, 10); }, 2, name);
    expect_argument_error([&] { call(Uplo::Lower, 10, -1, 10, 10); }, 3, name);
    expect_argument_error([&] { call(Uplo::Lower, 10, 2, 9, 10); }, 5, name);
    expect_argument_error([&] { call(Uplo::Upper, 10, 2, 10, 9); }, 7, name);
    expect_argument_error([&] { call(Uplo::Upper, 0, 2, 1, 0); }, 7, name);
    EXPECT_TRUE(test::bitwise_equal(A, A0));
    EXPECT_TRUE(test::bitwise_equal(B, B0));
  }
  // Tile matrices: B must have n rows and A's tile size.
  Matrix<T> MA(8, 8, 4), MB(8, 2, 2), MC(7, 2, 4);
  expect_argument_error([&] { potrs(Uplo::Lower, MA, MB); }, 6, std::string(1, p) + "potrs");
  expect_argument_error([&] { potrs(Uplo::Lower, MA, MC); }, 6, std::string(1, p) + "potrs");
  expect_argument_error([&] { posv(Uplo::Lower, MA, MB); }, 6, std::string(1, p) + "posv");
}

}  // namespace
}  // namespace hetla
