// p?getrf, p?getrs, p?gesv with ScaLAPACK's Fortran ABI: on hetla
// (mpi::getrf, ...) over the caller's local arrays in place, or on the real
// ScaLAPACK routine (which also makes every invalid argument report).
//
// Pivots: hetla's are LAPACK's, one global vector on every process;
// ScaLAPACK's IPIV is local (LOCr(M_A) + MB_A entries) and tied to A:
// IPIV(li) = the global row that global row gi of local row li was swapped
// with, on every process of the process row (pdgetrf broadcasts each
// panel's pivots along the row). So IPIV(li) = ipiv[gi] for the local rows
// with gi < min(M, N); the others are left as they were.
#include <algorithm>
#include <vector>

#include "mpi/routines.hpp"
#include "scalapack/route.hpp"

namespace hetla::scalapack {
namespace {

using lapack::flen;
using lapack::is_trans;
using lapack::to_op;
using lapack::Vendor;

/// 0-based global row of local row li on process row `myrow` (blocks of nb,
/// the first on process row 0).
int64_t global_row(int64_t li, int nb, int myrow, int nprow) {
  return (li / nb) * nb * nprow + static_cast<int64_t>(myrow) * nb + li % nb;
}

/// Global pivots into the caller's local IPIV.
void to_local(const std::vector<int64_t>& ipiv, const Desc& A, const Process& p, int* local) {
  const int64_t mn = static_cast<int64_t>(ipiv.size());
  for (int64_t li = 0;; ++li) {
    const int64_t gi = global_row(li, A.mb, p.myrow, p.nprow);
    if (gi >= mn) break;  // global rows grow with li
    local[li] = static_cast<int>(ipiv[static_cast<std::size_t>(gi)]);
  }
}

/// The caller's local IPIV (from p?getrf, hetla's or ScaLAPACK's) as global
/// pivots on every process: process column 0's entries, one reduction.
std::vector<int64_t> to_global(const mpi::Grid& g, int n, const Desc& A, const Process& p, const int* local) {
  std::vector<int64_t> ipiv(static_cast<std::size_t>(n), 0);
  if (p.mycol == 0)
    for (int64_t li = 0;; ++li) {
      const int64_t gi = global_row(li, A.mb, p.myrow, p.nprow);
      if (gi >= n) break;
      ipiv[static_cast<std::size_t>(gi)] = local[li];
    }
  g.max(ipiv);
  return ipiv;
}

template <typename T>
void getrf(const int* m, const int* n, T* a, const int* ia, const int* ja, const int* desca, int* ipiv, int* info) {
  using Fn = void(const int*, const int*, T*, const int*, const int*, const int*, int*, int*);
  static const std::string name = fortran_name<T>("getrf");
  static const Vendor<Fn> vendor(name.substr(0, name.size() - 1));  // without the "_"
  const Desc A(desca);
  const int M = *m, N = *n;
  const auto proc = route(name, A.ctxt, lapack::product(M, N, std::min(M, N)), [&](const Process& p) -> const char* {
    if (M < 0 || N < 0) return "invalid argument";
    if (M == 0 || N == 0) return "empty";
    return A.unsupported(*ia, *ja, M, N, p);
  });
  if (!proc) return void(vendor(m, n, a, ia, ja, desca, ipiv, info));
  run_on_hetla(name, A.ctxt, *proc, [&](const mpi::Grid& g) {
    auto M_ = mpi::DistMatrix<T>::view_scalapack(g, M, N, A.nb, a, A.lld);
    std::vector<int64_t> piv;
    *info = static_cast<int>(mpi::getrf(M_, piv));
    to_local(piv, A, *proc, ipiv);
  });
}

template <typename T>
void getrs(const char* trans, const int* n, const int* nrhs, const T* a, const int* ia, const int* ja,
           const int* desca, const int* ipiv, T* b, const int* ib, const int* jb, const int* descb, int* info) {
  using Fn = void(const char*, const int*, const int*, const T*, const int*, const int*, const int*, const int*, T*,
                  const int*, const int*, const int*, int*, flen);
  static const std::string name = fortran_name<T>("getrs");
  static const Vendor<Fn> vendor(name.substr(0, name.size() - 1));  // without the "_"
  const Desc A(desca), B(descb);
  const int N = *n;
  const auto proc = route(name, A.ctxt, lapack::product(N, N, std::max(N, *nrhs)), [&](const Process& p) {
    return is_trans(trans) ? solve_unsupported(N, *nrhs, A, *ia, *ja, B, *ib, *jb, p) : "invalid argument";
  });
  if (!proc) return void(vendor(trans, n, nrhs, a, ia, ja, desca, ipiv, b, ib, jb, descb, info, flen{1}));
  run_on_hetla(name, A.ctxt, *proc, [&](const mpi::Grid& g) {
    // read only: the view is not written through (getrs reads A)
    const auto F = mpi::DistMatrix<T>::view_scalapack(g, N, N, A.nb, const_cast<T*>(a), A.lld);
    auto X = mpi::DistMatrix<T>::view_scalapack(g, N, *nrhs, B.nb, b, B.lld);
    mpi::getrs(to_op<T>(trans), F, to_global(g, N, A, *proc, ipiv), X);
    *info = 0;
  });
}

template <typename T>
void gesv(const int* n, const int* nrhs, T* a, const int* ia, const int* ja, const int* desca, int* ipiv, T* b,
          const int* ib, const int* jb, const int* descb, int* info) {
  using Fn = void(const int*, const int*, T*, const int*, const int*, const int*, int*, T*, const int*, const int*,
                  const int*, int*);
  static const std::string name = fortran_name<T>("gesv");
  static const Vendor<Fn> vendor(name.substr(0, name.size() - 1));  // without the "_"
  const Desc A(desca), B(descb);
  const int N = *n;
  const auto proc = route(name, A.ctxt, lapack::product(N, N, std::max(N, *nrhs)), [&](const Process& p) {
    return solve_unsupported(N, *nrhs, A, *ia, *ja, B, *ib, *jb, p);
  });
  if (!proc) return void(vendor(n, nrhs, a, ia, ja, desca, ipiv, b, ib, jb, descb, info));
  run_on_hetla(name, A.ctxt, *proc, [&](const mpi::Grid& g) {
    auto M = mpi::DistMatrix<T>::view_scalapack(g, N, N, A.nb, a, A.lld);
    auto X = mpi::DistMatrix<T>::view_scalapack(g, N, *nrhs, B.nb, b, B.lld);
    std::vector<int64_t> piv;
    *info = static_cast<int>(mpi::gesv(M, piv, X));
    to_local(piv, A, *proc, ipiv);
  });
}

}  // namespace
}  // namespace hetla::scalapack

// C callers pass no hidden character lengths: they are never read.
#define HETLA_EXPORT_LU(x, T, I, suffix)                                                                            \
  HETLA_LAPACK_EXPORT void p##x##getrf_(const int* m, const int* n, T* a, const int* ia, const int* ja,             \
                                        const int* desca, int* ipiv, int* info) {                                   \
    HETLA_LAPACK_CHECK_LETTER(x, T);                                                                                \
    hetla::scalapack::getrf(m, n, a, ia, ja, desca, ipiv, info);                                                    \
  }                                                                                                                 \
  HETLA_LAPACK_EXPORT void p##x##getrs_(const char* trans, const int* n, const int* nrhs, const T* a, const int* ia, \
                                        const int* ja, const int* desca, const int* ipiv, T* b, const int* ib,      \
                                        const int* jb, const int* descb, int* info) {                               \
    hetla::scalapack::getrs(trans, n, nrhs, a, ia, ja, desca, ipiv, b, ib, jb, descb, info);                        \
  }                                                                                                                 \
  HETLA_LAPACK_EXPORT void p##x##gesv_(const int* n, const int* nrhs, T* a, const int* ia, const int* ja,           \
                                       const int* desca, int* ipiv, T* b, const int* ib, const int* jb,             \
                                       const int* descb, int* info) {                                               \
    hetla::scalapack::gesv(n, nrhs, a, ia, ja, desca, ipiv, b, ib, jb, descb, info);                                \
  }
HETLA_SCALAPACK_FOR_EACH_PRECISION(HETLA_EXPORT_LU)
#undef HETLA_EXPORT_LU
