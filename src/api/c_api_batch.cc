// C API of the batched routines (include/hetla/batch.hpp): pointer arrays,
// int sizes and per-matrix int info. The return value is 0 or -i for an
// argument common to the batch (LAPACK numbering of the C signature); a
// matrix's own failure is only in its info[i].
#include <algorithm>
#include <cstdint>
#include <vector>

#include "api/c_api_util.hpp"
#include "hetla/hetla.hpp"

namespace {
using hetla::capi::guarded;

/// The C++ per-matrix info (int64_t) copied out to the caller's ints.
struct Info {
  std::vector<int64_t> v;
  int* out;
  Info(int count, int* info) : v(info ? static_cast<std::size_t>(std::max(count, 0)) : 0), out(info) {}
  int64_t* data() { return out ? v.data() : nullptr; }
  void copy_out() {
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = static_cast<int>(v[i]);
  }
};

template <typename T> int potrf_batched(char uplo, int n, T* const* A, int lda, int count, int* info) {
  return guarded([&] {
    Info I(count, info);
    hetla::batch::potrf<T>(hetla::capi::to_uplo(uplo), n, A, lda, count, I.data());
    I.copy_out();
    return 0;
  });
}
template <typename T>
int potrf_strided_batched(char uplo, int n, T* A, int lda, long long stride, int count, int* info) {
  return guarded([&] {
    Info I(count, info);
    hetla::batch::potrf<T>(hetla::capi::to_uplo(uplo), n, A, lda, stride, count, I.data());
    I.copy_out();
    return 0;
  });
}
template <typename T> int getrf_batched(int m, int n, T* const* A, int lda, int* const* ipiv, int count, int* info) {
  return guarded([&] {
    Info I(count, info);
    const std::size_t k = static_cast<std::size_t>(std::max(0, std::min(m, n)));
    const std::size_t c = static_cast<std::size_t>(std::max(count, 0));
    std::vector<int64_t> piv(ipiv ? k * c : 0);
    std::vector<int64_t*> ptrs(ipiv ? c : 0);
    for (std::size_t i = 0; i < ptrs.size(); ++i) ptrs[i] = ipiv[i] ? piv.data() + i * k : nullptr;
    hetla::batch::getrf<T>(m, n, A, lda, ipiv ? ptrs.data() : nullptr, count, I.data());
    for (std::size_t i = 0; i < ptrs.size(); ++i)
      if (ipiv[i]) std::transform(ptrs[i], ptrs[i] + k, ipiv[i], [](int64_t p) { return static_cast<int>(p); });
    I.copy_out();
    return 0;
  });
}
template <typename T> int geqrf_batched(int m, int n, T* const* A, int lda, T* const* tau, int count, int* info) {
  return guarded([&] {
    Info I(count, info);
    hetla::batch::geqrf<T>(m, n, A, lda, tau, count, I.data());
    I.copy_out();
    return 0;
  });
}
template <typename T>
int gemm_batched(char ta, char tb, int m, int n, int k, T alpha, const T* const* A, int lda, const T* const* B, int ldb,
                 T beta, T* const* C, int ldc, int count, int* info) {
  return guarded([&] {
    Info I(count, info);
    hetla::batch::gemm<T>(hetla::capi::to_op(ta), hetla::capi::to_op(tb), m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                          count, I.data());
    I.copy_out();
    return 0;
  });
}
}  // namespace

#define HETLA_C_BATCH(p, T)                                                                                         \
  int hetla_##p##potrf_batched(char uplo, int n, T* const* A, int lda, int count, int* info) {                      \
    return potrf_batched(uplo, n, A, lda, count, info);                                                             \
  }                                                                                                                 \
  int hetla_##p##potrf_strided_batched(char uplo, int n, T* A, int lda, long long stride_a, int count, int* info) { \
    return potrf_strided_batched(uplo, n, A, lda, stride_a, count, info);                                           \
  }                                                                                                                 \
  int hetla_##p##getrf_batched(int m, int n, T* const* A, int lda, int* const* ipiv, int count, int* info) {        \
    return getrf_batched(m, n, A, lda, ipiv, count, info);                                                          \
  }                                                                                                                 \
  int hetla_##p##geqrf_batched(int m, int n, T* const* A, int lda, T* const* tau, int count, int* info) {           \
    return geqrf_batched(m, n, A, lda, tau, count, info);                                                           \
  }                                                                                                                 \
  int hetla_##p##gemm_batched(char ta, char tb, int m, int n, int k, T alpha, const T* const* A, int lda,           \
                              const T* const* B, int ldb, T beta, T* const* C, int ldc, int count, int* info) {     \
    return gemm_batched(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, count, info);                         \
  }

extern "C" {
HETLA_C_BATCH(s, float)
HETLA_C_BATCH(d, double)
HETLA_C_BATCH(c, hetla_complex_float)
HETLA_C_BATCH(z, hetla_complex_double)
}
#undef HETLA_C_BATCH
