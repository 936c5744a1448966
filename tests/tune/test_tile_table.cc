// Tuned tile sizes: the table round-trips, lookups pick the nearest measured
// size (and only near it), and a table that cannot be trusted is not used.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tune/tile_table.hpp"

using namespace hetla::tune;

namespace {

struct TempFile {
  std::string path;
  explicit TempFile(const std::string& tag)
      : path((std::filesystem::temp_directory_path() / ("hetla-" + tag + "-" + std::to_string(::getpid()) + ".json"))
                 .string()) {}
  ~TempFile() { std::filesystem::remove(path); }
  void write(const std::string& text) const { std::ofstream(path, std::ios::trunc) << text; }
};

std::string error_of(const std::string& path) {
  try {
    load_tiles(path);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TileTable sample() {
  TileTable t;
  t.blas = "OpenBLAS (test)";
  t.entries = {{"potrf", 'd', "cpu:X*2", 1000, 128, 40},
               {"potrf", 'd', "cpu:X*2", 4000, 320, 90},
               {"getrf", 'z', "cpu:X*2|emu:speed=0.5", 2000, 192, 80}};
  return t;
}

}  // namespace

TEST(TileTable, RoundTripsAndMerges) {
  TempFile f("tiles-roundtrip");
  save_tiles(sample(), f.path);
  TileTable back = load_tiles(f.path);
  EXPECT_EQ(back.blas, "OpenBLAS (test)");
  ASSERT_EQ(back.entries.size(), 3u);
  // A second save replaces the same key and keeps the others.
  TileTable update;
  update.blas = "OpenBLAS (test)";
  update.entries = {{"potrf", 'd', "cpu:X*2", 4000, 256, 95}};
  save_tiles(update, f.path);
  back = load_tiles(f.path);
  ASSERT_EQ(back.entries.size(), 3u);
  EXPECT_EQ(lookup(back, "potrf", 'd', "cpu:X*2", 4000), 256);
  EXPECT_EQ(lookup(back, "getrf", 'z', "cpu:X*2|emu:speed=0.5", 2000), 192);
  // Saved with another BLAS: the old entries are dropped, not mixed in.
  update.blas = "MKL";
  save_tiles(update, f.path);
  back = load_tiles(f.path);
  EXPECT_EQ(back.blas, "MKL");
  EXPECT_EQ(back.entries.size(), 1u);
}

TEST(TileTable, PastTheTableTheLargestTunedSize) {
  const TileTable t = sample();
  EXPECT_FALSE(largest_below(t, "potrf", 'd', "cpu:X*2", 4000));  // within the table: lookup()
  EXPECT_EQ(largest_below(t, "potrf", 'd', "cpu:X*2", 4001), lookup(t, "potrf", 'd', "cpu:X*2", 4000));
  EXPECT_EQ(largest_below(t, "potrf", 'd', "cpu:X*2", 8001), lookup(t, "potrf", 'd', "cpu:X*2", 4000));
  EXPECT_EQ(largest_below(t, "potrf", 'd', "cpu:X*2", 60000), lookup(t, "potrf", 'd', "cpu:X*2", 4000));
  EXPECT_FALSE(largest_below(t, "potrf", 'd', "cpu:X*2", 400));    // below the table: the built-in size
  EXPECT_FALSE(largest_below(t, "potrf", 's', "cpu:X*2", 60000));  // another precision
  EXPECT_FALSE(largest_below(t, "potrf", 'd', "cpu:X*1", 60000));  // another device set
}

TEST(TileTable, LookupTakesTheNearestSizeWithinAFactorTwo) {
  const TileTable t = sample();
  EXPECT_EQ(lookup(t, "potrf", 'd', "cpu:X*2", 1000), 128);
  EXPECT_EQ(lookup(t, "potrf", 'd', "cpu:X*2", 1900), 128);  // log-nearer to 1000 than to 4000
  EXPECT_EQ(lookup(t, "potrf", 'd', "cpu:X*2", 2100), 320);
  EXPECT_EQ(lookup(t, "potrf", 'd', "cpu:X*2", 8000), 320);
  EXPECT_FALSE(lookup(t, "potrf", 'd', "cpu:X*2", 9000));  // more than twice the largest tuned n
  EXPECT_FALSE(lookup(t, "potrf", 'd', "cpu:X*2", 400));
  EXPECT_EQ(lookup(t, "potrf", 'd', "cpu:X*2", 600), 128);
  EXPECT_FALSE(lookup(t, "potrf", 's', "cpu:X*2", 1000));    // another precision
  EXPECT_FALSE(lookup(t, "potrf", 'd', "cpu:X*1", 1000));    // another device set
  EXPECT_FALSE(lookup(t, "geqrf", 'd', "cpu:X*2", 1000));    // another routine
  TileTable small;
  small.entries = {{"potrf", 'd', "k", 100, 100, 1}};
  EXPECT_EQ(lookup(small, "potrf", 'd', "k", 60), 60);  // never larger than n
}

TEST(TileTable, MissingFileIsAnEmptyTable) {
  EXPECT_TRUE(load_tiles("/nonexistent/hetla/tiles.json").entries.empty());
}

TEST(TileTable, MalformedFilesNameTheFileAndTheField) {
  TempFile f("tiles-bad");
  f.write("{\"version\": 1, \"blas\": \"b\", \"tiles\": [{\"routine\": \"potrf\", \"precision\": \"d\", "
          "\"devices\": \"k\", \"n\": 1000, \"nb\": 0}]}");
  std::string e = error_of(f.path);
  EXPECT_NE(e.find(f.path), std::string::npos) << e;
  EXPECT_NE(e.find("tiles[0].nb"), std::string::npos) << e;
  f.write("{\"version\": 1, \"blas\": \"b\", \"tiles\": [{\"routine\": \"trsm\", \"precision\": \"d\", "
          "\"devices\": \"k\", \"n\": 1000, \"nb\": 100}]}");
  EXPECT_NE(error_of(f.path).find("tiles[0].routine"), std::string::npos);
  f.write("{\"version\": 1, \"blas\": \"b\", \"tiles\": [{\"routine\": \"potrf\", \"precision\": \"q\", "
          "\"devices\": \"k\", \"n\": 1000, \"nb\": 100}]}");
  EXPECT_NE(error_of(f.path).find("tiles[0].precision"), std::string::npos);
  f.write("{\"version\": 1, \"blas\": \"b\", \"tiles\": [{\"routine\": \"potrf\", \"precision\": \"d\", "
          "\"devices\": \"k\", \"n\": 1e300, \"nb\": 100}]}");
  EXPECT_NE(error_of(f.path).find("tiles[0].n"), std::string::npos);
  f.write("{\"version\": 1, \"blas\": \"b\", \"tiles\": [{\"routine\": \"potrf\", \"precision\": \"d\", "
          "\"devices\": \"k\", \"n\": 100, \"nb\": 200}]}");
  EXPECT_NE(error_of(f.path).find("larger than n"), std::string::npos);
  f.write("{\"blas\": \"b\", \"tiles\": []}");
  EXPECT_NE(error_of(f.path).find("version"), std::string::npos);
  f.write("{\"version\": 1, \"tiles\": [");
  EXPECT_NE(error_of(f.path).find("not valid JSON"), std::string::npos);
}
