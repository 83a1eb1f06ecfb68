"""coflowopt: offline coflow scheduling with certified bounds, verified schedules and proven optima."""

from .exceptions import *  # noqa: F401,F403

__version__ = "0.1.0"

__all__ = ["Instance", "Coflow", "COFLOW_BINS", "Schedule", "Segment", "__version__"]

#: where the top-level names live; imported on first use (PEP 562), so that ``import
#: coflowopt`` (and the ``coflowopt`` command's restart, ``coflowopt._entry``) does not load
#: numpy and scipy before they are needed
_LAZY = {"Instance": ".instance", "Coflow": ".instance", "COFLOW_BINS": ".instance",
         "Schedule": ".schedule", "Segment": ".schedule"}


def __getattr__(name):
    if name in _LAZY:
        import importlib
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
