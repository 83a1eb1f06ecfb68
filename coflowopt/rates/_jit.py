"""``njit`` for the compiled kernels: the one place coflowopt's kernels are jitted.

Lazy.  ``@njit(cache=True)`` records the function and returns a stand-in; numba is imported and
the kernels are handed to it only when a kernel is first *called* (:func:`load_kernels`).  Why:
importing numba and building its dispatchers costs about 0.3-0.6 s per process, which every
command paid even when it never runs a kernel (``coflowopt algorithms``, ``bound``, ``verify``,
``exact``); see ``experiments/bench_kernels_load.py``.  When the kernels load, every module
global (of ``coflowopt`` and of each kernel's own module) that holds a stand-in is rebound to
the real dispatcher, because compiled code reaches the kernels it calls through module globals.

Announced.  Compiling the kernels takes 40-55 s the first time (numba's on-disk cache,
``cache=True`` everywhere, makes later processes load them in milliseconds).  When numba
actually compiles (a cache miss), a line goes to standard error once per process --
``coflowopt: compiling kernels (first run, ~40 s, cached afterwards)...`` -- followed by one line
per kernel as it finishes, so a first run is never silent.  ``COFLOWOPT_QUIET_JIT=1`` silences
it.

Without numba (a declared dependency; the fallback only keeps the package importable) the
kernels run, slowly, as plain Python.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
import time

__all__ = ["njit", "load_kernels", "HAVE_NUMBA", "on_load", "kernels_loaded", "read_only"]

#: numba is installed (checked without importing it)
HAVE_NUMBA = importlib.util.find_spec("numba") is not None

_KERNELS: list["_LazyKernel"] = []
_HOOKS: list = []
_LOADED = [False]
#: Kernels compiled in every process (numba does not cache objmode blocks): no announcement.
_QUIET: set = set()


class _LazyKernel:
    """A kernel before numba has seen it: calling it loads every kernel (:func:`load_kernels`)
    and then calls the real dispatcher."""

    def __init__(self, func, options):
        self.py_func = func
        self.options = options
        self.dispatcher = None
        functools.update_wrapper(self, func)

    def __call__(self, *args, **kwargs):
        if self.dispatcher is None:
            if self.options.get("cache") and _cache_is_cold(self.py_func):
                _ANNOUNCER.start()  # before numba's own start-up (~1.5 s): say it at once
            load_kernels()
        return self.dispatcher(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<lazy kernel {self.py_func.__module__}.{self.py_func.__qualname__}>"


def njit(*args, **options):
    """``numba.njit`` that defers numba until a kernel is first called (module docstring).

    Use as ``@njit`` or ``@njit(cache=True, ...)``; the options go to numba unchanged, except

    * ``quiet=True``: a kernel numba compiles in every process (one with an ``objmode`` block,
      which numba does not cache) is compiled without the first-run announcement, which would
      otherwise claim a first run on every run;
    * ``borrowed=True`` (numba's ``_nrt=False``): a small helper that only reads and writes the
      arrays it is given and returns scalars, called from a kernel's inner loop.  numba
      otherwise takes a reference to every array argument on entry and drops it on exit, two
      atomic instructions per array per call, even when it inlines the helper: they were 33%
      of per-flow fairness's kernel on the Facebook trace (110 million heap updates with four
      arrays each; ``perf``).  Such a helper must not allocate, slice, or return or store an
      array (it holds no reference of its own); numba refuses to compile one that allocates.
    """
    if options.pop("borrowed", False):
        options["_nrt"] = False
    if options.pop("quiet", False):
        def wrap_quiet(func):
            _QUIET.add(func.__qualname__)
            return njit(**options)(func)
        return wrap_quiet(args[0]) if args and callable(args[0]) else wrap_quiet

    def wrap(func):
        if not HAVE_NUMBA:  # pragma: no cover - numba missing: plain Python
            return func
        if _LOADED[0]:  # a module imported after the kernels loaded: jit it now
            import numba
            return numba.njit(**options)(func)
        k = _LazyKernel(func, options)
        _KERNELS.append(k)
        return k
    if args and callable(args[0]):
        return wrap(args[0])
    return wrap


def on_load(hook) -> None:
    """Run ``hook()`` when the kernels load (before any is compiled), or now if they have:
    for modules whose kernels use numba objects as globals (typed lists, types)."""
    if _LOADED[0]:
        hook()
    else:
        _HOOKS.append(hook)


def read_only(a, dtype):
    """A contiguous read-only view of ``a`` as ``dtype``, for a kernel's input array.

    numba compiles a kernel once per signature, and a read-only array (an
    :class:`~coflowopt.instance.Instance`'s, which are frozen) and a writable one of the same
    dtype are two signatures: an input that comes from either passes through here, so the kernel
    is compiled once (``capacity_sweep`` was compiled four times in the test suite, 3.5-8 s
    each).

    Examples
    --------
    >>> v = read_only([1, 2], "int64")
    >>> v.flags.writeable, v.dtype.name
    (False, 'int64')
    """
    import numpy as np
    v = np.ascontiguousarray(a, dtype=dtype).view()
    v.flags.writeable = False
    return v


def kernels_loaded() -> bool:
    """Whether numba has been imported and the kernels handed to it in this process."""
    return _LOADED[0]


def load_kernels() -> None:
    """Import numba, make every recorded kernel a numba dispatcher and rebind the module
    globals that hold stand-ins.  Idempotent; called by the first kernel call."""
    if _LOADED[0] or not HAVE_NUMBA:
        return
    import numba
    _install_announcer()
    _LOADED[0] = True
    for hook in _HOOKS:
        hook()
    for k in _KERNELS:
        k.dispatcher = numba.njit(**k.options)(k.py_func)
    homes = {k.py_func.__module__ for k in _KERNELS}  # kernels defined outside the package too
    for name, mod in list(sys.modules.items()):
        if mod is None or not (name in homes or name == "coflowopt"
                               or name.startswith("coflowopt.")):
            continue
        for attr, val in list(vars(mod).items()):
            if isinstance(val, _LazyKernel):
                setattr(mod, attr, val.dispatcher)


# ----------------------------------------------------------------------- the announcement
class _Announcer:
    """numba's ``numba:compile`` event fires only on a cache miss (a cache hit returns before
    it), so this speaks exactly when a process compiles.  :func:`_cache_is_cold` lets it speak
    earlier, before numba is even imported, when the first kernel called has no cache index."""

    def __init__(self):
        self.started = None
        self.depth = 0
        self.quiet_top = False

    def start(self):
        if self.started is None:
            self.started = time.perf_counter()
            _say("coflowopt: compiling kernels (first run, ~40 s, cached afterwards)...")

    def on_start(self, event):
        if self.depth == 0 and _name_of(event) in _QUIET:
            self.quiet_top = True
        if not self.quiet_top:
            self.start()
        self.depth += 1

    def on_end(self, event):
        self.depth -= 1
        if self.depth == 0 and self.quiet_top:
            self.quiet_top = False
        elif self.depth == 0:  # a top-level kernel is done (its callees compiled with it)
            name = _name_of(event)
            _say(f"coflowopt:   compiled {name} "
                 f"({time.perf_counter() - self.started:.1f} s so far)")


def _name_of(event) -> str:
    disp = (event.data or {}).get("dispatcher")
    return getattr(getattr(disp, "py_func", None), "__qualname__", "kernel")


_ANNOUNCER = _Announcer()


def _cache_is_cold(func) -> bool:
    """Whether numba's cache has no index for ``func`` where numba would put it
    (``__pycache__`` beside the source, named ``<module>.<qualname>-<line>.py<ver>.nbi``).

    Only a fast early hint for the announcement: False whenever numba may cache elsewhere
    (``NUMBA_CACHE_DIR``, or a read-only install, where numba falls back to a user cache
    directory), so it never announces a compilation that does not happen.  A stale index
    (edited source) is caught by the compile event instead."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return False
    try:
        src = os.path.abspath(func.__code__.co_filename)
        pyc = os.path.join(os.path.dirname(src), "__pycache__")
        name = (f"{os.path.splitext(os.path.basename(src))[0]}.{func.__qualname__}-"
                f"{func.__code__.co_firstlineno}.py{sys.version_info[0]}{sys.version_info[1]}"
                ".nbi")
        writable = os.access(pyc if os.path.isdir(pyc) else os.path.dirname(src), os.W_OK)
        return writable and not os.path.exists(os.path.join(pyc, name))
    except (AttributeError, OSError, TypeError):  # pragma: no cover - an unusual function
        return False


def _say(line: str) -> None:
    if os.environ.get("COFLOWOPT_QUIET_JIT") in (None, "", "0"):
        print(line, file=sys.stderr, flush=True)


def _install_announcer() -> None:
    try:
        from numba.core import event
    except ImportError:  # pragma: no cover - numba without the event API
        return
    a = _ANNOUNCER

    class _Listener(event.Listener):
        def on_start(self, ev):
            a.on_start(ev)

        def on_end(self, ev):
            a.on_end(ev)

    event.register("numba:compile", _Listener())
