// The library uses the tile sizes `hetla tune --tiles` stored, by default and
// at once; a table from another BLAS or a damaged file is ignored (the
// built-in size is used) with a warning on stderr.
#include <gtest/gtest.h>
#include <unistd.h>

#include <complex>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/cholesky.hpp"
#include "context/context.hpp"
#include "hetla/context.hpp"
#include "hetla/linalg.hpp"
#include "tune/split_model.hpp"
#include "tune/tile_table.hpp"
#include "tune/tuned_tiles.hpp"
#include "util/blas_threads.hpp"

using namespace hetla;

namespace {

class TunedTileSize : public ::testing::Test {
 protected:
  std::string path =
      (std::filesystem::temp_directory_path() / ("hetla-tuned-" + std::to_string(::getpid()) + ".json")).string();
  int64_t builtin_3000 = 0, builtin_20000 = 0, builtin_lu = 0, builtin_20000_lu = 0;
  void SetUp() override {
    unsetenv("HETLA_TUNING");
    setenv("HETLA_TUNING", path.c_str(), 1);
    std::filesystem::remove(path);
    hetla::init(Config{});
    builtin_3000 = default_tile_size<double>(3000);
    builtin_20000 = default_tile_size<double>(20000);
    builtin_lu = default_tile_size<double>(3000, Panels::LU);
    builtin_20000_lu = default_tile_size<double>(20000, Panels::LU);
  }
  void TearDown() override {
    std::filesystem::remove(path);
    unsetenv("HETLA_TUNING");
  }
  std::string devices() {
    std::lock_guard<std::recursive_mutex> lk(detail::call_mutex());
    return tune::device_set_key(detail::runtime());
  }
  void store(const std::string& blas, int64_t n, int64_t nb_potrf, int64_t nb_getrf) {
    tune::TileTable t;
    t.blas = blas;
    t.entries = {{"potrf", 'd', devices(), n, nb_potrf, 1}, {"getrf", 'd', devices(), n, nb_getrf, 1}};
    std::filesystem::remove(path);  // a replaced table, not a merged one
    tune::save_tiles(t, path);
  }
  int64_t other_than(int64_t nb) { return nb == 96 ? 160 : 96; }
};

}  // namespace

TEST_F(TunedTileSize, StoredSizesAreTheDefaultAtOnce) {
  const int64_t want = other_than(builtin_3000), want_lu = other_than(builtin_lu);
  store(util::blas_vendor(), 3000, want, want_lu);
  EXPECT_EQ(tune::tuning_status().state, "in use");
  EXPECT_EQ(tune::tuning_status().entries, 2u);
  EXPECT_EQ(default_tile_size<double>(3000), want);
  EXPECT_EQ(default_tile_size<double>(3000, Panels::Cholesky), want);
  EXPECT_EQ(default_tile_size<double>(2500, Panels::LU), want_lu);
  EXPECT_EQ(default_tile_size<double>(20000), builtin_20000);  // nothing tuned near it
  EXPECT_EQ(default_tile_size<float>(3000), default_tile_size<float>(3001));  // untouched precision
  EXPECT_NE(default_tile_size<float>(3000), 0);
  // Another device set is not served these entries.
  Config other;
  other.devices = "cpu,emu:speed=0.5";
  hetla::init(other);
  EXPECT_NE(default_tile_size<double>(3000, Panels::LU), want_lu);
  hetla::init(Config{});
}

TEST_F(TunedTileSize, ATunedSizeFactorsCorrectly) {
  // A tile size no built-in rule picks (and ragged: 300 = 3 x 88 + 36).
  store(util::blas_vendor(), 300, 88, 88);
  ASSERT_EQ(default_tile_size<double>(300), 88);
  const auto A0 = test::hpd_input<double>(Uplo::Lower, 300, 300, 7);
  auto A = A0;
  ASSERT_EQ(potrf<double>(Uplo::Lower, 300, A.data(), 300), 0);
  EXPECT_LT(bench::potrf_residual(Uplo::Lower, 300, A0.data(), 300, A.data(), 300), bench::kResidualThreshold);
}

TEST_F(TunedTileSize, ATableFromAnotherBlasIsIgnored) {
  store("SomeOtherBLAS 1.0", 3000, other_than(builtin_3000), other_than(builtin_lu));
  EXPECT_EQ(default_tile_size<double>(3000), builtin_3000);
  const auto st = tune::tuning_status();
  EXPECT_NE(st.state.find("ignored: measured with SomeOtherBLAS"), std::string::npos) << st.state;
}

TEST_F(TunedTileSize, ADamagedFileIsIgnored) {
  std::ofstream(path, std::ios::trunc) << "{\"version\": 1, \"blas\": ";
  EXPECT_EQ(default_tile_size<double>(3000), builtin_3000);
  const auto st = tune::tuning_status();
  EXPECT_NE(st.state.find("ignored:"), std::string::npos) << st.state;
  EXPECT_NE(st.state.find(path), std::string::npos) << st.state;
}

TEST_F(TunedTileSize, TheVariableScheduleFollowsTheTunedSizes) {
  // Tuned: 320 at n = 3000, 96 at n = 1000. The schedule starts on 3000's size
  // and takes 1000's where that much of the matrix is left (or smaller, to
  // keep the workers busy): it is planned from the tuned table.
  tune::TileTable t;
  t.blas = util::blas_vendor();
  t.entries = {{"potrf", 'd', devices(), 3000, 320, 1}, {"potrf", 'd', devices(), 1000, 96, 1}};
  tune::save_tiles(t, path);
  ASSERT_EQ(default_tile_size<double>(3000), 320);
  const Tiling s = variable_tiling<double>(3000, 3000);
  ASSERT_FALSE(s.sizes.empty());
  EXPECT_EQ(s.sizes.front(), 320);
  int64_t pos = 0;
  for (std::size_t i = 0; i < s.sizes.size(); ++i) {
    if (pos >= 2100 && i + 1 < s.sizes.size()) {
      EXPECT_LE(s.sizes[i], 96) << "tile at column " << pos;
    }
    pos += s.sizes[i];
  }
  EXPECT_EQ(pos, 3000);
}

TEST_F(TunedTileSize, CholeskyKeeps128DownToThreeColumnsPerWorker) {
  // No table: the built-in rule. A factorization's Cholesky size keeps 128
  // while there are 3 tile columns of 128 per worker (dpotrf n = 1000 on 2
  // cores: 128), larger tiles while there are 2; the general size (gemm,
  // trsm, herk) halves them below 4.
  const int64_t workers = num_threads();
  const int64_t n = 3 * workers * 128 + 64;  // 3.5 columns of 128 per worker
  if (default_tile_size<double>(n) != 64) GTEST_SKIP() << "not a host-only context (general size "
                                                       << default_tile_size<double>(n) << ")";
  EXPECT_EQ(default_tile_size<double>(n, Panels::Cholesky), 128);
  EXPECT_EQ(default_tile_size<double>(2 * workers * 128, Panels::Cholesky), 64);  // 2 per worker: halved
  EXPECT_EQ(default_tile_size<double>(8 * workers * 128), default_tile_size<double>(8 * workers * 128, Panels::Cholesky));
  // Larger tiles keep down to 2 columns per worker (the general size halves
  // them below 4): 2.5 columns of 256 per worker.
  EXPECT_EQ(default_tile_size<double>(2 * workers * 256 + 128, Panels::Cholesky), 256);
  EXPECT_EQ(default_tile_size<double>(2 * workers * 256 + 128), 128);
  const auto A0 = test::hpd_input<double>(Uplo::Lower, n, n, 11);
  auto A = A0;
  ASSERT_EQ(potrf<double>(Uplo::Lower, n, A.data(), n), 0);
  EXPECT_LT(bench::potrf_residual(Uplo::Lower, n, A0.data(), n, A.data(), n), bench::kResidualThreshold);
}

TEST_F(TunedTileSize, TallSkinnyQrTakes96OnTheHostCores) {
  // No table: a tall and skinny QR (m >= 4 n, n <= 768) on host cores alone
  // takes 96 (geqrf, gels; tile_size.cc says why); anything else the size of
  // min(m, n), as before.
  {
    const detail::ContextLock lock;
    if (detail::runtime().num_devices() != 1) GTEST_SKIP() << "not a host-only context";
  }
  EXPECT_EQ(default_tile_size<double>(20000, 500, Panels::QR), 96);
  EXPECT_EQ(default_tile_size<std::complex<float>>(4 * 768, 768, Panels::QR), 96);
  EXPECT_EQ(default_tile_size<double>(20000, 2000, Panels::QR), default_tile_size<double>(2000, Panels::QR));
  EXPECT_EQ(default_tile_size<double>(1999, 500, Panels::QR), default_tile_size<double>(500, Panels::QR));
  EXPECT_EQ(default_tile_size<double>(500, 20000, Panels::QR), default_tile_size<double>(500, Panels::QR));
  EXPECT_EQ(default_tile_size<double>(20000, 500, Panels::LU), default_tile_size<double>(500, Panels::LU));
}

TEST_F(TunedTileSize, PastTheTunedOrdersAtLeastTheLargestTunedSize) {
  // Tuned at 3000 only: past it (just past, as far past), the larger of the
  // built-in size and 3000's; at 3000 and below it, 3000's.
  const int64_t builtin_4000 = default_tile_size<double>(4000, Panels::Cholesky);
  store(util::blas_vendor(), 3000, 448, 400);
  EXPECT_EQ(default_tile_size<double>(20000, Panels::LU), std::max<int64_t>(400, builtin_20000_lu));
  EXPECT_EQ(default_tile_size<double>(20000, Panels::Cholesky), std::max<int64_t>(448, builtin_20000));
  EXPECT_EQ(default_tile_size<double>(4000, Panels::Cholesky), std::max<int64_t>(448, builtin_4000));
  EXPECT_EQ(default_tile_size<double>(2000, Panels::LU), 400);
  store(util::blas_vendor(), 3000, 64, 64);  // a small tuned size does not shrink a larger order's
  EXPECT_EQ(default_tile_size<double>(20000, Panels::LU), builtin_20000_lu);
  EXPECT_EQ(default_tile_size<double>(4000, Panels::Cholesky), builtin_4000);
  EXPECT_EQ(default_tile_size<double>(3000, Panels::Cholesky), 64);
}
