// Shared by the C API translation units: exceptions never cross the C
// boundary. Invalid arguments become -i (LAPACK's argument number), anything
// else HETLA_ERR_INTERNAL with a message for hetla_last_error().
#pragma once
#include <cctype>
#include <exception>
#include <string>

#include "hetla/hetla.h"
#include "hetla/types.hpp"

namespace hetla::capi {

/// The calling thread's last error message (one per thread, shared by every
/// C API translation unit: an inline function's static is unique).
inline std::string& last_error() {
  thread_local std::string message;
  return message;
}

template <typename F> int guarded(F&& f) {
  last_error().clear();
  try {
    return static_cast<int>(f());
  } catch (const hetla::ArgumentError& e) {
    last_error() = e.what();
    return -e.arg();
  } catch (const std::exception& e) {
    last_error() = e.what();
    return HETLA_ERR_INTERNAL;
  } catch (...) {
    last_error() = "unknown error";
    return HETLA_ERR_INTERNAL;
  }
}

/// LAPACK accepts either case; anything else is invalid (checked by the C++ API).
inline hetla::Uplo to_uplo(char c) {
  switch (std::toupper(static_cast<unsigned char>(c))) {
    case 'L': return hetla::Uplo::Lower;
    case 'U': return hetla::Uplo::Upper;
    default: return hetla::Uplo::General;
  }
}
/// 'N', 'T', 'C' in either case; any other character is passed through for
/// the C++ API to reject with the argument's number.
inline hetla::Op to_op(char c) { return static_cast<hetla::Op>(std::toupper(static_cast<unsigned char>(c))); }

}  // namespace hetla::capi
