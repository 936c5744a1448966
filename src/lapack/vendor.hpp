// The vendor's LAPACK/BLAS entry points, found by address, never by the
// global name: libhetla_lapack exports the same names, so a call by name
// from here would land in our own function again. libhetla_scalapack builds
// this file in too: "ours" is then that library, the vendor ScaLAPACK.
//
// Two integer widths. The LP64 names (dpotrf_) go to the vendor the program
// links. The ILP64 names (dpotrf_64_) go to an ILP64 vendor: one already in
// the process under the `_64_` names (Julia's libopenblas64_, an OpenBLAS
// built with SYMBOLSUFFIX=64_), else the library of $HETLA_LAPACK_VENDOR64,
// else Debian's libopenblas64.so.0, which exports the plain names (dpotrf_)
// with 64-bit integers and is therefore opened privately (RTLD_LOCAL |
// RTLD_DEEPBIND: its own internal dgemm_ calls must not reach the LP64
// names). Without one, an ILP64 call whose integers all fit in 32 bits is
// narrowed onto the LP64 vendor (narrow.hpp), and one that does not fit runs
// on hetla's path, whose sizes are 64-bit.
#pragma once
#include <cstdint>
#include <string>
#include <type_traits>

#include "lapack/narrow.hpp"
#include "runtime/reentry.hpp"

namespace hetla::lapack {

/// The vendor's definition of the Fortran symbol `name` ("dpotrf_"): the
/// next definition after libhetla_lapack in the lookup order (dlsym
/// RTLD_NEXT), or, when the vendor library comes before us, the first one
/// that is not ours. Prints a message and aborts when there is none (no
/// vendor LAPACK loaded: nothing could compute the call).
void* vendor_symbol(const std::string& name);

/// The ILP64 vendor's routine `base` ("dpotrf"), taking 64-bit integers, or
/// null when there is no ILP64 vendor (see the file comment for the order).
void* vendor64_symbol(const std::string& base);

/// Where the ILP64 names go: "libopenblas64.so.0 (ILP64)", "the process's
/// _64_ names", or "LP64 vendor (32-bit sizes; larger ones on hetla's path)".
const char* vendor64_description() noexcept;

/// xerbla for the ILP64 names: the program's (or an ILP64 vendor's)
/// xerbla_64_, else the ILP64 vendor library's xerbla_, else the LP64 xerbla_.
void xerbla64(const char* name, int64_t pos, std::size_t len);

/// One vendor routine of type F (LP64: `const int*` arguments; ILP64:
/// `const int64_t*`), resolved once; callers keep it in a function-local
/// static. Calling it marks the thread as inside hetla, so the vendor's own
/// calls to exported names (dgeqrf_ calls dgemm_ by name) go straight to the
/// vendor too. Returns false, without calling, when only the LP64 vendor can
/// serve an ILP64 call and an integer argument does not fit in 32 bits.
template <typename F> class Vendor {
 public:
  static constexpr bool kIlp64 = !std::is_same_v<narrowed_t<F>, F>;

  /// `base` is the routine's name with its precision letter ("dpotrf").
  explicit Vendor(const std::string& base) {
    if constexpr (kIlp64) {
      wide_ = reinterpret_cast<F*>(vendor64_symbol(base));
      if (!wide_) narrow_ = reinterpret_cast<narrowed_t<F>*>(vendor_symbol(base + "_"));
    } else {
      wide_ = reinterpret_cast<F*>(vendor_symbol(base + "_"));
    }
  }

  template <typename... Args> bool operator()(Args... args) const {
    const rt::ReentryScope inside;
    if (wide_) {
      wide_(unwrap(args)...);
      return true;
    }
    if constexpr (kIlp64) return call_narrowed(narrow_, args...);
    else return false;  // not reached: an LP64 routine always has its vendor
  }

 private:
  F* wide_ = nullptr;
  narrowed_t<F>* narrow_ = nullptr;
};

}  // namespace hetla::lapack
