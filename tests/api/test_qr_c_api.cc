// C API of the QR family (hetla_?geqrf, ?ormqr / ?unmqr, ?orgqr / ?ungqr,
// ?gels): results equal the C++ API's, LAPACK's negative info for invalid
// arguments, the rank-deficiency info of gels, and an error message.
#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <vector>

#include "checks_qr.hpp"
#include "hetla/hetla.h"
#include "hetla/hetla.hpp"
#include "matgen.hpp"

namespace hetla {
namespace {

constexpr double kThreshold = bench::kResidualThreshold;

TEST(QrCApi, DoubleRoundTrip) {
  const int m = 70, n = 45, lda = 72;
  const auto A0 = bench::random_matrix<double>(m, n, lda, 1);
  auto A = A0;
  std::vector<double> tau(n);
  ASSERT_EQ(hetla_dgeqrf(m, n, A.data(), lda, tau.data()), 0);
  EXPECT_LT(bench::qr_residual<double>(m, n, A0.data(), lda, A.data(), lda, tau.data()), kThreshold);

  // Q^H A0 then Q (Q^H A0) = A0
  auto C = A0;
  ASSERT_EQ(hetla_dormqr('L', 'T', m, n, n, A.data(), lda, tau.data(), C.data(), lda), 0);
  ASSERT_EQ(hetla_dormqr('l', 'n', m, n, n, A.data(), lda, tau.data(), C.data(), lda), 0);
  EXPECT_LT(bench::relative_difference<double>(m, n, C.data(), lda, A0.data(), lda, m), kThreshold);

  auto Q = A;
  ASSERT_EQ(hetla_dorgqr(m, n, n, Q.data(), lda, tau.data()), 0);
  EXPECT_LT(bench::orthogonality_residual<double>(m, n, Q.data(), lda), kThreshold);

  auto A2 = A0;
  auto B = bench::random_matrix<double>(m, 2, m, 2);
  const auto B0 = B;
  ASSERT_EQ(hetla_dgels('N', m, n, 2, A2.data(), lda, B.data(), m), 0);
  EXPECT_LT(bench::least_squares_residual<double>(Op::NoTrans, m, n, 2, A0.data(), lda, B.data(), m, B0.data(), m),
            kThreshold);
}

template <typename T, typename Geqrf, typename Unmqr, typename Ungqr, typename Gels>
void check_precision(Geqrf geqrf_c, Unmqr unmqr_c, Ungqr ungqr_c, Gels gels_c, char adj) {
  const int m = 40, n = 30;
  const auto A0 = bench::random_matrix<T>(m, n, m, 3);
  auto A = A0;
  std::vector<T> tau(n);
  ASSERT_EQ(geqrf_c(m, n, A.data(), m, tau.data()), 0);
  EXPECT_LT(bench::qr_residual<T>(m, n, A0.data(), m, A.data(), m, tau.data()), kThreshold);
  auto C = A0;
  ASSERT_EQ(unmqr_c('L', adj, m, n, n, A.data(), m, tau.data(), C.data(), m), 0);
  ASSERT_EQ(unmqr_c('L', 'N', m, n, n, A.data(), m, tau.data(), C.data(), m), 0);
  EXPECT_LT(bench::relative_difference<T>(m, n, C.data(), m, A0.data(), m, m), kThreshold);
  auto Q = A;
  ASSERT_EQ(ungqr_c(m, n, n, Q.data(), m, tau.data()), 0);
  EXPECT_LT(bench::orthogonality_residual<T>(m, n, Q.data(), m), kThreshold);
  // minimum norm through the adjoint: A^H X = B with A 40 x 30 (30 equations)
  auto A2 = A0;
  auto B = bench::random_matrix<T>(m, 1, m, 4);
  ASSERT_EQ(gels_c(adj, m, n, 1, A2.data(), m, B.data(), m), 0);

  // LAPACK's argument numbers as negative info
  EXPECT_EQ(geqrf_c(-1, n, A.data(), m, tau.data()), -1);
  EXPECT_EQ(geqrf_c(m, n, A.data(), m - 1, tau.data()), -4);
  EXPECT_EQ(unmqr_c('X', 'N', m, n, n, A.data(), m, tau.data(), C.data(), m), -1);
  EXPECT_EQ(unmqr_c('L', 'X', m, n, n, A.data(), m, tau.data(), C.data(), m), -2);
  EXPECT_EQ(unmqr_c('L', 'N', m, n, m + 1, A.data(), m, tau.data(), C.data(), m), -5);
  EXPECT_EQ(unmqr_c('L', 'N', m, n, n, A.data(), m, tau.data(), C.data(), m - 1), -10);
  EXPECT_EQ(ungqr_c(m, m + 1, n, Q.data(), m, tau.data()), -2);
  EXPECT_EQ(ungqr_c(m, n, n + 1, Q.data(), m, tau.data()), -3);
  EXPECT_EQ(gels_c('X', m, n, 1, A2.data(), m, B.data(), m), -1);
  EXPECT_EQ(gels_c('N', m, n, 1, A2.data(), m, B.data(), n), -8);
  EXPECT_NE(std::strlen(hetla_last_error()), 0u);
  if constexpr (is_complex_v<T>) {
    EXPECT_EQ(unmqr_c('L', 'T', m, n, n, A.data(), m, tau.data(), C.data(), m), -2);
    EXPECT_EQ(gels_c('T', m, n, 1, A2.data(), m, B.data(), m), -1);
  }
  // a zero column: info = its position
  auto Z = A0;
  for (int i = 0; i < m; ++i) Z[i + 7 * m] = T(0);
  auto Bz = bench::random_matrix<T>(m, 1, m, 5);
  EXPECT_EQ(gels_c('N', m, n, 1, Z.data(), m, Bz.data(), m), 8);
  EXPECT_STREQ(hetla_last_error(), "");
}

TEST(QrCApi, AllPrecisions) {
  check_precision<float>(hetla_sgeqrf, hetla_sormqr, hetla_sorgqr, hetla_sgels, 'T');
  check_precision<double>(hetla_dgeqrf, hetla_dormqr, hetla_dorgqr, hetla_dgels, 'T');
  check_precision<std::complex<float>>(hetla_cgeqrf, hetla_cunmqr, hetla_cungqr, hetla_cgels, 'C');
  check_precision<std::complex<double>>(hetla_zgeqrf, hetla_zunmqr, hetla_zungqr, hetla_zgels, 'C');
}

}  // namespace
}  // namespace hetla
