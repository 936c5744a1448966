// hetla bench getrf | gesv: the LU family.
//   getrf: LU factorization with partial pivoting P A = L U (m x n);
//   gesv:  factor A = P^T L U and solve A X = B.
#include "bench/common.hpp"
#include "checks_lu.hpp"
#include "hetla/lu.hpp"

namespace hetla::cli {
namespace {

template <typename T> Record run_getrf(const BenchConfig& c) {
  const int64_t m = c.m < 0 ? c.n : c.m, n = c.n, lda = std::max<int64_t>(1, m);
  LinalgResult r = start_result<T>(c, m, n, 0, Panels::LU);
  r.flops = flops::getrf<T>(static_cast<double>(m), static_cast<double>(n));
  const auto A0 = bench::random_matrix<T>(m, n, lda, 6000 + static_cast<uint64_t>(m + n));
  std::vector<T> A;
  std::vector<int64_t> ipiv(static_cast<std::size_t>(std::min(m, n)));
  auto reset = [&] { A = A0; };

  std::vector<lapack_int> lpiv(ipiv.size());
  const hetla::Options opts = factor_options<T>(c, r, m, n);
  time_against_vendor(c, r, reset, [&] { r.info = hetla::getrf(m, n, A.data(), lda, ipiv.data(), opts); },
                      [&] { r.baseline_info = vendor::getrf(m, n, A.data(), lda, lpiv.data()); });
  if (c.check) r.residual = bench::getrf_residual(m, n, A0.data(), lda, A.data(), lda, ipiv.data());
  measure_gemm_rate<T>(c, r, m, n);
  return make_record(c, r);
}

template <typename T> Record run_gesv(const BenchConfig& c) {
  const int64_t n = c.n, nrhs = c.nrhs, lda = std::max<int64_t>(1, n), ldb = lda;
  LinalgResult r = start_result<T>(c, n, n, nrhs, Panels::LU);
  r.flops = flops::gesv<T>(static_cast<double>(n), static_cast<double>(nrhs));
  const auto A0 = bench::random_matrix<T>(n, n, lda, 7000 + static_cast<uint64_t>(n));
  const auto B0 = bench::random_matrix<T>(n, nrhs, ldb, 8000 + static_cast<uint64_t>(n));
  std::vector<T> A, B;
  std::vector<int64_t> ipiv(static_cast<std::size_t>(n));
  auto reset = [&] {
    A = A0;
    B = B0;
  };
  std::vector<lapack_int> lpiv(ipiv.size());
  time_against_vendor(
      c, r, reset, [&] { r.info = hetla::gesv(n, nrhs, A.data(), lda, ipiv.data(), B.data(), ldb, {r.nb}); },
      [&] { r.baseline_info = vendor::gesv(n, nrhs, A.data(), lda, lpiv.data(), B.data(), ldb); });
  if (c.check) r.residual = bench::solve_residual(n, n, nrhs, A0.data(), lda, B.data(), ldb, B0.data(), ldb);
  return make_record(c, r);
}

constexpr unsigned kLuOptions = kOptNb | kOptPrecision | kOptCheck | kOptBaseline | kOptRepeat | kOptThreads;

const Registrar reg_getrf({.name = "getrf",
                           .summary = "LU factorization with partial pivoting P A = L U (m x n)",
                           .options = kLuOptions | kOptM | kOptVariableTiles},
                          []<typename T>(const BenchConfig& c) { return run_getrf<T>(c); },
                          [](const BenchConfig& c) {  // A0, A; the check adds L, U and P A - L U
                            const double m = static_cast<double>(c.m < 0 ? c.n : c.m), n = static_cast<double>(c.n);
                            return scalar_bytes(c.precision, (c.check ? 5 : 2) * m * n);
                          });

const Registrar reg_gesv({.name = "gesv",
                          .summary = "factor A = P^T L U and solve A X = B (general square A)",
                          .options = kLuOptions | kOptNrhs},
                         []<typename T>(const BenchConfig& c) { return run_gesv<T>(c); },
                         [](const BenchConfig& c) {  // A0 and a working copy; B0, B and the residual
                           const double n = static_cast<double>(c.n), k = static_cast<double>(c.nrhs);
                           return scalar_bytes(c.precision, 2 * n * n + 3 * n * k);
                         });

}  // namespace
}  // namespace hetla::cli
