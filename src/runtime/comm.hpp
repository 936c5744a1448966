// The runtime's seam to other processes (issue 16): point-to-point transfers
// of a tile's bytes, nonblocking, as an MPI implementation (src/mpi/) gives
// them. The runtime never includes <mpi.h>; it only sees this interface.
//
// Owner computes across processes, as StarPU-MPI's task insertion: every
// process inserts the same tasks; a handle with `Handle::rank >= 0` lives on
// that process; a task runs on the process that owns the handle it writes
// (all on this process when it writes none of another's). The runtime
// infers the transfers from the access modes (runtime/distributed.cc): the
// owner of a tile a remote task reads sends it once per version of the
// tile; the reader receives it into a local copy cached until the tile is
// written again (or the CommScope ends). Transfers run on a progress thread
// of the runtime that polls the requests, never on a compute worker.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace hetla::rt {

class Runtime;

/// The process (or simulated node) owning tile (i, j) of a matrix 2-D
/// block-cyclic over a P x Q grid numbered row-major (rank = row * Q + col,
/// BLACS' "Row" order): the one mapping mpi::Grid and the simulated cluster
/// (RuntimeConfig::nodes) share.
inline int block_cyclic_rank(int64_t i, int64_t j, int p, int q) { return static_cast<int>((i % p) * q + (j % q)); }

class Comm {
 public:
  virtual ~Comm() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Opaque request of a nonblocking transfer, finished when test() says so.
  using Request = void*;
  virtual Request isend(const void* data, std::size_t bytes, int dest, uint64_t tag) = 0;
  virtual Request irecv(void* data, std::size_t bytes, int source, uint64_t tag) = 0;
  /// True once the transfer finished (the request is then freed).
  virtual bool test(Request r) = 0;
  /// Tests n requests at once: appends to `finished` the index of each
  /// request test() would say is finished (and frees it). An implementation
  /// that can should run its progress engine once for all of them
  /// (MPI_Testsome), not once per request.
  virtual void test_some(const Request* reqs, std::size_t n, std::vector<std::size_t>& finished) {
    for (std::size_t i = 0; i < n; ++i)
      if (test(reqs[i])) finished.push_back(i);
  }
};

/// Attaches `comm` to the runtime for a scope (one distributed call): starts
/// its progress thread; the destructor waits for the runtime's tasks, stops
/// the thread and drops the cached copies of remote tiles. Every process of
/// the communicator must open and close it around the same task insertions.
class CommScope {
 public:
  CommScope(Runtime& rt, std::shared_ptr<Comm> comm);
  ~CommScope();
  CommScope(const CommScope&) = delete;
  CommScope& operator=(const CommScope&) = delete;

 private:
  Runtime& rt_;
};

}  // namespace hetla::rt
