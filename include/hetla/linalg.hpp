/// @file
/// Dense linear algebra on tile matrices and on column-major arrays.
/// Conventions follow LAPACK: the return value is `info` (0 = success, k > 0 =
/// numerical failure at k); invalid arguments throw hetla::ArgumentError (a
/// std::invalid_argument) naming the LAPACK argument position.
#pragma once
#include <cstdint>
#include <string>

#include "hetla/context.hpp"
#include "hetla/matrix.hpp"
#include "hetla/types.hpp"

namespace hetla {

/// Per-call options.
struct Options {
  int64_t nb = 0;  ///< tile size (column-major overloads); 0 = chosen from the size and precision
  Distribution distribution = Distribution::Default;  ///< Default: the context's (Config)
  /// Forced work split of gemm (blas3.hpp) by device name, e.g.
  /// "cpu=0.4,emu0=0.6" (unlisted devices get none); empty: see gemm_split.
  std::string weights = {};
  /// Tile sizes that shrink towards the end of a factorization (potrf, getrf,
  /// geqrf column-major overloads; see variable_tiling): 1 on (Options::nb, if
  /// given, is the first size), 0 off, -1 the default: on when the variable
  /// HETLA_VARIABLE_TILES is 1 and nb is 0 (off by default: see README).
  int variable_tiles = -1;
};

/// Tile size used when Options::nb == 0: the one `hetla tune --tiles` stored
/// for the nearest n within a factor 2, else the built-in size, and past the
/// largest tuned n at least the size tuned there.
template <typename T> int64_t default_tile_size(int64_t n);
/// Tile size a factorization with `panels` uses when Options::nb == 0: as
/// above, except on a context of host cores alone, where QR (geqrf, gels,
/// ungqr, unmqr) takes tiles of at most 128, LU (getrf, getrs, gesv) 192, and
/// Cholesky (potrf) keeps 128 down to 3 tile columns per worker (the general
/// size halves it below 4).
template <typename T> int64_t default_tile_size(int64_t n, Panels panels);
/// Tile size a factorization of an m x n matrix with `panels` uses when
/// Options::nb == 0: default_tile_size(min(m, n), panels), except a tall and
/// skinny QR (m >= 4 n, n <= 768) on host cores alone, which takes 96.
template <typename T> int64_t default_tile_size(int64_t m, int64_t n, Panels panels);

/// A tiling whose sizes shrink during a factorization of an m x n matrix
/// (seed 002 Fig. 2b): each tile column takes the default tile size of the
/// trailing order left at its position (tuned, else built in), halved while
/// fewer than 4 tile columns per worker would remain, never larger than the
/// tile before it nor below a quarter of the first (nb, 0: the default
/// tile size of min(m, n)). Its sizes cover min(m, n) once; the longer side's
/// further tiles repeat them from the first (large) one.
template <typename T> Tiling variable_tiling(int64_t m, int64_t n, Panels panels = Panels::Cholesky, int64_t nb = 0);

/// The two-level hybrid tiling (seed 004) of an order-n problem for the
/// current context's devices: small host tiles of size nb (0: the default
/// tile size) and one large tile per accelerator and round, its size following
/// the device's capability weight less the host's `panels`. Cut a Matrix with
/// it and pass Distribution::Hybrid to the factorizations and solvers (potrf,
/// getrf, geqrf and their solvers, trsm); their column-major overloads do
/// this themselves under Distribution::Hybrid.
template <typename T> Tiling hybrid_tiling(int64_t n, int64_t nb = 0, Panels panels = Panels::Cholesky);

// ---- Cholesky: A = L L^H (Lower) or U^H U (Upper); only `uplo` is referenced.
/// Returns info: 0, or k > 0 if the leading minor of order k is not positive
/// definite (columns before the failing tile column hold the partial factor).
template <typename T> int64_t potrf(Uplo uplo, Matrix<T>& A, const Options& opts = {});
/// Column-major A(lda, n) (LAPACK xPOTRF).
template <typename T> int64_t potrf(Uplo uplo, int64_t n, T* A, int64_t lda, const Options& opts = {});

/// Solves A X = B with the factor from potrf; B is overwritten by X.
template <typename T> void potrs(Uplo uplo, const Matrix<T>& A, Matrix<T>& B, const Options& opts = {});
/// Column-major A(lda, n), B(ldb, nrhs) (LAPACK xPOTRS).
template <typename T>
void potrs(Uplo uplo, int64_t n, int64_t nrhs, const T* A, int64_t lda, T* B, int64_t ldb,
           const Options& opts = {});

/// Factors A and solves A X = B; returns potrf's info (B untouched if info > 0).
template <typename T> int64_t posv(Uplo uplo, Matrix<T>& A, Matrix<T>& B, const Options& opts = {});
/// Column-major A(lda, n), B(ldb, nrhs) (LAPACK xPOSV).
template <typename T>
int64_t posv(Uplo uplo, int64_t n, int64_t nrhs, T* A, int64_t lda, T* B, int64_t ldb,
             const Options& opts = {});

/// B = alpha op(A)^-1 B with A triangular (tile algorithm, Side::Left).
template <typename T>
void trsm_left(Uplo uplo, Op op, Diag diag, T alpha, const Matrix<T>& A, Matrix<T>& B, const Options& opts = {});

}  // namespace hetla
