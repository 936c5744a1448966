// Factors a small SPD matrix through the installed C++ API.
#include <hetla/hetla.hpp>

#include <cstdio>
#include <vector>

int main() {
  const int n = 100;
  std::vector<double> A(n * n, 0.5);
  for (int i = 0; i < n; ++i) A[i + i * n] = n;
  int64_t info = hetla::potrf(hetla::Uplo::Lower, n, A.data(), n);
  std::printf("consumer_cxx info=%ld\n", static_cast<long>(info));
  return info == 0 ? 0 : 1;
}
