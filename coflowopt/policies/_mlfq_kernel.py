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

The simulator's step (:func:`change_rates`, :func:`cut`, :func:`flow_ends`,
:func:`next_event`, :func:`advance`) and :func:`move_slot` are shared with the other compiled
event loops on the same simulator, :func:`._level_kernel.levels_simulate` (``creek``,
``decentralized-las``) and :func:`.aalo.dclas_simulate`: one copy of the float operations
whose order makes the bits.  numba's cache of a kernel is stamped with its file and the kernel
files it imports from (:func:`coflowopt.rates._jit.kernel_dependency_stamp`), so an edit here
or of ``_class_kernel.py`` recompiles all three loops.
"""

from __future__ import annotations

import numpy as np

from ..rates._jit import njit
from ..rates._pieces import close_pieces as _close
from ..rates._pieces import cut_window
from ..rates._pieces import put as _put
from ..rates._pieces import spill as _spill
from ._class_kernel import BLOCK, serve_levels

__all__ = ["slots_simulate", "MODE_MLFQ", "MODE_BARAAT", "OK", "TOO_MANY_EVENTS",
           "NO_FUTURE_EVENT", "SETTLE_SLICE", "change_rates", "cut", "flow_ends", "next_event",
           "advance", "move_slot", "step_state"]

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
def move_slot(slot_cof, blk, slot_of, c, s):
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


# ------------------------------------------------------------------------ the simulator's step
# The event step of the generic simulator (coflowopt.simulate.simulate) as the compiled loops
# run it: this module's slots_simulate, _level_kernel.levels_simulate and aalo.dclas_simulate.
# The running flows are ``cur[:ncur]`` in index order, ``frate`` their rates, ``pstart`` the
# starts of their open pieces; pieces go to the write buffers ``cf ... cv`` (position ``nc``,
# spilt to the chunk lists ``lf ... lv`` when full).  ``held`` (sink mode of slots_simulate and
# levels_simulate) also keeps each flow's sum as the held schedule would settle it
# (:func:`_held_sum`, with ``ostart`` the held piece's start, ``hidx`` the held piece count) and
# the window of its first piece (``first_win``, window ``wins`` now); without it those arrays
# may be empty.

@njit(cache=True)
def step_state(F, held):
    """The step's arrays for ``F`` flows: ``frate`` (each flow's rate, 0: none), ``nrate`` (a
    call's new rates, zero between calls), ``pstart`` (open pieces' starts), ``cur``, ``newf``
    (the flows a call gives a rate), ``fin``, ``ended``, ``ends`` and, ``held``, the sink
    mode's ``ostart``, ``hblk``, ``hpart``, ``htot`` (empty otherwise)."""
    H = F if held else 0
    return (np.zeros(F), np.zeros(F), np.full(F, np.nan), np.empty(F, dtype=np.int64),
            np.empty(F, dtype=np.int64), np.empty(F), np.empty(F, dtype=np.int64),
            np.empty(F), np.full(H, np.nan), np.full(H, -1, dtype=np.int64), np.zeros(H),
            np.zeros(H))


@njit(cache=True)
def change_rates(t, cur, ncur, srt, nnew, nrate, frate, pstart, lf, ls, le, lv, cf, cs, ce, cv,
                 nc, held, ostart, hidx, hblk, hpart, htot, first_win, wins):
    """A policy call's new rates at ``t``: the flows ``srt[:nnew]`` (index order) get
    ``nrate`` (which is left zero); the piece of a running flow whose rate changes is closed at
    ``t`` (running flows in index order: the simulator's order of pieces) and a new one opened.
    ``cur[:nnew]`` becomes the new running flows.  Returns ``(nc, pieces closed, hidx)``."""
    closed = 0
    for i in range(ncur):
        f = cur[i]
        if nrate[f] != frate[f]:
            if nc == cf.shape[0]:
                _spill(lf, ls, le, lv, cf, cs, ce, cv, nc)
                nc = 0
            nc = _put(cf, cs, ce, cv, nc, f, pstart[f], t, frate[f])
            closed += 1
            if held:
                _held_sum(f, frate[f] * (t - ostart[f]), hidx, hblk, hpart, htot)
                hidx += 1
                if first_win[f] < 0:
                    first_win[f] = wins
    for i in range(nnew):
        f = srt[i]
        if frate[f] != nrate[f]:
            pstart[f] = t
            if held:
                ostart[f] = t
    for i in range(ncur):
        frate[cur[i]] = 0.0
    for i in range(nnew):
        f = srt[i]
        frate[f] = nrate[f]
        nrate[f] = 0.0
        cur[i] = f
    return nc, closed, hidx


@njit(cache=True)
def cut(t, cur, ncur, pstart, frate, cf, cs, ce, cv, nc, first_win, wins, wstat, nw):
    """Sink mode of slots_simulate / levels_simulate: the window ``wins`` (``nw`` flows
    finished in it) is cut at ``t`` by :func:`coflowopt.rates._pieces.cut_window`, the flows
    whose first piece is cut there marked in ``first_win``; ``wstat`` holds ``(nw, wins)``
    while the sink reads the window.  Returns the number of pieces cut."""
    for i in range(ncur):
        f = cur[i]
        if pstart[f] < t and first_win[f] < 0:
            first_win[f] = wins
    wstat[0] = nw
    wstat[1] = wins
    return cut_window(cur, ncur, pstart, frate, t, cf, cs, ce, cv, nc)


@njit(cache=True, borrowed=True)
def flow_ends(t, cur, ncur, rem, frate, fin):
    """Each running flow's completion under its rate, ``fin[i] = t + rem / rate`` for
    ``cur[i]``; returns the first (``inf`` when none runs)."""
    t_flow = np.inf
    for i in range(ncur):
        f = cur[i]
        v = t + rem[f] / frate[f]
        fin[i] = v
        if v < t_flow:
            t_flow = v
    return t_flow


@njit(cache=True, borrowed=True)
def next_event(t_first, rel_t, rel_order, next_rel, timer):
    """The next event: the first of ``t_first`` (a completion), the next release and the
    policy's ``timer``."""
    t_next = t_first
    t_rel = rel_t[rel_order[next_rel]] if next_rel < rel_order.shape[0] else np.inf
    if t_rel < t_next:
        t_next = t_rel
    if timer < t_next:
        t_next = timer
    return t_next


@njit(cache=True)
def advance(t, t_next, cur, ncur, fin, rem, size, frate, pstart, done, completion_rtol, lf, ls,
            le, lv, cf, cs, ce, cv, nc, held, ostart, hidx, hblk, hpart, htot, sent, first_win,
            wins, wdone, nw, ended, ends):
    """Advance the running flows from ``t`` to ``t_next`` (``fin`` from :func:`flow_ends`):
    ``rem -= rate x (min(fin, t_next) - t)``; a flow completes when ``fin <= t_next`` or
    ``rem <= completion_rtol x size``, its piece closed at ``fin`` or ``t_next`` (running
    flows in index order), and is listed in ``ended`` with that end in ``ends``; held, its
    ``sent`` is set and it is added to the window's finished flows ``wdone[:nw]``.  Returns
    ``(nc, running flows left in cur, flows ended, hidx, nw)``."""
    k = 0
    ne = 0
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
            if held:
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
            ended[ne] = f
            ends[ne] = end
            ne += 1
        else:
            cur[k] = f
            k += 1
    return nc, k, ne, hidx, nw


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
    held = window > 0
    (frate, nrate, pstart, cur, newf, fin, ended, ends, ostart, hblk, hpart,
     htot) = step_state(F, held)
    ncur = 0
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
            move_slot(slot_cof, blk, slot_of, c,
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
                    move_slot(slot_cof, blk, slot_of, c, s)
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
                            move_slot(slot_cof, blk, slot_of, c, level[c] * K + fifo[c])
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
        nc, closed, hidx = change_rates(t, cur, ncur, srt, nnew, nrate, frate, pstart, lf, ls,
                                        le, lv, cf, cs, ce, cv, nc, held, ostart, hidx, hblk,
                                        hpart, htot, first_win, wins)
        npieces += closed
        ncur = nnew
        # sink mode: cut a window at t once the buffer is full enough (docstring)
        if held and nc >= window:
            npieces += cut(t, cur, ncur, pstart, frate, cf, cs, ce, cv, nc, first_win, wins,
                           wstat, nw)
            nc = 0
            nw = 0
            wins += 1
        if timer <= t:
            stats[0] = NO_FUTURE_EVENT     # a timer not after t cannot happen here
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
            c = flow_cof[f]
            unfinished[c] -= 1
            if unfinished[c] == 0:
                finished[c] = True
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
    stats[5] = walked
    stats[6] = found
    times[0] = t
