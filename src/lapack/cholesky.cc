// ?potrf, ?potrs, ?posv with LAPACK's Fortran ABI. Arguments are checked
// here, as LAPACK 3.11 does and in its order, before a call goes to the
// vendor or to hetla, so every report is LAPACK's whatever the vendor does.
#include <limits>

#include "hetla/linalg.hpp"
#include "kernels/host/small_potrf.hpp"
#include "lapack/fortran.hpp"

namespace hetla::lapack {
namespace {

/// The vendor calls of small::potrf (kernels/host/small_potrf.hpp) through
/// the explicit vendor table, in the integer width I of the name called.
template <typename T, typename I> struct VendorKernels {
  using R = real_t<T>;
  int64_t potrf(Uplo u, int64_t n, T* A, int64_t lda) const {
    static const Vendor<void(const char*, const I*, T*, const I*, I*, flen)> f(routine_name<T>("potrf"));
    const char c = static_cast<char>(u);
    const I N = static_cast<I>(n), LDA = static_cast<I>(lda);
    I info = 0;
    f(&c, &N, A, &LDA, &info, flen{1});
    return info;
  }
  void herk(Uplo u, Op t, int64_t n, int64_t k, const T* A, int64_t lda, T* C, int64_t ldc) const {
    // syrk for the real types: its alpha and beta are T, herk's are real.
    static const Vendor<void(const char*, const char*, const I*, const I*, const R*, const T*, const I*, const R*, T*,
                             const I*, flen, flen)>
        f(routine_name<T>(is_complex_v<T> ? "herk" : "syrk"));
    const char cu = static_cast<char>(u), ct = t == Op::NoTrans ? 'N' : is_complex_v<T> ? 'C' : 'T';
    const I N = static_cast<I>(n), K = static_cast<I>(k), LDA = static_cast<I>(lda), LDC = static_cast<I>(ldc);
    const R alpha = -1, beta = 1;
    f(&cu, &ct, &N, &K, &alpha, A, &LDA, &beta, C, &LDC, flen{1}, flen{1});
  }
  void gemm(Op ta, Op tb, int64_t m, int64_t n, int64_t k, const T* A, int64_t lda, const T* B, int64_t ldb, T* C,
            int64_t ldc) const {
    static const Vendor<void(const char*, const char*, const I*, const I*, const I*, const T*, const T*, const I*,
                             const T*, const I*, const T*, T*, const I*, flen, flen)>
        f(routine_name<T>("gemm"));
    const char ca = static_cast<char>(ta), cb = static_cast<char>(tb);
    const I M = static_cast<I>(m), N = static_cast<I>(n), K = static_cast<I>(k);
    const I LDA = static_cast<I>(lda), LDB = static_cast<I>(ldb), LDC = static_cast<I>(ldc);
    const T alpha(-1), beta(1);
    f(&ca, &cb, &M, &N, &K, &alpha, A, &LDA, B, &LDB, &beta, C, &LDC, flen{1}, flen{1});
  }
};

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
    // Where the vendor's potrf would start its thread pool: the single-threaded
    // composition (small_potrf.hpp), every vendor call in 32-bit sizes.
    if (small::potrf_composed(N) && *lda <= std::numeric_limits<int>::max()) {
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
