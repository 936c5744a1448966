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
#include <type_traits>

#include "hetla/types.hpp"
#include "lapack/crossover.hpp"
#include "lapack/vendor.hpp"
#include "runtime/reentry.hpp"

/// The exported names; everything else in libhetla_lapack is hidden.
#define HETLA_LAPACK_EXPORT extern "C" __attribute__((visibility("default")))

/// MACRO(letter, T, I, suffix) per precision, s, d, c, z as
/// HETLA_FOR_EACH_PRECISION (src/util/precision.hpp), with the letter that
/// Fortran names carry (checked against precision_letter<T>() where a name is
/// made), and per integer ABI: LP64 (dpotrf_, INTEGER = int) and ILP64
/// (dpotrf_64_, INTEGER = int64_t), the names of OpenBLAS's 64-bit builds
/// and of Julia's libblastrampoline. A routine is one template over T and I.
#define HETLA_LAPACK_REAL(MACRO, I, suffix) \
  MACRO(s, float, I, suffix)                \
  MACRO(d, double, I, suffix)
#define HETLA_LAPACK_COMPLEX(MACRO, I, suffix) \
  MACRO(c, std::complex<float>, I, suffix)     \
  MACRO(z, std::complex<double>, I, suffix)
#define HETLA_LAPACK_ALL(MACRO, I, suffix) \
  HETLA_LAPACK_REAL(MACRO, I, suffix)      \
  HETLA_LAPACK_COMPLEX(MACRO, I, suffix)
#define HETLA_LAPACK_FOR_EACH_ABI(EACH, MACRO) \
  EACH(MACRO, int, _)                          \
  EACH(MACRO, int64_t, _64_)
#define HETLA_LAPACK_FOR_EACH_REAL(MACRO) HETLA_LAPACK_FOR_EACH_ABI(HETLA_LAPACK_REAL, MACRO)
#define HETLA_LAPACK_FOR_EACH_COMPLEX(MACRO) HETLA_LAPACK_FOR_EACH_ABI(HETLA_LAPACK_COMPLEX, MACRO)
#define HETLA_LAPACK_FOR_EACH_PRECISION(MACRO) HETLA_LAPACK_FOR_EACH_ABI(HETLA_LAPACK_ALL, MACRO)
#define HETLA_LAPACK_CHECK_LETTER(p, T) \
  static_assert(hetla::precision_letter<T>() == #p[0], "letter and type of a Fortran name disagree")

/// LAPACK's error handler: the one the program links (its own, as LAPACK
/// allows, or the vendor's), looked up by name like every LAPACK does.
extern "C" void xerbla_(const char* srname, const int* info, std::size_t srname_len);

namespace hetla::lapack {

using flen = std::size_t;  // gfortran's hidden character length (GCC >= 8)

/// "dpotrf" for T = double and base "potrf".
template <typename T> std::string routine_name(const char* base) { return precision_letter<T>() + std::string(base); }
/// The exported name: "dpotrf_" (LP64, I = int) or "dpotrf_64_" (ILP64).
template <typename T, typename I> std::string fortran_name(const char* base) {
  return routine_name<T>(base) + (std::is_same_v<I, int> ? "_" : "_64_");
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

/// LAPACK's report of invalid argument `pos`: xerbla_ with the routine's
/// name as LAPACK spells it ("DPOTRF", "DGEMM " padded to 6) and the
/// argument's position; xerbla_64_ for the ILP64 names (vendor.hpp).
template <typename T, typename I> void report(const char* base, int pos) {
  std::string name = routine_name<T>(base);
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (name.size() < 6) name.resize(6, ' ');
  if constexpr (std::is_same_v<I, int>) xerbla_(name.data(), &pos, name.size());
  else xerbla64(name.data(), pos, name.size());
}
/// The same for a LAPACK routine: info = -pos, then xerbla_.
template <typename T, typename I> void report(const char* base, int pos, I* info) {
  *info = -pos;
  report<T, I>(base, pos);
}

/// Runs the hetla path. An invalid argument the C++ API finds (it numbers
/// them as LAPACK) is reported as LAPACK would; any other error has no way
/// back through a LAPACK interface and the arrays may be half overwritten,
/// so it is printed and the program stopped rather than returning wrong data.
template <typename T, typename I, typename F> void run_hetla(const char* base, I* info, F&& f) noexcept {
  try {
    f();
  } catch (const ArgumentError& e) {
    if (info) *info = -e.arg();
    report<T, I>(base, static_cast<int>(e.arg()));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hetla_lapack: %s: %s\n", fortran_name<T, I>(base).c_str(), e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "hetla_lapack: %s: unknown error\n", fortran_name<T, I>(base).c_str());
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
template <typename I> I max1(I a) { return std::max(I{1}, a); }

}  // namespace hetla::lapack
