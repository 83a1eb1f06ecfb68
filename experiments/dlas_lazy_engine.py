"""A prototype event loop for ``decentralized-las`` whose work per event follows the (level, path)
classes and the flows whose rate changes (issue 17; ``experiments/results/dlas_50k_engine.md``).

Not the policy's engine: a measurement of what such an engine costs and how far its schedule is
from ``_level_kernel.levels_simulate``'s (the same events, levels and pieces' flows on every
case tried, ends within ~1e-13, rates within the policy's zero; and no faster).
``decentralized-las`` only (no ``creek`` projection), no sink mode (pieces counted, or written
to arrays of a given capacity).  :func:`run` is the entry point.

State kept lazily:
* a class ``c = level x P + path`` has one rate ``crate[c]`` (held per class: a new rate within
  the path's zero of the current one keeps it) and a time ``ts[c]`` at which its flows'
  remaining bytes ``rem`` are valid; a flow's ``rem`` is brought to ``t`` only when its class's
  rate or membership changes or it completes;
* a class's next completion ``ts + min(rem) / crate`` sits in a segment tree over the classes,
  beside the time from which one of its flows is within ``COMPLETION_RTOL`` of its end;
* a unit's attained service is ``att + urate x (t - ta)``, brought to ``t`` when its rate changes;
  the time it comes within ``CROSSING_RTOL`` of its next threshold sits (as a lower bound) in a
  segment tree over the units, its crossing time beside it;
* a level's filling is :func:`_level_kernel._rounds` over its non-empty classes with their flow
  counts, the residuals left as ``count x rate`` per class.
"""

from __future__ import annotations

import numpy as np

from coflowopt.policies._class_kernel import _start, live_flows
from coflowopt.policies._level_kernel import _rounds
from coflowopt.rates._jit import njit


@njit(cache=True)
def _st_set(tree, N, i, v):
    j = i + N
    tree[j] = v
    j >>= 1
    while j >= 1:
        a = tree[2 * j]
        b = tree[2 * j + 1]
        m = a if a < b else b
        if tree[j] == m:
            break
        tree[j] = m
        j >>= 1


@njit(cache=True)
def _st_le(tree, N, x, out, stack):
    """The leaves with a value at most ``x`` into ``out``; returns how many."""
    n = 0
    if tree[1] > x:
        return 0
    sp = 0
    stack[sp] = 1
    sp += 1
    while sp > 0:
        sp -= 1
        j = stack[sp]
        if tree[j] > x:
            continue
        if j >= N:
            out[n] = j - N
            n += 1
        else:
            stack[sp] = 2 * j
            stack[sp + 1] = 2 * j + 1
            sp += 2
    return n


@njit(cache=True)
def _cset(c, head, nxt, rem, size, rtol, crate, ts, ctree, NC2):
    """Class ``c``'s next completion (``ctree[0]``: its first flow's end) and the time from
    which a flow of it completes within the completion tolerance (``ctree[1]``)."""
    r = crate[c]
    m = np.inf
    m2 = np.inf
    if r > 0.0:
        f = head[c]
        while f >= 0:
            if rem[f] < m:
                m = rem[f]
            v = rem[f] - rtol * size[f]
            if v < m2:
                m2 = v
            f = nxt[f]
        m = ts[c] + m / r
        m2 = ts[c] + m2 / r
    _st_set(ctree[0], NC2, c, m)
    _st_set(ctree[1], NC2, c, m2)


@njit(cache=True)
def _bring(c, t, head, nxt, rem, crate, ts):
    """The flows of class ``c`` to ``t`` (their remaining bytes)."""
    r = crate[c]
    if r > 0.0 and t > ts[c]:
        dt = t - ts[c]
        f = head[c]
        while f >= 0:
            rem[f] -= r * dt
            f = nxt[f]
    ts[c] = t


@njit(cache=True)
def _list_add(c, P, ccount, lst, nls, pos):
    l = c // P
    if ccount[c] == 0:
        pos[c] = nls[l]
        lst[l, nls[l]] = c - l * P
        nls[l] += 1
    ccount[c] += 1


@njit(cache=True)
def _list_del(c, P, ccount, lst, nls, pos):
    l = c // P
    ccount[c] -= 1
    if ccount[c] == 0:
        j = pos[c]
        last = lst[l, nls[l] - 1]
        lst[l, j] = last
        pos[l * P + last] = j
        nls[l] -= 1


@njit(cache=True)
def _join(f, c, t, P, head, nxt, prv, cls, rem, size, rtol, crate, ts, ccount, lst, nls, pos,
          ctree, NC2):
    _bring(c, t, head, nxt, rem, crate, ts)
    h = head[c]
    nxt[f] = h
    prv[f] = -1
    if h >= 0:
        prv[h] = f
    head[c] = f
    cls[f] = c
    _list_add(c, P, ccount, lst, nls, pos)
    _cset(c, head, nxt, rem, size, rtol, crate, ts, ctree, NC2)


@njit(cache=True)
def _leave(f, t, P, head, nxt, prv, cls, rem, size, rtol, crate, ts, ccount, lst, nls, pos,
           ctree, NC2):
    c = cls[f]
    r = crate[c]
    if r > 0.0 and t > ts[c]:
        rem[f] -= r * (t - ts[c])
    a = prv[f]
    b = nxt[f]
    if a >= 0:
        nxt[a] = b
    else:
        head[c] = b
    if b >= 0:
        prv[b] = a
    cls[f] = -1
    _list_del(c, P, ccount, lst, nls, pos)
    if ccount[c] == 0:
        crate[c] = 0.0      # an empty class has no rate: a flow joining it brings its own
    _cset(c, head, nxt, rem, size, rtol, crate, ts, ctree, NC2)


@njit(cache=True)
def _fill_level(cl, nk, mult, q_ptr, q_res, res, tol, full, nfree, full_rtol, gres, gtol, wsum,
                gsum, seen, gfull, touched, live, rstart, rfill, rlist, act, newly, fz, crate,
                ident):
    """One level's filling over its classes ``cl[:nk]`` (``mult[k]`` flows each): the live
    classes' rates to ``crate[k]`` (listed in ``live[:nl]``), the residuals left as
    ``m x rate`` per class."""
    nl, nt = live_flows(cl, 0, nk, q_ptr, q_res, mult, res, full, full_rtol, gres, gtol, wsum,
                        seen, gfull, touched, live)
    if nl == 0:
        return nfree, 0
    for j in range(nt):
        rfill[touched[j]] = 0
    for i in range(nl):
        k = cl[live[i]]
        live[i] = k
        for e in range(q_ptr[k], q_ptr[k + 1]):
            rfill[q_res[e]] += 1
    _rounds(live, nl, touched, nt, ident, q_ptr, q_res, mult, crate, gres, gtol, gfull, wsum,
            rstart, rfill, rlist, act, newly, fz)
    for j in range(nt):
        gsum[touched[j]] = 0.0
    for i in range(nl):
        k = live[i]
        v = mult[k] * crate[k]
        for e in range(q_ptr[k], q_ptr[k + 1]):
            gsum[q_res[e]] += v
    for j in range(nt):
        p = touched[j]
        seen[p] = False
        v = res[p] - gsum[p]
        res[p] = v if v > 0.0 else 0.0
        if not full[p] and res[p] <= tol[p]:
            full[p] = True
            nfree -= 1
    return nfree, nl


@njit(cache=True)
def _piece(f, start, end, rate, pf, ps, pe, pv, n):
    """Piece number ``n`` (kept while the arrays have room); returns ``n + 1``."""
    if n < pf.shape[0]:
        pf[n] = f
        ps[n] = start
        pe[n] = end
        pv[n] = rate
    return n + 1


@njit(cache=True)
def _dirty(u, umark, dlist, nd):
    """List unit ``u`` for the update of its rate and crossing; returns the list's length."""
    if not umark[u]:
        umark[u] = True
        dlist[nd] = u
        nd += 1
    return nd


@njit(cache=True)
def _u_cands(utree, NU2, x, ute, cand, stack):
    """The units whose ``te`` (``ute``, exact) is at most ``x`` into ``cand``; returns how
    many.  The tree's keys are lower bounds of ``ute`` (a later ``te`` is written only when
    met here), so the leaves found above their ``te`` are refreshed and left out."""
    n = _st_le(utree, NU2, x, cand, stack)
    m = 0
    for i in range(n):
        u = cand[i]
        if ute[u] <= x:
            cand[m] = u
            m += 1
        else:
            _st_set(utree, NU2, u, ute[u])
    return m


def _pow2(n):
    m = 1
    while m < n:
        m *= 2
    return m


@njit(cache=True)
def lazy_simulate(ptr, cof_flows, size, flow_cof, rel_order, unit, unit_ptr, unit_flows, unit_cof,
                  cu_ptr, hs, H, pid, q_ptr, q_res, cap, tol, full_rtol, hold, ptol, rel_t,
                  completion_rtol, max_events, pf, ps, pe, pv, fend, level, stats, NC2, NU2):
    F = size.shape[0]
    K = ptr.shape[0] - 1
    U = unit_ptr.shape[0] - 1
    R = cap.shape[0]
    P = q_ptr.shape[0] - 1
    nH = H.shape[0]
    L = nH + 1
    NC = L * P
    rem = size.copy()
    done = np.zeros(F, dtype=np.bool_)
    cls = np.full(F, -1, dtype=np.int64)
    nxt = np.full(F, -1, dtype=np.int64)
    prv = np.full(F, -1, dtype=np.int64)
    head = np.full(NC, -1, dtype=np.int64)
    ccount = np.zeros(NC, dtype=np.int64)
    lst = np.empty((L, P), dtype=np.int64)
    nls = np.zeros(L, dtype=np.int64)
    pos = np.zeros(NC, dtype=np.int64)
    crate = np.zeros(NC)
    ts = np.zeros(NC)
    cnew = np.zeros(NC)
    cstamp = np.zeros(NC, dtype=np.int64)
    rated = np.empty(NC, dtype=np.int64)
    nrated = 0
    rated2 = np.empty(NC, dtype=np.int64)
    prate = np.zeros(F)
    pstart = np.zeros(F)
    att = np.zeros(U)
    ta = np.zeros(U)
    urate = np.zeros(U)
    umark = np.zeros(U, dtype=np.bool_)
    dlist = np.empty(U, dtype=np.int64)
    nd = 0
    unit_left = np.empty(U, dtype=np.int64)
    for u in range(U):
        unit_left[u] = unit_ptr[u + 1] - unit_ptr[u]
    unfinished = np.empty(K, dtype=np.int64)
    for c in range(K):
        unfinished[c] = ptr[c + 1] - ptr[c]
    ctree = np.full((2, 2 * NC2), np.inf)
    utree = np.full(2 * NU2, np.inf)   # each unit's te (crossing within CROSSING_RTOL)
    utc = np.full(U, np.inf)            # each unit's crossing time
    ute = np.full(U, np.inf)            # and its te (the tree holds lower bounds of it)
    cand = np.empty(max(NC, U), dtype=np.int64)
    stack = np.empty(2 * max(NC2, NU2) + 2, dtype=np.int64)
    fresh = np.empty(F, dtype=np.int64)
    nfresh = 0
    fmark = np.zeros(F, dtype=np.bool_)
    res0, full0, nfree0, gres, gtol, wsum, gsum, seen, gfull, touched = _start(cap, tol)
    live = np.empty(max(P, 1), dtype=np.int64)
    rstart = np.empty(R, dtype=np.int64)
    rfill = np.empty(R, dtype=np.int64)
    rlist = np.empty(max(q_res.shape[0], 1), dtype=np.int64)
    act = np.empty(R, dtype=np.int64)
    newly = np.empty(R, dtype=np.int64)
    fz = np.zeros(P, dtype=np.bool_)
    lcr = np.zeros(P)
    ident = np.arange(P)
    npieces = 0
    events = 0
    nfin = 0
    next_rel = 0
    stamp = 0
    changed_classes = 0
    changed_flows = 0
    class_fills = 0
    demotions = 0
    t = rel_t[rel_order[0]]
    status = 0
    while True:
        # releases
        while next_rel < K and rel_t[rel_order[next_rel]] <= t:
            c = rel_order[next_rel]
            for u in range(cu_ptr[c], cu_ptr[c + 1]):
                ta[u] = t
            for jf in range(ptr[c], ptr[c + 1]):
                f = cof_flows[jf]
                _join(f, level[unit[f]] * P + pid[f], t, P,
                      head, nxt, prv, cls, rem, size, completion_rtol, crate, ts,
                      ccount, lst, nls, pos, ctree, NC2)
                if not fmark[f]:
                    fmark[f] = True
                    fresh[nfresh] = f
                    nfresh += 1
            next_rel += 1
        if nfin == K:
            break
        events += 1
        if events > max_events:
            status = 1
            break
        # ------------------------------------------------------------ the allocation
        for _ in range(10_000):
            res = res0.copy()
            full = full0.copy()
            nfree = nfree0
            stamp += 1
            n2 = 0
            for l in range(L):
                if nfree == 0:
                    break
                nk = nls[l]
                if nk == 0:
                    continue
                mult = ccount[l * P:(l + 1) * P]
                nfree, nlv = _fill_level(lst[l], nk, mult, q_ptr, q_res, res, tol, full, nfree,
                                         full_rtol, gres, gtol, wsum, gsum, seen, gfull,
                                         touched, live, rstart, rfill, rlist, act, newly, fz,
                                         lcr, ident)
                class_fills += nk
                for i in range(nlv):
                    k = live[i]
                    r = lcr[k]
                    if r > 0.0:
                        c = l * P + k
                        cnew[c] = r
                        cstamp[c] = stamp
                        rated2[n2] = c
                        n2 += 1
            # classes that lose their rate, then those whose rate changes
            for i in range(nrated):
                c = rated[i]
                if cstamp[c] != stamp and crate[c] > 0.0:
                    cnew[c] = 0.0
                    cstamp[c] = stamp
                    rated2[n2] = c
                    n2 += 1
            m2 = 0
            for i in range(n2):
                c = rated2[i]
                r = cnew[c]
                o = crate[c]
                if hold and r > 0.0 and o > 0.0 and abs(r - o) <= ptol[c % P]:
                    r = o
                elif hold and r > 0.0 and o == 0.0:
                    # a class without a rate (new, or its flows just joined): a flow whose
                    # current rate is within the zero of the new one keeps it, as the
                    # per-flow hold does (the first such flow's rate becomes the class's)
                    f = head[c]
                    while f >= 0:
                        if prate[f] > 0.0 and abs(r - prate[f]) <= ptol[c % P]:
                            r = prate[f]
                            break
                        f = nxt[f]
                if r > 0.0:
                    rated[m2] = c
                    m2 += 1
                if r == o:
                    continue
                changed_classes += 1
                # one walk: the flows brought to t, their first end, their pieces
                dt = t - ts[c] if o > 0.0 else 0.0
                ts[c] = t
                crate[c] = r
                mn = np.inf
                mn2 = np.inf
                f = head[c]
                while f >= 0:
                    if dt > 0.0:
                        rem[f] -= o * dt
                    x = rem[f]
                    if x < mn:
                        mn = x
                    x -= completion_rtol * size[f]
                    if x < mn2:
                        mn2 = x
                    if prate[f] != r:
                        if prate[f] > 0.0:
                            npieces = _piece(f, pstart[f], t, prate[f], pf, ps, pe, pv, npieces)
                        pstart[f] = t
                        prate[f] = r
                        changed_flows += 1
                        nd = _dirty(unit[f], umark, dlist, nd)
                    f = nxt[f]
                if r > 0.0:
                    _st_set(ctree[0], NC2, c, t + mn / r)
                    _st_set(ctree[1], NC2, c, t + mn2 / r)
                else:
                    _st_set(ctree[0], NC2, c, np.inf)
                    _st_set(ctree[1], NC2, c, np.inf)
            nrated = m2
            # flows that joined a class whose rate did not change
            for i in range(nfresh):
                f = fresh[i]
                fmark[f] = False
                if done[f]:
                    continue
                r = crate[cls[f]]
                if prate[f] != r:
                    if prate[f] > 0.0:
                        npieces = _piece(f, pstart[f], t, prate[f], pf, ps, pe, pv, npieces)
                    pstart[f] = t
                    prate[f] = r
                    changed_flows += 1
                nd = _dirty(unit[f], umark, dlist, nd)
            nfresh = 0
            # the units whose rate changed: attained service to t, rate, next crossing
            crossed = False
            for i in range(nd):
                u = dlist[i]
                umark[u] = False
                att[u] += urate[u] * (t - ta[u])
                ta[u] = t
                a = 0.0
                for j in range(unit_ptr[u], unit_ptr[u + 1]):
                    f = unit_flows[j]
                    if not done[f]:
                        a += prate[f]
                urate[u] = a
                if unit_left[u] == 0:
                    # the policy's _before still levels a finished unit by its service
                    lvl = 0
                    while lvl < nH and hs[lvl] <= att[u]:
                        lvl += 1
                    if lvl > level[u]:
                        level[u] = lvl
                tc = np.inf
                te = np.inf
                if a > 0.0 and level[u] < nH:
                    tc = t + (H[level[u]] - att[u]) / a
                    te = t + (hs[level[u]] - att[u]) / a
                    if tc <= t:
                        crossed = True
                utc[u] = tc
                ute[u] = te
                if te < utree[NU2 + u]:
                    _st_set(utree, NU2, u, te)
            nd = 0
            if not crossed:
                break
            nu = _u_cands(utree, NU2, t, ute, cand, stack)
            for i in range(nu):
                u = cand[i]
                if not utc[u] <= t:
                    continue
                demotions += 1
                utc[u] = np.inf
                ute[u] = np.inf
                _st_set(utree, NU2, u, np.inf)
                lo = level[u]
                level[u] = lo + 1
                for j in range(unit_ptr[u], unit_ptr[u + 1]):
                    f = unit_flows[j]
                    if not done[f]:
                        _leave(f, t, P,
                               head, nxt, prv, cls, rem, size, completion_rtol, crate, ts,
                               ccount, lst, nls, pos, ctree, NC2)
                        _join(f, level[u] * P + pid[f], t, P,
                              head, nxt, prv, cls, rem, size, completion_rtol, crate, ts,
                              ccount, lst, nls, pos, ctree, NC2)
                        if not fmark[f]:
                            fmark[f] = True
                            fresh[nfresh] = f
                            nfresh += 1
        # ------------------------------------------------------------ the next event
        t_next = ctree[0, 1]
        if next_rel < K and rel_t[rel_order[next_rel]] < t_next:
            t_next = rel_t[rel_order[next_rel]]
        if utree[1] <= t_next:
            # a unit's crossing comes after its te: only those with te by t_next can be first
            nu = _u_cands(utree, NU2, t_next, ute, cand, stack)
            for i in range(nu):
                if utc[cand[i]] < t_next:
                    t_next = utc[cand[i]]
        if not np.isfinite(t_next) or t_next <= t:
            status = 2
            break
        t = t_next
        # completions: the classes whose first flow ends by t (a little slack for the
        # completion tolerance)
        ncl = _st_le(ctree[1], NC2, t, cand, stack)
        for i in range(ncl):
            c = cand[i]
            r = crate[c]
            t0 = ts[c]
            f = head[c]
            while f >= 0:
                g = nxt[f]
                fin = t0 + rem[f] / r
                if fin <= t or rem[f] - r * (t - t0) <= completion_rtol * size[f]:
                    npieces = _piece(f, pstart[f], t, r, pf, ps, pe, pv, npieces)
                    fend[f] = t
                    _leave(f, t, P,
                           head, nxt, prv, cls, rem, size, completion_rtol, crate, ts,
                           ccount, lst, nls, pos, ctree, NC2)
                    rem[f] = 0.0
                    done[f] = True
                    prate[f] = 0.0
                    u = unit[f]
                    unit_left[u] -= 1
                    nd = _dirty(u, umark, dlist, nd)
                    cc = flow_cof[f]
                    unfinished[cc] -= 1
                    if unfinished[cc] == 0:
                        nfin += 1
                f = g
            _cset(c, head, nxt, rem, size, completion_rtol, crate, ts, ctree, NC2)
        if nfin == K:
            continue      # the last event: the policy is not called again
        # threshold crossings
        nu = _u_cands(utree, NU2, t, ute, cand, stack)
        for i in range(nu):
            u = cand[i]
            att[u] += urate[u] * (t - ta[u])
            ta[u] = t
            lvl = 0
            while lvl < nH and hs[lvl] <= att[u]:
                lvl += 1
            if lvl <= level[u]:
                if not (utc[u] <= t and unit_left[u] > 0):
                    continue       # not yet within the crossing tolerance
                lvl = level[u] + 1
            utc[u] = np.inf
            ute[u] = np.inf
            _st_set(utree, NU2, u, np.inf)
            if lvl < level[u]:
                lvl = level[u]
            if lvl > nH:
                lvl = nH
            level[u] = lvl
            demotions += 1
            nd = _dirty(u, umark, dlist, nd)
            for j in range(unit_ptr[u], unit_ptr[u + 1]):
                f = unit_flows[j]
                if not done[f]:
                    _leave(f, t, P,
                           head, nxt, prv, cls, rem, size, completion_rtol, crate, ts,
                           ccount, lst, nls, pos, ctree, NC2)
                    _join(f, lvl * P + pid[f], t, P,
                          head, nxt, prv, cls, rem, size, completion_rtol, crate, ts,
                          ccount, lst, nls, pos, ctree, NC2)
                    if not fmark[f]:
                        fmark[f] = True
                        fresh[nfresh] = f
                        nfresh += 1
    stats[0] = status
    stats[1] = events
    stats[2] = npieces
    stats[3] = changed_classes
    stats[4] = changed_flows
    stats[5] = class_fills
    stats[6] = demotions
    return t


def run(inst, max_pieces=0, thresholds=None, max_events=10**9, by_path=False):
    """``lazy_simulate`` on ``inst`` with ``decentralized-las``' defaults: ``(pieces (f, s, e,
    v) up to max_pieces, each flow's end, stats)``."""
    from coflowopt.policies import mlfq as M
    from coflowopt.simulate import COMPLETION_RTOL

    pol = M.DecentralizedLasPolicy(thresholds, 8, 10.0, 10.0, "fair", None, 1e-12)
    pol.reset(inst)
    a = M._level_kernel_args(inst, pol)
    (ptr, size, flow_cof, rel_order, unit, unit_ptr, unit_flows, unit_cof, cu_ptr, hs, H,
     fr_ptr, fr, pid, q_ptr, q_res, cap, tol, full_rtol, hold, flow_tol) = a[:21]
    P = q_ptr.shape[0] - 1
    ptol = np.full(P, np.inf)
    np.minimum.at(ptol, pid, flow_tol)
    nH = H.shape[0]
    NC2 = _pow2((nH + 1) * P)
    NU2 = _pow2(unit_ptr.shape[0] - 1)
    pf = np.zeros(max_pieces, dtype=np.int64)
    ps, pe, pv = np.zeros(max_pieces), np.zeros(max_pieces), np.zeros(max_pieces)
    fend = np.full(inst.num_flows, np.nan)
    level = np.zeros(unit_ptr.shape[0] - 1, dtype=np.int64)
    stats = np.zeros(8, dtype=np.int64)
    F = inst.num_flows
    if by_path:
        # flows renumbered by path (a class's flows near each other in memory)
        perm = np.lexsort((np.arange(F), pid))
        newid = np.empty(F, dtype=np.int64)
        newid[perm] = np.arange(F)
        size, pid, flow_cof, unit = size[perm], pid[perm], flow_cof[perm], unit[perm]
        unit_flows = newid[unit_flows]
        cof_flows = newid
    else:
        perm = cof_flows = np.arange(F)
    lazy_simulate(ptr, cof_flows, size, flow_cof, rel_order, unit, unit_ptr, unit_flows, unit_cof,
                  cu_ptr, hs, H, pid, q_ptr, q_res, cap, tol, full_rtol, hold, ptol,
                  np.asarray(inst.release, dtype=float), COMPLETION_RTOL, max_events, pf, ps, pe,
                  pv, fend, level, stats, NC2, NU2)
    n = min(int(stats[2]), max_pieces)
    if by_path:
        fend = fend[newid]
    return (perm[pf[:n]], ps[:n], pe[:n], pv[:n]), fend, stats, level
