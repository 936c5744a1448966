// The vendor calls of the single-threaded small compositions
// (kernels/host/small_factor.hpp) for the Fortran names: through the explicit
// vendor table (vendor.hpp), never the global names, which may be ours.
#pragma once
#include <algorithm>
#include <climits>
#include <cstdint>

#include "kernels/host/small_factor.hpp"
#include "kernels/host/small_qr.hpp"
#include "lapack/fortran.hpp"

namespace hetla::lapack {

/// The vendor calls of small::potrf, small::getrf (kernels/host/small_factor.hpp),
/// small::geqrf and small::ungqr (kernels/host/small_qr.hpp) through
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
  int64_t getrf(int64_t m, int64_t n, T* A, int64_t lda, I* ipiv) const {
    static const Vendor<void(const I*, const I*, T*, const I*, I*, I*)> f(routine_name<T>("getrf"));
    const I M = static_cast<I>(m), N = static_cast<I>(n), LDA = static_cast<I>(lda);
    I info = 0;
    f(&M, &N, A, &LDA, Pivots<I>{ipiv, std::min(m, n)}, &info);
    return info;
  }
  void geqr2(int64_t m, int64_t n, T* A, int64_t lda, T* tau, T* work) const {
    static const Vendor<void(const I*, const I*, T*, const I*, T*, T*, I*)> f(routine_name<T>("geqr2"));
    const I M = static_cast<I>(m), N = static_cast<I>(n), LDA = static_cast<I>(lda);
    I info = 0;
    f(&M, &N, A, &LDA, tau, work, &info);
  }
  void ungqr(int64_t m, int64_t n, int64_t k, T* A, int64_t lda, const T* tau, T* work) const {
    static const Vendor<void(const I*, const I*, const I*, T*, const I*, const T*, T*, const I*, I*)> f(
        routine_name<T>(is_complex_v<T> ? "ungqr" : "orgqr"));
    const I M = static_cast<I>(m), N = static_cast<I>(n), K = static_cast<I>(k), LDA = static_cast<I>(lda);
    const I lwork = static_cast<I>(std::max<int64_t>(n, 1));
    I info = 0;
    f(&M, &N, &K, A, &LDA, tau, work, &lwork, &info);
  }
};

/// Whether a call with leading dimension lda may take the composition: its
/// vendor calls take the sizes in 32 bits when only the LP64 vendor serves
/// an ILP64 name.
inline bool small_fits(int64_t lda) { return lda <= INT_MAX; }

}  // namespace hetla::lapack
