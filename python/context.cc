// The compiled module's configuration: init and finalize of the library
// context, info() as a dict, and Trace (the calls between start and stop as a
// Chrome-trace JSON or SVG file).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <fstream>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

#include "bindings.hpp"
#include "context/context.hpp"
#include "hetla/hetla.hpp"
#include "runtime/runtime.hpp"
#include "trace/trace.hpp"
#include "util/blas_threads.hpp"
#include "util/hwloc_topology.hpp"

namespace hetla::python {
namespace py = pybind11;
namespace {

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
  const std::pair<const char*, D> names[] = {
      {"default", D::Default}, {"1d", D::OneD}, {"2d", D::TwoD}, {"weighted", D::Weighted}, {"hybrid", D::Hybrid}};
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
    const std::string text =
        path_.ends_with(".svg") ? hetla::trace::to_svg(events, rows_) : hetla::trace::to_chrome_json(events, rows_);
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

void bind_context(py::module_& m) {
  m.def("init", &init, py::arg("num_threads"), py::arg("devices"), py::arg("schedule"), py::arg("distribution"),
        py::arg("pin_threads"));
  m.def("finalize", [] {
    py::gil_scoped_release nogil;
    hetla::finalize();
  });
  m.def("info", &info);
  py::class_<Trace>(m, "Trace").def(py::init<std::string>()).def("start", &Trace::start).def("stop", &Trace::stop);
}

}  // namespace hetla::python
