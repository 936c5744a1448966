// A NULL array where the routine needs one is an invalid argument reported
// with LAPACK's position (info = -position), for every C entry point; the
// precisions share one template, so double stands for all four. NULL is fine
// where LAPACK allows it (empty sizes).
#include <gtest/gtest.h>

#include <vector>

#include "hetla/hetla.h"

namespace {

constexpr int n = 4;

struct Arrays {
  std::vector<double> a = std::vector<double>(n * n, 1.0), b = std::vector<double>(n * n, 1.0),
                      c = std::vector<double>(n * n, 1.0), tau = std::vector<double>(n, 0.0);
  std::vector<int> ipiv = {1, 2, 3, 4};
  Arrays() {
    for (int i = 0; i < n; ++i) a[i * n + i] = n + 1.0;  // SPD and nonsingular
  }
};

TEST(NullArguments, FactorizationsAndSolvers) {
  Arrays x;
  EXPECT_EQ(hetla_dpotrf('L', n, nullptr, n), -3);
  EXPECT_EQ(hetla_dpotrs('L', n, 1, nullptr, n, x.b.data(), n), -4);
  EXPECT_EQ(hetla_dpotrs('L', n, 1, x.a.data(), n, nullptr, n), -6);
  EXPECT_EQ(hetla_dposv('L', n, 1, nullptr, n, x.b.data(), n), -4);
  EXPECT_EQ(hetla_dposv('L', n, 1, x.a.data(), n, nullptr, n), -6);
  EXPECT_EQ(hetla_dgetrf(n, n, nullptr, n, x.ipiv.data()), -3);
  EXPECT_EQ(hetla_dgetrs('N', n, 1, nullptr, n, x.ipiv.data(), x.b.data(), n), -4);
  EXPECT_EQ(hetla_dgetrs('N', n, 1, x.a.data(), n, x.ipiv.data(), nullptr, n), -7);
  EXPECT_EQ(hetla_dgesv(n, 1, nullptr, n, x.ipiv.data(), x.b.data(), n), -3);
  EXPECT_EQ(hetla_dgesv(n, 1, x.a.data(), n, x.ipiv.data(), nullptr, n), -6);
  EXPECT_STRNE(hetla_last_error(), "");
}

TEST(NullArguments, QrAndLeastSquares) {
  Arrays x;
  EXPECT_EQ(hetla_dgeqrf(n, n, nullptr, n, x.tau.data()), -3);
  EXPECT_EQ(hetla_dgeqrf(n, n, x.a.data(), n, nullptr), -5);
  EXPECT_EQ(hetla_dorgqr(n, n, n, nullptr, n, x.tau.data()), -4);
  EXPECT_EQ(hetla_dorgqr(n, n, n, x.a.data(), n, nullptr), -6);
  EXPECT_EQ(hetla_dormqr('L', 'N', n, n, n, nullptr, n, x.tau.data(), x.c.data(), n), -6);
  EXPECT_EQ(hetla_dormqr('L', 'N', n, n, n, x.a.data(), n, nullptr, x.c.data(), n), -8);
  EXPECT_EQ(hetla_dormqr('L', 'N', n, n, n, x.a.data(), n, x.tau.data(), nullptr, n), -9);
  EXPECT_EQ(hetla_dgels('N', n, n, 1, nullptr, n, x.b.data(), n), -5);
  EXPECT_EQ(hetla_dgels('N', n, n, 1, x.a.data(), n, nullptr, n), -7);
}

TEST(NullArguments, Blas3AndMatrixFunctions) {
  Arrays x;
  EXPECT_EQ(hetla_dsyrk('L', 'N', n, n, 1.0, nullptr, n, 0.0, x.c.data(), n), -6);
  EXPECT_EQ(hetla_dsyrk('L', 'N', n, n, 1.0, x.a.data(), n, 0.0, nullptr, n), -9);
  EXPECT_EQ(hetla_dtrsm('L', 'L', 'N', 'N', n, n, 1.0, nullptr, n, x.b.data(), n), -8);
  EXPECT_EQ(hetla_dtrsm('L', 'L', 'N', 'N', n, n, 1.0, x.a.data(), n, nullptr, n), -10);
  EXPECT_EQ(hetla_dexpm(n, nullptr, n, x.b.data(), n), -2);
  EXPECT_EQ(hetla_dexpm(n, x.a.data(), n, nullptr, n), -4);
  const double coeffs[] = {1.0, 2.0, 3.0};
  EXPECT_EQ(hetla_dmatpoly(n, nullptr, n, 2, coeffs, x.b.data(), n, 'H'), -2);
  EXPECT_EQ(hetla_dmatpoly(n, x.a.data(), n, 2, nullptr, x.b.data(), n, 'H'), -5);
  EXPECT_EQ(hetla_dmatpoly(n, x.a.data(), n, 2, coeffs, nullptr, n, 'H'), -6);
}

TEST(NullArguments, EmptySizesNeedNoArrays) {
  EXPECT_EQ(hetla_dpotrf('L', 0, nullptr, 1), 0);
  EXPECT_EQ(hetla_dpotrs('L', 0, 1, nullptr, 1, nullptr, 1), 0);
  EXPECT_EQ(hetla_dposv('L', 3, 0, std::vector<double>{4, 0, 0, 0, 4, 0, 0, 0, 4}.data(), 3, nullptr, 3), 0);
  EXPECT_EQ(hetla_dgeqrf(0, 3, nullptr, 1, nullptr), 0);
}

}  // namespace
