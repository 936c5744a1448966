// Several user threads calling the exported routines at once, at sizes below
// the crossover (the vendor, in each caller's thread) and above it (hetla,
// calls taking turns): every result equals the vendor's on the same input.
#include <complex>
#include <string>
#include <thread>
#include <vector>

#include "lapack/dropin_test.hpp"

namespace hetla::test {
namespace {

using flen = std::size_t;

/// One caller's work: potrf, getrf and geqrf at n, compared with the vendor.
/// Returns the number of mismatches.
int factor_and_compare(int n, unsigned seed) {
  using T = double;
  auto potrf = routines<void(const char*, const int*, T*, const int*, int*, flen)>("dpotrf_");
  auto getrf = routines<void(const int*, const int*, T*, const int*, int*, int*)>("dgetrf_");
  auto geqrf = routines<void(const int*, const int*, T*, const int*, T*, T*, const int*, int*)>("dgeqrf_");
  const int lda = n + 3, lwork = 64 * n;
  int bad = 0, ia = 0, ib = 0;
  auto a = hpd_matrix<T>(n, lda, seed), b = a;
  potrf.ours("L", &n, a.data(), &lda, &ia, 1);
  potrf.vendor("L", &n, b.data(), &lda, &ib, 1);
  bad += ia != ib || relative_difference(a, b) > tolerance<T>();
  a = random_matrix<T>(lda, n, seed + 1), b = a;
  std::vector<int> pa(n), pb(n);
  getrf.ours(&n, &n, a.data(), &lda, pa.data(), &ia);
  getrf.vendor(&n, &n, b.data(), &lda, pb.data(), &ib);
  bad += ia != ib || pa != pb || relative_difference(a, b) > tolerance<T>();
  a = random_matrix<T>(lda, n, seed + 2), b = a;
  std::vector<T> ta(n), tb(n), work(lwork);
  geqrf.ours(&n, &n, a.data(), &lda, ta.data(), work.data(), &lwork, &ia);
  geqrf.vendor(&n, &n, b.data(), &lda, tb.data(), work.data(), &lwork, &ib);
  bad += ia != ib || relative_difference(a, b) > tolerance<T>() || relative_difference(ta, tb) > tolerance<T>();
  return bad;
}

class ConcurrentCallers : public testing::TestWithParam<int> {};

TEST_P(ConcurrentCallers, MixedSizesAllCorrect) {
  const int threads = GetParam();
  ASSERT_EQ(hetla_lapack_set_crossover("all", 100), 0);  // 24 and 60: vendor; 150: hetla
  std::vector<int> bad(threads, 0);
  std::vector<std::thread> callers;
  for (int t = 0; t < threads; ++t)
    callers.emplace_back([&, t] {
      for (int rep = 0; rep < 3; ++rep)
        for (int n : {24, 150, 60}) bad[t] += factor_and_compare(n + t, 100 * t + rep);
    });
  for (auto& c : callers) c.join();
  for (int t = 0; t < threads; ++t) EXPECT_EQ(bad[t], 0) << "caller " << t;
  ASSERT_EQ(hetla_lapack_set_crossover("all", 1 << 20), 0);
}
INSTANTIATE_TEST_SUITE_P(Threads, ConcurrentCallers, testing::Values(2, 4));

}  // namespace
}  // namespace hetla::test
