"""python3 -m hetla.bench [n ...]: the same as python3 -m hetla.vs_scipy (hetla against scipy.linalg and numpy.linalg).

`hetla.bench` is also the function that runs the CLI's benchmark: importing
this module (``import hetla.bench``) binds it over that name in the package,
so the module is made callable as that function.
"""
import sys
import types

from . import _bench


class _CallableModule(types.ModuleType):
    def __call__(self, *args, **kwargs):
        return _bench.bench(*args, **kwargs)


if __name__ == "__main__":
    from .vs_scipy import main

    main(sys.argv[1:])
else:
    sys.modules[__name__].__class__ = _CallableModule
