// Level-3 BLAS ?gemm, ?trsm, ?syrk, ?herk with the Fortran ABI. Arguments
// are checked here, as the reference BLAS does and in its order, before a
// call goes to the vendor or to hetla.
// A call that only scales (alpha = 0) is O(m n) and goes to the vendor.
#include "hetla/blas3.hpp"
#include "lapack/fortran.hpp"

namespace hetla::lapack {
namespace {

template <typename T>
void gemm(const char* ta, const char* tb, const int* m, const int* n, const int* k, const T* alpha, const T* a,
          const int* lda, const T* b, const int* ldb, const T* beta, T* c, const int* ldc) {
  using Fn = void(const char*, const char*, const int*, const int*, const int*, const T*, const T*, const int*,
                  const T*, const int*, const T*, T*, const int*, flen, flen);
  static Fn* const vendor = vendor_function<Fn>(fortran_name<T>("gemm"));
  const int M = *m, N = *n, K = *k;
  const int nrowa = lsame(ta, 'N') ? M : K, nrowb = lsame(tb, 'N') ? K : N;
  int pos = 0;
  if (!is_trans(ta)) pos = 1;
  else if (!is_trans(tb)) pos = 2;
  else if (M < 0) pos = 3;
  else if (N < 0) pos = 4;
  else if (K < 0) pos = 5;
  else if (*lda < max1(nrowa)) pos = 8;
  else if (*ldb < max1(nrowb)) pos = 10;
  else if (*ldc < max1(M)) pos = 13;
  if (pos) return report<T>("gemm", pos);
  if (*alpha == T(0) || !to_hetla<T>(Routine::Gemm, product(M, N, K)))
    return vendor_call(vendor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, flen{1}, flen{1});
  run_hetla<T>("gemm", nullptr,
               [&] { hetla::gemm<T>(to_op<T>(ta), to_op<T>(tb), M, N, K, *alpha, a, *lda, b, *ldb, *beta, c, *ldc); });
}

template <typename T>
void trsm(const char* side, const char* uplo, const char* ta, const char* diag, const int* m, const int* n,
          const T* alpha, const T* a, const int* lda, T* b, const int* ldb) {
  using Fn = void(const char*, const char*, const char*, const char*, const int*, const int*, const T*, const T*,
                  const int*, T*, const int*, flen, flen, flen, flen);
  static Fn* const vendor = vendor_function<Fn>(fortran_name<T>("trsm"));
  const int M = *m, N = *n;
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
  if (pos) return report<T>("trsm", pos);
  if (*alpha == T(0) || !to_hetla<T>(Routine::Trsm, left ? product(M, M, N) : product(M, N, N)))
    return vendor_call(vendor, side, uplo, ta, diag, m, n, alpha, a, lda, b, ldb, flen{1}, flen{1}, flen{1}, flen{1});
  run_hetla<T>("trsm", nullptr, [&] {
    hetla::trsm<T>(to_side(side), to_uplo(uplo), to_op<T>(ta), to_diag(diag), M, N, *alpha, a, *lda, b, *ldb);
  });
}

/// syrk (conj = false) and herk (conj = true): the same checks but for the
/// transposes taken (syrk: N, T and, for real types, C; herk: N, C).
template <typename T, bool conj, typename S>
void rank_k(const char* uplo, const char* trans, const int* n, const int* k, const S* alpha, const T* a, const int* lda,
            const S* beta, T* c, const int* ldc) {
  using Fn = void(const char*, const char*, const int*, const int*, const S*, const T*, const int*, const S*, T*,
                  const int*, flen, flen);
  const char* base = conj ? "herk" : "syrk";
  static Fn* const vendor = vendor_function<Fn>(fortran_name<T>(base));
  const int N = *n, K = *k;
  const bool trans_ok =
      lsame(trans, 'N') || (conj ? lsame(trans, 'C') : lsame(trans, 'T') || (!is_complex_v<T> && lsame(trans, 'C')));
  int pos = 0;
  if (!is_uplo(uplo)) pos = 1;
  else if (!trans_ok) pos = 2;
  else if (N < 0) pos = 3;
  else if (K < 0) pos = 4;
  else if (*lda < max1(lsame(trans, 'N') ? N : K)) pos = 7;
  else if (*ldc < max1(N)) pos = 10;
  if (pos) return report<T>(base, pos);
  if (*alpha == S(0) || !to_hetla<T>(conj ? Routine::Herk : Routine::Syrk, product(N, N, K)))
    return vendor_call(vendor, uplo, trans, n, k, alpha, a, lda, beta, c, ldc, flen{1}, flen{1});
  run_hetla<T>(base, nullptr, [&] {
    if constexpr (conj) hetla::herk<T>(to_uplo(uplo), to_op<T>(trans), N, K, *alpha, a, *lda, *beta, c, *ldc);
    else hetla::syrk<T>(to_uplo(uplo), to_op<T>(trans), N, K, *alpha, a, *lda, *beta, c, *ldc);
  });
}

}  // namespace
}  // namespace hetla::lapack

using hetla::lapack::flen;

#define HETLA_EXPORT_BLAS3(p, T)                                                                                     \
  HETLA_LAPACK_EXPORT void p##gemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k,        \
                                    const T* alpha, const T* a, const int* lda, const T* b, const int* ldb,          \
                                    const T* beta, T* c, const int* ldc, flen, flen) {                               \
    HETLA_LAPACK_CHECK_LETTER(p, T);                                                                                 \
    hetla::lapack::gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                                       \
  }                                                                                                                  \
  HETLA_LAPACK_EXPORT void p##trsm_(const char* side, const char* uplo, const char* ta, const char* diag,            \
                                    const int* m, const int* n, const T* alpha, const T* a, const int* lda, T* b,    \
                                    const int* ldb, flen, flen, flen, flen) {                                        \
    hetla::lapack::trsm(side, uplo, ta, diag, m, n, alpha, a, lda, b, ldb);                                          \
  }                                                                                                                  \
  HETLA_LAPACK_EXPORT void p##syrk_(const char* uplo, const char* trans, const int* n, const int* k, const T* alpha, \
                                    const T* a, const int* lda, const T* beta, T* c, const int* ldc, flen, flen) {   \
    hetla::lapack::rank_k<T, false>(uplo, trans, n, k, alpha, a, lda, beta, c, ldc);                                 \
  }
HETLA_LAPACK_FOR_EACH_PRECISION(HETLA_EXPORT_BLAS3)
#undef HETLA_EXPORT_BLAS3

#define HETLA_EXPORT_HERK(p, T)                                                                       \
  HETLA_LAPACK_EXPORT void p##herk_(const char* uplo, const char* trans, const int* n, const int* k,  \
                                    const hetla::real_t<T>* alpha, const T* a, const int* lda,        \
                                    const hetla::real_t<T>* beta, T* c, const int* ldc, flen, flen) { \
    HETLA_LAPACK_CHECK_LETTER(p, T);                                                                  \
    hetla::lapack::rank_k<T, true>(uplo, trans, n, k, alpha, a, lda, beta, c, ldc);                   \
  }
HETLA_LAPACK_FOR_EACH_COMPLEX(HETLA_EXPORT_HERK)
#undef HETLA_EXPORT_HERK
