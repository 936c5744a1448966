// The host BLAS must run single-threaded inside tasks (the runtime provides
// the parallelism); the vendor baseline wants all cores. Only OpenBLAS and MKL
// expose a thread-count call; for other vendors these are no-ops.
#pragma once
#include <string>

namespace hetla::util {

int blas_get_num_threads();
void blas_set_num_threads(int n);
/// "OpenBLAS 0.3.21 ..." or the CMake-detected vendor name.
std::string blas_vendor();

/// Sets the BLAS thread count for a scope and restores it afterwards.
class BlasThreadsGuard {
 public:
  explicit BlasThreadsGuard(int n) : saved_(blas_get_num_threads()) {
    if (saved_ != n) blas_set_num_threads(n);
  }
  ~BlasThreadsGuard() {
    if (blas_get_num_threads() != saved_) blas_set_num_threads(saved_);
  }
  BlasThreadsGuard(const BlasThreadsGuard&) = delete;
  BlasThreadsGuard& operator=(const BlasThreadsGuard&) = delete;

 private:
  int saved_;
};

}  // namespace hetla::util
