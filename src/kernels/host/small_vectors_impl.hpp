// Vector loads and stores at any address, for the bodies of hetla's own
// small kernels (small_cholesky_impl.hpp, small_lu_impl.hpp). Internal
// linkage and compiler built-ins only, as those bodies: each is compiled
// once for the default instruction set and once for AVX2, and no function
// of the AVX2 build may be the one the linker keeps for the other.
#pragma once

namespace {
namespace small_vectors {

/// V at any address of its elements (aligned to one element, aliasing them).
template <typename V> struct Unaligned {
  typedef V type __attribute__((aligned(alignof(decltype(V{}[0]))), may_alias));
};
template <> struct Unaligned<double> {
  typedef double type;
};
template <> struct Unaligned<float> {
  typedef float type;
};
// GCC warns that returning a 32-byte vector without AVX changes the ABI
// (-Wpsabi): no call crosses a translation unit here (internal linkage), so
// no two builds ever meet on it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
template <typename V, typename T> inline V load(const T* p) { return *reinterpret_cast<const typename Unaligned<V>::type*>(p); }
template <typename V, typename T> inline void store(T* p, const V& v) {
  *reinterpret_cast<typename Unaligned<V>::type*>(p) = v;
}
#pragma GCC diagnostic pop

}  // namespace small_vectors
}  // namespace
