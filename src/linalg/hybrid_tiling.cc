// The public hybrid_tiling: the planner (detail::hybrid_tiling in
// memory/distribution) for the current context's devices, with the
// routine's default tile size.
#include "hetla/linalg.hpp"
#include "memory/distribution.hpp"
#include "context/context.hpp"
#include "util/check_args.hpp"
#include "util/precision.hpp"

namespace hetla {

template <typename T> Tiling hybrid_tiling(int64_t n, int64_t nb, Panels panels) {
  detail::require(n >= 0, 1, detail::routine_name<T>("hybrid_tiling"), "n < 0");
  detail::require(nb >= 0, 2, detail::routine_name<T>("hybrid_tiling"), "nb < 0");
  detail::CallScope scope;
  return detail::call_tiling(scope.rt(), Distribution::Hybrid, n, nb > 0 ? nb : default_tile_size<T>(n, panels), panels);
}
#define HETLA_INSTANTIATE(T) template Tiling hybrid_tiling<T>(int64_t, int64_t, Panels);
HETLA_FOR_EACH_PRECISION(HETLA_INSTANTIATE)
#undef HETLA_INSTANTIATE

}  // namespace hetla
