// Our own CUDA kernels (see cuda_kernels.hpp).
#include "devices/cuda/cuda_kernels.hpp"

#include <cstddef>

namespace hetla::dev::cuda_kernels {

namespace {

constexpr int kThreads = 128;

// Thread x: the x-th listed row, block row y: column y. Consecutive threads
// read or write consecutive staging slots of one column.
template <typename W>
__global__ void move_rows(W* tile, int ld, W* stage, int sld, const int* moves, int count, bool gather) {
  const int r = static_cast<int>(blockIdx.x) * kThreads + static_cast<int>(threadIdx.x);
  if (r >= count) return;
  const std::size_t c = blockIdx.y;
  W* t = tile + moves[2 * r] + c * static_cast<std::size_t>(ld);
  W* s = stage + moves[2 * r + 1] + c * static_cast<std::size_t>(sld);
  if (gather)
    *s = *t;
  else
    *t = *s;
}

template <typename W>
cudaError_t launch(bool gather, void* tile, int ld, void* stage, int sld, const int* moves, int count, int cols,
                   cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((count + kThreads - 1) / kThreads), static_cast<unsigned>(cols));
  move_rows<W><<<grid, kThreads, 0, stream>>>(static_cast<W*>(tile), ld, static_cast<W*>(stage), sld, moves, count,
                                              gather);
  return cudaGetLastError();
}

}  // namespace

cudaError_t laswp_move(bool gather, int word, void* tile, int ld, void* stage, int sld, const int* moves, int count,
                       int cols, cudaStream_t stream) {
  if (count <= 0 || cols <= 0) return cudaSuccess;
  if (cols > 65535) return cudaErrorInvalidValue;  // gridDim.y
  switch (word) {
    case 4: return launch<unsigned>(gather, tile, ld, stage, sld, moves, count, cols, stream);
    case 8: return launch<uint2>(gather, tile, ld, stage, sld, moves, count, cols, stream);
    case 16: return launch<uint4>(gather, tile, ld, stage, sld, moves, count, cols, stream);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace hetla::dev::cuda_kernels
