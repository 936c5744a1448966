// The vendor's LAPACK/BLAS entry points, found by address, never by the
// global name: libhetla_lapack exports the same names, so a call by name
// from here would land in our own function again. libhetla_scalapack builds
// this file in too: "ours" is then that library, the vendor ScaLAPACK.
#pragma once
#include <string>

namespace hetla::lapack {

/// The vendor's definition of the Fortran symbol `name` ("dpotrf_"): the
/// next definition after libhetla_lapack in the lookup order (dlsym
/// RTLD_NEXT), or, when the vendor library comes before us, the first one
/// that is not ours. Prints a message and aborts when there is none (no
/// vendor LAPACK loaded: nothing could compute the call).
void* vendor_symbol(const std::string& name);

/// `vendor_symbol` cast to the routine's type; callers cache it in a
/// function-local static (resolved once per routine and precision).
template <typename F> F* vendor_function(const std::string& name) { return reinterpret_cast<F*>(vendor_symbol(name)); }

}  // namespace hetla::lapack
