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

Fresh.  numba stamps a cached kernel with its own source file only, but a kernel is compiled
together with the kernels and constants it takes from other files: after an edit (or a ``git
pull``) of ``_class_kernel.py`` alone, ``_mlfq_kernel.py``'s cached loop kept the old
``serve_levels`` and ran it, silently.  When numba loads, coflowopt's kernels get cache locators
whose stamp is the content hash of the kernel's file *and* of every kernel file it imports from,
transitively (:func:`kernel_dependency_stamp`, over :data:`KERNEL_SOURCES`), so any such edit
recompiles the kernels that depend on it.

Without numba (a declared dependency; the fallback only keeps the package importable) the
kernels run, slowly, as plain Python.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import re
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
        note_import(func.__code__.co_filename)
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
    _install_dependency_stamps()
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


# ----------------------------------------------------------------------- the cache's stamp
#: Every file of the package that holds a compiled kernel (relative to the package root):
#: the files whose text a kernel can be compiled from.  ``tests/test_kernel_cache.py`` checks
#: the list against the package (every file that uses ``njit``) and checks that what a kernel
#: uses from another module of the package comes from one of these files.
KERNEL_SOURCES = (
    "_simulate_kernel.py", "_slotted_kernel.py", "_verify_kernel.py", "exact/_subset_kernel.py",
    "fairness/_pairs_kernel.py", "formats/_json_scan.py", "formats/schedule_io.py",
    "formulations/_certificate_kernel.py", "policies/_class_kernel.py",
    "policies/_flow_kernel.py", "policies/_keyed_order.py", "policies/_level_kernel.py",
    "policies/_mlfq_kernel.py",
    "policies/aalo.py", "policies/sincronia_online.py", "rates/_bvn_kernel.py",
    "rates/_fill_kernel.py",
    "rates/_greedy_kernel.py", "rates/_jit.py", "rates/_madd_kernel.py", "rates/_pieces.py",
    "rates/_sorted.py", "rates/madd.py",
)

#: the package root (``coflowopt/``)
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# ``from .x import a, b`` / ``from ..x.y import (a, b)`` / ``from . import m`` /
# ``from coflowopt.x import a``, also indented (imports inside functions)
# (found as a literal and then checked to start its line: a line-anchored pattern scanned the
# 0.56 MB of kernel files 25 times slower)
_FROM_IMPORT = re.compile(
    rb"from[ \t]+(\.+|coflowopt\.?)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]+)")


def _module_file(package_dir: str, dotted: str) -> str | None:
    """The file of module ``dotted`` (``a.b``) under ``package_dir``, if it exists."""
    base = os.path.join(package_dir, *dotted.split(".")) if dotted else package_dir
    for cand in (base + ".py", os.path.join(base, "__init__.py")):
        if os.path.isfile(cand):
            return cand
    return None


def imported_files(path: str, text: bytes, root: str = _ROOT) -> set[str]:
    """The files of the modules ``path`` imports from with ``from ... import`` (relative, or
    absolute within the package at ``root``), including ``from . import module``.

    >>> import os
    >>> here = os.path.join(_ROOT, "policies", "x.py")
    >>> sorted(os.path.relpath(f, _ROOT) for f in imported_files(
    ...     here, b"from ._class_kernel import serve_levels\\nfrom ..rates import _pieces\\n"))
    ['policies/_class_kernel.py', 'rates/__init__.py', 'rates/_pieces.py']
    """
    out = set()
    for m in _FROM_IMPORT.finditer(text):
        if text[text.rfind(b"\n", 0, m.start()) + 1:m.start()].strip(b" \t"):
            continue  # not at the start of its line (prose, a string)
        dots, mod = m.group(1).decode(), m.group(2).decode()
        if dots.startswith("coflowopt"):
            pkg = root
        else:
            pkg = os.path.dirname(path)
            for _ in range(len(dots) - 1):
                pkg = os.path.dirname(pkg)
        f = _module_file(pkg, mod)
        if f is not None:
            out.add(f)
        # ``from .rates import _pieces``: a name may be a submodule
        names = m.group(3).decode().strip("() \t\r\n")
        sub = os.path.join(pkg, *mod.split(".")) if mod else pkg
        for n in names.split(","):
            n = n.split(" as ")[0].strip().split("#")[0].strip()
            if n and n.isidentifier():
                g = _module_file(sub, n)
                if g is not None:
                    out.add(g)
    return out


def _file_digest(path: str) -> tuple[bytes, bytes]:
    """``(sha256, text)`` of a file, read again when its modification time or size changes
    (as numba's own stamp)."""
    st = os.stat(path)
    return _read_digest(path, st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=None)
def _read_digest(path: str, mtime_ns: int, size: int) -> tuple[bytes, bytes]:
    with open(path, "rb") as fh:
        text = fh.read()
    return hashlib.sha256(text).digest(), text


@functools.lru_cache(maxsize=None)
def _imports_of(path: str, mtime_ns: int, size: int, root: str) -> frozenset:
    return frozenset(imported_files(path, _read_digest(path, mtime_ns, size)[1], root))


def kernel_dependency_stamp(path: str, root: str = _ROOT,
                            sources: tuple[str, ...] = KERNEL_SOURCES) -> tuple:
    """The stamp of a kernel defined in ``path``: ``(relative path, sha256)`` of ``path`` and
    of every kernel file (``sources``, relative to ``root``) it imports from, transitively.

    Content hashes, as numba's own stamp: touching a file or checking out another branch and
    back does not recompile; any change of the text does, in the file or in one it depends on.
    Computed once per file and process (numba asks once per kernel), from the files' state
    then: :func:`_dependency_stamp` reads them again.
    """
    return _PROCESS_STAMPS.get((path, root, sources)) or _PROCESS_STAMPS.setdefault(
        (path, root, sources), _dependency_stamp(path, root, sources))


_PROCESS_STAMPS: dict = {}


@functools.lru_cache(maxsize=None)
def _kernel_files(root: str, sources: tuple[str, ...]) -> frozenset:
    return frozenset(os.path.normcase(os.path.join(root, s)) for s in sources)


def _dependency_stamp(path: str, root: str, sources: tuple[str, ...]) -> tuple:
    kernel_files = _kernel_files(root, sources)
    path = os.path.abspath(path)
    seen, todo = set(), [path]
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        try:
            st = os.stat(f)
        except OSError:
            continue
        todo.extend(g for g in _imports_of(f, st.st_mtime_ns, st.st_size, root)
                    if os.path.normcase(g) in kernel_files and g not in seen)
    out = []
    for f in sorted(seen):
        try:
            digest = _file_digest(f)[0].hex() if not _changed_since_import(f) else \
                f"changed since this process imported it ({os.getpid()}, {time.time_ns()})"
        except OSError:
            digest = None
        out.append((os.path.relpath(f, root), digest))
    return tuple(out)


#: ``(st_mtime_ns, st_size)`` of each kernel file when this process imported it
#: (:func:`note_import`)
_IMPORT_STATS: dict = {}


def note_import(path: str) -> None:
    """Remember the state of kernel file ``path`` as this process imports it (its first
    ``njit``).  The stamp is computed later, when the kernels load: a file edited in between
    (a developer's editor, ``git pull`` while a long run goes on) would otherwise stamp the
    code compiled from the *imported* text with the *new* text's hash, and every later process
    would load that stale code under a matching stamp (a segfault in ``coflowopt demo`` on
    2026-11-28: sincronia-online's cached loop compiled that way)."""
    key = os.path.normcase(os.path.abspath(path))
    if key not in _IMPORT_STATS:
        try:
            st = os.stat(key)
        except OSError:
            return
        _IMPORT_STATS[key] = (st.st_mtime_ns, st.st_size)


def _changed_since_import(path: str) -> bool:
    """Whether ``path`` was modified after :func:`note_import` saw it: its stamp is then a
    token no other process matches (this one compiles from what it imported; nothing stale is
    loaded or left under the file's real hash)."""
    seen = _IMPORT_STATS.get(os.path.normcase(os.path.abspath(path)))
    if seen is None:
        return False
    st = os.stat(path)
    return seen != (st.st_mtime_ns, st.st_size)


note_import(__file__)    # this file is in every kernel's stamp


def _install_dependency_stamps() -> None:
    """Put cache locators for the package's files first in numba's list: numba's own (a
    user-given ``NUMBA_CACHE_DIR``, ``__pycache__`` beside the source, or a user-wide
    directory for a read-only install), with :func:`kernel_dependency_stamp` added to the
    stamp.  Files outside the package keep numba's locators."""
    try:
        from numba.core import caching
    except ImportError:  # pragma: no cover - numba without the caching module
        return
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    classes = getattr(impl, "_locator_classes", None)
    if not isinstance(classes, list) or any(getattr(c, "_coflowopt", False) for c in classes):
        return
    bases = [getattr(caching, n, None) or getattr(caching, "_" + n, None)
             for n in ("UserProvidedCacheLocator", "InTreeCacheLocator",
                       "UserWideCacheLocator")]
    root = os.path.normcase(_ROOT) + os.sep

    def with_dependencies(base):
        class Locator(base):
            _coflowopt = True

            @classmethod
            def from_function(cls, py_func, py_file):
                if not os.path.normcase(os.path.abspath(py_file)).startswith(root):
                    return None
                return super().from_function(py_func, py_file)

            def get_source_stamp(self):
                return (super().get_source_stamp(), kernel_dependency_stamp(self._py_file))

        Locator.__name__ = Locator.__qualname__ = "Coflowopt" + base.__name__.lstrip("_")
        return Locator

    classes[:0] = [with_dependencies(b) for b in bases if b is not None]
