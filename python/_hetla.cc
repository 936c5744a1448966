// The compiled half of the Python package (`hetla._hetla`): adapters from
// numpy arrays to the column-major C++ API. The factorizations and solves take
// arrays of one supported dtype in any layout and make the one copy there
// (numpy_adapters.hpp, fused with the finiteness check), so that a small call
// costs one Python -> C++ crossing and the vendor call (the C++ API runs small
// sizes inline); python/hetla/*.py does the scipy-shaped part (dtype
// promotion, batching, exceptions). linalg.cc holds the routines, context.cc
// the configuration.
#include <pybind11/pybind11.h>

#include "bindings.hpp"

PYBIND11_MODULE(_hetla, m) {
  m.doc() = "hetla's compiled core; use the `hetla` package, not this module";
  hetla::python::bind_linalg(m);
  hetla::python::bind_context(m);
  // ArgumentError is a std::invalid_argument: pybind11 raises ValueError with its message.
}
