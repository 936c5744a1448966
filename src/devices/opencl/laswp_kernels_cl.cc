// LU's row-interchange kernels in OpenCL C: CLBlast has no laswp, so the
// OpenCL device builds these itself (on first use, per queue).
#include "devices/opencl/opencl_internal.hpp"

namespace hetla::dev::ocl {

// LU's row interchanges (see devices/laswp_plan.hpp): work-item (r, c) moves
// element c of the r-th listed row between a tile and the staging block, so
// neighbouring work-items (r, r + 1) touch neighbouring staging slots of one
// column. Elements move as raw 4-, 8- or 16-byte words: no fp64 needed to
// move doubles.
const char* const kLaswpSource = R"CL(
#define LASWP_KERNELS(E)                                                                              \
__kernel void laswp_gather_##E(__global const E* tile, int ld, __global E* stage, int sld,            \
                               __global const int* moves, int first, int count) {                     \
  const int r = first + get_global_id(0), c = get_global_id(1);                                       \
  if (r < first + count) stage[moves[2 * r + 1] + (size_t)c * sld] = tile[moves[2 * r] + (size_t)c * ld]; \
}                                                                                                     \
__kernel void laswp_scatter_##E(__global E* tile, int ld, __global const E* stage, int sld,           \
                                __global const int* moves, int first, int count) {                    \
  const int r = first + get_global_id(0), c = get_global_id(1);                                       \
  if (r < first + count) tile[moves[2 * r] + (size_t)c * ld] = stage[moves[2 * r + 1] + (size_t)c * sld]; \
}
LASWP_KERNELS(uint)
LASWP_KERNELS(uint2)
LASWP_KERNELS(uint4)
)CL";

}  // namespace hetla::dev::ocl
