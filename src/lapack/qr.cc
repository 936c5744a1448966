// ?geqrf, ?ormqr/?unmqr, ?orgqr/?ungqr, ?gels with LAPACK's Fortran ABI.
// Arguments are checked here, as LAPACK 3.11 does and in its order, before a
// call goes to the vendor or to hetla. hetla needs no workspace of the caller's: a workspace query
// (lwork = -1) goes to the vendor, so it answers what the vendor would accept,
// and after a hetla call work(1) holds that same optimal size, as LAPACK's.
#include "hetla/qr.hpp"
#include "lapack/fortran.hpp"

namespace hetla::lapack {
namespace {

/// The name of the orthogonal (real) or unitary (complex) routine.
template <typename T> const char* q_name(const char* real, const char* complex) {
  return is_complex_v<T> ? complex : real;
}
/// trans of ormqr/gels: 'N' or 'T' for real types, 'N' or 'C' for complex ones.
template <typename T> bool is_qr_trans(const char* c) { return lsame(c, 'N') || lsame(c, is_complex_v<T> ? 'C' : 'T'); }
/// The vendor's answer to a workspace query, run by `query(&lwork_out)`.
template <typename T, typename Q> T optimal_work(Q&& query) {
  T w{};
  query(&w);
  return w;
}

template <typename T>
void geqrf(const int* m, const int* n, T* a, const int* lda, T* tau, T* work, const int* lwork, int* info) {
  using Fn = void(const int*, const int*, T*, const int*, T*, T*, const int*, int*);
  static Fn* const vendor = vendor_function<Fn>(fortran_name<T>("geqrf"));
  const int M = *m, N = *n;
  int pos = 0;
  if (M < 0) pos = 1;
  else if (N < 0) pos = 2;
  else if (*lda < max1(M)) pos = 4;
  else if (*lwork < max1(N) && *lwork != -1) pos = 7;
  if (pos) return report<T>("geqrf", pos, info);
  if (*lwork == -1 || !to_hetla<T>(Routine::Geqrf, product(M, N, std::min(M, N))))
    return vendor_call(vendor, m, n, a, lda, tau, work, lwork, info);
  run_hetla<T>("geqrf", info, [&] {
    hetla::geqrf<T>(M, N, a, *lda, tau);
    *info = 0;
    const int query = -1;
    int qinfo = 0;
    work[0] = optimal_work<T>([&](T* w) { vendor_call(vendor, m, n, a, lda, tau, w, &query, &qinfo); });
  });
}

template <typename T>
void unmqr(const char* side, const char* trans, const int* m, const int* n, const int* k, const T* a, const int* lda,
           const T* tau, T* c, const int* ldc, T* work, const int* lwork, int* info) {
  using Fn = void(const char*, const char*, const int*, const int*, const int*, const T*, const int*, const T*, T*,
                  const int*, T*, const int*, int*, flen, flen);
  const char* base = q_name<T>("ormqr", "unmqr");
  static Fn* const vendor = vendor_function<Fn>(fortran_name<T>(base));
  const int M = *m, N = *n, K = *k;
  const bool left = lsame(side, 'L');
  const int nq = left ? M : N, nw = left ? max1(N) : max1(M);
  int pos = 0;
  if (!left && !lsame(side, 'R')) pos = 1;
  else if (!is_qr_trans<T>(trans)) pos = 2;
  else if (M < 0) pos = 3;
  else if (N < 0) pos = 4;
  else if (K < 0 || K > nq) pos = 5;
  else if (*lda < max1(nq)) pos = 7;
  else if (*ldc < max1(M)) pos = 10;
  else if (*lwork < nw && *lwork != -1) pos = 12;
  if (pos) return report<T>(base, pos, info);
  if (*lwork == -1 || !to_hetla<T>(Routine::Unmqr, product(M, N, K)))
    return vendor_call(vendor, side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork, info, flen{1}, flen{1});
  run_hetla<T>(base, info, [&] {
    hetla::unmqr<T>(to_side(side), to_op<T>(trans), M, N, K, a, *lda, tau, c, *ldc);
    *info = 0;
    const int query = -1;
    int qinfo = 0;
    work[0] = optimal_work<T>([&](T* w) {
      vendor_call(vendor, side, trans, m, n, k, a, lda, tau, c, ldc, w, &query, &qinfo, flen{1}, flen{1});
    });
  });
}

template <typename T>
void ungqr(const int* m, const int* n, const int* k, T* a, const int* lda, const T* tau, T* work, const int* lwork,
           int* info) {
  using Fn = void(const int*, const int*, const int*, T*, const int*, const T*, T*, const int*, int*);
  const char* base = q_name<T>("orgqr", "ungqr");
  static Fn* const vendor = vendor_function<Fn>(fortran_name<T>(base));
  const int M = *m, N = *n, K = *k;
  int pos = 0;
  if (M < 0) pos = 1;
  else if (N < 0 || N > M) pos = 2;
  else if (K < 0 || K > N) pos = 3;
  else if (*lda < max1(M)) pos = 5;
  else if (*lwork < max1(N) && *lwork != -1) pos = 8;
  if (pos) return report<T>(base, pos, info);
  if (*lwork == -1 || !to_hetla<T>(Routine::Ungqr, product(M, N, K)))
    return vendor_call(vendor, m, n, k, a, lda, tau, work, lwork, info);
  run_hetla<T>(base, info, [&] {
    hetla::ungqr<T>(M, N, K, a, *lda, tau);
    *info = 0;
    const int query = -1;
    int qinfo = 0;
    work[0] = optimal_work<T>([&](T* w) { vendor_call(vendor, m, n, k, a, lda, tau, w, &query, &qinfo); });
  });
}

template <typename T>
void gels(const char* trans, const int* m, const int* n, const int* nrhs, T* a, const int* lda, T* b, const int* ldb,
          T* work, const int* lwork, int* info) {
  using Fn =
      void(const char*, const int*, const int*, const int*, T*, const int*, T*, const int*, T*, const int*, int*, flen);
  static Fn* const vendor = vendor_function<Fn>(fortran_name<T>("gels"));
  const int M = *m, N = *n, mn = std::min(M, N);
  int pos = 0;
  if (!is_qr_trans<T>(trans)) pos = 1;
  else if (M < 0) pos = 2;
  else if (N < 0) pos = 3;
  else if (*nrhs < 0) pos = 4;
  else if (*lda < max1(M)) pos = 6;
  else if (*ldb < std::max({1, M, N})) pos = 8;
  else if (*lwork < std::max(1, mn + std::max(mn, *nrhs)) && *lwork != -1) pos = 10;
  if (pos) return report<T>("gels", pos, info);
  if (*lwork == -1 || *nrhs == 0 || !to_hetla<T>(Routine::Gels, product(M, N, mn)))
    return vendor_call(vendor, trans, m, n, nrhs, a, lda, b, ldb, work, lwork, info, flen{1});
  run_hetla<T>("gels", info, [&] {
    *info = static_cast<int>(hetla::gels<T>(to_op<T>(trans), M, N, *nrhs, a, *lda, b, *ldb));
    const int query = -1;
    int qinfo = 0;
    work[0] = optimal_work<T>(
        [&](T* w) { vendor_call(vendor, trans, m, n, nrhs, a, lda, b, ldb, w, &query, &qinfo, flen{1}); });
  });
}

}  // namespace
}  // namespace hetla::lapack

using hetla::lapack::flen;

#define HETLA_EXPORT_QR(p, T)                                                                                   \
  HETLA_LAPACK_EXPORT void p##geqrf_(const int* m, const int* n, T* a, const int* lda, T* tau, T* work,         \
                                     const int* lwork, int* info) {                                             \
    HETLA_LAPACK_CHECK_LETTER(p, T);                                                                            \
    hetla::lapack::geqrf(m, n, a, lda, tau, work, lwork, info);                                                 \
  }                                                                                                             \
  HETLA_LAPACK_EXPORT void p##gels_(const char* trans, const int* m, const int* n, const int* nrhs, T* a,       \
                                    const int* lda, T* b, const int* ldb, T* work, const int* lwork, int* info, \
                                    flen) {                                                                     \
    hetla::lapack::gels(trans, m, n, nrhs, a, lda, b, ldb, work, lwork, info);                                  \
  }
HETLA_LAPACK_FOR_EACH_PRECISION(HETLA_EXPORT_QR)
#undef HETLA_EXPORT_QR

// ?ormqr / ?orgqr for real types, ?unmqr / ?ungqr for complex ones.
#define HETLA_EXPORT_Q(p, T, mqr, gqr)                                                                              \
  HETLA_LAPACK_EXPORT void p##mqr##_(const char* side, const char* trans, const int* m, const int* n, const int* k, \
                                     const T* a, const int* lda, const T* tau, T* c, const int* ldc, T* work,       \
                                     const int* lwork, int* info, flen, flen) {                                     \
    HETLA_LAPACK_CHECK_LETTER(p, T);                                                                                \
    hetla::lapack::unmqr(side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork, info);                             \
  }                                                                                                                 \
  HETLA_LAPACK_EXPORT void p##gqr##_(const int* m, const int* n, const int* k, T* a, const int* lda, const T* tau,  \
                                     T* work, const int* lwork, int* info) {                                        \
    hetla::lapack::ungqr(m, n, k, a, lda, tau, work, lwork, info);                                                  \
  }
#define HETLA_EXPORT_REAL_Q(p, T) HETLA_EXPORT_Q(p, T, ormqr, orgqr)
#define HETLA_EXPORT_COMPLEX_Q(p, T) HETLA_EXPORT_Q(p, T, unmqr, ungqr)
HETLA_LAPACK_FOR_EACH_REAL(HETLA_EXPORT_REAL_Q)
HETLA_LAPACK_FOR_EACH_COMPLEX(HETLA_EXPORT_COMPLEX_Q)
#undef HETLA_EXPORT_REAL_Q
#undef HETLA_EXPORT_COMPLEX_Q
#undef HETLA_EXPORT_Q
