"""The compiled event loop of ``mlfq`` (FIFO levels, no aging) and ``baraat`` (per-flow sharing
inside a class): the generic simulator (:func:`coflowopt.simulate.simulate`) and the policies'
incremental path (:class:`coflowopt.policies.mlfq._Slots`) in one kernel.

Why: at 50,000 coflows (~150,000 events) the Python path paid per event the simulator's numpy
over the flows with a rate (sort, piece bookkeeping, completion times) and the policy's glue
around the compiled allocation (attained service of the coflows served, levels, slot moves,
the coflow rates and the next level crossing): about half of ``mlfq``'s time at 20,000
coflows (py-spy, ``experiments/results/bench_scale_profiles.md``).  Here the levels, slots,
attained service, residual sizes and open pieces live in the kernel across events, and each
event calls the same allocation, :func:`._class_kernel.serve_levels`.

Same bits as the Python engine (``tests/test_mlfq_kernel.py``): every float operation is the
one the Python path does, in the same order --

* the simulator: ``fin = t + rem / rate``; the next event ``min(first fin, next release,
  timer)``; ``rem -= rate x (min(fin, t_next) - t)``; a flow completes when ``fin <= t_next``
  or ``rem <= COMPLETION_RTOL x size`` and its piece ends at ``fin`` or ``t_next``; a piece is
  closed at a policy call when the flow's rate changes (flows taken in index order), then at
  each event the finished flows' pieces (index order): the simulator's order of pieces;
* the policy: the attained service of each coflow that had a rate at the previous call is
  ``sum(size - rem)`` over its flows in index order (``np.bincount``'s order); its level the
  number of ``H x (1 - CROSSING_RTOL)`` at most that (``searchsorted(side="right")``), never
  lower than before (``mlfq``), or heavy from ``threshold x (1 - CROSSING_RTOL)`` (``baraat``);
  the rate of a served coflow its flows' rates summed in gathered order; a crossing at
  ``t + (H[level] - att) / rate`` (``baraat``: ``threshold - att``), applied at once and the
  allocation redone when it is not after ``t``.

The Python engine (``MlfqPolicy`` / ``BaraatPolicy`` on :func:`coflowopt.simulate.simulate`)
stays the reference: ``coflowopt.policies.mlfq._Slots.compiled = False`` selects it.

*Sink mode* (``window > 0``: :func:`coflowopt.policies.mlfq.mlfq_windows` /
``baraat_windows``).  Why: held, the pieces are the whole memory of a run (the Facebook
trace: ``mlfq`` 1.4e8 pieces, 4.5 GB in the chunk lists and 5.8 GB peak while they are
concatenated, the rest of the process ~0.1 GB).  The windows are cut at event times; beside
them the kernel sums each flow's data exactly as :func:`coflowopt.simulate.settle_sizes` sums
the held schedule (:func:`_held_sum`), so that a flow whose pieces lie in one window is
settled with the held run's bits.

numba's cache of :func:`slots_simulate` holds the ``serve_levels_from`` it was compiled with
and is not invalidated by an edit of ``_class_kernel.py`` (numba checks the stamp of this
file only): after changing the allocation, touch this file (or clear ``__pycache__``), as was
needed when the walk learnt to pass over blocked groups (3414672).
"""

from __future__ import annotations

import numpy as np

from ..rates._jit import njit
from ..rates._pieces import close_pieces as _close
from ..rates._pieces import flush_to_sink as _flush
from ..rates._pieces import put as _put
from ..rates._pieces import spill as _spill
from ._class_kernel import BLOCK, serve_levels

__all__ = ["slots_simulate", "MODE_MLFQ", "MODE_BARAAT", "OK", "TOO_MANY_EVENTS",
           "NO_FUTURE_EVENT", "SETTLE_SLICE"]

#: ``mode`` of :func:`slots_simulate`: levels on attained service (slot ``level x K + FIFO
#: position``), or Baraat's FIFO classes (slot = FIFO position, heavy coflows open a class).
MODE_MLFQ = 0
MODE_BARAAT = 1

#: Status codes (``stats[0]``): finished, more than ``max_events`` events, no future event
#: while released coflows are unfinished (``stats[1]`` holds the event count, ``times[0]`` the
#: time).
OK = 0
TOO_MANY_EVENTS = 1
NO_FUTURE_EVENT = 2

#: The slice of :func:`coflowopt.simulate.settle_sizes` (pieces per bincount), whose sums the
#: sink mode reproduces (``tests/test_mlfq_stream.py`` checks the two agree).
SETTLE_SLICE_BITS = 20
SETTLE_SLICE = 1 << SETTLE_SLICE_BITS


@njit(cache=True, borrowed=True)
def _move(slot_cof, blk, slot_of, c, s):
    """Coflow ``c`` leaves its slot for slot ``s`` (-1: none); ``_class_kernel.move_slots``
    for one coflow."""
    o = slot_of[c]
    if o >= 0:
        slot_cof[o] = -1
        blk[o // BLOCK] -= 1
    slot_of[c] = s
    if s >= 0:
        slot_cof[s] = c
        blk[s // BLOCK] += 1


@njit(cache=True, borrowed=True)
def _held_sum(f, amount, hidx, hblk, hpart, htot):
    """Add ``amount`` (``rate x (end - start)`` of a piece of flow ``f`` that has number
    ``hidx`` in the held schedule) to the flow's sum as :func:`coflowopt.simulate.settle_sizes`
    forms it: a bincount per slice of :data:`SETTLE_SLICE` pieces, the slices' sums added in
    turn (``htot + hpart`` is the sum so far, the bits of ``settle_sizes``' ``sent``)."""
    b = hidx >> SETTLE_SLICE_BITS
    if hblk[f] != b:
        htot[f] += hpart[f]
        hpart[f] = 0.0
        hblk[f] = b
    hpart[f] += amount


@njit(cache=True)
def slots_simulate(mode, ptr, size, flow_cof, rel_order, fifo, hs, H, thr_s, thr,
                   fr_ptr, fr, cap, tol, full_rtol, path, path_ptr, path_flow, qres_ptr, qres,
                   rq_ptr, rq, num_slots, max_events, completion_rtol, level, heavy, stats,
                   times, lf, ls, le, lv, cf, cs, ce, cv, state, window, sent, first_win,
                   wdone, wstat):
    """Simulate ``mlfq`` (``mode = MODE_MLFQ``) or ``baraat`` (``MODE_BARAAT``) from the first
    release until every coflow finishes (module docstring).

    Parameters
    ----------
    mode : int
    ptr, size, flow_cof : the instance's ``flow_ptr``, ``flow_size`` (float64), ``flow_coflow``
    rel_order : int64 (K,)
        The coflows by (release, index).
    fifo : int64 (K,)
        Each coflow's FIFO position (its place in ``rel_order``).
    hs, H : float64
        ``mlfq``: the thresholds times ``1 - CROSSING_RTOL`` and the thresholds.
    thr_s, thr : float
        ``baraat``: the heavy threshold times ``1 - CROSSING_RTOL`` and the threshold.
    fr_ptr ... rq : as for :func:`._class_kernel.serve_levels`
    num_slots : int
    max_events : int
    completion_rtol : float
        :data:`coflowopt.simulate.COMPLETION_RTOL`.
    level : int64 (K,)
        Output: each coflow's last level (``mlfq``; zeros on entry).
    heavy : bool (K,)
        Output: the coflows that became heavy (``baraat``; all False on entry, and all False
        throughout for ``mlfq``).
    stats : int64 (8,)
        Output: status, events, policy calls, class changes, demotions, groups walked,
        groups found by path.
    times : float64 (K,)
        The releases on entry; on exit ``times[0]`` is the last event's time (of a failure,
        when ``stats[0]`` is not :data:`OK`).
    lf ... state : :meth:`coflowopt.rates._pieces.PieceChunks.args`
        The pieces ``(flow, start, end, rate)`` in the simulator's order.
    window : int
        0: every piece goes to the chunk lists (the held schedule).  ``window > 0``: the *sink
        mode* (as :func:`coflowopt.rates._madd_kernel.madd_simulate`'s): once the write buffer
        holds ``window`` pieces after the allocation of an event at time ``t``, every open
        piece is cut at ``t`` (closed there and reopened with the same rate: the simulation is
        unchanged) and the buffer goes to :data:`coflowopt.rates._pieces.SINK` with
        ``window_end = t``; the last window at the end.  The buffers must hold ``window + 3 F``
        pieces (between two checks an event closes at most two pieces per flow, at its
        allocation and when the flow finishes, and a cut one more), so they never spill.
    sent : float64 (F,)
        Sink mode, output: a flow's data sent, set when it finishes, summed as
        :func:`coflowopt.simulate.settle_sizes` sums the held schedule (its uncut pieces in the
        held order, by slices of :data:`SETTLE_SLICE`: :func:`_held_sum`), so that the sink
        settles a flow with the held run's bits.
    first_win : int64 (F,)
        Sink mode, output (-1 on entry): the window of each flow's first piece.
    wdone : int64 (F,)
        Sink mode: the flows that finished in the window being handed over, ``wstat[0]`` of
        them; ``wstat[1]`` is that window's number (read by the sink during the hand-over).
    """
    F = size.shape[0]
    K = ptr.shape[0] - 1
    nH = H.shape[0]
    rel_t = times.copy()
    rem = size.copy()
    done = np.zeros(F, dtype=np.bool_)
    finished = np.zeros(K, dtype=np.bool_)
    unfinished = np.empty(K, dtype=np.int64)
    for c in range(K):
        unfinished[c] = ptr[c + 1] - ptr[c]
    slot_cof = np.full(num_slots, -1, dtype=np.int64)
    blk = np.zeros(-(-num_slots // BLOCK), dtype=np.int64)
    slot_of = np.full(K, -1, dtype=np.int64)
    att = np.zeros(K)
    dirty = np.empty(K, dtype=np.int64)
    dmark = np.zeros(K, dtype=np.bool_)
    nd = 0
    no_heavy = np.zeros(K, dtype=np.bool_)
    fl_buf = np.empty(F, dtype=np.int64)
    rate_buf = np.empty(F)
    live = np.empty(F, dtype=np.int64)
    gcof = np.empty(K, dtype=np.int64)
    gptr = np.empty(K + 1, dtype=np.int64)
    members = np.empty(K, dtype=np.int64)
    frate = np.zeros(F)           # each flow's current rate (0: none)
    nrate = np.zeros(F)           # the new allocation's rates (scratch, zero between calls)
    pstart = np.full(F, np.nan)   # start of each flow's open piece
    cur = np.empty(F, dtype=np.int64)
    ncur = 0
    newf = np.empty(F, dtype=np.int64)
    fin = np.empty(F)
    nc = 0
    npieces = 0
    next_rel = 0
    n_placed = 0
    nfin = 0
    events = 0
    changes = 0
    demotions = 0
    walked = 0
    found = 0
    # sink mode: each flow's held piece starts where a cut does not count, its sums
    ostart = np.full(F if window > 0 else 0, np.nan)
    hblk = np.full(F if window > 0 else 0, -1, dtype=np.int64)
    hpart = np.zeros(F if window > 0 else 0)
    htot = np.zeros(F if window > 0 else 0)
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
            _move(slot_cof, blk, slot_of, c,
                  level[c] * K + fifo[c] if mode == MODE_MLFQ else fifo[c])
        n_placed = next_rel
        nnew = 0
        if next_rel > nfin:           # some released coflow is unfinished
            # the coflows that had a rate at the previous call: attained service, level, slot
            for i in range(nd):
                c = dirty[i]
                dmark[c] = False
                a = 0.0
                for f in range(ptr[c], ptr[c + 1]):
                    a += size[f] - rem[f]
                att[c] = a
                if mode == MODE_MLFQ:
                    lvl = 0
                    while lvl < nH and hs[lvl] <= a:
                        lvl += 1
                    if lvl > level[c]:
                        level[c] = lvl
                        demotions += 1
                        changes += 1
                    s = level[c] * K + fifo[c]
                else:
                    if a >= thr_s and not heavy[c]:
                        heavy[c] = True
                        changes += 1
                    s = fifo[c]
                if finished[c]:
                    s = -1
                if s != slot_of[c]:
                    _move(slot_cof, blk, slot_of, c, s)
            nd = 0
            n = 0
            for _ in range(10_000):
                n, ng, nby = serve_levels(slot_cof, blk, slot_of,
                                          no_heavy if mode == MODE_MLFQ else heavy, ptr, done,
                                          flow_cof, fr_ptr, fr, cap, tol, full_rtol, path,
                                          path_ptr, path_flow, qres_ptr, qres, rq_ptr, rq,
                                          fl_buf, rate_buf, live, gcof, gptr, members)
                walked += ng
                found += nby
                # the next class change of the coflows served (the others have no rate)
                crossed = False
                tmin = np.inf
                for g in range(ng):
                    c = gcof[g]
                    cr = 0.0
                    for x in range(gptr[g], gptr[g + 1]):
                        cr += rate_buf[x]
                    if not cr > 0.0:
                        continue
                    if mode == MODE_MLFQ:
                        if level[c] >= nH:
                            continue
                        tc = t + (H[level[c]] - att[c]) / cr
                    else:
                        if heavy[c]:
                            continue
                        tc = t + (thr - att[c]) / cr
                    if tc <= t:
                        crossed = True
                        changes += 1
                        if mode == MODE_MLFQ:
                            level[c] += 1
                            demotions += 1
                            _move(slot_cof, blk, slot_of, c, level[c] * K + fifo[c])
                        else:
                            heavy[c] = True
                    elif tc < tmin:
                        tmin = tc
                if not crossed:
                    timer = tmin
                    break
            for x in range(n):
                r = rate_buf[x]
                if r > 0.0:
                    f = fl_buf[x]
                    newf[nnew] = f
                    nnew += 1
                    nrate[f] = r
                    c = flow_cof[f]
                    if not dmark[c]:
                        dmark[c] = True
                        dirty[nd] = c
                        nd += 1
        # ------------------------------------------------ the simulator: pieces by index
        srt = np.sort(newf[:nnew])
        for i in range(ncur):
            f = cur[i]
            if nrate[f] != frate[f]:
                if nc == cf.shape[0]:
                    _spill(lf, ls, le, lv, cf, cs, ce, cv, nc)
                    nc = 0
                nc = _put(cf, cs, ce, cv, nc, f, pstart[f], t, frate[f])
                npieces += 1
                if window > 0:
                    _held_sum(f, frate[f] * (t - ostart[f]), hidx, hblk, hpart, htot)
                    hidx += 1
                    if first_win[f] < 0:
                        first_win[f] = wins
        for i in range(nnew):
            f = srt[i]
            if frate[f] != nrate[f]:
                pstart[f] = t
                if window > 0:
                    ostart[f] = t
        for i in range(ncur):
            frate[cur[i]] = 0.0
        for i in range(nnew):
            f = srt[i]
            frate[f] = nrate[f]
            nrate[f] = 0.0
            cur[i] = f
        ncur = nnew
        # sink mode: cut a window at t once the buffer is full enough (docstring); a piece
        # opened at t by this allocation has nothing before t to hand over
        if window > 0 and nc >= window:
            for i in range(ncur):
                f = cur[i]
                if pstart[f] < t:
                    nc = _put(cf, cs, ce, cv, nc, f, pstart[f], t, frate[f])
                    npieces += 1
                    pstart[f] = t
                    if first_win[f] < 0:
                        first_win[f] = wins
            wstat[0] = nw
            wstat[1] = wins
            _flush(cf, cs, ce, cv, nc, t)
            nc = 0
            nw = 0
            wins += 1
        if timer <= t:
            stats[0] = NO_FUTURE_EVENT     # a timer not after t cannot happen here
            break
        t_flow = np.inf
        for i in range(ncur):
            f = cur[i]
            v = t + rem[f] / frate[f]
            fin[i] = v
            if v < t_flow:
                t_flow = v
        t_rel = rel_t[rel_order[next_rel]] if next_rel < K else np.inf
        t_next = t_flow
        if t_rel < t_next:
            t_next = t_rel
        if timer < t_next:
            t_next = timer
        if not np.isfinite(t_next):
            stats[0] = NO_FUTURE_EVENT
            break
        k = 0
        for i in range(ncur):
            f = cur[i]
            r = frate[f]
            v = fin[i]
            rem[f] -= r * ((v if v < t_next else t_next) - t)
            if v <= t_next or rem[f] <= completion_rtol * size[f]:
                if nc == cf.shape[0]:
                    _spill(lf, ls, le, lv, cf, cs, ce, cv, nc)
                    nc = 0
                end = v if v <= t_next else t_next
                nc = _put(cf, cs, ce, cv, nc, f, pstart[f], end, r)
                npieces += 1
                if window > 0:
                    _held_sum(f, r * (end - ostart[f]), hidx, hblk, hpart, htot)
                    hidx += 1
                    sent[f] = htot[f] + hpart[f]
                    if first_win[f] < 0:
                        first_win[f] = wins
                    wdone[nw] = f
                    nw += 1
                rem[f] = 0.0
                done[f] = True
                frate[f] = 0.0
                c = flow_cof[f]
                unfinished[c] -= 1
                if unfinished[c] == 0:
                    finished[c] = True
                    nfin += 1
            else:
                cur[k] = f
                k += 1
        ncur = k
        t = t_next
    wstat[0] = nw
    wstat[1] = wins
    _close(lf, ls, le, lv, cf, cs, ce, cv, nc, window, t)
    state[0] = npieces
    stats[1] = events
    stats[2] = events
    stats[3] = changes
    stats[4] = demotions
    stats[5] = walked
    stats[6] = found
    times[0] = t
