"""python3 -m hetla.vs_scipy [n ...] (or python3 -m hetla.bench): hetla against scipy.linalg and numpy.linalg.

Same arrays, same process. For each n (default 1000 4000 8000) prints the
best-of-3 seconds of hetla.cholesky, lu_factor, qr(mode='r') and solve and of
their scipy.linalg and numpy.linalg equivalents (numpy has no lu_factor), as
ratios other / hetla (> 1: hetla is faster). Then the per-call time at n = 8
(the binding's fixed cost; best of 7 timeit runs) of those and of cho_solve /
lu_solve, and the difference to scipy's in microseconds. Options: --calls-only
(only the n = 8 table), --repeat R (runs per size, default 3).
"""
import sys
import time
import timeit

import numpy as np
import scipy
import scipy.linalg as sl

import hetla


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def cases(a, b):
    """(name, hetla, scipy.linalg, numpy.linalg or None) on the same arrays."""
    return [
        ("cholesky", lambda: hetla.cholesky(a, lower=True), lambda: sl.cholesky(a, lower=True),
         lambda: np.linalg.cholesky(a)),
        ("lu_factor", lambda: hetla.lu_factor(a), lambda: sl.lu_factor(a), None),
        ("qr(mode='r')", lambda: hetla.qr(a, mode="r"), lambda: sl.qr(a, mode="r"),
         lambda: np.linalg.qr(a, mode="r")),
        ("solve", lambda: hetla.solve(a, b), lambda: sl.solve(a, b), lambda: np.linalg.solve(a, b)),
    ]


def spd(n, rng):
    x = rng.standard_normal((n, n))
    return np.asfortranarray(x @ x.T + n * np.eye(n))


def large(sizes, repeat):
    rng = np.random.default_rng(1)
    print(f"{'routine':<14}{'n':>6}{'hetla s':>10}{'scipy s':>10}{'numpy s':>10}{'scipy/hetla':>13}{'numpy/hetla':>13}")
    for n in sizes:
        a, b = spd(n, rng), rng.standard_normal((n, 1))
        for name, ours, theirs, numpys in cases(a, b):
            h, s = best(ours, repeat), best(theirs, repeat)
            line = f"{name:<14}{n:>6}{h:>10.4f}{s:>10.4f}"
            if numpys is None:
                line += f"{'-':>10}{s / h:>13.3f}{'-':>13}"
            else:
                p = best(numpys, repeat)
                line += f"{p:>10.4f}{s / h:>13.3f}{p / h:>13.3f}"
            print(line, flush=True)


def per_call(n=8, repeat=7):
    rng = np.random.default_rng(2)
    a, b = spd(n, rng), rng.standard_normal(n)
    hc, sc = hetla.cho_factor(a), sl.cho_factor(a)
    hl, sl_ = hetla.lu_factor(a), sl.lu_factor(a)
    rows = [(name, h, s) for name, h, s, _ in cases(a, b)]
    rows += [("cho_solve", lambda: hetla.cho_solve(hc, b), lambda: sl.cho_solve(sc, b)),
             ("lu_solve", lambda: hetla.lu_solve(hl, b), lambda: sl.lu_solve(sl_, b))]
    number = 2000
    print(f"\nper call at n = {n} (us, best of {repeat} x {number} calls)")
    print(f"{'routine':<14}{'hetla':>8}{'scipy':>8}{'hetla-scipy':>13}")
    for name, ours, theirs in rows:
        h = min(timeit.repeat(ours, number=number, repeat=repeat)) / number * 1e6
        s = min(timeit.repeat(theirs, number=number, repeat=repeat)) / number * 1e6
        print(f"{name:<14}{h:>8.2f}{s:>8.2f}{h - s:>+13.2f}", flush=True)


def main(argv):
    repeat, sizes, calls_only = 3, [], False
    args = iter(argv)
    for arg in args:
        if arg == "--calls-only":
            calls_only = True
        elif arg == "--repeat":
            repeat = int(next(args))
        elif arg in ("-h", "--help"):
            print(__doc__)
            return
        else:
            sizes.append(int(arg))
    info = hetla.info()
    print(f"hetla {info['version']} ({info['blas']}, {info['workers']} workers on {info['cores']} cores), "
          f"numpy {np.__version__}, scipy {scipy.__version__}")
    if not calls_only:
        large(sizes or [1000, 4000, 8000], repeat)
    per_call()


if __name__ == "__main__":
    main(sys.argv[1:])
