// The body of hetla's own small LU (small_lu.hpp), included by exactly two
// files: small_lu.cc (the build's default instruction set) and
// small_lu_avx2.cc (compiled for AVX2 and FMA). Everything here has internal
// linkage and uses only compiler built-ins, no library header: a function
// emitted from the AVX2 file must never be the one the linker keeps for the
// rest of the library, which also runs where AVX2 is absent.
//
// Left-looking by blocks of K columns, K one vector (AVX: 4 double, 8
// float; Crout order, as the Cholesky of small_cholesky_impl.hpp). For each
// block: the interchanges so far applied to its columns (deferred until
// then: whole rows at once walk all n columns at stride lda); its rows above
// the diagonal (U) solved by pairs of blocks of K rows, each a product with
// the rows' L left of it (8 accumulators of 32 bytes: 2 row vectors x 4
// columns, 6 loads for 8 multiply-adds) times the inverse of the diagonal
// K x K block of L (kept from that block's factorization); its rows below
// (L) updated as the same register-blocked product over the whole depth j0;
// then its columns factored one by one with LAPACK's partial pivoting
// (dgetf2: the first largest |a| (idamax), the row interchanged in every
// column left of and in the block, the column scaled by the reciprocal of
// the pivot where that is at least the smallest normal number, else divided;
// an exactly zero pivot sets info and leaves the column unscaled, and the
// factorization goes on). Nothing is shared between callers, nothing
// allocated, no lock taken; the state (pivots, inverses) is 4.5 KiB of stack.
// Measured (busy 2-core EPYC, AVX2 build, one thread, us per call against
// OpenBLAS 0.3.21 dgetrf on one thread): n = 16 0.8 / 1.8, 32 2.9 / 8.8,
// 64 14 / 28, 96 33 / 68.
#pragma once
#include <cstdint>

#include "kernels/host/small_vectors_impl.hpp"

// Vectors of 32 bytes passed between these internal functions in a build
// without AVX: GCC notes that their ABI differs with AVX, which no caller outside
// this file sees.
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace {
namespace small_lu {

/// The vector width: 32 bytes where the build has AVX, else 16 (SSE2: 32-byte
/// vectors would be pairs, and the products' 8 accumulators 16 registers,
/// spilled: dgetrf n = 128 took 1290 us against the vendor's 120).
#ifdef __AVX__
constexpr int kVectorBytes = 32;
#else
constexpr int kVectorBytes = 16;
#endif

/// A vector of T (AVX: 4 double, 8 float): rows of a column; its length is
/// the columns of a block and the rows of a block of U.
template <typename T> struct Lanes {
  typedef T V __attribute__((vector_size(kVectorBytes)));
};
/// Four T: the last rows of float.
template <typename T> struct Quad {
  typedef T V __attribute__((vector_size(4 * sizeof(T))));
};
template <typename T> constexpr int kCols = kVectorBytes / sizeof(T);

using small_vectors::load;
using small_vectors::store;

/// The largest min(m, n) (the pivots are kept on the stack meanwhile).
constexpr int64_t kMaxPivots = 128;

/// A call's state, on its stack (4.5 KiB): the pivots (0-based) and, for
/// each full diagonal block of L, the inverse of that unit lower K x K
/// block by columns, which solves a block of U's rows without a chain of
/// dependent lane broadcasts (those took 11 % of n = 128).
template <typename T> struct Work {
  typedef typename Lanes<T>::V V;
  int piv[kMaxPivots];
  V inv[kMaxPivots / kCols<T>][kCols<T>];
};

template <typename T> inline T magnitude(T x) { return x < T(0) ? -x : x; }  // NaN stays NaN
/// LAPACK's sfmin (dlamch('S')): the smallest normal number, whose
/// reciprocal does not overflow.
template <typename T> constexpr T safe_min() { return sizeof(T) == sizeof(float) ? T(__FLT_MIN__) : T(__DBL_MIN__); }

/// The rows from i (R vectors V) of the NC columns from j0 + c0, less
/// L(rows, p) U(p, j0 + c0 + c) for every p < j0; stored back. NC <= 4: with
/// R = 2, 8 accumulators, and 6 loads for 8 multiply-adds.
template <typename V, int R, int NC, typename T>
inline void update_lower(int64_t i, int64_t j0, int c0, T* A, int64_t lda) {
  constexpr int W = sizeof(V) / sizeof(T);
  V acc[R][NC];
  const int64_t j = j0 + c0;
  for (int c = 0; c < NC; ++c)
    for (int r = 0; r < R; ++r) acc[r][c] = load<V>(A + i + r * W + (j + c) * lda);
  const T* U = A + j * lda;
  for (int64_t p = 0; p < j0; ++p) {
    const T* col = A + i + p * lda;
    V a[R];
    for (int r = 0; r < R; ++r) a[r] = load<V>(col + r * W);
    for (int c = 0; c < NC; ++c) {
      const T b = U[p + c * lda];
      for (int r = 0; r < R; ++r) acc[r][c] -= a[r] * b;
    }
  }
  for (int c = 0; c < NC; ++c)
    for (int r = 0; r < R; ++r) store(A + i + r * W + (j + c) * lda, acc[r][c]);
}

/// update_lower over the block's NC columns, in groups of at most 4.
template <typename V, int R, int NC, typename T> inline void update_lower_block(int64_t i, int64_t j0, T* A, int64_t lda) {
  if constexpr (NC <= 4) {
    update_lower<V, R, NC>(i, j0, 0, A, lda);
  } else {
    update_lower<V, R, 4>(i, j0, 0, A, lda);
    update_lower<V, R, NC - 4>(i, j0, 4, A, lda);
  }
}

/// R blocks of K = kCols rows of U from row k0 (one vector each; k0 a
/// multiple of K, L(k0 .., k0 ..) factored) in the NC <= 4 columns from
/// j0 + c0: U = L_kk^-1 (A - L(k0 .., 0 .. k0) U(0 .. k0, ..)). The two row
/// blocks take the product with the rows of U above them together (6 loads
/// for 8 multiply-adds, as update_lower), then the first is solved and its
/// part subtracted from the second.
template <int R, int NC, typename T>
inline void solve_upper_rows(int64_t k0, int64_t j0, int c0, T* A, int64_t lda, const Work<T>& work) {
  using V = typename Lanes<T>::V;
  constexpr int K = kCols<T>;
  const int64_t j = j0 + c0;
  V acc[R][NC];
  for (int c = 0; c < NC; ++c)
    for (int r = 0; r < R; ++r) acc[r][c] = load<V>(A + k0 + r * K + (j + c) * lda);
  const T* U = A + j * lda;
  for (int64_t p = 0; p < k0; ++p) {
    V a[R];
    for (int r = 0; r < R; ++r) a[r] = load<V>(A + k0 + r * K + p * lda);
    for (int c = 0; c < NC; ++c) {
      const T b = U[p + c * lda];
      for (int r = 0; r < R; ++r) acc[r][c] -= a[r] * b;
    }
  }
  // The K x K unit lower solves: x = L_kk^-1 b, each b[d] broadcast from a
  // copy in memory (a load, not a lane shuffle).
  T b[NC][K];
  for (int r = 0; r < R; ++r) {
    const int64_t i = k0 + r * K;
    if (r > 0)  // the rows of U just solved
      for (int d = 0; d < K; ++d) {
        const V l = load<V>(A + i + (k0 + d) * lda);
        for (int c = 0; c < NC; ++c) acc[r][c] -= l * b[c][d];
      }
    for (int c = 0; c < NC; ++c) store(b[c], acc[r][c]);
    const V* inv = work.inv[i / K];
    for (int c = 0; c < NC; ++c) {
      V x = inv[0] * b[c][0];
      for (int d = 1; d < K; ++d) x += inv[d] * b[c][d];
      store(A + i + (j + c) * lda, x);
      if (r + 1 < R) store(b[c], x);
    }
  }
}

/// solve_upper_rows over the block's NC columns, in groups of at most 4.
template <int R, int NC, typename T>
inline void solve_upper_block(int64_t k0, int64_t j0, T* A, int64_t lda, const Work<T>& work) {
  if constexpr (NC <= 4) {
    solve_upper_rows<R, NC>(k0, j0, 0, A, lda, work);
  } else {
    solve_upper_rows<R, 4>(k0, j0, 0, A, lda, work);
    solve_upper_rows<R, NC - 4>(k0, j0, 4, A, lda, work);
  }
}

/// Row i of U in the block's columns, rows before it final (the last rows
/// of a matrix wider than tall).
template <int NC, typename T> inline void solve_upper_row(int64_t i, int64_t j0, T* A, int64_t lda) {
  for (int c = 0; c < NC; ++c) {
    T* col = A + (j0 + c) * lda;
    T s = col[i];
    for (int64_t p = 0; p < i; ++p) s -= A[i + p * lda] * col[p];
    col[i] = s;
  }
}

/// Integer lanes as many as Lanes<T>'s.
template <typename T> struct Index;
template <> struct Index<double> {
  typedef int64_t V __attribute__((vector_size(kVectorBytes)));
};
template <> struct Index<float> {
  typedef int32_t V __attribute__((vector_size(kVectorBytes)));
};

/// idamax of col[j .. m): the first row of the largest |a|. A NaN is never
/// larger than anything, so it is the pivot only at row j (as the
/// reference idamax, which starts from |a(j)|). By vectors, each lane keeping
/// its first largest, then the lanes' largest with the smallest row.
template <typename T> inline int64_t pivot_row(const T* col, int64_t j, int64_t m) {
  using V = typename Lanes<T>::V;
  using X = typename Index<T>::V;
  constexpr int W = sizeof(V) / sizeof(T);
  if (col[j] != col[j]) return j;
  T big = T(-1);  // below every magnitude: the first non-NaN row is taken
  int64_t p = j;
  int64_t r = j;
  if (m - j >= W) {
    V best = V{} - T(1);
    X at{}, row{};
    for (int l = 0; l < W; ++l) row[l] = static_cast<decltype(row[0] + 0)>(j + l);
    for (; r + W <= m; r += W, row += W) {
      V v = load<V>(col + r);
      v = v < T(0) ? -v : v;
      const auto larger = v > best;
      best = larger ? v : best;
      at = larger ? row : at;
    }
    for (int l = 0; l < W; ++l)
      if (best[l] > big || (best[l] == big && best[l] >= T(0) && at[l] < p)) {
        big = best[l];
        p = at[l];
      }
  }
  for (; r < m; ++r) {
    const T v = magnitude(col[r]);
    if (v > big) {
      big = v;
      p = r;
    }
  }
  return p;
}

/// Block j0 (NC columns) of an m x n LU; piv: 0-based pivot rows so far.
/// Returns info (the first zero pivot, 1-based; `info` if already set).
template <int NC, typename T>
int64_t block(int64_t m, int64_t n, int64_t j0, T* A, int64_t lda, Work<T>& work, int64_t info) {
  int* piv = work.piv;
  using V = typename Lanes<T>::V;
  constexpr int W = sizeof(V) / sizeof(T);
  const int64_t top = j0 < m ? j0 : m;
  // The earlier interchanges, in order, to the block's columns (all of them
  // at each interchange: independent, so they overlap).
  T* B = A + j0 * lda;
  for (int64_t p = 0; p < top; ++p) {
    const int64_t q = piv[p];
    if (q == p) continue;
    for (int c = 0; c < NC; ++c) {
      const T t = B[p + c * lda];
      B[p + c * lda] = B[q + c * lda];
      B[q + c * lda] = t;
    }
  }
  // U above the diagonal.
  int64_t k = 0;
  for (; k + 2 * kCols<T> <= top; k += 2 * kCols<T>) solve_upper_block<2, NC>(k, j0, A, lda, work);
  for (; k + kCols<T> <= top; k += kCols<T>) solve_upper_block<1, NC>(k, j0, A, lda, work);
  for (; k < top; ++k) solve_upper_row<NC>(k, j0, A, lda);
  if (j0 >= m) return info;
  // The diagonal block and L below it.
  int64_t i = j0;
  for (; i + 2 * W <= m; i += 2 * W) update_lower_block<V, 2, NC>(i, j0, A, lda);
  for (; i + W <= m; i += W) update_lower_block<V, 1, NC>(i, j0, A, lda);
  if constexpr (W > 4)  // float: 4 rows left of 8 are a vector too
    for (; i + 4 <= m; i += 4) update_lower_block<typename Quad<T>::V, 1, NC>(i, j0, A, lda);
  for (; i < m; ++i) update_lower_block<T, 1, NC>(i, j0, A, lda);
  // The block's columns, one by one (dgetf2 on the updated panel, each
  // column taking the block's columns left of it when its turn comes, in
  // one pass: right-looking, every later column loaded and stored once per
  // pivot, took 12 % of sgetrf at n = 32).
  const int np = m - j0 < NC ? static_cast<int>(m - j0) : NC;  // the block's pivots
  for (int c = 0; c < np; ++c) {
    const int64_t j = j0 + c;
    T* col = A + j * lda;
    if (c > 0) {
      T u[NC];  // its rows of U in the block: substitution
      for (int t = 0; t < c; ++t) {
        T v = col[j0 + t];
        for (int e = 0; e < t; ++e) v -= A[j0 + t + (j0 + e) * lda] * u[e];
        u[t] = col[j0 + t] = v;
      }
      int64_t r = j;
      for (; r + W <= m; r += W) {
        V x = load<V>(col + r);
        for (int e = 0; e < c; ++e) x -= load<V>(A + r + (j0 + e) * lda) * u[e];
        store(col + r, x);
      }
      for (; r < m; ++r) {
        T x = col[r];
        for (int e = 0; e < c; ++e) x -= A[r + (j0 + e) * lda] * u[e];
        col[r] = x;
      }
    }
    const int64_t p = pivot_row(col, j, m);
    piv[j] = static_cast<int>(p);
    const T d = col[p];
    if (d != T(0)) {
      if (p != j)  // in the block; the columns left of it below, right of it at their turn
        for (int64_t q = j0; q < j0 + NC; ++q) {
          const T t = A[j + q * lda];
          A[j + q * lda] = A[p + q * lda];
          A[p + q * lda] = t;
        }
      if (magnitude(d) >= safe_min<T>()) {
        const T inv = T(1) / d;
        for (int64_t r = j + 1; r < m; ++r) col[r] *= inv;
      } else {
        for (int64_t r = j + 1; r < m; ++r) col[r] /= d;
      }
    } else if (info == 0) {
      info = j + 1;  // the column stays unscaled, and is used as it is
    }
  }
  // Columns of the block past the last row (m < n): their rows of U.
  for (int c = np; c < NC; ++c) {
    T* col = A + (j0 + c) * lda;
    for (int t = 1; t < np; ++t) {
      T v = col[j0 + t];
      for (int e = 0; e < t; ++e) v -= A[j0 + t + (j0 + e) * lda] * col[j0 + e];
      col[j0 + t] = v;
    }
  }
  // The block's interchanges to the columns left of it, once the panel is
  // done: each interchange in every column, independent swaps that overlap
  // (a column at a time, its swaps depend on each other: 10 % of sgetrf at
  // n = 128 against 6 %). A zero pivot interchanges nothing (its row is the
  // first of the largest |a| = 0).
  for (int c = 0; c < np; ++c) {
    const int64_t j = j0 + c, p = piv[j];
    if (p == j) continue;
    for (int64_t q = 0; q < j0; ++q) {
      const T t = A[j + q * lda];
      A[j + q * lda] = A[p + q * lda];
      A[p + q * lda] = t;
    }
  }
  // The inverse of a full diagonal block of L, for the blocks of U's rows
  // beside it (solve_upper_rows) if there are columns right of it; its rows
  // take no later interchange.
  constexpr int K = kCols<T>;
  if (NC == K && j0 + K <= m && j0 + K < n) {
    V* inv = work.inv[j0 / K];
    for (int d = 0; d < K; ++d) {
      T y[K] = {};
      y[d] = T(1);
      for (int e = d + 1; e < K; ++e) {
        T v = T(0);
        for (int t = d; t < e; ++t) v -= A[j0 + e + (j0 + t) * lda] * y[t];
        y[e] = v;
      }
      for (int e = 0; e < K; ++e) inv[d][e] = y[e];
    }
  }
  return info;
}

}  // namespace small_lu

/// A = P L U of the m x n A (min(m, n) <= kMaxPivots), as LAPACK's getrf: ipiv 1-based (I: the caller's integer), info the first
/// exactly zero pivot (NaNs are not reported, as LAPACK's). T: float or
/// double. Returns -1 (nothing done) if min(m, n) > kMaxPivots.
template <typename T, typename I> int64_t getrf_small(int64_t m, int64_t n, T* A, int64_t lda, I* ipiv) {
  using namespace small_lu;
  const int64_t k = m < n ? m : n;
  if (k > kMaxPivots) return -1;
  Work<T> work;
  int64_t info = 0;
  constexpr int K = kCols<T>;
  for (int64_t j0 = 0; j0 < n; j0 += K) {
    switch (n - j0 < K ? n - j0 : K) {
      case 1: info = block<1>(m, n, j0, A, lda, work, info); break;
      case 2: info = block<2>(m, n, j0, A, lda, work, info); break;
      case 3: info = block<(3 < K ? 3 : K)>(m, n, j0, A, lda, work, info); break;
      case 4: info = block<(4 < K ? 4 : K)>(m, n, j0, A, lda, work, info); break;
      case 5: info = block<(5 < K ? 5 : K)>(m, n, j0, A, lda, work, info); break;
      case 6: info = block<(6 < K ? 6 : K)>(m, n, j0, A, lda, work, info); break;
      case 7: info = block<(7 < K ? 7 : K)>(m, n, j0, A, lda, work, info); break;
      default: info = block<K>(m, n, j0, A, lda, work, info); break;
    }
  }
  for (int64_t j = 0; j < k; ++j) ipiv[j] = static_cast<I>(work.piv[j] + 1);
  return info;
}

}  // namespace
