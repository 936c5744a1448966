// The tiling a factorization's column-major overload cuts the user's array
// by: fixed tiles (Options::nb, or the default tile size), the hybrid
// tiling under Distribution::Hybrid, or a schedule of tiles that shrink
// towards the end (variable_tiling, seed 002 Fig. 2b) when asked for.
#pragma once
#include <cstdint>

#include "hetla/linalg.hpp"

namespace hetla::rt { class Runtime; }

namespace hetla::detail {

/// Whether the variable schedule is on for calls that do not say
/// (Options::variable_tiles = -1, nb = 0) and HETLA_VARIABLE_TILES is unset.
inline constexpr bool kVariableTilesDefault = false;

/// Whether factor_tiling cuts by variable_tiling: asked for (Options, or
/// HETLA_VARIABLE_TILES for calls that leave nb to the library), not under
/// Distribution::Hybrid, not a tall (m >= 4 n) QR.
bool variable_tiles(const Options& opts, int64_t m, int64_t n, Panels panels);

/// The tiling of an m x n operand of potrf (Panels::Cholesky), getrf (LU) or
/// geqrf (QR) under `opts`; rt is the call's runtime (hybrid tilings).
template <typename T>
Tiling factor_tiling(const rt::Runtime& rt, const Options& opts, int64_t m, int64_t n, Panels panels);

}  // namespace hetla::detail
