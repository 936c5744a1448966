// What every exported routine of the drop-in library shares: the Fortran ABI
// (arguments by pointer, a hidden length after the arguments for each
// character argument), the precision list with LAPACK's letters, LAPACK's
// argument reports through xerbla_, and the way out to the vendor.
#pragma once
#include <algorithm>
#include <cctype>
#include <complex>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "hetla/types.hpp"
#include "lapack/crossover.hpp"
#include "lapack/vendor.hpp"
#include "runtime/reentry.hpp"

/// The exported names; everything else in libhetla_lapack is hidden.
#define HETLA_LAPACK_EXPORT extern "C" __attribute__((visibility("default")))

/// MACRO(letter, T) per precision, s, d, c, z as HETLA_FOR_EACH_PRECISION
/// (src/util/precision.hpp), with the letter that Fortran names carry
/// (checked against precision_letter<T>() where a name is made).
#define HETLA_LAPACK_FOR_EACH_REAL(MACRO) \
  MACRO(s, float)                         \
  MACRO(d, double)
#define HETLA_LAPACK_FOR_EACH_COMPLEX(MACRO) \
  MACRO(c, std::complex<float>)              \
  MACRO(z, std::complex<double>)
#define HETLA_LAPACK_FOR_EACH_PRECISION(MACRO) \
  HETLA_LAPACK_FOR_EACH_REAL(MACRO)            \
  HETLA_LAPACK_FOR_EACH_COMPLEX(MACRO)
#define HETLA_LAPACK_CHECK_LETTER(p, T) \
  static_assert(hetla::precision_letter<T>() == #p[0], "letter and type of a Fortran name disagree")

/// LAPACK's error handler: the one the program links (its own, as LAPACK
/// allows, or the vendor's), looked up by name like every LAPACK does.
extern "C" void xerbla_(const char* srname, const int* info, std::size_t srname_len);

namespace hetla::lapack {

using flen = std::size_t;  // gfortran's hidden character length (GCC >= 8)

/// "dpotrf_" for T = double and base "potrf".
template <typename T> std::string fortran_name(const char* base) {
  return std::string(1, precision_letter<T>()) + base + "_";
}

/// Fortran's LSAME: one character, either case.
inline bool lsame(const char* c, char upper) { return std::toupper(static_cast<unsigned char>(*c)) == upper; }

/// The product of the sizes that set a call's flops, 0 when one of them is
/// not positive (an empty call, or an invalid one that the vendor reports).
inline double product(long a, long b, long c) {
  return a > 0 && b > 0 && c > 0 ? static_cast<double>(a) * static_cast<double>(b) * static_cast<double>(c) : 0.0;
}

/// Whether a call goes to hetla: from outside hetla (a call from its worker
/// threads or its own vendor calls must not wait on itself) and at least the
/// routine's crossover.
template <typename T> bool to_hetla(Routine r, double size_product) {
  return above_crossover(r, precision_index<T>(), size_product) && rt::reentry_depth() == 0;
}

/// Calls the vendor marked as inside hetla: its own calls to exported names
/// (dgeqrf_ calls dgemm_ by name) go straight to the vendor too.
template <typename F, typename... Args> void vendor_call(F* f, Args... args) {
  const rt::ReentryScope inside;
  f(args...);
}

/// LAPACK's report of invalid argument `pos`: xerbla_ with the routine's
/// name as LAPACK spells it ("DPOTRF", "DGEMM " padded to 6) and the
/// argument's position.
template <typename T> void report(const char* base, int pos) {
  std::string name = fortran_name<T>(base);
  name.pop_back();
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (name.size() < 6) name.resize(6, ' ');
  xerbla_(name.data(), &pos, name.size());
}
/// The same for a LAPACK routine: info = -pos, then xerbla_.
template <typename T> void report(const char* base, int pos, int* info) {
  *info = -pos;
  report<T>(base, pos);
}

/// Runs the hetla path. An invalid argument the C++ API finds (it numbers
/// them as LAPACK) is reported as LAPACK would; any other error has no way
/// back through a LAPACK interface and the arrays may be half overwritten,
/// so it is printed and the program stopped rather than returning wrong data.
template <typename T, typename F> void run_hetla(const char* base, int* info, F&& f) noexcept {
  try {
    f();
  } catch (const ArgumentError& e) {
    if (info) *info = -e.arg();
    report<T>(base, e.arg());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hetla_lapack: %s: %s\n", fortran_name<T>(base).c_str(), e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "hetla_lapack: %s: unknown error\n", fortran_name<T>(base).c_str());
    std::abort();
  }
}

inline Uplo to_uplo(const char* c) { return lsame(c, 'U') ? Uplo::Upper : Uplo::Lower; }
/// 'N', 'T' or 'C' as Op; for real types 'C' means 'T' (as in BLAS).
template <typename T> Op to_op(const char* c) {
  if (lsame(c, 'N')) return Op::NoTrans;
  if (lsame(c, 'T')) return Op::Trans;
  return is_complex_v<T> ? Op::ConjTrans : Op::Trans;
}
inline Side to_side(const char* c) { return lsame(c, 'L') ? Side::Left : Side::Right; }
inline Diag to_diag(const char* c) { return lsame(c, 'U') ? Diag::Unit : Diag::NonUnit; }
inline bool is_uplo(const char* c) { return lsame(c, 'U') || lsame(c, 'L'); }
inline bool is_trans(const char* c) { return lsame(c, 'N') || lsame(c, 'T') || lsame(c, 'C'); }
inline int max1(int a) { return std::max(1, a); }

}  // namespace hetla::lapack
