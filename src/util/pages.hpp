// Large buffers whose pages are mapped when they are allocated. Touching a
// fresh page costs a fault per 4 KiB (measured ~4 us a page on these VMs:
// 4 ms for a 1 MB tile, as long as the GEMM it feeds), while mapping them all
// in one system call (Linux MAP_POPULATE) costs ~0.1 ms. Small sizes, and
// other systems, use the heap. Pages come back zeroed when mapped.
#pragma once
#include <cstddef>

namespace hetla::util {

/// At least `bytes` bytes, 64-byte aligned, pages mapped; nullptr on failure.
void* alloc_pages(std::size_t bytes);
/// Frees what alloc_pages(bytes) returned (the same `bytes`).
void free_pages(void* p, std::size_t bytes);
/// Whether alloc_pages(bytes) hands out zeroed memory.
bool pages_zeroed(std::size_t bytes);

/// Owns one alloc_pages buffer.
class PageBuffer {
 public:
  PageBuffer() = default;
  explicit PageBuffer(std::size_t bytes);  // throws std::bad_alloc
  ~PageBuffer() { free_pages(p_, bytes_); }
  PageBuffer(PageBuffer&& o) noexcept : p_(o.p_), bytes_(o.bytes_) { o.p_ = nullptr, o.bytes_ = 0; }
  PageBuffer& operator=(PageBuffer&& o) noexcept {
    if (this != &o) {
      free_pages(p_, bytes_);
      p_ = o.p_, bytes_ = o.bytes_;
      o.p_ = nullptr, o.bytes_ = 0;
    }
    return *this;
  }
  PageBuffer(const PageBuffer&) = delete;
  PageBuffer& operator=(const PageBuffer&) = delete;
  void* get() const { return p_; }
  bool zeroed() const { return p_ && pages_zeroed(bytes_); }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

/// Which per-thread workspace: one per user that can hold its own while it
/// calls another (a panel task's gathered panel while geqrt_recursive takes
/// Kernel's; trsm's transposed base block under any task).
enum class ScratchSlot { Kernel, Panel, TrsmBase, Count };

/// Per-thread workspace, reused by the next call on the same thread and
/// slot: for kernels that need scratch memory per task (valid until this
/// thread asks for the slot again; not for nested use of one slot). Grows,
/// never shrinks; contents unspecified; freed at thread exit.
void* thread_scratch_bytes(std::size_t bytes, ScratchSlot slot = ScratchSlot::Kernel);
template <typename T> T* thread_scratch(std::size_t n, ScratchSlot slot = ScratchSlot::Kernel) {
  return static_cast<T*>(thread_scratch_bytes(n * sizeof(T), slot));
}

}  // namespace hetla::util
