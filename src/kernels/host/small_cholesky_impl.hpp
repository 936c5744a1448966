// The body of hetla's own small Cholesky (small_cholesky.hpp), included by
// exactly two files: small_cholesky.cc (the build's default instruction set)
// and small_cholesky_avx2.cc (compiled for AVX2 and FMA). Everything here has
// internal linkage and uses only compiler built-ins, no library header: a
// function emitted from the AVX2 file must never be the one the linker keeps
// for the rest of the library, which also runs where AVX2 is absent.
//
// Left-looking by blocks of 4 columns (LAPACK's Crout order): a block's
// columns take the updates of all columns left of it as a register-blocked
// product (8 accumulators of 32 bytes, 16 without AVX: 2 row vectors x 4
// columns, one multiply-add per load pair), then its 4 x 4 diagonal block is factored and
// the rows below are solved while still in registers. Each entry is loaded
// and stored once per block; nothing is shared between callers, nothing
// allocated, no lock taken.
#pragma once
#include <cstdint>

#include "kernels/host/small_vectors_impl.hpp"

// Vectors of 32 bytes passed between these internal functions in the default
// build: GCC notes that their ABI differs with AVX, which no caller outside
// this file sees.
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace {

/// The vector of the lower factorization and of complex: 32 bytes with AVX,
/// else 16. SSE2's 16 registers of 16 bytes do not hold 8 accumulators of 32
/// bytes: the default build spilled them in the loop, dpotrf n = 64 in 72 us
/// and zpotrf in 358 against OpenBLAS's 10 and 24 (8 and 30 on 16 bytes).
template <typename T> struct Lanes {
#ifdef __AVX__
  typedef T V __attribute__((vector_size(32)));
#else
  typedef T V __attribute__((vector_size(16)));
#endif
};

using small_vectors::load;
using small_vectors::store;

/// Columns per block.
constexpr int kCols = 4;
/// A vector of kCols rows (16 bytes of float, 32 of double): the upper
/// factorization's, and the lower one's last rows of float.
template <typename T> struct Rows {
  typedef T V __attribute__((vector_size(kCols * sizeof(T))));
};

/// The largest order the upper factorization takes (its transposed block
/// rows live on the stack: 4 KiB in double).
constexpr int64_t kOwnOrderMax = 128;

/// acc = the block's columns j0 .. j0 + NC of R vectors of rows from row i,
/// less the sum over p < j0 of L(rows, p) L(j0 + c, p).
template <typename V, int R, int NC, typename T>
inline void update(int64_t i, int64_t j0, const T* A, int64_t lda, V (&acc)[R][NC]) {
  constexpr int W = sizeof(V) / sizeof(T);
  for (int c = 0; c < NC; ++c)
    for (int r = 0; r < R; ++r) acc[r][c] = load<V>(A + i + r * W + (j0 + c) * lda);
  for (int64_t p = 0; p < j0; ++p) {
    const T* col = A + p * lda;
    V a[R];
    for (int r = 0; r < R; ++r) a[r] = load<V>(col + i + r * W);
    for (int c = 0; c < NC; ++c) {
      const T b = col[j0 + c];
      for (int r = 0; r < R; ++r) acc[r][c] -= a[r] * b;
    }
  }
}

/// The rows from i of the block: updated, then X := X L_jj^-T with the
/// factored diagonal block L (NC x NC) and its reciprocal diagonal.
template <typename V, int R, int NC, typename T>
inline void update_solve(int64_t i, int64_t j0, T* A, int64_t lda, const T (&L)[kCols][kCols], const T (&inv)[kCols]) {
  constexpr int W = sizeof(V) / sizeof(T);
  V acc[R][NC];
  update<V, R, NC>(i, j0, A, lda, acc);
  for (int c = 0; c < NC; ++c) {
    for (int d = 0; d < c; ++d)
      for (int r = 0; r < R; ++r) acc[r][c] -= acc[r][d] * L[c][d];
    for (int r = 0; r < R; ++r) acc[r][c] *= inv[c];
  }
  for (int c = 0; c < NC; ++c)
    for (int r = 0; r < R; ++r) store(A + i + r * W + (j0 + c) * lda, acc[r][c]);
}

/// Factors block j0 (NC columns) of an n x n lower Cholesky; LAPACK's info.
template <int NC, typename T> int64_t block(int64_t n, int64_t j0, T* A, int64_t lda) {
  using V = typename Lanes<T>::V;
  constexpr int W = sizeof(V) / sizeof(T);
  // The top rows (the diagonal block, and the rows after it up to one
  // vector): updated as vectors where they fit, else one row at a time.
  constexpr int Top = W > kCols ? W : kCols;  // 2 vectors of 16 bytes of double
  constexpr int TR = Top / W;
  const int top = n - j0 < Top ? static_cast<int>(n - j0) : Top;
  T buf[Top][NC] = {};
  if (top == Top) {
    V acc[TR][NC];
    update<V, TR, NC>(j0, j0, A, lda, acc);
    for (int c = 0; c < NC; ++c)
      for (int r = 0; r < TR; ++r)
        for (int k = 0; k < W; ++k) buf[r * W + k][c] = acc[r][c][k];
  } else {
    for (int r = 0; r < top; ++r) {
      T acc[1][NC];
      update<T, 1, NC>(j0 + r, j0, A, lda, acc);
      for (int c = 0; c < NC; ++c) buf[r][c] = acc[0][c];
    }
  }
  // Unblocked Cholesky of the top rows (right-looking inside the block).
  T L[kCols][kCols] = {}, inv[kCols] = {};
  int64_t info = 0;
  for (int c = 0; c < NC && !info; ++c) {
    const T d = buf[c][c];
    if (!(d > T(0))) {  // also NaN
      info = j0 + c + 1;
      break;
    }
    const T s = __builtin_sqrt(d);
    inv[c] = T(1) / s;
    buf[c][c] = s;
    for (int r = c + 1; r < top; ++r) buf[r][c] *= inv[c];
    for (int e = c + 1; e < NC; ++e)
      for (int r = e; r < top; ++r) buf[r][e] -= buf[r][c] * buf[e][c];
  }
  for (int c = 0; c < NC; ++c)
    for (int r = c; r < top; ++r) A[j0 + r + (j0 + c) * lda] = buf[r][c];
  if (info) return info;
  for (int c = 0; c < NC; ++c)
    for (int d = 0; d <= c; ++d) L[c][d] = buf[c][d];
  int64_t i = j0 + top;
  for (; i + 2 * W <= n; i += 2 * W) update_solve<V, 2, NC>(i, j0, A, lda, L, inv);
  for (; i + W <= n; i += W) update_solve<V, 1, NC>(i, j0, A, lda, L, inv);
  if constexpr (W > kCols)  // float: 4 rows left of 8 are a vector too
    for (; i + kCols <= n; i += kCols) update_solve<typename Rows<T>::V, 1, NC>(i, j0, A, lda, L, inv);
  for (; i < n; ++i) update_solve<T, 1, NC>(i, j0, A, lda, L, inv);
  return 0;
}

/// A = L L^T of order n in the lower triangle (the upper one untouched);
/// LAPACK's info. T: float or double.
template <typename T> int64_t potrf_lower(int64_t n, T* A, int64_t lda) {
  for (int64_t j0 = 0; j0 < n; j0 += kCols) {
    int64_t info = 0;
    switch (n - j0 < kCols ? n - j0 : kCols) {
      case 1: info = block<1>(n, j0, A, lda); break;
      case 2: info = block<2>(n, j0, A, lda); break;
      case 3: info = block<3>(n, j0, A, lda); break;
      default: info = block<kCols>(n, j0, A, lda); break;
    }
    if (info) return info;
  }
  return 0;
}

/// acc[q] = A(k0 .. k0 + kCols, j + q) less the sum over p < k0 of
/// U(p, k0 ..) U(p, j + q): vectors over the block's rows, the block's
/// columns of U transposed into X (X[p] = U(p, k0 .. k0 + kCols)), each
/// U(p, j + q) broadcast. Rows of column j + q past row `last` are not read
/// (the diagonal block's lower triangle): they start at 0.
template <int NJ, typename V, typename T>
inline void update_rows(int64_t k0, const T* A, int64_t lda, const V* X, int64_t j, int64_t last, V (&acc)[NJ]) {
  for (int q = 0; q < NJ; ++q) {
    if (last - k0 >= kCols - 1) {
      acc[q] = load<V>(A + k0 + (j + q) * lda);
    } else {  // built apart: element writes into acc[q] read to GCC 12 as a use of it unset
      V v{};
      for (int c = 0; c <= last + q - k0 && c < kCols; ++c) v[c] = A[k0 + c + (j + q) * lda];
      acc[q] = v;
    }
  }
  for (int64_t p = 0; p < k0; ++p)
    for (int q = 0; q < NJ; ++q) acc[q] -= X[p] * A[p + (j + q) * lda];
}

/// Block k0 (NC rows of U) of an n x n upper Cholesky; LAPACK's info. X:
/// room for k0 rows.
template <int NC, typename T> int64_t block_upper(int64_t n, int64_t k0, T* A, int64_t lda, typename Rows<T>::V* X) {
  using V = typename Rows<T>::V;
  for (int64_t p = 0; p < k0; ++p) {
    X[p] = V{};
    for (int c = 0; c < NC; ++c) X[p][c] = A[p + (k0 + c) * lda];
  }
  T U[kCols][kCols] = {}, inv[kCols] = {};
  for (int e = 0; e < NC; ++e) {  // the diagonal block's column k0 + e, rows <= e
    V acc[1];
    update_rows<1>(k0, A, lda, X, k0 + e, k0 + e, acc);
    for (int c = 0; c <= e; ++c) U[c][e] = acc[0][c];
  }
  int64_t info = 0;
  for (int c = 0; c < NC; ++c) {
    const T d = U[c][c];
    if (!(d > T(0))) {  // also NaN
      info = k0 + c + 1;
      break;
    }
    const T s = __builtin_sqrt(d);
    inv[c] = T(1) / s;
    U[c][c] = s;
    for (int e = c + 1; e < NC; ++e) U[c][e] *= inv[c];
    for (int r = c + 1; r < NC; ++r)
      for (int e = r; e < NC; ++e) U[r][e] -= U[c][r] * U[c][e];
  }
  for (int e = 0; e < NC; ++e)
    for (int c = 0; c <= e; ++c) A[k0 + c + (k0 + e) * lda] = U[c][e];
  if (info) return info;
  // The block's rows right of it: U_kk^T x = the updated column, by
  // substitution; a full block of rows loads and stores as one vector.
  constexpr int NJ = 4;
  auto solve = [&](const V& a, int64_t j) {
    T x[kCols];
    for (int c = 0; c < NC; ++c) {
      T v = a[c];
      for (int d = 0; d < c; ++d) v -= U[d][c] * x[d];
      x[c] = v * inv[c];
    }
    for (int c = 0; c < NC; ++c) A[k0 + c + j * lda] = x[c];
  };
  const int64_t last = k0 + NC - 1;  // rows past it belong to the next blocks
  int64_t j = k0 + NC;
  for (; j + NJ <= n; j += NJ) {
    V acc[NJ];
    update_rows<NJ>(k0, A, lda, X, j, NC == kCols ? n : last, acc);
    for (int q = 0; q < NJ; ++q) solve(acc[q], j + q);
  }
  for (; j < n; ++j) {
    V acc[1];
    update_rows<1>(k0, A, lda, X, j, NC == kCols ? n : last, acc);
    solve(acc[0], j);
  }
  return 0;
}

/// A = U^T U of order n in the upper triangle (the lower one untouched);
/// LAPACK's info. T: float or double.
template <typename T> int64_t potrf_upper(int64_t n, T* A, int64_t lda) {
  typename Rows<T>::V X[kOwnOrderMax];
  if (n > kOwnOrderMax) return -1;
  for (int64_t k0 = 0; k0 < n; k0 += kCols) {
    int64_t info = 0;
    switch (n - k0 < kCols ? n - k0 : kCols) {
      case 1: info = block_upper<1>(n, k0, A, lda, X); break;
      case 2: info = block_upper<2>(n, k0, A, lda, X); break;
      case 3: info = block_upper<3>(n, k0, A, lda, X); break;
      default: info = block_upper<kCols>(n, k0, A, lda, X); break;
    }
    if (info) return info;
  }
  return 0;
}

// ---- Complex (std::complex<float>, std::complex<double>) ------------------
// The same blocks on interleaved (re, im) entries: T is the real type, entry
// (i, j) at A + 2 (i + j lda). A vector holds W complex entries; a product
// a conj(b) with b broadcast is two multiply-adds, a br + swap(a) bi with
// swap(a) = (ai, -ar) made once per loaded vector and shared by the block's
// columns (one shuffle and one sign flip per 4 columns' 8 multiply-adds).
// Separate real and imaginary accumulators (a br, a bi, combined once at the
// end) need twice the registers: 2 row vectors x 4 columns no longer fit.
// The AVX2 loop of zpotrf lower: per step 16 multiply-adds, 2 loads, 8
// broadcasts, 2 shuffles, 2 sign flips, no spill; n = 64 in 11-16 us
// against OpenBLAS's 20-31 on one thread (busy 2-core EPYC, 2026-11).

/// A vector of Bytes bytes of T.
template <typename T, int Bytes> struct Vec {
  typedef T V __attribute__((vector_size(Bytes)));
};

/// (re, im) -> (im, -re) in each complex lane: a conj(b) = a br + swap(a) bi.
template <typename V> inline V swap_neg(const V& a) {
  constexpr int N = sizeof(V) / sizeof(a[0]);
  const V m = -a;
  if constexpr (N == 2) return __builtin_shufflevector(a, m, 1, 2);
  else if constexpr (N == 4) return __builtin_shufflevector(a, m, 1, 4, 3, 6);
  else return __builtin_shufflevector(a, m, 1, 8, 3, 10, 5, 12, 7, 14);
}

/// acc -= a conj(b), s = swap_neg(a).
template <typename V, typename T> inline void sub_mul_conj(V& acc, const V& a, const V& s, T br, T bi) {
  acc -= a * br;
  acc -= s * bi;
}

/// The complex update(): acc = the block's columns j0 .. j0 + NC of R
/// vectors of rows from row i, less sum over p < j0 of L(rows, p) conj(L(j0 + c, p)).
template <typename V, int R, int NC, typename T>
inline void cupdate(int64_t i, int64_t j0, const T* A, int64_t lda, V (&acc)[R][NC]) {
  constexpr int W = sizeof(V) / (2 * sizeof(T));
  for (int c = 0; c < NC; ++c)
    for (int r = 0; r < R; ++r) acc[r][c] = load<V>(A + 2 * (i + r * W + (j0 + c) * lda));
  for (int64_t p = 0; p < j0; ++p) {
    const T* col = A + 2 * p * lda;
    V a[R], s[R];
    for (int r = 0; r < R; ++r) {
      a[r] = load<V>(col + 2 * (i + r * W));
      s[r] = swap_neg(a[r]);
    }
    for (int c = 0; c < NC; ++c) {
      const T br = col[2 * (j0 + c)], bi = col[2 * (j0 + c) + 1];
      for (int r = 0; r < R; ++r) sub_mul_conj(acc[r][c], a[r], s[r], br, bi);
    }
  }
}

/// The rows from i of the block: updated, then X := X L_jj^-H.
template <typename V, int R, int NC, typename T>
inline void cupdate_solve(int64_t i, int64_t j0, T* A, int64_t lda, const T (&Lre)[kCols][kCols],
                          const T (&Lim)[kCols][kCols], const T (&inv)[kCols]) {
  constexpr int W = sizeof(V) / (2 * sizeof(T));
  V acc[R][NC];
  cupdate<V, R, NC>(i, j0, A, lda, acc);
  for (int c = 0; c < NC; ++c) {
    for (int d = 0; d < c; ++d)
      for (int r = 0; r < R; ++r) sub_mul_conj(acc[r][c], acc[r][d], swap_neg(acc[r][d]), Lre[c][d], Lim[c][d]);
    for (int r = 0; r < R; ++r) acc[r][c] *= inv[c];
  }
  for (int c = 0; c < NC; ++c)
    for (int r = 0; r < R; ++r) store(A + 2 * (i + r * W + (j0 + c) * lda), acc[r][c]);
}

/// Factors block j0 (NC columns) of an n x n complex lower Cholesky.
template <int NC, typename T> int64_t cblock(int64_t n, int64_t j0, T* A, int64_t lda) {
  using V = typename Lanes<T>::V;
  using V2 = typename Vec<T, 4 * sizeof(T)>::V;  // two complex entries
  using V1 = typename Vec<T, 2 * sizeof(T)>::V;  // one
  constexpr int W = sizeof(V) / (2 * sizeof(T));
  constexpr int Top = W > kCols ? W : kCols;  // the diagonal block's rows: 2 vectors of z, 1 of c
  constexpr int TR = Top / W;
  const int top = n - j0 < Top ? static_cast<int>(n - j0) : Top;
  T bre[Top][NC] = {}, bim[Top][NC] = {};
  if (top == Top) {
    V acc[TR][NC];
    cupdate<V, TR, NC>(j0, j0, A, lda, acc);
    for (int c = 0; c < NC; ++c)
      for (int r = 0; r < TR; ++r)
        for (int k = 0; k < W; ++k) {
          bre[r * W + k][c] = acc[r][c][2 * k];
          bim[r * W + k][c] = acc[r][c][2 * k + 1];
        }
  } else {
    for (int r = 0; r < top; ++r) {
      V1 acc[1][NC];
      cupdate<V1, 1, NC>(j0 + r, j0, A, lda, acc);
      for (int c = 0; c < NC; ++c) {
        bre[r][c] = acc[0][c][0];
        bim[r][c] = acc[0][c][1];
      }
    }
  }
  // Unblocked: the pivot is the real part (LAPACK ignores the diagonal's
  // imaginary part and writes it 0).
  T Lre[kCols][kCols] = {}, Lim[kCols][kCols] = {}, inv[kCols] = {};
  int64_t info = 0;
  for (int c = 0; c < NC && !info; ++c) {
    const T d = bre[c][c];
    if (!(d > T(0))) {  // also NaN
      info = j0 + c + 1;
      break;
    }
    const T s = __builtin_sqrt(d);
    inv[c] = T(1) / s;
    bre[c][c] = s;
    bim[c][c] = T(0);
    for (int r = c + 1; r < top; ++r) {
      bre[r][c] *= inv[c];
      bim[r][c] *= inv[c];
    }
    for (int e = c + 1; e < NC; ++e)
      for (int r = e; r < top; ++r) {  // buf(r, e) -= buf(r, c) conj(buf(e, c))
        bre[r][e] -= bre[r][c] * bre[e][c] + bim[r][c] * bim[e][c];
        bim[r][e] -= bim[r][c] * bre[e][c] - bre[r][c] * bim[e][c];
      }
  }
  for (int c = 0; c < NC; ++c)
    for (int r = c; r < top; ++r) {
      A[2 * (j0 + r + (j0 + c) * lda)] = bre[r][c];
      A[2 * (j0 + r + (j0 + c) * lda) + 1] = bim[r][c];
    }
  if (info) return info;
  for (int c = 0; c < NC; ++c)
    for (int d = 0; d <= c; ++d) {
      Lre[c][d] = bre[c][d];
      Lim[c][d] = bim[c][d];
    }
  int64_t i = j0 + top;
  for (; i + 2 * W <= n; i += 2 * W) cupdate_solve<V, 2, NC>(i, j0, A, lda, Lre, Lim, inv);
  for (; i + W <= n; i += W) cupdate_solve<V, 1, NC>(i, j0, A, lda, Lre, Lim, inv);
  if constexpr (W > 2)  // complex float: 2 rows left of 4 are a vector too
    for (; i + 2 <= n; i += 2) cupdate_solve<V2, 1, NC>(i, j0, A, lda, Lre, Lim, inv);
  for (; i < n; ++i) cupdate_solve<V1, 1, NC>(i, j0, A, lda, Lre, Lim, inv);
  return 0;
}

/// A = L L^H of order n in the lower triangle (the upper one untouched);
/// LAPACK's info. T: float or double, A interleaved complex.
template <typename T> int64_t cpotrf_lower(int64_t n, T* A, int64_t lda) {
  for (int64_t j0 = 0; j0 < n; j0 += kCols) {
    int64_t info = 0;
    switch (n - j0 < kCols ? n - j0 : kCols) {
      case 1: info = cblock<1>(n, j0, A, lda); break;
      case 2: info = cblock<2>(n, j0, A, lda); break;
      case 3: info = cblock<3>(n, j0, A, lda); break;
      default: info = cblock<kCols>(n, j0, A, lda); break;
    }
    if (info) return info;
  }
  return 0;
}

/// The vectors holding kCols complex entries (a block's rows): 2 of z, 1 of c.
template <typename T> constexpr int kRowVecs = 2 * kCols * sizeof(T) / sizeof(typename Lanes<T>::V);

/// The complex update_rows(): acc[q] = A(k0 .. k0 + kCols, j + q) less the
/// sum over p < k0 of conj(U(p, k0 ..)) U(p, j + q). X[p] = conj(U(p, k0 ..))
/// and Xs[p] = swap(X[p]) (so that X b = X br + Xs bi, no shuffle in the
/// loop); rows of column j + q past row `last` are not read.
template <int NJ, typename V, typename T, int RV = kRowVecs<T>>
inline void cupdate_rows(int64_t k0, const T* A, int64_t lda, const V (*X)[RV], const V (*Xs)[RV], int64_t j,
                         int64_t last, V (&acc)[NJ][RV]) {
  constexpr int W = sizeof(V) / (2 * sizeof(T));
  for (int q = 0; q < NJ; ++q) {
    if (last - k0 >= kCols - 1) {
      for (int v = 0; v < RV; ++v) acc[q][v] = load<V>(A + 2 * (k0 + v * W + (j + q) * lda));
    } else {
      T part[2 * kCols] = {};
      for (int c = 0; c <= last + q - k0 && c < kCols; ++c) {
        part[2 * c] = A[2 * (k0 + c + (j + q) * lda)];
        part[2 * c + 1] = A[2 * (k0 + c + (j + q) * lda) + 1];
      }
      for (int v = 0; v < RV; ++v) acc[q][v] = load<V>(part + 2 * v * W);
    }
  }
  for (int64_t p = 0; p < k0; ++p)
    for (int q = 0; q < NJ; ++q) {
      const T br = A[2 * (p + (j + q) * lda)], bi = A[2 * (p + (j + q) * lda) + 1];
      for (int v = 0; v < RV; ++v) {
        acc[q][v] -= X[p][v] * br;
        acc[q][v] -= Xs[p][v] * bi;
      }
    }
}

/// Block k0 (NC rows of U) of an n x n complex upper Cholesky.
template <int NC, typename T, typename V = typename Lanes<T>::V, int RV = kRowVecs<T>>
int64_t cblock_upper(int64_t n, int64_t k0, T* A, int64_t lda, V (*X)[RV], V (*Xs)[RV]) {
  constexpr int W = sizeof(V) / (2 * sizeof(T));
  for (int64_t p = 0; p < k0; ++p) {
    for (int v = 0; v < RV; ++v) X[p][v] = Xs[p][v] = V{};
    for (int c = 0; c < NC; ++c) {  // X = (ur, -ui), Xs = (ui, ur)
      const T ur = A[2 * (p + (k0 + c) * lda)], ui = A[2 * (p + (k0 + c) * lda) + 1];
      X[p][c / W][2 * (c % W)] = ur;
      X[p][c / W][2 * (c % W) + 1] = -ui;
      Xs[p][c / W][2 * (c % W)] = ui;
      Xs[p][c / W][2 * (c % W) + 1] = ur;
    }
  }
  T Ure[kCols][kCols] = {}, Uim[kCols][kCols] = {}, inv[kCols] = {};
  for (int e = 0; e < NC; ++e) {
    V acc[1][RV];
    cupdate_rows<1>(k0, A, lda, X, Xs, k0 + e, k0 + e, acc);
    for (int c = 0; c <= e; ++c) {
      Ure[c][e] = acc[0][c / W][2 * (c % W)];
      Uim[c][e] = acc[0][c / W][2 * (c % W) + 1];
    }
  }
  int64_t info = 0;
  for (int c = 0; c < NC; ++c) {
    const T d = Ure[c][c];
    if (!(d > T(0))) {  // also NaN
      info = k0 + c + 1;
      break;
    }
    const T s = __builtin_sqrt(d);
    inv[c] = T(1) / s;
    Ure[c][c] = s;
    Uim[c][c] = T(0);
    for (int e = c + 1; e < NC; ++e) {
      Ure[c][e] *= inv[c];
      Uim[c][e] *= inv[c];
    }
    for (int r = c + 1; r < NC; ++r)
      for (int e = r; e < NC; ++e) {  // U(r, e) -= conj(U(c, r)) U(c, e)
        Ure[r][e] -= Ure[c][r] * Ure[c][e] + Uim[c][r] * Uim[c][e];
        Uim[r][e] -= Ure[c][r] * Uim[c][e] - Uim[c][r] * Ure[c][e];
      }
  }
  for (int e = 0; e < NC; ++e)
    for (int c = 0; c <= e; ++c) {
      A[2 * (k0 + c + (k0 + e) * lda)] = Ure[c][e];
      A[2 * (k0 + c + (k0 + e) * lda) + 1] = Uim[c][e];
    }
  if (info) return info;
  // U_kk^H x = the updated column, by substitution.
  auto substitute = [&](T (&xr)[kCols], T (&xi)[kCols]) {
    for (int c = 0; c < NC; ++c) {
      T vr = xr[c], vi = xi[c];
      for (int d = 0; d < c; ++d) {  // v -= conj(U(d, c)) x(d)
        vr -= Ure[d][c] * xr[d] + Uim[d][c] * xi[d];
        vi -= Ure[d][c] * xi[d] - Uim[d][c] * xr[d];
      }
      xr[c] = vr * inv[c];
      xi[c] = vi * inv[c];
    }
  };
  const int64_t last = k0 + NC - 1;
  int64_t j = k0 + NC;
  if constexpr (NC == kCols) {
    // Full blocks: x = M a with M = U_kk^-H (its columns M e_d by the
    // substitution, once per block), as vectors over the block's rows and
    // the same multiply-adds as the update; the substitution per column,
    // scalar, took a quarter of the time at n = 128.
    V M[kCols][RV], Ms[kCols][RV];
    for (int d = 0; d < kCols; ++d) {
      T xr[kCols] = {}, xi[kCols] = {};
      xr[d] = T(1);
      substitute(xr, xi);
      for (int c = 0; c < kCols; ++c) {
        M[d][c / W][2 * (c % W)] = xr[c];
        M[d][c / W][2 * (c % W) + 1] = xi[c];
        Ms[d][c / W][2 * (c % W)] = -xi[c];
        Ms[d][c / W][2 * (c % W) + 1] = xr[c];
      }
    }
    // 8 accumulators: 4 columns of z (2 vectors each), 8 of c.
    constexpr int NJ = 8 / RV;
    auto solve = [&](const V (&a)[RV], int64_t j) {
      V x[RV] = {};
      for (int d = 0; d < kCols; ++d) {
        const T ar = a[d / W][2 * (d % W)], ai = a[d / W][2 * (d % W) + 1];
        for (int v = 0; v < RV; ++v) {
          x[v] += M[d][v] * ar;
          x[v] += Ms[d][v] * ai;
        }
      }
      for (int v = 0; v < RV; ++v) store(A + 2 * (k0 + v * W + j * lda), x[v]);
    };
    for (; j + NJ <= n; j += NJ) {
      V acc[NJ][RV];
      cupdate_rows<NJ>(k0, A, lda, X, Xs, j, n, acc);
      for (int q = 0; q < NJ; ++q) solve(acc[q], j + q);
    }
    for (; j < n; ++j) {
      V acc[1][RV];
      cupdate_rows<1>(k0, A, lda, X, Xs, j, n, acc);
      solve(acc[0], j);
    }
  } else {  // the last block: no columns right of it
    for (; j < n; ++j) {
      V acc[1][RV];
      cupdate_rows<1>(k0, A, lda, X, Xs, j, last, acc);
      T xr[kCols], xi[kCols];
      for (int c = 0; c < NC; ++c) {
        xr[c] = acc[0][c / W][2 * (c % W)];
        xi[c] = acc[0][c / W][2 * (c % W) + 1];
      }
      substitute(xr, xi);
      for (int c = 0; c < NC; ++c) {
        A[2 * (k0 + c + j * lda)] = xr[c];
        A[2 * (k0 + c + j * lda) + 1] = xi[c];
      }
    }
  }
  return 0;
}

/// A = U^H U of order n in the upper triangle (the lower one untouched);
/// LAPACK's info. T: float or double, A interleaved complex.
template <typename T> int64_t cpotrf_upper(int64_t n, T* A, int64_t lda) {
  using V = typename Lanes<T>::V;
  V X[kOwnOrderMax][kRowVecs<T>], Xs[kOwnOrderMax][kRowVecs<T>];  // 16 KiB of z
  if (n > kOwnOrderMax) return -1;
  for (int64_t k0 = 0; k0 < n; k0 += kCols) {
    int64_t info = 0;
    switch (n - k0 < kCols ? n - k0 : kCols) {
      case 1: info = cblock_upper<1>(n, k0, A, lda, X, Xs); break;
      case 2: info = cblock_upper<2>(n, k0, A, lda, X, Xs); break;
      case 3: info = cblock_upper<3>(n, k0, A, lda, X, Xs); break;
      default: info = cblock_upper<kCols>(n, k0, A, lda, X, Xs); break;
    }
    if (info) return info;
  }
  return 0;
}

}  // namespace
