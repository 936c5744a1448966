// p?geqrf with ScaLAPACK's Fortran ABI: on hetla (mpi::geqrf) over the
// caller's local array in place, or on the real ScaLAPACK routine (which
// also answers workspace queries and reports invalid arguments).
//
// tau: hetla's is global, on every process; ScaLAPACK's TAU is local
// (LOCc(JA + MIN(M, N) - 1) entries) and tied to A's columns: TAU(lj) =
// tau of global column gj of local column lj, on every process of the
// process column (pdgeqrf broadcasts each panel's scalars down it).
#include <algorithm>
#include <vector>

#include "mpi/routines.hpp"
#include "scalapack/blacs.hpp"
#include "scalapack/route.hpp"

namespace hetla::scalapack {
namespace {

using lapack::Vendor;

/// ScaLAPACK's minimum LWORK for p?geqrf: NB (MP0 + NQ0 + NB).
long min_lwork(int M, int N, const Desc& A, const Process& p) {
  const int zero = 0;
  const long mp0 = numroc_(&M, &A.mb, &p.myrow, &zero, &p.nprow);
  const long nq0 = numroc_(&N, &A.nb, &p.mycol, &zero, &p.npcol);
  return static_cast<long>(A.nb) * (mp0 + nq0 + A.nb);
}

/// 0-based global column of local column lj on process column `mycol`.
int64_t global_col(int64_t lj, int nb, int mycol, int npcol) {
  return (lj / nb) * nb * npcol + static_cast<int64_t>(mycol) * nb + lj % nb;
}

template <typename T>
void geqrf(const int* m, const int* n, T* a, const int* ia, const int* ja, const int* desca, T* tau, T* work,
           const int* lwork, int* info) {
  using Fn = void(const int*, const int*, T*, const int*, const int*, const int*, T*, T*, const int*, int*);
  static const std::string name = fortran_name<T>("geqrf");
  static const Vendor<Fn> vendor(name.substr(0, name.size() - 1));  // without the "_"
  const Desc A(desca);
  const int M = *m, N = *n;
  const auto proc = route(name, A.ctxt, lapack::product(M, N, std::min(M, N)), [&](const Process& p) -> const char* {
    if (M < 0 || N < 0) return "invalid argument";
    if (*lwork == -1) return "workspace query";
    if (M == 0 || N == 0) return "empty";
    if (const char* why = A.unsupported(*ia, *ja, M, N, p)) return why;
    // below ScaLAPACK's minimum: its error to report (hetla needs no WORK)
    if (*lwork < min_lwork(M, N, A, p)) return "invalid argument (lwork)";
    return nullptr;
  });
  if (!proc) return void(vendor(m, n, a, ia, ja, desca, tau, work, lwork, info));
  run_on_hetla(name, A.ctxt, *proc, [&](const mpi::Grid& g) {
    auto M_ = mpi::DistMatrix<T>::view_scalapack(g, M, N, A.nb, a, A.lld);
    std::vector<T> t;
    mpi::geqrf(M_, t);
    const int64_t k = static_cast<int64_t>(t.size());
    for (int64_t lj = 0;; ++lj) {
      const int64_t gj = global_col(lj, A.nb, proc->mycol, proc->npcol);
      if (gj >= k) break;  // global columns grow with lj
      tau[lj] = t[static_cast<std::size_t>(gj)];
    }
    work[0] = T(static_cast<real_t<T>>(min_lwork(M, N, A, *proc)));  // as ScaLAPACK leaves WORK(1)
    *info = 0;
  });
}

}  // namespace
}  // namespace hetla::scalapack

#define HETLA_EXPORT_QR(x, T, I, suffix)                                                                           \
  HETLA_LAPACK_EXPORT void p##x##geqrf_(const int* m, const int* n, T* a, const int* ia, const int* ja,            \
                                        const int* desca, T* tau, T* work, const int* lwork, int* info) {         \
    HETLA_LAPACK_CHECK_LETTER(x, T);                                                                               \
    hetla::scalapack::geqrf(m, n, a, ia, ja, desca, tau, work, lwork, info);                                       \
  }
HETLA_SCALAPACK_FOR_EACH_PRECISION(HETLA_EXPORT_QR)
#undef HETLA_EXPORT_QR
