"""hetla: heterogeneous tile linear algebra for numpy users.

The routines take the names and shapes of scipy.linalg (``hetla.cholesky`` is
``scipy.linalg.cholesky``, ``hetla.lu_factor`` is ``scipy.linalg.lu_factor``,
...) and run on every device of the library context: the host cores and any
accelerator given to :func:`init`. Arrays of float32, float64, complex64 and
complex128 are accepted; other dtypes are converted to float64 (or
complex128), as scipy does. A leading batch dimension (``a.shape == (k, n, n)``)
factors or solves each matrix in turn.

Memory: the library computes on Fortran-ordered arrays. A Fortran-ordered
input with ``overwrite_a=True`` is worked on in place (no copy); anything else
(C order, non-contiguous views, read-only arrays) is copied once.
"""
from ._core import LinAlgError, init, finalize, config, info, trace, version
from ._linalg import (cholesky, cho_factor, cho_solve, lu_factor, lu_solve, lu, qr, solve, lstsq,
                      matmul, gemm, expm, cosm, sinm, matpoly)
from ._bench import bench

__all__ = ["LinAlgError", "init", "finalize", "config", "info", "trace", "version", "cholesky", "cho_factor",
           "cho_solve", "lu_factor", "lu_solve", "lu", "qr", "solve", "lstsq", "matmul", "gemm", "expm", "cosm",
           "sinm", "matpoly", "bench"]
__version__ = version()
