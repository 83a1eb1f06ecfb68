"""``njit`` for the compiled kernels, or a no-op decorator when numba is missing (the kernels
then run, slowly, as plain Python).  numba is a declared dependency; the fallback only keeps
the package importable."""

from __future__ import annotations

try:
    from numba import njit
except ImportError:  # pragma: no cover
    def njit(*args, **kwargs):
        if args and callable(args[0]):
            return args[0]
        return lambda f: f

__all__ = ["njit"]
