// ?potrf, ?potrs, ?posv with LAPACK's Fortran ABI (argument checks as in
// LAPACK 3.11, in its order, reported through xerbla_).
#include "hetla/linalg.hpp"
#include "lapack/fortran.hpp"

namespace hetla::lapack {
namespace {

template <typename T> void potrf(const char* uplo, const int* n, T* a, const int* lda, int* info) {
  using Fn = void(const char*, const int*, T*, const int*, int*, flen);
  static Fn* const vendor = vendor_function<Fn>(fortran_name<T>("potrf"));
  const int N = *n;
  if (!to_hetla<T>(Routine::Potrf, product(N, N, N))) return vendor_call(vendor, uplo, n, a, lda, info, flen{1});
  int pos = 0;
  if (!is_uplo(uplo)) pos = 1;
  else if (*lda < max1(N)) pos = 4;
  if (pos) return report<T>("potrf", pos, info);
  run_hetla<T>("potrf", info, [&] { *info = static_cast<int>(hetla::potrf<T>(to_uplo(uplo), N, a, *lda)); });
}

template <typename T>
void potrs(const char* uplo, const int* n, const int* nrhs, const T* a, const int* lda, T* b, const int* ldb,
           int* info) {
  using Fn = void(const char*, const int*, const int*, const T*, const int*, T*, const int*, int*, flen);
  static Fn* const vendor = vendor_function<Fn>(fortran_name<T>("potrs"));
  const int N = *n;
  if (!to_hetla<T>(Routine::Potrs, product(N, N, *nrhs)))
    return vendor_call(vendor, uplo, n, nrhs, a, lda, b, ldb, info, flen{1});
  int pos = 0;
  if (!is_uplo(uplo)) pos = 1;
  else if (*lda < max1(N)) pos = 5;
  else if (*ldb < max1(N)) pos = 7;
  if (pos) return report<T>("potrs", pos, info);
  run_hetla<T>("potrs", info, [&] {
    hetla::potrs<T>(to_uplo(uplo), N, *nrhs, a, *lda, b, *ldb);
    *info = 0;
  });
}

template <typename T>
void posv(const char* uplo, const int* n, const int* nrhs, T* a, const int* lda, T* b, const int* ldb, int* info) {
  using Fn = void(const char*, const int*, const int*, T*, const int*, T*, const int*, int*, flen);
  static Fn* const vendor = vendor_function<Fn>(fortran_name<T>("posv"));
  const int N = *n;
  if (!to_hetla<T>(Routine::Posv, product(N, N, std::max(N, *nrhs))) || *nrhs <= 0)
    return vendor_call(vendor, uplo, n, nrhs, a, lda, b, ldb, info, flen{1});
  int pos = 0;
  if (!is_uplo(uplo)) pos = 1;
  else if (*lda < max1(N)) pos = 5;
  else if (*ldb < max1(N)) pos = 7;
  if (pos) return report<T>("posv", pos, info);
  run_hetla<T>("posv", info,
               [&] { *info = static_cast<int>(hetla::posv<T>(to_uplo(uplo), N, *nrhs, a, *lda, b, *ldb)); });
}

}  // namespace
}  // namespace hetla::lapack

#define HETLA_EXPORT_CHOLESKY(p, T)                                                                             \
  HETLA_LAPACK_EXPORT void p##potrf_(const char* uplo, const int* n, T* a, const int* lda, int* info, flen) {  \
    HETLA_LAPACK_CHECK_LETTER(p, T);                                                                            \
    hetla::lapack::potrf(uplo, n, a, lda, info);                                                                \
  }                                                                                                             \
  HETLA_LAPACK_EXPORT void p##potrs_(const char* uplo, const int* n, const int* nrhs, const T* a, const int* lda, \
                                     T* b, const int* ldb, int* info, flen) {                                   \
    hetla::lapack::potrs(uplo, n, nrhs, a, lda, b, ldb, info);                                                  \
  }                                                                                                             \
  HETLA_LAPACK_EXPORT void p##posv_(const char* uplo, const int* n, const int* nrhs, T* a, const int* lda, T* b, \
                                    const int* ldb, int* info, flen) {                                          \
    hetla::lapack::posv(uplo, n, nrhs, a, lda, b, ldb, info);                                                   \
  }
using hetla::lapack::flen;
HETLA_LAPACK_FOR_EACH_PRECISION(HETLA_EXPORT_CHOLESKY)
#undef HETLA_EXPORT_CHOLESKY
