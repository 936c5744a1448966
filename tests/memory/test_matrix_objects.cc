// Matrix objects of seed 003 §V (regular / replicated / distributed) on two
// emulated accelerators: each conversion moves exactly the tiles it must,
// measured by the per-device transfer counters, and leaves the data intact.
#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

#include "devices/spec.hpp"
#include "hetla/hetla.hpp"
#include "matgen.hpp"
#include "memory/matrix_objects.hpp"
#include "context/context.hpp"

namespace hetla {
namespace {

class MatrixObjects : public testing::Test {
 protected:
  void SetUp() override {
    rt::RuntimeConfig rc;
    rc.num_workers = 2;  // a host thread runs the host-side moves while the test waits
    rc.accelerators = dev::parse_devices("emu,emu").accelerators;
    detail::init_runtime(rc);
  }
  void TearDown() override { finalize(); }
};

TEST_F(MatrixObjects, ConversionsMoveWhatTheyMustAndNothingElse) {
  const int64_t n = 256, nb = 64;  // 4 x 4 tiles
  auto data = bench::random_matrix<double>(n, n, n, 7);
  Matrix<double> M(n, n, nb);
  M.copy_from(data.data(), n);
  const uint64_t all = static_cast<uint64_t>(n * n) * sizeof(double), half = all / 2;

  detail::CallScope scope;
  rt::Runtime& rt = scope.rt();
  ASSERT_EQ(rt.num_devices(), 3);
  rt.reset_stats();
  // Waits for the moves without wait_all(), which would end the call (write
  // everything back and drop the device copies).
  const uint64_t executed0 = rt.tasks_executed();
  auto drain = [&](uint64_t tasks) {
    while (rt.tasks_executed() < executed0 + tasks) std::this_thread::yield();
  };
  auto bytes = [&](int d, bool in) {
    const auto s = rt.stats()[static_cast<std::size_t>(d)];
    return in ? s.bytes_in : s.bytes_out;
  };

  // M -> M_R: every tile once to each device; a second broadcast moves nothing
  mem::broadcast(rt, M);
  mem::broadcast(rt, M);
  const uint64_t tiles = static_cast<uint64_t>(M.mt() * M.nt());
  drain(2 * 2 * tiles);
  EXPECT_EQ(bytes(1, true), all);
  EXPECT_EQ(bytes(2, true), all);

  // M_R -> M_D: a local copy (no transfer); columns 0-1 on emu0, 2-3 on emu1
  const auto owner = mem::column_blocks(M.nt(), {1, 2}, {1.0, 1.0});
  ASSERT_EQ(owner, (std::vector<int>{1, 1, 2, 2}));
  mem::scatter(rt, M, owner);
  // M_D -> M: each device sends back what it owns
  mem::gather(rt, M);
  // M_D -> M_R: each device receives the half it does not own
  mem::allgather(rt, M);
  drain(4 * tiles + tiles + tiles + 3 * tiles);
  EXPECT_EQ(bytes(1, false), half);
  EXPECT_EQ(bytes(2, false), half);
  EXPECT_EQ(bytes(1, true), all + half);
  EXPECT_EQ(bytes(2, true), all + half);
  EXPECT_EQ(M.handle(0, 0)->home, 1);
  EXPECT_EQ(M.handle(0, 3)->home, 2);
  rt.wait_all();

  std::vector<double> back(static_cast<std::size_t>(n * n));
  M.copy_to(back.data(), n);
  EXPECT_EQ(std::memcmp(back.data(), data.data(), back.size() * sizeof(double)), 0);
}

TEST(MatrixObjectsBlocks, ColumnBlocksFollowTheWeights) {
  EXPECT_EQ(mem::column_blocks(10, {0, 1, 2}, {5, 3, 2}), (std::vector<int>{0, 0, 0, 0, 0, 1, 1, 1, 2, 2}));
  EXPECT_EQ(mem::column_blocks(3, {0, 1}, {1, 0}), (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(mem::column_blocks(0, {0, 1}, {1, 1}), std::vector<int>{});
}

}  // namespace
}  // namespace hetla
