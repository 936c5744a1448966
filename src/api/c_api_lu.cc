// C API for LU with partial pivoting: LAPACK argument order and numbering over
// the C++ API. Pivots are int here and int64_t in C++, so they are converted.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "api/c_api_util.hpp"
#include "hetla/hetla.hpp"

namespace {
using hetla::capi::guarded;

std::vector<int64_t> pivots(int count) { return std::vector<int64_t>(static_cast<std::size_t>(std::max(count, 0))); }
/// A null user array stays null so the C++ API reports it with its argument number.
int64_t* data_or_null(std::vector<int64_t>& p, const int* user) { return user ? p.data() : nullptr; }
void copy_out(const std::vector<int64_t>& p, int* ipiv) {
  for (std::size_t i = 0; i < p.size(); ++i) ipiv[i] = static_cast<int>(p[i]);
}

template <typename T> int getrf(int m, int n, T* A, int lda, int* ipiv) {
  return guarded([&] {
    auto p = pivots(std::min(m, n));
    int64_t info = hetla::getrf<T>(m, n, A, lda, data_or_null(p, ipiv));
    copy_out(p, ipiv);
    return info;
  });
}
template <typename T> int getrs(char trans, int n, int nrhs, const T* A, int lda, const int* ipiv, T* B, int ldb) {
  return guarded([&] {
    auto p = pivots(ipiv ? n : 0);
    if (ipiv) std::copy_n(ipiv, p.size(), p.begin());
    hetla::getrs<T>(hetla::capi::to_op(trans), n, nrhs, A, lda, data_or_null(p, ipiv), B, ldb);
    return 0;
  });
}
template <typename T> int gesv(int n, int nrhs, T* A, int lda, int* ipiv, T* B, int ldb) {
  return guarded([&] {
    auto p = pivots(n);
    int64_t info = hetla::gesv<T>(n, nrhs, A, lda, data_or_null(p, ipiv), B, ldb);
    copy_out(p, ipiv);
    return info;
  });
}
}  // namespace

extern "C" {

int hetla_sgetrf(int m, int n, float* A, int lda, int* ipiv) { return getrf(m, n, A, lda, ipiv); }
int hetla_dgetrf(int m, int n, double* A, int lda, int* ipiv) { return getrf(m, n, A, lda, ipiv); }
int hetla_cgetrf(int m, int n, hetla_complex_float* A, int lda, int* ipiv) { return getrf(m, n, A, lda, ipiv); }
int hetla_zgetrf(int m, int n, hetla_complex_double* A, int lda, int* ipiv) { return getrf(m, n, A, lda, ipiv); }

int hetla_sgetrs(char t, int n, int r, const float* A, int lda, const int* ipiv, float* B, int ldb) {
  return getrs(t, n, r, A, lda, ipiv, B, ldb);
}
int hetla_dgetrs(char t, int n, int r, const double* A, int lda, const int* ipiv, double* B, int ldb) {
  return getrs(t, n, r, A, lda, ipiv, B, ldb);
}
int hetla_cgetrs(char t, int n, int r, const hetla_complex_float* A, int lda, const int* ipiv,
                 hetla_complex_float* B, int ldb) {
  return getrs(t, n, r, A, lda, ipiv, B, ldb);
}
int hetla_zgetrs(char t, int n, int r, const hetla_complex_double* A, int lda, const int* ipiv,
                 hetla_complex_double* B, int ldb) {
  return getrs(t, n, r, A, lda, ipiv, B, ldb);
}

int hetla_sgesv(int n, int r, float* A, int lda, int* ipiv, float* B, int ldb) {
  return gesv(n, r, A, lda, ipiv, B, ldb);
}
int hetla_dgesv(int n, int r, double* A, int lda, int* ipiv, double* B, int ldb) {
  return gesv(n, r, A, lda, ipiv, B, ldb);
}
int hetla_cgesv(int n, int r, hetla_complex_float* A, int lda, int* ipiv, hetla_complex_float* B, int ldb) {
  return gesv(n, r, A, lda, ipiv, B, ldb);
}
int hetla_zgesv(int n, int r, hetla_complex_double* A, int lda, int* ipiv, hetla_complex_double* B, int ldb) {
  return gesv(n, r, A, lda, ipiv, B, ldb);
}

}  // extern "C"
