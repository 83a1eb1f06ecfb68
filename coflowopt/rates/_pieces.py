"""Append-only storage of schedule pieces for the compiled event loops.

Why: a kernel that grows one output array by doubling holds up to twice the pieces it needs
and, while it grows, the old and the new array at once; on the Facebook trace (10^7 pieces for
SEBF+MADD) that was most of the 1.35 GB peak in ``experiments/bench_rates.py``.  Here the
kernel writes into fixed buffers that it spills, when full, to typed lists of chunks, so a
schedule is never copied while it grows; :func:`chunks_to_arrays` concatenates one component
at a time and frees each chunk as soon as it is copied (peak: the pieces plus one component).

A *sink* mode serves schedules too large to hold at all (per-flow fairness on the trace: about
1.9e8 pieces): the kernel hands each full buffer to a Python callable instead of keeping it
(:func:`flush_to_sink`), so memory stays at one buffer.
"""

from __future__ import annotations

import functools

import numpy as np

from ._jit import HAVE_NUMBA, njit, on_load

# numba objects the kernels below use as globals; bound when the kernels load (numba is
# imported lazily, see coflowopt.rates._jit; without numba the lists are plain lists)
types = List = objmode = _I64_ARRAY = _F64_ARRAY = None


def _bind_numba() -> None:
    global types, List, objmode, _I64_ARRAY, _F64_ARRAY
    from numba import objmode, types
    from numba.typed import List
    _I64_ARRAY = types.int64[::1]
    _F64_ARRAY = types.float64[::1]


on_load(_bind_numba)

__all__ = ["CHUNK", "PieceChunks", "put", "emit", "spill", "chunks_to_arrays", "SINK",
           "flush_to_sink", "cut_window", "close_pieces", "WindowSink", "chunk_length"]

#: pieces per chunk of the output buffers
CHUNK = 1 << 21

#: The receiver of :func:`flush_to_sink`: ``SINK[0](flow, start, end, rate, window_end)``,
#: set by the Python caller around one kernel call (module-level because a compiled kernel can
#: only call Python through a global; the kernels are not re-entrant in sink mode).
SINK = [None]


@njit(cache=True)
def _new_chunk_lists():
    """Four empty typed lists of int64 / float64 arrays.

    Why compiled (and cached): building a typed list from Python, or calling its methods from
    Python, compiles numba's typed-list internals in every process (about 1 s for
    ``List.empty_list`` and 2-4 s for ``pop``, measured by experiments/bench_kernels_load.py),
    whereas a cached function that does the same loads in milliseconds."""
    return (List.empty_list(_I64_ARRAY), List.empty_list(_F64_ARRAY),
            List.empty_list(_F64_ARRAY), List.empty_list(_F64_ARRAY))


@njit(cache=True)
def _drain(lst, out):
    """Copy the chunks of ``lst`` one after another into ``out`` (up to its length), then
    empty ``lst`` (its arrays are freed with it).  numba compiles (and caches) one
    specialisation per chunk type."""
    pos = 0
    for c in lst:
        m = min(c.shape[0], out.shape[0] - pos)
        out[pos:pos + m] = c[:m]
        pos += m
    lst.clear()


@njit(cache=True)
def chunk_length(lst):
    """The number of items in the arrays of a chunk list.

    Why compiled (and cached): ``len()`` of a typed list from Python compiles numba's
    typed-list internals in every process (~0.1 s a list type, and the command's "compiling
    kernels" notice on every run: ``coflowopt._aot``'s adapter asked it of each list)."""
    n = 0
    for c in lst:
        n += c.shape[0]
    return n


class PieceChunks:
    """Four typed lists of arrays that a kernel extends, the write buffers, and ``state[0]``,
    the total number of pieces.

    Parameters
    ----------
    buffer : int
        Pieces per write buffer (default :data:`CHUNK`).

    Examples
    --------
    >>> ch = PieceChunks(buffer=4)
    >>> lf, ls, le, lv, cf, cs, ce, cv, state = ch.args()
    >>> n = emit(lf, ls, le, lv, cf, cs, ce, cv, 0, 7, 0.0, 1.0, 2.0)
    >>> spill(lf, ls, le, lv, cf, cs, ce, cv, n); state[0] = n
    >>> [a.tolist() for a in chunks_to_arrays(ch)]
    [[7], [0.0], [1.0], [2.0]]
    """

    def __init__(self, buffer: int = CHUNK):
        if not HAVE_NUMBA:  # pragma: no cover
            self.flow, self.start, self.end, self.rate = [], [], [], []
        else:
            self.flow, self.start, self.end, self.rate = _new_chunk_lists()
        self.state = np.zeros(1, dtype=np.int64)
        self.buffer = int(buffer)

    @property
    def total(self) -> int:
        return int(self.state[0])

    def args(self):
        """The kernel arguments: the four chunk lists, four write buffers and ``state``."""
        b = self.buffer
        return (self.flow, self.start, self.end, self.rate,
                np.zeros(b, dtype=np.int64), np.zeros(b), np.zeros(b), np.zeros(b), self.state)


@njit(cache=True, borrowed=True)
def put(cf, cs, ce, cv, nc, f, start, end, rate):
    """Write the piece ``(f, start, end, rate)`` at position ``nc`` of the write buffers;
    return the next position.  The caller spills full buffers first::

        if nc == cf.shape[0]:
            spill(lf, ls, le, lv, cf, cs, ce, cv, nc)
            nc = 0
        nc = put(cf, cs, ce, cv, nc, f, start, end, rate)

    Why the chunk lists are not arguments here: a compiled function that takes numba typed
    lists updates their reference counts at every call, which made each piece cost ~90 ns
    instead of ~1 ns (2e8 pieces: 18 s of the 35 s of per-flow fairness on the Facebook
    trace); referenced only in the rarely taken spill branch, they cost nothing.
    """
    cf[nc] = f
    cs[nc] = start
    ce[nc] = end
    cv[nc] = rate
    return nc + 1


def emit(lf, ls, le, lv, cf, cs, ce, cv, nc, f, start, end, rate):
    """:func:`put` with the spill, for Python callers and tests (the kernels inline both)."""
    if nc == cf.shape[0]:
        spill(lf, ls, le, lv, cf, cs, ce, cv, nc)
        nc = 0
    return put(cf, cs, ce, cv, nc, f, start, end, rate)


@njit(cache=True)
def spill(lf, ls, le, lv, cf, cs, ce, cv, nc):
    """Move the first ``nc`` pieces of the write buffers to the chunk lists.  (The kernels
    write into fixed buffers that they never rebind: rebinding an array inside the event loop
    made every write several times slower.)"""
    if nc == 0:
        return
    lf.append(cf[:nc].copy())
    ls.append(cs[:nc].copy())
    le.append(ce[:nc].copy())
    lv.append(cv[:nc].copy())


def _call_sink(cf, cs, ce, cv, nc, window_end):
    SINK[0](cf[:nc], cs[:nc], ce[:nc], cv[:nc], window_end)


@njit(cache=True, quiet=True)
def flush_to_sink(cf, cs, ce, cv, nc, window_end):
    """Hand the first ``nc`` pieces of the write buffers to ``SINK[0]`` (a Python callable)
    together with the end of the time window they cover; the buffers are reused after the
    call, so the callable must copy what it keeps."""
    with objmode():
        _call_sink(cf, cs, ce, cv, nc, window_end)


@njit(cache=True)
def cut_window(cur, ncur, pstart, rate, t, cf, cs, ce, cv, nc):
    """A sink mode's window cut at ``t`` (``madd_simulate``, ``dclas_simulate``): the open
    piece of every running flow ``cur[:ncur]`` (``pstart[f]``, rate ``rate[f]``) is closed at
    ``t`` and reopened there with the same rate, so the rates as functions of time are
    unchanged; a piece opened at ``t`` has nothing before ``t`` to hand over.  Then the first
    ``nc`` pieces of the write buffers, those just closed included, go to :data:`SINK` as the
    window that ends at ``t`` (:func:`flush_to_sink`).  Returns the number of pieces cut (the
    caller's write position is 0 after it)."""
    n = nc
    for u in range(ncur):
        f = cur[u]
        if pstart[f] < t:
            n = put(cf, cs, ce, cv, n, f, pstart[f], t, rate[f])
            pstart[f] = t
    flush_to_sink(cf, cs, ce, cv, n, t)
    return n - nc


@njit(cache=True)
def close_pieces(lf, ls, le, lv, cf, cs, ce, cv, nc, window, t):
    """The last pieces of a kernel run: to the chunk lists (``window == 0``), or in sink mode
    (``window > 0``) to :data:`SINK` as the last window, which ends at ``t``."""
    if window > 0:
        flush_to_sink(cf, cs, ce, cv, nc, t)
    else:
        spill(lf, ls, le, lv, cf, cs, ce, cv, nc)


class WindowSink:
    """The Python end of a kernel's sink mode: each buffer :func:`flush_to_sink` hands over
    becomes a :class:`~coflowopt.schedule.Schedule` of copies, passed to
    ``on_window(schedule, start, end)`` with ``start`` the previous window's end (the first:
    the earliest release).  A callable with the attribute ``borrows = True`` keeps nothing of
    the schedule after it returns (the streamed verifier, which keeps sums only): it is handed
    views of the kernel's buffers instead of copies, unless ``prepare`` is given (which
    changes them).  Why: the copies were 7.6 % of per-flow fairness's whole process on the
    Facebook trace (py-spy, 2026-11-28), four fresh arrays per window of ~10^6 pieces.

    Parameters
    ----------
    instance : Instance
    on_window : callable
    meta : dict
        The schedules' ``meta`` (plus ``window``, the window's number).
    prepare : callable, optional
        ``prepare(flow, start, end, rate)`` may change the copies in place before they are
        handed over (MADD settles its flows there).

    Attributes
    ----------
    windows : int
    callback_s : float
        Seconds spent in ``prepare`` and ``on_window``.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0)])])
    >>> got = []
    >>> ws = WindowSink(inst, lambda s, a, b: got.append((s.end.tolist(), a, b)), {})
    >>> ws(np.array([0]), np.array([0.0]), np.array([1.0]), np.array([1.0]), 1.0)
    >>> ws(np.array([0]), np.array([1.0]), np.array([2.0]), np.array([1.0]), 2.0)
    >>> got, ws.windows
    ([([1.0], 0.0, 1.0), ([2.0], 1.0, 2.0)], 2)
    """

    def __init__(self, instance, on_window, meta: dict, prepare=None):
        self.on_window = on_window
        self.meta = dict(meta)
        self.prepare = prepare
        self.start = float(np.min(instance.release)) if instance.num_coflows else 0.0
        self.windows = 0
        self.callback_s = 0.0

    def __call__(self, f, s, e, v, end) -> None:
        import time

        from ..schedule import Schedule
        t0 = time.perf_counter()
        if self.prepare is not None or not getattr(self.on_window, "borrows", False):
            f, s, e, v = f.copy(), s.copy(), e.copy(), v.copy()
        if self.prepare is not None:
            self.prepare(f, s, e, v)
        self.on_window(Schedule(f, s, e, v, meta={**self.meta, "window": self.windows}),
                       self.start, float(end))
        self.start = float(end)
        self.windows += 1
        self.callback_s += time.perf_counter() - t0

    def run(self, call, who: str):
        """``call()`` (a kernel call in sink mode) with this sink installed as
        :data:`SINK`; ``who`` names the caller in the error when a sink is installed already
        (the kernels are not re-entrant in sink mode)."""
        if SINK[0] is not None:
            raise RuntimeError(f"{who} is not re-entrant (one kernel sink at a time)")
        SINK[0] = self
        try:
            return call()
        finally:
            SINK[0] = None


#: Schedules below this many pieces are too small for their freed chunks to matter (8 MB a
#: component at most): no ``malloc_trim`` after them.
_TRIM_PIECES = 1 << 20


def _release_freed_memory() -> None:
    """Give the pages of freed chunks back to the OS (glibc ``malloc_trim``; a no-op elsewhere).

    Why: the chunks are a few MB each, so glibc serves them from its heap (its mmap threshold
    adapts upwards after the first large free) and keeps their pages when they are freed; the
    component arrays allocated next are new mappings, so without the trim the process holds
    both (SEBF+MADD on the Facebook trace: 0.92 GB peak instead of ~0.6 GB)."""
    try:
        _libc().malloc_trim(0)
    except (OSError, AttributeError):  # pragma: no cover - not glibc
        pass


@functools.lru_cache(maxsize=1)
def _libc():
    # once per process: find_library runs ``ldconfig -p`` in a subprocess (~20 ms), which made
    # tiny schedules cost more than computing them (best-order's K! greedy calls)
    import ctypes
    import ctypes.util
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")


def chunks_to_arrays(ch: PieceChunks):
    """Concatenate the chunks one component at a time, freeing each component's chunks as soon
    as it is copied (peak memory: the pieces plus one component)."""
    out = []
    for name, dt in (("flow", np.int64), ("start", float), ("end", float), ("rate", float)):
        lst = getattr(ch, name)
        arr = np.empty(ch.total, dtype=dt)
        if not HAVE_NUMBA:  # pragma: no cover - plain Python lists (numba missing)
            pos = 0
            while lst:
                c = lst.pop(0)
                m = min(c.shape[0], ch.total - pos)
                arr[pos:pos + m] = c[:m]
                pos += m
        else:
            _drain(lst, arr)
        out.append(arr)
        if ch.total >= _TRIM_PIECES:
            _release_freed_memory()
    return out
