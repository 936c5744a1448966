// ?potrf, ?potrs, ?posv with LAPACK's Fortran ABI. Arguments are checked
// here, as LAPACK 3.11 does and in its order, before a call goes to the
// vendor or to hetla, so every report is LAPACK's whatever the vendor does.
#include "hetla/linalg.hpp"
#include "lapack/fortran.hpp"

namespace hetla::lapack {
namespace {

/// potrs' and posv's checks: the invalid argument's position, or 0.
int check_solve(const char* uplo, int n, int nrhs, int lda, int ldb) {
  if (!is_uplo(uplo)) return 1;
  if (n < 0) return 2;
  if (nrhs < 0) return 3;
  if (lda < max1(n)) return 5;
  if (ldb < max1(n)) return 7;
  return 0;
}

template <typename T> void potrf(const char* uplo, const int* n, T* a, const int* lda, int* info) {
  using Fn = void(const char*, const int*, T*, const int*, int*, flen);
  static Fn* const vendor = vendor_function<Fn>(fortran_name<T>("potrf"));
  const int N = *n;
  int pos = 0;
  if (!is_uplo(uplo)) pos = 1;
  else if (N < 0) pos = 2;
  else if (*lda < max1(N)) pos = 4;
  if (pos) return report<T>("potrf", pos, info);
  if (!to_hetla<T>(Routine::Potrf, product(N, N, N))) return vendor_call(vendor, uplo, n, a, lda, info, flen{1});
  run_hetla<T>("potrf", info, [&] { *info = static_cast<int>(hetla::potrf<T>(to_uplo(uplo), N, a, *lda)); });
}

template <typename T>
void potrs(const char* uplo, const int* n, const int* nrhs, const T* a, const int* lda, T* b, const int* ldb,
           int* info) {
  using Fn = void(const char*, const int*, const int*, const T*, const int*, T*, const int*, int*, flen);
  static Fn* const vendor = vendor_function<Fn>(fortran_name<T>("potrs"));
  const int N = *n;
  if (const int pos = check_solve(uplo, N, *nrhs, *lda, *ldb)) return report<T>("potrs", pos, info);
  if (!to_hetla<T>(Routine::Potrs, product(N, N, *nrhs)))
    return vendor_call(vendor, uplo, n, nrhs, a, lda, b, ldb, info, flen{1});
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
  if (const int pos = check_solve(uplo, N, *nrhs, *lda, *ldb)) return report<T>("posv", pos, info);
  if (!to_hetla<T>(Routine::Posv, product(N, N, std::max(N, *nrhs))) || *nrhs == 0)
    return vendor_call(vendor, uplo, n, nrhs, a, lda, b, ldb, info, flen{1});
  run_hetla<T>("posv", info,
               [&] { *info = static_cast<int>(hetla::posv<T>(to_uplo(uplo), N, *nrhs, a, *lda, b, *ldb)); });
}

}  // namespace
}  // namespace hetla::lapack

#define HETLA_EXPORT_CHOLESKY(p, T)                                                                               \
  HETLA_LAPACK_EXPORT void p##potrf_(const char* uplo, const int* n, T* a, const int* lda, int* info, flen) {     \
    HETLA_LAPACK_CHECK_LETTER(p, T);                                                                              \
    hetla::lapack::potrf(uplo, n, a, lda, info);                                                                  \
  }                                                                                                               \
  HETLA_LAPACK_EXPORT void p##potrs_(const char* uplo, const int* n, const int* nrhs, const T* a, const int* lda, \
                                     T* b, const int* ldb, int* info, flen) {                                     \
    hetla::lapack::potrs(uplo, n, nrhs, a, lda, b, ldb, info);                                                    \
  }                                                                                                               \
  HETLA_LAPACK_EXPORT void p##posv_(const char* uplo, const int* n, const int* nrhs, T* a, const int* lda, T* b,  \
                                    const int* ldb, int* info, flen) {                                            \
    hetla::lapack::posv(uplo, n, nrhs, a, lda, b, ldb, info);                                                     \
  }
using hetla::lapack::flen;
HETLA_LAPACK_FOR_EACH_PRECISION(HETLA_EXPORT_CHOLESKY)
#undef HETLA_EXPORT_CHOLESKY
