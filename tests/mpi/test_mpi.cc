// Distributed routines under mpirun (tests/CMakeLists.txt runs this with 1, 2
// and 4 processes): every grid the communicator allows, ragged n, results
// against LAPACK on rank 0, info and errors the same on every process.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "checks.hpp"
#include "hetla/blas3.hpp"
#include "hetla/context.hpp"
#include "kernels/host/blas.hpp"
#include "matgen.hpp"
#include "mpi/grid.hpp"
#include "mpi/routines.hpp"
#include "mpi_support.hpp"

using namespace hetla;

namespace {

using hetla_mpi_test::grids;
using hetla_mpi_test::PrecisionName;
using hetla_mpi_test::Precisions;

template <typename T> class MpiTyped : public ::testing::Test {};
TYPED_TEST_SUITE(MpiTyped, Precisions, PrecisionName);

// Factor on every grid, gather, check the residual on rank 0; every process
// gets info 0.
TYPED_TEST(MpiTyped, PotrfRaggedEveryGrid) {
  using T = TypeParam;
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
    for (auto [p, q] : grids()) {
      SCOPED_TRACE(std::to_string(p) + "x" + std::to_string(q) + (uplo == Uplo::Lower ? " L" : " U"));
      const int64_t n = 203, nb = 32;  // 7 x 7 tiles, the last 11 wide
      mpi::Grid g(p, q);
      const auto A0 = bench::random_hpd<T>(n, n, 7);
      mpi::DistMatrix<T> A(g, n, n, nb);
      A.scatter(A0.data(), n);
      const uint64_t sent = g.bytes_sent();
      EXPECT_EQ(mpi::potrf(uplo, A), 0);
      // every process owns tiles the others read: the runtime moved them
      if (g.size() > 1) {
        EXPECT_GT(g.bytes_sent(), sent);
      }
      std::vector<T> F(static_cast<std::size_t>(n * n));
      A.gather(F.data(), n);
      if (g.rank() == 0) {
        EXPECT_LT(bench::potrf_residual(uplo, n, A0.data(), n, F.data(), n), bench::kResidualThreshold);
      }
    }
}

TYPED_TEST(MpiTyped, PosvEveryGrid) {
  using T = TypeParam;
  const int64_t n = 150, nrhs = 37, nb = 32;
  for (auto [p, q] : grids()) {
    SCOPED_TRACE(std::to_string(p) + "x" + std::to_string(q));
    mpi::Grid g(p, q);
    const auto A0 = bench::random_hpd<T>(n, n, 5);
    const auto B0 = bench::random_matrix<T>(n, nrhs, n, 6);
    mpi::DistMatrix<T> A(g, n, n, nb), B(g, n, nrhs, nb);
    A.scatter(A0.data(), n);
    B.scatter(B0.data(), n);
    EXPECT_EQ(mpi::posv(Uplo::Upper, A, B), 0);
    std::vector<T> X(static_cast<std::size_t>(n * nrhs));
    B.gather(X.data(), n);
    if (g.rank() == 0) {
      EXPECT_LT(bench::solve_residual(n, n, nrhs, A0.data(), n, X.data(), n, B0.data(), n), bench::kResidualThreshold);
    }
  }
}

TYPED_TEST(MpiTyped, GemmEveryGrid) {
  using T = TypeParam;
  const int64_t m = 150, n = 170, k = 130, nb = 32;
  for (auto [opa, opb] : {std::pair{Op::NoTrans, Op::NoTrans}, std::pair{Op::ConjTrans, Op::Trans}})
    for (auto [p, q] : grids()) {
      SCOPED_TRACE(std::to_string(p) + "x" + std::to_string(q));
      mpi::Grid g(p, q);
      const int64_t ar = opa == Op::NoTrans ? m : k, ac = opa == Op::NoTrans ? k : m;
      const int64_t br = opb == Op::NoTrans ? k : n, bc = opb == Op::NoTrans ? n : k;
      const auto A0 = bench::random_matrix<T>(ar, ac, ar, 1), B0 = bench::random_matrix<T>(br, bc, br, 2);
      const auto C0 = bench::random_matrix<T>(m, n, m, 3);
      mpi::DistMatrix<T> A(g, ar, ac, nb), B(g, br, bc, nb), C(g, m, n, nb);
      A.scatter(A0.data(), ar);
      B.scatter(B0.data(), br);
      C.scatter(C0.data(), m);
      const T alpha(2), beta(-1);
      mpi::gemm(opa, opb, alpha, A, B, beta, C);
      std::vector<T> Cd(static_cast<std::size_t>(m * n));
      C.gather(Cd.data(), m);
      if (g.rank() != 0) continue;
      auto R = C0;
      blas::gemm(opa, opb, m, n, k, alpha, A0.data(), ar, B0.data(), br, beta, R.data(), m);
      double err = 0, ref = 0;
      for (std::size_t i = 0; i < R.size(); ++i) {
        err = std::max(err, static_cast<double>(std::abs(R[i] - Cd[i])));
        ref = std::max(ref, static_cast<double>(std::abs(R[i])));
      }
      EXPECT_LT(err, 10.0 * k * bench::eps<T>() * ref);
    }
}

// Several GEMM blocks per process and k panel (tasks/blas3.hpp,
// gemm_by_owner cuts one per host worker: 3 workers here), every op pair,
// ragged tiles, beta = 0 on a C full of NaN (BLAS: C is not read).
TEST(Mpi, GemmBlocksEveryOpPair) {
  Config cfg;
  cfg.num_threads = 3;
  cfg.pin_threads = false;
  cfg.devices = "cpu";
  hetla::init(cfg);
  const int64_t m = 203, n = 171, k = 145, nb = 32;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (Op opa : {Op::NoTrans, Op::Trans})
    for (Op opb : {Op::NoTrans, Op::Trans})
      for (double beta : {0.0, 0.5})
        for (auto [p, q] : grids()) {
          SCOPED_TRACE(std::to_string(p) + "x" + std::to_string(q) + (opa == Op::NoTrans ? " N" : " T") +
                       (opb == Op::NoTrans ? "N" : "T") + " beta " + std::to_string(beta));
          mpi::Grid g(p, q);
          const int64_t ar = opa == Op::NoTrans ? m : k, ac = opa == Op::NoTrans ? k : m;
          const int64_t br = opb == Op::NoTrans ? k : n, bc = opb == Op::NoTrans ? n : k;
          const auto A0 = bench::random_matrix<double>(ar, ac, ar, 21),
                     B0 = bench::random_matrix<double>(br, bc, br, 22);
          auto C0 = bench::random_matrix<double>(m, n, m, 23);
          if (beta == 0.0) std::fill(C0.begin(), C0.end(), nan);
          mpi::DistMatrix<double> A(g, ar, ac, nb), B(g, br, bc, nb), C(g, m, n, nb);
          A.scatter(A0.data(), ar);
          B.scatter(B0.data(), br);
          C.scatter(C0.data(), m);
          mpi::gemm(opa, opb, -1.5, A, B, beta, C);
          std::vector<double> Cd(static_cast<std::size_t>(m * n));
          C.gather(Cd.data(), m);
          if (g.rank() != 0) continue;
          auto R = C0;
          blas::gemm(opa, opb, m, n, k, -1.5, A0.data(), ar, B0.data(), br, beta, R.data(), m);
          double err = 0, ref = 0;
          for (std::size_t i = 0; i < R.size(); ++i) {
            err = std::max(err, std::isnan(Cd[i]) ? 1e300 : std::abs(R[i] - Cd[i]));
            ref = std::max(ref, std::abs(R[i]));
          }
          EXPECT_LT(err, 10.0 * k * bench::eps<double>() * ref);
        }
  cfg.num_threads = 1;
  hetla::init(cfg);  // as the other tests leave it
}

// The failing minor is known on every process, whichever owns it.
TEST(Mpi, NotSpdInfoOnEveryProcess) {
  const int64_t n = 200, nb = 32;
  for (auto [p, q] : grids()) {
    SCOPED_TRACE(std::to_string(p) + "x" + std::to_string(q));
    mpi::Grid g(p, q);
    auto A0 = bench::random_hpd<double>(n, n, 11);
    A0[150 + 150 * n] = -1.0;  // the leading minor of order 151 is not positive definite
    mpi::DistMatrix<double> A(g, n, n, nb);
    A.scatter(A0.data(), n);
    EXPECT_EQ(mpi::potrf(Uplo::Lower, A), 151);
    A.scatter(A0.data(), n);
    mpi::DistMatrix<double> B(g, n, 3, nb);
    EXPECT_EQ(mpi::posv(Uplo::Lower, A, B), 151);  // and no solve anywhere
  }
}

// A task that throws on one process (its emulated device fails every
// kernel) is an error on every process, and nothing waits forever.
TEST(Mpi, AFailingTaskOnOneProcessIsAnErrorEverywhere) {
  const int np = mpi::world_size();
  Config cfg;
  cfg.num_threads = 1;
  cfg.pin_threads = false;
  // (without cpu: no device is left to recover on, docs/reliability.md)
  cfg.devices = mpi::world_rank() == np - 1 ? "emu:fail=kernel" : "cpu,emu";
  hetla::init(cfg);
  Options opts;
  opts.weights = "emu=1";  // every product on the emulated device
  const int64_t nb = 32, n = nb * np;  // a tile column of C on every process
  mpi::Grid g(1, np);
  mpi::DistMatrix<double> A(g, n, n, nb), B(g, n, n, nb), C(g, n, n, nb);
  EXPECT_THROW(mpi::gemm(Op::NoTrans, Op::NoTrans, 1.0, A, B, 0.0, C, opts), std::runtime_error);
  cfg.devices = "cpu";
  hetla::init(cfg);  // the next test on every process alike
  mpi::gemm(Op::NoTrans, Op::NoTrans, 1.0, A, B, 0.0, C);  // the grid still works
}

// A grid the communicator cannot hold is an error on every process, at once.
TEST(Mpi, BadGridIsAnErrorEverywhere) {
  const int np = mpi::world_size();
  try {
    mpi::Grid g(np + 1, 1);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("needs " + std::to_string(np + 1) + " processes"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(mpi::parse_grid("2by2"), std::invalid_argument);
  EXPECT_EQ(mpi::parse_grid("2x3"), (std::pair<int, int>{2, 3}));
}

// A random SPD matrix scattered into A, factored (Lower), gathered, and its
// residual checked on rank 0.
void factor_and_check(const mpi::Grid& g, mpi::DistMatrix<double>& A, uint64_t seed) {
  const int64_t n = A.n();
  const auto A0 = bench::random_hpd<double>(n, n, seed);
  A.scatter(A0.data(), n);
  ASSERT_EQ(mpi::potrf(Uplo::Lower, A), 0);
  std::vector<double> F(static_cast<std::size_t>(n * n));
  A.gather(F.data(), n);
  if (g.rank() == 0) {
    EXPECT_LT(bench::potrf_residual(Uplo::Lower, n, A0.data(), n, F.data(), n), bench::kResidualThreshold);
  }
}

// The same tiles, and their transfers, under a second call (cached copies
// are dropped between calls: the caller may change its tiles meanwhile).
TEST(Mpi, RepeatedCallsSeeNewData) {
  const int64_t n = 100, nb = 16;
  for (auto [p, q] : grids()) {
    mpi::Grid g(p, q);
    mpi::DistMatrix<double> A(g, n, n, nb);
    for (uint64_t seed : {1, 2}) factor_and_check(g, A, seed);
  }
}

// Transfers past MPI's int count (2 GiB; a packed panel of 300 000 x 512
// complex doubles) go as one derived datatype of MiB blocks and the bytes
// left: the same path here, with the bound lowered to 4 KiB. Tiles of 400 x
// 400 are one block and 231 424 bytes, the ragged ones under a block.
TEST(Mpi, TransfersPastTheCountLimitGoAsOneDerivedType) {
  struct Restore {
    std::size_t bound = mpi::set_max_plain_bytes_for_tests(4096);
    ~Restore() { mpi::set_max_plain_bytes_for_tests(bound); }
  } restore;
  const int64_t n = 900, nb = 400;
  for (auto [p, q] : grids()) {
    SCOPED_TRACE(std::to_string(p) + "x" + std::to_string(q));
    mpi::Grid g(p, q);
    mpi::DistMatrix<double> A(g, n, n, nb);
    factor_and_check(g, A, 3);
  }
}

// A ScaLAPACK local array (padded lld) used in place (view_scalapack) gives
// the copied matrix's factor, in the array's own places; the padding rows
// and the other triangle stay as they were.
TYPED_TEST(MpiTyped, ScalapackArrayInPlace) {
  using T = TypeParam;
  const int64_t n = 150, nb = 32;  // ragged: the last tile 22 wide
  for (auto [p, q] : grids()) {
    SCOPED_TRACE(std::to_string(p) + "x" + std::to_string(q));
    mpi::Grid g(p, q);
    const auto A0 = bench::random_hpd<T>(n, n, 11);
    mpi::DistMatrix<T> A(g, n, n, nb);
    A.scatter(A0.data(), n);
    const int64_t lld = A.local_rows() + 3;
    const T pad(-7);
    std::vector<T> loc(static_cast<std::size_t>(lld * std::max<int64_t>(1, A.local_cols())), pad);
    A.to_scalapack(loc.data(), lld);
    const std::vector<T> before = loc;
    auto V = mpi::DistMatrix<T>::view_scalapack(g, n, n, nb, loc.data(), lld);
    ASSERT_EQ(mpi::potrf(Uplo::Lower, V), 0);
    ASSERT_EQ(mpi::potrf(Uplo::Lower, A), 0);
    std::vector<T> want(loc.size(), pad);
    A.to_scalapack(want.data(), lld);
    for (int64_t lj = 0; lj < A.local_cols(); ++lj)
      for (int64_t li = 0; li < lld; ++li) {
        const std::size_t k = static_cast<std::size_t>(li + lj * lld);
        if (li >= A.local_rows()) {
          ASSERT_EQ(loc[k], pad) << "padding row " << li;
          continue;
        }
        // the global place of local (li, lj): block-cyclic from process (0, 0)
        const int64_t i = (li / nb) * nb * p + (g.rank() / q) * nb + li % nb;
        const int64_t j = (lj / nb) * nb * q + (g.rank() % q) * nb + lj % nb;
        if (i < j) {
          ASSERT_EQ(loc[k], before[k]) << "upper triangle (" << i << ", " << j << ")";
        } else {
          ASSERT_LT(std::abs(loc[k] - want[k]), 1e-4 * std::abs(want[k]) + 1e-5) << "(" << i << ", " << j << ")";
        }
      }
  }
}

}  // namespace

int main(int argc, char** argv) {
  mpi::init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  if (mpi::world_rank() != 0) {  // one report: rank 0's (a failure elsewhere still fails the exit code)
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int rc = RUN_ALL_TESTS();
  mpi::finalize();
  return rc;
}
