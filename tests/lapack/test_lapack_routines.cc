// Every routine of libhetla_lapack called through its Fortran name, on the
// vendor path and on the hetla path (crossover 0), against the vendor's own
// routine on the same input: same outputs (to rounding), same pivots and
// info. Leading dimensions exceed the rows; upper and lower, every transpose.
#include <complex>
#include <initializer_list>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "lapack/dropin_test.hpp"

namespace hetla::test {
namespace {

using flen = std::size_t;
constexpr int kN = 37, kM = 45, kK = 30, kNrhs = 3, kPad = 5;
constexpr char kUplos[] = {'L', 'U'};

template <typename T> class Dropin : public testing::Test {
 protected:
  void TearDown() override { use_path(Path::Vendor); }
};
TYPED_TEST_SUITE(Dropin, Precisions, PrecisionName);
template <typename T> class DropinComplex : public Dropin<T> {};
TYPED_TEST_SUITE(DropinComplex, ComplexPrecisions, PrecisionName);

/// The transposes a routine takes: N, T, C for BLAS and getrs; N and T (real)
/// or C (complex) for ormqr/unmqr and gels.
template <typename T> std::vector<char> qr_transposes() { return {'N', is_complex_v<T> ? 'C' : 'T'}; }

using Shapes = std::initializer_list<std::pair<int, int>>;

TYPED_TEST(Dropin, Potrf) {
  using T = TypeParam;
  auto f = routines<void(const char*, const int*, T*, const int*, int*, flen)>(fortran_name<T>("potrf"));
  const int n = kN, lda = n + kPad;
  FOR_EACH_PATH for (char uplo : kUplos) {
    SCOPED_TRACE(uplo);
    auto a = hpd_matrix<T>(n, lda, 1), b = a;
    int info_a = -99, info_b = -99;
    f.ours(&uplo, &n, a.data(), &lda, &info_a, 1);
    f.vendor(&uplo, &n, b.data(), &lda, &info_b, 1);
    EXPECT_EQ(info_a, 0);
    EXPECT_EQ(info_a, info_b);
    EXPECT_LE(relative_difference(a, b), tolerance<T>());
    // Not positive definite from the 11th leading minor on.
    a = hpd_matrix<T>(n, lda, 2);
    a[10 + std::size_t(10) * lda] = T(-1);
    b = a;
    f.ours(&uplo, &n, a.data(), &lda, &info_a, 1);
    f.vendor(&uplo, &n, b.data(), &lda, &info_b, 1);
    EXPECT_EQ(info_a, 11);
    EXPECT_EQ(info_a, info_b);
  }
}

// From n = 64 the vendor's potrf would start its thread pool; the Fortran
// name runs the single-threaded composition (kernels/host/small_factor.hpp)
// instead: the vendor's factor to rounding, its info wherever the failing
// minor falls (first half, second half, last column), and the triangle
// LAPACK does not reference left as it was.
TYPED_TEST(Dropin, PotrfComposedSmallPath) {
  using T = TypeParam;
  auto f = routines<void(const char*, const int*, T*, const int*, int*, flen)>(fortran_name<T>("potrf"));
  use_path(Path::Vendor);
  for (int n : {64, 101, 150, 190})
    for (char uplo : kUplos) {
      SCOPED_TRACE(std::string(1, uplo) + " n=" + std::to_string(n));
      const int lda = n + kPad;
      auto a = hpd_matrix<T>(n, lda, 11), b = a;
      const auto a0 = a;
      int info_a = -99, info_b = -99;
      f.ours(&uplo, &n, a.data(), &lda, &info_a, 1);
      f.vendor(&uplo, &n, b.data(), &lda, &info_b, 1);
      EXPECT_EQ(info_a, 0);
      EXPECT_EQ(info_b, 0);
      EXPECT_LE(relative_difference(a, b), tolerance<T>());
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < lda; ++i)
          if (i >= n || (uplo == 'L' ? i < j : i > j)) {
            const std::size_t at = i + std::size_t(j) * lda;
            ASSERT_EQ(a[at], a0[at]) << i << "," << j;
          }
      for (int bad : {20, n / 2 + 7, n}) {
        a = hpd_matrix<T>(n, lda, 12);
        a[(bad - 1) + std::size_t(bad - 1) * lda] = T(-1);
        b = a;
        f.ours(&uplo, &n, a.data(), &lda, &info_a, 1);
        f.vendor(&uplo, &n, b.data(), &lda, &info_b, 1);
        EXPECT_EQ(info_a, bad);
        EXPECT_EQ(info_a, info_b);
      }
    }
}

// From m n = 10^4 the vendor's getrf would start its thread pool; the
// Fortran name runs the single-threaded recursive LU (small_factor.hpp):
// the vendor's pivots and factors, its info for a zero column in either
// half (the factorization completes, as LAPACK's).
TYPED_TEST(Dropin, GetrfComposedSmallPath) {
  using T = TypeParam;
  auto f = routines<void(const int*, const int*, T*, const int*, int*, int*)>(fortran_name<T>("getrf"));
  use_path(Path::Vendor);
  for (auto [m, n] : Shapes{{100, 100}, {128, 128}, {150, 90}, {90, 150}, {200, 120}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
    const int lda = m + kPad;
    for (int zero_col : {-1, 5, std::min(m, n) - 3}) {
      auto a = random_matrix<T>(lda, n, 17), b = a;
      if (zero_col >= 0)
        for (int i = 0; i < m; ++i) a[i + std::size_t(zero_col) * lda] = b[i + std::size_t(zero_col) * lda] = T(0);
      std::vector<int> pa(std::min(m, n), -1), pb(std::min(m, n), -2);
      int info_a = -99, info_b = -99;
      f.ours(&m, &n, a.data(), &lda, pa.data(), &info_a);
      f.vendor(&m, &n, b.data(), &lda, pb.data(), &info_b);
      EXPECT_EQ(info_a, zero_col + 1);
      EXPECT_EQ(info_a, info_b);
      EXPECT_EQ(pa, pb);
      EXPECT_LE(relative_difference(a, b), tolerance<T>());
    }
  }
}

TYPED_TEST(Dropin, PotrsAndPosv) {
  using T = TypeParam;
  using Fn = void(const char*, const int*, const int*, T*, const int*, T*, const int*, int*, flen);
  auto potrs = routines<Fn>(fortran_name<T>("potrs"));
  auto posv = routines<Fn>(fortran_name<T>("posv"));
  auto potrf = routines<void(const char*, const int*, T*, const int*, int*, flen)>(fortran_name<T>("potrf"));
  const int n = kN, lda = n + kPad, ldb = n + 2, nrhs = kNrhs;
  FOR_EACH_PATH for (char uplo : kUplos) {
    SCOPED_TRACE(uplo);
    auto a = hpd_matrix<T>(n, lda, 3), a2 = a;
    auto b = random_matrix<T>(ldb, nrhs, 4), b2 = b;
    int info_a = -99, info_b = -99;
    posv.ours(&uplo, &n, &nrhs, a.data(), &lda, b.data(), &ldb, &info_a, 1);
    posv.vendor(&uplo, &n, &nrhs, a2.data(), &lda, b2.data(), &ldb, &info_b, 1);
    EXPECT_EQ(info_a, 0);
    EXPECT_EQ(info_a, info_b);
    EXPECT_LE(relative_difference(a, a2), tolerance<T>());
    EXPECT_LE(relative_difference(b, b2), tolerance<T>());

    auto factor = hpd_matrix<T>(n, lda, 5);
    potrf.vendor(&uplo, &n, factor.data(), &lda, &info_b, 1);
    b = random_matrix<T>(ldb, nrhs, 6), b2 = b;
    potrs.ours(&uplo, &n, &nrhs, factor.data(), &lda, b.data(), &ldb, &info_a, 1);
    potrs.vendor(&uplo, &n, &nrhs, factor.data(), &lda, b2.data(), &ldb, &info_b, 1);
    EXPECT_EQ(info_a, 0);
    EXPECT_EQ(info_a, info_b);
    EXPECT_LE(relative_difference(b, b2), tolerance<T>());
  }
}

TYPED_TEST(Dropin, Getrf) {
  using T = TypeParam;
  auto f = routines<void(const int*, const int*, T*, const int*, int*, int*)>(fortran_name<T>("getrf"));
  FOR_EACH_PATH for (auto [m, n] : Shapes{{kN, kN}, {kM, kK}, {kK, kM}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
    const int lda = m + kPad;
    for (bool singular : {false, true}) {
      auto a = random_matrix<T>(lda, n, 7), b = a;
      if (singular)
        for (int i = 0; i < m; ++i) a[i + std::size_t(5) * lda] = b[i + std::size_t(5) * lda] = T(0);
      std::vector<int> pa(std::min(m, n), -1), pb(std::min(m, n), -2);
      int info_a = -99, info_b = -99;
      f.ours(&m, &n, a.data(), &lda, pa.data(), &info_a);
      f.vendor(&m, &n, b.data(), &lda, pb.data(), &info_b);
      EXPECT_EQ(info_a, singular ? 6 : 0);
      EXPECT_EQ(info_a, info_b);
      EXPECT_EQ(pa, pb);
      EXPECT_LE(relative_difference(a, b), tolerance<T>());
    }
  }
}

TYPED_TEST(Dropin, GetrsAndGesv) {
  using T = TypeParam;
  auto getrf = routines<void(const int*, const int*, T*, const int*, int*, int*)>(fortran_name<T>("getrf"));
  auto getrs =
      routines<void(const char*, const int*, const int*, const T*, const int*, const int*, T*, const int*, int*, flen)>(
          fortran_name<T>("getrs"));
  auto gesv =
      routines<void(const int*, const int*, T*, const int*, int*, T*, const int*, int*)>(fortran_name<T>("gesv"));
  const int n = kN, lda = n + kPad, ldb = n + 2, nrhs = kNrhs;
  FOR_EACH_PATH {
    auto factor = dominant_matrix<T>(n, lda, 8);
    std::vector<int> ipiv(n), ipiv2(n);
    int info_a = -99, info_b = -99;
    getrf.vendor(&n, &n, factor.data(), &lda, ipiv.data(), &info_b);
    for (char trans : {'N', 'T', 'C'}) {
      SCOPED_TRACE(trans);
      auto b = random_matrix<T>(ldb, nrhs, 9), b2 = b;
      getrs.ours(&trans, &n, &nrhs, factor.data(), &lda, ipiv.data(), b.data(), &ldb, &info_a, 1);
      getrs.vendor(&trans, &n, &nrhs, factor.data(), &lda, ipiv.data(), b2.data(), &ldb, &info_b, 1);
      EXPECT_EQ(info_a, 0);
      EXPECT_EQ(info_a, info_b);
      EXPECT_LE(relative_difference(b, b2), tolerance<T>());
    }
    auto a = random_matrix<T>(lda, n, 10), a2 = a;
    auto b = random_matrix<T>(ldb, nrhs, 11), b2 = b;
    gesv.ours(&n, &nrhs, a.data(), &lda, ipiv.data(), b.data(), &ldb, &info_a);
    gesv.vendor(&n, &nrhs, a2.data(), &lda, ipiv2.data(), b2.data(), &ldb, &info_b);
    EXPECT_EQ(info_a, 0);
    EXPECT_EQ(info_a, info_b);
    EXPECT_EQ(ipiv, ipiv2);
    EXPECT_LE(relative_difference(a, a2), tolerance<T>());
    EXPECT_LE(relative_difference(b, b2), 10 * tolerance<T>());  // a random A: condition ~ 1e2-1e3
  }
}

template <typename T> using GeqrfFn = void(const int*, const int*, T*, const int*, T*, T*, const int*, int*);

TYPED_TEST(Dropin, GeqrfAndItsWorkspaceQuery) {
  using T = TypeParam;
  auto f = routines<GeqrfFn<T>>(fortran_name<T>("geqrf"));
  FOR_EACH_PATH for (auto [m, n] : Shapes{{kN, kN}, {kM, kK}, {kK, kM}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
    const int lda = m + kPad, query = -1;
    auto a = random_matrix<T>(lda, n, 12), b = a;
    std::vector<T> ta(std::min(m, n)), tb(ta.size());
    T wa{-1}, wb{-2};
    int info_a = -99, info_b = -99;
    f.ours(&m, &n, a.data(), &lda, ta.data(), &wa, &query, &info_a);
    f.vendor(&m, &n, b.data(), &lda, tb.data(), &wb, &query, &info_b);
    EXPECT_EQ(info_a, info_b);
    EXPECT_EQ(wa, wb);
    const int lwork = static_cast<int>(std::real(wb));
    std::vector<T> work_a(lwork), work_b(lwork);
    f.ours(&m, &n, a.data(), &lda, ta.data(), work_a.data(), &lwork, &info_a);
    f.vendor(&m, &n, b.data(), &lda, tb.data(), work_b.data(), &lwork, &info_b);
    EXPECT_EQ(info_a, 0);
    EXPECT_EQ(info_a, info_b);
    // LAPACK documents work(1) = the optimal lwork on exit; its dgeqrf writes
    // the size it used (n when unblocked). hetla's path: the documented value.
    EXPECT_EQ(work_a[0], path_ == Path::Hetla ? wb : work_b[0]);
    EXPECT_LE(relative_difference(a, b), tolerance<T>());
    EXPECT_LE(relative_difference(ta, tb), tolerance<T>());
  }
}

// Where the vendor's geqr2 would start its thread pool (m (n - 1) past 8192,
// complex 4096) the Fortran name runs the single-threaded blocked QR
// (kernels/host/small_qr.hpp): the vendor's factors and tau to rounding,
// the workspace query unchanged, work(1) the optimal lwork (as the hetla path).
TYPED_TEST(Dropin, GeqrfComposedSmallPath) {
  using T = TypeParam;
  auto f = routines<GeqrfFn<T>>(fortran_name<T>("geqrf"));
  use_path(Path::Vendor);
  for (auto [m, n] : Shapes{{100, 100}, {128, 128}, {150, 90}, {70, 150}, {400, 40}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
    const int lda = m + kPad, query = -1;
    auto a = random_matrix<T>(lda, n, 18), b = a;
    std::vector<T> ta(std::min(m, n)), tb(ta.size());
    T wa{-1}, wb{-2};
    int info_a = -99, info_b = -99;
    f.ours(&m, &n, a.data(), &lda, ta.data(), &wa, &query, &info_a);
    f.vendor(&m, &n, b.data(), &lda, tb.data(), &wb, &query, &info_b);
    EXPECT_EQ(info_a, 0);
    EXPECT_EQ(info_a, info_b);
    EXPECT_EQ(wa, wb);
    const int lwork = n;  // the minimum
    std::vector<T> work_a(lwork), work_b(lwork);
    f.ours(&m, &n, a.data(), &lda, ta.data(), work_a.data(), &lwork, &info_a);
    f.vendor(&m, &n, b.data(), &lda, tb.data(), work_b.data(), &lwork, &info_b);
    EXPECT_EQ(info_a, 0);
    EXPECT_EQ(info_a, info_b);
    EXPECT_EQ(work_a[0], wb);
    EXPECT_LE(relative_difference(a, b), tolerance<T>());
    EXPECT_LE(relative_difference(ta, tb), tolerance<T>());
  }
}

TYPED_TEST(Dropin, OrmqrUnmqr) {
  using T = TypeParam;
  auto geqrf = routines<GeqrfFn<T>>(fortran_name<T>("geqrf"));
  auto f =
      routines<void(const char*, const char*, const int*, const int*, const int*, const T*, const int*, const T*, T*,
                    const int*, T*, const int*, int*, flen, flen)>(fortran_name<T>(q_name<T>("ormqr", "unmqr")));
  const int m = kM, n = kN, k = kK, ldc = m + 2, query = -1;
  FOR_EACH_PATH for (char side : {'L', 'R'}) for (char trans : qr_transposes<T>()) {
    SCOPED_TRACE((std::string{side, trans}));
    const int nq = side == 'L' ? m : n, lda = nq + kPad;
    auto a = random_matrix<T>(lda, k, 13);
    std::vector<T> tau(k), work(std::max(1, nq * 64));
    const int lwork_f = static_cast<int>(work.size());
    int info_a = -99, info_b = -99;
    geqrf.vendor(&nq, &k, a.data(), &lda, tau.data(), work.data(), &lwork_f, &info_b);
    auto c = random_matrix<T>(ldc, n, 14), c2 = c;
    T wa{-1}, wb{-2};
    f.ours(&side, &trans, &m, &n, &k, a.data(), &lda, tau.data(), c.data(), &ldc, &wa, &query, &info_a, 1, 1);
    f.vendor(&side, &trans, &m, &n, &k, a.data(), &lda, tau.data(), c2.data(), &ldc, &wb, &query, &info_b, 1, 1);
    EXPECT_EQ(wa, wb);
    const int lwork = static_cast<int>(std::real(wb));
    std::vector<T> work_a(lwork), work_b(lwork);
    f.ours(&side, &trans, &m, &n, &k, a.data(), &lda, tau.data(), c.data(), &ldc, work_a.data(), &lwork, &info_a, 1, 1);
    f.vendor(&side, &trans, &m, &n, &k, a.data(), &lda, tau.data(), c2.data(), &ldc, work_b.data(), &lwork, &info_b, 1,
             1);
    EXPECT_EQ(info_a, 0);
    EXPECT_EQ(info_a, info_b);
    EXPECT_EQ(work_a[0], work_b[0]);
    EXPECT_LE(relative_difference(c, c2), tolerance<T>());
  }
}

TYPED_TEST(Dropin, OrgqrUngqr) {
  using T = TypeParam;
  auto geqrf = routines<GeqrfFn<T>>(fortran_name<T>("geqrf"));
  auto f = routines<void(const int*, const int*, const int*, T*, const int*, const T*, T*, const int*, int*)>(
      fortran_name<T>(q_name<T>("orgqr", "ungqr")));
  FOR_EACH_PATH for (auto [m, n, k] : std::initializer_list<std::tuple<int, int, int>>{{kM, kN, kK}, {kN, kN, kN}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + " k=" + std::to_string(k));
    const int lda = m + kPad;
    auto a = random_matrix<T>(lda, n, 15);
    std::vector<T> tau(n), work(n * 64);
    const int lwork = static_cast<int>(work.size());
    int info_a = -99, info_b = -99;
    geqrf.vendor(&m, &n, a.data(), &lda, tau.data(), work.data(), &lwork, &info_b);
    auto b = a;
    std::vector<T> work_a(lwork), work_b(lwork);
    f.ours(&m, &n, &k, a.data(), &lda, tau.data(), work_a.data(), &lwork, &info_a);
    f.vendor(&m, &n, &k, b.data(), &lda, tau.data(), work_b.data(), &lwork, &info_b);
    EXPECT_EQ(info_a, 0);
    EXPECT_EQ(info_a, info_b);
    EXPECT_LE(relative_difference(a, b), tolerance<T>());
  }
}

// orgqr/ungqr of k = n reflectors where the vendor's org2r would start its
// thread pool: the blocked composition (kernels/host/small_qr.hpp), the
// vendor's Q to rounding, work(1) the optimal lwork.
TYPED_TEST(Dropin, OrgqrUngqrComposedSmallPath) {
  using T = TypeParam;
  auto geqrf = routines<GeqrfFn<T>>(fortran_name<T>("geqrf"));
  auto f = routines<void(const int*, const int*, const int*, T*, const int*, const T*, T*, const int*, int*)>(
      fortran_name<T>(q_name<T>("orgqr", "ungqr")));
  use_path(Path::Vendor);
  for (auto [m, n] : Shapes{{100, 100}, {150, 90}, {400, 40}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
    const int lda = m + kPad, query = -1;
    auto a = random_matrix<T>(lda, n, 19);
    std::vector<T> tau(n), work(n * 64);
    const int lwork_f = static_cast<int>(work.size());
    int info_a = -99, info_b = -99;
    geqrf.vendor(&m, &n, a.data(), &lda, tau.data(), work.data(), &lwork_f, &info_b);
    auto b = a;
    T wq{-1};
    f.vendor(&m, &n, &n, b.data(), &lda, tau.data(), &wq, &query, &info_b);
    const int lwork = n;  // the minimum
    std::vector<T> work_a(lwork), work_b(lwork);
    f.ours(&m, &n, &n, a.data(), &lda, tau.data(), work_a.data(), &lwork, &info_a);
    f.vendor(&m, &n, &n, b.data(), &lda, tau.data(), work_b.data(), &lwork, &info_b);
    EXPECT_EQ(info_a, 0);
    EXPECT_EQ(info_a, info_b);
    EXPECT_EQ(work_a[0], wq);
    EXPECT_LE(relative_difference(a, b), tolerance<T>());
  }
}

TYPED_TEST(Dropin, Gels) {
  using T = TypeParam;
  auto f = routines<void(const char*, const int*, const int*, const int*, T*, const int*, T*, const int*, T*,
                         const int*, int*, flen)>(fortran_name<T>("gels"));
  const int nrhs = kNrhs, query = -1;
  FOR_EACH_PATH for (auto [m, n] : Shapes{{kM, kK}, {kK, kM}}) for (char trans : qr_transposes<T>()) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + trans);
    const int lda = m + kPad, ldb = std::max(m, n) + 2;
    auto a = random_matrix<T>(lda, n, 16), a2 = a;
    auto b = random_matrix<T>(ldb, nrhs, 17), b2 = b;
    T wa{-1}, wb{-2};
    int info_a = -99, info_b = -99;
    f.ours(&trans, &m, &n, &nrhs, a.data(), &lda, b.data(), &ldb, &wa, &query, &info_a, 1);
    f.vendor(&trans, &m, &n, &nrhs, a2.data(), &lda, b2.data(), &ldb, &wb, &query, &info_b, 1);
    EXPECT_EQ(wa, wb);
    const int lwork = static_cast<int>(std::real(wb));
    std::vector<T> work_a(lwork), work_b(lwork);
    f.ours(&trans, &m, &n, &nrhs, a.data(), &lda, b.data(), &ldb, work_a.data(), &lwork, &info_a, 1);
    f.vendor(&trans, &m, &n, &nrhs, a2.data(), &lda, b2.data(), &ldb, work_b.data(), &lwork, &info_b, 1);
    EXPECT_EQ(info_a, 0);
    EXPECT_EQ(info_a, info_b);
    EXPECT_EQ(work_a[0], work_b[0]);
    EXPECT_LE(relative_difference(a, a2), tolerance<T>());
    EXPECT_LE(relative_difference(b, b2), 10 * tolerance<T>());  // random A: condition ~ 1e1-1e2
  }
}

TYPED_TEST(Dropin, Gemm) {
  using T = TypeParam;
  auto f = routines<void(const char*, const char*, const int*, const int*, const int*, const T*, const T*, const int*,
                         const T*, const int*, const T*, T*, const int*, flen, flen)>(fortran_name<T>("gemm"));
  const int m = kN, n = kK, k = kM, ldc = m + 1;
  const T alpha = scalar<T>(0.7, 0.3), beta = scalar<T>(-0.4, 0.2);
  FOR_EACH_PATH for (char ta : {'N', 'T', 'C'}) for (char tb : {'N', 'T', 'C'}) {
    SCOPED_TRACE((std::string{ta, tb}));
    const int lda = (ta == 'N' ? m : k) + kPad, ldb = (tb == 'N' ? k : n) + kPad;
    const auto a = random_matrix<T>(lda, ta == 'N' ? k : m, 18), b = random_matrix<T>(ldb, tb == 'N' ? n : k, 19);
    auto c = random_matrix<T>(ldc, n, 20), c2 = c;
    f.ours(&ta, &tb, &m, &n, &k, &alpha, a.data(), &lda, b.data(), &ldb, &beta, c.data(), &ldc, 1, 1);
    f.vendor(&ta, &tb, &m, &n, &k, &alpha, a.data(), &lda, b.data(), &ldb, &beta, c2.data(), &ldc, 1, 1);
    EXPECT_LE(relative_difference(c, c2), tolerance<T>());
  }
}

TYPED_TEST(Dropin, Trsm) {
  using T = TypeParam;
  auto f = routines<void(const char*, const char*, const char*, const char*, const int*, const int*, const T*, const T*,
                         const int*, T*, const int*, flen, flen, flen, flen)>(fortran_name<T>("trsm"));
  const int m = kN, n = kK, ldb = m + 3;
  const T alpha = scalar<T>(0.7, 0.3);
  FOR_EACH_PATH for (char side : {'L', 'R'}) for (char uplo : kUplos) for (char ta : {'N', 'T', 'C'}) for (char diag :
                                                                                                           {'N', 'U'}) {
    SCOPED_TRACE((std::string{side, uplo, ta, diag}));
    const int na = side == 'L' ? m : n, lda = na + kPad;
    auto a = dominant_matrix<T>(na, lda, 21);
    if (diag == 'U')  // unit diagonal: the off-diagonal part must stay small
      for (auto& x : a) x /= T(na);
    auto b = random_matrix<T>(ldb, n, 22), b2 = b;
    f.ours(&side, &uplo, &ta, &diag, &m, &n, &alpha, a.data(), &lda, b.data(), &ldb, 1, 1, 1, 1);
    f.vendor(&side, &uplo, &ta, &diag, &m, &n, &alpha, a.data(), &lda, b2.data(), &ldb, 1, 1, 1, 1);
    EXPECT_LE(relative_difference(b, b2), tolerance<T>());
  }
}

TYPED_TEST(Dropin, Syrk) {
  using T = TypeParam;
  auto f = routines<void(const char*, const char*, const int*, const int*, const T*, const T*, const int*, const T*, T*,
                         const int*, flen, flen)>(fortran_name<T>("syrk"));
  const int n = kN, k = kK, ldc = n + 2;
  const T alpha = scalar<T>(0.7, 0.3), beta = scalar<T>(-0.4, 0.2);
  std::vector<char> transposes = {'N', 'T'};
  if (!is_complex_v<T>) transposes.push_back('C');
  FOR_EACH_PATH for (char uplo : kUplos) for (char trans : transposes) {
    SCOPED_TRACE((std::string{uplo, trans}));
    const int lda = (trans == 'N' ? n : k) + kPad;
    const auto a = random_matrix<T>(lda, trans == 'N' ? k : n, 23);
    auto c = random_matrix<T>(ldc, n, 24), c2 = c;
    f.ours(&uplo, &trans, &n, &k, &alpha, a.data(), &lda, &beta, c.data(), &ldc, 1, 1);
    f.vendor(&uplo, &trans, &n, &k, &alpha, a.data(), &lda, &beta, c2.data(), &ldc, 1, 1);
    EXPECT_LE(relative_difference(c, c2), tolerance<T>());
  }
}

TYPED_TEST(DropinComplex, Herk) {
  using T = TypeParam;
  using R = real_t<T>;
  auto f = routines<void(const char*, const char*, const int*, const int*, const R*, const T*, const int*, const R*, T*,
                         const int*, flen, flen)>(fortran_name<T>("herk"));
  const int n = kN, k = kK, ldc = n + 2;
  const R alpha = 0.7, beta = -0.4;
  FOR_EACH_PATH for (char uplo : kUplos) for (char trans : {'N', 'C'}) {
    SCOPED_TRACE((std::string{uplo, trans}));
    const int lda = (trans == 'N' ? n : k) + kPad;
    const auto a = random_matrix<T>(lda, trans == 'N' ? k : n, 25);
    auto c = random_matrix<T>(ldc, n, 26), c2 = c;
    f.ours(&uplo, &trans, &n, &k, &alpha, a.data(), &lda, &beta, c.data(), &ldc, 1, 1);
    f.vendor(&uplo, &trans, &n, &k, &alpha, a.data(), &lda, &beta, c2.data(), &ldc, 1, 1);
    EXPECT_LE(relative_difference(c, c2), tolerance<T>());
  }
}

}  // namespace
}  // namespace hetla::test
