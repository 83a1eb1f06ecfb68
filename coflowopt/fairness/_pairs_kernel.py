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


@njit(cache=True, borrowed=True)
def _put(out_f, out_s, out_e, out_r, m, f, start, end, rate):
    """The piece ``(f, start, end, rate)`` written at ``m`` of the piece buffers; returns
    ``m + 1``."""
    out_f[m] = f
    out_s[m] = start
    out_e[m] = end
    out_r[m] = rate
    return m + 1


# --- PS-P event by event, touching only the coflows whose rates can change ------------------
# (proofs/psp_incremental.md; the driver is coflowopt.fairness.simulation.psp_incremental)

@njit(cache=True, borrowed=True)
def _heap_up(heap, pos, key, j):
    x = heap[j]
    kx = key[x]
    while j > 0:
        par = (j - 1) >> 1
        y = heap[par]
        if key[y] <= kx:
            break
        heap[j] = y
        pos[y] = j
        j = par
    heap[j] = x
    pos[x] = j


@njit(cache=True, borrowed=True)
def _heap_down(heap, pos, key, j, n):
    x = heap[j]
    kx = key[x]
    while True:
        c = 2 * j + 1
        if c >= n:
            break
        if c + 1 < n and key[heap[c + 1]] < key[heap[c]]:
            c += 1
        y = heap[c]
        if key[y] >= kx:
            break
        heap[j] = y
        pos[y] = j
        j = c
    heap[j] = x
    pos[x] = j


@njit(cache=True, borrowed=True)
def _heap_set(heap, pos, key, n, x, k):
    """Give ``x`` the key ``k`` in the indexed min-heap of ``n`` items; returns the new size."""
    if pos[x] < 0:
        key[x] = k
        heap[n] = x
        pos[x] = n
        _heap_up(heap, pos, key, n)
        return n + 1
    old = key[x]
    key[x] = k
    if k < old:
        _heap_up(heap, pos, key, pos[x])
    elif k > old:
        _heap_down(heap, pos, key, pos[x], n)
    return n


@njit(cache=True, borrowed=True)
def _heap_del(heap, pos, key, n, x):
    """Remove ``x`` from the indexed min-heap of ``n`` items; returns the new size."""
    j = pos[x]
    pos[x] = -1
    n -= 1
    if j == n:
        return n
    y = heap[n]
    heap[j] = y
    pos[y] = j
    _heap_up(heap, pos, key, j)
    _heap_down(heap, pos, key, pos[y], n)
    return n


@njit(cache=True, nogil=True)
def psp_run(t, resume, pair_ptr, pair_res, pair_coflow, entry_ptr, entry_pair, entry_flow,
            pent_ptr, pent, rpair_ptr, rpair, flow_ptr, flow_coflow, size, cap, rel_order,
            rel_times, st, rem0, t0, rate, pstart, done, fc, s, pcount, n_res, cstate, cunf, cc,
            nonuni, stamp, fheap, fpos, fkey, cheap, cpos, ckey, nu, todo, dlist, dirty, load,
            newr, fdone, out_f, out_s, out_e, out_r, window, rtol):
    """PS-P's event loop from time ``t`` until ``window`` pieces are closed or every coflow
    has finished; resumable (all its state is in the arrays).

    At each event (a release or a coflow completion, as the generic simulator's PS-P) only the
    coflows that can change rate are recomputed (``proofs/psp_incremental.md``): those with a
    pair on a resource whose count of coflows with bytes left (``n_res``) changed since the
    last event, and the *non-uniform* ones (a pair with two unfinished flows not both held by
    that pair), which drift with the bytes left and are recomputed at every event.  A flow's
    rate is ``min over its pairs p of (C_p / n_p) s_f^p`` with ``s_f^p = rem_f / L_k^p``
    taken when its coflow was last recomputed from its bytes left (at its release and at every
    event while it is non-uniform; on a uniform coflow ``s`` does not move, Lemma 1).  The
    bytes left are kept as ``rem0`` at ``t0`` (``rem = rem0 - rate (t - t0)``); a flow is
    done when ``rem <= rtol * size`` (the generic simulator's rule), i.e. at its key
    ``t0 + (rem0 - rtol size) / rate``, and ends at ``min(t0 + rem0 / rate, t)``.  The flows
    of uniform coflows wait in an indexed heap by key; those of non-uniform coflows, visited
    at every event anyway, are not in it.  A coflow completes at the latest end of its flows,
    its key in the coflow heap.

    Parameters: the instance's pairs as :class:`~.simulation._CoflowPairs` numbers them
    (``entry_*`` flow-major, ``pent`` the entries by pair, ``rpair`` the pairs by resource),
    the state, two indexed heaps, scratch (``newr`` one entry per flow of the largest
    coflow), the piece buffers (room for ``window`` plus the flows) and ``st = [next
    release, coflows finished, flow heap size, coflow heap size, pieces in the buffer,
    non-uniform coflows, events, coflows recomputed, of which non-uniform]`` (the last two
    summed over the events).  ``resume`` false: ``t`` is the first event, else the loop first
    steps to the event after ``t``.

    Returns
    -------
    t, status : float, int
        The time of the last event handled; 0 every coflow finished, 1 the buffer holds
        ``window`` pieces or more, -1 no event is left while coflows are unfinished.
    """
    K = cstate.shape[0]
    next_rel = st[0]
    nfin = st[1]
    fn = st[2]
    cn = st[3]
    m = st[4]
    nu_n = st[5]
    ev = st[6]
    status = 0
    while True:
        if resume:
            tn = np.inf
            if next_rel < K:
                tn = rel_times[next_rel]
            if cn > 0 and ckey[cheap[0]] < tn:
                tn = ckey[cheap[0]]
            if not tn < np.inf:
                status = -1
                break
            t = tn
        resume = True
        ev += 1
        # flows done by t: from the heap, and among the non-uniform coflows' flows
        nf = 0
        while fn > 0 and fkey[fheap[0]] <= t:
            f = fheap[0]
            fn = _heap_del(fheap, fpos, fkey, fn, f)
            fdone[nf] = f
            nf += 1
        for i in range(nu_n):
            k = nu[i]
            for f in range(flow_ptr[k], flow_ptr[k + 1]):
                if not done[f] and fkey[f] <= t:
                    fdone[nf] = f
                    nf += 1
        nd = 0
        for i in range(nf):
            f = fdone[i]
            end = t0[f] + rem0[f] / rate[f]
            if end > t:
                end = t
            m = _put(out_f, out_s, out_e, out_r, m, f, pstart[f], end, rate[f])
            done[f] = True
            fc[f] = end
            # a pair left with no flow takes its coflow off the resource's count
            for q in range(entry_ptr[f], entry_ptr[f + 1]):
                p = entry_pair[q]
                pcount[p] -= 1
                if pcount[p] == 0:
                    r = pair_res[p]
                    n_res[r] -= 1
                    if not dirty[r]:
                        dirty[r] = True
                        dlist[nd] = r
                        nd += 1
            k = flow_coflow[f]
            cunf[k] -= 1
            if cunf[k] == 0:
                cstate[k] = 2
                nfin += 1
                top = -np.inf
                for g in range(flow_ptr[k], flow_ptr[k + 1]):
                    if fc[g] > top:
                        top = fc[g]
                cc[k] = top
                if cpos[k] >= 0:
                    cn = _heap_del(cheap, cpos, ckey, cn, k)
        # releases at t
        while next_rel < K and rel_times[next_rel] <= t:
            k = rel_order[next_rel]
            next_rel += 1
            cstate[k] = 1
            cunf[k] = flow_ptr[k + 1] - flow_ptr[k]
            nonuni[k] = True          # computed from its bytes left at its first event
            for f in range(flow_ptr[k], flow_ptr[k + 1]):
                rem0[f] = size[f]
                t0[f] = t
                rate[f] = 0.0
            for p in range(pair_ptr[k], pair_ptr[k + 1]):
                pcount[p] = pent_ptr[p + 1] - pent_ptr[p]
                r = pair_res[p]
                n_res[r] += 1
                if not dirty[r]:
                    dirty[r] = True
                    dlist[nd] = r
                    nd += 1
            if cunf[k] == 0:
                cstate[k] = 2
                nfin += 1
                cc[k] = t
        if nfin == K:
            status = 0
            break
        # the coflows that can change: the non-uniform ones, and those on a changed resource
        nt = 0
        for i in range(nu_n):
            k = nu[i]
            if cstate[k] == 1 and stamp[k] != ev:
                stamp[k] = ev
                todo[nt] = k
                nt += 1
        for i in range(nd):
            r = dlist[i]
            dirty[r] = False
            for j in range(rpair_ptr[r], rpair_ptr[r + 1]):
                p = rpair[j]
                if pcount[p] > 0:
                    k = pair_coflow[p]
                    if cstate[k] == 1 and stamp[k] != ev:
                        stamp[k] = ev
                        todo[nt] = k
                        nt += 1
        st[7] += nt
        nu_n = 0
        for i in range(nt):
            k = todo[i]
            f0 = flow_ptr[k]
            f1 = flow_ptr[k + 1]
            fresh = nonuni[k]
            if fresh:
                # s from the bytes left now
                for f in range(f0, f1):
                    if not done[f]:
                        rem0[f] = rem0[f] - rate[f] * (t - t0[f])
                        t0[f] = t
                for p in range(pair_ptr[k], pair_ptr[k + 1]):
                    tot = 0.0
                    for j in range(pent_ptr[p], pent_ptr[p + 1]):
                        g = entry_flow[pent[j]]
                        if not done[g]:
                            tot += rem0[g]
                    load[p] = tot
                for f in range(f0, f1):
                    if not done[f]:
                        for q in range(entry_ptr[f], entry_ptr[f + 1]):
                            s[q] = rem0[f] / load[entry_pair[q]]
            for f in range(f0, f1):
                if not done[f]:
                    best = np.inf
                    for q in range(entry_ptr[f], entry_ptr[f + 1]):
                        r = pair_res[entry_pair[q]]
                        v = cap[r] / n_res[r] * s[q]
                        if v < best:
                            best = v
                    newr[f - f0] = best
            # uniform: on every pair with two unfinished flows or more, each of them is held
            # by that pair (its share there is its rate)
            uniform = True
            for p in range(pair_ptr[k], pair_ptr[k + 1]):
                if pcount[p] >= 2:
                    r = pair_res[p]
                    c = cap[r] / n_res[r]
                    for j in range(pent_ptr[p], pent_ptr[p + 1]):
                        q = pent[j]
                        g = entry_flow[q]
                        if not done[g] and c * s[q] != newr[g - f0]:
                            uniform = False
                            break
                if not uniform:
                    break
            nonuni[k] = not uniform
            if not uniform:
                nu[nu_n] = k
                nu_n += 1
                st[8] += 1
            top = -np.inf
            for f in range(f0, f1):
                if done[f]:
                    continue
                r_new = newr[f - f0]
                changed = r_new != rate[f]
                if changed:
                    if rate[f] > 0:
                        m = _put(out_f, out_s, out_e, out_r, m, f, pstart[f], t, rate[f])
                        if not fresh:
                            rem0[f] = rem0[f] - rate[f] * (t - t0[f])
                            t0[f] = t
                    rate[f] = r_new
                    pstart[f] = t
                if changed or fresh:
                    key = t0[f] + (rem0[f] - rtol * size[f]) / rate[f]
                    if uniform:
                        fn = _heap_set(fheap, fpos, fkey, fn, f, key)
                    else:
                        fkey[f] = key
                if not uniform and fpos[f] >= 0:
                    fn = _heap_del(fheap, fpos, fkey, fn, f)
                end = t0[f] + rem0[f] / rate[f]
                if end > top:
                    top = end
            cn = _heap_set(cheap, cpos, ckey, cn, k, top)
        if m >= window:
            status = 1
            break
    st[0] = next_rel
    st[1] = nfin
    st[2] = fn
    st[3] = cn
    st[4] = m
    st[5] = nu_n
    st[6] = ev
    return t, status


# --- cooperative HUG event by event, the generic event loop's steps in one compiled loop -----
# (the driver is coflowopt.fairness.simulation.hug_run_loop; this loop and psp_run release the
# interpreter's lock, nogil, so that the driver's sink settles and verifies the previous window
# on a second thread meanwhile: simulation._WindowThread)

@njit(cache=True, nogil=True)
def hug_run(t, resume, pair_ptr, pair_res, entry_ptr, entry_pair, flow_ptr, flow_coflow, size,
            cap, weight, weighted, rel_order, rel_times, st, clock, rem, done, released,
            finished, unf, cc, fc, pstart, rate, actc, ploads, pd, palloc, on_link, link_sum,
            used, share, spare_on, out_f, out_s, out_e, out_r, window, sink, max_events,
            rtol_fair, rtol_done):
    """:func:`coflowopt.simulate.simulate` with ``FairnessPolicy("hug-cooperative")`` (pairs),
    the same operations on the same values, so the same pieces bit for bit in the same order,
    in three passes over the active flows per event instead of about ten.

    The generic loop's steps and where they are here, at each event ``t`` (the previous one
    ``tp``):

    * the clock from ``tp`` to ``t`` (:func:`.._simulate_kernel.advance`: ``rem -= rate *
      (min(fin, t) - tp)`` with ``fin = tp + rem / rate``; done when ``fin <= t`` or ``rem <=
      rtol_done * size``, its piece ending at ``min(fin, t)``), then the releases at ``t``, then
      the allocation: pass 1 walks the active coflows (ascending) and their unfinished flows
      (ascending), advances each flow that has a rate, closes the finished ones and adds the
      others' bytes left to their pairs' loads (the order :func:`pair_rates` adds them in:
      flow by flow, ascending), then the coflow's pairs (``d``, the links' counts and sums, as
      :func:`pair_rates`).  A coflow whose flows have all finished leaves the active list
      there.  The pieces come out in the same order as the generic loop's (the clock's
      completions, flow by flow, before the event's rate changes);
    * ``P*``, the allocation of every pair and the links' spare shares (passes over the pairs
      and the links, :func:`pair_rates`' operations);
    * pass 2: each unfinished flow's rate (``min`` over its pairs of ``alloc * C * rem / load``,
      :func:`pair_rates`' expression), compared with its current rate ``rate[f]`` (0: none,
      :func:`.._simulate_kernel.rate_changes`' test), the piece of a changed rate closed at
      ``t``, and the next event's candidates (``fin``, the earliest flow end and the earliest
      coflow end, :func:`.._simulate_kernel.next_coflow_completion`).

    The generic loop calls the policy at every event: the next event is a release, or the
    earliest end of a coflow all of whose unfinished flows run (each of them has ``fin`` at most
    that end, so all finish and the coflow completes), or, when no coflow can complete, the
    earliest flow end with a forced call.  So the allocation is computed at every event here;
    an event that would not call (which cannot happen) stops the loop with status -4 rather
    than recompute.  Resumable:
    every state is in the arrays; ``st = [next release, coflows finished, active coflows,
    forced call, pieces in the buffer, events, policy calls, (unused), phase]``, phase 1
    meaning the loop stopped after the window check of its event; ``clock = [earliest coflow
    end, earliest flow end, tp]``.

    Returns
    -------
    t, status : float, int
        0 every coflow finished; 1 the buffer holds ``window`` pieces or more (in sink mode the
        pieces still open were cut at ``t``, as the generic loop's window); -1 no future event
        while coflows are unfinished; -2 more than ``max_events`` events; -3 the allocation
        met a case the kernel leaves to the reference (``pair_rates`` would return -1 or NaN);
        -4 an event without a policy call.
    """
    K = flow_ptr.shape[0] - 1
    R = cap.shape[0]
    next_rel = st[0]
    nfin = st[1]
    na = st[2]
    forced = st[3] != 0
    m = st[4]
    events = st[5]
    calls = st[6]
    skip = resume and st[8] == 1
    t_cof = clock[0]
    t_flow = clock[1]
    tp = clock[2] if resume else t
    status = 0
    while True:
        if not skip:
            call = forced
            forced = False
            # releases at t (merged into the sorted active coflows)
            r0 = next_rel
            while next_rel < K and rel_times[next_rel] <= t:
                released[rel_order[next_rel]] = True
                next_rel += 1
            if next_rel > r0:
                call = True
                new = np.sort(rel_order[r0:next_rel])
                merged = np.empty(na + new.shape[0], dtype=np.int64)
                i = 0
                j = 0
                x = 0
                while i < na or j < new.shape[0]:
                    if j >= new.shape[0] or (i < na and actc[i] < new[j]):
                        merged[x] = actc[i]
                        i += 1
                    else:
                        merged[x] = new[j]
                        j += 1
                    x += 1
                actc[:x] = merged
                na = x
            # pass 1: the clock from tp to t, the loads, each coflow's pairs
            for r in range(R):
                on_link[r] = 0
                link_sum[r] = 0.0
                used[r] = 0.0
            plain = not weighted
            anyw = False
            bad = False
            x = 0
            for a in range(na):
                k = actc[a]
                for p in range(pair_ptr[k], pair_ptr[k + 1]):
                    ploads[p] = 0.0
                for f in range(flow_ptr[k], flow_ptr[k + 1]):
                    if done[f]:
                        continue
                    v = rate[f]
                    if v > 0:
                        fin = tp + rem[f] / v
                        e = fin if fin < t else t
                        rem[f] = rem[f] - v * (e - tp)
                        if fin <= t or rem[f] <= rtol_done * size[f]:
                            end = fin if fin <= t else t
                            m = _put(out_f, out_s, out_e, out_r, m, f, pstart[f], end, v)
                            rem[f] = 0.0
                            done[f] = True
                            fc[f] = end
                            rate[f] = 0.0
                            unf[k] -= 1
                            continue
                    rf = rem[f]
                    for q in range(entry_ptr[f], entry_ptr[f + 1]):
                        ploads[entry_pair[q]] += rf
                if unf[k] == 0:
                    top = fc[flow_ptr[k]]
                    for g in range(flow_ptr[k] + 1, flow_ptr[k + 1]):
                        if fc[g] > top:
                            top = fc[g]
                    cc[k] = top
                    finished[k] = True
                    nfin += 1
                    call = True
                    continue
                actc[x] = k
                x += 1
                if weight[k] > 0:
                    anyw = True
                top = -np.inf
                for p in range(pair_ptr[k], pair_ptr[k + 1]):
                    pd[p] = ploads[p] / cap[pair_res[p]]
                    if pd[p] > top:
                        top = pd[p]
                if not top > 0:
                    bad = True      # no bytes left: stops at status -3 below
                    continue
                for p in range(pair_ptr[k], pair_ptr[k + 1]):
                    pd[p] = pd[p] / top
                    r = pair_res[p]
                    if pd[p] > 0:
                        on_link[r] += 1
                    if plain:
                        link_sum[r] += pd[p]
            na = x
            if nfin == K:
                status = 0
                break
            events += 1
            if events > max_events:
                status = -2
                break
            if not call:
                status = -4
                break
            if bad:
                status = -3
                break
            calls += 1
            wtd = weighted and anyw
            if weighted:
                # the links' sums once the weights' use is known (same order as above)
                for a in range(na):
                    k = actc[a]
                    for p in range(pair_ptr[k], pair_ptr[k + 1]):
                        link_sum[pair_res[p]] += pd[p] * weight[k] if wtd else pd[p]
            top_sum = -np.inf
            for r in range(R):
                if link_sum[r] > top_sum:
                    top_sum = link_sum[r]
            if na > 0 and not top_sum > 0:
                status = -3
                break
            pstar = 1 / top_sum if na > 0 else 0.0     # no active coflow: nothing to allocate
            for a in range(na):
                k = actc[a]
                for p in range(pair_ptr[k], pair_ptr[k + 1]):
                    palloc[p] = pstar * (pd[p] * weight[k] if wtd else pd[p])
                    used[pair_res[p]] += palloc[p]
            for r in range(R):
                spare = 1 - used[r]
                spare_on[r] = spare > rtol_fair and on_link[r] > 0
                share[r] = spare / max(on_link[r], 1)
            # pass 2: the rates, the changed ones' pieces, the next event's candidates
            t_flow = np.inf
            t_cof = np.inf
            for a in range(na):
                k = actc[a]
                last = -np.inf
                n_on = 0
                for f in range(flow_ptr[k], flow_ptr[k + 1]):
                    if done[f]:
                        continue
                    rf = rem[f]
                    best = np.inf
                    for q in range(entry_ptr[f], entry_ptr[f + 1]):
                        p = entry_pair[q]
                        load = ploads[p]
                        rj = pair_res[p]
                        aj = palloc[p] + share[rj] if pd[p] > 0 and spare_on[rj] else palloc[p]
                        v = aj * cap[rj] * rf / load if load > 0 else 0.0
                        if v < best:
                            best = v
                    v = best if np.isfinite(best) and best > 0 else 0.0
                    old = rate[f]
                    if not (old > 0 and old == v):
                        if old > 0:
                            m = _put(out_f, out_s, out_e, out_r, m, f, pstart[f], t, old)
                        if v > 0:
                            pstart[f] = t
                        rate[f] = v
                    if v > 0:
                        fin = t + rf / v
                        if fin < t_flow:
                            t_flow = fin
                        if n_on == 0 or fin > last:
                            last = fin
                        n_on += 1
                if n_on == unf[k] and last < t_cof:
                    t_cof = last
            if sink and m >= window:
                for a in range(na):
                    k = actc[a]
                    for f in range(flow_ptr[k], flow_ptr[k + 1]):
                        if not done[f] and rate[f] > 0 and pstart[f] < t:
                            m = _put(out_f, out_s, out_e, out_r, m, f, pstart[f], t, rate[f])
                            pstart[f] = t
            if m >= window:
                st[8] = 1
                status = 1
                break
        skip = False
        st[8] = 0
        # the next event
        t_rel = rel_times[next_rel] if next_rel < K else np.inf
        t_next = min(t_cof, t_rel)
        if not t_next < np.inf and t_flow < np.inf:
            t_next = t_flow
            forced = True
        if not t_next < np.inf:
            status = -1
            break
        tp = t
        t = t_next
    st[0] = next_rel
    st[1] = nfin
    st[2] = na
    st[3] = 1 if forced else 0
    st[4] = m
    st[5] = events
    st[6] = calls
    clock[0] = t_cof
    clock[1] = t_flow
    clock[2] = tp
    return t, status
