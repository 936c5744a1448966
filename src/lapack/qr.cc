// ?geqrf, ?ormqr/?unmqr, ?orgqr/?ungqr, ?gels with LAPACK's Fortran ABI.
// Arguments are checked here, as LAPACK 3.11 does and in its order, before a
// call goes to the vendor or to hetla. hetla needs no workspace of the caller's: a workspace query
// (lwork = -1) goes to the vendor, so it answers what the vendor would accept,
// and after a hetla call work(1) holds that same optimal size, as LAPACK's
// (the minimum workspace when no vendor can answer: an ILP64 call past 32
// bits without an ILP64 vendor).
#include <new>

#include "hetla/qr.hpp"
#include "kernels/host/small_householder.hpp"
#include "lapack/fortran.hpp"
#include "lapack/small_kernels.hpp"

namespace hetla::lapack {
namespace {

/// The name of the orthogonal (real) or unitary (complex) routine.
template <typename T> const char* q_name(const char* real, const char* complex) {
  return is_complex_v<T> ? complex : real;
}
/// trans of ormqr/gels: 'N' or 'T' for real types, 'N' or 'C' for complex ones.
template <typename T> bool is_qr_trans(const char* c) { return lsame(c, 'N') || lsame(c, is_complex_v<T> ? 'C' : 'T'); }
/// The vendor's answer to a workspace query, run by `query(&lwork_out)`
/// (false: the vendor could not take it), else `minimum`.
template <typename T, typename I, typename Q> T optimal_work(I minimum, Q&& query) {
  T w{};
  return query(&w) ? w : T(static_cast<real_t<T>>(minimum));
}
/// Runs a single-threaded composition of small_qr.hpp inside hetla (its
/// vendor calls stay the vendor's); false when its workspace could not be
/// allocated, which it does before it touches the matrix: the caller then
/// takes the vendor's own path, which needs none of it, and no exception
/// reaches the Fortran caller.
template <typename F> bool composed(F&& run) {
  try {
    const rt::ReentryScope inside;
    run();
    return true;
  } catch (const std::bad_alloc&) {
    return false;
  }
}
/// A workspace query no vendor can answer: the minimum workspace.
template <typename T, typename I> void answer_query(T* work, I minimum, I* info) {
  work[0] = T(static_cast<real_t<T>>(minimum));
  *info = 0;
}

/// The composition's vendor calls with hetla's own kernel for its panels
/// (as inline_geqrf).
template <typename T, typename I> struct OwnPanelKernels : VendorKernels<T, I> {
  void geqr2(int64_t m, int64_t n, T* A, int64_t lda, T* tau, T*) const { small::geqrf_own(m, n, A, lda, tau); }
};

template <typename T, typename I>
void geqrf(const I* m, const I* n, T* a, const I* lda, T* tau, T* work, const I* lwork, I* info) {
  static const Vendor<void(const I*, const I*, T*, const I*, T*, T*, const I*, I*)> vendor(routine_name<T>("geqrf"));
  const I M = *m, N = *n;
  int pos = 0;
  if (M < 0) pos = 1;
  else if (N < 0) pos = 2;
  else if (*lda < max1(M)) pos = 4;
  else if (*lwork < max1(N) && *lwork != -1) pos = 7;
  if (pos) return report<T>("geqrf", pos, info);
  const bool below = *lwork != -1 && !to_hetla<T>(Routine::Geqrf, product(M, N, std::min(M, N)));
  if (below && small::geqrf_own(M, N) && !small::geqrf_composed<T>(M, N)) {
    // hetla's own kernel (small_householder.hpp), no workspace; work(1) as
    // the vendor's unblocked geqrf leaves it (LAPACK's iws: n, or 1 when
    // min(m, n) = 0).
    small::geqrf_own(M, N, a, *lda, tau);
    *info = 0;
    work[0] = T(static_cast<real_t<T>>(std::min(M, N) == 0 ? I(1) : N));
    return;
  }
  if (below && small::geqrf_composed<T>(M, N) && small_fits(*lda) &&
      composed([&] {
        if (small::geqrf_own(M, N)) small::geqrf(OwnPanelKernels<T, I>{}, M, N, a, *lda, tau);
        else small::geqrf(VendorKernels<T, I>{}, M, N, a, *lda, tau);
      })) {
    // Where the vendor's geqr2 would start its thread pool: the
    // single-threaded composition (small_qr.hpp), every vendor call in
    // 32-bit sizes; work(1) as the vendor's, its answer to a query.
    *info = 0;
    const I query = -1;
    I qinfo = 0;
    work[0] = optimal_work<T>(max1(N), [&](T* w) { return vendor(m, n, a, lda, tau, w, &query, &qinfo); });
    return;
  }
  if ((*lwork == -1 || below) && vendor(m, n, a, lda, tau, work, lwork, info)) return;
  if (*lwork == -1) return answer_query(work, max1(N), info);
  run_hetla<T, I>("geqrf", info, [&] {
    hetla::geqrf<T>(M, N, a, *lda, tau);
    *info = 0;
    const I query = -1;
    I qinfo = 0;
    work[0] = optimal_work<T>(max1(N), [&](T* w) { return vendor(m, n, a, lda, tau, w, &query, &qinfo); });
  });
}

template <typename T, typename I>
void unmqr(const char* side, const char* trans, const I* m, const I* n, const I* k, const T* a, const I* lda,
           const T* tau, T* c, const I* ldc, T* work, const I* lwork, I* info) {
  const char* base = q_name<T>("ormqr", "unmqr");
  static const Vendor<void(const char*, const char*, const I*, const I*, const I*, const T*, const I*, const T*, T*,
                           const I*, T*, const I*, I*, flen, flen)>
      vendor(routine_name<T>(base));
  const I M = *m, N = *n, K = *k;
  const bool left = lsame(side, 'L');
  const I nq = left ? M : N, nw = left ? max1(N) : max1(M);
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
  if ((*lwork == -1 || !to_hetla<T>(Routine::Unmqr, product(M, N, K))) &&
      vendor(side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork, info, flen{1}, flen{1}))
    return;
  if (*lwork == -1) return answer_query(work, nw, info);
  run_hetla<T, I>(base, info, [&] {
    hetla::unmqr<T>(to_side(side), to_op<T>(trans), M, N, K, a, *lda, tau, c, *ldc);
    *info = 0;
    const I query = -1;
    I qinfo = 0;
    work[0] = optimal_work<T>(nw, [&](T* w) {
      return vendor(side, trans, m, n, k, a, lda, tau, c, ldc, w, &query, &qinfo, flen{1}, flen{1});
    });
  });
}

template <typename T, typename I>
void ungqr(const I* m, const I* n, const I* k, T* a, const I* lda, const T* tau, T* work, const I* lwork, I* info) {
  const char* base = q_name<T>("orgqr", "ungqr");
  static const Vendor<void(const I*, const I*, const I*, T*, const I*, const T*, T*, const I*, I*)> vendor(
      routine_name<T>(base));
  const I M = *m, N = *n, K = *k;
  int pos = 0;
  if (M < 0) pos = 1;
  else if (N < 0 || N > M) pos = 2;
  else if (K < 0 || K > N) pos = 3;
  else if (*lda < max1(M)) pos = 5;
  else if (*lwork < max1(N) && *lwork != -1) pos = 8;
  if (pos) return report<T>(base, pos, info);
  const bool below = *lwork != -1 && !to_hetla<T>(Routine::Ungqr, product(M, N, K));
  if (below && small::ungqr_composed<T>(M, N, K) && small_fits(*lda) &&
      composed([&] { small::ungqr(VendorKernels<T, I>{}, M, N, a, *lda, tau); })) {
    // As geqrf: the single-threaded composition, work(1) the vendor's answer to a query.
    *info = 0;
    const I query = -1;
    I qinfo = 0;
    work[0] = optimal_work<T>(max1(N), [&](T* w) { return vendor(m, n, k, a, lda, tau, w, &query, &qinfo); });
    return;
  }
  if ((*lwork == -1 || below) && vendor(m, n, k, a, lda, tau, work, lwork, info)) return;
  if (*lwork == -1) return answer_query(work, max1(N), info);
  run_hetla<T, I>(base, info, [&] {
    hetla::ungqr<T>(M, N, K, a, *lda, tau);
    *info = 0;
    const I query = -1;
    I qinfo = 0;
    work[0] = optimal_work<T>(max1(N), [&](T* w) { return vendor(m, n, k, a, lda, tau, w, &query, &qinfo); });
  });
}

template <typename T, typename I>
void gels(const char* trans, const I* m, const I* n, const I* nrhs, T* a, const I* lda, T* b, const I* ldb, T* work,
          const I* lwork, I* info) {
  static const Vendor<void(const char*, const I*, const I*, const I*, T*, const I*, T*, const I*, T*, const I*, I*,
                           flen)>
      vendor(routine_name<T>("gels"));
  const I M = *m, N = *n, mn = std::min(M, N);
  const I minimum = std::max<I>(1, mn + std::max(mn, *nrhs));
  int pos = 0;
  if (!is_qr_trans<T>(trans)) pos = 1;
  else if (M < 0) pos = 2;
  else if (N < 0) pos = 3;
  else if (*nrhs < 0) pos = 4;
  else if (*lda < max1(M)) pos = 6;
  else if (*ldb < std::max<I>({1, M, N})) pos = 8;
  else if (*lwork < minimum && *lwork != -1) pos = 10;
  if (pos) return report<T>("gels", pos, info);
  if ((*lwork == -1 || *nrhs == 0 || !to_hetla<T>(Routine::Gels, product(M, N, mn))) &&
      vendor(trans, m, n, nrhs, a, lda, b, ldb, work, lwork, info, flen{1}))
    return;
  if (*lwork == -1) return answer_query(work, minimum, info);
  run_hetla<T, I>("gels", info, [&] {
    *info = static_cast<I>(hetla::gels<T>(to_op<T>(trans), M, N, *nrhs, a, *lda, b, *ldb));
    const I query = -1;
    I qinfo = 0;
    work[0] = optimal_work<T>(
        minimum, [&](T* w) { return vendor(trans, m, n, nrhs, a, lda, b, ldb, w, &query, &qinfo, flen{1}); });
  });
}

}  // namespace
}  // namespace hetla::lapack

using hetla::lapack::flen;

#define HETLA_EXPORT_QR(p, T, I, suffix)                                                                               \
  HETLA_LAPACK_EXPORT void p##geqrf##suffix(const I* m, const I* n, T* a, const I* lda, T* tau, T* work,               \
                                            const I* lwork, I* info) {                                                 \
    HETLA_LAPACK_CHECK_LETTER(p, T);                                                                                   \
    hetla::lapack::geqrf(m, n, a, lda, tau, work, lwork, info);                                                        \
  }                                                                                                                    \
  HETLA_LAPACK_EXPORT void p##gels##suffix(const char* trans, const I* m, const I* n, const I* nrhs, T* a,             \
                                           const I* lda, T* b, const I* ldb, T* work, const I* lwork, I* info, flen) { \
    hetla::lapack::gels(trans, m, n, nrhs, a, lda, b, ldb, work, lwork, info);                                         \
  }
HETLA_LAPACK_FOR_EACH_PRECISION(HETLA_EXPORT_QR)
#undef HETLA_EXPORT_QR

// ?ormqr / ?orgqr for real types, ?unmqr / ?ungqr for complex ones.
#define HETLA_EXPORT_Q(p, T, I, suffix, mqr, gqr)                                                                  \
  HETLA_LAPACK_EXPORT void p##mqr##suffix(const char* side, const char* trans, const I* m, const I* n, const I* k, \
                                          const T* a, const I* lda, const T* tau, T* c, const I* ldc, T* work,     \
                                          const I* lwork, I* info, flen, flen) {                                   \
    HETLA_LAPACK_CHECK_LETTER(p, T);                                                                               \
    hetla::lapack::unmqr(side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork, info);                            \
  }                                                                                                                \
  HETLA_LAPACK_EXPORT void p##gqr##suffix(const I* m, const I* n, const I* k, T* a, const I* lda, const T* tau,    \
                                          T* work, const I* lwork, I* info) {                                      \
    hetla::lapack::ungqr(m, n, k, a, lda, tau, work, lwork, info);                                                 \
  }
#define HETLA_EXPORT_REAL_Q(p, T, I, suffix) HETLA_EXPORT_Q(p, T, I, suffix, ormqr, orgqr)
#define HETLA_EXPORT_COMPLEX_Q(p, T, I, suffix) HETLA_EXPORT_Q(p, T, I, suffix, unmqr, ungqr)
HETLA_LAPACK_FOR_EACH_REAL(HETLA_EXPORT_REAL_Q)
HETLA_LAPACK_FOR_EACH_COMPLEX(HETLA_EXPORT_COMPLEX_Q)
#undef HETLA_EXPORT_REAL_Q
#undef HETLA_EXPORT_COMPLEX_Q
#undef HETLA_EXPORT_Q
