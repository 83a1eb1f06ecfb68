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
that nothing is gathered or sorted per event (``MlfqPolicy``), and the coflows blocked whole
(every flow with a full resource on its path) are skipped by a search over the free paths
instead of visited one by one.
"""

from __future__ import annotations

import numpy as np

from ..rates._jit import njit
from ._flow_kernel import heap_remove, heap_set

__all__ = ["serve_groups", "serve_levels", "move_slots", "BLOCK", "SWITCH"]


@njit(cache=True, borrowed=True)
def _serve_group(fl, a, b, fr_ptr, fr, rate, res, tol, full, nfree, full_rtol, gres, gtol,
                 wsum, gsum, seen, gfull, touched, live, no_mult):
    """Serve one group, the flows ``fl[a:b]``, on the residuals ``res`` (the body of
    :func:`serve_groups`, shared with :func:`serve_levels`): ``rate[a:b]`` (zero on entry)
    receives the group's max-min rates, ``res`` / ``full`` are updated; returns the number of
    resources still free.  The other arrays are scratch of size R (``live``: of size >= b);
    ``no_mult`` is empty (:func:`live_flows`: one flow an item)."""
    nl, nt = live_flows(fl, a, b, fr_ptr, fr, no_mult, res, full, full_rtol, gres, gtol, wsum,
                        seen, gfull, touched, live)
    if nl == 0:
        return nfree
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
    return leave_residuals(fl, a, b, fr_ptr, fr, rate, res, tol, full, nfree, gsum, seen,
                           touched, nt)


@njit(cache=True, borrowed=True)
def live_flows(fl, a, b, fr_ptr, fr, mult, res, full, full_rtol, gres, gtol, wsum, seen, gfull,
               touched, live):
    """The start of a group's filling (:func:`_serve_group`, ``_level_kernel._fill`` /
    ``_fill_paths``): the positions ``live[:nl]`` of the items of ``fl[a:b]`` without a full
    resource on their path ``fr[fr_ptr[y]:fr_ptr[y + 1]]`` (``y = fl[x]``), the resources
    ``touched[:nt]`` on those paths (marked ``seen``, their filling residual ``gres``, its
    freezing level ``gtol``, not frozen, ``wsum`` the live flows through each); returns
    ``(nl, nt)``.

    An item is one flow (``mult`` empty) or ``mult[y]`` flows of one path
    (``_level_kernel._fill_paths``' classes): it adds that many to ``wsum`` at once, an exact
    small integer as so many additions of 1."""
    one = mult.shape[0] == 0
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
    nt = 0
    for i in range(nl):
        f = fl[live[i]]
        m = 1.0 if one else float(mult[f])
        for e in range(fr_ptr[f], fr_ptr[f + 1]):
            p = fr[e]
            if not seen[p]:
                seen[p] = True
                touched[nt] = p
                nt += 1
                gres[p] = res[p]
                gtol[p] = full_rtol * res[p]
                gfull[p] = False
                wsum[p] = 0.0
            wsum[p] += m
    return nl, nt


@njit(cache=True, borrowed=True)
def leave_residuals(fl, a, b, fr_ptr, fr, rate, res, tol, full, nfree, gsum, seen, touched,
                    nt):
    """The end of a group's filling: its rates ``rate[a:b]`` leave the residuals of the
    ``touched[:nt]`` resources (summed in flow order, then subtracted and clipped at 0), which
    are unmarked; a residual at most ``tol`` makes its resource full.  Returns the resources
    still free."""
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
def _start(cap, tol):
    """The residuals at the start of an allocation (a copy of ``cap``), which resources are
    full, how many are free, and the scratch arrays of :func:`_serve_group`."""
    R = cap.shape[0]
    res = cap.copy()
    full = np.zeros(R, dtype=np.bool_)
    nfree = 0
    for p in range(R):
        if res[p] <= tol[p]:
            full[p] = True
        else:
            nfree += 1
    return (res, full, nfree,
            np.zeros(R),                      # gres: the filling's residuals
            np.zeros(R),                      # gtol: FULL_RTOL x the residual at its start
            np.zeros(R),                      # wsum
            np.zeros(R),                      # gsum: the group's rates per resource
            np.zeros(R, dtype=np.bool_),      # seen
            np.zeros(R, dtype=np.bool_),      # gfull
            np.empty(R, dtype=np.int64))      # touched


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
    rate = np.zeros(n)
    res, full, nfree, gres, gtol, wsum, gsum, seen, gfull, touched = _start(cap, tol)
    live = np.empty(n, dtype=np.int64)
    no_mult = np.empty(0, dtype=np.int64)
    G = gptr.shape[0] - 1
    for g in range(G):
        if nfree == 0:
            break
        nfree = _serve_group(fl, gptr[g], gptr[g + 1], fr_ptr, fr, rate, res, tol, full, nfree,
                             full_rtol, gres, gtol, wsum, gsum, seen, gfull, touched, live,
                             no_mult)
    return rate


#: Slots per block of :func:`serve_levels`' occupancy counts.
BLOCK = 64


@njit(cache=True)
def serve_levels(slot_cof, blk, slot_of, heavy, ptr, done, flow_cof, fr_ptr, fr, cap, tol,
                 full_rtol, path, path_ptr, path_flow, qres_ptr, qres, rq_ptr, rq, fl, rate,
                 live, gcof, gptr, members):
    """:func:`serve_groups` over coflows kept in priority slots across events: ``mlfq``'s
    FIFO levels and Baraat's FIFO classes.

    The slots hold the active coflows in priority order (``mlfq``: slot ``level x K + FIFO
    position``, the order of ``_ClassPolicy._groups``; ``baraat``: the FIFO position).  A
    group is a run of slotted coflows up to and including the next one that is not
    ``heavy`` (``mlfq``: none is, so every coflow is its own group; ``baraat``: a light
    coflow with the heavy ones just before it, and the heavy ones after the last light coflow
    as the last group), its flows the members' unfinished flows in index order (the order of
    the simulator's ``active_flows``), served by the body of :func:`serve_groups`.  Nothing
    is gathered or sorted per call beyond the groups served.

    Two phases.  First the slots are walked in order (empty blocks of :data:`BLOCK` slots
    skipped by their count); a group whose every unfinished flow already has a full resource
    is passed over without being gathered or served (it would get nothing and touch no
    residual), so it leaves no entry in ``gcof`` (the coflows written are those of the groups
    served; a blocked one costs one look at its flows' paths, ~10x less at 5,000 coflows).  On random instances a few resources stay free while most
    coflows are blocked at their other end (``mlfq`` at 5,000 coflows: the last coflow served
    was ~2,500 deep among ~3,000 active, with ~125 served), so once the groups that got
    nothing in a row are at least :data:`SWITCH` and :data:`SWITCH_RATIO` times their number
    reaches the paths through the free resources (ski rental: walking has cost about what the
    switch costs), the next group served is found by *path* instead: for every distinct path
    (resource list) whose resources are all free, the smallest slot after the current one
    among its unfinished flows, in the indexed heap of :mod:`._flow_kernel`.  Every coflow
    between the current slot and that minimum has no flow on a free path, so every flow of it
    is blocked; a blocked flow gets no rate and touches no residual, so the group served next
    is the members from the minimum up to the next coflow that is not heavy, and skipping the
    rest changes no bit.  After each group served, the paths through a resource that filled
    leave the heap and the paths of its flows move to their next minimum; the pass ends when
    the heap is empty (no flow left with a free path) or every resource is full.

    Parameters
    ----------
    slot_cof : int64 (S,)
        The coflow in each slot, or -1.
    blk : int64 (ceil(S / BLOCK),)
        Occupied slots per block.
    slot_of : int64 (K,)
        The slot of every coflow, or -1.
    heavy : bool (K,)
        Coflows that do not close a group.
    ptr : int64 (K+1,)
        The instance's coflow-to-flow CSR (``flow_ptr``).
    done : bool (F,)
        Finished flows (skipped).
    flow_cof : int64 (F,)
        The coflow of every flow.
    fr_ptr, fr, cap, tol, full_rtol
        As for :func:`serve_groups`.
    path : int64 (F,)
        The distinct path of every flow.
    path_ptr, path_flow : int64
        Path-to-flow CSR (each path's flows).
    qres_ptr, qres : int64
        Path-to-resource CSR.
    rq_ptr, rq : int64
        Resource-to-path CSR.
    fl, rate, live : int64 / float64 / int64 (F,)
        Output and scratch: ``fl[:n]`` the flows of the served groups in order, ``rate[:n]``
        their rates.
    gcof, gptr : int64 (K,), (K+1,)
        Output: coflow ``gcof[i]``'s flows are ``fl[gptr[i]:gptr[i+1]]``.
    members : int64 (K,)
        Scratch.

    Returns
    -------
    (n, C, B) : the flows and coflows written, and how many groups were found by path.
    """
    R = cap.shape[0]
    res, full, nfree, gres, gtol, wsum, gsum, seen, gfull, touched = _start(cap, tol)
    no_mult = np.empty(0, dtype=np.int64)
    S = slot_cof.shape[0]
    counted = full.copy()     # the full resources already taken out of fdeg
    fdeg = 0
    for p in range(R):
        if not full[p]:
            fdeg += rq_ptr[p + 1] - rq_ptr[p]
    gptr[0] = 0
    ng = 0
    nby = 0
    nm = 0
    run = 0
    cur = -1
    by_path = False
    for b in range(blk.shape[0]):
        if nfree == 0 or by_path:
            break
        if blk[b] == 0:
            continue
        for s in range(b * BLOCK, min(S, (b + 1) * BLOCK)):
            if nfree == 0:
                break
            c = slot_cof[s]
            if c < 0:
                continue
            members[nm] = c
            nm += 1
            if heavy[c]:
                continue
            cur = s
            if _blocked(members, nm, ptr, done, fr_ptr, fr, full):
                # every unfinished flow of the group has a full resource: it gets nothing
                # and touches no residual (_serve_group would give the same), so it is
                # walked past without being gathered
                nm = 0
                run += 1
                if run >= SWITCH and run * SWITCH_RATIO >= fdeg:
                    by_path = True
                    break
                continue
            a = gptr[ng]
            ng = _gather_group(members, nm, ptr, done, fl, rate, gcof, gptr, ng)
            nm = 0
            nfree = _serve_group(fl, a, gptr[ng], fr_ptr, fr, rate, res, tol, full, nfree,
                                 full_rtol, gres, gtol, wsum, gsum, seen, gfull, touched, live,
                                 no_mult)
            got = False
            for x in range(a, gptr[ng]):
                if rate[x] > 0.0:
                    got = True
                    for e in range(fr_ptr[fl[x]], fr_ptr[fl[x] + 1]):
                        p = fr[e]
                        if full[p] and not counted[p]:
                            counted[p] = True
                            fdeg -= rq_ptr[p + 1] - rq_ptr[p]
            run = 0 if got else run + 1
            # ski rental: walk blocked groups until that has cost about as much as setting
            # up the search by path would (the paths through the free resources)
            if run >= SWITCH and run * SWITCH_RATIO >= fdeg:
                by_path = True
                break
    if nm > 0 and nfree > 0 and not by_path:
        # the heavy coflows after the last light one
        a = gptr[ng]
        ng = _gather_group(members, nm, ptr, done, fl, rate, gcof, gptr, ng)
        nfree = _serve_group(fl, a, gptr[ng], fr_ptr, fr, rate, res, tol, full, nfree,
                             full_rtol, gres, gtol, wsum, gsum, seen, gfull, touched, live,
                             no_mult)
    if by_path and nfree > 0:
        Q = path_ptr.shape[0] - 1
        # only the paths with every resource free are looked at (each once, from its first
        # resource); every other path counts as blocked (pfull > 0) from here on.  The heap
        # holds each free path once, keyed by its next slot.
        pfull = np.ones(Q, dtype=np.int64)
        mcur = np.full(Q, -1, dtype=np.int64)
        hk = np.empty(Q)
        he = np.empty(Q, dtype=np.int64)
        pos = np.full(Q, -1, dtype=np.int64)
        size = np.zeros(1, dtype=np.int64)
        for p in range(R):
            if full[p]:
                continue
            for j in range(rq_ptr[p], rq_ptr[p + 1]):
                q = rq[j]
                if qres[qres_ptr[q]] != p:
                    continue
                free = True
                for e in range(qres_ptr[q], qres_ptr[q + 1]):
                    if full[qres[e]]:
                        free = False
                        break
                if not free:
                    continue
                pfull[q] = 0
                m = _path_min(q, cur, path_ptr, path_flow, done, flow_cof, slot_of)
                mcur[q] = m
                if m >= 0:
                    heap_set(hk, he, pos, size, q, float(m))
        counted[:] = full
        while nfree > 0 and size[0] > 0:
            # the group holding the smallest slot: from it to the next coflow not heavy
            s = int(hk[0])
            nm = 0
            while s >= 0:
                c = slot_cof[s]
                members[nm] = c
                nm += 1
                cur = s
                if not heavy[c]:
                    break
                s = _next_slot(slot_cof, blk, s + 1)
            nby += 1
            a = gptr[ng]
            ng = _gather_group(members, nm, ptr, done, fl, rate, gcof, gptr, ng)
            nfree = _serve_group(fl, a, gptr[ng], fr_ptr, fr, rate, res, tol, full, nfree,
                                 full_rtol, gres, gtol, wsum, gsum, seen, gfull, touched, live,
                                 no_mult)
            for x in range(a, gptr[ng]):
                f = fl[x]
                for e in range(fr_ptr[f], fr_ptr[f + 1]):
                    p = fr[e]
                    if full[p] and not counted[p]:
                        counted[p] = True
                        for j in range(rq_ptr[p], rq_ptr[p + 1]):
                            pfull[rq[j]] += 1
                            heap_remove(hk, he, pos, size, rq[j])
            # the paths of the group's flows move on to their next slot
            for x in range(a, gptr[ng]):
                q2 = path[fl[x]]
                if pfull[q2] == 0 and 0 <= mcur[q2] <= cur:
                    m2 = _path_min(q2, cur, path_ptr, path_flow, done, flow_cof, slot_of)
                    mcur[q2] = m2
                    if m2 >= 0:
                        heap_set(hk, he, pos, size, q2, float(m2))
                    else:
                        heap_remove(hk, he, pos, size, q2)
    return gptr[ng], ng, nby


@njit(cache=True, borrowed=True)
def _blocked(members, nm, ptr, done, fr_ptr, fr, full):
    """Has every unfinished flow of coflows ``members[:nm]`` a full resource on its path?"""
    for i in range(nm):
        c = members[i]
        for f in range(ptr[c], ptr[c + 1]):
            if done[f]:
                continue
            free = True
            for e in range(fr_ptr[f], fr_ptr[f + 1]):
                if full[fr[e]]:
                    free = False
                    break
            if free:
                return False
    return True


@njit(cache=True, borrowed=True)
def _gather_group(members, nm, ptr, done, fl, rate, gcof, gptr, ng):
    """Append the unfinished flows of coflows ``members[:nm]`` in index order (the members
    sorted by index, each one's flows in order) from ``gptr[ng]``, one entry per coflow with
    such flows in ``gcof`` / ``gptr``; return the new count (``gptr`` of it is the end)."""
    for i in range(1, nm):
        c = members[i]
        j = i - 1
        while j >= 0 and members[j] > c:
            members[j + 1] = members[j]
            j -= 1
        members[j + 1] = c
    n = gptr[ng]
    for i in range(nm):
        c = members[i]
        a = n
        n = _gather(c, ptr, done, fl, rate, n)
        if n > a:
            gcof[ng] = c
            gptr[ng] = a
            ng += 1
    gptr[ng] = n
    return ng


@njit(cache=True, borrowed=True)
def _next_slot(slot_cof, blk, s):
    """The first occupied slot at or after ``s``, or -1."""
    S = slot_cof.shape[0]
    while s < S:
        if s % BLOCK == 0 and blk[s // BLOCK] == 0:
            s += BLOCK
            continue
        if slot_cof[s] >= 0:
            return s
        s += 1
    return -1


#: :func:`serve_levels` looks by path once at least ``SWITCH`` walked coflows in a row got no
#: rate and ``SWITCH_RATIO`` times their number reaches the paths through the free resources.
SWITCH = 16
SWITCH_RATIO = 8


@njit(cache=True, borrowed=True)
def _gather(c, ptr, done, fl, rate, n):
    """Append coflow ``c``'s unfinished flows (index order) to ``fl`` from ``n``, their
    rates zeroed; return the new end."""
    for f in range(ptr[c], ptr[c + 1]):
        if not done[f]:
            fl[n] = f
            rate[n] = 0.0
            n += 1
    return n


@njit(cache=True, borrowed=True)
def _path_min(q, after, path_ptr, path_flow, done, flow_cof, slot_of):
    """The smallest slot after ``after`` among path ``q``'s unfinished flows of slotted
    coflows, or -1."""
    best = -1
    for j in range(path_ptr[q], path_ptr[q + 1]):
        f = path_flow[j]
        if done[f]:
            continue
        s = slot_of[flow_cof[f]]
        if s > after and (best < 0 or s < best):
            best = s
    return best


@njit(cache=True, borrowed=True)
def move_slots(slot_cof, blk, slot_of, cof, old, new):
    """Coflow ``cof[i]`` leaves slot ``old[i]`` and takes slot ``new[i]`` (-1: none), keeping
    the block counts of :func:`serve_levels` and ``slot_of``."""
    for i in range(cof.shape[0]):
        o = old[i]
        if o >= 0:
            slot_cof[o] = -1
            blk[o // BLOCK] -= 1
        s = new[i]
        slot_of[cof[i]] = s
        if s >= 0:
            slot_cof[s] = cof[i]
            blk[s // BLOCK] += 1
