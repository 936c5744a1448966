// Tasks of the batched routines (linalg/batch.cc): one host task per group of
// consecutive matrices, each matrix factored by the inline vendor kernels of
// tasks/inline_call.hpp. The tasks touch disjoint matrices and info entries,
// so they carry no data accesses and run in any order.
#pragma once
#include <algorithm>
#include <cstdint>

#include "tasks/inline_call.hpp"
#include "tasks/tile.hpp"

namespace hetla::tile {

/// Matrices per task for `count` matrices on `workers` workers: about 8
/// tasks per worker, so that the last ones balance the load while the
/// insertion (about a microsecond a task) stays small beside the work.
inline int64_t batch_group_size(int64_t count, int workers) {
  const int64_t tasks = 8 * static_cast<int64_t>(std::max(1, workers));
  return std::max<int64_t>(1, (count + tasks - 1) / tasks);
}

/// Runs `one(i)` for i in [first, first + len) as one host task.
template <typename F> void batch_group(rt::Runtime& rt, int64_t first, int64_t len, double flops, F one) {
  rt.insert(
      [=](rt::TaskContext&) {
        for (int64_t i = first; i < first + len; ++i) one(i);
      },
      {}, {0, "batch", rt::kHostOnly, dev::KernelId::None, flops * static_cast<double>(len)});
}

}  // namespace hetla::tile
