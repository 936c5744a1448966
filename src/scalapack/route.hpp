// Where a ScaLAPACK call runs: on hetla (mpi::potrf, ... on the context's
// processes) or on the real ScaLAPACK routine. The processes of a grid must
// all take the same way (both are collective), so each one's reason not to
// run on hetla is reduced over the grid before anyone starts.
#pragma once
#include <functional>
#include <optional>
#include <string>

#include "lapack/fortran.hpp"
#include "mpi/grid.hpp"
#include "scalapack/descriptor.hpp"

/// MACRO(letter, T, I, suffix) per precision, as libhetla_lapack's names:
/// ScaLAPACK has one integer ABI (BLACS takes int), so only LP64.
#define HETLA_SCALAPACK_FOR_EACH_PRECISION(MACRO) HETLA_LAPACK_ALL(MACRO, int, _)

namespace hetla::scalapack {

/// "pdpotrf_" for T = double and base "potrf".
template <typename T> std::string fortran_name(const char* base) {
  std::string name(1, 'p');  // not "p" + ...: GCC 12's -Wrestrict false positive (its bug 105329)
  return name += lapack::fortran_name<T, int>(base);
}

/// Below this "n" (the cube root of the product of the sizes that set a
/// call's flops, as libhetla_lapack's crossover) a call goes to ScaLAPACK
/// (measured with pdpotrf, 2 processes, 1 x 2, a loaded 2-core machine:
/// n = 400 0.0028 s against ScaLAPACK's 0.0015 s, n = 600 0.0061 s against
/// 0.0109 s; a fixed 0.5 ms at n = 64, the rest small tiles' tasks). The
/// environment's HETLA_SCALAPACK_CROSSOVER overrides it (0: every call).
inline constexpr double kCrossover = 500;

/// This process's place in the grid when the call `name` runs on hetla, or
/// nullopt when it goes to ScaLAPACK: called from inside hetla or inside a
/// ScaLAPACK routine that hetla passed on (rt::reentry_depth() > 0), a
/// context this process is not in, a call below the crossover (`size`: the
/// product of its sizes), or a reason `why_not` gives on any process of the
/// grid (e.g. an invalid argument: ScaLAPACK reports it). Collective over the
/// grid in the other cases.
std::optional<Process> route(const std::string& name, int ctxt, double size,
                             const std::function<const char*(const Process&)>& why_not);

/// Runs `f` on the grid of the context's processes (row-major, as BLACS
/// numbers them). An error has no way back through ScaLAPACK's interface and
/// the arrays may be half written: it is printed and the program stopped
/// (every process of the grid gets it: mpi's routines reduce errors).
void run_on_hetla(const std::string& name, int ctxt, const Process& p,
                  const std::function<void(const mpi::Grid&)>& f) noexcept;

}  // namespace hetla::scalapack
