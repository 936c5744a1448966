// Argument checks shared by the algorithms (LAPACK argument numbering).
#pragma once
#include <algorithm>
#include <string>

#include "hetla/matrix.hpp"
#include "hetla/types.hpp"

namespace hetla::detail {

inline void require(bool ok, int arg, const std::string& routine, const std::string& what) {
  if (!ok) throw ArgumentError(arg, routine, what);
}
// The message made only on failure: a literal past 15 characters as a
// std::string is a malloc and free on every call, 30 % of a zpotrf n = 1
// through hetla::potrf (perf; check_uplo and check_ld each made one).
inline void require(bool ok, int arg, const std::string& routine, const char* what) {
  if (!ok) throw ArgumentError(arg, routine, what);
}
inline void check_uplo(Uplo u, int arg, const std::string& routine) {
  require(u == Uplo::Lower || u == Uplo::Upper, arg, routine, "uplo must be Lower or Upper");
}
inline void check_ld(int64_t ld, int64_t rows, int arg, const std::string& routine, const char* name) {
  if (ld < std::max<int64_t>(1, rows)) require(false, arg, routine, std::string(name) + " < max(1, rows)");
}
/// Routines whose tile loops assume one tile size reject hybrid tilings.
template <typename T> void require_uniform(const Matrix<T>& A, int arg, const std::string& routine) {
  require(A.uniform_tiles(), arg, routine,
          "hybrid tilings are taken by the factorizations, their solvers and trsm only: cut this matrix in uniform "
          "tiles");
}
/// B's rows are cut as A's (uniform tiles: the same nb; hybrid: the same pattern).
template <typename T> bool same_tiling(const Matrix<T>& A, const Matrix<T>& B) {
  return A.tiling().sizes == B.tiling().sizes;
}
template <typename T> std::string routine_name(const char* base) {
  return std::string(1, precision_letter<T>()) + base;
}

}  // namespace hetla::detail
