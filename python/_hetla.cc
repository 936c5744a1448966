// The compiled half of the Python package (`hetla._hetla`): adapters from
// numpy arrays to the column-major C++ API. The factorizations and solves take
// arrays of one supported dtype in any layout and make the one copy here
// (fused with the finiteness check), so that a small call costs one Python ->
// C++ crossing and the vendor call (the C++ API runs small sizes inline);
// python/hetla/*.py does the scipy-shaped part (dtype promotion, batching,
// exceptions). gemm and the matrix functions take Fortran-ordered, writeable
// arrays. One template per routine, instantiated for the four dtypes by
// `dispatch`.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "context/context.hpp"
#include "devices/spec.hpp"
#include "hetla/hetla.hpp"
#include "kernels/host/lapack_qr.hpp"
#include "runtime/reentry.hpp"
#include "runtime/runtime.hpp"
#include "trace/trace.hpp"
#include "util/blas_threads.hpp"
#include "util/hwloc_topology.hpp"

namespace py = pybind11;

namespace {

/// Calls f(T{}) with T the C++ type of numpy dtype `dt`.
template <typename F>
auto dispatch(const py::dtype& dt, F&& f) {
  switch (dt.char_()) {
    case 'f': return f(float{});
    case 'd': return f(double{});
    case 'F': return f(std::complex<float>{});
    case 'D': return f(std::complex<double>{});
    default: break;
  }
  throw py::type_error("hetla: dtype " + dt.attr("name").cast<std::string>() +
                       " is not one of float32, float64, complex64, complex128");
}

/// Whether a's elements are T's, in native byte order (numpy's equivalence:
/// dtype objects of one type need not be one object).
template <typename T> bool has_dtype(const py::array& a) {
  return py::detail::npy_api::get().PyArray_EquivTypes_(py::dtype::of<T>().ptr(), a.dtype().ptr());
}

/// A Fortran-ordered, writeable 2-D numpy array seen as a column-major matrix.
template <typename T>
struct ColMajor {
  T* data;
  int64_t rows, cols, ld;
};

template <typename T>
ColMajor<T> col_major(py::array& a, const char* name) {
  if (a.ndim() != 2) throw py::value_error(std::string(name) + ": expected a 2-D array");
  if (!(a.flags() & py::array::f_style)) throw py::value_error(std::string(name) + ": expected a Fortran-ordered array");
  if (!a.writeable()) throw py::value_error(std::string(name) + ": array is read-only");
  if (!has_dtype<T>(a)) throw py::type_error(std::string(name) + ": dtype differs from the first array");
  const int64_t m = a.shape(0), n = a.shape(1);
  return {static_cast<T*>(a.mutable_data()), m, n, m > 0 ? m : 1};
}

/// Work (flops, roughly) from which a call releases the GIL. Releasing and
/// taking it back cost 0.25-0.35 us here (pybind11, Python 3.11), as much as
/// a whole n = 8 potrf in the vendor; a 64^3 call takes tens of us.
constexpr double kReleaseGilFrom = 64.0 * 64.0 * 64.0;

/// Releases the GIL for its scope when `work` is at least kReleaseGilFrom.
class NoGil {
 public:
  explicit NoGil(double work) {
    if (work >= kReleaseGilFrom) release_.emplace();
  }

 private:
  std::optional<py::gil_scoped_release> release_;
};

/// Whether the `count` numbers from p are all finite: x - x is +0 for a
/// finite x and NaN for inf or NaN, and OR-ing the bits vectorizes with SSE2
/// alone (std::isfinite, or an exponent test on 64-bit integers, did not: 2-4
/// ns a number, against numpy's 0.3).
template <typename R> bool all_finite(const R* p, int64_t count) {
  using U = std::conditional_t<sizeof(R) == 8, uint64_t, uint32_t>;
  U bad = 0;
  for (int64_t i = 0; i < count; ++i) {
    const R z = p[i] - p[i];
    U u;
    std::memcpy(&u, &z, sizeof u);
    bad |= u;
  }
  return bad == 0;
}

/// all_finite over the m x n column-major A (both parts of complex entries).
template <typename T> bool all_finite(const ColMajor<T>& A) {
  constexpr int64_t parts = sizeof(T) / sizeof(hetla::real_t<T>);
  const auto* p = reinterpret_cast<const hetla::real_t<T>*>(A.data);
  if (A.ld == A.rows) return all_finite(p, parts * A.rows * A.cols);
  for (int64_t j = 0; j < A.cols; ++j)
    if (!all_finite(p + parts * j * A.ld, parts * A.rows)) return false;
  return true;
}

/// How an input array may be used in place (otherwise it is copied).
enum class Reuse {
  Never,     // always a copy (the caller's array must stay untouched)
  Writable,  // in place when Fortran-ordered and writeable (overwrite_a=True)
  Read,      // in place when Fortran-ordered (a factor that is only read)
};

/// An input as a column-major matrix: the array itself or one copy, whose
/// Fortran-ordered array is `arr`. A 1-D array is one column.
template <typename T> struct Input {
  py::array arr;
  ColMajor<T> m;
  bool vector;
};

/// ValueError if check_finite and A holds an inf or NaN (scipy's message).
template <typename T> void check(const ColMajor<T>& A, bool check_finite, const char* name) {
  if (!check_finite) return;
  bool ok;
  {
    NoGil nogil(8.0 * A.rows * A.cols);
    ok = all_finite(A);
  }
  if (!ok) throw py::value_error(std::string(name) + ": array must not contain infs or NaNs");
}

/// `src` (dtype T, 1-D when `vector_ok`, else 2-D) as a Fortran-ordered
/// matrix: in place as `reuse` allows, else copied (any strides, no numpy
/// call). check_finite: ValueError on an inf or NaN (one vectorized scan).
template <typename T>
Input<T> input(const py::array& src, Reuse reuse, bool check_finite, const char* name, bool vector_ok = false) {
  const bool vector = src.ndim() == 1;
  if (src.ndim() != 2 && !(vector_ok && vector))
    throw py::value_error(std::string(name) + ": expected a " + (vector_ok ? "1-D or 2-D" : "2-D") + " array, got " +
                          std::to_string(src.ndim()) + " dimensions");
  if (!has_dtype<T>(src)) throw py::type_error(std::string(name) + ": dtype differs from a's");
  const int64_t m = src.shape(0), n = vector ? 1 : src.shape(1);
  const auto flags = src.flags();
  constexpr int kAligned = 0x0100;  // NPY_ARRAY_ALIGNED
  const bool fortran = (flags & py::array::f_style) && (flags & kAligned);
  const ColMajor<T> none{nullptr, m, n, m > 0 ? m : 1};
  if (fortran && (reuse == Reuse::Read || (reuse == Reuse::Writable && src.writeable()))) {
    Input<T> in{src, none, vector};
    in.m.data = static_cast<T*>(const_cast<void*>(src.data()));
    check(in.m, check_finite, name);
    return in;
  }
  py::array arr = vector ? py::array(py::array_t<T>(m)) : py::array(py::array_t<T, py::array::f_style>({m, n}));
  Input<T> in{arr, none, vector};
  in.m.data = static_cast<T*>(arr.mutable_data());
  const char* base = static_cast<const char*>(src.data());
  const py::ssize_t s0 = src.strides(0), s1 = vector ? 0 : src.strides(1);
  const bool c_order = !vector && (flags & py::array::c_style) && (flags & kAligned);
  {
    NoGil nogil(8.0 * m * n);
    T* dst = in.m.data;
    if (fortran) {
      if (m * n > 0) std::memcpy(dst, base, sizeof(T) * m * n);
    } else if (c_order) {  // a transpose, in 32 x 32 blocks to read and write whole cache lines
      const T* c = reinterpret_cast<const T*>(base);
      constexpr int64_t kB = 32;
      for (int64_t ib = 0; ib < m; ib += kB)
        for (int64_t jb = 0; jb < n; jb += kB)
          for (int64_t j = jb; j < std::min(n, jb + kB); ++j)
            for (int64_t i = ib; i < std::min(m, ib + kB); ++i) dst[i + j * m] = c[i * n + j];
    } else {  // any strides (negative too); memcpy reads an unaligned source
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) std::memcpy(dst + i + j * m, base + i * s0 + j * s1, sizeof(T));
    }
  }
  check(in.m, check_finite, name);
  return in;
}

void require_square(int64_t rows, int64_t cols, const char* name) {
  if (rows != cols)
    throw py::value_error(std::string(name) + ": expected a square matrix, got shape (" + std::to_string(rows) + ", " +
                          std::to_string(cols) + ")");
}

/// B's rows must be A's order n (the right-hand sides of a solve).
void require_rows(int64_t rows, int64_t n) {
  if (rows != n) throw py::value_error("b: expected " + std::to_string(n) + " rows, got " + std::to_string(rows));
}

hetla::Uplo uplo_of(bool lower) { return lower ? hetla::Uplo::Lower : hetla::Uplo::Upper; }

hetla::Op op_of(const std::string& t) {
  if (t == "N" || t == "n") return hetla::Op::NoTrans;
  if (t == "T" || t == "t") return hetla::Op::Trans;
  if (t == "C" || t == "c") return hetla::Op::ConjTrans;
  throw py::value_error("trans must be 'N', 'T' or 'C', not '" + t + "'");
}

/// Zeroes the strictly upper (lower = true) or strictly lower triangle of the
/// column-major A: np.tril on a result took half as long as the factorization
/// at n = 1000 (it builds an n x n mask and a new array).
template <typename T> void zero_other_triangle(const ColMajor<T>& A, bool lower) {
  for (int64_t j = 0; j < A.cols; ++j) {
    T* col = A.data + j * A.ld;
    if (lower) std::fill(col, col + std::min(j, A.rows), T{});
    else if (j + 1 < A.rows) std::fill(col + j + 1, col + A.rows, T{});
  }
}

/// cholesky / cho_factor: (factor, info); clean zeroes the other triangle.
py::tuple potrf(py::array a, bool lower, bool overwrite, bool check_finite, bool clean) {
  return dispatch(a.dtype(), [&](auto t) {
    using T = decltype(t);
    auto A = input<T>(a, overwrite ? Reuse::Writable : Reuse::Never, check_finite, "a");
    require_square(A.m.rows, A.m.cols, "a");
    const int64_t n = A.m.cols;
    int64_t info;
    {
      NoGil nogil(double(n) * n * n);
      info = hetla::potrf(uplo_of(lower), n, A.m.data, A.m.ld);
      if (info == 0 && clean) zero_other_triangle(A.m, lower);
    }
    return py::make_tuple(A.arr, info);
  });
}

void zero_triangle(py::array a, bool lower) {
  dispatch(a.dtype(), [&](auto t) {
    auto A = col_major<decltype(t)>(a, "a");
    NoGil nogil(double(A.rows) * A.cols);
    zero_other_triangle(A, lower);
  });
}

/// cho_solve: B = A^-1 B given potrf's factor c; returns B (1-D if b was).
py::array potrs(py::array c, py::array b, bool lower, bool overwrite_b, bool check_finite) {
  return dispatch(c.dtype(), [&](auto t) {
    using T = decltype(t);
    auto C = input<T>(c, Reuse::Read, check_finite, "c");
    require_square(C.m.rows, C.m.cols, "c");
    auto B = input<T>(b, overwrite_b ? Reuse::Writable : Reuse::Never, check_finite, "b", true);
    require_rows(B.m.rows, C.m.cols);
    {
      NoGil nogil(double(C.m.cols) * C.m.cols * B.m.cols);
      hetla::potrs(uplo_of(lower), C.m.cols, B.m.cols, C.m.data, C.m.ld, B.m.data, B.m.ld);
    }
    return B.arr;
  });
}

/// LAPACK's 1-based pivots (hetla's int64_t) as scipy's: 0-based int32.
py::array_t<int32_t> scipy_pivots(const int64_t* ipiv, int64_t k) {
  py::array_t<int32_t> piv(k);
  int32_t* p = piv.mutable_data();
  for (int64_t i = 0; i < k; ++i) p[i] = static_cast<int32_t>(ipiv[i] - 1);
  return piv;
}

/// A small buffer on the stack, on the heap above kStack entries.
template <typename T, int64_t kStack = 256> class Scratch {
 public:
  explicit Scratch(int64_t n) : heap_(n > kStack ? static_cast<std::size_t>(n) : 0) {}
  T* data() { return heap_.empty() ? stack_ : heap_.data(); }

 private:
  T stack_[kStack];
  std::vector<T> heap_;
};

/// lu_factor: (lu, piv, info), piv 0-based int32 as scipy's.
py::tuple getrf(py::array a, bool overwrite, bool check_finite) {
  return dispatch(a.dtype(), [&](auto t) {
    using T = decltype(t);
    auto A = input<T>(a, overwrite ? Reuse::Writable : Reuse::Never, check_finite, "a");
    const int64_t m = A.m.rows, n = A.m.cols, k = std::min(m, n);
    Scratch<int64_t> ipiv(k);
    int64_t info;
    {
      NoGil nogil(double(m) * n * k);
      info = hetla::getrf(m, n, A.m.data, A.m.ld, ipiv.data());
    }
    return py::make_tuple(A.arr, scipy_pivots(ipiv.data(), k), info);
  });
}

/// Pivots from scipy (0-based, any integer dtype) as hetla's 1-based int64_t.
/// Out-of-range pivots raise ValueError: the vendor would read out of bounds.
void hetla_pivots(const py::array& piv, int64_t n, int64_t* out) {
  const auto convert = [&](const auto* q) {
    for (int64_t i = 0; i < n; ++i) {
      if (q[i] < i || q[i] >= n) throw py::value_error("piv: entry " + std::to_string(i) + " is out of range");
      out[i] = int64_t(q[i]) + 1;
    }
  };
  if (piv.ndim() == 1 && piv.shape(0) == n && has_dtype<int32_t>(piv) &&
      (piv.flags() & py::array::c_style))
    return convert(static_cast<const int32_t*>(piv.data()));  // lu_factor's own: no conversion
  auto p = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(piv);
  if (!p || p.ndim() != 1 || p.shape(0) != n)
    throw py::value_error("piv: expected a vector of " + std::to_string(n) + " integers");
  convert(p.data());
}

/// lu_solve: B = op(A)^-1 B given lu_factor's (lu, piv); returns B.
py::array getrs(py::array lu, py::array piv, py::array b, const std::string& trans, bool overwrite_b,
                bool check_finite) {
  return dispatch(lu.dtype(), [&](auto t) {
    using T = decltype(t);
    auto A = input<T>(lu, Reuse::Read, check_finite, "lu");
    require_square(A.m.rows, A.m.cols, "lu");
    const int64_t n = A.m.cols;
    auto B = input<T>(b, overwrite_b ? Reuse::Writable : Reuse::Never, check_finite, "b", true);
    require_rows(B.m.rows, n);
    Scratch<int64_t> ipiv(n);
    hetla_pivots(piv, n, ipiv.data());
    const hetla::Op op = op_of(trans);
    {
      NoGil nogil(double(n) * n * B.m.cols);
      hetla::getrs(op, n, B.m.cols, A.m.data, A.m.ld, ipiv.data(), B.m.data, B.m.ld);
    }
    return B.arr;
  });
}

/// solve: (x, info) of op(A) x = B by LU (trans "N", "T" or "C") or, with
/// pos, of A x = B by Cholesky; info > 0: singular / not positive definite.
py::tuple solve(py::array a, py::array b, bool pos, bool lower, const std::string& trans, bool overwrite_a,
                bool overwrite_b, bool check_finite) {
  return dispatch(a.dtype(), [&](auto t) {
    using T = decltype(t);
    auto A = input<T>(a, overwrite_a ? Reuse::Writable : Reuse::Never, check_finite, "a");
    require_square(A.m.rows, A.m.cols, "a");
    const int64_t n = A.m.cols;
    auto B = input<T>(b, overwrite_b ? Reuse::Writable : Reuse::Never, check_finite, "b", true);
    require_rows(B.m.rows, n);
    const hetla::Op op = op_of(trans);
    Scratch<int64_t> ipiv(pos ? 0 : n);
    int64_t info;
    {
      NoGil nogil(double(n) * n * (n + B.m.cols));
      if (pos) {
        info = hetla::potrf(uplo_of(lower), n, A.m.data, A.m.ld);
        if (info == 0) hetla::potrs(uplo_of(lower), n, B.m.cols, A.m.data, A.m.ld, B.m.data, B.m.ld);
      } else {
        info = hetla::getrf(n, n, A.m.data, A.m.ld, ipiv.data());
        if (info == 0) hetla::getrs(op, n, B.m.cols, A.m.data, A.m.ld, ipiv.data(), B.m.data, B.m.ld);
      }
    }
    return py::make_tuple(B.arr, info);
  });
}

/// The upper trapezoid of the rows x n column-major A's first `rows` rows,
/// zero below, as a new Fortran-ordered array (R of a QR).
template <typename T> py::array upper_part(const ColMajor<T>& A, int64_t rows) {
  py::array_t<T, py::array::f_style> R({rows, A.cols});
  T* r = R.mutable_data();
  for (int64_t j = 0; j < A.cols; ++j)
    for (int64_t i = 0; i < rows; ++i) r[i + j * rows] = i <= j && i < A.rows ? A.data[i + j * A.ld] : T{};
  return R;
}

/// qr in scipy's modes: "full" (Q, R) with Q m x m and R m x n, "economic"
/// (Q, R) with Q m x k and R k x n, "r" (R,) with R m x n, "raw" ((a, tau), R)
/// with R k x n; k = min(m, n).
py::tuple qr(py::array a, const std::string& mode, bool overwrite, bool check_finite) {
  if (mode != "full" && mode != "economic" && mode != "r" && mode != "raw")
    throw py::value_error("mode must be 'full', 'economic', 'r' or 'raw', not '" + mode + "'");
  return dispatch(a.dtype(), [&](auto t) {
    using T = decltype(t);
    auto A = input<T>(a, overwrite ? Reuse::Writable : Reuse::Never, check_finite, "a");
    const int64_t m = A.m.rows, n = A.m.cols, k = std::min(m, n);
    py::array_t<T> tau(k);
    T* tp = tau.mutable_data();
    {
      NoGil nogil(double(m) * n * k);
      hetla::geqrf(m, n, A.m.data, A.m.ld, tp);
    }
    py::array R = upper_part(A.m, mode == "economic" || mode == "raw" ? k : m);
    if (mode == "r") return py::make_tuple(R);
    if (mode == "raw") return py::make_tuple(py::make_tuple(A.arr, tau), R);
    const int64_t cols = mode == "full" ? m : k;
    py::array_t<T, py::array::f_style> Q({m, cols});
    T* q = Q.mutable_data();
    {
      NoGil nogil(double(m) * cols * k);
      for (int64_t j = 0; j < cols; ++j)
        for (int64_t i = 0; i < m; ++i) q[i + j * m] = j < k ? A.m.data[i + j * A.m.ld] : T{};
      hetla::ungqr(m, cols, k, q, m > 0 ? m : 1, tp);
    }
    return py::make_tuple(Q, R);
  });
}

int64_t gels(py::array a, py::array b, const std::string& trans) {
  return dispatch(a.dtype(), [&](auto t) {
    auto A = col_major<decltype(t)>(a, "a");
    auto B = col_major<decltype(t)>(b, "b");
    const hetla::Op op = op_of(trans);
    NoGil nogil(double(A.rows) * A.cols * (std::min(A.rows, A.cols) + B.cols));
    return hetla::gels(op, A.rows, A.cols, B.cols, A.data, A.ld, B.data, B.ld);
  });
}

/// Least squares of a tall A (m >= n, both Fortran-ordered, B with m rows) by
/// QR, if R is well enough conditioned: A = Q R (hetla), then B = Q^H B. If
/// the diagonal of R and LAPACK's condition estimate (trcon) show
/// rcond(R) > rcond_min, B[:n] = R^-1 B[:n] (the steps of LAPACK's gels) and
/// it returns True. Otherwise it stops there, R in A's upper triangle, and
/// returns False: the caller solves R x = B[:n] by the SVD.
bool lstsq_qr(py::array a, py::array b, double rcond_min) {
  return dispatch(a.dtype(), [&](auto t) {
    using T = decltype(t);
    auto A = col_major<T>(a, "a");
    auto B = col_major<T>(b, "b");
    const int64_t m = A.rows, n = A.cols, nrhs = B.cols;
    if (m < n || B.rows != m) throw py::value_error("lstsq_qr: expected m >= n and b with m rows");
    if (n == 0) return true;
    std::vector<T> tau(static_cast<std::size_t>(n));
    NoGil nogil(double(m) * n * (n + nrhs));
    hetla::geqrf(m, n, A.data, A.ld, tau.data());
    if (nrhs > 0)
      hetla::unmqr(hetla::Side::Left, hetla::Op::ConjTrans, m, nrhs, n, A.data, A.ld, tau.data(), B.data, B.ld);
    double dmin = INFINITY, dmax = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double d = std::abs(A.data[i + i * A.ld]);
      dmin = std::min(dmin, d), dmax = std::max(dmax, d);
    }
    // The 1-norm estimate bounds rcond in the 2-norm from above by a factor
    // of n at most; the diagonal ratio bounds it from above exactly.
    if (!(dmin > rcond_min * dmax)) return false;
    {
      const hetla::rt::ReentryScope inside;  // the vendor's own calls stay the vendor's
      if (!(double(hetla::blas::trcon(hetla::Uplo::Upper, n, A.data, A.ld)) > rcond_min)) return false;
    }
    if (nrhs > 0)
      hetla::trsm(hetla::Side::Left, hetla::Uplo::Upper, hetla::Op::NoTrans, hetla::Diag::NonUnit, n, nrhs, T(1),
                  A.data, A.ld, B.data, B.ld);
    return true;
  });
}

/// The vendor's SVD least squares (LAPACK gelsd) on the Fortran-ordered A
/// (m x n, destroyed) and B (max(m, n) rows, the solutions on exit):
/// returns (rank, s, info), s the singular values (real), info > 0 if the
/// SVD did not converge.
py::tuple gelsd(py::array a, py::array b, double rcond) {
  return dispatch(a.dtype(), [&](auto t) {
    using T = decltype(t);
    using R = hetla::real_t<T>;
    auto A = col_major<T>(a, "a");
    auto B = col_major<T>(b, "b");
    const int64_t m = A.rows, n = A.cols;
    if (B.rows < std::max(m, n)) throw py::value_error("gelsd: b needs max(m, n) rows");
    py::array_t<R> s(std::min(m, n));
    R* sp = s.mutable_data();
    int64_t rank = 0, info;
    {
      NoGil nogil(double(m) * n * std::min(m, n));
      const hetla::rt::ReentryScope inside;  // the vendor's own calls stay the vendor's
      info = hetla::blas::gelsd(m, n, B.cols, A.data, A.ld, B.data, B.ld, sp, R(rcond), rank);
    }
    return py::make_tuple(rank, s, info);
  });
}

void gemm(const std::string& transa, const std::string& transb, py::object alpha, py::array a, py::array b,
          py::object beta, py::array c) {
  dispatch(c.dtype(), [&](auto t) {
    using T = decltype(t);
    auto A = col_major<T>(a, "a");
    auto B = col_major<T>(b, "b");
    auto C = col_major<T>(c, "c");
    const hetla::Op opa = op_of(transa), opb = op_of(transb);
    const int64_t k = opa == hetla::Op::NoTrans ? A.cols : A.rows;
    const T al = alpha.cast<T>(), be = beta.cast<T>();
    NoGil nogil(double(C.rows) * C.cols * k);
    hetla::gemm(opa, opb, C.rows, C.cols, k, al, A.data, A.ld, B.data, B.ld, be, C.data, C.ld);
  });
}

/// expm / cosm / sinm: out = f(a); returns (degree, scaling, products, solves).
template <int Which>
py::tuple matfun(py::array a, py::array out) {
  return dispatch(a.dtype(), [&](auto t) {
    using T = decltype(t);
    auto A = col_major<T>(a, "a");
    auto E = col_major<T>(out, "out");
    if (A.rows != A.cols || E.rows != A.rows || E.cols != A.cols)
      throw py::value_error("expected square matrices of one size");
    hetla::MatfunInfo info;
    {
      NoGil nogil(double(A.cols) * A.cols * A.cols);
      if constexpr (Which == 0) info = hetla::expm(A.cols, A.data, A.ld, E.data, E.ld);
      if constexpr (Which == 1) info = hetla::cosm(A.cols, A.data, A.ld, E.data, E.ld);
      if constexpr (Which == 2) info = hetla::sinm(A.cols, A.data, A.ld, E.data, E.ld);
    }
    return py::make_tuple(info.degree, info.scaling, info.products, info.solves);
  });
}

int64_t matpoly(py::array x, py::array coeffs, py::array out, const std::string& method) {
  return dispatch(x.dtype(), [&](auto t) {
    using T = decltype(t);
    auto X = col_major<T>(x, "x");
    auto P = col_major<T>(out, "out");
    if (coeffs.ndim() != 1 || !has_dtype<T>(coeffs) || !(coeffs.flags() & py::array::c_style))
      throw py::value_error("coeffs: expected a contiguous vector of x's dtype");
    hetla::PolyMethod m;
    if (method == "horner") m = hetla::PolyMethod::Horner;
    else if (method == "paterson-stockmeyer") m = hetla::PolyMethod::PatersonStockmeyer;
    else throw py::value_error("method must be 'horner' or 'paterson-stockmeyer', not '" + method + "'");
    const T* cp = static_cast<const T*>(coeffs.data());
    const int64_t degree = coeffs.shape(0) - 1;
    if (degree < 0) throw py::value_error("coeffs: at least one coefficient");
    NoGil nogil(double(X.cols) * X.cols * X.cols * std::max<int64_t>(degree, 1));
    return hetla::matpoly(X.cols, X.data, X.ld, degree, cp, P.data, P.ld, m);
  });
}

void init(int num_threads, const std::string& devices, const std::string& schedule, const std::string& distribution,
          bool pin_threads) {
  hetla::Config cfg;
  cfg.num_threads = num_threads;
  cfg.devices = devices;
  cfg.pin_threads = pin_threads;
  if (schedule == "dynamic") cfg.schedule = hetla::Schedule::Dynamic;
  else if (schedule == "static") cfg.schedule = hetla::Schedule::Static;
  else throw py::value_error("schedule must be 'dynamic' or 'static', not '" + schedule + "'");
  using D = hetla::Distribution;
  const std::pair<const char*, D> names[] = {{"default", D::Default}, {"1d", D::OneD},           {"2d", D::TwoD},
                                             {"weighted", D::Weighted}, {"hybrid", D::Hybrid}};
  bool known = false;
  for (auto& [name, d] : names)
    if (distribution == name) cfg.distribution = d, known = true;
  if (!known)
    throw py::value_error("distribution must be default, 1d, 2d, weighted or hybrid, not '" + distribution + "'");
  py::gil_scoped_release nogil;  // init waits for running calls
  hetla::init(cfg);
}

py::dict info() {
  auto& topo = hetla::util::Topology::get();
  py::dict d;
  d["version"] = HETLA_VERSION_STRING;
  d["cpu"] = topo.cpu_model();
  d["cores"] = topo.cores();
  d["blas"] = hetla::util::blas_vendor();
  d["workers"] = hetla::num_threads();
  py::list devices;
  std::lock_guard<std::recursive_mutex> lock(hetla::detail::call_mutex());
  hetla::rt::Runtime& rt = hetla::detail::runtime();
  for (int i = 0; i < rt.num_devices(); ++i) devices.append(rt.device(i).name());
  d["devices"] = devices;
  return d;
}

/// Records the tasks of the calls made between start() and stop() and writes
/// them as Chrome-trace JSON (.json) or an SVG Gantt chart (.svg).
class Trace {
 public:
  explicit Trace(std::string path) : path_(std::move(path)) {
    const bool json = path_.ends_with(".json"), svg = path_.ends_with(".svg");
    if (!json && !svg) throw py::value_error("trace: '" + path_ + "' must end in .json or .svg");
    std::ofstream probe(path_, std::ios::app);  // fail before the work, not after
    if (!probe) throw py::value_error("trace: cannot write '" + path_ + "'");
  }
  void start() {
    std::lock_guard<std::recursive_mutex> lock(hetla::detail::call_mutex());
    hetla::rt::Runtime& rt = hetla::detail::runtime();
    rows_ = rt.num_trace_rows();
    rec_ = std::make_unique<hetla::trace::Recorder>(rows_);
    rec_->restart();
    rt.set_trace(rec_.get());
  }
  void stop() {
    if (!rec_) return;
    {
      std::lock_guard<std::recursive_mutex> lock(hetla::detail::call_mutex());
      hetla::detail::runtime().set_trace(nullptr);
    }
    const auto events = rec_->events();
    const std::string text = path_.ends_with(".svg") ? hetla::trace::to_svg(events, rows_)
                                                     : hetla::trace::to_chrome_json(events, rows_);
    rec_.reset();
    std::ofstream f(path_, std::ios::trunc);
    f << text;
    if (!f) throw std::runtime_error("trace: cannot write '" + path_ + "'");
  }

 private:
  std::string path_;
  int rows_ = 0;
  std::unique_ptr<hetla::trace::Recorder> rec_;
};

}  // namespace

PYBIND11_MODULE(_hetla, m) {
  m.doc() = "hetla's compiled core; use the `hetla` package, not this module";
  // Inputs of one dtype (the package converts first); copies are made here.
  m.def("potrf", &potrf, py::arg("a"), py::arg("lower"), py::arg("overwrite"), py::arg("check_finite"),
        py::arg("clean"));
  m.def("zero_triangle", &zero_triangle, py::arg("a"), py::arg("lower"));
  m.def("potrs", &potrs, py::arg("c"), py::arg("b"), py::arg("lower"), py::arg("overwrite_b"), py::arg("check_finite"));
  m.def("getrf", &getrf, py::arg("a"), py::arg("overwrite"), py::arg("check_finite"));
  m.def("getrs", &getrs, py::arg("lu"), py::arg("piv"), py::arg("b"), py::arg("trans"), py::arg("overwrite_b"),
        py::arg("check_finite"));
  m.def("solve", &solve, py::arg("a"), py::arg("b"), py::arg("pos"), py::arg("lower"), py::arg("trans"),
        py::arg("overwrite_a"), py::arg("overwrite_b"), py::arg("check_finite"));
  m.def("qr", &qr, py::arg("a"), py::arg("mode"), py::arg("overwrite"), py::arg("check_finite"));
  m.def("gels", &gels, py::arg("a"), py::arg("b"), py::arg("trans"));
  m.def("lstsq_qr", &lstsq_qr, py::arg("a"), py::arg("b"), py::arg("rcond_min"));
  m.def("gelsd", &gelsd, py::arg("a"), py::arg("b"), py::arg("rcond"));
  m.def("gemm", &gemm, py::arg("transa"), py::arg("transb"), py::arg("alpha"), py::arg("a"), py::arg("b"),
        py::arg("beta"), py::arg("c"));
  m.def("expm", &matfun<0>, py::arg("a"), py::arg("out"));
  m.def("cosm", &matfun<1>, py::arg("a"), py::arg("out"));
  m.def("sinm", &matfun<2>, py::arg("a"), py::arg("out"));
  m.def("matpoly", &matpoly, py::arg("x"), py::arg("coeffs"), py::arg("out"), py::arg("method"));
  m.def("init", &init, py::arg("num_threads"), py::arg("devices"), py::arg("schedule"), py::arg("distribution"),
        py::arg("pin_threads"));
  m.def("finalize", [] {
    py::gil_scoped_release nogil;
    hetla::finalize();
  });
  m.def("info", &info);
  py::class_<Trace>(m, "Trace").def(py::init<std::string>()).def("start", &Trace::start).def("stop", &Trace::stop);
  // ArgumentError is a std::invalid_argument: pybind11 raises ValueError with its message.
}
