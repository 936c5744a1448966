// Tilings (seed 004 §3.1): a pattern of tile sizes repeated along rows and
// columns. Uniform tiles are the one-size pattern; hybrid patterns give tiles
// of several sizes, with ragged last tiles, for owned storage and views alike.
#include <gtest/gtest.h>

#include <vector>

#include "hetla/hetla.hpp"

namespace hetla {
namespace {

const Tiling kPattern{{3, 5, 2}, {}};

TEST(Tiling, CutsRowsAndColumnsByThePattern) {
  Matrix<double> A(17, 13, kPattern);  // rows 3 5 2 3 4 | columns 3 5 2 3
  ASSERT_EQ(A.mt(), 5);
  ASSERT_EQ(A.nt(), 4);
  const int64_t mb[] = {3, 5, 2, 3, 4}, r0[] = {0, 3, 8, 10, 13};
  for (int64_t i = 0; i < A.mt(); ++i) {
    EXPECT_EQ(A.tile_mb(i), mb[i]) << i;
    EXPECT_EQ(A.row_offset(i), r0[i]) << i;
  }
  const int64_t nb[] = {3, 5, 2, 3}, c0[] = {0, 3, 8, 10};
  for (int64_t j = 0; j < A.nt(); ++j) {
    EXPECT_EQ(A.tile_nb(j), nb[j]) << j;
    EXPECT_EQ(A.col_offset(j), c0[j]) << j;
    EXPECT_EQ(A.tile_owner(j), -1);
  }
  EXPECT_FALSE(A.uniform_tiles());
  EXPECT_TRUE(Matrix<double>(4, 4, 2).uniform_tiles());
  EXPECT_EQ(Matrix<double>(4, 4, 2).tiling(), (Tiling{{2}, {}}));
}

template <typename T> void roundtrip(Matrix<T> A, int64_t m, int64_t n) {
  std::vector<T> src(static_cast<std::size_t>(m * n)), dst(src.size(), T(-1));
  for (std::size_t k = 0; k < src.size(); ++k) src[k] = T(static_cast<double>(k) + 0.5);
  A.copy_from(src.data(), m);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) ASSERT_EQ(A.at(i, j), src[static_cast<std::size_t>(i + j * m)]) << i << "," << j;
  A.copy_to(dst.data(), m);
  EXPECT_EQ(src, dst);
}

TEST(Tiling, OwnedAndViewRoundTrip) {
  roundtrip(Matrix<double>(17, 13, kPattern), 17, 13);
  roundtrip(Matrix<std::complex<float>>(9, 21, kPattern), 9, 21);
  std::vector<double> buf(20 * 13, 0.0);
  roundtrip(Matrix<double>::view(17, 13, buf.data(), 20, kPattern), 17, 13);
  // a view addresses the user's array: element (i, j) at i + j lda
  auto V = Matrix<double>::view(17, 13, buf.data(), 20, kPattern);
  V.at(12, 9) = 42;
  EXPECT_EQ(buf[12 + 9 * 20], 42);
  const Tile<double> t = V.tile(3, 2);  // rows 10..12, columns 8..9
  EXPECT_EQ(t.data, buf.data() + 10 + 8 * 20);
  EXPECT_EQ(t.mb, 3);
  EXPECT_EQ(t.nb, 2);
}

TEST(Tiling, SubViewsKeepOffsetsAndOwners) {
  Matrix<double> A(17, 13, Tiling{{3, 5, 2}, {0, 1, 2}});
  const Matrix<double> S = A.sub(1, 3, 1, 2);
  EXPECT_EQ(S.m(), 10);
  EXPECT_EQ(S.n(), 7);
  EXPECT_EQ(S.row_offset(0), 0);
  EXPECT_EQ(S.row_offset(2), 7);
  EXPECT_EQ(S.col_offset(1), 5);
  EXPECT_EQ(S.tile_owner(0), 1);
  EXPECT_EQ(S.tile_owner(1), 2);
  EXPECT_EQ(A.tile_owner(3), 0);  // the pattern repeats
  S.at(9, 6) = 7;                 // row 3 + 9, column 3 + 6 of A
  EXPECT_EQ(A.at(12, 9), 7);
}

TEST(Tiling, RejectsBadPatterns) {
  EXPECT_THROW(Matrix<double>(4, 4, Tiling{{}, {}}), ArgumentError);
  EXPECT_THROW(Matrix<double>(4, 4, Tiling{{2, 0}, {}}), ArgumentError);
  EXPECT_THROW(Matrix<double>(4, 4, Tiling{{2, 3}, {0}}), ArgumentError);
  EXPECT_THROW(Matrix<double>(4, 4, Tiling{{2, 3}, {0, -1}}), ArgumentError);
  double x = 0;
  EXPECT_THROW(Matrix<double>::view(1, 1, &x, 1, Tiling{{}, {}}), ArgumentError);
  EXPECT_THROW(Matrix<double>(4, 4, int64_t{0}), ArgumentError);
  Matrix<double> empty(0, 5, kPattern);  // columns 3 2
  EXPECT_EQ(empty.mt(), 0);
  EXPECT_EQ(empty.nt(), 2);
}

}  // namespace
}  // namespace hetla
