// Reads a fuzzer's bytes as the arguments of a call: small sizes (sometimes
// negative), leading dimensions near their minimum (sometimes below it), flag
// characters (mostly valid), values with NaN and Inf payloads. Running out of
// bytes gives zeros, so every input is a complete call.
#pragma once
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace hetla::fuzz {

class Input {
 public:
  Input(const uint8_t* data, std::size_t size) : p_(data), end_(data + size) {}

  uint8_t byte() { return p_ < end_ ? *p_++ : 0; }
  /// A size in [-2, max]: mostly in range, sometimes negative.
  int dim(int max) {
    const uint8_t b = byte();
    return b >= 252 ? -1 - b % 2 : b % (max + 1);
  }
  /// A leading dimension for `rows`: max(1, rows) plus -2..+3 (below the minimum on purpose).
  int ld(int rows) { return std::max(1, rows) + static_cast<int>(byte() % 6) - 2; }
  /// One of `valid` most of the time, any byte otherwise.
  char flag(const char* valid) {
    const uint8_t b = byte();
    const std::size_t n = std::strlen(valid);
    return b < 240 ? valid[b % n] : static_cast<char>(byte());
  }
  bool rarely() { return byte() >= 248; }  // ~3 %: a NULL pointer, say

  template <typename T>
  T value() {
    if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
      using R = typename T::value_type;
      const R re = value<R>();
      return T(re, value<R>());
    } else {
      const uint8_t b = byte();
      if (b == 255) return std::numeric_limits<T>::quiet_NaN();
      if (b == 254) return std::numeric_limits<T>::infinity();
      if (b == 253) return -std::numeric_limits<T>::infinity();
      return static_cast<T>(static_cast<int>(b) - 126) / T(16);
    }
  }
  /// rows x cols column-major with leading dimension ld (ld * cols elements, at least one).
  template <typename T>
  std::vector<T> matrix(int ld, int cols) {
    std::vector<T> m(static_cast<std::size_t>(std::max(ld, 1)) * std::max(cols, 1));
    for (auto& x : m) x = value<T>();
    return m;
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

}  // namespace hetla::fuzz
