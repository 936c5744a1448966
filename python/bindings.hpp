// The parts of the compiled module (_hetla.cc defines it): each adds its
// functions to the module.
#pragma once
#include <pybind11/pybind11.h>

namespace hetla::python {

/// The factorizations, solves, gemm and the matrix functions (linalg.cc).
void bind_linalg(pybind11::module_& m);
/// init, finalize, info and Trace (context.cc).
void bind_context(pybind11::module_& m);

}  // namespace hetla::python
