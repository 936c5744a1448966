// Task-inserting building blocks shared by the QR routines (geqrf, unmqr,
// ungqr, gels). They only insert tasks: the caller holds the CallScope, keeps
// the reflectors and workspaces alive and calls wait_all().
#pragma once
#include "hetla/linalg.hpp"
#include "memory/distribution.hpp"
#include "tasks/qr.hpp"
#include "util/check_args.hpp"

namespace hetla::detail {

/// Householder QR of A: V and R over A, tau[0, min(m, n)), T and Vd of every
/// panel into R (built on A with k = min(m, n)).
template <typename T>
void geqrf_tasks(rt::Runtime& rt, const tile::Reflectors<T>& R, T* tau, tile::LarfbWork<T>& work);

/// T and Vd of every panel of R from the vectors in R.A() and their tau.
template <typename T> void larft_tasks(rt::Runtime& rt, const tile::Reflectors<T>& R, const T* tau);

/// C = op(Q) C (Side::Left) or C op(Q) (Side::Right), Q = H_1 ... H_k the
/// product of R's block reflectors; `work` from LarfbWork::left/right(C).
template <typename T>
void unmqr_tasks(rt::Runtime& rt, Side side, Op op, const tile::Reflectors<T>& R, const Matrix<T>& C,
                 tile::LarfbWork<T>& work);

/// gels (LAPACK's, linalg/gels.cc) is least squares when op(A) = F, the
/// matrix it factors (F = A for m >= n, A^H for m < n).
inline bool gels_least_squares(Op trans, int64_t m, int64_t n) { return (trans == Op::NoTrans) == (m >= n); }

/// gels' factorization: F = R.A() (A itself for m >= n, else an n x m matrix
/// cut as A transposed that receives A^H) = Q R over F, R built on F with
/// k = min(m, n); B = Q^H B when least squares; for m < n, A receives its LQ
/// factorization in gelqf's storage. Single-process and distributed
/// (mpi::gels) alike: tasks only; the caller checks R's diagonal in between.
template <typename T>
void gels_factor_tasks(rt::Runtime& rt, Op trans, const Matrix<T>& A, const tile::Reflectors<T>& R, T* tau,
                       const Matrix<T>& B, tile::LarfbWork<T>& work_f, tile::LarfbWork<T>& work_b, Distribution dist);

/// gels' solve after gels_factor_tasks (R of full rank): least squares
/// X = R^-1 B(1:q); minimum norm X = Q [R^-H B(1:q); 0]. X in B.
template <typename T>
void gels_solve_tasks(rt::Runtime& rt, Op trans, int64_t m, int64_t n, const tile::Reflectors<T>& R,
                      const Matrix<T>& B, tile::LarfbWork<T>& work_b);

/// Rows [r0, r1) of A set to zero (tasks).
template <typename T> void gels_zero_rows(rt::Runtime& rt, const Matrix<T>& A, int64_t r0, int64_t r1);

/// Owners of C's tiles for owner-computes scheduling (memory/distribution.hpp),
/// and of the W tiles of `work` when it is LarfbWork::left(C): W's tile column
/// j goes with C's tile column j, so an update's W stays where its column is.
template <typename T>
void distribute_qr(rt::Runtime& rt, const Matrix<T>& C, const tile::LarfbWork<T>* left_work, Distribution dist,
                   const Workload& load = {}) {
  distribute(rt, C, dist, load);
  if (left_work)
    for (int s = 0; s < 2; ++s)
      for (int64_t j = 0; j < C.nt(); ++j) left_work->w(s, j).h->home = C.handle(0, j)->home;
}

/// LAPACK's trans check: 'N' or 'C' ('T' for real types, where both agree).
template <typename T> inline void check_qr_trans(Op op, int arg, const std::string& name) {
  const bool ok = op == Op::NoTrans || op == Op::ConjTrans || (op == Op::Trans && !is_complex_v<T>);
  require(ok, arg, name, is_complex_v<T> ? "trans must be NoTrans or ConjTrans" : "trans must be NoTrans or Trans");
}

}  // namespace hetla::detail
