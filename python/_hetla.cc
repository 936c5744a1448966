// The compiled half of the Python package (`hetla._hetla`): thin adapters from
// numpy arrays to the column-major C++ API. They take Fortran-contiguous,
// writeable 2-D arrays only and work in place; python/hetla/*.py does the
// scipy-shaped part (copies, layouts, batching, exceptions). One template per
// routine, instantiated for the four dtypes by `dispatch`.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "context/context.hpp"
#include "devices/spec.hpp"
#include "hetla/hetla.hpp"
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
  if (!a.dtype().is(py::dtype::of<T>())) throw py::type_error(std::string(name) + ": dtype differs from the first array");
  const int64_t m = a.shape(0), n = a.shape(1);
  return {static_cast<T*>(a.mutable_data()), m, n, m > 0 ? m : 1};
}

hetla::Uplo uplo_of(bool lower) { return lower ? hetla::Uplo::Lower : hetla::Uplo::Upper; }

hetla::Op op_of(const std::string& t) {
  if (t == "N" || t == "n") return hetla::Op::NoTrans;
  if (t == "T" || t == "t") return hetla::Op::Trans;
  if (t == "C" || t == "c") return hetla::Op::ConjTrans;
  throw py::value_error("trans must be 'N', 'T' or 'C', not '" + t + "'");
}

int64_t potrf(py::array a, bool lower) {
  return dispatch(a.dtype(), [&](auto t) {
    auto A = col_major<decltype(t)>(a, "a");
    if (A.rows != A.cols) throw py::value_error("a: expected a square matrix");
    py::gil_scoped_release nogil;
    return hetla::potrf(uplo_of(lower), A.cols, A.data, A.ld);
  });
}

/// Zeroes the strictly upper (lower = true) or strictly lower triangle in
/// place: np.tril on the result took half as long as the factorization at
/// n = 1000 (it builds an n x n mask and a new array).
void zero_triangle(py::array a, bool lower) {
  dispatch(a.dtype(), [&](auto t) {
    auto A = col_major<decltype(t)>(a, "a");
    py::gil_scoped_release nogil;
    for (int64_t j = 0; j < A.cols; ++j) {
      decltype(t)* col = A.data + j * A.ld;
      if (lower) std::fill(col, col + std::min(j, A.rows), decltype(t){});
      else if (j + 1 < A.rows) std::fill(col + j + 1, col + A.rows, decltype(t){});
    }
  });
}

void potrs(py::array a, py::array b, bool lower) {
  dispatch(a.dtype(), [&](auto t) {
    auto A = col_major<decltype(t)>(a, "a");
    auto B = col_major<decltype(t)>(b, "b");
    py::gil_scoped_release nogil;
    hetla::potrs(uplo_of(lower), A.cols, B.cols, A.data, A.ld, B.data, B.ld);
  });
}

int64_t getrf(py::array a, py::array_t<int64_t> ipiv) {
  return dispatch(a.dtype(), [&](auto t) {
    auto A = col_major<decltype(t)>(a, "a");
    if (ipiv.ndim() != 1 || ipiv.shape(0) != std::min(A.rows, A.cols) || !(ipiv.flags() & py::array::c_style))
      throw py::value_error("ipiv: expected a contiguous int64 vector of min(m, n) entries");
    int64_t* piv = ipiv.mutable_data();
    py::gil_scoped_release nogil;
    return hetla::getrf(A.rows, A.cols, A.data, A.ld, piv);
  });
}

void getrs(py::array a, py::array_t<int64_t> ipiv, py::array b, const std::string& trans) {
  dispatch(a.dtype(), [&](auto t) {
    auto A = col_major<decltype(t)>(a, "a");
    auto B = col_major<decltype(t)>(b, "b");
    if (ipiv.ndim() != 1 || ipiv.shape(0) != A.cols) throw py::value_error("ipiv: expected n entries");
    const int64_t* piv = ipiv.data();
    const hetla::Op op = op_of(trans);
    py::gil_scoped_release nogil;
    hetla::getrs(op, A.cols, B.cols, A.data, A.ld, piv, B.data, B.ld);
  });
}

void geqrf(py::array a, py::array tau) {
  dispatch(a.dtype(), [&](auto t) {
    using T = decltype(t);
    auto A = col_major<T>(a, "a");
    if (tau.ndim() != 1 || tau.shape(0) != std::min(A.rows, A.cols) || !tau.dtype().is(py::dtype::of<T>()) ||
        !tau.writeable())
      throw py::value_error("tau: expected a writeable vector of min(m, n) entries of a's dtype");
    T* tp = static_cast<T*>(tau.mutable_data());
    py::gil_scoped_release nogil;
    hetla::geqrf(A.rows, A.cols, A.data, A.ld, tp);
  });
}

void ungqr(py::array a, int64_t k, py::array tau) {
  dispatch(a.dtype(), [&](auto t) {
    using T = decltype(t);
    auto A = col_major<T>(a, "a");
    if (tau.ndim() != 1 || tau.shape(0) < k || !tau.dtype().is(py::dtype::of<T>()))
      throw py::value_error("tau: expected at least k entries of a's dtype");
    const T* tp = static_cast<const T*>(tau.data());
    py::gil_scoped_release nogil;
    hetla::ungqr(A.rows, A.cols, k, A.data, A.ld, tp);
  });
}

int64_t gels(py::array a, py::array b, const std::string& trans) {
  return dispatch(a.dtype(), [&](auto t) {
    auto A = col_major<decltype(t)>(a, "a");
    auto B = col_major<decltype(t)>(b, "b");
    const hetla::Op op = op_of(trans);
    py::gil_scoped_release nogil;
    return hetla::gels(op, A.rows, A.cols, B.cols, A.data, A.ld, B.data, B.ld);
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
    py::gil_scoped_release nogil;
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
      py::gil_scoped_release nogil;
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
    if (coeffs.ndim() != 1 || !coeffs.dtype().is(py::dtype::of<T>()) || !(coeffs.flags() & py::array::c_style))
      throw py::value_error("coeffs: expected a contiguous vector of x's dtype");
    hetla::PolyMethod m;
    if (method == "horner") m = hetla::PolyMethod::Horner;
    else if (method == "paterson-stockmeyer") m = hetla::PolyMethod::PatersonStockmeyer;
    else throw py::value_error("method must be 'horner' or 'paterson-stockmeyer', not '" + method + "'");
    const T* cp = static_cast<const T*>(coeffs.data());
    const int64_t degree = coeffs.shape(0) - 1;
    if (degree < 0) throw py::value_error("coeffs: at least one coefficient");
    py::gil_scoped_release nogil;
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
  m.def("potrf", &potrf, py::arg("a"), py::arg("lower"));
  m.def("zero_triangle", &zero_triangle, py::arg("a"), py::arg("lower"));
  m.def("potrs", &potrs, py::arg("a"), py::arg("b"), py::arg("lower"));
  m.def("getrf", &getrf, py::arg("a"), py::arg("ipiv"));
  m.def("getrs", &getrs, py::arg("a"), py::arg("ipiv"), py::arg("b"), py::arg("trans"));
  m.def("geqrf", &geqrf, py::arg("a"), py::arg("tau"));
  m.def("ungqr", &ungqr, py::arg("a"), py::arg("k"), py::arg("tau"));
  m.def("gels", &gels, py::arg("a"), py::arg("b"), py::arg("trans"));
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
