"""Shared numba helpers of the compiled kernels' sorted windows: insert or remove one entry.

Every compiled event loop keeps some list sorted in a slice of flat arrays (a port's pairs by
rank in the greedy and priority kernels, a pair's flows by threshold in the max-min kernels or
by priority key in the priority kernels, the active coflows by rank in MADD), often as several
parallel arrays, and inserts or removes one entry at a time: find the place (a binary search
or a backward scan, by the kernel's own key), then move the tail of the window one place.  The
move was written out in every kernel, once per parallel array; it is here once.  Only entries
move (no arithmetic), so a kernel gives the same bits with these helpers as with the loops
they replace.  :func:`keep_positive` is the other loop the slotted kernels repeated: drop the
finished items of an active list, in order.

Examples
--------
>>> import numpy as np
>>> a = np.array([1, 3, 5, 0, 0])
>>> insert_at(a, 1, 3, 2)          # window a[0:3], the new entry at index 1
>>> a.tolist()
[1, 2, 3, 5, 0]
>>> remove_at(a, 2, 4)             # window a[0:4], remove the entry at index 2
>>> a[:3].tolist()
[1, 2, 5]
>>> keep_positive(a, 3, np.array([0, 4, 0, 0, 0, 7]))   # keep the items whose value is > 0
2
>>> a[:2].tolist()
[1, 5]
"""

from __future__ import annotations

from ._jit import njit

__all__ = ["insert_at", "remove_at", "scan_back", "keep_positive"]


@njit(cache=True, borrowed=True)
def insert_at(a, i, end, x):
    """Insert ``x`` at index ``i`` of the window ending (exclusive) at ``end``: ``a[i:end]``
    moves to ``a[i+1:end+1]`` (from the top down, so nothing is overwritten before it moved);
    ``a[end]`` must be free."""
    j = end
    while j > i:
        a[j] = a[j - 1]
        j -= 1
    a[i] = x


@njit(cache=True, borrowed=True)
def remove_at(a, i, end):
    """Remove the entry at index ``i`` of the window ending (exclusive) at ``end``:
    ``a[i+1:end]`` moves to ``a[i:end-1]``."""
    last = end - 1
    while i < last:
        a[i] = a[i + 1]
        i += 1


@njit(cache=True, borrowed=True)
def scan_back(keys, ties, lo, hi, x, tie):
    """The index in ``[lo, hi]`` where ``(x, tie)`` goes in the window ``[lo, hi)`` sorted by
    ``(keys, ties)``: after every entry not greater than it (a backward scan, the cheap
    choice when new entries mostly belong near the end)."""
    s = hi
    while s > lo and (keys[s - 1] > x or (keys[s - 1] == x and ties[s - 1] > tie)):
        s -= 1
    return s


@njit(cache=True, borrowed=True)
def keep_positive(items, n, value):
    """Keep, in order, the entries ``x`` of ``items[:n]`` with ``value[x] > 0`` (moved to the
    front); returns how many remain."""
    k = 0
    for i in range(n):
        x = items[i]
        if value[x] > 0:
            items[k] = x
            k += 1
    return k
