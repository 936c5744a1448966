// Internal access to the library context. Public calls hold a CallScope for
// their whole duration: it serialises calls (one inserting thread per runtime)
// and sets the host BLAS to one thread while tasks run.
#pragma once
#include <mutex>

#include "hetla/context.hpp"
#include "runtime/runtime.hpp"
#include "util/blas_threads.hpp"

namespace hetla::detail {

std::recursive_mutex& call_mutex();
rt::Runtime& runtime();  // requires call_mutex() held
/// The context's distribution (Config::distribution).
Distribution default_distribution();
/// Replaces the library runtime with one built from `rc` (tests, tools).
void init_runtime(rt::RuntimeConfig rc);

class CallScope {
 public:
  CallScope() : lock_(call_mutex()), blas_(1) {}
  rt::Runtime& rt() { return runtime(); }

 private:
  std::unique_lock<std::recursive_mutex> lock_;
  util::BlasThreadsGuard blas_;
};

}  // namespace hetla::detail
