// hetla_lapack_crossover / hetla_lapack_set_crossover (include/hetla/lapack.h)
// over the library's crossover table (tune/crossover.hpp).
#include "lapack/crossover.hpp"

#include <cctype>
#include <cstring>
#include <string>

#include "hetla/lapack.h"

namespace {
std::string lower(const char* s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}
/// The precision index of a name's first letter (s, d, c, z), or -1.
int letter_index(const std::string& name) {
  const char* l = name.empty() ? nullptr : std::strchr("sdcz", name[0]);
  return l ? static_cast<int>(l - "sdcz") : -1;
}
}  // namespace

using hetla::tune::find_routine;
using hetla::tune::Routine;

extern "C" {

__attribute__((visibility("default"))) int hetla_lapack_crossover(const char* routine) {
  if (!routine) return -1;
  const std::string name = lower(routine);
  const int p = letter_index(name);
  const int r = p < 0 ? -1 : find_routine(std::string_view(name).substr(1));
  return r < 0 ? -1 : hetla::tune::crossover(static_cast<Routine>(r), p);
}

__attribute__((visibility("default"))) int hetla_lapack_set_crossover(const char* routine, int n) {
  if (n < 0) return -2;
  const std::string name = lower(routine ? routine : "all");
  if (name == "all") {
    for (int r = 0; r < hetla::tune::kRoutines; ++r) hetla::tune::set_crossover(static_cast<Routine>(r), -1, n);
    return 0;
  }
  if (const int r = find_routine(name); r >= 0) {  // every precision
    hetla::tune::set_crossover(static_cast<Routine>(r), -1, n);
    return 0;
  }
  const int p = letter_index(name);
  const int r = p < 0 ? -1 : find_routine(std::string_view(name).substr(1));
  if (r < 0) return -1;
  hetla::tune::set_crossover(static_cast<Routine>(r), p, n);
  return 0;
}

}  // extern "C"
