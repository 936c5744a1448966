// hetla bench potrs: solve A X = B with a given Cholesky factor of A.
#include "bench/common.hpp"

namespace hetla::cli {
namespace {

template <typename T> Record run(const BenchConfig& c) {
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

const Registrar reg({"potrs", "solve A X = B given the Cholesky factor of A (factor not timed)",
                     kOptNrhs | kOptNb | kOptPrecision | kOptUplo | kOptCheck | kOptBaseline | kOptRepeat |
                         kOptThreads,
                     2000, true,
                     [](const BenchConfig& c) {
                       return with_precision(c.precision, [&]<typename T>() { return run<T>(c); });
                     },
                     [](const BenchConfig& c) {  // A0 and a working copy; B0, B and the residual
                       const double n = static_cast<double>(c.n), k = static_cast<double>(c.nrhs);
                       return scalar_bytes(c.precision, 2 * n * n + 3 * n * k);
                     }});

}  // namespace
}  // namespace hetla::cli
