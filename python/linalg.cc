// The compiled module's linear algebra: one template per routine over the
// four dtypes (numpy_adapters.hpp makes each input column-major, copying it at
// most once), calling the column-major C++ API, which runs small sizes inline.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "hetla/hetla.hpp"
#include "kernels/host/lapack_qr.hpp"
#include "numpy_adapters.hpp"
#include "runtime/reentry.hpp"

namespace hetla::python {
namespace {

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
  if (piv.ndim() == 1 && piv.shape(0) == n && has_dtype<int32_t>(piv) && (piv.flags() & py::array::c_style))
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
template <int Which> py::tuple matfun(py::array a, py::array out) {
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

}  // namespace

void bind_linalg(py::module_& m) {
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
}

}  // namespace hetla::python
