"""Compiled event loops for the flow-level policies (per-flow fairness, WSS, per-flow priority).

Why kernels: these policies reallocate at every flow arrival and completion, and the Facebook
trace has 706,397 flows, so the generic simulator (numpy bookkeeping over the running flows at
every event) would do ~10^11 operations.

Weighted max-min (``fair``, ``wss``): pairs with multiplicities
----------------------------------------------------------------
Max-min fairness treats flows with the same (ingress, egress) pair alike, so a pair ``e`` with
active flows of total weight ``W_e`` is one item of weight ``W_e`` in the progressive filling,
and each of its flows gets ``w_f * lam_e``.  Within a pair every flow advances by ``lam_e`` per
time unit in *normalised* size (``remaining / w_f``), so with the pair's clock
``V_e = integral of lam_e`` a flow released when the clock read ``V_e(a_f)`` finishes when
``V_e`` reaches ``thr_f = V_e(a_f) + size_f / w_f``: a pair keeps its flows sorted by ``thr``
(for per-flow fairness: by remaining size), and its next completion is
``(thr_min - V_e) / lam_e`` away.  Each pair holds one completion time; an event scans them
(cheaper than 1.1e8 indexed-heap updates on the Facebook trace).

At an event the filling computes the level at which every port fills; a pair's level is the
smaller of its two ports' levels, so only pairs at ports whose level moved (and pairs that
gained or lost flows) are compared with their old level, and only those that changed close
their flows' pieces and get a new completion time.  Cost per event: O(active pairs + ports^2)
for the filling plus O(pairs) for the completion times and O(1) per changed pair; a flow
costs its arrival, its completion and one piece per change of its pair's level.  Pieces go to
chunks (:class:`PieceChunks`), so a schedule of 10^8 pieces is never copied while it grows.

Event batching: the flows of a pair that reach their threshold together complete in one event
(with a relative tolerance ``completion_rtol`` on the remaining size,
:data:`coflowopt.simulate.COMPLETION_RTOL`).  A recomputed level within ``snap_rtol`` (relative)
of the old one is the same level up to the rounding of a different summation order and is kept,
so unaffected pairs do not start new pieces.

Per-flow priority (``priority``): see :func:`priority_simulate`.
"""

from __future__ import annotations

import heapq

import numpy as np

from ..rates import _greedy_kernel as _gk  # its ``prefetch`` (llvm.prefetch once numba loads)
from ..rates._jit import njit
from ..rates._sorted import insert_at, remove_at, scan_back

from ..rates._pieces import CHUNK, PieceChunks, chunks_to_arrays, flush_to_sink  # noqa: F401
from ..rates._pieces import close_pieces as _close
from ..rates._pieces import put as _put
from ..rates._pieces import spill as _spill


#: The columns of the max-min kernels' slot rows (the flow index is held as a float64, exact
#: below 2**53).
_THR, _FLOW, _PS, _W = 0, 1, 2, 3
_SLOT_COLUMNS = 4
#: The columns of the max-min kernel's per-pair rows (floats, integers).
_CLK, _TCLK, _LAM, _HEAD = 0, 1, 2, 3
_LO, _HI, _IN, _OUT, _APOS = 0, 1, 2, 3, 4
#: How many changed pairs ahead the loop that closes their pieces prefetches their slot rows
#: (_AHEAD1) and their two per-pair rows (_AHEAD2).
_AHEAD1, _AHEAD2 = 8, 16


@njit(cache=True, borrowed=True)
def _hp_swap(hk, he, pos, a, b):
    hk[a], hk[b] = hk[b], hk[a]
    he[a], he[b] = he[b], he[a]
    pos[he[a]] = a
    pos[he[b]] = b


@njit(cache=True, borrowed=True)
def _hp_up(hk, he, pos, i):
    while i > 0:
        par = (i - 1) >> 1
        if hk[par] <= hk[i]:
            break
        _hp_swap(hk, he, pos, par, i)
        i = par


@njit(cache=True, borrowed=True)
def _hp_down(hk, he, pos, n, i):
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and hk[c + 1] < hk[c]:
            c += 1
        if hk[i] <= hk[c]:
            break
        _hp_swap(hk, he, pos, c, i)
        i = c


@njit(cache=True, borrowed=True)
def heap_set(hk, he, pos, size, e, key):
    """Indexed min-heap (one entry per item ``e``): insert ``e`` or change its key.
    ``size`` is a one-element array holding the heap size."""
    i = pos[e]
    if i < 0:
        i = size[0]
        size[0] += 1
        hk[i] = key
        he[i] = e
        pos[e] = i
        _hp_up(hk, he, pos, i)
    elif key < hk[i]:
        hk[i] = key
        _hp_up(hk, he, pos, i)
    else:
        hk[i] = key
        _hp_down(hk, he, pos, size[0], i)


@njit(cache=True, borrowed=True)
def heap_remove(hk, he, pos, size, e):
    """Remove item ``e`` from the indexed heap (no-op if absent)."""
    i = pos[e]
    if i < 0:
        return
    pos[e] = -1
    last = size[0] - 1
    size[0] = last
    if i == last:
        return
    hk[i] = hk[last]
    he[i] = he[last]
    pos[he[i]] = i
    if i > 0 and hk[i] < hk[(i - 1) >> 1]:
        _hp_up(hk, he, pos, i)
    else:
        _hp_down(hk, he, pos, last, i)


@njit(cache=True, borrowed=True)
def _min_key(key, n):
    """The smallest of ``key[:n]`` (inf when ``n == 0``)."""
    m = np.inf
    for a in range(n):
        m = min(m, key[a])
    return m


@njit(cache=True, borrowed=True)
def _due_pairs(key, item, n, t, out, out_key):
    """Write the items ``item[a]`` with ``key[a] <= t``, ``a < n``, to ``out`` in order of
    (key, item) and return their number: the order in which a min-heap pops them, up to exactly
    equal keys (there a heap's order is its layout's).  Usually a handful: an insertion sort."""
    cnt = 0
    for a in range(n):
        k = key[a]
        if k <= t:
            e = item[a]
            i = cnt
            while i > 0 and (out_key[i - 1] > k or (out_key[i - 1] == k and out[i - 1] > e)):
                out[i] = out[i - 1]
                out_key[i] = out_key[i - 1]
                i -= 1
            out[i] = e
            out_key[i] = k
            cnt += 1
    return cnt


# ------------------------------------------------------------------------------------------
# helpers shared by the event loops below (the big-switch kernels and their ``_paths`` twins
# call the same code, so the two cannot drift apart; LLVM inlines them)


@njit(cache=True)
def _coflow_index(flow_ptr, K, F):
    """``unfinished[k]``: the number of flows of coflow ``k``; ``coflow_of[f]``: the coflow of
    flow ``f``."""
    unfinished = np.zeros(K, dtype=np.int64)
    coflow_of = np.zeros(F, dtype=np.int64)
    for k in range(K):
        unfinished[k] = flow_ptr[k + 1] - flow_ptr[k]
        for f in range(flow_ptr[k], flow_ptr[k + 1]):
            coflow_of[f] = k
    return unfinished, coflow_of


@njit(cache=True)
def _filling_arrays(P):
    """The progressive filling's per-port arrays: ``plen`` (active pairs in the port's list),
    ``WT`` (their total weight), and the scratch of a filling: ``wsum``, ``frozen``, ``left``
    (unfrozen pairs), ``live_ports``, ``ell`` (the port's fill level at this event) and
    ``ell_old`` (at the previous filling)."""
    return (np.zeros(P, dtype=np.int64), np.zeros(P), np.zeros(P), np.zeros(P),
            np.zeros(P, dtype=np.int64), np.zeros(P, dtype=np.int64), np.full(P, np.inf),
            np.full(P, np.inf))


@njit(cache=True)
def _event_arrays(K, F, E):
    """The max-min event loop's arrays: flow and coflow completion times (NaN: not yet), the
    active list ``alist`` with completion times ``akey`` (inf: none), the due pairs and
    their times, the touched pairs, the changed pairs with their new levels, and ``warmed``
    (keeps the loads of the warming pass from being dropped)."""
    return (np.full(F, np.nan), np.full(K, np.nan), np.full(max(1, E), np.inf),
            np.zeros(max(1, E), dtype=np.int64), np.zeros(max(1, E), dtype=np.int64),
            np.zeros(max(1, E)), np.zeros(E, dtype=np.int64), np.zeros(E, dtype=np.int64),
            np.zeros(E), np.zeros(1))


@njit(cache=True)
def _list_ptr(ports_a, ports_b, P):
    """The CSR offsets of per-port lists with one entry per element of ``ports_a`` and of
    ``ports_b`` (the ports of the pairs' entries)."""
    deg = np.zeros(P + 1, dtype=np.int64)
    for x in range(ports_a.shape[0]):
        deg[ports_a[x] + 1] += 1
    for x in range(ports_b.shape[0]):
        deg[ports_b[x] + 1] += 1
    for p in range(P):
        deg[p + 1] += deg[p]
    return deg


@njit(cache=True, borrowed=True)
def _finish_flow(f, t, fc, coflow_of, unfinished, cc):
    """Flow ``f`` completes at ``t``; returns 1 when that completes its coflow, else 0."""
    fc[f] = t
    k = coflow_of[f]
    unfinished[k] -= 1
    if unfinished[k] == 0:
        cc[k] = t
        return 1
    return 0


@njit(cache=True, borrowed=True)
def _close_slots(slot, s, hi, t, r, store, cf, cs, ce, cv, nc):
    """Close at ``t`` the open pieces of the slots ``[s, hi)`` (flow ``slot[s, _FLOW]``, rate
    ``slot[s, _W] * r``) and reopen them at ``t``.  Stops at the first piece that finds the
    write buffers full (the caller spills them and calls again from there).  Returns (the
    slot reached, the write position, the number of pieces closed)."""
    n = 0
    while s < hi:
        if t > slot[s, _PS]:
            if store:
                if nc == cf.shape[0]:
                    return s, nc, n
                nc = _put(cf, cs, ce, cv, nc, int(slot[s, _FLOW]), slot[s, _PS], t,
                          slot[s, _W] * r)
            n += 1
        slot[s, _PS] = t
        s += 1
    return s, nc, n


@njit(cache=True, borrowed=True)
def _complete_heads(slot, s, hi, clk, r, t, weight, size, completion_rtol, store, cf, cs, ce,
                    cv, nc, fc, coflow_of, unfinished, cc):
    """The head flows of a pair (its sorted slots ``[s, hi)``, clock ``clk``, level ``r``)
    that finish at ``t``: reached their threshold, within the completion tolerance of it, or
    too close to move ``t`` in float64.  Each closes its piece and completes.  Stops at a piece
    that finds the write buffers full (the caller spills and calls again).  Returns (the first
    unfinished slot, the write position, pieces closed, coflows completed)."""
    n = 0
    done = 0
    while s < hi:
        f = int(slot[s, _FLOW])
        x = slot[s, _THR]
        if not (x <= clk or (x - clk) * weight[f] <= completion_rtol * size[f]
                or t + (x - clk) / r <= t):
            break
        if t > slot[s, _PS]:
            if store:
                if nc == cf.shape[0]:
                    break
                nc = _put(cf, cs, ce, cv, nc, f, slot[s, _PS], t, slot[s, _W] * r)
            n += 1
        done += _finish_flow(f, t, fc, coflow_of, unfinished, cc)
        s += 1
    return s, nc, n, done


@njit(cache=True)
def _insert_flow(thr, flow, ps, w, lo, hi, x, f, t, wf):
    """Insert flow ``f`` (threshold ``x``, piece start ``t``, weight ``wf``) into a pair's
    window ``[lo, hi)`` of slot columns sorted by (threshold, flow); returns its slot."""
    s = scan_back(thr, flow, lo, hi, x, f)
    insert_at(thr, s, hi, x)
    insert_at(flow, s, hi, f)
    insert_at(ps, s, hi, t)
    insert_at(w, s, hi, wf)
    return s


@njit(cache=True, borrowed=True)
def _fill_next(live_ports, live, left, cap, frozen, wsum):
    """One round of the progressive filling's scan: the live port that fills first and its
    level (``best`` -1: none left).  Ports with no unfrozen pair leave ``live_ports[:live]``
    (a port is live while it has unfrozen pairs: its weight sum may keep a rounding residue
    after the last one froze).  Returns (best, level, live)."""
    best = -1
    cur = np.inf
    u = 0
    while u < live:
        p = live_ports[u]
        if left[p] == 0:
            live -= 1
            live_ports[u] = live_ports[live]
            continue
        x = (cap[p] - frozen[p]) / wsum[p]
        if x < cur:
            cur = x
            best = u
        u += 1
    return best, cur, live


@njit(cache=True, borrowed=True)
def _fill_start(plen, WT, cap, wsum, frozen, left, live_ports, ell):
    """Start a progressive filling: every port's level unknown (inf), the ports with active
    pairs live with their total weight.  Returns the number of live ports."""
    live = 0
    for p in range(plen.shape[0]):
        ell[p] = np.inf
        if plen[p] > 0:
            wsum[p] = WT[p]
            frozen[p] = 0.0
            left[p] = plen[p]
            live_ports[live] = p
            live += 1
    return live


@njit(cache=True, borrowed=True)
def _touch(mark, touched, ntouch, e, events):
    """Pair ``e`` needs a new completion time at this event: add it to ``touched[:ntouch]``
    once (stamp ``mark``); returns the new count."""
    if mark[e] != events:
        mark[e] = events
        touched[ntouch] = e
        ntouch += 1
    return ntouch


@njit(cache=True, borrowed=True)
def _level_moved(a_, b_, snap_rtol):
    """A port's fill level moved from ``b_`` to ``a_`` (by more than ``snap_rtol``)."""
    return not (a_ == b_ or (a_ < np.inf and b_ < np.inf and abs(a_ - b_) <= snap_rtol * a_))


@njit(cache=True, borrowed=True)
def _leave_active(alist, akey, apos, nact, e):
    """Pair ``e`` leaves the active list ``alist[:nact]`` (its last pair takes the place);
    returns the new length."""
    ap = apos[e]
    nact -= 1
    z = alist[nact]
    alist[ap] = z
    akey[ap] = akey[nact]
    apos[z] = ap
    return nact


@njit(cache=True, borrowed=True)
def _join_active(alist, akey, apos, nact, e):
    """Pair ``e`` joins the active list, with no completion time yet; returns the new
    length."""
    apos[e] = nact
    alist[nact] = e
    akey[nact] = np.inf
    return nact + 1


@njit(cache=True)
def _cut_pairs(active, lam, lo, hi, slot, t, cf, cs, ce, cv, nc):
    """A sink mode's window cut at ``t``: every open piece of the active pairs with a positive
    level ``lam`` is closed at ``t`` and reopened there with the same rate (the rates as
    functions of time are unchanged), then the write buffers go to the sink as the window that
    ends at ``t``.  The buffers hold ``window + 2 F`` pieces (kernel docstring), so the cut
    never finds them full.  Returns the number of pieces cut."""
    n = 0
    for e in range(active.shape[0]):
        if active[e] and lam[e] > 0.0:
            s, nc, m = _close_slots(slot, lo[e], hi[e], t, lam[e], True, cf, cs, ce, cv, nc)
            if s < hi[e]:
                raise RuntimeError("the sink's write buffers are too small for a window cut")
            n += m
    flush_to_sink(cf, cs, ce, cv, nc, t)
    return n


@njit(cache=True, borrowed=True)
def _next_event(release, rel_order, rel_ptr, akey, nact, t):
    """The next event after ``t``: the next release or the smallest completion time of the
    active pairs (``akey[:nact]``), not before ``t`` (a completion time at ``t`` that did not
    complete, by rounding, is a head within float reach of done: it finishes at the next
    step).  Returns (that time, inf for none; the smallest completion time)."""
    kmin = _min_key(akey, nact)
    t_next = release[rel_order[rel_ptr]] if rel_ptr < release.shape[0] else np.inf
    if kmin < t_next:
        t_next = kmin
    if t_next <= t:
        t_next = t
    return t_next, kmin


@njit(cache=True)
def maxmin_simulate(weight, release, flow_ptr, size, cap, pair_of_flow, pair_src, pair_dst,
                    pair_ptr, completion_rtol, snap_rtol, max_events, store, window, lf, ls, le,
                    lv, cf, cs, ce, cv, state):
    """Weighted max-min fair rates recomputed at every flow arrival and completion.

    Parameters
    ----------
    weight : float array (F,)
        ``w_f > 0`` (1 for per-flow fairness, the flow size for WSS).
    release : float array (K,)
    flow_ptr : int array (K+1,)
    size : float array (F,)
    cap : float array (P,)
    pair_of_flow : int array (F,)
    pair_src, pair_dst : int array (E,)
        Unified ports of each pair.
    pair_ptr : int array (E+1,)
        ``pair_ptr[e+1] - pair_ptr[e]`` = number of flows of pair ``e`` (its list capacity).
    completion_rtol, snap_rtol : float
    max_events : int
    store : bool
        Store the pieces (False: only count them).
    window : int
        0: keep every piece in the chunk lists.  ``> 0`` (*sink mode*, for schedules too large
        to hold): once the write buffer holds ``window`` pieces, at the end of an event at time
        ``t`` every open piece is closed at ``t`` (and reopened there with the same rate, so
        the rates as functions of time are unchanged) and the buffer goes to
        :data:`coflowopt.rates._pieces.SINK` with ``window_end = t``: every piece handed over
        then lies in ``[previous window_end, t]``, so each window can be checked on its own.
        The buffers must hold ``window + 2 F`` pieces (an event and a cut each close at most
        one piece per flow).
    lf, ls, le, lv, cf, cs, ce, cv, state
        :meth:`PieceChunks.args`: receive the pieces ``(flow, start, end, rate)``.

    Returns
    -------
    fc, cc : float arrays
        Flow and coflow completion times.
    events : int
        Number of events (negative: stalled or too many events).
    max_active : int
        Largest number of simultaneously active pairs.
    level_changes : int
        Number of (pair, event) level changes.

    Notes
    -----
    Per event: a scan of the pairs' completion times yields the pairs whose head flow
    finishes now (two passes over ``E`` contiguous times: on the Facebook trace ~3,000 of
    ~20,000 active pairs change level per event, and an indexed heap's updates were 20 % of
    the kernel's samples); the progressive filling computes the level at which each port
    fills (it visits every active pair once, plus one scan of the live ports per round:
    ``O(active pairs + ports^2)``); a pair's level is the smaller of its two ports' levels,
    so only the pairs at ports whose level moved (and the pairs that gained or lost flows)
    are compared, and only those whose level changed get new pieces and a new completion
    time.
    """
    K = release.shape[0]
    F = size.shape[0]
    E = pair_src.shape[0]
    P = cap.shape[0]
    # per pair
    # one row of floats (_CLK: the pair clock V at time _TCLK; _LAM: its level; _HEAD: the
    # threshold of its head flow, its next completion) and one of integers (_LO, _HI: its
    # window of slots; _IN, _OUT: its entries in its two ports' lists): a pair whose level
    # changes (1.1e8 times on the Facebook trace) reads two cache lines, not one per array
    pf = np.zeros((E, 4))
    pix = np.zeros((E, 8), dtype=np.int64)   # _APOS: its place in the active list
    for e in range(E):
        pix[e, _LO] = pair_ptr[e]
        pix[e, _HI] = pair_ptr[e]
    W = np.zeros(E)
    active = np.zeros(E, dtype=np.bool_)
    mark = np.zeros(E, dtype=np.int64)       # "needs a new completion entry" stamp
    # per list slot, one row of _SLOT_COLUMNS: the flow's threshold, the flow, the start of its
    # open piece and its weight.  Kept by slot, not by flow, so that closing the pieces of a
    # pair (2e8 times on the Facebook trace) reads memory in order (a pair's flows are
    # contiguous slots); and in one row, not four arrays, so that a pair's level change reads
    # one or two cache lines instead of one per array (the loads missed the cache in 50 % of
    # the kernel's samples on the Facebook trace, issue 17)
    slot = np.zeros((F, _SLOT_COLUMNS))
    slot_thr, slot_flow, slot_ps, slot_w = slot[:, _THR], slot[:, _FLOW], slot[:, _PS], slot[:, _W]
    # per port: active pairs (swap-remove lists), their total weight
    port_ptr = _list_ptr(pair_src, pair_dst, P)
    plist = np.zeros(max(1, port_ptr[P]), dtype=np.int64)
    # beside each entry of a port's list: the pair's other port and its weight W[e], so that
    # a filling reads each port's entries in order instead of three per-pair arrays at random
    # (the filling's loads at 50,000 coflows, issue 17)
    pl_other = np.zeros(max(1, port_ptr[P]), dtype=np.int64)
    pl_w = np.zeros(max(1, port_ptr[P]))
    # ... and its level pf[e, _LAM]: the search for the pairs whose level changed reads the
    # lists in order (7.5e8 pair visits on the Facebook trace), per pair only the changed ones
    pl_lam = np.zeros(max(1, port_ptr[P]))
    moved = np.zeros(P, dtype=np.bool_)   # the port's level moved at this filling
    plen, WT, wsum, frozen, left, live_ports, ell, ell_old = _filling_arrays(P)
    nact = 0
    unfinished, coflow_of = _coflow_index(flow_ptr, K, F)
    n_done = 0
    nc = 0
    npieces = 0
    # the active pairs (alist[:nact]) and their completion times (akey, inf: none), found by
    # two scans of the active pairs at each event instead of an indexed heap: on the Facebook
    # trace ~2,900 of ~20,000 active pairs change level per event over 3.8e4 events, and the
    # heap's 1.1e8 updates were 20 % of the kernel's samples (issue 17).  A scan costs what the
    # filling's pass over the active pairs does
    fc, cc, akey, alist, due, due_key, touched, visit, new_level, warmed = _event_arrays(K, F, E)
    apos = pix[:, _APOS]      # a view: pix[e, _APOS] is apos[e]
    # flat views for the prefetches of the loop that closes the pieces
    pf_flat, pix_flat, slot_flat = pf.reshape(-1), pix.reshape(-1), slot.reshape(-1)

    rel_order = np.argsort(release, kind="mergesort")
    rel_ptr = 0
    t = release[rel_order[0]]
    events = 0
    max_active = 0
    changes = 0
    kmin = np.inf      # the smallest completion time, as of step 4 (nothing changes it since)
    while True:
        events += 1
        if events > max_events:
            events = -events
            break
        ntouch = 0
        refill = False
        # 1. completions: pairs whose head flow finishes at t, in order of (time, pair)
        ndue = _due_pairs(akey, alist, nact, t, due, due_key) if kmin <= t else 0
        for u in range(ndue):
            e = due[u]
            akey[pix[e, _APOS]] = np.inf
            pf[e, _CLK] += pf[e, _LAM] * (t - pf[e, _TCLK])
            pf[e, _TCLK] = t
            s0 = pix[e, _LO]
            hi = pix[e, _HI]
            while True:
                s, nc, n, done = _complete_heads(slot, pix[e, _LO], hi, pf[e, _CLK], pf[e, _LAM],
                                                 t, weight, size, completion_rtol, store, cf, cs,
                                                 ce, cv, nc, fc, coflow_of, unfinished, cc)
                pix[e, _LO] = s
                npieces += n
                n_done += done
                if s == hi or not (store and nc == cf.shape[0]):
                    break
                _spill(lf, ls, le, lv, cf, cs, ce, cv, nc)
                nc = 0
            if s0 < s < hi:
                pf[e, _HEAD] = slot[s, _THR]
            i = pair_src[e]
            j = pair_dst[e]
            refill = True
            if pix[e, _LO] == pix[e, _HI]:
                # empty pair: leave the port lists, restart its clock
                for p, pos in ((i, pix[e, _IN]), (j, pix[e, _OUT])):
                    last = port_ptr[p] + plen[p] - 1
                    m = plist[last]
                    plist[pos] = m
                    pl_other[pos] = pl_other[last]
                    pl_w[pos] = pl_w[last]
                    pl_lam[pos] = pl_lam[last]
                    if p == pair_src[m]:
                        pix[m, _IN] = pos
                    else:
                        pix[m, _OUT] = pos
                    plen[p] -= 1
                    WT[p] -= W[e]
                    if plen[p] == 0:
                        WT[p] = 0.0
                active[e] = False
                nact = _leave_active(alist, akey, apos, nact, e)
                W[e] = 0.0
                pf[e, _CLK] = 0.0
                pf[e, _LAM] = 0.0
                pix[e, _LO] = pair_ptr[e]
                pix[e, _HI] = pair_ptr[e]
            else:
                w = 0.0
                for s in range(pix[e, _LO], pix[e, _HI]):
                    w += slot[s, _W]
                WT[i] += w - W[e]
                WT[j] += w - W[e]
                W[e] = w
                pl_w[pix[e, _IN]] = w
                pl_w[pix[e, _OUT]] = w
                ntouch = _touch(mark, touched, ntouch, e, events)
        # 2. releases at t
        while rel_ptr < K and release[rel_order[rel_ptr]] <= t:
            k = rel_order[rel_ptr]
            rel_ptr += 1
            for f in range(flow_ptr[k], flow_ptr[k + 1]):
                e = pair_of_flow[f]
                i = pair_src[e]
                j = pair_dst[e]
                if not active[e]:
                    active[e] = True
                    nact = _join_active(alist, akey, apos, nact, e)
                    pix[e, _IN] = port_ptr[i] + plen[i]
                    plist[pix[e, _IN]] = e
                    pl_other[pix[e, _IN]] = j
                    pl_lam[pix[e, _IN]] = pf[e, _LAM]
                    plen[i] += 1
                    pix[e, _OUT] = port_ptr[j] + plen[j]
                    plist[pix[e, _OUT]] = e
                    pl_other[pix[e, _OUT]] = i
                    pl_lam[pix[e, _OUT]] = pf[e, _LAM]
                    plen[j] += 1
                    pf[e, _TCLK] = t
                else:
                    pf[e, _CLK] += pf[e, _LAM] * (t - pf[e, _TCLK])
                    pf[e, _TCLK] = t
                x = pf[e, _CLK] + size[f] / weight[f]
                # insert into the pair's sorted window [lo, hi); shift the tail right
                s = _insert_flow(slot_thr, slot_flow, slot_ps, slot_w, pix[e, _LO], pix[e, _HI],
                                 x, f, t, weight[f])
                if s == pix[e, _LO]:
                    pf[e, _HEAD] = x
                pix[e, _HI] += 1
                W[e] += weight[f]
                pl_w[pix[e, _IN]] = W[e]
                pl_w[pix[e, _OUT]] = W[e]
                WT[i] += weight[f]
                WT[j] += weight[f]
                refill = True
                ntouch = _touch(mark, touched, ntouch, e, events)
        if n_done == K:
            break
        if nact > max_active:
            max_active = nact
        # 3. weighted max-min over the active pairs (progressive filling, lazy port heap)
        if refill:
            # 3a. the level at which every port fills (progressive filling; a pair freezes at
            # the level of the first of its two ports to fill, so its rate is
            # weight * min(level_i, level_j)).  One scan of the live ports per round: at most
            # one round per port, cheaper than keeping a heap of rising levels.
            live = _fill_start(plen, WT, cap, wsum, frozen, left, live_ports, ell)
            while live > 0:
                best, cur, live = _fill_next(live_ports, live, left, cap, frozen, wsum)
                if best < 0:
                    break
                p = live_ports[best]
                live -= 1
                live_ports[best] = live_ports[live]
                if cur < 0.0:
                    cur = 0.0
                ell[p] = cur
                # every other port of p's pairs gives up their weight, frozen ones included:
                # nothing reads a frozen port's sums again in this filling, and without the
                # test the loop has no branch that a random mix of frozen and live ports would
                # mispredict
                for c in range(port_ptr[p], port_ptr[p] + plen[p]):
                    q = pl_other[c]
                    wsum[q] -= pl_w[c]
                    frozen[q] += pl_w[c] * cur
                    left[q] -= 1
                wsum[p] = 0.0
                left[p] = 0
            # 3b. only pairs at a port whose level moved, and the touched pairs, can change
            for p in range(P):
                moved[p] = plen[p] > 0 and _level_moved(ell[p], ell_old[p], snap_rtol)
                ell_old[p] = ell[p]
            # The pairs whose level changed, with their new levels, in visit order: the pairs
            # of each moved port in list order (a pair at its first moved port), then the
            # touched pairs at no moved port.  The visit reads the lists in order: a pair's two
            # ports are the list's port and the entry's other port (the ingress is the smaller
            # number) and its level is beside it
            nchg = 0
            for p in range(P):
                if not moved[p]:
                    continue
                for c in range(port_ptr[p], port_ptr[p] + plen[p]):
                    q = pl_other[c]
                    if q < p and moved[q]:
                        continue    # visited at q
                    if p < q:
                        a_ = ell[p]
                        b_ = ell[q]
                    else:
                        a_ = ell[q]
                        b_ = ell[p]
                    cur = a_ if a_ < b_ else b_
                    if abs(cur - pl_lam[c]) > snap_rtol * cur:
                        visit[nchg] = plist[c]
                        new_level[nchg] = cur
                        nchg += 1
            for u in range(ntouch):
                e = touched[u]
                if active[e] and not moved[pair_src[e]] and not moved[pair_dst[e]]:
                    a_ = ell[pair_src[e]]
                    b_ = ell[pair_dst[e]]
                    cur = a_ if a_ < b_ else b_
                    if abs(cur - pf[e, _LAM]) > snap_rtol * cur:
                        visit[nchg] = e
                        new_level[nchg] = cur
                        nchg += 1
            for u in range(nchg):
                # the rows of the changed pairs are cache misses (the pairs are scattered: 27 %
                # of the kernel's samples on the Facebook trace): prefetch each pair's two rows
                # _AHEAD2 pairs ahead and, once its integer row is in, its first slot row
                # _AHEAD1 pairs ahead, so that the misses overlap (loads would stall the loop)
                if u + _AHEAD2 < nchg:
                    e = visit[u + _AHEAD2]
                    _gk.prefetch(pf_flat, e * 4)
                    _gk.prefetch(pix_flat, e * 8)
                if u + _AHEAD1 < nchg:
                    _gk.prefetch(slot_flat, pix[visit[u + _AHEAD1], _LO] * _SLOT_COLUMNS)
                e = visit[u]
                cur = new_level[u]
                # a new level: every flow of the pair closes its piece at t
                pf[e, _CLK] += pf[e, _LAM] * (t - pf[e, _TCLK])
                pf[e, _TCLK] = t
                if pf[e, _LAM] > 0.0:
                    # _close_slots written out: 1.1e8 calls on the Facebook trace, which LLVM
                    # does not inline (its arrays' fields as arguments cost 1.5-2 s of 11)
                    r = pf[e, _LAM]
                    for s in range(pix[e, _LO], pix[e, _HI]):
                        if t > slot[s, _PS]:
                            if store:
                                if nc == cf.shape[0]:
                                    _spill(lf, ls, le, lv, cf, cs, ce, cv, nc)
                                    nc = 0
                                nc = _put(cf, cs, ce, cv, nc, int(slot[s, _FLOW]), slot[s, _PS], t,
                                          slot[s, _W] * r)
                            npieces += 1
                        slot[s, _PS] = t
                pf[e, _LAM] = cur
                pl_lam[pix[e, _IN]] = cur
                pl_lam[pix[e, _OUT]] = cur
                changes += 1
                # its new completion time (as the loop below computes it, pf[e, _TCLK] = t)
                if cur > 0.0:
                    akey[pix[e, _APOS]] = pf[e, _TCLK] + (pf[e, _HEAD] - pf[e, _CLK]) / cur
            # new completion times for the pairs whose head changed (again for those whose
            # level changed too: the same value)
            for u in range(ntouch):
                e = touched[u]
                if not active[e] or pf[e, _LAM] <= 0.0:
                    continue
                akey[pix[e, _APOS]] = pf[e, _TCLK] + (pf[e, _HEAD] - pf[e, _CLK]) / pf[e, _LAM]
        # 3c. sink mode: cut a window at t once the buffer is full enough (docstring)
        if window > 0 and nc >= window:
            npieces += _cut_pairs(active, pf[:, _LAM], pix[:, _LO], pix[:, _HI], slot, t, cf,
                                  cs, ce, cv, nc)
            nc = 0
        # 4. next event
        t_next, kmin = _next_event(release, rel_order, rel_ptr, akey, nact, t)
        if not np.isfinite(t_next):
            events = -events    # stalled
            break
        t = t_next
    _close(lf, ls, le, lv, cf, cs, ce, cv, nc, window, t)
    state[0] = npieces
    return fc, cc, events, max_active, changes


# ------------------------------------------------------------------------------------------
# per-flow priority (SRTF / EDF) with uniform capacities


@njit(cache=True)
def _less(p1, k1, r1, p2, k2, r2):
    """Lexicographic (primary, key, tie rank) comparison."""
    if p1 != p2:
        return p1 < p2
    if k1 != k2:
        return k1 < k2
    return r1 < r2


@njit(cache=True)
def _plist_find(lp, lk, lr, start, length, p, k, r):
    """First index in [start, start+length) whose entry is not less than (p, k, r)."""
    a = start
    b = start + length
    while a < b:
        m = (a + b) >> 1
        if _less(lp[m], lk[m], lr[m], p, k, r):
            a = m + 1
        else:
            b = m
    return a


@njit(cache=True)
def _slot_place(s_prim, s_key, s_tier, lo, hi, p, k, r):
    """Where ``(p, k, r)`` goes in a pair's window ``[lo, hi)`` sorted by :func:`_less`: after
    every entry not greater than it (a backward scan)."""
    s = hi
    while s > lo and _less(p, k, r, s_prim[s - 1], s_key[s - 1], s_tier[s - 1]):
        s -= 1
    return s


@njit(cache=True)
def _plist_insert(lp, lk, lr, le_, port_ptr, plen, port, p, k, r, e):
    start = port_ptr[port]
    i = _plist_find(lp, lk, lr, start, plen[port], p, k, r)
    end = start + plen[port]
    insert_at(lp, i, end, p)
    insert_at(lk, i, end, k)
    insert_at(lr, i, end, r)
    insert_at(le_, i, end, e)
    plen[port] += 1


@njit(cache=True)
def _plist_remove(lp, lk, lr, le_, port_ptr, plen, port, p, k, r):
    start = port_ptr[port]
    i = _plist_find(lp, lk, lr, start, plen[port], p, k, r)
    end = start + plen[port]
    remove_at(lp, i, end)
    remove_at(lk, i, end)
    remove_at(lr, i, end)
    remove_at(le_, i, end)
    plen[port] -= 1


@njit(cache=True)
def priority_simulate(prim, tier, release, flow_ptr, size, c, pair_of_flow, pair_src, pair_dst,
                      pair_ptr, completion_rtol, max_events, lf, ls, le, lv, cf, cs, ce, cv,
                      state):
    """Greedy per-flow priority with every port of capacity ``c``: at every flow arrival and
    completion, flows in order of ``(prim, remaining size, tier)`` each take the full ``c`` if
    both their ports are free (a greedy maximal matching in priority order).

    Incremental: only the head flow (smallest key) of each (ingress, egress) pair can be served;
    a served head's key (its remaining size) only decreases, so the matching of the previous
    event stays the greedy matching for the current keys, and an event is repaired by
    re-evaluating, in key order, the new heads and the heads at freed ports (a heap of
    candidates; each port keeps its unserved heads sorted by key).

    The loop is :func:`priority_simulate_paths` with each pair's path its two ports (ingress,
    egress): the same candidates in the same order, so the same pieces.

    Returns ``fc, cc, events, preemptions`` (events negative: stalled).
    """
    E = pair_src.shape[0]
    pair_rptr = np.arange(0, 2 * E + 1, 2).astype(np.int64)
    pair_rres = np.zeros(2 * E, dtype=np.int64)
    for e in range(E):
        pair_rres[2 * e] = pair_src[e]
        pair_rres[2 * e + 1] = pair_dst[e]
    return priority_simulate_paths(prim, tier, release, flow_ptr, size, c, pair_of_flow,
                                   pair_rptr, pair_rres, pair_ptr, completion_rtol, max_events,
                                   lf, ls, le, lv, cf, cs, ce, cv, state)


# ==========================================================================================
# general resources
# The same event loops on an instance whose flows run over paths of shared resources
# (``Instance.flow_resource_ptr`` / ``flow_resource``).  A *pair* is then a distinct path (the
# flows with the same resources in the same order; on a big switch, an (ingress, egress) pair),
# given as the CSR ``pair_rptr`` / ``pair_rres``.  Each function below is the big-switch
# function of the same name without ``_paths``, with "the pair's two ports" read as "every
# resource of its path" (in path order) and the floating-point operations kept in the same
# order, so that a big switch written as paths [ingress, m_in + egress] gives the same bits
# (tested).  The two max-min loops share their steps' helpers (above); the big switch keeps
# its own loops over two ports and per-port list entries, which the Facebook-trace benchmarks
# time.  Per-flow priority has one loop, this one: :func:`priority_simulate` calls it with
# each pair's path its two ports.


@njit(cache=True)
def maxmin_simulate_paths(weight, release, flow_ptr, size, cap, pair_of_flow, pair_rptr,
                          pair_rres, pair_ptr, completion_rtol, snap_rtol, max_events, store,
                          window, heap_fill, lf, ls, le, lv, cf, cs, ce, cv, state):
    """:func:`maxmin_simulate` over paths: pair ``e`` (a distinct path) uses the resources
    ``pair_rres[pair_rptr[e]:pair_rptr[e+1]]``.

    The per-resource lists hold incidence entries (one per (pair, resource of its path)), so
    a pair leaves every list in O(1) per resource.  In the progressive filling a pair freezes
    when the first resource of its path fills (every resource it crosses then stops counting
    its weight), and its level is the smallest fill level over its path: Bertsekas &
    Gallager's progressive filling with each user (a path) constrained by every link it
    crosses.

    ``heap_fill`` chooses how each round finds the resource that fills first: False, the
    scan of :func:`maxmin_simulate` (O(live resources) per round, so O(R^2) per event, and
    exactly its rounds, ties included: a big switch written as paths gives its bits); True,
    a lazy heap of the resources' fill levels (O(log R) per pop).
    Both compute the same max-min allocation; they may differ only in the order in which
    resources with exactly equal levels fill, i.e. in the last bits.  Same arguments and
    returns as :func:`maxmin_simulate` otherwise; cost per event O(active (pair, resource)
    entries + R log R) with the heap.
    """
    K = release.shape[0]
    F = size.shape[0]
    E = pair_rptr.shape[0] - 1
    P = cap.shape[0]
    NE = pair_rptr[E]
    # per pair
    V = np.zeros(E)            # the pair clock at time tv
    tv = np.zeros(E)
    lam = np.zeros(E)
    W = np.zeros(E)
    lo = pair_ptr[:-1].copy()
    hi = pair_ptr[:-1].copy()
    active = np.zeros(E, dtype=np.bool_)
    mark = np.zeros(E, dtype=np.int64)       # "needs a new completion entry" stamp
    # the threshold of the pair's head flow (its next completion), a copy of the slot's: read
    # for every pair whose level changed, where the slot row has left the cache by then
    head = np.zeros(E)
    frz = np.zeros(E, dtype=np.int64)        # "frozen in this event's filling" stamp
    # per list slot, one row each (as in maxmin_simulate: by slot, so a pair's flows are
    # contiguous, and in rows, so a pair's level change reads few cache lines)
    slot = np.zeros((F, _SLOT_COLUMNS))
    slot_thr, slot_flow, slot_ps, slot_w = slot[:, _THR], slot[:, _FLOW], slot[:, _PS], slot[:, _W]
    # per incidence entry: its pair, its position in its resource's list
    epair = np.zeros(max(1, NE), dtype=np.int64)
    epos = np.zeros(max(1, NE), dtype=np.int64)
    for e in range(E):
        for c in range(pair_rptr[e], pair_rptr[e + 1]):
            epair[c] = e
    # per resource: the entries of the active pairs (swap-remove lists), their total weight
    port_ptr = _list_ptr(pair_rres[:NE], pair_rres[:0], P)
    plist = np.zeros(max(1, port_ptr[P]), dtype=np.int64)
    plen, WT, wsum, frozen, left, live_ports, ell, ell_old = _filling_arrays(P)
    seen = np.zeros(E, dtype=np.int64)
    nact = 0
    unfinished, coflow_of = _coflow_index(flow_ptr, K, F)
    n_done = 0
    nc = 0
    npieces = 0
    # the active pairs and their completion times, scanned as in maxmin_simulate: the pairs
    # due at an event in the same order there and here (a big switch written as paths gives
    # the same pieces in the same order)
    fc, cc, akey, alist, due, due_key, touched, visit, new_level, warmed = _event_arrays(K, F, E)
    apos = np.zeros(max(1, E), dtype=np.int64)

    rel_order = np.argsort(release, kind="mergesort")
    rel_ptr = 0
    t = release[rel_order[0]]
    events = 0
    max_active = 0
    changes = 0
    kmin = np.inf      # the smallest completion time, as of step 4 (nothing changes it since)
    while True:
        events += 1
        if events > max_events:
            events = -events
            break
        ntouch = 0
        refill = False
        # 1. completions: pairs whose head flow finishes at t, in order of (time, pair)
        ndue = _due_pairs(akey, alist, nact, t, due, due_key) if kmin <= t else 0
        for u in range(ndue):
            e = due[u]
            akey[apos[e]] = np.inf
            V[e] += lam[e] * (t - tv[e])
            tv[e] = t
            s0 = lo[e]
            while True:
                s, nc, n, done = _complete_heads(slot, lo[e], hi[e], V[e], lam[e], t, weight,
                                                 size, completion_rtol, store, cf, cs, ce, cv, nc,
                                                 fc, coflow_of, unfinished, cc)
                lo[e] = s
                npieces += n
                n_done += done
                if s == hi[e] or not (store and nc == cf.shape[0]):
                    break
                _spill(lf, ls, le, lv, cf, cs, ce, cv, nc)
                nc = 0
            if s0 < s < hi[e]:
                head[e] = slot[s, _THR]
            refill = True
            if lo[e] == hi[e]:
                # empty pair: leave the resource lists, restart its clock
                for c in range(pair_rptr[e], pair_rptr[e + 1]):
                    p = pair_rres[c]
                    pos = epos[c]
                    last = port_ptr[p] + plen[p] - 1
                    m = plist[last]
                    plist[pos] = m
                    epos[m] = pos
                    plen[p] -= 1
                    WT[p] -= W[e]
                    if plen[p] == 0:
                        WT[p] = 0.0
                active[e] = False
                nact = _leave_active(alist, akey, apos, nact, e)
                W[e] = 0.0
                V[e] = 0.0
                lam[e] = 0.0
                lo[e] = pair_ptr[e]
                hi[e] = pair_ptr[e]
            else:
                w = 0.0
                for s in range(lo[e], hi[e]):
                    w += slot[s, _W]
                for c in range(pair_rptr[e], pair_rptr[e + 1]):
                    WT[pair_rres[c]] += w - W[e]
                W[e] = w
                ntouch = _touch(mark, touched, ntouch, e, events)
        # 2. releases at t
        while rel_ptr < K and release[rel_order[rel_ptr]] <= t:
            k = rel_order[rel_ptr]
            rel_ptr += 1
            for f in range(flow_ptr[k], flow_ptr[k + 1]):
                e = pair_of_flow[f]
                if not active[e]:
                    active[e] = True
                    nact = _join_active(alist, akey, apos, nact, e)
                    for c in range(pair_rptr[e], pair_rptr[e + 1]):
                        p = pair_rres[c]
                        epos[c] = port_ptr[p] + plen[p]
                        plist[epos[c]] = c
                        plen[p] += 1
                    tv[e] = t
                else:
                    V[e] += lam[e] * (t - tv[e])
                    tv[e] = t
                x = V[e] + size[f] / weight[f]
                s = _insert_flow(slot_thr, slot_flow, slot_ps, slot_w, lo[e], hi[e], x, f, t,
                                 weight[f])
                if s == lo[e]:
                    head[e] = x
                hi[e] += 1
                W[e] += weight[f]
                for c in range(pair_rptr[e], pair_rptr[e + 1]):
                    WT[pair_rres[c]] += weight[f]
                refill = True
                ntouch = _touch(mark, touched, ntouch, e, events)
        if n_done == K:
            break
        if nact > max_active:
            max_active = nact
        # 3. weighted max-min over the active pairs (progressive filling)
        if refill:
            # 3a. the level at which every resource fills; a pair freezes at the level of the
            # first resource of its path to fill (stamp frz), and stops counting at the others
            live = _fill_start(plen, WT, cap, wsum, frozen, left, live_ports, ell)
            if heap_fill:
                # the same rounds with a lazy heap of (level at which the resource would fill,
                # resource): a freeze only raises the levels of the other resources of the
                # pair's path (the residual per unit of remaining weight grows), so a popped
                # entry is recomputed and pushed back when it is stale.  O(entries + pops x
                # log R) per event instead of a scan of the live resources per round (R^2 per
                # event on a k=16 fat-tree)
                fheap = [(0.0, np.int64(0))]
                fheap.pop()
                for u in range(live):
                    p = live_ports[u]
                    fheap.append(((cap[p] - frozen[p]) / wsum[p], p))
                heapq.heapify(fheap)
                while len(fheap) > 0:
                    key, p = heapq.heappop(fheap)
                    if left[p] == 0:
                        continue  # every pair through it froze elsewhere
                    cur = (cap[p] - frozen[p]) / wsum[p]
                    if cur > key:
                        heapq.heappush(fheap, (cur, p))
                        continue
                    if cur < 0.0:
                        cur = 0.0
                    ell[p] = cur
                    for a in range(port_ptr[p], port_ptr[p] + plen[p]):
                        e = epair[plist[a]]
                        if frz[e] == events:
                            continue
                        frz[e] = events
                        for c in range(pair_rptr[e], pair_rptr[e + 1]):
                            q = pair_rres[c]
                            if q == p:
                                continue
                            wsum[q] -= W[e]
                            frozen[q] += W[e] * cur
                            left[q] -= 1
                    wsum[p] = 0.0
                    left[p] = 0
                live = 0
            # the scan of maxmin_simulate (exactly its rounds and ties)
            while live > 0:
                best, cur, live = _fill_next(live_ports, live, left, cap, frozen, wsum)
                if best < 0:
                    break
                p = live_ports[best]
                live -= 1
                live_ports[best] = live_ports[live]
                if cur < 0.0:
                    cur = 0.0
                ell[p] = cur
                for a in range(port_ptr[p], port_ptr[p] + plen[p]):
                    e = epair[plist[a]]
                    if frz[e] == events:
                        continue  # frozen when another resource of its path filled
                    frz[e] = events
                    for c in range(pair_rptr[e], pair_rptr[e + 1]):
                        q = pair_rres[c]
                        if q == p:
                            continue
                        wsum[q] -= W[e]
                        frozen[q] += W[e] * cur
                        left[q] -= 1
                wsum[p] = 0.0
                left[p] = 0
            # 3b. only pairs at a resource whose level moved, and the touched pairs, can change
            nvis = 0
            for p in range(P):
                if plen[p] > 0 and _level_moved(ell[p], ell_old[p], snap_rtol):
                    for a in range(port_ptr[p], port_ptr[p] + plen[p]):
                        e = epair[plist[a]]
                        if seen[e] != events:
                            seen[e] = events
                            visit[nvis] = e
                            nvis += 1
                ell_old[p] = ell[p]
            for u in range(ntouch):
                e = touched[u]
                if active[e] and seen[e] != events:
                    seen[e] = events
                    visit[nvis] = e
                    nvis += 1
            # the pairs whose level changed first, their first slot rows read on the way (as in
            # maxmin_simulate: the loads overlap here)
            nchg = 0
            warm = 0.0
            for u in range(nvis):
                e = visit[u]
                cur = ell[pair_rres[pair_rptr[e]]]
                for c in range(pair_rptr[e] + 1, pair_rptr[e + 1]):
                    b_ = ell[pair_rres[c]]
                    if b_ < cur:
                        cur = b_
                if abs(cur - lam[e]) > snap_rtol * cur:
                    visit[nchg] = e
                    new_level[nchg] = cur
                    nchg += 1
                    warm += slot[lo[e], _PS]
            warmed[0] = warm
            for u in range(nchg):
                e = visit[u]
                cur = new_level[u]
                V[e] += lam[e] * (t - tv[e])
                tv[e] = t
                if lam[e] > 0.0:
                    s = lo[e]
                    while True:
                        s, nc, n = _close_slots(slot, s, hi[e], t, lam[e], store, cf, cs, ce, cv,
                                                nc)
                        npieces += n
                        if s == hi[e]:
                            break
                        _spill(lf, ls, le, lv, cf, cs, ce, cv, nc)
                        nc = 0
                lam[e] = cur
                changes += 1
                ntouch = _touch(mark, touched, ntouch, e, events)
            for u in range(ntouch):
                e = touched[u]
                if not active[e] or lam[e] <= 0.0:
                    continue
                akey[apos[e]] = tv[e] + (head[e] - V[e]) / lam[e]
        # 3c. sink mode: cut a window at t once the buffer is full enough
        if window > 0 and nc >= window:
            npieces += _cut_pairs(active, lam, lo, hi, slot, t, cf, cs, ce, cv, nc)
            nc = 0
        # 4. next event
        t_next, kmin = _next_event(release, rel_order, rel_ptr, akey, nact, t)
        if not np.isfinite(t_next):
            events = -events    # stalled
            break
        t = t_next
    _close(lf, ls, le, lv, cf, cs, ce, cv, nc, window, t)
    state[0] = npieces
    return fc, cc, events, max_active, changes


@njit(cache=True)
def _on_path(rptr, rres, e, p):
    """True when resource ``p`` is on the path of pair ``e``."""
    for c in range(rptr[e], rptr[e + 1]):
        if rres[c] == p:
            return True
    return False


@njit(cache=True)
def priority_simulate_paths(prim, tier, release, flow_ptr, size, c, pair_of_flow, pair_rptr,
                            pair_rres, pair_ptr, completion_rtol, max_events, lf, ls, le, lv,
                            cf, cs, ce, cv, state):
    """:func:`priority_simulate` over paths (every resource of capacity ``c``): flows in order
    of ``(prim, remaining size, tier)`` each take the full ``c`` if every resource of their
    path is free, a greedy maximal packing of paths in priority order (with equal capacities
    the greedy rule "each flow takes the smallest residual of its path" gives ``c`` or 0).

    The same incremental repair: only the head of each pair (a distinct path) can be served; a
    candidate is blocked when a resource of its path is held by a smaller key, otherwise it
    takes its path and evicts the larger-key holders there; an evicted pair frees every
    resource of its path, and the heads waiting at those resources (other than the ones the
    new holder takes) after its key become candidates.  Returns ``fc, cc, events,
    preemptions`` (events negative: stalled).
    """
    K = release.shape[0]
    F = size.shape[0]
    E = pair_rptr.shape[0] - 1
    NE = pair_rptr[E]
    P = 0
    for x in range(NE):
        if pair_rres[x] + 1 > P:
            P = pair_rres[x] + 1
    lo = pair_ptr[:-1].copy()
    hi = pair_ptr[:-1].copy()
    s_prim = np.zeros(F)
    s_key = np.zeros(F)
    s_tier = np.zeros(F, dtype=np.int64)
    s_flow = np.zeros(F, dtype=np.int64)
    matched = np.zeros(E, dtype=np.bool_)
    ts = np.zeros(E)
    rem_ts = np.zeros(E)
    in_lists = np.zeros(E, dtype=np.bool_)
    ekp = np.zeros(E)
    ekk = np.zeros(E)
    ekr = np.zeros(E, dtype=np.int64)
    owner = -np.ones(P, dtype=np.int64)
    port_ptr = _list_ptr(pair_rres[:NE], pair_rres[:0], P)
    n_slots = max(1, port_ptr[P])
    lp = np.zeros(n_slots)
    lk = np.zeros(n_slots)
    lr = np.zeros(n_slots, dtype=np.int64)
    le_ = np.zeros(n_slots, dtype=np.int64)
    plen = np.zeros(P, dtype=np.int64)

    hk = np.zeros(max(1, E))
    he = np.zeros(max(1, E), dtype=np.int64)
    hpos = -np.ones(E, dtype=np.int64)
    hsize = np.zeros(1, dtype=np.int64)

    unfinished, coflow_of = _coflow_index(flow_ptr, K, F)
    fc = np.full(F, np.nan)
    cc = np.full(K, np.nan)
    pstart = np.zeros(F)
    n_done = 0
    nc = 0
    npieces = 0
    preempt = 0

    rel_order = np.argsort(release, kind="mergesort")
    rel_ptr = 0
    t = release[rel_order[0]]
    events = 0
    while True:
        events += 1
        if events > max_events:
            _spill(lf, ls, le, lv, cf, cs, ce, cv, nc)
            state[0] = npieces
            return fc, cc, -events, preempt
        cand = [(0.0, 0.0, np.int64(0), np.int64(0), np.int64(0))]
        cand.pop()
        # 1. completions of matched heads: due now, or within the completion tolerance of
        # done (the generic simulator's rule, :data:`coflowopt.simulate.COMPLETION_RTOL`: a
        # head one ulp from done frees its ports at this event, as in the reference engine;
        # otherwise the next flows can see a different matching)
        while hsize[0] > 0:
            e = he[0]
            if hk[0] > t and not (rem_ts[e] - c * (t - ts[e])
                                  <= completion_rtol * size[s_flow[lo[e]]]):
                break
            heap_remove(hk, he, hpos, hsize, e)
            s = lo[e]
            f = s_flow[s]
            rem = rem_ts[e] - c * (t - ts[e])
            if not (rem <= completion_rtol * size[f] or t + rem / c <= t):
                heap_set(hk, he, hpos, hsize, e, t + rem / c)
                continue
            if nc == cf.shape[0]:
                _spill(lf, ls, le, lv, cf, cs, ce, cv, nc)
                nc = 0
            nc = _put(cf, cs, ce, cv, nc, f, pstart[f], t, c)
            npieces += 1
            n_done += _finish_flow(f, t, fc, coflow_of, unfinished, cc)
            lo[e] += 1
            matched[e] = False
            for x in range(pair_rptr[e], pair_rptr[e + 1]):
                port = pair_rres[x]
                owner[port] = -1
                q = _plist_find(lp, lk, lr, port_ptr[port], plen[port], s_prim[s], 0.0,
                                s_tier[s])
                if q < port_ptr[port] + plen[port]:
                    heapq.heappush(cand, (lp[q], lk[q], lr[q], le_[q], port))
            if lo[e] < hi[e]:
                s = lo[e]
                ekp[e] = s_prim[s]
                ekk[e] = s_key[s]
                ekr[e] = s_tier[s]
                for x in range(pair_rptr[e], pair_rptr[e + 1]):
                    _plist_insert(lp, lk, lr, le_, port_ptr, plen, pair_rres[x], ekp[e],
                                  ekk[e], ekr[e], e)
                in_lists[e] = True
                heapq.heappush(cand, (ekp[e], ekk[e], ekr[e], e, np.int64(-1)))
            else:
                lo[e] = pair_ptr[e]
                hi[e] = pair_ptr[e]
        # 2. releases
        while rel_ptr < K and release[rel_order[rel_ptr]] <= t:
            k = rel_order[rel_ptr]
            rel_ptr += 1
            for f in range(flow_ptr[k], flow_ptr[k + 1]):
                e = pair_of_flow[f]
                if matched[e]:
                    s_key[lo[e]] = rem_ts[e] - c * (t - ts[e])
                x_p = prim[f]
                x_k = size[f]
                x_r = tier[f]
                s = _slot_place(s_prim, s_key, s_tier, lo[e], hi[e], x_p, x_k, x_r)
                insert_at(s_prim, s, hi[e], x_p)
                insert_at(s_key, s, hi[e], x_k)
                insert_at(s_tier, s, hi[e], x_r)
                insert_at(s_flow, s, hi[e], f)
                hi[e] += 1
                if s != lo[e]:
                    continue
                if hi[e] - lo[e] > 1:
                    old = s_flow[s + 1]
                    if matched[e]:
                        preempt += 1
                        if t > pstart[old]:
                            if nc == cf.shape[0]:
                                _spill(lf, ls, le, lv, cf, cs, ce, cv, nc)
                                nc = 0
                            nc = _put(cf, cs, ce, cv, nc, old, pstart[old], t, c)
                            npieces += 1
                        matched[e] = False
                        heap_remove(hk, he, hpos, hsize, e)
                        for x in range(pair_rptr[e], pair_rptr[e + 1]):
                            port = pair_rres[x]
                            owner[port] = -1
                            q = _plist_find(lp, lk, lr, port_ptr[port], plen[port],
                                            s_prim[s + 1], s_key[s + 1], s_tier[s + 1])
                            if q < port_ptr[port] + plen[port]:
                                heapq.heappush(cand, (lp[q], lk[q], lr[q], le_[q], port))
                    elif in_lists[e]:
                        for x in range(pair_rptr[e], pair_rptr[e + 1]):
                            _plist_remove(lp, lk, lr, le_, port_ptr, plen, pair_rres[x],
                                          ekp[e], ekk[e], ekr[e])
                        in_lists[e] = False
                ekp[e] = x_p
                ekk[e] = x_k
                ekr[e] = x_r
                for x in range(pair_rptr[e], pair_rptr[e + 1]):
                    _plist_insert(lp, lk, lr, le_, port_ptr, plen, pair_rres[x], x_p, x_k,
                                  x_r, e)
                in_lists[e] = True
                heapq.heappush(cand, (x_p, x_k, x_r, e, np.int64(-1)))
        if n_done == K:
            break
        # 3. repair the greedy packing in key order
        while len(cand) > 0:
            kp, kk, kr, e, frm = heapq.heappop(cand)
            if matched[e]:
                continue
            if not in_lists[e] or ekp[e] != kp or ekk[e] != kk or ekr[e] != kr:
                if frm >= 0:
                    q = _plist_find(lp, lk, lr, port_ptr[frm], plen[frm], kp, kk, kr)
                    if q < port_ptr[frm] + plen[frm] and le_[q] == e and lp[q] == kp \
                            and lk[q] == kk and lr[q] == kr:
                        q += 1
                    if q < port_ptr[frm] + plen[frm]:
                        heapq.heappush(cand, (lp[q], lk[q], lr[q], le_[q], frm))
                continue
            blocked = False
            for x in range(pair_rptr[e], pair_rptr[e + 1]):
                o = owner[pair_rres[x]]
                if o >= 0:
                    so = lo[o]
                    ok_ = rem_ts[o] - c * (t - ts[o])
                    if _less(s_prim[so], ok_, s_tier[so], kp, kk, kr):
                        blocked = True
            if blocked:
                if frm >= 0:
                    q = _plist_find(lp, lk, lr, port_ptr[frm], plen[frm], kp, kk, kr) + 1
                    if q < port_ptr[frm] + plen[frm]:
                        heapq.heappush(cand, (lp[q], lk[q], lr[q], le_[q], frm))
                continue
            # serve e's head, evicting larger-key holders of its resources
            for x in range(pair_rptr[e], pair_rptr[e + 1]):
                port = pair_rres[x]
                o = owner[port]
                if o >= 0:
                    so = lo[o]
                    fo = s_flow[so]
                    remo = rem_ts[o] - c * (t - ts[o])
                    preempt += 1
                    if t > pstart[fo]:
                        if nc == cf.shape[0]:
                            _spill(lf, ls, le, lv, cf, cs, ce, cv, nc)
                            nc = 0
                        nc = _put(cf, cs, ce, cv, nc, fo, pstart[fo], t, c)
                        npieces += 1
                    matched[o] = False
                    heap_remove(hk, he, hpos, hsize, o)
                    s_key[so] = remo
                    ekp[o] = s_prim[so]
                    ekk[o] = remo
                    ekr[o] = s_tier[so]
                    for y in range(pair_rptr[o], pair_rptr[o + 1]):
                        _plist_insert(lp, lk, lr, le_, port_ptr, plen, pair_rres[y], ekp[o],
                                      remo, ekr[o], o)
                    in_lists[o] = True
                    for y in range(pair_rptr[o], pair_rptr[o + 1]):
                        other = pair_rres[y]
                        owner[other] = -1
                        if _on_path(pair_rptr, pair_rres, e, other):
                            continue  # e takes it
                        q = _plist_find(lp, lk, lr, port_ptr[other], plen[other], ekp[o],
                                        remo, ekr[o]) + 1
                        if q < port_ptr[other] + plen[other]:
                            heapq.heappush(cand, (lp[q], lk[q], lr[q], le_[q], other))
            for x in range(pair_rptr[e], pair_rptr[e + 1]):
                _plist_remove(lp, lk, lr, le_, port_ptr, plen, pair_rres[x], kp, kk, kr)
            in_lists[e] = False
            matched[e] = True
            for x in range(pair_rptr[e], pair_rptr[e + 1]):
                owner[pair_rres[x]] = e
            ts[e] = t
            rem_ts[e] = kk
            pstart[s_flow[lo[e]]] = t
            heap_set(hk, he, hpos, hsize, e, t + kk / c)
        # 4. next event
        t_next = release[rel_order[rel_ptr]] if rel_ptr < K else np.inf
        if hsize[0] > 0 and hk[0] < t_next:
            t_next = hk[0]
        if not np.isfinite(t_next):
            _spill(lf, ls, le, lv, cf, cs, ce, cv, nc)
            state[0] = npieces
            return fc, cc, -events, preempt
        t = t_next
    _spill(lf, ls, le, lv, cf, cs, ce, cv, nc)
    state[0] = npieces
    return fc, cc, events, preempt
