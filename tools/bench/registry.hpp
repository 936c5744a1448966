// Routines that `hetla bench` can measure, and the one way to register them.
//
// Benchmarks are grouped by family, one file each (the CMake glob
// tools/bench/bench_*.cc picks them up): bench_cholesky.cc (potrf, potrs,
// posv), bench_lu.cc (getrf, gesv), bench_qr.cc (geqrf, gels, orgqr),
// bench_blas3.cc (gemm, syrk, trsm), bench_matfun.cc (matpoly, expm, cosm,
// sinm), bench_runtime.cc (runtime), bench_soak.cc (soak: random runs of the
// others, with injected device faults). Vendor (OpenBLAS/LAPACKE) routines, the
// --baseline, come only through bench/vendor.hpp.
//
// How to add a routine (e.g. getrf, in its family's file):
//
//   #include "bench/common.hpp"
//   namespace hetla::cli {
//   namespace {
//   template <typename T> Record run_getrf(const BenchConfig& c) {
//     const int64_t m = c.m < 0 ? c.n : c.m, n = c.n;
//     LinalgResult r = start_result<T>(c, m, n, 0);      // sizes and tile size
//     r.flops = ...;                                     // LAWN 41 count (add it to flops.hpp)
//     const auto A0 = bench::random_matrix<T>(m, n, m, seed);   // checks/matgen.hpp
//     std::vector<T> A;
//     auto reset = [&] { A = A0; };                      // fresh input, not timed
//     time_against_vendor(c, r, reset, [&] { r.info = hetla::getrf(...); },   // hetla and, with
//                         [&] { r.baseline_info = vendor::getrf(...); });     // --baseline, the vendor
//     if (c.check) r.residual = ...;                     // a checks/checks*.hpp residual on A
//     return make_record(c, r);                          // the standard JSON/table fields
//   }
//   const Registrar reg_getrf({.name = "getrf", .summary = "LU factorization with partial pivoting",
//                              .options = kOptM | kOptNb | kOptPrecision | kOptCheck | kOptBaseline | kOptRepeat |
//                                         kOptThreads},
//                             []<typename T>(const BenchConfig& c) { return run_getrf<T>(c); },
//                             [](const BenchConfig& c) { return ...bytes for inputs, copies and checks...; });
//   }  // namespace
//   }  // namespace hetla::cli
//
// `options` lists the bench options the routine accepts; any other one given
// on the command line is rejected with exit code 2. The run measures one
// configuration (one size, one precision) and returns its record.
#pragma once
#include <complex>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "hetla/types.hpp"

namespace hetla::cli {

/// Options of `hetla bench` beyond -n, --json and --help (always accepted).
enum BenchOption : unsigned {
  kOptM = 1u << 0,          // -m M (rows; default n)
  kOptNrhs = 1u << 1,       // --nrhs K
  kOptNb = 1u << 2,         // --nb NB
  kOptPrecision = 1u << 3,  // --precision s,d,c,z
  kOptUplo = 1u << 4,       // --uplo L|U
  kOptCheck = 1u << 5,      // --check
  kOptBaseline = 1u << 6,   // --baseline
  kOptRepeat = 1u << 7,     // --repeat R
  kOptThreads = 1u << 8,    // --threads T
  kOptK = 1u << 9,          // -k K (inner dimension of a product; default n)
  kOptTrans = 1u << 10,     // --transa / --transb N|T|C
  kOptDegree = 1u << 11,    // --degree D (matrix polynomials)
  kOptMethod = 1u << 12,    // --method horner|ps
  kOptWeights = 1u << 13,   // --weights dev=w,... (forced work split)
  kOptSoak = 1u << 14,      // --minutes M, --seconds S, --seed S (bench soak)
  kOptVariableTiles = 1u << 15,  // --variable-tiles on|off (potrf, getrf, geqrf)
};

struct Routine;

/// One configuration to measure (the command line, with lists expanded).
struct BenchConfig {
  std::string routine;
  const Routine* spec = nullptr;  // the registered routine
  char precision = 'd';   // s, d, c, z
  int64_t m = -1;         // -1: same as n
  int64_t n = 0;
  int64_t nrhs = 1;
  int64_t nb = 0;         // 0: hetla::default_tile_size<T>(n)
  int variable_tiles = -1;  // Options::variable_tiles: 1 on, 0 off, -1 the library's default
  Uplo uplo = Uplo::Lower;
  bool check = false;
  bool baseline = false;
  int repeat = 1;
  int threads = 0;        // resolved before run(): hetla workers (library routines) or 0 = default
  int64_t k = -1;         // -1: same as n
  Op transa = Op::NoTrans, transb = Op::NoTrans;
  int degree = 10;
  std::string method = "ps";  // horner or ps
  std::string weights;        // as given to --weights; empty: learned / measured weights
  bool energy = false;
  double minutes = -1;        // bench soak: how long (--seconds wins; neither: 1 minute)
  double seconds = -1;
  uint64_t seed = 1;          // bench soak: the random cases' generator
};

struct Routine {
  std::string name;
  std::string summary;
  unsigned options = 0;       // BenchOption bits
  int64_t default_n = 2000;   // -n when not given
  bool library = true;        // runs through the hetla library context (hetla::init)
  std::function<Record(const BenchConfig&)> run;
  /// Bytes one configuration needs (inputs, copies, checks); larger than the
  /// available memory -> the configuration is refused. Empty: not checked.
  std::function<double(const BenchConfig&)> memory_bytes = {};
};

/// All registered routines, sorted by name.
std::vector<const Routine*> routines();
const Routine* find_routine(std::string_view name);

/// Calls f.template operator()<T>() with T the scalar type of precision p.
template <typename F> decltype(auto) with_precision(char p, F&& f) {
  switch (p) {
    case 's': return f.template operator()<float>();
    case 'd': return f.template operator()<double>();
    case 'c': return f.template operator()<std::complex<float>>();
    case 'z': return f.template operator()<std::complex<double>>();
  }
  throw UsageError(std::string("unknown precision '") + p + "'");
}

/// What `hetla bench --help` and the option parser know of a routine.
struct RoutineInfo {
  std::string name;
  std::string summary;
  unsigned options = 0;      // BenchOption bits
  int64_t default_n = 2000;  // -n when not given
  bool library = true;       // runs through the hetla library context (hetla::init)
};

/// Adds a routine to the table (Registrar does this).
void register_routine(Routine r);

/// Registers a routine at static-initialisation time: the one registration
/// helper every tools/bench/bench_*.cc uses, one namespace-scope constant per
/// routine. `run` measures one configuration, either
///   - a generic lambda []<typename T>(const BenchConfig&) -> Record, called
///     with T the scalar type of --precision (s, d, c, z), or
///   - a callable Record(const BenchConfig&), for routines without precision.
/// `memory_bytes` (optional) estimates the bytes one configuration needs.
struct Registrar {
  template <typename Run>
  Registrar(RoutineInfo info, Run run, std::function<double(const BenchConfig&)> memory_bytes = {}) {
    Routine r{std::move(info.name), std::move(info.summary), info.options, info.default_n, info.library, {},
              std::move(memory_bytes)};
    if constexpr (std::is_invocable_r_v<Record, const Run&, const BenchConfig&>) {
      r.run = std::move(run);
    } else {
      r.run = [run = std::move(run)](const BenchConfig& c) {
        return with_precision(c.precision, [&]<typename T>() { return run.template operator()<T>(c); });
      };
    }
    register_routine(std::move(r));
  }
};

}  // namespace hetla::cli
