// Matrix polynomials P = sum a_i X^i (seed 003): Horner (d - 1 products) or
// Paterson–Stockmeyer (about 2 sqrt(d)). Seed 003's Algorithm 2 forms the
// powers X^i one product at a time and accumulates a_i X^i; Horner has the
// same product count with one fewer matrix live, and the identity terms touch
// only the diagonal tiles. Products are hetla::gemm calls, so each one is
// split over every device of the context.
#include "hetla/matfun.hpp"
#include "linalg/matfun_internal.hpp"
#include "util/check_args.hpp"
#include "util/precision.hpp"

namespace hetla {

int64_t matpoly_products(int64_t degree, PolyMethod method) {
  if (degree <= 1) return 0;
  if (method == PolyMethod::Horner) return degree - 1;
  return detail::matfun::ps_cost(degree, detail::matfun::ps_block(degree));
}

namespace {
void check_method(PolyMethod m, int arg, const std::string& name) {
  detail::require(m == PolyMethod::Horner || m == PolyMethod::PatersonStockmeyer, arg, name,
                  "method must be Horner ('H') or PatersonStockmeyer ('P')");
}
}  // namespace

template <typename T>
int64_t matpoly(const Matrix<T>& X, std::span<const T> coeffs, Matrix<T>& P, PolyMethod method,
                const Options& opts) {
  const auto name = detail::routine_name<T>("matpoly");
  detail::require(X.m() == X.n(), 1, name, "X must be square");
  detail::require_uniform(X, 1, name);
  detail::require(P.m() == X.n() && P.n() == X.n() && P.nb() == X.nb(), 3, name,
                  "P must be n x n with X's tile size");
  check_method(method, 4, name);
  if (X.n() == 0) return 0;
  detail::require(P.handle(0, 0) != X.handle(0, 0), 3, name, "P must not overlap X");
  detail::CallScope scope;
  rt::Runtime& rt = scope.rt();
  const int64_t count = detail::matfun::poly_eval(rt, X, coeffs, P, method, opts);
  rt.wait_all();
  return count;
}

template <typename T>
int64_t matpoly(int64_t n, const T* X, int64_t ldx, int64_t degree, const T* coeffs, T* P, int64_t ldp,
                PolyMethod method, const Options& opts) {
  const auto name = detail::routine_name<T>("matpoly");
  detail::require(n >= 0, 1, name, "n < 0");
  detail::check_ld(ldx, n, 3, name, "ldx");
  detail::require(degree >= 0, 4, name, "degree < 0");
  detail::check_ld(ldp, n, 7, name, "ldp");
  check_method(method, 8, name);
  if (n == 0) return 0;
  detail::require(X != nullptr, 2, name, "X is null");
  detail::require(coeffs != nullptr, 5, name, "coeffs is null");
  detail::require(P != nullptr, 6, name, "P is null");
  detail::require(P != X, 6, name, "P must not overlap X");
  const int64_t nb = opts.nb > 0 ? opts.nb : default_tile_size<T>(n);
  // X is only read; the view API takes a mutable pointer.
  auto Xm = Matrix<T>::view(n, n, const_cast<T*>(X), ldx, nb);
  auto Pm = Matrix<T>::view(n, n, P, ldp, nb);
  return matpoly(Xm, std::span<const T>(coeffs, static_cast<std::size_t>(degree + 1)), Pm, method, opts);
}

#define HETLA_INSTANTIATE(T)                                                                             \
  template int64_t matpoly<T>(const Matrix<T>&, std::span<const T>, Matrix<T>&, PolyMethod, const Options&); \
  template int64_t matpoly<T>(int64_t, const T*, int64_t, int64_t, const T*, T*, int64_t, PolyMethod,     \
                              const Options&);
HETLA_FOR_EACH_PRECISION(HETLA_INSTANTIATE)
#undef HETLA_INSTANTIATE

}  // namespace hetla
