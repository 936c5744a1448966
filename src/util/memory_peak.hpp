// Peak resident memory of one stretch of work (issue 19: "peak host memory of
// potrf on a user's column-major matrix stays within matrix + O(tile
// workspace)"). Linux keeps the process's peak (VmHWM) and lets the process
// reset it to the current size (writing "5" to /proc/self/clear_refs, Linux
// >= 4.0), so the growth over a call is measured exactly, page faults
// included, without sampling. Elsewhere (or where clear_refs is not writable)
// the meter says so instead of reporting a number.
#pragma once
#include <cstdint>
#include <optional>

namespace hetla::util {

class MemoryPeak {
 public:
  /// Resets the process's peak to its current resident size and notes it.
  void start();
  /// Bytes the resident size grew at most since start(); nullopt when the
  /// peak could not be reset or read.
  std::optional<int64_t> growth() const;
  /// The process's peak resident bytes (VmHWM) since start(), or since the
  /// process began when the reset failed; nullopt when unreadable.
  static std::optional<int64_t> peak();

 private:
  std::optional<int64_t> start_rss_;  // nullopt: the reset failed
};

}  // namespace hetla::util
