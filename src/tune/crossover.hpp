// Where hetla stops calling the vendor: per routine and precision, the size
// from which hetla's task graph beats the vendor's call in the caller's
// thread. One table for the C++/C API (src/linalg: below it a call runs the
// vendor routine inline) and the drop-in LAPACK names (src/lapack). A size is an "n": the cube root of the product that
// sets the routine's flops (potrf: n; getrf: m n min(m, n); gemm: m n k; ...),
// so one number per routine covers rectangular calls too.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "hetla/types.hpp"

namespace hetla::tune {

enum class Routine { Potrf, Potrs, Posv, Getrf, Getrs, Gesv, Geqrf, Unmqr, Ungqr, Gels, Gemm, Trsm, Syrk, Herk };
inline constexpr int kRoutines = 14;

/// Index of a precision (s, d, c, z) in the crossover table.
template <typename T> constexpr int precision_index() {
  constexpr char letter = precision_letter<T>();
  return letter == 's' ? 0 : letter == 'd' ? 1 : letter == 'c' ? 2 : 3;
}

/// The crossover of `r` for precision index `p`: the built-in default
/// (crossover.cc, measured), replaced on first use by the one `hetla tune
/// --crossover` measured with this BLAS (crossover_table.hpp; posv, gesv and
/// gels follow their factorization), overridden by the environment
/// (HETLA_LAPACK_CROSSOVER for all routines, HETLA_LAPACK_CROSSOVER_POTRF for
/// one routine in all precisions, HETLA_LAPACK_CROSSOVER_DPOTRF for one; 0:
/// hetla at every size) or by set_crossover (hetla_lapack_set_crossover).
int crossover(Routine r, int p) noexcept;
/// Sets the crossover of `r` for precision index `p` (0-3), or for all four
/// when p < 0. Thread-safe (relaxed atomics: a call racing with it takes
/// either value).
void set_crossover(Routine r, int p, int n) noexcept;
/// The routine named `base` ("potrf", "ormqr" or "unmqr", ...), or -1.
int find_routine(std::string_view base) noexcept;

/// True when a call whose size product is `product` (n^3 for an n x n potrf)
/// goes to hetla: product > 0 and at least the crossover cubed.
bool above_crossover(Routine r, int p, double product) noexcept;
template <typename T> bool above_crossover(Routine r, double product) noexcept {
  return above_crossover(r, precision_index<T>(), product);
}

enum class CrossoverSource { BuiltIn, Tuned, Environment, Set };
/// "built-in", "tuned", "environment", "set".
const char* source_name(CrossoverSource s) noexcept;

struct CrossoverInForce {
  std::string name;  // "dpotrf", "zunmqr"
  int n = 0;
  CrossoverSource source = CrossoverSource::BuiltIn;
};
struct CrossoverStatus {
  std::string path;                       // the tuned file (crossover_path())
  std::string state;                      // "absent", "in use", or "ignored: <why>"
  std::vector<CrossoverInForce> entries;  // every routine and precision
};
/// The crossovers in force and where each comes from, for `hetla info`.
CrossoverStatus crossover_status();
/// Builds the table again from the defaults, the tuned file and the
/// environment, dropping set_crossover's values (tests; a process that
/// has just tuned).
void reload_crossovers();

}  // namespace hetla::tune
