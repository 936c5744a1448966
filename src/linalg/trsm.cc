// Tile triangular solve from the left: B = alpha op(A)^-1 B. A sweep runs
// forward (Lower/NoTrans, Upper/[Conj]Trans) or backward; each step solves one
// tile row of B and updates the rows still to be solved with GEMMs.
#include "hetla/linalg.hpp"
#include "kernels/tile_tasks.hpp"
#include "linalg/check_args.hpp"
#include "memory/distribution.hpp"
#include "runtime/context.hpp"

namespace hetla {

template <typename T>
void trsm_left(Uplo uplo, Op op, Diag diag, T alpha, const Matrix<T>& A, Matrix<T>& B, const Options& options) {
  const auto name = detail::routine_name<T>("trsm");
  detail::check_uplo(uplo, 2, name);
  detail::require(A.m() == A.n(), 6, name, "A must be square");
  detail::require(A.m() == B.m() && A.nb() == B.nb(), 7, name, "B rows / tile size must match A");
  if (B.m() == 0 || B.n() == 0) return;

  detail::CallScope scope;
  rt::Runtime& rt = scope.rt();
  detail::distribute(rt, B, options.distribution);
  const int64_t mt = A.mt(), nt = B.nt();
  const bool forward = (uplo == Uplo::Lower) == (op == Op::NoTrans);
  // op(A)(i, k) as a tile plus the op to apply to it
  auto opa = [&](int64_t i, int64_t k) {
    return op == Op::NoTrans ? tile::ref(A, i, k) : tile::ref(A, k, i);
  };
  for (int64_t s = 0; s < mt; ++s) {
    const int64_t k = forward ? s : mt - 1 - s;
    const T beta = s == 0 ? alpha : T(1);  // rows not reached yet still need alpha
    const int pr = static_cast<int>(2 * (mt - s));
    for (int64_t j = 0; j < nt; ++j) {
      tile::trsm(rt, Side::Left, uplo, op, diag, beta, tile::ref(A, k, k), tile::ref(B, k, j), {pr + 1, s});
      for (int64_t t = s + 1; t < mt; ++t) {
        const int64_t i = forward ? t : mt - 1 - t;
        tile::gemm(rt, op, Op::NoTrans, T(-1), opa(i, k), tile::ref(B, k, j), beta, tile::ref(B, i, j),
                   {t == s + 1 ? pr : pr - 1, s});
      }
    }
  }
  rt.wait_all();
}

#define HETLA_INSTANTIATE(T) template void trsm_left<T>(Uplo, Op, Diag, T, const Matrix<T>&, Matrix<T>&, const Options&);
HETLA_INSTANTIATE(float)
HETLA_INSTANTIATE(double)
HETLA_INSTANTIATE(std::complex<float>)
HETLA_INSTANTIATE(std::complex<double>)
#undef HETLA_INSTANTIATE

}  // namespace hetla
