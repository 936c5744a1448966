// hetla bench matpoly | expm | cosm | sinm: the matrix-function family (matrix
// polynomials and functions),
// whose products are hetla::gemm calls over every device of the context.
//
// matpoly: P = sum a_i X^i, X random with ||X||_1 about 1, a_i random in
// [-1, 1]; --degree D, --method horner|ps. --check: one random vector x,
// y = P(X) x by Horner on vectors in double (O(d n^2)), residual
//   ||P x - y||_1 / (n (d + 1) eps ||x||_1 sum |a_i| ||X||_1^i).
// expm / cosm / sinm: A = Q diag(d) Q^H with Q a product of 3 Householder
// reflectors and eigenvalues d in [-20, 20] (real; complex precisions add
// imaginary parts in [-5, 5]), so the reference Q f(D) Q^H costs O(n^2) in
// double. --check: relative error / (n eps max(1, ||A||_2)).
// --baseline: no vendor library has these functions; the baseline runs the
// same algorithm (same method, Padé/Taylor degree and scaling as hetla's run)
// on column-major arrays with the vendor BLAS/LAPACK on all threads, so the
// ratio compares hetla's products across devices with the vendor GEMM.
// JSON adds degree, method (matpoly), products, scaling and solves; flops =
// products * 2n^3 (+ the LU solve of expm).
#include <cmath>

#include "bench/common.hpp"
#include "checks_matfun.hpp"
#include "hetla/matfun.hpp"

namespace hetla::cli {
namespace {

// ---- host reference implementations (vendor BLAS, column-major, ld = n)

template <typename T> struct Host {
  int64_t n;
  int64_t products = 0;
  std::vector<T> make() const { return std::vector<T>(static_cast<std::size_t>(n * n), T(0)); }
  void gemm(T alpha, const std::vector<T>& A, const std::vector<T>& B, T beta, std::vector<T>& C) {
    vendor::gemm(Op::NoTrans, Op::NoTrans, n, n, n, alpha, A.data(), n, B.data(), n, beta, C.data(), n);
    ++products;
  }
  /// Y = beta Y + sum c_k X_k + alpha I
  void lincomb(T beta, std::vector<T>& Y, const std::vector<std::pair<T, const std::vector<T>*>>& terms, T alpha) {
    if (beta != T(1) || !terms.empty())
      for (std::size_t e = 0; e < Y.size(); ++e) {
      T y = beta == T(0) ? T(0) : beta * Y[e];
      for (const auto& t : terms) y += t.first * (*t.second)[e];
      Y[e] = y;
    }
    for (int64_t i = 0; i < n; ++i) Y[static_cast<std::size_t>(i + i * n)] += alpha;
  }
  /// P = sum a_i X^i by Horner or Paterson–Stockmeyer (the library's block size).
  void poly(const std::vector<T>& X, const std::vector<T>& a, std::vector<T>& P, PolyMethod method) {
    const int64_t d = static_cast<int64_t>(a.size()) - 1;
    if (d <= 1) {
      lincomb(T(0), P, d == 1 ? std::vector<std::pair<T, const std::vector<T>*>>{{a[1], &X}}
                              : std::vector<std::pair<T, const std::vector<T>*>>{}, d >= 0 ? a[0] : T(0));
      return;
    }
    std::vector<T> R = make(), Tmp = make();
    if (method == PolyMethod::Horner) {
      lincomb(T(0), R, {{a[static_cast<std::size_t>(d)], &X}}, a[static_cast<std::size_t>(d - 1)]);
      for (int64_t i = d - 2; i >= 0; --i) {
        gemm(T(1), R, X, T(0), Tmp);
        lincomb(T(1), Tmp, {}, a[static_cast<std::size_t>(i)]);
        std::swap(R, Tmp);
      }
      P = R;
      return;
    }
    int64_t s = 1;  // the block size minimising s - 1 + floor(d / s) - [s | d]
    auto cost = [d](int64_t b) { return (b - 1) + d / b - (d % b == 0 ? 1 : 0); };
    for (int64_t b = 2; b <= d; ++b)
      if (cost(b) < cost(s)) s = b;
    std::vector<std::vector<T>> pw(static_cast<std::size_t>(s + 1));
    pw[1] = X;
    for (int64_t k = 2; k <= s; ++k) {
      pw[static_cast<std::size_t>(k)] = make();
      gemm(T(1), pw[static_cast<std::size_t>(k - 1)], X, T(0), pw[static_cast<std::size_t>(k)]);
    }
    auto block = [&](int64_t k, std::vector<T>& Y) {
      std::vector<std::pair<T, const std::vector<T>*>> terms;
      for (int64_t j = 1; j < s && k * s + j <= d; ++j)
        terms.emplace_back(a[static_cast<std::size_t>(k * s + j)], &pw[static_cast<std::size_t>(j)]);
      lincomb(T(0), Y, terms, a[static_cast<std::size_t>(k * s)]);
    };
    const int64_t r = d / s;
    int64_t k = r - 1;
    if (d % s == 0) {
      block(r - 1, R);
      lincomb(T(1), R, {{a[static_cast<std::size_t>(d)], &pw[static_cast<std::size_t>(s)]}}, T(0));
      --k;
    } else {
      block(r, R);
    }
    for (; k >= 0; --k) {
      block(k, Tmp);
      gemm(T(1), R, pw[static_cast<std::size_t>(s)], T(1), Tmp);
      std::swap(R, Tmp);
    }
    P = R;
  }
};

template <typename T> T cst(double v) { return T(static_cast<real_t<T>>(v)); }

/// exp with the Padé degree m and scaling s hetla chose.
template <typename T> void host_expm(int64_t n, const std::vector<T>& A0, int m, int64_t s, std::vector<T>& E) {
  Host<T> h{n};
  std::vector<T> A = A0;
  for (auto& x : A) x *= static_cast<real_t<T>>(std::ldexp(1.0, static_cast<int>(-s)));
  std::vector<double> c(static_cast<std::size_t>(m + 1));
  c[0] = 1;
  for (int j = 0; j < m; ++j) c[j + 1] = c[j] * (m - j) / (static_cast<double>(2 * m - j) * (j + 1));
  auto C = [&](int j) { return cst<T>(c[static_cast<std::size_t>(j)]); };
  std::vector<T> U = h.make(), V = h.make(), Uo = h.make();
  if (m <= 9) {
    std::vector<std::vector<T>> ev(static_cast<std::size_t>((m - 1) / 2 + 1));
    ev[1] = h.make();
    h.gemm(T(1), A, A, T(0), ev[1]);
    for (int k = 2; k <= (m - 1) / 2; ++k) {
      ev[static_cast<std::size_t>(k)] = h.make();
      h.gemm(T(1), ev[static_cast<std::size_t>(k - 1)], ev[1], T(0), ev[static_cast<std::size_t>(k)]);
    }
    std::vector<std::pair<T, const std::vector<T>*>> uo, v;
    for (int k = 1; k <= (m - 1) / 2; ++k) {
      uo.emplace_back(C(2 * k + 1), &ev[static_cast<std::size_t>(k)]);
      v.emplace_back(C(2 * k), &ev[static_cast<std::size_t>(k)]);
    }
    h.lincomb(T(0), Uo, uo, C(1));
    h.lincomb(T(0), V, v, C(0));
  } else {
    std::vector<T> A2 = h.make(), A4 = h.make(), A6 = h.make(), W = h.make();
    h.gemm(T(1), A, A, T(0), A2);
    h.gemm(T(1), A2, A2, T(0), A4);
    h.gemm(T(1), A4, A2, T(0), A6);
    h.lincomb(T(0), W, {{C(13), &A6}, {C(11), &A4}, {C(9), &A2}}, T(0));
    h.lincomb(T(0), Uo, {{C(7), &A6}, {C(5), &A4}, {C(3), &A2}}, C(1));
    h.gemm(T(1), A6, W, T(1), Uo);
    h.lincomb(T(0), W, {{C(12), &A6}, {C(10), &A4}, {C(8), &A2}}, T(0));
    h.lincomb(T(0), V, {{C(6), &A6}, {C(4), &A4}, {C(2), &A2}}, C(0));
    h.gemm(T(1), A6, W, T(1), V);
  }
  h.gemm(T(1), A, Uo, T(0), U);
  h.lincomb(T(0), Uo, {{T(1), &V}, {T(-1), &U}}, T(0));
  h.lincomb(T(0), E, {{T(1), &V}, {T(1), &U}}, T(0));
  std::vector<lapack_int> ipiv(static_cast<std::size_t>(n));
  vendor::gesv(n, n, Uo.data(), n, ipiv.data(), E.data(), n);
  for (int64_t i = 0; i < s; ++i) {
    h.gemm(T(1), E, E, T(0), U);
    std::swap(E, U);
  }
}

/// cos / sin with the Taylor degree K (in A^2) and halvings s hetla chose.
template <typename T>
void host_trig(int64_t n, const std::vector<T>& A, bool sine, int K, int64_t s, std::vector<T>& F) {
  Host<T> h{n};
  std::vector<T> B = h.make();
  h.gemm(T(1), A, A, T(0), B);
  for (auto& x : B) x *= static_cast<real_t<T>>(std::ldexp(1.0, static_cast<int>(-2 * s)));
  std::vector<T> ac(static_cast<std::size_t>(K + 1)), as(static_cast<std::size_t>(K + 1));
  double f = 1;
  for (int k = 0; k <= K; ++k) {
    if (k > 0) f /= static_cast<double>(2 * k - 1) * (2 * k);
    ac[static_cast<std::size_t>(k)] = cst<T>(k % 2 ? -f : f);
    as[static_cast<std::size_t>(k)] = cst<T>((k % 2 ? -f : f) / (2 * k + 1));
  }
  std::vector<T> Cc = h.make(), tmp = h.make();
  if (!sine || s > 0) h.poly(B, ac, Cc, PolyMethod::PatersonStockmeyer);
  if (!sine) {
    for (int64_t i = 0; i < s; ++i) {
      h.gemm(T(2), Cc, Cc, T(0), tmp);
      h.lincomb(T(1), tmp, {}, T(-1));
      std::swap(Cc, tmp);
    }
    F = Cc;
    return;
  }
  std::vector<T> Sp = h.make();
  h.poly(B, as, Sp, PolyMethod::PatersonStockmeyer);
  h.gemm(cst<T>(std::ldexp(1.0, static_cast<int>(-s))), A, Sp, T(0), F);
  for (int64_t i = 0; i < s; ++i) {
    h.gemm(T(2), F, Cc, T(0), tmp);
    std::swap(F, tmp);
    if (i + 1 < s) {
      h.gemm(T(2), Cc, Cc, T(0), tmp);
      h.lincomb(T(1), tmp, {}, T(-1));
      std::swap(Cc, tmp);
    }
  }
}

Record add_extras(Record rec, const BenchConfig& c, int64_t degree, const char* method, const MatfunInfo& info) {
  rec.add("degree", degree, "deg")
      .add("method", method ? Value(std::string(method)) : Value(), "meth")
      .add("products", info.products, "prod")
      .add("scaling", method ? Value() : Value(info.scaling), "s")
      .add("solves", info.solves, "-");
  (void)c;
  return rec;
}

// ---- matpoly

template <typename T> Record run_matpoly(const BenchConfig& c) {
  const int64_t n = c.n, d = c.degree;
  LinalgResult r = start_result<T>(c, n, n, 0);
  const PolyMethod method = c.method == "horner" ? PolyMethod::Horner : PolyMethod::PatersonStockmeyer;
  auto X = bench::random_matrix<T>(n, n, std::max<int64_t>(1, n), 9100 + static_cast<uint64_t>(n));
  for (auto& x : X) x *= static_cast<real_t<T>>(2.0 / static_cast<double>(std::max<int64_t>(1, n)));
  const auto a = bench::random_matrix<T>(d + 1, 1, d + 1, 9200 + static_cast<uint64_t>(d));
  std::vector<T> P(static_cast<std::size_t>(n * n));
  MatfunInfo info;
  info.degree = static_cast<int>(d);
  r.seconds = best_time(c.repeat, [] {}, [&] {
    info.products = hetla::matpoly<T>(n, X.data(), std::max<int64_t>(1, n), d, a.data(), P.data(),
                                      std::max<int64_t>(1, n), method, {r.nb});
  });
  r.flops = flops::matfun<T>(static_cast<double>(n), static_cast<double>(info.products), 0);
  if (c.check) r.residual = bench::matpoly_residual(n, X.data(), n, a.data(), d, P.data(), n, 9300);
  if (c.baseline) {
    Host<T> h{n};
    std::vector<T> Pb = h.make();
    r.baseline_seconds = with_vendor_threads(c.threads, [&] {
      return best_time(c.repeat, [] {}, [&] { h.poly(X, a, Pb, method); });
    });
  }
  return add_extras(make_record(c, r), c, d, method == PolyMethod::Horner ? "horner" : "ps", info);
}

// ---- expm / cosm / sinm

enum class Fn { Exp, Cos, Sin };

template <typename T> Record run_fn(const BenchConfig& c, Fn fn) {
  using W = bench::wide_t<T>;
  const int64_t n = c.n;
  LinalgResult r = start_result<T>(c, n, n, 0);
  const auto M = bench::reflector_test_matrix<T>(n, 20.0, 5.0, 9400 + static_cast<uint64_t>(n));
  const auto A = bench::narrow<T>(n, M.apply([](W x) { return x; }), std::max<int64_t>(1, n));
  std::vector<T> F(static_cast<std::size_t>(n * n));
  MatfunInfo info;
  const Options o{r.nb};
  r.seconds = best_time(c.repeat, [] {}, [&] {
    const int64_t ld = std::max<int64_t>(1, n);
    info = fn == Fn::Exp ? hetla::expm<T>(n, A.data(), ld, F.data(), ld, o)
           : fn == Fn::Cos ? hetla::cosm<T>(n, A.data(), ld, F.data(), ld, o)
                           : hetla::sinm<T>(n, A.data(), ld, F.data(), ld, o);
  });
  r.flops = flops::matfun<T>(static_cast<double>(n), static_cast<double>(info.products),
                             static_cast<double>(info.solves));
  if (c.check) {
    const auto ref = M.apply([fn](W x) {
      return fn == Fn::Exp ? std::exp(x) : fn == Fn::Cos ? std::cos(x) : std::sin(x);
    });
    r.residual = bench::matfun_residual(n, F.data(), std::max<int64_t>(1, n), ref, M.d);
  }
  if (c.baseline && n > 0) {
    std::vector<T> Fb(static_cast<std::size_t>(n * n));
    r.baseline_seconds = with_vendor_threads(c.threads, [&] {
      return best_time(c.repeat, [] {}, [&] {
        if (fn == Fn::Exp) host_expm(n, A, info.degree, info.scaling, Fb);
        else host_trig(n, A, fn == Fn::Sin, info.degree, info.scaling, Fb);
      });
    });
  }
  return add_extras(make_record(c, r), c, info.degree, nullptr, info);
}

constexpr unsigned kFnOptions = kOptNb | kOptPrecision | kOptCheck | kOptBaseline | kOptRepeat | kOptThreads;

double fn_bytes(const BenchConfig& c) {  // about 12 n^2 in the library, inputs, baseline; check: 3 wide n^2
  const double n2 = static_cast<double>(c.n) * static_cast<double>(c.n);
  const double wide = c.precision == 's' || c.precision == 'd' ? 8.0 : 16.0;
  return scalar_bytes(c.precision, (c.baseline ? 22 : 14) * n2) + wide * 3 * n2;
}

const Registrar reg_matpoly(
    {.name = "matpoly",
     .summary = "matrix polynomial P = sum a_i X^i, --degree D, --method horner|ps (baseline: the same method "
                "with the vendor GEMM on all threads)",
     .options = kOptDegree | kOptMethod | kOptNb | kOptPrecision | kOptCheck | kOptBaseline | kOptRepeat |
                kOptThreads},
    []<typename T>(const BenchConfig& c) { return run_matpoly<T>(c); },
    [](const BenchConfig& c) {  // X, P, powers (about sqrt(d)), 2 buffers; baseline the same again
      const double n2 = static_cast<double>(c.n) * static_cast<double>(c.n);
      const double live = 4.0 + std::ceil(std::sqrt(static_cast<double>(std::max(c.degree, 1))));
      return scalar_bytes(c.precision, (c.baseline ? 2 : 1) * live * n2);
    });
const Registrar reg_expm({.name = "expm",
                          .summary = "matrix exponential, scaling and squaring with Pade (baseline: the same "
                                     "degree and scaling on the host with the vendor BLAS/LAPACK)",
                          .options = kFnOptions,
                          .default_n = 1000},
                         []<typename T>(const BenchConfig& c) { return run_fn<T>(c, Fn::Exp); }, fn_bytes);
const Registrar reg_cosm({.name = "cosm",
                          .summary = "matrix cosine, Taylor (Paterson-Stockmeyer) with double-angle recovery "
                                     "(baseline: the same degree and scaling on the host with the vendor BLAS)",
                          .options = kFnOptions,
                          .default_n = 1000},
                         []<typename T>(const BenchConfig& c) { return run_fn<T>(c, Fn::Cos); }, fn_bytes);
const Registrar reg_sinm({.name = "sinm",
                          .summary = "matrix sine, Taylor (Paterson-Stockmeyer) with double-angle recovery "
                                     "(baseline: the same degree and scaling on the host with the vendor BLAS)",
                          .options = kFnOptions,
                          .default_n = 1000},
                         []<typename T>(const BenchConfig& c) { return run_fn<T>(c, Fn::Sin); }, fn_bytes);

}  // namespace
}  // namespace hetla::cli
