"""Compiled weighted progressive filling (weighted max-min fairness) on the big switch.

Items (flows, or groups of flows sharing an (ingress, egress) pair) each use two ports.  Every
unfrozen item grows at rate ``w_t * lam`` as one common level ``lam`` rises; when a port fills,
the items through it freeze at the current level.  The result is the weighted max-min fair
allocation: no item can grow without shrinking an item with a smaller or equal level at a full
port (Bertsekas & Gallager, *Data Networks*, 2nd ed., Sec. 6.5.2, the progressive-filling
algorithm; weights as in weighted fair queueing).

Used by the backfilling of :mod:`._madd_kernel` (weights = remaining sizes, items = a coflow's
(ingress, egress) pair groups); :func:`take_filled` turns the levels into amounts taken from a
leftover capacity.

Cost: O(n + (ports touched)^2): one scan of the touched ports per round, at most one round per
port.
"""

from __future__ import annotations

import numpy as np

from ._jit import njit


def fill_scratch(num_ports: int, max_items: int):
    """Scratch arrays for :func:`weighted_fill`: ``(fbuf (P, 2), ibuf (P, 6), done (n),
    adj (2n), counter (1))``, Fortran order so that columns are contiguous."""
    return (np.zeros((num_ports, 2), order="F"),
            np.zeros((num_ports, 6), dtype=np.int64, order="F"),
            np.zeros(max(1, max_items), dtype=np.int64),
            np.zeros(max(2, 2 * max_items), dtype=np.int64),
            np.zeros(1, dtype=np.int64))


@njit(cache=True)
def weighted_fill(n, w, p1, p2, cap, lam_out, fbuf, ibuf, done, adj, counter):
    """Weighted progressive filling of ``n`` items on ports with capacities ``cap``.

    Parameters
    ----------
    n : int
        Number of items; item ``t`` has weight ``w[t] > 0`` and uses ports ``p1[t]``, ``p2[t]``
        (distinct).
    cap : float array
        Capacity (or leftover) of every port; not modified.
    lam_out : float array
        Receives each item's level: its rate is ``w[t] * lam_out[t]``.
    fbuf, ibuf, done, adj, counter
        Scratch from :func:`fill_scratch` (``ibuf[:, 5]`` holds stamps; ``counter`` makes them
        unique across calls, so nothing needs clearing).
    """
    wsum = fbuf[:, 0]
    frozen = fbuf[:, 1]
    touched = ibuf[:, 0]
    deg = ibuf[:, 1]
    bstart = ibuf[:, 2]
    cursor = ibuf[:, 3]
    stamp = ibuf[:, 5]
    counter[0] += 1
    mark = counter[0]
    nt = 0
    for t in range(n):
        done[t] = 0
        lam_out[t] = 0.0
        for p in (p1[t], p2[t]):
            if stamp[p] != mark:
                stamp[p] = mark
                touched[nt] = p
                nt += 1
                deg[p] = 0
                wsum[p] = 0.0
                frozen[p] = 0.0
            deg[p] += 1
            wsum[p] += w[t]
    pos = 0
    for u in range(nt):
        p = touched[u]
        bstart[p] = pos
        cursor[p] = pos
        pos += deg[p]
        # deg[p] now counts the unfrozen items at p: a port is live while it has one (its
        # weight sum may keep a rounding residue after the last one froze)
    for t in range(n):
        for p in (p1[t], p2[t]):
            adj[cursor[p]] = t
            cursor[p] += 1
    # rounds: the port that fills first at the common level, lam_p = (cap_p - frozen_p) /
    # wsum_p, freezes its items.  A linear scan over the (few) touched ports per round beats a
    # heap here: a heap needs one push per frozen item, a scan costs O(ports) per round and
    # there are at most as many rounds as ports.
    live = nt
    while live > 0:
        best = -1
        lam = np.inf
        u = 0
        while u < live:
            p = touched[u]
            if deg[p] == 0:
                live -= 1
                touched[u] = touched[live]
                touched[live] = p
                continue
            x = (cap[p] - frozen[p]) / wsum[p]
            if x < lam:
                lam = x
                best = u
            u += 1
        if best < 0:
            break
        p = touched[best]
        if lam < 0.0:
            lam = 0.0
        for c in range(bstart[p], cursor[p]):
            t = adj[c]
            if done[t] != 0:
                continue
            done[t] = 1
            lam_out[t] = lam
            a = w[t] * lam
            for q in (p1[t], p2[t]):
                wsum[q] -= w[t]
                frozen[q] += a
                deg[q] -= 1
        wsum[p] = 0.0
        deg[p] = 0


@njit(cache=True, borrowed=True)
def take_filled(n, w, p1, p2, lam, res):
    """Turn the levels of :func:`weighted_fill` into amounts and take them from ``res``.

    ``lam[t]`` is replaced by item ``t``'s amount ``w[t] * lam[t]``, clamped so that no port
    of ``res`` goes below 0 (the filling keeps every port within its capacity up to rounding;
    this absorbs that rounding).  ``res`` is decreased by the amounts.
    """
    for t in range(n):
        lam[t] = take_at(res, p1[t], p2[t], w[t] * lam[t])


@njit(cache=True, borrowed=True)
def take_at(res, i, j, a):
    """Take up to ``a`` from ports ``i`` and ``j`` of ``res`` (clamped to what both have, so
    that the rounding of running subtractions never drives a port negative); return what was
    taken (0 if nothing)."""
    if a > res[i]:
        a = res[i]
    if a > res[j]:
        a = res[j]
    if a <= 0.0:
        return 0.0
    res[i] -= a
    res[j] -= a
    if res[i] < 0.0:
        res[i] = 0.0
    if res[j] < 0.0:
        res[j] = 0.0
    return a
