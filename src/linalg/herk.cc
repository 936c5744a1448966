// Rank-k updates as tile tasks: herk (syrk for real T) and the complex
// symmetric syrk. C(i, j) on the `uplo` triangle of tiles: diagonal tiles take
// herk/syrk tile kernels, off-diagonal tiles gemm; the first product of a tile
// carries beta. k == 0 or alpha == 0 only scales the triangle (BLAS: A is not
// referenced, beta == 0 sets it to zero). With the host cores alone on
// column-major data, each worker instead updates one block of columns with
// two BLAS calls (rank_k_host_slices).
#include <algorithm>
#include <cmath>

#include "hetla/blas3.hpp"
#include "memory/tile_block.hpp"
#include "context/context.hpp"
#include "tasks/blas3.hpp"
#include "util/check_args.hpp"
#include "util/precision.hpp"

namespace hetla {

namespace {

/// Host cores only, column-major A and C: one task per host worker on a
/// block of columns of C, each a diagonal-block herk/syrk plus one GEMM for
/// the block's part of the triangle outside it (BLAS calls over the full k,
/// no tile updates). Block boundaries balance the triangle's work. Returns
/// false (nothing inserted) when this does not apply.
template <typename T> bool rank_k_host_slices(rt::Runtime& rt, Uplo uplo, bool trans, bool conj, T alpha,
                                              const Matrix<T>& A, T beta, Matrix<T>& C) {
  const int64_t n = C.n(), k = trans ? A.m() : A.n(), workers = rt.num_host_workers();
  if (rt.num_devices() != 1 || k == 0 || alpha == T(0) || n < 32 * workers) return false;
  if (tile::flop_scale<T>() * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(k) <
      2e6 * static_cast<double>(workers))
    return false;
  const auto a = detail::as_block(A, 0, A.mt() - 1, 0, A.nt() - 1);
  const auto c = detail::as_block(C, 0, C.mt() - 1, 0, C.nt() - 1);
  if (!a || !c) return false;
  for (int64_t w = 0; w < workers; ++w) {
    // Lower: column j costs n - j, so the first f of the work ends at n (1 - sqrt(1 - f)); Upper: n sqrt(f)
    auto bound = [&](int64_t s) {
      const double f = static_cast<double>(s) / static_cast<double>(workers);
      const double x = uplo == Uplo::Lower ? 1.0 - std::sqrt(1.0 - f) : std::sqrt(f);
      return s == workers ? n : std::min(n, static_cast<int64_t>(std::llround(x * static_cast<double>(n))));
    };
    const int64_t c0 = bound(w), c1 = bound(w + 1);
    if (c1 <= c0) continue;
    tile::rank_k_slice(rt, uplo, trans, conj, alpha, *a, beta, *c, c0, c1);
  }
  return true;
}

/// Shared loop: `conj` = herk (op(A)^H, real alpha/beta) or syrk (op(A)^T).
/// op is NoTrans (A n x k) or the transposing op (A k x n).
template <typename T> void rank_k(Uplo uplo, bool trans, bool conj, T alpha, const Matrix<T>& A, T beta, Matrix<T>& C) {
  detail::require_uniform(C, 9, detail::routine_name<T>(conj ? "herk" : "syrk"));
  const int64_t n = C.n(), k = trans ? A.m() : A.n();
  if (n == 0) return;
  detail::CallScope scope;
  rt::Runtime& rt = scope.rt();
  if (rank_k_host_slices(rt, uplo, trans, conj, alpha, A, beta, C)) {
    rt.wait_all();
    return;
  }
  const int64_t nt = C.nt(), kt = k == 0 ? 0 : (trans ? A.mt() : A.nt());
  const Op t = conj ? Op::ConjTrans : Op::Trans;
  const Op op = trans ? t : Op::NoTrans;
  auto a = [&](int64_t i, int64_t l) { return trans ? tile::ref(A, l, i) : tile::ref(A, i, l); };
  for (int64_t j = 0; j < nt; ++j)
    for (int64_t i = uplo == Uplo::Lower ? j : 0; i <= (uplo == Uplo::Lower ? nt - 1 : j); ++i) {
      const auto c = tile::ref(C, i, j);
      if (kt == 0 || alpha == T(0)) {
        tile::scale(rt, beta, c, {}, i == j ? uplo : Uplo::General, conj && i == j);
        continue;
      }
      for (int64_t l = 0; l < kt; ++l) {
        const T b = l == 0 ? beta : T(1);
        if (i != j) {
          // Lower: C(i,j) += alpha opA(i) opA(j)^H with i > j; Upper likewise with i < j
          if (trans)
            tile::gemm(rt, t, Op::NoTrans, alpha, a(i, l), a(j, l), b, c, {});
          else
            tile::gemm(rt, Op::NoTrans, t, alpha, a(i, l), a(j, l), b, c, {});
        } else if (conj) {
          tile::herk(rt, uplo, op, std::real(alpha), a(j, l), std::real(b), c, {});
        } else {
          tile::syrk_host(rt, uplo, op, alpha, a(j, l), b, c, {});
        }
      }
    }
  rt.wait_all();
}

template <typename T>
void check_rank_k(const char* base, Uplo uplo, Op op, bool conj, int64_t n, int64_t k, int64_t lda, int64_t ldc) {
  const auto name = detail::routine_name<T>(base);
  detail::check_uplo(uplo, 1, name);
  // real: N, T, C; herk: N, C; complex syrk: N, T
  const bool op_ok = op == Op::NoTrans || (!is_complex_v<T> && (op == Op::Trans || op == Op::ConjTrans)) ||
                     (is_complex_v<T> && op == (conj ? Op::ConjTrans : Op::Trans));
  detail::require(op_ok, 2, name, "invalid trans");
  detail::require(n >= 0, 3, name, "n < 0");
  detail::require(k >= 0, 4, name, "k < 0");
  detail::check_ld(lda, op == Op::NoTrans ? n : k, 7, name, "lda");
  detail::check_ld(ldc, n, 10, name, "ldc");
}
template <typename T, typename S>
void check_ptrs(const char* base, int64_t n, int64_t k, S alpha, const T* A, const T* C) {
  const auto name = detail::routine_name<T>(base);
  detail::require(A || n == 0 || k == 0 || alpha == S(0), 6, name, "A is null");
  detail::require(C || n == 0, 9, name, "C is null");
}

}  // namespace

template <typename T>
void herk(Uplo uplo, Op op, real_t<T> alpha, const Matrix<T>& A, real_t<T> beta, Matrix<T>& C, const Options&) {
  const auto name = detail::routine_name<T>(is_complex_v<T> ? "herk" : "syrk");
  detail::check_uplo(uplo, 1, name);
  detail::require(op == Op::NoTrans || op == Op::ConjTrans || (!is_complex_v<T> && op == Op::Trans), 2, name,
                  "invalid trans");
  detail::require(C.m() == C.n(), 9, name, "C must be square");
  detail::require((op == Op::NoTrans ? A.m() : A.n()) == C.n(), 6, name, "op(A) must have C's rows");
  detail::require(A.nb() == C.nb(), 6, name, "A and C must share the tile size");
  rank_k<T>(uplo, op != Op::NoTrans, true, T(alpha), A, T(beta), C);
}

template <typename T> void herk(Uplo uplo, Op op, int64_t n, int64_t k, real_t<T> alpha, const T* A, int64_t lda,
                                real_t<T> beta, T* C, int64_t ldc, const Options& opts) {
  check_rank_k<T>(is_complex_v<T> ? "herk" : "syrk", uplo, op, true, n, k, lda, ldc);
  check_ptrs(is_complex_v<T> ? "herk" : "syrk", n, k, alpha, A, C);
  if (n == 0 || ((k == 0 || alpha == 0) && beta == 1)) return;
  const int64_t nb = opts.nb > 0 ? opts.nb : default_tile_size<T>(std::max(n, k));
  const bool trans = op != Op::NoTrans;
  T unused{};  // A may be null when it is not referenced (alpha == 0): only C is scaled then
  auto Am = Matrix<T>::view(trans ? k : n, trans ? n : k, A ? const_cast<T*>(A) : &unused, lda, nb);
  auto Cm = Matrix<T>::view(n, n, C, ldc, nb);
  rank_k<T>(uplo, trans, true, T(alpha), Am, T(beta), Cm);
}

template <typename T> void syrk(Uplo uplo, Op op, int64_t n, int64_t k, T alpha, const T* A, int64_t lda, T beta, T* C,
                                int64_t ldc, const Options& opts) {
  check_rank_k<T>("syrk", uplo, op, false, n, k, lda, ldc);
  check_ptrs("syrk", n, k, alpha, A, C);
  if (n == 0 || ((k == 0 || alpha == T(0)) && beta == T(1))) return;
  const int64_t nb = opts.nb > 0 ? opts.nb : default_tile_size<T>(std::max(n, k));
  const bool trans = op != Op::NoTrans;
  T unused{};  // A may be null when it is not referenced (alpha == 0): only C is scaled then
  auto Am = Matrix<T>::view(trans ? k : n, trans ? n : k, A ? const_cast<T*>(A) : &unused, lda, nb);
  auto Cm = Matrix<T>::view(n, n, C, ldc, nb);
  rank_k<T>(uplo, trans, !is_complex_v<T>, alpha, Am, beta, Cm);
}

#define HETLA_INSTANTIATE(T)                                                                              \
  template void herk<T>(Uplo, Op, real_t<T>, const Matrix<T>&, real_t<T>, Matrix<T>&, const Options&);    \
  template void herk<T>(Uplo, Op, int64_t, int64_t, real_t<T>, const T*, int64_t, real_t<T>, T*, int64_t, \
                        const Options&);                                                                  \
  template void syrk<T>(Uplo, Op, int64_t, int64_t, T, const T*, int64_t, T, T*, int64_t, const Options&);
HETLA_FOR_EACH_PRECISION(HETLA_INSTANTIATE)
#undef HETLA_INSTANTIATE

}  // namespace hetla
