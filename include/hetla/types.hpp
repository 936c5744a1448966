/// @file
/// Basic enums and scalar traits shared by the whole public API.
#pragma once
#include <complex>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

/// The C++ API: tile matrices, factorizations, solvers, level-3 BLAS and
/// matrix functions over the devices of the library context.
namespace hetla {

/// Which triangle of a matrix is referenced (LAPACK's uplo).
enum class Uplo : char { Lower = 'L', Upper = 'U', General = 'G' };
/// op(A) = A, A^T or A^H (BLAS trans).
enum class Op : char { NoTrans = 'N', Trans = 'T', ConjTrans = 'C' };
/// op(A) X (Left) or X op(A) (Right) (BLAS side).
enum class Side : char { Left = 'L', Right = 'R' };
/// Whether a triangular matrix has a unit diagonal (BLAS diag).
enum class Diag : char { NonUnit = 'N', Unit = 'U' };

/// The factorization a tiling is planned for: its panels stay on the host
/// cores (a hybrid tiling shrinks their share of the columns by the panels'
/// time; the default tile sizes of LU and QR follow their panels' cost).
enum class Panels : uint8_t { Cholesky, LU, QR };

/// Raised for invalid arguments; `arg()` is the 1-based LAPACK argument position.
class ArgumentError : public std::invalid_argument {
 public:
  /// Message "routine: argument arg: what".
  ArgumentError(int arg, const std::string& routine, const std::string& what)
      : std::invalid_argument(routine + ": argument " + std::to_string(arg) + ": " + what),
        arg_(arg) {}
  /// The 1-based argument position (C API: info = -arg()).
  int arg() const noexcept { return arg_; }

 private:
  int arg_;
};

/// True for std::complex<float> and std::complex<double>.
template <typename T> struct is_complex : std::false_type {};
template <typename T> struct is_complex<std::complex<T>> : std::true_type {};
/// is_complex<T>::value.
template <typename T> inline constexpr bool is_complex_v = is_complex<T>::value;

/// The real type of T: T itself, or R for std::complex<R>.
template <typename T> struct real_type_of { using type = T; /**< T */ };
/// The real type of std::complex<T>: T.
template <typename T> struct real_type_of<std::complex<T>> { using type = T; /**< T */ };
/// real_type_of<T>::type (e.g. the type of herk's alpha and beta).
template <typename T> using real_t = typename real_type_of<T>::type;

/// LAPACK precision letter: s, d, c, z.
template <typename T> constexpr char precision_letter() {
  if constexpr (std::is_same_v<T, float>) return 's';
  else if constexpr (std::is_same_v<T, double>) return 'd';
  else if constexpr (std::is_same_v<T, std::complex<float>>) return 'c';
  else return 'z';
}

/// Complex conjugate; the identity for real T.
template <typename T> inline T conj(T x) {
  if constexpr (is_complex_v<T>) return std::conj(x);
  else return x;
}

}  // namespace hetla
