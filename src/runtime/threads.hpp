// How the runtime's workers are started and how an idle one blocks. Null in
// real runs: std::thread and the ready queues' condition variables, as
// before. A simulation (SimGrid) runs its actors one at a time: a worker
// that waits must yield to the simulator, so it supplies its own threads
// (actors) and its own blocking (RuntimeConfig::threads), as StarPU swaps
// its thread primitives in its SimGrid mode. With it the runtime never
// spins; its copy engines are started and block through it too.
#pragma once
#include <functional>

namespace hetla::rt {

class Threads {
 public:
  virtual ~Threads() = default;
  /// Runs fn concurrently with the caller (a worker).
  virtual void start(std::function<void()> fn) = 0;
  /// Returns once every fn started has returned.
  virtual void join_all() = 0;
  /// Blocks the caller until ready() holds; ready() is re-checked after a
  /// notify(channel) woke it. Channel d >= 0: device d's workers wait for its
  /// ready queue; kCaller: the inserting thread waits for tasks to finish
  /// (or for host tasks).
  virtual void wait(int channel, const std::function<bool()>& ready) = 0;
  /// Wakes up to n waiters of the channel.
  virtual void notify(int channel, int n) = 0;
  static constexpr int kCaller = -1;
  /// Workers of a device with several (a simulated node's host cores) wait
  /// for another of them to finish copying a tile in.
  static constexpr int kFilling = -2;
  static constexpr int kAll = 1 << 30;
};

}  // namespace hetla::rt
