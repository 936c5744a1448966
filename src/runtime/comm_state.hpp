// Owner computes across processes, the state distributed.cc (insertion:
// routes and transfers) and progress.cc (the progress thread) share: per
// distributed handle its HandleComm, per attached communicator its CommState.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/comm.hpp"
#include "runtime/copy_arena.hpp"
#include "runtime/handle.hpp"

namespace hetla::rt {

struct Task;

/// Per distributed handle: its version and where it was sent; on a process
/// that reads it remotely, the cached copy (its own handle and buffer).
struct HandleComm {
  uint64_t scope = 0;          // the CommScope it belongs to; from an earlier one it is stale
  uint64_t version = 0;        // writes inserted so far, on every process alike
  std::vector<uint64_t> sent;  // per process: 1 + the version it holds or will receive, 0 = none
  std::vector<int> holders;    // of this version, in the order they asked: [0] the owner (the tree's nodes)
  Handle copy;                 // a remote tile's copy here; rank -1
};

namespace detail {

struct CommState {
  std::shared_ptr<Comm> comm;
  int me = 0, size = 1;
  std::vector<uint64_t> send_seq, recv_seq;  // per process: transfers inserted so far (their tags)
  // The scope's number, and its handles' HandleComms: held here, not reached
  // through the handles, since a handle may die before the scope ends (LU's
  // pivot tokens live in getrf's frame, inside the caller's scope).
  uint64_t scope = 0;
  std::vector<std::shared_ptr<HandleComm>> touched;
  CopyArena arena;  // the cached copies' memory
  std::vector<Access> remap;                 // the task's accesses with remote tiles replaced by copies
  struct Planned {                           // a transfer of a block read (TaskOptions::block_reads)
    std::size_t access;
    int from, dest;                          // from < 0: taken into an earlier message
  };
  std::vector<Planned> planned;
  struct Return {                            // a remote tile written here, sent back after the task
    Handle* copy;
    int dest;
    uint64_t tag;
  };
  std::vector<Return> returns;
  // progress thread
  std::thread thread;
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<Task*> inbox;  // ready transfers
  bool stop = false;
  Comm::Request posted = nullptr;  // what the body of the transfer being started posted
  std::vector<std::byte> packed;   // its packed tile, when the host tile is not contiguous
  // Pack buffers of finished transfers, reused (progress thread only): a new
  // one per send of a tile of the caller's array was fresh pages to fault in.
  std::vector<std::vector<std::byte>> spare;
  // a receive into a strided tile: where `packed` is unpacked once it arrived
  std::byte* unpack_to = nullptr;
  int64_t unpack_ld = 0;
  const Handle* unpack_geometry = nullptr;
};

}  // namespace detail
}  // namespace hetla::rt
