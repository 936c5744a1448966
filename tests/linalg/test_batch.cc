// Batched potrf, getrf, geqrf, gemm (include/hetla/batch.hpp), s/d/c/z:
// results equal a loop of single calls (bitwise: each matrix is the same
// vendor call), both inline (a small batch) and as tasks (a batch past the
// crossover); one bad matrix gets its own info and leaves the others right;
// arguments common to the batch are rejected with their positions.
#include <gtest/gtest.h>

#include <vector>

#include "common/cholesky.hpp"
#include "common/watchdog.hpp"
#include "hetla/hetla.hpp"
#include "kernels/host/lapack_lu.hpp"
#include "kernels/host/lapack_qr.hpp"
#include "matgen.hpp"

namespace hetla {
namespace {

using test::PrecisionName;
using test::Precisions;

template <typename T> class Batch : public testing::Test {};
TYPED_TEST_SUITE(Batch, Precisions, PrecisionName);

/// `count` matrices of ld x cols, stored one after the other (stride ld * cols + 3).
template <typename T> struct Stack {
  int64_t ld, cols, stride, count;
  std::vector<T> data;
  Stack(int64_t ld_, int64_t cols_, int64_t count_) : ld(ld_), cols(cols_), stride(ld_ * cols_ + 3), count(count_) {
    data.assign(static_cast<std::size_t>(stride * count), T(0));
  }
  T* at(int64_t i) { return data.data() + i * stride; }
  const T* at(int64_t i) const { return data.data() + i * stride; }
  std::vector<T*> pointers() {
    std::vector<T*> p;
    for (int64_t i = 0; i < count; ++i) p.push_back(at(i));
    return p;
  }
};

template <typename T> Stack<T> hpd_stack(int64_t n, int64_t lda, int64_t count) {
  Stack<T> s(lda, n, count);
  for (int64_t i = 0; i < count; ++i) {
    const auto A = bench::random_hpd<T>(n, lda, 100 + i);
    std::copy(A.begin(), A.end(), s.at(i));
  }
  return s;
}
template <typename T> Stack<T> random_stack(int64_t m, int64_t n, int64_t lda, int64_t count) {
  Stack<T> s(lda, n, count);
  for (int64_t i = 0; i < count; ++i) {
    const auto A = bench::random_matrix<T>(m, n, lda, 200 + i);
    std::copy(A.begin(), A.end(), s.at(i));
  }
  return s;
}

// 6 matrices of 8: below the crossover, inline; 300 of 32: tasks; 24 of 70:
// tasks running potrf's single-threaded composition (kernels/host/small_factor.hpp).
const std::pair<int64_t, int64_t> kCases[] = {{8, 6}, {32, 300}, {70, 24}};

TYPED_TEST(Batch, PotrfEqualsALoopOfSingleCalls) {
  using T = TypeParam;
  for (auto [n, count] : kCases)
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper}) {
      const int64_t lda = n + 2;
      const auto A0 = hpd_stack<T>(n, lda, count);
      auto loop = A0, ptrs = A0, strided = A0;
      for (int64_t i = 0; i < count; ++i) ASSERT_EQ(potrf<T>(uplo, n, loop.at(i), lda), 0);
      std::vector<int64_t> info(count, -7), info2(count, -7);
      auto p = ptrs.pointers();
      test::must_finish("potrf batched", [&] {
        batch::potrf<T>(uplo, n, p.data(), lda, count, info.data());
        batch::potrf<T>(uplo, n, strided.data.data(), lda, strided.stride, count, info2.data());
      });
      EXPECT_EQ(info, std::vector<int64_t>(count, 0));
      EXPECT_EQ(info2, std::vector<int64_t>(count, 0));
      EXPECT_EQ(ptrs.data, loop.data) << "n=" << n;
      EXPECT_EQ(strided.data, loop.data) << "n=" << n;
    }
}

TYPED_TEST(Batch, OneBadMatrixHasItsOwnInfo) {
  using T = TypeParam;
  for (auto [n, count] : kCases) {
    const int64_t lda = n;
    auto A0 = hpd_stack<T>(n, lda, count);
    const int64_t bad = count / 2;
    A0.at(bad)[3 + 3 * lda] = T(-1);  // leading minor 4 not positive definite
    const int64_t bad2 = n > 50 ? count / 2 + 1 : -1;  // one failing in the composition's second half
    if (bad2 >= 0) A0.at(bad2)[49 + 49 * lda] = T(-1);
    auto loop = A0, batched = A0;
    for (int64_t i = 0; i < count; ++i) potrf<T>(Uplo::Lower, n, loop.at(i), lda);
    auto p = batched.pointers();
    p[1] = nullptr;  // a null matrix: its own -3 (A's position)
    std::vector<int64_t> info(count, -7);
    batch::potrf<T>(Uplo::Lower, n, p.data(), lda, count, info.data());
    for (int64_t i = 0; i < count; ++i) {
      EXPECT_EQ(info[i], i == bad ? 4 : i == bad2 ? 50 : i == 1 ? -3 : 0) << "matrix " << i;
      if (i != 1) {
        EXPECT_TRUE(std::equal(loop.at(i), loop.at(i) + lda * n, batched.at(i))) << "matrix " << i;
      }
    }
  }
}

TYPED_TEST(Batch, GetrfEqualsALoopWithItsOwnInfo) {
  using T = TypeParam;
  for (auto [n, count] : kCases) {
    const int64_t m = n + 3, lda = m + 1, k = n;
    auto A0 = random_stack<T>(m, n, lda, count);
    for (int64_t r = 0; r < m; ++r) A0.at(count - 1)[r + 2 * lda] = T(0);  // last matrix: U(3, 3) = 0
    auto loop = A0, batched = A0;
    std::vector<int64_t> lpiv(static_cast<std::size_t>(k * count)), bpiv(lpiv.size()), linfo(count), info(count, -7);
    for (int64_t i = 0; i < count; ++i) linfo[i] = getrf<T>(m, n, loop.at(i), lda, lpiv.data() + i * k);
    EXPECT_EQ(linfo[count - 1], 3);
    batch::getrf<T>(m, n, batched.data.data(), lda, batched.stride, bpiv.data(), k, count, info.data());
    EXPECT_EQ(info, linfo);
    EXPECT_EQ(batched.data, loop.data);
    EXPECT_EQ(bpiv, lpiv);
    // Pointer arrays.
    auto again = A0;
    auto p = again.pointers();
    std::vector<int64_t> ppiv(lpiv.size());
    std::vector<int64_t*> pp;
    for (int64_t i = 0; i < count; ++i) pp.push_back(ppiv.data() + i * k);
    batch::getrf<T>(m, n, p.data(), lda, pp.data(), count, info.data());
    EXPECT_EQ(info, linfo);
    EXPECT_EQ(again.data, loop.data);
    EXPECT_EQ(ppiv, lpiv);
  }
}

TYPED_TEST(Batch, GeqrfEqualsALoop) {
  using T = TypeParam;
  for (auto [n, count] : kCases) {
    const int64_t m = n + 5, lda = m, k = n;
    const auto A0 = random_stack<T>(m, n, lda, count);
    auto loop = A0, batched = A0;
    std::vector<T> ltau(static_cast<std::size_t>(k * count)), btau(ltau.size());
    for (int64_t i = 0; i < count; ++i) geqrf<T>(m, n, loop.at(i), lda, ltau.data() + i * k);
    std::vector<int64_t> info(count, -7);
    batch::geqrf<T>(m, n, batched.data.data(), lda, batched.stride, btau.data(), k, count, info.data());
    EXPECT_EQ(info, std::vector<int64_t>(count, 0));
    EXPECT_EQ(batched.data, loop.data);
    EXPECT_EQ(btau, ltau);
  }
}

TYPED_TEST(Batch, GemmEqualsALoop) {
  using T = TypeParam;
  for (auto [n, count] : kCases) {
    const int64_t m = n, k = n + 1;
    const auto A = random_stack<T>(k, m, k, count);  // op(A) = A^T: m x k
    const auto B = random_stack<T>(k, n, k, count);
    const auto C0 = random_stack<T>(m, n, m, count);
    auto loop = C0, strided = C0, ptrs = C0;
    const T alpha(2), beta(-1);
    for (int64_t i = 0; i < count; ++i)
      blas::gemm(Op::Trans, Op::NoTrans, m, n, k, alpha, A.data.data() + i * A.stride, k, B.data.data() + i * B.stride,
                 k, beta, loop.at(i), m);
    std::vector<int64_t> info(count, -7);
    batch::gemm<T>(Op::Trans, Op::NoTrans, m, n, k, alpha, A.data.data(), k, A.stride, B.data.data(), k, B.stride, beta,
                   strided.data.data(), m, strided.stride, count, info.data());
    EXPECT_EQ(info, std::vector<int64_t>(count, 0));
    EXPECT_EQ(strided.data, loop.data);
    std::vector<const T*> pa, pb;
    for (int64_t i = 0; i < count; ++i) {
      pa.push_back(A.data.data() + i * A.stride);
      pb.push_back(B.data.data() + i * B.stride);
    }
    auto pc = ptrs.pointers();
    pb[0] = nullptr;  // its own -9 (B's position)
    batch::gemm<T>(Op::Trans, Op::NoTrans, m, n, k, alpha, pa.data(), k, pb.data(), k, beta, pc.data(), m, count,
                   info.data());
    EXPECT_EQ(info[0], -9);
    for (int64_t i = 1; i < count; ++i) EXPECT_EQ(info[i], 0);
    EXPECT_TRUE(std::equal(loop.at(1), loop.at(1) + (count - 1) * loop.stride, ptrs.at(1)));
    EXPECT_TRUE(std::equal(C0.at(0), C0.at(0) + m * n, ptrs.at(0)));  // untouched
  }
}

TYPED_TEST(Batch, CommonArgumentsRejectedWithTheirPositions) {
  using T = TypeParam;
  std::vector<T> A(64);
  std::vector<T*> p(2, A.data());
  std::vector<int64_t> info(2), piv(16);
  auto position = [](auto&& f) {
    try {
      f();
    } catch (const ArgumentError& e) {
      return e.arg();
    }
    return 0;
  };
  EXPECT_EQ(position([&] { batch::potrf<T>(Uplo::General, 4, p.data(), 4, 2, info.data()); }), 1);
  EXPECT_EQ(position([&] { batch::potrf<T>(Uplo::Lower, -1, p.data(), 4, 2, info.data()); }), 2);
  EXPECT_EQ(position([&] { batch::potrf<T>(Uplo::Lower, 4, nullptr, 4, 2, info.data()); }), 3);
  EXPECT_EQ(position([&] { batch::potrf<T>(Uplo::Lower, 4, p.data(), 3, 2, info.data()); }), 4);
  EXPECT_EQ(position([&] { batch::potrf<T>(Uplo::Lower, 4, p.data(), 4, -1, info.data()); }), 5);
  EXPECT_EQ(position([&] { batch::potrf<T>(Uplo::Lower, 4, p.data(), 4, 2, nullptr); }), 6);
  EXPECT_EQ(position([&] { batch::potrf<T>(Uplo::Lower, 4, A.data(), 4, 15, 2, info.data()); }), 5);
  EXPECT_EQ(position([&] { batch::getrf<T>(4, 4, A.data(), 4, 16, piv.data(), 3, 2, info.data()); }), 7);
  EXPECT_EQ(position([&] { batch::geqrf<T>(4, 4, p.data(), 4, nullptr, 2, info.data()); }), 5);
  EXPECT_EQ(position([&] {
              batch::gemm<T>(Op::NoTrans, Op::NoTrans, 4, 4, 4, T(1), A.data(), 3, 0, A.data(), 4, 0, T(0), A.data(), 4,
                             16, 1, info.data());
            }),
            8);
  EXPECT_EQ(position([&] {
              batch::gemm<T>(Op::NoTrans, Op::NoTrans, 4, 4, 4, T(1), A.data(), 4, 0, A.data(), 4, 0, T(0), A.data(), 4,
                             15, 1, info.data());
            }),
            16);
  // An empty batch needs no arrays.
  EXPECT_EQ(position([&] { batch::potrf<T>(Uplo::Lower, 4, nullptr, 4, 0, nullptr); }), 0);
}

}  // namespace
}  // namespace hetla
