// Basic enums and scalar traits shared by the whole public API.
#pragma once
#include <complex>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace hetla {

enum class Uplo : char { Lower = 'L', Upper = 'U', General = 'G' };
enum class Op : char { NoTrans = 'N', Trans = 'T', ConjTrans = 'C' };
enum class Side : char { Left = 'L', Right = 'R' };
enum class Diag : char { NonUnit = 'N', Unit = 'U' };

/// The factorization a tiling is planned for: its panels stay on the host
/// cores (a hybrid tiling shrinks their share of the columns by the panels'
/// time; the default tile sizes of LU and QR follow their panels' cost).
enum class Panels : uint8_t { Cholesky, LU, QR };

/// Raised for invalid arguments; `arg()` is the 1-based LAPACK argument position.
class ArgumentError : public std::invalid_argument {
 public:
  ArgumentError(int arg, const std::string& routine, const std::string& what)
      : std::invalid_argument(routine + ": argument " + std::to_string(arg) + ": " + what),
        arg_(arg) {}
  int arg() const noexcept { return arg_; }

 private:
  int arg_;
};

template <typename T> struct is_complex : std::false_type {};
template <typename T> struct is_complex<std::complex<T>> : std::true_type {};
template <typename T> inline constexpr bool is_complex_v = is_complex<T>::value;

template <typename T> struct real_type_of { using type = T; };
template <typename T> struct real_type_of<std::complex<T>> { using type = T; };
template <typename T> using real_t = typename real_type_of<T>::type;

/// LAPACK precision letter: s, d, c, z.
template <typename T> constexpr char precision_letter() {
  if constexpr (std::is_same_v<T, float>) return 's';
  else if constexpr (std::is_same_v<T, double>) return 'd';
  else if constexpr (std::is_same_v<T, std::complex<float>>) return 'c';
  else return 'z';
}

template <typename T> inline T conj(T x) {
  if constexpr (is_complex_v<T>) return std::conj(x);
  else return x;
}

}  // namespace hetla
