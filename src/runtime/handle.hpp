// Data as the runtime sees it: a Handle names a piece of data (a tile), an
// Access is a task's use of one (read, write or both); per handle the runtime
// keeps its dependence state (last writer, readers since) and its coherence
// state (the host copy's validity and one Replica per accelerator).
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace hetla::rt {

enum class Mode : uint8_t { Read = 1, Write = 2, ReadWrite = 3 };
inline bool reads(Mode m) { return static_cast<uint8_t>(m) & 1u; }
inline bool writes(Mode m) { return static_cast<uint8_t>(m) & 2u; }

struct Task;
struct HandleComm;  // runtime/distributed.cc: versions, sends, the cached copy of a remote tile

/// Spin lock for short critical sections (dependence edges, replica states).
class SpinLock {
 public:
  void lock() {
    while (flag_.exchange(true, std::memory_order_acquire))
      while (flag_.load(std::memory_order_relaxed)) relax();
  }
  void unlock() { flag_.store(false, std::memory_order_release); }

 private:
  static void relax();
  std::atomic<bool> flag_{false};
};

enum class ReplicaState : uint8_t { Invalid, Shared, Modified };

/// A copy of a handle's data in one accelerator's memory.
struct Replica {
  void* ptr = nullptr;
  std::atomic<ReplicaState> state{ReplicaState::Invalid};
  int pins = 0;           // staged or running tasks using it (not evictable)
  bool filling = false;   // a copy into it is in flight (it stays Invalid until done)
  uint64_t last_use = 0;  // for LRU eviction
};

/// Identity of a piece of data (a tile). The dependence state is guarded by
/// `deps` (uncontended unless concurrent calls share the tile, e.g. read it both). Task pointers are validated by
/// sequence number, so a handle never owns (or keeps alive) a task.
/// Data: the home copy lives in host memory (rows x cols elements of
/// elem_size bytes, leading dimension ld); accelerators hold replicas.
struct Handle {
  struct Ref {
    Task* task = nullptr;
    uint64_t seq = 0;
  };
  Handle() = default;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  // host (home) copy and its geometry; host_data and ld first and the
  // dependence state last, more than a cache line apart: a tile's readers'
  // workers read these while the inserting thread writes that (bench
  // runtime's fan-out: 0.33-0.44 -> 0.26-0.37 us a task with prune_readers,
  // 8 alternated runs)
  void* host_data = nullptr;
  int64_t ld = 0, rows = 0, cols = 0;
  std::size_t bytes = 0;
  uint32_t elem_size = 0;
  int home = -1;  // owning device for static (owner-computes) scheduling; -1 = none
  /// The part of the host tile that is data: all of it, or only the lower /
  /// upper triangle with the diagonal (a Cholesky factorization's diagonal
  /// tiles). Copies back to the host leave the rest as the caller had it, so
  /// a device replica may use it as scratch (Device::herk_as_gemm). Set by
  /// a routine for its duration (TriangleScope).
  enum class Triangle : uint8_t { Whole, Lower, Upper } triangle = Triangle::Whole;
  /// The process that owns the data (runtime/comm.hpp); -1: this process,
  /// not distributed. A remote handle has no host data here.
  int rank = -1;
  std::shared_ptr<HandleComm> comm;  // inserting thread only; set once it takes part in transfers

  // coherence (guarded by `lock`); replicas indexed by device id
  SpinLock lock;
  std::atomic<bool> host_valid{true};
  std::unique_ptr<Replica[]> replicas;
  uint64_t replicas_runtime = 0;

  SpinLock deps;            // guards runtime_id, last_writer, readers
  uint64_t runtime_id = 0;  // which runtime the refs below belong to
  Ref last_writer;
  std::vector<Ref> readers;  // readers since the last write

  /// Describes the host copy (tile geometry) so it can be copied to devices.
  void set_host(void* data, int64_t r, int64_t c, int64_t leading, uint32_t elem) {
    host_data = data;
    rows = r, cols = c, ld = leading, elem_size = elem;
    bytes = static_cast<std::size_t>(r * c) * elem;
  }
};

struct Access {
  Handle* handle;
  Mode mode;
};
inline Access R(Handle* h) { return {h, Mode::Read}; }
inline Access W(Handle* h) { return {h, Mode::Write}; }
inline Access RW(Handle* h) { return {h, Mode::ReadWrite}; }

}  // namespace hetla::rt
