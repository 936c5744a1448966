// ?potrf, ?potrs, ?posv with LAPACK's Fortran ABI. Arguments are checked
// here, as LAPACK 3.11 does and in its order, before a call goes to the
// vendor or to hetla, so every report is LAPACK's whatever the vendor does.
#include "hetla/linalg.hpp"
#include "lapack/fortran.hpp"
#include "kernels/host/small_cholesky.hpp"
#include "lapack/small_kernels.hpp"

namespace hetla::lapack {
namespace {

/// potrs' and posv's checks: the invalid argument's position, or 0.
template <typename I> int check_solve(const char* uplo, I n, I nrhs, I lda, I ldb) {
  if (!is_uplo(uplo)) return 1;
  if (n < 0) return 2;
  if (nrhs < 0) return 3;
  if (lda < max1(n)) return 5;
  if (ldb < max1(n)) return 7;
  return 0;
}

template <typename T, typename I> void potrf(const char* uplo, const I* n, T* a, const I* lda, I* info) {
  static const Vendor<void(const char*, const I*, T*, const I*, I*, flen)> vendor(routine_name<T>("potrf"));
  const I N = *n;
  int pos = 0;
  if (!is_uplo(uplo)) pos = 1;
  else if (N < 0) pos = 2;
  else if (*lda < max1(N)) pos = 4;
  if (pos) return report<T>("potrf", pos, info);
  if (!to_hetla<T>(Routine::Potrf, product(N, N, N))) {
    // Matrices up to kOwnPotrfMax (s, d, c, z): hetla's own kernel, which shares
    // nothing with other callers (small_cholesky.hpp). Else, where the vendor's
    // potrf would start its thread pool: the single-threaded composition
    // (small_factor.hpp), every vendor call in 32-bit sizes.
    if (small::potrf_own<T>(N)) {
      const bool lower = to_uplo(uplo) == Uplo::Lower;
      *info = static_cast<I>(lower ? small::potrf_lower_own(N, a, *lda) : small::potrf_upper_own(N, a, *lda));
      return;
    }
    if (small::potrf_composed(N) && small_fits(*lda)) {
      const small::ThreadedSizeCall counted(true);
      const rt::ReentryScope inside;
      *info = static_cast<I>(small::potrf(VendorKernels<T, I>{}, to_uplo(uplo), N, a, *lda));
      return;
    }
    if (vendor(uplo, n, a, lda, info, flen{1})) return;
  }
  run_hetla<T, I>("potrf", info, [&] { *info = static_cast<I>(hetla::potrf<T>(to_uplo(uplo), N, a, *lda)); });
}

template <typename T, typename I>
void potrs(const char* uplo, const I* n, const I* nrhs, const T* a, const I* lda, T* b, const I* ldb, I* info) {
  static const Vendor<void(const char*, const I*, const I*, const T*, const I*, T*, const I*, I*, flen)> vendor(
      routine_name<T>("potrs"));
  const I N = *n;
  if (const int pos = check_solve(uplo, N, *nrhs, *lda, *ldb)) return report<T>("potrs", pos, info);
  if (!to_hetla<T>(Routine::Potrs, product(N, N, *nrhs)) && vendor(uplo, n, nrhs, a, lda, b, ldb, info, flen{1}))
    return;
  run_hetla<T, I>("potrs", info, [&] {
    hetla::potrs<T>(to_uplo(uplo), N, *nrhs, a, *lda, b, *ldb);
    *info = 0;
  });
}

template <typename T, typename I>
void posv(const char* uplo, const I* n, const I* nrhs, T* a, const I* lda, T* b, const I* ldb, I* info) {
  static const Vendor<void(const char*, const I*, const I*, T*, const I*, T*, const I*, I*, flen)> vendor(
      routine_name<T>("posv"));
  const I N = *n;
  if (const int pos = check_solve(uplo, N, *nrhs, *lda, *ldb)) return report<T>("posv", pos, info);
  if ((!to_hetla<T>(Routine::Posv, product(N, N, std::max(N, *nrhs))) || *nrhs == 0) &&
      vendor(uplo, n, nrhs, a, lda, b, ldb, info, flen{1}))
    return;
  run_hetla<T, I>("posv", info,
                  [&] { *info = static_cast<I>(hetla::posv<T>(to_uplo(uplo), N, *nrhs, a, *lda, b, *ldb)); });
}

}  // namespace
}  // namespace hetla::lapack

#define HETLA_EXPORT_CHOLESKY(p, T, I, suffix)                                                                     \
  HETLA_LAPACK_EXPORT void p##potrf##suffix(const char* uplo, const I* n, T* a, const I* lda, I* info, flen) {     \
    HETLA_LAPACK_CHECK_LETTER(p, T);                                                                               \
    hetla::lapack::potrf(uplo, n, a, lda, info);                                                                   \
  }                                                                                                                \
  HETLA_LAPACK_EXPORT void p##potrs##suffix(const char* uplo, const I* n, const I* nrhs, const T* a, const I* lda, \
                                            T* b, const I* ldb, I* info, flen) {                                   \
    hetla::lapack::potrs(uplo, n, nrhs, a, lda, b, ldb, info);                                                     \
  }                                                                                                                \
  HETLA_LAPACK_EXPORT void p##posv##suffix(const char* uplo, const I* n, const I* nrhs, T* a, const I* lda, T* b,  \
                                           const I* ldb, I* info, flen) {                                          \
    hetla::lapack::posv(uplo, n, nrhs, a, lda, b, ldb, info);                                                      \
  }
using hetla::lapack::flen;
HETLA_LAPACK_FOR_EACH_PRECISION(HETLA_EXPORT_CHOLESKY)
#undef HETLA_EXPORT_CHOLESKY
