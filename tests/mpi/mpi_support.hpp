// What the distributed tests share: the grids the communicator allows and the
// four precisions as gtest type parameters.
#pragma once
#include <gtest/gtest.h>

#include <complex>
#include <string>
#include <utility>
#include <vector>

#include "mpi/grid.hpp"
#include "checks.hpp"  // precision_letter

namespace hetla_mpi_test {

/// Every P x Q with P Q = the number of processes: 1 x np, ..., np x 1 (2 x 2 for 4).
inline std::vector<std::pair<int, int>> grids() {
  const int np = hetla::mpi::world_size();
  std::vector<std::pair<int, int>> g;
  for (int p = 1; p <= np; ++p)
    if (np % p == 0) g.push_back({p, np / p});
  return g;
}

using Precisions = ::testing::Types<float, double, std::complex<float>, std::complex<double>>;
struct PrecisionName {
  template <typename T> static std::string GetName(int) { return std::string(1, hetla::precision_letter<T>()); }
};

}  // namespace hetla_mpi_test
