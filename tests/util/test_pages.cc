// Page-mapped buffers, per-thread scratch and the emulated device's block
// cache: sizes above and below the mapping threshold, zeroing, reuse, and the
// emulated capacity still enforced while freed blocks are cached.
#include <gtest/gtest.h>

#include <cstring>
#include <thread>

#include "devices/emulated/emulated_device.hpp"
#include "util/pages.hpp"

namespace hetla {
namespace {

TEST(Pages, LargeAndSmallBuffersAreUsableAndAligned) {
  for (std::size_t bytes : {std::size_t{1}, std::size_t{4096}, std::size_t{1} << 20, (std::size_t{3} << 20) + 5}) {
    void* p = util::alloc_pages(bytes);
    ASSERT_NE(p, nullptr) << bytes;
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 64, 0u) << bytes;
    if (util::pages_zeroed(bytes)) {
      const auto* c = static_cast<const unsigned char*>(p);
      for (std::size_t i = 0; i < bytes; i += 4093) EXPECT_EQ(c[i], 0) << bytes;
    }
    std::memset(p, 0x5a, bytes);
    util::free_pages(p, bytes);
  }
  util::PageBuffer b(std::size_t{2} << 20), moved = std::move(b);
  EXPECT_EQ(b.get(), nullptr);
  ASSERT_NE(moved.get(), nullptr);
  static_cast<char*>(moved.get())[(std::size_t{2} << 20) - 1] = 1;
}

TEST(Pages, ThreadScratchIsReusedAndGrows) {
  double* a = util::thread_scratch<double>(1000);
  a[999] = 1;
  EXPECT_EQ(util::thread_scratch<double>(10), a);  // smaller: the same block
  double* b = util::thread_scratch<double>(1 << 20);
  b[(1 << 20) - 1] = 2;
  EXPECT_EQ(util::thread_scratch<double>(1 << 19), b);
  void* other = nullptr;
  std::thread([&] { other = util::thread_scratch<double>(1000); }).join();
  EXPECT_NE(other, static_cast<void*>(b));  // per thread
}

TEST(EmulatedArena, FreedBlocksAreReusedAndCapacityHolds) {
  const std::size_t tile = std::size_t{384} * 384 * 8;
  dev::EmulatedConfig cfg;
  cfg.memory = 3 * tile;
  dev::EmulatedDevice d("emu", cfg);
  void* a = d.allocate(tile);
  void* b = d.allocate(tile);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(d.memory_used(), 2 * tile);
  d.deallocate(a, tile);
  EXPECT_EQ(d.memory_used(), tile);
  void* c = d.allocate(tile);
  EXPECT_EQ(c, a);  // from the cache
  void* e = d.allocate(tile);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(d.allocate(tile), nullptr);  // capacity: 3 tiles
  for (void* p : {b, c, e}) d.deallocate(p, tile);
  EXPECT_EQ(d.memory_used(), 0u);
}

}  // namespace
}  // namespace hetla
