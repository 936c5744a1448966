// CUDA backend. With a GPU: the device kernels against the host BLAS in four
// precisions (every op / side / uplo / diag combination, padded host tiles),
// copies in several staging chunks and from several threads at once, the
// allocation cache and capacity limit, eviction under a small capacity inside
// the runtime, our laswp kernel against the host's on tiles of unequal
// heights, and Cholesky and LU end to end on "cuda" and "cpu,cuda" (Cholesky
// also on every GPU when there are several). Without a GPU or driver the GPU tests skip
// with a visible message, and the no-device path is checked instead: "cuda"
// in a device list is a clear std::invalid_argument and probing finds nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "checks_lu.hpp"
#include "common/cholesky.hpp"
#include "common/watchdog.hpp"
#include "devices/host/host_device.hpp"
#include "devices/spec.hpp"
#include "hetla/hetla.hpp"
#include "kernels/host/blas.hpp"
#include "runtime/runtime.hpp"
#ifdef HETLA_HAVE_CUDA
#include "devices/cuda/cuda_device.hpp"
#endif

namespace hetla {
namespace {

using test::PrecisionName;
using test::Precisions;

/// Expects `f` to throw std::invalid_argument whose message contains `needle`.
template <typename F> void expect_invalid_argument(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "expected std::invalid_argument containing '" << needle << "', nothing was thrown";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << "message: " << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected std::invalid_argument, got another exception: " << e.what();
  }
}

#ifndef HETLA_HAVE_CUDA

TEST(CudaBackend, NotBuiltIsAClearError) {
  EXPECT_EQ(dev::built_backends().find("cuda"), std::string::npos);
  expect_invalid_argument([] { init(Config{.devices = "cuda"}); }, "the cuda backend is not built");
  finalize();
}

TEST(CudaDevice, Kernels) { GTEST_SKIP() << "CUDA backend not built (configure with -DHETLA_WITH_CUDA=ON): CUDA tests skipped"; }

#else  // HETLA_HAVE_CUDA

const std::vector<dev::DeviceInfo>& gpus() {
  static const std::vector<dev::DeviceInfo> found = dev::probe_cuda_devices();
  return found;
}

#define HETLA_REQUIRE_GPU() \
  if (gpus().empty()) GTEST_SKIP() << "no CUDA device: CUDA backend tests skipped"

// ------------------------------------------------------------ without a GPU

TEST(CudaBackend, NoDeviceIsAClearError) {
  if (!gpus().empty()) GTEST_SKIP() << gpus().size() << " CUDA device(s) present: the no-device path is not reachable";
  std::printf("[   INFO   ] no CUDA device: checking that the backend reports it cleanly\n");
  EXPECT_NE(dev::built_backends().find("cuda"), std::string::npos);
  for (const auto& d : dev::probe_devices()) EXPECT_NE(d.kind, "cuda") << "probe found " << d.name;

  expect_invalid_argument([] { dev::make_cuda_devices("0"); }, "cuda: no CUDA device found (cudaGetDeviceCount: ");
  expect_invalid_argument([] { dev::make_cuda_devices("all"); }, "cuda: no CUDA device found");
  expect_invalid_argument([] { dev::CudaDevice d(0); }, "cuda: no CUDA device found");

  init(Config{.devices = "cpu"});
  const int before = num_threads();
  for (const char* list : {"cuda", "cuda:0", "cuda:all", "cpu,cuda"}) {
    SCOPED_TRACE(list);
    expect_invalid_argument([&] { init(Config{.devices = list}); }, "no CUDA device");
  }
  // A rejected list leaves the current context in place, and it still works.
  EXPECT_EQ(num_threads(), before);
  std::vector<double> A = bench::random_hpd<double>(50, 50, 1), A0 = A;
  EXPECT_EQ(potrf<double>(Uplo::Lower, 50, A.data(), 50, Options{16}), 0);
  EXPECT_LT(bench::potrf_residual(Uplo::Lower, 50, A0.data(), 50, A.data(), 50), bench::kResidualThreshold);
  finalize();
}

TEST(CudaBackend, BadIndexSpelling) {
  // Checked before the device count, so these read the same with or without a GPU.
  for (const char* which : {"", "x", "-1", "1.5", "0x1", "99999999"}) {
    SCOPED_TRACE(which);
    expect_invalid_argument([&] { dev::make_cuda_devices(which); }, "is not an index (0, 1, ...) or 'all'");
  }
  expect_invalid_argument([] { dev::parse_devices("cuda:0:1"); }, "expected cuda[:index|all]");
  expect_invalid_argument([] { dev::CudaDevice d(0, dev::CudaConfig{.workers = 0}); }, "workers must be in");
}

// ------------------------------------------------------------ devices

TEST(CudaBackend, ProbeAndOpenEveryDevice) {
  HETLA_REQUIRE_GPU();
  const auto& found = gpus();
  for (std::size_t i = 0; i < found.size(); ++i) {
    std::printf("[   INFO   ] cuda:%d %s, %.1f GiB, %s\n", found[i].index, found[i].name.c_str(),
                static_cast<double>(found[i].memory) / (1 << 30), found[i].detail.c_str());
    EXPECT_EQ(found[i].kind, "cuda");
    EXPECT_EQ(found[i].index, static_cast<int>(i));
    EXPECT_FALSE(found[i].name.empty());
    EXPECT_GT(found[i].memory, 0u);
    EXPECT_NE(found[i].detail.find("compute capability"), std::string::npos);
  }
  auto all = dev::make_cuda_devices("all");
  ASSERT_EQ(all.size(), found.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    auto& d = *all[i];
    EXPECT_EQ(d.kind(), dev::Kind::Cuda);
    EXPECT_EQ(d.name(), "cuda" + std::to_string(i));
    EXPECT_EQ(d.num_workers(), 1);
    for (auto k : {dev::KernelId::Gemm, dev::KernelId::Herk, dev::KernelId::Trsm, dev::KernelId::Potrf})
      EXPECT_TRUE(d.has_kernel(k)) << dev::kernel_name(k);
    EXPECT_GE(d.nominal_speed(), 2.0);
    EXPECT_GT(d.bandwidth_hint(), 1e9);
    EXPECT_EQ(d.memory_capacity(), found[i].memory);
    EXPECT_EQ(d.memory_used(), 0u);
  }
  expect_invalid_argument([&] { dev::make_cuda_devices(std::to_string(found.size())); }, "does not exist");
}

/// A device buffer holding a rows x cols tile (ld = rows), filled from a host
/// tile with leading dimension host_ld.
struct DeviceTile {
  dev::Device& d;
  int64_t rows, cols;
  std::size_t elem;
  void* p = nullptr;
  DeviceTile(dev::Device& dv, int64_t r, int64_t c, std::size_t e) : d(dv), rows(r), cols(c), elem(e) {
    p = d.allocate(bytes());
    if (!p) throw std::runtime_error("test: device allocation failed");
  }
  ~DeviceTile() { d.deallocate(p, bytes()); }
  DeviceTile(const DeviceTile&) = delete;
  DeviceTile& operator=(const DeviceTile&) = delete;
  std::size_t bytes() const { return static_cast<std::size_t>(rows * cols) * elem; }
  template <typename T> T* ptr() const { return static_cast<T*>(p); }
  void in(const void* host, int64_t host_ld) { d.copy_in(p, host, host_ld, rows, cols, elem); }
  void out(void* host, int64_t host_ld) const { d.copy_out(host, host_ld, p, rows, cols, elem); }
};

template <typename T> double max_abs(const std::vector<T>& v) {
  double m = 0;
  for (const T& x : v) m = std::max(m, static_cast<double>(std::abs(x)));
  return m;
}

/// Uploads a host tile (padded, ld = rows + pad) and returns the device copy.
template <typename T>
std::unique_ptr<DeviceTile> upload(dev::Device& d, const std::vector<T>& host, int64_t rows, int64_t cols, int64_t ld) {
  auto t = std::make_unique<DeviceTile>(d, rows, cols, sizeof(T));
  t->in(host.data(), ld);
  return t;
}

/// Downloads into a copy of `before` (ld = rows + pad, padding poisoned) and
/// checks that the padding rows came back bitwise unchanged.
template <typename T>
std::vector<T> download(const DeviceTile& t, const std::vector<T>& before, int64_t ld) {
  std::vector<T> out = before;
  t.out(out.data(), ld);
  int64_t changed = 0;
  for (int64_t j = 0; j < t.cols; ++j)
    for (int64_t i = t.rows; i < ld; ++i)
      changed += std::memcmp(&out[i + j * ld], &before[i + j * ld], sizeof(T)) != 0;
  EXPECT_EQ(changed, 0) << "copy_out wrote into the padding rows of the host tile";
  return out;
}

/// Host tile rows x cols with ld = rows + 3, random entries, poisoned padding.
template <typename T> std::vector<T> host_tile(int64_t rows, int64_t cols, uint64_t seed, int64_t& ld) {
  ld = rows + 3;
  auto A = bench::random_matrix<T>(rows, cols, ld, seed);
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = rows; i < ld; ++i) A[i + j * ld] = test::poison<T>(i + j * ld);
  return A;
}

template <typename T> class CudaKernels : public testing::Test {
 protected:
  void SetUp() override {
    HETLA_REQUIRE_GPU();
    device_ = std::make_unique<dev::CudaDevice>(0);
  }
  void TearDown() override {
    if (device_) {
      EXPECT_EQ(device_->memory_used(), 0u) << "a test leaked device memory";
    }
  }
  dev::CudaDevice& d() { return *device_; }
  static double eps() { return bench::eps<T>(); }
  std::unique_ptr<dev::CudaDevice> device_;
};
TYPED_TEST_SUITE(CudaKernels, Precisions, PrecisionName);

constexpr Op kOps[] = {Op::NoTrans, Op::Trans, Op::ConjTrans};
const char* op_name(Op o) { return o == Op::NoTrans ? "N" : o == Op::Trans ? "T" : "C"; }

TYPED_TEST(CudaKernels, GemmMatchesHostBlas) {
  using T = TypeParam;
  const int64_t m = 37, n = 29, k = 23;
  const T alpha = T(1.5), beta = T(-0.75);
  for (Op ta : kOps)
    for (Op tb : kOps) {
      SCOPED_TRACE(testing::Message() << "gemm " << op_name(ta) << op_name(tb));
      const int64_t ar = ta == Op::NoTrans ? m : k, ac = ta == Op::NoTrans ? k : m;
      const int64_t br = tb == Op::NoTrans ? k : n, bc = tb == Op::NoTrans ? n : k;
      int64_t lda, ldb, ldc;
      auto A = host_tile<T>(ar, ac, 1, lda), B = host_tile<T>(br, bc, 2, ldb), C = host_tile<T>(m, n, 3, ldc);
      auto dA = upload(this->d(), A, ar, ac, lda), dB = upload(this->d(), B, br, bc, ldb), dC = upload(this->d(), C, m, n, ldc);
      this->d().template kernels<T>().gemm(ta, tb, m, n, k, alpha, dA->template ptr<T>(), ar, dB->template ptr<T>(), br,
                                           beta, dC->template ptr<T>(), m);
      auto got = download(*dC, C, ldc);
      auto ref = C;
      blas::gemm(ta, tb, m, n, k, alpha, A.data(), lda, B.data(), ldb, beta, ref.data(), ldc);
      // Entries of A, B, C are at most sqrt(2) in modulus: |C| <= 1.5 * 2k + 0.75 * 1.5.
      const double tol = 10.0 * k * this->eps() * (1.5 * 2 * k + 0.75 * 1.5);
      double err = 0;
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) err = std::max(err, static_cast<double>(std::abs(got[i + j * ldc] - ref[i + j * ldc])));
      EXPECT_LE(err, tol);
    }
}

TYPED_TEST(CudaKernels, HerkMatchesHostBlasAndKeepsTheOtherTriangle) {
  using T = TypeParam;
  using R = real_t<T>;
  const int64_t n = 33, k = 19;
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
    for (Op trans : kOps) {
      SCOPED_TRACE(testing::Message() << "herk " << test::uplo_name(uplo) << " " << op_name(trans));
      const int64_t ar = trans == Op::NoTrans ? n : k, ac = trans == Op::NoTrans ? k : n;
      int64_t lda, ldc;
      auto A = host_tile<T>(ar, ac, 4, lda), C = host_tile<T>(n, n, 5, ldc);
      for (int64_t i = 0; i < n; ++i) C[i + i * ldc] = T(std::real(C[i + i * ldc]));  // Hermitian diagonal
      auto dA = upload(this->d(), A, ar, ac, lda), dC = upload(this->d(), C, n, n, ldc);
      this->d().template kernels<T>().herk(uplo, trans, n, k, R(-1), dA->template ptr<T>(), ar, R(0.5),
                                           dC->template ptr<T>(), n);
      auto got = download(*dC, C, ldc);
      auto ref = C;
      blas::herk(uplo, trans, n, k, R(-1), A.data(), lda, R(0.5), ref.data(), ldc);
      const double tol = 20.0 * (k + 2) * this->eps() * (2.0 * k + 1);
      double err = 0;
      int64_t outside_changed = 0;
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) {
          if (test::in_triangle(uplo, i, j))
            err = std::max(err, static_cast<double>(std::abs(got[i + j * ldc] - ref[i + j * ldc])));
          else
            outside_changed += std::memcmp(&got[i + j * ldc], &C[i + j * ldc], sizeof(T)) != 0;
        }
      EXPECT_LE(err, tol);
      EXPECT_EQ(outside_changed, 0) << "herk wrote outside its triangle";
    }
}

TYPED_TEST(CudaKernels, TrsmMatchesHostBlas) {
  using T = TypeParam;
  const int64_t m = 31, n = 26;
  const T alpha = T(0.5);
  for (Side side : {Side::Left, Side::Right})
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
      for (Op op : kOps)
        for (Diag diag : {Diag::NonUnit, Diag::Unit}) {
          SCOPED_TRACE(testing::Message() << "trsm " << static_cast<char>(side) << static_cast<char>(uplo) << op_name(op)
                                          << static_cast<char>(diag));
          const int64_t na = side == Side::Left ? m : n;
          int64_t lda, ldb;
          auto A = host_tile<T>(na, na, 6, lda), B = host_tile<T>(m, n, 7, ldb);
          // Well conditioned: a dominant diagonal, and a unit-diagonal triangle
          // with small off-diagonal entries.
          for (int64_t j = 0; j < na; ++j)
            for (int64_t i = 0; i < na; ++i) {
              if (i == j) A[i + j * lda] += T(real_t<T>(na));
              else A[i + j * lda] *= real_t<T>(diag == Diag::Unit ? 0.5 / na : 1.0);
            }
          auto dA = upload(this->d(), A, na, na, lda), dB = upload(this->d(), B, m, n, ldb);
          this->d().template kernels<T>().trsm(side, uplo, op, diag, m, n, alpha, dA->template ptr<T>(), na,
                                               dB->template ptr<T>(), m);
          auto got = download(*dB, B, ldb);
          auto ref = B;
          blas::trsm(side, uplo, op, diag, m, n, alpha, A.data(), lda, ref.data(), ldb);
          double err = 0;
          std::vector<T> ref_tile;
          for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i) {
              err = std::max(err, static_cast<double>(std::abs(got[i + j * ldb] - ref[i + j * ldb])));
              ref_tile.push_back(ref[i + j * ldb]);
            }
          EXPECT_LE(err, 50.0 * na * this->eps() * std::max(1.0, max_abs(ref_tile)));
        }
}

TYPED_TEST(CudaKernels, PotrfFactorsAndReportsInfo) {
  using T = TypeParam;
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
    for (int64_t n : {1, 17, 64, 129}) {
      SCOPED_TRACE(testing::Message() << "potrf " << test::uplo_name(uplo) << " n=" << n);
      const int64_t ld = n + 2;
      auto A0 = test::hpd_input<T>(uplo, n, ld, 10 + n);  // poison outside the triangle
      auto dA = std::make_unique<DeviceTile>(this->d(), n, n, sizeof(T));
      dA->in(A0.data(), ld);
      EXPECT_EQ(this->d().template kernels<T>().potrf(uplo, n, dA->template ptr<T>(), n), 0);
      auto A = A0;
      dA->out(A.data(), ld);
      EXPECT_LT(bench::potrf_residual(uplo, n, A0.data(), ld, A.data(), ld), bench::kResidualThreshold);
      EXPECT_EQ(test::count_changed_outside(uplo, n, ld, A0.data(), A.data()), 0)
          << "potrf wrote outside its triangle";
    }
  // Not positive definite at the 7th leading minor: info = 7, as LAPACK.
  for (Uplo uplo : {Uplo::Lower, Uplo::Upper}) {
    const int64_t n = 20;
    auto A0 = bench::random_hpd<T>(n, n, 99);
    test::make_not_pd_at(uplo, n, n, A0, 7, true);
    DeviceTile dA(this->d(), n, n, sizeof(T));
    dA.in(A0.data(), n);
    EXPECT_EQ(this->d().template kernels<T>().potrf(uplo, n, dA.template ptr<T>(), n), test::lapack_info(uplo, n, n, A0));
  }
  EXPECT_EQ(this->d().template kernels<T>().potrf(Uplo::Lower, 0, static_cast<T*>(nullptr), 1), 0);
}

// ------------------------------------------------------------ copies and memory

TEST(CudaDevice, CopiesInChunksAndFromManyThreads) {
  HETLA_REQUIRE_GPU();
  dev::CudaDevice d(0);
  // 3001 x 1500 doubles with a padded host tile: several 16 MiB staging chunks.
  const int64_t rows = 3001, cols = 1500;
  for (int64_t ld : {rows, rows + 7}) {
    SCOPED_TRACE(testing::Message() << "ld=" << ld);
    auto src = bench::random_matrix<double>(rows, cols, ld, 42);
    DeviceTile t(d, rows, cols, sizeof(double));
    t.in(src.data(), ld);
    std::vector<double> back(src.size(), -7.0);
    t.out(back.data(), ld);
    int64_t bad = 0;
    for (int64_t j = 0; j < cols; ++j)
      for (int64_t i = 0; i < ld; ++i)
        bad += i < rows ? back[i + j * ld] != src[i + j * ld] : back[i + j * ld] != -7.0;
    EXPECT_EQ(bad, 0);
  }
  // One attached worker runs kernels while other threads copy in and out
  // (as host workers fetch Modified tiles): every round trip is exact.
  const int64_t nb = 256;
  std::vector<std::unique_ptr<DeviceTile>> tiles;
  std::vector<std::vector<double>> data;
  for (int i = 0; i < 6; ++i) {
    tiles.push_back(std::make_unique<DeviceTile>(d, nb, nb, sizeof(double)));
    data.push_back(bench::random_matrix<double>(nb, nb, nb, 100 + i));
  }
  std::atomic<int> failures{0};
  test::must_finish("concurrent copies", [&] {
    std::vector<std::thread> threads;
    threads.emplace_back([&] {  // the worker: C = A B repeatedly on tiles 0..2
      d.attach_worker(0);
      tiles[0]->in(data[0].data(), nb), tiles[1]->in(data[1].data(), nb);
      for (int r = 0; r < 20; ++r)
        d.kernels<double>().gemm(Op::NoTrans, Op::NoTrans, nb, nb, nb, 1.0, tiles[0]->ptr<double>(), nb,
                                 tiles[1]->ptr<double>(), nb, 0.0, tiles[2]->ptr<double>(), nb);
    });
    for (int i = 3; i < 6; ++i)
      threads.emplace_back([&, i] {
        std::vector<double> back(static_cast<std::size_t>(nb * nb));
        for (int r = 0; r < 20; ++r) {
          tiles[static_cast<std::size_t>(i)]->in(data[static_cast<std::size_t>(i)].data(), nb);
          tiles[static_cast<std::size_t>(i)]->out(back.data(), nb);
          if (back != data[static_cast<std::size_t>(i)]) ++failures;
        }
      });
    for (auto& th : threads) th.join();
  });
  EXPECT_EQ(failures.load(), 0);
  std::vector<double> C(static_cast<std::size_t>(nb * nb)), ref(C.size(), 0.0);
  tiles[2]->out(C.data(), nb);
  blas::gemm(Op::NoTrans, Op::NoTrans, nb, nb, nb, 1.0, data[0].data(), nb, data[1].data(), nb, 0.0, ref.data(), nb);
  double err = 0;
  for (std::size_t i = 0; i < C.size(); ++i) err = std::max(err, std::abs(C[i] - ref[i]));
  EXPECT_LE(err, 1e-10 * nb);
}

TEST(CudaDevice, AllocationCacheAndCapacityLimit) {
  HETLA_REQUIRE_GPU();
  constexpr std::size_t MiB = std::size_t(1) << 20;
  dev::CudaDevice d(0, dev::CudaConfig{.memory = 8 * MiB});
  EXPECT_EQ(d.memory_capacity(), 8 * MiB);
  std::vector<void*> blocks;
  while (void* p = d.allocate(MiB)) {
    blocks.push_back(p);
    ASSERT_LE(blocks.size(), 8u);
  }
  EXPECT_EQ(blocks.size(), 8u);
  EXPECT_EQ(d.memory_used(), 8 * MiB);
  // A freed block is cached and handed out again for the same size.
  void* last = blocks.back();
  blocks.pop_back();
  d.deallocate(last, MiB);
  EXPECT_EQ(d.memory_used(), 7 * MiB);
  EXPECT_EQ(d.memory_cached(), MiB);
  void* again = d.allocate(MiB);
  EXPECT_EQ(again, last);
  EXPECT_EQ(d.memory_cached(), 0u);
  blocks.push_back(again);
  for (void* p : blocks) d.deallocate(p, MiB);
  EXPECT_EQ(d.memory_used(), 0u);
  EXPECT_EQ(d.memory_cached(), 8 * MiB);
  // A new size needs room: cached blocks are released to stay within the limit.
  void* big = d.allocate(3 * MiB);
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(d.memory_used(), 3 * MiB);
  EXPECT_LE(d.memory_used() + d.memory_cached(), 8 * MiB);
  EXPECT_EQ(d.allocate(6 * MiB), nullptr);  // over the limit: the runtime would evict
  d.deallocate(big, 3 * MiB);
  d.release_cached();
  EXPECT_EQ(d.memory_cached(), 0u);

  // Without a limit, more than the GPU has fails softly (nullptr, error
  // cleared) and the device keeps working.
  dev::CudaDevice u(0);
  EXPECT_EQ(u.allocate(u.memory_capacity() * 2), nullptr);
  DeviceTile t(u, 64, 64, sizeof(double));
  auto src = bench::random_matrix<double>(64, 64, 64, 5);
  std::vector<double> back(src.size());
  t.in(src.data(), 64);
  t.out(back.data(), 64);
  EXPECT_EQ(back, src);
}

TEST(CudaRuntime, SmallCapacityForcesEvictionAndStaysCorrect) {
  HETLA_REQUIRE_GPU();
  // C = A B with 4 x 4 tiles of 64 x 64 doubles (48 tiles, 1.5 MiB) on a GPU
  // limited to 8 tiles: replicas must be evicted (dirty ones written back).
  const int64_t nt = 4, nb = 64, n = nt * nb;
  const std::size_t tile_bytes = static_cast<std::size_t>(nb * nb) * sizeof(double);
  auto gpu = std::make_shared<dev::CudaDevice>(0, dev::CudaConfig{.memory = 8 * tile_bytes});
  auto A = bench::random_matrix<double>(n, n, n, 1), B = bench::random_matrix<double>(n, n, n, 2);
  std::vector<double> C(static_cast<std::size_t>(n * n), 0.0);
  auto handles = [&](std::vector<double>& M) {
    auto h = std::make_unique<rt::Handle[]>(static_cast<std::size_t>(nt * nt));
    for (int64_t j = 0; j < nt; ++j)
      for (int64_t i = 0; i < nt; ++i)
        h[static_cast<std::size_t>(i + j * nt)].set_host(&M[static_cast<std::size_t>(i * nb + j * nb * n)], nb, nb, n,
                                                         sizeof(double));
    return h;
  };
  auto hA = handles(A), hB = handles(B), hC = handles(C);
  auto at = [&](std::unique_ptr<rt::Handle[]>& h, int64_t i, int64_t j) { return &h[static_cast<std::size_t>(i + j * nt)]; };
  test::must_finish("gemm tasks", [&] {
    rt::RuntimeConfig cfg;
    cfg.num_workers = 2;
    cfg.pin_threads = false;
    cfg.host_computes = false;  // every gemm runs on the GPU
    cfg.accelerators = {gpu};
    rt::Runtime runtime(cfg);
    for (int64_t k = 0; k < nt; ++k)
      for (int64_t j = 0; j < nt; ++j)
        for (int64_t i = 0; i < nt; ++i)
          runtime.insert(
              [=](rt::TaskContext& c) {
                c.kernels<double>().gemm(Op::NoTrans, Op::NoTrans, nb, nb, nb, 1.0, c.ptr<double>(0), c.ld(0),
                                         c.ptr<double>(1), c.ld(1), 1.0, c.ptr<double>(2), c.ld(2));
              },
              {rt::R(at(hA, i, k)), rt::R(at(hB, k, j)), rt::RW(at(hC, i, j))},
              rt::TaskOptions{0, "gemm", rt::kNoFlags, dev::KernelId::Gemm, 2.0 * nb * nb * nb});
    runtime.wait_all();
    auto st = runtime.stats();
    ASSERT_EQ(st.size(), 2u);
    EXPECT_EQ(st[1].tasks, static_cast<uint64_t>(nt * nt * nt));
    EXPECT_GT(st[1].evictions, 0u);
    std::printf("[   INFO   ] %llu evictions, %llu bytes in, %llu bytes out\n",
                static_cast<unsigned long long>(st[1].evictions), static_cast<unsigned long long>(st[1].bytes_in),
                static_cast<unsigned long long>(st[1].bytes_out));
  });
  EXPECT_EQ(gpu->memory_used(), 0u);
  EXPECT_LE(gpu->memory_cached(), 8 * tile_bytes);
  std::vector<double> ref(C.size(), 0.0);
  blas::gemm(Op::NoTrans, Op::NoTrans, n, n, n, 1.0, A.data(), n, B.data(), n, 0.0, ref.data(), n);
  double err = 0;
  for (std::size_t i = 0; i < C.size(); ++i) err = std::max(err, std::abs(C[i] - ref[i]));
  EXPECT_LE(err, 1e-12 * n * n);
}

TYPED_TEST(CudaKernels, LaswpMatchesTheHostOnTilesOfUnequalHeights) {
  using T = TypeParam;
  // A column of four tiles (7, 12, 3 and 9 rows), 11 columns wide; pairs in
  // order, rows repeating and swapping with themselves (LU's pivots).
  const int64_t cols = 11, mb[4] = {7, 12, 3, 9}, ntiles = 4, m = 31;
  std::vector<int64_t> rows;
  for (int64_t s = 0; s < 40; ++s) rows.insert(rows.end(), {s % m, (s * 17 + 5) % m});
  rows.insert(rows.end(), {4, 4, 30, 0});
  const auto npairs = static_cast<int64_t>(rows.size() / 2);
  std::vector<std::vector<T>> host(ntiles);
  std::vector<std::unique_ptr<DeviceTile>> dev_tiles;
  std::vector<T*> hp, dp;
  for (int64_t t = 0; t < ntiles; ++t) {
    host[t] = bench::random_matrix<T>(mb[t], cols, mb[t], 90 + static_cast<uint64_t>(t));
    dev_tiles.push_back(upload(this->d(), host[t], mb[t], cols, mb[t]));
    hp.push_back(host[t].data());
    dp.push_back(dev_tiles.back()->template ptr<T>());
  }
  this->d().template kernels<T>().laswp(cols, ntiles, dp.data(), mb, mb, npairs, rows.data());
  dev::HostKernelImpl::laswp<T>(cols, ntiles, hp.data(), mb, mb, npairs, rows.data());
  for (int64_t t = 0; t < ntiles; ++t) {
    std::vector<T> got(host[t].size());
    dev_tiles[t]->out(got.data(), mb[t]);
    EXPECT_EQ(std::memcmp(got.data(), host[t].data(), got.size() * sizeof(T)), 0) << "tile " << t;
  }
}

// ------------------------------------------------------------ end to end

template <typename T> class CudaCholesky : public testing::Test {
 protected:
  void TearDown() override { finalize(); }
};
TYPED_TEST_SUITE(CudaCholesky, Precisions, PrecisionName);

TYPED_TEST(CudaCholesky, PotrfOnGpuAndGpuPlusCpu) {
  HETLA_REQUIRE_GPU();
  using T = TypeParam;
  std::vector<std::string> lists = {"cuda", "cpu,cuda"};
  if (gpus().size() > 1) lists.insert(lists.end(), {"cuda:all", "cpu,cuda:all"});
  for (const auto& list : lists) {
    init(Config{.devices = list});
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
      for (int64_t n : {1, 200, 777}) {
        SCOPED_TRACE(testing::Message() << list << " " << test::uplo_name(uplo) << " n=" << n);
        const int64_t lda = n + 3, nb = 96;
        auto A0 = test::hpd_input<T>(uplo, n, lda, 500 + n);
        auto A = A0;
        int64_t info = -1;
        test::must_finish("potrf", [&] { info = potrf<T>(uplo, n, A.data(), lda, Options{nb}); });
        ASSERT_EQ(info, 0);
        EXPECT_LT(bench::potrf_residual(uplo, n, A0.data(), lda, A.data(), lda), bench::kResidualThreshold);
        EXPECT_EQ(test::count_changed_outside(uplo, n, lda, A0.data(), A.data()), 0);
      }
    // Not positive definite: the same info as LAPACK.
    const int64_t n = 300;
    auto A = bench::random_hpd<T>(n, n, 77);
    test::make_not_pd_at(Uplo::Lower, n, n, A, 150, true);
    const int64_t expected = test::lapack_info(Uplo::Lower, n, n, A);
    int64_t info = -1;
    test::must_finish("potrf", [&] { info = potrf<T>(Uplo::Lower, n, A.data(), n, Options{64}); });
    EXPECT_EQ(info, expected) << list;
  }
}

// LU with the trailing columns on the GPU: its interchanges run there too.
TYPED_TEST(CudaCholesky, LuOnGpuAndGpuPlusCpu) {
  HETLA_REQUIRE_GPU();
  using T = TypeParam;
  for (const char* list : {"cuda", "cpu,cuda"}) {
    init(Config{.devices = list});
    for (int64_t n : {1, 300, 777}) {
      SCOPED_TRACE(testing::Message() << list << " n=" << n);
      const int64_t lda = n + 2;
      const auto A0 = bench::random_matrix<T>(n, n, lda, 700 + static_cast<uint64_t>(n));
      auto A = A0;
      std::vector<int64_t> ipiv(static_cast<std::size_t>(n));
      int64_t info = -1;
      test::must_finish("getrf", [&] { info = getrf<T>(n, n, A.data(), lda, ipiv.data(), Options{96}); });
      ASSERT_EQ(info, 0);
      EXPECT_LT(bench::getrf_residual<T>(n, n, A0.data(), lda, A.data(), lda, ipiv.data()), bench::kResidualThreshold);
    }
  }
}

// A CUDA failure is a dev::DeviceError (the runtime drops the GPU and
// recovers the call, docs/reliability.md); fail=... injects one at the K-th
// kernel / copy / allocation, as on the emulated device.
TEST(CudaRecovery, InjectedFaultsAreDeviceErrorsAndRecovered) {
  HETLA_REQUIRE_GPU();
  {
    auto set = dev::parse_devices("cuda:0:fail=alloc@1");
    ASSERT_EQ(set.accelerators.size(), 1u);
    dev::Device& gpu = *set.accelerators[0];
    try {
      gpu.allocate(1024);
      ADD_FAILURE() << "fail=alloc@1: the first allocation must throw";
    } catch (const dev::DeviceError& e) {
      EXPECT_EQ(e.device(), &gpu);
      EXPECT_NE(std::string(e.what()).find("allocation 1 failed (injected fault)"), std::string::npos) << e.what();
    }
  }
  for (bool lu : {false, true}) {
    SCOPED_TRACE(lu ? "getrf" : "potrf");
    // Static 1-D cyclic: the GPU owns every other tile column, so it runs a second kernel.
    Config cfg;
    cfg.devices = "cpu,cuda:0:fail=kernel@2";
    cfg.schedule = Schedule::Static;
    init(cfg);
    Options o;
    o.nb = 64;
    o.distribution = Distribution::OneD;
    const int64_t n = 256;
    const auto A0 = lu ? bench::random_matrix<double>(n, n, n, 2) : bench::random_hpd<double>(n, n, 1);
    auto A = A0;
    std::vector<int64_t> ipiv(static_cast<std::size_t>(n));
    test::must_finish("factor", [&] {
      EXPECT_EQ(lu ? getrf<double>(n, n, A.data(), n, ipiv.data(), o) : potrf<double>(Uplo::Lower, n, A.data(), n, o), 0);
    });
    if (lu) {
      EXPECT_LT(bench::getrf_residual<double>(n, n, A0.data(), n, A.data(), n, ipiv.data()), bench::kResidualThreshold);
    } else {
      EXPECT_LT(bench::potrf_residual(Uplo::Lower, n, A0.data(), n, A.data(), n), bench::kResidualThreshold);
    }
    const auto rec = last_recoveries();
    ASSERT_EQ(rec.size(), 1u);
    EXPECT_EQ(rec[0].device, "cuda0");
    EXPECT_NE(rec[0].error.find("kernel 2 failed (injected fault)"), std::string::npos) << rec[0].error;
  }
  init();
}

#endif  // HETLA_HAVE_CUDA

}  // namespace
}  // namespace hetla
