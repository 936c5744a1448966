// Batched potrf, getrf, geqrf and gemm (include/hetla/batch.hpp): the
// arguments common to the batch are checked once, then one host task per
// host worker taking chunks of matrices (tasks/batch.hpp), or a plain loop in the caller's thread
// when the whole batch is below the routine's crossover. Pointer arrays and
// strided batches share one template through an accessor `at(i)`.
#include "hetla/batch.hpp"

#include <algorithm>
#include <atomic>
#include <limits>

#include "context/context.hpp"
#include "tasks/batch.hpp"
#include "tasks/inline_call.hpp"
#include "util/check_args.hpp"
#include "util/precision.hpp"

namespace hetla::batch {
namespace {

constexpr int64_t kIntMax = std::numeric_limits<lapack_int>::max();

/// Runs one(i) for every matrix: inline below the crossover (the sum of the
/// matrices' size products, as one call of that size), else as grouped tasks.
template <typename T, typename F>
void for_each_matrix(tune::Routine r, int64_t count, double product_each, double flops_each, F one) {
  if (count == 0) return;
  if (!tune::above_crossover<T>(r, product_each * static_cast<double>(count))) {
    for (int64_t i = 0; i < count; ++i) one(i);
    return;
  }
  detail::CallScope scope;
  rt::Runtime& rt = scope.rt();
  const int workers = rt.num_host_workers();
  std::atomic<int64_t> next{0};
  tile::batch_tasks(rt, workers, count, tile::batch_chunk_size(count, workers), &next, flops_each, one);
  rt.wait_all();
}

/// Checks of every batched call: count >= 0 and, with matrices, the info array.
void check_batch(int64_t count, int count_pos, const int64_t* info, const std::string& name) {
  detail::require(count >= 0, count_pos, name, "count < 0");
  detail::require(count == 0 || info != nullptr, count_pos + 1, name, "info is null");
}

template <typename T, typename At>
void potrf_core(Uplo uplo, int64_t n, int64_t lda, int64_t count, int64_t* info, At at, int a_pos) {
  if (n == 0) return std::fill(info, info + count, int64_t(0));
  const double n3 = static_cast<double>(n) * n * n;
  for_each_matrix<T>(tune::Routine::Potrf, count, n3, n3 / 3, [=](int64_t i) {
    T* a = at(i);
    info[i] = a ? tile::inline_potrf(uplo, n, a, lda) : -a_pos;
  });
}

template <typename T, typename At, typename Piv>
void getrf_core(int64_t m, int64_t n, int64_t lda, int64_t count, int64_t* info, At at, Piv piv, int a_pos,
                int piv_pos) {
  if (m == 0 || n == 0) return std::fill(info, info + count, int64_t(0));
  const double p = static_cast<double>(m) * n * std::min(m, n);
  for_each_matrix<T>(tune::Routine::Getrf, count, p, p * 2 / 3, [=](int64_t i) {
    T* a = at(i);
    int64_t* ip = piv(i);
    info[i] = !a ? -a_pos : !ip ? -piv_pos : tile::inline_getrf(m, n, a, lda, ip);
  });
}

template <typename T, typename At, typename Tau>
void geqrf_core(int64_t m, int64_t n, int64_t lda, int64_t count, int64_t* info, At at, Tau tau_at, int a_pos,
                int tau_pos) {
  if (m == 0 || n == 0) return std::fill(info, info + count, int64_t(0));
  const double p = static_cast<double>(m) * n * std::min(m, n);
  for_each_matrix<T>(tune::Routine::Geqrf, count, p, p * 2, [=](int64_t i) {
    T* a = at(i);
    T* tau = tau_at(i);
    info[i] = !a ? -a_pos : !tau ? -tau_pos : 0;
    if (info[i] == 0) tile::inline_geqrf(m, n, a, lda, tau);
  });
}

/// gemm's checks: LAPACK xGEMM's positions, shifted in the strided overload
/// by the stride arguments after A and B.
template <typename T>
void check_gemm(Op ta, Op tb, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc, bool strided,
                const std::string& name) {
  detail::require(ta == Op::NoTrans || ta == Op::Trans || ta == Op::ConjTrans, 1, name, "invalid transa");
  detail::require(tb == Op::NoTrans || tb == Op::Trans || tb == Op::ConjTrans, 2, name, "invalid transb");
  detail::require(m >= 0 && m <= kIntMax, 3, name, "m < 0 or past LAPACK's int");
  detail::require(n >= 0 && n <= kIntMax, 4, name, "n < 0 or past LAPACK's int");
  detail::require(k >= 0 && k <= kIntMax, 5, name, "k < 0 or past LAPACK's int");
  const int s = strided ? 1 : 0;
  detail::check_ld(lda, ta == Op::NoTrans ? m : k, 8, name, "lda");
  detail::check_ld(ldb, tb == Op::NoTrans ? k : n, 10 + s, name, "ldb");
  detail::check_ld(ldc, m, 13 + 2 * s, name, "ldc");
}

template <typename T, typename AtA, typename AtB, typename AtC>
void gemm_core(Op ta, Op tb, int64_t m, int64_t n, int64_t k, T alpha, int64_t lda, int64_t ldb, T beta, int64_t ldc,
               int64_t count, int64_t* info, AtA at_a, AtB at_b, AtC at_c, const int pos[3]) {
  const double p = static_cast<double>(m) * n * k;
  const int pa = pos[0], pb = pos[1], pc = pos[2];
  for_each_matrix<T>(tune::Routine::Gemm, count, p, 2 * p, [=](int64_t i) {
    const T* a = at_a(i);
    const T* b = at_b(i);
    T* c = at_c(i);
    info[i] = (!a && k > 0 && m > 0) ? -pa : (!b && k > 0 && n > 0) ? -pb : (!c && m > 0 && n > 0) ? -pc : 0;
    if (info[i] == 0 && m > 0 && n > 0) tile::inline_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  });
}

/// n, lda and a size past LAPACK's int are argument errors (the vendor takes int).
void check_int(int64_t v, int pos, const std::string& name, const char* what) {
  detail::require(v <= kIntMax, pos, name, std::string(what) + " past LAPACK's int");
}

}  // namespace

template <typename T> void potrf(Uplo uplo, int64_t n, T* const* A, int64_t lda, int64_t count, int64_t* info) {
  const auto name = detail::routine_name<T>("potrf_batched");
  detail::check_uplo(uplo, 1, name);
  detail::require(n >= 0, 2, name, "n < 0");
  check_int(n, 2, name, "n");
  detail::require(count == 0 || A != nullptr, 3, name, "A is null");
  detail::check_ld(lda, n, 4, name, "lda");
  check_int(lda, 4, name, "lda");
  check_batch(count, 5, info, name);
  potrf_core<T>(
      uplo, n, lda, count, info, [A](int64_t i) { return A[i]; }, 3);
}

template <typename T>
void potrf(Uplo uplo, int64_t n, T* A, int64_t lda, int64_t stride_a, int64_t count, int64_t* info) {
  const auto name = detail::routine_name<T>("potrf_strided_batched");
  detail::check_uplo(uplo, 1, name);
  detail::require(n >= 0, 2, name, "n < 0");
  check_int(n, 2, name, "n");
  detail::require(count == 0 || n == 0 || A != nullptr, 3, name, "A is null");
  detail::check_ld(lda, n, 4, name, "lda");
  check_int(lda, 4, name, "lda");
  detail::require(stride_a >= lda * n, 5, name, "stride_a < lda * n");
  check_batch(count, 6, info, name);
  potrf_core<T>(
      uplo, n, lda, count, info, [=](int64_t i) { return A + i * stride_a; }, 3);
}

template <typename T>
void getrf(int64_t m, int64_t n, T* const* A, int64_t lda, int64_t* const* ipiv, int64_t count, int64_t* info) {
  const auto name = detail::routine_name<T>("getrf_batched");
  detail::require(m >= 0, 1, name, "m < 0");
  check_int(m, 1, name, "m");
  detail::require(n >= 0, 2, name, "n < 0");
  check_int(n, 2, name, "n");
  detail::require(count == 0 || A != nullptr, 3, name, "A is null");
  detail::check_ld(lda, m, 4, name, "lda");
  check_int(lda, 4, name, "lda");
  detail::require(count == 0 || ipiv != nullptr, 5, name, "ipiv is null");
  check_batch(count, 6, info, name);
  getrf_core<T>(
      m, n, lda, count, info, [A](int64_t i) { return A[i]; }, [ipiv](int64_t i) { return ipiv[i]; }, 3, 5);
}

template <typename T>
void getrf(int64_t m, int64_t n, T* A, int64_t lda, int64_t stride_a, int64_t* ipiv, int64_t stride_ipiv, int64_t count,
           int64_t* info) {
  const auto name = detail::routine_name<T>("getrf_strided_batched");
  detail::require(m >= 0, 1, name, "m < 0");
  check_int(m, 1, name, "m");
  detail::require(n >= 0, 2, name, "n < 0");
  check_int(n, 2, name, "n");
  const bool empty = count == 0 || m == 0 || n == 0;
  detail::require(empty || A != nullptr, 3, name, "A is null");
  detail::check_ld(lda, m, 4, name, "lda");
  check_int(lda, 4, name, "lda");
  detail::require(stride_a >= lda * n, 5, name, "stride_a < lda * n");
  detail::require(empty || ipiv != nullptr, 6, name, "ipiv is null");
  detail::require(stride_ipiv >= std::min(m, n), 7, name, "stride_ipiv < min(m, n)");
  check_batch(count, 8, info, name);
  getrf_core<T>(
      m, n, lda, count, info, [=](int64_t i) { return A + i * stride_a; },
      [=](int64_t i) { return ipiv + i * stride_ipiv; }, 3, 6);
}

template <typename T>
void geqrf(int64_t m, int64_t n, T* const* A, int64_t lda, T* const* tau, int64_t count, int64_t* info) {
  const auto name = detail::routine_name<T>("geqrf_batched");
  detail::require(m >= 0, 1, name, "m < 0");
  check_int(m, 1, name, "m");
  detail::require(n >= 0, 2, name, "n < 0");
  check_int(n, 2, name, "n");
  detail::require(count == 0 || A != nullptr, 3, name, "A is null");
  detail::check_ld(lda, m, 4, name, "lda");
  check_int(lda, 4, name, "lda");
  detail::require(count == 0 || tau != nullptr, 5, name, "tau is null");
  check_batch(count, 6, info, name);
  geqrf_core<T>(
      m, n, lda, count, info, [A](int64_t i) { return A[i]; }, [tau](int64_t i) { return tau[i]; }, 3, 5);
}

template <typename T>
void geqrf(int64_t m, int64_t n, T* A, int64_t lda, int64_t stride_a, T* tau, int64_t stride_tau, int64_t count,
           int64_t* info) {
  const auto name = detail::routine_name<T>("geqrf_strided_batched");
  detail::require(m >= 0, 1, name, "m < 0");
  check_int(m, 1, name, "m");
  detail::require(n >= 0, 2, name, "n < 0");
  check_int(n, 2, name, "n");
  const bool empty = count == 0 || m == 0 || n == 0;
  detail::require(empty || A != nullptr, 3, name, "A is null");
  detail::check_ld(lda, m, 4, name, "lda");
  check_int(lda, 4, name, "lda");
  detail::require(stride_a >= lda * n, 5, name, "stride_a < lda * n");
  detail::require(empty || tau != nullptr, 6, name, "tau is null");
  detail::require(stride_tau >= std::min(m, n), 7, name, "stride_tau < min(m, n)");
  check_batch(count, 8, info, name);
  geqrf_core<T>(
      m, n, lda, count, info, [=](int64_t i) { return A + i * stride_a; },
      [=](int64_t i) { return tau + i * stride_tau; }, 3, 6);
}

template <typename T>
void gemm(Op transa, Op transb, int64_t m, int64_t n, int64_t k, T alpha, const T* const* A, int64_t lda,
          const T* const* B, int64_t ldb, T beta, T* const* C, int64_t ldc, int64_t count, int64_t* info) {
  const auto name = detail::routine_name<T>("gemm_batched");
  check_gemm<T>(transa, transb, m, n, k, lda, ldb, ldc, false, name);
  detail::require(count == 0 || A != nullptr, 7, name, "A is null");
  detail::require(count == 0 || B != nullptr, 9, name, "B is null");
  detail::require(count == 0 || C != nullptr, 12, name, "C is null");
  check_batch(count, 14, info, name);
  const int pos[3] = {7, 9, 12};
  gemm_core<T>(
      transa, transb, m, n, k, alpha, lda, ldb, beta, ldc, count, info, [A](int64_t i) { return A[i]; },
      [B](int64_t i) { return B[i]; }, [C](int64_t i) { return C[i]; }, pos);
}

template <typename T>
void gemm(Op transa, Op transb, int64_t m, int64_t n, int64_t k, T alpha, const T* A, int64_t lda, int64_t stride_a,
          const T* B, int64_t ldb, int64_t stride_b, T beta, T* C, int64_t ldc, int64_t stride_c, int64_t count,
          int64_t* info) {
  const auto name = detail::routine_name<T>("gemm_strided_batched");
  check_gemm<T>(transa, transb, m, n, k, lda, ldb, ldc, true, name);
  // Inputs may be shared by the whole batch (stride 0); outputs may not overlap.
  detail::require(stride_a >= 0, 9, name, "stride_a < 0");
  detail::require(stride_b >= 0, 12, name, "stride_b < 0");
  detail::require(stride_c >= ldc * n, 16, name, "stride_c < ldc * n");
  check_batch(count, 17, info, name);
  const int pos[3] = {7, 10, 14};
  gemm_core<T>(
      transa, transb, m, n, k, alpha, lda, ldb, beta, ldc, count, info,
      [=](int64_t i) { return A ? A + i * stride_a : nullptr; },
      [=](int64_t i) { return B ? B + i * stride_b : nullptr; },
      [=](int64_t i) { return C ? C + i * stride_c : nullptr; }, pos);
}

#define HETLA_INSTANTIATE(T)                                                                                          \
  template void potrf<T>(Uplo, int64_t, T* const*, int64_t, int64_t, int64_t*);                                       \
  template void potrf<T>(Uplo, int64_t, T*, int64_t, int64_t, int64_t, int64_t*);                                     \
  template void getrf<T>(int64_t, int64_t, T* const*, int64_t, int64_t* const*, int64_t, int64_t*);                   \
  template void getrf<T>(int64_t, int64_t, T*, int64_t, int64_t, int64_t*, int64_t, int64_t, int64_t*);               \
  template void geqrf<T>(int64_t, int64_t, T* const*, int64_t, T* const*, int64_t, int64_t*);                         \
  template void geqrf<T>(int64_t, int64_t, T*, int64_t, int64_t, T*, int64_t, int64_t, int64_t*);                     \
  template void gemm<T>(Op, Op, int64_t, int64_t, int64_t, T, const T* const*, int64_t, const T* const*, int64_t, T,  \
                        T* const*, int64_t, int64_t, int64_t*);                                                       \
  template void gemm<T>(Op, Op, int64_t, int64_t, int64_t, T, const T*, int64_t, int64_t, const T*, int64_t, int64_t, \
                        T, T*, int64_t, int64_t, int64_t, int64_t*);
HETLA_FOR_EACH_PRECISION(HETLA_INSTANTIATE)
#undef HETLA_INSTANTIATE

}  // namespace hetla::batch
