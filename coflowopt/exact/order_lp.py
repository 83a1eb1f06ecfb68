"""The completion-order LP: the best fluid schedule for a fixed sequence of events.

Fix the order in which coflows complete and how the (fixed) release times interleave with the
completions: an *event sequence* ``e_1, ..., e_N``, each event a release (at its fixed time) or
the completion of a coflow.  Between consecutive events the fluid model is a transportation
problem, so constant rates inside each interval lose nothing, and the best schedule with that
event sequence is a small LP (formulations/completion-order-lp.md)::

    min   sum_n W_n t_n
    s.t.  t_n - t_{n-1} >= 0                                   (events in sequence)
          t_n = r                         for a release event at time r
          sum_{j whose path uses p} x_{j,n} <= c_p (t_n - t_{n-1})  for every interval n,
                                                                     resource p
          sum_n x_{j,n} = s_j                                  for every flow pair j
          x_{j,n} = 0 unless coflow(j) is released by e_{n-1} and not completed before e_n

with ``W_n`` the weight of the coflow completing at ``e_n``.  The minimum of this LP over all
event sequences is the optimum of the fluid problem, and the LP solution *is* an optimal
schedule (proofs/completion-order-lp-exact.md).

A flow occupies every resource of its path at its rate (on a big switch: its ingress and
egress port), so its amount in an interval counts in the capacity row of every resource of its
path.  Flows of one coflow with the same path (on a big switch: the same ingress and egress) are
merged into one *pair* (they are interchangeable); the schedule splits a pair's amount over its
flows in proportion to their sizes.

Units: the LP is written in the units of :func:`lp_units` (powers of two that bring sizes,
capacities and weights near 1, as every LP for HiGHS in coflowopt; CONTRIBUTING "LP units"),
and its solution and certified bound are converted back exactly; an instance near 1 (the usual
case) gets the LP it always had.

The schedule is rebuilt from the LP's amounts ``x`` alone, in exact rational arithmetic
(:func:`exact_schedule_from_amounts`): amounts are clipped at 0 and rescaled so that each pair
gets exactly its size, every interval is given exactly the length its busiest resource needs, and a
release event never comes before its release time.  The result is feasible by construction (the
exact verifier confirms it) and its cost is within rounding of the LP value.

Representation used here and by :mod:`.branch_and_bound`: an event is an int *code*, ``k >= 0``
the completion of coflow ``k`` and ``-(g+1)`` the release of *release group* ``g`` (the coflows
released at the ``g``-th smallest positive release time).  Coflows released at time 0 need no
event.  A node of the branch and bound adds a *block*: one completion event for a set of coflows
whose cost is accounted for elsewhere (``charged=False``).

References
----------
Chowdhury's dissertation, App. B.1, (B.1)-(B.4) (the time-indexed formulation this LP replaces)
and App. B.3 (permutation schedules are not optimal: the LP lets coflows share ports freely
within an interval); the interval ("event point") formulations of continuous-time scheduling,
e.g. C. A. Floudas, X. Lin, "Continuous-time versus discrete-time approaches for scheduling of
chemical processes: a review", Comput. Chem. Eng. 28 (2004), Sec. 3.
"""

from __future__ import annotations

import math
import operator
import time
from dataclasses import dataclass, field
from functools import cached_property
from fractions import Fraction
from typing import Any, Iterable, Sequence

import numpy as np

from ..exceptions import InvalidParameterError, SolverError
from ..formulations.certificates import certify_lp, unit_scaling
from ..formulations.highs import HighsModel, LPSolution
from ..formulations.linear_program import LinearProgram, exact_group_sums, float_down
from ..formulations.time_indexed import FlowGroups, flow_groups, safe_horizon
from ..instance import Instance
from ..schedule import Schedule
from .._index_ranges import concat_ranges

__all__ = ["PairData", "EventLP", "EventLPSolution", "pair_data", "pair_groups", "resource_columns",
           "build_event_lp",
           "solve_event_lp", "new_event_lp_solver", "events_to_codes", "codes_to_events",
           "events_from_completions", "exact_schedule_from_amounts", "float_schedule_from_amounts",
           "order_lp",
           "best_interleaving", "EVENT_LP_OPTIONS", "with_block_floor"]

#: Amounts below this fraction of their pair's size are treated as 0 when the schedule is
#: rebuilt (the remaining amounts are rescaled to the exact size), so LP round-off does not
#: create slivers of nearly zero rate.
AMOUNT_RTOL = 1e-11
#: :func:`verified_schedule` in float mode rebuilds LPs with more columns than this in float
#: arithmetic (:func:`float_schedule_from_amounts`) instead of trying the exact candidates.
FLOAT_REBUILD_COLS = 5_000


# ----------------------------------------------------------------------------- instance data
@dataclass(frozen=True, eq=False)
class PairData:
    """Per-instance data shared by every event LP of one solve.

    Attributes
    ----------
    groups : FlowGroups
        The flow pairs (:func:`pair_groups`): coflow, unified ingress/egress ports on a big
        switch (``-1`` on resources), float size and exact size (``size_exact``, when the float
        sum of the merged flows is rounded), member flows.
    res_ptr, res : ndarray of int64
        CSR paths of the pairs: pair ``j`` occupies ``res[res_ptr[j]:res_ptr[j+1]]``
        (``[src, dst]`` on a big switch).
    unit : dict
        The LP units (:func:`lp_units`).
    group_time : ndarray of float, shape (G,)
        The distinct positive release times, increasing.
    coflow_group : ndarray of int64, shape (K,)
        Release group of each coflow; -1 for release 0.
    horizon : float
        :func:`~coflowopt.formulations.time_indexed.safe_horizon`: every event LP has an optimal
        solution with all event times in ``[0, horizon]`` (proofs/completion-order-lp-exact.md,
        Lemma 4), so the bound ``t_n <= horizon`` changes no LP value.
    """

    instance: Instance
    groups: FlowGroups
    group_time: np.ndarray
    coflow_group: np.ndarray
    horizon: float
    res_ptr: np.ndarray | None = None
    res: np.ndarray | None = None
    unit: dict | None = None
    #: the reduced node LPs' merged pairs by block (:func:`_merge_block_pairs`); not copied by
    #: ``dataclasses.replace``
    merge_cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def coflow(self) -> np.ndarray:
        return self.groups.coflow

    @property
    def src(self) -> np.ndarray:
        """Ingress port of every pair (big switch; ``-1`` on an instance over resources)."""
        return self.groups.src

    @property
    def dst(self) -> np.ndarray:
        """Egress port (unified numbering) of every pair (big switch; ``-1`` on resources)."""
        return self.groups.dst

    @cached_property
    def path_len(self) -> int:
        """The number of resources on every pair's path when all have the same (2 on a big
        switch), else 0."""
        lens = np.diff(self.res_ptr) if self.res_ptr is not None else np.zeros(0, np.int64)
        return int(lens[0]) if lens.size and bool(np.all(lens == lens[0])) else 0

    @cached_property
    def sums_exact(self) -> bool:
        """Whether every float sum of pair sizes in the LP units, each pair counted at most
        once per resource of its path, is exact (:func:`exact_group_sums` would find no
        rounding: a subset's grid is no finer and its total no larger than those of all
        pairs' sizes, each repeated by the longest path's length).  Merged block pairs count
        as their members: their sizes are such sums."""
        if self.res_ptr is None or self.size.size == 0:
            return False
        a = (self.unit or {}).get("data_exp", 0)
        size = np.ldexp(self.size, -a) if a else self.size
        L = int(np.diff(self.res_ptr).max())
        return exact_group_sums(np.tile(size, L), np.zeros(L * size.size, np.int64), 1)[1] \
            is None

    @cached_property
    def path_id(self) -> np.ndarray:
        """A number per pair, equal for pairs with the same path (``src * P + dst`` on a big
        switch; the index of the path among the distinct paths on resources)."""
        if self.res_ptr is None or self.instance.is_big_switch:
            return self.src.astype(np.int64) * self.instance.num_ports + self.dst
        lens = np.diff(self.res_ptr)
        M = np.full((lens.size, int(lens.max()) if lens.size else 0), -1, dtype=np.int64)
        M[np.repeat(np.arange(lens.size), lens),
          np.arange(self.res.size) - np.repeat(self.res_ptr[:-1], lens)] = self.res
        return np.unique(M, axis=0, return_inverse=True)[1].ravel().astype(np.int64)

    def pair_resources(self, j: int) -> list[int]:
        """The resources pair ``j`` occupies (its path; ``[src, dst]`` on a big switch)."""
        return self.res[self.res_ptr[j]:self.res_ptr[j + 1]].tolist()

    def resource_columns(self, xj: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """For amounts of pairs ``xj``: per path position ``l``, the indices ``i`` into
        ``xj`` whose pair has an ``l``-th resource, and that resource.  On a big switch
        ``[(all, src), (all, dst)]``: the order in which the big-switch LP was always built
        (so its matrices are unchanged)."""
        return resource_columns(self.res_ptr, self.res, xj)

    @property
    def size(self) -> np.ndarray:
        return self.groups.size

    @property
    def num_groups(self) -> int:
        return int(self.group_time.shape[0])

    def group_members(self, g: int) -> np.ndarray:
        return np.flatnonzero(self.coflow_group == g)

    def exact_size(self, j: int) -> Fraction:
        ex = self.groups.size_exact
        return Fraction(ex[j]) if ex is not None else Fraction(float(self.groups.size[j]))


def resource_columns(res_ptr: np.ndarray, res: np.ndarray, xj: np.ndarray
                     ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per path position ``l``: the indices ``i`` into ``xj`` whose pair ``xj[i]`` has an
    ``l``-th resource in the CSR ``(res_ptr, res)``, and that resource (vectorised; one entry
    per position, 2 on a big switch: every ingress, then every egress)."""
    plen = np.diff(res_ptr)[xj]
    start = res_ptr[xj]
    out = []
    for pos in range(int(plen.max()) if plen.size else 0):
        sel = np.flatnonzero(plen > pos)
        out.append((sel, res[start[sel] + pos]))
    return out


def _resource_columns(res_ptr: np.ndarray, res: np.ndarray, xj: np.ndarray, path_len: int
                      ) -> list[tuple[np.ndarray, np.ndarray]]:
    """:func:`resource_columns`, with ``path_len`` (:attr:`PairData.path_len`) the length of
    every path when all are equal (then without the per-position selection), else 0."""
    if not path_len:
        return resource_columns(res_ptr, res, xj)
    if not xj.size:
        return []
    start = res_ptr[xj]
    sel = np.arange(xj.size)
    return [(sel, res[start + pos]) for pos in range(path_len)]


def pair_groups(instance: Instance) -> tuple[FlowGroups, np.ndarray, np.ndarray]:
    """Merge each coflow's flows by path: ``(groups, res_ptr, res)``.

    On a big switch the path of a flow is its (ingress, egress) pair, so this is
    :func:`~coflowopt.formulations.time_indexed.flow_groups` with the CSR ``[src, dst]`` per
    pair.  On an instance over resources, flows of one coflow with the same path are merged
    (they are interchangeable: a merged schedule splits back in proportion to the sizes), the
    groups' ``src``/``dst`` are ``-1`` and ``res_ptr``/``res`` hold the paths.
    """
    if instance.is_big_switch:
        g = flow_groups(instance)
        J = g.coflow.size
        res = np.stack([g.src, g.dst], axis=1).ravel().astype(np.int64)
        return g, np.arange(0, 2 * J + 1, 2, dtype=np.int64), res
    g = flow_groups(instance)               # merged by (coflow, path), paths in res_ptr/res
    return g, g.res_ptr, g.res


def safe_horizon_paths(instance: Instance) -> float:
    """:func:`~coflowopt.formulations.time_indexed.safe_horizon` over resources:
    ``max_k r_k + sum_f d_f / b_f`` with ``b_f`` the smallest capacity on flow ``f``'s path
    (rounded up to a float).  The same compression argument: after the last release, a phase
    between consecutive events is no longer than sending its flows one after another, each
    alone at its bottleneck capacity.  On a big switch ``b_f = min(c_src, c_dst)``, the same
    number as ``safe_horizon``."""
    cmin = instance.flow_bottleneck_capacity
    caps, inv = np.unique(cmin, return_inverse=True)
    sums, exact = exact_group_sums(instance.flow_size, inv.reshape(-1), caps.size)
    total = sum((Fraction(float(v)) if exact is None else exact[i]) / Fraction(float(c))
                for i, (v, c) in enumerate(zip(sums.tolist(), caps.tolist())))
    h = Fraction(float(instance.release.max())) + Fraction(total)
    f = float(h)
    return f if Fraction(f) >= h else float(np.nextafter(f, np.inf))


def pair_data(instance: Instance) -> PairData:
    """Merge each coflow's flows by path (by (ingress, egress) on a big switch), index the
    release groups and choose the LP units (:func:`lp_units`)."""
    rel = instance.release
    gt = np.unique(rel[rel > 0])
    group = np.where(rel > 0, np.searchsorted(gt, rel), -1).astype(np.int64)
    groups, res_ptr, res = pair_groups(instance)
    horizon = safe_horizon(instance) if instance.is_big_switch else safe_horizon_paths(instance)
    return PairData(instance=instance, groups=groups, group_time=gt.astype(float),
                    coflow_group=group, horizon=float(horizon), res_ptr=res_ptr, res=res,
                    unit=lp_units(instance))


def lp_units(instance: Instance) -> dict[str, int]:
    """The units the event LPs are written in: :func:`~coflowopt.formulations.certificates.
    unit_scaling` (powers of two that bring sizes, capacities and weights near 1; all 0 for an
    instance already near 1, whose LPs are then exactly as before).

    HiGHS's tolerances are absolute, so an event LP in the instance's own units loses its
    constraints at sizes ~1e-6 and fails ("unknown") at sizes ~1e6 (the known limitation of
    tests/test_scale_invariance_bounds.py).  The event LP scales its own arrays by these powers
    of two (exact), which is the LP of ``formulations.certificates.normalised(instance)``
    without building the rescaled instance; the scaled values stay far inside float64's range
    (the exponents are clamped to coflowopt.limits' ranges).
    """
    return unit_scaling(instance)


# ----------------------------------------------------------------------------- event codes
def events_to_codes(pd: PairData, events: Iterable) -> tuple[int, ...]:
    """Convert user events to codes.

    ``events`` items are ``("complete", k)`` or ``("release", time)`` (the release of every
    coflow with that release time); a bare int ``k`` means ``("complete", k)``.
    """
    out = []
    for i, ev in enumerate(events):
        if isinstance(ev, (int, np.integer)) and not isinstance(ev, bool):
            ev = ("complete", int(ev))
        if not (isinstance(ev, (tuple, list)) and len(ev) == 2):
            raise InvalidParameterError(f"events[{i}] must be ('complete', k) or "
                                        f"('release', time), got {ev!r}")
        kind, v = ev
        if kind == "complete":
            k = int(v)
            if not 0 <= k < pd.instance.num_coflows:
                raise InvalidParameterError(f"events[{i}]: coflow {k} out of range")
            out.append(k)
        elif kind == "release":
            g = int(np.searchsorted(pd.group_time, float(v)))
            if g >= pd.num_groups or pd.group_time[g] != float(v):
                raise InvalidParameterError(f"events[{i}]: no coflow is released at {v!r} "
                                            f"(positive release times: {pd.group_time.tolist()})")
            out.append(-(g + 1))
        else:
            raise InvalidParameterError(f"events[{i}]: kind must be 'complete' or 'release', "
                                        f"got {kind!r}")
    return tuple(out)


def codes_to_events(pd: PairData, codes: Sequence[int]) -> list[tuple[str, Any]]:
    """The inverse of :func:`events_to_codes`."""
    return [("complete", int(c)) if c >= 0 else ("release", float(pd.group_time[-c - 1]))
            for c in codes]


def events_from_completions(pd: PairData, completion: Sequence[float]) -> tuple[int, ...]:
    """The event sequence of a schedule with the given coflow completion times.

    Events are sorted by time; at equal times completions come before releases (a coflow
    cannot complete at its own release time, and a completion at time r does not need the
    coflows released at r), and completions keep instance order.
    """
    C = np.asarray(completion, dtype=float)
    times = np.concatenate([C, pd.group_time])
    kind = np.concatenate([np.zeros(C.size), np.ones(pd.num_groups)])
    codes = np.concatenate([np.arange(C.size), -(np.arange(pd.num_groups) + 1)])
    o = np.lexsort((np.arange(times.size), kind, times))
    return tuple(int(c) for c in codes[o])


# ----------------------------------------------------------------------------- the LP
@dataclass(frozen=True, eq=False)
class EventLP:
    """An event LP (a :class:`~coflowopt.formulations.linear_program.LinearProgram` named
    ``"event-lp"``) plus the maps back to events and pairs."""

    lp: LinearProgram
    num_events: int
    ev_fixed: np.ndarray       # (N,) release time, NaN for completion events
    ev_weight: np.ndarray      # (N,) objective weight of t_n
    rel_ev: np.ndarray         # (K,) event index of the release (-1: time 0)
    done_ev: np.ndarray        # (K,) event index by which the coflow is complete
    x_pair: np.ndarray         # (X,) pair of each amount column
    x_interval: np.ndarray     # (X,) interval (= index of the event that ends it)
    unit: dict | None = None   # the LP's units (lp_units): data 2^a, capacity 2^b, weight 2^e
    reduced: bool = False      # build_event_lp(reduced=True): merged and folded pairs
    col_key: np.ndarray | None = None   # names of columns / rows across LPs (warm starts)
    row_key: np.ndarray | None = None

    @property
    def data_exp(self) -> int:
        return int(self.unit["data_exp"]) if self.unit else 0

    @property
    def time_exp(self) -> int:
        """An LP time ``t'`` is ``t' 2^time_exp`` in the instance's time unit."""
        return int(self.unit["data_exp"] - self.unit["capacity_exp"]) if self.unit else 0

    @property
    def value_exp(self) -> int:
        """An LP objective ``v'`` is ``v' 2^value_exp`` in the instance's units."""
        u = self.unit
        return int(u["data_exp"] - u["capacity_exp"] + u["weight_exp"]) if u else 0

    def amounts_in_instance_units(self, x: np.ndarray) -> np.ndarray:
        """LP amounts (floats or exact Fractions) in the instance's data unit (exact)."""
        a = self.data_exp
        if a == 0:
            return x
        if np.asarray(x).dtype == object:
            f = Fraction(2) ** a
            out = np.empty(len(x), dtype=object)
            out[:] = [v * f for v in x]
            return out
        return np.ldexp(np.asarray(x, dtype=float), a)

    def value_in_instance_units(self, v):
        """An LP objective value (float or Fraction) in the instance's units (exact)."""
        e = self.value_exp
        if e == 0 or v is None:
            return v
        if isinstance(v, Fraction):
            return v * Fraction(2) ** e
        return math.ldexp(float(v), e)


def _event_arrays(pd: PairData, weight: np.ndarray, codes: Sequence[int],
                  num_prefix_releases: int = 0, block: Sequence[int] = ()):
    """Arrays describing the sequence ``[release groups 0..num_prefix_releases-1] + [block]
    + codes``; the block (if any) is one uncharged completion event of the coflows in it."""
    K = pd.instance.num_coflows
    ev_fixed, ev_weight = [], []
    done_ev = np.full(K, -1, dtype=np.int64)
    group_ev = np.full(pd.num_groups, -1, dtype=np.int64)
    n = 0
    for g in range(num_prefix_releases):
        ev_fixed.append(pd.group_time[g])
        ev_weight.append(0.0)
        group_ev[g] = n
        n += 1
    if len(block):
        ev_fixed.append(np.nan)
        ev_weight.append(0.0)
        done_ev[np.asarray(block, dtype=np.int64)] = n
        n += 1
    for c in codes:
        if c >= 0:
            if done_ev[c] >= 0:
                raise InvalidParameterError(f"coflow {c} completes twice in the event sequence")
            ev_fixed.append(np.nan)
            ev_weight.append(float(weight[c]))
            done_ev[c] = n
        else:
            g = -c - 1
            if group_ev[g] >= 0:
                raise InvalidParameterError(f"release time {pd.group_time[g]} appears twice")
            ev_fixed.append(pd.group_time[g])
            ev_weight.append(0.0)
            group_ev[g] = n
        n += 1
    missing = np.flatnonzero(done_ev < 0)
    if missing.size:
        raise InvalidParameterError(f"the event sequence does not complete coflow(s) "
                                    f"{missing.tolist()}")
    if np.any(group_ev < 0):
        g = int(np.flatnonzero(group_ev < 0)[0])
        raise InvalidParameterError(f"the event sequence omits the release at "
                                    f"{pd.group_time[g]}")
    cg = pd.coflow_group
    rel_ev = np.full(K, -1, dtype=np.int64)
    rel_ev[cg >= 0] = group_ev[cg[cg >= 0]]
    bad = np.flatnonzero(rel_ev >= done_ev)
    if bad.size:
        raise InvalidParameterError(f"coflow {int(bad[0])} completes before its release event")
    return (np.asarray(ev_fixed, dtype=float), np.asarray(ev_weight, dtype=float), rel_ev,
            done_ev)


def build_event_lp(pd: PairData, codes: Sequence[int], *, weight: np.ndarray | None = None,
                   num_prefix_releases: int = 0, block: Sequence[int] = (),
                   reduced: bool = False, block_charge: tuple[float, float] | None = None
                   ) -> EventLP:
    """Build the event LP (formulations/completion-order-lp.md) as sparse matrices.

    Columns: the event times ``t_0..t_{N-1}``, then the amounts ``x_{j,n}`` of each pair ``j``
    in each interval ``n`` it may use.  Rows: ``t_n - t_{n-1} >= 0``; one capacity row per
    (interval, resource) that carries some amount (an amount enters the row of every resource
    of its pair's path); one demand row per pair.  The numbers are in the LP units of
    :func:`lp_units` (exact powers of two times the instance's).  All data are exact
    floats (capacities, release times, weights) except the merged pair sizes, whose exact
    values go to ``LinearProgram.exact`` when their float sums are rounded.

    Parameters
    ----------
    pd : PairData
    codes : sequence of int
        The events after the prefix (see the module docstring).
    weight : ndarray, optional
        Objective weight per coflow (default the instance's weights).
    num_prefix_releases : int
        Release groups ``0 .. num_prefix_releases-1`` come first, in time order.
    block : sequence of int
        Coflows that complete (uncharged) at one event after those releases.
    reduced : bool
        Build the smaller LP with the same optimum that a branch-and-bound node needs
        (formulations/completion-order-lp.md, "Reduced node LPs"): the block's pairs with one
        path and one release group are merged into one pair (nothing orders them: they all
        complete at the block event), and a pair that may use a single interval is not a
        column: its whole size is a constant load in that interval's capacity rows.  Its
        amounts are then not per pair (``EventLP.reduced``): no schedule is rebuilt from it.

    Raises
    ------
    InvalidParameterError
        If the sequence misses or repeats an event, or completes a coflow before its release.
    """
    inst = pd.instance
    w = inst.weight if weight is None else np.asarray(weight, dtype=float)
    ev_fixed, ev_weight, rel_ev, done_ev = _event_arrays(pd, w, codes, num_prefix_releases,
                                                         block)
    N = ev_fixed.size
    P = inst.num_ports
    coflow, size_in, ex, res_ptr, res = (pd.coflow, pd.size, pd.groups.size_exact, pd.res_ptr,
                                         pd.res)
    pair_key = None
    if reduced and len(block):
        coflow, size_in, ex, res_ptr, res, pair_key = _merged_block_pairs(pd, done_ev,
                                                                          num_prefix_releases)
    J = size_in.size
    first = rel_ev[coflow] + 1             # first interval a pair may use
    cnt = done_ev[coflow] - rel_ev[coflow]
    # a pair with a single interval has its amount fixed (= its size): with ``reduced`` it is
    # a constant load, not a column
    folded = np.flatnonzero(cnt == 1) if reduced else np.zeros(0, dtype=np.int64)
    kept = np.flatnonzero(cnt != 1) if reduced else np.arange(J)
    xk = np.repeat(np.arange(kept.size), cnt[kept])   # demand row (kept pair) of each column
    xj = kept[xk]
    xn = concat_ranges(first[kept], cnt[kept])
    X = xj.size
    xcol = N + np.arange(X)
    # the LP's units (lp_units): every number below is the instance's times a power of two
    unit = pd.unit or {"data_exp": 0, "capacity_exp": 0, "weight_exp": 0}
    a, b, e = unit["data_exp"], unit["capacity_exp"], unit["weight_exp"]
    size = np.ldexp(size_in, -a) if a else size_in
    if ex is not None and a:
        scale = Fraction(2) ** -a
        ex = np.asarray([v * scale for v in ex], dtype=object)
    # capacity rows: one per (interval, resource) that carries some amount; the amount column
    # of a pair enters the row of every resource of its path (ports src, dst on a big switch)
    per_pos = _resource_columns(res_ptr, res, xj, pd.path_len)
    keys = np.concatenate([xn[sel] * P + r for sel, r in per_pos]) if per_pos else \
        np.zeros(0, dtype=np.int64)
    fper = _resource_columns(res_ptr, res, folded, pd.path_len)
    fkeys = np.concatenate([first[folded[sel]] * P + r for sel, r in fper]) if fper else \
        np.zeros(0, dtype=np.int64)
    ukeys, kinv = np.unique(np.concatenate([keys, fkeys]), return_inverse=True)
    kinv = kinv.ravel()
    kinv, finv = kinv[:keys.size], kinv[keys.size:]
    R = ukeys.size
    kn, kp = ukeys // P, ukeys % P
    load, load_ex = np.zeros(R), None
    if folded.size:
        fpair = np.concatenate([folded[sel] for sel, _ in fper])
        if ex is None:
            if pd.sums_exact:
                # exact_group_sums' own answer, known in advance (PairData.sums_exact)
                load = np.bincount(finv, weights=size[fpair], minlength=R).astype(float)
            else:
                load, load_ex = exact_group_sums(size[fpair], finv, R)
        else:
            load = np.bincount(finv, weights=size[fpair], minlength=R).astype(float)
            load_ex = np.full(R, Fraction(0), dtype=object)
            for i, j in zip(finv.tolist(), fpair.tolist()):
                load_ex[i] += ex[j]
    cap = inst.capacity[kp]
    if b:
        cap = np.ldexp(cap, -b)
    if b - a:
        ev_lp = np.ldexp(ev_fixed, b - a)
        horizon = math.ldexp(pd.horizon, b - a)
    else:
        ev_lp, horizon = ev_fixed, pd.horizon
    if block_charge is not None and len(block):
        # the block event charged (weight, earliest time): proofs/bnb-block-charge.md
        ev_weight = ev_weight.copy()
        ev_weight[num_prefix_releases] = float(block_charge[0])
    ev_weight_lp = np.ldexp(ev_weight, -e) if e else ev_weight
    r_ord = N - 1
    has_prev = kn >= 1
    rows = np.concatenate([
        np.arange(N - 1), np.arange(N - 1),                       # t_n - t_{n-1} >= 0
        r_ord + kinv, r_ord + np.arange(R), r_ord + np.flatnonzero(has_prev),  # capacity
        r_ord + R + xk])                                          # demand
    cols = np.concatenate([
        np.arange(1, N), np.arange(N - 1),
        *[xcol[sel] for sel, _ in per_pos], kn, kn[has_prev] - 1,
        xcol])
    vals = np.concatenate([
        np.ones(N - 1), -np.ones(N - 1),
        np.ones(keys.size), -cap, cap[has_prev],
        np.ones(X)])
    A = _csr(vals, rows, cols, (r_ord + R + kept.size, N + X))
    size_k = size[kept]
    row_lo = np.concatenate([np.zeros(N - 1), np.full(R, -np.inf), size_k])
    row_hi = np.concatenate([np.full(N - 1, np.inf), 0.0 - load, size_k])
    fixed = ~np.isnan(ev_lp)
    col_lo = np.concatenate([np.where(fixed, ev_lp, 0.0), np.zeros(X)])
    if block_charge is not None and len(block):
        t_lo = float(block_charge[1])
        col_lo[num_prefix_releases] = math.ldexp(t_lo, b - a) if b - a else t_lo
    col_hi = np.concatenate([np.where(fixed, ev_lp, horizon), size[xj]])
    c = np.concatenate([ev_weight_lp, np.zeros(X)])
    exact: dict[str, Any] = {}
    if ex is not None or load_ex is not None:
        # every finite entry gets its exact value (LinearProgram.exact_value reads entries
        # directly); None only where the bound is infinite and never multiplied
        ex_all = ex if ex is not None else _exact_entries(size)
        hi_head = _exact_entries(row_hi[:r_ord + R])
        if load_ex is not None:
            hi_head[r_ord:] = [-v for v in load_ex]
        exact["row_lo"] = np.concatenate([_exact_entries(row_lo[:r_ord + R]), ex_all[kept]])
        exact["row_hi"] = np.concatenate([hi_head, ex_all[kept]])
        exact["col_hi"] = np.concatenate([_exact_entries(col_hi[:N]), ex_all[xj]])
    # names of the columns and rows that mean the same thing in another event LP of this
    # instance (a warm start maps an optimal basis through them): an event by its code, a
    # pair by its key (its index, or its merged group), an amount by (pair, interval's end
    # event), a capacity row by (interval's end event, resource), a demand row by its pair
    G, E = pd.num_groups, inst.num_coflows + pd.num_groups + 2
    ev_id = np.concatenate([np.arange(num_prefix_releases) * -1 - 1,
                            [-(G + 2)] if len(block) else [],
                            np.asarray(codes, dtype=np.int64)]).astype(np.int64) + G + 2
    if pair_key is None:
        pair_key = np.arange(J, dtype=np.int64)
    col_key = np.concatenate([-(ev_id + 1), pair_key[xj] * E + ev_id[xn]])
    row_key = np.concatenate([ev_id[1:], E + ev_id[kn] * P + kp,
                              E + E * P + pair_key[kept]])
    lp = LinearProgram("event-lp", c=c, A=A, row_lo=row_lo, row_hi=row_hi, col_lo=col_lo,
                       col_hi=col_hi, exact=exact,
                       col_blocks={"t": (0, N, (N,)), "x": (N, N + X, (X,))},
                       meta={"events": N, "pairs": J, "horizon": pd.horizon,
                             "unit": dict(unit), "reduced": bool(reduced),
                             "block_event": num_prefix_releases if len(block) else None})
    return EventLP(lp=lp, num_events=N, ev_fixed=ev_fixed, ev_weight=ev_weight,
                   rel_ev=rel_ev, done_ev=done_ev, x_pair=xj, x_interval=xn, unit=dict(unit),
                   reduced=bool(reduced), col_key=col_key, row_key=row_key)


#: :func:`_merged_block_pairs` keeps at most this many blocks' pairs (then starts again)...
MERGE_CACHE_BLOCKS = 4096
#: ... and at most this many pairs over all its blocks.
MERGE_CACHE_PAIRS = 2_000_000


def _csr(vals: np.ndarray, rows: np.ndarray, cols: np.ndarray, shape: tuple[int, int]):
    """``scipy.sparse.csr_matrix((vals, (rows, cols)), shape=shape)``, the same arrays
    (indices sorted in each row, int32 indices) built directly in half the time when no
    entry repeats (the event LP's never do; a repeat goes through scipy, which sums it)."""
    import scipy.sparse as sp  # lazily: ~0.1 s of import, paid only where a matrix is built
    key = rows.astype(np.int64) * shape[1] + cols
    order = np.argsort(key, kind="stable")
    ks = key[order]
    if max(shape[0] + 1, shape[1], ks.size) >= 2 ** 31 or (
            ks.size > 1 and bool(np.any(ks[1:] == ks[:-1]))):
        return sp.csr_matrix((vals, (rows, cols)), shape=shape)
    indptr = np.zeros(shape[0] + 1, dtype=np.int32)
    np.cumsum(np.bincount(rows, minlength=shape[0]), out=indptr[1:])
    A = sp.csr_matrix((np.asarray(vals, dtype=float)[order], cols[order].astype(np.int32),
                       indptr), shape=shape)
    A.has_canonical_format = True
    return A


def _merged_block_pairs(pd: PairData, done_ev: np.ndarray, block_event: int):
    """:func:`_merge_block_pairs`, memoised by the set of the block's coflows (the result
    depends on nothing else: a branch and bound asks for the same block at many nodes); the
    arrays are shared between calls and made read-only."""
    key = (done_ev == block_event).tobytes()
    cache = pd.merge_cache
    got = cache.get(key)
    if got is None:
        got = _merge_block_pairs(pd, done_ev, block_event)
        for a in got:
            if isinstance(a, np.ndarray):
                a.flags.writeable = False
        if len(cache) >= MERGE_CACHE_BLOCKS or \
                (len(cache) + 1) * got[1].size > MERGE_CACHE_PAIRS:
            cache.clear()
        cache[key] = got
    return got


def _merge_block_pairs(pd: PairData, done_ev: np.ndarray, block_event: int):
    """The pairs of a reduced node LP: every pair outside the block as it is, then one pair
    per (release group, path) of the block's pairs with their sizes summed (exactly: the
    exact sums when the float sums may be rounded).  Each merged pair takes the coflow of its
    first member: all members share its release event and its completion (the block) event,
    so its intervals are theirs.  Returns ``(coflow, size, size_exact, res_ptr, res, key)``,
    ``key`` naming each pair across LPs (:attr:`EventLP.col_key`): a kept pair by its index,
    a merged one by ``J +`` the number of its (release group, path)."""
    coflow = pd.coflow
    in_block = done_ev[coflow] == block_event
    bj, oj = np.flatnonzero(in_block), np.flatnonzero(~in_block)
    key = (pd.coflow_group[coflow[bj]] + 1) + (pd.num_groups + 1) * pd.path_id[bj]
    ukey, first, inv = np.unique(key, return_index=True, return_inverse=True)
    inv = inv.ravel()
    rep = bj[first]
    ex0 = pd.groups.size_exact
    if ex0 is None:
        msize, mex = exact_group_sums(pd.size[bj], inv, rep.size)
        if mex is not None:
            ex = np.concatenate([_exact_entries(pd.size[oj]), mex])
        else:
            ex = None
    else:
        msize = np.bincount(inv, weights=pd.size[bj], minlength=rep.size).astype(float)
        mex = np.full(rep.size, Fraction(0), dtype=object)
        for i, j in zip(inv.tolist(), bj.tolist()):
            mex[i] += ex0[j]
        ex = np.concatenate([ex0[oj], mex])
    pairs = np.concatenate([oj, rep])
    lens = np.diff(pd.res_ptr)[pairs]
    res_ptr = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    res = pd.res[concat_ranges(pd.res_ptr[pairs], lens)]
    keys = np.concatenate([oj, coflow.size + ukey])
    return (np.concatenate([coflow[oj], coflow[rep]]), np.concatenate([pd.size[oj], msize]),
            ex, res_ptr, res, keys)


def _exact_entries(values: np.ndarray) -> np.ndarray:
    out = np.empty(values.size, dtype=object)
    out[:] = [Fraction(float(v)) if math.isfinite(v) else None for v in values.tolist()]
    return out


@dataclass
class EventLPSolution:
    """An event LP solved by HiGHS.

    ``value`` is HiGHS's objective (float).  ``bound_exact`` is a proven lower bound on the LP
    optimum (the exact dual certificate of :func:`~coflowopt.formulations.certificates.certify_lp`
    at HiGHS's duals; every column is bounded, so any dual proves a bound) and ``bound`` the
    largest float below it; ``-inf`` when no certificate was obtained.  ``status`` is the mapped
    HiGHS status; ``infeasible_proven`` is True when a Farkas ray was checked exactly.
    """

    lp: EventLP
    status: str
    value: float | None  # in the instance's units (as bound, bound_exact, times, amounts)
    bound: float
    bound_exact: Fraction | None
    times: np.ndarray | None
    amounts: np.ndarray | None
    infeasible_proven: bool = False
    solution: LPSolution | None = None

    def warm(self, model: HighsModel) -> tuple | None:
        """What :func:`solve_event_lp` needs to warm-start another event LP from this optimum
        (the keys and the basis, small unlike the solution), read from ``model``, which must
        be the model that solved this LP and has not solved another since; None without a
        basis.  The basis is HiGHS's own copy (microseconds); its statuses become Python
        lists (about a fifth of a solve) only when a warm start first uses them."""
        if self.status != "optimal" or self.lp.col_key is None:
            return None
        hb = model.h.getBasis()
        if not hb.valid:
            return None
        return (self.lp.col_key, self.lp.row_key, _Basis(hb))


def with_block_floor(sol: EventLPSolution, t: Fraction) -> EventLPSolution:
    """``sol`` for the same event LP with the block event's lower bound ``t_B >= t`` held
    exactly (``t`` in the instance's time unit): the float LP keeps its own bound (a charged
    LP's ``L``, deflated below ``M(U)`` when ``M(U)`` is fractional), the exact data read by
    :func:`~coflowopt.formulations.certificates.certify_lp` and
    :func:`~coflowopt.exact.exact_lp.exact_lp_solution` say ``t``.  ``bound_exact`` is
    re-certified at the same duals.  For the exact proof of a charged node
    (proofs/bnb-block-charge.md: any ``L <= M(U)`` is sound, ``t = M(U)`` exactly the
    tightest); the caller checks ``t <= M(U)``."""
    from dataclasses import replace
    ev = sol.lp
    blk = ev.lp.meta.get("block_event")
    if blk is None:
        raise InvalidParameterError("with_block_floor: the event LP has no block event")
    lo = ev.lp.exact.get("col_lo")
    lo = np.full(ev.lp.num_cols, None, dtype=object) if lo is None else lo.copy()
    lo[blk] = Fraction(t) * Fraction(2) ** -ev.time_exp      # the LP's time unit
    lp = replace(ev.lp, exact={**ev.lp.exact, "col_lo": lo})
    ev2 = replace(ev, lp=lp)
    bound_ex = None
    y = None if sol.solution is None else sol.solution.row_dual
    if y is not None:
        chk = certify_lp(lp, y)
        if chk.ok:
            bound_ex = ev2.value_in_instance_units(chk.value)
    return replace(sol, lp=ev2, bound_exact=bound_ex,
                   bound=-math.inf if bound_ex is None else float_down(bound_ex))


def snapped_dual_bound(sol: EventLPSolution, max_denominator: int = 10 ** 6
                       ) -> Fraction | None:
    """The bound proved, in exact arithmetic, by HiGHS's row duals rounded to the nearest
    fractions with denominators up to ``max_denominator`` (instance units), or None when those
    multipliers are not exactly dual feasible.

    On integral data the optimal duals are fractions with small denominators: rounding the
    float duals to them often proves the LP optimum itself, where the float duals (repaired
    into feasibility) prove a value a few ulps below it.  A cheap first try before the exact
    LP solve (:func:`~coflowopt.exact.exact_lp.exact_lp_solution`).
    """
    y = None if sol.solution is None else sol.solution.row_dual
    if y is None or not np.all(np.isfinite(y)):
        return None
    ys = np.empty(y.size, dtype=object)
    ys[:] = [Fraction(float(v)).limit_denominator(max_denominator) for v in y.tolist()]
    chk = certify_lp(sol.lp.lp, ys, repair=False)
    if not chk.ok:
        return None
    return sol.lp.value_in_instance_units(chk.value)


class _Basis:
    """A basis read from HiGHS (a ``HighsBasis``, copied out of the solver) and its status
    lists, converted once, on first use (:meth:`HighsModel.basis`'s form)."""

    __slots__ = ("hb", "lists")

    def __init__(self, hb):
        self.hb, self.lists = hb, None

    def statuses(self) -> tuple[list, list]:
        if self.lists is None:
            self.lists, self.hb = (self.hb.col_status, self.hb.row_status), None
        return self.lists


def warm_basis(warm: tuple, dst: EventLP) -> tuple[list, list]:
    """Carry an optimal basis of another event LP of the instance (``warm``, from
    :meth:`EventLPSolution.warm`) over to ``dst``: every column and row of ``dst`` that the
    other LP has (same key) keeps its status, new columns start at their lower bound and new
    rows basic (their slack).  The result may have too many or too few basic entries: it is
    an alien basis, completed by HiGHS."""
    import highspy
    S = highspy.HighsBasisStatus
    col_key, row_key, basis = warm
    cs, rs = basis.statuses()

    def carried(dst_key, src_key, src, new):
        out = np.full(dst_key.size, new, dtype=object)
        _, i_dst, i_src = np.intersect1d(dst_key, src_key, assume_unique=True,
                                         return_indices=True)
        if i_src.size:
            # the statuses picked in C (itemgetter) and placed by numpy: half the time of a
            # Python loop over the entries
            got = operator.itemgetter(*i_src.tolist())(src)
            out[i_dst] = np.fromiter(got if i_src.size > 1 else (got,), dtype=object,
                                     count=i_src.size)
        return out.tolist()

    return carried(dst.col_key, col_key, cs, S.kLower), \
        carried(dst.row_key, row_key, rs, S.kBasic)


#: HiGHS options for event LPs: dual simplex, no presolve (the LPs are tiny), tight tolerances
#: (the certified bound is within the dual infeasibility x the column widths of the LP value).
EVENT_LP_OPTIONS = {"presolve": "off", "primal_feasibility_tolerance": 1e-10,
                    "dual_feasibility_tolerance": 1e-10}


def new_event_lp_solver() -> HighsModel:
    """A :class:`~coflowopt.formulations.highs.HighsModel` configured for event LPs (reuse it
    across many solves: each :func:`solve_event_lp` loads its model into it)."""
    return HighsModel(algorithm="simplex", options=EVENT_LP_OPTIONS)


def _proves_infeasible(lp: LinearProgram, ray) -> bool:
    """Exact check of a Farkas ray: the certified bound of the zero objective is > 0."""
    if ray is None or not np.all(np.isfinite(ray)):
        return False
    zero = LinearProgram("event-lp-feasibility", c=np.zeros(lp.num_cols), A=lp.A,
                         row_lo=lp.row_lo, row_hi=lp.row_hi, col_lo=lp.col_lo,
                         col_hi=lp.col_hi, exact=lp.exact)
    for y in (np.asarray(ray, dtype=float), -np.asarray(ray, dtype=float)):
        chk = certify_lp(zero, y)
        if chk.ok and chk.value > 0:
            return True
    return False


def _load_event_lp(hm: HighsModel, lp: LinearProgram) -> None:
    """Pass an event LP to HiGHS through the array form of ``passModel`` (one call, no
    ``HighsLp`` object: about 0.15 ms where :meth:`HighsModel.load` takes 0.7-1.5 ms on a
    1,300-column node LP, measured 2026-11-27); the same model.  HiGHS wants the row starts
    without the final entry and one integrality code per column (0: continuous, an LP)."""
    import scipy.sparse as sp  # lazily (see above)
    A = lp.A
    if not isinstance(A, sp.csr_matrix) or lp.is_mip:
        hm.load(lp)
        return
    import highspy
    st = hm.h.passModel(int(lp.num_cols), int(lp.num_rows), int(A.nnz),
                        int(highspy.MatrixFormat.kRowwise), int(highspy.ObjSense.kMinimize),
                        float(lp.offset), np.asarray(lp.c, dtype=float),
                        np.asarray(lp.col_lo, dtype=float), np.asarray(lp.col_hi, dtype=float),
                        np.asarray(lp.row_lo, dtype=float), np.asarray(lp.row_hi, dtype=float),
                        np.asarray(A.indptr[:-1], dtype=np.int32),
                        np.asarray(A.indices, dtype=np.int32),
                        np.asarray(A.data, dtype=float),
                        np.zeros(lp.num_cols, dtype=np.int32))
    if st == highspy.HighsStatus.kError:
        hm.load(lp)             # HiGHS refused the arrays: the generic path says why
        return
    hm.num_cols, hm.num_rows, hm.is_mip = lp.num_cols, lp.num_rows, False


def solve_event_lp(lp: EventLP, *, model: HighsModel | None = None,
                   time_limit: float | None = None,
                   warm_start: tuple | None = None) -> EventLPSolution:
    """Solve an event LP and certify its bound (or its infeasibility) exactly.

    ``warm_start``: :meth:`EventLPSolution.warm` of an optimal solution of another event LP
    of the instance; its basis is carried over through the columns' and rows' keys
    (:func:`warm_basis`) and the dual simplex starts there.  Only the start changes: the
    answer is this LP's optimum, certified the same way.
    """
    hm = model if model is not None else new_event_lp_solver()
    _load_event_lp(hm, lp.lp)
    if warm_start is not None:
        hm.set_basis(*warm_basis(warm_start, lp))
    sol = hm.run(time_limit=time_limit)
    N = lp.num_events
    if sol.status == "optimal" and sol.x is not None:
        bound, bound_ex = -math.inf, None
        if sol.row_dual is not None:
            chk = certify_lp(lp.lp, sol.row_dual)
            if chk.ok:
                # certified in the LP's units; x 2^value_exp is exact
                bound_ex = lp.value_in_instance_units(chk.value)
                bound = float_down(bound_ex)
        times = sol.x[:N].copy()
        if lp.time_exp:
            times = np.ldexp(times, lp.time_exp)
        return EventLPSolution(lp=lp, status="optimal",
                               value=lp.value_in_instance_units(sol.objective), bound=bound,
                               bound_exact=bound_ex, times=times,
                               amounts=lp.amounts_in_instance_units(sol.x[N:].copy()),
                               solution=sol)
    if sol.status in ("infeasible", "unbounded_or_infeasible"):
        ray = None
        try:
            st, has, vals = hm.h.getDualRay()
            if has:
                ray = np.asarray(vals, dtype=float)
        except Exception:  # noqa: BLE001 - no ray from this highspy: no proof, the node stays
            ray = None
        proven = _proves_infeasible(lp.lp, ray)
        return EventLPSolution(lp=lp, status="infeasible", value=None,
                               bound=math.inf if proven else -math.inf, bound_exact=None,
                               times=None, amounts=None, infeasible_proven=proven, solution=sol)
    return EventLPSolution(lp=lp, status=sol.status, value=None, bound=-math.inf,
                           bound_exact=None, times=None, amounts=None, solution=sol)


# ----------------------------------------------------------------------------- schedules
def _snap(v: float, max_den: int | None) -> Fraction:
    f = Fraction(v)
    return f.limit_denominator(max_den) if max_den else f


def exact_schedule_from_amounts(pd: PairData, lp: EventLP, amounts: np.ndarray, *,
                                max_denominator: int | None = None,
                                meta: dict | None = None) -> Schedule:
    """Rebuild an exactly feasible schedule from an event LP's amounts (Fractions).

    1. amounts below :data:`AMOUNT_RTOL` x size are dropped, the rest clipped at 0 (and, with
       ``max_denominator``, rounded to the nearest fraction with that denominator bound), then
       each pair's amounts are scaled to sum to exactly its (exact) size;
    2. interval ``n`` gets the length its busiest resource needs, ``max_p load_{n,p} / c_p``
       (a pair's amount loads every resource of its path);
       a release event is never earlier than its release time;
    3. rates are amount / length, split over a pair's flows in proportion to their sizes.

    Every rule of the model then holds exactly, whatever the LP's rounding errors; each event
    time is at most the LP's (up to the rescaling in step 1), so the cost is the LP value up to
    rounding (proofs/completion-order-lp-exact.md, Lemma 3).
    """
    if lp.reduced:
        raise ValueError("a reduced event LP (build_event_lp(reduced=True)) merges and folds "
                         "pairs: its amounts do not give a schedule")
    inst = pd.instance
    J = pd.size.size
    N = lp.num_events
    a = np.asarray(amounts)
    if a.dtype == object:
        # exact amounts (an exact LP vertex): used as they are
        keep = np.asarray([v > 0 for v in a.tolist()], dtype=bool)
        amt = [Fraction(v) for v in a[keep].tolist()]
    else:
        a = a.astype(float)
        keep = a > AMOUNT_RTOL * pd.size[lp.x_pair]
        # snapped as fractions of their pair's size: an absolute snap would round every
        # amount of a 1e-9-scaled instance to 0 (the problem is scale invariant, so is this)
        rel = a[keep] / pd.size[lp.x_pair[keep]]
        amt = [_snap(float(r), max_denominator) * pd.exact_size(int(j))
               for r, j in zip(rel, lp.x_pair[keep].tolist())] if max_denominator else \
            [Fraction(float(v)) for v in a[keep]]
    xj, xn = lp.x_pair[keep], lp.x_interval[keep]
    tot = [Fraction(0)] * J
    for j, v in zip(xj.tolist(), amt):
        tot[j] += v
    size = [pd.exact_size(j) for j in range(J)]
    for j in range(J):
        if tot[j] <= 0:
            raise SolverError(f"the LP sends nothing of flow pair {j}; cannot build a schedule")
    amt = [v * size[j] / tot[j] for j, v in zip(xj.tolist(), amt)]
    cap = [Fraction(float(c)) for c in inst.capacity]
    load: dict[tuple[int, int], Fraction] = {}
    for j, n, v in zip(xj.tolist(), xn.tolist(), amt):
        for p in pd.pair_resources(j):
            load[(n, p)] = load.get((n, p), Fraction(0)) + v
    need = [Fraction(0)] * N
    for (n, p), v in load.items():
        q = v / cap[p]
        if q > need[n]:
            need[n] = q
    T = []
    t = Fraction(0)
    for n in range(N):
        t = t + need[n]
        if not math.isnan(lp.ev_fixed[n]):
            t = max(t, Fraction(float(lp.ev_fixed[n])))
        T.append(t)
    g = pd.groups
    fl, st, en, rt = [], [], [], []
    for j, n, v in zip(xj.tolist(), xn.tolist(), amt):
        if v == 0:
            continue
        s = T[n - 1] if n > 0 else Fraction(0)
        e = T[n]
        rate = v / (e - s)
        for f in g.flows[g.ptr[j]:g.ptr[j + 1]].tolist():
            fl.append(f)
            st.append(s)
            en.append(e)
            rt.append(rate * Fraction(float(inst.flow_size[f])) / size[j])
    sched = Schedule(np.asarray(fl, dtype=np.int64), np.asarray(st, dtype=object),
                     np.asarray(en, dtype=object), np.asarray(rt, dtype=object),
                     meta=dict(meta or {}))
    return sched.merged()


def float_schedule_from_amounts(pd: PairData, lp: EventLP, amounts: np.ndarray, *,
                                meta: dict | None = None) -> Schedule:
    """:func:`exact_schedule_from_amounts` in float arithmetic, vectorised (large LPs).

    The same three steps; the result is feasible up to rounding (each pair's amounts rescaled
    to its size, each interval as long as its busiest resource needs), which the float verifier's
    tolerances cover (proofs/float-verifier-soundness.md).  About a second for 200,000 flows,
    where the Fraction version takes a minute.
    """
    if lp.reduced:
        raise ValueError("a reduced event LP (build_event_lp(reduced=True)) merges and folds "
                         "pairs: its amounts do not give a schedule")
    inst = pd.instance
    J = pd.size.size
    N = lp.num_events
    a = np.asarray(amounts, dtype=float)
    keep = a > AMOUNT_RTOL * pd.size[lp.x_pair]
    xj, xn, amt = lp.x_pair[keep], lp.x_interval[keep], a[keep]
    tot = np.bincount(xj, weights=amt, minlength=J)
    if np.any(tot <= 0):
        raise SolverError(f"the LP sends nothing of flow pair {int(np.argmin(tot))}; cannot "
                          "build a schedule")
    amt = amt * (pd.size[xj] / tot[xj])
    P = inst.capacity.size
    load = np.zeros(N * P)
    for sel, r in pd.resource_columns(xj):   # src then dst on a big switch
        np.add.at(load, xn[sel] * P + r, amt[sel])
    need = (load.reshape(N, P) / inst.capacity[None, :]).max(axis=1)
    T = np.empty(N)
    t = 0.0
    for n in range(N):  # N events: a short loop
        t = t + float(need[n])
        if not math.isnan(lp.ev_fixed[n]):
            t = max(t, float(lp.ev_fixed[n]))
        T[n] = t
    start = np.where(xn > 0, T[np.maximum(xn - 1, 0)], 0.0)
    end = T[xn]
    ok = end > start
    xj, start, end, amt = xj[ok], start[ok], end[ok], amt[ok]
    g = pd.groups
    counts = np.diff(g.ptr)[xj]
    piece = np.repeat(np.arange(xj.size), counts)
    # the flows of pair xj[i]: g.flows[g.ptr[j]:g.ptr[j+1]], gathered for every piece
    flows = g.flows[concat_ranges(g.ptr[xj], counts)]
    rate = amt[piece] / (end - start)[piece] * inst.flow_size[flows] / pd.size[xj][piece]
    sched = Schedule(flows.astype(np.int64), start[piece], end[piece], rate,
                     meta=dict(meta or {}))
    return sched.merged()


def verified_schedule(pd: PairData, sol: EventLPSolution, *, verify_mode: str = "exact",
                      meta: dict | None = None, exact_vertex: bool = True):
    """The verified schedule of an optimal event-LP solution, built exactly by
    :func:`exact_schedule_from_amounts` from up to three candidates -- the exact LP vertex at
    HiGHS's optimal basis (:func:`~.exact_lp.exact_lp_solution`, when ``exact_vertex``), the
    amounts snapped to denominators <= 10^6, and the raw float amounts -- of which the cheapest
    that the verifier accepts is returned (ties: the earlier candidate).

    Returns
    -------
    (Schedule, VerificationReport) or (None, None)
        The schedule is exact (Fractions) for ``verify_mode="exact"``, else converted to float.
    """
    from ..verify import verify_schedule
    from .exact_lp import exact_lp_solution

    candidates: list[tuple[np.ndarray, int | None]] = []
    if exact_vertex:
        ex = exact_lp_solution(sol.lp.lp)
        if ex is not None:
            candidates.append((sol.lp.amounts_in_instance_units(ex.x[sol.lp.num_events:]),
                               None))
    candidates += [(sol.amounts, 10 ** 6), (sol.amounts, None)]
    best = (None, None)
    if verify_mode == "float" and sol.lp.lp.num_cols > FLOAT_REBUILD_COLS:
        # float verification of a large LP: the float rebuild is the same schedule up to
        # rounding, without the Fractions (a minute on 200,000 flows)
        sched = float_schedule_from_amounts(pd, sol.lp, sol.amounts, meta=meta)
        rep = verify_schedule(pd.instance, sched, mode="float")
        if rep.ok:
            return sched, rep
    for amounts, max_den in candidates:
        sched = exact_schedule_from_amounts(pd, sol.lp, amounts, max_denominator=max_den,
                                            meta=meta)
        if verify_mode != "exact":
            sched = sched.to_float()
        rep = verify_schedule(pd.instance, sched, mode=verify_mode)
        if rep.ok and (best[1] is None or rep.weighted_completion_time
                       < best[1].weighted_completion_time):
            best = (sched, rep)
    return best


# ----------------------------------------------------------------------------- public API
def order_lp(instance: Instance, events: Sequence, *, verify_mode: str = "exact",
             time_limit: float | None = None):
    """The best schedule whose events (completions and releases) occur in the given sequence.

    Parameters
    ----------
    instance : Instance
    events : sequence
        ``("complete", k)`` / ``("release", time)`` items or bare coflow indices.  A bare
        completion order on an instance with release dates is completed with its best
        interleaving of the releases (:func:`best_interleaving`).
    verify_mode : {"exact", "float"}
        ``exact`` (default): the schedule is built and verified in rational arithmetic.
    time_limit : float, optional

    Returns
    -------
    Result
        Kind ``feasible``: the verified schedule, optimal among the schedules whose events come
        in this sequence (up to the LP's tolerance, bounded by ``extra["order_lp_bound"]``, a
        certified lower bound on that restricted optimum); kind ``None`` with status
        ``infeasible`` when no schedule has this event sequence.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1), (0, 1, 1)]),
    ...                               Coflow("B", [(1, 0, 1), (1, 1, 1)])])
    >>> res = order_lp(inst, [0, 1])
    >>> res.kind, res.value, [str(c) for c in res.report.coflow_completion]
    ('feasible', Fraction(4, 1), ['2', '2'])
    """
    from ..results import Result

    if verify_mode not in ("exact", "float"):
        raise InvalidParameterError(f"verify_mode must be 'exact' or 'float', got "
                                    f"{verify_mode!r}")
    t0 = time.perf_counter()
    pd = pair_data(instance)
    codes = list(events_to_codes(pd, events))
    if pd.num_groups and not any(c < 0 for c in codes):
        codes = list(best_interleaving(pd, [c for c in codes if c >= 0])[0])
    lp = build_event_lp(pd, codes)
    sol = solve_event_lp(lp, time_limit=time_limit)
    t1 = time.perf_counter()
    params = {"events": codes_to_events(pd, codes), "verify_mode": verify_mode}
    if sol.status != "optimal":
        why = ("no schedule has this event sequence (infeasibility "
               + ("proven by an exactly checked Farkas ray)" if sol.infeasible_proven
                  else "reported by HiGHS, not proven)")) if sol.status == "infeasible" \
            else f"HiGHS stopped with status {sol.status}"
        return Result(value=None, kind=None, objective="weighted_completion_time",
                      status=sol.status, algorithm="order-lp", params=params, message=why,
                      timings={"lp": t1 - t0})
    sched, rep = verified_schedule(pd, sol, verify_mode=verify_mode,
                                   meta={"algorithm": "order-lp"})
    t2 = time.perf_counter()
    extra = {"order_lp_value": sol.value, "order_lp_bound": sol.bound,
             "order_lp_bound_exact": None if sol.bound_exact is None else str(sol.bound_exact)}
    if rep is None:  # pragma: no cover - the rebuilt schedule is feasible by construction
        return Result(value=None, kind=None, objective="weighted_completion_time",
                      status="rejected", algorithm="order-lp", params=params, extra=extra,
                      message="the rebuilt schedule failed verification",
                      timings={"lp": t1 - t0, "verify": t2 - t1})
    return Result(value=rep.weighted_completion_time, kind="feasible",
                  objective="weighted_completion_time", status="verified",
                  algorithm="order-lp", params=params, schedule=sched, report=rep,
                  message=rep.summary(), extra=extra,
                  timings={"lp": t1 - t0, "verify": t2 - t1})


def best_interleaving(pd: PairData, order: Sequence[int], *, model: HighsModel | None = None
                      ) -> tuple[tuple[int, ...], EventLPSolution | None]:
    """The best way to interleave the release events with a fixed completion order.

    Enumerates the interleavings (each release group goes after the last coflow that completes
    before it; a group must precede the completions of its members), solving one LP each.
    Exponential in the number of release groups: meant for small instances and tests.

    Returns the best code sequence and its LP solution (``None`` if every one is infeasible).
    """
    from ..orderings.basic import validate_order
    order = validate_order(pd.instance, np.asarray(order, dtype=np.int64)).tolist()
    G = pd.num_groups
    if G == 0:
        lp = build_event_lp(pd, order)
        return tuple(order), solve_event_lp(lp, model=model)
    pos = {k: i for i, k in enumerate(order)}
    # group g must come before position min over its members; groups are in time order
    latest = [min(pos[int(k)] for k in pd.group_members(g)) for g in range(G)]
    best: tuple[tuple[int, ...], EventLPSolution | None] = (tuple(), None)
    h = model if model is not None else new_event_lp_solver()

    def rec(g: int, lo: int, slots: list[int]):
        nonlocal best
        if g == G:
            codes: list[int] = []
            for i, k in enumerate(order):
                codes.extend(-(gg + 1) for gg in range(G) if slots[gg] == i)
                codes.append(k)
            sol = solve_event_lp(build_event_lp(pd, codes), model=h)
            if sol.status == "optimal" and (best[1] is None or sol.value < best[1].value):
                best = (tuple(codes), sol)
            return
        for s in range(lo, latest[g] + 1):
            rec(g + 1, s, slots + [s])

    rec(0, 0, [])
    if best[1] is None:
        return tuple(order), None
    return best
