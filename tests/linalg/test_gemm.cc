// hetla::gemm against the host BLAS: every op(A) x op(B) x precision on
// shapes with ragged tiles, padded leading dimensions, the BLAS edge cases
// (m, n or k = 0; k = 0 and alpha = 0 scale C by beta; beta = 0 with NaN in C
// gives no NaN), the tile-storage API, argument errors, and the split across
// emulated devices (default and forced weights, every device gets work).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/cholesky.hpp"
#include "common/watchdog.hpp"
#include "hetla/hetla.hpp"
#include "context/context.hpp"

namespace hetla {
namespace {

using test::PrecisionName;
using test::Precisions;

constexpr int64_t kNb = 16;

template <typename T> T scalar(double re, double im) {
  if constexpr (is_complex_v<T>)
    return T(static_cast<real_t<T>>(re), static_cast<real_t<T>>(im));
  else
    return static_cast<T>(re);
}

template <typename T> double fro(int64_t m, int64_t n, const T* A, int64_t lda) {
  double s = 0;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) s += std::norm(std::complex<double>(A[i + j * lda]));
  return std::sqrt(s);
}

struct Shape {
  int64_t m, n, k;
};

/// ||C - C_ref||_F / ((|alpha| k ||A||_F ||B||_F + |beta| ||C0||_F) eps), C_ref from the host BLAS.
template <typename T>
double gemm_error(Op opa, Op opb, Shape s, T alpha, T beta, bool nan_c, const Options& o = {kNb}) {
  const int64_t ar = opa == Op::NoTrans ? s.m : s.k, ac = opa == Op::NoTrans ? s.k : s.m;
  const int64_t br = opb == Op::NoTrans ? s.k : s.n, bc = opb == Op::NoTrans ? s.n : s.k;
  const int64_t lda = std::max<int64_t>(1, ar) + 2, ldb = std::max<int64_t>(1, br) + 1,
                ldc = std::max<int64_t>(1, s.m) + 3;
  const auto A = bench::random_matrix<T>(ar, ac, lda, 1 + static_cast<uint64_t>(s.m));
  const auto B = bench::random_matrix<T>(br, bc, ldb, 2 + static_cast<uint64_t>(s.n));
  auto C0 = bench::random_matrix<T>(s.m, s.n, ldc, 3 + static_cast<uint64_t>(s.k));
  if (nan_c)
    for (auto& x : C0) x = test::poison<T>(7);
  // padding rows of C must stay as they are
  for (int64_t j = 0; j < s.n; ++j)
    for (int64_t i = s.m; i < ldc; ++i) C0[static_cast<std::size_t>(i + j * ldc)] = T(42);
  auto C = C0, R = C0;
  test::must_finish(
      "gemm", [&] { gemm<T>(opa, opb, s.m, s.n, s.k, alpha, A.data(), lda, B.data(), ldb, beta, C.data(), ldc, o); });
  blas::gemm(opa, opb, s.m, s.n, s.k, alpha, A.data(), lda, B.data(), ldb, beta, R.data(), ldc);
  for (int64_t j = 0; j < s.n; ++j)
    for (int64_t i = s.m; i < ldc; ++i)
      if (C[static_cast<std::size_t>(i + j * ldc)] != T(42)) return std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < C.size(); ++i) R[i] = C[i] - R[i];  // NaN anywhere -> NaN error
  const double scale = std::abs(alpha) * static_cast<double>(std::max<int64_t>(1, s.k)) * fro(ar, ac, A.data(), lda) *
                           fro(br, bc, B.data(), ldb) +
                       (beta == T(0) ? 0.0 : std::abs(beta) * fro(s.m, s.n, C0.data(), ldc));
  const double err = fro(s.m, s.n, R.data(), ldc);
  if (std::isnan(err)) return std::numeric_limits<double>::infinity();
  return err == 0 ? 0 : err / (std::max(scale, 1e-300) * bench::eps<T>());
}

template <typename T> class Gemm : public testing::Test {};
TYPED_TEST_SUITE(Gemm, Precisions, PrecisionName);

const Op kOps[] = {Op::NoTrans, Op::Trans, Op::ConjTrans};
const Shape kShapes[] = {
    {1, 1, 1},          {257, 150, 150}, {150, 257, 150}, {kNb - 1, kNb + 1, 2 * kNb + 3}, {3 * kNb + 5, 2 * kNb, kNb},
    {5, 4 * kNb + 1, 7}};

TYPED_TEST(Gemm, EveryTransposeAndShape) {
  using T = TypeParam;
  for (Op opa : kOps)
    for (Op opb : kOps)
      for (Shape s : kShapes)
        EXPECT_LT(gemm_error<T>(opa, opb, s, scalar<T>(1.5, -0.5), scalar<T>(-0.75, 0.25), false),
                  bench::kResidualThreshold)
            << static_cast<char>(opa) << static_cast<char>(opb) << " " << s.m << "x" << s.n << "x" << s.k;
}

TYPED_TEST(Gemm, BlasEdgeCases) {
  using T = TypeParam;
  const Shape s{2 * kNb + 3, kNb + 5, kNb + 1};
  // beta = 0: C is not read, NaN does not propagate
  EXPECT_LT(gemm_error<T>(Op::NoTrans, Op::Trans, s, scalar<T>(2, 1), T(0), true), bench::kResidualThreshold);
  // k = 0 and alpha = 0: C = beta C; beta = 0 sets C to zero even over NaN
  for (T beta : {T(0), scalar<T>(-2, 1), T(1)}) {
    EXPECT_LT(gemm_error<T>(Op::NoTrans, Op::NoTrans, {s.m, s.n, 0}, T(1), beta, beta == T(0)),
              bench::kResidualThreshold);
    EXPECT_LT(gemm_error<T>(Op::ConjTrans, Op::NoTrans, s, T(0), beta, beta == T(0)), bench::kResidualThreshold);
  }
  // m = 0 / n = 0: nothing happens (and nothing is read)
  gemm<T>(Op::NoTrans, Op::NoTrans, 0, 3, 2, T(1), nullptr, 1, nullptr, 2, T(0), nullptr, 1);
  gemm<T>(Op::NoTrans, Op::NoTrans, 3, 0, 2, T(1), nullptr, 3, nullptr, 2, T(0), nullptr, 3);
  // alpha = 0 or k = 0: A and B are not referenced and may be null
  std::vector<T> Cz(4 * 3, test::poison<T>(1));
  gemm<T>(Op::NoTrans, Op::Trans, 4, 3, 5, T(0), nullptr, 4, nullptr, 3, T(0), Cz.data(), 4);
  for (const T& x : Cz) EXPECT_EQ(x, T(0));
  gemm<T>(Op::NoTrans, Op::NoTrans, 4, 3, 0, T(1), nullptr, 4, nullptr, 1, T(0), Cz.data(), 4);
}

TYPED_TEST(Gemm, TileStorage) {
  using T = TypeParam;
  const int64_t m = 2 * kNb + 3, n = kNb + 7, k = 3 * kNb - 1;
  const auto A = bench::random_matrix<T>(m, k, m, 5), B = bench::random_matrix<T>(n, k, n, 6);
  auto C0 = bench::random_matrix<T>(m, n, m, 7);
  Matrix<T> At(m, k, kNb), Bt(n, k, kNb), Ct(m, n, kNb);
  At.copy_from(A.data(), m), Bt.copy_from(B.data(), n), Ct.copy_from(C0.data(), m);
  const T alpha = scalar<T>(0.5, 2), beta = scalar<T>(1, -1);
  gemm<T>(Op::NoTrans, Op::ConjTrans, alpha, At, Bt, beta, Ct);
  std::vector<T> C(C0.size());
  Ct.copy_to(C.data(), m);
  auto R = C0;
  blas::gemm(Op::NoTrans, Op::ConjTrans, m, n, k, alpha, A.data(), m, B.data(), n, beta, R.data(), m);
  for (std::size_t i = 0; i < C.size(); ++i) R[i] -= C[i];
  EXPECT_LT(fro(m, n, R.data(), m) / (k * fro(m, k, A.data(), m) * fro(n, k, B.data(), n) * bench::eps<T>()),
            bench::kResidualThreshold);
}

TEST(GemmArgs, BlasArgumentNumbers) {
  std::vector<double> x(100);
  auto arg_of = [&](auto&& f) {
    try {
      f();
    } catch (const ArgumentError& e) {
      return e.arg();
    }
    return 0;
  };
  const double* p = x.data();
  double* c = x.data();
  EXPECT_EQ(arg_of([&] { gemm<double>(static_cast<Op>('X'), Op::NoTrans, 2, 2, 2, 1, p, 2, p, 2, 0, c, 2); }), 1);
  EXPECT_EQ(arg_of([&] { gemm<double>(Op::NoTrans, static_cast<Op>('X'), 2, 2, 2, 1, p, 2, p, 2, 0, c, 2); }), 2);
  EXPECT_EQ(arg_of([&] { gemm<double>(Op::NoTrans, Op::NoTrans, -1, 2, 2, 1, p, 2, p, 2, 0, c, 2); }), 3);
  EXPECT_EQ(arg_of([&] { gemm<double>(Op::NoTrans, Op::NoTrans, 2, -1, 2, 1, p, 2, p, 2, 0, c, 2); }), 4);
  EXPECT_EQ(arg_of([&] { gemm<double>(Op::NoTrans, Op::NoTrans, 2, 2, -1, 1, p, 2, p, 2, 0, c, 2); }), 5);
  EXPECT_EQ(arg_of([&] { gemm<double>(Op::NoTrans, Op::NoTrans, 3, 2, 2, 1, p, 2, p, 2, 0, c, 3); }), 8);
  EXPECT_EQ(arg_of([&] { gemm<double>(Op::Trans, Op::NoTrans, 2, 2, 3, 1, p, 2, p, 3, 0, c, 2); }), 8);
  EXPECT_EQ(arg_of([&] { gemm<double>(Op::NoTrans, Op::NoTrans, 2, 2, 3, 1, p, 2, p, 2, 0, c, 2); }), 10);
  EXPECT_EQ(arg_of([&] { gemm<double>(Op::NoTrans, Op::Trans, 2, 3, 2, 1, p, 2, p, 2, 0, c, 2); }), 10);
  EXPECT_EQ(arg_of([&] { gemm<double>(Op::NoTrans, Op::NoTrans, 3, 2, 2, 1, p, 3, p, 2, 0, c, 2); }), 13);
  Matrix<double> A(3, 2, 4), B(3, 2, 4), C(3, 2, 4);
  EXPECT_EQ(arg_of([&] { gemm<double>(Op::NoTrans, Op::NoTrans, 1.0, A, B, 0.0, C); }), 9);
  EXPECT_EQ(arg_of([&] { gemm<double>(Op::Trans, Op::NoTrans, 1.0, A, B, 0.0, C); }), 7);
}

// ---- with emulated accelerators

class GemmDevices : public testing::Test {
 protected:
  void SetUp() override {
    Config c;
    c.devices = "cpu,emu,emu";
    init(c);
  }
  void TearDown() override { finalize(); }
};

std::vector<rt::DeviceStats> run_and_stats(const std::function<void()>& f) {
  {
    detail::CallScope scope;
    scope.rt().reset_stats();
  }
  f();
  detail::CallScope scope;
  return scope.rt().stats();
}

TEST_F(GemmDevices, EveryTransposeEveryPrecision) {
  for (Op opa : kOps)
    for (Op opb : kOps) {
      const Shape s{2 * kNb + 3, 5 * kNb + 1, kNb + 9};
      EXPECT_LT(gemm_error<double>(opa, opb, s, 1.5, -0.5, false), bench::kResidualThreshold);
      EXPECT_LT(gemm_error<std::complex<float>>(opa, opb, s, {1, 2}, {0, 0}, true), bench::kResidualThreshold);
    }
  EXPECT_LT(gemm_error<float>(Op::Trans, Op::NoTrans, {40, 70, 30}, 1, 1, false), bench::kResidualThreshold);
  EXPECT_LT(gemm_error<std::complex<double>>(Op::NoTrans, Op::ConjTrans, {40, 70, 30}, {1, 1}, {0, 1}, false),
            bench::kResidualThreshold);
}

TEST_F(GemmDevices, ForcedWeightsGiveEveryDeviceItsShare) {
  Options o{kNb};
  o.weights = "cpu=0.2,emu0=0.5,emu1=0.3";
  const auto split = gemm_split(o);
  ASSERT_EQ(split.size(), 3u);
  EXPECT_EQ(split[1].device, "emu0");
  EXPECT_NEAR(split[1].share, 0.5, 1e-12);
  const Shape s{3 * kNb, 10 * kNb, 2 * kNb};
  double err = 0;
  const auto st = run_and_stats([&] { err = gemm_error<double>(Op::NoTrans, Op::NoTrans, s, 1, 0, true, o); });
  EXPECT_LT(err, bench::kResidualThreshold);
  ASSERT_EQ(st.size(), 3u);
  const double total = st[0].flops + st[1].flops + st[2].flops;
  EXPECT_NEAR(st[0].flops / total, 0.2, 0.02);
  EXPECT_NEAR(st[1].flops / total, 0.5, 0.02);
  EXPECT_NEAR(st[2].flops / total, 0.3, 0.02);
  // a device given nothing computes nothing
  o.weights = "emu1=1";
  const auto st2 = run_and_stats([&] { err = gemm_error<double>(Op::Trans, Op::Trans, s, 2, 1, false, o); });
  EXPECT_LT(err, bench::kResidualThreshold);
  EXPECT_EQ(st2[0].flops, 0);
  EXPECT_EQ(st2[1].flops, 0);
  EXPECT_GT(st2[2].flops, 0);
  // unknown device / bad number
  o.weights = "gpu=1";
  EXPECT_THROW(gemm_split(o), std::invalid_argument);
  o.weights = "cpu=x";
  EXPECT_THROW(gemm_split(o), std::invalid_argument);
}

TEST_F(GemmDevices, DefaultSplitUsesEveryDevice) {
  const auto split = gemm_split();
  double sum = 0;
  for (const auto& d : split) {
    EXPECT_GT(d.share, 0) << d.device;
    sum += d.share;
  }
  EXPECT_NEAR(sum, 1, 1e-12);
  double err = 0;
  const auto st = run_and_stats([&] {
    err = gemm_error<double>(Op::NoTrans, Op::Trans, {64, 40 * kNb, 64}, 1, 1, false);
  });
  EXPECT_LT(err, bench::kResidualThreshold);
  for (std::size_t d = 0; d < st.size(); ++d) EXPECT_GT(st[d].flops, 0) << d;
}

}  // namespace
}  // namespace hetla
