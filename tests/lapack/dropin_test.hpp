// Shared by the drop-in library's tests: each exported Fortran routine is
// reached two ways, through its global name (libhetla_lapack is linked first,
// so that is ours) and in the vendor library opened by path (the reference);
// random test matrices with padding (lda > rows); the path a call takes.
#pragma once
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "hetla/lapack.h"
#include "hetla/types.hpp"

namespace hetla::test {

using Precisions = testing::Types<float, double, std::complex<float>, std::complex<double>>;
using ComplexPrecisions = testing::Types<std::complex<float>, std::complex<double>>;
struct PrecisionName {
  template <typename T> static std::string GetName(int) { return std::string(1, precision_letter<T>()); }
};

/// "dpotrf_" for T = double.
template <typename T> std::string fortran_name(const char* base) {
  return std::string(1, precision_letter<T>()) + base + "_";
}
/// "ormqr" for real T, "unmqr" for complex T.
template <typename T> const char* q_name(const char* real, const char* complex) {
  return is_complex_v<T> ? complex : real;
}

/// Our routine and the vendor's of one name.
template <typename F> struct Routines {
  F* ours;
  F* vendor;
};
template <typename F> Routines<F> routines(const std::string& name) {
  static void* vendor_lib = dlopen(HETLA_TEST_VENDOR_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  EXPECT_NE(vendor_lib, nullptr) << dlerror();
  void* ours = dlsym(RTLD_DEFAULT, name.c_str());
  void* vendor = vendor_lib ? dlsym(vendor_lib, name.c_str()) : nullptr;
  Dl_info info{};
  EXPECT_TRUE(ours && dladdr(ours, &info) && std::string(info.dli_fname).find("hetla_lapack") != std::string::npos)
      << name << " does not resolve to libhetla_lapack";
  EXPECT_NE(vendor, nullptr) << name << " not in " << HETLA_TEST_VENDOR_LIBRARY;
  EXPECT_NE(ours, vendor);
  return {reinterpret_cast<F*>(ours), reinterpret_cast<F*>(vendor)};
}

/// Where the exported calls go: hetla at every size (crossover 0) or the
/// vendor (a crossover above every test size).
enum class Path { Vendor, Hetla };
inline const char* path_name(Path p) { return p == Path::Hetla ? "hetla" : "vendor"; }
inline void use_path(Path p) { ASSERT_EQ(hetla_lapack_set_crossover("all", p == Path::Hetla ? 0 : 1 << 20), 0); }
constexpr Path kPaths[] = {Path::Vendor, Path::Hetla};

/// The body of FOR_EACH_PATH runs once per path, traced with its name.
struct PathScope {
  explicit PathScope(Path p) : trace(__FILE__, __LINE__, path_name(p)) { use_path(p); }
  testing::ScopedTrace trace;
  bool done = false;
};
#define FOR_EACH_PATH       \
  for (Path path_ : kPaths) \
    for (PathScope scope_(path_); !scope_.done; scope_.done = true)

/// re + i im for complex T, re for real T.
template <typename T> T scalar(double re, double im) {
  if constexpr (is_complex_v<T>) return T(static_cast<real_t<T>>(re), static_cast<real_t<T>>(im));
  else return static_cast<T>(re);
}

template <typename T> T random_value(std::mt19937& g) {
  std::uniform_real_distribution<real_t<T>> u(-1, 1);
  if constexpr (is_complex_v<T>) return T(u(g), u(g));
  else return u(g);
}
/// A rows x cols matrix with leading dimension ld, padding included.
template <typename T> std::vector<T> random_matrix(int ld, int cols, unsigned seed) {
  std::mt19937 g(seed);
  std::vector<T> a(static_cast<std::size_t>(ld) * cols);
  for (T& x : a) x = random_value<T>(g);
  return a;
}
/// Hermitian, diagonally dominant: positive definite and well conditioned.
template <typename T> std::vector<T> hpd_matrix(int n, int ld, unsigned seed) {
  auto a = random_matrix<T>(ld, n, seed);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < j; ++i) a[i + std::size_t(j) * ld] = conj(a[j + std::size_t(i) * ld]);
    a[j + std::size_t(j) * ld] = T(n);
  }
  return a;
}
/// Diagonally dominant: well conditioned, for solves and triangles.
template <typename T> std::vector<T> dominant_matrix(int n, int ld, unsigned seed) {
  auto a = random_matrix<T>(ld, n, seed);
  for (int j = 0; j < n; ++j) a[j + std::size_t(j) * ld] += T(n);
  return a;
}

/// max |ours - vendor| / max |vendor| (0 when both are zero).
template <typename T> double relative_difference(const std::vector<T>& ours, const std::vector<T>& vendor) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < ours.size(); ++i) {
    diff = std::max(diff, double(std::abs(ours[i] - vendor[i])));
    scale = std::max(scale, double(std::abs(vendor[i])));
    if (std::isnan(std::abs(ours[i])) != std::isnan(std::abs(vendor[i]))) return INFINITY;
  }
  return scale == 0 ? diff : diff / scale;
}
/// Two orders of rounding on these small, well-conditioned problems.
template <typename T> double tolerance() { return 2000 * double(std::numeric_limits<real_t<T>>::epsilon()); }

}  // namespace hetla::test
