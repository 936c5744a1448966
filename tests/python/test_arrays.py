"""Layouts, copies, dtypes, errors, threads and the non-numerical API."""
import json
import threading

import numpy as np
import pytest

import hetla
from conftest import backward_error, spd


def test_c_order_input_untouched(rng):
    a = np.ascontiguousarray(spd(60, np.float64, rng))
    before = a.copy()
    hetla.cholesky(a, lower=True, overwrite_a=True)  # C order: one copy, even with overwrite_a
    assert np.array_equal(a, before)


def test_fortran_overwrite_is_zero_copy(rng):
    a = np.asfortranarray(spd(60, np.float64, rng))
    c, lower = hetla.cho_factor(a, lower=True, overwrite_a=True)
    assert np.shares_memory(c, a)
    b = np.asfortranarray(spd(60, np.float64, rng))
    c2, _ = hetla.cho_factor(b, lower=True)  # overwrite_a=False copies
    assert not np.shares_memory(c2, b)


def test_non_contiguous_view(rng):
    big = spd(120, np.float64, rng)
    view = big[::2, ::2]  # a principal submatrix: still SPD, strided
    l = hetla.cholesky(view, lower=True)
    assert backward_error(np.array(view), l @ l.T) < 30


def test_layouts_copied_alike(rng):
    """C order, negative strides, read-only and nested lists give the same answer (the copy is made in C++)."""
    a = spd(9, np.float64, rng)
    b = rng.standard_normal(9)
    x = hetla.solve(np.asfortranarray(a), b)
    flipped = a[::-1, ::-1]  # strides < 0; P a P is SPD too and P x solves it with P b
    assert np.allclose(hetla.solve(flipped, b[::-1])[::-1], x)
    ro = a.copy()
    ro.flags.writeable = False
    assert np.allclose(hetla.solve(ro, b, overwrite_a=True), x)
    assert np.allclose(hetla.solve(a.tolist(), b.tolist()), x)
    assert hetla.solve(a.astype(np.float32), b).dtype == np.float64  # the common type, as scipy
    assert np.allclose(hetla.solve(a.astype(">f8"), b.astype(">f8")), x)  # byte-swapped: converted
    with pytest.raises(ValueError, match="infs or NaNs"):
        hetla.solve(a, np.full(9, np.inf))
    assert hetla.solve(a, np.full(9, np.inf), check_finite=False).shape == (9,)


def test_dtypes_converted_like_scipy():
    a = np.array([[4, 2], [2, 3]], dtype=np.int64)
    assert hetla.cholesky(a).dtype == np.float64
    assert hetla.cholesky(a.astype(np.float32)).dtype == np.float32


def test_bad_input_raises_value_error():
    with pytest.raises(ValueError, match="square"):
        hetla.cholesky(np.ones((3, 4)))
    with pytest.raises(ValueError, match="infs or NaNs"):
        hetla.cholesky(np.array([[np.nan]]))
    with pytest.raises(ValueError, match="rows"):
        hetla.solve(np.eye(3), np.ones(4))
    with pytest.raises(ValueError):
        hetla.cholesky(np.array([["a"]]))
    with pytest.raises(ValueError, match="mode"):
        hetla.qr(np.eye(3), mode="nope")


def test_gil_released_during_a_call(rng):
    """A second Python thread runs while the library computes."""
    a = spd(1500, np.float64, rng)
    done = threading.Event()
    counter = [0]

    def spin():
        while not done.is_set():
            counter[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    try:
        before = counter[0]
        for _ in range(3):
            hetla.cholesky(a, lower=True)
        during = counter[0] - before
    finally:
        done.set()
        t.join()
    assert during > 1000, f"the other thread advanced only {during} times: GIL held?"


def test_threads_call_concurrently(rng):
    mats = [spd(200, np.float64, rng) for _ in range(4)]
    out = [None] * 4

    def work(i):
        out[i] = hetla.cholesky(mats[i], lower=True)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for a, l in zip(mats, out):
        assert backward_error(a, l @ l.T) < 30


def test_info_and_config():
    info = hetla.info()
    assert {"version", "cpu", "cores", "blas", "workers", "devices"} <= info.keys()
    assert info["version"] == hetla.__version__
    with hetla.config(devices="cpu,emu:speed=0.5"):
        assert len(hetla.info()["devices"]) == 2
        a = np.eye(50) * 2
        assert np.allclose(hetla.cholesky(a), np.sqrt(2) * np.eye(50))
    assert hetla.info()["devices"] == ["cpu"]
    with pytest.raises(ValueError):
        hetla.init(devices="gpu-that-does-not-exist")
    with pytest.raises(ValueError, match="schedule"):
        hetla.init(schedule="sometimes")
    hetla.finalize()


def test_trace(tmp_path, rng):
    path = tmp_path / "t.json"
    with hetla.trace(path):
        hetla.cholesky(spd(300, np.float64, rng), lower=True)
    events = json.loads(path.read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    assert any("potrf" in e.get("name", "") for e in events)
    with pytest.raises(ValueError, match=".json or .svg"):
        with hetla.trace(tmp_path / "t.txt"):
            pass


def test_bench_returns_cli_records():
    records = hetla.bench("potrf", n=200, check=True)
    assert records[0]["routine"] == "potrf" and records[0]["residual_ok"] is True
    with pytest.raises(RuntimeError, match="-n"):
        hetla.bench("potrf", n=-5)
