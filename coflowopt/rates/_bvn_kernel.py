"""Compiled Birkhoff--von Neumann engine (float64): the decomposition and the pieces of a group.

:func:`hopcroft_karp` is ``networkx.algorithms.bipartite.hopcroft_karp_matching`` step for step
(the same breadth-first layers, the same depth-first search over each row's support columns in
ascending order, the same order of free rows), so it returns the same matching on the same
support; :func:`decompose` is :func:`coflowopt.rates.bvn.bvn_decomposition`'s float loop (pad by
the north-west corner rule, then a matching of the support per term, ``theta`` the least matched
entry, entries ``<= eps`` leave the support) with the same float operations in the same order;
:func:`serve` is ``_serve_group``'s loop over the terms without backfilling (each matched pair's
flows in order at full rate, ``_Builder.send``'s rule).  Hence the same terms and the same pieces
to the last bit (``tests/test_bvn.py`` holds them to the networkx-based Python reference,
:func:`coflowopt.rates.bvn.bvn_decomposition` with ``engine="python"``).  Run as plain Python
(``.py_func``) the kernels are their own pure-Python twin.

Why compiled and from scratch: networkx's matching in Python was 73 % of ``sebf`` + ``bvn`` on
the Facebook trace (py-spy, ``experiments/results/bvn_profile.md``); the same algorithm in
numba is the same answer at a few microseconds per term.  Repairing the previous term's
matching instead (only the edges that hit zero leave it) would be cheaper still, but picks other
matchings, hence other terms and other coflow completion times inside a group: not done, so that
every schedule stays the one the Python engine gives.
"""

from __future__ import annotations

import numpy as np

from ._jit import njit

#: the distance of a row not in the current layers (networkx's ``float("inf")``)
_INF = np.int64(1) << np.int64(60)


@njit(cache=True)
def hopcroft_karp(adj, deg, n, lm, rm, dist, queue, stk, pos):
    """A maximum matching of the rows ``0..n-1`` into the columns ``0..n-1`` of the support
    ``adj[r, :deg[r]]`` (ascending columns), as networkx's ``hopcroft_karp_matching`` finds it:
    ``lm[r]`` the column of row ``r`` (-1: unmatched), ``rm[c]`` its row; returns the size.
    ``dist`` has ``n + 1`` entries (``dist[n]`` is networkx's ``distances[None]``, the length of
    the shortest augmenting path), ``queue`` ``n + 1``, ``stk`` / ``pos`` ``n`` (the depth-first
    search's recursion as a stack: the row and the index of the column it tries)."""
    INF = _INF
    for v in range(n):
        lm[v] = -1
        rm[v] = -1
    size = 0
    first = True
    while True:
        if first:
            # networkx's first search scans every edge to find what is known: every row and
            # every column is free, so each row is at distance 0 and the shortest augmenting
            # path has length 1 once any row has a column; the same distances without the scan
            first = False
            dist[n] = INF
            for v in range(n):
                dist[v] = 0
                if deg[v] > 0:
                    dist[n] = 1
        else:
            # breadth-first search: layers from the free rows
            qt = 0
            for v in range(n):
                if lm[v] < 0:
                    dist[v] = 0
                    queue[qt] = v
                    qt += 1
                else:
                    dist[v] = INF
            dist[n] = INF
            qh = 0
            while qh < qt:
                v = queue[qh]
                qh += 1
                if v == n or dist[v] >= dist[n]:
                    continue
                for k in range(deg[v]):
                    w = rm[adj[v, k]]
                    if w < 0:
                        w = n
                    if dist[w] == INF:
                        dist[w] = dist[v] + 1
                        queue[qt] = w
                        qt += 1
        if dist[n] == INF:
            return size
        # depth-first search from each free row, in row order
        for root in range(n):
            if lm[root] >= 0:
                continue
            top = 0
            stk[0] = root
            pos[0] = 0
            found = False
            while top >= 0:
                v = stk[top]
                k = pos[top]
                nxt = -1
                while k < deg[v]:
                    w = rm[adj[v, k]]
                    wi = n if w < 0 else w
                    if dist[wi] == dist[v] + 1:
                        if w < 0:
                            found = True
                            pos[top] = k
                            break
                        nxt = w
                        break
                    k += 1
                if found:
                    break
                if nxt >= 0:
                    pos[top] = k
                    top += 1
                    stk[top] = nxt
                    pos[top] = 0
                    continue
                dist[v] = INF       # a dead end for the rest of this phase
                top -= 1
                if top >= 0:
                    pos[top] += 1   # its parent tries its next column
            if found:
                for lev in range(top, -1, -1):
                    v = stk[lev]
                    u = adj[v, pos[lev]]
                    rm[u] = v
                    lm[v] = u
                size += 1


@njit(cache=True)
def decompose(A, eps, rho, theta, perms):
    """The float decomposition loop of :func:`coflowopt.rates.bvn.bvn_decomposition` on the
    padded ``n x n`` matrix ``A`` (consumed: zero on return): the terms go to ``theta[t]``,
    ``perms[t, :]``; returns the number of terms, or -1 when the support has no perfect
    matching (float rounding broke Hall's condition: the caller decomposes exactly)."""
    n = A.shape[0]
    adj = np.empty((n, n), np.int32)
    deg = np.zeros(n, np.int64)
    edges = 0
    for r in range(n):
        for c in range(n):
            if A[r, c] > eps:
                adj[r, deg[r]] = c
                deg[r] += 1
        edges += deg[r]
    lm = np.empty(n, np.int64)
    rm = np.empty(n, np.int64)
    dist = np.empty(n + 1, np.int64)
    queue = np.empty(n + 1, np.int64)
    stk = np.empty(n, np.int64)
    pos = np.empty(n, np.int64)
    remaining = rho
    t = 0
    while edges > 0:
        if hopcroft_karp(adj, deg, n, lm, rm, dist, queue, stk, pos) < n:
            return -1
        th = A[0, lm[0]]
        for r in range(1, n):
            if A[r, lm[r]] < th:
                th = A[r, lm[r]]
        if remaining - th <= eps:
            th = remaining      # the last matching: absorb the float rounding
        for r in range(n):
            c = lm[r]
            A[r, c] -= th
            if A[r, c] <= eps:
                A[r, c] = 0.0
                # the column leaves row r's support; the others keep their order
                k = 0
                while adj[r, k] != c:
                    k += 1
                for q in range(k + 1, deg[r]):
                    adj[r, q - 1] = adj[r, q]
                deg[r] -= 1
                edges -= 1
            perms[t, r] = c
        theta[t] = th
        remaining -= th
        t += 1
    return t


@njit(cache=True)
def pad(A, tol):
    """Square ``A`` is padded in place by the north-west corner rule on the row and column
    slacks (every row and column then sums to ``rho``); returns ``(rho, eps)`` with the row
    and column sums taken left to right, as Python's ``sum`` does."""
    n = A.shape[0]
    rows = np.zeros(n)
    cols = np.zeros(n)
    for i in range(n):
        s = 0.0
        for j in range(n):
            s += A[i, j]
        rows[i] = s
    for j in range(n):
        s = 0.0
        for i in range(n):
            s += A[i, j]
        cols[j] = s
    rho = 0.0
    for i in range(n):
        if rows[i] > rho:
            rho = rows[i]
    for j in range(n):
        if cols[j] > rho:
            rho = cols[j]
    eps = tol * rho
    if rho == 0.0:
        return rho, eps
    for i in range(n):
        rows[i] = rho - rows[i]
        cols[i] = rho - cols[i]
    i = 0
    j = 0
    while i < n and j < n:
        if rows[i] <= eps:
            i += 1
            continue
        if cols[j] <= eps:
            j += 1
            continue
        a = rows[i] if rows[i] < cols[j] else cols[j]
        A[i, j] += a
        rows[i] -= a
        cols[j] -= a
    return rho, eps


@njit(cache=True)
def serve(theta, perms, k0, terms, nrows, ncols, pair_ptr, pair_flow, rem, size, cap, t0,
          out_flow, out_start, out_end, at, stop):
    """The pieces of one group: term after term from ``t0``, each matched pair ``(a, perm[a])``
    with ``a < nrows`` and ``perm[a] < ncols`` (the rest is padding) sends its flows
    (``pair_flow[pair_ptr[p]:pair_ptr[p + 1]]``, ``p = a * ncols + perm[a]``) one after the other at rate ``cap`` until the term ends
    (``_Builder.send``: ``d = min(end - u, rem / cap)``, no piece when ``d <= 0`` or when
    ``u + d`` rounds to ``u``; ``rem`` to 0 once ``<= 1e-12`` of the size).  Pieces go to
    ``out_*[at:]`` (the caller sized them: at most one piece per flow that ends in a term
    plus one per matched pair and term).  Starts at term ``k0`` at time ``t0`` and stops
    before a term once ``at >= stop`` (a window is full); returns the new count, the time
    reached and the next term (``terms`` when the group is done)."""
    t = t0
    for k in range(k0, terms):
        if at >= stop:
            return at, t, k
        th = theta[k]
        end = t + th
        for a in range(nrows):
            c = perms[k, a]
            if c >= ncols:
                continue
            p = a * ncols + c
            u = t
            for q in range(pair_ptr[p], pair_ptr[p + 1]):
                if u >= end:
                    break
                f = pair_flow[q]
                d = end - u
                x = rem[f] / cap
                if x < d:
                    d = x
                if d <= 0 or u + d <= u:
                    continue
                out_flow[at] = f
                out_start[at] = u
                out_end[at] = u + d
                at += 1
                rem[f] -= d * cap
                if rem[f] <= 1e-12 * size[f]:
                    rem[f] = 0.0
                u += d
        t = end
    return at, t, terms


@njit(cache=True)
def pair_sums(pair_ptr, pair_flow, rem, cap, out):
    """``out[p]`` = the remaining data of pair ``p``'s flows summed in their order from 0.0
    (Python's ``sum``), over ``cap``: the group's demand matrix in time units."""
    for p in range(pair_ptr.shape[0] - 1):
        s = 0.0
        for q in range(pair_ptr[p], pair_ptr[p + 1]):
            s += rem[pair_flow[q]]
        out[p] = s / cap


@njit(cache=True)
def sliced_sums(flow, amount, g0, step, sent, part, in_slice, slice_flows, seen, here):
    """``sent[f]`` += the amounts of flow ``f``'s pieces as :func:`coflowopt.simulate.
    settle_sizes` sums a held schedule: in slices of ``step`` pieces of the whole schedule
    (this batch starts at its piece ``g0``), each slice's sum from 0.0 in the pieces' order,
    the slices added in order; so a flow whose pieces all lie in this batch gets the held
    sum to the last bit.  Lists in ``here`` (first appearance) the flows not marked in
    ``seen``, marking them, and returns their number; ``part`` / ``in_slice`` /
    ``slice_flows`` are scratch (zero / False on entry and on return)."""
    nh = 0
    ns = 0
    nxt = (g0 // step + 1) * step
    for i in range(flow.shape[0]):
        if g0 + i == nxt:
            for q in range(ns):
                f = slice_flows[q]
                sent[f] += part[f]
                part[f] = 0.0
                in_slice[f] = False
            ns = 0
            nxt += step
        f = flow[i]
        if not seen[f]:
            seen[f] = True
            here[nh] = f
            nh += 1
        if not in_slice[f]:
            in_slice[f] = True
            slice_flows[ns] = f
            ns += 1
        part[f] += amount[i]
    for q in range(ns):
        f = slice_flows[q]
        sent[f] += part[f]
        part[f] = 0.0
        in_slice[f] = False
    return nh
