// A function run in a forked child process, its output read back over a
// pipe: SimGrid's engine can be set up once per process, so each simulation
// runs in a child of its own.
#pragma once
#include <chrono>
#include <functional>
#include <string>

namespace hetla::sim {

/// Runs `child` in a forked process and returns the text it returned. A
/// child that uses no CPU time for `stall` and writes nothing is killed and
/// the run forked again (`tries` in all), then std::runtime_error. Why: a
/// fork copies every lock as it is, and GCC 12's AddressSanitizer takes no
/// lock of its allocator around fork(), so a child forked while another
/// thread was in malloc waits on that lock forever (seen once in the ASan
/// stage: Simulate.OneCoreTimeIsTheSumOfTaskTimes, its child asleep in the
/// allocator at its first thread's start; glibc's own malloc is fork-safe).
/// A child that exits without writing: std::runtime_error.
std::string run_forked(const std::function<std::string()>& child,
                       std::chrono::seconds stall = std::chrono::seconds(20), int tries = 3);

}  // namespace hetla::sim
