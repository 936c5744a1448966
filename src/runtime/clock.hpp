// The runtime's source of time: busy time per worker (stats), the time
// stamps of traced tasks and transfers. Behind an interface so that a
// simulated run (SimGrid) can advance its own clock; the real one is the
// steady clock. Every task reads it twice, so ClockRef calls the steady
// clock directly (no virtual call) when that is the clock in use.
#pragma once
#include <chrono>
#include <cstdint>

namespace hetla::rt {

class Clock {
 public:
  virtual ~Clock() = default;
  /// Nanoseconds since an arbitrary origin; never decreases.
  virtual int64_t now_ns() const = 0;
};

/// The real clock: std::chrono::steady_clock.
class SteadyClock final : public Clock {
 public:
  static int64_t read() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  int64_t now_ns() const override { return read(); }
};

/// The clock a runtime reads: `clock`, or the steady clock without a
/// virtual call when `clock` is a SteadyClock (or null).
class ClockRef {
 public:
  explicit ClockRef(const Clock* clock = nullptr)
      : other_(dynamic_cast<const SteadyClock*>(clock) ? nullptr : clock) {}
  int64_t now_ns() const { return other_ ? other_->now_ns() : SteadyClock::read(); }
  bool steady() const { return other_ == nullptr; }

 private:
  const Clock* other_;  // null: the steady clock
};

}  // namespace hetla::rt
