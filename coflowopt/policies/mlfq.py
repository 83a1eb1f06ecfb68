"""Multi-level queues over attained bytes: a general non-clairvoyant MLFQ, Creek's
sub-coflow-aware demotion, Baraat's FIFO with limited multiplexing and decentralised LAS.

All four are :class:`~coflowopt.simulate.RatePolicy` objects run by the generic simulator
(:func:`coflowopt.simulate.simulate`; their default settings in compiled event loops with the
same bits, :mod:`._mlfq_kernel` and :mod:`._level_kernel`), on the big switch and on resources
(topologies) alike:
every allocation is *strict priority across classes*, and inside a class either

* ``within="fifo"``: the class's coflows one after another (release time, then index), each
  taking the max-min fair rates of its own unfinished flows on the capacity left, or
* ``within="fair"``: per-flow max-min fairness among all the class's unfinished flows on the
  capacity left (what TCP flows sharing one switch queue approximate).

Max-min fairness is the project's one progressive filling,
:func:`coflowopt.policies.flow_level.max_min_rates`, over every resource of a flow's path (its
ingress and egress port on a big switch), given the residual capacities; the groups are served
by its compiled twin (:mod:`coflowopt.policies._class_kernel`, the same operations in the same
order, so the same bits: ``tests/test_mlfq_kernel.py``).  Each class therefore
leaves every one of its flows with a full resource or a full path, so the allocation is
work-conserving; the policies reallocate at every release, flow completion, coflow completion
and change of class (a simulator timer), so they are work-conserving at every instant.

What decides the class (each policy reads ``SimState.sent`` and ``SimState.flow_done`` and the
flow set, never a size or a remaining size, except Baraat's default threshold, a workload
statistic):

``mlfq``
    ``K`` levels on the coflow's *attained service* ``S_c`` (bytes sent by all its flows):
    level ``k`` (0-based) holds ``tau_k <= S_c < tau_{k+1}`` with ``tau_0 = 0`` and
    ``tau_K = inf``, for any increasing thresholds (default: Aalo's geometric ones, 10 MB
    times 10 per level, with ``K = 8`` queues as on commodity switches).  A coflow starts in
    level 0 and is demoted when ``S_c`` crosses its level's upper threshold.  Optional *aging*
    (``aging=W``): a coflow that has received no rate for ``W`` time units in a row is
    promoted one level and is demoted again once it has received that level's span of bytes
    (its attained service is counted from the lower threshold of the new level).
``creek``
    The same levels on ``S_c`` (Creek's receivers add up the bytes they received into the
    coflow's shared record: the seed's "compare the coflow size to a threshold at the
    receiver and demote it"; all flows of a coflow share its priority), per-flow sharing
    inside a level by default (TCP flows in one switch queue), plus the sub-coflow
    rule below, and aging as Creek's starvation mitigation (``aging=W``: the seed's waiting
    threshold, after which a starving flow's packets are resent at a higher priority and the
    receiver raises the coflow's priority).
``baraat``
    FIFO with limited multiplexing (Baraat, SIGCOMM 2014): coflows in arrival order (release,
    then index) with strict priority, except that a *heavy* coflow (attained service at least
    ``heavy_threshold``) is multiplexed with the coflows after it up to and including the next
    light one: each light coflow forms a class with the heavy ones just before it in FIFO
    order, and the class shares per flow.  So a heavy head never blocks the next coflow, and
    at most one light coflow is served beside the heavy ones (the "limited" multiplexing).
``decentralized-las``
    Least attained service with only local knowledge (the dissertation's Fig. 6.1d: "each
    port applies LAS using only the bytes it has seen locally"): the level of a flow is that
    of the bytes its coflow has sent *from the flow's source* (host or ingress port), on the
    same thresholds, with per-flow sharing inside a level; nothing is coordinated across
    sources.

Creek's sub-coflow rule (a reconstruction)
------------------------------------------
Seed 001 says only that Creek "also takes into account the coflow condition when assigning the
coflow to a priority group (e.g., the number of completed flows)", that the receivers of a
coflow share one record of bytes received, and that mice are recognised "as soon as a
sub-coflow is completed"; the rule by which the priority evolves is missing from the text
(digest ``seeds-000-002.md`` Sec. 2.3, where the level on ``S_c`` is itself marked
[DERIVED], a hypothesis consistent with the seed and with Aalo's D-CLAS).  What is implemented
here is our reconstruction: once ``d >= 1`` of a coflow's ``n`` sub-coflows (per-receiver
parts, :attr:`coflowopt.instance.Instance.flow_subcoflow_id`) have completed, the receivers
know those sub-coflows' exact sizes, and the coflow is placed by the projected size
``P_c = n * (bytes of the completed sub-coflows) / d`` when that exceeds ``S_c``: the level is
that of ``max(S_c, P_c)``.  A coflow whose completed sub-coflows were small keeps its level
(it is recognised as a mouse); one whose first sub-coflow was large is demoted at once
instead of after sending the bytes.  ``subcoflow_estimate=False`` turns the rule off (then
``creek`` is ``mlfq`` with per-flow sharing inside a level).

Units: thresholds are absolute amounts of data (the instance's size unit, MB in the traces
and in ``coflowopt generate creek``) and ``aging`` an absolute time, so scaling an instance
changes the decisions (as for Aalo).

References
----------
Seed 001 (Creek): Sec. IV-B (priority decision, coflow management, starvation mitigation,
threshold setting); digest ``seeds-000-002.md`` Sec. 2.3 (the reconstructed rule).
F. R. Dogar, T. Karagiannis, H. Ballani, A. Rowstron, "Decentralized Task-Aware Scheduling
for Data Center Networks" (Baraat), SIGCOMM 2014, Sec. 3 (FIFO-LM); M. Chowdhury, PhD
dissertation (2015), Sec. 6.2 and Fig. 6.1 (decentralised LAS, CLAS), Sec. 6.4 (D-CLAS's
thresholds); R. H. Arpaci-Dusseau and A. C. Arpaci-Dusseau, *Operating Systems: Three Easy
Pieces*, ch. 8 (MLFQ, priority boost).
"""

from __future__ import annotations

import math

import numpy as np

from ..exceptions import InvalidParameterError
from ..instance import Instance
from ..limits import TOL_REL_MAX, check_tolerance
from ..maxmin import FULL_RTOL
from ..registry import register
from ..schedule import Schedule
from ..rates._jit import read_only
from ..simulate import FinishedFlows, SimState, schedule_length_bounds, simulate
from ._class_kernel import BLOCK, move_slots, serve_groups, serve_levels
from .aalo import queue_thresholds
from .flow_level import max_min_rates
from .._index_ranges import concat_ranges

__all__ = ["mlfq", "creek", "baraat", "decentralized_las", "mlfq_windows", "baraat_windows",
           "decentralized_las_windows", "creek_windows",
           "MlfqPolicy", "CreekPolicy", "BaraatPolicy", "DecentralizedLasPolicy", "WITHIN",
           "level_thresholds", "WINDOW_PIECES"]

#: Accepted values of ``within`` (module docstring).
WITHIN = ("fifo", "fair")

#: Events a policy of this module may cause through aging before the simulator gives up
#: (aging every ``W`` over a long schedule makes ``U * length / W`` events).
MAX_AGING_EVENTS = 10_000_000

#: A level's threshold is crossed when the attained service is within this relative amount of
#: it (the attained service at a crossing timer is the threshold up to rounding).
CROSSING_RTOL = 1e-9


def level_thresholds(thresholds=None, num_queues: int = 8, first_threshold: float = 10.0,
                     multiplier: float = 10.0) -> np.ndarray:
    """The upper thresholds ``tau_1 < ... < tau_{K-1}`` of the levels (``tau_K`` is infinite).

    Parameters
    ----------
    thresholds : sequence of float, optional
        Any strictly increasing finite numbers > 0 (``K - 1`` of them for ``K`` levels; an
        empty list is one level).  When given, the other parameters are ignored.
    num_queues, first_threshold, multiplier
        Otherwise the geometric thresholds of Aalo's D-CLAS
        (:func:`coflowopt.policies.aalo.queue_thresholds`): ``first_threshold *
        multiplier**i``; by default ``K = 8`` (the priority queues of commodity switches).

    Returns
    -------
    ndarray of float

    Raises
    ------
    InvalidParameterError
        Naming the parameter and the rule.

    Examples
    --------
    >>> level_thresholds([1, 5, 20]).tolist(), level_thresholds(num_queues=3).tolist()
    ([1.0, 5.0, 20.0], [10.0, 100.0])
    """
    if thresholds is None:
        return queue_thresholds(num_queues, first_threshold, multiplier)
    try:
        h = np.asarray(thresholds, dtype=float)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"thresholds must be a list of numbers, got "
                                    f"{thresholds!r}") from None
    if h.ndim != 1 or not np.all(np.isfinite(h)) or np.any(h <= 0) or \
            np.any(np.diff(h) <= 0):
        raise InvalidParameterError(f"thresholds must be strictly increasing finite numbers "
                                    f"> 0, got {thresholds!r}")
    return h


def _check_choice(name: str, value, allowed) -> None:
    if value not in allowed:
        raise InvalidParameterError(f"{name} must be one of {allowed}, got {value!r}")


def _check_aging(aging) -> float | None:
    if aging is None:
        return None
    try:
        w = float(aging)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"aging must be a time > 0 or None, got {aging!r}") from None
    if isinstance(aging, bool) or not (math.isfinite(w) and w > 0):
        raise InvalidParameterError(f"aging must be a finite time > 0 or None, got {aging!r}")
    return w


class _ClassPolicy:
    """Strict priority across classes, FIFO or per-flow max-min inside a class (module
    docstring).  Subclasses say what the classes are (:meth:`_classes`) and when they change
    (:meth:`_next_change`)."""

    name = "classes"
    reschedule_on = frozenset({"release", "coflow_completion", "flow_completion", "timer"})
    #: Keep a flow's previous rate when the new one differs from it by at most the policy's
    #: zero, ``tol_rel`` times the smallest capacity on the flow's path (:meth:`_hold`).
    hold_rates = False

    def __init__(self, within: str = "fifo", tol_rel: float = 1e-12):
        _check_choice("within", within, WITHIN)
        self.within = within
        self.tol_rel = check_tolerance(tol_rel, "tol_rel", 0.0, TOL_REL_MAX)

    # ------------------------------------------------------------------ state
    def reset(self, instance: Instance) -> None:
        self.inst = instance
        K = instance.num_coflows
        self._cap = instance.capacity.astype(float)
        # read-only whatever the instance's origin: one compiled signature of serve_groups
        self._paths = (read_only(instance.flow_resource_ptr, np.int64),
                       read_only(instance.flow_resource, np.int64))
        self._tol = self.tol_rel * self._cap
        self._fifo = np.empty(K, dtype=np.int64)
        self._fifo[np.lexsort((np.arange(K), instance.release))] = np.arange(K)
        self._timer = math.inf
        self.changes = 0
        if self.hold_rates:
            ptr, fr = instance.flow_resource_ptr, instance.flow_resource
            self._flow_tol = np.minimum.reduceat(self._tol[fr], ptr[:-1])
            self._held = np.zeros(instance.num_flows)
            self._held_flows = np.zeros(0, dtype=np.int64)

    def next_timer(self, state: SimState) -> float:
        return self._timer

    # ------------------------------------------------------------------ allocation
    def _incidence(self, flows: np.ndarray):
        """(row, col): listed flow ``row[x]`` uses resource ``col[x]``."""
        inst = self.inst
        if inst.is_big_switch:
            n = flows.size
            return (np.concatenate([np.arange(n), np.arange(n)]),
                    np.concatenate([inst.flow_src[flows], inst.flow_egress_port[flows]]))
        ptr = inst.flow_resource_ptr
        length = ptr[flows + 1] - ptr[flows]
        row = np.repeat(np.arange(flows.size), length)
        col = inst.flow_resource[concat_ranges(ptr[flows], length)]
        return row, col

    def _groups(self, flows: np.ndarray, cls: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(key, cut)``: ``flows[key]`` group after group, highest priority first (FIFO: one
        group per (class, coflow), coflows in FIFO order; fair: one per class), each group's
        flows in the order of ``flows``; ``cut`` the positions in ``key`` where a group starts
        (the first excluded)."""
        if self.within == "fifo":
            # (class, FIFO position) in one integer: the FIFO position is a permutation of the
            # coflows, so it names the coflow, and a stable sort keeps the flows' order
            cof = self.inst.flow_coflow[flows]
            g = cls.astype(np.int64) * self.inst.num_coflows + self._fifo[cof]
        else:
            g = cls
        key = np.argsort(g, kind="stable")
        gk = g[key]
        return key, np.flatnonzero(gk[1:] != gk[:-1]) + 1

    def _serve(self, flows: np.ndarray, cls: np.ndarray) -> np.ndarray:
        """Rates of ``flows`` (active, unfinished) with classes ``cls`` (lower first): strict
        priority over the groups of :meth:`_groups`, each max-min fair on what the groups
        before it left (the compiled :func:`._class_kernel.serve_groups`, bit-identical to
        :meth:`_serve_python`)."""
        rates = np.zeros(flows.size)
        if flows.size == 0:
            return rates
        key, cut = self._groups(flows, cls)
        gptr = np.concatenate([[0], cut, [flows.size]]).astype(np.int64)
        rates[key] = serve_groups(np.ascontiguousarray(flows[key], dtype=np.int64), gptr,
                                  self._paths[0], self._paths[1], self._cap, self._tol,
                                  FULL_RTOL)
        return rates

    def _serve_python(self, flows: np.ndarray, cls: np.ndarray) -> np.ndarray:
        """:meth:`_serve` in plain numpy, group by group through :func:`max_min_rates` (the
        reference the tests hold the kernel to; one progressive filling per group)."""
        rates = np.zeros(flows.size)
        if flows.size == 0:
            return rates
        key, cut = self._groups(flows, cls)
        res = self._cap.copy()
        R = res.size
        for idx in np.split(key, cut):
            fl = flows[idx]
            row, col = self._incidence(fl)
            full = res <= self._tol
            blocked = np.bincount(row, weights=full[col], minlength=fl.size) > 0
            if blocked.all():
                continue
            ok = ~blocked
            r = max_min_rates(self.inst, fl[ok], capacity=np.where(full, 0.0, res))
            rates[idx[ok]] = r
            res -= np.bincount(col, weights=rates[idx][row], minlength=R)
            np.maximum(res, 0.0, out=res)
            if np.all(res <= self._tol):
                break
        return rates

    def allocate(self, state: SimState):
        flows = state.active_flows
        self._timer = math.inf
        if flows.size == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        self._before(state)
        for _ in range(10_000):
            cls = self._classes(state, flows)
            rates = self._serve(flows, cls)
            if self.hold_rates:
                rates = self._hold(flows, rates)
            if not self._next_change(state, flows, rates):
                break
        keep = rates > 0
        flows, rates = flows[keep], rates[keep]
        if self.hold_rates:
            self._held[self._held_flows] = 0.0
            self._held[flows] = rates
            self._held_flows = flows
        return flows, rates

    def _hold(self, flows: np.ndarray, rates: np.ndarray) -> np.ndarray:
        """``rates`` where a flow's rate differs from the one it has (given at the previous
        call) by more than the policy's zero (``tol_rel`` times the smallest capacity on its
        path), else the one it has.  Why: the progressive filling sums a flow's rate as the
        steps of its rounds, and which resources freeze first changes from event to event, so
        a rate that max-min leaves as it was comes back a few units in the last place off (the
        step sequence differs), and the simulator closes its piece: on the first 200 coflows of
        the FB trace 4,691,645 of 7,729,333 piece boundaries of ``creek`` were such changes
        (all at most 1e-15 absolute, capacity 1), the next smallest change 1e-9
        (``experiments/results/creek_profile.md``)."""
        old = self._held[flows]
        same = (rates > 0) & (old > 0) & (np.abs(rates - old) <= self._flow_tol[flows])
        if same.any():
            rates = np.where(same, old, rates)
        return rates

    # ------------------------------------------------------------------ hooks
    def _before(self, state: SimState) -> None:
        """Called once per allocation before the classes (aging)."""

    def _classes(self, state: SimState, flows: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _next_change(self, state: SimState, flows: np.ndarray, rates: np.ndarray) -> bool:
        """Set ``self._timer`` to the next change of class; return True when a change is due
        now (the classes are then recomputed)."""
        raise NotImplementedError


class _LevelPolicy(_ClassPolicy):
    """Levels on the attained service of *units* (coflows, or coflow-source pairs), with
    optional aging.  ``unit_of_flow`` is set by :meth:`_units`."""

    def __init__(self, thresholds=None, num_queues: int = 8, first_threshold: float = 10.0,
                 multiplier: float = 10.0, within: str = "fifo", aging=None,
                 tol_rel: float = 1e-12):
        super().__init__(within, tol_rel)
        self.thresholds = level_thresholds(thresholds, num_queues, first_threshold, multiplier)
        self.aging = _check_aging(aging)

    @property
    def num_levels(self) -> int:
        return self.thresholds.size + 1

    def _units(self, instance: Instance) -> tuple[np.ndarray, int]:
        return instance.flow_coflow, instance.num_coflows

    def reset(self, instance: Instance) -> None:
        super().reset(instance)
        self._unit, U = self._units(instance)
        self._U = U
        self.level = np.zeros(U, dtype=np.int64)
        self._offset = np.zeros(U)
        self._wait_since = np.full(U, np.nan)
        self.demotions = 0
        self.promotions = 0
        # the lower threshold of every level
        self._lo = np.concatenate([[0.0], self.thresholds])
        # the attained service, kept per unit and recomputed only for the units that had a
        # rate since the previous call (:meth:`_attained`)
        order = np.argsort(self._unit, kind="stable")
        self._unit_flows = order.astype(np.int64)
        self._unit_ptr = np.zeros(U + 1, dtype=np.int64)
        np.cumsum(np.bincount(self._unit, minlength=U), out=self._unit_ptr[1:])
        self._att_kept = np.zeros(U)
        self._att_dirty = np.zeros(0, dtype=np.int64)

    def _attained(self, state: SimState) -> np.ndarray:
        """The attained service per unit, ``np.bincount(unit, weights=state.sent)`` to the
        bit: only the units of the flows given a rate at the previous call have sent anything
        since, and each of them is summed again over its flows in index order (bincount's
        order).  Was one pass over every flow per event: 159 of 293 s of ``creek`` on the
        first 200 coflows of the FB trace (cProfile; ``experiments/results/creek_profile.md``)."""
        d = self._att_dirty
        if d.size:
            lo = self._unit_ptr[d]
            length = self._unit_ptr[d + 1] - lo
            fl = self._unit_flows[concat_ranges(lo, length)]
            self._att_kept[d] = np.bincount(np.repeat(np.arange(d.size), length),
                                            weights=state.sent_of(fl), minlength=d.size)
            self._att_dirty = np.zeros(0, dtype=np.int64)
        return self._att_kept

    def _raw(self, state: SimState) -> tuple[np.ndarray, np.ndarray]:
        """(what the levels are taken on, attained service) per unit."""
        att = self._attained(state)
        return att, att

    def allocate(self, state: SimState):
        flows, rates = super().allocate(state)
        if flows.size:
            # the units whose attained service the next call sums again
            self._att_dirty = np.unique(np.concatenate([self._att_dirty, self._unit[flows]]))
        return flows, rates

    def _before(self, state: SimState) -> None:
        raw, att = self._raw(state)
        self._att = att
        if self.aging is not None:
            due = np.flatnonzero(self._wait_since + self.aging <= state.time * (1 + 1e-12))
            due = due[self.level[due] > 0]
            if due.size:
                self.level[due] -= 1
                # counted from the lower threshold of the new level
                self._offset[due] = raw[due] - self._lo[self.level[due]]
                self._wait_since[due] = state.time
                self.promotions += int(due.size)
                self.changes += int(due.size)
            # a unit already at the top level stops waiting for a promotion
            top = (self.level == 0) & ~np.isnan(self._wait_since)
            self._wait_since[top] = np.nan
        key = raw - self._offset
        H = self.thresholds
        lvl = np.searchsorted(H * (1 - CROSSING_RTOL), key, side="right")
        up = lvl > self.level
        self.demotions += int(up.sum())
        self.changes += int(up.sum())
        self.level = np.maximum(self.level, lvl)

    def _classes(self, state: SimState, flows: np.ndarray) -> np.ndarray:
        return self.level[self._unit[flows]]

    def _next_change(self, state: SimState, flows: np.ndarray, rates: np.ndarray) -> bool:
        t = state.time
        u = self._unit[flows]
        urate = np.bincount(u, weights=rates, minlength=self._U)
        # the units of the active flows, sorted (np.unique without its sort)
        units = np.flatnonzero(np.bincount(u, minlength=self._U))
        H = self.thresholds
        lv = self.level[units]
        grow = (lv < H.size) & (urate[units] > 0)
        g = units[grow]
        tc = np.full(g.size, math.inf)
        if g.size:
            # the attained service reaches the level's upper threshold (plus the aging offset)
            tc = t + (H[self.level[g]] + self._offset[g] - self._att[g]) / urate[g]
            now = tc <= t
            if now.any():
                self.level[g[now]] += 1
                self.demotions += int(now.sum())
                self.changes += int(now.sum())
                return True
        timer = float(tc.min()) if tc.size else math.inf
        if self.aging is not None:
            starving = units[(urate[units] <= 0) & (self.level[units] > 0)]
            fresh = starving[np.isnan(self._wait_since[starving])]
            self._wait_since[fresh] = t
            served = units[urate[units] > 0]
            self._wait_since[served] = np.nan
            if starving.size:
                timer = min(timer, float(np.min(self._wait_since[starving])) + self.aging)
        self._timer = timer
        return False


class _Slots:
    """The incremental serving of :class:`MlfqPolicy` (FIFO levels) and
    :class:`BaraatPolicy` (FIFO classes) without aging: the active coflows sit in priority
    slots kept across events (:meth:`_slot`), the attained service is recomputed only for the
    coflows that had a rate since the previous call, and
    :func:`._class_kernel.serve_levels` serves the groups in slot order, skipping by path the
    coflows that are blocked whole.  No per-event work over every active flow, and the same
    bits as the generic path (:meth:`_ClassPolicy.allocate`; ``incremental = False`` selects
    it, ``tests/test_mlfq_kernel.py`` holds the two equal)."""

    incremental = True
    #: Run the whole simulation in the compiled event loop (:mod:`._mlfq_kernel`) where the
    #: incremental path applies; False: this class on the generic simulator (the reference
    #: engine, the same bits: ``tests/test_mlfq_kernel.py``).
    compiled = True

    def _slot(self, cof: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _slots_reset(self, instance: Instance, num_slots: int) -> None:
        K, F = instance.num_coflows, instance.num_flows
        self._slot_cof = np.full(num_slots, -1, dtype=np.int64)
        self._blk = np.zeros(-(-num_slots // BLOCK), dtype=np.int64)
        self._slot_of = np.full(K, -1, dtype=np.int64)
        self._rel_order = np.lexsort((np.arange(K), instance.release))
        self._rel_sorted = np.asarray(instance.release, dtype=float)[self._rel_order]
        self._n_rel = 0
        self._dirty = np.zeros(0, dtype=np.int64)
        self._att = np.zeros(K)
        self._ptr = read_only(instance.flow_ptr, np.int64)
        self._flow_cof = read_only(instance.flow_coflow, np.int64)
        self._by_path = _distinct_paths(instance)
        self._buf = (np.empty(F, dtype=np.int64), np.empty(F), np.empty(F, dtype=np.int64),
                     np.empty(K, dtype=np.int64), np.empty(K + 1, dtype=np.int64),
                     np.empty(K, dtype=np.int64))
        self.walked = 0
        self.found_by_path = 0

    def _place(self, cof, old, new) -> None:
        """Coflows ``cof`` leave slots ``old`` for slots ``new`` (-1: none)."""
        move_slots(self._slot_cof, self._blk, self._slot_of, cof, old, new)

    def _begin(self, state: SimState):
        """Releases placed; then ``None`` when no flow is active (the generic path returns
        before ``_before``: the pending coflows wait for a call with active flows, nothing is
        sent in between), else ``(d, old_slots, att)`` for the coflows ``d`` that had a rate
        since the previous call: their attained service, summed in flow order (the generic
        path's bincount over every flow) and stored; every other coflow's is unchanged."""
        self._timer = math.inf
        # releases: the simulator's order (release, then index) and its test (release <= t)
        n_rel = int(np.searchsorted(self._rel_sorted, state.time, side="right"))
        if n_rel > self._n_rel:
            new = self._rel_order[self._n_rel:n_rel]
            self._n_rel = n_rel
            self._place(new, np.full(new.size, -1), self._slot(new))
        if state.active_coflows.size == 0:
            return None
        d = self._dirty
        self._dirty = np.zeros(0, dtype=np.int64)
        lo = self._ptr[d]
        length = self._ptr[d + 1] - lo
        att = np.bincount(np.repeat(np.arange(d.size), length),
                          weights=state.sent_of(concat_ranges(lo, length)), minlength=d.size)
        self._att[d] = att
        return d, self._slot_of[d], att

    def _serve_slots(self, state: SimState, heavy):
        """``(flows, rates, coflows, coflow rates)``: the flows of the groups served (rates
        0 included) and the rate of each of their coflows, summed in flow order."""
        fl_buf, rate_buf, live, gcof, gptr, members = self._buf
        n, ng, nby = serve_levels(self._slot_cof, self._blk, self._slot_of, heavy, self._ptr,
                                  state.flow_done, self._flow_cof, self._paths[0],
                                  self._paths[1], self._cap, self._tol, FULL_RTOL,
                                  *self._by_path, fl_buf, rate_buf, live, gcof, gptr, members)
        self.walked += ng
        self.found_by_path += nby
        rates = rate_buf[:n]
        crate = np.bincount(np.repeat(np.arange(ng), np.diff(gptr[:ng + 1])), weights=rates,
                            minlength=ng)
        return fl_buf[:n], rates, gcof[:ng], crate

    def allocate(self, state: SimState):
        if not self._fast:
            return super().allocate(state)
        begun = self._begin(state)
        if begun is None:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        d, old_slots, att = begun
        self._update(state, d, att)
        new = np.where(state.finished[d], -1, self._slot(d))
        move = new != old_slots
        self._place(d[move], old_slots[move], new[move])
        for _ in range(10_000):
            flows, rates, gc, crate = self._serve_slots(state, self._closing())
            # _next_change over the coflows served (the others have no rate)
            g, tc = self._crossings(state.time, gc, crate)
            if g.size == 0:
                self._timer = math.inf
                break
            now = tc <= state.time
            if now.any():
                self._cross(g[now])
                continue
            self._timer = float(tc.min())
            break
        keep = rates > 0
        flows = flows[keep]
        self._dirty = np.unique(self.inst.flow_coflow[flows])
        return flows, rates[keep]

    # the policy's part: _before on the coflows that had a rate, the groups' heavy mask, the
    # next class change of the coflows served, and that change
    def _update(self, state: SimState, d, att) -> None:
        raise NotImplementedError

    def _closing(self) -> np.ndarray:
        raise NotImplementedError

    def _crossings(self, t: float, gc, crate):
        raise NotImplementedError

    def _cross(self, cof) -> None:
        raise NotImplementedError


class MlfqPolicy(_Slots, _LevelPolicy):
    """:func:`mlfq` as a :class:`~coflowopt.simulate.RatePolicy` (module docstring).

    FIFO inside a level without aging (the default) is served incrementally (:class:`_Slots`,
    slot ``level x K + FIFO position``).

    Attributes
    ----------
    level : ndarray of int, shape (K,)
        Each coflow's current (after a run: last) level, 0-based.
    demotions, promotions : int
    incremental : bool
        Class attribute: use the incremental path where it applies (default True).
    """

    name = "mlfq"

    def reset(self, instance: Instance) -> None:
        super().reset(instance)
        self._fast = bool(self.incremental and self.within == "fifo" and self.aging is None)
        if self._fast:
            self._slots_reset(instance, self.num_levels * instance.num_coflows)
            self._no_heavy = np.zeros(instance.num_coflows, dtype=bool)

    def _slot(self, cof):
        return self.level[cof] * self.inst.num_coflows + self._fifo[cof]

    def _update(self, state, d, att) -> None:
        # _before: the level from the same searchsorted
        key = att - self._offset[d]
        lvl = np.searchsorted(self.thresholds * (1 - CROSSING_RTOL), key, side="right")
        old = self.level[d]
        up = int((lvl > old).sum())
        self.demotions += up
        self.changes += up
        self.level[d] = np.maximum(old, lvl)

    def _closing(self):
        return self._no_heavy

    def _crossings(self, t, gc, urate):
        H = self.thresholds
        grow = (self.level[gc] < H.size) & (urate > 0)
        g = gc[grow]
        return g, t + (H[self.level[g]] + self._offset[g] - self._att[g]) / urate[grow]

    def _cross(self, cof) -> None:
        old = self._slot_of[cof]
        self.level[cof] += 1
        self.demotions += int(cof.size)
        self.changes += int(cof.size)
        self._place(cof, old, self._slot(cof))


def _distinct_paths(instance: Instance):
    """The distinct paths (resource lists) of the flows, for :func:`serve_levels`:
    ``(path, path_ptr, path_flow, qres_ptr, qres, rq_ptr, rq)``: each flow's path id, each
    path's flows (index order), each path's resources, each resource's paths (CSRs)."""
    ptr = instance.flow_resource_ptr
    fr = instance.flow_resource
    length = np.diff(ptr)
    F, R = length.size, int(instance.capacity.size)
    path = np.zeros(F, dtype=np.int64)
    qlen, qres, q = [], [], 0
    for n in np.unique(length):
        sel = np.flatnonzero(length == n)
        mat = fr[concat_ranges(ptr[sel], length[sel])].reshape(sel.size, int(n))
        uniq, inv = np.unique(mat, axis=0, return_inverse=True)
        path[sel] = q + inv.ravel()
        qlen.append(np.full(uniq.shape[0], int(n), dtype=np.int64))
        qres.append(uniq.ravel())
        q += uniq.shape[0]
    qlen = np.concatenate(qlen) if qlen else np.zeros(0, dtype=np.int64)
    qres = (np.concatenate(qres) if qres else np.zeros(0)).astype(np.int64)
    qres_ptr = np.zeros(q + 1, dtype=np.int64)
    np.cumsum(qlen, out=qres_ptr[1:])
    path_ptr = np.zeros(q + 1, dtype=np.int64)
    np.cumsum(np.bincount(path, minlength=q), out=path_ptr[1:])
    path_flow = np.argsort(path, kind="stable").astype(np.int64)
    qrow = np.repeat(np.arange(q, dtype=np.int64), qlen)
    rq_ptr = np.zeros(R + 1, dtype=np.int64)
    np.cumsum(np.bincount(qres, minlength=R), out=rq_ptr[1:])
    rq = qrow[np.argsort(qres, kind="stable")]
    return path, path_ptr, path_flow, qres_ptr, qres, rq_ptr, rq


class CreekPolicy(_LevelPolicy):
    """:func:`creek` as a :class:`~coflowopt.simulate.RatePolicy`: the levels of
    :class:`MlfqPolicy` on ``max(S_c, P_c)`` with Creek's sub-coflow projection ``P_c``
    (module docstring: a reconstruction)."""

    name = "creek"
    hold_rates = True

    def __init__(self, *args, subcoflow_estimate: bool = True, **kwargs):
        super().__init__(*args, **kwargs)
        if not isinstance(subcoflow_estimate, (bool, np.bool_)):
            raise InvalidParameterError(f"subcoflow_estimate must be true or false, got "
                                        f"{subcoflow_estimate!r}")
        self.subcoflow_estimate = bool(subcoflow_estimate)

    def reset(self, instance: Instance) -> None:
        super().reset(instance)
        self._sid = instance.flow_subcoflow_id
        S = int(self._sid.max()) + 1
        self._sub_size = np.bincount(self._sid, minlength=S)        # flows per sub-coflow
        self._sub_coflow = np.zeros(S, dtype=np.int64)
        self._sub_coflow[self._sid] = instance.flow_coflow
        self._nsub = instance.num_subcoflows.astype(float)
        self.projections = 0
        # the projection's sums, kept per coflow and redone only for the coflows with a
        # sub-coflow completed since the previous call (_raw)
        K = self._U
        self._finished = FinishedFlows(instance.num_flows)
        self._sub_left = self._sub_size.copy()          # unfinished flows per sub-coflow
        self._sub_done = np.zeros(S, dtype=bool)
        self._sub_bytes = np.zeros(S)
        order = np.argsort(self._sid, kind="stable")
        self._sub_flows = order.astype(np.int64)
        self._sub_ptr = np.zeros(S + 1, dtype=np.int64)
        np.cumsum(self._sub_size, out=self._sub_ptr[1:])
        self._cof_subs = np.argsort(self._sub_coflow, kind="stable").astype(np.int64)
        self._cof_sub_ptr = np.zeros(K + 1, dtype=np.int64)
        np.cumsum(np.bincount(self._sub_coflow, minlength=K), out=self._cof_sub_ptr[1:])
        self._proj_d = np.zeros(K)
        self._proj_b = np.zeros(K)
        self._any_done = False

    def allocate(self, state: SimState):
        flows, rates = super().allocate(state)
        self._finished.given(state, flows)
        return flows, rates

    def _raw(self, state: SimState):
        att = self._attained(state)
        if not self.subcoflow_estimate:
            return att, att
        # What the bincounts over every flow and every sub-coflow gave, to the bit, per event
        # O(flows finished since the previous call and their coflows' sub-coflows): a
        # sub-coflow is done once its flows are, its bytes (its flows' sizes, summed in flow
        # order) do not change after, and a coflow's d / b are summed again over its done
        # sub-coflows in index order (bincount's order) when one of them completes.
        fin = self._finished.since(state)
        if fin.size:
            sub = self._sid[fin]
            np.subtract.at(self._sub_left, sub, 1)
            sub = np.unique(sub)
            new = sub[(self._sub_left[sub] == 0) & ~self._sub_done[sub]]
            if new.size:
                self._sub_done[new] = True
                self._any_done = True
                lo = self._sub_ptr[new]
                length = self._sub_ptr[new + 1] - lo
                self._sub_bytes[new] = np.bincount(
                    np.repeat(np.arange(new.size), length),
                    weights=state.sent_of(self._sub_flows[concat_ranges(lo, length)]),
                    minlength=new.size)
                cof = np.unique(self._sub_coflow[new])
                lo = self._cof_sub_ptr[cof]
                subs = self._cof_subs[concat_ranges(lo, self._cof_sub_ptr[cof + 1] - lo)]
                subs = subs[self._sub_done[subs]]
                self._proj_d[cof] = np.bincount(self._sub_coflow[subs], minlength=self._U
                                                )[cof].astype(float)
                self._proj_b[cof] = np.bincount(self._sub_coflow[subs],
                                                weights=self._sub_bytes[subs],
                                                minlength=self._U)[cof]
        if not self._any_done:
            return att, att
        d, b = self._proj_d, self._proj_b
        proj = np.where(d > 0, self._nsub * b / np.maximum(d, 1.0), 0.0)
        return np.maximum(att, proj), att


class DecentralizedLasPolicy(_LevelPolicy):
    """:func:`decentralized_las` as a :class:`~coflowopt.simulate.RatePolicy`: levels on the
    bytes each coflow has sent from each source (units = (coflow, source) pairs)."""

    name = "decentralized-las"
    #: As ``creek``'s (:meth:`_ClassPolicy._hold`): on the first 200 coflows of the FB trace
    #: 4,071,274 of 8,752,512 pieces ended at a change of at most 1e-15 relative, the same
    #: objective to the last bit without them (``experiments/results/creek_profile.md``).
    hold_rates = True

    def _units(self, instance: Instance):
        key = instance.flow_coflow * (int(instance.flow_src.max()) + 1) + instance.flow_src
        uniq, inv = np.unique(key, return_inverse=True)
        return inv.astype(np.int64).ravel(), int(uniq.size)


class BaraatPolicy(_Slots, _ClassPolicy):
    """:func:`baraat` as a :class:`~coflowopt.simulate.RatePolicy` (module docstring).

    Per-flow sharing inside a class (the default) is served incrementally (:class:`_Slots`,
    slot = FIFO position; a group is a light coflow with the heavy ones just before it).

    Attributes
    ----------
    heavy : ndarray of bool, shape (K,)
        Coflows found heavy so far (after a run: all that became heavy).
    incremental : bool
        Class attribute: use the incremental path where it applies (default True).
    """

    name = "baraat"

    def __init__(self, heavy_threshold=None, within: str = "fair", tol_rel: float = 1e-12):
        super().__init__(within, tol_rel)
        if heavy_threshold is not None:
            try:
                h = float(heavy_threshold)
            except (TypeError, ValueError):
                h = math.nan
            if isinstance(heavy_threshold, bool) or not (math.isfinite(h) and h > 0):
                raise InvalidParameterError(f"heavy_threshold must be a finite amount of data "
                                            f"> 0 or None, got {heavy_threshold!r}")
            heavy_threshold = h
        self.heavy_threshold = heavy_threshold

    def reset(self, instance: Instance) -> None:
        super().reset(instance)
        self.threshold = (float(np.percentile(instance.total_size, 80))
                          if self.heavy_threshold is None else self.heavy_threshold)
        self.heavy = np.zeros(instance.num_coflows, dtype=bool)
        self._fast = bool(self.incremental and self.within == "fair")
        if self._fast:
            self._slots_reset(instance, instance.num_coflows)

    def _slot(self, cof):
        return self._fifo[cof]

    def _update(self, state, d, att) -> None:
        # _before
        new = d[(att >= self.threshold * (1 - CROSSING_RTOL)) & ~self.heavy[d]]
        self.heavy[new] = True
        self.changes += int(new.size)

    def _closing(self):
        return self.heavy

    def _crossings(self, t, gc, crate):
        grow = ~self.heavy[gc] & (crate > 0)
        g = gc[grow]
        return g, t + (self.threshold - self._att[g]) / crate[grow]

    def _cross(self, cof) -> None:
        self.heavy[cof] = True
        self.changes += int(cof.size)

    def _before(self, state: SimState) -> None:
        self._att = np.bincount(self.inst.flow_coflow, weights=state.sent,
                                minlength=self.inst.num_coflows)
        new = (self._att >= self.threshold * (1 - CROSSING_RTOL)) & ~self.heavy
        self.heavy |= new
        self.changes += int(new.sum())

    def _classes(self, state: SimState, flows: np.ndarray) -> np.ndarray:
        act = state.active_coflows
        fifo = act[np.argsort(self._fifo[act], kind="stable")]
        light = ~self.heavy[fifo]
        # a light coflow's class holds the heavy ones just before it in FIFO order
        cls = np.zeros(self.inst.num_coflows, dtype=np.int64)
        cls[fifo] = np.cumsum(light) - light
        return cls[self.inst.flow_coflow[flows]]

    def _next_change(self, state: SimState, flows: np.ndarray, rates: np.ndarray) -> bool:
        K = self.inst.num_coflows
        crate = np.bincount(self.inst.flow_coflow[flows], weights=rates, minlength=K)
        g = np.flatnonzero(~self.heavy & (crate > 0))
        if g.size == 0:
            self._timer = math.inf
            return False
        tc = state.time + (self.threshold - self._att[g]) / crate[g]
        now = tc <= state.time
        if now.any():
            self.heavy[g[now]] = True
            self.changes += int(now.sum())
            return True
        self._timer = float(tc.min())
        return False


# ---------------------------------------------------------------------------------- runs
def _max_events(instance: Instance, pol) -> int:
    """The simulator's default budget, plus the events aging can cause (CONTRIBUTING: a policy
    with an absolute time parameter bounds its event count by the schedule's length)."""
    base = 50 * (instance.num_flows + instance.num_coflows) + 1000
    aging = getattr(pol, "aging", None)
    if aging is None:
        return base
    units = pol._units(instance)[1]
    _, upper = schedule_length_bounds(instance)
    extra = 2.0 * units * (upper / aging + 1.0)
    if extra > MAX_AGING_EVENTS:
        raise InvalidParameterError(
            f"aging = {aging!r} is too short for this instance: up to {extra:.3g} promotions "
            f"over a schedule of length up to {upper:.6g} ({units} units), more than "
            f"MAX_AGING_EVENTS = {MAX_AGING_EVENTS}")
    return base + int(extra)


def _run_compiled(instance: Instance, pol: _Slots, max_events: int, window: int = 0,
                  sink=None):
    """:func:`simulate` of ``pol`` (reset, on its incremental path) in the compiled event
    loop :func:`._mlfq_kernel.slots_simulate`: ``(schedule, events, policy calls)``, the
    policy's counters and final levels / heavy coflows set as the simulator would leave
    them.

    With ``window > 0`` the kernel runs in its sink mode: ``sink(kernel_call, settle_args)``
    runs the call with a :class:`~coflowopt.rates._pieces.WindowSink` installed, and
    ``settle_args`` are the arrays the kernel fills for the settling of each window
    (:func:`_run_windows`); the number of pieces (cut ones included) then replaces the
    schedule."""
    from ..rates._pieces import PieceChunks, chunks_to_arrays
    from ..simulate import COMPLETION_RTOL, SimulationError, settle_sizes
    from . import _mlfq_kernel as _mk
    inst = instance
    K, F = inst.num_coflows, inst.num_flows
    mlfq_mode = isinstance(pol, _LevelPolicy)
    fair_levels = _fair_levels_compiled(pol)
    if fair_levels:
        hs = H = np.zeros(0)
        thr_s = thr = 0.0
        heavy = None
    elif mlfq_mode:
        hs = pol.thresholds * (1 - CROSSING_RTOL)
        H = np.ascontiguousarray(pol.thresholds, dtype=float)
        thr_s = thr = 0.0
        heavy = pol._no_heavy
    else:
        hs = H = np.zeros(0)
        thr_s, thr = pol.threshold * (1 - CROSSING_RTOL), float(pol.threshold)
        heavy = pol.heavy
    stats = np.zeros(8, dtype=np.int64)
    times = np.array(inst.release, dtype=float)
    n = F if window > 0 else 0
    # sink mode: the buffers hold a window plus what one event adds (kernel docstring)
    chunks = PieceChunks(buffer=window + 3 * F + 16) if window > 0 else PieceChunks()
    settle_args = (np.zeros(n), np.full(n, -1, dtype=np.int64), np.zeros(n, dtype=np.int64),
                   np.zeros(2, dtype=np.int64))

    def call():
        if fair_levels:
            from ._level_kernel import levels_simulate
            levels_simulate(*_level_kernel_args(inst, pol), int(max_events), COMPLETION_RTOL,
                            pol.level, stats, times, *chunks.args(), int(window),
                            *settle_args)
            return
        _mk.slots_simulate(_mk.MODE_MLFQ if mlfq_mode else _mk.MODE_BARAAT, pol._ptr,
                           read_only(inst.flow_size, float), pol._flow_cof,
                           read_only(pol._rel_order, np.int64), read_only(pol._fifo, np.int64),
                           read_only(hs, float), read_only(H, float), thr_s, thr, *pol._paths,
                           pol._cap, pol._tol, FULL_RTOL, *pol._by_path,
                           int(pol._slot_cof.size), int(max_events), COMPLETION_RTOL,
                           pol.level if mlfq_mode else np.zeros(K, dtype=np.int64), heavy,
                           stats, times, *chunks.args(), int(window), *settle_args)

    if window > 0:
        sink(call, settle_args)
    else:
        call()
    status, events = int(stats[0]), int(stats[1])
    if status == _mk.TOO_MANY_EVENTS:
        raise SimulationError(f"policy {pol.name!r}: more than {max_events} events (at time "
                              f"{times[0]}); the policy makes no progress")
    if status != _mk.OK:
        raise SimulationError(f"policy {pol.name!r}: no future event at time {times[0]} while "
                              "released coflows are unfinished: the policy gives them no rate")
    pol.changes = int(stats[3])
    if fair_levels:
        pol.gathered, pol.served = int(stats[5]), int(stats[6])
    else:
        pol.walked, pol.found_by_path = int(stats[5]), int(stats[6])
    if mlfq_mode:
        pol.demotions = int(stats[4])
    if window > 0:
        return chunks.total, events, int(stats[2])
    f, s, e, v = chunks_to_arrays(chunks)
    sched = (settle_sizes(inst, Schedule(f, s, e, v, meta={"policy": pol.name}), copy=False)
             if f.size else Schedule.empty())
    return sched, events, int(stats[2])


def _fair_levels_compiled(pol) -> bool:
    """Whether ``pol`` is ``creek`` / ``decentralized-las`` with per-flow sharing inside a
    level and no aging, run in their compiled event loop (:mod:`._level_kernel`;
    ``_Slots.incremental`` / ``_Slots.compiled`` False select the generic path, the
    reference engine, as for ``mlfq``)."""
    return (isinstance(pol, (CreekPolicy, DecentralizedLasPolicy)) and pol.within == "fair"
            and pol.aging is None and _Slots.incremental and _Slots.compiled)


def _compiled_applies(pol) -> bool:
    """Whether ``pol`` (reset) runs in a compiled event loop (:func:`_run_compiled`)."""
    return (isinstance(pol, _Slots) and pol._fast and pol.compiled) or \
        _fair_levels_compiled(pol)


def _level_kernel_args(instance: Instance, pol) -> tuple:
    """The arguments of :func:`._level_kernel.levels_simulate` from ``pol`` (reset) up to
    ``max_events``: the units (each one's flows and coflow, each coflow's units), the
    thresholds, the paths, ``creek``'s held rates and sub-coflow projection."""
    K = instance.num_coflows
    unit_cof = instance.flow_coflow[pol._unit_flows[pol._unit_ptr[:-1]]].astype(np.int64)
    cu_ptr = np.zeros(K + 1, dtype=np.int64)
    np.cumsum(np.bincount(unit_cof, minlength=K), out=cu_ptr[1:])
    creek = isinstance(pol, CreekPolicy)
    hold = bool(pol.hold_rates)
    proj = creek and pol.subcoflow_estimate
    i0, f0 = np.zeros(1, dtype=np.int64), np.zeros(1)
    pid, _, _, q_ptr, q_res, _, _ = _distinct_paths(instance)
    if proj:
        sub = (pol._sid, pol._sub_ptr, pol._sub_flows, pol._sub_coflow, pol._cof_sub_ptr,
               pol._cof_subs, pol._nsub)
    else:
        sub = (np.zeros(instance.num_flows, dtype=np.int64), i0, i0[:0], i0[:0],
               np.zeros(K + 1, dtype=np.int64), i0[:0], np.zeros(K))
    sub = tuple(read_only(a, float if a.dtype.kind == "f" else np.int64) for a in sub)
    return (read_only(instance.flow_ptr, np.int64), read_only(instance.flow_size, float),
            read_only(instance.flow_coflow, np.int64),
            read_only(np.lexsort((np.arange(K), instance.release)), np.int64),
            read_only(pol._unit, np.int64), read_only(pol._unit_ptr, np.int64),
            read_only(pol._unit_flows, np.int64), read_only(unit_cof, np.int64),
            read_only(cu_ptr, np.int64),
            read_only(pol.thresholds * (1 - CROSSING_RTOL), float),
            read_only(pol.thresholds, float), *pol._paths, read_only(pid, np.int64),
            read_only(q_ptr, np.int64), read_only(q_res, np.int64), pol._cap, pol._tol, FULL_RTOL,
            hold, read_only(pol._flow_tol if hold else f0, float), proj, *sub)


def _run(instance: Instance, pol, algorithm: str, params: dict) -> Schedule:
    max_events = _max_events(instance, pol)
    pol.reset(instance)
    if _compiled_applies(pol):
        s, events, calls = _run_compiled(instance, pol, max_events)
    else:
        res = simulate(instance, pol, max_events=max_events)
        s, events, calls = res.schedule, res.events, res.policy_calls
    meta = {"algorithm": algorithm, **params, "events": events,
            "policy_calls": calls, "class_changes": pol.changes}
    if isinstance(pol, _LevelPolicy):
        meta.update({"thresholds": pol.thresholds.tolist(), "final_level": pol.level.tolist(),
                     "demotions": pol.demotions, "promotions": pol.promotions})
    else:
        meta.update({"heavy_threshold": pol.threshold, "heavy": pol.heavy.tolist()})
    return Schedule(s.flow, s.start, s.end, s.rate, meta=meta)


#: Default pieces per window of :func:`mlfq_windows` / :func:`baraat_windows`.
WINDOW_PIECES = 1 << 18


def _run_windows(instance: Instance, pol, algorithm: str, params: dict, on_window,
                 window: int) -> dict:
    """:func:`_run` without holding the schedule: the compiled event loop's sink mode hands
    over consecutive time windows, each settled and passed to ``on_window``; where the
    compiled loop does not apply (``mlfq`` with ``within="fair"`` or aging, ``baraat`` with
    ``within="fifo"``, the Python engine) the held schedule is handed over as one window.

    *Settling.*  :func:`_run_compiled` ends with :func:`~coflowopt.simulate.settle_sizes`.
    Here the kernel sums each flow's data as ``settle_sizes`` sums the held schedule (the same
    pieces in the same order, by the same slices: the same bits) and lists the flows that
    finished in the window; a flow whose pieces all lie in the window gets ``settle_sizes``'
    rule on that sum, so its rates are the held run's bit for bit.  A flow with pieces in an
    earlier window cannot be rescaled any more: if it needed it, it is counted in
    ``unsettled`` and left as it is (a rounding, ~1e-12 relative; the verifier judges it, and
    :func:`coflowopt.api.run_schedule` reruns the held form when the verdict is a rejection).
    """
    from ..rates._pieces import WindowSink
    from ..rates.madd import held_as_window
    from ..simulate import settle_off, settle_rates

    window = int(window)
    if window < 1:
        raise InvalidParameterError(f"window must be a positive number of pieces, got {window}")
    max_events = _max_events(instance, pol)
    pol.reset(instance)
    if not _compiled_applies(pol):
        return held_as_window(instance, on_window, _run(instance, pol, algorithm, params))
    F = instance.num_flows
    size = np.asarray(instance.flow_size, dtype=float)
    off = np.zeros(F, dtype=bool)
    count = {"settled": 0, "unsettled": 0}
    kernel_out = []

    def settle(f, s, e, v):
        sent, first_win, wdone, wstat = kernel_out[0]
        done = wdone[:wstat[0]]
        whole = first_win[done] == wstat[1]
        fix = done[whole][settle_off(sent[done[whole]], size[done[whole]])]
        split = done[~whole]
        count["unsettled"] += int(settle_off(sent[split], size[split]).sum())
        if fix.size:
            off[fix] = True
            settle_rates(f, v, sent, size, off)
            off[fix] = False
            count["settled"] += int(fix.size)

    sink = WindowSink(instance, on_window, {"algorithm": algorithm, **params,
                                            "engine": "kernel"}, prepare=settle)

    def run(call, settle_args):
        kernel_out.append(settle_args)
        sink.run(call, f"{algorithm} windows")

    pieces, events, calls = _run_compiled(instance, pol, max_events, window, run)
    return {"events": events, "policy_calls": calls, "class_changes": pol.changes,
            "pieces": pieces, "windows": sink.windows, "callback_s": sink.callback_s, **count}


_LEVEL_PARAMS = """    thresholds : list of float, optional
        Upper thresholds of the levels, strictly increasing (``K - 1`` numbers for ``K``
        levels), in the instance's size unit; default ``first_threshold *
        multiplier**i`` for ``num_queues`` levels (:func:`level_thresholds`).
    num_queues : int >= 1, default 8
        Number of levels ``K`` when ``thresholds`` is not given (8: the priority queues of
        commodity switches).
    first_threshold : float > 0, default 10
        Upper threshold of the first level (attained bytes, in the instance's size unit) when
        ``thresholds`` is not given.
    multiplier : float > 1, default 10
        Each further level's threshold is this times the one before."""

_COMMON_TAGS = ("online", "non_clairvoyant", "release_dates", "preemptive",
                "heterogeneous_capacities", "work_conserving")


@register("policy", "mlfq", summary="non-clairvoyant multi-level feedback queue: K levels on "
          "coflow attained bytes with any increasing thresholds, strict priority across levels, "
          "FIFO or per-flow max-min inside a level, optional aging (promote after waiting W)",
          reference="seed 001 (Creek) Sec. IV-B and digest seeds-000-002.md Sec. 2.8 item 2; "
          "Chowdhury dissertation Sec. 6.4 (D-CLAS thresholds)",
          guarantee="work-conserving at every instant; starvation-free with aging",
          tags=_COMMON_TAGS)
def mlfq(instance: Instance, *, thresholds=None, num_queues: int = 8,
         first_threshold: float = 10.0, multiplier: float = 10.0, within: str = "fifo",
         aging: float | None = None, tol_rel: float = 1e-12) -> Schedule:
    """A general non-clairvoyant multi-level feedback queue on coflow attained bytes.

    Parameters
    ----------
    instance : Instance
    LEVEL_PARAMETERS
    within : {"fifo", "fair"}, default "fifo"
        Inside a level: coflows in FIFO order (release, then index), each max-min among its
        flows; or per-flow max-min among all the level's flows.
    aging : float > 0, optional
        ``W``: a coflow that gets no rate for ``W`` in a row moves up one level (and is
        demoted again after a level's span of bytes).  Default: no aging.
    tol_rel : float
        A resource's residual capacity below ``tol_rel`` times its capacity counts as 0.

    Returns
    -------
    Schedule
        ``meta`` records the parameters, ``thresholds``, ``final_level`` (per coflow),
        ``demotions``, ``promotions`` and the simulator's counts.

    Raises
    ------
    InvalidParameterError
        For a parameter out of range (the message names it).

    Examples
    --------
    Two coflows on one port, released together: with one threshold at 1, both are served
    FIFO in level 0 until A has sent 1, then B (still in level 0) preempts it:

    >>> from coflowopt import Instance, Coflow
    >>> from coflowopt.verify import verify_schedule
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 3)]), Coflow("B", [(0, 0, 1)])])
    >>> verify_schedule(inst, mlfq(inst, thresholds=[1])).coflow_completion.tolist()
    [4.0, 2.0]

    Notes
    -----
    *Guarantee.*  None on the objective.  Work-conserving at every instant (every class is
    max-min on what higher classes leave, and every event reallocates).  Without aging a
    coflow in a low level can starve while higher ones keep arriving.

    *Running time.*  FIFO without aging (the default) runs in one compiled event loop
    (:mod:`._mlfq_kernel`: the simulator and this policy's bookkeeping together, the same
    bits as the policy on :func:`~coflowopt.simulate.simulate`, its reference engine): per
    event work over the coflows served and the flows with a rate, and one compiled pass in
    priority order
    (:func:`._class_kernel.serve_levels`, priority slots kept across events) with a
    progressive filling for each coflow that still finds capacity: the slots are walked
    until a run of coflows gets nothing, then the next coflow that can be served is found
    through a heap of the free paths' next slots, so the blocked coflows behind are not
    visited; it stops when no flow left has a free path.  Otherwise (``within="fair"`` or aging): per event
    O(active flows x path length) numpy work (sorting them into groups) and the same compiled
    filling.  Events are releases, flow completions, level crossings and promotions (about
    three per coflow on random instances: 15,123 at 5,000 coflows).

    References
    ----------
    Seed 001 (Creek), Sec. IV-B; Chowdhury, PhD dissertation (2015), Sec. 6.4.
    """
    pol = MlfqPolicy(thresholds, num_queues, first_threshold, multiplier, within, aging,
                     tol_rel)
    return _run(instance, pol, "mlfq", {"within": within, "aging": pol.aging})


@register("policy", "creek", summary="Creek: MLFQ on coflow bytes received (shared record of "
          "the receivers), per-flow sharing inside a level, demotion by the projected size once "
          "a sub-coflow completes (reconstruction), optional aging as starvation mitigation",
          reference="seed 001 (Creek) Sec. IV-B; digest seeds-000-002.md Sec. 2.3 (the rule is "
          "a reconstruction)",
          guarantee="work-conserving at every instant; starvation-free with aging",
          tags=_COMMON_TAGS)
def creek(instance: Instance, *, thresholds=None, num_queues: int = 8,
          first_threshold: float = 10.0, multiplier: float = 10.0, within: str = "fair",
          aging: float | None = None, subcoflow_estimate: bool = True,
          tol_rel: float = 1e-12) -> Schedule:
    """Creek's decentralised many-to-many coflow scheduling, as a fluid policy.

    The level of a coflow is that of ``max(S_c, P_c)``: ``S_c`` its bytes received so far,
    ``P_c`` the size projected from its completed sub-coflows (module docstring; the rule is
    our reconstruction: the seed's text omits it).  Sub-coflows are the instance's
    (:attr:`coflowopt.instance.Instance.flow_subcoflow_id`; by default one per receiver).

    Parameters
    ----------
    instance : Instance
    LEVEL_PARAMETERS
    within : {"fair", "fifo"}, default "fair"
        Inside a level: per-flow max-min (TCP flows in one switch queue), or FIFO.
    aging : float > 0, optional
        Creek's waiting threshold: a coflow starved for ``aging`` moves up one level.
    subcoflow_estimate : bool, default True
        Use the sub-coflow projection ``P_c``; False: levels on ``S_c`` only.
    tol_rel : float
        A resource's residual capacity below ``tol_rel`` times its capacity counts as 0.

    Returns
    -------
    Schedule
        ``meta`` as :func:`mlfq`.

    Raises
    ------
    InvalidParameterError

    Examples
    --------
    Coflow A has two receivers.  Its sub-coflow to egress 1 (2 units) completes at time 2,
    when A has received 3 < 3.5: A is projected at 2 x 2 = 4 and demoted below B at once, and
    B (sharing ingress 0 with A until then) finishes alone at 3.  Without the projection A
    stays in level 0 until it has received 3.5, at time 3, and B finishes at 3.5:

    >>> from coflowopt import Instance, Coflow
    >>> from coflowopt.verify import verify_schedule
    >>> inst = Instance.from_coflows([Coflow("A", [(1, 1, 2), (0, 0, 6)]),
    ...                              Coflow("B", [(0, 2, 2)])])
    >>> verify_schedule(inst, creek(inst, thresholds=[3.5])).coflow_completion.tolist()
    [8.0, 3.0]
    >>> c = creek(inst, thresholds=[3.5], subcoflow_estimate=False)
    >>> verify_schedule(inst, c).coflow_completion.tolist()
    [8.0, 3.5]

    Notes
    -----
    *Guarantee.*  None on the objective; work-conserving at every instant.

    *Assumptions.*  Non-clairvoyant: reads bytes sent, finished flows and the flow set (a
    completed sub-coflow's size is what its flows sent).  Thresholds are absolute.

    *Running time.*  Per-flow sharing inside a level without aging (the default) runs in one
    compiled event loop (:mod:`._level_kernel`, the same bits as the policy on
    :func:`~coflowopt.simulate.simulate`, its reference engine): per event one pass over the
    flows of the coflows in the levels served (gathering, attained service, held rates) and
    a progressive filling per level that costs its flows plus rounds x resources.  About one
    event per flow completion, and per-flow max-min re-rates most flows sharing a port with
    the one that finished, so the pieces grow faster than the flows (the Facebook trace:
    ``experiments/results/creek_profile.md``).  FIFO inside a level or aging: the generic
    simulator, O(active flows) numpy work per event.

    References
    ----------
    Seed 001 (Creek), Sec. IV-B; digest ``seeds-000-002.md`` Sec. 2.3.
    """
    pol = CreekPolicy(thresholds, num_queues, first_threshold, multiplier, within, aging,
                      tol_rel, subcoflow_estimate=subcoflow_estimate)
    return _run(instance, pol, "creek", {"within": within, "aging": pol.aging,
                                         "subcoflow_estimate": pol.subcoflow_estimate})


@register("policy", "baraat", summary="Baraat's FIFO with limited multiplexing: FIFO strict "
          "priority by arrival, a heavy coflow (attained >= threshold, default the 80th "
          "percentile of coflow sizes) shares per flow with the coflows after it up to the next "
          "light one",
          reference="Dogar et al., Baraat, SIGCOMM 2014, Sec. 3; seed 001 (Creek) baseline; "
          "Chowdhury dissertation Fig. 6.8 (FIFO-LM at the 80th percentile)",
          guarantee="work-conserving at every instant; a heavy coflow never blocks the next one",
          tags=("online", "release_dates", "preemptive", "heterogeneous_capacities",
                "work_conserving"))
def baraat(instance: Instance, *, heavy_threshold: float | None = None, within: str = "fair",
           tol_rel: float = 1e-12) -> Schedule:
    """Baraat's FIFO-LM (FIFO with limited multiplexing), as a fluid policy.

    Parameters
    ----------
    instance : Instance
    heavy_threshold : float > 0, optional
        Attained service from which a coflow is heavy; default the 80th percentile of the
        instance's coflow sizes (a workload statistic, as in the dissertation's evaluation of
        FIFO-LM, Fig. 6.8; the decisions themselves read attained bytes only).
    within : {"fair", "fifo"}, default "fair"
        Inside a multiplexed class: per-flow max-min, or FIFO.
    tol_rel : float
        A resource's residual capacity below ``tol_rel`` times its capacity counts as 0.

    Returns
    -------
    Schedule
        ``meta`` records ``heavy_threshold`` and which coflows became heavy.

    Raises
    ------
    InvalidParameterError

    Examples
    --------
    A (4 units) and B (1 unit) on one port, released together, threshold 2: A alone until it
    is heavy at 2, then A and B share:

    >>> from coflowopt import Instance, Coflow
    >>> from coflowopt.verify import verify_schedule
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 4)]), Coflow("B", [(0, 0, 1)])])
    >>> verify_schedule(inst, baraat(inst, heavy_threshold=2)).coflow_completion.tolist()
    [5.0, 4.0]

    Notes
    -----
    *Reading of Baraat.*  Baraat (Sec. 3) serves tasks FIFO and lets a heavy task, one that
    has sent more than a threshold, be multiplexed with the following task so that it does
    not hold up everything behind it.  Here the classes are formed along the FIFO order: each
    light coflow with the heavy ones just before it; a class shares per flow.  Seed 001's
    one-sentence description of Baraat reads inverted (digest Sec. 2.7) and is not used.

    *Running time.*  ``within="fair"`` (the default) runs in the compiled event loop of
    :func:`mlfq` (:mod:`._mlfq_kernel`, the same bits as the policy on the generic
    simulator): per event work over the classes served and the flows with a rate, and one
    compiled pass over the classes in FIFO order
    (:func:`._class_kernel.serve_levels`, FIFO slots kept across events) with a progressive
    filling per class that still finds capacity; past a run of classes that get nothing the
    next class that can be served is found through a heap of the free paths' next slots.
    ``within="fifo"``: per event O(active flows) numpy work (sorting them into groups) and
    the same compiled filling (:func:`._class_kernel.serve_groups`).

    References
    ----------
    F. R. Dogar, T. Karagiannis, H. Ballani, A. Rowstron, SIGCOMM 2014, Sec. 3.
    """
    pol = BaraatPolicy(heavy_threshold, within, tol_rel)
    return _run(instance, pol, "baraat", {"within": within})


def mlfq_windows(instance: Instance, on_window, *, thresholds=None, num_queues: int = 8,
                 first_threshold: float = 10.0, multiplier: float = 10.0, within: str = "fifo",
                 aging: float | None = None, tol_rel: float = 1e-12,
                 window: int = WINDOW_PIECES) -> dict:
    """:func:`mlfq` handed over window by window (its compiled loop's sink mode), never held.

    Why: on the Facebook trace ``mlfq`` is 1.4e8 pieces, 4.5 GB held (5.8 GB peak with the
    concatenation); a run that only needs the verdict and the numbers
    (``run_schedule(..., keep_schedule=False)``, the CLI without ``--out``) needs one window.

    Parameters
    ----------
    instance : Instance
    on_window : callable
        ``on_window(schedule, start, end)`` for every window in time order: ``schedule`` holds
        the pieces in ``[start, end]`` (a piece open at a window boundary is cut there, with
        the same rate on both sides).
    thresholds, num_queues, first_threshold, multiplier, within, aging, tol_rel
        As for :func:`mlfq` (where its compiled loop does not apply, ``within="fair"`` or
        aging, the held schedule is handed over as one window).
    window : int
        Pieces per window (at least; a window ends at the first event after ``window``).

    Returns
    -------
    dict
        ``events``, ``policy_calls``, ``class_changes``, ``pieces`` (cut pieces included),
        ``windows``, ``callback_s`` (time in ``on_window``), ``settled`` (flows rescaled),
        ``unsettled`` (flows that needed it but had pieces in an earlier window).

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> from coflowopt.verify import WindowedVerifier
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 3)]), Coflow("B", [(0, 0, 1)])])
    >>> v = WindowedVerifier(inst)
    >>> st = mlfq_windows(inst, lambda s, a, b: v.add(a, b, s), thresholds=[1], window=1)
    >>> v.report().coflow_completion.tolist(), st["windows"] > 1
    ([4.0, 2.0], True)
    """
    pol = MlfqPolicy(thresholds, num_queues, first_threshold, multiplier, within, aging,
                     tol_rel)
    return _run_windows(instance, pol, "mlfq", {"within": within, "aging": pol.aging},
                        on_window, window)


def baraat_windows(instance: Instance, on_window, *, heavy_threshold: float | None = None,
                   within: str = "fair", tol_rel: float = 1e-12,
                   window: int = WINDOW_PIECES) -> dict:
    """:func:`baraat` handed over window by window (the compiled loop's sink mode, as
    :func:`mlfq_windows`), never held: 3.2 GB held on the Facebook trace.

    Parameters
    ----------
    instance : Instance
    on_window : callable
        As for :func:`mlfq_windows`.
    heavy_threshold, within, tol_rel
        As for :func:`baraat` (``within="fifo"``: the held schedule as one window).
    window : int
        Pieces per window (at least).

    Returns
    -------
    dict
        As :func:`mlfq_windows`.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> from coflowopt.verify import WindowedVerifier
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 4)]), Coflow("B", [(0, 0, 1)])])
    >>> v = WindowedVerifier(inst)
    >>> st = baraat_windows(inst, lambda s, a, b: v.add(a, b, s), heavy_threshold=2, window=1)
    >>> v.report().coflow_completion.tolist(), st["windows"] > 1
    ([5.0, 4.0], True)
    """
    pol = BaraatPolicy(heavy_threshold, within, tol_rel)
    return _run_windows(instance, pol, "baraat", {"within": within}, on_window, window)


@register("policy", "decentralized-las", summary="decentralised least-attained-service: levels "
          "on the bytes a coflow has sent from each source (no coordination), per-flow max-min "
          "inside a level", reference="Chowdhury dissertation Sec. 6.2, Fig. 6.1d; seed 001 "
          "(Creek) as the uncoordinated baseline",
          guarantee="work-conserving at every instant",
          tags=_COMMON_TAGS, aliases=("dlas",))
def decentralized_las(instance: Instance, *, thresholds=None, num_queues: int = 8,
                      first_threshold: float = 10.0, multiplier: float = 10.0,
                      within: str = "fair", aging: float | None = None,
                      tol_rel: float = 1e-12) -> Schedule:
    """Decentralised LAS: each source prioritises by the bytes the coflow has sent from it.

    Parameters
    ----------
    instance : Instance
    LEVEL_PARAMETERS
    within : {"fair", "fifo"}, default "fair"
        Inside a level: per-flow max-min among the level's flows, or FIFO (as in
        :func:`mlfq`).
    aging : float > 0, optional
        As in :func:`mlfq`, per (coflow, source).
    tol_rel : float
        A resource's residual capacity below ``tol_rel`` times its capacity counts as 0.

    Returns
    -------
    Schedule
        ``meta`` as :func:`mlfq` (``final_level`` per (coflow, source) pair, in the order of
        ``coflow * hosts + source``).

    Raises
    ------
    InvalidParameterError

    Examples
    --------
    The dissertation's Fig. 6.1 (ingress contention only; C2 arrives at 1): with a level
    boundary at 1 byte, C2 preempts C1 at P2 until it has sent as much there; at P1 C1 and C3
    share.  Average CCT 5, as printed for decentralised LAS:

    >>> from coflowopt.library import load_instance
    >>> from coflowopt.verify import verify_schedule
    >>> inst = load_instance("papers/dissertation-fig6.1")
    >>> rep = verify_schedule(inst, decentralized_las(inst, thresholds=[1, 2, 4]))
    >>> rep.average_cct
    5.0

    Notes
    -----
    The printed example is continuous LAS at each port; a discretised version with levels at
    the bytes where the example's ties form gives the same schedule.  On a big switch a
    flow's source is its ingress port, on resources its source host.  Which end applies the
    priority on a multi-hop path is our choice (the sender, which marks its packets, as in
    Creek's DSCP marking).

    Per-flow sharing inside a level without aging (the default) runs in the compiled event
    loop of :func:`creek` (:mod:`._level_kernel`, units = (coflow, source) pairs; the same
    bits as the generic simulator).  As in :func:`creek`, a flow whose new rate is within the
    policy's zero (``tol_rel`` times the smallest capacity on its path) of its current one
    keeps the current one: the progressive filling's rounding closes no piece.

    References
    ----------
    M. Chowdhury, PhD dissertation (2015), Sec. 6.2, Fig. 6.1.
    """
    pol = DecentralizedLasPolicy(thresholds, num_queues, first_threshold, multiplier, within,
                                 aging, tol_rel)
    return _run(instance, pol, "decentralized-las", {"within": within, "aging": pol.aging})



def decentralized_las_windows(instance: Instance, on_window, *, thresholds=None,
                              num_queues: int = 8, first_threshold: float = 10.0,
                              multiplier: float = 10.0, within: str = "fair",
                              aging: float | None = None, tol_rel: float = 1e-12,
                              window: int = WINDOW_PIECES) -> dict:
    """:func:`decentralized_las` handed over window by window (the compiled event loop's sink
    mode, as :func:`mlfq_windows`; with ``within="fifo"`` or aging the generic simulator's,
    :func:`coflowopt.simulate.simulate` with ``on_window``), never held.

    Why: the policy reallocates at every flow completion and per-flow max-min changes the
    rate of most active flows there, so each event closes 10^4 pieces on the Facebook trace:
    7.7e7 pieces (2.8 GB resident) after 7,400 events, 241 of 526 coflows, and the held run
    ran out of memory at 8 GiB.  The windows glue into the held schedule: the same pieces (cut
    at window boundaries, the same rate on both sides) with the same rates, but for the flows
    the sink's settling leaves unsettled (``tests/test_dlas_stream.py``).

    Parameters
    ----------
    instance : Instance
    on_window : callable
        ``on_window(schedule, start, end)`` for every window in time order.
    LEVEL_PARAMETERS
    within, aging, tol_rel
        As for :func:`decentralized_las`.
    window : int
        Pieces per window (at least; a window ends at the first event after ``window``).

    Returns
    -------
    dict
        ``events``, ``policy_calls``, ``class_changes`` and the sink's ``pieces``,
        ``windows``, ``callback_s``, ``settled``, ``unsettled``.

    Examples
    --------
    >>> from coflowopt.library import load_instance
    >>> from coflowopt.verify import WindowedVerifier
    >>> inst = load_instance("papers/dissertation-fig6.1")
    >>> v = WindowedVerifier(inst)
    >>> st = decentralized_las_windows(inst, lambda s, a, b: v.add(a, b, s),
    ...                                thresholds=[1, 2, 4], window=1)
    >>> v.report().average_cct, st["windows"] > 1
    (5.0, True)
    """
    pol = DecentralizedLasPolicy(thresholds, num_queues, first_threshold, multiplier, within,
                                 aging, tol_rel)
    return _simulate_windows(instance, pol, on_window, window,
                             {"algorithm": "decentralized-las", "within": within,
                              "aging": pol.aging})


def _simulate_windows(instance: Instance, pol, on_window, window: int, meta: dict) -> dict:
    """``pol`` in the compiled event loop's sink mode where it applies (:func:`_run_windows`,
    ``within="fair"`` without aging), else on the generic simulator in its sink mode (windows
    of ``window`` pieces, each schedule's ``meta``): the statistics of
    :func:`decentralized_las_windows` / :func:`creek_windows`."""
    if _fair_levels_compiled(pol):
        params = {k: v for k, v in meta.items() if k != "algorithm"}
        return _run_windows(instance, pol, meta["algorithm"], params, on_window, window)
    sim = simulate(instance, pol, max_events=_max_events(instance, pol), on_window=on_window,
                   window=window, meta=meta)
    return {"events": sim.events, "policy_calls": sim.policy_calls,
            "class_changes": pol.changes, **sim.stats}


def creek_windows(instance: Instance, on_window, *, thresholds=None, num_queues: int = 8,
                  first_threshold: float = 10.0, multiplier: float = 10.0,
                  within: str = "fair", aging: float | None = None,
                  subcoflow_estimate: bool = True, tol_rel: float = 1e-12,
                  window: int = WINDOW_PIECES) -> dict:
    """:func:`creek` handed over window by window (the compiled event loop's sink mode, as
    :func:`mlfq_windows`; with ``within="fifo"`` or aging the generic simulator's,
    :func:`coflowopt.simulate.simulate` with ``on_window``), never held.

    Why: per-flow max-min inside a level changes the rates of most active flows at every flow
    completion; on the Facebook trace the held run passed 5.3 GB and was stopped unfinished
    at 1,500 s.  The windows glue into the held schedule: the same pieces (cut at window
    boundaries, the same rate on both sides) with the same rates, but for the flows
    the sink's settling leaves unsettled (``tests/test_creek_stream.py``).

    Parameters
    ----------
    instance : Instance
    on_window : callable
        ``on_window(schedule, start, end)`` for every window in time order.
    LEVEL_PARAMETERS
    within, aging, subcoflow_estimate, tol_rel
        As for :func:`creek`.
    window : int
        Pieces per window (at least; a window ends at the first event after ``window``).

    Returns
    -------
    dict
        As :func:`decentralized_las_windows`.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> from coflowopt.verify import WindowedVerifier
    >>> inst = Instance.from_coflows([Coflow("A", [(1, 1, 2), (0, 0, 6)]),
    ...                              Coflow("B", [(0, 2, 2)])])
    >>> v = WindowedVerifier(inst)
    >>> st = creek_windows(inst, lambda s, a, b: v.add(a, b, s), thresholds=[3.5], window=1)
    >>> v.report().coflow_completion.tolist(), st["windows"] > 1
    ([8.0, 3.0], True)
    """
    pol = CreekPolicy(thresholds, num_queues, first_threshold, multiplier, within, aging,
                      tol_rel, subcoflow_estimate=subcoflow_estimate)
    return _simulate_windows(instance, pol, on_window, window,
                             {"algorithm": "creek", "within": within, "aging": pol.aging,
                              "subcoflow_estimate": pol.subcoflow_estimate})


for _f in (mlfq, creek, creek_windows, decentralized_las, decentralized_las_windows):
    _f.__doc__ = _f.__doc__.replace("    LEVEL_PARAMETERS", _LEVEL_PARAMS)
