"""The exact optimum of the integral matching model: a time-indexed MIP over whole units.

The model (:mod:`coflowopt.slotted`; Qiu, Stein and Zhong, SPAA 2015; Khuller and Purohit,
SPAA 2016; Rohwedder and Schnaars, ICALP 2025): time is cut into slots ``[t s, (t+1) s)`` of
length ``s`` (``slot``); sizes are whole numbers; in every slot every resource ``r`` carries at
most ``c_r s`` whole units (a flow's units count on every resource of its path); a flow sends in
slot ``t`` only if ``t s >= r_k``; a coflow completes at the end of its last slot with positive
units, ``C_k = (t_last + 1) s``.  On a big switch with unit capacities and ``s = 1`` every slot
is a matching.  The objective is ``sum_k w_k C_k``.

The MIP (``formulations/integral_mip.md``; :func:`build_integral_mip`), over the flow groups of
:func:`coflowopt.formulations.time_indexed.flow_groups` (the flows of one coflow on one path,
merged: a merged schedule splits back into whole units flow by flow, :func:`_split_groups`):

* ``x[g,t]`` integer, the units group ``g`` sends in slot ``t`` (only slots ``t >= a_k``,
  ``a_k = ceil(r_k / s)``), at most ``min(d_g, b_g)``, ``b_g`` the smallest ``c_r s`` on its
  path; ``X[g,t]`` continuous, the units sent in slots ``a_k..t`` (``X[g,T-1] = d_g``);
* ``z[k,t]`` binary, 1 when coflow ``k`` (of positive weight) is complete by the end of slot
  ``t``; only slots ``t >= e_k``, ``e_k = a_k + max_r ceil(d_k^r / (c_r s)) - 1`` the earliest
  last slot; ``z[k,T-1] = 1``;
* rows: capacity ``sum_{g: r in P(g)} x[g,t] <= c_r s`` per resource and slot; cumulative
  ``X[g,t] = X[g,t-1] + x[g,t]``; linking ``X[g,t] >= d_g z[k,t]``; monotone ``z[k,t] <=
  z[k,t+1]``; symmetry ``z[k',t] <= z[k,t]`` for identical coflows ``k < k'`` (same weight,
  first slot and groups: swapping their units keeps every cost, so some optimum completes them
  in index order);
* objective ``sum_k w_k s (1 + sum_{t<T} (1 - z[k,t]))`` (``= sum_k w_k C_k`` at an optimum).

Horizon (:func:`integral_horizon`, exact integer arithmetic): ``T`` slots contain *some*
optimal schedule when ``T >= min(compression, incumbent)``:

* compression ``R + sum_f d_f`` with ``R = max_k a_k``: in an optimal schedule an empty slot
  at or after ``R`` can be cut out (every later entry moves one slot earlier, still after its
  release; no completion moves later), so some optimum has no empty slot in ``[R, C_max)`` and
  each of them carries a unit;
* incumbent: a verified integral schedule of cost ``UB`` (per-slot greedy, :func:`greedy_units`)
  bounds every optimal completion ``C_k <= (UB - sum_{j != k} w_j L_j) / w_k`` for ``w_k > 0``
  (``L_j = (e_j + 1) s``); coflows of weight 0 are then appended group after group at their
  bottleneck after that point and after their release (their cost is 0 wherever they go).
  The greedy's own makespan is *not* used as the horizon: an optimum of ``sum w C`` may end
  later than another feasible schedule.

Lower bound.  **Integral OPT >= fluid OPT**: a slotted schedule run at rate ``u / s`` for
``u`` units in slot ``[t s, (t+1) s)`` is a fluid schedule (rates within capacity, nothing
before the release) in which every flow ends no later than its last slot, so the fluid optimum
is at most any integral cost.  Hence every certified fluid bound, and the fluid optimum of the
registry's exact ``bnb`` (its proven bound), is a lower bound here; and since every integral
cost is a multiple of ``g = gcd_k(w_k s)`` (``C_k / s`` is an integer), it may be rounded up
to that lattice (:func:`objective_lattice`).  The fluid bound is taken on the instance with
every release rounded up to its first slot ``a_k s`` (an integral schedule respects those
releases too, so it is a fluid schedule of that instance).  ``sum_k w_k L_k`` is another bound.

Result discipline.  ``kind="optimal"`` only when the incumbent verifies in the integral verifier
(:func:`coflowopt.slotted.verify_slotted`, exact integers) and a bound meets it:

* ``certificate_status="proved exactly"``: a bound certified in exact arithmetic (the integral
  isolation bound, or a certified fluid bound / ``bnb``'s proven bound rounded up to the
  lattice) equals the verified value;
* ``"proved by HiGHS (floating-point MIP, not certified exactly)"``: HiGHS proved the MIP
  optimal over a proven-safe horizon and its dual bound, rounded up to the lattice after a
  relative allowance of 1e-6, reaches the verified value, or is within
  :data:`~coflowopt.results.OPTIMALITY_RTOL` of it (HiGHS's branch-and-bound bound is
  computed in floating point and is *not* re-checked exactly; the label says so).

Otherwise the verified incumbent is reported as ``feasible`` with ``bound`` the larger of the
certified bound and the solver's bound (``certificate["bound_source"]`` says which), and the
status says why (``time_limit``, ...).

References
----------
Z. Qiu, C. Stein, Y. Zhong, "Minimizing the total weighted completion time of coflows in
datacenter networks", SPAA 2015; S. Khuller, M. Purohit, "Brief announcement: Improved
approximation algorithms for scheduling co-flows", SPAA 2016; L. Rohwedder, L. Schnaars,
ICALP 2025; the time-indexed formulation: M. Chowdhury, Y. Zhong, I. Stoica, "Efficient Coflow
Scheduling with Varys", SIGCOMM 2014, appendix A (2)-(5), here with integer amounts.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..bounds.common import check_time_limit, weighted_release_sum
from ..exceptions import CoflowOptError, InvalidParameterError, NotSupportedError
from ..formulations.highs import HighsModel, highs_version
from ..formulations.linear_program import LinearProgram, MatrixAssembler
from ..formulations.time_indexed import FlowGroups, flow_groups
from ..instance import Instance
from ..registry import register
from ..results import Result, relative_gap, within_optimality_tolerance
from ..slotted import SlottedSchedule, integral_capacities, verify_slotted
from .._index_ranges import concat_ranges

__all__ = ["integral_mip", "integral_data", "IntegralData", "build_integral_mip",
           "integral_horizon", "others_bounds", "greedy_units", "greedy_slotted", "objective_lattice",
           "round_up_to_lattice", "integral_isolated_bound", "integral_lp_bound",
           "deadline_units",
           "MAX_COLUMNS"]

#: Default guard on the MIP's size (integer columns ``x``): a time-indexed MIP beyond it is
#: not an exact method any more (HiGHS would not close it within any useful limit).
MAX_COLUMNS = 2_000_000

#: The relative allowance subtracted from HiGHS's floating-point dual bound before it is
#: rounded up to the objective lattice (HiGHS's feasibility tolerances are 1e-6).
SOLVER_BOUND_RTOL = 1e-6

PROVED_EXACTLY = "proved exactly"
PROVED_BY_SOLVER = "proved by HiGHS (floating-point MIP, not certified exactly)"


# ----------------------------------------------------------------------------- the data
@dataclass
class IntegralData:
    """An instance in whole units per slot, flows merged by (coflow, path).

    Attributes
    ----------
    instance : Instance
    slot : float
    size : ndarray of int64, shape (F,)
        Flow sizes.
    cap : ndarray of int64, shape (R,)
        ``capacity x slot`` per resource.
    groups : FlowGroups
    gsize : ndarray of int64, shape (G,)
        Group sizes (exact integer sums).
    gk : ndarray of int64, shape (G,)
        Coflow of each group.
    gres_ptr, gres : ndarray of int64
        Each group's path as CSR (resources of group ``g``: ``gres[gres_ptr[g]:gres_ptr[g+1]]``).
    gcap : ndarray of int64, shape (G,)
        The smallest ``c_r s`` on the group's path.
    first : ndarray of int64, shape (K,)
        ``a_k = ceil(r_k / s)``, the first slot coflow ``k`` may use.
    earliest : ndarray of int64, shape (K,)
        ``e_k = a_k + max_r ceil(d_k^r / (c_r s)) - 1``, its earliest possible last slot.
    weight : list of Fraction
        Exact weights.
    """

    instance: Instance
    slot: float
    size: np.ndarray
    cap: np.ndarray
    groups: FlowGroups
    gsize: np.ndarray
    gk: np.ndarray
    gres_ptr: np.ndarray
    gres: np.ndarray
    gcap: np.ndarray
    first: np.ndarray
    earliest: np.ndarray
    weight: list

    @property
    def num_groups(self) -> int:
        return int(self.gk.shape[0])

    @property
    def positive(self) -> np.ndarray:
        return self.instance.weight > 0


def _check_slot(slot) -> float:
    if isinstance(slot, bool) or not isinstance(slot, (int, float, np.number)) or \
            not math.isfinite(float(slot)) or not float(slot) > 0:
        raise InvalidParameterError(f"slot must be a finite slot length > 0, got {slot!r}")
    return float(slot)


def integral_data(instance: Instance, slot: float = 1.0) -> IntegralData:
    """The instance in the integral model (:class:`IntegralData`).

    Raises
    ------
    NotSupportedError
        When a size or a ``capacity x slot`` is not a whole number (the integral model needs
        whole units; :func:`coflowopt.slotted.integral_capacities` names the first offender).
    """
    slot = _check_slot(slot)
    size, cap = integral_capacities(instance, slot)
    g = flow_groups(instance)
    G = g.num_groups
    group_of_flow = np.empty(instance.num_flows, dtype=np.int64)
    group_of_flow[g.flows] = np.repeat(np.arange(G, dtype=np.int64), np.diff(g.ptr))
    gsize = np.zeros(G, dtype=np.int64)
    np.add.at(gsize, group_of_flow, size)
    gg, rr = g.resource_entries()
    order = np.argsort(gg, kind="stable")
    gres = rr[order].astype(np.int64)
    gres_ptr = np.zeros(G + 1, dtype=np.int64)
    np.cumsum(np.bincount(gg, minlength=G), out=gres_ptr[1:])
    gcap = np.minimum.reduceat(cap[gres], gres_ptr[:-1])
    slot_f = Fraction(slot)
    first = np.array([-((-Fraction(float(r))) // slot_f) for r in instance.release.tolist()],
                     dtype=np.int64)
    # per (coflow, resource) load in units, then the slots it needs alone
    K, R = instance.num_coflows, instance.num_resources
    gk = g.coflow.astype(np.int64)
    key = gk[gg] * R + rr
    uk, inv = np.unique(key, return_inverse=True)
    load = np.zeros(uk.size, dtype=np.int64)
    np.add.at(load, inv.reshape(-1), gsize[gg])
    need = -(-load // cap[uk % R])
    span = np.zeros(K, dtype=np.int64)
    np.maximum.at(span, uk // R, need)
    earliest = first + span - 1
    weight = [Fraction(float(w)) for w in instance.weight.tolist()]
    return IntegralData(instance=instance, slot=slot, size=size, cap=cap, groups=g,
                        gsize=gsize, gk=gk, gres_ptr=gres_ptr, gres=gres, gcap=gcap,
                        first=first, earliest=earliest, weight=weight)


# ----------------------------------------------------------------------------- the lattice
def objective_lattice(instance: Instance, slot: float = 1.0) -> Fraction | None:
    """``g = gcd_k (w_k s)`` over the coflows of positive weight (exact rationals): every
    integral value of ``sum_k w_k C_k`` is a multiple of ``g`` (``C_k / s`` is an integer).
    ``None`` when every weight is 0 (every value is 0)."""
    s = Fraction(float(slot))
    g: Fraction | None = None
    for w in instance.weight.tolist():
        if w > 0:
            v = Fraction(float(w)) * s
            g = v if g is None else Fraction(math.gcd(g.numerator * v.denominator,
                                                      v.numerator * g.denominator),
                                             g.denominator * v.denominator)
    return g


def round_up_to_lattice(value, lattice: Fraction | None) -> Fraction:
    """The smallest multiple of ``lattice`` that is ``>= value`` (exact); ``value`` itself
    when there is no lattice."""
    v = Fraction(value)
    if lattice is None:
        return v
    return lattice * -((-v) // lattice)


# ----------------------------------------------------------------------------- incumbents
def greedy_units(data: IntegralData, order) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A per-slot greedy in a coflow order, at the level of flow groups.

    In every slot the groups of released, unfinished coflows are taken in ``order`` (then by
    group index) and each sends as many units as its remaining size and the residual capacity
    of every resource of its path allow.  The first such group always sends a unit (every
    ``c_r s >= 1``), so the loop ends; slots in which nothing is released are skipped.

    This is the incumbent generator of :func:`integral_mip` (written here, independent of the
    registered slotted algorithms); a plain loop over groups and slots, for the small instances
    a MIP can take.

    Returns
    -------
    (slot, group, units) : ndarrays of int64
    """
    K, G = data.instance.num_coflows, data.num_groups
    pos = np.empty(K, dtype=np.int64)
    pos[np.asarray(order, dtype=np.int64)] = np.arange(K)
    gorder = np.lexsort((np.arange(G), pos[data.gk])).tolist()
    rem = data.gsize.tolist()
    gfirst = data.first[data.gk].tolist()
    paths = [data.gres[data.gres_ptr[j]:data.gres_ptr[j + 1]].tolist() for j in range(G)]
    cap = data.cap.tolist()
    out_t, out_g, out_u = [], [], []
    left = sum(1 for r in rem if r > 0)
    t = min(gfirst) if G else 0
    while left:
        resid = list(cap)
        released = False
        for j in gorder:
            if rem[j] == 0 or gfirst[j] > t:
                continue
            released = True
            p = paths[j]
            a = min(rem[j], min(resid[q] for q in p))
            if a > 0:
                for q in p:
                    resid[q] -= a
                rem[j] -= a
                out_t.append(t)
                out_g.append(j)
                out_u.append(a)
                if rem[j] == 0:
                    left -= 1
        if not released:    # jump to the next release
            t = min(f for f, r in zip(gfirst, rem) if r > 0)
            continue
        t += 1
    return (np.asarray(out_t, dtype=np.int64), np.asarray(out_g, dtype=np.int64),
            np.asarray(out_u, dtype=np.int64))


def _cost_in_slots(data: IntegralData, t: np.ndarray, g: np.ndarray) -> Fraction:
    """``sum_k w_k (t_last_k + 1)`` of a complete group schedule (slot units, exact)."""
    last = np.full(data.instance.num_coflows, -1, dtype=np.int64)
    np.maximum.at(last, data.gk[g], t)
    return sum((w * (int(c) + 1) for w, c in zip(data.weight, last.tolist())), Fraction(0))


def _split_groups(data: IntegralData, t, g, u, meta=None) -> SlottedSchedule:
    """Group units ``(slot, group, units)`` as whole units of the member flows: each group's
    units, in slot order, fill its flows one after another (flows of one coflow on one path
    are interchangeable, so every flow gets exactly its size and the coflow's last slot is the
    group's).  Vectorised over one global offset per group."""
    t, g, u = (np.asarray(a, dtype=np.int64) for a in (t, g, u))
    keep = u > 0
    t, g, u = t[keep], g[keep], u[keep]
    sent = np.zeros(data.num_groups, dtype=np.int64)
    np.add.at(sent, g, u)
    if not np.array_equal(sent, data.gsize):
        bad = int(np.flatnonzero(sent != data.gsize)[0])
        raise InvalidParameterError(f"group {bad} sends {int(sent[bad])} units, its size is "
                                    f"{int(data.gsize[bad])}")
    order = np.lexsort((t, g))
    t, g, u = t[order], g[order], u[order]
    ends = np.cumsum(u)                             # global: groups are contiguous and whole
    fl = data.groups.flows
    fends = np.cumsum(data.size[fl])
    pts = np.union1d(ends, fends)
    starts = np.r_[0, pts[:-1]]
    e = np.searchsorted(ends, starts, side="right")
    f = np.searchsorted(fends, starts, side="right")
    return SlottedSchedule(data.slot, t[e], fl[f], pts - starts, dict(meta or {}))


def greedy_slotted(instance: Instance, order=None, *, slot: float = 1.0) -> SlottedSchedule:
    """:func:`greedy_units` in ``order`` (default: the instance's order) as a slotted schedule.

    Examples
    --------
    Two unit flows through ingress 0 and one through ingress 1: two slots.

    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1), (1, 1, 1)]),
    ...                               Coflow("B", [(0, 1, 1)])])
    >>> s = greedy_slotted(inst, [0, 1])
    >>> verify_slotted(inst, s).coflow_completion
    [Fraction(1, 1), Fraction(2, 1)]
    """
    data = integral_data(instance, slot)
    if order is None:
        order = np.arange(instance.num_coflows)
    t, g, u = greedy_units(data, order)
    return _split_groups(data, t, g, u, {"algorithm": "integral-greedy",
                                         "order": [int(k) for k in order]})


def _candidate_orders(data: IntegralData, extra_orders=()) -> list[tuple[str, np.ndarray]]:
    """Coflow orders for the greedy incumbent: weighted shortest isolated time first (Smith's
    rule on the integral isolation time), shortest isolated completion first, FIFO, BSSI (when
    it runs), and any given ones."""
    inst = data.instance
    K = inst.num_coflows
    idx = np.arange(K)
    span = (data.earliest + 1 - data.first).astype(float)
    w = inst.weight
    ratio = np.where(w > 0, span / np.where(w > 0, w, 1.0), np.inf)
    out = [("wspt", np.lexsort((idx, data.first, ratio))),
           ("sebf", np.lexsort((idx, w == 0, data.earliest))),
           ("fifo", np.lexsort((idx, data.first)))]
    try:
        from ..registry import get_algorithm
        o = np.asarray(get_algorithm("ordering", "bssi")(inst), dtype=np.int64)
        # zero weights last whatever BSSI says (they cost nothing)
        out.append(("bssi", o[np.argsort(w[o] == 0, kind="stable")]))
    except CoflowOptError:
        pass
    out += [(n, np.asarray(o, dtype=np.int64)) for n, o in extra_orders]
    return out


def _best_greedy(data: IntegralData, extra_orders=(), *, deadline: float | None = None
                 ) -> tuple[tuple, Fraction, str, np.ndarray]:
    """The cheapest greedy over the candidate orders, improved by adjacent swaps of the order
    while that helps (and time is left).  Returns ``((t, g, u), cost in slot units, label,
    order)``."""
    best = None
    for label, order in _candidate_orders(data, extra_orders):
        tgu = greedy_units(data, order)
        c = _cost_in_slots(data, tgu[0], tgu[1])
        if best is None or c < best[1]:
            best = (tgu, c, label, np.asarray(order))
    tgu, c, label, order = best
    improved = True
    K = order.size
    while improved and (deadline is None or time.perf_counter() < deadline):
        improved = False
        for i in range(K - 1):
            if deadline is not None and time.perf_counter() >= deadline:
                break
            o = order.copy()
            o[i], o[i + 1] = o[i + 1], o[i]
            t2 = greedy_units(data, o)
            c2 = _cost_in_slots(data, t2[0], t2[1])
            if c2 < c:
                tgu, c, order, improved = t2, c2, o, True
                label = label if label.endswith("+swaps") else label + "+swaps"
    return tgu, c, label, order


# ----------------------------------------------------------------------------- horizon
def others_bounds(data: IntegralData, *, deadline: float | None = None
                  ) -> dict[int, Fraction]:
    """For every coflow ``k`` of positive weight, a certified lower bound on ``sum_{j != k}
    w_j C_j / s`` in any integral schedule: the larger of ``sum_{j != k} w_j (e_j + 1)`` and
    the registered ``ordering-lp`` bound of the instance without ``k`` and with releases
    rounded up to their first slots (a fluid bound: the other coflows' part of an integral
    schedule is an integral, hence fluid, schedule of that instance), rounded up to its
    lattice.  The LP is skipped once ``deadline`` has passed."""
    inst = data.instance.replace(release=data.first.astype(float) * data.slot,
                                 deadline=np.full(data.instance.num_coflows, np.nan))
    w = data.weight
    s = Fraction(data.slot)
    pos = [k for k in range(inst.num_coflows) if w[k] > 0]
    lb = {k: w[k] * (int(data.earliest[k]) + 1) for k in pos}
    tot = sum(lb.values(), Fraction(0))
    out = {k: tot - lb[k] for k in pos}
    if len(pos) < 2:
        return out
    try:
        from ..registry import get_algorithm
        olp = get_algorithm("bound", "ordering-lp")
    except CoflowOptError:   # pragma: no cover - the bound is registered
        return out
    for k in pos:
        if deadline is not None and time.perf_counter() >= deadline:
            break
        rest = [j for j in range(inst.num_coflows) if j != k]
        sub = inst.select_coflows(rest)
        try:
            res = olp(sub)
        except CoflowOptError:
            continue
        if res.kind == "lower_bound" and res.value is not None:
            v = round_up_to_lattice(Fraction(res.value), objective_lattice(sub, data.slot)) / s
            out[k] = max(out[k], v)
    return out


def integral_horizon(data: IntegralData, ub_slots: Fraction,
                     others: dict[int, Fraction] | None = None) -> dict[str, Any]:
    """Numbers of slots that contain some optimal integral schedule (module docstring).

    Parameters
    ----------
    data : IntegralData
    ub_slots : Fraction
        The cost ``sum_k w_k C_k / s`` of a feasible integral schedule (slot units).
    others : dict, optional
        :func:`others_bounds` (default: the isolation part only, ``sum_{j != k} w_j (e_j +
        1)``).

    Returns
    -------
    dict
        ``compression``, ``incumbent`` and ``safe`` (the smaller, at least 1).
    """
    inst = data.instance
    R = int(data.first.max())
    comp = R + int(data.size.sum())
    w = data.weight
    pos = [k for k in range(inst.num_coflows) if w[k] > 0]
    lb = {k: w[k] * (int(data.earliest[k]) + 1) for k in pos}
    tot = sum(lb.values(), Fraction(0))
    t_pos = 0
    for k in pos:
        rest = tot - lb[k] if others is None else others[k]
        # C_k / s <= (UB - sum_{j != k} w_j C_j / s) / w_k, an integer number of slots
        t_pos = max(t_pos, int((Fraction(ub_slots) - rest) // w[k]))
    zero = np.flatnonzero(inst.weight <= 0)
    if zero.size:
        zg = np.isin(data.gk, zero)
        inc = max(t_pos, int(data.first[zero].max())) + \
            int(np.sum(-(-data.gsize[zg] // data.gcap[zg])))
    else:
        inc = t_pos
    return {"compression": comp, "incumbent": inc, "safe": max(1, min(comp, inc))}


# ----------------------------------------------------------------------------- the MIP
def _identical_classes(data: IntegralData) -> list[list[int]]:
    """Coflows of positive weight with the same weight, first slot and groups (path, size),
    in index order, for classes of at least two."""
    classes: dict[tuple, list[int]] = {}
    inst = data.instance
    per: dict[int, list] = {}
    for j in range(data.num_groups):
        per.setdefault(int(data.gk[j]), []).append(
            (tuple(data.gres[data.gres_ptr[j]:data.gres_ptr[j + 1]].tolist()),
             int(data.gsize[j])))
    for k in range(inst.num_coflows):
        if inst.weight[k] <= 0:
            continue
        key = (float(inst.weight[k]), int(data.first[k]), tuple(sorted(per.get(k, []))))
        classes.setdefault(key, []).append(k)
    return [v for v in classes.values() if len(v) > 1]


def _objective_scale(data: IntegralData) -> Fraction:
    """The unit of the MIP's objective (in slot units ``sum w_k C_k / s``): the weights' gcd
    when the coefficients ``w_k / unit`` are then integers of at most a million (HiGHS then
    sees an integral objective and rounds its bound), else the largest weight."""
    pos = [w for w in data.weight if w > 0]
    if not pos:
        return Fraction(1)
    g = pos[0]
    for v in pos[1:]:
        g = Fraction(math.gcd(g.numerator * v.denominator, v.numerator * g.denominator),
                     g.denominator * v.denominator)
    if max(pos) / g <= 10 ** 6:
        return g
    return max(pos)


def build_integral_mip(data: IntegralData, T: int, *, symmetry: bool = True,
                       relax: bool = False, objective_scale: Fraction | None = None
                       ) -> tuple[LinearProgram, dict[str, Any]]:
    """The time-indexed MIP of the integral model over ``T`` slots (module docstring; the
    rows of ``formulations/integral_mip.md``), as a :class:`LinearProgram` for HiGHS.

    Parameters
    ----------
    data : IntegralData
    T : int
        Slots ``0..T-1``.
    symmetry : bool
        Add the rows ``z[k',t] <= z[k,t]`` for identical coflows ``k < k'``.
    relax : bool
        The LP relaxation (no integer columns).
    objective_scale : Fraction, optional
        The objective is ``sum_k w_k C_k / (s * objective_scale)`` (default
        :func:`_objective_scale`); the exact coefficients are in ``lp.exact``.

    Returns
    -------
    (LinearProgram, dict)
        The model, and ``info``: column offsets and index arrays (``x`` of group ``jj[i]`` in
        slot ``tt[i]`` is column ``i``; ``X`` is column ``NX + i``; ``z`` of ``zk[i]``, slot
        ``zt[i]`` is column ``2 NX + i``), ``scale`` and row counts per family.

    Raises
    ------
    InvalidParameterError
        When ``T`` is too short for some coflow to finish at all.
    """
    inst = data.instance
    K, G = inst.num_coflows, data.num_groups
    T = int(T)
    gfirst = data.first[data.gk]
    if G and (T <= int(gfirst.max()) or T <= int(data.earliest.max())):
        raise InvalidParameterError(f"horizon {T} slots: some coflow cannot finish (its "
                                    f"earliest last slot is {int(data.earliest.max())})")
    scale = Fraction(objective_scale) if objective_scale is not None else \
        _objective_scale(data)
    nx = (T - gfirst).astype(np.int64)
    xoff = np.zeros(G + 1, dtype=np.int64)
    np.cumsum(nx, out=xoff[1:])
    NX = int(xoff[-1])
    jj = np.repeat(np.arange(G, dtype=np.int64), nx)
    tt = gfirst[jj] + (np.arange(NX, dtype=np.int64) - xoff[:-1][jj])
    pos_k = np.flatnonzero(inst.weight > 0)
    nz = np.zeros(K, dtype=np.int64)
    nz[pos_k] = T - data.earliest[pos_k]
    zoff = np.zeros(K + 1, dtype=np.int64)
    np.cumsum(nz, out=zoff[1:])
    NZ = int(zoff[-1])
    zk = np.repeat(np.arange(K, dtype=np.int64), nz)
    zt = data.earliest[zk] + (np.arange(NZ, dtype=np.int64) - zoff[:-1][zk])
    ncol = 2 * NX + NZ

    def zcol(k, t):
        return 2 * NX + zoff[k] + (t - data.earliest[k])

    # columns
    col_lo = np.zeros(ncol)
    col_hi = np.empty(ncol)
    col_hi[:NX] = np.minimum(data.gsize, data.gcap)[jj]
    col_hi[NX:2 * NX] = data.gsize[jj]
    last = xoff[1:] - 1                                 # each group's slot T-1
    col_lo[NX + last] = data.gsize
    col_hi[2 * NX:] = 1.0
    zlast = zoff[1:][pos_k] - 1
    col_lo[2 * NX + zlast] = 1.0
    c = np.zeros(ncol)
    c_exact = np.full(ncol, None, dtype=object)
    wz = [-data.weight[k] / scale for k in zk.tolist()]
    c[2 * NX:] = [float(v) for v in wz]
    c_exact[2 * NX:] = wz
    offset = sum((data.weight[k] * (1 + T) for k in pos_k.tolist()), Fraction(0)) / scale

    asm = MatrixAssembler()
    lo_parts, hi_parts, counts = [], [], {}
    nrow = 0

    def rows(name, r, cl, v, lo, hi, n):
        nonlocal nrow
        asm.add(np.asarray(r) + nrow, cl, v)
        lo_parts.append(np.broadcast_to(np.asarray(lo, dtype=float), (n,)))
        hi_parts.append(np.broadcast_to(np.asarray(hi, dtype=float), (n,)))
        counts[name] = n
        nrow += n

    # capacity: one row per (resource, slot) whose columns could exceed it
    plen = np.diff(data.gres_ptr)
    pj = np.repeat(np.arange(G, dtype=np.int64), plen)       # (group, resource) entries
    ee = np.repeat(np.arange(pj.size, dtype=np.int64), nx[pj])
    cols = concat_ranges(xoff[:-1][pj], nx[pj])
    res_e = data.gres[ee]
    key = res_e * T + tt[cols]
    uk, inv = np.unique(key, return_inverse=True)
    inv = inv.reshape(-1)
    room = np.zeros(uk.size)
    np.add.at(room, inv, col_hi[cols])
    capv = data.cap[uk // T].astype(float)
    keep_row = room > capv
    new_id = np.cumsum(keep_row) - 1
    sel = keep_row[inv]
    rows("capacity", new_id[inv[sel]], cols[sel], 1.0, -np.inf, capv[keep_row],
         int(keep_row.sum()))
    # cumulative: X[g,t] - X[g,t-1] - x[g,t] = 0
    i = np.arange(NX, dtype=np.int64)
    notfirst = tt > gfirst[jj]
    rr = np.r_[i, i, i[notfirst]]
    cc = np.r_[NX + i, i, NX + i[notfirst] - 1]
    vv = np.r_[np.ones(NX), -np.ones(NX), -np.ones(int(notfirst.sum()))]
    rows("cumulative", rr, cc, vv, 0.0, 0.0, NX)
    # linking: X[g,t] - d_g z[k,t] >= 0 for e_k <= t <= T-2 (slot T-1: both fixed)
    kj = data.gk[jj]
    link = (inst.weight[kj] > 0) & (tt >= data.earliest[kj]) & (tt <= T - 2)
    li = i[link]
    nl = li.size
    rows("linking", np.r_[np.arange(nl), np.arange(nl)],
         np.r_[NX + li, zcol(kj[li], tt[li])],
         np.r_[np.ones(nl), -data.gsize[jj[li]].astype(float)], 0.0, np.inf, nl)
    # monotone: z[k,t] - z[k,t+1] <= 0
    zi = np.arange(NZ, dtype=np.int64)
    mono = zt < T - 1
    mi = zi[mono]
    nm = mi.size
    rows("monotone", np.r_[np.arange(nm), np.arange(nm)], np.r_[2 * NX + mi, 2 * NX + mi + 1],
         np.r_[np.ones(nm), -np.ones(nm)], -np.inf, 0.0, nm)
    # symmetry: z[k',t] - z[k,t] <= 0 for identical k < k' (t < T-1; both 1 at T-1)
    classes = _identical_classes(data) if symmetry else []
    sa, sb = [], []
    for cl in classes:
        for a, b in zip(cl[:-1], cl[1:]):
            ts = np.arange(int(data.earliest[a]), T - 1, dtype=np.int64)
            sa.append(zcol(b, ts))
            sb.append(zcol(a, ts))
    if sa:
        sa_, sb_ = np.concatenate(sa), np.concatenate(sb)
        ns = sa_.size
        rows("symmetry", np.r_[np.arange(ns), np.arange(ns)], np.r_[sa_, sb_],
             np.r_[np.ones(ns), -np.ones(ns)], -np.inf, 0.0, ns)
    else:
        counts["symmetry"] = 0
    A, _ = asm.csr(nrow, ncol)
    integrality = None
    if not relax:
        integrality = np.zeros(ncol, dtype=bool)
        integrality[:NX] = True
        integrality[2 * NX:] = True
    lp = LinearProgram(
        "integral-mip" if not relax else "integral-lp", c=c, A=A,
        row_lo=np.concatenate(lo_parts) if lo_parts else np.zeros(0),
        row_hi=np.concatenate(hi_parts) if hi_parts else np.zeros(0),
        col_lo=col_lo, col_hi=col_hi, offset=float(offset), integrality=integrality,
        exact={"c": c_exact, "offset": offset},
        col_blocks={"x": (0, NX, (NX,)), "X": (NX, 2 * NX, (NX,)),
                    "z": (2 * NX, ncol, (NZ,))},
        meta={"slots": T, "slot": data.slot, "symmetry": bool(symmetry),
              "objective_scale": str(scale)})
    info = {"NX": NX, "NZ": NZ, "jj": jj, "tt": tt, "zk": zk, "zt": zt, "xoff": xoff,
            "zoff": zoff, "scale": scale, "rows": counts,
            "identical_classes": [list(map(int, c)) for c in classes]}
    return lp, info


def _canonical_units(data: IntegralData, classes: list[list[int]], t, g, u):
    """The same group schedule with the coflows of every identical class relabelled so that
    they complete in index order (the symmetry rows' representative; identical coflows have
    the same groups by path, so their units swap group by group at no cost)."""
    if not classes or not t.size:
        return t, g, u
    last = np.full(data.instance.num_coflows, -1, dtype=np.int64)
    np.maximum.at(last, data.gk[g], t)
    by_path = {(int(data.gk[j]), tuple(data.gres[data.gres_ptr[j]:data.gres_ptr[j + 1]]
                                       .tolist())): j for j in range(data.num_groups)}
    new_of = np.arange(data.num_groups, dtype=np.int64)
    for cl in classes:
        ranked = sorted(cl, key=lambda k: (int(last[k]), k))
        for old_k, new_k in zip(ranked, cl):
            if old_k == new_k:
                continue
            for (k, path), j in by_path.items():
                if k == old_k:
                    new_of[j] = by_path[(new_k, path)]
    return t, new_of[g], u


def _start_vector(data: IntegralData, info: dict, T: int, t, g, u) -> np.ndarray | None:
    """The MIP column vector of a group schedule (``None`` if it does not fit ``T`` slots)."""
    if t.size and int(t.max()) >= T:
        return None
    NX, NZ = info["NX"], info["NZ"]
    x = np.zeros(NX)
    idx = info["xoff"][:-1][g] + (t - data.first[data.gk[g]])
    np.add.at(x, idx, u)
    X = np.zeros(NX)
    jj = info["jj"]
    # cumulative per group: a global cumsum minus the group's start
    cs = np.cumsum(x)
    start = info["xoff"][:-1]
    base = np.r_[0.0, cs][start]
    X = cs - base[jj]
    last = np.full(data.instance.num_coflows, -1, dtype=np.int64)
    np.maximum.at(last, data.gk[g], t)
    z = (info["zt"] >= last[info["zk"]]).astype(float)
    return np.concatenate([x, X, z])


def _solution_units(data: IntegralData, info: dict, xval: np.ndarray):
    """(slot, group, units) from the MIP's ``x`` (rounded to whole units)."""
    NX = info["NX"]
    x = np.rint(np.asarray(xval[:NX], dtype=float)).astype(np.int64)
    nzr = np.flatnonzero(x > 0)
    return info["tt"][nzr], info["jj"][nzr], x[nzr]


# ----------------------------------------------------------------------------- bounds
def integral_isolated_bound(instance: Instance, *, slot: float = 1.0,
                            objective: str = "weighted_completion_time") -> Result:
    """``sum_k w_k (e_k + 1) s``: each coflow alone from its first slot, every resource
    sending ``c_r s`` units per slot (exact; a lower bound in the integral model only: its
    ceilings exceed the fluid isolation bound).

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 3)], release=0.5)])
    >>> integral_isolated_bound(inst).value      # slots 1, 2, 3: C = 4
    Fraction(4, 1)
    """
    _check_objective(objective)
    data = integral_data(instance, slot)
    v = sum((w * (int(e) + 1) for w, e in zip(data.weight, data.earliest.tolist())),
            Fraction(0)) * Fraction(data.slot)
    if objective == "weighted_cct":
        v -= weighted_release_sum(instance)
    return Result(value=v, kind="lower_bound", objective=objective, status="optimal",
                  algorithm="integral-isolated", params={"slot": data.slot},
                  certificate_status="certified",
                  message="integral model: each coflow alone, whole units per slot (exact)",
                  extra={"model": "integral", "value_exact": str(v)})


def _check_objective(objective: str) -> None:
    if objective not in ("weighted_completion_time", "weighted_cct"):
        raise InvalidParameterError("objective must be 'weighted_completion_time' or "
                                    f"'weighted_cct', got {objective!r}")


def integral_lp_bound(instance: Instance, *, slot: float = 1.0,
                      objective: str = "weighted_completion_time",
                      time_limit: float | None = None, symmetry: bool = True) -> Result:
    """The LP relaxation of :func:`build_integral_mip` over the safe horizon, certified in
    exact arithmetic (:func:`coflowopt.formulations.certificates.certify_lp` on HiGHS's duals)
    and rounded up to the objective lattice.

    Valid for the integral optimum only (not for the fluid one): the safe horizon contains an
    optimal integral schedule, which, with its coflows of one identical class completing in
    index order (a swap keeps every cost), satisfies every row.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)]), Coflow("B", [(0, 0, 1)])])
    >>> res = integral_lp_bound(inst)
    >>> res.kind, res.value                 # slots 1 and 2
    ('lower_bound', Fraction(3, 1))
    """
    from ..formulations.certificates import certify_lp
    _check_objective(objective)
    if time_limit is not None:
        check_time_limit(time_limit)
    t0 = time.perf_counter()
    data = integral_data(instance, slot)
    params = {"slot": data.slot, "symmetry": symmetry}
    tgu, ub, _, _ = _best_greedy(data, deadline=t0 + 1.0)
    hz = integral_horizon(data, ub)
    T = hz["safe"]
    _size_guard(data, T, MAX_COLUMNS)
    lp, info = build_integral_mip(data, T, symmetry=symmetry, relax=True)
    t1 = time.perf_counter()
    hm = HighsModel(lp, algorithm="simplex")
    sol = hm.run(time_limit=time_limit)
    t2 = time.perf_counter()
    extra = {"model": "integral", "slots": T, "horizons": hz, "matrix": lp.summary()}
    solver = {**sol.solver, "version": highs_version()}
    timings = {"build": t1 - t0, "lp": t2 - t1}
    if sol.row_dual is None:
        return Result(value=None, kind=None, objective=objective, status=sol.status,
                      algorithm="integral-lp", params=params, solver=solver, timings=timings,
                      certificate_status="uncertified", extra=extra,
                      message=f"HiGHS returned no dual (status {sol.status})")
    chk = certify_lp(lp, sol.row_dual)
    timings["certify"] = time.perf_counter() - t2
    extra["certificate_check"] = chk.to_dict()
    if not chk.ok:
        return Result(value=None, kind=None, objective=objective, status=sol.status,
                      algorithm="integral-lp", params=params, solver=solver, timings=timings,
                      certificate_status="uncertified", extra=extra,
                      message=f"no certified bound: {chk.reason}")
    raw = chk.value * info["scale"] * Fraction(data.slot)
    v = round_up_to_lattice(raw, objective_lattice(instance, data.slot))
    extra["lp_value"] = float(raw)
    if objective == "weighted_cct":
        v -= weighted_release_sum(instance)
    extra["value_exact"] = str(v)
    return Result(value=v, kind="lower_bound", objective=objective, status=sol.status,
                  algorithm="integral-lp", params=params, solver=solver, timings=timings,
                  certificate_status="certified", extra=extra,
                  message=f"integral model: LP relaxation of the integral MIP ({T} slots, safe "
                          "horizon), certified exactly, rounded up to the objective lattice")


def _size_guard(data: IntegralData, T: int, max_columns: int) -> None:
    nx = int(np.sum(T - data.first[data.gk]))
    if nx > max_columns:
        raise NotSupportedError(
            f"integral MIP too large: {nx} integer columns ({data.num_groups} flow groups x "
            f"up to {T} slots of the safe horizon) > max_columns {max_columns}; the "
            "time-indexed model is for small instances (raise max_columns to try anyway)")


def _run_highs(make, time_limit: float | None, threads: int | None, notes: list):
    """:func:`coflowopt.formulations.highs.run_on_thread_pool` for integral-mip (a requested
    thread count HiGHS's existing process-wide pool cannot honour is ignored, warned and
    noted, never a silent "solved nothing")."""
    from ..formulations.highs import run_on_thread_pool
    return run_on_thread_pool(make, time_limit, threads, notes, "integral-mip")


def deadline_units(data: IntegralData, due: np.ndarray, *, slack: int = 0,
                   time_limit: float | None = None, threads: int | None = None, start=None,
                   notes: list | None = None):
    """Whole units meeting completion slots: the MIP of :func:`build_integral_mip` over
    ``max(due) + slack`` slots with every coflow complete by slot ``due_k + slack``
    (``z[k,t]`` fixed to 1 from ``t = due_k + slack - 1``).  With ``slack = 0`` every ``z`` is
    fixed: a feasibility problem, which HiGHS solves in a fraction of a second on the
    benchmark's instances; with ``slack > 0`` a restricted MIP (earlier completions are
    free), a heuristic for the full one.

    Parameters
    ----------
    due : ndarray of int, shape (K,)
        Completion slot counts ``C_k / s`` to meet (raised to ``e_k + 1`` where smaller).
    slack : int
        Slots of slack after every due slot.
    start : (slot, group, units), optional
        A MIP start (used when it fits).
    notes : list, optional
        Receives a note when ``threads`` had to be ignored (:func:`_run_highs`).

    Returns
    -------
    (slot, group, units) or None
        None when HiGHS finds no such schedule in time (or proves there is none).
    """
    due = np.maximum(np.asarray(due, dtype=np.int64), data.earliest + 1) + int(slack)
    T = int(due.max())
    lp, info = build_integral_mip(data, T, symmetry=slack > 0)
    lo = lp.col_lo.copy()
    zc = 2 * info["NX"] + np.arange(info["NZ"])
    lo[zc] = (info["zt"] >= due[info["zk"]] - 1).astype(float)
    lp.col_lo = lo
    vec = None
    if start is not None:
        classes = [list(c) for c in info["identical_classes"]]
        vec = _start_vector(data, info, T, *_canonical_units(data, classes, *start))
        if vec is not None and not np.all(vec >= lo - 1e-9):
            vec = None

    def make(th):
        hm = HighsModel(lp, algorithm="choose", threads=th)
        if vec is not None:
            _set_start(hm, vec)
        return hm

    _, sol = _run_highs(make, time_limit, threads,
                        notes if notes is not None else [])
    if sol.x is None:
        return None
    try:
        units = _solution_units(data, info, sol.x)
        _split_groups(data, *units)
    except InvalidParameterError:
        return None
    return units


# ----------------------------------------------------------------------------- the method
def _fluid_lower_bound(instance: Instance, how: str, budget: float):
    """A proven lower bound on the fluid optimum (hence on the integral one), its source and
    (for ``bnb``) the fluid schedule's completion order."""
    if how == "none" or budget <= 0:
        return None, "none", None
    if how == "bnb":
        from .branch_and_bound import bnb
        res = bnb(instance, time_limit=budget)
        order = None
        if res.report is not None and res.kind is not None:
            order = [Fraction(c) for c in res.report.coflow_completion]
        # bnb's bound is proven whatever its status (at a time limit too)
        b = res.bound
        if b is None and res.kind == "optimal":
            b = res.value
        return (None if b is None else Fraction(b)), f"bnb ({res.status})", order
    from ..bounds.best import best_certified_bound, seed_value
    best, _ = best_certified_bound(instance, time_limit=budget)
    v = seed_value(best)
    return v, ("none" if best is None else best.algorithm), None


@register("exact", "integral-mip",
          summary="exact optimum of the integral matching model (slotted, whole units per "
                  "slot): time-indexed MIP with integer units and completion indicators",
          reference="Qiu, Stein, Zhong SPAA 2015; Khuller, Purohit SPAA 2016; Varys appendix A "
                    "(2)-(5) with integer amounts; formulations/integral_mip.md",
          guarantee="integral optimum when proved: exactly (a certified bound meets the "
                    "verified value) or by HiGHS's floating-point MIP bound (labelled so); "
                    ">= the fluid optimum",
          tags=("integral_model", "exponential", "needs_solver", "release_dates", "weights",
                "heterogeneous_capacities", "slow"))
def integral_mip(instance: Instance, *, slot: float = 1.0, time_limit: float = 60.0,
                 horizon: str | int = "safe", fluid_bound: str = "bnb",
                 fluid_share: float = 0.5, symmetry: bool = True,
                 objective_cut: bool = True, mip_start: bool = True,
                 max_columns: int = MAX_COLUMNS, threads: int | None = None) -> Result:
    """The minimum ``sum_k w_k C_k`` in the integral matching model, with proof.

    Parameters
    ----------
    instance : Instance
        Whole sizes and whole ``capacity x slot`` (else :class:`NotSupportedError`); a big
        switch or an instance over resources (a flow's units count on every resource of its
        path).  Deadlines are ignored.
    slot : float
        Slot length ``s``.
    time_limit : float
        Seconds for everything (incumbent, fluid bound, MIP).
    horizon : "safe" or int
        Number of slots; ``"safe"`` is :func:`integral_horizon`'s; an integer is used as given
        (the result then says whether it is proven safe; optimality is claimed only if it is).
    fluid_bound : {"bnb", "lp", "none"}
        The fluid lower bound: the registry's exact ``bnb`` (its proven bound, and its optimal
        order as one more incumbent order), the best certified LP bound
        (:func:`coflowopt.bounds.best.best_certified_bound`), or none.
    fluid_share : float
        Fraction of ``time_limit`` for the fluid bound.
    symmetry : bool
        Symmetry rows between identical coflows.
    objective_cut : bool
        Add the row ``objective >= certified bound`` to the MIP.
    mip_start : bool
        Give HiGHS the greedy incumbent as a start when it fits the horizon.
    max_columns : int
        Refuse (:class:`NotSupportedError`) a MIP with more integer ``x`` columns.
    threads : int, optional
        HiGHS's ``threads``.  HiGHS sizes one process-wide thread pool at its first run in a
        process; a different count asked later cannot be honoured: it is then ignored with a
        ``RuntimeWarning`` and ``extra["threads_note"]`` says so (the MIP runs on the existing
        pool; before this, such a run silently solved nothing and came back ``feasible``).

    Returns
    -------
    Result
        ``value`` the verified integral cost (Fraction), ``schedule`` a
        :class:`~coflowopt.slotted.SlottedSchedule` (``report`` is ``None``: the integral
        verifier's verdict is in ``extra["integral_verification"]``), ``bound``, ``gap``,
        ``certificate`` (``certified_bound``, ``solver_bound``, ``bound_source``,
        ``lattice``), ``certificate_status`` (see the module docstring), ``extra`` (slots,
        horizons, MIP status, matrix, incumbent source, fluid bound).

    Raises
    ------
    NotSupportedError
        For sizes or ``capacity x slot`` that are not whole, or a MIP above ``max_columns``.

    Examples
    --------
    One coflow of three unit flows over a triangle of unit links (paths ``{a, b}``, ``{b, c}``,
    ``{a, c}``): any two flows share a link, so whole units take one flow per slot (C = 3),
    while the fluid model runs all three at rate 1/2 (C = 2).

    >>> from coflowopt import Instance
    >>> tri = Instance.from_paths(resource_capacity=[1.0, 1.0, 1.0], coflow_ids=["A"],
    ...     flow_coflow=[0, 0, 0], flow_src=[0, 1, 0], flow_dst=[1, 2, 2],
    ...     flow_size=[1.0, 1.0, 1.0], path_ptr=[0, 2, 4, 6],
    ...     path_resource=[0, 1, 1, 2, 0, 2], host_ids=["u", "v", "w"])
    >>> res = integral_mip(tri, time_limit=20)
    >>> res.kind, res.value, res.extra["fluid_bound"]
    ('optimal', Fraction(3, 1), 2.0)
    >>> verify_slotted(tri, res.schedule).ok
    True
    """
    check_time_limit(time_limit)
    if fluid_bound not in ("bnb", "lp", "none"):
        raise InvalidParameterError(f"fluid_bound must be 'bnb', 'lp' or 'none', got "
                                    f"{fluid_bound!r}")
    if isinstance(fluid_share, bool) or not isinstance(fluid_share, (int, float)) or \
            not 0 <= fluid_share <= 1:
        raise InvalidParameterError(f"fluid_share must be in [0, 1], got {fluid_share!r}")
    if isinstance(max_columns, bool) or not isinstance(max_columns, (int, np.integer)) or \
            max_columns < 1:
        raise InvalidParameterError(f"max_columns must be a positive integer, got "
                                    f"{max_columns!r}")
    if not (horizon == "safe" or (isinstance(horizon, (int, np.integer)) and
                                  not isinstance(horizon, bool) and horizon > 0)):
        raise InvalidParameterError(f"horizon must be 'safe' or a positive number of slots, "
                                    f"got {horizon!r}")
    from ..formulations.highs import check_threads
    check_threads(threads)    # also when no model is built (threads=-1 ran, exit 0)
    t0 = time.perf_counter()
    deadline = t0 + float(time_limit)
    data = integral_data(instance, slot)
    s = Fraction(data.slot)
    lattice = objective_lattice(instance, data.slot)
    params = {"slot": data.slot, "time_limit": time_limit, "horizon": horizon,
              "fluid_bound": fluid_bound, "symmetry": symmetry}
    timings: dict[str, float] = {}
    thread_notes: list[str] = []
    # 1. incumbent: the best per-slot greedy (a few orders, adjacent swaps)
    tgu, ub_slots, inc_label, _ = _best_greedy(
        data, deadline=min(deadline, t0 + max(0.5, 0.05 * float(time_limit))))
    inc_label = f"greedy ({inc_label})"
    timings["incumbent"] = time.perf_counter() - t0
    # 2. certified bounds: integral isolation, then the fluid bound rounded to the lattice
    iso = sum((w * (int(e) + 1) for w, e in zip(data.weight, data.earliest.tolist())),
              Fraction(0)) * s
    cert_lb, cert_src = iso, "integral isolation"
    fluid_v, fluid_src = None, "not run"
    t1 = time.perf_counter()
    if iso < ub_slots * s:
        budget = min(fluid_share * float(time_limit), max(0.0, deadline - t1))
        # the fluid problem with every release rounded up to its first slot: an integral
        # schedule is a fluid schedule of it too, so its fluid bounds hold (and are larger)
        rounded = instance.replace(release=data.first.astype(float) * data.slot,
                                   deadline=np.full(instance.num_coflows, np.nan))
        fluid_v, fluid_src, fluid_cc = _fluid_lower_bound(rounded, fluid_bound, budget)
        if fluid_v is not None:
            r = round_up_to_lattice(fluid_v, lattice)
            if r > cert_lb:
                cert_lb, cert_src = r, f"fluid {fluid_src}, rounded up to the lattice"
        if fluid_cc is not None and cert_lb < ub_slots * s:
            # the fluid schedule's completion times, rounded up to slot ends, as deadlines of
            # whole units (often met exactly: then the fluid optimum is the integral one)
            due = np.array([int(-((-c) // s)) for c in fluid_cc], dtype=np.int64)
            units = deadline_units(data, due, threads=threads, notes=thread_notes,
                                   time_limit=max(1e-3, min(deadline - time.perf_counter(),
                                                            0.1 * float(time_limit))))
            if units is not None:
                c2 = _cost_in_slots(data, units[0], units[1])
                if c2 < ub_slots:
                    tgu, ub_slots, inc_label = units, c2, "fluid optimum's completion slots"
            if cert_lb < ub_slots * s:
                # not met: the MIP restricted to one slot of slack after every fluid
                # completion slot (a heuristic: a short horizon, earlier completions free)
                units = deadline_units(
                    data, due, slack=1, threads=threads, start=tgu, notes=thread_notes,
                    time_limit=max(1e-3, min(deadline - time.perf_counter(),
                                             0.1 * float(time_limit))))
                if units is not None:
                    c2 = _cost_in_slots(data, units[0], units[1])
                    if c2 < ub_slots:
                        tgu, ub_slots, inc_label = units, c2, \
                            "MIP within a slot of the fluid optimum's completions"
            order = np.lexsort((np.arange(len(fluid_cc)), [float(c) for c in fluid_cc]))
            t2, c2, lab2, _ = _best_greedy(data, [("fluid-optimal", order)],
                                           deadline=min(deadline, time.perf_counter() + 0.5))
            if c2 < ub_slots:
                tgu, ub_slots, inc_label = t2, c2, "greedy " + lab2
    timings["fluid_bound"] = time.perf_counter() - t1
    extra: dict[str, Any] = {"model": "integral", "slot": data.slot,
                             "fluid_bound": None if fluid_v is None else float(fluid_v),
                             "fluid_bound_source": fluid_src,
                             "integral_isolated_bound": float(iso)}
    solver: dict[str, Any] = {"name": "highs", "version": highs_version()}
    mip_status, solver_bound, mip_value = "not_run", None, None
    best_units, best_src = tgu, inc_label
    proven_safe = True
    if cert_lb < ub_slots * s:
        # 3. the MIP over a safe horizon
        others = others_bounds(data, deadline=min(deadline, time.perf_counter() +
                                                  0.05 * float(time_limit)))
        hz = integral_horizon(data, ub_slots, others)
        if horizon == "safe":
            T = hz["safe"]
        else:
            T, proven_safe = int(horizon), int(horizon) >= hz["safe"]
        _size_guard(data, T, int(max_columns))
        t3 = time.perf_counter()
        lp, info = build_integral_mip(data, T, symmetry=symmetry)
        scale = info["scale"]
        if objective_cut:
            lp = _with_objective_cut(lp, cert_lb / (s * scale))
        start = None
        if mip_start:
            classes = [list(c) for c in info["identical_classes"]]
            start = _start_vector(data, info, T, *_canonical_units(data, classes, *tgu))
        started = False

        def make(th):
            nonlocal started
            hm = HighsModel(lp, algorithm="choose", threads=th,
                            options={"mip_rel_gap": 0.0})
            started = _set_start(hm, start) if start is not None else False
            return hm

        t4 = time.perf_counter()
        _, sol = _run_highs(make, max(1e-3, deadline - t4), threads, thread_notes)
        t5 = time.perf_counter()
        timings.update({"build": t4 - t3, "mip": t5 - t4})
        solver.update(sol.solver)
        mip_status = sol.status
        extra.update({"slots": T, "horizons": hz, "horizon_proven_safe": proven_safe,
                      "matrix": lp.summary(), "rows": info["rows"],
                      "identical_classes": info["identical_classes"],
                      "mip_start": started, "mip_status": sol.status,
                      "mip_gap": sol.mip_gap})
        if sol.mip_bound is not None:
            solver_bound = Fraction(sol.mip_bound) * scale * s
        if sol.x is not None:
            mip_value = Fraction(sol.objective) * scale * s
            try:
                units = _solution_units(data, info, sol.x)
                c = _cost_in_slots(data, units[0], units[1])
                sched = _split_groups(data, *units)
                if verify_slotted(instance, sched).ok and c < ub_slots:
                    best_units, ub_slots, best_src = units, c, "MIP"
            except InvalidParameterError:
                pass   # a rounded MIP point that does not send every size: keep the greedy
        extra["mip_value"] = None if mip_value is None else float(mip_value)
        extra["mip_bound"] = None if solver_bound is None else float(solver_bound)
    if thread_notes:
        extra["threads_note"] = thread_notes[0]
    # 4. the verified incumbent and the verdict
    sched = _split_groups(data, *best_units, meta={"algorithm": "integral-mip",
                                                    "incumbent_source": best_src})
    rep = verify_slotted(instance, sched)
    extra["incumbent_source"] = best_src
    extra["integral_verification"] = rep.to_dict(per_coflow=True)
    timings["total"] = time.perf_counter() - t0
    if not rep.ok:   # pragma: no cover - the greedy and the MIP points are both checked
        return Result(value=None, kind=None, objective="weighted_completion_time",
                      status="rejected", algorithm="integral-mip", params=params,
                      schedule=sched, solver=solver, timings=timings, extra=extra,
                      message=rep.summary())
    value = rep.weighted_completion_time
    solver_round = None
    if solver_bound is not None:
        solver_round = round_up_to_lattice(
            solver_bound - abs(solver_bound) * Fraction(SOLVER_BOUND_RTOL), lattice)
    certificate = {"certified_bound": str(cert_lb), "certified_bound_source": cert_src,
                   "solver_bound": None if solver_bound is None else float(solver_bound),
                   "solver_bound_rounded": None if solver_round is None else str(solver_round),
                   "lattice": None if lattice is None else str(lattice),
                   "proof": "certified bound (exact) or HiGHS MIP (floating point)"}
    if cert_lb >= value:
        kind, status, cstat = "optimal", "optimal", PROVED_EXACTLY
        bound, bsrc = cert_lb, cert_src
    elif mip_status == "optimal" and proven_safe and solver_round is not None and \
            (solver_round >= value or within_optimality_tolerance(value, solver_bound)):
        kind, status, cstat = "optimal", "optimal", PROVED_BY_SOLVER
        bound, bsrc = value, "HiGHS MIP dual bound (floating point), rounded to the lattice"
    else:
        kind, cstat = "feasible", "open"
        status = mip_status if mip_status not in ("optimal", "not_run") else (
            "horizon_not_proven_safe" if not proven_safe else "bound_not_attained")
        if solver_round is not None and proven_safe and solver_round > cert_lb:
            bound, bsrc = min(solver_round, value), "HiGHS MIP dual bound (floating point)"
        else:
            bound, bsrc = cert_lb, cert_src
    certificate["bound_source"] = bsrc
    gap = relative_gap(value, bound)
    msg = (f"integral model (slot {data.slot:g}): {float(value):.10g} "
           f"[{kind}; {cstat}]; bound {float(bound):.10g} ({bsrc}); incumbent from {best_src}")
    return Result(value=value, kind=kind, objective="weighted_completion_time", status=status,
                  algorithm="integral-mip", params=params, schedule=sched, bound=bound,
                  incumbent=value, gap=gap, solver=solver, certificate=certificate,
                  certificate_status=cstat, timings=timings, extra=extra, message=msg)


def _with_objective_cut(lp: LinearProgram, lb_units: Fraction) -> LinearProgram:
    """``lp`` with the row ``c^T x + offset >= lb`` (a valid row: ``lb`` is a certified lower
    bound on the optimum, in the objective's units)."""
    import scipy.sparse as sp
    nzc = np.flatnonzero(lp.c)
    if nzc.size == 0:
        return lp
    row = sp.csr_matrix((lp.c[nzc], (np.zeros(nzc.size, dtype=np.int64), nzc)),
                        shape=(1, lp.num_cols))
    rhs = float(lb_units) - lp.offset
    # a little below the exact right-hand side: the row must never cut off the optimum
    rhs -= 1e-9 * max(1.0, abs(rhs))
    A = sp.vstack([lp.A, row], format="csr")
    return LinearProgram(lp.name, c=lp.c, A=A, row_lo=np.r_[lp.row_lo, rhs],
                         row_hi=np.r_[lp.row_hi, np.inf], col_lo=lp.col_lo, col_hi=lp.col_hi,
                         offset=lp.offset, integrality=lp.integrality, exact={},
                         col_blocks=lp.col_blocks, meta={**lp.meta, "objective_cut": True})


def _set_start(hm: HighsModel, start: np.ndarray) -> bool:
    """Give HiGHS a MIP start; False if it refuses it."""
    import highspy
    sol = highspy.HighsSolution()
    sol.col_value = [float(v) for v in start]
    sol.value_valid = True
    st = hm.h.setSolution(sol)
    return st != highspy.HighsStatus.kError
