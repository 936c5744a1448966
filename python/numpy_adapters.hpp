// numpy arrays as column-major matrices for the compiled module (_hetla):
// the dtype dispatch, the one copy (fused with the finiteness check) that
// makes any input Fortran-ordered, when the GIL is released, and the checks
// of shapes and flags that scipy's messages name.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>

#include "hetla/hetla.hpp"

namespace hetla::python {

namespace py = pybind11;

/// Calls f(T{}) with T the C++ type of numpy dtype `dt`.
template <typename F> auto dispatch(const py::dtype& dt, F&& f) {
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
template <typename T> struct ColMajor {
  T* data;
  int64_t rows, cols, ld;
};

template <typename T> ColMajor<T> col_major(py::array& a, const char* name) {
  if (a.ndim() != 2) throw py::value_error(std::string(name) + ": expected a 2-D array");
  if (!(a.flags() & py::array::f_style))
    throw py::value_error(std::string(name) + ": expected a Fortran-ordered array");
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

inline void require_square(int64_t rows, int64_t cols, const char* name) {
  if (rows != cols)
    throw py::value_error(std::string(name) + ": expected a square matrix, got shape (" + std::to_string(rows) + ", " +
                          std::to_string(cols) + ")");
}

/// B's rows must be A's order n (the right-hand sides of a solve).
inline void require_rows(int64_t rows, int64_t n) {
  if (rows != n) throw py::value_error("b: expected " + std::to_string(n) + " rows, got " + std::to_string(rows));
}

inline hetla::Uplo uplo_of(bool lower) { return lower ? hetla::Uplo::Lower : hetla::Uplo::Upper; }

inline hetla::Op op_of(const std::string& t) {
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

}  // namespace hetla::python
