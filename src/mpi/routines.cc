#include "mpi/routines.hpp"

#include <limits>
#include <stdexcept>
#include <string>

#include "context/context.hpp"
#include "hetla/blas3.hpp"
#include "hetla/linalg.hpp"
#include "hetla/lu.hpp"
#include "runtime/comm.hpp"
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
    detail::CallScope scope;
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

#define HETLA_INSTANTIATE(T)                                                     \
  template int64_t potrf<T>(Uplo, DistMatrix<T>&, const Options&);               \
  template void potrs<T>(Uplo, const DistMatrix<T>&, DistMatrix<T>&, const Options&); \
  template int64_t posv<T>(Uplo, DistMatrix<T>&, DistMatrix<T>&, const Options&); \
  template void gemm<T>(Op, Op, T, const DistMatrix<T>&, const DistMatrix<T>&, T, DistMatrix<T>&, const Options&); \
  template int64_t getrf<T>(DistMatrix<T>&, std::vector<int64_t>&, const Options&);                              \
  template void getrs<T>(Op, const DistMatrix<T>&, const std::vector<int64_t>&, DistMatrix<T>&, const Options&);  \
  template int64_t gesv<T>(DistMatrix<T>&, std::vector<int64_t>&, DistMatrix<T>&, const Options&);
HETLA_FOR_EACH_PRECISION(HETLA_INSTANTIATE)
#undef HETLA_INSTANTIATE

}  // namespace hetla::mpi
