"""Factor and solve with hetla as with scipy.linalg (run with PYTHONPATH=build/python or an installed prefix)."""
import numpy as np

import hetla

rng = np.random.default_rng(0)
n = 2000
x = rng.standard_normal((n, n))
a = np.asfortranarray(x @ x.T + n * np.eye(n))  # Fortran order: no copy with overwrite_a
b = rng.standard_normal(n)

print(hetla.info())
c = hetla.cho_factor(a.copy(order="F"), lower=True, overwrite_a=True)
x = hetla.cho_solve(c, b)
print("relative residual", np.linalg.norm(a @ x - b) / (np.linalg.norm(a) * np.linalg.norm(x)))

with hetla.config(devices="cpu,emu:speed=0.5"):  # an emulated accelerator beside the cores
    with hetla.trace("cholesky.svg"):
        hetla.cholesky(a, lower=True)
print("trace written to cholesky.svg")
