// hetla bench gesv: factor A = P^T L U and solve A X = B.
#include "bench/common.hpp"
#include "bench/flops.hpp"
#include "hetla/lu.hpp"
#include "kernels/host/lapack_lu.hpp"

namespace hetla::cli {
namespace {

template <typename T> Record run(const BenchConfig& c) {
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
      [&] { r.baseline_info = blas::gesv(n, nrhs, A.data(), lda, lpiv.data(), B.data(), ldb); });
  if (c.check) r.residual = bench::solve_residual(n, n, nrhs, A0.data(), lda, B.data(), ldb, B0.data(), ldb);
  return make_record(c, r);
}

const Registrar reg({"gesv", "factor A = P^T L U and solve A X = B (general square A)",
                     kOptNrhs | kOptNb | kOptPrecision | kOptCheck | kOptBaseline | kOptRepeat | kOptThreads, 2000,
                     true,
                     [](const BenchConfig& c) {
                       return with_precision(c.precision, [&]<typename T>() { return run<T>(c); });
                     },
                     [](const BenchConfig& c) {  // A0 and a working copy; B0, B and the residual
                       const double n = static_cast<double>(c.n), k = static_cast<double>(c.nrhs);
                       return scalar_bytes(c.precision, 2 * n * n + 3 * n * k);
                     }});

}  // namespace
}  // namespace hetla::cli
