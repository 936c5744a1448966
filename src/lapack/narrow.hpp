// An ILP64 call (64-bit integers) made on an LP64 vendor routine (32-bit
// integers), for processes without an ILP64 vendor: each integer argument is
// copied into an int, the call is made, and the integers the routine writes
// (info, ipiv) are copied back. A value past 32 bits makes no call (the caller
// then takes hetla's path, whose sizes are 64-bit): never truncated.
#pragma once
#include <climits>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <vector>

namespace hetla::lapack {

/// An integer array argument (ipiv) with its length: P = I for one the
/// routine writes (getrf, gesv), const I for one it reads (getrs).
template <typename P> struct Pivots {
  P* p;
  int64_t count;
};
template <typename A> A unwrap(A a) { return a; }
template <typename P> P* unwrap(Pivots<P> a) { return a.p; }

/// The LP64 type of an ILP64 routine's type: every int64_t pointer an int one.
template <typename A> struct narrowed_arg { using type = A; };
template <> struct narrowed_arg<const int64_t*> { using type = const int*; };
template <> struct narrowed_arg<int64_t*> { using type = int*; };
template <typename F> struct narrowed;
template <typename R, typename... A> struct narrowed<R(A...)> { using type = R(typename narrowed_arg<A>::type...); };
template <typename F> using narrowed_t = typename narrowed<F>::type;

namespace detail {
inline bool fits(int64_t v) { return v >= INT_MIN && v <= INT_MAX; }

/// One argument on its way to the LP64 routine; anything but an integer
/// passes through.
template <typename A> struct Narrow {
  A a;
  explicit Narrow(A x) : a(x) {}
  bool fits() const { return true; }
  A get() const { return a; }
  void copy_back() const {}
};
/// A scalar the routine reads (m, n, lda, lwork, ...).
template <> struct Narrow<const int64_t*> {
  int v;
  bool ok;
  explicit Narrow(const int64_t* p) : v(static_cast<int>(*p)), ok(detail::fits(*p)) {}
  bool fits() const { return ok; }
  const int* get() const { return &v; }
  void copy_back() const {}
};
/// info, which the routine writes.
template <> struct Narrow<int64_t*> {
  int64_t* out;
  int v = 0;
  explicit Narrow(int64_t* p) : out(p) {}
  bool fits() const { return true; }
  int* get() { return &v; }
  void copy_back() const { *out = v; }
};
/// ipiv: copied in when read, out when written.
template <typename P> struct Narrow<Pivots<P>> {
  Pivots<P> a;
  std::vector<int> v;
  bool ok = true;
  explicit Narrow(Pivots<P> x) : a(x), v(static_cast<std::size_t>(x.count)) {
    if constexpr (std::is_const_v<P>)
      for (int64_t i = 0; i < x.count; ++i) ok = ok && detail::fits(x.p[i]), v[i] = static_cast<int>(x.p[i]);
  }
  bool fits() const { return ok; }
  int* get() { return v.data(); }
  void copy_back() const {
    if constexpr (!std::is_const_v<P>)
      for (int64_t i = 0; i < a.count; ++i) a.p[i] = v[static_cast<std::size_t>(i)];
  }
};
}  // namespace detail

/// Calls the LP64 routine `f` with `args` narrowed; false (and no call) when
/// an integer does not fit in 32 bits.
template <typename F, typename... Args> bool call_narrowed(F* f, Args... args) {
  std::tuple<detail::Narrow<Args>...> n(args...);
  if (!std::apply([](const auto&... x) { return (x.fits() && ...); }, n)) return false;
  std::apply([f](auto&... x) { f(x.get()...); }, n);
  std::apply([](const auto&... x) { (x.copy_back(), ...); }, n);
  return true;
}

}  // namespace hetla::lapack
