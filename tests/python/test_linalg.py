"""The scipy-shaped routines against scipy, on the four dtypes, random and hard inputs."""
import numpy as np
import pytest
import scipy.linalg as sl

import hetla
from conftest import DTYPES, backward_error, eps, random, spd

THRESH = 30  # LAPACK's test threshold on the scaled residuals


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("cond", [None, 1e4])
def test_cholesky(dtype, lower, cond, rng):
    n = 150
    a = spd(n, dtype, rng, cond)
    c = hetla.cholesky(a, lower=lower)
    assert c.dtype == dtype
    assert np.array_equal(c, np.tril(c) if lower else np.triu(c))
    rebuilt = c @ c.conj().T if lower else c.conj().T @ c
    assert backward_error(a, rebuilt) < THRESH


def test_cholesky_not_positive_definite():
    a = np.eye(5)
    a[3, 3] = -1
    with pytest.raises(hetla.LinAlgError) as e:
        hetla.cholesky(a, lower=True)
    assert e.value.info == 4
    assert isinstance(e.value, np.linalg.LinAlgError)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cho_solve(dtype, rng):
    n = 120
    a = spd(n, dtype, rng)
    b = random((n, 3), dtype, rng)
    x = hetla.cho_solve(hetla.cho_factor(a, lower=True), b)
    assert np.linalg.norm(a @ x - b) / (np.linalg.norm(a) * np.linalg.norm(x) * eps(dtype)) < THRESH * n
    xv = hetla.cho_solve(hetla.cho_factor(a), b[:, 0])
    assert xv.shape == (n,)
    assert np.allclose(xv, x[:, 0], rtol=1e3 * eps(dtype) * n, atol=0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(130, 130), (150, 90), (90, 150)])
def test_lu(dtype, shape, rng):
    a = random(shape, dtype, rng)
    p, l, u = hetla.lu(a)
    assert backward_error(a, p @ l @ u) < THRESH
    pl, u2 = hetla.lu(a, permute_l=True)
    assert np.array_equal(pl, p @ l) and np.array_equal(u2, u)
    if shape[0] == shape[1]:
        lu, piv = hetla.lu_factor(a)
        _, piv_ref = sl.lu_factor(a)
        assert piv.dtype == np.int32 and np.array_equal(piv, piv_ref)  # LAPACK's 0-based pivots, as scipy


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("trans", [0, 1, 2])
def test_lu_solve(dtype, trans, rng):
    n = 100
    a = random((n, n), dtype, rng)
    b = random((n, 2), dtype, rng)
    x = hetla.lu_solve(hetla.lu_factor(a), b, trans=trans)
    op = [a, a.T, a.conj().T][trans]
    assert np.allclose(x, np.linalg.solve(op, b), rtol=0, atol=1e4 * eps(dtype) * np.abs(x).max())


def test_lu_factor_singular_warns():
    a = np.ones((4, 4))
    with pytest.warns(Warning, match="exactly zero"):
        hetla.lu_factor(a)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(140, 100), (100, 140), (64, 64)])
def test_qr(dtype, shape, rng):
    a = random(shape, dtype, rng)
    m, n = shape
    k = min(shape)
    q, r = hetla.qr(a)
    assert q.shape == (m, m) and r.shape == (m, n)
    assert backward_error(a, q @ r) < THRESH
    assert np.linalg.norm(q.conj().T @ q - np.eye(m), 1) / (m * eps(dtype)) < THRESH
    qe, re = hetla.qr(a, mode="economic")
    assert qe.shape == (m, k) and re.shape == (k, n) and backward_error(a, qe @ re) < THRESH
    (rr,) = hetla.qr(a, mode="r")
    (rref,) = sl.qr(a, mode="r")
    assert rr.shape == rref.shape == (m, n)
    assert np.allclose(np.abs(rr), np.abs(rref), atol=1e3 * eps(dtype) * np.abs(rr).max())
    (raw, tau), rraw = hetla.qr(a, mode="raw")
    assert tau.shape == (k,) and np.array_equal(np.triu(raw[:k]), rraw[:k])


@pytest.mark.parametrize("dtype", DTYPES)
def test_solve(dtype, rng):
    n = 110
    a = random((n, n), dtype, rng) + n * np.eye(n, dtype=dtype)
    b = random((n, 4), dtype, rng)
    for transposed in (False, True):
        x = hetla.solve(a, b, transposed=transposed)
        op = a.conj().T if (transposed and np.iscomplexobj(a)) else (a.T if transposed else a)
        assert np.allclose(x, np.linalg.solve(op, b), atol=1e3 * eps(dtype) * np.abs(x).max(), rtol=0)
    s = spd(n, dtype, rng)
    x = hetla.solve(s, b[:, 0], assume_a="pos")
    assert x.shape == (n,)
    assert np.allclose(x, np.linalg.solve(s, b[:, 0]), atol=1e3 * eps(dtype) * np.abs(x).max(), rtol=0)


def test_solve_singular():
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(hetla.LinAlgError, match="singular") as e:
        hetla.solve(a, np.ones(2))
    assert e.value.info == 2


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(120, 80), (80, 120)])
def test_lstsq(dtype, shape, rng):
    """Full rank: tall by hetla's QR (s None), wide by the SVD (s as scipy's)."""
    a = random(shape, dtype, rng)
    b = random((shape[0], 2), dtype, rng)
    x, res, rank, s = hetla.lstsq(a, b)
    xr, resr, rankr, sr = sl.lstsq(a, b)
    assert rank == rankr and x.shape == xr.shape
    assert np.allclose(x, xr, atol=1e3 * eps(dtype) * np.abs(xr).max(), rtol=0)
    assert np.allclose(res, resr, rtol=1e3 * eps(dtype)) if shape[0] > shape[1] else res.size == 0
    if shape[0] > shape[1]:
        assert s is None
    else:
        assert s.dtype == sr.dtype and np.allclose(s, sr, rtol=1e3 * eps(dtype))
    xv, resv, _, _ = hetla.lstsq(a, b[:, 0])
    assert xv.shape == (shape[1],)
    if shape[0] > shape[1]:
        assert np.isscalar(resv) or np.ndim(resv) == 0


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(90, 60), (60, 90), (40, 40)])
def test_lstsq_rank_deficient(dtype, shape, rng):
    """Rank 25 of min(m, n): the minimum-norm answer, rank and s of scipy's gelsd, no residues. (cond is
    above the rounding level: at cond = eps the computed s[25] ~ eps s[0] makes the rank 25 or 26, scipy's too.)"""
    m, n = shape
    wide = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
    a = (random((m, 25), wide, rng) @ random((25, n), wide, rng)).astype(dtype)
    b = random((m, 3), dtype, rng)
    cond = 1e3 * eps(dtype)
    x, res, rank, s = hetla.lstsq(a, b, cond=cond)
    xr, resr, rankr, sr = sl.lstsq(a, b, cond=cond)
    assert rank == rankr == 25
    assert s.shape == sr.shape and np.allclose(s, sr, rtol=0, atol=1e2 * eps(dtype) * sr[0])
    assert res.size == 0 and resr.size == 0
    assert np.allclose(x, xr, rtol=0, atol=1e3 * eps(dtype) * np.abs(xr).max())
    # cond: singular values below cond * s[0] are dropped, as scipy's
    x2, _, rank2, _ = hetla.lstsq(a, b, cond=s[10] / s[0] * 1.01)
    x2r, _, rank2r, _ = sl.lstsq(a, b, cond=s[10] / s[0] * 1.01)
    assert rank2 == rank2r == 10
    assert np.allclose(x2, x2r, rtol=0, atol=1e3 * eps(dtype) * np.abs(x2r).max())


def test_lstsq_zero_column_and_drivers(rng):
    """An exactly zero column (gels would fail), the drivers, empty problems."""
    a = random((30, 6), np.float64, rng)
    a[:, 2] = 0
    b = random((30,), np.float64, rng)
    x, res, rank, s = hetla.lstsq(a, b)
    xr, _, rankr, sr = sl.lstsq(a, b)
    assert rank == rankr == 5 and abs(x[2]) < 1e-12 and np.allclose(x, xr) and np.allclose(s, sr)
    with pytest.raises(hetla.LinAlgError):
        hetla.lstsq(a, b, lapack_driver="gels")
    full = random((30, 6), np.float64, rng)
    for driver in ("gelsd", "gelss", "gelsy"):
        x, res, rank, s = hetla.lstsq(full, b, lapack_driver=driver)
        xr, resr, _, sr = sl.lstsq(full, b, lapack_driver=driver)
        assert np.allclose(x, xr) and rank == 6 and np.shape(res) == np.shape(resr)
        assert (s is None) == (sr is None)
    with pytest.raises(ValueError, match="driver"):
        hetla.lstsq(full, b, lapack_driver="nope")
    for shape in ((0, 3), (3, 0)):
        x, res, rank, s = hetla.lstsq(np.zeros(shape), np.ones((shape[0], 2)))
        xr, resr, rankr, sr = sl.lstsq(np.zeros(shape), np.ones((shape[0], 2)))
        assert x.shape == xr.shape and rank == rankr == 0 and np.array_equal(res, resr)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ta,tb", [(0, 0), (1, 0), (0, 2), (2, 1)])
def test_gemm(dtype, ta, tb, rng):
    a = random((70, 50) if ta == 0 else (50, 70), dtype, rng)
    b = random((50, 60) if tb == 0 else (60, 50), dtype, rng)
    op = [lambda x: x, lambda x: x.T, lambda x: x.conj().T]
    c = random((70, 60), dtype, rng)
    got = hetla.gemm(2.0, a, b, beta=0.5, c=c, trans_a=ta, trans_b=tb)
    want = 2.0 * op[ta](a) @ op[tb](b) + 0.5 * c
    assert np.allclose(got, want, atol=1e2 * eps(dtype) * np.abs(want).max() * 50, rtol=0)


def test_matmul_shapes(rng):
    a, b = rng.standard_normal((30, 20)), rng.standard_normal((20, 10))
    assert np.allclose(hetla.matmul(a, b), a @ b)
    v = rng.standard_normal(20)
    assert hetla.matmul(a, v).shape == (30,) and np.allclose(hetla.matmul(a, v), a @ v)
    stack = rng.standard_normal((3, 30, 20))
    assert np.allclose(hetla.matmul(stack, b), stack @ b)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_matrix_functions(dtype, rng):
    a = random((40, 40), dtype, rng) / 10
    for ours, ref in ((hetla.expm, sl.expm), (hetla.cosm, sl.cosm), (hetla.sinm, sl.sinm)):
        got, want = ours(a), ref(a)
        assert np.linalg.norm(got - want, 1) / np.linalg.norm(want, 1) < 1e3 * eps(dtype)


@pytest.mark.parametrize("method", ["horner", "paterson-stockmeyer"])
def test_matpoly(method, rng):
    a = rng.standard_normal((30, 30)) / 5
    coeffs = rng.standard_normal(7)
    want = sum(c * np.linalg.matrix_power(a, i) for i, c in enumerate(coeffs))
    assert np.allclose(hetla.matpoly(coeffs, a, method=method), want, atol=1e-12)


def test_batched(rng):
    a = np.stack([spd(40, np.float64, rng) for _ in range(3)])
    l = hetla.cholesky(a, lower=True)
    assert l.shape == (3, 40, 40)
    for i in range(3):
        assert backward_error(a[i], l[i] @ l[i].T) < THRESH
    e = hetla.expm(a / 100)
    assert np.allclose(e[1], sl.expm(a[1] / 100))
    lu, piv = hetla.lu_factor(a)
    assert lu.shape == (3, 40, 40) and piv.shape == (3, 40) and np.array_equal(piv[2], sl.lu_factor(a[2])[1])
    (r,) = hetla.qr(a, mode="r")
    assert r.shape == (3, 40, 40) and np.allclose(np.abs(r[1]), np.abs(sl.qr(a[1], mode="r")[0]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 8])
def test_small_calls(dtype, n, rng):
    """The sizes that run inline on the vendor, through every entry point, against scipy."""
    a = spd(n, dtype, rng)
    b = random((n, 2), dtype, rng)
    tol = 1e3 * eps(dtype)
    assert np.allclose(hetla.cholesky(a), sl.cholesky(a), atol=tol * n)
    lu, piv = hetla.lu_factor(a)
    lur, pivr = sl.lu_factor(a)
    assert np.array_equal(piv, pivr) and np.allclose(lu, lur, atol=tol * n)
    assert np.allclose(hetla.lu_solve((lu, piv), b), sl.lu_solve((lur, pivr), b), atol=tol * n)
    assert np.allclose(hetla.cho_solve(hetla.cho_factor(a), b[:, 0]), sl.cho_solve(sl.cho_factor(a), b[:, 0]),
                       atol=tol * n)
    assert np.allclose(hetla.solve(a, b), sl.solve(a, b), atol=tol * n)
    assert np.allclose(hetla.solve(a, b, assume_a="pos"), sl.solve(a, b, assume_a="pos"), atol=tol * n)
    q, r = hetla.qr(a)
    assert backward_error(a, q @ r) < THRESH
