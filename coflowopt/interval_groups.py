"""``interval-groups``: coflows grouped by their LP-A mean completion time on a geometric grid,
each group realised as one block (Konig edge colouring on a big switch), in the integral
matching model.  A reconstruction (theory-frontier digest sections 4.2-4.3: "GROUP-DOUBLING",
Variant S, and the random-offset geometric grid), not Khuller and Purohit's algorithm (whose body
was not read).

Algorithm (``proofs/interval-groups.md`` proves the guarantee):

1. Solve LP-A (``lp="a"``, default) or LP-B (``lp="b"``) over unit slots
   (:mod:`coflowopt.bounds.integral_time_indexed`); ``Cbar_k = sum_t max(t, e_k) x[k,t]`` is
   coflow ``k``'s LP mean completion slot count (``LP = s sum_k w_k Cbar_k``).
2. Grid ``beta_l = a^(l + U)`` (ratio ``a`` in (1, 3], offset ``U`` in [0, 1)); group ``G_l =
   {k : beta_{l-1} < Cbar_k <= beta_l}``.  ``a = 2, U = 0`` are the digest's doubling groups
   ``tau_l = 2^(l-1)``.
3. Groups in increasing ``l``, one block each, back to back: block ``l`` starts at the first
   slot after the previous block and not before any of its coflows' first usable slot; on a big
   switch it holds the group's units in exactly ``max_q ceil(F_l(q) / c_q)`` slots (Konig:
   every port split into ``c_q`` copies, :func:`coflowopt.slotted_rounding.edge_colouring`); on
   resources (paths, where edge colouring does not apply) the group's flows are packed first-fit
   slot by slot in the order of ``Cbar`` (a per-slot greedy maximal allocation).
4. The grouping, hence the schedule, depends on ``U`` only through which grid point lies in
   which gap between the values ``Cbar_k``: the *breakpoints* are ``frac(log_a Cbar_k)``, at most
   ``K`` of them, and on each piece ``[p_i, p_{i+1})`` of [0, 1) the schedule is constant.  Every
   piece is evaluated once; with ``U`` uniform on [0, 1) the *exact expectation* is
   ``sum_pieces (p_{i+1} - p_i) cost(piece)`` (exact up to the float rounding of the logarithms
   that place the breakpoints), and the *best piece* is the cheapest.

Guarantee (``proofs/interval-groups.md``; ``LP`` = the value of the LP solution used, at most the
integral optimum; ``Lambda = 2`` on a big switch (Konig blocks), ``Lambda = 2L`` on paths of at
most ``L`` resources (greedy blocks)):

* every offset ``U``: ``C_k <= s Lambda beta_{l(k)} a / (a - 1) < s Lambda a^2 / (a - 1)
  Cbar_k``, so **ALG <= 8 LP on a big switch with a = 2** (any offset, in particular the
  deterministic doubling groups ``U = 0``), ``<= 8L LP`` on paths;
* ``U`` uniform: ``E[ALG] <= Lambda a / ln(a) LP`` (``4 / ln 2 = 5.771`` at ``a = 2``, ``2e =
  5.437`` at ``a = e``, on a big switch); the best piece is at most the expectation.

Release dates included (they need ``a <= Lambda + 1``, which ``a <= 3`` ensures).  Khuller and
Purohit's constants (8 and 3 + 2 sqrt 2 without releases, 12 with) are theirs; the figures above
are what ``proofs/interval-groups.md`` proves for this reconstruction.

References
----------
Theory-frontier digest (``../shared/reference/theory-frontier.md``) sections 4.2 (the load bound
from LP-A, GROUP-DOUBLING Variants S and W), 4.3 (random log-uniform offset: ``2a / ln a``),
1.1 (Konig's edge-colouring theorem); S. Khuller, M. Purohit, "Brief announcement: Improved
approximation algorithms for scheduling co-flows", SPAA 2016 (claims 8 and 3 + 2 sqrt 2 read,
algorithm not); Z. Qiu, C. Stein, Y. Zhong, SPAA 2015 (interval grouping, one BvN block per
group).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from .exceptions import InvalidParameterError
from .limits import check_integer
from .instance import Instance
from .registry import register
from .slotted import SlottedSchedule, integral_capacities
from .slotted_greedy import first_slots

__all__ = ["interval_groups", "interval_group_pieces", "GroupPieces", "lp_means",
           "group_indices", "offset_breakpoints", "group_blocks", "block_factor",
           "MAX_RATIO"]

#: The largest grid ratio ``a`` (the release step of the proof needs ``a <= Lambda + 1``).
MAX_RATIO = 3.0


def lp_means(X: np.ndarray, ready) -> list[Fraction]:
    """``Cbar_k = sum_t max(t, e_k) x[k,t]`` (slot counts, exact ``Fraction`` of the float CDFs
    ``X[k, t-1]``, ``t = 1..T``): the LP's mean completion slot count of every coflow, the
    per-coflow term of :func:`coflowopt.bounds.integral_time_indexed.cdf_value`.

    Examples
    --------
    >>> lp_means(np.array([[0.0, 0.5, 1.0], [1.0, 1.0, 1.0]]), [2, 1])
    [Fraction(5, 2), Fraction(1, 1)]
    """
    K, T = X.shape
    out = []
    for k in range(K):
        prev, tot = Fraction(0), Fraction(0)
        e = int(ready[k])
        for t, v in enumerate(X[k].tolist(), start=1):
            fv = Fraction(v)
            tot += max(t, e) * (fv - prev)
            prev = fv
        out.append(tot)
    return out


def _check_ratio(ratio) -> float:
    if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or \
            not (1.0 < float(ratio) <= MAX_RATIO):
        raise InvalidParameterError(f"ratio must be a number in (1, {MAX_RATIO:g}], got "
                                    f"{ratio!r}")
    return float(ratio)


def group_indices(cbar, ratio: float, offset: float) -> np.ndarray:
    """``l_k`` = the smallest integer ``l`` with ``ratio^(l + offset) >= Cbar_k`` (so
    ``beta_{l-1} < Cbar_k <= beta_l``), per coflow.

    Examples
    --------
    >>> group_indices([1, 2, 3, 4, 5], 2.0, 0.0).tolist()
    [0, 1, 2, 2, 3]
    """
    out = []
    for c in cbar:
        c = float(c)
        lv = math.log(c) / math.log(ratio) - offset
        lk = math.ceil(lv)
        # the float logarithm may land on the wrong side of a grid point: correct it
        while ratio ** (lk + offset) < c:
            lk += 1
        while ratio ** (lk - 1 + offset) >= c:
            lk -= 1
        out.append(lk)
    return np.asarray(out, dtype=np.int64)


def offset_breakpoints(cbar, ratio: float) -> np.ndarray:
    """The piece starts of the offset ``U`` in [0, 1): 0 and every ``frac(log_a Cbar_k)``,
    sorted and distinct (pieces ``[p_i, p_{i+1})``, the last ending at 1).

    Examples
    --------
    >>> offset_breakpoints([1, 2, 3], 2.0).round(4).tolist()
    [0.0, 0.585]
    """
    v = np.array([math.log(float(c)) / math.log(ratio) for c in cbar])
    fr = v - np.floor(v)
    fr[(fr < 1e-12) | (fr > 1 - 1e-12)] = 0.0     # a grid point on a value: the piece at 0
    return np.unique(np.r_[0.0, fr])


def block_factor(instance: Instance) -> int:
    """``Lambda``: a block of a group whose loads are at most ``c_q (2 beta - 1)`` takes at most
    ``Lambda beta`` slots: 2 on a big switch (Konig), ``2L`` on paths of at most ``L``
    resources (first-fit; ``proofs/interval-groups.md`` Lemma 2)."""
    if instance.is_big_switch:
        return 2
    L = int(np.max(np.diff(instance.flow_resource_ptr))) if instance.num_flows else 1
    return 2 * L


def group_blocks(instance: Instance, groups, rank, *, slot: float = 1.0):
    """Realise a grouping: one block per group, in increasing group index, back to back
    (step 3 of the module docstring).

    Parameters
    ----------
    groups : array of int, shape (K,)
        ``l_k`` per coflow.
    rank : array of int, shape (K,)
        Position of every coflow in the order of ``Cbar`` (first-fit order on resources, colour
        order on a big switch).

    Returns
    -------
    schedule : SlottedSchedule
    blocks : list of dict
        Per non-empty group: ``group``, ``start`` (0-based slot), ``length`` (slots),
        ``need`` (``max_q ceil(F_l(q) / c_q)``, the fewest slots possible).
    """
    from .slotted_rounding import _colour_block, _greedy_block
    size, cap = integral_capacities(instance, slot)
    first = first_slots(instance, slot)
    groups = np.asarray(groups, dtype=np.int64)
    rank = np.asarray(rank, dtype=np.int64)
    fk = instance.flow_coflow
    flow_rank = rank[fk]
    ptr, res = instance.flow_resource_ptr, instance.flow_resource
    ts, fs, us, blocks = [], [], [], []
    end = 0
    for lv in np.unique(groups).tolist():
        members = groups == lv
        f = np.flatnonzero(members[fk])
        f = f[np.lexsort((f, flow_rank[f]))]
        u = size[f]
        load = np.zeros(instance.num_resources, dtype=np.int64)
        lens = np.diff(ptr)[f]
        np.add.at(load, np.concatenate([res[ptr[g]:ptr[g + 1]] for g in f.tolist()]),
                  np.repeat(u, lens))
        need = int(np.max(-(-load // cap)))
        start = max(end, int(first[members].max()))
        if instance.is_big_switch:
            bt, bf, bu = _colour_block(instance, f, u, cap, need, flow_rank)
        else:
            bt, bf, bu = _greedy_block(instance, f, u, cap)
        length = int(bt.max()) + 1
        ts.append(start + bt)
        fs.append(bf)
        us.append(bu)
        blocks.append({"group": int(lv), "start": start, "length": length, "need": need})
        end = start + length
    sched = SlottedSchedule(float(slot), np.concatenate(ts), np.concatenate(fs),
                            np.concatenate(us), {"blocks": blocks})
    return sched, blocks


@dataclass
class GroupPieces:
    """Every piece of the offset ``U`` of one LP solution.

    Attributes
    ----------
    lp : str
        ``"a"`` or ``"b"``.
    lp_value : Fraction
        ``s sum_k w_k Cbar_k``, exactly (the LP value of the cleaned CDFs).
    bound : Result
        The certified LP bound (``<=`` the integral optimum).
    cbar : list of Fraction
        ``Cbar_k`` (slot counts).
    ratio : float
    starts, lengths : ndarray
        Pieces ``[starts[i], starts[i] + lengths[i])`` of [0, 1).
    groupings : list of tuple
        ``l_k`` per coflow on each piece.
    costs : list of Fraction
        ``sum_k w_k C_k`` of each piece's schedule (the caller's verifier decides).
    schedules : dict
        grouping -> (SlottedSchedule, blocks).
    expectation : float
        ``sum lengths[i] costs[i]``: the expectation over ``U`` uniform on [0, 1).
    best : int
        The cheapest piece (the first among equals).
    block_factor : int
        ``Lambda`` (:func:`block_factor`).
    """

    lp: str
    lp_value: Fraction
    bound: Any
    cbar: list
    ratio: float
    starts: np.ndarray
    lengths: np.ndarray
    groupings: list
    costs: list
    schedules: dict = field(repr=False)
    expectation: float = 0.0
    best: int = 0
    block_factor: int = 2

    @property
    def factor(self) -> float:
        """The proved ``rho`` of ``E_U[ALG] <= rho LP``: ``Lambda a / ln a``."""
        return self.block_factor * self.ratio / math.log(self.ratio)

    @property
    def piece_factor(self) -> float:
        """The proved ``rho`` of every piece, ``ALG <= rho LP``: ``Lambda a^2 / (a - 1)``."""
        return self.block_factor * self.ratio ** 2 / (self.ratio - 1.0)


def _rank(cbar) -> np.ndarray:
    K = len(cbar)
    order = sorted(range(K), key=lambda k: (cbar[k], k))
    rank = np.empty(K, dtype=np.int64)
    rank[order] = np.arange(K)
    return rank


def interval_group_pieces(instance: Instance, *, slot: float = 1.0, lp: str = "a",
                          ratio: float = 2.0, slots: int | None = None,
                          time_limit: float | None = None) -> GroupPieces:
    """Solve the LP and realise the grouping of every piece of the offset (module docstring).

    Raises
    ------
    NotSupportedError
        When the instance is not in the integral model, or the LP is too large.
    SolverError
        When the LP gives no certified solution.
    """
    from .lp_deadline import _cost, solved_lp
    ratio = _check_ratio(ratio)
    sol = solved_lp(instance, lp, slot=slot, slots=slots, time_limit=time_limit)
    cbar = lp_means(sol.X, sol.ready)
    rank = _rank(cbar)
    starts = offset_breakpoints(cbar, ratio)
    ends = np.r_[starts[1:], 1.0]
    lengths = ends - starts
    schedules: dict = {}
    groupings, costs = [], []
    cost_of: dict = {}
    for a, b in zip(starts.tolist(), ends.tolist()):
        g = tuple(group_indices(cbar, ratio, (a + b) / 2).tolist())
        if g not in schedules:
            schedules[g] = group_blocks(instance, g, rank, slot=slot)
            cost_of[g] = _cost(instance, schedules[g][0], slot)
        groupings.append(g)
        costs.append(cost_of[g])
    expectation = float(sum(float(c) * ln for c, ln in zip(costs, lengths.tolist())))
    best = int(min(range(len(costs)), key=lambda i: costs[i]))
    s = Fraction(float(slot))
    lp_value = s * sum((Fraction(float(w)) * c for w, c in
                        zip(instance.weight.tolist(), cbar)), Fraction(0))
    return GroupPieces(lp=lp, lp_value=lp_value, bound=sol.result, cbar=cbar, ratio=ratio,
                       starts=starts, lengths=lengths, groupings=groupings, costs=costs,
                       schedules=schedules, expectation=expectation, best=best,
                       block_factor=block_factor(instance))


@register("slotted", "interval-groups",
          summary="integral model: coflows grouped by LP-A mean completion time on a "
                  "geometric grid a^(l+U), one Konig block per group (first-fit on paths), "
                  "back to back; the best offset piece (deterministic), a given offset, or a "
                  "uniform random offset (seed); a reconstruction",
          reference="theory-frontier digest sections 4.2-4.3 (reconstruction, not Khuller and "
                    "Purohit's algorithm); S. Khuller, M. Purohit, SPAA 2016 (8, 3+2sqrt2 "
                    "claimed there); proofs/interval-groups.md",
          guarantee="every offset: ALG <= Lambda a^2/(a-1) x LP (8 x LP on a big switch at "
                    "a = 2, with releases); best piece <= E_U[ALG] <= Lambda a/ln(a) x LP "
                    "(4/ln 2 = 5.771 at a = 2, 2e = 5.437 at a = e on a big switch); Lambda = 2 "
                    "on a big switch (Konig), 2L on paths of at most L resources; LP = LP-A/"
                    "LP-B value <= integral OPT (proved: proofs/interval-groups.md)",
          tags=("reconstruction", "integral_model", "release_dates", "weights",
                "heterogeneous_capacities", "needs_solver", "preemptive", "randomized",
                "slow"))
def interval_groups(instance: Instance, *, slot: float = 1.0, lp: str = "a",
                    ratio: float = 2.0, offset: float | None = None, seed: int | None = None,
                    slots: int | None = None,
                    time_limit: float | None = None) -> SlottedSchedule:
    """Geometric groups of LP mean completion times, one block per group (module docstring).

    Parameters
    ----------
    instance : Instance
        In the integral model at ``slot`` (whole sizes and ``capacity x slot``).
    slot : float
        Slot length.
    lp : {"a", "b"}
        LP-A or LP-B (:mod:`coflowopt.bounds.integral_time_indexed`).
    ratio : float
        The grid ratio ``a`` in (1, 3] (2: doubling groups).
    offset : float, optional
        A fixed grid offset ``U`` in [0, 1) (``0`` with ``ratio=2``: the digest's groups
        ``tau_l = 2^(l-1)``).
    seed : int, optional
        Draw ``U`` uniformly from [0, 1) with ``numpy.random.default_rng(seed)``; recorded in
        ``meta``.  With neither ``offset`` nor ``seed``: the best piece over all breakpoints
        (deterministic).
    slots : int, optional
        The LP's horizon (default: one that contains some optimal integral schedule).
    time_limit : float, optional
        Seconds for the LP.

    Returns
    -------
    SlottedSchedule
        ``meta``: ``offset``, ``groups`` (``l_k``), ``blocks``, ``cbar`` (``Cbar_k``, exact
        strings), ``lp``, ``lp_value`` and ``lp_bound`` (certified), ``expectation`` (over a
        uniform offset), ``pieces``, ``best_piece_cost``, ``guarantee_factor`` (``Lambda a /
        ln a``) and ``piece_factor`` (``Lambda a^2 / (a - 1)``).

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> from coflowopt.slotted import verify_slotted
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2)]), Coflow("B", [(0, 1, 1)])])
    >>> s = interval_groups(inst)
    >>> verify_slotted(inst, s).weighted_completion_time, s.meta["groups"]
    (Fraction(4, 1), [2, 0])
    """
    if offset is not None and seed is not None:
        raise InvalidParameterError("give offset= or seed=, not both")
    check_integer(seed, "seed", 0, nullable=True)    # numpy's default_rng refuses -1 itself
    if offset is not None and (isinstance(offset, bool) or not isinstance(offset, (int, float))
                               or not (0.0 <= float(offset) < 1.0)):
        raise InvalidParameterError(f"offset must be in [0, 1), got {offset!r}")
    pieces = interval_group_pieces(instance, slot=slot, lp=lp, ratio=ratio, slots=slots,
                                   time_limit=time_limit)
    if seed is not None:
        offset = float(np.random.default_rng(seed).random())
    if offset is None:
        i = pieces.best
        u_used = float(pieces.starts[i])
        grouping = pieces.groupings[i]
    else:
        u_used = float(offset)
        grouping = tuple(group_indices(pieces.cbar, pieces.ratio, u_used).tolist())
    if grouping not in pieces.schedules:
        pieces.schedules[grouping] = group_blocks(instance, grouping, _rank(pieces.cbar),
                                                  slot=slot)
    sched, blocks = pieces.schedules[grouping]
    meta = {"algorithm": "interval-groups", "lp": lp, "ratio": pieces.ratio,
            "offset": u_used,
            "mode": "best piece" if offset is None else ("seed" if seed is not None
                                                         else "offset"),
            "seed": seed, "groups": list(grouping), "blocks": blocks,
            "cbar": [str(c) for c in pieces.cbar],
            "lp_value": str(pieces.lp_value), "lp_bound": str(pieces.bound.value),
            "expectation": pieces.expectation, "pieces": len(pieces.starts),
            "best_piece_cost": str(pieces.costs[pieces.best]),
            "guarantee_factor": pieces.factor, "piece_factor": pieces.piece_factor,
            "slot": float(slot)}
    return SlottedSchedule(sched.slot, sched.slot_index, sched.flow, sched.units, meta)
