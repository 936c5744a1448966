// Building blocks shared by matpoly.cc and expm.cc: whole-matrix linear
// combinations as tile tasks, products through hetla::gemm (which spreads
// them over the devices), matrix powers and Paterson–Stockmeyer evaluation.
// Callers hold a detail::CallScope; every routine here works on tile matrices
// of one common tile size.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "hetla/blas3.hpp"
#include "hetla/matfun.hpp"
#include "context/context.hpp"
#include "tasks/matfun.hpp"

namespace hetla::detail::matfun {

template <typename T> Matrix<T> like(const Matrix<T>& A) { return Matrix<T>(A.m(), A.n(), A.nb()); }

/// Y = beta Y + sum_k terms[k].first * terms[k].second + alpha I (tasks; no
/// wait). Y must not be one of the terms (it may be written before it is read).
template <typename T>
void lincomb(rt::Runtime& rt, T beta, Matrix<T>& Y, const std::vector<std::pair<T, const Matrix<T>*>>& terms,
             T alpha) {
  auto coef = std::make_shared<std::vector<T>>();
  for (const auto& t : terms) coef->push_back(t.first);
  std::shared_ptr<const std::vector<T>> c = coef;
  std::vector<tile::Ref<T>> in(terms.size());
  for (int64_t j = 0; j < Y.nt(); ++j)
    for (int64_t i = 0; i < Y.mt(); ++i) {
      for (std::size_t k = 0; k < terms.size(); ++k) in[k] = tile::ref(*terms[k].second, i, j);
      tile::lincomb(rt, beta, tile::ref(Y, i, j), in, c, i == j, alpha, {});
    }
}

/// Y += alpha I (diagonal tiles only).
template <typename T> void add_identity(rt::Runtime& rt, T alpha, Matrix<T>& Y) {
  for (int64_t d = 0; d < std::min(Y.mt(), Y.nt()); ++d) tile::add_diag(rt, alpha, tile::ref(Y, d, d), {});
}

/// C = alpha A B + beta C through hetla::gemm; counts the product. Waits
/// for the tasks inserted so far first: on column-major operands gemm runs
/// host BLAS slices that declare no accesses (it relies on every earlier call
/// having ended with wait_all), so a pending lincomb on A, B or C would race.
template <typename T>
void product(rt::Runtime& rt, T alpha, const Matrix<T>& A, const Matrix<T>& B, T beta, Matrix<T>& C,
             const Options& opts, int64_t& count) {
  rt.wait_all();
  hetla::gemm(Op::NoTrans, Op::NoTrans, alpha, A, B, beta, C, opts);
  ++count;
}

/// ||A||_1 from the host copy (callers wait first so the host copy is current).
template <typename T> double norm1(const Matrix<T>& A) {
  std::vector<double> col(static_cast<std::size_t>(A.n()), 0.0);
  for (int64_t j = 0; j < A.nt(); ++j)
    for (int64_t i = 0; i < A.mt(); ++i) {
      const Tile<T> t = A.tile(i, j);
      for (int64_t c = 0; c < t.nb; ++c) {
        double s = 0;
        for (int64_t r = 0; r < t.mb; ++r) s += static_cast<double>(std::abs(t(r, c)));
        col[static_cast<std::size_t>(j * A.nb() + c)] += s;
      }
    }
  double mx = 0;
  for (double v : col) {
    if (std::isnan(v)) return v;
    mx = std::max(mx, v);
  }
  return mx;
}

/// Products Paterson–Stockmeyer needs with block size s for degree d >= 2:
/// X^2..X^s (s - 1), then Horner in X^s over r = floor(d / s) blocks (r steps,
/// one fewer when s divides d: the top block is the constant a_d).
inline int64_t ps_cost(int64_t d, int64_t s) { return (s - 1) + d / s - (d % s == 0 ? 1 : 0); }

/// Block size minimising the product count (the smallest such s: fewer powers stored).
inline int64_t ps_block(int64_t d) {
  if (d <= 1) return 1;
  int64_t best = 1;
  for (int64_t s = 2; s <= d; ++s)
    if (ps_cost(d, s) < ps_cost(d, best)) best = s;
  return best;
}

/// pw[k] = X^k for k = 1..s (pw[1] shares X's storage; pw[0] is unused).
template <typename T>
std::vector<Matrix<T>> powers(rt::Runtime& rt, const Matrix<T>& X, int64_t s, const Options& opts, int64_t& count) {
  std::vector<Matrix<T>> pw(static_cast<std::size_t>(std::max<int64_t>(s, 1) + 1));
  pw[1] = X;
  for (int64_t k = 2; k <= s; ++k) {
    pw[static_cast<std::size_t>(k)] = like(X);
    product(rt, T(1), pw[static_cast<std::size_t>(k - 1)], X, T(0), pw[static_cast<std::size_t>(k)], opts, count);
  }
  return pw;
}

/// Y = beta Y + sum_{j=0}^{s-1} a[k s + j] X^j (terms past the degree are zero).
template <typename T>
void ps_blockcomb(rt::Runtime& rt, const std::vector<Matrix<T>>& pw, int64_t s, std::span<const T> a, int64_t k,
                  T beta, Matrix<T>& Y) {
  const int64_t d = static_cast<int64_t>(a.size()) - 1;
  std::vector<std::pair<T, const Matrix<T>*>> terms;
  for (int64_t j = 1; j < s && k * s + j <= d; ++j)
    terms.emplace_back(a[static_cast<std::size_t>(k * s + j)], &pw[static_cast<std::size_t>(j)]);
  lincomb(rt, beta, Y, terms, k * s <= d ? a[static_cast<std::size_t>(k * s)] : T(0));
}

/// P = sum a[i] X^i by Paterson–Stockmeyer with the powers pw[1..s] of X
/// already formed (degree d = a.size() - 1 >= 1, s <= d). P must differ
/// from the powers. Returns the products used here (not counting the powers).
template <typename T>
int64_t ps_eval(rt::Runtime& rt, const std::vector<Matrix<T>>& pw, int64_t s, std::span<const T> a, Matrix<T>& P,
                const Options& opts) {
  int64_t count = 0;
  const int64_t d = static_cast<int64_t>(a.size()) - 1;
  const int64_t r = d / s;
  const bool exact = d % s == 0;
  // Horner steps k = first..0 after the start block.
  const int64_t first = exact ? r - 2 : r - 1;
  Matrix<T> buf[2];
  int cur = 0;
  auto target = [&](int64_t k) -> Matrix<T>& {  // the buffer step k writes; the last step writes P
    if (k == 0 || first < 0) return P;
    if (buf[cur ^ 1].m() != P.m() || buf[cur ^ 1].n() != P.n()) buf[cur ^ 1] = like(P);
    return buf[cur ^ 1];
  };
  {
    Matrix<T>& start = target(first + 1);
    if (exact) {  // a_d X^s + B_{r-1}
      ps_blockcomb(rt, pw, s, a, r - 1, T(0), start);
      lincomb(rt, T(1), start, {{a[static_cast<std::size_t>(d)], &pw[static_cast<std::size_t>(s)]}}, T(0));
    } else {
      ps_blockcomb(rt, pw, s, a, r, T(0), start);
    }
    if (first < 0) return count;
    cur ^= 1;
  }
  for (int64_t k = first; k >= 0; --k) {
    Matrix<T>& out = target(k);
    ps_blockcomb(rt, pw, s, a, k, T(0), out);  // B_k, then out += R X^s
    product(rt, T(1), buf[cur], pw[static_cast<std::size_t>(s)], T(1), out, opts, count);
    cur ^= 1;
  }
  return count;
}

/// P = sum a[i] X^i by Horner: R = a_d X + a_{d-1} I; R = R X + a_i I (d >= 2).
template <typename T>
int64_t horner_eval(rt::Runtime& rt, const Matrix<T>& X, std::span<const T> a, Matrix<T>& P, const Options& opts) {
  int64_t count = 0;
  const int64_t d = static_cast<int64_t>(a.size()) - 1;
  Matrix<T> buf[2];
  buf[0] = like(P);
  buf[1] = like(P);
  int cur = 0;
  lincomb(rt, T(0), buf[cur], {{a[static_cast<std::size_t>(d)], &X}}, a[static_cast<std::size_t>(d - 1)]);
  for (int64_t i = d - 2; i >= 0; --i) {
    Matrix<T>& out = i == 0 ? P : buf[cur ^ 1];
    product(rt, T(1), buf[cur], X, T(0), out, opts, count);
    add_identity(rt, a[static_cast<std::size_t>(i)], out);
    cur ^= 1;
  }
  return count;
}

/// Whole polynomial with either method (degree 0 and 1 need no product).
template <typename T>
int64_t poly_eval(rt::Runtime& rt, const Matrix<T>& X, std::span<const T> a, Matrix<T>& P, PolyMethod method,
                  const Options& opts) {
  const int64_t d = static_cast<int64_t>(a.size()) - 1;
  if (d < 0) {
    lincomb<T>(rt, T(0), P, {}, T(0));
    return 0;
  }
  if (d == 0) {
    lincomb<T>(rt, T(0), P, {}, a[0]);
    return 0;
  }
  if (d == 1) {
    lincomb(rt, T(0), P, {{a[1], &X}}, a[0]);
    return 0;
  }
  if (method == PolyMethod::Horner) return horner_eval(rt, X, a, P, opts);
  int64_t count = 0;
  const int64_t s = ps_block(d);
  const auto pw = powers(rt, X, s, opts, count);
  return count + ps_eval(rt, pw, s, a, P, opts);
}

}  // namespace hetla::detail::matfun
