// hetla bench potrf: Cholesky factorization A = L L^H (or U^H U).
#include "bench/common.hpp"

namespace hetla::cli {
namespace {

template <typename T> Record run(const BenchConfig& c) {
  const int64_t n = c.n, lda = n;
  LinalgResult r = start_result<T>(c, n, n, 0);
  r.flops = flops::potrf<T>(static_cast<double>(n));
  const auto A0 = bench::random_hpd<T>(n, lda, 1000 + static_cast<uint64_t>(n));
  std::vector<T> A;
  auto reset = [&] { A = A0; };

  time_against_vendor(c, r, reset, [&] { r.info = hetla::potrf(c.uplo, n, A.data(), lda, {r.nb}); },
                      [&] { r.baseline_info = vendor::potrf(c.uplo, n, A.data(), lda); });
  if (c.check) r.residual = bench::potrf_residual(c.uplo, n, A0.data(), lda, A.data(), lda);
  return make_record(c, r);
}

const Registrar reg({"potrf", "Cholesky factorization A = L L^H or U^H U (Hermitian positive definite)",
                     kOptNb | kOptPrecision | kOptUplo | kOptCheck | kOptBaseline | kOptRepeat | kOptThreads,
                     2000, true,
                     [](const BenchConfig& c) {
                       return with_precision(c.precision, [&]<typename T>() { return run<T>(c); });
                     },
                     [](const BenchConfig& c) {  // A0, A; the check adds four n x n work arrays
                       const double n2 = static_cast<double>(c.n) * static_cast<double>(c.n);
                       return scalar_bytes(c.precision, (c.check ? 6 : 2) * n2);
                     }});

}  // namespace
}  // namespace hetla::cli
