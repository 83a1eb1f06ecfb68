"""The compiled event loop of ``creek`` and ``decentralized-las`` (per-flow max-min inside a
level, no aging): the generic simulator (:func:`coflowopt.simulate.simulate`) and the
policies (:class:`coflowopt.policies.mlfq.CreekPolicy`,
:class:`~coflowopt.policies.mlfq.DecentralizedLasPolicy`) in one kernel.

Why: on the generic simulator every event cost numpy work over every active flow (the groups'
sort, the simulator's ``searchsorted`` / ``_same_rate``, ``np.unique`` of the units given a
rate, the attained service) and a progressive filling whose every round passed over every live
flow of the level (``serve_groups``): 57 ms an event on the Facebook trace (~10^5 active
flows), 0.2-0.26 s at 50,000 coflows, hours in all
(``experiments/results/creek_profile.md``).  Here the levels, the attained service, the
sub-coflow projection, residual sizes and open pieces live in the kernel across events, and
the filling works per resource and per path (:func:`_fill_paths`): a round costs the resources
that still have live flows, and the flows of one path in a group are one class, counted
together and frozen once (at 50,000 coflows ~10^5 flows of level 0 on 22,500 paths), so a
flow is touched when it is gathered, counted, and given its class's rate
(``experiments/results/dlas_50k_profile.md``).

The *units* are the policy's: coflows (``creek``) or (coflow, source) pairs
(``decentralized-las``), numbered so that the units of a coflow are consecutive.  A level's
group is the unfinished flows of the released units in that level, in flow index order (the
generic path's stable sort of ``active_flows`` by level); the coflows holding such units sit
in slots ``level x K + coflow`` (a count per slot, blocks of :data:`._class_kernel.BLOCK`
slots skipped when empty), so a level's group is gathered by walking its slots, and the
levels after the resources are all full are not visited.

Same bits as the Python engine (``tests/test_level_kernel.py``): every float operation is the
one the Python path does, in the same order --

* the allocation: :func:`_fill` (flow by flow) and :func:`_fill_paths` (by path) are
  :func:`._class_kernel._serve_group` rearranged, not changed: in a round every live flow
  gets the same step, so a flow's rate is the running sum of the steps up to the round its
  first resource freezes (one float, ``lev``, added in the same order); ``wsum`` (live flows
  through a resource) is an exact small integer whether counted afresh or decremented, one
  by one or a path's ``m`` flows at once (flows of one path are live or not together and
  freeze in the same round, at the same ``lev``); the step is the minimum of the same
  quotients, the residual ``gres -= wsum x step`` the same product (a resource without live
  flows keeps its residual either way: ``x - 0 x step == x``); the group's rates leave the
  residuals summed in flow order, as there;
* the policy: the attained service of a unit given a rate at the previous call is
  ``sum(size - rem)`` over its flows in index order (``np.bincount``'s order); ``creek``'s
  projection ``n_c x b_c / max(d_c, 1)`` with ``b_c`` its completed sub-coflows' bytes summed
  in sub-coflow order (each sub-coflow's in flow order) when one of them completes; the level
  the number of thresholds ``x (1 - CROSSING_RTOL)`` at most ``max(S, P)``, never lower than
  before; the held rates (a new rate within the flow's zero of its current one keeps
  the current one); a unit's rate its flows' rates summed in index order; a crossing at
  ``t + (H[level] - S) / rate``, applied at once and the allocation redone when not after ``t``;
* the simulator: :mod:`._mlfq_kernel`'s step (:func:`._mlfq_kernel.change_rates`,
  :func:`~._mlfq_kernel.advance`, ...; the flows with a rate taken in index order: the
  levels' runs, each in index order, merged).

*Sink mode* (``window > 0``) as :func:`._mlfq_kernel.slots_simulate`'s.
"""

from __future__ import annotations

import numpy as np

from ..rates._jit import njit
from ..rates._pieces import close_pieces as _close
from ..rates._sorted import keep_positive
from ._class_kernel import BLOCK, _start, leave_residuals, live_flows
from ._mlfq_kernel import (NO_FUTURE_EVENT, OK, TOO_MANY_EVENTS, advance, change_rates, cut,
                           flow_ends, next_event, step_state)

__all__ = ["levels_simulate", "fill_groups", "OK", "TOO_MANY_EVENTS", "NO_FUTURE_EVENT"]

#: A level's group is filled by path classes (:func:`_fill_paths`) while its last such filling
#: found at least this many flows per class, else flow by flow (:func:`_fill`: the class
#: count and the rate lookup are two passes over the group that pay only with shared paths);
#: every ``PATH_FILL_PROBE``-th event measures again.  Either way the same bits.
PATH_FILL_RATIO = 1.5
PATH_FILL_PROBE = 64


@njit(cache=True, borrowed=True)
def _round(act, na, gres, wsum, gtol, gfull, newly, lev):
    """One round of the filling over the resources ``act[:na]`` with live flows: the step is
    the least ``gres / wsum``, every live flow gets it (``gres -= wsum x step``), the
    resources left at most ``gtol`` freeze (listed in ``newly``).  Returns ``(lev + step,
    resources frozen)``."""
    d = np.inf
    for j in range(na):
        p = act[j]
        s = gres[p] / wsum[p]
        if s < d:
            d = s
    nn = 0
    for j in range(na):
        p = act[j]
        gres[p] -= wsum[p] * d
        if gres[p] <= gtol[p]:
            gfull[p] = True
            newly[nn] = p
            nn += 1
    return lev + d, nn


@njit(cache=True, borrowed=True)
def _rounds(live, nl, touched, nt, item_of, ip_ptr, ip_res, mult, out, gres, gtol, gfull, wsum,
            rstart, rfill, rlist, act, newly, fz):
    """The rounds of a group's filling over its live items ``live[:nl]`` (flow positions with
    ``item_of = fl``, or path classes with ``item_of`` the identity): item ``x`` stands for
    ``mult[item_of[x]]`` flows on the resources ``ip_res[ip_ptr[y]:ip_ptr[y + 1]]``,
    ``y = item_of[x]``; ``rfill[p]`` holds the live items on each touched resource ``p`` on
    entry, ``gres`` / ``gtol`` / ``wsum`` as :func:`._class_kernel.live_flows` leaves them.
    Each item's rate (the level of the round its first resource froze) goes to ``out[x]``."""
    # each resource's live items, a CSR over the touched resources
    acc = 0
    for j in range(nt):
        p = touched[j]
        c = rfill[p]
        rstart[p] = acc
        rfill[p] = acc
        acc += c
        act[j] = p
    for i in range(nl):
        x = live[i]
        fz[x] = False
        y = item_of[x]
        for e in range(ip_ptr[y], ip_ptr[y + 1]):
            p = ip_res[e]
            rlist[rfill[p]] = x
            rfill[p] += 1
    na = nt
    lev = 0.0
    left = nl
    while left > 0:
        lev, nn = _round(act, na, gres, wsum, gtol, gfull, newly, lev)
        # the live items through a resource that froze stop at this round's level
        for k in range(nn):
            p = newly[k]
            for z in range(rstart[p], rfill[p]):
                x = rlist[z]
                if not fz[x]:
                    fz[x] = True
                    out[x] = lev
                    left -= 1
                    y = item_of[x]
                    m = float(mult[y])
                    for e in range(ip_ptr[y], ip_ptr[y + 1]):
                        wsum[ip_res[e]] -= m
        na = keep_positive(act, na, wsum)     # the resources still with live items


@njit(cache=True, borrowed=True)
def _fill(fl, a, b, fr_ptr, fr, rate, res, tol, full, nfree, full_rtol, gres, gtol, wsum,
          gsum, seen, gfull, touched, live, rstart, rfill, rlist, act, newly, fz, ones):
    """Serve one group, the flows ``fl[a:b]`` (``rate[a:b]`` zero on entry), on the residuals
    ``res``: :func:`._class_kernel._serve_group`'s rates, residuals and full resources to the
    bit (module docstring), in O(group's flows x path length + rounds x resources with live
    flows) instead of O(rounds x live flows x path length).  Returns the resources still free.

    ``rstart`` / ``rfill`` (R), ``rlist`` (>= the live flows' path entries), ``act``,
    ``newly`` (R) and ``fz`` (>= b, by position) are scratch; ``ones`` (F) is 1 for every
    flow."""
    nl, nt = live_flows(fl, a, b, fr_ptr, fr, ones, res, full, full_rtol, gres, gtol, wsum,
                        seen, gfull, touched, live)
    if nl == 0:
        return nfree
    for j in range(nt):
        p = touched[j]
        rfill[p] = int(wsum[p])
    _rounds(live, nl, touched, nt, fl, fr_ptr, fr, ones, rate, gres, gtol, gfull, wsum, rstart,
            rfill, rlist, act, newly, fz)
    return leave_residuals(fl, a, b, fr_ptr, fr, rate, res, tol, full, nfree, gsum, seen,
                           touched, nt)


@njit(cache=True, borrowed=True)
def _fill_paths(fl, a, b, pid, q_ptr, q_res, fr_ptr, fr, rate, res, tol, full, nfree, full_rtol,
          gres, gtol, wsum, gsum, seen, gfull, touched, live, rstart, rfill, rlist, act, newly,
          fz, ccnt, cl, crate, ident):
    """Serve one group, the flows ``fl[a:b]`` (``rate[a:b]`` written), on the residuals
    ``res``: :func:`._class_kernel._serve_group`'s rates, residuals and full resources to the
    bit (module docstring), in O(group's flows + classes x path length + rounds x resources
    with live flows) instead of O(rounds x live flows x path length).  Returns the resources
    still free and the number of classes.

    The filling works on the group's *classes*: flows of one path ``pid[f]`` (resources
    ``q_res[q_ptr[k]:q_ptr[k + 1]]``) are alike to it (live or not together, frozen in the
    same round: one rate), so a class of ``m`` flows adds ``m`` to ``wsum`` (an exact small
    integer, as ``m`` additions of 1) and is frozen once.  With one class per flow
    (``pid = arange``, ``q_ptr, q_res = fr_ptr, fr``) this is the per-flow filling.

    ``rstart`` / ``rfill`` (R), ``rlist`` (>= the classes' path entries), ``act``,
    ``newly`` (R), ``live``, ``fz``, ``cl``, ``crate`` (>= the classes) and ``ccnt`` (the
    classes, zero on entry and exit) are scratch; ``ident`` (>= the classes) is the
    identity."""
    # the group's classes and their flows
    nk = 0
    for x in range(a, b):
        k = pid[fl[x]]
        if ccnt[k] == 0:
            cl[nk] = k
            nk += 1
            crate[k] = 0.0
        ccnt[k] += 1
    # the live classes (no full resource), each standing for its flows, and the resources on
    # their paths
    nl, nt = live_flows(cl, 0, nk, q_ptr, q_res, ccnt, res, full, full_rtol, gres, gtol, wsum,
                        seen, gfull, touched, live)
    for j in range(nt):
        rfill[touched[j]] = 0
    for i in range(nl):
        k = cl[live[i]]
        live[i] = k
        for e in range(q_ptr[k], q_ptr[k + 1]):
            rfill[q_res[e]] += 1
    if nl > 0:
        _rounds(live, nl, touched, nt, ident, q_ptr, q_res, ccnt, crate, gres, gtol, gfull, wsum,
                rstart, rfill, rlist, act, newly, fz)
    for i in range(nk):
        ccnt[cl[i]] = 0
    if nl == 0:
        return nfree, nk
    for x in range(a, b):
        rate[x] = crate[pid[fl[x]]]
    return leave_residuals(fl, a, b, fr_ptr, fr, rate, res, tol, full, nfree, gsum, seen,
                           touched, nt), nk


@njit(cache=True)
def _scratch(R, F, E):
    """The scratch arrays of :func:`_fill` / :func:`_fill_paths` beyond those of ``_start``
    (``F`` at least the flows, ``E`` at least their path entries)."""
    return (np.empty(F, dtype=np.int64),          # live
            np.empty(R, dtype=np.int64),          # rstart
            np.empty(R, dtype=np.int64),          # rfill
            np.empty(max(E, 1), dtype=np.int64),  # rlist
            np.empty(R, dtype=np.int64),          # act
            np.empty(R, dtype=np.int64),          # newly
            np.zeros(F, dtype=np.bool_),          # fz
            np.zeros(F, dtype=np.int64),          # ccnt
            np.empty(F, dtype=np.int64),          # cl
            np.zeros(F),                          # crate
            np.ones(F, dtype=np.int64),           # ones
            np.arange(F))                         # ident


@njit(cache=True)
def fill_groups(fl, gptr, fr_ptr, fr, cap, tol, full_rtol, classes, pid, q_ptr, q_res):
    """:func:`._class_kernel.serve_groups` with :func:`_fill` (``classes`` False) or
    :func:`_fill_paths` (the flows' classes ``pid`` with their paths ``q_ptr`` / ``q_res``) as
    the group body (the same arguments and, to the bit, the same rates:
    ``tests/test_level_kernel.py``)."""
    n = fl.shape[0]
    rate = np.zeros(n)
    res, full, nfree, gres, gtol, wsum, gsum, seen, gfull, touched = _start(cap, tol)
    live, rstart, rfill, rlist, act, newly, fz, ccnt, cl, crate, ones, ident = _scratch(
        cap.shape[0], max(n, fr_ptr.shape[0] - 1), fr.shape[0])
    for g in range(gptr.shape[0] - 1):
        if nfree == 0:
            break
        if classes:
            nfree, _ = _fill_paths(fl, gptr[g], gptr[g + 1], pid, q_ptr, q_res, fr_ptr, fr, rate,
                                   res, tol, full, nfree, full_rtol, gres, gtol, wsum, gsum,
                                   seen, gfull, touched, live, rstart, rfill, rlist, act, newly,
                                   fz, ccnt, cl, crate, ident)
        else:
            nfree = _fill(fl, gptr[g], gptr[g + 1], fr_ptr, fr, rate, res, tol, full, nfree,
                          full_rtol, gres, gtol, wsum, gsum, seen, gfull, touched, live, rstart,
                          rfill, rlist, act, newly, fz, ones)
    return rate


@njit(cache=True, borrowed=True)
def _slot(cnt, blk, s, delta):
    """Add ``delta`` units to slot ``s`` (a coflow's units in a level), keeping the block
    counts of occupied slots."""
    was = cnt[s] > 0
    cnt[s] += delta
    now = cnt[s] > 0
    if now and not was:
        blk[s // BLOCK] += 1
    elif was and not now:
        blk[s // BLOCK] -= 1


@njit(cache=True, borrowed=True)
def _level_of(u, att, proj_on, unit_cof, proj_d, proj_b, nsub, hs):
    """The level the policy's ``_before`` gives unit ``u``: the number of thresholds
    (``x (1 - CROSSING_RTOL)``) at most ``max(S_u, P_c)`` (``P_c`` only for ``creek``'s
    coflows with a completed sub-coflow)."""
    key = att[u]
    if proj_on:
        c = unit_cof[u]
        dd = proj_d[c]
        if dd > 0.0:
            p = nsub[c] * proj_b[c] / (dd if dd > 1.0 else 1.0)
            if p > key:
                key = p
    lvl = 0
    while lvl < hs.shape[0] and hs[lvl] <= key:
        lvl += 1
    return lvl


@njit(cache=True)
def levels_simulate(ptr, size, flow_cof, rel_order, unit, unit_ptr, unit_flows, unit_cof,
                    cu_ptr, hs, H, fr_ptr, fr, pid, q_ptr, q_res, cap, tol, full_rtol, hold,
                    flow_tol, proj_on,
                    sid, sub_ptr, sub_flows, sub_cof, cs_ptr, cs_sub, nsub, max_events,
                    completion_rtol, level, stats, times, lf, ls, le, lv, cf, cs, ce, cv,
                    state, window, sent, first_win, wdone, wstat):
    """Simulate ``creek`` / ``decentralized-las`` (``within="fair"``, no aging) from the first
    release until every coflow finishes (module docstring).

    Parameters
    ----------
    ptr, size, flow_cof : the instance's ``flow_ptr``, ``flow_size`` (float64), ``flow_coflow``
    rel_order : int64 (K,)
        The coflows by (release, index).
    unit : int64 (F,)
        Each flow's unit; ``unit_ptr`` / ``unit_flows`` each unit's flows in index order;
        ``unit_cof`` each unit's coflow; ``cu_ptr`` each coflow's units (consecutive).
    hs, H : float64
        The thresholds times ``1 - CROSSING_RTOL`` and the thresholds.
    fr_ptr, fr, cap, tol, full_rtol : as for :func:`._class_kernel.serve_groups`
    pid, q_ptr, q_res : int64
        Each flow's path (class of :func:`_fill`), each path's resources (CSR).
    hold : bool
        The held rates (``creek``, ``decentralized-las``), with each flow's zero
        ``flow_tol`` (F,).
    proj_on : bool
        ``creek``'s sub-coflow projection: ``sid`` (F,) each flow's sub-coflow,
        ``sub_ptr`` / ``sub_flows`` each sub-coflow's flows in index order, ``sub_cof`` its
        coflow, ``cs_ptr`` / ``cs_sub`` each coflow's sub-coflows in index order, ``nsub``
        (K,) float the number of sub-coflows of each coflow.
    max_events : int
    completion_rtol : float
    level : int64 (U,)
        Output: each unit's last level (zeros on entry).
    stats : int64 (8,)
        Output: status, events, policy calls, class changes, demotions, flows gathered and
        flows given a rate (summed over the allocations).
    times : float64 (K,)
        The releases on entry; on exit ``times[0]`` is the last event's time.
    lf ... wstat
        As for :func:`._mlfq_kernel.slots_simulate`.
    """
    F = size.shape[0]
    K = ptr.shape[0] - 1
    U = unit_ptr.shape[0] - 1
    R = cap.shape[0]
    nH = H.shape[0]
    L = nH + 1
    rel_t = times.copy()
    rem = size.copy()
    done = np.zeros(F, dtype=np.bool_)
    unfinished = np.empty(K, dtype=np.int64)
    for c in range(K):
        unfinished[c] = ptr[c + 1] - ptr[c]
    unit_left = np.empty(U, dtype=np.int64)
    for u in range(U):
        unit_left[u] = unit_ptr[u + 1] - unit_ptr[u]
    cnt = np.zeros(L * K, dtype=np.int64)
    blk = np.zeros(-(-(L * K) // BLOCK), dtype=np.int64)
    att = np.zeros(U)
    dirty = np.empty(U, dtype=np.int64)
    nd = 0
    umark = np.zeros(U, dtype=np.bool_)
    su = np.empty(U, dtype=np.int64)
    urate = np.zeros(U)
    # creek's projection
    S = sub_cof.shape[0]
    sub_left = np.zeros(S, dtype=np.int64)
    for s in range(S):
        sub_left[s] = sub_ptr[s + 1] - sub_ptr[s]
    sub_done = np.zeros(S, dtype=np.bool_)
    sub_bytes = np.zeros(S)
    proj_d = np.zeros(K)
    proj_b = np.zeros(K)
    pmark = np.zeros(K, dtype=np.bool_)
    plist = np.empty(K, dtype=np.int64)
    finlog = np.empty(F if proj_on else 0, dtype=np.int64)
    nlog = 0
    seen_log = 0
    # the allocation's buffers
    fl_buf = np.empty(F, dtype=np.int64)
    rate_buf = np.empty(F)
    (live, rstart, rfill, rlist, act, newly, fz, ccnt, cl, crate, ones,
     ident) = _scratch(R, F, fr.shape[0])
    # per level, the group's flows per class at its last filling by path (module docstring)
    per_class = np.full(L, 2.0)
    gb = np.zeros(L + 1, dtype=np.int64)
    runs = np.zeros(L + 1, dtype=np.int64)
    heads = np.zeros(L, dtype=np.int64)
    # the simulator
    held = window > 0
    (frate, nrate, pstart, cur, newf, fin, ended, ends, ostart, hblk, hpart,
     htot) = step_state(F, held)
    srt = np.empty(F, dtype=np.int64)
    ncur = 0
    nc = 0
    npieces = 0
    next_rel = 0
    n_placed = 0
    nfin = 0
    events = 0
    changes = 0
    demotions = 0
    gathered = 0
    served = 0
    hidx = 0
    nw = 0
    wins = 0
    t = rel_t[rel_order[0]]
    while True:
        while next_rel < K and rel_t[rel_order[next_rel]] <= t:
            next_rel += 1
        if nfin == K:
            break
        events += 1
        if events > max_events:
            stats[0] = TOO_MANY_EVENTS
            break
        # ---------------------------------------------------------------- the policy's call
        timer = np.inf
        for i in range(n_placed, next_rel):
            c = rel_order[i]
            for u in range(cu_ptr[c], cu_ptr[c + 1]):
                _slot(cnt, blk, level[u] * K + c, 1)
        n_placed = next_rel
        nnew = 0
        nr = 0
        if next_rel > nfin:           # some released coflow is unfinished
            # _before: the attained service of the units given a rate at the previous call,
            # the projection of the coflows with a sub-coflow completed since, their levels
            for i in range(nd):
                u = dirty[i]
                a = 0.0
                for j in range(unit_ptr[u], unit_ptr[u + 1]):
                    f = unit_flows[j]
                    a += size[f] - rem[f]
                att[u] = a
            npl = 0
            if proj_on:
                for i in range(seen_log, nlog):
                    sub_left[sid[finlog[i]]] -= 1
                for i in range(seen_log, nlog):
                    s = sid[finlog[i]]
                    if sub_left[s] == 0 and not sub_done[s]:
                        sub_done[s] = True
                        b = 0.0
                        for j in range(sub_ptr[s], sub_ptr[s + 1]):
                            f = sub_flows[j]
                            b += size[f] - rem[f]
                        sub_bytes[s] = b
                        c = sub_cof[s]
                        if not pmark[c]:
                            pmark[c] = True
                            plist[npl] = c
                            npl += 1
                seen_log = nlog
                for i in range(npl):
                    c = plist[i]
                    pmark[c] = False
                    dd = 0
                    b = 0.0
                    for j in range(cs_ptr[c], cs_ptr[c + 1]):
                        s = cs_sub[j]
                        if sub_done[s]:
                            dd += 1
                            b += sub_bytes[s]
                    proj_d[c] = float(dd)
                    proj_b[c] = b
            for i in range(nd + npl):
                if i < nd:
                    u = dirty[i]
                else:
                    c = plist[i - nd]
                    u = cu_ptr[c]           # creek: the coflow's one unit
                lvl = _level_of(u, att, proj_on, unit_cof, proj_d, proj_b, nsub, hs)
                if lvl > level[u]:
                    if unit_left[u] > 0:
                        c = unit_cof[u]
                        _slot(cnt, blk, level[u] * K + c, -1)
                        _slot(cnt, blk, lvl * K + c, 1)
                    level[u] = lvl
                    demotions += 1
                    changes += 1
            nd = 0
            nsu = 0
            ng = 0
            for _ in range(10_000):
                res, full, nfree, gres, gtol, wsum, gsum, seen, gfull, touched = _start(cap, tol)
                n = 0
                ng = 0
                for lv_ in range(L):
                    if nfree == 0:
                        break
                    gb[lv_] = n
                    ng = lv_ + 1
                    # the level's group: its slots' coflows in index order, each one's
                    # unfinished flows of units in this level
                    base = lv_ * K
                    s0 = base
                    while s0 < base + K:
                        if s0 % BLOCK == 0 and blk[s0 // BLOCK] == 0:
                            s0 += BLOCK
                            continue
                        if cnt[s0] > 0:
                            c = s0 - base
                            for f in range(ptr[c], ptr[c + 1]):
                                if not done[f] and level[unit[f]] == lv_:
                                    fl_buf[n] = f
                                    rate_buf[n] = 0.0
                                    n += 1
                        s0 += 1
                    if per_class[lv_] >= PATH_FILL_RATIO or events % PATH_FILL_PROBE == 0:
                        nfree, nk = _fill_paths(fl_buf, gb[lv_], n, pid, q_ptr, q_res, fr_ptr,
                                                fr, rate_buf, res, tol, full, nfree, full_rtol,
                                                gres, gtol, wsum, gsum, seen, gfull, touched,
                                                live, rstart, rfill, rlist, act, newly, fz,
                                                ccnt, cl, crate, ident)
                        if nk > 0:
                            per_class[lv_] = (n - gb[lv_]) / nk
                    else:
                        nfree = _fill(fl_buf, gb[lv_], n, fr_ptr, fr, rate_buf, res, tol, full,
                                      nfree, full_rtol, gres, gtol, wsum, gsum, seen, gfull,
                                      touched, live, rstart, rfill, rlist, act, newly, fz,
                                      ones)
                gb[ng] = n
                gathered += n
                # held rates, then each unit's rate (its flows' in index order)
                nsu = 0
                for x in range(n):
                    f = fl_buf[x]
                    r = rate_buf[x]
                    if hold and r > 0.0:
                        o = frate[f]
                        if o > 0.0 and abs(r - o) <= flow_tol[f]:
                            r = o
                            rate_buf[x] = o
                    u = unit[f]
                    if not umark[u]:
                        umark[u] = True
                        su[nsu] = u
                        nsu += 1
                        urate[u] = 0.0
                    urate[u] += r
                # the next class change of the units served (the others have no rate)
                crossed = False
                tmin = np.inf
                for i in range(nsu):
                    u = su[i]
                    umark[u] = False
                    cr = urate[u]
                    if not cr > 0.0 or level[u] >= nH:
                        continue
                    tc = t + (H[level[u]] - att[u]) / cr
                    if tc <= t:
                        crossed = True
                        changes += 1
                        demotions += 1
                        c = unit_cof[u]
                        _slot(cnt, blk, level[u] * K + c, -1)
                        level[u] += 1
                        _slot(cnt, blk, level[u] * K + c, 1)
                    elif tc < tmin:
                        tmin = tc
                if not crossed:
                    timer = tmin
                    break
            # the flows with a rate, each level's in index order; the units that had one
            for i in range(nsu):
                u = su[i]
                if urate[u] > 0.0:
                    dirty[nd] = u
                    nd += 1
            nr = 0
            for g in range(ng):
                runs[nr] = nnew
                for x in range(gb[g], gb[g + 1]):
                    r = rate_buf[x]
                    if r > 0.0:
                        f = fl_buf[x]
                        newf[nnew] = f
                        nnew += 1
                        nrate[f] = r
                if nnew > runs[nr]:
                    nr += 1
            runs[nr] = nnew
            served += nnew
        # ------------------------------------------------ the simulator: pieces by index
        if nr <= 1 or nnew == 0:
            for i in range(nnew):
                srt[i] = newf[i]
        else:
            for g in range(nr):
                heads[g] = runs[g]
            for i in range(nnew):
                best = -1
                bf = F
                for g in range(nr):
                    h = heads[g]
                    if h < runs[g + 1] and newf[h] < bf:
                        bf = newf[h]
                        best = g
                srt[i] = bf
                heads[best] += 1
        nc, closed, hidx = change_rates(t, cur, ncur, srt, nnew, nrate, frate, pstart, lf, ls,
                                        le, lv, cf, cs, ce, cv, nc, held, ostart, hidx, hblk,
                                        hpart, htot, first_win, wins)
        npieces += closed
        ncur = nnew
        if held and nc >= window:
            npieces += cut(t, cur, ncur, pstart, frate, cf, cs, ce, cv, nc, first_win, wins,
                           wstat, nw)
            nc = 0
            nw = 0
            wins += 1
        if timer <= t:
            stats[0] = NO_FUTURE_EVENT
            break
        t_next = next_event(flow_ends(t, cur, ncur, rem, frate, fin), rel_t, rel_order,
                            next_rel, timer)
        if not np.isfinite(t_next):
            stats[0] = NO_FUTURE_EVENT
            break
        nc, ncur, ne, hidx, nw = advance(t, t_next, cur, ncur, fin, rem, size, frate, pstart,
                                         done, completion_rtol, lf, ls, le, lv, cf, cs, ce, cv,
                                         nc, held, ostart, hidx, hblk, hpart, htot, sent,
                                         first_win, wins, wdone, nw, ended, ends)
        npieces += ne
        for i in range(ne):
            f = ended[i]
            if proj_on:
                finlog[nlog] = f
                nlog += 1
            u = unit[f]
            unit_left[u] -= 1
            if unit_left[u] == 0:
                _slot(cnt, blk, level[u] * K + unit_cof[u], -1)
            c = flow_cof[f]
            unfinished[c] -= 1
            if unfinished[c] == 0:
                nfin += 1
        t = t_next
    wstat[0] = nw
    wstat[1] = wins
    _close(lf, ls, le, lv, cf, cs, ce, cv, nc, window, t)
    state[0] = npieces
    stats[1] = events
    stats[2] = events
    stats[3] = changes
    stats[4] = demotions
    stats[5] = gathered
    stats[6] = served
    times[0] = t
