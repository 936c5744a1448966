// The drop-in library's crossover is the library's one table (tune/crossover.hpp),
// so that hetla's C++ API and the Fortran names agree on where the vendor stops.
#pragma once
#include "tune/crossover.hpp"

namespace hetla::lapack {
using tune::above_crossover;
using tune::crossover;
using tune::kRoutines;
using tune::precision_index;
using tune::Routine;
}  // namespace hetla::lapack
