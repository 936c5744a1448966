// The ILP64 names (dpotrf_64_, ...: 64-bit INTEGERs) called as a Fortran
// program built with -fdefault-integer-8 would, against the LP64 names on the
// same input, on the vendor path and on the hetla path (crossover 0): same
// outputs, pivots and info, every integer written in full (the outputs start
// with garbage in their high halves). CTest runs this twice: with the ILP64
// vendor found on the machine, and with HETLA_LAPACK_VENDOR64=none (the
// `_64_` calls narrowed onto the LP64 vendor, or on hetla's path past 32 bits).
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "lapack/dropin_test.hpp"

namespace {
struct Report {
  std::string name;
  int64_t pos = 0;
  int calls = 0;
};
Report g_report;
}  // namespace

// The program's xerbla_64_ (exported: ENABLE_EXPORTS), as an ILP64 LAPACK program may define it.
extern "C" void xerbla_64_(const char* name, const int64_t* info, std::size_t len) {
  std::string s(name, len);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
  g_report = {s, *info, g_report.calls + 1};
}

namespace hetla::test {
namespace {

using flen = std::size_t;
using i64 = int64_t;
constexpr int kN = 37, kPad = 6;
/// What an output integer holds before the call: a garbage high half.
constexpr i64 kGarbage = (i64{0x5a5a5a5a} << 32) | 99;

/// Our exported function `name`.
template <typename F> F* ours(const std::string& name) {
  void* f = dlsym(RTLD_DEFAULT, name.c_str());
  Dl_info info{};
  EXPECT_TRUE(f && dladdr(f, &info) && std::string(info.dli_fname).find("hetla_lapack") != std::string::npos)
      << name << " does not resolve to libhetla_lapack";
  return reinterpret_cast<F*>(f);
}
template <typename T> std::string name64(const char* base) {
  return std::string(1, precision_letter<T>()) + base + "_64_";
}

template <typename T> class Ilp64 : public testing::Test {
 protected:
  void TearDown() override { use_path(Path::Vendor); }
};
using DoubleAndComplex = testing::Types<double, std::complex<double>>;
TYPED_TEST_SUITE(Ilp64, DoubleAndComplex, PrecisionName);

TEST(Ilp64Vendor, IsTheOneAskedFor) {
  const char* env = std::getenv("HETLA_LAPACK_VENDOR64");
  const std::string where = hetla_lapack_vendor64();
  if (env && std::string(env) == "none") {
    EXPECT_EQ(where.rfind("LP64 vendor", 0), 0u) << where;
    return;
  }
  if (env) GTEST_SKIP() << "HETLA_LAPACK_VENDOR64=" << env << ": the _64_ names use: " << where;
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  if (void* lib = dlopen("libopenblas64.so.0", RTLD_LAZY | RTLD_LOCAL)) {
    dlclose(lib);
    EXPECT_EQ(where, "libopenblas64.so.0 (ILP64)");
    return;
  }
#endif
  GTEST_SKIP() << "no ILP64 vendor here (apt: libopenblas64-0-pthread); the _64_ names use: " << where;
}

TYPED_TEST(Ilp64, Potrf) {
  using T = TypeParam;
  auto* f64 = ours<void(const char*, const i64*, T*, const i64*, i64*, flen)>(name64<T>("potrf"));
  auto* f32 = ours<void(const char*, const int*, T*, const int*, int*, flen)>(fortran_name<T>("potrf"));
  const int n = kN, lda = n + kPad;
  const i64 n64 = n, lda64 = lda;
  FOR_EACH_PATH for (char uplo : {'L', 'U'}) {
    SCOPED_TRACE(uplo);
    auto a = hpd_matrix<T>(n, lda, 1), b = a;
    i64 info64 = kGarbage;
    int info = -99;
    f64(&uplo, &n64, a.data(), &lda64, &info64, 1);
    f32(&uplo, &n, b.data(), &lda, &info, 1);
    EXPECT_EQ(info64, 0);
    EXPECT_EQ(info, 0);
    EXPECT_LE(relative_difference(a, b), tolerance<T>());
    // Not positive definite from the 11th leading minor on.
    a = hpd_matrix<T>(n, lda, 2);
    a[10 + std::size_t(10) * lda] = T(-1);
    info64 = kGarbage;
    f64(&uplo, &n64, a.data(), &lda64, &info64, 1);
    EXPECT_EQ(info64, 11);
  }
}

TYPED_TEST(Ilp64, GetrfAndGesv) {
  using T = TypeParam;
  auto* getrf64 = ours<void(const i64*, const i64*, T*, const i64*, i64*, i64*)>(name64<T>("getrf"));
  auto* getrf32 = ours<void(const int*, const int*, T*, const int*, int*, int*)>(fortran_name<T>("getrf"));
  auto* gesv64 = ours<void(const i64*, const i64*, T*, const i64*, i64*, T*, const i64*, i64*)>(name64<T>("gesv"));
  auto* gesv32 =
      ours<void(const int*, const int*, T*, const int*, int*, T*, const int*, int*)>(fortran_name<T>("gesv"));
  const int m = kN + 8, n = kN, lda = m + kPad, nrhs = 3, ldb = n + 2;
  const i64 m64 = m, n64 = n, lda64 = lda, nrhs64 = nrhs, ldb64 = ldb;
  FOR_EACH_PATH {
    auto a = random_matrix<T>(lda, n, 3), b = a;
    std::vector<i64> ipiv64(n, kGarbage);
    std::vector<int> ipiv(n, -1);
    i64 info64 = kGarbage;
    int info = -99;
    getrf64(&m64, &n64, a.data(), &lda64, ipiv64.data(), &info64);
    getrf32(&m, &n, b.data(), &lda, ipiv.data(), &info);
    EXPECT_EQ(info64, 0);
    EXPECT_EQ(info, 0);
    EXPECT_EQ(ipiv64, std::vector<i64>(ipiv.begin(), ipiv.end()));
    EXPECT_LE(relative_difference(a, b), tolerance<T>());

    a = dominant_matrix<T>(n, lda, 4), b = a;
    auto x = random_matrix<T>(ldb, nrhs, 5), y = x;
    std::fill(ipiv64.begin(), ipiv64.end(), kGarbage);
    info64 = kGarbage;
    gesv64(&n64, &nrhs64, a.data(), &lda64, ipiv64.data(), x.data(), &ldb64, &info64);
    gesv32(&n, &nrhs, b.data(), &lda, ipiv.data(), y.data(), &ldb, &info);
    EXPECT_EQ(info64, 0);
    EXPECT_EQ(ipiv64, std::vector<i64>(ipiv.begin(), ipiv.end()));
    EXPECT_LE(relative_difference(a, b), tolerance<T>());
    EXPECT_LE(relative_difference(x, y), tolerance<T>());
  }
}

TYPED_TEST(Ilp64, Geqrf) {
  using T = TypeParam;
  auto* f64 = ours<void(const i64*, const i64*, T*, const i64*, T*, T*, const i64*, i64*)>(name64<T>("geqrf"));
  auto* f32 = ours<void(const int*, const int*, T*, const int*, T*, T*, const int*, int*)>(fortran_name<T>("geqrf"));
  const int m = kN + 8, n = kN, lda = m + kPad;
  const i64 m64 = m, n64 = n, lda64 = lda, query64 = -1;
  FOR_EACH_PATH {
    // The workspace query answers at least the minimum.
    std::vector<T> q(static_cast<std::size_t>(lda) * n), qtau(n);
    T w{};
    i64 info64 = kGarbage;
    f64(&m64, &n64, q.data(), &lda64, qtau.data(), &w, &query64, &info64);
    EXPECT_EQ(info64, 0);
    EXPECT_GE(std::real(w), n);
    const int lwork = static_cast<int>(std::real(w));
    // lwork past 32 bits (the routine uses no more than it needs): without an
    // ILP64 vendor this call cannot be narrowed and runs on hetla's path.
    for (const i64 lwork64 : {i64(lwork), (i64{1} << 33) + 5}) {
      SCOPED_TRACE(lwork64);
      auto a = random_matrix<T>(lda, n, 6), b = a;
      std::vector<T> tau64(n), tau(n), work64(lwork), work(lwork);
      int info = -99;
      info64 = kGarbage;
      f64(&m64, &n64, a.data(), &lda64, tau64.data(), work64.data(), &lwork64, &info64);
      f32(&m, &n, b.data(), &lda, tau.data(), work.data(), &lwork, &info);
      EXPECT_EQ(info64, 0);
      EXPECT_EQ(info, 0);
      EXPECT_LE(relative_difference(a, b), tolerance<T>());
      EXPECT_LE(relative_difference(tau64, tau), tolerance<T>());
    }
  }
}

// At sizes where the vendor's geqr2/org2r would thread, the _64_ names run
// the single-threaded compositions (kernels/host/small_qr.hpp) on the ILP64
// vendor (or narrowed onto the LP64 one): the LP64 names' results.
TYPED_TEST(Ilp64, GeqrfAndQComposedSmallPath) {
  using T = TypeParam;
  auto* f64 = ours<void(const i64*, const i64*, T*, const i64*, T*, T*, const i64*, i64*)>(name64<T>("geqrf"));
  auto* f32 = ours<void(const int*, const int*, T*, const int*, T*, T*, const int*, int*)>(fortran_name<T>("geqrf"));
  const char* q = q_name<T>("orgqr", "ungqr");
  auto* q64 = ours<void(const i64*, const i64*, const i64*, T*, const i64*, const T*, T*, const i64*, i64*)>(
      name64<T>(q));
  auto* q32 = ours<void(const int*, const int*, const int*, T*, const int*, const T*, T*, const int*, int*)>(
      fortran_name<T>(q));
  use_path(Path::Vendor);
  const int m = 150, n = 100, lda = m + kPad, lwork = n;
  const i64 m64 = m, n64 = n, lda64 = lda, lwork64 = lwork;
  auto a = random_matrix<T>(lda, n, 9), b = a;
  std::vector<T> tau64(n), tau(n), work64(lwork), work(lwork);
  int info = -99;
  i64 info64 = kGarbage;
  f64(&m64, &n64, a.data(), &lda64, tau64.data(), work64.data(), &lwork64, &info64);
  f32(&m, &n, b.data(), &lda, tau.data(), work.data(), &lwork, &info);
  EXPECT_EQ(info64, 0);
  EXPECT_EQ(info, 0);
  EXPECT_LE(relative_difference(a, b), tolerance<T>());
  EXPECT_LE(relative_difference(tau64, tau), tolerance<T>());
  info = -99, info64 = kGarbage;
  q64(&m64, &n64, &n64, a.data(), &lda64, tau64.data(), work64.data(), &lwork64, &info64);
  q32(&m, &n, &n, b.data(), &lda, tau.data(), work.data(), &lwork, &info);
  EXPECT_EQ(info64, 0);
  EXPECT_EQ(info, 0);
  EXPECT_LE(relative_difference(a, b), tolerance<T>());
}

TYPED_TEST(Ilp64, Gemm) {
  using T = TypeParam;
  using F64 = void(const char*, const char*, const i64*, const i64*, const i64*, const T*, const T*, const i64*,
                   const T*, const i64*, const T*, T*, const i64*, flen, flen);
  using F32 = void(const char*, const char*, const int*, const int*, const int*, const T*, const T*, const int*,
                   const T*, const int*, const T*, T*, const int*, flen, flen);
  auto* f64 = ours<F64>(name64<T>("gemm"));
  auto* f32 = ours<F32>(fortran_name<T>("gemm"));
  const int m = kN, n = kN + 3, k = kN - 5, lda = k + kPad, ldb = n + kPad, ldc = m + kPad;
  const i64 m64 = m, n64 = n, k64 = k, lda64 = lda, ldb64 = ldb, ldc64 = ldc;
  const T alpha = scalar<T>(0.5, -0.25), beta = scalar<T>(-1, 0.5);
  const char ta = 'T', tb = is_complex_v<T> ? 'C' : 'T';
  FOR_EACH_PATH {
    const auto a = random_matrix<T>(lda, m, 7), b = random_matrix<T>(ldb, k, 8);
    auto c = random_matrix<T>(ldc, n, 9), d = c;
    f64(&ta, &tb, &m64, &n64, &k64, &alpha, a.data(), &lda64, b.data(), &ldb64, &beta, c.data(), &ldc64, 1, 1);
    f32(&ta, &tb, &m, &n, &k, &alpha, a.data(), &lda, b.data(), &ldb, &beta, d.data(), &ldc, 1, 1);
    EXPECT_LE(relative_difference(c, d), tolerance<T>());
  }
}

TYPED_TEST(Ilp64, InvalidArgumentsReachXerbla64) {
  using T = TypeParam;
  auto* potrf = ours<void(const char*, const i64*, T*, const i64*, i64*, flen)>(name64<T>("potrf"));
  auto* getrf = ours<void(const i64*, const i64*, T*, const i64*, i64*, i64*)>(name64<T>("getrf"));
  std::vector<T> a(64, T(1));
  std::vector<i64> ipiv(8);
  const std::string letter(1, static_cast<char>(std::toupper(precision_letter<T>())));
  FOR_EACH_PATH {
    const i64 n = 8, small_lda = 7, negative = -3;
    i64 info = kGarbage;
    g_report = {};
    potrf("L", &n, a.data(), &small_lda, &info, 1);
    EXPECT_EQ(info, -4);
    EXPECT_EQ(g_report.calls, 1);
    EXPECT_EQ(g_report.name, letter + "POTRF");
    EXPECT_EQ(g_report.pos, 4);
    info = kGarbage;
    g_report = {};
    getrf(&n, &negative, a.data(), &n, ipiv.data(), &info);
    EXPECT_EQ(info, -2);
    EXPECT_EQ(g_report.calls, 1);
    EXPECT_EQ(g_report.name, letter + "GETRF");
    EXPECT_EQ(g_report.pos, 2);
  }
}

}  // namespace
}  // namespace hetla::test
