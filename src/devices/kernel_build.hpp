// Time spent building device code (OpenCL programs compiled from source the
// first time a kernel of a routine and precision runs on a device, or loaded
// from the OpenCL driver's cache). On a machine with an empty kernel cache
// (a fresh POCL install: ~20 s per precision on 2 cores) that time dwarfs the
// computation, so code that times a call (test watchdogs, benchmarks) can
// leave it out: elapsed time minus the growth of kernel_build_time().
#pragma once
#include <chrono>

namespace hetla::dev {

/// Marks the calling thread as building (or possibly building) device code
/// for its lifetime. Scopes may nest and overlap across threads: the clock
/// counts the wall time during which at least one scope is open.
class KernelBuildScope {
 public:
  KernelBuildScope();
  ~KernelBuildScope();
  KernelBuildScope(const KernelBuildScope&) = delete;
  KernelBuildScope& operator=(const KernelBuildScope&) = delete;
};

/// Wall time, since the process started, during which some KernelBuildScope
/// was open, including the one(s) open now (steady clock).
std::chrono::nanoseconds kernel_build_time();
/// Number of KernelBuildScopes open now.
int kernel_builds_in_progress();

class Device;
/// Runs every kernel accelerator `d` has for precision `precision` (s, d, c
/// or z) once on tiny tiles in its own memory, for the transposes, sides and
/// triangles the tile algorithms use, so that their device code is built
/// now and not inside a timed call. Skips a double-precision warm-up on a
/// device without fp64 and a host device. Returns the kernel-build time it
/// took (zero when everything was built already).
std::chrono::nanoseconds warm_up_kernels(Device& d, char precision);

}  // namespace hetla::dev
