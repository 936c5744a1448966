#include "tune/crossover.hpp"

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "tune/crossover_table.hpp"
#include "util/blas_threads.hpp"

namespace hetla::tune {
namespace {

struct Entry {
  Routine routine;
  const char* name;   // LAPACK's name for real types
  const char* cname;  // and for complex ones (ormqr/unmqr, orgqr/ungqr)
  int defaults[4];    // s, d, c, z
};

// Defaults: the n from which hetla beat the vendor, per call through our
// exported names, vendor path vs hetla path alternately in one process (best
// of 7 runs of 1e7/n^3 calls, square matrices, the input copied back before
// each call; 2 cores, OpenBLAS 0.3.21 with its default threads, a loaded
// machine: single ratios are noisy, the trend is not). vendor/hetla time:
//   dpotrf  n=96 1.29  128 0.95  160 1.10  192 1.18  256 1.25  512 2.16
//   zpotrf  n=48 0.15   64 1.46   96 1.78  128 1.35  192 1.67
//   dgetrf  n=96 0.81  128 1.05  160 12.7 (OpenBLAS threads contend)  512 1.49
//   zgetrf  n=96 0.83  128 17.8  192 20.9  512 1.54
//   dgeqrf  n=96 0.91  128 1.94  192 1.50  256 1.51  512 1.49
//   zgeqrf  n=96 1.00  128 1.47  160 1.44  256 1.23
//   dsyrk   n=192 0.33  256 1.07  320 1.18  512 1.46
//   dgemm   n=160-256 0.96-0.98, 320-384 0.70, 512 0.98: no win on host
//           cores alone (hetla's gemm is one BLAS call per worker there);
//   dtrsm   n=128 0.94, 256 0.61, 512 0.98: likewise.
// dpotrf moved from 128 to 160: at n = 128 the tile path measured 0.95 above
// and 0.56 in `hetla bench potrf --calls` (heavily loaded machine), and the
// C++/C API must not be slower than the vendor up to n = 128 (issue 17:
// vendor x 1.05 + 1 us). The others followed for the same reason: in
// `hetla bench --calls` (README) the tile path lost at n = 128 for zpotrf
// (1.3x slower) and dgetrf (1.7x), so every default is 160: up to n = 128 a
// call is the vendor's own, and `hetla tune --crossover` lowers a crossover
// where this machine's tile path wins.
// Below n = 48 every routine took 20-60 us on the hetla path against
// 0.2-45 us for the vendor. s and c take d's and z's values; posv/gesv/gels
// follow their factorization; potrs/getrs (two triangular solves) follow
// trsm; ormqr/orgqr (blocked reflector updates, gemm-like) were not measured
// and sit between (256).
constexpr Entry kEntries[kRoutines] = {
    {Routine::Potrf, "potrf", "potrf", {160, 160, 160, 160}},   {Routine::Potrs, "potrs", "potrs", {512, 512, 512, 512}},
    {Routine::Posv, "posv", "posv", {160, 160, 160, 160}},      {Routine::Getrf, "getrf", "getrf", {160, 160, 160, 160}},
    {Routine::Getrs, "getrs", "getrs", {512, 512, 512, 512}}, {Routine::Gesv, "gesv", "gesv", {160, 160, 160, 160}},
    {Routine::Geqrf, "geqrf", "geqrf", {160, 160, 160, 160}}, {Routine::Unmqr, "ormqr", "unmqr", {256, 256, 256, 256}},
    {Routine::Ungqr, "orgqr", "ungqr", {256, 256, 256, 256}}, {Routine::Gels, "gels", "gels", {160, 160, 160, 160}},
    {Routine::Gemm, "gemm", "gemm", {512, 512, 512, 512}},    {Routine::Trsm, "trsm", "trsm", {512, 512, 512, 512}},
    {Routine::Syrk, "syrk", "syrk", {256, 256, 256, 256}},    {Routine::Herk, "herk", "herk", {256, 256, 256, 256}},
};
constexpr char kLetters[] = "sdcz";

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}
/// The routine named `base` (either of its names), or -1.
int find(std::string_view base) {
  for (int r = 0; r < kRoutines; ++r)
    if (base == kEntries[r].name || base == kEntries[r].cname) return r;
  return -1;
}
int parse_env(const char* var) {
  const char* v = std::getenv(var);
  if (!v) return -1;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (end == v || *end != '\0' || n < 0 || n > 1000000000L) {
    std::fprintf(stderr, "hetla_lapack: ignoring %s='%s': expected a non-negative integer\n", var, v);
    return -1;
  }
  return static_cast<int>(n);
}

/// The routines whose crossover a tuned entry sets: the factorization and
/// the solver that is mostly that factorization.
void tuned_routines(const std::string& routine, Routine out[2]) {
  if (routine == "potrf") out[0] = Routine::Potrf, out[1] = Routine::Posv;
  else if (routine == "getrf") out[0] = Routine::Getrf, out[1] = Routine::Gesv;
  else out[0] = Routine::Geqrf, out[1] = Routine::Gels;
}

struct Table {
  std::atomic<int> n[kRoutines][4];
  std::atomic<int> source[kRoutines][4];
  std::mutex m;  // guards path and state
  std::string path, state;
  Table() { load(); }
  void set(int r, int p, int v, CrossoverSource s) {
    n[r][p].store(v, std::memory_order_relaxed);
    source[r][p].store(static_cast<int>(s), std::memory_order_relaxed);
  }
  void load() {
    for (int r = 0; r < kRoutines; ++r)
      for (int p = 0; p < 4; ++p) set(r, p, kEntries[r].defaults[p], CrossoverSource::BuiltIn);
    load_tuned();
    const int all = parse_env("HETLA_LAPACK_CROSSOVER");
    for (int r = 0; r < kRoutines; ++r) {
      const int routine = parse_env(("HETLA_LAPACK_CROSSOVER_" + upper(kEntries[r].name)).c_str());
      const int croutine = kEntries[r].cname == std::string(kEntries[r].name)
                               ? routine
                               : parse_env(("HETLA_LAPACK_CROSSOVER_" + upper(kEntries[r].cname)).c_str());
      for (int p = 0; p < 4; ++p) {
        const std::string name = std::string(1, kLetters[p]) + (p < 2 ? kEntries[r].name : kEntries[r].cname);
        int v = -1;
        if (all >= 0) v = all;
        if (const int g = p < 2 ? routine : croutine; g >= 0) v = g;
        if (const int one = parse_env(("HETLA_LAPACK_CROSSOVER_" + upper(name)).c_str()); one >= 0) v = one;
        if (v >= 0) set(r, p, v, CrossoverSource::Environment);
      }
    }
  }
  // The tuned file, if measured with this BLAS; one warning when it cannot be used.
  void load_tuned() {
    std::lock_guard<std::mutex> lk(m);
    path = crossover_path();
    try {
      const CrossoverTable t = load_crossovers(path);
      if (t.blas.empty() && t.entries.empty()) {
        state = "absent";
        return;
      }
      const std::string blas = util::blas_vendor();
      if (t.blas != blas) {
        state =
            "ignored: measured with " + t.blas + ", this process runs " + blas + " (run hetla tune --crossover again)";
      } else {
        for (const CrossoverEntry& e : t.entries) {
          Routine rs[2];
          tuned_routines(e.routine, rs);
          const int p = static_cast<int>(std::string_view(kLetters).find(e.precision));
          for (Routine r : rs) set(static_cast<int>(r), p, static_cast<int>(e.n), CrossoverSource::Tuned);
        }
        state = "in use";
      }
    } catch (const std::exception& e) {
      state = std::string("ignored: ") + e.what();
    }
    if (state != "in use") std::fprintf(stderr, "hetla: tuned crossovers %s\n", state.c_str());
  }
};
Table& table() {
  static Table t;
  return t;
}

}  // namespace

int crossover(Routine r, int p) noexcept { return table().n[static_cast<int>(r)][p].load(std::memory_order_relaxed); }

void set_crossover(Routine r, int p, int n) noexcept {
  for (int q = 0; q < 4; ++q)
    if (p < 0 || p == q) table().set(static_cast<int>(r), q, n, CrossoverSource::Set);
}

const char* source_name(CrossoverSource s) noexcept {
  switch (s) {
    case CrossoverSource::BuiltIn: return "built-in";
    case CrossoverSource::Tuned: return "tuned";
    case CrossoverSource::Environment: return "environment";
    case CrossoverSource::Set: return "set";
  }
  return "?";
}

CrossoverStatus crossover_status() {
  Table& t = table();
  CrossoverStatus st;
  {
    std::lock_guard<std::mutex> lk(t.m);
    st.path = t.path;
    st.state = t.state;
  }
  for (int r = 0; r < kRoutines; ++r)
    for (int p = 0; p < 4; ++p)
      st.entries.push_back({std::string(1, kLetters[p]) + (p < 2 ? kEntries[r].name : kEntries[r].cname),
                            t.n[r][p].load(std::memory_order_relaxed),
                            static_cast<CrossoverSource>(t.source[r][p].load(std::memory_order_relaxed))});
  return st;
}

void reload_crossovers() { table().load(); }

int find_routine(std::string_view base) noexcept { return find(base); }

bool above_crossover(Routine r, int p, double product) noexcept {
  const double c = crossover(r, p);
  return product > 0 && product >= c * c * c;
}

}  // namespace hetla::tune
