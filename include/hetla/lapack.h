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
 * n^2 nrhs, ...). Defaults are built in, replaced by those `hetla tune
 * --crossover` measured with this BLAS (potrf, getrf, geqrf and the solvers
 * that follow them); the environment overrides both at the first call: HETLA_LAPACK_CROSSOVER (every routine),
 * HETLA_LAPACK_CROSSOVER_POTRF (one routine, every precision),
 * HETLA_LAPACK_CROSSOVER_DPOTRF (one). 0 sends every non-empty call to hetla.
 *
 * Every name is also exported with 64-bit integers (ILP64) under the `_64_`
 * suffix (dpotrf_64_, dgemm_64_, ...: every INTEGER argument, info and ipiv
 * an int64_t), as OpenBLAS's 64-bit builds and Julia's libblastrampoline
 * name them. Their vendor is an ILP64 LAPACK: the process's own `_64_` names,
 * else $HETLA_LAPACK_VENDOR64 (a library path; "none": no ILP64 vendor),
 * else libopenblas64.so.0 (Debian's libopenblas64-0-pthread), opened
 * privately. Without one, a `_64_` call whose integers fit in 32 bits goes to
 * the LP64 vendor, and one that does not runs on hetla's path at any size.
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

/** Where the `_64_` names go below the crossover: "libopenblas64.so.0
 *  (ILP64)", "the process's _64_ names (ILP64)", or "LP64 vendor (32-bit
 *  sizes; larger ones on hetla's path)". Resolved at the first call. */
const char* hetla_lapack_vendor64(void);

#ifdef __cplusplus
}
#endif

#endif /* HETLA_LAPACK_H */
