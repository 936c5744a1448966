#include "util/pages.hpp"

#include <algorithm>
#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace hetla::util {

namespace {
constexpr std::size_t kMapThreshold = std::size_t{256} << 10;  // below: the heap reuses memory anyway
bool mapped(std::size_t bytes) {
#if defined(__linux__)
  return bytes >= kMapThreshold;
#else
  (void)bytes;
  return false;
#endif
}
}  // namespace

void* alloc_pages(std::size_t bytes) {
  if (bytes == 0) bytes = 1;
#if defined(__linux__)
  if (mapped(bytes)) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    return p == MAP_FAILED ? nullptr : p;
  }
#endif
  return std::aligned_alloc(64, (bytes + 63) / 64 * 64);
}

void free_pages(void* p, std::size_t bytes) {
  if (!p) return;
  if (bytes == 0) bytes = 1;
#if defined(__linux__)
  if (mapped(bytes)) {
    munmap(p, bytes);
    return;
  }
#endif
  std::free(p);
}

bool pages_zeroed(std::size_t bytes) { return mapped(bytes == 0 ? 1 : bytes); }

PageBuffer::PageBuffer(std::size_t bytes) : p_(alloc_pages(bytes)), bytes_(bytes) {
  if (!p_) throw std::bad_alloc();
}

void* thread_scratch_bytes(std::size_t bytes, ScratchSlot slot) {
  struct Scratch {
    void* p = nullptr;
    std::size_t size = 0;
    ~Scratch() { free_pages(p, size); }
  };
  thread_local Scratch slots[static_cast<std::size_t>(ScratchSlot::Count)];
  Scratch& s = slots[static_cast<std::size_t>(slot)];
  if (bytes > s.size) {
    const std::size_t want = std::max(bytes, s.size + s.size / 2);  // amortize a few growth steps
    void* p = alloc_pages(want);
    if (!p) throw std::bad_alloc();
    free_pages(s.p, s.size);
    s.p = p;
    s.size = want;
  }
  return s.p;
}

}  // namespace hetla::util
