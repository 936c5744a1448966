// Task priorities of the right-looking factorizations (potrf, getrf, geqrf).
#pragma once
#include <cstdint>

namespace hetla::tile {

/// Priority of a task on tile column (or row, for an Upper Cholesky) j of
/// nt: earlier columns first, and a column's panel above its updates, so the
/// next panel is factored as soon as its inputs are ready (lookahead comes
/// from the dependences).
inline int prio(int64_t nt, int64_t j, bool panel) { return static_cast<int>(2 * (nt - j) + (panel ? 1 : 0)); }

}  // namespace hetla::tile
