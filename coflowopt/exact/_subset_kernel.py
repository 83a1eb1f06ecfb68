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

:func:`chain_tables` builds the same two tables over the chain-prefix sets of chains of
dominance pairs only (indexed in mixed radix, ``prod (len + 1)`` sets: 12-28 million instead
of 2^26 on the 4x4 family at 26 coflows), where the recursion over each chain's last member
is ``DPB`` itself (proofs/bnb-dpb-chains.md).
"""

from __future__ import annotations

import numpy as np

from ..rates._jit import njit  # lazy numba, compile announced (see _jit)


@njit(cache=True)
def _has_load(loads, p):
    """Whether some coflow has data through resource ``p``."""
    for k in range(loads.shape[0]):
        if loads[k, p] > 0:
            return True
    return False


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
        if not _has_load(loads, p):
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


@njit(cache=True)
def chain_tables(loads, r, thresholds, w, e, chain, ptr, mlb, dpb, scratch):
    """Fill ``mlb`` and ``dpb`` over the *chain-prefix* sets of ``m`` chains of members.

    A chain-prefix set takes the first ``c_i`` members of each chain ``i``
    (``chain[ptr[i]:ptr[i + 1]]``, in the order in which they complete); its index is
    ``sum_i c_i * stride_i`` with ``stride_i = prod_{j < i} (len_j + 1)``, so the tables have
    ``prod_i (len_i + 1)`` entries instead of ``2^n``.  ``DPB``'s minimum runs over the last
    member of each chain's prefix: on these sets that is ``DPB`` itself when each chain's
    members dominate one another as in proofs/bnb-dpb-chains.md (same release, port loads
    and weights ordered), where the caller's chains come from.

    Parameters
    ----------
    loads, r, thresholds, w, e
        As :func:`subset_tables` (members indexed ``0..n-1``).
    chain : int64 (n,)
        The members, chain after chain, each chain from its first to its last completion.
    ptr : int64 (m + 1,)
        Chain ``i`` is ``chain[ptr[i]:ptr[i + 1]]``.
    mlb, dpb, scratch : float64 (prod (len_i + 1),)
        Output tables and a scratch array (overwritten).

    Examples
    --------
    >>> import numpy as np
    >>> loads = np.array([[2.0], [1.0]]); r = np.zeros(2); w = np.ones(2); e = loads[:, 0]
    >>> mlb, dpb, s = np.zeros(3), np.zeros(3), np.zeros(3)
    >>> chain_tables(loads, r, np.zeros(1), w, e, np.array([1, 0]), np.array([0, 2]),
    ...              mlb, dpb, s)
    >>> float(dpb[2])      # one chain, coflow 1 first: SPT, 1 + 3
    4.0
    """
    n, P = loads.shape
    if n > 255:
        raise ValueError("chain tables are built for at most 255 coflows")
    m = ptr.shape[0] - 1
    length = np.zeros(m, dtype=np.int64)
    stride = np.zeros(m, dtype=np.int64)
    M = 1
    for i in range(m):
        length[i] = ptr[i + 1] - ptr[i]
        stride[i] = M
        M *= length[i] + 1
    T = thresholds.shape[0]
    # insince[t, i]: chain i's members are released at or after thresholds[t] (a chain's
    # members share one release); allin[t]: every chain is
    insince = np.zeros((T, m), dtype=np.bool_)
    allin = np.ones(T, dtype=np.bool_)
    for t in range(T):
        for i in range(m):
            insince[t, i] = r[chain[ptr[i]]] >= thresholds[t]
            if not insince[t, i]:
                allin[t] = False
    # one pass of the mixed-radix counter: set s is set s - stride[inc[s]] plus member
    # add[s] (the digits below inc[s] are 0); 2 bytes per set, reused by every port
    inc = np.zeros(M, dtype=np.uint8)
    add = np.zeros(M, dtype=np.uint8)
    c = np.zeros(m, dtype=np.int64)
    for s in range(1, M):
        i = 0
        while c[i] == length[i]:
            c[i] = 0
            i += 1
        c[i] += 1
        inc[s] = i
        add[s] = chain[ptr[i] + c[i] - 1]
    for s in range(M):
        mlb[s] = 0.0
    sub = np.zeros(T, dtype=np.int64)
    for p in range(P):
        if not _has_load(loads, p):
            continue
        scratch[0] = 0.0
        for s in range(1, M):
            scratch[s] = scratch[s - stride[inc[s]]] + loads[add[s], p]
        for t in range(T):
            a = thresholds[t]
            if allin[t]:
                for s in range(1, M):
                    v = a + scratch[s]
                    if v > mlb[s]:
                        mlb[s] = v
                continue
            # the index of the set's members released at or after a, by the same counter
            for i in range(m):
                c[i] = 0
            x = 0
            for s in range(1, M):
                i = 0
                while c[i] == length[i]:
                    if insince[t, i]:
                        x -= length[i] * stride[i]
                    c[i] = 0
                    i += 1
                c[i] += 1
                if insince[t, i]:
                    x += stride[i]
                if x != 0:
                    v = a + scratch[x]
                    if v > mlb[s]:
                        mlb[s] = v
    dpb[0] = 0.0
    for i in range(m):
        c[i] = 0
    # last[j]: the last member of chain j's prefix in the current set (-1: empty)
    last = np.full(m, -1, dtype=np.int64)
    for s in range(1, M):
        i = 0
        while c[i] == length[i]:
            c[i] = 0
            last[i] = -1
            i += 1
        c[i] += 1
        last[i] = add[s]
        best = np.inf
        mm = mlb[s]
        for j in range(m):
            k = last[j]
            if k >= 0:
                best = min(best, w[k] * max(mm, e[k]) + dpb[s - stride[j]])
        dpb[s] = best
