// Tuned crossovers: the file round-trips, the table in force takes it (and
// the solvers follow their factorization), the environment still wins, and a
// file that cannot be trusted is ignored with a warning.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tune/crossover.hpp"
#include "tune/crossover_table.hpp"
#include "util/blas_threads.hpp"

using namespace hetla::tune;

namespace {

/// A private tuning folder ($HETLA_TUNING points into it) for one test.
struct TuningDir {
  std::filesystem::path dir;
  TuningDir() : dir(std::filesystem::temp_directory_path() / ("hetla-crossover-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir);
    setenv("HETLA_TUNING", (dir / "tiles.json").c_str(), 1);
  }
  ~TuningDir() {
    unsetenv("HETLA_TUNING");
    unsetenv("HETLA_LAPACK_CROSSOVER_DPOTRF");
    std::filesystem::remove_all(dir);
    reload_crossovers();
  }
  void write(const std::string& text) const { std::ofstream(crossover_path(), std::ios::trunc) << text; }
};

CrossoverTable sample(const std::string& blas) {
  CrossoverTable t;
  t.blas = blas;
  t.entries = {{"potrf", 'd', 77}, {"getrf", 'z', 33}, {"geqrf", 's', 0}};
  return t;
}
CrossoverSource source_of(const std::string& name) {
  for (const auto& e : crossover_status().entries)
    if (e.name == name) return e.source;
  ADD_FAILURE() << name << " not in the status";
  return CrossoverSource::Set;
}

}  // namespace

TEST(CrossoverTable, LivesBesideTheTileSizes) {
  TuningDir d;
  EXPECT_EQ(std::filesystem::path(crossover_path()), d.dir / "crossover.json");
}

TEST(CrossoverTable, RoundTripsAndMerges) {
  TuningDir d;
  save_crossovers(sample("OpenBLAS (test)"), crossover_path());
  CrossoverTable back = load_crossovers(crossover_path());
  EXPECT_EQ(back.blas, "OpenBLAS (test)");
  ASSERT_EQ(back.entries.size(), 3u);
  CrossoverTable update;
  update.blas = "OpenBLAS (test)";
  update.entries = {{"potrf", 'd', 99}};
  save_crossovers(update, crossover_path());
  back = load_crossovers(crossover_path());
  ASSERT_EQ(back.entries.size(), 3u);
  for (const auto& e : back.entries) {
    if (e.routine == "potrf") {
      EXPECT_EQ(e.n, 99);
    }
  }
}

TEST(CrossoverTable, TheTunedValuesAreInForceAndTheEnvironmentWins) {
  TuningDir d;
  save_crossovers(sample(hetla::util::blas_vendor()), crossover_path());
  reload_crossovers();
  EXPECT_EQ(crossover_status().state, "in use");
  EXPECT_EQ(crossover(Routine::Potrf, 1), 77);
  EXPECT_EQ(crossover(Routine::Posv, 1), 77);  // follows its factorization
  EXPECT_EQ(crossover(Routine::Getrf, 3), 33);
  EXPECT_EQ(crossover(Routine::Gesv, 3), 33);
  EXPECT_EQ(crossover(Routine::Geqrf, 0), 0);
  EXPECT_EQ(source_of("dpotrf"), CrossoverSource::Tuned);
  EXPECT_EQ(source_of("spotrf"), CrossoverSource::BuiltIn);
  setenv("HETLA_LAPACK_CROSSOVER_DPOTRF", "5", 1);
  reload_crossovers();
  EXPECT_EQ(crossover(Routine::Potrf, 1), 5);
  EXPECT_EQ(source_of("dpotrf"), CrossoverSource::Environment);
  EXPECT_EQ(crossover(Routine::Posv, 1), 77);
}

TEST(CrossoverTable, AnotherBlasOrACorruptFileIsIgnoredWithAWarning) {
  TuningDir d;
  reload_crossovers();
  const int builtin = crossover(Routine::Potrf, 1);
  EXPECT_EQ(crossover_status().state, "absent");
  for (const std::string& text :
       {std::string("{\"version\": 1, \"blas\": \"some other BLAS\", \"crossovers\": "
                    "[{\"routine\": \"potrf\", \"precision\": \"d\", \"n\": 7}]}"),
        std::string("{\"version\": 1, \"blas\": \"x\", \"crossovers\": [{\"routine\": \"potrf\", \"n\": 7"),
        std::string("{\"version\": 1, \"blas\": \"x\", \"crossovers\": [{\"routine\": \"trsm\", \"precision\": \"d\", "
                    "\"n\": 7}]}"),
        std::string("{\"version\": 9, \"blas\": \"x\", \"crossovers\": []}")}) {
    SCOPED_TRACE(text);
    d.write(text);
    testing::internal::CaptureStderr();
    reload_crossovers();
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("tuned crossovers ignored"), std::string::npos) << err;
    EXPECT_EQ(crossover_status().state.rfind("ignored: ", 0), 0u) << crossover_status().state;
    EXPECT_EQ(crossover(Routine::Potrf, 1), builtin);
    EXPECT_EQ(source_of("dpotrf"), CrossoverSource::BuiltIn);
  }
}
