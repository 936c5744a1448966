/* libhetla_scalapack: ScaLAPACK's Fortran names over hetla's distributed
 * routines, for programs that call ScaLAPACK: link -lhetla_scalapack before
 * ScaLAPACK (pkg-config hetla-scalapack) or LD_PRELOAD it (docs/mpi.md).
 * Exported, in s/d/c/z: p?potrf p?potrs p?posv p?gemm. A call runs on hetla
 * when every process of the grid can (dense block-cyclic descriptors,
 * mb = nb, the same block size for every matrix, rsrc = csrc = 0, ia = ja =
 * 1, valid arguments) and the call is not small (HETLA_SCALAPACK_CROSSOVER,
 * default 500: the cube root of n^3, m n k, ...); otherwise, and for every
 * other name, the real ScaLAPACK routine runs (and reports invalid
 * arguments through pxerbla).
 * HETLA_SCALAPACK_LOG=1: grid process (0, 0) prints where each call went.
 */
#ifndef HETLA_SCALAPACK_H
#define HETLA_SCALAPACK_H

#ifdef __cplusplus
extern "C" {
#endif

/** Calls of this process that ran on hetla (on_hetla != 0) or were passed
 *  to ScaLAPACK (0), including the calls ScaLAPACK's routines make to these
 *  names, since the program started. */
long hetla_scalapack_calls(int on_hetla);

#ifdef __cplusplus
}
#endif

#endif /* HETLA_SCALAPACK_H */
