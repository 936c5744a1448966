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

/// Whether factor_tiling cuts by a variable schedule: asked for (Options, or
/// HETLA_VARIABLE_TILES for calls that leave nb to the library), not a tall
/// (m >= 4 n) QR. Under Distribution::Hybrid the schedule is the hybrid
/// pattern written out over the n columns with the tiles of its last round
/// that are at least twice the host's small tile halved (same owner).
bool variable_tiles(const Options& opts, int64_t m, int64_t n, Panels panels);

/// The hybrid tiling `t` written out over n columns, its last round's large
/// tiles halved (see variable_tiles); tilings without owners unchanged.
Tiling shrink_hybrid_tail(const Tiling& t, int64_t n);

/// The tiling of an m x n operand of potrf (Panels::Cholesky), getrf (LU) or
/// geqrf (QR) under `opts`; rt is the call's runtime (hybrid tilings).
template <typename T>
Tiling factor_tiling(const rt::Runtime& rt, const Options& opts, int64_t m, int64_t n, Panels panels);

}  // namespace hetla::detail
