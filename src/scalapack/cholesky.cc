// p?potrf, p?potrs, p?posv with ScaLAPACK's Fortran ABI: on hetla
// (mpi::potrf, ...) over the caller's local arrays in place, or on the real
// ScaLAPACK routine, which also makes every argument report (pxerbla).
#include "mpi/routines.hpp"
#include "scalapack/route.hpp"

namespace hetla::scalapack {
namespace {

using lapack::flen;
using lapack::is_uplo;
using lapack::to_uplo;
using lapack::Vendor;

template <typename T>
void potrf(const char* uplo, const int* n, T* a, const int* ia, const int* ja, const int* desca, int* info) {
  using Fn = void(const char*, const int*, T*, const int*, const int*, const int*, int*, flen);
  static const std::string name = fortran_name<T>("potrf");
  static const Vendor<Fn> vendor(name.substr(0, name.size() - 1));  // without the "_"
  const Desc A(desca);
  const int N = *n;
  const auto proc = route(name, A.ctxt, lapack::product(N, N, N), [&](const Process& p) -> const char* {
    if (!is_uplo(uplo) || N < 0) return "invalid argument";
    if (N == 0) return "empty";
    return A.unsupported(*ia, *ja, N, N, p);
  });
  if (!proc) return void(vendor(uplo, n, a, ia, ja, desca, info, flen{1}));
  run_on_hetla(name, A.ctxt, *proc, [&](const mpi::Grid& g) {
    auto M = mpi::DistMatrix<T>::view_scalapack(g, N, N, A.nb, a, A.lld);
    *info = static_cast<int>(mpi::potrf(to_uplo(uplo), M));
  });
}

/// potrs' and posv's checks: uplo, then those of every solve.
const char* solve_unsupported(const char* uplo, int N, int nrhs, const Desc& A, int ia, int ja, const Desc& B, int ib,
                              int jb, const Process& p) {
  return is_uplo(uplo) ? solve_unsupported(N, nrhs, A, ia, ja, B, ib, jb, p) : "invalid argument";
}

template <typename T>
void potrs(const char* uplo, const int* n, const int* nrhs, const T* a, const int* ia, const int* ja, const int* desca,
           T* b, const int* ib, const int* jb, const int* descb, int* info) {
  using Fn = void(const char*, const int*, const int*, const T*, const int*, const int*, const int*, T*, const int*,
                  const int*, const int*, int*, flen);
  static const std::string name = fortran_name<T>("potrs");
  static const Vendor<Fn> vendor(name.substr(0, name.size() - 1));  // without the "_"
  const Desc A(desca), B(descb);
  const int N = *n;
  const auto proc = route(name, A.ctxt, lapack::product(N, N, std::max(N, *nrhs)), [&](const Process& p) {
    return solve_unsupported(uplo, N, *nrhs, A, *ia, *ja, B, *ib, *jb, p);
  });
  if (!proc) return void(vendor(uplo, n, nrhs, a, ia, ja, desca, b, ib, jb, descb, info, flen{1}));
  run_on_hetla(name, A.ctxt, *proc, [&](const mpi::Grid& g) {
    // read only: the view is not written through (potrs reads A)
    const auto M = mpi::DistMatrix<T>::view_scalapack(g, N, N, A.nb, const_cast<T*>(a), A.lld);
    auto X = mpi::DistMatrix<T>::view_scalapack(g, N, *nrhs, B.nb, b, B.lld);
    mpi::potrs(to_uplo(uplo), M, X);
    *info = 0;
  });
}

template <typename T>
void posv(const char* uplo, const int* n, const int* nrhs, T* a, const int* ia, const int* ja, const int* desca, T* b,
          const int* ib, const int* jb, const int* descb, int* info) {
  using Fn = void(const char*, const int*, const int*, T*, const int*, const int*, const int*, T*, const int*,
                  const int*, const int*, int*, flen);
  static const std::string name = fortran_name<T>("posv");
  static const Vendor<Fn> vendor(name.substr(0, name.size() - 1));  // without the "_"
  const Desc A(desca), B(descb);
  const int N = *n;
  const auto proc = route(name, A.ctxt, lapack::product(N, N, std::max(N, *nrhs)), [&](const Process& p) {
    return solve_unsupported(uplo, N, *nrhs, A, *ia, *ja, B, *ib, *jb, p);
  });
  if (!proc) return void(vendor(uplo, n, nrhs, a, ia, ja, desca, b, ib, jb, descb, info, flen{1}));
  run_on_hetla(name, A.ctxt, *proc, [&](const mpi::Grid& g) {
    auto M = mpi::DistMatrix<T>::view_scalapack(g, N, N, A.nb, a, A.lld);
    auto X = mpi::DistMatrix<T>::view_scalapack(g, N, *nrhs, B.nb, b, B.lld);
    *info = static_cast<int>(mpi::posv(to_uplo(uplo), M, X));
  });
}

}  // namespace
}  // namespace hetla::scalapack

// C callers pass no hidden character lengths: they are never read.
#define HETLA_EXPORT_CHOLESKY(x, T, I, suffix)                                                                      \
  HETLA_LAPACK_EXPORT void p##x##potrf_(const char* uplo, const int* n, T* a, const int* ia, const int* ja,         \
                                        const int* desca, int* info) {                                              \
    HETLA_LAPACK_CHECK_LETTER(x, T);                                                                                \
    hetla::scalapack::potrf(uplo, n, a, ia, ja, desca, info);                                                       \
  }                                                                                                                 \
  HETLA_LAPACK_EXPORT void p##x##potrs_(const char* uplo, const int* n, const int* nrhs, const T* a, const int* ia, \
                                        const int* ja, const int* desca, T* b, const int* ib, const int* jb,        \
                                        const int* descb, int* info) {                                              \
    hetla::scalapack::potrs(uplo, n, nrhs, a, ia, ja, desca, b, ib, jb, descb, info);                               \
  }                                                                                                                 \
  HETLA_LAPACK_EXPORT void p##x##posv_(const char* uplo, const int* n, const int* nrhs, T* a, const int* ia,        \
                                       const int* ja, const int* desca, T* b, const int* ib, const int* jb,         \
                                       const int* descb, int* info) {                                               \
    hetla::scalapack::posv(uplo, n, nrhs, a, ia, ja, desca, b, ib, jb, descb, info);                                \
  }
HETLA_SCALAPACK_FOR_EACH_PRECISION(HETLA_EXPORT_CHOLESKY)
#undef HETLA_EXPORT_CHOLESKY
