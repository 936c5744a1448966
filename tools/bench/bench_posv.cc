// hetla bench posv: factor A (Cholesky) and solve A X = B.
#include "bench/common.hpp"

namespace hetla::cli {
namespace {

template <typename T> Record run(const BenchConfig& c) {
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

const Registrar reg({"posv", "factor A = L L^H and solve A X = B (Hermitian positive definite)",
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
