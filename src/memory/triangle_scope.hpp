// Triangle-only diagonal tiles for the duration of a routine.
#pragma once
#include <algorithm>
#include <cstdint>

#include "hetla/matrix.hpp"
#include "runtime/runtime.hpp"

namespace hetla::detail {

/// Marks the diagonal tiles of A as holding only their `uplo` triangle
/// (rt::Handle::triangle) for a routine's duration: devices may then use the
/// other triangle of their replicas as scratch, and copies back to the host
/// leave the caller's data there alone.
template <typename T> class TriangleScope {
 public:
  TriangleScope(const Matrix<T>& A, Uplo uplo) : A_(A) {
    set(uplo == Uplo::Lower ? rt::Handle::Triangle::Lower : rt::Handle::Triangle::Upper);
  }
  ~TriangleScope() { set(rt::Handle::Triangle::Whole); }
  TriangleScope(const TriangleScope&) = delete;
  TriangleScope& operator=(const TriangleScope&) = delete;

 private:
  void set(rt::Handle::Triangle t) {
    for (int64_t i = 0; i < std::min(A_.mt(), A_.nt()); ++i) A_.handle(i, i)->triangle = t;
  }
  const Matrix<T>& A_;
};

}  // namespace hetla::detail
