// hetla bench gemm | syrk | trsm: the level-3 BLAS family, across the
// context's devices.
//
// --check uses a random-vector test instead of a second full product (which
// would double the run time at n = 8000 and needs another n^2 array):
// with x random, r = C x - (alpha op(A) (op(B) x) + beta C0 x) and
//   residual = ||r||_2 / ((|alpha| ||A||_F ||B||_F + |beta| ||C0||_F) ||x||_2 max(1, k) eps),
// which is O(1) for a correct product (||E||_F <= k eps |alpha| ||A||_F ||B||_F)
// and O(1 / (k eps)) as soon as one tile is wrong or missing. syrk uses the
// Hermitian matrix rebuilt from the computed triangle; trsm the backward error
// ||op(A) (X x) - alpha B x|| / ((||A||_F ||X||_F + |alpha| ||B||_F) ||x|| m eps).
// gemm adds "split" (the share of C's columns each device computed in the last
// timed run: learned from the earlier runs' device finish times unless
// --weights forces it) next to the per-device busy times.
#include "bench/common.hpp"
#include "hetla/blas3.hpp"

namespace hetla::cli {
namespace {

template <typename T> double fro(int64_t m, int64_t n, const T* A, int64_t lda) {
  return m == 0 || n == 0 ? 0.0 : static_cast<double>(vendor::lange('F', m, n, A, lda));
}
/// y = alpha op(A) x + beta y (A rows x cols as stored).
template <typename T>
void gemv(Op op, int64_t rows, int64_t cols, T alpha, const T* A, int64_t lda, const T* x, T beta, T* y) {
  const int64_t m = op == Op::NoTrans ? rows : cols, k = op == Op::NoTrans ? cols : rows;
  if (m == 0) return;
  vendor::gemm(op, Op::NoTrans, m, 1, k, alpha, A, lda, x, std::max<int64_t>(1, k), beta, y, m);
}
template <typename T> double norm2(const std::vector<T>& v) {
  return fro<T>(static_cast<int64_t>(v.size()), 1, v.data(), std::max<std::size_t>(1, v.size()));
}

Json split_json(const std::vector<DeviceShare>& split) {
  Json s = Json::array();
  for (const auto& d : split) s.push_back({{"device", d.device}, {"share", json_number(d.share)}});
  return s;
}

Record with_extras(const BenchConfig& c, const LinalgResult& r, int64_t k, const Json& split) {
  Record rec = make_record(c, r);
  rec.add("k", k, "", 6)
      .add("transa", std::string(1, static_cast<char>(c.transa)), "ta")
      .add("transb", std::string(1, static_cast<char>(c.transb)), "tb");
  if (!split.empty()) rec.add("split", RawJson{split}, "-");
  return rec;
}

Options options_of(const BenchConfig& c, int64_t nb) {
  Options o;
  o.nb = nb;
  o.weights = c.weights;
  return o;
}

// ---- gemm

template <typename T> Record run_gemm(const BenchConfig& c) {
  const int64_t m = c.m < 0 ? c.n : c.m, n = c.n, k = c.k < 0 ? c.n : c.k;
  const Op ta = c.transa, tb = c.transb;
  const int64_t ar = ta == Op::NoTrans ? m : k, ac = ta == Op::NoTrans ? k : m;
  const int64_t br = tb == Op::NoTrans ? k : n, bc = tb == Op::NoTrans ? n : k;
  const int64_t lda = std::max<int64_t>(1, ar), ldb = std::max<int64_t>(1, br), ldc = std::max<int64_t>(1, m);
  LinalgResult r = start_result<T>(c, m, n, 0);
  r.flops = flops::gemm<T>(static_cast<double>(m), static_cast<double>(n), static_cast<double>(k));
  const Options opts = options_of(c, r.nb);
  const double size = std::cbrt(static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k));
  // The split of the last timed run (learned from the earlier ones unless
  // --weights forces it); computed here first so bad --weights fail before the work.
  Json split = split_json(gemm_split(opts, size, std::is_same_v<real_t<T>, double>));
  const auto A = bench::random_matrix<T>(ar, ac, lda, 8100 + static_cast<uint64_t>(m));
  const auto B = bench::random_matrix<T>(br, bc, ldb, 8200 + static_cast<uint64_t>(n));
  const auto C0 = bench::random_matrix<T>(m, n, ldc, 8300 + static_cast<uint64_t>(k));
  const T alpha = T(1.25), beta = T(-0.5);
  std::vector<T> C;
  auto reset = [&] { C = C0; };
  auto reset_and_split = [&] {
    reset();
    split = split_json(gemm_split(opts, size, std::is_same_v<real_t<T>, double>));
  };
  time_against_vendor(
      c, r, reset_and_split,
      [&] { hetla::gemm(ta, tb, m, n, k, alpha, A.data(), lda, B.data(), ldb, beta, C.data(), ldc, opts); },
      [&] { vendor::gemm(ta, tb, m, n, k, alpha, A.data(), lda, B.data(), ldb, beta, C.data(), ldc); });
  if (c.check) {
    const auto x = bench::random_matrix<T>(n, 1, std::max<int64_t>(1, n), 8400);
    std::vector<T> y(static_cast<std::size_t>(k)), z(static_cast<std::size_t>(m));
    gemv(tb, br, bc, T(1), B.data(), ldb, x.data(), T(0), y.data());          // y = op(B) x
    gemv(ta, ar, ac, alpha, A.data(), lda, y.data(), T(0), z.data());         // z = alpha op(A) y
    gemv(Op::NoTrans, m, n, beta, C0.data(), ldc, x.data(), T(1), z.data());  // + beta C0 x
    gemv(Op::NoTrans, m, n, T(1), C.data(), ldc, x.data(), T(-1), z.data());  // C x - z
    const double scale = (std::abs(alpha) * fro(ar, ac, A.data(), lda) * fro(br, bc, B.data(), ldb) +
                          std::abs(beta) * fro(m, n, C0.data(), ldc)) *
                         norm2(x) * static_cast<double>(std::max<int64_t>(1, k)) * bench::eps<T>();
    r.residual = scale > 0 ? norm2(z) / scale : norm2(z);
  }
  return with_extras(c, r, k, split);
}

// ---- syrk / herk: C = alpha op(A) op(A)^H + beta C on the --uplo triangle, op = --transa

template <typename T> Record run_syrk(const BenchConfig& c) {
  const int64_t n = c.n, k = c.k < 0 ? c.n : c.k;
  const Op op = c.transa == Op::NoTrans ? Op::NoTrans : Op::ConjTrans;
  const int64_t ar = op == Op::NoTrans ? n : k, ac = op == Op::NoTrans ? k : n;
  const int64_t lda = std::max<int64_t>(1, ar), ldc = std::max<int64_t>(1, n);
  LinalgResult r = start_result<T>(c, n, n, 0);
  r.flops = flops::syrk<T>(static_cast<double>(n), static_cast<double>(k));
  const Options opts = options_of(c, r.nb);
  const auto A = bench::random_matrix<T>(ar, ac, lda, 8500 + static_cast<uint64_t>(n));
  auto C0 = bench::random_matrix<T>(n, n, ldc, 8600 + static_cast<uint64_t>(k));
  for (int64_t i = 0; i < n; ++i)
    C0[static_cast<std::size_t>(i + i * ldc)] = T(std::real(C0[static_cast<std::size_t>(i + i * ldc)]));
  const real_t<T> alpha = 1.25, beta = -0.5;
  std::vector<T> C;
  auto reset = [&] { C = C0; };
  time_against_vendor(
      c, r, reset, [&] { hetla::herk<T>(c.uplo, op, n, k, alpha, A.data(), lda, beta, C.data(), ldc, opts); },
      [&] { vendor::herk(c.uplo, op, n, k, alpha, A.data(), lda, beta, C.data(), ldc); });
  if (c.check) {
    const auto Cf = bench::full_hermitian(c.uplo, n, C.data(), ldc);
    const auto C0f = bench::full_hermitian(c.uplo, n, C0.data(), ldc);
    const auto x = bench::random_matrix<T>(n, 1, std::max<int64_t>(1, n), 8700);
    const Op oph = op == Op::NoTrans ? Op::ConjTrans : Op::NoTrans;
    std::vector<T> y(static_cast<std::size_t>(k)), z(static_cast<std::size_t>(n));
    gemv(oph, ar, ac, T(1), A.data(), lda, x.data(), T(0), y.data());     // op(A)^H x
    gemv(op, ar, ac, T(alpha), A.data(), lda, y.data(), T(0), z.data());  // alpha op(A) y
    gemv(Op::NoTrans, n, n, T(beta), C0f.data(), n, x.data(), T(1), z.data());
    gemv(Op::NoTrans, n, n, T(1), Cf.data(), n, x.data(), T(-1), z.data());
    const double an = fro(ar, ac, A.data(), lda);
    const double scale = (std::abs(alpha) * an * an + std::abs(beta) * fro(n, n, C0f.data(), n)) * norm2(x) *
                         static_cast<double>(std::max<int64_t>(1, k)) * bench::eps<T>();
    r.residual = scale > 0 ? norm2(z) / scale : norm2(z);
  }
  return with_extras(c, r, k, Json());
}

// ---- trsm: B = alpha op(A)^-1 B from the left, A (m x m) --uplo triangular, op = --transa

template <typename T> Record run_trsm(const BenchConfig& c) {
  const int64_t m = c.m < 0 ? c.n : c.m, n = c.n, lda = std::max<int64_t>(1, m), ldb = lda;
  const Op op = c.transa;
  LinalgResult r = start_result<T>(c, m, n, 0);
  r.flops = flops::trsm_left<T>(static_cast<double>(m), static_cast<double>(n));
  const Options opts = options_of(c, r.nb);
  auto A = bench::random_matrix<T>(m, m, lda, 8800 + static_cast<uint64_t>(m));
  for (int64_t i = 0; i < m; ++i)
    A[static_cast<std::size_t>(i + i * lda)] += T(static_cast<real_t<T>>(m));  // well conditioned
  const auto B0 = bench::random_matrix<T>(m, n, ldb, 8900 + static_cast<uint64_t>(n));
  const T alpha = T(1.5);
  std::vector<T> B;
  auto reset = [&] { B = B0; };
  time_against_vendor(
      c, r, reset,
      [&] { hetla::trsm<T>(Side::Left, c.uplo, op, Diag::NonUnit, m, n, alpha, A.data(), lda, B.data(), ldb, opts); },
      [&] { vendor::trsm(Side::Left, c.uplo, op, Diag::NonUnit, m, n, alpha, A.data(), lda, B.data(), ldb); });
  if (c.check) {
    std::vector<T> At(static_cast<std::size_t>(m) * m, T(0));  // the referenced triangle only
    for (int64_t j = 0; j < m; ++j)
      for (int64_t i = 0; i < m; ++i)
        if (c.uplo == Uplo::Lower ? i >= j : i <= j) At[i + j * m] = A[i + j * lda];
    const auto x = bench::random_matrix<T>(n, 1, std::max<int64_t>(1, n), 9000);
    std::vector<T> y(static_cast<std::size_t>(m)), z(static_cast<std::size_t>(m));
    gemv(Op::NoTrans, m, n, T(1), B.data(), ldb, x.data(), T(0), y.data());     // X x
    gemv(op, m, m, T(1), At.data(), m, y.data(), T(0), z.data());               // op(A) X x
    gemv(Op::NoTrans, m, n, -alpha, B0.data(), ldb, x.data(), T(1), z.data());  // - alpha B x
    const double scale =
        (fro(m, m, At.data(), m) * fro(m, n, B.data(), ldb) + std::abs(alpha) * fro(m, n, B0.data(), ldb)) * norm2(x) *
        static_cast<double>(std::max<int64_t>(1, m)) * bench::eps<T>();
    r.residual = scale > 0 ? norm2(z) / scale : norm2(z);
  }
  return with_extras(c, r, m, Json());
}

constexpr unsigned kCommon = kOptPrecision | kOptCheck | kOptBaseline | kOptRepeat | kOptThreads | kOptNb;

const Registrar reg_gemm({.name = "gemm",
                          .summary = "C = alpha op(A) op(B) + beta C (m x n, inner k) split across devices",
                          .options = kCommon | kOptM | kOptK | kOptTrans | kOptWeights,
                          .default_n = 4000},
                         []<typename T>(const BenchConfig& c) { return run_gemm<T>(c); },
                         [](const BenchConfig& c) {  // A, B, C0, C
                           const double n = static_cast<double>(c.n), m = c.m < 0 ? n : static_cast<double>(c.m),
                                        k = c.k < 0 ? n : static_cast<double>(c.k);
                           return scalar_bytes(c.precision, m * k + k * n + 2 * m * n);
                         });

const Registrar reg_syrk({.name = "syrk",
                          .summary = "C = alpha op(A) op(A)^H + beta C on the --uplo triangle (herk for complex; "
                                     "op = --transa, A n x k)",
                          .options = kCommon | kOptK | kOptTrans | kOptUplo,
                          .default_n = 4000},
                         []<typename T>(const BenchConfig& c) { return run_syrk<T>(c); },
                         [](const BenchConfig& c) {  // A, C0, C; the check adds two full n x n copies
                           const double n = static_cast<double>(c.n), k = c.k < 0 ? n : static_cast<double>(c.k);
                           return scalar_bytes(c.precision, n * k + (c.check ? 4 : 2) * n * n);
                         });

const Registrar reg_trsm({.name = "trsm",
                          .summary = "B = alpha op(A)^-1 B, A m x m triangular (--uplo, op = --transa), B m x n",
                          .options = kCommon | kOptM | kOptTrans | kOptUplo,
                          .default_n = 4000},
                         []<typename T>(const BenchConfig& c) { return run_trsm<T>(c); },
                         [](const BenchConfig& c) {  // A, B0, B; the check adds the triangle of A
                           const double n = static_cast<double>(c.n), m = c.m < 0 ? n : static_cast<double>(c.m);
                           return scalar_bytes(c.precision, (c.check ? 2 : 1) * m * m + 2 * m * n);
                         });

}  // namespace
}  // namespace hetla::cli
