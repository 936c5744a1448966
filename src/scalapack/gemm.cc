// p?gemm with PBLAS's interface (C, no hidden character lengths): on hetla
// (mpi::gemm, SUMMA-style over the caller's local arrays in place) or on the
// real PBLAS routine, which also makes every argument report.
#include "hetla/types.hpp"
#include "mpi/routines.hpp"
#include "scalapack/route.hpp"

namespace hetla::scalapack {
namespace {

using lapack::is_trans;
using lapack::lsame;
using lapack::to_op;
using lapack::Vendor;

template <typename T>
void gemm(const char* transa, const char* transb, const int* m, const int* n, const int* k, const T* alpha, const T* a,
          const int* ia, const int* ja, const int* desca, const T* b, const int* ib, const int* jb, const int* descb,
          const T* beta, T* c, const int* ic, const int* jc, const int* descc) {
  using Fn =
      void(const char*, const char*, const int*, const int*, const int*, const T*, const T*, const int*, const int*,
           const int*, const T*, const int*, const int*, const int*, const T*, T*, const int*, const int*, const int*);
  static const std::string name = fortran_name<T>("gemm");
  static const Vendor<Fn> vendor(name.substr(0, name.size() - 1));  // without the "_"
  const Desc A(desca), B(descb), C(descc);
  const int M = *m, N = *n, K = *k;
  const bool na = lsame(transa, 'N'), nb = lsame(transb, 'N');
  const auto proc = route(name, C.ctxt, lapack::product(M, N, K), [&](const Process& p) -> const char* {
    if (!is_trans(transa) || !is_trans(transb) || M < 0 || N < 0 || K < 0) return "invalid argument";
    // PBLAS's quick returns, and alpha = 0: A and B are not read at all
    if (M == 0 || N == 0 || K == 0 || *alpha == T(0)) return "empty or alpha = 0";
    if (A.ctxt != C.ctxt || B.ctxt != C.ctxt) return "A, B and C in different contexts";
    if (const char* why = A.unsupported(*ia, *ja, na ? M : K, na ? K : M, p)) return why;
    if (const char* why = B.unsupported(*ib, *jb, nb ? K : N, nb ? N : K, p)) return why;
    if (const char* why = C.unsupported(*ic, *jc, M, N, p)) return why;
    if (A.nb != C.nb || B.nb != C.nb) return "A, B and C have different blocks";
    return nullptr;
  });
  if (!proc)
    return void(vendor(transa, transb, m, n, k, alpha, a, ia, ja, desca, b, ib, jb, descb, beta, c, ic, jc, descc));
  run_on_hetla(name, C.ctxt, *proc, [&](const mpi::Grid& g) {
    // A and B are read only; the views are not written through
    const auto dA = mpi::DistMatrix<T>::view_scalapack(g, na ? M : K, na ? K : M, A.nb, const_cast<T*>(a), A.lld);
    const auto dB = mpi::DistMatrix<T>::view_scalapack(g, nb ? K : N, nb ? N : K, B.nb, const_cast<T*>(b), B.lld);
    auto dC = mpi::DistMatrix<T>::view_scalapack(g, M, N, C.nb, c, C.lld);
    mpi::gemm(to_op<T>(transa), to_op<T>(transb), *alpha, dA, dB, *beta, dC);
  });
}

}  // namespace
}  // namespace hetla::scalapack

#define HETLA_EXPORT_GEMM(x, T, I, suffix)                                                                           \
  HETLA_LAPACK_EXPORT void p##x##gemm_(const char* transa, const char* transb, const int* m, const int* n,           \
                                       const int* k, const T* alpha, const T* a, const int* ia, const int* ja,       \
                                       const int* desca, const T* b, const int* ib, const int* jb, const int* descb, \
                                       const T* beta, T* c, const int* ic, const int* jc, const int* descc) {        \
    HETLA_LAPACK_CHECK_LETTER(x, T);                                                                                 \
    hetla::scalapack::gemm(transa, transb, m, n, k, alpha, a, ia, ja, desca, b, ib, jb, descb, beta, c, ic, jc,      \
                           descc);                                                                                   \
  }
HETLA_SCALAPACK_FOR_EACH_PRECISION(HETLA_EXPORT_GEMM)
#undef HETLA_EXPORT_GEMM
