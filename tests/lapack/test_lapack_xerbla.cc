// Invalid arguments of every routine of libhetla_lapack, on the vendor path
// and on the hetla path (crossover 0): xerbla_ is called once with LAPACK's
// routine name and the argument's position, info = -position, exactly as the
// vendor's own routine does on the same call. This executable defines its own
// xerbla_ (exported: linked with ENABLE_EXPORTS), as a LAPACK program may.
#include <cctype>
#include <complex>
#include <string>
#include <vector>

#include "lapack/dropin_test.hpp"

namespace {
struct Report {
  std::string name;
  int pos = 0;
  int calls = 0;
};
Report g_report;
}  // namespace

extern "C" void xerbla_(const char* name, const int* info, std::size_t len) {
  std::string s(name, len);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
  g_report = {s, *info, g_report.calls + 1};
}

namespace hetla::test {
namespace {

using flen = std::size_t;
constexpr int n = 37, m = 45, k = 30, nrhs = 3;

template <typename T> class Xerbla : public testing::Test {
 protected:
  void TearDown() override { use_path(Path::Vendor); }
  std::vector<T> a = std::vector<T>(100 * 100, T(1)), b = a, c = a, w = a;
  std::vector<int> ipiv = std::vector<int>(100, 1);
  int info = -99;
};
TYPED_TEST_SUITE(Xerbla, Precisions, PrecisionName);
template <typename T> class XerblaComplex : public Xerbla<T> {};
TYPED_TEST_SUITE(XerblaComplex, ComplexPrecisions, PrecisionName);

/// Calls ours and the vendor's routine with the same invalid arguments
/// (`call(f)`); both must report `pos` under `base`'s name, and set *info to
/// -pos when the routine has an info (LAPACK; BLAS has none).
/// `vendor_sets_info` false: the vendor's routine leaves info unset
/// (OpenBLAS 0.3.21 getrs); ours sets it as LAPACK documents.
template <typename T, typename F, typename Call>
void expect_report(const Routines<F>& r, const char* base, int pos, int* info, Call&& call,
                   bool vendor_sets_info = true) {
  std::string name = fortran_name<T>(base);
  name.pop_back();
  for (char& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  for (F* f : {r.ours, r.vendor}) {
    SCOPED_TRACE(std::string(f == r.ours ? "ours: " : "vendor: ") + name + " argument " + std::to_string(pos));
    g_report = {};
    if (info) *info = -99;
    call(f);
    EXPECT_EQ(g_report.calls, 1);
    EXPECT_EQ(g_report.name, name);
    EXPECT_EQ(g_report.pos, pos);
    if (info && (f == r.ours || vendor_sets_info)) {
      EXPECT_EQ(*info, -pos);
    }
  }
}

TYPED_TEST(Xerbla, Cholesky) {
  using T = TypeParam;
  auto potrf = routines<void(const char*, const int*, T*, const int*, int*, flen)>(fortran_name<T>("potrf"));
  using Fn = void(const char*, const int*, const int*, T*, const int*, T*, const int*, int*, flen);
  int* info = &this->info;
  T *a = this->a.data(), *b = this->b.data();
  FOR_EACH_PATH {
    auto potrf_case = [&](int pos, char u, int nn, int lda) {
      expect_report<T>(potrf, "potrf", pos, info, [&](auto* f) { f(&u, &nn, a, &lda, info, 1); });
    };
    potrf_case(1, 'X', n, n);
    potrf_case(2, 'L', -1, n);
    potrf_case(4, 'U', n, n - 1);
    for (const char* base : {"potrs", "posv"}) {
      auto r = routines<Fn>(fortran_name<T>(base));
      auto solve_case = [&](int pos, char u, int nn, int nr, int lda, int ldb) {
        expect_report<T>(r, base, pos, info, [&](auto* f) { f(&u, &nn, &nr, a, &lda, b, &ldb, info, 1); });
      };
      solve_case(1, 'x', n, nrhs, n, n);
      solve_case(2, 'L', -1, nrhs, n, n);
      solve_case(3, 'L', n, -1, n, n);
      solve_case(5, 'U', n, nrhs, n - 1, n);
      solve_case(7, 'L', n, nrhs, n, n - 1);
    }
  }
}

TYPED_TEST(Xerbla, Lu) {
  using T = TypeParam;
  auto getrf = routines<void(const int*, const int*, T*, const int*, int*, int*)>(fortran_name<T>("getrf"));
  auto getrs =
      routines<void(const char*, const int*, const int*, const T*, const int*, const int*, T*, const int*, int*, flen)>(
          fortran_name<T>("getrs"));
  auto gesv =
      routines<void(const int*, const int*, T*, const int*, int*, T*, const int*, int*)>(fortran_name<T>("gesv"));
  int *info = &this->info, *ipiv = this->ipiv.data();
  T *a = this->a.data(), *b = this->b.data();
  FOR_EACH_PATH {
    auto getrf_case = [&](int pos, int mm, int nn, int lda) {
      expect_report<T>(getrf, "getrf", pos, info, [&](auto* f) { f(&mm, &nn, a, &lda, ipiv, info); });
    };
    getrf_case(1, -1, n, m);
    getrf_case(2, m, -1, m);
    getrf_case(4, m, n, m - 1);
    auto getrs_case = [&](int pos, char t, int nn, int nr, int lda, int ldb) {
      expect_report<T>(
          getrs, "getrs", pos, info, [&](auto* f) { f(&t, &nn, &nr, a, &lda, ipiv, b, &ldb, info, 1); }, false);
    };
    getrs_case(1, 'X', n, nrhs, n, n);
    getrs_case(2, 'N', -1, nrhs, n, n);
    getrs_case(3, 'T', n, -1, n, n);
    getrs_case(5, 'C', n, nrhs, n - 1, n);
    getrs_case(8, 'N', n, nrhs, n, n - 1);
    auto gesv_case = [&](int pos, int nn, int nr, int lda, int ldb) {
      expect_report<T>(gesv, "gesv", pos, info, [&](auto* f) { f(&nn, &nr, a, &lda, ipiv, b, &ldb, info); });
    };
    gesv_case(1, -1, nrhs, n, n);
    gesv_case(2, n, -1, n, n);
    gesv_case(4, n, nrhs, n - 1, n);
    gesv_case(7, n, nrhs, n, n - 1);
  }
}

TYPED_TEST(Xerbla, Qr) {
  using T = TypeParam;
  auto geqrf =
      routines<void(const int*, const int*, T*, const int*, T*, T*, const int*, int*)>(fortran_name<T>("geqrf"));
  const char* mqr = q_name<T>("ormqr", "unmqr");
  const char* gqr = q_name<T>("orgqr", "ungqr");
  auto unmqr = routines<void(const char*, const char*, const int*, const int*, const int*, const T*, const int*,
                             const T*, T*, const int*, T*, const int*, int*, flen, flen)>(fortran_name<T>(mqr));
  auto ungqr = routines<void(const int*, const int*, const int*, T*, const int*, const T*, T*, const int*, int*)>(
      fortran_name<T>(gqr));
  auto gels = routines<void(const char*, const int*, const int*, const int*, T*, const int*, T*, const int*, T*,
                            const int*, int*, flen)>(fortran_name<T>("gels"));
  int* info = &this->info;
  T *a = this->a.data(), *b = this->b.data(), *c = this->c.data(), *w = this->w.data();
  const int big = 5000;
  const char bad_trans = is_complex_v<T> ? 'T' : 'C';  // ormqr/gels take T, unmqr/zgels C
  FOR_EACH_PATH {
    auto geqrf_case = [&](int pos, int mm, int nn, int lda, int lwork) {
      expect_report<T>(geqrf, "geqrf", pos, info, [&](auto* f) { f(&mm, &nn, a, &lda, b, w, &lwork, info); });
    };
    geqrf_case(1, -1, n, m, big);
    geqrf_case(2, m, -1, m, big);
    geqrf_case(4, m, n, m - 1, big);
    geqrf_case(7, m, n, m, 1);
    auto unmqr_case = [&](int pos, char side, char trans, int mm, int nn, int kk, int lda, int ldc, int lwork) {
      expect_report<T>(unmqr, mqr, pos, info,
                       [&](auto* f) { f(&side, &trans, &mm, &nn, &kk, a, &lda, b, c, &ldc, w, &lwork, info, 1, 1); });
    };
    unmqr_case(1, 'X', 'N', m, n, k, m, m, big);
    unmqr_case(2, 'L', bad_trans, m, n, k, m, m, big);
    unmqr_case(3, 'L', 'N', -1, n, k, m, m, big);
    unmqr_case(4, 'R', 'N', m, -1, k, n, m, big);
    unmqr_case(5, 'L', 'N', m, n, m + 1, m, m, big);
    unmqr_case(7, 'R', 'N', m, n, k, n - 1, m, big);
    unmqr_case(10, 'L', 'N', m, n, k, m, m - 1, big);
    unmqr_case(12, 'L', 'N', m, n, k, m, m, 1);
    auto ungqr_case = [&](int pos, int mm, int nn, int kk, int lda, int lwork) {
      expect_report<T>(ungqr, gqr, pos, info, [&](auto* f) { f(&mm, &nn, &kk, a, &lda, b, w, &lwork, info); });
    };
    ungqr_case(1, -1, n, k, m, big);
    ungqr_case(2, n, m, k, m, big);
    ungqr_case(3, m, n, n + 1, m, big);
    ungqr_case(5, m, n, k, m - 1, big);
    ungqr_case(8, m, n, k, m, 1);
    auto gels_case = [&](int pos, char trans, int mm, int nn, int nr, int lda, int ldb, int lwork) {
      expect_report<T>(gels, "gels", pos, info,
                       [&](auto* f) { f(&trans, &mm, &nn, &nr, a, &lda, b, &ldb, w, &lwork, info, 1); });
    };
    gels_case(1, bad_trans, m, n, nrhs, m, m, big);
    gels_case(2, 'N', -1, n, nrhs, m, m, big);
    gels_case(3, 'N', m, -1, nrhs, m, m, big);
    gels_case(4, 'N', m, n, -1, m, m, big);
    gels_case(6, 'N', m, n, nrhs, m - 1, m, big);
    gels_case(8, 'N', n, m, nrhs, n, n, big);  // ldb < max(m, n)
    gels_case(10, 'N', m, n, nrhs, m, m, 1);
  }
}

TYPED_TEST(Xerbla, Blas3) {
  using T = TypeParam;
  auto gemm =
      routines<void(const char*, const char*, const int*, const int*, const int*, const T*, const T*, const int*,
                    const T*, const int*, const T*, T*, const int*, flen, flen)>(fortran_name<T>("gemm"));
  auto trsm = routines<void(const char*, const char*, const char*, const char*, const int*, const int*, const T*,
                            const T*, const int*, T*, const int*, flen, flen, flen, flen)>(fortran_name<T>("trsm"));
  auto syrk = routines<void(const char*, const char*, const int*, const int*, const T*, const T*, const int*, const T*,
                            T*, const int*, flen, flen)>(fortran_name<T>("syrk"));
  T *a = this->a.data(), *b = this->b.data(), *c = this->c.data();
  const T one(1);
  FOR_EACH_PATH {
    auto gemm_case = [&](int pos, char ta, char tb, int mm, int nn, int kk, int lda, int ldb, int ldc) {
      expect_report<T>(gemm, "gemm", pos, nullptr,
                       [&](auto* f) { f(&ta, &tb, &mm, &nn, &kk, &one, a, &lda, b, &ldb, &one, c, &ldc, 1, 1); });
    };
    gemm_case(1, 'X', 'N', m, n, k, m, k, m);
    gemm_case(2, 'N', 'X', m, n, k, m, k, m);
    gemm_case(3, 'N', 'N', -1, n, k, m, k, m);
    gemm_case(4, 'N', 'N', m, -1, k, m, k, m);
    gemm_case(5, 'N', 'N', m, n, -1, m, k, m);
    gemm_case(8, 'T', 'N', m, n, k, k - 1, k, m);
    gemm_case(10, 'N', 'C', m, n, k, m, n - 1, m);
    gemm_case(13, 'N', 'N', m, n, k, m, k, m - 1);
    auto trsm_case = [&](int pos, char side, char uplo, char ta, char diag, int mm, int nn, int lda, int ldb) {
      expect_report<T>(trsm, "trsm", pos, nullptr,
                       [&](auto* f) { f(&side, &uplo, &ta, &diag, &mm, &nn, &one, a, &lda, b, &ldb, 1, 1, 1, 1); });
    };
    trsm_case(1, 'X', 'L', 'N', 'N', m, n, m, m);
    trsm_case(2, 'L', 'X', 'N', 'N', m, n, m, m);
    trsm_case(3, 'L', 'L', 'X', 'N', m, n, m, m);
    trsm_case(4, 'L', 'L', 'N', 'X', m, n, m, m);
    trsm_case(5, 'L', 'L', 'N', 'N', -1, n, m, m);
    trsm_case(6, 'R', 'U', 'N', 'N', m, -1, m, m);
    trsm_case(9, 'R', 'U', 'T', 'U', m, n, n - 1, m);
    trsm_case(11, 'L', 'U', 'C', 'N', m, n, m, m - 1);
    auto syrk_case = [&](int pos, char uplo, char trans, int nn, int kk, int lda, int ldc) {
      expect_report<T>(syrk, "syrk", pos, nullptr,
                       [&](auto* f) { f(&uplo, &trans, &nn, &kk, &one, a, &lda, &one, c, &ldc, 1, 1); });
    };
    syrk_case(1, 'X', 'N', n, k, n, n);
    syrk_case(2, 'L', is_complex_v<T> ? 'C' : 'X', n, k, n, n);
    syrk_case(3, 'L', 'N', -1, k, n, n);
    syrk_case(4, 'L', 'N', n, -1, n, n);
    syrk_case(7, 'U', 'T', n, k, k - 1, n);
    syrk_case(10, 'U', 'N', n, k, n, n - 1);
  }
}

TYPED_TEST(XerblaComplex, Herk) {
  using T = TypeParam;
  using R = real_t<T>;
  auto herk = routines<void(const char*, const char*, const int*, const int*, const R*, const T*, const int*, const R*,
                            T*, const int*, flen, flen)>(fortran_name<T>("herk"));
  T *a = this->a.data(), *c = this->c.data();
  const R one(1);
  FOR_EACH_PATH {
    auto herk_case = [&](int pos, char uplo, char trans, int nn, int kk, int lda, int ldc) {
      expect_report<T>(herk, "herk", pos, nullptr,
                       [&](auto* f) { f(&uplo, &trans, &nn, &kk, &one, a, &lda, &one, c, &ldc, 1, 1); });
    };
    herk_case(1, 'X', 'N', n, k, n, n);
    herk_case(2, 'L', 'T', n, k, n, n);
    herk_case(3, 'L', 'N', -1, k, n, n);
    herk_case(4, 'L', 'N', n, -1, n, n);
    herk_case(7, 'U', 'C', n, k, k - 1, n);
    herk_case(10, 'U', 'N', n, k, n, n - 1);
  }
}

}  // namespace
}  // namespace hetla::test
