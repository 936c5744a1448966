// How deep the calling thread is inside hetla. The LAPACK drop-in library
// (src/lapack/) exports dpotrf_, dgemm_, ... and may be interposed over the
// vendor's names; hetla's own kernels call LAPACKE, which calls dpotrf_ by its
// global name. A call that arrives at depth > 0 therefore comes from hetla
// itself and must go straight to the vendor: routed back into hetla it would
// wait on the call it is part of. Set on the runtime's worker threads for
// their life (Runtime::worker_loop) and around every public call (CallScope).
#pragma once

namespace hetla::rt {

/// This thread's depth (0: not inside hetla). One int per thread, exported
/// for libhetla_lapack.
int& reentry_depth() noexcept;

/// Marks the calling thread as inside hetla for the scope's life.
class ReentryScope {
 public:
  ReentryScope() noexcept : depth_(reentry_depth()) { ++depth_; }
  ~ReentryScope() { --depth_; }
  ReentryScope(const ReentryScope&) = delete;
  ReentryScope& operator=(const ReentryScope&) = delete;

 private:
  int& depth_;
};

}  // namespace hetla::rt
