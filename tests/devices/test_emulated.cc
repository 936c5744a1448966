// Heterogeneous execution with emulated accelerators (own memory arena,
// explicit copies): correctness on every device mix, distribution and
// schedule, with placement forced at random, under a device memory limit far
// below the matrix (evictions), and with injected device faults.
#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "checks.hpp"
#include "common/cholesky.hpp"
#include "common/watchdog.hpp"
#include "hetla/hetla.hpp"
#include "matgen.hpp"
#include "devices/spec.hpp"
#include "context/context.hpp"

namespace hetla {
namespace {

struct Mix {
  const char* devices;
  Schedule schedule;
  Distribution dist;
};

std::vector<rt::DeviceStats> stats_now() {
  detail::CallScope scope;
  return scope.rt().stats();
}
void reset_stats() {
  detail::CallScope scope;
  scope.rt().reset_stats();
}

template <typename T> double factor_and_check(Uplo uplo, int64_t n, int64_t nb, const Options& base = {}) {
  const int64_t lda = n + 3;
  auto A = bench::random_hpd<T>(n, lda, 11);
  auto F = A;
  Options o = base;
  o.nb = nb;
  int64_t info = -1;
  test::must_finish("potrf", [&] { info = potrf<T>(uplo, n, F.data(), lda, o); });
  EXPECT_EQ(info, 0);
  return bench::potrf_residual(uplo, n, A.data(), lda, F.data(), lda);
}

class DeviceMix : public testing::TestWithParam<Mix> {
 protected:
  void TearDown() override { finalize(); }
};

TEST_P(DeviceMix, CholeskyCorrectAndDevicesWork) {
  const Mix s = GetParam();
  Config c;
  c.devices = s.devices;
  c.schedule = s.schedule;
  init(c);
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper}) {
    reset_stats();
    Options o;
    o.distribution = s.dist;
    EXPECT_LT(factor_and_check<double>(uplo, 389, 48, o), bench::kResidualThreshold);
    EXPECT_LT(factor_and_check<std::complex<float>>(uplo, 200, 32, o), bench::kResidualThreshold);
    auto st = stats_now();
    for (std::size_t d = 1; d < st.size(); ++d) {
      EXPECT_GT(st[d].tasks, 0u) << "accelerator " << d << " ran nothing";
      EXPECT_GT(st[d].bytes_in, 0u);
      EXPECT_GT(st[d].bytes_out, 0u);
    }
  }
  // potrs/posv through the same devices
  const int64_t n = 150, nrhs = 7;
  auto A = bench::random_hpd<double>(n, n, 3);
  auto B = bench::random_matrix<double>(n, nrhs, n, 4);
  auto F = A, X = B;
  Options o;
  o.nb = 32;
  o.distribution = s.dist;
  ASSERT_EQ(posv<double>(Uplo::Lower, n, nrhs, F.data(), n, X.data(), n, o), 0);
  EXPECT_LT(bench::solve_residual<double>(n, n, nrhs, A.data(), n, X.data(), n, B.data(), n), bench::kResidualThreshold);
}

INSTANTIATE_TEST_SUITE_P(
    Emulated, DeviceMix,
    testing::Values(Mix{"cpu,emu", Schedule::Dynamic, Distribution::Default},
                    Mix{"emu", Schedule::Dynamic, Distribution::Default},
                    Mix{"cpu,emu:speed=1,emu:speed=0.5", Schedule::Dynamic, Distribution::Default},
                    Mix{"cpu,emu:speed=1,emu:speed=0.5", Schedule::Static, Distribution::OneD},
                    Mix{"cpu,emu:speed=1,emu:speed=0.5", Schedule::Static, Distribution::TwoD},
                    Mix{"cpu,emu:speed=1,emu:speed=0.5", Schedule::Static, Distribution::Weighted},
                    Mix{"emu,emu:speed=0.5", Schedule::Static, Distribution::Weighted},
                    Mix{"cpu,emu:bw=5:lat=20", Schedule::Dynamic, Distribution::Default}),
    [](const testing::TestParamInfo<Mix>& i) {
      std::string n = std::string(i.param.devices) + "_" + (i.param.schedule == Schedule::Static ? "static" : "dynamic") +
                      "_" + std::to_string(static_cast<int>(i.param.dist));
      for (char& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

// Placement forced at random (property test): any placement gives a correct
// factor, and since every device runs the same host kernels on the same
// operands in the same (dependence) order, the very same bits.
TEST(RandomPlacement, AnyPlacementGivesTheSameFactor) {
  const int64_t n = 300, nb = 40;
  auto A = bench::random_hpd<double>(n, n, 5);
  auto ref = A;
  init(Config{});
  ASSERT_EQ(potrf<double>(Uplo::Lower, n, ref.data(), n, Options{nb}), 0);
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    rt::RuntimeConfig rc;
    rc.accelerators = dev::parse_devices("emu,emu:speed=0.5").accelerators;
    rc.random_placement = true;
    rc.random_seed = seed;
    detail::init_runtime(rc);
    reset_stats();
    auto F = A;
    ASSERT_EQ(potrf<double>(Uplo::Lower, n, F.data(), n, Options{nb}), 0);
    EXPECT_LT(bench::potrf_residual<double>(Uplo::Lower, n, A.data(), n, F.data(), n), bench::kResidualThreshold);
    EXPECT_EQ(std::memcmp(F.data(), ref.data(), F.size() * sizeof(double)), 0) << "seed " << seed;
    auto st = stats_now();
    EXPECT_GT(st[1].tasks + st[2].tasks, 0u);
  }
  finalize();
}

// A device memory limit far below the matrix: the factorization still
// completes (out of core), the device evicted tiles, and the written-back
// data equals the host-only result bit for bit.
TEST(DeviceMemoryLimit, EvictsAndMatchesHostBitForBit) {
  const int64_t n = 400, nb = 50;  // 8x8 tiles of 20 KB; the device holds 6
  auto A = bench::random_hpd<double>(n, n, 9);
  auto ref = A;
  init(Config{});
  ASSERT_EQ(potrf<double>(Uplo::Lower, n, ref.data(), n, Options{nb}), 0);
  Config c;
  c.devices = "emu:mem=120K";
  init(c);
  reset_stats();
  auto F = A;
  ASSERT_EQ(potrf<double>(Uplo::Lower, n, F.data(), n, Options{nb}), 0);
  auto st = stats_now();
  EXPECT_GT(st[1].evictions, 0u);
  EXPECT_EQ(std::memcmp(F.data(), ref.data(), F.size() * sizeof(double)), 0);
  finalize();
}

// Faults: a device that cannot allocate, or whose kernels fail with no other
// device to recover on (docs/reliability.md), reports a clear error to the
// caller; nothing hangs and the library stays usable.
TEST(DeviceFaults, AllocationFailureIsReported) {
  Config c;
  c.devices = "emu:fail=alloc";
  init(c);
  auto A = bench::random_hpd<double>(200, 200, 1);
  try {
    test::must_finish("potrf", [&] { potrf<double>(Uplo::Lower, 200, A.data(), 200, Options{50}); });
    FAIL() << "expected an out-of-memory error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("out of device memory"), std::string::npos) << e.what();
  }
  init(Config{});
  auto B = bench::random_hpd<double>(200, 200, 1);
  EXPECT_EQ(potrf<double>(Uplo::Lower, 200, B.data(), 200, Options{50}), 0);
  finalize();
}

TEST(DeviceFaults, KernelFailureIsReported) {
  Config c;
  c.devices = "emu:fail=kernel";
  init(c);
  auto A = bench::random_hpd<double>(200, 200, 1);
  try {
    test::must_finish("potrf", [&] { potrf<double>(Uplo::Lower, 200, A.data(), 200, Options{50}); });
    FAIL() << "expected the injected kernel failure";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("injected"), std::string::npos) << e.what();
  }
  // A fresh context works (the failed call left no stuck task or thread).
  init(Config{});
  auto B = bench::random_hpd<double>(200, 200, 1);
  EXPECT_EQ(potrf<double>(Uplo::Lower, 200, B.data(), 200, Options{50}), 0);
  finalize();
}

TEST(DeviceList, BadSpecsAreRejectedClearly) {
  for (const char* bad : {"gpu", "emu:speed=2", "emu:speed=0", "emu:mem=-1", "emu:foo=1", "cpu,cpu", "cpu:0", ""}) {
    Config c;
    c.devices = bad;
    if (std::string(bad).empty()) continue;  // empty = default host
    EXPECT_THROW(init(c), std::invalid_argument) << bad;
  }
  Config ok;
  ok.devices = "cpu:1,emu:speed=0.25:mem=1M:bw=2:lat=5";
  EXPECT_NO_THROW(init(ok));
  EXPECT_EQ(num_threads(), 1);
  finalize();
}

}  // namespace
}  // namespace hetla
