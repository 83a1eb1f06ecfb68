"""An order of coflows by ``(key, rank)`` kept across the events of a simulation.

Policies that re-sort the active coflows at every event (Varys' SEBF on the remaining demand,
Aalo's queues in FIFO order) see few keys change between two events: only the coflows that were
served (their remaining demand moved) or that changed queue.  :class:`KeyedOrder` keeps the
sorted order, drops the coflows that left or were marked, and merges back the marked and the
new ones with fresh keys, so an event costs two compiled passes over the active coflows plus
O(m log m) for the m coflows that changed, instead of a full O(K log K) sort: at 10,000 coflows
the full sorts were a third of ``varys-online``'s time and grew past everything else at 50,000.

The result is the order a full stable sort by ``(key, rank)`` gives (ranks are distinct), so a
policy using it produces the same schedule bit for bit.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..rates._jit import njit  # lazy numba, compile announced (see rates/_jit)

__all__ = ["KeyedOrder"]


class KeyedOrder:
    """Coflows sorted by ``(key, rank)``, updated incrementally.

    Parameters
    ----------
    rank : ndarray of int, shape (K,)
        Distinct tie-break ranks (smaller first).

    Examples
    --------
    >>> import numpy as np
    >>> key = np.array([2.0, 1.0, 2.0, 0.5])
    >>> order = KeyedOrder(np.arange(4))
    >>> order.order(np.array([0, 1, 2]), lambda c: key[c]).tolist()
    [1, 0, 2]
    >>> key[2] = 1.0; order.mark([2])        # coflow 2's key changed
    >>> order.order(np.array([0, 1, 2, 3]), lambda c: key[c]).tolist()
    [3, 1, 2, 0]

    Notes
    -----
    An event costs two compiled passes over the kept order (:func:`_split`, :func:`_merge`)
    and a sort of the m new or marked coflows; no array of size K is written or allocated per
    event (at 50,000 coflows the dozen numpy passes over the active coflows and the K-sized
    masks of the earlier version were a quarter of ``varys-online``'s time).
    """

    def __init__(self, rank: np.ndarray):
        self.rank = np.ascontiguousarray(rank, dtype=np.int64)
        K = self.rank.size
        self.n = 0
        self._c = np.zeros(K, dtype=np.int64)       # the order: _c[:n], keys _k[:n]
        self._k = np.zeros(K)
        self._c2 = np.zeros(K, dtype=np.int64)      # the other buffer (merge target)
        self._k2 = np.zeros(K)
        self._new = np.zeros(K, dtype=np.int64)
        self.member = np.zeros(K, dtype=bool)
        self.dirty = np.zeros(K, dtype=bool)
        self._want = np.zeros(K, dtype=bool)
        self._marked: list[np.ndarray] = []

    @property
    def coflows(self) -> np.ndarray:
        """The current order (a view)."""
        return self._c[:self.n]

    @property
    def key(self) -> np.ndarray:
        """The keys of :attr:`coflows` (a view)."""
        return self._k[:self.n]

    def mark(self, coflows) -> None:
        """The keys of ``coflows`` may have changed: recompute them at the next :meth:`order`."""
        c = np.asarray(coflows, dtype=np.int64)
        self.dirty[c] = True
        self._marked.append(c)

    def order(self, coflows: np.ndarray, key_of: Callable[[np.ndarray], np.ndarray]
              ) -> np.ndarray:
        """``coflows`` sorted by ``(key, rank)``; ``key_of(c)`` gives the keys of the coflows
        ``c`` that are new or marked (the others keep the key they had)."""
        coflows = np.ascontiguousarray(coflows, dtype=np.int64)
        nk, nn = _split(self._c, self._k, self.n, coflows, self._want, self.dirty,
                        self.member, self._new)
        return self._place(nk, nn, key_of)

    def order_alive(self, finished: np.ndarray, arrived: np.ndarray,
                    key_of: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """:meth:`order` of the coflows kept or ``arrived`` since the last call, less the
        ``finished`` ones (a bool per coflow), without a list of them: the same result as
        ``order(coflows)`` when ``coflows`` is exactly those, in one compiled pass over the
        kept order instead of three (two over ``coflows``, to mark and unmark them).  Every
        coflow :meth:`mark` ed must have arrived (in this call or an earlier one): an
        unfinished marked coflow is placed as a member.

        Examples
        --------
        >>> import numpy as np
        >>> key = np.array([2.0, 1.0, 2.0, 0.5])
        >>> order = KeyedOrder(np.arange(4))
        >>> done = np.zeros(4, dtype=bool)
        >>> order.order_alive(done, np.array([0, 1, 2]), lambda c: key[c]).tolist()
        [1, 0, 2]
        >>> done[1] = True; key[2] = 1.0; order.mark([2])
        >>> order.order_alive(done, np.array([3]), lambda c: key[c]).tolist()
        [3, 2, 0]
        """
        nk, nn = _split_alive(self._c, self._k, self.n, finished, self.dirty, self.member,
                              self._marked_array(),
                              np.ascontiguousarray(arrived, dtype=np.int64), self._new)
        return self._place(nk, nn, key_of)

    def _marked_array(self) -> np.ndarray:
        if not self._marked:
            return np.zeros(0, dtype=np.int64)
        if len(self._marked) == 1:
            return np.ascontiguousarray(self._marked[0], dtype=np.int64)
        return np.concatenate(self._marked)

    def _place(self, nk: int, nn: int, key_of) -> np.ndarray:
        """Sort the ``nn`` new / marked coflows of ``_new`` and merge them with the ``nk``
        kept ones."""
        new = self._new[:nn]
        new = new[np.argsort(self.rank[new], kind="stable")]
        keys = np.asarray(key_of(new), dtype=float)
        o = np.argsort(keys, kind="stable")
        new, keys = np.ascontiguousarray(new[o]), np.ascontiguousarray(keys[o])
        self.n = _merge(self._c, self._k, nk, new, keys, self.rank, self.member, self._c2,
                        self._k2)
        self._c, self._c2 = self._c2, self._c
        self._k, self._k2 = self._k2, self._k
        for c in self._marked:
            self.dirty[c] = False
        self._marked.clear()
        return self._c[:self.n].copy()


@njit(cache=True)
def _compact(oc, ok, n, flag, keep_if, dirty, member):
    """Keep, in their order, the coflows ``c`` of ``oc[:n]`` (keys ``ok``) with
    ``flag[c] == keep_if`` and not ``dirty``; unset ``member`` for the others.  Returns how
    many are kept."""
    m = 0
    for i in range(n):
        c = oc[i]
        if flag[c] == keep_if and not dirty[c]:
            oc[m] = c
            ok[m] = ok[i]
            m += 1
        else:
            member[c] = False
    return m


@njit(cache=True)
def _split(oc, ok, n, coflows, want, dirty, member, new):
    """Compact the kept coflows (wanted, not dirty) to the front of ``oc`` / ``ok`` in their
    order, leave ``member`` true for them alone, and write the others of ``coflows`` (new or
    dirty) to ``new`` in their given order.  ``want`` is all false on entry and on exit.
    Returns ``(kept, new count)``."""
    for i in range(coflows.shape[0]):
        want[coflows[i]] = True
    m = _compact(oc, ok, n, want, True, dirty, member)
    nn = 0
    for i in range(coflows.shape[0]):
        c = coflows[i]
        want[c] = False
        if not member[c]:
            new[nn] = c
            nn += 1
    return m, nn


@njit(cache=True)
def _split_alive(oc, ok, n, finished, dirty, member, marked, arrived, new):
    """:func:`_split` with the wanted coflows given as the kept ones, the ``marked`` ones and
    the ``arrived`` ones, less the ``finished``: compact the kept (unfinished, not dirty) to
    the front, write the unfinished marked or arrived coflows that are not kept to ``new``
    (each once: ``member`` is set for them here and again by :func:`_merge`).  Returns
    ``(kept, new count)``."""
    m = _compact(oc, ok, n, finished, False, dirty, member)
    nn = 0
    for i in range(marked.shape[0]):
        c = marked[i]
        if not finished[c] and not member[c]:
            member[c] = True
            new[nn] = c
            nn += 1
    for i in range(arrived.shape[0]):
        c = arrived[i]
        if not finished[c] and not member[c]:
            member[c] = True
            new[nn] = c
            nn += 1
    return m, nn


@njit(cache=True)
def _merge(kc, kk, nk, nc, nkey, rank, member, out_c, out_k):
    """Merge the kept ``kc[:nk]`` (sorted by key, rank) and the new ``nc`` (sorted likewise)
    into ``out_c`` / ``out_k``, as a full sort by ``(key, rank)`` orders them (NaN keys
    last, as numpy's sorts put them); mark the new ones members.  Returns the length."""
    i = 0
    j = 0
    n = 0
    while i < nk and j < nc.shape[0]:
        a = nkey[j]
        b = kk[i]
        if a != a:
            first = b != b and rank[nc[j]] < rank[kc[i]]
        elif b != b:
            first = True
        else:
            first = a < b or (a == b and rank[nc[j]] < rank[kc[i]])
        if first:
            out_c[n] = nc[j]
            out_k[n] = a
            j += 1
        else:
            out_c[n] = kc[i]
            out_k[n] = b
            i += 1
        n += 1
    while i < nk:
        out_c[n] = kc[i]
        out_k[n] = kk[i]
        i += 1
        n += 1
    while j < nc.shape[0]:
        out_c[n] = nc[j]
        out_k[n] = nkey[j]
        j += 1
        n += 1
    for x in range(nc.shape[0]):
        member[nc[x]] = True
    return n
