// The matrix objects of seed 003 §V on top of the coherence layer. A tile
// matrix is
//   regular      when its valid data is in host memory (M),
//   replicated   when every device holds a valid copy (M_R),
//   distributed  when its tile columns live on the devices that own them, in
//                column blocks sized by the capability weights (M_D),
// and the conversions between them are data movements the runtime performs:
//   M   -> M_R  broadcast      M_R -> M    local copy (the host copy is valid)
//   M   -> M_D  scatter        M_R -> M_D  local copy of each owner's part
//   M_D -> M    gather         M_D -> M_R  allgather
// Each conversion inserts, per tile and target device, a task with no work
// whose only effect is the access it declares on that device: a read makes a
// valid replica there (shared), a read-write makes it the only valid copy.
// They order like any other task, so an algorithm (e.g. seed 003 Algorithm 2)
// states where its operands should be and the runtime overlaps the copies
// with the work before them. Inside one library call only: wait_all() writes
// everything back to the host at the end of the call.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "hetla/matrix.hpp"
#include "memory/distribution.hpp"
#include "runtime/runtime.hpp"

namespace hetla::mem {

namespace detail {
/// A task on device `d` whose body does nothing: the access is the point.
inline void touch(rt::Runtime& rt, rt::Handle* h, rt::Mode mode, int d, int priority) {
  rt::Access a{h, mode};
  rt.insert([](rt::TaskContext&) {}, &a, 1, {priority, "move", rt::kNoFlags, dev::KernelId::None, 0, d});
}
}  // namespace detail

/// Devices that compute (the host device 0 included only when it has workers
/// that run tasks: it always does in this runtime).
inline std::vector<int> computing_devices(const rt::Runtime& rt) {
  std::vector<int> d(static_cast<std::size_t>(rt.num_devices()));
  for (int k = 0; k < rt.num_devices(); ++k) d[static_cast<std::size_t>(k)] = k;
  return d;
}

/// Owner of each tile column for a distributed matrix: contiguous column
/// blocks, block k of about n_k = nt * w_k / sum(w) tile columns (seed 003:
/// n_d = n * w_d), in device order.
inline std::vector<int> column_blocks(int64_t nt, const std::vector<int>& devices, const std::vector<double>& w) {
  std::vector<int> owner(static_cast<std::size_t>(nt), devices.empty() ? 0 : devices.front());
  double total = 0;
  for (double x : w) total += std::max(0.0, x);
  if (total <= 0 || nt == 0) return owner;
  double acc = 0;
  int64_t j0 = 0;
  for (std::size_t k = 0; k < devices.size(); ++k) {
    acc += std::max(0.0, w[k]);
    const int64_t j1 = k + 1 == devices.size() ? nt : std::llround(static_cast<double>(nt) * acc / total);
    for (int64_t j = j0; j < std::min(j1, nt); ++j) owner[static_cast<std::size_t>(j)] = devices[k];
    j0 = std::max(j0, j1);
  }
  return owner;
}

/// M -> M_R: a valid copy of every tile on every device (host included).
template <typename T> void broadcast(rt::Runtime& rt, const Matrix<T>& M, int priority = 0) {
  for (int d = 1; d < rt.num_devices(); ++d)
    for (int64_t j = 0; j < M.nt(); ++j)
      for (int64_t i = 0; i < M.mt(); ++i) detail::touch(rt, M.handle(i, j), rt::Mode::Read, d, priority);
}

/// M -> M_D (and M_R -> M_D, a local copy): tile column j becomes owned by
/// owner[j] (its home for owner-computes scheduling), whose copy becomes the
/// only valid one.
template <typename T> void scatter(rt::Runtime& rt, const Matrix<T>& M, const std::vector<int>& owner, int priority = 0) {
  for (int64_t j = 0; j < M.nt(); ++j) {
    const int d = owner[static_cast<std::size_t>(j)];
    for (int64_t i = 0; i < M.mt(); ++i) {
      M.handle(i, j)->home = d;
      detail::touch(rt, M.handle(i, j), rt::Mode::ReadWrite, d, priority);
    }
  }
}

/// M_D -> M: the host copy of every tile is valid again (device copies stay
/// valid as shared replicas).
template <typename T> void gather(rt::Runtime& rt, const Matrix<T>& M, int priority = 0) {
  for (int64_t j = 0; j < M.nt(); ++j)
    for (int64_t i = 0; i < M.mt(); ++i) detail::touch(rt, M.handle(i, j), rt::Mode::Read, 0, priority);
}

/// M_D -> M_R: every device receives every tile it does not own.
template <typename T> void allgather(rt::Runtime& rt, const Matrix<T>& M, int priority = 0) {
  for (int d = 0; d < rt.num_devices(); ++d)
    for (int64_t j = 0; j < M.nt(); ++j)
      for (int64_t i = 0; i < M.mt(); ++i) detail::touch(rt, M.handle(i, j), rt::Mode::Read, d, priority);
}

}  // namespace hetla::mem
