// Level-3 BLAS ?gemm, ?trsm, ?syrk, ?herk with the Fortran ABI. Arguments
// are checked here, as the reference BLAS does and in its order, before a
// call goes to the vendor or to hetla.
// A call that only scales (alpha = 0) is O(m n) and goes to the vendor.
#include "hetla/blas3.hpp"
#include "lapack/fortran.hpp"

namespace hetla::lapack {
namespace {

template <typename T, typename I>
void gemm(const char* ta, const char* tb, const I* m, const I* n, const I* k, const T* alpha, const T* a, const I* lda,
          const T* b, const I* ldb, const T* beta, T* c, const I* ldc) {
  static const Vendor<void(const char*, const char*, const I*, const I*, const I*, const T*, const T*, const I*,
                           const T*, const I*, const T*, T*, const I*, flen, flen)>
      vendor(routine_name<T>("gemm"));
  const I M = *m, N = *n, K = *k;
  const I nrowa = lsame(ta, 'N') ? M : K, nrowb = lsame(tb, 'N') ? K : N;
  int pos = 0;
  if (!is_trans(ta)) pos = 1;
  else if (!is_trans(tb)) pos = 2;
  else if (M < 0) pos = 3;
  else if (N < 0) pos = 4;
  else if (K < 0) pos = 5;
  else if (*lda < max1(nrowa)) pos = 8;
  else if (*ldb < max1(nrowb)) pos = 10;
  else if (*ldc < max1(M)) pos = 13;
  if (pos) return report<T, I>("gemm", pos);
  if ((*alpha == T(0) || !to_hetla<T>(Routine::Gemm, product(M, N, K))) &&
      vendor(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, flen{1}, flen{1}))
    return;
  run_hetla<T, I>("gemm", nullptr, [&] {
    hetla::gemm<T>(to_op<T>(ta), to_op<T>(tb), M, N, K, *alpha, a, *lda, b, *ldb, *beta, c, *ldc);
  });
}

template <typename T, typename I>
void trsm(const char* side, const char* uplo, const char* ta, const char* diag, const I* m, const I* n, const T* alpha,
          const T* a, const I* lda, T* b, const I* ldb) {
  static const Vendor<void(const char*, const char*, const char*, const char*, const I*, const I*, const T*, const T*,
                           const I*, T*, const I*, flen, flen, flen, flen)>
      vendor(routine_name<T>("trsm"));
  const I M = *m, N = *n;
  const bool left = lsame(side, 'L');
  int pos = 0;
  if (!left && !lsame(side, 'R')) pos = 1;
  else if (!is_uplo(uplo)) pos = 2;
  else if (!is_trans(ta)) pos = 3;
  else if (!lsame(diag, 'U') && !lsame(diag, 'N')) pos = 4;
  else if (M < 0) pos = 5;
  else if (N < 0) pos = 6;
  else if (*lda < max1(left ? M : N)) pos = 9;
  else if (*ldb < max1(M)) pos = 11;
  if (pos) return report<T, I>("trsm", pos);
  if ((*alpha == T(0) || !to_hetla<T>(Routine::Trsm, left ? product(M, M, N) : product(M, N, N))) &&
      vendor(side, uplo, ta, diag, m, n, alpha, a, lda, b, ldb, flen{1}, flen{1}, flen{1}, flen{1}))
    return;
  run_hetla<T, I>("trsm", nullptr, [&] {
    hetla::trsm<T>(to_side(side), to_uplo(uplo), to_op<T>(ta), to_diag(diag), M, N, *alpha, a, *lda, b, *ldb);
  });
}

/// syrk (conj = false) and herk (conj = true): the same checks but for the
/// transposes taken (syrk: N, T and, for real types, C; herk: N, C).
template <typename T, bool conj, typename S, typename I>
void rank_k(const char* uplo, const char* trans, const I* n, const I* k, const S* alpha, const T* a, const I* lda,
            const S* beta, T* c, const I* ldc) {
  const char* base = conj ? "herk" : "syrk";
  static const Vendor<void(const char*, const char*, const I*, const I*, const S*, const T*, const I*, const S*, T*,
                           const I*, flen, flen)>
      vendor(routine_name<T>(base));
  const I N = *n, K = *k;
  const bool trans_ok =
      lsame(trans, 'N') || (conj ? lsame(trans, 'C') : lsame(trans, 'T') || (!is_complex_v<T> && lsame(trans, 'C')));
  int pos = 0;
  if (!is_uplo(uplo)) pos = 1;
  else if (!trans_ok) pos = 2;
  else if (N < 0) pos = 3;
  else if (K < 0) pos = 4;
  else if (*lda < max1(lsame(trans, 'N') ? N : K)) pos = 7;
  else if (*ldc < max1(N)) pos = 10;
  if (pos) return report<T, I>(base, pos);
  if ((*alpha == S(0) || !to_hetla<T>(conj ? Routine::Herk : Routine::Syrk, product(N, N, K))) &&
      vendor(uplo, trans, n, k, alpha, a, lda, beta, c, ldc, flen{1}, flen{1}))
    return;
  run_hetla<T, I>(base, nullptr, [&] {
    if constexpr (conj) hetla::herk<T>(to_uplo(uplo), to_op<T>(trans), N, K, *alpha, a, *lda, *beta, c, *ldc);
    else hetla::syrk<T>(to_uplo(uplo), to_op<T>(trans), N, K, *alpha, a, *lda, *beta, c, *ldc);
  });
}

}  // namespace
}  // namespace hetla::lapack

using hetla::lapack::flen;

#define HETLA_EXPORT_BLAS3(p, T, I, suffix)                                                                        \
  HETLA_LAPACK_EXPORT void p##gemm##suffix(const char* ta, const char* tb, const I* m, const I* n, const I* k,     \
                                           const T* alpha, const T* a, const I* lda, const T* b, const I* ldb,     \
                                           const T* beta, T* c, const I* ldc, flen, flen) {                        \
    HETLA_LAPACK_CHECK_LETTER(p, T);                                                                               \
    hetla::lapack::gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                                     \
  }                                                                                                                \
  HETLA_LAPACK_EXPORT void p##trsm##suffix(const char* side, const char* uplo, const char* ta, const char* diag,   \
                                           const I* m, const I* n, const T* alpha, const T* a, const I* lda, T* b, \
                                           const I* ldb, flen, flen, flen, flen) {                                 \
    hetla::lapack::trsm(side, uplo, ta, diag, m, n, alpha, a, lda, b, ldb);                                        \
  }                                                                                                                \
  HETLA_LAPACK_EXPORT void p##syrk##suffix(const char* uplo, const char* trans, const I* n, const I* k,            \
                                           const T* alpha, const T* a, const I* lda, const T* beta, T* c,          \
                                           const I* ldc, flen, flen) {                                             \
    hetla::lapack::rank_k<T, false>(uplo, trans, n, k, alpha, a, lda, beta, c, ldc);                               \
  }
HETLA_LAPACK_FOR_EACH_PRECISION(HETLA_EXPORT_BLAS3)
#undef HETLA_EXPORT_BLAS3

#define HETLA_EXPORT_HERK(p, T, I, suffix)                                                                 \
  HETLA_LAPACK_EXPORT void p##herk##suffix(const char* uplo, const char* trans, const I* n, const I* k,    \
                                           const hetla::real_t<T>* alpha, const T* a, const I* lda,        \
                                           const hetla::real_t<T>* beta, T* c, const I* ldc, flen, flen) { \
    HETLA_LAPACK_CHECK_LETTER(p, T);                                                                       \
    hetla::lapack::rank_k<T, true>(uplo, trans, n, k, alpha, a, lda, beta, c, ldc);                        \
  }
HETLA_LAPACK_FOR_EACH_COMPLEX(HETLA_EXPORT_HERK)
#undef HETLA_EXPORT_HERK
