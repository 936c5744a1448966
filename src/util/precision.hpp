// The precisions hetla computes in (s, d, c, z), as one list: every explicit
// instantiation and per-precision table expands it, so a precision is added
// or removed in one place.
#pragma once
#include <complex>

/// Expands MACRO(T) once per precision, in the order s, d, c, z.
#define HETLA_FOR_EACH_PRECISION(MACRO) \
  MACRO(float)                          \
  MACRO(double)                         \
  MACRO(std::complex<float>)            \
  MACRO(std::complex<double>)
