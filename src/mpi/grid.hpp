// A P x Q process grid over MPI (issue 16): the communicator hetla's
// distributed routines run on, and the runtime's transfers over it
// (rt::Comm). The only folder that includes <mpi.h> is src/mpi; this header
// does not, so the CLI and tests see no MPI types.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/comm.hpp"

namespace hetla::mpi {

/// Initialises MPI (thread level serialized: the library serialises its own
/// MPI calls) unless it is already; safe to call more than once.
void init(int* argc, char*** argv);
/// Finalises MPI if init() initialised it.
void finalize();
/// True when this process was started by mpirun / an MPI launcher.
bool launched();
/// True when MPI may be called from the runtime's progress thread as well as
/// the caller's, one call at a time: thread level MPI_THREAD_SERIALIZED or
/// above, or Open MPI at any level (its single and serialized levels are the
/// same code; BLACS initialises MPI with plain MPI_Init).
bool serialized_calls_allowed();
int world_rank();
int world_size();

/// P x Q processes of MPI_COMM_WORLD, row-major (rank = row * Q + col, as
/// BLACS' "Row" order), so that tile (i, j) of a 2-D block-cyclic matrix
/// lives on process (i mod P, j mod Q).
class Grid {
 public:
  /// Throws std::invalid_argument on every process when P x Q is not the
  /// number of processes (each checks the same numbers: no one waits).
  Grid(int p, int q);
  /// The processes of another communicator, given by its Fortran handle
  /// (MPI_Comm_c2f; no MPI type in this header), as a P x Q grid in the same
  /// row-major order: a BLACS context's (scalapack/). Throws
  /// std::invalid_argument when P x Q is not the communicator's size.
  Grid(int p, int q, int fortran_comm);
  ~Grid();
  Grid(const Grid&) = delete;
  Grid& operator=(const Grid&) = delete;

  int p() const { return p_; }
  int q() const { return q_; }
  int rank() const { return rank_; }
  int size() const { return p_ * q_; }
  int owner(int64_t i, int64_t j) const { return rt::block_cyclic_rank(i, j, p_, q_); }
  /// Transfers for the runtime (their own communicator).
  std::shared_ptr<rt::Comm> comm() const;

  // Collectives and plain transfers on the grid's other communicator.
  int64_t min(int64_t v) const;
  double max(double v) const;
  /// v[i] = the largest v[i] of every process, for each i (all in place).
  void max(std::vector<int64_t>& v) const;
  /// v[i] = the sum of v[i] over the processes, for each i (all in place).
  void sum(std::vector<double>& v) const;
  std::vector<double> gather(double v, int root = 0) const;  // one value per process at root
  void send(const void* data, std::size_t bytes, int dest) const;
  void recv(void* data, std::size_t bytes, int source) const;
  void barrier() const;
  /// Bytes this process sent through comm() since the grid was made.
  uint64_t bytes_sent() const;

  struct Impl;

 private:
  int p_ = 1, q_ = 1, rank_ = 0;
  std::unique_ptr<Impl> impl_;
};

/// Transfers longer than `bytes` go as one derived MPI datatype, as those
/// past 2 GiB must; returns the previous bound (INT32_MAX). For tests only:
/// the path taken by huge panels, with small buffers.
std::size_t set_max_plain_bytes_for_tests(std::size_t bytes);

/// "PxQ" -> {P, Q}; throws std::invalid_argument naming the expected form.
std::pair<int, int> parse_grid(const std::string& text);

}  // namespace hetla::mpi
