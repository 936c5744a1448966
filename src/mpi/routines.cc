#include "mpi/routines.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "context/context.hpp"
#include "hetla/blas3.hpp"
#include "hetla/linalg.hpp"
#include "hetla/lu.hpp"
#include "hetla/qr.hpp"
#include "linalg/qr_internal.hpp"
#include "runtime/comm.hpp"
#include "tasks/qr_workspace.hpp"
#include "util/check_args.hpp"
#include "util/precision.hpp"

namespace hetla::mpi {

namespace {

// Runs `call` with the grid's transfers attached to the runtime. An error on
// any process is an error on every process (the first message seen here, or
// a note that another process failed).
template <typename F> void distributed_call(const Grid& g, const char* name, F&& call) {
  std::string error;
  try {
    detail::CallScope scope(/*exclusive=*/true);  // attaches a communicator to the runtime
    rt::CommScope transfers(scope.rt(), g.comm());
    call();
  } catch (const ArgumentError&) {
    throw;  // decided before any task, alike on every process
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (g.max(error.empty() ? 0.0 : 1.0) > 0)
    throw std::runtime_error(error.empty() ? std::string(name) + ": failed on another process" : error);
}

}  // namespace

template <typename T> int64_t potrf(Uplo uplo, DistMatrix<T>& A, const Options& opts) {
  const auto name = detail::routine_name<T>("potrf");
  int64_t info = 0;
  distributed_call(A.grid(), name.c_str(), [&] { info = hetla::potrf(uplo, A.tiles(), opts); });
  // The process that factors the failing diagonal tile knows the minor; the
  // others may fail later on its garbage: the first failure is the answer.
  constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
  const int64_t first = A.grid().min(info > 0 ? info : kNone);
  return first == kNone ? 0 : first;
}

template <typename T> void potrs(Uplo uplo, const DistMatrix<T>& A, DistMatrix<T>& B, const Options& opts) {
  const auto name = detail::routine_name<T>("potrs");
  detail::require(&A.grid() == &B.grid(), 3, name, "A and B must share the grid");
  distributed_call(A.grid(), name.c_str(), [&] { hetla::potrs(uplo, A.tiles(), B.tiles(), opts); });
}

template <typename T> int64_t posv(Uplo uplo, DistMatrix<T>& A, DistMatrix<T>& B, const Options& opts) {
  const auto name = detail::routine_name<T>("posv");
  detail::require(&A.grid() == &B.grid(), 3, name, "A and B must share the grid");
  detail::require(B.m() == A.n() && B.nb() == A.nb(), 3, name, "B must have n rows and A's tile size");
  // Not hetla::posv: its "solve only if info == 0" would follow each
  // process's own info, and the processes would insert different tasks.
  const int64_t info = potrf(uplo, A, opts);
  if (info == 0) potrs(uplo, A, B, opts);
  return info;
}

template <typename T> int64_t getrf(DistMatrix<T>& A, std::vector<int64_t>& ipiv, const Options& opts) {
  const auto name = detail::routine_name<T>("getrf");
  int64_t info = 0;
  // The algorithm file as it is: the panel of step k runs on the owner of
  // tile (k, k) (the first tile it writes, runtime/distributed.cc) and its
  // pivots travel to the processes whose interchanges read them.
  distributed_call(A.grid(), name.c_str(), [&] { info = hetla::getrf(A.tiles(), ipiv, opts); });
  // Each process holds the pivots of the panels it factored or read, zeros
  // elsewhere (getrf starts from zeros; pivots are >= 1): the largest entry
  // over the processes is every pivot, one reduction of min(m, n) integers.
  A.grid().max(ipiv);
  // The first zero pivot is the answer (LU goes on past it, so later panels
  // on other processes may find later ones).
  constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
  const int64_t first = A.grid().min(info > 0 ? info : kNone);
  return first == kNone ? 0 : first;
}

template <typename T>
void getrs(Op trans, const DistMatrix<T>& A, const std::vector<int64_t>& ipiv, DistMatrix<T>& B,
           const Options& opts) {
  const auto name = detail::routine_name<T>("getrs");
  detail::require(&A.grid() == &B.grid(), 4, name, "A and B must share the grid");
  detail::require(B.m() == A.n() && B.nb() == A.nb(), 4, name, "B must have n rows and A's tile size");
  distributed_call(A.grid(), name.c_str(), [&] { hetla::getrs(trans, A.tiles(), ipiv, B.tiles(), opts); });
}

template <typename T>
int64_t gesv(DistMatrix<T>& A, std::vector<int64_t>& ipiv, DistMatrix<T>& B, const Options& opts) {
  const auto name = detail::routine_name<T>("gesv");
  detail::require(&A.grid() == &B.grid(), 3, name, "A and B must share the grid");
  detail::require(A.m() == A.n(), 1, name, "A must be square");
  detail::require(B.m() == A.n() && B.nb() == A.nb(), 3, name, "B must have n rows and A's tile size");
  // Not hetla::gesv: its "solve only if info == 0" would follow each
  // process's own info (as posv).
  const int64_t info = getrf(A, ipiv, opts);
  if (info == 0) getrs(Op::NoTrans, A, ipiv, B, opts);
  return info;
}

template <typename T>
void gemm(Op opa, Op opb, T alpha, const DistMatrix<T>& A, const DistMatrix<T>& B, T beta, DistMatrix<T>& C,
          const Options& opts) {
  const auto name = detail::routine_name<T>("gemm");
  detail::require(&A.grid() == &C.grid() && &B.grid() == &C.grid(), 4, name, "A, B and C must share the grid");
  distributed_call(C.grid(), name.c_str(),
                   [&] { hetla::gemm(opa, opb, alpha, A.tiles(), B.tiles(), beta, C.tiles(), opts); });
}

// tau: the panel that computes an entry runs on one process (the owner of
// its diagonal tile), the others keep the zero they started from, so one sum
// over the processes is every entry (exact: x + 0). Complex entries as two
// reals; float through double (exact both ways).
template <typename T> void sum_over_processes(const Grid& g, std::vector<T>& v) {
  constexpr std::size_t parts = is_complex_v<T> ? 2 : 1;
  std::vector<double> d(v.size() * parts);
  for (std::size_t i = 0; i < v.size(); ++i) {
    if constexpr (is_complex_v<T>) {
      d[2 * i] = v[i].real();
      d[2 * i + 1] = v[i].imag();
    } else {
      d[i] = v[i];
    }
  }
  g.sum(d);
  for (std::size_t i = 0; i < v.size(); ++i) {
    if constexpr (is_complex_v<T>) {
      using R = real_t<T>;
      v[i] = T(static_cast<R>(d[2 * i]), static_cast<R>(d[2 * i + 1]));
    } else {
      v[i] = static_cast<T>(d[i]);
    }
  }
}

template <typename T> void geqrf(DistMatrix<T>& A, std::vector<T>& tau, const Options& opts) {
  const auto name = detail::routine_name<T>("geqrf");
  tau.assign(static_cast<std::size_t>(std::min(A.m(), A.n())), T(0));
  // The algorithm file as it is: panel p runs on the owner of tile (p, p)
  // with T_p and Vd_p (tasks/qr_workspace.hpp gives them that owner), the
  // W tile of column j lives with tile (0, j).
  distributed_call(A.grid(), name.c_str(), [&] { hetla::geqrf(A.tiles(), tau.data(), opts); });
  sum_over_processes(A.grid(), tau);
}

template <typename T>
void unmqr(Side side, Op trans, int64_t k, const DistMatrix<T>& A, const std::vector<T>& tau, DistMatrix<T>& C,
           const Options& opts) {
  const auto name = detail::routine_name<T>("unmqr");
  detail::require(&A.grid() == &C.grid(), 6, name, "A and C must share the grid");
  detail::require(static_cast<int64_t>(tau.size()) >= k, 7, name, "tau must hold k entries");
  // larft runs on each panel's diagonal owner: tau must be whole there (it
  // is on every process after mpi::geqrf).
  distributed_call(C.grid(), name.c_str(),
                   [&] { hetla::unmqr(side, trans, k, A.tiles(), tau.data(), C.tiles(), opts); });
}

// LAPACK gels' scaling, on each process's own tiles (between distributed
// calls, nothing to infer): the largest |entry| of rows [0, rows) over the
// processes, and rows [0, rows) times cto / cfrom in steps that neither
// overflow nor underflow (LAPACK's lascl).
template <typename T> real_t<T> max_abs(const DistMatrix<T>& M, int64_t rows) {
  const Matrix<T>& X = M.tiles();
  real_t<T> mx = 0;
  for (int64_t j = 0; j < X.nt(); ++j)
    for (int64_t i = 0; i < X.mt(); ++i) {
      if (!M.is_local(i, j)) continue;
      const auto t = tile::row_range(X, i, j, 0, rows).t;
      for (int64_t c = 0; c < t.nb; ++c)
        for (int64_t r = 0; r < t.mb; ++r) mx = std::max<real_t<T>>(mx, std::abs(t.data[r + c * t.ld]));
    }
  return static_cast<real_t<T>>(M.grid().max(static_cast<double>(mx)));
}

template <typename T> void scale(DistMatrix<T>& M, int64_t rows, real_t<T> cfrom, real_t<T> cto) {
  using R = real_t<T>;
  const R small = std::numeric_limits<R>::min(), big = R(1) / small;
  std::vector<R> muls;  // LAPACK lascl's steps
  for (bool done = false; !done;) {
    const R from1 = cfrom * small;
    R mul;
    if (from1 == cfrom) {  // cfrom is infinite
      mul = cto / cfrom;
      done = true;
    } else if (const R to1 = cto / big; to1 == cto) {  // cto is 0 or infinite
      mul = cto;
      done = true;
    } else if (std::abs(from1) > std::abs(cto) && cto != 0) {
      mul = small;
      cfrom = from1;
    } else if (std::abs(to1) > std::abs(cfrom)) {
      mul = big;
      cto = to1;
    } else {
      mul = cto / cfrom;
      done = true;
    }
    muls.push_back(mul);
  }
  const Matrix<T>& X = M.tiles();
  for (int64_t j = 0; j < X.nt(); ++j)
    for (int64_t i = 0; i < X.mt(); ++i) {
      if (!M.is_local(i, j)) continue;
      const auto t = tile::row_range(X, i, j, 0, rows).t;
      for (const R mul : muls)
        for (int64_t c = 0; c < t.nb; ++c)
          for (int64_t r = 0; r < t.mb; ++r) t.data[r + c * t.ld] *= mul;
    }
}

template <typename T> int64_t gels(Op trans, DistMatrix<T>& A, DistMatrix<T>& B, const Options& opts) {
  const auto name = detail::routine_name<T>("gels");
  detail::check_qr_trans<T>(trans, 1, name);
  const int64_t m = A.m(), n = A.n(), p = std::max(m, n), q = std::min(m, n);
  detail::require(&A.grid() == &B.grid(), 5, name, "A and B must share the grid");
  detail::require(B.m() == p && B.nb() == A.nb(), 5, name, "B must have max(m, n) rows and A's tile size");
  if (q == 0 || B.n() == 0) {  // LAPACK: X = 0
    scale(B, p, real_t<T>(1), real_t<T>(0));
    return 0;
  }
  // hetla::gels' steps (linalg/gels.cc's task code), not hetla::gels
  // itself: it reads R's diagonal and the norms on the caller's host, where
  // a distributed matrix holds only its own tiles. Here: LAPACK's scaling of
  // A and B into [smlnum, bignum] (a zero A gives X = 0) on each process's
  // tiles; the factorization (F = A or A^H = Q R, B = Q^H B when least
  // squares) as one distributed call; the rank check reduced over the
  // processes; the solve as another.
  using R = real_t<T>;
  const R smlnum = std::numeric_limits<R>::min() / std::numeric_limits<R>::epsilon(), bignum = R(1) / smlnum;
  const R anrm = max_abs(A, m);
  int iascl = 0, ibscl = 0;
  if (anrm > 0 && anrm < smlnum) {
    scale(A, m, anrm, smlnum);
    iascl = 1;
  } else if (anrm > bignum) {
    scale(A, m, anrm, bignum);
    iascl = 2;
  } else if (anrm == 0) {
    scale(B, p, R(1), R(0));
    return 0;
  }
  const int64_t brow = trans == Op::NoTrans ? m : n;
  const R bnrm = max_abs(B, brow);
  if (bnrm > 0 && bnrm < smlnum) {
    scale(B, brow, bnrm, smlnum);
    ibscl = 1;
  } else if (bnrm > bignum) {
    scale(B, brow, bnrm, bignum);
    ibscl = 2;
  }
  // F = A (m >= n) or A^H, n x m on the same grid
  std::optional<DistMatrix<T>> At;
  if (m < n) At.emplace(A.grid(), n, m, A.nb());
  const DistMatrix<T>& Fd = m >= n ? A : *At;
  const Matrix<T>& F = Fd.tiles();
  // T and Vd of each panel (with its diagonal owner, tasks/qr_workspace.hpp)
  // and the W tiles live across both calls; tau is only the panels' scratch
  // here (R's T is built by the panel task), so it need not be whole.
  tile::Reflectors<T> Refl(F, q);
  auto work_f = tile::LarfbWork<T>::left(F);
  auto work_b = tile::LarfbWork<T>::left(B.tiles());
  std::vector<T> tau(static_cast<std::size_t>(q), T(0));
  distributed_call(A.grid(), name.c_str(), [&] {
    detail::CallScope scope(/*exclusive=*/true);  // attaches a communicator to the runtime
    detail::gels_factor_tasks(scope.rt(), trans, A.tiles(), Refl, tau.data(), B.tiles(), work_f, work_b,
                              opts.distribution);
    scope.rt().wait_all();
  });
  int64_t zero = std::numeric_limits<int64_t>::max();  // first zero on R's diagonal, 1-based
  for (int64_t d = 0; d < std::min(F.mt(), F.nt()); ++d) {
    if (!Fd.is_local(d, d)) continue;
    const Tile<T> t = F.tile(d, d);
    for (int64_t i = 0; i < std::min(t.mb, t.nb) && F.row_offset(d) + i < q; ++i)
      if (t.data[i + i * t.ld] == T(0)) {
        zero = std::min(zero, F.row_offset(d) + i + 1);
        break;
      }
  }
  zero = A.grid().min(zero);
  if (zero != std::numeric_limits<int64_t>::max()) return zero;  // LAPACK trtrs: A not of full rank
  distributed_call(A.grid(), name.c_str(), [&] {
    detail::CallScope scope(/*exclusive=*/true);  // attaches a communicator to the runtime
    detail::gels_solve_tasks(scope.rt(), trans, m, n, Refl, B.tiles(), work_b);
    scope.rt().wait_all();
  });
  const int64_t scllen = detail::gels_least_squares(trans, m, n) ? q : p;
  if (iascl == 1) scale(B, scllen, anrm, smlnum);
  if (iascl == 2) scale(B, scllen, anrm, bignum);
  if (ibscl == 1) scale(B, scllen, smlnum, bnrm);
  if (ibscl == 2) scale(B, scllen, bignum, bnrm);
  return 0;
}

#define HETLA_INSTANTIATE(T)                                                     \
  template int64_t potrf<T>(Uplo, DistMatrix<T>&, const Options&);               \
  template void potrs<T>(Uplo, const DistMatrix<T>&, DistMatrix<T>&, const Options&); \
  template int64_t posv<T>(Uplo, DistMatrix<T>&, DistMatrix<T>&, const Options&); \
  template void gemm<T>(Op, Op, T, const DistMatrix<T>&, const DistMatrix<T>&, T, DistMatrix<T>&, const Options&); \
  template int64_t getrf<T>(DistMatrix<T>&, std::vector<int64_t>&, const Options&);                              \
  template void getrs<T>(Op, const DistMatrix<T>&, const std::vector<int64_t>&, DistMatrix<T>&, const Options&);  \
  template int64_t gesv<T>(DistMatrix<T>&, std::vector<int64_t>&, DistMatrix<T>&, const Options&);               \
  template void geqrf<T>(DistMatrix<T>&, std::vector<T>&, const Options&);                                       \
  template void unmqr<T>(Side, Op, int64_t, const DistMatrix<T>&, const std::vector<T>&, DistMatrix<T>&,          \
                         const Options&);                                                                        \
  template int64_t gels<T>(Op, DistMatrix<T>&, DistMatrix<T>&, const Options&);
HETLA_FOR_EACH_PRECISION(HETLA_INSTANTIATE)
#undef HETLA_INSTANTIATE

}  // namespace hetla::mpi
