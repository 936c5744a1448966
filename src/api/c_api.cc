// C API: thin adapters from LAPACK-style arguments to the C++ API. Exceptions
// never cross the C boundary: invalid arguments become -i, anything else
// HETLA_ERR_INTERNAL with a message in hetla_last_error().
#include "hetla/hetla.h"

#include <cctype>
#include <new>
#include <stdexcept>
#include <string>

#include "api/c_api_util.hpp"
#include "hetla/hetla.hpp"
#include "context/context.hpp"

namespace {
using hetla::capi::guarded;
using hetla::capi::to_uplo;

template <typename T> int potrf(char uplo, int n, T* A, int lda) {
  return guarded([&] { return hetla::potrf<T>(to_uplo(uplo), n, A, lda); });
}
template <typename T> int potrs(char uplo, int n, int nrhs, const T* A, int lda, T* B, int ldb) {
  return guarded([&] {
    hetla::potrs<T>(to_uplo(uplo), n, nrhs, A, lda, B, ldb);
    return 0;
  });
}
template <typename T> int posv(char uplo, int n, int nrhs, T* A, int lda, T* B, int ldb) {
  return guarded([&] { return hetla::posv<T>(to_uplo(uplo), n, nrhs, A, lda, B, ldb); });
}
}  // namespace

extern "C" {

int hetla_init(int num_threads) {
  return guarded([&] {
    if (num_threads < 0) throw hetla::ArgumentError(1, "hetla_init", "num_threads < 0");
    hetla::init(hetla::Config{num_threads, true});
    return 0;
  });
}
int hetla_init_config(const char* config) {
  return guarded([&] {
    if (!config) throw hetla::ArgumentError(1, "hetla_init_config", "config is NULL");
    hetla::Config cfg;
    try {
      cfg = hetla::detail::parse_config(config, "config");
      hetla::init(cfg);
    } catch (const hetla::ArgumentError&) {
      throw;
    } catch (const std::invalid_argument& e) {  // a malformed item or device list: argument 1
      throw hetla::ArgumentError(1, "hetla_init_config", e.what());
    }
    return 0;
  });
}
void hetla_finalize(void) { hetla::finalize(); }
const char* hetla_last_error(void) { return hetla::capi::last_error().c_str(); }
const char* hetla_last_warning(void) {
  thread_local std::string text;
  text.clear();
  try {
    for (const std::string& w : hetla::last_warnings()) text += (text.empty() ? "" : "\n") + w;
  } catch (...) {  // nothing crosses the C boundary
  }
  return text.c_str();
}
void hetla_reset_devices(void) { hetla::reset_devices(); }

int hetla_spotrf(char u, int n, float* A, int lda) { return potrf(u, n, A, lda); }
int hetla_dpotrf(char u, int n, double* A, int lda) { return potrf(u, n, A, lda); }
int hetla_cpotrf(char u, int n, hetla_complex_float* A, int lda) { return potrf(u, n, A, lda); }
int hetla_zpotrf(char u, int n, hetla_complex_double* A, int lda) { return potrf(u, n, A, lda); }

int hetla_spotrs(char u, int n, int r, const float* A, int lda, float* B, int ldb) {
  return potrs(u, n, r, A, lda, B, ldb);
}
int hetla_dpotrs(char u, int n, int r, const double* A, int lda, double* B, int ldb) {
  return potrs(u, n, r, A, lda, B, ldb);
}
int hetla_cpotrs(char u, int n, int r, const hetla_complex_float* A, int lda, hetla_complex_float* B, int ldb) {
  return potrs(u, n, r, A, lda, B, ldb);
}
int hetla_zpotrs(char u, int n, int r, const hetla_complex_double* A, int lda, hetla_complex_double* B,
                 int ldb) {
  return potrs(u, n, r, A, lda, B, ldb);
}

int hetla_sposv(char u, int n, int r, float* A, int lda, float* B, int ldb) { return posv(u, n, r, A, lda, B, ldb); }
int hetla_dposv(char u, int n, int r, double* A, int lda, double* B, int ldb) {
  return posv(u, n, r, A, lda, B, ldb);
}
int hetla_cposv(char u, int n, int r, hetla_complex_float* A, int lda, hetla_complex_float* B, int ldb) {
  return posv(u, n, r, A, lda, B, ldb);
}
int hetla_zposv(char u, int n, int r, hetla_complex_double* A, int lda, hetla_complex_double* B, int ldb) {
  return posv(u, n, r, A, lda, B, ldb);
}

}  // extern "C"
