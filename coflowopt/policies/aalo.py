"""Aalo's non-clairvoyant coflow scheduling: D-CLAS (discretised coflow-aware least attained
service) and its continuous limit CLAS.

Both policies are *non-clairvoyant*: they read the flow set (which flows exist, on which ports,
which have finished) and the data each flow has sent (``SimState.sent``), never a size or a
remaining size (``SimState.remaining``, ``Instance.flow_size``).  The tests run them with both
poisoned.

D-CLAS (``aalo``, alias ``dclas``; dissertation Sec. 6.4, Pseudocode 4)
-----------------------------------------------------------------------
``K`` queues ``Q_1 .. Q_K`` of decreasing priority.  ``Q_i`` holds the coflows whose *attained
service* -- data sent, summed over all the coflow's flows, across the whole fabric -- lies in
``[Q_i^lo, Q_i^hi)``, with ``Q_1^lo = 0``, ``Q_1^hi`` = ``first_threshold`` (10 MB),
``Q_{i+1}^hi = E * Q_i^hi`` (``E = multiplier`` = 10) and ``Q_K^hi = inf``.  A coflow arrives in
``Q_1`` and is demoted when its attained service crosses its queue's upper threshold; the
crossing is a simulator timer, computed from the coflow's current total rate.

The allocation, recomputed from scratch at every release, coflow completion and threshold
crossing (flow completions: see ``on_flow_completion`` below):

* **Within a coflow**: max-min fair among its unfinished flows (progressive filling with equal
  weights; a coflow has no size information, so no MADD).
* **Within a queue**: FIFO -- by release time, then instance index (the dissertation's CoflowId
  is an arrival counter) -- each coflow taking what it can of the queue's share before the next.
* **Across queues** (``sharing="weighted"``, Pseudocode 4): queue ``Q_i`` has weight
  ``w_i = K - i + 1``.  On the big switch a share is a *per-port budget*: at every port ``p``
  the residual capacity is divided among the queues that have a flow through ``p`` which could
  still grow (both its ports have residual capacity), in proportion to their weights,
  ``b_{p,i} = res_p * w_i / sum_{j at p} w_j``.  Each queue then serves its coflows (FIFO,
  max-min inside a coflow) within its budgets -- a flow of ``Q_i`` from ``p`` to ``p'`` is limited
  by ``b_{p,i}`` and ``b_{p',i}``.  What a queue cannot use (its flows are limited at their other
  port) is the *excess*: the loop ``while fabric is not saturated`` repeats the division of the
  remaining residual capacity among the queues that can still use it, again in proportion to
  their weights, so excess goes max-min to the unsaturated queues.  After ``max_rounds`` rounds
  (or when a round adds nothing) a last strict-priority pass (queues in order, FIFO, max-min)
  hands out what is left, so every unfinished flow ends with a saturated port (work
  conservation at every event).
* ``sharing="strict"``: strict priority across queues (only that last pass), the scheme of
  coflowsim's ``CoflowSimulatorDark`` (which also shares a coflow's ports per flow instead of
  max-min).

**Flow completions** (``on_flow_completion``).  ``"idle"`` (default): nothing happens until
the next release, coflow completion or demotion -- Varys' choice "to avoid incessant
rescheduling" -- so a finished flow's bandwidth idles until then.  ``"backfill"``: the other
flows keep their rates and the freed bandwidth is handed out by the same rules (queues, weights,
FIFO, max-min) on the leftover capacity only, as Aalo's daemons do locally between coordinator
syncs ("a completed flow is replaced by a same-destination flow of the next coflow"): the
schedule is then work-conserving at every instant.  ``"reallocate"``: the idealised fluid model,
a full recomputation at every flow completion.  Why ``"idle"`` is the default: max-min inside a
coflow makes the flows of a large coflow finish at many different times, and the generic
simulator costs O(flows with a positive rate) per event.  On the first 200 coflows of the
Facebook trace ``"idle"`` takes 635 events (5 s) and ``"backfill"`` 16,834 (260 s); on the whole
trace ``"idle"`` takes 1,822 events (about a minute) and the others do not finish in an hour.
(With ``"idle"``, a demotion timer computed from rates that then drop because flows finished
fires before the crossing; it only triggers a recomputation and a new timer.)

**Engines.**  :func:`aalo` runs, by default, the whole simulation of the default mode
(``"idle"``, on a big switch) in one compiled event loop (:func:`dclas_simulate`): the queues
as slots ``queue x K + FIFO position``, attained service, group counts and open pieces kept
in the kernel across events, each event calling the same allocation (:func:`_dclas_allocate`).
:class:`AaloPolicy` on the generic simulator is the reference engine (``engine="python"``,
and every other mode); the two give the same pieces in the same order (``tests/test_aalo.py``).
:func:`aalo_windows` runs the same loop in its sink mode, handing the schedule over in time
windows that are never held (``run_schedule(..., keep_schedule=False)``, the CLI without
``--out``; ``tests/test_aalo_stream.py``): on the Facebook trace 2.75e7 pieces, a 1.88 GB peak
held, 0.47 GB windowed.

Defaults are the dissertation's: ``K = 10``, ``Q_1^hi = 10`` (MB: the instance's size unit in
traces read by :mod:`coflowopt.formats`), ``E = 10``.  Thresholds are absolute data amounts, so
scaling every size by a factor changes D-CLAS's decisions (scale ``first_threshold`` with it).

On resources (a topology)
-------------------------
Every rule above is per port, and carries over per resource with "a flow's two ports" read as
"every resource of its path": a queue's share is a budget on every resource (the residual of a
resource split among the queues with a growable flow through it), a flow is limited by its
queue's budget on each resource of its path, and max-min inside a coflow is progressive filling
over the resources of its flows' paths (the flows of one path form one item).  The attained
service and the queues do not depend on the network at all.  This is the natural reading of
Pseudocode 4, whose fabric is a big switch; that it is *Aalo's* behaviour on a multi-hop
network is our reconstruction (Aalo's daemons enforce rates at the end hosts, and the paper
assumes a full-bisection fabric).  The big switch keeps its kernels; the kernels over paths do
the same operations in the same order, so a big switch written as paths gives the same bits.
CLAS likewise: its LPs have one capacity row per resource.

CLAS (``clas``; Sec. 6.3, App. C.2)
-----------------------------------
The continuous limit: one queue per attained level.  Coflows are served in increasing order of
attained service with strict priority; coflows with *equal* attained service (a tie group) are
served so that none gets ahead of the others when it can be helped: their total rates form the
max-min fair (lexicographically maximal sorted) vector on the capacity left by lower levels --
the fluid limit of byte-level round robin among them (two identical coflows share and both take
twice their isolated time, footnote 3 of Sec. 6.2).  Inside a coflow the rates are then the
max-min fair split that achieves those totals.  Coflows of a tie group whose rates differ
separate at once (the slower one keeps the priority, and by the max-min property gets exactly the
same rate with it); a lower level that grows faster than the level above catches it up, which is
a timer event after which the two form one tie group.  Each level's rates come from a sequence of
small LPs (HiGHS, status read back): CLAS is for small instances (tag ``slow``).

References
----------
M. Chowdhury, "Coflow: A Networking Abstraction for Distributed Data-Parallel Applications", PhD
dissertation, UC Berkeley, 2015: Ch. 6 (Aalo), Sec. 6.3 (CLAS), Sec. 6.4 and Pseudocode 4
(D-CLAS), Fig. 6.1 (CLAS average CCT 4), App. C.2 (continuous vs discretised priorities);
M. Chowdhury, I. Stoica, "Efficient Coflow Scheduling Without Prior Knowledge", SIGCOMM 2015.
Code: ``coflow/coflowsim`` ``src/main/java/coflowsim/simulators/CoflowSimulatorDark.java``
(``NUM_JOB_QUEUES = 10``, ``INIT_QUEUE_LIMIT = 10 MB``, ``JOB_SIZE_MULT = 10``).  Max-min
fairness by progressive filling: Bertsekas and Gallager, *Data Networks*, Sec. 6.5.2.
"""

from __future__ import annotations

import math

import numpy as np

from ..exceptions import InvalidParameterError, SolverError
from ..instance import Instance
from ..limits import SIZE_MIN, TIE_RTOL_MIN, TOL_REL_MAX, check_tolerance
from ..rates._fill_kernel import fill_scratch, weighted_fill
from ..rates._madd_kernel import _attained, _path_blocked, weighted_fill_paths
from ..rates._pieces import close_pieces, cut_window
from ..rates.greedy import priority_flow_order
from ..rates.madd import (WINDOW_PIECES, _pair_groups, _path_groups, _refuse_python,
                          check_engine, held_as_window)
from ..registry import register
from ..schedule import Schedule
from ..simulate import FinishedFlows, SimState, simulate
from ._keyed_order import KeyedOrder

from ..rates._jit import njit  # lazy numba, compile announced (see rates/_jit)
from .._index_ranges import concat_ranges
from .._simulate_kernel import next_coflow_completion
from ._class_kernel import BLOCK
from ._mlfq_kernel import (advance, change_rates, flow_ends, move_slot, next_event,
                           step_state)

__all__ = ["aalo", "aalo_windows", "clas", "AaloPolicy", "ClasPolicy", "queue_thresholds", "SHARING",
           "ON_FLOW_COMPLETION", "coflow_attained"]

#: Accepted values of ``sharing`` (see the module docstring).
SHARING = ("weighted", "strict")
#: Accepted values of ``on_flow_completion`` (see the module docstring).
ON_FLOW_COMPLETION = ("backfill", "reallocate", "idle")


#: The most queues D-CLAS / MLFQ may be given: thresholds are geometric, so more queues than
#: this is a typo (10^30 was an internal error: numpy's "Maximum allowed size exceeded").
MAX_QUEUES = 10_000


def queue_thresholds(num_queues: int = 10, first_threshold: float = 10.0,
                     multiplier: float = 10.0) -> np.ndarray:
    """Upper thresholds ``Q_1^hi .. Q_{K-1}^hi`` of D-CLAS's queues (``Q_K^hi`` is infinite).

    Parameters
    ----------
    num_queues : int >= 1
    first_threshold : float > 0
        ``Q_1^hi`` (instance size unit).
    multiplier : float > 1
        ``E``: ``Q_{i+1}^hi = E * Q_i^hi``.

    Returns
    -------
    ndarray, shape (num_queues - 1,)

    Raises
    ------
    InvalidParameterError
        Naming the parameter that is out of range.

    Examples
    --------
    >>> queue_thresholds(4, 10, 10).tolist()
    [10.0, 100.0, 1000.0]
    """
    if isinstance(num_queues, bool) or not isinstance(num_queues, (int, np.integer)) \
            or not 1 <= num_queues <= MAX_QUEUES:
        raise InvalidParameterError(f"num_queues must be an integer with 1 <= num_queues <= "
                                    f"{MAX_QUEUES} (MAX_QUEUES), got {num_queues!r}")
    for name, v, lo in (("first_threshold", first_threshold, 0.0), ("multiplier", multiplier,
                                                                      1.0)):
        try:
            x = float(v)
        except (TypeError, ValueError):
            raise InvalidParameterError(f"{name} must be a number, got {v!r}") from None
        if not math.isfinite(x) or x <= lo:
            raise InvalidParameterError(f"{name} must be finite and > {lo:g}, got {v!r}")
    # a threshold is an amount of data: below the smallest size an instance may hold (1e-320)
    # every coflow crossed it at once and the policy stopped as "makes no progress"
    if float(first_threshold) < SIZE_MIN:
        raise InvalidParameterError(f"first_threshold must be at least {SIZE_MIN:g} (SIZE_MIN, "
                                    f"coflowopt.limits: a threshold is an amount of data), got "
                                    f"{first_threshold!r}")
    top = math.log10(float(first_threshold)) + (int(num_queues) - 2) * math.log10(float(multiplier))
    if num_queues > 1 and top > 308:
        # an infinite threshold would leave the queues above it empty, and numpy warns on
        # standard error while computing it
        raise InvalidParameterError(
            f"num_queues, first_threshold and multiplier give a last threshold Q_{num_queues - 1}"
            f"^hi = first_threshold * multiplier^{num_queues - 2} of about 1e{top:.0f}, beyond "
            "float64 (1.8e308): fewer queues or a smaller multiplier")
    return float(first_threshold) * float(multiplier) ** np.arange(int(num_queues) - 1)


def coflow_attained(instance: Instance, sent, coflows) -> np.ndarray:
    """Attained service of ``coflows``: data sent, summed over all of each coflow's flows.

    ``sent`` is the per-flow array or a :class:`~coflowopt.simulate.SimState` (read through
    ``sent_of``, so that only these coflows' flows are computed).  Each coflow's sum depends on
    its own flows only, so a subset gives the same values as the whole."""
    cf = np.asarray(coflows, dtype=np.int64)
    if cf.size == 0:
        return np.zeros(0)
    counts = np.diff(instance.flow_ptr)[cf]
    fl = priority_flow_order(instance, cf)
    values = sent.sent_of(fl) if isinstance(sent, SimState) else sent[fl]
    return np.add.reduceat(values, np.cumsum(counts) - counts)


# ---------------------------------------------------------------------------------- kernel
@njit(cache=True)
def _fill_coflow(k, grp_ptr, grp_src, grp_dst, gcount, budget, tol, grate, used, it_w, it_p1,
                 it_p2, it_g, it_lam, fbuf, ibuf, done, adj, counter):
    """Max-min fair fill of coflow ``k``'s unfinished flows within ``budget`` (updated in
    place); a pair group of ``c`` flows is one item of weight ``c``.  Returns the amount
    added (counted once per flow)."""
    n = 0
    for g in range(grp_ptr[k], grp_ptr[k + 1]):
        if gcount[g] > 0 and budget[grp_src[g]] > tol[grp_src[g]] and \
                budget[grp_dst[g]] > tol[grp_dst[g]]:
            it_w[n] = gcount[g]
            it_p1[n] = grp_src[g]
            it_p2[n] = grp_dst[g]
            it_g[n] = g
            n += 1
    if n == 0:
        return 0.0
    weighted_fill(n, it_w, it_p1, it_p2, budget, it_lam, fbuf, ibuf, done, adj, counter)
    added = 0.0
    for t in range(n):
        i = it_p1[t]
        j = it_p2[t]
        a = it_w[t] * it_lam[t]
        # the filling keeps every port within budget up to rounding: clamp that rounding
        if a > budget[i]:
            a = budget[i]
        if a > budget[j]:
            a = budget[j]
        if a <= 0.0:
            continue
        grate[it_g[t]] += a / it_w[t]
        budget[i] -= a
        budget[j] -= a
        if budget[i] < 0.0:
            budget[i] = 0.0
        if budget[j] < 0.0:
            budget[j] = 0.0
        used[i] += a
        used[j] += a
        added += a
    return added


@njit(cache=True)
def _open_ports(vals, tol, m_in, opn):
    """Mark in ``opn`` the ports whose ``vals`` (a budget row or the residual) exceed their
    ``tol``; return the numbers of open ingress (``p < m_in``) and open egress ports."""
    ni = 0
    ne = 0
    for p in range(vals.shape[0]):
        o = vals[p] > tol[p]
        opn[p] = o
        if o:
            if p < m_in:
                ni += 1
            else:
                ne += 1
    return ni, ne


@njit(cache=True)
def _closed_by(k, grp_ptr, grp_src, grp_dst, vals, tol, opn):
    """After a fill of coflow ``k`` from ``vals``: unmark in ``opn`` the ports of its groups
    that it closed (only they can have changed); return how many ingress and egress ports."""
    ci = 0
    ce = 0
    for g in range(grp_ptr[k], grp_ptr[k + 1]):
        i = grp_src[g]
        if opn[i] and not vals[i] > tol[i]:
            opn[i] = False
            ci += 1
        j = grp_dst[g]
        if opn[j] and not vals[j] > tol[j]:
            opn[j] = False
            ce += 1
    return ci, ce


@njit(cache=True, borrowed=True)
def _mask_set(cmask, k, grp_ptr, grp_src, grp_dst, gcount, m_in, wi):
    """Row ``k`` of ``cmask``: the ports of coflow ``k``'s unfinished groups as bits, ingress
    port ``i`` at bit ``i`` of words ``[0, wi)``, egress port ``e`` at bit ``e - m_in`` of
    the words from ``wi`` on."""
    for w in range(cmask.shape[1]):
        cmask[k, w] = 0
    for g in range(grp_ptr[k], grp_ptr[k + 1]):
        if gcount[g] > 0:
            i = grp_src[g]
            cmask[k, i >> 6] |= np.uint64(1) << np.uint64(i & 63)
            e = grp_dst[g] - m_in
            cmask[k, wi + (e >> 6)] |= np.uint64(1) << np.uint64(e & 63)


@njit(cache=True, borrowed=True)
def _open_mask(om, r, opn, q, m_in, wi):
    """Row ``r`` of ``om``: the ports open in ``opn[q]`` as bits (:func:`_mask_set`'s
    layout)."""
    for w in range(om.shape[1]):
        om[r, w] = 0
    for p in range(opn.shape[1]):
        if opn[q, p]:
            b = p if p < m_in else p - m_in
            w = b >> 6 if p < m_in else wi + (b >> 6)
            om[r, w] |= np.uint64(1) << np.uint64(b & 63)


@njit(cache=True, borrowed=True)
def _close_mask(om, r, opn, q, k, grp_ptr, grp_src, grp_dst, m_in, wi):
    """After :func:`_closed_by` for coflow ``k``: clear in ``om[r]`` its ports that ``opn[q]``
    no longer has open."""
    for g in range(grp_ptr[k], grp_ptr[k + 1]):
        i = grp_src[g]
        if not opn[q, i]:
            om[r, i >> 6] &= ~(np.uint64(1) << np.uint64(i & 63))
        e = grp_dst[g]
        if not opn[q, e]:
            b = e - m_in
            om[r, wi + (b >> 6)] &= ~(np.uint64(1) << np.uint64(b & 63))


@njit(cache=True, borrowed=True)
def _may_pair(cmask, k, om, r, wi):
    """Whether coflow ``k`` has an unfinished group's ingress port and an unfinished group's
    egress port open in ``om[r]``: necessary for a group with both ports open."""
    for w in range(wi):
        if cmask[k, w] & om[r, w]:
            for x in range(wi, cmask.shape[1]):
                if cmask[k, x] & om[r, x]:
                    return True
            return False
    return False


#: ``cmask`` of a :func:`_dclas_allocate` call without port masks (the Python engine)
_NO_MASK = np.zeros((0, 1), dtype=np.uint64)


@njit(cache=True)
def _queue_end(live, oq, i, nl):
    """The first index after ``i`` in ``live[:nl]`` whose coflow is in a later queue than
    ``live[i]``'s (``oq`` does not decrease along ``live``: binary search)."""
    q = oq[live[i]]
    lo = i + 1
    hi = nl
    while lo < hi:
        mid = (lo + hi) // 2
        if oq[live[mid]] > q:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=True)
def _dclas_allocate(order, oq, qweight, rounds, grp_ptr, grp_lo, grp_hi, grp_src, grp_dst,
                    gflows, flow_done, cap, tol, gcount, grate, budget, has, used, res, it_w,
                    it_p1, it_p2, it_g, it_lam, fbuf, ibuf, done, adj, counter, out_f, out_r,
                    kept, cnt, pcnt, m_in, cmask):
    """One D-CLAS allocation (module docstring): ``order`` lists the active coflows by queue
    then FIFO, ``oq`` their queues.  Writes the flows with a positive rate to ``out_f`` /
    ``out_r`` and returns their number.

    ``kept``: the caller keeps ``gcount`` (unfinished flows per group) and ``cnt[q, p]`` (the
    unfinished groups of the active coflows of queue ``q`` at port ``p``, counted once per
    end) across calls, every port's ``cap`` is above its ``tol``, and ``grate`` is zero on
    entry (it is zeroed on exit).  The first pass is then not needed: every coflow of
    ``order`` has an unfinished group and grows on the full capacities, and the first round's
    queue presence is ``cnt > 0`` -- the same values the pass computes, without reading every
    flow of every active coflow at every event.

    ``pcnt[q, i, e - m_in]`` (kept alike): the unfinished groups of queue ``q``'s active
    coflows from ingress ``i`` to egress ``e``.  With ``kept``, a later round's queue
    presence comes from it (a pair counted there with both ports open on the residual), and
    the coflows that can no longer grow on the residual are dropped from the list as the
    round's fill loop reaches them, instead of in a pass over the whole list before it: the
    same presence, budgets and fills (see the loop).

    ``m_in``: the number of ingress ports (ports ``< m_in``; the rest are egress ports).  A
    queue with no open ingress or no open egress port left on its budgets is passed over for
    the rest of a round, and the strict pass ends when the residual has none: the same fills,
    without visiting the coflows that could not get any (see the loop).

    ``cmask`` (with ``kept``; ``(0, w)`` for none): each coflow's ports of unfinished groups
    as bits (:func:`_mask_set`, kept by the caller).  A round's walk then tests a coflow on
    its row against the queue's open ports as bits before reading its groups: without an
    open ingress and an open egress port among them it has no group to fill (nor, on the
    residual, to stay in the list), which is what the groups would say.
    """
    P = cap.shape[0]
    nq = qweight.shape[0]
    # ``tol`` is per port (relative to each capacity); a round that added less than the
    # smallest of them changed nothing that matters anywhere
    tmin = np.inf
    for p in range(P):
        if tol[p] < tmin:
            tmin = tol[p]
    for p in range(P):
        used[p] = 0.0
        res[p] = cap[p]
    # ``live[:nl]``: the positions (in ``order``) of the coflows with a group that can grow on
    # the residual ``res``.  ``res`` only falls during a call and every budget is at most it,
    # so a coflow blocked on ``res`` stays blocked and the list only shrinks; every pass after
    # the first visits it alone.  Skipping a blocked coflow changes nothing (its fill would
    # add 0.0), so the allocation is the same bits as visiting all; at 50,000 coflows the
    # visits to blocked coflows in up to ``rounds`` rounds were most of an event's time.  The
    # first pass also records the first round's queue presence (same residual), and the
    # output reads only the coflows that were filled (``got``).
    live = np.empty(order.shape[0], dtype=np.int64)
    nl = 0
    if kept:
        for q in range(nq):
            for p in range(P):
                has[q, p] = cnt[q, p] > 0
        for a in range(order.shape[0]):
            live[a] = a
        nl = order.shape[0]
    else:
        for q in range(nq):
            for p in range(P):
                has[q, p] = False
        for a in range(order.shape[0]):
            k = order[a]
            grows = False
            for g in range(grp_ptr[k], grp_ptr[k + 1]):
                c = 0
                for x in range(grp_lo[g], grp_hi[g]):
                    if not flow_done[gflows[x]]:
                        c += 1
                gcount[g] = c
                grate[g] = 0.0
                if c > 0 and res[grp_src[g]] > tol[grp_src[g]] and \
                        res[grp_dst[g]] > tol[grp_dst[g]]:
                    # the first round's queue presence, on the same residual
                    has[oq[a], grp_src[g]] = True
                    has[oq[a], grp_dst[g]] = True
                    grows = True
            if grows:
                live[nl] = a
                nl += 1
    # got[a]: coflow order[a] was filled at least once (only those can have a rate)
    got = np.zeros(order.shape[0], dtype=np.bool_)
    opn = np.empty((nq, P), dtype=np.bool_)
    oin = np.empty(nq, dtype=np.int64)
    oeg = np.empty(nq, dtype=np.int64)
    open_in = np.empty(P, dtype=np.int64)
    open_eg = np.empty(P, dtype=np.int64)
    use_mask = kept and cmask.shape[0] > 0
    wi = (m_in + 63) >> 6
    om = np.empty((nq + 1 if use_mask else 0, cmask.shape[1]), dtype=np.uint64)
    for r_ in range(rounds):
        if r_ > 0:
            for q in range(nq):
                for p in range(P):
                    has[q, p] = False
            ri, re_ = _open_ports(res, tol, m_in, opn[0])
            if use_mask:
                _open_mask(om, nq, opn, 0, m_in, wi)    # the residual's open ports
            if ri == 0 or re_ == 0:
                nl = 0          # no group has both ports open on the residual
            elif kept:
                # the presence from the pair counts: the pairs of a queue with an unfinished
                # group and both ports open on the residual -- what a pass over the coflows
                # of the list finds (a coflow that left it cannot grow: the residual only
                # falls), without the pass
                ni = 0
                ne = 0
                for p in range(P):
                    if opn[0, p]:
                        if p < m_in:
                            open_in[ni] = p
                            ni += 1
                        else:
                            open_eg[ne] = p
                            ne += 1
                present = False
                for q in range(nq):
                    for x in range(ni):
                        i = open_in[x]
                        if cnt[q, i] == 0:
                            continue
                        for y in range(ne):
                            e = open_eg[y]
                            if pcnt[q, i, e - m_in] > 0:
                                has[q, i] = True
                                has[q, e] = True
                                present = True
                if not present:
                    nl = 0
            else:
                m = 0
                for i in range(nl):
                    a = live[i]
                    k = order[a]
                    q = oq[a]
                    grows = False
                    for g in range(grp_ptr[k], grp_ptr[k + 1]):
                        if gcount[g] > 0 and res[grp_src[g]] > tol[grp_src[g]] and \
                                res[grp_dst[g]] > tol[grp_dst[g]]:
                            has[q, grp_src[g]] = True
                            has[q, grp_dst[g]] = True
                            grows = True
                    if grows:
                        live[m] = a
                        m += 1
                nl = m
        if nl == 0:
            break
        # each port's residual split among the queues present there, by weight
        for p in range(P):
            W = 0.0
            for q in range(nq):
                if has[q, p]:
                    W += qweight[q]
            for q in range(nq):
                budget[q, p] = res[p] * qweight[q] / W if has[q, p] else 0.0
        # each queue's open ingress and egress ports on its budgets: a queue with none open on
        # one side has no group that can grow (a group needs both its ports open), and its
        # budgets only fall during the round, so the rest of its coflows are passed over --
        # coflows the scan would visit without filling (in a call measured at 50,000 coflows,
        # Q_1 had no open egress port after 10,496 of its 48,552 coflows)
        for q in range(nq):
            oin[q], oeg[q] = _open_ports(budget[q], tol, m_in, opn[q])
            if use_mask:
                _open_mask(om, q, opn, q, m_in, wi)
        added = 0.0
        i = 0
        # with ``kept`` the list is compacted here: a coflow reached that has no group open on
        # the residual (fixed during the round) is dropped -- the refilter's test on the same
        # residual, so the list after round r holds the refilter's coflows up to where the
        # scan went and the coflows passed over beyond (kept: they are tested when reached in
        # a later round or the strict pass, and a blocked one is never filled); a coflow is
        # filled only when it is in the refilter's list and a group is open on its budgets
        m = 0
        while i < nl:
            a = live[i]
            k = order[a]
            q = oq[a]
            if oin[q] == 0 or oeg[q] == 0:
                j = _queue_end(live, oq, i, nl)
                if kept:
                    for x in range(i, j):
                        live[m] = live[x]
                        m += 1
                i = j
                continue
            alive = not kept or r_ == 0
            fill = False
            # the masks rule out a fill (and, on the residual, staying) for most coflows
            # reached; ``alive`` is then what the groups would leave it
            skip = use_mask and not _may_pair(cmask, k, om, q, wi) and \
                (alive or not _may_pair(cmask, k, om, nq, wi))
            for g in range(grp_ptr[k], grp_ptr[k + 1] if not skip else grp_ptr[k]):
                if gcount[g] > 0:
                    s = grp_src[g]
                    d = grp_dst[g]
                    if not alive and res[s] > tol[s] and res[d] > tol[d]:
                        alive = True
                    if not fill and budget[q, s] > tol[s] and budget[q, d] > tol[d]:
                        fill = True
                    if alive and fill:
                        break
            # the call with nothing to fill returns 0.0 and changes nothing: skipped in line
            # (two dozen array arguments make the call itself costly)
            if alive and fill:
                added += _fill_coflow(k, grp_ptr, grp_src, grp_dst, gcount, budget[q],
                                      tol, grate, used, it_w, it_p1, it_p2, it_g, it_lam,
                                      fbuf, ibuf, done, adj, counter)
                got[a] = True
                ci, ce = _closed_by(k, grp_ptr, grp_src, grp_dst, budget[q], tol, opn[q])
                oin[q] -= ci
                oeg[q] -= ce
                if use_mask and ci + ce > 0:
                    _close_mask(om, q, opn, q, k, grp_ptr, grp_src, grp_dst, m_in, wi)
            if kept and alive:
                live[m] = a
                m += 1
            i += 1
        if kept:
            nl = m
        for p in range(P):
            r = cap[p] - used[p]
            res[p] = r if r > 0.0 else 0.0
        if added <= tmin:
            break
    # what is left: strict priority (queue order, FIFO, max-min), for work conservation;
    # over once no ingress or no egress port is open on the residual
    ri, re_ = _open_ports(res, tol, m_in, opn[0])
    for i in range(nl):
        if ri == 0 or re_ == 0:
            break
        a = live[i]
        k = order[a]
        for g in range(grp_ptr[k], grp_ptr[k + 1]):
            if gcount[g] > 0 and res[grp_src[g]] > tol[grp_src[g]] and \
                    res[grp_dst[g]] > tol[grp_dst[g]]:
                _fill_coflow(k, grp_ptr, grp_src, grp_dst, gcount, res, tol, grate, used,
                             it_w, it_p1, it_p2, it_g, it_lam, fbuf, ibuf, done, adj, counter)
                got[a] = True
                ci, ce = _closed_by(k, grp_ptr, grp_src, grp_dst, res, tol, opn[0])
                ri -= ci
                re_ -= ce
                break
    n = 0
    for a in range(order.shape[0]):
        if not got[a]:
            continue
        k = order[a]
        for g in range(grp_ptr[k], grp_ptr[k + 1]):
            if grate[g] > 0.0:
                for x in range(grp_lo[g], grp_hi[g]):
                    f = gflows[x]
                    if not flow_done[f]:
                        out_f[n] = f
                        out_r[n] = grate[g]
                        n += 1
                grate[g] = 0.0      # zero on exit: only the filled coflows' groups are set
    return n


# The same two kernels on an instance over resources: a group is a coflow's flows with one
# path (``_path_groups``: the CSR ``grp_rptr``/``grp_rres``), and "the group's two ports" is
# read as "every resource of its path", in path order, with the floating-point operations in
# the same order, so that a big switch written as paths [ingress, m_in + egress] gives the
# same bits (tested).  The big-switch kernels above are kept untouched.
@njit(cache=True)
def _fill_coflow_paths(k, grp_ptr, grp_rptr, grp_rres, gcount, budget, tol, grate, used, it_w,
                       it_g, it_lam, fbuf, ibuf, done, adj, counter):
    """:func:`_fill_coflow` over paths: max-min fair fill of coflow ``k``'s unfinished flows
    within ``budget`` (per resource, updated in place); a path group of ``c`` flows is one
    item of weight ``c`` that freezes when the first resource of its path fills."""
    n = 0
    for g in range(grp_ptr[k], grp_ptr[k + 1]):
        if gcount[g] > 0 and not _path_blocked(budget, tol, grp_rptr, grp_rres, g):
            it_w[n] = gcount[g]
            it_g[n] = g
            n += 1
    if n == 0:
        return 0.0
    weighted_fill_paths(n, it_w, it_g, grp_rptr, grp_rres, budget, it_lam, fbuf, ibuf, done,
                        adj, counter)
    added = 0.0
    for t in range(n):
        g = it_g[t]
        a = it_w[t] * it_lam[t]
        # the filling keeps every resource within budget up to rounding: clamp that rounding
        for x in range(grp_rptr[g], grp_rptr[g + 1]):
            if a > budget[grp_rres[x]]:
                a = budget[grp_rres[x]]
        if a <= 0.0:
            continue
        grate[g] += a / it_w[t]
        for x in range(grp_rptr[g], grp_rptr[g + 1]):
            p = grp_rres[x]
            budget[p] -= a
            if budget[p] < 0.0:
                budget[p] = 0.0
            used[p] += a
        added += a
    return added


@njit(cache=True)
def _dclas_allocate_paths(order, oq, qweight, rounds, grp_ptr, grp_lo, grp_hi, grp_rptr,
                          grp_rres, gflows, flow_done, cap, tol, gcount, grate, budget, has,
                          used, res, it_w, it_g, it_lam, fbuf, ibuf, done, adj, counter, out_f,
                          out_r):
    """:func:`_dclas_allocate` over paths: each resource's residual is split among the queues
    with a growable flow through it (every resource of the flow's path), by weight; each
    queue fills its coflows (FIFO, max-min inside a coflow) within its budgets on every
    resource; the excess is redistributed for ``rounds`` rounds, then a strict-priority pass."""
    P = cap.shape[0]
    nq = qweight.shape[0]
    tmin = np.inf
    for p in range(P):
        if tol[p] < tmin:
            tmin = tol[p]
    for p in range(P):
        used[p] = 0.0
        res[p] = cap[p]
    # the shrinking list of coflows that can grow on ``res`` (as in _dclas_allocate)
    live = np.empty(order.shape[0], dtype=np.int64)
    nl = 0
    for q in range(nq):
        for p in range(P):
            has[q, p] = False
    for a in range(order.shape[0]):
        k = order[a]
        grows = False
        for g in range(grp_ptr[k], grp_ptr[k + 1]):
            c = 0
            for x in range(grp_lo[g], grp_hi[g]):
                if not flow_done[gflows[x]]:
                    c += 1
            gcount[g] = c
            grate[g] = 0.0
            if c > 0 and not _path_blocked(res, tol, grp_rptr, grp_rres, g):
                for x in range(grp_rptr[g], grp_rptr[g + 1]):
                    has[oq[a], grp_rres[x]] = True
                grows = True
        if grows:
            live[nl] = a
            nl += 1
    got = np.zeros(order.shape[0], dtype=np.bool_)
    for r_ in range(rounds):
        if r_ > 0:
            for q in range(nq):
                for p in range(P):
                    has[q, p] = False
            m = 0
            for i in range(nl):
                a = live[i]
                k = order[a]
                q = oq[a]
                grows = False
                for g in range(grp_ptr[k], grp_ptr[k + 1]):
                    if gcount[g] > 0 and not _path_blocked(res, tol, grp_rptr, grp_rres, g):
                        for x in range(grp_rptr[g], grp_rptr[g + 1]):
                            has[q, grp_rres[x]] = True
                        grows = True
                if grows:
                    live[m] = a
                    m += 1
            nl = m
        if nl == 0:
            break
        for p in range(P):
            W = 0.0
            for q in range(nq):
                if has[q, p]:
                    W += qweight[q]
            for q in range(nq):
                budget[q, p] = res[p] * qweight[q] / W if has[q, p] else 0.0
        added = 0.0
        for i in range(nl):
            a = live[i]
            k = order[a]
            q = oq[a]
            for g in range(grp_ptr[k], grp_ptr[k + 1]):
                if gcount[g] > 0 and not _path_blocked(budget[q], tol, grp_rptr, grp_rres, g):
                    added += _fill_coflow_paths(k, grp_ptr, grp_rptr, grp_rres, gcount,
                                                budget[q], tol, grate, used, it_w, it_g,
                                                it_lam, fbuf, ibuf, done, adj, counter)
                    got[a] = True
                    break
        for p in range(P):
            r = cap[p] - used[p]
            res[p] = r if r > 0.0 else 0.0
        if added <= tmin:
            break
    for i in range(nl):
        a = live[i]
        k = order[a]
        for g in range(grp_ptr[k], grp_ptr[k + 1]):
            if gcount[g] > 0 and not _path_blocked(res, tol, grp_rptr, grp_rres, g):
                _fill_coflow_paths(k, grp_ptr, grp_rptr, grp_rres, gcount, res, tol, grate,
                                   used, it_w, it_g, it_lam, fbuf, ibuf, done, adj, counter)
                got[a] = True
                break
    n = 0
    for a in range(order.shape[0]):
        if not got[a]:
            continue
        k = order[a]
        for g in range(grp_ptr[k], grp_ptr[k + 1]):
            if grate[g] > 0.0:
                for x in range(grp_lo[g], grp_hi[g]):
                    f = gflows[x]
                    if not flow_done[f]:
                        out_f[n] = f
                        out_r[n] = grate[g]
                        n += 1
    return n


# ------------------------------------------------------------------ the compiled event loop
# ``dclas_simulate``: the generic simulator (:func:`coflowopt.simulate.simulate`) and
# :class:`AaloPolicy` in one kernel, for the default mode (``on_flow_completion="idle"``) on a
# big switch whose every port can carry traffic (the policy's ``_kept`` path).  Why: at 20,000
# coflows the per-event numpy of the simulator and of the policy around the D-CLAS kernel was
# 43 s of a run against 29 s in the kernel itself (bench_scale_profiles.md).  The queues'
# order is kept as slots ``queue x K + FIFO position`` (as ``mlfq``'s levels) instead of a
# ``KeyedOrder``; the allocation is the same :func:`_dclas_allocate`.  Same bits as the Python
# engine (``tests/test_aalo.py``): every float operation is the one the Python path does, in
# the same order --
#
# * the simulator (``reschedule_on = {release, coflow_completion, timer}``): ``fin = t + rem /
#   rate``; the next event ``min(next coflow completion, next release, timer)``, a coflow
#   completing when every unfinished flow of it has a rate, at the latest ``fin`` of them;
#   with none of the three, the next flow completion (and a call there); ``rem -= rate x
#   (min(fin, t_next) - t)``; a flow completes when ``fin <= t_next`` or ``rem <=
#   COMPLETION_RTOL x size``; pieces closed at a call when a flow's rate changes (index
#   order), then at each event the finished flows' (index order): the step of ``mlfq``'s
#   loop (``_mlfq_kernel.change_rates``, ``flow_ends``, ``next_event``, ``advance``), shared;
# * the policy: the attained service of the coflows served at the last call and of those
#   released since, ``np.add.reduceat``'s sum of ``size - rem`` over the coflow's flows
#   (``_madd_kernel._attained``); the queue the number of ``H x (1 - 1e-9)`` at most that,
#   never lower; the total rate of a served coflow its flows' rates summed in the
#   allocation's order (``np.add.at``); a crossing at ``t + (H[q] - att) / rate``, applied
#   at once (demotion, allocation redone) when it is not after ``t``;
# * the allocation's walk: each coflow's ports of unfinished groups as bits (``cmask``, rebuilt
#   for a coflow when one of its groups finishes), so that ``_dclas_allocate`` passes over a
#   coflow with no open port pair without reading its groups (70 % of the schedule's time at
#   50,000 coflows was that walk: experiments/results/aalo_50k_profile.md).
#
# numba's cache of ``dclas_simulate`` is stamped with this file and the kernel files it
# imports from (``rates/_jit.kernel_dependency_stamp``), so an edit of ``_dclas_allocate``
# here, of ``_fill_kernel.py`` or of ``_mlfq_kernel.py`` recompiles it.

#: Status codes of :func:`dclas_simulate` (``stats[0]``): finished, more than ``max_events``
#: events, no future event while released coflows are unfinished.
SIM_OK = 0
SIM_TOO_MANY_EVENTS = 1
SIM_NO_FUTURE_EVENT = 2


@njit(cache=True, borrowed=True)
def _count_coflow(c, q, sign, grp_ptr, grp_src, grp_dst, gcount, cnt, pcnt, m_in):
    """Add (``sign = 1``) or remove coflow ``c``'s unfinished groups to / from ``cnt[q]``
    and ``pcnt[q]`` (``AaloPolicy._count_groups`` for one coflow)."""
    for g in range(grp_ptr[c], grp_ptr[c + 1]):
        if gcount[g] > 0:
            cnt[q, grp_src[g]] += sign
            cnt[q, grp_dst[g]] += sign
            pcnt[q, grp_src[g], grp_dst[g] - m_in] += sign


@njit(cache=True, borrowed=True)
def _demote(c, q, t, ndem, dem_t, dem_c, dem_q, queue, fifo, grp_ptr, grp_src, grp_dst,
            gcount, cnt, pcnt, m_in, slot_cof, blk, slot_of):
    """Coflow ``c`` moves to queue ``q`` at time ``t``: logged at entry ``ndem``, its
    unfinished groups counted under ``q`` instead, its slot moved; returns the next entry."""
    dem_t[ndem] = t
    dem_c[ndem] = c
    dem_q[ndem] = q
    _count_coflow(c, queue[c], -1, grp_ptr, grp_src, grp_dst, gcount, cnt, pcnt, m_in)
    queue[c] = q
    _count_coflow(c, q, 1, grp_ptr, grp_src, grp_dst, gcount, cnt, pcnt, m_in)
    move_slot(slot_cof, blk, slot_of, c, q * queue.shape[0] + fifo[c])
    return ndem + 1


@njit(cache=True)
def dclas_simulate(ptr, size, flow_cof, rel_order, fifo, hs, H, qweight, rounds, grp_ptr,
                   grp_lo, grp_hi, grp_src, grp_dst, gflows, flow_group, cap, tol, gcount,
                   grate, budget, has, used, res, it_w, it_p1, it_p2, it_g, it_lam, fbuf,
                   ibuf, fdone, adj, counter, out_f, out_r, cnt, pcnt, m_in, max_events,
                   completion_rtol, queue, dem_t, dem_c, dem_q, stats, times, window, fc,
                   lf, ls, le, lv, cf, cs, ce, cv, state):
    """Simulate D-CLAS (``on_flow_completion="idle"``, big switch, every port's capacity
    above its tolerance) from the first release until every coflow finishes (the comment
    above).

    ``window`` 0 keeps every piece in the chunk lists.  ``window > 0`` is the *sink mode* of
    :func:`coflowopt.rates._madd_kernel.madd_simulate` (:func:`aalo_windows`): once the write
    buffer holds ``window`` pieces after an event's allocation at time ``t``, every open piece
    is closed at ``t`` and reopened there with the same rate (the rates as functions of time,
    and so the simulation, are unchanged) and the buffer goes to
    :data:`coflowopt.rates._pieces.SINK` with ``window_end = t``; the last window at the end.
    The buffers must then hold ``window + 3 F`` pieces (between two checks a call and the flow
    completions close at most one piece per flow each, and a cut one more), so they never
    spill; ``fc`` (F, NaN on entry) receives each flow's completion time as it finishes, so
    that the sink can tell which flows finished in a window (empty when ``window`` is 0).

    Parameters
    ----------
    ptr, size, flow_cof : the instance's ``flow_ptr``, ``flow_size`` (float64), ``flow_coflow``
    rel_order : int64 (K,)
        The coflows by release (stable).
    fifo : int64 (K,)
        Each coflow's FIFO position (release, then index).
    hs, H : float64 (K_q - 1,)
        The queue thresholds times ``1 - 1e-9``, and the thresholds.
    qweight, rounds, grp_* ... out_r : as for :func:`_dclas_allocate` (``gcount``: each
        group's size on entry; ``cnt``: zeros)
    flow_group : int64 (F,)
        Each flow's pair group.
    m_in : int
        The number of ingress ports.
    max_events : int
    completion_rtol : float
        :data:`coflowopt.simulate.COMPLETION_RTOL`.
    queue : int64 (K,)
        Zeros on entry; on exit each coflow's last queue.
    dem_t, dem_c, dem_q : (K x (K_q - 1) + 1,)
        Output: the demotions ``(time, coflow, new queue)`` in the Python engine's order.
    stats : int64 (4,)
        Output: status, events, policy calls, demotions.
    times : float64 (K,)
        The releases on entry; on exit ``times[0]`` is the last event's time.
    window : int
        Pieces per window in sink mode; 0: hold every piece.
    fc : float64 (F,) or (0,)
        Output in sink mode: the flow completion times.
    lf ... state : :meth:`coflowopt.rates._pieces.PieceChunks.args`
        The pieces ``(flow, start, end, rate)`` in the simulator's order.
    """
    F = size.shape[0]
    K = ptr.shape[0] - 1
    nH = H.shape[0]
    nq = qweight.shape[0]
    rel_t = times.copy()
    rem = size.copy()
    done = np.zeros(F, dtype=np.bool_)
    finished = np.zeros(K, dtype=np.bool_)
    unfinished = np.empty(K, dtype=np.int64)
    for c in range(K):
        unfinished[c] = ptr[c + 1] - ptr[c]
    # each coflow's ports of unfinished groups as bits (_dclas_allocate's ``cmask``)
    wi = (m_in + 63) >> 6
    cmask = np.zeros((K, wi + ((cap.shape[0] - m_in + 63) >> 6)), dtype=np.uint64)
    for c in range(K):
        _mask_set(cmask, c, grp_ptr, grp_src, grp_dst, gcount, m_in, wi)
    num_slots = nq * K
    slot_cof = np.full(num_slots, -1, dtype=np.int64)
    blk = np.zeros(-(-num_slots // BLOCK), dtype=np.int64)
    slot_of = np.full(K, -1, dtype=np.int64)
    att = np.zeros(K)
    rk = np.zeros(K)
    served = np.empty(K, dtype=np.int64)   # the coflows with a rate at the last call
    ns = 0
    smark = np.zeros(K, dtype=np.bool_)
    fresh = np.empty(K, dtype=np.int64)
    fmark = np.zeros(K, dtype=np.bool_)
    order = np.empty(K, dtype=np.int64)
    oq = np.empty(K, dtype=np.int64)
    now_c = np.empty(K, dtype=np.int64)
    # the simulator's step (mlfq's), without its sink mode's sums (``ostart`` ... ``htot``
    # empty: ``fc`` stands for them)
    (frate, nrate, pstart, cur, newf, fin, ended, ends, ostart, hblk, hpart,
     htot) = step_state(F, False)
    ncur = 0
    nc = 0
    npieces = 0
    next_rel = 0
    prn = 0                       # the policy's release pointer
    nfin = 0
    events = 0
    calls = 0
    ndem = 0
    timer = np.inf
    force = True                  # the policy is always called at the first release
    why = False                   # a release, coflow completion or timer since the last call
    t = rel_t[rel_order[0]]
    while True:
        while next_rel < K and rel_t[rel_order[next_rel]] <= t:
            next_rel += 1
            why = True
        if nfin == K:
            break
        events += 1
        if events > max_events:
            stats[0] = SIM_TOO_MANY_EVENTS
            break
        nnew = 0
        if force or why:
            # ------------------------------------------------------------ the policy's call
            calls += 1
            timer = np.inf
            if next_rel > nfin:       # some released coflow is unfinished
                # the coflows whose attained service may have changed: served at the last
                # call or released since (new ones enter Q_1's slots and counts)
                nf = 0
                for i in range(ns):
                    c = served[i]
                    if not finished[c] and not fmark[c]:
                        fmark[c] = True
                        fresh[nf] = c
                        nf += 1
                for i in range(prn, next_rel):
                    c = rel_order[i]
                    _count_coflow(c, queue[c], 1, grp_ptr, grp_src, grp_dst, gcount, cnt,
                                      pcnt, m_in)
                    move_slot(slot_cof, blk, slot_of, c, queue[c] * K + fifo[c])
                    if not finished[c] and not fmark[c]:
                        fmark[c] = True
                        fresh[nf] = c
                        nf += 1
                prn = next_rel
                fs = np.sort(fresh[:nf])
                for i in range(nf):
                    c = fs[i]
                    fmark[c] = False
                    a = _attained(c, ptr, size, rem)
                    att[c] = a
                    lvl = 0
                    while lvl < nH and hs[lvl] <= a:
                        lvl += 1
                    if lvl > queue[c]:
                        ndem = _demote(c, lvl, t, ndem, dem_t, dem_c, dem_q, queue, fifo,
                                       grp_ptr, grp_src, grp_dst, gcount, cnt, pcnt, m_in,
                                       slot_cof, blk, slot_of)
                while True:
                    # the active coflows by (queue, FIFO): the occupied slots in order
                    na = 0
                    for b in range(blk.shape[0]):
                        if blk[b] == 0:
                            continue
                        hi = (b + 1) * BLOCK
                        if hi > num_slots:
                            hi = num_slots
                        for s in range(b * BLOCK, hi):
                            c = slot_cof[s]
                            if c >= 0:
                                order[na] = c
                                oq[na] = queue[c]
                                na += 1
                    n = _dclas_allocate(order[:na], oq[:na], qweight, rounds, grp_ptr, grp_lo,
                                        grp_hi, grp_src, grp_dst, gflows, done, cap, tol,
                                        gcount, grate, budget, has, used, res, it_w, it_p1,
                                        it_p2, it_g, it_lam, fbuf, ibuf, fdone, adj, counter,
                                        out_f, out_r, True, cnt, pcnt, m_in, cmask)
                    # each served coflow's total rate, summed in the allocation's order
                    ns = 0
                    for x in range(n):
                        c = flow_cof[out_f[x]]
                        if not smark[c]:
                            smark[c] = True
                            served[ns] = c
                            ns += 1
                        rk[c] += out_r[x]
                    served[:ns] = np.sort(served[:ns])
                    # the next crossing of a queue threshold; one not after t is applied now
                    nnow = 0
                    tmin = np.inf
                    for i in range(ns):
                        c = served[i]
                        smark[c] = False
                        r = rk[c]
                        rk[c] = 0.0
                        q = queue[c]
                        if q < nH and r > 0.0:
                            tc = t + (H[q] - att[c]) / r
                            if tc <= t:
                                now_c[nnow] = c
                                nnow += 1
                            elif tc < tmin:
                                tmin = tc
                    if nnow == 0:
                        timer = tmin
                        break
                    for i in range(nnow):
                        c = now_c[i]
                        ndem = _demote(c, queue[c] + 1, t, ndem, dem_t, dem_c, dem_q, queue,
                                       fifo, grp_ptr, grp_src, grp_dst, gcount, cnt, pcnt,
                                       m_in, slot_cof, blk, slot_of)
                for x in range(n):
                    f = out_f[x]
                    newf[nnew] = f
                    nnew += 1
                    nrate[f] = out_r[x]
            # ------------------------------------------------ the simulator: pieces by index
            srt = np.sort(newf[:nnew])
            nc, closed, _ = change_rates(t, cur, ncur, srt, nnew, nrate, frate, pstart, lf, ls,
                                         le, lv, cf, cs, ce, cv, nc, False, ostart, 0, hblk,
                                         hpart, htot, hblk, 0)
            npieces += closed
            ncur = nnew
        # sink mode: cut a window at t once the buffer is full enough (docstring)
        if window > 0 and nc >= window:
            npieces += cut_window(cur, ncur, pstart, frate, t, cf, cs, ce, cv, nc)
            nc = 0
        why = False
        force = False
        if timer <= t:
            stats[0] = SIM_NO_FUTURE_EVENT     # a timer not after t cannot happen here
            break
        t_flow = flow_ends(t, cur, ncur, rem, frate, fin)
        # the next coflow completion: a coflow's flows are contiguous in ``cur`` (by index)
        t_cof = next_coflow_completion(cur[:ncur], fin[:ncur], flow_cof, unfinished)
        t_next = next_event(t_cof, rel_t, rel_order, next_rel, timer)
        if not np.isfinite(t_next) and np.isfinite(t_flow):
            # no coflow can complete under these rates: step to the next flow completion
            t_next = t_flow
            force = True
        if not np.isfinite(t_next):
            stats[0] = SIM_NO_FUTURE_EVENT
            break
        nc, ncur, ne, _, _ = advance(t, t_next, cur, ncur, fin, rem, size, frate, pstart,
                                     done, completion_rtol, lf, ls, le, lv, cf, cs, ce, cv, nc,
                                     False, ostart, 0, hblk, hpart, htot, htot, hblk, 0, hblk, 0,
                                     ended, ends)
        npieces += ne
        for i in range(ne):
            f = ended[i]
            if window > 0:
                fc[f] = ends[i]
            c = flow_cof[f]
            g = flow_group[f]
            gcount[g] -= 1
            if gcount[g] == 0:
                cnt[queue[c], grp_src[g]] -= 1
                cnt[queue[c], grp_dst[g]] -= 1
                pcnt[queue[c], grp_src[g], grp_dst[g] - m_in] -= 1
                _mask_set(cmask, c, grp_ptr, grp_src, grp_dst, gcount, m_in, wi)
            unfinished[c] -= 1
            if unfinished[c] == 0:
                finished[c] = True
                nfin += 1
                why = True
                move_slot(slot_cof, blk, slot_of, c, -1)
        if t_next == timer:
            why = True
        t = t_next
    close_pieces(lf, ls, le, lv, cf, cs, ce, cv, nc, window, t)
    state[0] = npieces
    stats[1] = events
    stats[2] = calls
    stats[3] = ndem
    times[0] = t


# ---------------------------------------------------------------------------------- D-CLAS
class AaloPolicy:
    """D-CLAS as a :class:`~coflowopt.simulate.RatePolicy` (module docstring).

    Parameters
    ----------
    num_queues : int >= 1, default 10
    first_threshold : float > 0, default 10
        ``Q_1^hi`` in the instance's size unit (10 MB for traces in MB).
    multiplier : float > 1, default 10
        ``E``.
    weights : array_like of float > 0, optional
        Queue weights, highest priority first (default ``K - i + 1``: ``K, K-1, ..., 1``).
    sharing : {"weighted", "strict"}, default "weighted"
    max_rounds : int in [0, 2^31 - 1], default 16
        Rounds of weighted sharing of the excess before the final strict-priority pass.
    on_flow_completion : {"idle", "backfill", "reallocate"}, default "idle"
        What a flow completion triggers (module docstring).
    tol_rel : float
        A port's residual capacity below ``tol_rel`` times its capacity counts as 0.

    Attributes
    ----------
    queue : ndarray of int, shape (K,)
        Each coflow's current (after a run: last) queue, 0-based.
    demotions : list of (time, coflow, new queue)

    Notes
    -----
    Reads ``state.sent``, ``state.flow_done`` and the flows' ports only.
    """

    name = "aalo"
    reschedule_on = frozenset({"release", "coflow_completion", "flow_completion", "timer"})

    def __init__(self, num_queues: int = 10, first_threshold: float = 10.0,
                 multiplier: float = 10.0, weights=None, sharing: str = "weighted",
                 max_rounds: int = 16, on_flow_completion: str = "idle",
                 tol_rel: float = 1e-12):
        if on_flow_completion not in ON_FLOW_COMPLETION:
            raise InvalidParameterError(f"on_flow_completion must be one of "
                                        f"{ON_FLOW_COMPLETION}, got {on_flow_completion!r}")
        self.on_flow_completion = on_flow_completion
        if on_flow_completion == "idle":
            self.reschedule_on = frozenset({"release", "coflow_completion", "timer"})
        self.thresholds = queue_thresholds(num_queues, first_threshold, multiplier)
        self.num_queues = int(num_queues)
        if weights is None:
            w = np.arange(self.num_queues, 0, -1, dtype=float)
        else:
            try:                          # a name, a mapping: not numbers ("x" raised here)
                w = np.asarray(weights, dtype=float)
            except (TypeError, ValueError):
                w = np.full(0, np.nan)
            if w.shape != (self.num_queues,) or not np.all(np.isfinite(w)) or np.any(w <= 0):
                raise InvalidParameterError(f"weights must be {self.num_queues} finite numbers "
                                            f"> 0 (one per queue), got {weights!r}")
        self.weights = w
        if sharing not in SHARING:
            raise InvalidParameterError(f"sharing must be one of {SHARING}, got {sharing!r}")
        self.sharing = sharing
        # an int32 bound: the compiled loop takes it as an integer (10^30 failed numba's
        # typing: an internal error), and a round that adds nothing ends the loop anyway
        if isinstance(max_rounds, bool) or not isinstance(max_rounds, (int, np.integer)) \
                or not 0 <= max_rounds <= 2 ** 31 - 1:
            raise InvalidParameterError(f"max_rounds must be an integer with 0 <= max_rounds "
                                        f"<= 2^31 - 1, got {max_rounds!r}")
        self.max_rounds = int(max_rounds) if sharing == "weighted" else 0
        self.tol_rel = check_tolerance(tol_rel, "tol_rel", 0.0, TOL_REL_MAX)

    def reset(self, instance: Instance) -> None:
        self.inst = instance
        K, F, P = instance.num_coflows, instance.num_flows, instance.num_ports
        nq = self.num_queues
        self._general = not instance.is_big_switch
        if self._general:
            # groups by path; the group's "ports" are the CSR (grp_rptr, grp_rres)
            (self._grp_ptr, self._grp_lo, self._grp_hi, self._grp_src, self._grp_dst,
             self._gflows) = _path_groups(instance)
            G = self._grp_lo.size
            # grate, budget, has, used, res, it_w, it_g, it_lam
            self._bufs = (np.zeros(G), np.zeros((nq, P)), np.zeros((nq, P), bool),
                          np.zeros(P), np.zeros(P), np.zeros(G), np.zeros(G, np.int64),
                          np.zeros(G))
            fbuf, ibuf, done, _, counter = fill_scratch(P, G)
            # adj: one entry per (group, resource of its path) incidence
            self._fill = (fbuf, ibuf, done,
                          np.zeros(max(2, int(self._grp_src[-1])), dtype=np.int64), counter)
        else:
            (self._grp_ptr, self._grp_lo, self._grp_hi, self._grp_src, self._grp_dst,
             self._gflows) = _pair_groups(instance)
            G = self._grp_lo.size
            # grate, budget, has, used, res, it_w, it_p1, it_p2, it_g, it_lam
            self._bufs = (np.zeros(G), np.zeros((nq, P)), np.zeros((nq, P), bool),
                          np.zeros(P), np.zeros(P), np.zeros(G), np.zeros(G, np.int64),
                          np.zeros(G, np.int64), np.zeros(G, np.int64), np.zeros(G))
            self._fill = fill_scratch(P, G)
        self._cap = instance.capacity.astype(float)
        self._tol = self.tol_rel * self._cap  # per resource: relative to what it guards
        self._gcount = np.zeros(G, dtype=np.int64)
        # on a big switch whose every port can carry traffic, the kernel's per-group counts
        # and per-(queue, port) presence are kept here across events (``_dclas_allocate``'s
        # ``kept``): updated for the flows that finished, the coflows released and the coflows
        # demoted, instead of recomputed from every flow of every active coflow per event
        self._kept = not self._general and bool(np.all(self._cap > self._tol))
        self._cnt = np.zeros((nq, P), dtype=np.int64)
        m_in = instance.num_ingress
        self._pcnt = np.zeros((nq, m_in, P - m_in) if self._kept else (1, 1, 1),
                              dtype=np.int64)
        if self._kept:
            sizes = self._grp_hi - self._grp_lo
            self._gcount[:] = sizes
            self._grp_coflow = np.repeat(np.arange(K, dtype=np.int64), np.diff(self._grp_ptr))
            self._flow_group = np.empty(F, dtype=np.int64)
            self._flow_group[self._gflows] = np.repeat(np.arange(G, dtype=np.int64), sizes)
            self._finished = FinishedFlows(F)
        self._out_f = np.zeros(F, dtype=np.int64)
        self._out_r = np.zeros(F)
        # FIFO inside a queue: release, then index
        self._fifo = np.empty(K, dtype=np.int64)
        self._fifo[np.lexsort((np.arange(K), instance.release))] = np.arange(K)
        self.queue = np.zeros(K, dtype=np.int64)
        self._order = KeyedOrder(self._fifo)
        self._att = np.zeros(K)
        # coflows whose attained service must be read again: those served by the last
        # allocation, and (through the release order) those released since the last call
        self._served = np.zeros(0, dtype=np.int64)
        self._rel_order = np.argsort(instance.release, kind="stable")
        self._rel_next = 0
        self._rate_k = np.zeros(K)
        self.demotions: list[tuple[float, int, int]] = []
        self._timer = math.inf
        self._last = None
        self._rate_buf = np.zeros(F)

    def _allocate_queues(self, state: SimState, act: np.ndarray, q: np.ndarray, cap=None):
        # act by (queue, FIFO); self.queue[act] is q, and the coflows whose queue changed are
        # marked in self._order (its order is lexsort((fifo[act], q)), kept across events)
        queue = self.queue
        order = self._order.order(act, lambda c: queue[c])
        # on resources _grp_src / _grp_dst hold the groups' paths (CSR), and the kernel is
        # the one over paths (same arguments otherwise)
        args = (order, queue[order], self.weights, self.max_rounds, self._grp_ptr,
                self._grp_lo, self._grp_hi, self._grp_src, self._grp_dst, self._gflows,
                state.flow_done, self._cap if cap is None else cap, self._tol, self._gcount,
                *self._bufs, *self._fill, self._out_f, self._out_r)
        if self._general:
            n = _dclas_allocate_paths(*args)
        else:
            n = _dclas_allocate(*args, self._kept and cap is None, self._cnt, self._pcnt,
                                self.inst.num_ingress, _NO_MASK)
        return self._out_f[:n].copy(), self._out_r[:n].copy()

    def _fresh(self, state: SimState) -> np.ndarray:
        """The active coflows whose attained service may have changed since it was last read
        (served by the last allocation, or released since the last call), ascending."""
        rel, j = self._rel_order, self._rel_next
        while j < rel.size and state.released[rel[j]]:
            j += 1
        new = rel[self._rel_next:j]
        self._rel_next = j
        if self._kept:
            self._count_finished(state)
            self._count_groups(new, +1)
        c = np.unique(np.concatenate([self._served, new]))
        return c[~state.finished[c]]

    def _count_groups(self, coflows: np.ndarray, sign: int) -> None:
        """Add (``sign=+1``) or remove the unfinished groups of ``coflows`` to / from
        ``_cnt`` under their current queues."""
        lo = self._grp_ptr[coflows]
        gs = concat_ranges(lo, self._grp_ptr[coflows + 1] - lo)
        gs = gs[self._gcount[gs] > 0]
        q = self.queue[self._grp_coflow[gs]]
        np.add.at(self._cnt, (q, self._grp_src[gs]), sign)
        np.add.at(self._cnt, (q, self._grp_dst[gs]), sign)
        m_in = self.inst.num_ingress
        np.add.at(self._pcnt, (q, self._grp_src[gs], self._grp_dst[gs] - m_in), sign)

    def _count_finished(self, state: SimState) -> None:
        """Count the flows that finished since the last call out of their groups, and the
        groups left empty out of ``_cnt``.  The finished flows come from the simulator's log
        (``state.done_flows``) or, for a state without one, from the flows given a rate (only
        those can have finished)."""
        fin = self._finished.since(state)
        if fin.size == 0:
            return
        g = self._flow_group[fin]
        np.subtract.at(self._gcount, g, 1)
        g = np.unique(g)
        g = g[self._gcount[g] == 0]
        q = self.queue[self._grp_coflow[g]]
        np.subtract.at(self._cnt, (q, self._grp_src[g]), 1)
        np.subtract.at(self._cnt, (q, self._grp_dst[g]), 1)
        m_in = self.inst.num_ingress
        np.subtract.at(self._pcnt, (q, self._grp_src[g], self._grp_dst[g] - m_in), 1)

    def allocate(self, state: SimState):
        act = state.active_coflows
        t = state.time
        self._timer = math.inf
        if act.size == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        # attained service, read only for the coflows served since it was last read and the
        # new ones (the others sent nothing since); a coflow whose attained service did not
        # change keeps its queue (it was set from that service), so only these can move:
        # O(coflows served) per event, not O(active), apart from the queue order itself
        fresh = self._fresh(state)
        att_f = coflow_attained(self.inst, state, fresh)
        self._att[fresh] = att_f
        H = self.thresholds
        # crossed: attained within a relative 1e-9 of the threshold counts (the attained
        # service at a crossing timer is the threshold up to the rounding of sent)
        qf = np.maximum(self.queue[fresh],
                        np.searchsorted(H * (1 - 1e-9), att_f, side="right"))
        moved = qf != self.queue[fresh]
        mv, mq = fresh[moved], qf[moved]
        # a flow completion alone, with no demotion: keep the rates, hand out what was freed
        local = (self.on_flow_completion == "backfill" and self._last is not None
                 and state.events == frozenset({"flow_completion"}) and mv.size == 0)
        while True:
            # demotions in increasing coflow index (the order of the active coflows)
            for k, nq in zip(mv.tolist(), mq.tolist()):
                self.demotions.append((t, k, nq))
            if self._kept and mv.size:
                self._count_groups(mv, -1)
                self.queue[mv] = mq
                self._count_groups(mv, +1)
            self.queue[mv] = mq
            self._order.mark(mv)
            if local:
                f, r = self._backfill(state, act, self.queue[act])
            else:
                f, r = self._allocate_queues(state, act, None)
            # the next crossing: each served coflow's attained grows at its total rate until
            # the next event (every event reallocates); the others do not grow.  The totals
            # are summed flow by flow in the order of ``f`` (as np.add.at does)
            fc = self.inst.flow_coflow[f]
            buf = self._rate_k
            np.add.at(buf, fc, r)
            served = np.unique(fc)
            rk = buf[served]
            buf[served] = 0.0
            qs = self.queue[served]
            grow = (qs < H.size) & (rk > 0)
            g, qg = served[grow], qs[grow]
            tc = t + (H[qg] - self._att[g]) / rk[grow]
            now = tc <= t                   # closer than the clock's resolution: crossed
            if not now.any():
                self._timer = float(tc.min()) if tc.size else math.inf
                self._last = (f, r)
                self._served = served
                if self._kept:
                    self._finished.given(state, f)
                return f, r
            mv, mq = g[now], qg[now] + 1
            local = False

    def _backfill(self, state: SimState, act: np.ndarray, q: np.ndarray):
        """The previous rates of the unfinished flows plus the D-CLAS allocation of the
        capacity they leave."""
        inst = self.inst
        f0, r0 = self._last
        alive = ~state.flow_done[f0]
        f0, r0 = f0[alive], r0[alive]
        if self._general:
            ptr = inst.flow_resource_ptr
            length = ptr[f0 + 1] - ptr[f0]
            ent = concat_ranges(ptr[f0], length)
            used = np.bincount(inst.flow_resource[ent], np.repeat(r0, length),
                               minlength=inst.num_ports)
        else:
            used = (np.bincount(inst.flow_src[f0], r0, minlength=inst.num_ports)
                    + np.bincount(inst.flow_egress_port[f0], r0, minlength=inst.num_ports))
        f1, r1 = self._allocate_queues(state, act, q, np.maximum(self._cap - used, 0.0))
        if f1.size == 0:
            return f0, r0
        buf = self._rate_buf
        buf[f0] = r0
        buf[f1] += r1
        f = np.union1d(f0, f1)
        r = buf[f].copy()
        buf[f] = 0.0
        return f, r

    def next_timer(self, state: SimState) -> float:
        return self._timer


def _run_compiled(instance: Instance, pol: AaloPolicy, window: int = 0, on_window=None,
                  meta: dict | None = None):
    """:func:`simulate` of ``pol`` (reset, on its ``_kept`` path, ``on_flow_completion="idle"``)
    in the compiled event loop :func:`dclas_simulate`: ``(schedule, events, policy calls)``,
    with ``pol.queue`` and ``pol.demotions`` as the Python engine leaves them.

    With ``window > 0`` the loop runs in its sink mode instead: its windows are settled
    (:class:`~coflowopt.simulate.WindowSettler`) and handed to ``on_window`` (with ``meta``)
    as they come, and the result is ``(statistics of :func:`aalo_windows`, events, policy
    calls)``."""
    from ..rates._jit import read_only
    from ..rates._pieces import PieceChunks, WindowSink, chunks_to_arrays
    from ..simulate import COMPLETION_RTOL, SimulationError, WindowSettler, settle_sizes
    inst = instance
    K, F = inst.num_coflows, inst.num_flows
    max_events = 50 * (F + K) + 1000          # the simulator's default budget
    H = np.ascontiguousarray(pol.thresholds, dtype=float)
    nd = K * H.size + 1                       # a coflow is demoted at most K_q - 1 times
    dem_t, dem_c, dem_q = np.zeros(nd), np.zeros(nd, np.int64), np.zeros(nd, np.int64)
    stats = np.zeros(4, dtype=np.int64)
    times = np.array(inst.release, dtype=float)
    if window > 0:
        # between two window checks a call and the completions close at most one piece per
        # flow each, and a cut one more (dclas_simulate's docstring)
        chunks = PieceChunks(buffer=window + 3 * F + 16)
        fc = np.full(F, np.nan)
        settle = WindowSettler(inst, fc)
        sink = WindowSink(inst, on_window, meta or {}, prepare=settle)
    else:
        chunks, fc = PieceChunks(), np.empty(0)

    def run():
        dclas_simulate(read_only(inst.flow_ptr, np.int64), read_only(inst.flow_size, float),
                       read_only(inst.flow_coflow, np.int64),
                       read_only(pol._rel_order, np.int64), read_only(pol._fifo, np.int64),
                       H * (1 - 1e-9), H, pol.weights, pol.max_rounds, pol._grp_ptr,
                       pol._grp_lo, pol._grp_hi, pol._grp_src, pol._grp_dst, pol._gflows,
                       pol._flow_group, pol._cap, pol._tol, pol._gcount, *pol._bufs,
                       *pol._fill, pol._out_f, pol._out_r, pol._cnt, pol._pcnt,
                       int(inst.num_ingress), int(max_events), COMPLETION_RTOL, pol.queue,
                       dem_t, dem_c, dem_q, stats, times, int(window), fc, *chunks.args())

    if window > 0:
        sink.run(run, "aalo_windows")
    else:
        run()
    status = int(stats[0])
    if status == SIM_TOO_MANY_EVENTS:
        raise SimulationError(f"policy {pol.name!r}: more than {max_events} events (at time "
                              f"{times[0]}); the policy makes no progress")
    if status != SIM_OK:
        raise SimulationError(f"policy {pol.name!r}: no future event at time {times[0]} while "
                              "released coflows are unfinished: the policy gives them no rate")
    m = int(stats[3])
    pol.demotions = list(zip(dem_t[:m].tolist(), dem_c[:m].tolist(), dem_q[:m].tolist()))
    if window > 0:
        return ({"pieces": chunks.total, "windows": sink.windows,
                 "callback_s": sink.callback_s, "settled": settle.settled,
                 "unsettled": settle.unsettled}, int(stats[1]), int(stats[2]))
    f, s, e, v = chunks_to_arrays(chunks)
    sched = (settle_sizes(inst, Schedule(f, s, e, v, meta={"policy": pol.name}), copy=False)
             if f.size else Schedule.empty())
    return sched, int(stats[1]), int(stats[2])


def _params_meta(pol: AaloPolicy) -> dict:
    return {"num_queues": pol.num_queues, "thresholds": pol.thresholds.tolist(),
            "weights": pol.weights.tolist(), "sharing": pol.sharing,
            "max_rounds": pol.max_rounds, "on_flow_completion": pol.on_flow_completion}


@register("policy", "aalo", summary="Aalo's D-CLAS: K queues by attained bytes (Q1 = 10 MB, x10 "
          "per queue), FIFO inside a queue, max-min inside a coflow, weighted sharing across "
          "queues (weights K - i + 1) with max-min redistribution of excess; non-clairvoyant",
          reference="Chowdhury dissertation (2015) Sec. 6.4, Pseudocode 4; Aalo (SIGCOMM 2015); "
          "coflow/coflowsim CoflowSimulatorDark.java",
          guarantee="starvation-free with weighted sharing (every queue has a positive "
          "weight); work-conserving at every instant with on_flow_completion='backfill' or "
          "'reallocate'",
          tags=("online", "non_clairvoyant", "release_dates", "starvation_free", "preemptive",
                "heterogeneous_capacities"),
          aliases=("dclas",))
def aalo(instance: Instance, *, num_queues: int = 10, first_threshold: float = 10.0,
         multiplier: float = 10.0, weights=None, sharing: str = "weighted",
         max_rounds: int = 16, on_flow_completion: str = "idle", engine: str = "auto",
         tol_rel: float = 1e-12) -> Schedule:
    """Aalo's D-CLAS: discretised coflow-aware least-attained-service (Pseudocode 4).

    Parameters
    ----------
    instance : Instance
    num_queues : int >= 1, default 10
        ``K``.
    first_threshold : float > 0, default 10
        ``Q_1^hi``, in the instance's size unit (10 MB for the traces).
    multiplier : float > 1, default 10
        ``E``.
    weights : array_like, optional
        Queue weights, highest priority first; default ``K - i + 1``.
    sharing : {"weighted", "strict"}, default "weighted"
        Weighted sharing across queues with max-min redistribution of the excess, or strict
        priority.
    max_rounds : int >= 0, default 16
        Rounds of redistribution before the final strict-priority pass.
    on_flow_completion : {"idle", "backfill", "reallocate"}, default "idle"
        At a flow completion: nothing (rates change at coflow events and demotions only); hand
        the freed bandwidth out by the D-CLAS rules keeping the other rates; or recompute
        everything (module docstring).
    engine : {"auto", "kernel", "python"}
        ``python``: :class:`AaloPolicy` on the generic simulator (the reference);
        ``kernel`` / ``auto``: the compiled event loop :func:`dclas_simulate`, the same
        schedule (pieces in the same order), where it applies -- ``on_flow_completion="idle"``
        on a big switch whose every port's capacity is above its tolerance -- and the Python
        engine elsewhere; ``meta["engine"]`` says which ran.
    tol_rel : float
        A port's residual capacity below ``tol_rel`` times its capacity counts as 0.

    Returns
    -------
    Schedule
        ``meta`` records the parameters, the engine, events, ``final_queue`` (0-based, per coflow) and
        ``demotions`` (``[time, coflow, queue]``).

    Raises
    ------
    InvalidParameterError
        For a parameter out of range (the message names it).

    Examples
    --------
    Fig. 6.1 of the dissertation: every coflow stays in Q_1 (attained < 10), so D-CLAS is
    FIFO -- C1 (index 0) before C3 (both released at 0), then C2.  With the bandwidth of C1's
    first finished flow handed on at once, average CCT 5, like FIFO with C1 first; by default
    P1 idles from 3 until C1 completes at 4, and C3 ends at 7:

    >>> from coflowopt.library import load_instance
    >>> from coflowopt.verify import verify_schedule
    >>> inst = load_instance("papers/dissertation-fig6.1")
    >>> verify_schedule(inst, aalo(inst, on_flow_completion="backfill")).average_cct
    5.0
    >>> verify_schedule(inst, aalo(inst)).coflow_completion.tolist()
    [4.0, 6.0, 7.0]

    Notes
    -----
    *Guarantee.*  None on the objective.  Starvation-free with weighted sharing (every queue
    has a positive weight); work-conserving at every reallocation, and at every instant with
    ``on_flow_completion="backfill"`` or ``"reallocate"``.

    *Assumptions.*  Non-clairvoyant: reads attained service and the flow set only.  Thresholds
    are absolute amounts of data.

    *Running time.*  Per event O(rounds x (flow groups of the active coflows + queues x
    ports)), compiled; events are releases, coflow completions and demotions (and flow
    completions unless ``on_flow_completion="idle"``).  Facebook trace, defaults: 1,822
    events; with the compiled event loop (the default where it applies) the per-event
    bookkeeping of the simulator and the policy is compiled too
    (``experiments/results/bench_scale.md``).

    References
    ----------
    Chowdhury, PhD dissertation (UC Berkeley, 2015), Sec. 6.4, Pseudocode 4; coflowsim
    ``CoflowSimulatorDark``.
    """
    pol, compiled = _setup(instance, num_queues, first_threshold, multiplier, weights, sharing,
                           max_rounds, on_flow_completion, engine, tol_rel)
    if compiled:
        s, events, calls = _run_compiled(instance, pol)
    else:
        res = simulate(instance, pol)
        s, events, calls = res.schedule, res.events, res.policy_calls
    meta = {"algorithm": "aalo", **_params_meta(pol), "engine": "kernel" if compiled else
            "python", "events": events, "policy_calls": calls,
            "final_queue": pol.queue.tolist(),
            "demotions": [[a, b, c] for a, b, c in pol.demotions]}
    return Schedule(s.flow, s.start, s.end, s.rate, meta=meta)


def _setup(instance: Instance, num_queues, first_threshold, multiplier, weights, sharing,
           max_rounds, on_flow_completion, engine, tol_rel):
    """:func:`aalo`'s checked policy and whether the compiled event loop runs it (the policy
    then reset on ``instance``)."""
    engine = check_engine(engine)
    pol = AaloPolicy(num_queues=num_queues, first_threshold=first_threshold,
                     multiplier=multiplier, weights=weights, sharing=sharing,
                     max_rounds=max_rounds, on_flow_completion=on_flow_completion,
                     tol_rel=tol_rel)
    compiled = False
    if engine == "kernel" and on_flow_completion == "idle" and instance.is_big_switch:
        pol.reset(instance)
        compiled = pol._kept
    return pol, compiled


def aalo_windows(instance: Instance, on_window, *, num_queues: int = 10,
                 first_threshold: float = 10.0, multiplier: float = 10.0, weights=None,
                 sharing: str = "weighted", max_rounds: int = 16,
                 on_flow_completion: str = "idle", engine: str = "auto",
                 tol_rel: float = 1e-12, window: int = WINDOW_PIECES) -> dict:
    """:func:`aalo` handed over window by window (the sink mode of :func:`dclas_simulate`),
    never held: 2.75e7 pieces (0.9 GB, 1.88 GB peak) on the Facebook trace.  Where the
    compiled loop does not apply (``on_flow_completion`` other than ``"idle"``, resources) the
    held schedule is handed over as one window.

    The windows, glued at their cuts, are :func:`aalo`'s schedule piece for piece; a flow's
    rates are settled (:func:`~coflowopt.simulate.settle_sizes`) when all its pieces lie in one
    window, and counted in ``unsettled`` when it needed that but spans windows
    (:class:`~coflowopt.simulate.WindowSettler`; :func:`coflowopt.api.run_schedule` reruns the
    held form if the verifier then rejects the schedule).

    Parameters
    ----------
    instance : Instance
    on_window : callable
        ``on_window(schedule, start, end)`` for every window in time order: ``schedule`` holds
        the pieces in ``[start, end]`` (a piece open at a window boundary is cut there, with
        the same rate on both sides).
    num_queues, first_threshold, multiplier, weights, sharing, max_rounds, tol_rel
        As for :func:`aalo` (the same checks).
    on_flow_completion : {"idle", "backfill", "reallocate"}, default "idle"
        As for :func:`aalo`; the other modes run the Python engine, held, as one window.
    engine : {"auto", "kernel"}
        ``"python"`` is refused (the Python engine holds its schedule: call :func:`aalo`).
    window : int
        Pieces per window (at least; a window ends at the first event after ``window``).

    Returns
    -------
    dict
        ``events``, ``policy_calls``, ``pieces`` (cut pieces included), ``windows``,
        ``callback_s`` (time in ``on_window`` and settling), ``settled``, ``unsettled``.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> from coflowopt.verify import WindowedVerifier
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1), (1, 1, 2)]),
    ...                               Coflow("B", [(0, 1, 1)])])
    >>> v = WindowedVerifier(inst)
    >>> st = aalo_windows(inst, lambda s, a, b: v.add(a, b, s), window=1)
    >>> v.report().coflow_completion.tolist(), st["windows"] > 1
    ([2.0, 3.0], True)
    """
    _refuse_python(engine)
    window = int(window)
    if window < 1:
        raise InvalidParameterError(f"window must be a positive number of pieces, got {window}")
    params = dict(num_queues=num_queues, first_threshold=first_threshold,
                  multiplier=multiplier, weights=weights, sharing=sharing,
                  max_rounds=max_rounds, on_flow_completion=on_flow_completion, tol_rel=tol_rel)
    pol, compiled = _setup(instance, engine=engine, **params)
    if not compiled:
        return held_as_window(instance, on_window, aalo(instance, engine=engine, **params))
    stats, events, calls = _run_compiled(instance, pol, window, on_window,
                                         meta={"algorithm": "aalo", "engine": "kernel"})
    return {"events": events, "policy_calls": calls, **stats}


# ---------------------------------------------------------------------------------- CLAS
class _Incidence:
    """The resources of a list of flows as incidence entries: entry ``x`` says that variable
    (listed flow) ``ev[x]`` uses resource ``er[x]``.

    On a big switch the entries are every flow's ingress port, then every flow's egress port
    (``ev = [0..n-1, 0..n-1]``), and the sums below are the big-switch formulas term for term
    (``bincount(src, x) + bincount(dst, x)``), so CLAS keeps its bits there; on resources a
    flow has one entry per resource of its path.
    """

    def __init__(self, instance: Instance, flows: np.ndarray):
        n = flows.size
        self.n = n
        if instance.is_big_switch:
            self.two = (instance.flow_src[flows], instance.flow_egress_port[flows])
            self.ev = np.concatenate([np.arange(n), np.arange(n)])
            self.er = np.concatenate(self.two)
        else:
            self.two = None
            ptr = instance.flow_resource_ptr
            length = ptr[flows + 1] - ptr[flows]
            self.ev = np.repeat(np.arange(n), length)
            self.er = instance.flow_resource[concat_ranges(ptr[flows], length)]

    def load(self, x: np.ndarray, size: int) -> np.ndarray:
        """What rates ``x`` (one per variable) put on every resource."""
        if self.two is not None:
            return np.bincount(self.two[0], x, minlength=size) + \
                np.bincount(self.two[1], x, minlength=size)
        return np.bincount(self.er, x[self.ev], minlength=size)

    def path_min(self, v: np.ndarray) -> np.ndarray:
        """``min`` of the per-resource values ``v`` over every variable's resources."""
        if self.two is not None:
            return np.minimum(v[self.two[0]], v[self.two[1]])
        out = np.full(self.n, np.inf)
        np.minimum.at(out, self.ev, v[self.er])
        return out


def _leximin(n_items, item, ev, er, res, lower_group=None, lower=None):
    """Max-min fair (leximin) totals of ``n_items`` items by progressive filling with LPs.

    Variable ``v`` (a flow) belongs to item ``item[v]`` and uses the resources of its
    incidence entries (:class:`_Incidence`: ``er[x]`` for every ``x`` with ``ev[x] == v``; its
    ingress and egress ports on a big switch), whose capacities are ``res``.  Each round solves ``max t`` subject to every unfrozen item's
    total ``>= t``, every frozen item's total ``>=`` its level, the ports, and optionally
    ``sum_{v in group g} >= lower[g]``; the unfrozen items whose row has a positive dual cannot
    exceed ``t`` in any optimum (complementary slackness), and the duals of those rows sum to 1,
    so at least one item freezes per round.  Returns the variables of the last LP.
    """
    from ..formulations.highs import solve_with_highs
    from ..formulations.linear_program import LinearProgram

    nv = item.size
    ports = np.unique(er)
    # HiGHS' tolerances are absolute: solve in units of the largest residual, so that the
    # allocation scales with the capacities (and sizes) instead of depending on their unit
    unit = float(res[ports].max()) if ports.size else 1.0
    unit = unit if unit > 0 else 1.0
    res = np.asarray(res, dtype=float) / unit
    if lower is not None:
        lower = np.asarray(lower, dtype=float) / unit
    prow = np.searchsorted(ports, er)
    frozen = np.full(n_items, np.nan)
    alive = np.zeros(n_items, dtype=bool)
    alive[item] = True
    frozen[~alive] = 0.0
    x = np.zeros(nv)
    ng = 0 if lower is None else lower.size
    while np.isnan(frozen).any():
        U = np.flatnonzero(np.isnan(frozen))
        Fz = np.flatnonzero(~np.isnan(frozen) & alive)
        row_item = np.full(n_items, -1)
        row_item[U] = np.arange(U.size)
        row_item[Fz] = U.size + np.arange(Fz.size)
        nr_items = U.size + Fz.size
        # rows: ports, item totals (unfrozen, frozen), lower groups; columns: x then t
        r = np.concatenate([prow, ports.size + row_item[item]])
        c = np.concatenate([ev, np.arange(nv)])
        vals = np.ones(er.size + nv)
        if ng:
            r = np.concatenate([r, ports.size + nr_items + lower_group])
            c = np.concatenate([c, np.arange(nv)])
            vals = np.concatenate([vals, np.ones(nv)])
        nrows = ports.size + nr_items + ng
        r = np.concatenate([r, ports.size + np.arange(U.size)])
        c = np.concatenate([c, np.full(U.size, nv)])
        vals = np.concatenate([vals, -np.ones(U.size)])
        import scipy.sparse as sp  # lazily: ~0.1 s of import, paid only where a matrix is built
        A = sp.csr_matrix((vals, (r, c)), shape=(nrows, nv + 1))
        lo = np.concatenate([np.full(ports.size, -np.inf), np.zeros(U.size),
                             frozen[Fz] * (1 - 1e-12), np.zeros(0) if not ng else lower])
        hi = np.concatenate([res[ports], np.full(nr_items + ng, np.inf)])
        cost = np.zeros(nv + 1)
        cost[nv] = -1.0
        lp = LinearProgram("clas-leximin", c=cost, A=A, row_lo=lo, row_hi=hi,
                           col_lo=np.zeros(nv + 1), col_hi=np.full(nv + 1, np.inf))
        sol = solve_with_highs(lp, algorithm="simplex")
        if sol.status != "optimal" or sol.x is None or sol.row_dual is None:
            raise SolverError(f"CLAS max-min LP: HiGHS returned {sol.status!r} "
                              f"({sol.raw_status}); an optimal basis is required")
        x = np.maximum(sol.x[:nv], 0.0)
        level = max(float(sol.x[nv]), 0.0)
        y = np.abs(sol.row_dual[ports.size:ports.size + U.size])
        hit = y > 1e-9
        if not hit.any():                 # numerically flat duals: the largest one
            hit[np.argmax(y)] = True
        frozen[U[hit]] = level
    return x * unit


def _fit_ports(x, inc: _Incidence, res):
    """Scale rates down where the LP's feasibility tolerance overloads a resource, so the
    result is feasible in float; rates are clipped at 0."""
    x = np.maximum(x, 0.0)
    for _ in range(3):
        load = inc.load(x, res.size)
        over = load > res
        if not over.any():
            break
        f = np.ones(res.size)
        f[over] = res[over] / load[over]
        x = x * inc.path_min(f)
    return x


class ClasPolicy:
    """Continuous CLAS as a :class:`~coflowopt.simulate.RatePolicy` (module docstring).

    Parameters
    ----------
    tie_rtol : float
        Attained service values within this relative distance (of the larger value, or of
        the smallest flow size near 0) form one tie group.
    tol_rel : float
        A port's residual capacity below ``tol_rel`` times its capacity counts as 0.
    """

    name = "clas"
    reschedule_on = frozenset({"release", "coflow_completion", "flow_completion", "timer"})

    def __init__(self, tie_rtol: float = 1e-9, tol_rel: float = 1e-12):
        self.tie_rtol = check_tolerance(tie_rtol, "tie_rtol", TIE_RTOL_MIN)
        self.tol_rel = check_tolerance(tol_rel, "tol_rel", 0.0, TOL_REL_MAX)

    def reset(self, instance: Instance) -> None:
        self.inst = instance
        self._cap = instance.capacity.astype(float)
        self._tol = self.tol_rel * self._cap  # per port: relative to what it guards
        # ties in attained service are relative; below the smallest flow nothing is absolute
        self._att_unit = float(instance.flow_size.min())
        self._timer = math.inf

    def levels(self, att: np.ndarray) -> list[np.ndarray]:
        """Indices into ``att`` grouped by tied attained service, least first."""
        o = np.argsort(att, kind="stable")
        groups, cur = [], [o[0]]
        for a, b in zip(o[:-1], o[1:]):
            if att[b] - att[a] <= self.tie_rtol * max(self._att_unit, abs(att[b])):
                cur.append(b)
            else:
                groups.append(np.asarray(cur))
                cur = [b]
        groups.append(np.asarray(cur))
        return groups

    def allocate(self, state: SimState):
        inst = self.inst
        act = state.active_coflows
        self._timer = math.inf
        if act.size == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        att = coflow_attained(inst, state.sent, act)
        res = self._cap.copy()
        out_f, out_r = [], []
        for grp in self.levels(att):
            cof = act[grp]
            fl = priority_flow_order(inst, cof)
            item = np.repeat(np.arange(cof.size), np.diff(inst.flow_ptr)[cof])
            # a flow can grow when every resource of its path has residual capacity
            free = (res > self._tol).astype(float)
            keep = ~state.flow_done[fl] & (_Incidence(inst, fl).path_min(free) > 0)
            if not keep.any():
                continue
            fl, item = fl[keep], item[keep]
            inc = _Incidence(inst, fl)
            # coflow totals max-min fair, then the flows max-min fair given those totals
            x = _leximin(cof.size, item, inc.ev, inc.er, res)
            tot = np.bincount(item, x, minlength=cof.size)
            x = _leximin(fl.size, np.arange(fl.size), inc.ev, inc.er, res, item,
                         tot * (1 - 1e-12))
            x = _fit_ports(x, inc, res)
            x[x <= inc.path_min(self._tol)] = 0.0
            used = inc.load(x, res.size)
            res = np.maximum(res - used, 0.0)
            out_f.append(fl[x > 0])
            out_r.append(x[x > 0])
        f = np.concatenate(out_f) if out_f else np.zeros(0, dtype=np.int64)
        r = np.concatenate(out_r) if out_r else np.zeros(0)
        # the next merge: a less-attained coflow that grows faster catches a more-attained one
        rate = np.zeros(inst.num_coflows)
        np.add.at(rate, inst.flow_coflow[f], r)
        rk = rate[act]
        da = att[None, :] - att[:, None]            # a_j - a_i
        dr = rk[:, None] - rk[None, :]              # rho_i - rho_j
        gap = self.tie_rtol * np.maximum(self._att_unit, np.abs(att))[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            tc = np.where((da > gap) & (dr > 0), da / dr, np.inf)
        dt = float(tc.min()) if tc.size else math.inf
        if math.isfinite(dt):
            self._timer = max(state.time + dt, np.nextafter(state.time, math.inf))
        return f, r

    def next_timer(self, state: SimState) -> float:
        return self._timer


@register("policy", "clas", summary="continuous coflow-aware least-attained service: strict "
          "priority by attained bytes; coflows with equal attained service share max-min fairly "
          "(coflow totals, then flows); non-clairvoyant; LP-based, small instances",
          reference="Chowdhury dissertation (2015) Sec. 6.3, Fig. 6.1, App. C.2; Aalo (SIGCOMM "
          "2015) Sec. 3",
          tags=("online", "non_clairvoyant", "release_dates", "needs_solver", "slow",
                "preemptive", "work_conserving", "heterogeneous_capacities"))
def clas(instance: Instance, *, tie_rtol: float = 1e-9, tol_rel: float = 1e-12) -> Schedule:
    """Continuous CLAS: least attained service at the coflow level (Sec. 6.3).

    Parameters
    ----------
    instance : Instance
    tie_rtol : float, default 1e-9
        Relative distance under which attained services count as equal.
    tol_rel : float
        A port's residual capacity below ``tol_rel`` times its capacity counts as 0.

    Returns
    -------
    Schedule
        ``meta`` records the parameters, events and policy calls.

    Raises
    ------
    SolverError
        If an LP is not solved to optimality.

    Examples
    --------
    Fig. 6.1 of the dissertation: average CCT 4 (C1 at 6, C2 at 3, i.e. CCT 2, C3 at 4).

    >>> from coflowopt.library import load_instance
    >>> from coflowopt.verify import verify_schedule
    >>> inst = load_instance("papers/dissertation-fig6.1")
    >>> rep = verify_schedule(inst, clas(inst))
    >>> [round(c, 6) for c in rep.coflow_completion.tolist()], round(rep.average_cct, 6)
    ([6.0, 3.0, 4.0], 4.0)

    Notes
    -----
    *Guarantee.*  None.  Not starvation-free (a coflow with much attained service waits for
    every smaller one).  Work-conserving.

    *Intra-coflow rule.*  The totals of tied coflows are max-min fair first, so a coflow alone
    gets its largest total rate, then its flows are max-min fair given that total; D-CLAS
    instead splits a coflow's share max-min among its flows directly.

    *Running time.*  Per event, a few LPs per tie group (one per freezing round): small
    instances only (tag ``slow``).

    References
    ----------
    Chowdhury, PhD dissertation (UC Berkeley, 2015), Sec. 6.3, Fig. 6.1, App. C.2.
    """
    pol = ClasPolicy(tie_rtol=tie_rtol, tol_rel=tol_rel)
    res = simulate(instance, pol)
    s = res.schedule
    return Schedule(s.flow, s.start, s.end, s.rate,
                    meta={"algorithm": "clas", "tie_rtol": pol.tie_rtol, "events": res.events,
                          "policy_calls": res.policy_calls})
