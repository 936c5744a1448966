// Matrix::distributed: one process's part of a matrix spread over processes
// (src/mpi's DistMatrix builds on it).
#include <gtest/gtest.h>

#include <vector>

#include "hetla/matrix.hpp"
#include "memory/tile_block.hpp"
#include "runtime/handle.hpp"

namespace hetla {
namespace {

// 2-D block-cyclic over 2 x 2 processes, tiles 3 x 3 of a 70 x 50 matrix.
std::vector<int> cyclic(int64_t mt, int64_t nt) {
  std::vector<int> r;
  for (int64_t j = 0; j < nt; ++j)
    for (int64_t i = 0; i < mt; ++i) r.push_back(static_cast<int>((i % 2) * 2 + j % 2));
  return r;
}

TEST(MatrixDistributed, OnlyOwnTilesHaveStorage) {
  const int64_t m = 70, n = 50, nb = 16;  // 5 x 4 tiles, ragged
  const auto ranks = cyclic(5, 4);
  for (int me = 0; me < 4; ++me) {
    auto A = Matrix<double>::distributed(m, n, nb, ranks, me);
    ASSERT_EQ(A.mt(), 5);
    ASSERT_EQ(A.nt(), 4);
    for (int64_t j = 0; j < A.nt(); ++j)
      for (int64_t i = 0; i < A.mt(); ++i) {
        const Tile<double> t = A.tile(i, j);
        const int owner = ranks[static_cast<std::size_t>(i + j * 5)];
        EXPECT_EQ(A.handle(i, j)->rank, owner);
        EXPECT_EQ(t.mb, i == 4 ? 6 : 16);
        EXPECT_EQ(t.nb, j == 3 ? 2 : 16);
        EXPECT_EQ(A.handle(i, j)->bytes, static_cast<std::size_t>(t.mb * t.nb) * sizeof(double));
        if (owner != me) {
          EXPECT_EQ(t.data, nullptr);
          continue;
        }
        ASSERT_NE(t.data, nullptr);
        EXPECT_EQ(t.ld, t.mb);  // contiguous: sent as it lies
        for (int64_t c = 0; c < t.nb; ++c)
          for (int64_t r = 0; r < t.mb; ++r) {
            EXPECT_EQ(t(r, c), 0.0);
            t(r, c) = static_cast<double>(me + 1);  // ASan: inside its own storage
          }
      }
    // a block with another process's tile is no block
    EXPECT_FALSE(detail::as_block(A, 0, 1, 0, 0).has_value());
  }
}

TEST(MatrixDistributed, RanksMustCoverEveryTile) {
  EXPECT_THROW(Matrix<float>::distributed(10, 10, 4, std::vector<int>(8, 0), 0), ArgumentError);
  EXPECT_THROW(Matrix<float>::distributed(10, 10, 0, {}, 0), ArgumentError);
}

}  // namespace
}  // namespace hetla
