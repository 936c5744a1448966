// A move-only `void(Args...)` callable with inline storage: task bodies are
// created and destroyed at a high rate, so they must not touch the heap.
#pragma once
#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace hetla::rt {

template <typename Sig, std::size_t Capacity = 192> class InlineFn;

template <typename R, typename... Args, std::size_t Capacity>
class InlineFn<R(Args...), Capacity> {
 public:
  InlineFn() = default;
  InlineFn(const InlineFn&) = delete;
  InlineFn& operator=(const InlineFn&) = delete;
  ~InlineFn() { reset(); }

  template <typename F> void emplace(F&& f) {
    using Fn = std::decay_t<F>;
    reset();
    if constexpr (sizeof(Fn) <= Capacity && alignof(Fn) <= alignof(std::max_align_t)) {
      new (buf_) Fn(std::forward<F>(f));
      call_ = [](void* p, Args... a) -> R { return (*static_cast<Fn*>(p))(std::forward<Args>(a)...); };
      destroy_ = [](void* p) { static_cast<Fn*>(p)->~Fn(); };
    } else {  // rare: large captures go to the heap
      *reinterpret_cast<Fn**>(buf_) = new Fn(std::forward<F>(f));
      call_ = [](void* p, Args... a) -> R { return (**static_cast<Fn**>(p))(std::forward<Args>(a)...); };
      destroy_ = [](void* p) { delete *static_cast<Fn**>(p); };
    }
  }
  R operator()(Args... a) { return call_(buf_, std::forward<Args>(a)...); }
  explicit operator bool() const { return call_ != nullptr; }
  void reset() {
    if (destroy_) destroy_(buf_);
    call_ = nullptr;
    destroy_ = nullptr;
  }

 private:
  alignas(std::max_align_t) unsigned char buf_[Capacity];
  R (*call_)(void*, Args...) = nullptr;
  void (*destroy_)(void*) = nullptr;
};

}  // namespace hetla::rt
