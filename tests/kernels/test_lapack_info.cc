// The LAPACKE wrappers of kernels/host return LAPACK's info: a rejected
// argument at the position LAPACK (and its xerbla) gives it, not LAPACKE's,
// which counts the layout as argument 1. hetla's messages ("LAPACK rejected
// argument N") and the C API's info carry that number.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <vector>

#include "common/vendor_xerbla.hpp"
#include "kernels/host/lapack_lu.hpp"
#include "kernels/host/lapack_qr.hpp"

namespace hetla {
namespace {

template <typename T> class LapackInfo : public testing::Test {};
using Precisions = testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(LapackInfo, Precisions);

TYPED_TEST(LapackInfo, RejectedArgumentHasLapacksPosition) {
  using T = TypeParam;
  const int64_t n = 6, bad_ld = n - 1;  // every call below gets an lda (or ldt) below its rows
  std::vector<T> A(static_cast<std::size_t>(n * n), T(1)), tau(static_cast<std::size_t>(n)),
      work(static_cast<std::size_t>(n)), Tm(A);
  std::vector<lapack_int> ipiv(static_cast<std::size_t>(n), 1);
  struct Case {
    const char* routine;
    int64_t info;  // the wrapper's
    int position;  // LAPACK's: xGETRF(M, N, A, LDA, ...), xUNGQR(M, N, K, A, LDA, ...), ...
  };
  const test::ExpectedVendorRejections expected;
  auto check = [&](const Case& c) {
    SCOPED_TRACE(c.routine);
    EXPECT_EQ(c.info, -c.position);
    EXPECT_EQ(expected.last_position(), c.position);  // as the vendor's xerbla printed it
  };
  check({"getrf", blas::getrf(n, n, A.data(), bad_ld, ipiv.data()), 4});
  check({"potrf", blas::potrf(Uplo::Lower, n, A.data(), bad_ld), 4});
  // (not getrs: OpenBLAS 0.3.21's own reports through xerbla but leaves INFO at 0)
  check({"ungqr", blas::ungqr_work(n, n, n, A.data(), bad_ld, tau.data(), work.data(), n), 5});
  check({"geqr2", blas::geqr2(n, n, A.data(), bad_ld, tau.data(), work.data()), 4});
  check({"geqrt3", blas::geqrt3(n, n, A.data(), n, Tm.data(), bad_ld), 6});
  EXPECT_EQ(expected.count(), 5);
}

}  // namespace
}  // namespace hetla
