"""Ahead-of-time compiled kernels for the command's hottest paths (issue 17): numba's own
source, compiled once with ``numba.pycc`` into an extension module that imports only numpy.

Why: a ``coflowopt schedule`` process that runs a kernel pays about 0.4-0.6 s of CPU to import
numba and start it (its typing and lowering registries, ``scipy.linalg.cython_blas`` through
``numba.np.arraymath``) plus 0.1-0.4 s to load the cached object code, out of 1.5-2.5 s for
SEBF + MADD or BSSI + greedy on the Facebook trace (``experiments/results/bench_fb_process.md``).
With this module built, those two commands do not import numba at all.

Build (explicit, once per kernel-source version; 3-7 minutes, needs a C compiler)::

    python -m coflowopt._aot build        # or: status, path

What is compiled: the kernels of :data:`ENTRY_MODULES` that ``schedule --order sebf --rates
madd`` and ``schedule --order bssi --rates greedy`` call from Python (the MADD event loop in
its sink mode, the greedy event loop, the piece-chunk helpers and the verifier's passes), with
the argument types they are called with.  The build finds those types by running both commands
on a small trace in a subprocess (the JIT path, numba's normal cache), then compiles the same
Python functions with ``numba.pycc`` in a second subprocess with an empty numba cache.  There
is no second implementation: each export is the numba kernel itself, or a generated wrapper
around it for the two things an AOT module cannot pass across its boundary:

* typed lists (boxing one needs ``numba.typed``): the wrapper of a kernel that fills the
  piece-chunk lists (:class:`coflowopt.rates._pieces.PieceChunks`) creates them inside, runs
  the kernel and returns each list drained into one array (with ``_pieces._drain``); the
  Python side then holds plain lists of arrays (``_new_chunk_lists`` and ``_drain`` have
  adapters for those);
* ``objmode`` (the sink mode's call back into Python, ``_pieces.flush_to_sink``, which
  ``pycc`` cannot compile): in the build only, ``_pieces.flush_to_sink`` is replaced by a
  call through a C function pointer held in a global of the module (``set_sink``), which the
  adapter points at a ``ctypes`` callback that calls ``_pieces.SINK[0]`` with the same views
  of the write buffers as ``_pieces._call_sink``.  An exception raised by the sink is kept and
  raised when the kernel returns (the kernel runs to its end first: a C callback cannot
  unwind it).

Fresh.  The module's file name carries :func:`source_key`: a SHA-256 of the text of the
files of :data:`ENTRY_MODULES` and of every kernel file they import from (numba's cache stamp,
``_jit.kernel_dependency_stamp``), of this file, and of the numba, numpy and Python versions;
the build checks the key again after compiling and gives up if a file changed meanwhile.  A module built from other source is simply not found (so a kernel edit, a
``git pull`` or a numba upgrade falls back to the JIT until the next build); nothing is ever
loaded from a module whose key does not match.

Used.  :func:`activate` (called by the command's entry point, :mod:`coflowopt._entry`, unless
``COFLOWOPT_AOT=0``) loads the module when it exists and makes each compiled kernel's lazy
stand-in (``coflowopt.rates._jit``) call an :class:`_Adapter` instead of loading numba.  An
adapter checks every argument against the compiled signature (``pycc`` modules do not check
dtypes: a wrong one would read memory as the wrong type) and calls the JIT kernel instead when
anything differs; a kernel that is not compiled here loads numba as before.  The exports
hold the GIL (``pycc`` has no ``nogil``): kernels called from two threads take turns.  The library
(``import coflowopt``) and the tests never activate it by themselves.

Where: ``$COFLOWOPT_AOT_DIR``, else ``$XDG_CACHE_HOME/coflowopt/aot`` (``~/.cache/...``).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import json
import os
import sys

#: The modules whose kernels are compiled ahead of time: every kernel of these modules that
#: ``schedule --order sebf --rates madd`` or ``--order bssi --rates greedy`` calls from Python
#: (the build runs both and takes what was called, with the argument types it was called with)
ENTRY_MODULES = (
    "coflowopt.rates._pieces",          # the piece-chunk lists (plain-list adapters)
    "coflowopt.rates._madd_kernel",     # MADD's event loop (sink mode), settling a window
    "coflowopt.rates._greedy_kernel",   # the greedy event loop and its slots
    "coflowopt._verify_kernel",         # the float verifier's passes
)

_PKG = os.path.dirname(os.path.abspath(__file__))
_STATE = {"module": None, "spec": None, "active": False}


# ----------------------------------------------------------------------------- the key
def _version(package: str) -> str:
    """A package's version file, read without importing the package (``importlib.metadata``
    took ~0.1 s)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.origin:
        return "absent"
    for name in ("_version.py", "version.py"):
        try:
            with open(os.path.join(os.path.dirname(spec.origin), name), "rb") as f:
                return hashlib.sha256(f.read()).hexdigest()
        except OSError:
            pass
    return "unknown"


def _entry_files() -> list[str]:
    return sorted({os.path.join(_PKG, *m.split(".")[1:]) + ".py" for m in ENTRY_MODULES})


def source_key() -> str:
    """SHA-256 (hex) of what the compiled kernels are built from: the text of each entry's
    file and of every kernel file it imports from, transitively (the stamp numba's cache
    gets, ``_jit.kernel_dependency_stamp``), of this file, and the numba / numpy / Python
    versions.  A kernel file that changed after this process imported it gives a key no
    module has (``_jit._changed_since_import``)."""
    from .rates import _jit
    stamp = set()
    for path in _entry_files():
        stamp.update(_jit._dependency_stamp(path, _jit._ROOT, _jit.KERNEL_SOURCES))
    h = hashlib.sha256()
    for rel, digest in sorted(stamp, key=lambda x: x[0]):
        h.update(f"{rel} {digest}\n".encode())
    with open(os.path.abspath(__file__), "rb") as f:
        h.update(f.read())
    h.update(f"numba {_version('numba')} numpy {_version('numpy')} "
             f"python {sys.version_info[:3]} {sys.platform}".encode())
    return h.hexdigest()


def module_dir() -> str:
    d = os.environ.get("COFLOWOPT_AOT_DIR")
    if d:
        return d
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "coflowopt", "aot")


def module_name(key: str | None = None) -> str:
    return "_coflowopt_aot_" + (key or source_key())[:20]


def _paths(key: str | None = None):
    name = module_name(key)
    d = module_dir()
    so = os.path.join(d, name + importlib.machinery.EXTENSION_SUFFIXES[0])
    return name, so, os.path.join(d, name + ".json")


# ----------------------------------------------------------------------------- loading
def load(key: str | None = None):
    """``(module, spec)`` of the compiled kernels for the current sources, or None when there
    is none (absent, stale, or unreadable)."""
    name, so, meta = _paths(key)
    if not (os.path.isfile(so) and os.path.isfile(meta)):
        return None
    try:
        with open(meta, encoding="utf-8") as f:
            spec = json.load(f)
        if spec.get("key") != (key or source_key()):
            return None
        loader = importlib.machinery.ExtensionFileLoader(name, so)
        mspec = importlib.util.spec_from_file_location(name, so, loader=loader)
        mod = importlib.util.module_from_spec(mspec)
        loader.exec_module(mod)
    except (OSError, ImportError, ValueError):
        return None
    return mod, spec


def activate() -> bool:
    """Route the compiled kernels' calls to the module built for the current sources, if
    there is one and numba has not loaded the kernels yet; return whether it is active."""
    if _STATE["active"]:
        return True
    if os.environ.get("COFLOWOPT_AOT", "1") == "0":
        return False
    from .rates import _jit
    if _jit.kernels_loaded() or not _jit.HAVE_NUMBA:
        return False
    got = load()
    if got is None:
        return False
    mod, spec = got
    adapters = {}
    for e in spec["entries"]:
        fn = getattr(mod, e["export"], None) if e["export"] else None
        if e["export"] and fn is None:
            return False
        key = (e["module"], e["name"])
        adapters.setdefault(key, _Adapter(e["name"], mod)).variants.append(
            (e["args"], fn, e["window"]))
    _STATE.update(module=mod, spec=spec, active=True, adapters=adapters)

    def route(k):
        """Every kernel gets an adapter: one compiled here calls the module; any other loads
        numba as before, and takes typed lists for the plain chunk lists it may be handed
        (made by the ``_new_chunk_lists`` adapter before numba loaded)."""
        if k.dispatcher is None:
            key = (k.py_func.__module__, k.py_func.__qualname__)
            a = adapters.get(key) or _Adapter(k.py_func.__qualname__, mod)
            a.lazy = k
            k.dispatcher = a

    class _Registry(list):
        """``_jit._KERNELS``: a kernel registered from now on is routed as it registers."""

        def append(self, k):
            route(k)
            super().append(k)

    for k in _jit._KERNELS:
        route(k)
    _jit._KERNELS = _Registry(_jit._KERNELS)
    return True


class _ActivateOnImport:
    """A ``sys.meta_path`` finder that runs :func:`activate` right after
    ``coflowopt.rates._jit`` is imported (so that a command that never reaches a kernel
    module does not pay for importing them), then removes itself."""

    target = "coflowopt.rates._jit"

    def find_spec(self, name, path=None, target=None):
        if name != self.target:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        real = spec.loader

        class Loader:
            def create_module(self, spec):
                return real.create_module(spec)

            def exec_module(self, module):
                real.exec_module(module)
                sys.modules[spec.name] = module
                activate()

        spec.loader = Loader()
        return spec


def activate_when_imported() -> None:
    """:func:`activate` as soon as ``coflowopt.rates._jit`` (the kernels' lazy decorator) is
    imported (now if it is)."""
    if os.environ.get("COFLOWOPT_AOT", "1") == "0":
        return
    if "coflowopt.rates._jit" in sys.modules:
        activate()
    elif not any(isinstance(f, _ActivateOnImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _ActivateOnImport())


def active() -> bool:
    return _STATE["active"]


# ----------------------------------------------------------------------------- adapters
_SCALARS = {"int64": "i", "float64": "f", "bool": "b"}


def _matches(desc, v) -> bool:
    """Whether ``v`` has the numba type the export was compiled for (``desc``, see
    :func:`_describe`): what numba's own dispatch would type it as."""
    import numpy as np
    kind = desc[0]
    if kind == "array":
        _, dtype, ndim, layout, readonly = desc
        if type(v) is not np.ndarray or v.dtype.name != dtype or v.ndim != ndim:
            return False
        if (not readonly and not v.flags.writeable) or not v.flags.aligned:
            return False   # (compiled for read-only: a writable array reads the same)
        if layout == "A":   # strided code: any layout reads the same
            return True
        got = "C" if v.flags.c_contiguous else "F" if v.flags.f_contiguous else "A"
        return got == layout   # numba's typeof: C before F (a 1-d contiguous array is C)
    if kind == "scalar":
        t = type(v)
        if desc[1] == "int64":
            return (t is int and not isinstance(v, bool)) or t is np.int64
        if desc[1] == "float64":
            return t is float or t is np.float64
        if desc[1] == "bool":
            return t is bool or t is np.bool_
        return False
    if kind == "tuple":
        return (type(v) is tuple and len(v) == len(desc[1])
                and all(_matches(d, x) for d, x in zip(desc[1], v)))
    if kind == "list":   # a chunk list: a plain one here (the adapters' own)
        return type(v) is _PlainChunks
    return False


class _Adapter:
    """A compiled kernel behind its lazy stand-in: picks the export compiled for the
    arguments' types, passes the chunk lists and the sink across the module's boundary, and
    calls the JIT kernel when no export matches."""

    def __init__(self, name: str, mod):
        self.name = self.__name__ = name
        self.mod = mod
        self.lazy = None
        #: (argument descriptions, export, position of the ``window`` argument or None)
        self.variants: list = []

    def __repr__(self) -> str:
        return f"<AOT kernel {self.name}>"

    def __call__(self, *args, **kwargs):
        if self.name == "_new_chunk_lists" and not args and not kwargs:
            return _PlainChunks(), _PlainChunks(), _PlainChunks(), _PlainChunks()
        if self.name == "_drain" and type(args[0]) is _PlainChunks:
            return _drain_plain(*args)
        if not kwargs:
            for descs, fn, window in self.variants:
                if len(args) == len(descs) and all(
                        _matches(d, v) for d, v in zip(descs, args)):
                    return self._call(descs, fn, window, args)
        return self._jit(args, kwargs)

    def _call(self, descs, fn, window, args):
        lists = [i for i, d in enumerate(descs) if d[0] == "list"]
        if not lists:
            return fn(*args)
        plain = [args[i] for i in lists]
        passed = [v for i, v in enumerate(args) if i not in lists]
        if window is not None and args[window] > 0:
            out = _with_sink(self.mod, args[lists[0] + 4:lists[0] + 8], lambda: fn(*passed))
        else:
            out = fn(*passed)
        for p, arr in zip(plain, out[1:]):
            if arr.shape[0]:
                p.append(arr)
        return out[0]

    def _jit(self, args, kwargs):
        """The JIT kernel (numba loads now); plain chunk lists are handed typed lists and get
        their pieces back as one array each, as from the compiled wrapper."""
        import numpy as np

        from .rates import _pieces
        _load_numba()
        disp = self.lazy.dispatcher
        lists = [i for i, v in enumerate(args) if type(v) is _PlainChunks]
        if not lists:
            return disp(*args, **kwargs)
        args = list(args)
        typed = _pieces._new_chunk_lists()
        plain = [args[i] for i in lists]
        for t, i in zip(typed, lists):
            args[i] = t
        out = disp(*args, **kwargs)
        state = args[lists[0] + 8]   # PieceChunks.args(): 4 lists, 4 buffers, state
        for t, p in zip(typed, plain):
            # neither len(t) nor t[0] from Python: each compiles numba's typed-list internals
            # in every process (cached kernels do not); the dtype is the list's own type's
            if _pieces.chunk_length(t):
                arr = np.empty(int(state[0]) - sum(a.shape[0] for a in p),
                               dtype=np.dtype(str(t._numba_type_.item_type.dtype)))
                _drain(t, arr)
                p.append(arr)
        return out


class _PlainChunks(list):
    """A piece-chunk list on the Python side of the module (``_new_chunk_lists``' adapter):
    arrays, drained by ``_drain``'s adapter or, once numba has loaded, by :func:`_drain`."""


def _load_numba() -> None:
    """Load the JIT kernels (a kernel the module does not hold, or other argument types):
    every stand-in gets its numba dispatcher; ``_pieces._drain`` keeps taking plain chunk
    lists made before (chunks_to_arrays calls it from Python only)."""
    from .rates import _jit, _pieces
    _jit.load_kernels()
    if _pieces._drain is not _drain:
        _STATE["jit_drain"] = _pieces._drain
        _pieces._drain = _drain


def _drain(lst, out):
    if type(lst) is _PlainChunks:
        return _drain_plain(lst, out)
    return _STATE["jit_drain"](lst, out)


def _drain_plain(lst, out):
    """``_pieces._drain`` run as Python (its own source) on a plain list of arrays."""
    from .rates import _pieces
    (_STATE.get("jit_drain") or _pieces._drain).py_func(lst, out)


def _with_sink(mod, buffers, call):
    """Run ``call()`` (a sink-mode kernel) with the module's sink pointing at a callback that
    hands ``_pieces.SINK[0]`` the first ``nc`` pieces of ``buffers`` (``_pieces._call_sink``)."""
    import ctypes

    from .rates import _pieces
    cf, cs, ce, cv = buffers
    failed = []

    def sink(nc, window_end):
        if failed:
            return
        try:
            _pieces._call_sink(cf, cs, ce, cv, nc, window_end)
        except BaseException as exc:  # raised after the kernel returns (module docstring)
            failed.append(exc)

    cb = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_double)(sink)
    mod.set_sink(ctypes.cast(cb, ctypes.c_void_p).value)
    try:
        out = call()
    finally:
        mod.set_sink(0)
    if failed:
        raise failed[0]
    return out


# ----------------------------------------------------------------------------- the build
def _describe(t) -> list:
    """A numba type as JSON (what :func:`_matches` checks)."""
    from numba.core import types
    if isinstance(t, types.Array):
        return ["array", t.dtype.name if t.dtype != types.boolean else "bool", t.ndim,
                t.layout, bool(not t.mutable)]
    if isinstance(t, types.ListType):
        return ["list"]
    if isinstance(t, (types.UniTuple, types.Tuple)):
        return ["tuple", [_describe(x) for x in t.types]]
    if t == types.boolean:
        return ["scalar", "bool"]
    if t in (types.int64, types.float64):
        return ["scalar", str(t)]
    return ["other", str(t)]


#: a small trace in the coflow-benchmark format (ports, coflows; id, arrival ms, mappers,
#: reducers with MB), generated so that both commands' paths are taken
def _tiny_trace(path: str) -> None:
    import random
    rng = random.Random(7)
    ports, lines = 12, []
    for c in range(40):
        mappers = rng.sample(range(ports), rng.randint(1, 4))
        reducers = rng.sample(range(ports), rng.randint(1, 4))
        lines.append(f"{c + 1} {rng.randint(0, 4000)} {len(mappers)} "
                     + " ".join(map(str, mappers)) + f" {len(reducers)} "
                     + " ".join(f"{r}:{rng.randint(1, 40)}.0" for r in reducers))
    with open(path, "w", encoding="ascii") as f:
        f.write(f"{ports} {len(lines)}\n" + "\n".join(lines) + "\n")


COMMANDS = (("--order", "sebf", "--rates", "madd"),
            ("--order", "bssi", "--rates", "greedy", "--zero-release"))


def _discover(out: str, trace: str | None = None) -> None:
    """(Build subprocess 1.)  Run both commands on a small trace through the JIT and write
    the signatures each entry was called with and their return types (pickled numba
    types)."""
    import contextlib
    import io
    import pickle
    import tempfile

    from . import cli
    from .rates import _jit
    with tempfile.TemporaryDirectory() as tmp:
        if trace is None:
            trace = os.path.join(tmp, "tiny.txt")
            _tiny_trace(trace)
        for extra in COMMANDS:
            with contextlib.redirect_stdout(io.StringIO()):
                rc = cli.main(["schedule", trace, *extra, "--json"])
            if rc not in (0, None):
                raise RuntimeError(f"discovery run {extra} exited {rc}")
    found = []
    for k in _jit._KERNELS:
        key = (k.py_func.__module__, k.py_func.__qualname__)
        if key[0] in ENTRY_MODULES and k.dispatcher is not None:
            for sig in k.dispatcher.signatures:
                found.append((key, tuple(sig),
                              k.dispatcher.overloads[sig].signature.return_type))
    with open(out, "wb") as f:
        pickle.dump(found, f)


_FLUSH_SRC = '''
def flush_to_sink(cf, cs, ce, cv, nc, window_end):
    _sink_call(nc, window_end)
'''


def _sink_intrinsics():
    """``(_sink_set, _sink_call)``: numba intrinsics that store / call through a C function
    pointer ``void(int64 nc, double window_end)`` in one global of the module."""
    from llvmlite import ir
    from numba.core import types
    from numba.extending import intrinsic

    i64 = ir.IntType(64)
    fnty = ir.FunctionType(ir.VoidType(), [i64, ir.DoubleType()])

    def slot(module):
        gv = module.globals.get("coflowopt_aot_sink")
        if gv is None:
            gv = ir.GlobalVariable(module, i64, "coflowopt_aot_sink")
            gv.linkage = "linkonce_odr"
            gv.initializer = ir.Constant(i64, 0)
        return gv

    @intrinsic
    def _sink_set(typingctx, addr):
        def codegen(context, builder, sig, args):
            builder.store(args[0], slot(builder.module))
            return context.get_dummy_value()
        return types.void(types.int64), codegen

    @intrinsic
    def _sink_call(typingctx, nc, t):
        def codegen(context, builder, sig, args):
            fn = builder.inttoptr(builder.load(slot(builder.module)), fnty.as_pointer())
            builder.call(fn, [args[0], args[1]])
            return context.get_dummy_value()
        return types.void(types.int64, types.float64), codegen

    return _sink_set, _sink_call


def _compile(sigfile: str, outdir: str, key: str, only: str = "") -> None:
    """(Build subprocess 2, empty numba cache.)  Compile the entries with ``numba.pycc``."""
    import inspect
    import pickle

    import warnings

    import numba
    from numba.core import types
    with warnings.catch_warnings():   # pending deprecation since numba 0.57 (no successor yet)
        warnings.simplefilter("ignore")
        from numba.pycc import CC

    from .rates import _jit
    if source_key() != key:
        raise RuntimeError("the kernel sources changed since the build started: build again")
    for m in ENTRY_MODULES:
        importlib.import_module(m)
    _jit.load_kernels()
    from .rates import _pieces
    with open(sigfile, "rb") as f:
        found = pickle.load(f)

    _sink_set, _sink_call = _sink_intrinsics()
    ns = {"_sink_call": _sink_call}
    exec(_FLUSH_SRC, ns)
    _pieces.flush_to_sink = numba.jit(ns["flush_to_sink"], nopython=True)

    name = module_name(key)
    cc = CC(name)
    cc.output_dir = outdir
    cc.target_cpu = "host"   # as numba's JIT (the same instructions, the same results)
    cc.verbose = False

    def set_sink(addr):
        _sink_set(addr)
    cc.export("set_sink", types.void(types.int64))(set_sink)

    entries = []
    keep = set(only.split(",")) if only else None
    for n, ((modname, kname), argtys, ret) in enumerate(found):
        if keep is not None and kname not in keep:
            continue
        if kname in ("_new_chunk_lists", "_drain"):
            continue     # plain-list adapters (_Adapter), nothing to compile
        kern = getattr(sys.modules[modname], kname)
        export = f"k{n}_{kname.lstrip('_')}"
        lists = [i for i, t in enumerate(argtys) if isinstance(t, types.ListType)]
        window = None
        if not lists:
            cc.export(export, ret(*argtys))(_forwarder(kern, argtys))
        else:
            wrapper, sig = _list_wrapper(kern, argtys, lists, ret)
            cc.export(export, sig)(wrapper)
            params = list(inspect.signature(kern.py_func).parameters)
            window = params.index("window") if "window" in params else None
        entries.append({"module": modname, "name": kname, "export": export,
                        "args": [_describe(t) for t in argtys], "window": window})
    for kname in ("_new_chunk_lists", "_drain"):
        entries.append({"module": "coflowopt.rates._pieces", "name": kname, "export": None,
                        "args": None, "window": None})
    cc.compile()
    if source_key() != key:   # edited while compiling: this module is of neither text
        raise RuntimeError("the kernel sources changed during the build: build again")
    with open(os.path.join(outdir, name + ".json"), "w", encoding="utf-8") as f:
        json.dump({"key": key, "numba": numba.__version__, "entries": entries}, f)


def _forwarder(kern, argtys):
    """A function of ``len(argtys)`` arguments that calls ``kern`` (compiled with the kernel's
    own options: the export's body is only the call)."""
    params = ", ".join(f"a{i}" for i in range(len(argtys)))
    ns = {"K": kern}
    exec(f"def fwd({params}):\n    return K({params})\n", ns)
    return ns["fwd"]


def _list_wrapper(kern, argtys, lists, ret):
    """The export of a kernel that fills the four piece-chunk lists: the lists made inside,
    drained after the call (``_pieces._drain``, up to ``state[0]`` pieces; nothing in sink
    mode), and returned as four arrays after the kernel's own result."""
    import numpy as np
    from numba.core import types
    from numba.typed import List

    from .rates import _pieces
    params = [f"a{i}" for i in range(len(argtys))]
    kept = [p for i, p in enumerate(params) if i not in lists]
    state = params[lists[0] + 8]
    lines = [f"def wrap({', '.join(kept)}):"]
    for j, i in enumerate(lists):
        lines.append(f"    {params[i]} = List.empty_list(T{j})")
    lines.append(f"    r = K({', '.join(params)})")
    outs = []
    for j, i in enumerate(lists):
        lines.append(f"    n{j} = 0")
        lines.append(f"    for c in {params[i]}:")
        lines.append(f"        n{j} += c.shape[0]")
        lines.append(f"    o{j} = np.empty(min(n{j}, {state}[0]), dtype=D{j})")
        lines.append(f"    drain({params[i]}, o{j})")
        outs.append(f"o{j}")
    lines.append(f"    return r, {', '.join(outs)}")
    ns = {"K": kern, "List": List, "np": np, "drain": _pieces._drain}
    for j, i in enumerate(lists):
        ns[f"T{j}"] = argtys[i].item_type
        ns[f"D{j}"] = np.dtype(str(argtys[i].item_type.dtype))
    exec("\n".join(lines) + "\n", ns)
    kept_t = [t for i, t in enumerate(argtys) if i not in lists]
    arrs = [types.Array(argtys[i].item_type.dtype, 1, "C") for i in lists]
    return ns["wrap"], types.Tuple([ret, *arrs])(*kept_t)


def build(trace: str | None = None, verbose: bool = True, only=None) -> str:
    """Build the module for the current sources into :func:`module_dir`; return its path.
    ``only`` (kernel names) compiles a subset (the tests' quick build)."""
    import shutil
    import subprocess
    import tempfile

    key = source_key()
    name, so, meta = _paths(key)
    os.makedirs(module_dir(), exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="coflowopt-aot-") as tmp:
        sigs = os.path.join(tmp, "sigs.pkl")
        env = dict(os.environ, COFLOWOPT_AOT="0", COFLOWOPT_QUIET_JIT="1")
        say = (lambda m: print(m, file=sys.stderr, flush=True)) if verbose else (lambda m: None)
        say("coflowopt: finding the kernels' argument types (both commands, small trace)...")
        # Twice, keeping the second run's signatures.  A kernel that numba compiles in this
        # process also compiles the kernels it calls, whose dispatchers then list signatures
        # no Python code calls (some not exportable: a build after a kernel edit failed with a
        # TypingError, and passed when run again); loaded from numba's cache, as the first run
        # leaves every kernel, a kernel compiles nothing it calls.  The second run is ~2 s.
        for _ in range(2):
            subprocess.run([sys.executable, "-m", "coflowopt._aot", "_discover", sigs]
                           + ([trace] if trace else []), check=True, env=env)
        say("coflowopt: compiling them ahead of time (numba.pycc, a few minutes)...")
        env["NUMBA_CACHE_DIR"] = os.path.join(tmp, "numba-cache")
        out = os.path.join(tmp, "out")
        os.makedirs(out)
        subprocess.run([sys.executable, "-m", "coflowopt._aot", "_compile", sigs, out, key,
                        ",".join(only or ())], check=True, env=env)
        for src, dst in ((os.path.join(out, os.path.basename(so)), so),
                         (os.path.join(out, name + ".json"), meta)):
            shutil.copyfile(src, dst + ".tmp")
            os.replace(dst + ".tmp", dst)
    say(f"coflowopt: built {so}")
    return so


def status() -> str:
    _, so, _ = _paths()
    if load() is not None:
        return f"built and current: {so}"
    return f"absent or stale (would be {so}): the JIT kernels are used"


def _main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    cmd = argv[0] if argv else "status"
    if cmd == "build":
        import subprocess
        try:
            build(argv[1] if len(argv) > 1 else None)
        except subprocess.CalledProcessError as e:
            # the step's own messages are above (its output is not captured): one line, no
            # traceback, and nothing installed (a module is copied in only after both steps)
            print(f"coflowopt: the ahead-of-time build failed: its {e.cmd[3]} step exited "
                  f"{e.returncode}; nothing was installed, the JIT kernels stay in use",
                  file=sys.stderr)
            return 1
    elif cmd == "status":
        print(status())
    elif cmd == "path":
        print(_paths()[1])
    elif cmd == "_discover":
        _discover(argv[1], argv[2] if len(argv) > 2 else None)
    elif cmd == "_compile":
        _compile(*argv[1:5])
    else:
        print("usage: python -m coflowopt._aot [build [TRACE] | status | path]",
              file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(_main())
