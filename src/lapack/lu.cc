// ?getrf, ?getrs, ?gesv with LAPACK's Fortran ABI. Arguments are checked
// here, as LAPACK 3.11 does and in its order, before a call goes to the
// vendor or to hetla, so every report is LAPACK's whatever the vendor does
// (OpenBLAS's getrs calls xerbla_ but leaves info unset). Pivots are INTEGER
// (int or int64_t) in Fortran and int64_t in hetla's C++ API, so they are converted.
#include <cstdint>
#include <vector>

#include "hetla/lu.hpp"
#include "kernels/host/small_lu.hpp"
#include "lapack/fortran.hpp"
#include "lapack/small_kernels.hpp"

namespace hetla::lapack {
namespace {

template <typename I> void copy_out(const std::vector<int64_t>& p, I* ipiv) {
  for (std::size_t i = 0; i < p.size(); ++i) ipiv[i] = static_cast<I>(p[i]);
}

template <typename T, typename I> void getrf(const I* m, const I* n, T* a, const I* lda, I* ipiv, I* info) {
  static const Vendor<void(const I*, const I*, T*, const I*, I*, I*)> vendor(routine_name<T>("getrf"));
  const I M = *m, N = *n;
  int pos = 0;
  if (M < 0) pos = 1;
  else if (N < 0) pos = 2;
  else if (*lda < max1(M)) pos = 4;
  if (pos) return report<T>("getrf", pos, info);
  if (!to_hetla<T>(Routine::Getrf, product(M, N, std::min(M, N)))) {
    // Real matrices up to kOwnGetrfMax rows and columns: hetla's own kernel,
    // which shares nothing with other callers (small_lu.hpp); the pivots in
    // the caller's INTEGER.
    if constexpr (!is_complex_v<T>) {
      if (small::getrf_own<T>(M, N)) {
        *info = static_cast<I>(small::getrf_own(M, N, a, *lda, ipiv));
        return;
      }
    }
    // Where the vendor's getrf would start its thread pool while another call
    // may use it: the single-threaded composition.
    const small::ThreadedSizeCall counted(small::getrf_composable(M, N) && small_fits(*lda));
    if (counted.concurrent()) {
      const rt::ReentryScope inside;
      *info = static_cast<I>(small::getrf(VendorKernels<T, I>{}, M, N, a, *lda, ipiv));
      return;
    }
    if (vendor(m, n, a, lda, Pivots<I>{ipiv, std::min(M, N)}, info)) return;
  }
  run_hetla<T, I>("getrf", info, [&] {
    std::vector<int64_t> p(static_cast<std::size_t>(std::min(M, N)));
    *info = static_cast<I>(hetla::getrf<T>(M, N, a, *lda, p.data()));
    copy_out(p, ipiv);
  });
}

template <typename T, typename I>
void getrs(const char* trans, const I* n, const I* nrhs, const T* a, const I* lda, const I* ipiv, T* b, const I* ldb,
           I* info) {
  static const Vendor<void(const char*, const I*, const I*, const T*, const I*, const I*, T*, const I*, I*, flen)>
      vendor(routine_name<T>("getrs"));
  const I N = *n;
  int pos = 0;
  if (!is_trans(trans)) pos = 1;
  else if (N < 0) pos = 2;
  else if (*nrhs < 0) pos = 3;
  else if (*lda < max1(N)) pos = 5;
  else if (*ldb < max1(N)) pos = 8;
  if (pos) return report<T>("getrs", pos, info);
  if (!to_hetla<T>(Routine::Getrs, product(N, N, *nrhs)) &&
      vendor(trans, n, nrhs, a, lda, Pivots<const I>{ipiv, N}, b, ldb, info, flen{1}))
    return;
  run_hetla<T, I>("getrs", info, [&] {
    const std::vector<int64_t> p(ipiv, ipiv + N);
    hetla::getrs<T>(to_op<T>(trans), N, *nrhs, a, *lda, p.data(), b, *ldb);
    *info = 0;
  });
}

template <typename T, typename I>
void gesv(const I* n, const I* nrhs, T* a, const I* lda, I* ipiv, T* b, const I* ldb, I* info) {
  static const Vendor<void(const I*, const I*, T*, const I*, I*, T*, const I*, I*)> vendor(routine_name<T>("gesv"));
  const I N = *n;
  int pos = 0;
  if (N < 0) pos = 1;
  else if (*nrhs < 0) pos = 2;
  else if (*lda < max1(N)) pos = 4;
  else if (*ldb < max1(N)) pos = 7;
  if (pos) return report<T>("gesv", pos, info);
  if ((!to_hetla<T>(Routine::Gesv, product(N, N, std::max(N, *nrhs))) || *nrhs == 0) &&
      vendor(n, nrhs, a, lda, Pivots<I>{ipiv, N}, b, ldb, info))
    return;
  run_hetla<T, I>("gesv", info, [&] {
    std::vector<int64_t> p(static_cast<std::size_t>(N));
    *info = static_cast<I>(hetla::gesv<T>(N, *nrhs, a, *lda, p.data(), b, *ldb));
    copy_out(p, ipiv);
  });
}

}  // namespace
}  // namespace hetla::lapack

#define HETLA_EXPORT_LU(p, T, I, suffix)                                                                               \
  HETLA_LAPACK_EXPORT void p##getrf##suffix(const I* m, const I* n, T* a, const I* lda, I* ipiv, I* info) {            \
    HETLA_LAPACK_CHECK_LETTER(p, T);                                                                                   \
    hetla::lapack::getrf(m, n, a, lda, ipiv, info);                                                                    \
  }                                                                                                                    \
  HETLA_LAPACK_EXPORT void p##getrs##suffix(const char* trans, const I* n, const I* nrhs, const T* a, const I* lda,    \
                                            const I* ipiv, T* b, const I* ldb, I* info, flen) {                        \
    hetla::lapack::getrs(trans, n, nrhs, a, lda, ipiv, b, ldb, info);                                                  \
  }                                                                                                                    \
  HETLA_LAPACK_EXPORT void p##gesv##suffix(const I* n, const I* nrhs, T* a, const I* lda, I* ipiv, T* b, const I* ldb, \
                                           I* info) {                                                                  \
    hetla::lapack::gesv(n, nrhs, a, lda, ipiv, b, ldb, info);                                                          \
  }
using hetla::lapack::flen;
HETLA_LAPACK_FOR_EACH_PRECISION(HETLA_EXPORT_LU)
#undef HETLA_EXPORT_LU
