// Tasks of the batched routines (linalg/batch.cc): one host task per host
// worker, each taking chunks of consecutive matrices from a shared counter
// until none is left, each matrix factored by the inline vendor kernels of
// tasks/inline_call.hpp. The tasks touch disjoint matrices and info entries,
// so they carry no data accesses and run in any order.
//
// Why a shared counter and not fixed groups: with 8 groups per worker
// (10 000 matrices of 32 x 32 on 2 workers: 16 groups of 1.7 ms), the last
// group left one core idle for up to a group's time, and a worker slowed by
// another process kept its groups; chunks taken on demand end together.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>

#include "tasks/inline_call.hpp"
#include "tasks/tile.hpp"

namespace hetla::tile {

/// Matrices per chunk: about 64 chunks per worker (a fetch_add each, beside
/// microseconds of work per matrix), at least one.
inline int64_t batch_chunk_size(int64_t count, int workers) {
  const int64_t chunks = 64 * static_cast<int64_t>(std::max(1, workers));
  return std::max<int64_t>(1, count / chunks);
}

/// Runs `one(i)` for i in [0, count) on `workers` host tasks that take
/// chunks of `chunk` matrices from `next` (zero; it must outlive the tasks:
/// the caller waits for them).
template <typename F>
void batch_tasks(rt::Runtime& rt, int workers, int64_t count, int64_t chunk, std::atomic<int64_t>* next,
                 double flops_each, F one) {
  const double flops = flops_each * static_cast<double>(count) / std::max(1, workers);
  for (int w = 0; w < std::max(1, workers); ++w)
    rt.insert(
        [=](rt::TaskContext&) {
          for (int64_t first; (first = next->fetch_add(chunk, std::memory_order_relaxed)) < count;)
            for (int64_t i = first, end = std::min(count, first + chunk); i < end; ++i) one(i);
        },
        {}, {0, "batch", rt::kHostOnly, dev::KernelId::None, flops});
}

}  // namespace hetla::tile
