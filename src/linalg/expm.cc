// Matrix exponential, cosine and sine from products (hetla::gemm over every
// device) and one LU solve.
//
// expm: scaling and squaring with the diagonal Padé approximant r_m (Higham,
// "The scaling and squaring method for the matrix exponential revisited",
// SIMAX 2005). theta_m is the largest ||A||_1 for which the backward error of
// r_m(A) in exact arithmetic, exp(A + dA) = r_m(A), satisfies
// ||dA|| <= u ||A|| (u the unit roundoff of T). We take the cheapest m with
// ||A||_1 <= theta_m, or else m_max and s = ceil(log2(||A||_1 / theta_max)),
// so r_m(A / 2^s)^(2^s) = exp(A + dA) with the same relative bound: full
// accuracy in T up to the conditioning of exp at A. Costs: m = 3, 5, 7, 9,
// 13 take 2, 3, 4, 5, 6 products, plus s squarings and one solve with n
// right-hand sides.
//
// cosm / sinm: Taylor series in B = A^2 (cos A = sum (-1)^k B^k / (2k)!,
// sin A = A sum (-1)^k B^k / (2k+1)!) evaluated by Paterson–Stockmeyer on
// B / 4^s, then double-angle recovery cos 2X = 2 cos^2 X - I and
// sin 2X = 2 sin X cos X. The degree K bounds the truncation error by
// b^(K+1) / (2K+2)! <= u / 2 with b = ||B||_1 / 4^s (the tail's first term
// dominates: the ratio of successive terms is below b / (2K+3)(2K+4) << 1);
// b is also capped at 4 (||A / 2^s|| about 2) so the alternating series does
// not lose digits to cancellation (terms stay below cosh 2 < 4). Among
// K = 1..16, (K, s) minimising products is chosen, fewer halvings on ties.
// The recovery multiplies the error of level i by about 4 ||cos(A / 2^i)||,
// which for normal A is the conditioning of cos itself (prod of
// cos(x / 2^i) = sin x / (2^s sin(x / 2^s))), so the result is accurate
// to about u ||A|| as for the scalar function.
#include <cmath>
#include <limits>
#include <stdexcept>

#include "hetla/lu.hpp"
#include "hetla/matfun.hpp"
#include "linalg/matfun_internal.hpp"
#include "util/check_args.hpp"
#include "util/precision.hpp"

namespace hetla {

namespace {
using namespace detail::matfun;

template <typename T> T cst(double v) { return T(static_cast<real_t<T>>(v)); }

template <typename T> void fill_nan(rt::Runtime& rt, const Matrix<T>& A, Matrix<T>& Out) {
  lincomb(rt, T(0), Out, {{cst<T>(std::numeric_limits<double>::quiet_NaN()), &A}}, T(0));
}

/// Padé [m/m] coefficients of exp, c_0 = 1: c_j = (2m-j)! m! / ((2m)! j! (m-j)!).
std::vector<double> pade_coefficients(int m) {
  std::vector<double> c(static_cast<std::size_t>(m + 1));
  c[0] = 1;
  for (int j = 0; j < m; ++j) c[j + 1] = c[j] * (m - j) / (static_cast<double>(2 * m - j) * (j + 1));
  return c;
}

template <typename T> MatfunInfo expm_tiles(const Matrix<T>& A, Matrix<T>& E, const Options& opts) {
  detail::require_uniform(A, 1, detail::routine_name<T>("expm"));
  MatfunInfo info;
  detail::CallScope scope;
  rt::Runtime& rt = scope.rt();
  const double nA = norm1(A);
  if (!std::isfinite(nA)) {
    fill_nan(rt, A, E);
    rt.wait_all();
    return info;
  }
  // Higham 2005, Table 2.3 (double) and the single-precision values of MATLAB's expm.
  static constexpr int md[] = {3, 5, 7, 9, 13};
  static constexpr double thd[] = {1.495585217958292e-2, 2.539398330063230e-1, 9.504178996162932e-1,
                                   2.097847961257068e0, 5.371920351148152e0};
  static constexpr int ms[] = {3, 5, 7};
  static constexpr double ths[] = {4.258730016922831e-1, 1.880152677804762e0, 3.925724783138660e0};
  const bool single = std::is_same_v<real_t<T>, float>;
  const int* mv = single ? ms : md;
  const double* th = single ? ths : thd;
  const int nm = single ? 3 : 5;
  int m = mv[nm - 1];
  int64_t s = 0;
  for (int i = 0; i < nm; ++i)
    if (nA <= th[i]) {
      m = mv[i];
      break;
    }
  if (nA > th[nm - 1]) s = std::max<int64_t>(0, static_cast<int64_t>(std::ceil(std::log2(nA / th[nm - 1]))));
  info.degree = m;
  info.scaling = s;
  const auto c = pade_coefficients(m);
  auto C = [&](int j) { return cst<T>(c[static_cast<std::size_t>(j)]); };
  int64_t& count = info.products;

  Matrix<T> As = A;
  if (s > 0) {  // A / 2^s is exact in binary
    As = like(A);
    lincomb(rt, T(0), As, {{cst<T>(std::ldexp(1.0, static_cast<int>(-s))), &A}}, T(0));
  }
  Matrix<T> U = like(A), V = like(A), Uo = like(A);
  if (m <= 9) {
    // Even powers A^2, A^4, ..., A^(m-1).
    std::vector<Matrix<T>> ev(static_cast<std::size_t>((m - 1) / 2 + 1));
    ev[1] = like(A);
    product(rt, T(1), As, As, T(0), ev[1], opts, count);
    for (int k = 2; k <= (m - 1) / 2; ++k) {
      ev[static_cast<std::size_t>(k)] = like(A);
      product(rt, T(1), ev[static_cast<std::size_t>(k - 1)], ev[1], T(0), ev[static_cast<std::size_t>(k)], opts,
              count);
    }
    std::vector<std::pair<T, const Matrix<T>*>> uo, v;
    for (int k = 1; k <= (m - 1) / 2; ++k) {
      uo.emplace_back(C(2 * k + 1), &ev[static_cast<std::size_t>(k)]);
      v.emplace_back(C(2 * k), &ev[static_cast<std::size_t>(k)]);
    }
    lincomb(rt, T(0), Uo, uo, C(1));
    lincomb(rt, T(0), V, v, C(0));
    product(rt, T(1), As, Uo, T(0), U, opts, count);
  } else {  // m = 13: 6 products (Higham 2005, (2.12)-(2.13))
    Matrix<T> A2 = like(A), A4 = like(A), A6 = like(A), W = like(A);
    product(rt, T(1), As, As, T(0), A2, opts, count);
    product(rt, T(1), A2, A2, T(0), A4, opts, count);
    product(rt, T(1), A4, A2, T(0), A6, opts, count);
    lincomb(rt, T(0), W, {{C(13), &A6}, {C(11), &A4}, {C(9), &A2}}, T(0));
    lincomb(rt, T(0), Uo, {{C(7), &A6}, {C(5), &A4}, {C(3), &A2}}, C(1));
    product(rt, T(1), A6, W, T(1), Uo, opts, count);
    product(rt, T(1), As, Uo, T(0), U, opts, count);
    lincomb(rt, T(0), W, {{C(12), &A6}, {C(10), &A4}, {C(8), &A2}}, T(0));
    lincomb(rt, T(0), V, {{C(6), &A6}, {C(4), &A4}, {C(2), &A2}}, C(0));
    product(rt, T(1), A6, W, T(1), V, opts, count);
  }
  // r_m = (V - U)^-1 (V + U); the solution lands where s squarings end in E.
  Matrix<T> other = s > 0 ? like(A) : Matrix<T>();
  Matrix<T>* cur = s % 2 == 0 ? &E : &other;
  Matrix<T>* nxt = s % 2 == 0 ? &other : &E;
  Matrix<T>& Q = Uo;  // no longer needed
  lincomb(rt, T(0), Q, {{T(1), &V}, {T(-1), &U}}, T(0));
  lincomb(rt, T(0), *cur, {{T(1), &V}, {T(1), &U}}, T(0));
  std::vector<int64_t> ipiv;
  rt.wait_all();  // as before a product: the operands' host copies must be final
  const int64_t lu = gesv(Q, ipiv, *cur, opts);
  ++info.solves;
  if (lu != 0)  // q_m(A / 2^s) is nonsingular for ||A / 2^s|| <= theta_m; only non-finite data gets here
    throw std::runtime_error(detail::routine_name<T>("expm") + ": Pade denominator is singular");
  for (int64_t i = 0; i < s; ++i) {
    product(rt, T(1), *cur, *cur, T(0), *nxt, opts, count);
    std::swap(cur, nxt);
  }
  rt.wait_all();
  return info;
}

/// Taylor degree K in B = A^2 and halvings s for ||B||_1 = nB (see the file comment).
template <typename T> std::pair<int, int64_t> trig_degree(double nB, bool sine) {
  const double u = std::numeric_limits<real_t<T>>::epsilon() / 2;
  int bestK = 1;
  int64_t bestS = 0, bestCost = std::numeric_limits<int64_t>::max();
  for (int K = 1; K <= 16; ++K) {
    const double theta = std::min(4.0, std::exp((std::log(u / 2) + std::lgamma(2.0 * K + 3)) / (K + 1)));
    const int64_t s =
        nB > theta ? std::max<int64_t>(0, static_cast<int64_t>(std::ceil(std::log(nB / theta) / std::log(4.0)))) : 0;
    const int64_t poly = matpoly_products(K, PolyMethod::PatersonStockmeyer);
    const int64_t cost = sine ? 2 * poly + 2 * s : poly + s;  // sine: both series, two products per halving
    if (cost < bestCost || (cost == bestCost && s < bestS)) {
      bestCost = cost;
      bestK = K;
      bestS = s;
    }
  }
  return {bestK, bestS};
}

template <typename T> MatfunInfo trig_tiles(const Matrix<T>& A, Matrix<T>& Out, bool sine, const Options& opts) {
  detail::require_uniform(A, 1, detail::routine_name<T>(sine ? "sinm" : "cosm"));
  MatfunInfo info;
  detail::CallScope scope;
  rt::Runtime& rt = scope.rt();
  int64_t& count = info.products;
  if (!std::isfinite(norm1(A))) {
    fill_nan(rt, A, Out);
    rt.wait_all();
    return info;
  }
  Matrix<T> B = like(A);
  product(rt, T(1), A, A, T(0), B, opts, count);
  rt.wait_all();
  const auto [K, s] = trig_degree<T>(norm1(B), sine);
  info.degree = K;
  info.scaling = s;
  if (s > 0) lincomb<T>(rt, cst<T>(std::ldexp(1.0, static_cast<int>(-2 * s))), B, {}, T(0));
  std::vector<T> ac(static_cast<std::size_t>(K + 1)), as(static_cast<std::size_t>(K + 1));
  double f = 1;  // 1 / (2k)! and 1 / (2k+1)!
  for (int k = 0; k <= K; ++k) {
    if (k > 0) f /= static_cast<double>(2 * k - 1) * (2 * k);
    ac[static_cast<std::size_t>(k)] = cst<T>(k % 2 ? -f : f);
    as[static_cast<std::size_t>(k)] = cst<T>((k % 2 ? -f : f) / (2 * k + 1));
  }
  const int64_t sb = ps_block(K);
  const auto pw = powers(rt, B, sb, opts, count);
  // Buffers alternate so that the last halving writes Out.
  Matrix<T> other = s > 0 ? like(A) : Matrix<T>();
  Matrix<T>* cur = s % 2 == 0 ? &Out : &other;
  Matrix<T>* nxt = s % 2 == 0 ? &other : &Out;
  if (!sine) {
    count += ps_eval(rt, pw, sb, std::span<const T>(ac), *cur, opts);
    for (int64_t i = 0; i < s; ++i) {  // cos 2X = 2 cos^2 X - I
      product(rt, T(2), *cur, *cur, T(0), *nxt, opts, count);
      add_identity(rt, T(-1), *nxt);
      std::swap(cur, nxt);
    }
  } else {
    Matrix<T> poly = like(A);
    count += ps_eval(rt, pw, sb, std::span<const T>(as), poly, opts);
    // sin(A / 2^s)
    product(rt, cst<T>(std::ldexp(1.0, static_cast<int>(-s))), A, poly, T(0), *cur, opts, count);
    if (s > 0) {
      Matrix<T> cc[2] = {poly, like(A)};  // poly's storage is free again
      int ci = 0;
      count += ps_eval(rt, pw, sb, std::span<const T>(ac), cc[0], opts);
      for (int64_t i = 0; i < s; ++i) {
        product(rt, T(2), *cur, cc[ci], T(0), *nxt, opts, count);  // sin 2X = 2 sin X cos X
        std::swap(cur, nxt);
        if (i + 1 < s) {
          product(rt, T(2), cc[ci], cc[ci], T(0), cc[ci ^ 1], opts, count);
          add_identity(rt, T(-1), cc[ci ^ 1]);
          ci ^= 1;
        }
      }
    }
  }
  rt.wait_all();
  return info;
}

template <typename T>
void check_tiles(const Matrix<T>& A, const Matrix<T>& Out, const std::string& name) {
  detail::require(A.m() == A.n(), 1, name, "A must be square");
  detail::require(Out.m() == A.n() && Out.n() == A.n() && Out.nb() == A.nb(), 2, name,
                  "the result must be n x n with A's tile size");
  if (A.n() > 0) detail::require(Out.handle(0, 0) != A.handle(0, 0), 2, name, "the result must not overlap A");
}

template <typename T, typename F>
MatfunInfo on_arrays(const char* base, int64_t n, const T* A, int64_t lda, T* Out, int64_t ldo, const Options& opts,
                     F&& f) {
  const auto name = detail::routine_name<T>(base);
  detail::require(n >= 0, 1, name, "n < 0");
  detail::check_ld(lda, n, 3, name, "lda");
  detail::check_ld(ldo, n, 5, name, "ld of the result");
  if (n == 0) return {};
  detail::require(A != nullptr, 2, name, "A is null");
  detail::require(Out != nullptr, 4, name, "result is null");
  detail::require(Out != A, 4, name, "the result must not overlap A");
  const int64_t nb = opts.nb > 0 ? opts.nb : default_tile_size<T>(n);
  auto Am = Matrix<T>::view(n, n, const_cast<T*>(A), lda, nb);  // only read
  auto Om = Matrix<T>::view(n, n, Out, ldo, nb);
  return f(Am, Om);
}
}  // namespace

template <typename T> MatfunInfo expm(const Matrix<T>& A, Matrix<T>& E, const Options& opts) {
  check_tiles(A, E, detail::routine_name<T>("expm"));
  if (A.n() == 0) return {};
  return expm_tiles(A, E, opts);
}
template <typename T> MatfunInfo cosm(const Matrix<T>& A, Matrix<T>& C, const Options& opts) {
  check_tiles(A, C, detail::routine_name<T>("cosm"));
  if (A.n() == 0) return {};
  return trig_tiles(A, C, false, opts);
}
template <typename T> MatfunInfo sinm(const Matrix<T>& A, Matrix<T>& S, const Options& opts) {
  check_tiles(A, S, detail::routine_name<T>("sinm"));
  if (A.n() == 0) return {};
  return trig_tiles(A, S, true, opts);
}

template <typename T>
MatfunInfo expm(int64_t n, const T* A, int64_t lda, T* E, int64_t lde, const Options& opts) {
  return on_arrays("expm", n, A, lda, E, lde, opts,
                   [&](const Matrix<T>& Am, Matrix<T>& Em) { return expm_tiles(Am, Em, opts); });
}
template <typename T>
MatfunInfo cosm(int64_t n, const T* A, int64_t lda, T* C, int64_t ldc, const Options& opts) {
  return on_arrays("cosm", n, A, lda, C, ldc, opts,
                   [&](const Matrix<T>& Am, Matrix<T>& Cm) { return trig_tiles(Am, Cm, false, opts); });
}
template <typename T>
MatfunInfo sinm(int64_t n, const T* A, int64_t lda, T* S, int64_t lds, const Options& opts) {
  return on_arrays("sinm", n, A, lda, S, lds, opts,
                   [&](const Matrix<T>& Am, Matrix<T>& Sm) { return trig_tiles(Am, Sm, true, opts); });
}

#define HETLA_INSTANTIATE(T)                                                                     \
  template MatfunInfo expm<T>(const Matrix<T>&, Matrix<T>&, const Options&);                     \
  template MatfunInfo cosm<T>(const Matrix<T>&, Matrix<T>&, const Options&);                     \
  template MatfunInfo sinm<T>(const Matrix<T>&, Matrix<T>&, const Options&);                     \
  template MatfunInfo expm<T>(int64_t, const T*, int64_t, T*, int64_t, const Options&);          \
  template MatfunInfo cosm<T>(int64_t, const T*, int64_t, T*, int64_t, const Options&);          \
  template MatfunInfo sinm<T>(int64_t, const T*, int64_t, T*, int64_t, const Options&);
HETLA_FOR_EACH_PRECISION(HETLA_INSTANTIATE)
#undef HETLA_INSTANTIATE

}  // namespace hetla
