// The body of hetla's own small Householder QR (small_householder.hpp),
// included by exactly two files: small_householder.cc (the build's default
// instruction set) and small_householder_avx2.cc (compiled for AVX2 and
// FMA). Everything here has internal linkage and uses only compiler
// built-ins, no library header: a function emitted from the AVX2 file must
// never be the one the linker keeps for the rest of the library, which also
// runs where AVX2 is absent.
//
// LAPACK's geqr2, one column at a time, its BLAS-2 calls fused: the
// reflector of column j (larfg: the norm below the diagonal, beta, tau, the
// scaled vector), then for each trailing column c, w = v^H c and c -= tau' w v
// (tau' = conj(tau): geqr2 applies H(j)^H) in two passes over the column
// while it is in L1; the update of column j + 1 also sums the squares of its
// rows below j + 1, the next reflector's norm, so that column is not read a
// third time. The sum of squares is taken as is where it cannot have lost
// accuracy to underflow or overflow (between safmin = tiny / eps and the
// largest finite number), else again with the entries divided by their
// largest magnitude (as dnrm2's scaling). Complex numbers are pairs of reals
// (std::complex's layout): one template over the real type R, Cplx set for
// complex matrices, lda in complex entries.
// Columns go 4 at a time (2 complex where two reflectors are applied), so
// that v is loaded once for them and their sums are independent chains;
// and two reflectors per pass (apply2) halve the passes over the trailing
// matrix, which at n = 128 is past L1: AVX2 build, busy machine, thread CPU
// time, us own / vendor (one thread), one reflector per pass d128 275 / 335,
// z128 658 / 756; two: d128 189 / 314, z128 392 / 614 (d16 1.6 / 3.3, d64
// 55 / 82, z16 6.2 / 13, z64 82 / 125).
#pragma once
#include <cstdint>
#include <type_traits>

// Vectors passed between these internal functions: GCC notes that their ABI
// differs with AVX, which no caller outside this file sees.
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace {
namespace householder {

// Vectors of 32 bytes where the build has AVX, else of 16: the default
// build's 32-byte vectors, split by GCC into SSE2 halves, ran the complex
// update out of registers (zgeqrf 128: 6100 us against 640 for the vendor's
// AVX2 code; with 16 bytes 735 against 610, z64 117 / 120, d128 202 / 278;
// busy machine, one thread).
#if defined(__AVX__)
template <typename R> struct Real;
template <> struct Real<double> {
  typedef double V __attribute__((vector_size(32)));
  typedef double U __attribute__((vector_size(32), aligned(8), may_alias));
  static constexpr int W = 4;
  static constexpr double tiny = 0x1p-1022, eps = 0x1p-53, huge = 0x1.fffffffffffffp1023;
  /// (re, im) pairs swapped: (im, re).
  static V swap(V v) { return __builtin_shufflevector(v, v, 1, 0, 3, 2); }
  static V alternate(double even, double odd) { return V{even, odd, even, odd}; }
};
template <> struct Real<float> {
  typedef float V __attribute__((vector_size(32)));
  typedef float U __attribute__((vector_size(32), aligned(4), may_alias));
  static constexpr int W = 8;
  static constexpr float tiny = 0x1p-126f, eps = 0x1p-24f, huge = 0x1.fffffep127f;
  static V swap(V v) { return __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6); }
  static V alternate(float even, float odd) { return V{even, odd, even, odd, even, odd, even, odd}; }
};
#else
template <typename R> struct Real;
template <> struct Real<double> {
  typedef double V __attribute__((vector_size(16)));
  typedef double U __attribute__((vector_size(16), aligned(8), may_alias));
  static constexpr int W = 2;
  static constexpr double tiny = 0x1p-1022, eps = 0x1p-53, huge = 0x1.fffffffffffffp1023;
  static V swap(V v) { return __builtin_shufflevector(v, v, 1, 0); }
  static V alternate(double even, double odd) { return V{even, odd}; }
};
template <> struct Real<float> {
  typedef float V __attribute__((vector_size(16)));
  typedef float U __attribute__((vector_size(16), aligned(4), may_alias));
  static constexpr int W = 4;
  static constexpr float tiny = 0x1p-126f, eps = 0x1p-24f, huge = 0x1.fffffep127f;
  static V swap(V v) { return __builtin_shufflevector(v, v, 1, 0, 3, 2); }
  static V alternate(float even, float odd) { return V{even, odd, even, odd}; }
};
#endif

template <typename R> inline typename Real<R>::V load(const R* p) {
  return *reinterpret_cast<const typename Real<R>::U*>(p);
}
template <typename R> inline void store(R* p, typename Real<R>::V v) {
  *reinterpret_cast<typename Real<R>::U*>(p) = v;
}
template <typename R> inline R sum(typename Real<R>::V v) {
  R s = 0;
  for (int i = 0; i < Real<R>::W; ++i) s += v[i];
  return s;
}
template <typename R> inline R abs(R x) { return __builtin_fabs(x); }
template <typename R> inline R sqrt(R x) { return __builtin_sqrt(x); }
template <typename R> inline R copysign(R x, R y) { return __builtin_copysign(x, y); }
template <typename R> inline R max(R a, R b) { return a < b ? b : a; }

/// larfg's safmin: dlamch('S') / dlamch('E').
template <typename R> constexpr R safmin() { return Real<R>::tiny / Real<R>::eps; }

/// The sum of the squares of x[0 .. len).
template <typename R> R sum_squares(const R* x, int64_t len) {
  using L = Real<R>;
  typename L::V a = {}, b = {};
  int64_t i = 0;
  for (; i + 2 * L::W <= len; i += 2 * L::W) {
    const auto u = load(x + i), v = load(x + i + L::W);
    a += u * u;
    b += v * v;
  }
  for (; i + L::W <= len; i += L::W) {
    const auto u = load(x + i);
    a += u * u;
  }
  R s = sum<R>(a + b);
  for (; i < len; ++i) s += x[i] * x[i];
  return s;
}

/// ||x[0 .. len)||_2 from ss, the plain sum of its squares: that sum where no
/// square can have lost accuracy (underflow below safmin, overflow), else
/// recomputed with the entries scaled by their largest magnitude.
template <typename R> R norm(const R* x, int64_t len, R ss) {
  if (ss >= safmin<R>() && ss <= Real<R>::huge) return sqrt(ss);
  if (ss != ss) return ss;  // NaN
  R big = 0;
  for (int64_t i = 0; i < len; ++i) big = max(big, abs(x[i]));
  if (big == 0 || big > Real<R>::huge) return big;
  R s = 0;
  for (int64_t i = 0; i < len; ++i) {
    const R q = x[i] / big;  // a division: 1 / big overflows for subnormal big
    s += q * q;
  }
  return big * sqrt(s);
}

/// LAPACK's lapy2: sqrt(x^2 + y^2) without needless overflow (NaN kept).
template <typename R> R lapy2(R x, R y) {
  if (x != x) return x;
  if (y != y) return y;
  const R xa = abs(x), ya = abs(y), w = max(xa, ya), z = xa < ya ? xa : ya;
  if (z == 0 || w > Real<R>::huge) return w;
  const R q = z / w;
  return w * sqrt(R(1) + q * q);
}
/// LAPACK's lapy3: sqrt(x^2 + y^2 + z^2) without needless overflow.
template <typename R> R lapy3(R x, R y, R z) {
  const R xa = abs(x), ya = abs(y), za = abs(z), w = max(max(xa, ya), za);
  if (w == 0 || w > Real<R>::huge) return xa + ya + za;
  const R p = xa / w, q = ya / w, r = za / w;
  return w * sqrt(p * p + q * q + r * r);
}

/// x[0 .. len) *= s (real s; complex x as pairs of reals alike).
template <typename R> void scale(R* x, int64_t len, R s) {
  using L = Real<R>;
  int64_t i = 0;
  for (; i + L::W <= len; i += L::W) store(x + i, load(x + i) * s);
  for (; i < len; ++i) x[i] *= s;
}
/// The complex x[0 .. len / 2) *= (sr + i si).
template <typename R> void scale_complex(R* x, int64_t len, R sr, R si) {
  using L = Real<R>;
  const typename L::V im = L::alternate(-si, si);
  int64_t i = 0;
  for (; i + L::W <= len; i += L::W) {
    const auto v = load(x + i);
    store(x + i, v * sr + L::swap(v) * im);
  }
  for (; i < len; i += 2) {
    const R re = x[i], ii = x[i + 1];
    x[i] = sr * re - si * ii;
    x[i + 1] = sr * ii + si * re;
  }
}

/// C := H^H C for NC columns of C (column q at c + q ld, from row j):
/// w = v^H C (v's leading 1 at row j, the rest at v[0 .. len) reals), then
/// C -= conj(tau) v w. Columns go NC at a time so that each loads v once and
/// their sums are independent chains. Where Norm, returns the sum of the
/// squares of column 0's updated entries below row j + 1 (the next
/// reflector's norm), its first entry then updated apart.
template <typename R, bool Cplx, int NC, bool Norm>
R apply(const R* v, R* c, int64_t ld, int64_t len, R tr, R ti) {
  using L = Real<R>;
  using V = typename L::V;
  constexpr int E = Cplx ? 2 : 1;
  V a[NC] = {}, e[NC] = {};
  R wr[NC], wi[NC];
  int64_t i = 0;
  for (; i + L::W <= len; i += L::W) {
    const V v0 = load(v + i);
    V s0 = {};
    if constexpr (Cplx) s0 = L::swap(v0);
    for (int q = 0; q < NC; ++q) {
      const V c0 = load(c + q * ld + E + i);
      a[q] += v0 * c0;
      if constexpr (Cplx) e[q] += s0 * c0;
    }
  }
  // conj(v) c = (vr cr + vi ci) + i (vr ci - vi cr): the imaginary part is
  // the odd lanes of swap(v) c less the even ones.
  for (int q = 0; q < NC; ++q) {
    const R* cq = c + q * ld;
    R re = cq[0] + sum<R>(a[q]), im = 0;
    if constexpr (Cplx) {
      im = cq[1] + sum<R>(e[q] * L::alternate(-1, 1));
      for (int64_t k = i; k < len; k += 2) {
        re += v[k] * cq[E + k] + v[k + 1] * cq[E + k + 1];
        im += v[k] * cq[E + k + 1] - v[k + 1] * cq[E + k];
      }
    } else {
      for (int64_t k = i; k < len; ++k) re += v[k] * cq[E + k];
    }
    // t = conj(tau) w
    wr[q] = tr * re + ti * im;
    wi[q] = Cplx ? tr * im - ti * re : R(0);
    c[q * ld] -= wr[q];
    if constexpr (Cplx) c[q * ld + 1] -= wi[q];
  }
  V im[NC];
  for (int q = 0; q < NC; ++q) im[q] = L::alternate(-wi[q], wi[q]);
  auto update = [&](int64_t k, R* cq, int q) {  // one entry
    if constexpr (Cplx) {
      cq[E + k] -= wr[q] * v[k] - wi[q] * v[k + 1];
      cq[E + k + 1] -= wr[q] * v[k + 1] + wi[q] * v[k];
    } else {
      cq[E + k] -= wr[q] * v[k];
    }
  };
  i = 0;
  if constexpr (Norm) {
    if (len >= E)
      for (int q = 0; q < NC; ++q) update(0, c + q * ld, q);
    i = E;
  }
  V sa = {};
  for (; i + L::W <= len; i += L::W) {
    const V v0 = load(v + i);
    V s0 = {};
    if constexpr (Cplx) s0 = L::swap(v0);
    for (int q = 0; q < NC; ++q) {
      R* cq = c + q * ld + E + i;
      V c0 = load(cq) - v0 * wr[q];
      if constexpr (Cplx) c0 -= s0 * im[q];
      store(cq, c0);
      if (Norm && q == 0) sa += c0 * c0;
    }
  }
  R ss = sum<R>(sa);
  for (int q = 0; q < NC; ++q)
    for (int64_t k = i; k < len; k += E) {
      R* cq = c + q * ld;
      update(k, cq, q);
      if (Norm && q == 0) {
        ss += cq[E + k] * cq[E + k];
        if constexpr (Cplx) ss += cq[E + k + 1] * cq[E + k + 1];
      }
    }
  return ss;
}

/// (cr + i ci) * (dr + i di) into (r, i); the real case without the i parts.
template <typename R, bool Cplx> inline void mul(R cr, R ci, R dr, R di, R& r, R& i) {
  r = cr * dr - (Cplx ? ci * di : R(0));
  i = Cplx ? cr * di + ci * dr : R(0);
}

/// C := H2^H H1^H C for NC columns of C (column q at c + q ld, from row j)
/// and the two reflectors of columns j and j + 1: v1 (1 at row j, u1 = its
/// row j + 1, the rest at v1[0 ..)), v2 (1 at row j + 1, the rest at
/// v2[0 ..)), len reals from row j + 2. One pass for both products v^H C and
/// one for C -= v1 t1 + v2 t2, with t1 = conj(tau1) v1^H C and t2 =
/// conj(tau2) (v2^H C - (v2^H v1) t1) (H1^H applied first): each entry of C
/// loaded and stored once for two reflectors. Norm as apply's, for column 0
/// below row j + 2.
template <typename R, bool Cplx, int NC, bool Norm>
R apply2(const R* v1, const R* u1, const R* v2, R* c, int64_t ld, int64_t len, const R* tau1, const R* tau2,
         const R* s) {
  using L = Real<R>;
  using V = typename L::V;
  constexpr int E = Cplx ? 2 : 1;
  V a[NC] = {}, e[NC] = {}, b[NC] = {}, f[NC] = {};
  int64_t i = 0;
  for (; i + L::W <= len; i += L::W) {
    const V p0 = load(v1 + i), r0 = load(v2 + i);
    V p1 = {}, r1 = {};
    if constexpr (Cplx) p1 = L::swap(p0), r1 = L::swap(r0);
    for (int q = 0; q < NC; ++q) {
      const V c0 = load(c + q * ld + 2 * E + i);
      a[q] += p0 * c0;
      b[q] += r0 * c0;
      if constexpr (Cplx) {
        e[q] += p1 * c0;
        f[q] += r1 * c0;
      }
    }
  }
  R t1r[NC], t1i[NC], t2r[NC], t2i[NC];
  const R t1c = Cplx ? -tau1[1] : R(0), t2c = Cplx ? -tau2[1] : R(0);  // conj(tau)'s imaginary parts
  for (int q = 0; q < NC; ++q) {
    const R* cq = c + q * ld;
    const R* x = cq + 2 * E;
    R w1r = sum<R>(a[q]), w1i = 0, w2r = sum<R>(b[q]), w2i = 0;
    if constexpr (Cplx) {
      w1i = sum<R>(e[q] * L::alternate(-1, 1));
      w2i = sum<R>(f[q] * L::alternate(-1, 1));
      for (int64_t k = i; k < len; k += 2) {
        w1r += v1[k] * x[k] + v1[k + 1] * x[k + 1];
        w1i += v1[k] * x[k + 1] - v1[k + 1] * x[k];
        w2r += v2[k] * x[k] + v2[k + 1] * x[k + 1];
        w2i += v2[k] * x[k + 1] - v2[k + 1] * x[k];
      }
      // rows j (v1: 1) and j + 1 (v1: u1, v2: 1)
      w1r += cq[0] + u1[0] * cq[E] + u1[1] * cq[E + 1];
      w1i += cq[1] + u1[0] * cq[E + 1] - u1[1] * cq[E];
      w2r += cq[E];
      w2i += cq[E + 1];
    } else {
      for (int64_t k = i; k < len; ++k) {
        w1r += v1[k] * x[k];
        w2r += v2[k] * x[k];
      }
      w1r += cq[0] + u1[0] * cq[1];
      w2r += cq[1];
    }
    mul<R, Cplx>(tau1[0], t1c, w1r, w1i, t1r[q], t1i[q]);
    R pr, pi;
    mul<R, Cplx>(s[0], Cplx ? s[1] : R(0), t1r[q], t1i[q], pr, pi);
    mul<R, Cplx>(tau2[0], t2c, w2r - pr, w2i - pi, t2r[q], t2i[q]);
  }
  V m1[NC], m2[NC];
  for (int q = 0; q < NC; ++q) m1[q] = L::alternate(-t1i[q], t1i[q]), m2[q] = L::alternate(-t2i[q], t2i[q]);
  for (int q = 0; q < NC; ++q) {  // rows j and j + 1
    R* cq = c + q * ld;
    R pr, pi;
    mul<R, Cplx>(t1r[q], t1i[q], u1[0], Cplx ? u1[1] : R(0), pr, pi);
    cq[0] -= t1r[q];
    cq[E] -= pr + t2r[q];
    if constexpr (Cplx) {
      cq[1] -= t1i[q];
      cq[E + 1] -= pi + t2i[q];
    }
  }
  auto update = [&](int64_t k, R* x, int q) {  // one entry of column q (x: its row j + 2)
    if constexpr (Cplx) {
      x[k] -= t1r[q] * v1[k] - t1i[q] * v1[k + 1] + t2r[q] * v2[k] - t2i[q] * v2[k + 1];
      x[k + 1] -= t1r[q] * v1[k + 1] + t1i[q] * v1[k] + t2r[q] * v2[k + 1] + t2i[q] * v2[k];
    } else {
      x[k] -= t1r[q] * v1[k] + t2r[q] * v2[k];
    }
  };
  i = 0;
  if constexpr (Norm) {
    if (len >= E)
      for (int q = 0; q < NC; ++q) update(0, c + q * ld + 2 * E, q);
    i = E;
  }
  V sa = {};
  for (; i + L::W <= len; i += L::W) {
    const V p0 = load(v1 + i), r0 = load(v2 + i);
    V p1 = {}, r1 = {};
    if constexpr (Cplx) p1 = L::swap(p0), r1 = L::swap(r0);
    for (int q = 0; q < NC; ++q) {
      R* x = c + q * ld + 2 * E + i;
      V c0 = load(x) - p0 * t1r[q] - r0 * t2r[q];
      if constexpr (Cplx) c0 -= p1 * m1[q] + r1 * m2[q];
      store(x, c0);
      if (Norm && q == 0) sa += c0 * c0;
    }
  }
  R ss = sum<R>(sa);
  for (int q = 0; q < NC; ++q) {
    R* x = c + q * ld + 2 * E;
    for (int64_t k = i; k < len; k += E) {
      update(k, x, q);
      if (Norm && q == 0) {
        ss += x[k] * x[k];
        if constexpr (Cplx) ss += x[k + 1] * x[k + 1];
      }
    }
  }
  return ss;
}

/// larfg on column j of A (rows j .. m): R(j, j) = beta, the scaled vector
/// below it, tau(j) into tau[0 .. E); ss: the sum of the squares below the
/// diagonal.
template <typename R, bool Cplx> void reflector(int64_t m, int64_t j, R* A, int64_t ld, R ss, R* tau) {
  constexpr int E = Cplx ? 2 : 1;
  const R sfmin = safmin<R>(), rsafmn = R(1) / sfmin;
  R* d = A + j * ld + j * E;  // A(j, j)
  R* x = d + E;
  const int64_t len = (m - j - 1) * E;
  R xnorm = norm(x, len, ss);
  R alphr = d[0], alphi = Cplx ? d[1] : R(0), tr = 0, ti = 0;
  if (xnorm != 0 || alphi != 0) {
    R beta = -copysign(Cplx ? lapy3(alphr, alphi, xnorm) : lapy2(alphr, xnorm), alphr);
    int knt = 0;
    if (abs(beta) < sfmin) {  // xnorm and beta may be inaccurate: scaled up and again
      do {
        ++knt;
        scale(x, len, rsafmn);
        beta *= rsafmn;
        alphr *= rsafmn;
        alphi *= rsafmn;
      } while (abs(beta) < sfmin && knt < 20);
      xnorm = norm(x, len, sum_squares(x, len));
      beta = -copysign(Cplx ? lapy3(alphr, alphi, xnorm) : lapy2(alphr, xnorm), alphr);
    }
    tr = (beta - alphr) / beta;
    if constexpr (Cplx) {
      ti = -alphi / beta;
      // x *= 1 / (alpha - beta), the quotient as Smith's (zladiv's robust division)
      const R ar = alphr - beta, ai = alphi;
      R sr, si;
      if (abs(ar) >= abs(ai)) {
        const R r = ai / ar, den = ar + ai * r;
        sr = R(1) / den;
        si = -r / den;
      } else {
        const R r = ar / ai, den = ar * r + ai;
        sr = r / den;
        si = R(-1) / den;
      }
      scale_complex(x, len, sr, si);
    } else {
      scale(x, len, R(1) / (alphr - beta));
    }
    for (int i = 0; i < knt; ++i) beta *= sfmin;
    d[0] = beta;
    if constexpr (Cplx) d[1] = 0;
  }
  tau[0] = tr;
  if constexpr (Cplx) tau[1] = ti;
}

/// apply or apply2 on `left` columns from c, NC at a time (the first group
/// with Norm where `norm`, its sum returned).
template <int NC, typename F> inline void by_groups(int64_t left, bool norm, F&& f) {
  int64_t done = 0;
  if (norm && left > 0) {
    switch (left < NC ? left : NC) {
      case 1: f(std::integral_constant<int, 1>{}, std::true_type{}, 0); done = 1; break;
      case 2: f(std::integral_constant<int, 2>{}, std::true_type{}, 0); done = 2; break;
      case 3: if constexpr (NC >= 3) { f(std::integral_constant<int, 3>{}, std::true_type{}, 0); done = 3; } break;
      default: f(std::integral_constant<int, NC>{}, std::true_type{}, 0); done = NC; break;
    }
  }
  for (; done + NC <= left; done += NC) f(std::integral_constant<int, NC>{}, std::false_type{}, done);
  switch (left - done) {
    case 1: f(std::integral_constant<int, 1>{}, std::false_type{}, done); break;
    case 2: if constexpr (NC > 2) f(std::integral_constant<int, 2>{}, std::false_type{}, done); break;
    case 3: if constexpr (NC > 3) f(std::integral_constant<int, 3>{}, std::false_type{}, done); break;
    default: break;
  }
}

/// LAPACK's geqr2 of the m x n matrix A (leading dimension lda, in entries:
/// complex ones are two reals when Cplx), tau of min(m, n) entries. The
/// reflectors go two at a time (apply2) where two are left.
template <typename R, bool Cplx> void geqrf(int64_t m, int64_t n, R* A, int64_t lda, R* tau) {
  constexpr int E = Cplx ? 2 : 1;
  // Columns per group: the real case's 4 x 2 sums fit AVX2's 16 registers,
  // the complex one's are twice as many.
  constexpr int NC1 = 4, NC2 = Cplx ? 2 : 4;
  const int64_t ld = lda * E, k = m < n ? m : n;
  R ss = 0;  // the squares of column j's rows below j, summed by the last update
  bool have_ss = false;
  for (int64_t j = 0; j < k;) {
    R* d = A + j * ld + j * E;  // A(j, j)
    R* x = d + E;
    const int64_t len = (m - j - 1) * E;
    reflector<R, Cplx>(m, j, A, ld, have_ss ? ss : sum_squares(x, len), tau + j * E);
    have_ss = false;
    const R* t1 = tau + j * E;
    if (j + 1 < k && j + 2 < n) {
      // Column j + 1 by H1, its reflector, then both on the columns right of it.
      R* c = d + ld;
      ss = apply<R, Cplx, 1, true>(x, c, ld, len, t1[0], Cplx ? t1[1] : R(0));
      reflector<R, Cplx>(m, j + 1, A, ld, ss, tau + (j + 1) * E);
      const R* t2 = tau + (j + 1) * E;
      // s = v2^H v1 (rows from j + 1: v2's 1 there)
      R s[2] = {x[0], Cplx ? x[1] : R(0)};
      R* v2 = c + 2 * E;
      const int64_t len2 = len - E;
      R wr = 0, wi = 0;
      for (int64_t i = 0; i < len2; i += E) {
        wr += v2[i] * x[E + i] + (Cplx ? v2[i + 1] * x[E + i + 1] : R(0));
        if constexpr (Cplx) wi += v2[i] * x[E + i + 1] - v2[i + 1] * x[E + i];
      }
      s[0] += wr;
      s[1] += wi;
      const bool norm = j + 2 < k;
      R* c2 = c + ld;
      by_groups<NC2>(n - j - 2, norm, [&](auto nc, auto with_norm, int64_t at) {
        const R got = apply2<R, Cplx, nc, with_norm>(x + E, x, v2, c2 + at * ld, ld, len2, t1, t2, s);
        if (with_norm) ss = got;
      });
      have_ss = norm;
      j += 2;
    } else {
      const R tr = t1[0], ti = Cplx ? t1[1] : R(0);
      const bool norm = j + 1 < k;
      if (tr != 0 || ti != 0) {
        by_groups<NC1>(n - j - 1, norm, [&](auto nc, auto with_norm, int64_t at) {
          const R got = apply<R, Cplx, nc, with_norm>(x, d + ld + at * ld, ld, len, tr, ti);
          if (with_norm) ss = got;
        });
        have_ss = norm;
      }
      j += 1;
    }
  }
}

}  // namespace householder
}  // namespace
