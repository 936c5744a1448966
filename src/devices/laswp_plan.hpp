// LU's row interchanges on a column of tiles, planned for an accelerator
// kernel (seed 000 §5.3: an interchange kernel with coalesced accesses).
// Applying the pairs one after the other is a chain of tiny dependent moves;
// their net effect is a permutation of the rows they touch, which a device
// applies in two parallel sweeps: every row that ends elsewhere is gathered
// into a staging block (one slot per row, all columns), then scattered to its
// new place. Both sweeps are grouped by tile, so one kernel launch moves all
// of a tile's rows across all columns.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace hetla::dev {

/// Rows of a column of tiles lying one below the other, tile t holding mb[t]
/// rows: where row r (counted from the column's top) is.
class TileRows {
 public:
  TileRows(int64_t ntiles, const int64_t* mb) : start_(static_cast<std::size_t>(ntiles) + 1, 0) {
    for (std::size_t t = 0; t < static_cast<std::size_t>(ntiles); ++t) start_[t + 1] = start_[t] + mb[t];
  }
  /// The tile that holds row r.
  int64_t tile(int64_t r) const { return std::upper_bound(start_.begin() + 1, start_.end(), r) - start_.begin() - 1; }
  /// Row r's row within its tile t.
  int64_t in_tile(int64_t r, int64_t t) const { return r - start_[static_cast<std::size_t>(t)]; }

 private:
  std::vector<int64_t> start_;  // first row of each tile, then the total
};

struct LaswpPlan {
  /// The rows one tile gives (gather) or takes (scatter): pairs (row within
  /// the tile, staging slot).
  struct Part {
    int64_t tile = 0;
    std::vector<int32_t> moves;  // row, slot, row, slot, ...
    int64_t count() const { return static_cast<int64_t>(moves.size() / 2); }
  };
  int64_t slots = 0;  // rows that move
  std::vector<Part> gather, scatter;
};

/// Plan of the interchanges rows[2s] <-> rows[2s+1] (s < npairs, in order;
/// rows counted from the column's top) on tiles of mb[t] rows, one below the
/// other.
inline LaswpPlan plan_laswp(int64_t ntiles, const int64_t* mb, int64_t npairs, const int64_t* rows) {
  // position -> the original row that is there after the interchanges so far
  std::unordered_map<int64_t, int64_t> at;
  auto get = [&](int64_t r) {
    const auto it = at.find(r);
    return it == at.end() ? r : it->second;
  };
  for (int64_t s = 0; s < npairs; ++s) {
    const int64_t a = rows[2 * s], b = rows[2 * s + 1], ra = get(a), rb = get(b);
    at[a] = rb;
    at[b] = ra;
  }
  std::vector<std::pair<int64_t, int64_t>> moved;  // (destination, source)
  for (const auto& [pos, row] : at)
    if (pos != row) moved.emplace_back(pos, row);
  std::sort(moved.begin(), moved.end());

  const TileRows at_rows(ntiles, mb);
  std::vector<LaswpPlan::Part> gather(static_cast<std::size_t>(ntiles)), scatter(static_cast<std::size_t>(ntiles));
  for (std::size_t s = 0; s < moved.size(); ++s) {
    const auto [dst, src] = moved[s];
    const int64_t ts = at_rows.tile(src), td = at_rows.tile(dst);
    auto& g = gather[static_cast<std::size_t>(ts)].moves;
    g.insert(g.end(), {static_cast<int32_t>(at_rows.in_tile(src, ts)), static_cast<int32_t>(s)});
    auto& c = scatter[static_cast<std::size_t>(td)].moves;
    c.insert(c.end(), {static_cast<int32_t>(at_rows.in_tile(dst, td)), static_cast<int32_t>(s)});
  }
  LaswpPlan plan;
  plan.slots = static_cast<int64_t>(moved.size());
  for (int64_t t = 0; t < ntiles; ++t) {
    auto& g = gather[static_cast<std::size_t>(t)];
    auto& c = scatter[static_cast<std::size_t>(t)];
    if (!g.moves.empty()) g.tile = t, plan.gather.push_back(std::move(g));
    if (!c.moves.empty()) c.tile = t, plan.scatter.push_back(std::move(c));
  }
  return plan;
}

}  // namespace hetla::dev
