/* libhetla_lapack: the Fortran LAPACK/BLAS names (dpotrf_, dgemm_, ...) over
 * hetla, for programs that call LAPACK: link -lhetla_lapack before the vendor
 * LAPACK (pkg-config hetla-lapack, CMake hetla::lapack) or LD_PRELOAD it.
 * Exported, in s/d/c/z: potrf potrs posv getrf getrs gesv geqrf ormqr/unmqr
 * orgqr/ungqr gels gemm trsm syrk, and herk (c/z). Everything else resolves
 * to the vendor library. Below a crossover size a call goes straight to the
 * vendor routine in the calling thread; calls made from inside hetla (its
 * worker threads, its own vendor calls) always do.
 *
 * The crossover is an "n": the cube root of the product of the sizes that
 * set the routine's flops (potrf n^3, getrf m n min(m,n), gemm m n k, potrs
 * n^2 nrhs, ...). Defaults are built in; the environment overrides them at
 * the first call: HETLA_LAPACK_CROSSOVER (every routine),
 * HETLA_LAPACK_CROSSOVER_POTRF (one routine, every precision),
 * HETLA_LAPACK_CROSSOVER_DPOTRF (one). 0 sends every non-empty call to hetla.
 */
#ifndef HETLA_LAPACK_H
#define HETLA_LAPACK_H

#ifdef __cplusplus
extern "C" {
#endif

/** The crossover of one routine and precision ("dpotrf", "zunmqr", either
 *  case), or -1 for a name this library does not export. */
int hetla_lapack_crossover(const char* routine);

/** Sets the crossover to n >= 0 for "dpotrf" (one precision), "potrf" (all
 *  four) or "all" / NULL (every routine). Returns 0, -1 for an unknown name,
 *  -2 for n < 0. Thread-safe; calls already running are not affected. */
int hetla_lapack_set_crossover(const char* routine, int n);

#ifdef __cplusplus
}
#endif

#endif /* HETLA_LAPACK_H */
