// Factors a small symmetric positive definite matrix with hetla's C++ API
// (hetla::potrf, Cholesky) and checks the factor's first entry.
#include <hetla/hetla.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  const int n = 100;
  std::vector<double> A(n * n, 0.5);
  for (int i = 0; i < n; ++i) A[i + i * n] = n;
  const int64_t info = hetla::potrf(hetla::Uplo::Lower, n, A.data(), n);
  const bool ok = info == 0 && std::abs(A[0] - std::sqrt(double(n))) < 1e-12;
  std::printf("factor info=%ld L(0,0)=%g threads=%d\n", static_cast<long>(info), A[0], hetla::num_threads());
  hetla::finalize();
  return ok ? 0 : 1;
}
