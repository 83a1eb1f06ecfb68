"""Compiled twin of :meth:`coflowopt.fairness.simulation._CoflowPairs.rates_numpy`: PS-P and
cooperative HUG on the (coflow, resource) pairs, one pass per quantity instead of ~30 numpy
calls per event.

The same operations in the same order as the numpy reference (which does those of
:func:`~coflowopt.fairness.allocations.allocate` and
:func:`~coflowopt.fairness.simulation.link_allocation_rates`): every sum adds its terms one
after another in the order ``np.bincount`` adds them (pairs in coflow order; a pair's bytes
left flow by flow), divisions and products are the same IEEE operations (no fastmath), and
maxima and minima do not depend on the order.  So the rates are the same bits, which
``tests/test_fairness_simulation.py`` checks against the numpy reference.
"""

from __future__ import annotations

import numpy as np

from ..rates._jit import njit


@njit(cache=True)
def pair_rates(act, flows, remaining, pair_ptr, pair_res, entry_ptr, entry_pair, cap, weight,
               weighted, cooperative, rtol, local, out):
    """Rates of ``flows`` under PS-P (``cooperative`` false) or cooperative HUG.

    Parameters
    ----------
    act : int array
        Active coflows, ascending.
    flows : int array
        Their unfinished flows, ascending.
    remaining : float array (F,)
    pair_ptr : int array (K+1,)
        The pairs of coflow ``k`` are ``pair_ptr[k]:pair_ptr[k+1]`` (resources ascending).
    pair_res : int array
        The resource of each pair.
    entry_ptr, entry_pair : int arrays
        Flow ``f`` crosses the pairs ``entry_pair[entry_ptr[f]:entry_ptr[f+1]]`` (ingress then
        egress on a big switch, path order on resources).
    cap : float array (R,)
    weight : float array (K,)
    weighted : bool
        Use ``w_k d_k`` (when some active coflow has a positive weight).
    cooperative : bool
    rtol : float
        :data:`coflowopt.fairness.drf.FLOAT_RTOL` (a link's spare below it is none).
    local : int array
        Scratch, one entry per pair (overwritten).
    out : float array
        Receives the rate of each flow of ``flows``.

    Returns
    -------
    pstar, guarantee : float
        ``P*`` and the isolation guarantee (min progress); ``pstar`` is NaN when every link
        sum is 0 (the caller raises, as the dense path does), and -1 when an active coflow has
        no bytes left at all (the caller then computes the call with the numpy reference).
    """
    R = cap.shape[0]
    n = 0
    for a in range(act.shape[0]):
        k = act[a]
        for p in range(pair_ptr[k], pair_ptr[k + 1]):
            local[p] = n
            n += 1
    loads = np.zeros(n)
    for x in range(flows.shape[0]):
        f = flows[x]
        for q in range(entry_ptr[f], entry_ptr[f + 1]):
            loads[local[entry_pair[q]]] += remaining[f]
    d = np.empty(n)
    res = np.empty(n, dtype=np.int64)
    on_link = np.zeros(R, dtype=np.int64)
    link_sum = np.zeros(R)
    i = 0
    for a in range(act.shape[0]):
        k = act[a]
        top = -np.inf
        i0 = i
        for p in range(pair_ptr[k], pair_ptr[k + 1]):
            r = pair_res[p]
            res[i] = r
            d[i] = loads[i] / cap[r]
            if d[i] > top:
                top = d[i]
            i += 1
        if not top > 0:
            # bytes left nowhere (0/0 in the reference): let the reference handle the call
            return -1.0, np.nan
        for j in range(i0, i):
            d[j] = d[j] / top
            if d[j] > 0:
                on_link[res[j]] += 1
            link_sum[res[j]] += d[j] * weight[k] if weighted else d[j]
    top_sum = -np.inf
    for r in range(R):
        if link_sum[r] > top_sum:
            top_sum = link_sum[r]
    alloc = np.empty(n)
    if not cooperative:
        pstar = 1 / top_sum
        for j in range(n):
            alloc[j] = 1.0 / max(on_link[res[j]], 1) if d[j] > 0 else 0.0
    else:
        if not top_sum > 0:
            return np.nan, np.nan
        pstar = 1 / top_sum
        used = np.zeros(R)
        i = 0
        for a in range(act.shape[0]):
            k = act[a]
            for p in range(pair_ptr[k], pair_ptr[k + 1]):
                alloc[i] = pstar * (d[i] * weight[k] if weighted else d[i])
                used[res[i]] += alloc[i]
                i += 1
        share = np.zeros(R)
        spare_on = np.zeros(R, dtype=np.bool_)
        for r in range(R):
            spare = 1 - used[r]
            spare_on[r] = spare > rtol and on_link[r] > 0
            share[r] = spare / max(on_link[r], 1)
        for j in range(n):
            if d[j] > 0 and spare_on[res[j]]:
                alloc[j] = alloc[j] + share[res[j]]
    guarantee = np.inf
    for j in range(n):
        if d[j] > 0:
            v = alloc[j] / d[j]
            if v < guarantee:
                guarantee = v
    for x in range(flows.shape[0]):
        f = flows[x]
        best = np.inf
        for q in range(entry_ptr[f], entry_ptr[f + 1]):
            j = local[entry_pair[q]]
            load = loads[j]
            r = alloc[j] * cap[res[j]] * remaining[f] / load if load > 0 else 0.0
            if r < best:
                best = r
        out[x] = best if np.isfinite(best) and best > 0 else 0.0
    return pstar, guarantee
