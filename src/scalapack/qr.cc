// p?geqrf, p?ormqr / p?unmqr and p?gels with ScaLAPACK's Fortran ABI: on
// hetla (mpi::geqrf, unmqr, gels) over the caller's local arrays in place,
// or on the real ScaLAPACK routine, which also answers workspace queries and
// reports invalid arguments (its -(argument * 100 + entry) for descriptors).
// A call that hetla takes has valid arguments in ScaLAPACK's eyes: the
// checks below only send more calls to ScaLAPACK, and LWORK below
// ScaLAPACK's minimum (its formula, for the layout hetla takes) goes there
// too, to be reported. hetla needs no WORK; WORK(1) is left as ScaLAPACK
// leaves it (the minimum).
//
// p?gels: A receives its QR (M >= N) or LQ (M < N) factorization as
// ScaLAPACK's; for a triangular factor with a zero on its diagonal hetla
// returns INFO = its position, as LAPACK's gels (ScaLAPACK's divides by the
// zero and returns 0).
//
// tau: hetla's is global, on every process; ScaLAPACK's TAU is local
// (LOCc(JA + MIN(M, N) - 1) entries) and tied to A's columns: TAU(lj) =
// tau of global column gj of local column lj, on every process of the
// process column (pdgeqrf broadcasts each panel's scalars down it).
#include <algorithm>
#include <numeric>
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

int numroc(int n, int nb, int iproc, int nprocs) {
  const int zero = 0;
  return numroc_(&n, &nb, &iproc, &zero, &nprocs);
}

/// ScaLAPACK's minimum LWORK for p?ormqr / p?unmqr (pdormqr.f's LWMIN) with
/// the layout hetla takes: A and C at (1, 1), nb x nb blocks, from process
/// (0, 0).
long ormqr_lwork(bool left, int M, int N, int nb, const Process& p) {
  const long mpc0 = numroc(M, nb, p.myrow, p.nprow), nqc0 = numroc(N, nb, p.mycol, p.npcol);
  const long tri = static_cast<long>(nb) * (nb - 1) / 2, sq = static_cast<long>(nb) * nb;
  if (left) return std::max(tri, (mpc0 + nqc0) * nb) + sq;
  const long npa0 = numroc(N, nb, p.myrow, p.nprow);
  const int lcmq = std::lcm(p.nprow, p.npcol) / p.npcol;
  const long extra = numroc(numroc(N, nb, 0, p.npcol), nb, 0, lcmq);
  return std::max(tri, (nqc0 + std::max(npa0 + extra, mpc0)) * nb) + sq;
}

/// ScaLAPACK's minimum LWORK for p?gels (pdgels.f's LWMIN), same layout.
long gels_lwork(int M, int N, int nrhs, int nb, const Process& p) {
  const long mpa0 = numroc(M, nb, p.myrow, p.nprow), nqa0 = numroc(N, nb, p.mycol, p.npcol);
  const long nrhsqb0 = numroc(nrhs, nb, p.mycol, p.npcol);
  const long tri = static_cast<long>(nb) * (nb - 1) / 2, sq = static_cast<long>(nb) * nb;
  const long lwf = nb * (mpa0 + nqa0 + nb);
  long ltau, lws;
  if (M >= N) {
    ltau = numroc(std::min(M, N), nb, p.mycol, p.npcol);
    lws = std::max(tri, (mpa0 + nrhsqb0) * nb) + sq;  // MPB0 = MPA0 here
  } else {
    const int lcmp = std::lcm(p.nprow, p.npcol) / p.nprow;
    const long npb0 = numroc(N, nb, p.myrow, p.nprow);
    ltau = numroc(std::min(M, N), nb, p.myrow, p.nprow);
    lws = std::max(tri, (npb0 + std::max(nqa0 + numroc(numroc(N, nb, 0, p.nprow), nb, 0, lcmp), nrhsqb0)) * nb) + sq;
  }
  return ltau + std::max(lwf, lws);
}

/// ScaLAPACK's trans for ormqr / gels: 'N' or 'T' for real types, 'N' or 'C'
/// for complex ones.
template <typename T> bool is_qr_trans(const char* c) {
  return lapack::lsame(c, 'N') || lapack::lsame(c, is_complex_v<T> ? 'C' : 'T');
}

/// The caller's local TAU (LOCc(JA + K - 1) entries, tied to A's columns) as
/// hetla's global tau on every process: each entry from the process row that
/// holds its reflector's diagonal block (which has it under every
/// convention), one sum over the grid (exact: x + 0; float and complex
/// through doubles, exact both ways).
template <typename T>
std::vector<T> global_tau(const mpi::Grid& g, int64_t k, int nb, const Process& p, const T* local) {
  constexpr std::size_t parts = is_complex_v<T> ? 2 : 1;
  std::vector<double> d(static_cast<std::size_t>(k) * parts, 0.0);
  for (int64_t lj = 0;; ++lj) {
    const int64_t gj = global_col(lj, nb, p.mycol, p.npcol);
    if (gj >= k) break;
    if ((gj / nb) % p.nprow != p.myrow) continue;
    if constexpr (is_complex_v<T>) {
      d[2 * gj] = local[lj].real();
      d[2 * gj + 1] = local[lj].imag();
    } else {
      d[gj] = local[lj];
    }
  }
  g.sum(d);
  std::vector<T> t(static_cast<std::size_t>(k));
  for (int64_t j = 0; j < k; ++j) {
    using R = real_t<T>;
    if constexpr (is_complex_v<T>) t[j] = T(static_cast<R>(d[2 * j]), static_cast<R>(d[2 * j + 1]));
    else t[j] = static_cast<T>(d[j]);
  }
  return t;
}

template <typename T>
void unmqr(const char* side, const char* trans, const int* m, const int* n, const int* k, const T* a, const int* ia,
           const int* ja, const int* desca, const T* tau, T* c, const int* ic, const int* jc, const int* descc,
           T* work, const int* lwork, int* info) {
  using Fn = void(const char*, const char*, const int*, const int*, const int*, const T*, const int*, const int*,
                  const int*, const T*, T*, const int*, const int*, const int*, T*, const int*, int*, lapack::flen,
                  lapack::flen);
  static const std::string name = fortran_name<T>(is_complex_v<T> ? "unmqr" : "ormqr");
  static const Vendor<Fn> vendor(name.substr(0, name.size() - 1));  // without the "_"
  const Desc A(desca), C(descc);
  const int M = *m, N = *n, K = *k;
  const bool left = lapack::lsame(side, 'L');
  const int nq = left ? M : N;
  long lwmin = 0;
  const auto proc = route(name, A.ctxt, lapack::product(M, N, K), [&](const Process& p) -> const char* {
    if (!left && !lapack::lsame(side, 'R')) return "invalid argument (side)";
    if (!is_qr_trans<T>(trans)) return "invalid argument (trans)";
    if (M < 0 || N < 0 || K < 0 || K > nq) return "invalid argument";
    if (*lwork == -1) return "workspace query";
    if (M == 0 || N == 0 || K == 0) return "empty";
    if (C.ctxt != A.ctxt) return "A and C in different contexts";
    if (const char* why = A.unsupported(*ia, *ja, nq, K, p)) return why;
    if (const char* why = C.unsupported(*ic, *jc, M, N, p)) return why;
    if (C.nb != A.nb) return "C's blocks differ from A's";
    lwmin = ormqr_lwork(left, M, N, A.nb, p);
    if (*lwork < lwmin) return "invalid argument (lwork)";
    return nullptr;
  });
  if (!proc) return void(vendor(side, trans, m, n, k, a, ia, ja, desca, tau, c, ic, jc, descc, work, lwork, info,
                                lapack::flen{1}, lapack::flen{1}));
  run_on_hetla(name, A.ctxt, *proc, [&](const mpi::Grid& g) {
    // read only: the view is not written through (unmqr reads A)
    const auto V = mpi::DistMatrix<T>::view_scalapack(g, nq, K, A.nb, const_cast<T*>(a), A.lld);
    auto X = mpi::DistMatrix<T>::view_scalapack(g, M, N, C.nb, c, C.lld);
    mpi::unmqr(left ? Side::Left : Side::Right, lapack::to_op<T>(trans), K, V, global_tau(g, K, A.nb, *proc, tau),
               X);
    work[0] = T(static_cast<real_t<T>>(lwmin));
    *info = 0;
  });
}

template <typename T>
void gels(const char* trans, const int* m, const int* n, const int* nrhs, T* a, const int* ia, const int* ja,
          const int* desca, T* b, const int* ib, const int* jb, const int* descb, T* work, const int* lwork,
          int* info) {
  using Fn = void(const char*, const int*, const int*, const int*, T*, const int*, const int*, const int*, T*,
                  const int*, const int*, const int*, T*, const int*, int*, lapack::flen);
  static const std::string name = fortran_name<T>("gels");
  static const Vendor<Fn> vendor(name.substr(0, name.size() - 1));  // without the "_"
  const Desc A(desca), B(descb);
  const int M = *m, N = *n, R = *nrhs;
  long lwmin = 0;
  const auto proc = route(name, A.ctxt, lapack::product(M, N, std::min(M, N)), [&](const Process& p) -> const char* {
    if (!is_qr_trans<T>(trans)) return "invalid argument (trans)";
    if (M < 0 || N < 0 || R < 0) return "invalid argument";
    if (*lwork == -1) return "workspace query";
    if (M == 0 || N == 0 || R == 0) return "empty";
    if (B.ctxt != A.ctxt) return "A and B in different contexts";
    if (const char* why = A.unsupported(*ia, *ja, M, N, p)) return why;
    if (const char* why = B.unsupported(*ib, *jb, std::max(M, N), R, p)) return why;
    if (B.nb != A.nb) return "B's blocks differ from A's";
    lwmin = gels_lwork(M, N, R, A.nb, p);
    if (*lwork < lwmin) return "invalid argument (lwork)";
    return nullptr;
  });
  if (!proc) return void(vendor(trans, m, n, nrhs, a, ia, ja, desca, b, ib, jb, descb, work, lwork, info,
                                lapack::flen{1}));
  run_on_hetla(name, A.ctxt, *proc, [&](const mpi::Grid& g) {
    auto F = mpi::DistMatrix<T>::view_scalapack(g, M, N, A.nb, a, A.lld);
    auto X = mpi::DistMatrix<T>::view_scalapack(g, std::max(M, N), R, B.nb, b, B.lld);
    *info = static_cast<int>(mpi::gels(lapack::to_op<T>(trans), F, X));
    work[0] = T(static_cast<real_t<T>>(lwmin));
  });
}

}  // namespace
}  // namespace hetla::scalapack

#define HETLA_EXPORT_QR(x, T, I, suffix)                                                                           \
  HETLA_LAPACK_EXPORT void p##x##geqrf_(const int* m, const int* n, T* a, const int* ia, const int* ja,            \
                                        const int* desca, T* tau, T* work, const int* lwork, int* info) {         \
    HETLA_LAPACK_CHECK_LETTER(x, T);                                                                               \
    hetla::scalapack::geqrf(m, n, a, ia, ja, desca, tau, work, lwork, info);                                       \
  }                                                                                                                \
  HETLA_LAPACK_EXPORT void p##x##gels_(const char* trans, const int* m, const int* n, const int* nrhs, T* a,      \
                                       const int* ia, const int* ja, const int* desca, T* b, const int* ib,        \
                                       const int* jb, const int* descb, T* work, const int* lwork, int* info) {    \
    hetla::scalapack::gels(trans, m, n, nrhs, a, ia, ja, desca, b, ib, jb, descb, work, lwork, info);            \
  }
HETLA_SCALAPACK_FOR_EACH_PRECISION(HETLA_EXPORT_QR)
#undef HETLA_EXPORT_QR

// p?ormqr for real types, p?unmqr for complex ones. C callers pass no hidden
// character lengths: they are never read.
#define HETLA_EXPORT_Q(x, T, mqr)                                                                                  \
  HETLA_LAPACK_EXPORT void p##x##mqr##_(const char* side, const char* trans, const int* m, const int* n,          \
                                        const int* k, const T* a, const int* ia, const int* ja, const int* desca,  \
                                        const T* tau, T* c, const int* ic, const int* jc, const int* descc,        \
                                        T* work, const int* lwork, int* info) {                                    \
    HETLA_LAPACK_CHECK_LETTER(x, T);                                                                               \
    hetla::scalapack::unmqr(side, trans, m, n, k, a, ia, ja, desca, tau, c, ic, jc, descc, work, lwork, info);    \
  }
HETLA_EXPORT_Q(s, float, ormqr)
HETLA_EXPORT_Q(d, double, ormqr)
HETLA_EXPORT_Q(c, std::complex<float>, unmqr)
HETLA_EXPORT_Q(z, std::complex<double>, unmqr)
#undef HETLA_EXPORT_Q
