// hetla bench getrf: LU factorization with partial pivoting P A = L U (m x n).
#include "bench/common.hpp"
#include "bench/flops.hpp"
#include "checks_lu.hpp"
#include "hetla/lu.hpp"
#include "kernels/host/lapack_lu.hpp"

namespace hetla::cli {
namespace {

template <typename T> Record run(const BenchConfig& c) {
  const int64_t m = c.m < 0 ? c.n : c.m, n = c.n, lda = std::max<int64_t>(1, m);
  LinalgResult r = start_result<T>(c, m, n, 0, Panels::LU);
  r.flops = flops::getrf<T>(static_cast<double>(m), static_cast<double>(n));
  const auto A0 = bench::random_matrix<T>(m, n, lda, 6000 + static_cast<uint64_t>(m + n));
  std::vector<T> A;
  std::vector<int64_t> ipiv(static_cast<std::size_t>(std::min(m, n)));
  auto reset = [&] { A = A0; };

  std::vector<lapack_int> lpiv(ipiv.size());
  time_against_vendor(c, r, reset, [&] { r.info = hetla::getrf(m, n, A.data(), lda, ipiv.data(), {r.nb}); },
                      [&] { r.baseline_info = blas::getrf(m, n, A.data(), lda, lpiv.data()); });
  if (c.check) r.residual = bench::getrf_residual(m, n, A0.data(), lda, A.data(), lda, ipiv.data());
  return make_record(c, r);
}

const Registrar reg({"getrf", "LU factorization with partial pivoting P A = L U (m x n)",
                     kOptM | kOptNb | kOptPrecision | kOptCheck | kOptBaseline | kOptRepeat | kOptThreads, 2000,
                     true,
                     [](const BenchConfig& c) {
                       return with_precision(c.precision, [&]<typename T>() { return run<T>(c); });
                     },
                     [](const BenchConfig& c) {  // A0, A; the check adds L, U and P A - L U
                       const double m = static_cast<double>(c.m < 0 ? c.n : c.m), n = static_cast<double>(c.n);
                       return scalar_bytes(c.precision, (c.check ? 5 : 2) * m * n);
                     }});

}  // namespace
}  // namespace hetla::cli
