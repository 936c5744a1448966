"""Library context, errors and traces (the non-numerical part of the API)."""
import contextlib

import numpy as np

from . import _hetla


class LinAlgError(np.linalg.LinAlgError):
    """A numerical failure LAPACK reports with ``info > 0``.

    ``info`` is LAPACK's: the order of the leading minor that is not positive
    definite (Cholesky), the 1-based index of the exactly zero pivot (LU), or of
    the zero diagonal element of R (least squares).
    """

    def __init__(self, message, info):
        super().__init__(message)
        self.info = info


_DEFAULTS = dict(num_threads=0, devices="cpu", schedule="dynamic", distribution="default", pin_threads=True)
_current = dict(_DEFAULTS)


def init(devices="cpu", schedule="dynamic", distribution="default", num_threads=0, pin_threads=True):
    """(Re)creates the library context, as ``hetla::init`` in C++.

    devices: ``"cpu"``, ``"cpu,opencl"``, ``"cpu,emu:speed=0.5"``, ... (see ``hetla bench --help``).
    schedule: ``"dynamic"`` (greedy by capability) or ``"static"`` (owner computes).
    distribution: ``"default"``, ``"1d"``, ``"2d"``, ``"weighted"`` or ``"hybrid"``.
    num_threads: host workers, 0 = the cores of the process's CPU set.
    Raises ValueError for a bad device list or name.
    """
    settings = dict(num_threads=num_threads, devices=devices, schedule=schedule, distribution=distribution,
                    pin_threads=pin_threads)
    _hetla.init(**settings)
    _current.clear()
    _current.update(settings)


def finalize():
    """Joins the worker threads; the next call creates a default context."""
    _hetla.finalize()
    _current.clear()
    _current.update(_DEFAULTS)


@contextlib.contextmanager
def config(**settings):
    """``with hetla.config(devices="cpu,emu"):`` runs the block on that context, then restores the previous one."""
    saved = dict(_current)
    init(**{**saved, **settings})
    try:
        yield
    finally:
        init(**saved)


def info():
    """What the library runs on, as a dict: version, cpu, cores, blas, workers, devices."""
    return _hetla.info()


def version():
    """The library version string."""
    return _hetla.info()["version"]


@contextlib.contextmanager
def trace(path):
    """``with hetla.trace("t.json"):`` records the tasks of the calls in the block.

    ``.json`` writes Chrome-trace JSON (chrome://tracing, Perfetto), ``.svg`` a
    Gantt chart. The path is checked before the block runs.
    """
    t = _hetla.Trace(str(path))
    t.start()
    try:
        yield
    finally:
        t.stop()
