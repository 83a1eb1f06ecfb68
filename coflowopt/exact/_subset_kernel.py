"""Compiled all-subset tables of :class:`coflowopt.exact.subset_bounds.SubsetBounds`.

Why a kernel: the numpy build of the ``2^n`` tables allocates several ``2^n`` temporaries per
(resource, release threshold) and per coflow; at ``n = 22`` it takes about 3 s and 300 MB, which
capped the tables (and so the branch and bound's DP bound) at 22 coflows.  The kernel runs the
same arithmetic in place: one float64 scratch array per resource, no temporaries, about a tenth
of the time, so 24-25 coflows fit in the time and memory 22 took; with the DP over each subset's
members only (below), 26.

Bit-identical to the numpy build: a subset's load on a resource is summed from its lowest
member upward (``L[mask] = L[mask without its highest member] + load[highest]``, the numpy
recurrence), ``MLB`` is the same maximum, and ``DPB[mask]`` the minimum over the same
candidates ``w_i max(MLB(mask), e_i) + DPB(mask - i)`` (a minimum does not depend on the order).
"""

from __future__ import annotations

import numpy as np

from ..rates._jit import njit  # lazy numba, compile announced (see _jit)


@njit(cache=True)
def subset_tables(loads, r, thresholds, w, e, mlb, dpb, scratch):
    """Fill ``mlb`` and ``dpb`` (float64, length ``2^n``) for ``n`` coflows.

    Parameters
    ----------
    loads : float64 (n, P)
        Data of each coflow through each resource, over its capacity (time units).
    r : float64 (n,)
        Release times.
    thresholds : float64 (T,)
        The distinct release times, ascending.
    w, e : float64 (n,)
        Weights and ``r_k + rho_k``.
    mlb, dpb, scratch : float64 (2^n,)
        Output tables and a scratch array (overwritten).

    Examples
    --------
    >>> import numpy as np
    >>> loads = np.array([[2.0], [1.0]]); r = np.zeros(2); w = np.ones(2); e = loads[:, 0]
    >>> mlb, dpb, s = np.zeros(4), np.zeros(4), np.zeros(4)
    >>> subset_tables(loads, r, np.zeros(1), w, e, mlb, dpb, s)
    >>> float(dpb[3])      # SPT on one port: 1 + 3
    4.0
    """
    n, P = loads.shape
    if n > 30:
        raise ValueError("subset tables are built for at most 30 coflows")
    M = 1 << n
    for m in range(M):
        mlb[m] = 0.0
    # since[t]: members released at or after thresholds[t]
    T = thresholds.shape[0]
    since = np.zeros(T, dtype=np.int64)
    for t in range(T):
        s = 0
        for i in range(n):
            if r[i] >= thresholds[t]:
                s |= 1 << i
        since[t] = s
    for p in range(P):
        anyload = False
        for i in range(n):
            if loads[i, p] > 0:
                anyload = True
        if not anyload:
            continue
        scratch[0] = 0.0
        for i in range(n):
            lo = 1 << i
            c = loads[i, p]
            for m in range(lo):
                scratch[lo + m] = scratch[m] + c
        for t in range(T):
            a = thresholds[t]
            s = since[t]
            if s == M - 1:          # every member (no release after the threshold)
                for m in range(1, M):
                    v = a + scratch[m]
                    if v > mlb[m]:
                        mlb[m] = v
                continue
            for m in range(1, M):
                sub = m & s
                if sub != 0:
                    v = a + scratch[sub]
                    if v > mlb[m]:
                        mlb[m] = v
    # the DP visits only the members of each subset: ``low`` is its lowest remaining member
    # (as a bit), whose index a de Bruijn multiplication gives without a loop (n <= 30 keeps
    # the 32-bit product exact in int64).  Testing every bit instead cost a mispredicted branch
    # per bit: 3-4x slower on 24 coflows (2.6 -> 0.6-0.9 s), the same minimum.
    debruijn = np.zeros(32, dtype=np.int64)
    for i in range(32):
        debruijn[(((1 << i) * 0x077CB531) & 0xFFFFFFFF) >> 27] = i
    dpb[0] = 0.0
    for m in range(1, M):
        best = np.inf
        mm = mlb[m]
        rest = m
        while rest:
            low = rest & -rest
            i = debruijn[((low * 0x077CB531) & 0xFFFFFFFF) >> 27]
            x = max(mm, e[i])
            best = min(best, w[i] * x + dpb[m ^ low])
            rest ^= low
        dpb[m] = best
