// hetla bench geqrf | gels | orgqr: the QR family (Householder QR, least
// squares, forming Q).
#include "bench/common.hpp"
#include "checks_qr.hpp"
#include "hetla/qr.hpp"

namespace hetla::cli {
namespace {

// LAWN 41 counts (LAPACK's dopla.f, MAGMA's flops.h).
double fmuls_geqrf(double m, double n) {
  return m > n ? n * (n * (0.5 - (1.0 / 3.0) * n + m) + m + 23.0 / 6.0)
               : m * (m * (-0.5 - (1.0 / 3.0) * m + n) + 2.0 * n + 23.0 / 6.0);
}
double fadds_geqrf(double m, double n) {
  return m > n ? n * (n * (0.5 - (1.0 / 3.0) * n + m) + 5.0 / 6.0)
               : m * (m * (-0.5 - (1.0 / 3.0) * m + n) + n + 5.0 / 6.0);
}
// Q^H B and the triangular solve of a least squares solve (geqrs; gelqs is symmetric).
double fmuls_geqrs(double m, double n, double nrhs) { return nrhs * (n * (2.0 * m - 0.5 * n + 2.5)); }
double fadds_geqrs(double m, double n, double nrhs) { return nrhs * (n * (2.0 * m - 0.5 * n + 0.5)); }
double fmuls_ungqr(double m, double n, double k) {
  return k * (2.0 * m * n + 2.0 * n - 5.0 / 3.0 + k * (2.0 / 3.0 * k - (m + n) - 1.0));
}
double fadds_ungqr(double m, double n, double k) {
  return k * (2.0 * m * n + n - m + 1.0 / 3.0 + k * (2.0 / 3.0 * k - (m + n)));
}

template <typename T> double geqrf_flops(double m, double n) {
  return flops::combine<T>(fmuls_geqrf(m, n), fadds_geqrf(m, n));
}
template <typename T> double gels_flops(double m, double n, double nrhs) {
  const double p = std::max(m, n), q = std::min(m, n);  // QR of A (m >= n) or LQ (m < n)
  return geqrf_flops<T>(p, q) + flops::combine<T>(fmuls_geqrs(p, q, nrhs), fadds_geqrs(p, q, nrhs));
}
template <typename T> double ungqr_flops(double m, double n, double k) {
  return flops::combine<T>(fmuls_ungqr(m, n, k), fadds_ungqr(m, n, k));
}

int64_t rows_of(const BenchConfig& c) { return c.m < 0 ? c.n : c.m; }

/// Tile size: --nb, else the library's choice for the column-major API.
template <typename T> int64_t qr_tile_size(const BenchConfig& c, int64_t m, int64_t n) {
  return c.nb > 0 ? c.nb : hetla::default_tile_size<T>(m, n, hetla::Panels::QR);
}

/// Q (m x k) formed by the host LAPACK from a factorization in LAPACK's storage.
template <typename T> std::vector<T> lapack_q(int64_t m, int64_t k, const std::vector<T>& F, int64_t ldf,
                                              const std::vector<T>& tau) {
  std::vector<T> Q(static_cast<std::size_t>(std::max<int64_t>(1, m) * k));
  for (int64_t j = 0; j < k; ++j)
    for (int64_t i = 0; i < m; ++i) Q[i + j * m] = F[i + j * ldf];
  if (k > 0) vendor::ungqr(m, k, k, Q.data(), std::max<int64_t>(1, m), tau.data());
  return Q;
}

template <typename T> Record run_geqrf(const BenchConfig& c) {
  const int64_t m = rows_of(c), n = c.n, lda = std::max<int64_t>(1, m), k = std::min(m, n);
  LinalgResult r = start_result<T>(c, m, n, 0, Panels::QR);
  r.nb = qr_tile_size<T>(c, m, n);
  r.flops = geqrf_flops<T>(static_cast<double>(m), static_cast<double>(n));
  const auto A0 = bench::random_matrix<T>(m, n, lda, 6000 + static_cast<uint64_t>(m + n));
  std::vector<T> A, tau(static_cast<std::size_t>(k));
  auto reset = [&] { A = A0; };
  const hetla::Options opts = factor_options<T>(c, r, m, n);
  time_against_vendor(c, r, reset, [&] { hetla::geqrf(m, n, A.data(), lda, tau.data(), opts); },
                      [&] { r.baseline_info = vendor::geqrf(m, n, A.data(), lda, tau.data()); });
  if (c.check) {  // the worse of ||A - Q R|| and ||I - Q^H Q||
    const auto Q = lapack_q(m, k, A, lda, tau);
    r.residual = std::max(bench::qr_residual(m, n, A0.data(), lda, A.data(), lda, tau.data()),
                          bench::orthogonality_residual(m, k, Q.data(), std::max<int64_t>(1, m)));
  }
  measure_gemm_rate<T>(c, r, m, n);
  return make_record(c, r);
}

template <typename T> Record run_gels(const BenchConfig& c) {
  const int64_t m = rows_of(c), n = c.n, nrhs = c.nrhs, lda = std::max<int64_t>(1, m);
  const int64_t ldb = std::max<int64_t>({1, m, n});
  LinalgResult r = start_result<T>(c, m, n, nrhs, Panels::QR);
  r.nb = qr_tile_size<T>(c, m, n);
  r.tiled_n = std::min(m, n);
  r.flops = gels_flops<T>(static_cast<double>(m), static_cast<double>(n), static_cast<double>(nrhs));
  const auto A0 = bench::random_matrix<T>(m, n, lda, 7000 + static_cast<uint64_t>(m + n));
  const auto B0 = bench::random_matrix<T>(m, nrhs, ldb, 8000 + static_cast<uint64_t>(m + n));
  std::vector<T> A, B;
  auto reset = [&] {
    A = A0;
    B = B0;
  };
  time_against_vendor(
      c, r, reset, [&] { r.info = hetla::gels(Op::NoTrans, m, n, nrhs, A.data(), lda, B.data(), ldb, {r.nb}); },
      [&] { r.baseline_info = vendor::gels(Op::NoTrans, m, n, nrhs, A.data(), lda, B.data(), ldb); });
  if (c.check)  // least squares optimality (m >= n), backward error of the exact solution (m < n)
    r.residual = m >= n ? bench::least_squares_residual(Op::NoTrans, m, n, nrhs, A0.data(), lda, B.data(), ldb,
                                                        B0.data(), ldb)
                        : bench::solve_residual(m, n, nrhs, A0.data(), lda, B.data(), ldb, B0.data(), ldb);
  return make_record(c, r);
}

template <typename T> Record run_orgqr(const BenchConfig& c) {
  const int64_t m = std::max(rows_of(c), c.n), n = c.n, lda = std::max<int64_t>(1, m);
  LinalgResult r = start_result<T>(c, m, n, 0, Panels::QR);
  r.nb = qr_tile_size<T>(c, m, n);
  r.flops = ungqr_flops<T>(static_cast<double>(m), static_cast<double>(n), static_cast<double>(n));
  auto F = bench::random_matrix<T>(m, n, lda, 9000 + static_cast<uint64_t>(m + n));
  std::vector<T> tau(static_cast<std::size_t>(n)), A;
  if (n > 0) vendor::geqrf(m, n, F.data(), lda, tau.data());  // the input: reflectors of a random matrix
  auto reset = [&] { A = F; };
  time_against_vendor(c, r, reset, [&] { hetla::ungqr(m, n, n, A.data(), lda, tau.data(), {r.nb}); },
                      [&] { r.baseline_info = vendor::ungqr(m, n, n, A.data(), lda, tau.data()); });
  if (c.check) r.residual = bench::orthogonality_residual(m, n, A.data(), lda);
  return make_record(c, r);
}

double mn_bytes(const BenchConfig& c, double copies) {
  const double m = static_cast<double>(std::max(rows_of(c), c.n)), n = static_cast<double>(c.n);
  return scalar_bytes(c.precision, copies * m * n + (c.check ? n * n : 0));
}

constexpr unsigned kQrOptions = kOptM | kOptNb | kOptPrecision | kOptCheck | kOptBaseline | kOptRepeat | kOptThreads;

const Registrar reg_geqrf(
    {.name = "geqrf",
     .summary = "Householder QR factorization A = Q R (LAPACK storage), m x n (-m, default n)",
     .options = kQrOptions | kOptVariableTiles},
    []<typename T>(const BenchConfig& c) { return run_geqrf<T>(c); },
    [](const BenchConfig& c) {  // A0, A; the check: Q R (m x n), Q (m x k), Q^H Q; the GEMM rate: m k + k n + m n
      const double m = static_cast<double>(rows_of(c)), n = static_cast<double>(c.n), k = std::min(m, n);
      return scalar_bytes(c.precision, 2 * m * n + (c.check ? m * n + m * k + k * k : 0) +
                                           (c.baseline ? m * k + k * n + m * n : 0));
    });

const Registrar reg_gels({.name = "gels",
                          .summary = "least squares / minimum norm solution of A X = B via QR (LQ if m < n)",
                          .options = kQrOptions | kOptNrhs},
                         []<typename T>(const BenchConfig& c) { return run_gels<T>(c); },
                         [](const BenchConfig& c) {  // A0, A (A^H when m < n); B0, B and the residual
                           const double p = static_cast<double>(std::max(rows_of(c), c.n));
                           return mn_bytes(c, 3) + scalar_bytes(c.precision, 4 * p * static_cast<double>(c.nrhs));
                         });

const Registrar reg_orgqr({.name = "orgqr",
                           .summary = "form the first n columns of Q from geqrf's reflectors (ungqr), m >= n",
                           .options = kQrOptions},
                          []<typename T>(const BenchConfig& c) { return run_orgqr<T>(c); },
                          [](const BenchConfig& c) { return mn_bytes(c, 2); });  // the reflectors, the working copy

}  // namespace
}  // namespace hetla::cli
