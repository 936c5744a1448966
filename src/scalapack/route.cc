#include "scalapack/route.hpp"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "hetla/scalapack.h"
#include "runtime/reentry.hpp"
#include "scalapack/blacs.hpp"

namespace hetla::scalapack {
namespace {
std::atomic<long> g_calls[2];  // [0]: to ScaLAPACK, [1]: on hetla

// HETLA_SCALAPACK_LOG=1: process (0, 0) of the grid says where each call went.
void say(const std::string& name, const Process& p, const char* where, const char* why) {
  static const bool on = [] {
    const char* v = std::getenv("HETLA_SCALAPACK_LOG");
    return v && *v && *v != '0';
  }();
  if (on && p.myrow == 0 && p.mycol == 0)
    std::fprintf(stderr, "hetla_scalapack: %s on %dx%d: %s%s%s\n", name.c_str(), p.nprow, p.npcol, where,
                 why ? ": " : "", why ? why : "");
}

double crossover() {
  static const double n = [] {
    const char* v = std::getenv("HETLA_SCALAPACK_CROSSOVER");
    char* end = nullptr;
    const double x = v ? std::strtod(v, &end) : -1;
    return v && end != v && x >= 0 ? x : kCrossover;
  }();
  return n;
}
}  // namespace

std::optional<Process> route(const std::string& name, int ctxt, double size,
                             const std::function<const char*(const Process&)>& why_not) {
  if (rt::reentry_depth() > 0) {  // no reduction: every process is inside the same routine
    ++g_calls[0];
    return std::nullopt;
  }
  Process p;
  Cblacs_gridinfo(ctxt, &p.nprow, &p.npcol, &p.myrow, &p.mycol);
  if (p.nprow < 1 || p.myrow < 0) {  // not in this context: ScaLAPACK reports it, nothing to agree on
    ++g_calls[0];
    return std::nullopt;
  }
  const char* why = why_not(p);
  // the sizes are global arguments: below the crossover on one process, below on all (the reduction agrees anyway)
  if (!why && std::cbrt(size) < crossover()) why = "below the crossover (HETLA_SCALAPACK_CROSSOVER)";
  if (!why && !mpi::serialized_calls_allowed()) why = "MPI thread level below serialized";
  int ok = why ? 0 : 1;
  Cigamn2d(ctxt, "All", " ", 1, 1, &ok, 1, nullptr, nullptr, -1, -1, -1);
  if (!ok) {
    say(name, p, "ScaLAPACK", why ? why : "a case another process passes on");
    ++g_calls[0];
    return std::nullopt;
  }
  say(name, p, "hetla", nullptr);
  ++g_calls[1];
  return p;
}

void run_on_hetla(const std::string& name, int ctxt, const Process& p,
                  const std::function<void(const mpi::Grid&)>& f) noexcept {
  try {
    const int what = 10;  // SGET_BLACSCONTXT: the grid's communicator
    int comm = 0;
    blacs_get_(&ctxt, &what, &comm);
    const mpi::Grid grid(p.nprow, p.npcol, comm);
    f(grid);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hetla_scalapack: %s: %s\n", name.c_str(), e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "hetla_scalapack: %s: unknown error\n", name.c_str());
    std::abort();
  }
}

}  // namespace hetla::scalapack

HETLA_LAPACK_EXPORT long hetla_scalapack_calls(int on_hetla) {
  return hetla::scalapack::g_calls[on_hetla ? 1 : 0].load();
}
