"""Online Varys: starvation freedom with T- and delta-intervals, and the deadline mode.

Both policies extend the offline :class:`~coflowopt.policies.varys.VarysPolicy` (SEBF on the
remaining demand, iterative MADD, backfilling, recomputed at coflow releases and completions) and
run in the generic simulator (:func:`coflowopt.simulate.simulate`): that is the reference
engine (``engine="python"``).  By default (``engine="auto"``) ``varys-online`` runs in offline
Varys' compiled event loop (:func:`coflowopt.rates._madd_kernel.madd_simulate`, section "online
Varys' clock") on a big switch with backfilling ``"varys"`` or none, and ``varys-deadline`` on
an instance without any deadline (where it is offline Varys) in that loop too: the same pieces
(in another order), starved sets, interval boundaries and admission decisions, tested against
the reference (``tests/test_online_varys.py``).

``varys-online`` (Pseudocode 1, ``minCCTOnline``)
--------------------------------------------------
Time alternates between *T-intervals*, in which Varys runs as offline (``minCCTOffline`` at every
coflow release and completion), and *delta-intervals*, in which only ``C*``, the union of the
coflows that received no service during the T-interval just ended (``C_zero``), is served, with
MADD as if ``C*`` were one coflow ("All coflows that were served during the last T-interval do not
receive any service during this delta-interval", Sec. 5.5.3).

**Starvation freedom, precisely.**  The dissertation says every coflow gets service "in every
(T + delta) interval".  What holds (and is tested) is: (a) a coflow active during a whole
*cycle* -- a T-interval and the delta-interval after it -- is served in that cycle; (b) its
first service comes at most ``T + delta`` after its release; (c) two consecutive services are at
most ``2 T + delta`` apart.  An arbitrary window of length ``T + delta`` is not enough: a coflow
served only at the very start of a T-interval and not in the next one waits almost
``2 T + delta``.

Resolved ambiguities (each one a decision of this module):

* **Clock.**  The first T-interval starts at the first release; intervals follow each other back
  to back, also while the fabric is idle.
* **Who is starved.**  ``C_zero`` = the coflows active at the end of the T-interval whose attained
  service (data sent, summed over their flows) did not grow during it.  A coflow released during
  the interval counts from its release: if it got nothing before the interval ended it is
  starved, so a coflow waits at most ``T + delta`` from its release for its first byte (one
  released exactly at the boundary has not waited and belongs to the next T-interval).
* **Empty C_zero.**  No delta-interval (idling the fabric for nothing would only add delay); the
  next T-interval starts at once and the rates are *not* recomputed at that boundary (a timer is
  not an event of ``minCCTOffline``).  Hence, when no coflow is ever starved, the schedule is
  exactly offline Varys' (tested).
* **Inside a delta-interval.**  ``C*`` gets MADD rates ``d_ij / Gamma(C*)``, ``Gamma`` computed
  on the union's remaining demand on the full capacities (Eq. 4.1), then the leftover is
  backfilled *to flows of C* only* (work conservation that respects "do not receive any
  service").  A completion inside ``C*`` recomputes ``Gamma`` on what is left of the union; the
  interval ends early when all of ``C*`` has finished.  Coflows released during a
  delta-interval wait for the next T-interval (at most ``delta``).
* **delta = 0** means no delta-intervals at all: the policy is offline Varys (tested).
* **Units.**  ``T`` and ``delta`` are in the instance's time unit.  The defaults are Varys' EC2
  settings (T = 2 s, delta = 200 ms, Sec. 5.4 of the digest) in the time unit of the Facebook
  trace as read by :func:`coflowopt.formats.coflow_benchmark.read_coflow_benchmark`
  (7.8125 ms, the time 1 MB takes at 1 Gbit/s): T = 256 and delta = 25.6.

``varys-deadline`` (Pseudocode 2, ``meetDeadline``)
---------------------------------------------------
Deadlines are absolute (``instance.deadline``).  At a coflow's release, with ``t`` the current
time and ``D_k - t`` each coflow's remaining time to its deadline:

1. every admitted, unfinished coflow re-reserves its minimum rates ``remaining_ij / (D_k - t)``
   (``allocBandwidth(C, Rem, false)`` with remaining bytes and remaining time);
2. the new coflow is admitted iff its Gamma (Eq. 4.1) on the residual capacity is at most
   ``D_c - t``; coflows released at the same instant are examined in release order, then index,
   each admitted one reserving before the next is examined;
3. the allocation: admitted coflows in admission (arrival) order with MADD to their deadlines,
   then the best-effort coflows (below), then backfilling over that order; rejected coflows
   (below) share only what is left after that.

Admitted coflows are never preempted and always meet their deadlines: at each recomputation a
coflow that has received at least its reservation needs at most the rate it reserved before, so
the reservations keep fitting (this is what makes Pseudocode 2's admission control sound).

**Coflows without a deadline** (``NaN``) are best effort: no admission control, no reservation;
they are served after the admitted ones by offline Varys (SEBF + MADD on what admitted coflows
leave), the "deadline coflows first, then min-CCT for the rest" combination of Sec. 3.1.3.
Without any deadline the policy is therefore exactly offline Varys (tested).

**Rejected coflows.**  Varys does not serve them (the application must resubmit), but a
coflowopt schedule must send every flow its size (the verifier's completeness rule).  So
rejected coflows are always *sent*, and always *reported* as rejected (they count as deadline
misses in ``meta``, whatever their completion time):

``serve_rejected="after"`` (default: "not served")
    they get no bandwidth until every admitted and best-effort coflow has finished and every
    coflow has been released; then they are served like best-effort coflows.  During the
    deadline-mode run they are invisible, as in Varys.
``serve_rejected="backfill"``
    they share what the admitted and best-effort coflows leave after their backfilling (SEBF +
    MADD on that leftover, then backfilling among them), so they may still finish, late or even
    in time.

Rejected coflows never change the allocation of the others: it is computed before theirs, and
the completion of a rejected coflow does not trigger its recomputation (the previous one is kept
and only the rejected tier is recomputed).  So both modes give the admitted and best-effort
coflows exactly the same schedule and the same admission decisions (tested), and every admitted
coflow meets its deadline.  Allocations are recomputed at coflow releases and completions only,
as in Varys.

On resources (a topology)
-------------------------
Both policies run unchanged on an instance whose flows use paths of shared resources: every
Gamma (SEBF key, MADD, the union ``C*`` of a delta-interval, admission control) is
``max_p load(p) / Rem(p)`` over the resources ``p`` of the paths, and reservations
``remaining_ij / (D_k - t)`` are charged to every resource of a flow's path
(:func:`coflowopt.policies.varys.resource_loads`); so a coflow is rejected when a shared core
link, not only its hosts' links, cannot carry it by its deadline.

References
----------
M. Chowdhury, "Coflow: A Networking Abstraction for Distributed Data-Parallel Applications", PhD
dissertation, UC Berkeley, 2015: Sec. 5.5.3 and Pseudocode 1 (``minCCTOnline``, starvation
freedom), Pseudocode 2 (``meetDeadline``), Sec. 3.1.3 (two priority levels), Sec. 5.7.1
(deadline generation, :func:`coflowopt.generators.with_deadlines`); M. Chowdhury, Y. Zhong,
I. Stoica, "Efficient Coflow Scheduling with Varys", SIGCOMM 2014, Sec. 5.3-5.4.  Code:
``coflow/coflowsim`` ``CoflowSimulator.java`` (``admitThisJob``: admission with Gamma on the
capacity left by the admitted coflows' deadline rates; rejected jobs never run there).
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np

from ..exceptions import InvalidParameterError
from ..instance import Instance
from ..orderings.basic import validate_order
from ..rates.greedy import priority_flow_order
from ..rates.madd import (WINDOW_PIECES, _refuse_python, backfill_rule, check_engine,
                          held_as_window, run_madd_kernel, run_madd_windows)
from ..registry import register
from ..schedule import Schedule
from ..simulate import SimState, SimulationError, schedule_length_bounds, simulate
from .varys import VarysPolicy, remaining_gamma, resource_loads

__all__ = ["varys_online", "varys_deadline", "varys_online_windows", "varys_deadline_windows",
           "VarysOnlinePolicy", "VarysDeadlinePolicy",
           "DEFAULT_T", "DEFAULT_DELTA", "SERVE_REJECTED", "max_service_gap"]

#: Varys' EC2 T = 2 s in the Facebook trace's time unit (7.8125 ms: 1 MB at 1 Gbit/s).
DEFAULT_T = 2000.0 / 7.8125
#: Varys' EC2 delta = 200 ms in the same unit.
DEFAULT_DELTA = 200.0 / 7.8125
#: Accepted values of ``serve_rejected`` (see the module docstring).
SERVE_REJECTED = ("after", "backfill")


def _coflow_attained(instance: Instance, sent: np.ndarray) -> np.ndarray:
    """Data sent per coflow (attained service, summed over all its flows)."""
    return np.add.reduceat(sent, instance.flow_ptr[:-1])


def _check_time(name: str, value, *, positive: bool) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(v) or v < 0 or (positive and v == 0):
        rule = "> 0" if positive else ">= 0"
        raise InvalidParameterError(f"{name} must be finite and {rule}, got {value!r}")
    return v


# ------------------------------------------------------------------------------ online Varys
class VarysOnlinePolicy(VarysPolicy):
    """Pseudocode 1's ``minCCTOnline`` as a :class:`~coflowopt.simulate.RatePolicy`.

    Parameters
    ----------
    T : float > 0
        Length of a T-interval (instance time unit).
    delta : float >= 0
        Length of a delta-interval; 0 disables them (offline Varys).
    backfill, tie_order, tol_rel
        As for :class:`~coflowopt.policies.varys.VarysPolicy`.

    Attributes
    ----------
    delta_intervals : list of (start, end, coflows)
        The delta-intervals that happened, with the starved set ``C_zero`` served in each.
    T_starts : list of float
        Start of every T-interval.  A *cycle* runs from one start to the next (a T-interval
        and the delta-interval that follows it, if any).

    Notes
    -----
    See the module docstring for the rules.  ``reschedule_on`` adds ``"timer"`` when
    ``delta > 0``; :meth:`next_timer` returns the end of the current interval.
    """

    name = "varys-online"

    def __init__(self, T: float = DEFAULT_T, delta: float = DEFAULT_DELTA, backfill="varys",
                 tie_order=None, tol_rel: float = 1e-12):
        super().__init__(backfill=backfill, tie_order=tie_order, tol_rel=tol_rel)
        self.T = _check_time("T", T, positive=True)
        self.delta = _check_time("delta", delta, positive=False)
        events = {"release", "coflow_completion"}
        if self.delta > 0:
            events.add("timer")
        self.reschedule_on = frozenset(events)

    def reset(self, instance: Instance) -> None:
        super().reset(instance)
        self._phase = "T"
        self._phase_end = math.inf if self.delta == 0 else None   # set at the first call
        self._snapshot = np.zeros(instance.num_coflows)
        self._starved = np.zeros(0, dtype=np.int64)
        self._last = (np.zeros(0, dtype=np.int64), np.zeros(0))
        self.delta_intervals: list[tuple[float, float, list[int]]] = []
        self.T_starts: list[float] = []

    # ---------------------------------------------------------------- the T/delta clock
    def _start_T(self, state: SimState) -> None:
        self.T_starts.append(state.time)
        self._phase = "T"
        self._phase_end = state.time + self.T
        self._snapshot = _coflow_attained(self.inst, state.sent)

    def _close_delta(self, t: float) -> None:
        s, _, cof = self.delta_intervals[-1]
        self.delta_intervals[-1] = (s, t, cof)

    def _advance_clock(self, state: SimState) -> bool:
        """Move to the next interval if the timer fired; return True when the rates must be
        kept as they are (a T boundary without starved coflows and no other event)."""
        t = state.time
        if self._phase_end is None:                  # first call: the first T-interval
            self._start_T(state)
            return False
        if self._phase == "delta":
            alive = self._starved[~state.finished[self._starved]]
            if t >= self._phase_end or alive.size == 0:   # over, or nothing left to serve
                self._close_delta(t)
                self._start_T(state)
            return False
        if t < self._phase_end:
            return False
        attained = _coflow_attained(self.inst, state.sent)
        act = state.active_coflows
        # released before the boundary (a coflow released at it has not waited) and no growth
        starved = act[(attained[act] <= self._snapshot[act])
                      & (self.inst.release[act] < state.time)]
        if starved.size == 0:
            self._start_T(state)
            return state.events <= {"timer"}
        self._phase = "delta"
        self._phase_end = t + self.delta
        self._starved = starved
        self.delta_intervals.append((t, self._phase_end, starved.tolist()))
        return False

    # ---------------------------------------------------------------- VarysPolicy hooks
    def coflow_order(self, state: SimState) -> np.ndarray:
        if self._phase == "delta":
            return self._starved[~state.finished[self._starved]]
        return super().coflow_order(state)

    def durations(self, state: SimState, order: np.ndarray):
        if self._phase != "delta" or order.size == 0:
            return None
        # C* is one coflow: one Gamma for the union, so all its flows finish together
        inst = self.inst
        flows = priority_flow_order(inst, order)
        rem = state.remaining[flows]
        load = resource_loads(inst, flows, rem)
        return np.full(order.size, float(np.max(load / self._cap)))

    def allocate(self, state: SimState):
        keep = self._advance_clock(state)
        if keep:
            f, r = self._last
            alive = ~state.flow_done[f]
            return f[alive], r[alive]
        self._last = super().allocate(state)
        return self._last

    def next_timer(self, state: SimState) -> float:
        return math.inf if self._phase_end is None else self._phase_end


def max_service_gap(instance: Instance, schedule: Schedule, coflow_completion) -> np.ndarray:
    """Longest time each coflow waits without service while released and unfinished.

    The gap runs from the release (or the end of a service period) to the next instant at
    which some flow of the coflow has a positive rate; the last period ends at the completion.

    Parameters
    ----------
    instance : Instance
    schedule : Schedule
    coflow_completion : array_like, shape (K,)
        Completion times (e.g. the verifier's).

    Returns
    -------
    ndarray, shape (K,)

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)]), Coflow("B", [(0, 0, 1)])])
    >>> s = Schedule.from_pieces([0, 1], [0, 1], [1, 2], [1, 1])
    >>> max_service_gap(inst, s, [1, 2]).tolist()
    [0.0, 1.0]
    """
    s = schedule.to_float() if schedule.exact else schedule
    cf = instance.flow_coflow[s.flow]
    out = np.zeros(instance.num_coflows)
    pos = s.rate > 0
    for k in range(instance.num_coflows):
        m = pos & (cf == k)
        st, en = s.start[m], s.end[m]
        o = np.argsort(st, kind="stable")
        st, en = st[o], en[o]
        covered, gap = float(instance.release[k]), 0.0
        for a, b in zip(st.tolist(), en.tolist()):
            if a > covered:
                gap = max(gap, a - covered)
            covered = max(covered, b)
        out[k] = max(gap, float(coflow_completion[k]) - covered)
    return out


#: Refuse a ``T`` that would cut the schedule into more T-intervals than this (two timer events
#: and two allocations each); the FB trace with the default T has at least 2,100.
MAX_PERIODS = 50_000


@register("policy", "varys-online", summary="online Varys (Pseudocode 1 minCCTOnline): SEBF + "
          "iterative MADD + backfilling during T-intervals; in delta-intervals only the union of "
          "the coflows starved in the last T-interval is served, with MADD",
          reference="Chowdhury dissertation (2015) Sec. 5.5.3, Pseudocode 1 (minCCTOnline); "
          "Varys (SIGCOMM 2014) Sec. 5.3",
          guarantee="starvation freedom: a coflow active during a whole T-interval + "
          "delta-interval cycle is served in it; first service within T + delta of the "
          "release, gaps between services at most 2T + delta; with delta = 0 (or no starved "
          "coflow) it is offline Varys",
          tags=("online", "release_dates", "starvation_free", "preemptive",
                "heterogeneous_capacities"))
def varys_online(instance: Instance, *, T: float = DEFAULT_T, delta: float = DEFAULT_DELTA,
                 backfill="varys", tie_order=None, engine: str = "auto",
                 tol_rel: float = 1e-12) -> Schedule:
    """Varys with starvation freedom: T-intervals of SEBF + MADD, delta-intervals for the
    starved coflows (Pseudocode 1, ``minCCTOnline``).

    Parameters
    ----------
    instance : Instance
    T : float > 0, default 256
        T-interval length in the instance's time unit (Varys' 2 s in the Facebook trace's
        7.8125 ms unit).
    delta : float >= 0, default 25.6
        delta-interval length (Varys' 200 ms); 0 gives offline Varys.
    backfill : {"varys", "coflowsim", None, True, False}, default "varys"
        Work-conservation rule (:mod:`coflowopt.rates.madd`).
    tie_order : array_like of int, optional
        Breaks ties of the SEBF key (default: instance order).
    engine : {"auto", "kernel", "python"}
        ``python``: :class:`VarysOnlinePolicy` in the generic simulator (the reference);
        ``kernel`` / ``auto``: the compiled event loop of offline Varys
        (:func:`coflowopt.rates.madd.run_madd_kernel`) with the T/delta clock, the same
        schedule, where it applies -- ``delta = 0`` (offline Varys), or a big switch with
        backfilling ``"varys"`` or none -- and the Python engine elsewhere; ``meta["engine"]``
        says which ran.
    tol_rel : float
        A port's residual capacity below ``tol_rel`` times its capacity counts as 0.

    Returns
    -------
    Schedule
        ``meta`` records the parameters, events, policy calls, ``delta_intervals``
        (``[start, end, [coflows]]`` for each delta-interval) and ``T_starts`` (the start of
        every T-interval; empty when ``delta = 0``).

    Raises
    ------
    InvalidParameterError
        For ``T <= 0``, ``delta < 0``, a non-finite value, an unknown ``backfill`` or a bad
        ``tie_order``; or a ``T`` that would cut this instance's schedule into more than
        :data:`MAX_PERIODS` T-intervals (an absolute time far below its time scale).

    Examples
    --------
    A big coflow behind a stream of small ones on one port: offline Varys serves it only
    after the stream; with T = 4 and delta = 1 it is served in every delta-interval.

    >>> from coflowopt import Instance, Coflow
    >>> from coflowopt.verify import verify_schedule
    >>> small = [Coflow(f"s{i}", [(0, 0, 1)], release=i) for i in range(12)]
    >>> inst = Instance.from_coflows([Coflow("big", [(0, 0, 5)])] + small)
    >>> s = varys_online(inst, T=4, delta=1)
    >>> rep = verify_schedule(inst, s)
    >>> rep.ok, [(a, b, c) for a, b, c in s.meta["delta_intervals"]]
    (True, [(4.0, 5.0, [0]), (9.0, 10.0, [0, 9])])
    >>> float(max_service_gap(inst, s, rep.coflow_completion)[0]) <= 4 + 1
    True

    Notes
    -----
    *Guarantee.*  Starvation freedom: served in every cycle, first service within
    ``T + delta`` of the release, gaps at most ``2 T + delta`` (module docstring); the price is
    at most ``|C| delta`` of extra total CCT per cycle (Sec. 5.5.3).  No approximation ratio.

    *Assumptions.*  Clairvoyant (sizes of released coflows known), online (only released
    coflows are scheduled); weights are ignored.

    *Running time.*  O(flows of the active coflows) per coflow event and per interval
    boundary, plus O(F) per T-interval boundary for the attained service.  On the Facebook
    trace with the default T and delta see the report in ``tests/test_online_varys.py``.
    The compiled loop (``engine``) costs per event what offline Varys' does (its witnesses
    and gapped SEBF order, :mod:`coflowopt.rates._madd_kernel`), plus O(K + F) per interval
    boundary and O(flows of C*) per event of a delta-interval.

    References
    ----------
    Chowdhury, PhD dissertation (UC Berkeley, 2015), Sec. 5.5.3, Pseudocode 1; Varys (SIGCOMM
    2014) Sec. 5.3.
    """
    pol, rule, tie, rank, max_events, meta, compiled = _online_setup(
        instance, T, delta, backfill, tie_order, engine, tol_rel)
    if compiled:
        # the compiled loop with the T/delta clock (delta = 0: offline Varys itself); the
        # pieces come in another order than the generic simulator's, the same pieces
        log = {"T_starts": [], "delta_intervals": []}
        try:
            s = run_madd_kernel(instance, rank, sebf=True, backfill=rule, tol_rel=tol_rel,
                                online=None if pol.delta == 0 else (pol.T, pol.delta),
                                max_events=max_events, log=log)
        except SimulationError as e:
            raise SimulationError(f"policy 'varys-online': {e}") from None
        meta.update(engine="kernel", events=s.meta["events"],
                    policy_calls=s.meta["policy_calls"], **log)
        return Schedule(s.flow, s.start, s.end, s.rate, meta=meta)
    res = simulate(instance, pol, max_events=max_events)
    s = res.schedule
    meta.update(engine="python", events=res.events, policy_calls=res.policy_calls,
                delta_intervals=[[a, b, c] for a, b, c in pol.delta_intervals],
                T_starts=list(pol.T_starts))
    return Schedule(s.flow, s.start, s.end, s.rate, meta=meta)


def _online_setup(instance: Instance, T, delta, backfill, tie_order, engine: str,
                  tol_rel: float):
    """:func:`varys_online`'s checked arguments: ``pol, rule, tie, rank, max_events, meta,
    compiled`` (``compiled``: the compiled loop applies)."""
    rule = backfill_rule(backfill)
    engine = check_engine(engine)
    K = instance.num_coflows
    tie = np.arange(K) if tie_order is None else validate_order(instance, tie_order, "tie_order")
    pol = VarysOnlinePolicy(T=T, delta=delta, backfill=rule, tie_order=tie, tol_rel=tol_rel)
    # T and delta are absolute times: on an instance whose schedule spans many T the
    # alternation alone takes two timer events per T + delta, beyond the simulator's budget for
    # flow and coflow events; the upper bound on the schedule's length gives that budget, the
    # lower bound refuses a T so short that the run could not finish in reasonable time
    lower, upper = schedule_length_bounds(instance)
    if lower / pol.T > MAX_PERIODS:
        raise InvalidParameterError(
            f"T {pol.T:g} is too short for this instance: its schedule lasts at least "
            f"{lower:.3g} time units, more than {lower / pol.T:.3g} T-intervals (limit "
            f"{MAX_PERIODS}); give T and delta (--policy-param T=X --policy-param delta=Y) in "
            f"the instance's time unit, T at least {lower / MAX_PERIODS:.3g} (the defaults are "
            "Varys' 2 s and 200 ms in the FB trace's 7.8125 ms unit)")
    timers = 2 * int(math.ceil(upper / pol.T)) + 2
    max_events = 50 * (instance.num_flows + K) + 1000 + timers
    meta = {"algorithm": "varys-online", "T": pol.T, "delta": pol.delta, "backfill": rule,
            "tie_order": None if tie_order is None else tie.tolist()}
    rank = np.empty(K, dtype=np.int64)
    rank[tie] = np.arange(K)
    compiled = engine == "kernel" and (pol.delta == 0 or (instance.is_big_switch
                                                          and rule in ("varys", None)))
    return pol, rule, tie, rank, max_events, meta, compiled


def varys_online_windows(instance: Instance, on_window, *, T: float = DEFAULT_T,
                         delta: float = DEFAULT_DELTA, backfill="varys", tie_order=None,
                         engine: str = "auto", tol_rel: float = 1e-12,
                         window: int = WINDOW_PIECES) -> dict:
    """:func:`varys_online` handed over window by window (the compiled loop's sink mode,
    :func:`coflowopt.rates.madd.run_madd_windows`), never held: 16 M pieces (1.1 GB) at
    50,000 random coflows.  Where the compiled loop does not apply (the Python engine:
    coflowsim's backfilling, resources) the held schedule is handed over as one window.

    Parameters
    ----------
    instance, T, delta, backfill, tie_order, tol_rel
        As for :func:`varys_online` (the same checks).
    on_window : callable
        ``on_window(schedule, start, end)`` for every window in time order.
    engine : {"auto", "kernel"}
        ``"python"`` is refused (the Python engine holds its schedule: call
        :func:`varys_online`).
    window : int
        Pieces per window (at least).

    Returns
    -------
    dict
        The statistics of :func:`~coflowopt.rates.madd.run_madd_windows`.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("C1", [(0, 0, 1), (0, 1, 1)]),
    ...                               Coflow("C2", [(1, 0, 1), (1, 1, 1)])])
    >>> st = varys_online_windows(inst, lambda s, a, b: None)
    >>> st["coflow_completion"].tolist(), st["windows"]
    ([2.0, 2.0], 1)
    """
    _refuse_python(engine)
    pol, rule, _, rank, max_events, meta, compiled = _online_setup(
        instance, T, delta, backfill, tie_order, engine, tol_rel)
    if not compiled:
        return held_as_window(instance, on_window, varys_online(
            instance, T=T, delta=delta, backfill=backfill, tie_order=tie_order, engine=engine,
            tol_rel=tol_rel))
    try:
        return run_madd_windows(instance, rank, on_window, sebf=True, backfill=rule,
                                tol_rel=tol_rel, meta=meta, window=window,
                                online=None if pol.delta == 0 else (pol.T, pol.delta),
                                max_events=max_events)
    except SimulationError as e:
        raise SimulationError(f"policy 'varys-online': {e}") from None


# ------------------------------------------------------------------------------ deadline mode
class VarysDeadlinePolicy(VarysPolicy):
    """Pseudocode 2's ``meetDeadline`` (admission control, MADD to the deadline, backfilling)
    as a :class:`~coflowopt.simulate.RatePolicy`.

    Parameters
    ----------
    serve_rejected : {"after", "backfill"}
        How rejected coflows are sent (module docstring).
    backfill, tie_order, tol_rel
        As for :class:`~coflowopt.policies.varys.VarysPolicy`.

    Attributes
    ----------
    admitted, rejected : ndarray of bool, shape (K,)
        Admission decisions (coflows without a deadline are neither).
    admission_time : ndarray, shape (K,)
        When each deadline coflow was examined (its release).
    """

    name = "varys-deadline"

    def __init__(self, serve_rejected: str = "after", backfill="varys", tie_order=None,
                 tol_rel: float = 1e-12):
        super().__init__(backfill=backfill, tie_order=tie_order, tol_rel=tol_rel)
        if serve_rejected not in SERVE_REJECTED:
            raise InvalidParameterError(f"serve_rejected must be one of {SERVE_REJECTED}, got "
                                        f"{serve_rejected!r}")
        self.serve_rejected = serve_rejected

    def reset(self, instance: Instance) -> None:
        super().reset(instance)
        K = instance.num_coflows
        self.admitted = np.zeros(K, dtype=bool)
        self.rejected = np.zeros(K, dtype=bool)
        self._seen = np.zeros(K, dtype=bool)
        self.admission_time = np.full(K, np.nan)
        self._admit_seq = np.full(K, np.iinfo(np.int64).max, dtype=np.int64)
        self._n_admitted = 0
        self._n_rejected = 0
        self._rel_order = np.argsort(instance.release, kind="stable")
        self._rel_next = 0
        self._order = None       # the last main-tier order and how many admitted lead it
        self._n_lead = 0
        self._has_deadline = np.isfinite(instance.deadline)
        self._tier = "main"
        self._main = None
        self._finished_seen = np.zeros(K, dtype=bool)

    # ---------------------------------------------------------------- admission control
    def _reservations(self, state: SimState, coflows: np.ndarray) -> np.ndarray:
        """Per-port rates the admitted ``coflows`` need to finish by their deadlines:
        ``remaining_ij / (D_k - t)`` summed per port."""
        inst, t = self.inst, state.time
        P = inst.num_ports
        if coflows.size == 0:
            return np.zeros(P)
        mask = np.zeros(inst.num_coflows, dtype=bool)
        mask[coflows] = True
        fl = state.active_flows[mask[inst.flow_coflow[state.active_flows]]]
        left = np.maximum(inst.deadline[inst.flow_coflow[fl]] - t, 0.0)
        # an admitted coflow still open at its deadline (rounding only) reserves nothing
        r = np.divide(state.remaining[fl], left, out=np.zeros(fl.size), where=left > 0)
        return resource_loads(inst, fl, r)

    def _released_since(self, state: SimState) -> np.ndarray:
        """The coflows released since the last call, by (release, index): the simulator
        releases them in that order, so a pointer into it finds them in O(those coflows)
        (a mask over all K coflows per event before)."""
        rel, j = self._rel_order, self._rel_next
        while j < rel.size and state.released[rel[j]]:
            j += 1
        new = rel[self._rel_next:j]
        self._rel_next = j
        return new

    def _admit_new(self, state: SimState, new: np.ndarray) -> None:
        if new.size == 0:
            return
        self._seen[new] = True
        inst, t = self.inst, state.time
        new = new[np.lexsort((new, inst.release[new]))]
        dl = new[self._has_deadline[new]]
        if dl.size == 0:
            return
        adm = state.active_coflows[self.admitted[state.active_coflows]]
        residual = self._cap - self._reservations(state, adm)
        for k in dl.tolist():
            self.admission_time[k] = t
            left = float(inst.deadline[k]) - t
            g = float(remaining_gamma(inst, state.remaining, [k],
                                      np.where(residual > self._tol, residual, 0.0))[0])
            # Pseudocode 2: admit iff Gamma_C <= D_C on the residual (relative slack for the
            # rounding of the residual, which is a difference of sums)
            if left > 0 and g <= left * (1 + 1e-12):
                self.admitted[k] = True
                self._admit_seq[k] = self._n_admitted
                self._n_admitted += 1
                fl = np.arange(inst.flow_ptr[k], inst.flow_ptr[k + 1])
                residual = residual - resource_loads(inst, fl, state.remaining[fl] / left)
            else:
                self.rejected[k] = True
                self._n_rejected += 1

    def _sebf(self, state: SimState, coflows: np.ndarray, every: bool = False) -> np.ndarray:
        """``coflows`` in SEBF order, ties by the tie order (``every``: they are all the
        active coflows)."""
        if self._tier == "main" and self._incremental_sebf(state):
            if every:
                return self._sebf_active(state)
            return self._sebf_order.order(coflows, lambda c: self.sebf_key(state, c))
        c = coflows[np.argsort(self._rank[coflows], kind="stable")]
        return c[np.argsort(self.sebf_key(state, c), kind="stable")]

    # ---------------------------------------------------------------- VarysPolicy hooks
    def coflow_order(self, state: SimState) -> np.ndarray:
        act = state.active_coflows
        if self._tier == "rejected":
            return self._sebf(state, act[self.rejected[act]])
        if self._n_admitted == 0 and self._n_rejected == 0:
            # no admission decision yet (e.g. no deadlines at all): every active coflow is
            # best effort, without the per-event masks over the active coflows (or a copy)
            self._order = self._sebf(state, act, every=True)
            self._n_lead = 0
            return self._order
        adm = act[self.admitted[act]]
        adm = adm[np.argsort(self._admit_seq[adm], kind="stable")]
        best = act[~self.admitted[act] & ~self.rejected[act]]
        self._order = np.concatenate([adm, self._sebf(state, best)])
        self._n_lead = adm.size
        return self._order

    def durations(self, state: SimState, order: np.ndarray):
        if self._tier == "rejected":
            return None
        if order is self._order:
            # the order just returned: its admitted coflows are its first _n_lead entries,
            # the others get NaN (the same values as the general rule below)
            m = self._n_lead
            if m == 0:
                return None
            tau = np.full(order.size, np.nan)
            dl = self.inst.deadline[order[:m]]
            left = dl - state.time - 8 * np.spacing(np.abs(dl))
            tau[:m] = np.where(left > 0, left, np.nan)
            return tau
        dl = self.inst.deadline[order]
        # MADD to the deadline for admitted coflows, aimed 8 units in the last place of D early:
        # the completion event t + remaining/rate is rounded, and aimed at D itself it can land
        # one ulp after it, a miss the verifier (exact comparison) would count.  The rates are
        # higher by a relative 8 ulp(D) / (D - t), far inside the capacity tolerance.  NaN
        # (Gamma on the residual) for the rest and for an admitted coflow still open that close
        # to its deadline, which only rounding allows
        left = dl - state.time - 8 * np.spacing(np.abs(dl))
        return np.where(self.admitted[order] & (left > 0), left, np.nan)

    def _main_unchanged(self, state: SimState) -> bool:
        """True when only rejected coflows completed since the last call: the admitted and
        best-effort allocation is then kept, so that rejected coflows never change when it is
        recomputed (and the two ``serve_rejected`` modes agree on it exactly)."""
        if self._n_rejected == 0:
            # nothing rejected yet (rejections happen at releases, which refresh
            # _finished_seen): the answer is False, without two passes over all K coflows
            return False
        done = state.finished & ~self._finished_seen
        self._finished_seen = state.finished.copy()
        # flow completions come along with coflow completions; only coflow events reach here
        return (self._main is not None and "coflow_completion" in state.events
                and state.events <= {"coflow_completion", "flow_completion"}
                and bool(done.any()) and bool(self.rejected[done].all()))

    def allocate(self, state: SimState):
        new = self._released_since(state)
        new_release = new.size > 0
        self._admit_new(state, new)
        if not new_release and self._main_unchanged(state):
            f, r = self._main
            alive = ~state.flow_done[f]
            f, r = f[alive], r[alive]
        else:
            if new_release:
                self._finished_seen = state.finished.copy()
            self._tier = "main"
            f, r = super().allocate(state)
            self._main = (f, r)
        act = state.active_coflows
        rej = act[self.rejected[act]] if self._n_rejected else act[:0]
        if rej.size == 0 or (self.serve_rejected == "after" and (
                rej.size < act.size or not state.released.all())):
            return f, r
        # the rejected tier: SEBF + MADD + backfilling on what the others leave
        inst = self.inst
        used = resource_loads(inst, f, r)
        full = self._cap
        self._tier, self._cap = "rejected", np.maximum(full - used, 0.0)
        try:
            f2, r2 = super().allocate(state)
        finally:
            self._tier, self._cap = "main", full
        return np.concatenate([f, f2]), np.concatenate([r, r2])


def deadline_report(instance: Instance, policy: VarysDeadlinePolicy, coflow_completion,
                    time_rtol: float = 0.0) -> dict:
    """Admission and deadline counts (and weights) of a deadline-mode run.

    ``met`` counts every deadline coflow that completes by its deadline (``C_k <= D_k`` exactly
    by default, as the verifier's ``deadline_met``, so the counts are the verifier's; a relative
    slack ``time_rtol * |D|`` may be given), ``met_admitted`` the admitted
    ones among them: the number Varys reports, rejected coflows being misses whatever their
    completion time.

    Returns
    -------
    dict
        ``num_<set>`` and ``weight_<set>`` for the sets ``deadline_coflows``, ``admitted``,
        ``rejected``, ``met``, ``met_admitted`` and ``best_effort`` (no deadline), and the
        lists ``admitted_coflows`` and ``rejected_coflows``.
    """
    cc = np.asarray(coflow_completion, dtype=float)
    dl = instance.deadline
    has = np.isfinite(dl)
    met = has & (cc <= dl + time_rtol * np.abs(np.where(has, dl, 0.0)))
    w = instance.weight
    adm, rej = policy.admitted, policy.rejected

    def count(mask):
        return int(mask.sum()), float(w[mask].sum())

    out = {}
    for name, mask in (("deadline_coflows", has), ("admitted", adm), ("rejected", rej),
                       ("met", met), ("met_admitted", met & adm),
                       ("best_effort", ~has)):
        out[f"num_{name}"], out[f"weight_{name}"] = count(mask)
    out["admitted_coflows"] = np.flatnonzero(adm).tolist()
    out["rejected_coflows"] = np.flatnonzero(rej).tolist()
    return out


@register("policy", "varys-deadline", summary="Varys deadline mode (Pseudocode 2): admission "
          "control at arrival (Gamma on the capacity left after re-reserving remaining/(D - t) "
          "for admitted coflows), MADD to the deadline, backfilling; coflows without deadline "
          "best effort by SEBF; rejected coflows sent last (or with leftover bandwidth)",
          reference="Chowdhury dissertation (2015) Pseudocode 2 (meetDeadline), Sec. 3.1.3, "
          "Sec. 5.5.3; Varys (SIGCOMM 2014) Sec. 5.4; coflow/coflowsim CoflowSimulator.java "
          "admitThisJob",
          guarantee="every admitted coflow meets its deadline and is never preempted; without "
          "deadlines it is offline Varys",
          tags=("online", "release_dates", "deadlines", "preemptive",
                "heterogeneous_capacities"))
def varys_deadline(instance: Instance, *, serve_rejected: str = "after", backfill="varys",
                   tie_order=None, engine: str = "auto", tol_rel: float = 1e-12) -> Schedule:
    """Varys' deadline mode: admission control, MADD to the deadline, backfilling
    (Pseudocode 2, ``meetDeadline``).

    Parameters
    ----------
    instance : Instance
        Deadlines are absolute times (``instance.deadline``; ``NaN`` = best effort).
    serve_rejected : {"after", "backfill"}, default "after"
        ``"after"``: rejected coflows get no bandwidth until every other coflow is released
        and finished ("not served"); ``"backfill"``: they get what the others leave.  Either
        way they are reported as rejected (module docstring).
    backfill : {"varys", "coflowsim", None, True, False}, default "varys"
        Work conservation after MADD (:mod:`coflowopt.rates.madd`): the leftover to each
        coflow's flows in proportion to their remaining sizes (``"varys"``, ``True``), the
        reference simulators' fair-share-then-greedy pass (``"coflowsim"``), or none
        (``None``, ``False``).
    tie_order : array_like of int, optional
        Breaks SEBF ties among best-effort coflows (default: instance order).
    engine : {"auto", "kernel", "python"}
        ``python``: :class:`VarysDeadlinePolicy` in the generic simulator (the reference);
        ``kernel`` / ``auto``: on an instance without any deadline, where the policy is
        offline Varys, offline Varys' compiled event loop (the same schedule); the Python
        engine otherwise; ``meta["engine"]`` says which ran.
    tol_rel : float
        A port's residual capacity below ``tol_rel`` times its capacity counts as 0.

    Returns
    -------
    Schedule
        ``meta`` holds the parameters and the counts and weights of deadline coflows,
        admitted, rejected, met (completed by the deadline) and met among the admitted, plus
        the lists ``admitted_coflows`` and ``rejected_coflows``.

    Raises
    ------
    InvalidParameterError
        For an unknown ``serve_rejected`` or ``backfill``, or a bad ``tie_order``.

    Examples
    --------
    One port of capacity 1.  A (size 2, deadline 4) is admitted and reserves 1/2; B (size 2,
    released at 1, deadline 3) would need Gamma = 2 / (1/2) = 4 > 2 on the residual: rejected.

    >>> from coflowopt import Instance, Coflow
    >>> from coflowopt.verify import verify_schedule
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2)], deadline=4),
    ...                               Coflow("B", [(0, 0, 2)], release=1, deadline=3)])
    >>> s = varys_deadline(inst)
    >>> s.meta["admitted_coflows"], s.meta["rejected_coflows"], s.meta["num_met"]
    ([0], [1], 1)
    >>> verify_schedule(inst, s).coflow_completion.tolist()
    [2.0, 4.0]

    Notes
    -----
    *Guarantee.*  Admitted coflows meet their deadlines (module docstring); nothing is
    claimed about the number admitted (admission is greedy in arrival order).

    *Assumptions.*  Clairvoyant, online; weights only enter the reported weight sums.

    *Running time.*  As offline Varys plus O(flows of the admitted active coflows) per
    release for the reservations.

    References
    ----------
    Chowdhury, PhD dissertation (UC Berkeley, 2015), Pseudocode 2, Sec. 3.1.3, Sec. 5.7.1;
    coflowsim ``CoflowSimulator.admitThisJob``.
    """
    rule = backfill_rule(backfill)
    engine = check_engine(engine)
    K = instance.num_coflows
    tie = np.arange(K) if tie_order is None else validate_order(instance, tie_order)
    pol = VarysDeadlinePolicy(serve_rejected=serve_rejected, backfill=rule, tie_order=tie,
                              tol_rel=tol_rel)
    meta = {"algorithm": "varys-deadline", "serve_rejected": serve_rejected, "backfill": rule,
            "tie_order": None if tie_order is None else tie.tolist()}
    if engine == "kernel" and not np.isfinite(instance.deadline).any():
        # no deadline: every coflow is best effort and the policy is offline Varys (module
        # docstring), whose compiled loop gives the same pieces; nobody admitted or rejected
        rank = np.empty(K, dtype=np.int64)
        rank[tie] = np.arange(K)
        s = run_madd_kernel(instance, rank, sebf=True, backfill=rule, tol_rel=tol_rel)
        nobody = SimpleNamespace(admitted=np.zeros(K, dtype=bool),
                                 rejected=np.zeros(K, dtype=bool))
        meta.update(engine="kernel", events=s.meta["events"],
                    policy_calls=s.meta["policy_calls"],
                    **deadline_report(instance, nobody, np.full(K, np.nan)))
        return Schedule(s.flow, s.start, s.end, s.rate, meta=meta)
    res = simulate(instance, pol)
    s = res.schedule
    meta.update(engine="python", events=res.events, policy_calls=res.policy_calls,
                **deadline_report(instance, pol, res.coflow_completion))
    return Schedule(s.flow, s.start, s.end, s.rate, meta=meta)


def varys_deadline_windows(instance: Instance, on_window, *, serve_rejected: str = "after",
                           backfill="varys", tie_order=None, engine: str = "auto",
                           tol_rel: float = 1e-12, window: int = WINDOW_PIECES) -> dict:
    """:func:`varys_deadline` handed over window by window, never held: on an instance
    without deadlines the policy is offline Varys, whose compiled loop streams its windows
    (:func:`coflowopt.rates.madd.run_madd_windows`); with deadlines (the Python engine) the
    held schedule is handed over as one window.

    The parameters are :func:`varys_deadline`'s (the same checks; ``engine="python"`` is
    refused) plus ``on_window`` and ``window`` as for :func:`varys_online_windows`, which
    gives the statistics returned.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("C1", [(0, 0, 1)]), Coflow("C2", [(0, 0, 2)])])
    >>> ends = []
    >>> st = varys_deadline_windows(inst, lambda s, a, b: ends.append(b), window=1)
    >>> st["windows"], ends
    (2, [1.0, 3.0])
    >>> st = varys_deadline_windows(inst.replace(deadline=np.array([1.0, np.nan])),
    ...                             lambda s, a, b: None)
    >>> st["windows"], st["pieces"]
    (1, 2)
    """
    _refuse_python(engine)
    rule = backfill_rule(backfill)
    engine = check_engine(engine)
    K = instance.num_coflows
    tie = np.arange(K) if tie_order is None else validate_order(instance, tie_order)
    VarysDeadlinePolicy(serve_rejected=serve_rejected, backfill=rule, tie_order=tie,
                        tol_rel=tol_rel)   # its checks
    if engine != "kernel" or np.isfinite(instance.deadline).any():
        return held_as_window(instance, on_window, varys_deadline(
            instance, serve_rejected=serve_rejected, backfill=backfill, tie_order=tie_order,
            engine=engine, tol_rel=tol_rel))
    rank = np.empty(K, dtype=np.int64)
    rank[tie] = np.arange(K)
    meta = {"algorithm": "varys-deadline", "serve_rejected": serve_rejected, "backfill": rule,
            "tie_order": None if tie_order is None else tie.tolist(), "engine": "kernel"}
    return run_madd_windows(instance, rank, on_window, sebf=True, backfill=rule,
                            tol_rel=tol_rel, meta=meta, window=window)
