"""scipy.linalg-shaped routines over the compiled core.

Each routine converts its inputs once (dtype, Fortran order, finiteness),
calls ``_hetla`` on them in place and shapes the result as scipy does. A
leading batch dimension is looped over here, one library call per matrix.
"""
import warnings

import numpy as np

from . import _hetla
from ._core import LinAlgError

_SUPPORTED = (np.float32, np.float64, np.complex64, np.complex128)


def _dtype_of(*arrays):
    """The dtype the library computes in: the arrays' common type if supported, else float64 / complex128."""
    t = np.result_type(*arrays)
    if t.type in _SUPPORTED:
        return t
    return np.dtype(np.complex128 if np.issubdtype(t, np.complexfloating) else np.float64)


def _fortran(a, dtype, overwrite, check_finite, name="a"):
    """A writeable Fortran-ordered array of `dtype` holding `a`: `a` itself when
    overwrite is allowed and it already is one (zero copy), else one copy."""
    a = np.asarray(a)
    if a.dtype.kind not in "biufc":
        raise ValueError(f"{name}: dtype {a.dtype} is not numeric")
    if check_finite and not np.isfinite(a).all():
        raise ValueError(f"{name}: array must not contain infs or NaNs")
    if overwrite and a.dtype == dtype and a.flags.f_contiguous and a.flags.writeable:
        return a
    return np.array(a, dtype=dtype, order="F", copy=True)


def _square(a, name="a"):
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"{name}: expected a square matrix, got shape {a.shape}")


def _batched(fn):
    """Applies a 2-D routine to each matrix of a leading batch dimension and stacks the results."""

    def wrapper(a, *args, **kwargs):
        a = np.asarray(a)
        if a.ndim != 3:
            return fn(a, *args, **kwargs)
        results = [fn(a[i], *args, **kwargs) for i in range(a.shape[0])]
        if isinstance(results[0], tuple):
            return tuple(np.stack(parts) if isinstance(parts[0], np.ndarray) else parts[0]
                         for parts in zip(*results))
        return np.stack(results)

    wrapper.__name__, wrapper.__doc__ = fn.__name__, fn.__doc__
    return wrapper


def _rhs(b, n, dtype, overwrite, check_finite):
    """B as a Fortran n x nrhs matrix, and whether it was a vector."""
    b = np.asarray(b)
    vector = b.ndim == 1
    if b.ndim not in (1, 2) or b.shape[0] != n:
        raise ValueError(f"b: expected {n} rows, got shape {b.shape}")
    B = _fortran(b.reshape(n, 1) if vector else b, dtype, overwrite and not vector, check_finite, "b")
    return B, vector


def _not_positive_definite(info):
    return LinAlgError(f"{info}-th leading minor of the array is not positive definite", info)


# ---- Cholesky --------------------------------------------------------------


@_batched
def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """The Cholesky factor of a Hermitian positive definite matrix (scipy.linalg.cholesky).

    Returns L with a = L L^H (lower=True) or U with a = U^H U; the other
    triangle is zero. Raises hetla.LinAlgError (info = failing minor) if a is
    not positive definite.
    """
    A = _fortran(a, _dtype_of(a), overwrite_a, check_finite)
    _square(A)
    info = _hetla.potrf(A, lower)
    if info > 0:
        raise _not_positive_definite(info)
    _hetla.zero_triangle(A, lower)
    return A


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """(c, lower) for cho_solve (scipy.linalg.cho_factor); the unused triangle of c holds a's entries."""
    A = _fortran(a, _dtype_of(a), overwrite_a, check_finite)
    _square(A)
    info = _hetla.potrf(A, lower)
    if info > 0:
        raise _not_positive_definite(info)
    return A, lower


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """Solves a x = b given cho_factor(a) (scipy.linalg.cho_solve)."""
    c, lower = c_and_lower
    c = np.asarray(c)
    _square(c, "c")
    dtype = _dtype_of(c, b)
    C = _fortran(c, dtype, True, check_finite, "c")
    B, vector = _rhs(b, c.shape[0], dtype, overwrite_b, check_finite)
    _hetla.potrs(C, B, lower)
    return B[:, 0] if vector else B


# ---- LU --------------------------------------------------------------------


def _getrf(a, overwrite_a, check_finite):
    A = _fortran(a, _dtype_of(a), overwrite_a, check_finite)
    if A.ndim != 2:
        raise ValueError(f"a: expected a 2-D array, got shape {A.shape}")
    ipiv = np.empty(min(A.shape), dtype=np.int64)
    info = _hetla.getrf(A, ipiv)
    return A, ipiv, info


def lu_factor(a, overwrite_a=False, check_finite=True):
    """(lu, piv) with 0-based pivots, as scipy.linalg.lu_factor.

    Like scipy, an exactly singular matrix gives a LinAlgWarning naming the zero
    diagonal element; the factorization is complete.
    """
    A, ipiv, info = _getrf(a, overwrite_a, check_finite)
    if info > 0:
        warnings.warn(f"Diagonal number {info} is exactly zero. Singular matrix.", _linalg_warning(), stacklevel=2)
    return A, (ipiv - 1).astype(np.int32)


def _linalg_warning():
    try:
        from scipy.linalg import LinAlgWarning
        return LinAlgWarning
    except ImportError:  # scipy is optional
        return RuntimeWarning


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """Solves a x = b (trans 0), a^T x = b (1) or a^H x = b (2) given lu_factor(a)."""
    lu, piv = lu_and_piv
    lu = np.asarray(lu)
    _square(lu, "lu")
    if trans not in (0, 1, 2):
        raise ValueError("trans must be 0, 1 or 2")
    dtype = _dtype_of(lu, b)
    LU = _fortran(lu, dtype, True, check_finite, "lu")
    B, vector = _rhs(b, lu.shape[0], dtype, overwrite_b, check_finite)
    _hetla.getrs(LU, np.ascontiguousarray(piv, dtype=np.int64) + 1, B, "NTC"[trans])
    return B[:, 0] if vector else B


def lu(a, permute_l=False, overwrite_a=False, check_finite=True):
    """(P, L, U) with a = P L U, or (P L, U) with permute_l (scipy.linalg.lu)."""
    A, ipiv, _ = _getrf(a, overwrite_a, check_finite)
    m, n = A.shape
    k = min(m, n)
    perm = np.arange(m)
    for i, p in enumerate(ipiv - 1):  # LAPACK's interchanges, in order
        perm[i], perm[p] = perm[p], perm[i]
    L = np.array(A[:, :k], order="F")
    _hetla.zero_triangle(L, True)
    L[np.arange(k), np.arange(k)] = 1
    U = np.array(A[:k, :], order="F")
    _hetla.zero_triangle(U, False)
    P = np.eye(m, dtype=A.dtype)[:, perm]  # rows of P^T a = L U are a[perm]
    return (P @ L, U) if permute_l else (P, L, U)


# ---- QR and least squares --------------------------------------------------


def qr(a, overwrite_a=False, lwork=None, mode="full", pivoting=False, check_finite=True):
    """QR decomposition, as scipy.linalg.qr: mode 'full' (Q m x m), 'economic' (Q m x k), 'r' ((R,)) or
    'raw' (((a, tau), R)). Column pivoting is not supported."""
    if pivoting:
        raise NotImplementedError("hetla.qr: pivoting=True is not supported")
    if mode not in ("full", "economic", "r", "raw"):
        raise ValueError("mode must be 'full', 'economic', 'r' or 'raw'")
    A = _fortran(a, _dtype_of(a), overwrite_a, check_finite)
    if A.ndim != 2:
        raise ValueError(f"a: expected a 2-D array, got shape {A.shape}")
    m, n = A.shape
    k = min(m, n)
    tau = np.empty(k, dtype=A.dtype)
    _hetla.geqrf(A, tau)
    R = np.array(A if mode == "full" else A[:k, :], order="F")
    _hetla.zero_triangle(R, False)
    if mode == "r":
        return (R,)
    if mode == "raw":
        return (A, tau), R
    cols = m if mode == "full" else k
    Q = np.zeros((m, cols), dtype=A.dtype, order="F")
    Q[:, :k] = A[:, :k]
    _hetla.ungqr(Q, k, tau)
    return Q, R


def lstsq(a, b, cond=None, overwrite_a=False, overwrite_b=False, check_finite=True, lapack_driver=None):
    """Least squares / minimum norm solution of a x = b for a full-rank a (LAPACK gels, a QR).

    Returns (x, residues, rank, s) as scipy.linalg.lstsq, except that s (the
    singular values) is None: no SVD is computed. A rank-deficient a raises
    hetla.LinAlgError (scipy's SVD drivers would return a minimum-norm answer).
    """
    if cond is not None or lapack_driver not in (None, "gels"):
        raise NotImplementedError("hetla.lstsq: only the QR driver (gels) without cond is supported")
    a = np.asarray(a)
    if a.ndim != 2:
        raise ValueError(f"a: expected a 2-D array, got shape {a.shape}")
    m, n = a.shape
    b = np.asarray(b)
    vector = b.ndim == 1
    if b.ndim not in (1, 2) or b.shape[0] != m:
        raise ValueError(f"b: expected {m} rows, got shape {b.shape}")
    dtype = _dtype_of(a, b)
    A = _fortran(a, dtype, overwrite_a, check_finite)
    b2 = b.reshape(m, 1) if vector else b
    if check_finite and not np.isfinite(b2).all():
        raise ValueError("b: array must not contain infs or NaNs")
    B = np.zeros((max(m, n), b2.shape[1]), dtype=dtype, order="F")
    B[:m] = b2
    info = _hetla.gels(A, B, "N")
    if info > 0:
        raise LinAlgError(f"diagonal element {info} of the triangular factor is zero: a is rank deficient", info)
    x = B[:n]
    if m > n:
        residues = (np.abs(B[n:]) ** 2).sum(axis=0)
    else:
        residues = np.empty((0,), dtype=np.abs(B[:0]).dtype)
    if vector:
        x = x[:, 0]
        if m > n:
            residues = residues[0]
    return x, residues, min(m, n), None


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True, assume_a="gen",
          transposed=False):
    """Solves a x = b (scipy.linalg.solve): assume_a 'gen' (LU with partial pivoting), 'pos' (Cholesky);
    'sym' and 'her' are solved as 'gen'. Raises hetla.LinAlgError for a singular (or, with 'pos', not
    positive definite) a."""
    if assume_a not in ("gen", "sym", "her", "pos"):
        raise ValueError("assume_a must be 'gen', 'sym', 'her' or 'pos'")
    a = np.asarray(a)
    _square(a)
    dtype = _dtype_of(a, b)
    A = _fortran(a, dtype, overwrite_a, check_finite)
    B, vector = _rhs(b, a.shape[0], dtype, overwrite_b, check_finite)
    if assume_a == "pos":
        info = _hetla.potrf(A, lower)
        if info > 0:
            raise _not_positive_definite(info)
        _hetla.potrs(A, B, lower)
    else:
        ipiv = np.empty(a.shape[0], dtype=np.int64)
        info = _hetla.getrf(A, ipiv)
        if info > 0:
            raise LinAlgError("Matrix is singular.", info)
        trans = ("C" if np.iscomplexobj(A) else "T") if transposed else "N"
        _hetla.getrs(A, ipiv, B, trans)
    return B[:, 0] if vector else B


# ---- products and matrix functions ----------------------------------------


def gemm(alpha, a, b, beta=0.0, c=None, trans_a=0, trans_b=0, overwrite_c=False):
    """alpha op(a) op(b) + beta c, as scipy.linalg.blas.?gemm (trans 0 = N, 1 = T, 2 = C)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError("gemm: a and b must be 2-D")
    if trans_a not in (0, 1, 2) or trans_b not in (0, 1, 2):
        raise ValueError("trans_a and trans_b must be 0, 1 or 2")
    dtype = _dtype_of(a, b) if c is None else _dtype_of(a, b, c)
    A = _fortran(a, dtype, True, False, "a")
    B = _fortran(b, dtype, True, False, "b")
    m = A.shape[0] if trans_a == 0 else A.shape[1]
    k = A.shape[1] if trans_a == 0 else A.shape[0]
    kb, n = (B.shape[0], B.shape[1]) if trans_b == 0 else (B.shape[1], B.shape[0])
    if k != kb:
        raise ValueError(f"gemm: inner dimensions differ ({k} and {kb})")
    if c is None:
        C, beta = np.zeros((m, n), dtype=dtype, order="F"), 0.0
    else:
        C = _fortran(c, dtype, overwrite_c, False, "c")
        if C.shape != (m, n):
            raise ValueError(f"gemm: c has shape {C.shape}, expected {(m, n)}")
    _hetla.gemm("NTC"[trans_a], "NTC"[trans_b], alpha, A, B, beta, C)
    return C


def matmul(a, b):
    """a @ b for 2-D matrices (a leading batch dimension is looped over); vectors are promoted as numpy does."""
    a, b = np.asarray(a), np.asarray(b)
    if a.ndim == 3 or b.ndim == 3:
        k = a.shape[0] if a.ndim == 3 else b.shape[0]
        return np.stack([matmul(a[i] if a.ndim == 3 else a, b[i] if b.ndim == 3 else b) for i in range(k)])
    if a.ndim == 1 or b.ndim == 1:
        out = matmul(a.reshape(1, -1) if a.ndim == 1 else a, b.reshape(-1, 1) if b.ndim == 1 else b)
        return out.reshape([d for d, v in ((out.shape[0], a.ndim != 1), (out.shape[1], b.ndim != 1)) if v])
    return gemm(1.0, a, b)


def _matfun(name, a):
    a = np.asarray(a)
    if a.ndim == 3:
        return np.stack([_matfun(name, x) for x in a])
    A = _fortran(a, _dtype_of(a), True, True)
    _square(A)
    out = np.empty_like(A, order="F")
    getattr(_hetla, name)(A, out)
    return out


def expm(a):
    """The matrix exponential (scipy.linalg.expm): scaling and squaring with a Padé approximant."""
    return _matfun("expm", a)


def cosm(a):
    """The matrix cosine (scipy.linalg.cosm)."""
    return _matfun("cosm", a)


def sinm(a):
    """The matrix sine (scipy.linalg.sinm)."""
    return _matfun("sinm", a)


def matpoly(coeffs, a, method="paterson-stockmeyer"):
    """sum_i coeffs[i] a^i (coeffs[0] is the constant term; numpy.polynomial order).

    method: 'paterson-stockmeyer' (about 2 sqrt(d) products) or 'horner' (d - 1).
    """
    a = np.asarray(a)
    if a.ndim == 3:
        return np.stack([matpoly(coeffs, x, method) for x in a])
    dtype = _dtype_of(a, np.asarray(coeffs))
    A = _fortran(a, dtype, False, True)
    _square(A)
    c = np.ascontiguousarray(coeffs, dtype=dtype).reshape(-1)
    out = np.empty_like(A, order="F")
    _hetla.matpoly(A, c, out, method)
    return out
