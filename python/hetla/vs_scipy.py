"""python3 -m hetla.vs_scipy [n ...]: hetla against scipy.linalg on the same arrays, in this process.

For each n (default 1000 4000 8000) prints the best-of-3 seconds of
hetla.cholesky, lu_factor, qr(mode='r') and solve and of their scipy
equivalents, and the ratio scipy / hetla (> 1: hetla is faster); then the
per-call time of both at n = 8 (the binding's fixed cost).
"""
import sys
import time

import numpy as np
import scipy.linalg as sl

import hetla


def best(fn, repeat=3):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def cases(a, b):
    return [
        ("cholesky", lambda: hetla.cholesky(a, lower=True), lambda: sl.cholesky(a, lower=True)),
        ("lu_factor", lambda: hetla.lu_factor(a), lambda: sl.lu_factor(a)),
        ("qr(mode='r')", lambda: hetla.qr(a, mode="r"), lambda: sl.qr(a, mode="r")),
        ("solve", lambda: hetla.solve(a, b), lambda: sl.solve(a, b)),
    ]


def main(sizes):
    rng = np.random.default_rng(1)
    print(f"{'routine':<14}{'n':>6}{'hetla s':>10}{'scipy s':>10}{'ratio':>8}")
    for n in sizes:
        x = rng.standard_normal((n, n))
        a = np.asfortranarray(x @ x.T + n * np.eye(n))
        b = rng.standard_normal((n, 1))
        for name, ours, theirs in cases(a, b):
            h, s = best(ours), best(theirs)
            print(f"{name:<14}{n:>6}{h:>10.4f}{s:>10.4f}{s / h:>8.3f}", flush=True)
    a8 = np.asfortranarray(np.eye(8) * 2)
    calls = 20000
    for name, ours, theirs in cases(a8, np.ones((8, 1))):
        h = best(lambda: [ours() for _ in range(calls)], 1) / calls * 1e6
        s = best(lambda: [theirs() for _ in range(calls)], 1) / calls * 1e6
        print(f"{name:<14}{8:>6}  {h:.2f} us/call vs scipy {s:.2f} us/call ({h - s:+.2f} us)")


if __name__ == "__main__":
    main([int(v) for v in sys.argv[1:]] or [1000, 4000, 8000])
