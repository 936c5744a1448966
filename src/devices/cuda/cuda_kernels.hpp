// Our own CUDA kernels, for what cuBLAS / cuSOLVER lack. Compiled by nvcc
// into their own object library (src/CMakeLists.txt) when the toolkit has
// one; the device uses them under HETLA_HAVE_CUDA_KERNELS.
#pragma once
#include <cuda_runtime.h>

namespace hetla::dev::cuda_kernels {

/// LU's row interchanges as a gather / scatter (devices/laswp_plan.hpp):
/// moves `count` rows between a column-major tile (leading dimension ld) and
/// a staging block (leading dimension sld) across `cols` columns; gather:
/// stage(moves[2r + 1], c) = tile(moves[2r], c), scatter the reverse.
/// Elements are `word` bytes (4, 8 or 16); `moves` is device memory.
/// Returns the launch's error (asynchronous on `stream`).
cudaError_t laswp_move(bool gather, int word, void* tile, int ld, void* stage, int sld, const int* moves, int count,
                       int cols, cudaStream_t stream);

}  // namespace hetla::dev::cuda_kernels
