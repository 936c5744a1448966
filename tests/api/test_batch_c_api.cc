// C API of the batched routines: per-matrix int info and int pivots, -i for
// an argument common to the batch (with hetla_last_error), and the results of
// a loop of single C calls.
#include <gtest/gtest.h>

#include <complex>
#include <string>
#include <vector>

#include "hetla/hetla.h"
#include "matgen.hpp"

namespace {

TEST(BatchCApi, DpotrfBatchedInfoPerMatrix) {
  const int n = 10, count = 5;
  std::vector<std::vector<double>> A, loop;
  for (int i = 0; i < count; ++i) A.push_back(hetla::bench::random_hpd<double>(n, n, 30 + i));
  A[2][4 + 4 * n] = -1;  // leading minor 5 not positive definite
  loop = A;
  std::vector<double*> p;
  for (auto& a : A) p.push_back(a.data());
  std::vector<int> info(count, -7);
  ASSERT_EQ(hetla_dpotrf_batched('L', n, p.data(), n, count, info.data()), 0);
  for (int i = 0; i < count; ++i) {
    EXPECT_EQ(info[i], hetla_dpotrf('L', n, loop[i].data(), n)) << i;
    EXPECT_EQ(A[i], loop[i]) << i;
  }
  EXPECT_EQ(info[2], 5);
  // Strided, the same matrices one after the other.
  std::vector<double> S;
  for (int i = 0; i < count; ++i) {
    auto a = hetla::bench::random_hpd<double>(n, n, 30 + i);
    S.insert(S.end(), a.begin(), a.end());
  }
  ASSERT_EQ(hetla_dpotrf_strided_batched('L', n, S.data(), n, n * n, count, info.data()), 0);
  EXPECT_EQ(info, std::vector<int>(count, 0));
  EXPECT_EQ(std::vector<double>(S.begin(), S.begin() + n * n), loop[0]);
}

TEST(BatchCApi, ZgetrfBatchedPivotsAsSingleCalls) {
  using Z = std::complex<double>;
  const int n = 7, count = 3;
  std::vector<std::vector<Z>> A, loop;
  for (int i = 0; i < count; ++i) A.push_back(hetla::bench::random_matrix<Z>(n, n, n, 40 + i));
  loop = A;
  std::vector<Z*> p;
  std::vector<std::vector<int>> piv(count, std::vector<int>(n)), lpiv = piv;
  std::vector<int*> pp;
  for (int i = 0; i < count; ++i) {
    p.push_back(A[i].data());
    pp.push_back(piv[i].data());
  }
  std::vector<int> info(count, -7);
  ASSERT_EQ(hetla_zgetrf_batched(n, n, p.data(), n, pp.data(), count, info.data()), 0);
  for (int i = 0; i < count; ++i) {
    EXPECT_EQ(info[i], hetla_zgetrf(n, n, loop[i].data(), n, lpiv[i].data()));
    EXPECT_EQ(A[i], loop[i]);
    EXPECT_EQ(piv[i], lpiv[i]);
  }
}

TEST(BatchCApi, CommonArgumentIsMinusItsPosition) {
  std::vector<double> a(16);
  double* p[1] = {a.data()};
  int info[1];
  EXPECT_EQ(hetla_dpotrf_batched('X', 4, p, 4, 1, info), -1);
  EXPECT_NE(std::string(hetla_last_error()), "");
  EXPECT_EQ(hetla_dpotrf_batched('L', 4, p, 3, 1, info), -4);
  EXPECT_EQ(hetla_dgemm_batched('N', 'N', 4, 4, 4, 1.0, nullptr, 4, nullptr, 4, 0.0, p, 4, 1, info), -7);
  EXPECT_EQ(hetla_dgeqrf_batched(4, 4, p, 4, p, 1, nullptr), -7);
}

}  // namespace
