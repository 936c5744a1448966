"""scipy.linalg-shaped routines over the compiled core.

The factorizations and solves hand their inputs to ``_hetla`` as they are
(after a dtype conversion where needed): the compiled core makes the one
Fortran-ordered copy, checks finiteness in the same pass and calls the
library, so that a small call costs about one Python -> C++ crossing more than
the vendor routine. A leading batch dimension is looped over here, one
library call per matrix.
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
        return np.dtype(t.type)  # native byte order, as the library computes
    return np.dtype(np.complex128 if np.issubdtype(t, np.complexfloating) else np.float64)


def _numeric(a, name):
    if a.dtype.kind not in "biufc":
        raise ValueError(f"{name}: dtype {a.dtype} is not numeric")


def _typed(a, overwrite, name="a"):
    """(a as an ndarray of a supported dtype, whether it may be overwritten): a
    itself, or a converted copy (float64 or complex128, as scipy), which may."""
    if type(a) is not np.ndarray:
        a = np.asarray(a)
    if a.dtype.char in "fdFD" and a.dtype.isnative:
        return a, overwrite
    _numeric(a, name)
    return a.astype(_dtype_of(a), order="F"), True


def _typed2(a, b, overwrite_a, overwrite_b):
    """_typed for a matrix and its right-hand sides, converted to their common dtype."""
    if type(a) is not np.ndarray:
        a = np.asarray(a)
    if type(b) is not np.ndarray:
        b = np.asarray(b)
    if a.dtype == b.dtype and a.dtype.char in "fdFD" and a.dtype.isnative:
        return a, b, overwrite_a, overwrite_b
    _numeric(a, "a")
    _numeric(b, "b")
    dtype = _dtype_of(a, b)
    if a.dtype != dtype:
        a, overwrite_a = a.astype(dtype, order="F"), True
    if b.dtype != dtype:
        b, overwrite_b = b.astype(dtype, order="F"), True
    return a, b, overwrite_a, overwrite_b


def _fortran(a, dtype, overwrite, check_finite, name="a"):
    """A writeable Fortran-ordered array of `dtype` holding `a`: `a` itself when
    overwrite is allowed and it already is one (zero copy), else one copy."""
    a = np.asarray(a)
    _numeric(a, name)
    if check_finite and not np.isfinite(a).all():
        raise ValueError(f"{name}: array must not contain infs or NaNs")
    if overwrite and a.dtype == dtype and a.flags.f_contiguous and a.flags.writeable:
        return a
    return np.array(a, dtype=dtype, order="F", copy=True)


def _square(a, name="a"):
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"{name}: expected a square matrix, got shape {a.shape}")


def _stack(results):
    """Stacks per-matrix results (arrays, or tuples of arrays and flags) along a new first axis."""
    if isinstance(results[0], tuple):
        return tuple(np.stack(parts) if isinstance(parts[0], np.ndarray) else parts[0] for parts in zip(*results))
    return np.stack(results)


def _not_positive_definite(info):
    return LinAlgError(f"{info}-th leading minor of the array is not positive definite", info)


# ---- Cholesky --------------------------------------------------------------


def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """The Cholesky factor of a Hermitian positive definite matrix (scipy.linalg.cholesky).

    Returns L with a = L L^H (lower=True) or U with a = U^H U; the other
    triangle is zero. Raises hetla.LinAlgError (info = failing minor) if a is
    not positive definite. ``a.shape == (k, n, n)`` factors each matrix.
    """
    a, overwrite_a = _typed(a, overwrite_a)
    if a.ndim == 3:
        return np.stack([cholesky(x, lower, False, check_finite) for x in a])
    c, info = _hetla.potrf(a, lower, overwrite_a, check_finite, True)
    if info > 0:
        raise _not_positive_definite(info)
    return c


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """(c, lower) for cho_solve (scipy.linalg.cho_factor); the unused triangle of c holds a's entries.
    ``a.shape == (k, n, n)`` gives c of that shape."""
    a, overwrite_a = _typed(a, overwrite_a)
    if a.ndim == 3:
        return _stack([cho_factor(x, lower, False, check_finite) for x in a])
    c, info = _hetla.potrf(a, lower, overwrite_a, check_finite, False)
    if info > 0:
        raise _not_positive_definite(info)
    return c, lower


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """Solves a x = b given cho_factor(a) (scipy.linalg.cho_solve); b is a vector or n x nrhs."""
    c, lower = c_and_lower
    c, b, _, overwrite_b = _typed2(c, b, False, overwrite_b)
    return _hetla.potrs(c, b, lower, overwrite_b, check_finite)


# ---- LU --------------------------------------------------------------------


def lu_factor(a, overwrite_a=False, check_finite=True):
    """(lu, piv) with 0-based int32 pivots, as scipy.linalg.lu_factor.

    Like scipy, an exactly singular matrix gives a LinAlgWarning naming the zero
    diagonal element; the factorization is complete.
    """
    a, overwrite_a = _typed(a, overwrite_a)
    if a.ndim == 3:
        return _stack([lu_factor(x, False, check_finite) for x in a])
    lu, piv, info = _hetla.getrf(a, overwrite_a, check_finite)
    if info > 0:
        warnings.warn(f"Diagonal number {info} is exactly zero. Singular matrix.", _linalg_warning(), stacklevel=2)
    return lu, piv


def _linalg_warning():
    try:
        from scipy.linalg import LinAlgWarning
        return LinAlgWarning
    except ImportError:  # scipy is optional
        return RuntimeWarning


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """Solves a x = b (trans 0), a^T x = b (1) or a^H x = b (2) given lu_factor(a) (scipy.linalg.lu_solve)."""
    lu, piv = lu_and_piv
    if trans not in (0, 1, 2):
        raise ValueError("trans must be 0, 1 or 2")
    lu, b, _, overwrite_b = _typed2(lu, b, False, overwrite_b)
    return _hetla.getrs(lu, piv, b, "NTC"[trans], overwrite_b, check_finite)


def lu(a, permute_l=False, overwrite_a=False, check_finite=True):
    """(P, L, U) with a = P L U, or (P L, U) with permute_l (scipy.linalg.lu)."""
    a, overwrite_a = _typed(a, overwrite_a)
    if a.ndim == 3:
        return _stack([lu(x, permute_l, False, check_finite) for x in a])
    A, piv, _ = _hetla.getrf(a, overwrite_a, check_finite)
    m, n = A.shape
    k = min(m, n)
    perm = np.arange(m)
    for i, p in enumerate(piv):  # LAPACK's interchanges, in order
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
    """QR decomposition, as scipy.linalg.qr: mode 'full' ((Q, R), Q m x m, R m x n), 'economic' (Q m x k,
    R k x n), 'r' ((R,), R m x n) or 'raw' (((a, tau), R)); k = min(m, n). Column pivoting is not supported.
    ``a.shape == (k, m, n)`` factors each matrix."""
    if pivoting:
        raise NotImplementedError("hetla.qr: pivoting=True is not supported")
    a, overwrite_a = _typed(a, overwrite_a)
    if a.ndim == 3:
        return _stack([qr(x, False, lwork, mode, False, check_finite) for x in a])
    return _hetla.qr(a, mode, overwrite_a, check_finite)


def _lstsq_zero_size(a, b, m, n):
    """scipy's answer when a has no rows or no columns."""
    x = np.zeros((n,) + b.shape[1:], dtype=np.common_type(a, b))
    residues = np.linalg.norm(b, axis=0) ** 2 if n == 0 else np.empty((0,))
    return x, residues, 0, np.empty((0,))


def lstsq(a, b, cond=None, overwrite_a=False, overwrite_b=False, check_finite=True, lapack_driver=None):
    """Least-squares / minimum-norm solution of a x = b (scipy.linalg.lstsq): (x, residues, rank, s).

    The default (``lapack_driver=None``) for m >= n factors a = Q R with hetla
    and checks R: if its diagonal ratio and LAPACK's 1-norm condition estimate
    (trcon) are both above 10 n cond, then (up to the estimator's accuracy)
    the smallest singular value is above cond * s[0], the rank scipy's gelsd
    would find is n, and x = R^-1 Q^H b with s None. Otherwise, and for m < n, the
    answer is the SVD's, as scipy's default gelsd: singular values at most
    ``cond * s[0]`` (cond defaults to the dtype's eps) count as zero, and rank
    and s are returned (for m >= n the SVD is of the n x n R, whose singular
    values are a's). ``lapack_driver='gelsd'`` or ``'gelss'`` takes the SVD
    path always ('gelsy' too, returning s None as scipy does); ``'gels'`` is
    LAPACK's QR/LQ solve without a rank check (a full-rank a; raises
    hetla.LinAlgError on an exactly zero diagonal of R). residues are the
    squared residual norms when m > n and rank == n, else empty.
    """
    if lapack_driver not in (None, "gels", "gelsd", "gelss", "gelsy"):
        raise ValueError(f'LAPACK driver "{lapack_driver}" is not found')
    a, b, overwrite_a, overwrite_b = _typed2(a, b, overwrite_a, overwrite_b)
    if a.ndim != 2:
        raise ValueError(f"a: expected a 2-D array, got shape {a.shape}")
    m, n = a.shape
    vector = b.ndim == 1
    if b.ndim not in (1, 2) or b.shape[0] != m:
        raise ValueError(f"b: expected {m} rows, got shape {b.shape}")
    if check_finite:
        for name, x in (("a", a), ("b", b)):
            if not np.isfinite(x).all():
                raise ValueError(f"{name}: array must not contain infs or NaNs")
    if m == 0 or n == 0:
        return _lstsq_zero_size(a, b, m, n)
    dtype = a.dtype
    rcond = np.finfo(dtype).eps if cond is None else float(cond)
    A = a if overwrite_a and a.flags.f_contiguous and a.flags.writeable else np.array(a, order="F")
    b2 = b.reshape(m, 1) if vector else b
    B = np.zeros((max(m, n), b2.shape[1]), dtype=dtype, order="F")
    B[:m] = b2

    s, rank = None, min(m, n)
    if lapack_driver == "gels":
        info = _hetla.gels(A, B, "N")
        if info > 0:
            raise LinAlgError(f"diagonal element {info} of the triangular factor is zero: a is rank deficient", info)
    elif m >= n and lapack_driver is None and _hetla.lstsq_qr(A, B, min(1.0, 10 * n * rcond)):
        pass  # full rank: x = R^-1 Q^H b in B[:n]
    else:
        if m >= n and lapack_driver is None:
            # lstsq_qr left R in A and Q^H b in B: the SVD of the n x n R
            R = np.triu(A[:n])
            rank, s, info = _hetla.gelsd(np.asfortranarray(R), B, rcond)
        else:
            rank, s, info = _hetla.gelsd(A, B, rcond)
        if info > 0:
            raise LinAlgError("SVD did not converge in Linear Least Squares", info)
        if lapack_driver == "gelsy":
            s = None
    x = B[:n]
    if m > n and rank == n and lapack_driver != "gelsy":
        residues = (np.abs(B[n:]) ** 2).sum(axis=0)
    else:
        residues = np.empty((0,), dtype=dtype)
    if vector:
        x = x[:, 0]
        if residues.size:
            residues = residues[0]
    return x, residues, rank, s


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True, assume_a="gen",
          transposed=False):
    """Solves a x = b (scipy.linalg.solve): assume_a 'gen' (LU with partial pivoting), 'pos' (Cholesky);
    'sym' and 'her' are solved as 'gen'. transposed solves a^T x = b (a^H x = b for complex a). Raises
    hetla.LinAlgError for a singular (or, with 'pos', not positive definite) a."""
    if assume_a not in ("gen", "sym", "her", "pos"):
        raise ValueError("assume_a must be 'gen', 'sym', 'her' or 'pos'")
    a, b, overwrite_a, overwrite_b = _typed2(a, b, overwrite_a, overwrite_b)
    pos = assume_a == "pos"
    trans = ("C" if a.dtype.kind == "c" else "T") if transposed and not pos else "N"
    x, info = _hetla.solve(a, b, pos, lower, trans, overwrite_a, overwrite_b, check_finite)
    if info > 0:
        raise _not_positive_definite(info) if pos else LinAlgError("Matrix is singular.", info)
    return x


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
