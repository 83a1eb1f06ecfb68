"""Compiled strict priority over groups of flows, each group max-min fair on what the groups
before it left: the allocation of the multi-level queues (:mod:`coflowopt.policies.mlfq`).

:func:`serve_groups` is the compiled twin of the plain-numpy reference
``_ClassPolicy._serve_python`` (a Python loop over the groups, each calling the one
progressive filling, :func:`coflowopt.maxmin.progressive_filling`, through
:func:`coflowopt.policies.flow_level.max_min_rates`).  It does the same float64 operations in
the same order, so the two give the same bits (``tests/test_mlfq_kernel.py``):

* a resource is *full* when its residual is at most ``tol`` (the policy's ``tol_rel`` times its
  capacity); a flow with a full resource on its path is blocked for the rest of the allocation
  (residuals only decrease);
* the unblocked flows of a group are filled progressively with unit weights (Bertsekas &
  Gallager, *Data Networks*, Sec. 6.5.2): every round, the live flows through a resource are
  counted (``wsum``, exact small integers), the step is the smallest ``residual / wsum``, every
  live flow's rate grows by it, every residual drops by ``wsum x step``, and a resource whose
  residual is at most :data:`coflowopt.maxmin.FULL_RTOL` times its residual at the group's start
  freezes its flows;
* the group's rates are summed per resource in the group's flow order (``np.bincount``'s order)
  and subtracted from the residuals, which are then clipped at 0.

Why compiled: in FIFO mode every active coflow is its own group, so the Python loop did one
incidence and one progressive filling per active coflow at every event (``mlfq`` 57.9 s at
1,000 coflows, past 120 s at 50,000; ``experiments/results/bench_scale_profiles.md``).  Here
an event costs one pass over the groups' flows plus the filling rounds of the groups that get
capacity, and the pass stops when every resource is full.

:func:`serve_levels` is the same serving (the group body :func:`_serve_group` is shared) for
``mlfq``'s FIFO levels without aging, over coflows kept in priority slots across events, so
that nothing is gathered or sorted per event (``MlfqPolicy``).
"""

from __future__ import annotations

import numpy as np

from ..rates._jit import njit

__all__ = ["serve_groups", "serve_levels", "move_slots", "BLOCK"]


@njit(cache=True, borrowed=True)
def _serve_group(fl, a, b, fr_ptr, fr, rate, res, tol, full, nfree, full_rtol, gres, gtol,
                 wsum, gsum, seen, gfull, touched, live):
    """Serve one group, the flows ``fl[a:b]``, on the residuals ``res`` (the body of
    :func:`serve_groups`, shared with :func:`serve_levels`): ``rate[a:b]`` (zero on entry)
    receives the group's max-min rates, ``res`` / ``full`` are updated; returns the number of
    resources still free.  The other arrays are scratch of size R (``live``: of size >= b)."""
    nl = 0
    for x in range(a, b):
        f = fl[x]
        ok = True
        for e in range(fr_ptr[f], fr_ptr[f + 1]):
            if full[fr[e]]:
                ok = False
                break
        if ok:
            live[nl] = x
            nl += 1
    if nl == 0:
        return nfree
    nt = 0
    for i in range(nl):
        f = fl[live[i]]
        for e in range(fr_ptr[f], fr_ptr[f + 1]):
            p = fr[e]
            if not seen[p]:
                seen[p] = True
                touched[nt] = p
                nt += 1
                gres[p] = res[p]
                gtol[p] = full_rtol * res[p]
                gfull[p] = False
    # progressive filling of the group's unblocked flows (maxmin.progressive_filling)
    while nl > 0:
        for j in range(nt):
            wsum[touched[j]] = 0.0
        for i in range(nl):
            f = fl[live[i]]
            for e in range(fr_ptr[f], fr_ptr[f + 1]):
                wsum[fr[e]] += 1.0
        d = np.inf
        for j in range(nt):
            p = touched[j]
            if wsum[p] > 0.0:
                s = gres[p] / wsum[p]
                if s < d:
                    d = s
        for i in range(nl):
            rate[live[i]] += d
        for j in range(nt):
            p = touched[j]
            gres[p] -= wsum[p] * d
            if wsum[p] > 0.0 and gres[p] <= gtol[p]:
                gfull[p] = True
        k = 0
        for i in range(nl):
            f = fl[live[i]]
            frozen = False
            for e in range(fr_ptr[f], fr_ptr[f + 1]):
                if gfull[fr[e]]:
                    frozen = True
                    break
            if not frozen:
                live[k] = live[i]
                k += 1
        nl = k
    # the group's rates leave the residuals (summed in flow order, then subtracted)
    for j in range(nt):
        gsum[touched[j]] = 0.0
    for x in range(a, b):
        r = rate[x]
        if r != 0.0:
            f = fl[x]
            for e in range(fr_ptr[f], fr_ptr[f + 1]):
                gsum[fr[e]] += r
    for j in range(nt):
        p = touched[j]
        seen[p] = False
        v = res[p] - gsum[p]
        res[p] = v if v > 0.0 else 0.0
        if not full[p] and res[p] <= tol[p]:
            full[p] = True
            nfree -= 1
    return nfree


@njit(cache=True)
def serve_groups(fl, gptr, fr_ptr, fr, cap, tol, full_rtol):
    """Rates of the flows ``fl`` served group by group (module docstring).

    Parameters
    ----------
    fl : int64 (n,)
        Global flow indices, group after group (highest priority first), each group's flows in
        the order their rates are summed.
    gptr : int64 (G+1,)
        Group ``g`` is ``fl[gptr[g]:gptr[g+1]]``.
    fr_ptr, fr : int64
        The instance's flow-to-resource CSR (``flow_resource_ptr``, ``flow_resource``).
    cap : float64 (R,)
        Capacity of every resource (not modified).
    tol : float64 (R,)
        A residual at most ``tol[p]`` counts as full.
    full_rtol : float
        :data:`coflowopt.maxmin.FULL_RTOL`.

    Returns
    -------
    float64 (n,)
        The rate of ``fl[x]``.
    """
    n = fl.shape[0]
    R = cap.shape[0]
    rate = np.zeros(n)
    res = cap.copy()
    full = np.zeros(R, dtype=np.bool_)
    nfree = 0
    for p in range(R):
        if res[p] <= tol[p]:
            full[p] = True
        else:
            nfree += 1
    gres = np.zeros(R)        # the filling's residuals
    gtol = np.zeros(R)        # FULL_RTOL x the residual at the group's start
    wsum = np.zeros(R)
    gsum = np.zeros(R)        # the group's rates per resource
    seen = np.zeros(R, dtype=np.bool_)
    gfull = np.zeros(R, dtype=np.bool_)
    touched = np.empty(R, dtype=np.int64)
    live = np.empty(n, dtype=np.int64)
    G = gptr.shape[0] - 1
    for g in range(G):
        if nfree == 0:
            break
        nfree = _serve_group(fl, gptr[g], gptr[g + 1], fr_ptr, fr, rate, res, tol, full, nfree,
                             full_rtol, gres, gtol, wsum, gsum, seen, gfull, touched, live)
    return rate


#: Slots per block of :func:`serve_levels`' occupancy counts.
BLOCK = 64


@njit(cache=True)
def serve_levels(slot_cof, blk, ptr, done, fr_ptr, fr, cap, tol, full_rtol, fl, rate, live,
                 gcof, gptr):
    """:func:`serve_groups` for FIFO inside levels, over the coflows kept in priority slots.

    The groups are the coflows in slot order (slot ``level x K + FIFO position``, so the
    order of ``_ClassPolicy._groups``), each group its unfinished flows in index order (the
    order of the simulator's ``active_flows``), served by the body of :func:`serve_groups`.
    Nothing is gathered or sorted per call: the walk reads the slots (empty blocks of
    :data:`BLOCK` slots skipped by their count) and the walked coflows' flows, and stops when
    every resource is full.  (It still walks most active coflows per call: on random
    instances a few resources stay free while the coflows that would fill them are blocked
    at their other end; at 5,000 coflows the last coflow served is ~2,500 deep among ~3,000
    active, with ~125 served.  Stopping when no flow left has a free path was tried: it
    stops little earlier and costs more.)

    Parameters
    ----------
    slot_cof : int64 (S,)
        The coflow in each slot, or -1.
    blk : int64 (ceil(S / BLOCK),)
        Occupied slots per block.
    ptr : int64 (K+1,)
        The instance's coflow-to-flow CSR (``flow_ptr``).
    done : bool (F,)
        Finished flows (skipped).
    fr_ptr, fr, cap, tol, full_rtol
        As for :func:`serve_groups`.
    fl, rate, live : int64 / float64 / int64 (F,)
        Output and scratch: ``fl[:n]`` the flows of the walked groups in order, ``rate[:n]``
        their rates.
    gcof, gptr : int64 (K,), (K+1,)
        Output: the coflow of walked group ``g`` and its flows ``fl[gptr[g]:gptr[g+1]]``.

    Returns
    -------
    (n, G) : the flows and groups written.
    """
    R = cap.shape[0]
    res = cap.copy()
    full = np.zeros(R, dtype=np.bool_)
    nfree = 0
    for p in range(R):
        if res[p] <= tol[p]:
            full[p] = True
        else:
            nfree += 1
    gres = np.zeros(R)
    gtol = np.zeros(R)
    wsum = np.zeros(R)
    gsum = np.zeros(R)
    seen = np.zeros(R, dtype=np.bool_)
    gfull = np.zeros(R, dtype=np.bool_)
    touched = np.empty(R, dtype=np.int64)
    S = slot_cof.shape[0]
    n = 0
    ng = 0
    for b in range(blk.shape[0]):
        if nfree == 0:
            break
        if blk[b] == 0:
            continue
        for s in range(b * BLOCK, min(S, (b + 1) * BLOCK)):
            if nfree == 0:
                break
            c = slot_cof[s]
            if c < 0:
                continue
            a = n
            for f in range(ptr[c], ptr[c + 1]):
                if not done[f]:
                    fl[n] = f
                    rate[n] = 0.0
                    n += 1
            if n == a:
                continue
            gcof[ng] = c
            gptr[ng] = a
            ng += 1
            nfree = _serve_group(fl, a, n, fr_ptr, fr, rate, res, tol, full, nfree, full_rtol,
                                 gres, gtol, wsum, gsum, seen, gfull, touched, live)
    gptr[ng] = n
    return n, ng


@njit(cache=True, borrowed=True)
def move_slots(slot_cof, blk, cof, old, new):
    """Coflow ``cof[i]`` leaves slot ``old[i]`` and takes slot ``new[i]`` (-1: none), keeping
    the block counts of :func:`serve_levels`."""
    for i in range(cof.shape[0]):
        o = old[i]
        if o >= 0:
            slot_cof[o] = -1
            blk[o // BLOCK] -= 1
        s = new[i]
        if s >= 0:
            slot_cof[s] = cof[i]
            blk[s // BLOCK] += 1
