import numpy as np
import pytest

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


def eps(dtype):
    return np.finfo(dtype).eps


def random(shape, dtype, rng):
    a = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def spd(n, dtype, rng, cond=None):
    """A Hermitian positive definite matrix; with cond, eigenvalues spread over [1/cond, 1] (a hard input)."""
    if cond is None:
        a = random((n, n), dtype, rng)
        return (a @ a.conj().T + n * np.eye(n)).astype(dtype)
    q, _ = np.linalg.qr(random((n, n), np.complex128 if np.iscomplexobj(np.empty(0, dtype)) else np.float64, rng))
    d = np.logspace(0, -np.log10(cond), n)
    return ((q * d) @ q.conj().T).astype(dtype)


def backward_error(a, approx):
    """||a - approx||_1 / (||a||_1 n eps): LAPACK's test ratio, to compare with a threshold of ~30."""
    n = a.shape[-1]
    return np.linalg.norm(a - approx, 1) / (np.linalg.norm(a, 1) * n * eps(a.dtype))


@pytest.fixture
def rng():
    return np.random.default_rng(7)
