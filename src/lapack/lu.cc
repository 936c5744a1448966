// ?getrf, ?getrs, ?gesv with LAPACK's Fortran ABI. Arguments are checked
// here, as LAPACK 3.11 does and in its order, before a call goes to the
// vendor or to hetla, so every report is LAPACK's whatever the vendor does
// (OpenBLAS's getrs calls xerbla_ but leaves info unset). Pivots are int in
// Fortran and int64_t in hetla's C++ API, so they are converted.
#include <cstdint>
#include <vector>

#include "hetla/lu.hpp"
#include "lapack/fortran.hpp"

namespace hetla::lapack {
namespace {

void copy_out(const std::vector<int64_t>& p, int* ipiv) {
  for (std::size_t i = 0; i < p.size(); ++i) ipiv[i] = static_cast<int>(p[i]);
}

template <typename T> void getrf(const int* m, const int* n, T* a, const int* lda, int* ipiv, int* info) {
  using Fn = void(const int*, const int*, T*, const int*, int*, int*);
  static Fn* const vendor = vendor_function<Fn>(fortran_name<T>("getrf"));
  const int M = *m, N = *n;
  int pos = 0;
  if (M < 0) pos = 1;
  else if (N < 0) pos = 2;
  else if (*lda < max1(M)) pos = 4;
  if (pos) return report<T>("getrf", pos, info);
  if (!to_hetla<T>(Routine::Getrf, product(M, N, std::min(M, N)))) return vendor_call(vendor, m, n, a, lda, ipiv, info);
  run_hetla<T>("getrf", info, [&] {
    std::vector<int64_t> p(static_cast<std::size_t>(std::min(M, N)));
    *info = static_cast<int>(hetla::getrf<T>(M, N, a, *lda, p.data()));
    copy_out(p, ipiv);
  });
}

template <typename T>
void getrs(const char* trans, const int* n, const int* nrhs, const T* a, const int* lda, const int* ipiv, T* b,
           const int* ldb, int* info) {
  using Fn = void(const char*, const int*, const int*, const T*, const int*, const int*, T*, const int*, int*, flen);
  static Fn* const vendor = vendor_function<Fn>(fortran_name<T>("getrs"));
  const int N = *n;
  int pos = 0;
  if (!is_trans(trans)) pos = 1;
  else if (N < 0) pos = 2;
  else if (*nrhs < 0) pos = 3;
  else if (*lda < max1(N)) pos = 5;
  else if (*ldb < max1(N)) pos = 8;
  if (pos) return report<T>("getrs", pos, info);
  if (!to_hetla<T>(Routine::Getrs, product(N, N, *nrhs)))
    return vendor_call(vendor, trans, n, nrhs, a, lda, ipiv, b, ldb, info, flen{1});
  run_hetla<T>("getrs", info, [&] {
    const std::vector<int64_t> p(ipiv, ipiv + N);
    hetla::getrs<T>(to_op<T>(trans), N, *nrhs, a, *lda, p.data(), b, *ldb);
    *info = 0;
  });
}

template <typename T>
void gesv(const int* n, const int* nrhs, T* a, const int* lda, int* ipiv, T* b, const int* ldb, int* info) {
  using Fn = void(const int*, const int*, T*, const int*, int*, T*, const int*, int*);
  static Fn* const vendor = vendor_function<Fn>(fortran_name<T>("gesv"));
  const int N = *n;
  int pos = 0;
  if (N < 0) pos = 1;
  else if (*nrhs < 0) pos = 2;
  else if (*lda < max1(N)) pos = 4;
  else if (*ldb < max1(N)) pos = 7;
  if (pos) return report<T>("gesv", pos, info);
  if (!to_hetla<T>(Routine::Gesv, product(N, N, std::max(N, *nrhs))) || *nrhs == 0)
    return vendor_call(vendor, n, nrhs, a, lda, ipiv, b, ldb, info);
  run_hetla<T>("gesv", info, [&] {
    std::vector<int64_t> p(static_cast<std::size_t>(N));
    *info = static_cast<int>(hetla::gesv<T>(N, *nrhs, a, *lda, p.data(), b, *ldb));
    copy_out(p, ipiv);
  });
}

}  // namespace
}  // namespace hetla::lapack

#define HETLA_EXPORT_LU(p, T)                                                                                      \
  HETLA_LAPACK_EXPORT void p##getrf_(const int* m, const int* n, T* a, const int* lda, int* ipiv, int* info) {     \
    HETLA_LAPACK_CHECK_LETTER(p, T);                                                                               \
    hetla::lapack::getrf(m, n, a, lda, ipiv, info);                                                                \
  }                                                                                                                \
  HETLA_LAPACK_EXPORT void p##getrs_(const char* trans, const int* n, const int* nrhs, const T* a, const int* lda, \
                                     const int* ipiv, T* b, const int* ldb, int* info, flen) {                     \
    hetla::lapack::getrs(trans, n, nrhs, a, lda, ipiv, b, ldb, info);                                              \
  }                                                                                                                \
  HETLA_LAPACK_EXPORT void p##gesv_(const int* n, const int* nrhs, T* a, const int* lda, int* ipiv, T* b,          \
                                    const int* ldb, int* info) {                                                   \
    hetla::lapack::gesv(n, nrhs, a, lda, ipiv, b, ldb, info);                                                      \
  }
using hetla::lapack::flen;
HETLA_LAPACK_FOR_EACH_PRECISION(HETLA_EXPORT_LU)
#undef HETLA_EXPORT_LU
