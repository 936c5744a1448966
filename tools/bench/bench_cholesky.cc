// hetla bench potrf | potrs | posv: the Cholesky family.
//   potrf: Cholesky factorization A = L L^H (or U^H U);
//   potrs: solve A X = B with a given Cholesky factor of A;
//   posv:  factor A (Cholesky) and solve A X = B.
#include "bench/common.hpp"

namespace hetla::cli {
namespace {

template <typename T> Record run_potrf(const BenchConfig& c) {
  const int64_t n = c.n, lda = n;
  LinalgResult r = start_result<T>(c, n, n, 0);
  r.flops = flops::potrf<T>(static_cast<double>(n));
  const auto A0 = bench::random_hpd<T>(n, lda, 1000 + static_cast<uint64_t>(n));
  std::vector<T> A;
  auto reset = [&] { A = A0; };

  const hetla::Options opts = factor_options<T>(c, r, n, n);
  time_against_vendor(c, r, reset, [&] { r.info = hetla::potrf(c.uplo, n, A.data(), lda, opts); },
                      [&] { r.baseline_info = vendor::potrf(c.uplo, n, A.data(), lda); });
  if (c.check) r.residual = bench::potrf_residual(c.uplo, n, A0.data(), lda, A.data(), lda);
  measure_gemm_rate<T>(c, r, n, n);
  return make_record(c, r);
}

template <typename T> Record run_potrs(const BenchConfig& c) {
  const int64_t n = c.n, nrhs = c.nrhs, lda = n, ldb = n;
  LinalgResult r = start_result<T>(c, n, n, nrhs);
  r.flops = flops::potrs<T>(static_cast<double>(n), static_cast<double>(nrhs));
  const auto A0 = bench::random_hpd<T>(n, lda, 2000 + static_cast<uint64_t>(n));
  const auto B0 = bench::random_matrix<T>(n, nrhs, ldb, 3000 + static_cast<uint64_t>(n));
  // The input factor (not timed) comes from the vendor LAPACK, identical for both.
  auto F = A0;
  r.info = with_vendor_threads(c.threads, [&] { return vendor::potrf(c.uplo, n, F.data(), lda); });
  if (r.info != 0) return make_record(c, r);

  std::vector<T> B;
  auto reset = [&] { B = B0; };
  time_against_vendor(c, r, reset, [&] { hetla::potrs(c.uplo, n, nrhs, F.data(), lda, B.data(), ldb, {r.nb}); },
                      [&] { r.baseline_info = vendor::potrs(c.uplo, n, nrhs, F.data(), lda, B.data(), ldb); });
  if (c.check) r.residual = bench::solve_residual(n, n, nrhs, A0.data(), lda, B.data(), ldb, B0.data(), ldb);
  return make_record(c, r);
}

template <typename T> Record run_posv(const BenchConfig& c) {
  const int64_t n = c.n, nrhs = c.nrhs, lda = n, ldb = n;
  LinalgResult r = start_result<T>(c, n, n, nrhs);
  r.flops = flops::posv<T>(static_cast<double>(n), static_cast<double>(nrhs));
  const auto A0 = bench::random_hpd<T>(n, lda, 4000 + static_cast<uint64_t>(n));
  const auto B0 = bench::random_matrix<T>(n, nrhs, ldb, 5000 + static_cast<uint64_t>(n));
  std::vector<T> A, B;
  auto reset = [&] {
    A = A0;
    B = B0;
  };
  time_against_vendor(
      c, r, reset, [&] { r.info = hetla::posv(c.uplo, n, nrhs, A.data(), lda, B.data(), ldb, {r.nb}); },
      [&] { r.baseline_info = vendor::posv(c.uplo, n, nrhs, A.data(), lda, B.data(), ldb); });
  if (c.check) r.residual = bench::solve_residual(n, n, nrhs, A0.data(), lda, B.data(), ldb, B0.data(), ldb);
  return make_record(c, r);
}

constexpr unsigned kCholeskyOptions =
    kOptNb | kOptPrecision | kOptUplo | kOptCheck | kOptBaseline | kOptRepeat | kOptThreads;

/// A0 and a working copy; B0, B and the residual (the solvers).
double solve_bytes(const BenchConfig& c) {
  const double n = static_cast<double>(c.n), k = static_cast<double>(c.nrhs);
  return scalar_bytes(c.precision, 2 * n * n + 3 * n * k);
}

const Registrar reg_potrf(
    {.name = "potrf",
     .summary = "Cholesky factorization A = L L^H or U^H U (Hermitian positive definite)",
     .options = kCholeskyOptions | kOptVariableTiles},
    []<typename T>(const BenchConfig& c) { return run_potrf<T>(c); },
    [](const BenchConfig& c) {  // A0, A; the check adds four n x n work arrays
      const double n2 = static_cast<double>(c.n) * static_cast<double>(c.n);
      return scalar_bytes(c.precision, (c.check ? 6 : 2) * n2);
    });

const Registrar reg_potrs({.name = "potrs",
                           .summary = "solve A X = B given the Cholesky factor of A (factor not timed)",
                           .options = kCholeskyOptions | kOptNrhs},
                          []<typename T>(const BenchConfig& c) { return run_potrs<T>(c); }, solve_bytes);

const Registrar reg_posv({.name = "posv",
                          .summary = "factor A = L L^H and solve A X = B (Hermitian positive definite)",
                          .options = kCholeskyOptions | kOptNrhs},
                         []<typename T>(const BenchConfig& c) { return run_posv<T>(c); }, solve_bytes);

}  // namespace
}  // namespace hetla::cli
