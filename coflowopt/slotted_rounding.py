"""Fluid to integral: turn a verified fluid schedule into a slotted schedule of the integral
matching model (:mod:`coflowopt.slotted`), and report what the rounding cost.

The conversion, for slots of length ``slot`` (sizes and ``capacity x slot`` whole):

1. **Cumulative rounding.**  ``A_f(t)``, the data flow ``f`` has sent by ``t x slot`` in the
   fluid schedule, is rounded down to whole units, ``U_f(t) = floor(A_f(t))`` (up to a
   tolerance of ``1e-9 x size_f`` in float schedules, so that a float sum ``2.9999999999``
   counts 3 units), and flow ``f`` is given ``d_f(t) = U_f(t+1) - U_f(t)`` units in slot ``t``.
   The demand stays exact (``U_f`` ends at ``size_f``), and every unit is given to the slot in
   which the fluid schedule completed it: the ``j``-th unit of ``f`` goes to the slot whose end
   is the first slot end at or after the time the fluid schedule finished sending ``j`` units.
   Units that land before the coflow's first usable slot ``ceil(release / slot)`` (a fluid
   schedule may start mid-slot) move to that slot.
2. **Fitting the capacities.**  A slot's rounded demand may exceed a capacity (a flow gets up
   to one unit more than it sent in the slot, so a resource with ``n`` flows may see up to
   ``n - 1`` extra units; flows at equal fractional rates cross unit boundaries in the same
   slots).  Three methods (``method=``):

   * ``carry`` (the default, on a big switch and on resources): slot after slot, every flow's
     units that have become available wait in its backlog, and the flows with a backlog, in
     the fluid order (earliest fluid completion first), each send as many units as their path
     still has room for (:func:`~coflowopt._slotted_kernel.carry_units`); what does not fit
     waits for the next slot's spare capacity.  Per slot a greedy maximal allocation of the
     backlog (with unit capacities on a big switch, a greedy maximal matching).  A heuristic:
     no bound on the loss is claimed, but it never inserts an idle slot.
   * ``colouring`` (big switch only): fluid slot ``t``'s demand becomes a *block* of exactly
     ``k = max_p ceil(L_p / c_p)`` slots, the fewest possible, starting at ``max(t, end of the
     previous block)``: every port ``p`` is split into ``c_p`` copies that share its units
     round-robin (each copy then has at most ``k`` units), and the units, as edges of a
     bipartite multigraph of maximum degree ``k``, are coloured with ``k`` colours (Konig's
     edge-colouring theorem; the alternating-path algorithm, :func:`edge_colouring`); a colour
     is a slot in which every port carries at most its capacity.  Slots are ordered by the
     earliest fluid completion among their flows.
   * ``greedy``: blocks as with ``colouring``, each packed first-fit (slot after slot, the
     units in the fluid order, each entry as many units as its path has room for): at least
     ``k`` slots per block and possibly more; the block method on resources, where edge
     colouring does not apply.

   Blocks stack: every overflowing slot adds slots, while ``carry`` spends the excess in the
   slack of later slots.  On a 20-coflow 8x8 instance (sizes 1-99, releases) the MADD-based
   schedules lose a factor of about 1.9 with blocks and about 1.02-1.03 with ``carry``.

What is true of the result (``tests/test_slotted_rounding.py`` checks each):

* it passes :func:`~coflowopt.slotted.verify_slotted` (the conversion asserts it);
* **no flow completes earlier than in the fluid schedule**: every unit is sent in the slot in
  which the fluid schedule completed it or later (``carry`` only delays units; a block starts
  no earlier than its fluid slot), so ``C^int_f >= ceil(C^fluid_f / slot) x slot >=
  C^fluid_f`` and the integral objective is ``>=`` the fluid schedule's (for float schedules
  up to the rounding tolerance above).  This is a property of
  this conversion, not of integral schedules: an integral schedule *can* beat a fluid one (two
  unit flows through one port shared fairly both finish at 2 in the fluid schedule, objective
  4; one after the other they finish at 1 and 2, objective 3), and only the fluid *optimum* is
  a lower bound on every integral schedule;
* when the fluid schedule already sends whole units in every slot within the capacities (as
  Sincronia's greedy does with unit capacities, integral sizes and releases on slot starts),
  the slotted schedule is the same schedule and the loss is exactly 1.

The **rounding loss** is ``integral objective / fluid objective`` of the same schedule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from .exceptions import InfeasibleScheduleError, InvalidParameterError
from .instance import Instance
from .schedule import Schedule
from .slotted import SlottedReport, SlottedSchedule, integral_capacities, verify_slotted
from ._slotted_kernel import carry_units
from .slotted_greedy import first_slots
from .verify import VerificationReport, verify_schedule
from ._index_ranges import concat_ranges

__all__ = ["round_fluid_schedule", "SlottedRounding", "edge_colouring", "METHODS",
           "ROUNDING_RTOL"]

#: relative tolerance (of a flow's size) under which a float cumulative amount counts as the
#: next whole unit
ROUNDING_RTOL = 1e-9
METHODS = ("auto", "carry", "colouring", "greedy")


@dataclass
class SlottedRounding:
    """A fluid schedule rounded to the integral model, with what it cost.

    Attributes
    ----------
    schedule : SlottedSchedule
    report : SlottedReport
        The integral verifier's verdict on ``schedule``.
    fluid_report : VerificationReport
        The fluid verifier's verdict on the schedule that was rounded.
    objective : str
    fluid_value, integral_value
        The objective of the fluid schedule and of the slotted one.
    loss : float
        ``integral_value / fluid_value`` (1.0 when both are 0).
    method : str
        ``"carry"`` (excess units wait for later slots' spare capacity), ``"colouring"``
        (Konig blocks: the fewest slots per overflowing slot) or ``"greedy"`` (first-fit
        blocks).
    overflow_slots : int
        Fluid slots whose rounded demand did not fit one slot.
    extra_slots : int
        Slots of the slotted schedule beyond ``ceil(fluid makespan / slot)``.
    """

    schedule: SlottedSchedule
    report: SlottedReport
    fluid_report: VerificationReport
    objective: str
    fluid_value: Any
    integral_value: Any
    loss: float
    method: str
    overflow_slots: int
    extra_slots: int
    meta: dict = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"model": "integral", "ok": self.report.ok, "objective": self.objective,
                "fluid_value": float(self.fluid_value),
                "integral_value": None if self.integral_value is None
                else float(self.integral_value),
                "rounding_loss": self.loss, "method": self.method,
                "slot": self.schedule.slot, "num_slots": self.report.num_slots,
                "overflow_slots": self.overflow_slots, "extra_slots": self.extra_slots,
                "violation_counts": dict(self.report.counts)}


def round_fluid_schedule(instance: Instance, schedule: Schedule, *, slot: float = 1.0,
                         method: str = "auto", objective: str = "weighted_completion_time",
                         fluid_report: VerificationReport | None = None) -> SlottedRounding:
    """Round a verified fluid schedule to a slotted schedule of the integral model.

    Parameters
    ----------
    instance : Instance
        Whole sizes and whole ``capacity x slot``.
    schedule : Schedule
        A fluid schedule the verifier accepts (float or exact).
    slot : float
        Slot length (> 0).
    method : {"auto", "carry", "colouring", "greedy"}
        How a slot's demand is fitted to the capacities (module docstring); ``auto`` is
        ``carry``.  ``colouring`` needs a big switch.
    objective : {"weighted_completion_time", "weighted_cct"}
    fluid_report : VerificationReport, optional
        The fluid verifier's verdict on ``schedule`` if already computed.

    Returns
    -------
    SlottedRounding

    Raises
    ------
    NotSupportedError
        If the instance is not in the integral model.
    InfeasibleScheduleError
        If the fluid schedule is rejected by the verifier.
    InvalidParameterError
        For an unknown method, or ``colouring`` on an instance over resources.

    Examples
    --------
    Two unit flows through ingress 0 sharing it fairly (rate 1/2 each, both done at 2): floor
    rounding gives both their unit in slot 1, which ingress 0 cannot carry; one of them waits
    a slot (``carry``), or the slot becomes a block of two (``colouring``).

    >>> from coflowopt import Instance, Coflow, Schedule
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)]), Coflow("B", [(0, 1, 1)])])
    >>> fair = Schedule.from_pieces([0, 1], [0.0, 0.0], [2.0, 2.0], [0.5, 0.5])
    >>> r = round_fluid_schedule(inst, fair)
    >>> r.report.coflow_completion, r.fluid_value, r.integral_value, r.loss
    ([Fraction(2, 1), Fraction(3, 1)], 4.0, Fraction(5, 1), 1.25)
    >>> round_fluid_schedule(inst, fair, method="colouring").report.coflow_completion
    [Fraction(2, 1), Fraction(3, 1)]

    Notes
    -----
    Running time: O(P + E) to round, for P pieces and E (slot, flow) entries with units;
    then ``carry``: O(S x B x L) for S slots with a backlog of B flows on paths of L
    resources (compiled); ``colouring``: per overflowing slot O(U (k + V)) for its U units
    into k slots (Python); ``greedy``: O(k' x n x L) per overflowing slot of n entries packed
    into k' slots (Python).
    """
    if method not in METHODS:
        raise InvalidParameterError(f"method must be one of {METHODS}, got {method!r}")
    if method == "auto":
        method = "carry"
    if method == "colouring" and not instance.is_big_switch:
        raise InvalidParameterError(
            "method='colouring' needs a big switch (each flow on one ingress and one egress "
            "port: a bipartite multigraph); on resources use method='greedy'")
    size, cap = integral_capacities(instance, slot)
    if fluid_report is None:
        fluid_report = verify_schedule(instance, schedule,
                                       mode="exact" if schedule.exact else "float")
    if not fluid_report.ok:
        raise InfeasibleScheduleError(
            f"the fluid schedule is rejected by the verifier ({fluid_report.violation_counts});"
            " only a verified schedule is rounded", report=fluid_report)
    t, f, u = _rounded_units(instance, schedule, size, slot)
    # units before a coflow's first usable slot go to that slot
    first = first_slots(instance, slot)[instance.flow_coflow]
    t = np.maximum(t, first[f])
    rank = _fluid_rank(fluid_report.flow_completion)
    if method == "carry":
        out_t, out_f, out_u, overflow = _carry(instance, t, f, u, cap, rank)
    else:
        out_t, out_f, out_u, overflow, _ = _decompose(instance, t, f, u, cap, rank, method)
    meta = {"algorithm": "fluid-to-slotted", "method": method, "slot": float(slot),
            "source": dict(schedule.meta).get("algorithm")}
    slotted = SlottedSchedule(float(slot), out_t, out_f, out_u, meta).canonical()
    rep = verify_slotted(instance, slotted)
    if not rep.ok:  # pragma: no cover - a bug in the conversion: never report it as a result
        raise AssertionError(f"the rounded schedule fails the integral verifier: "
                             f"{rep.summary()}: {rep.violations[:3]}")
    fluid_value = fluid_report.objective(objective)
    integral_value = rep.objective(objective)
    fv = float(fluid_value)
    loss = 1.0 if fv == 0 and float(integral_value) == 0 else \
        (math.inf if fv == 0 else float(Fraction(integral_value) / Fraction(fluid_value)))
    fluid_slots = _fluid_slots(fluid_report.makespan, slot)
    return SlottedRounding(slotted, rep, fluid_report, objective, fluid_value, integral_value,
                           loss, method, overflow, rep.num_slots - fluid_slots, meta)


def _fluid_slots(makespan, slot: float) -> int:
    """``ceil(makespan / slot)``, exactly for Fractions."""
    if isinstance(makespan, Fraction):
        return math.ceil(makespan / Fraction(float(slot)))
    return int(math.ceil(float(makespan) / slot - 1e-9))


# ---------------------------------------------------------------------------------- step 1
def _rounded_units(instance: Instance, schedule: Schedule, size: np.ndarray, slot: float):
    """``(slot, flow, units)`` with units > 0: ``d_f(t) = U_f(t+1) - U_f(t)``."""
    s = schedule.merged()
    if s.num_pieces == 0:
        z = np.zeros(0, np.int64)
        return z, z, z
    if s.exact:
        return _rounded_units_exact(s, size, Fraction(float(slot)))
    st, en, rt, fl = s.start / slot, s.end / slot, s.rate * slot, s.flow
    first = np.floor(st).astype(np.int64)
    last = np.maximum(np.ceil(en).astype(np.int64) - 1, first)
    n = last - first + 1
    piece = np.repeat(np.arange(fl.size), n)
    tt = concat_ranges(first, n)
    # the piece's amount in slot tt: rate x |[st, en) n [tt, tt + 1)| (in slot units)
    lo = np.maximum(st[piece], tt)
    hi = np.minimum(en[piece], tt + 1)
    amount = rt[piece] * np.maximum(hi - lo, 0.0)
    ff = fl[piece]
    order = np.lexsort((tt, ff))
    ff, tt, amount = ff[order], tt[order], amount[order]
    head = np.r_[True, (ff[1:] != ff[:-1]) | (tt[1:] != tt[:-1])]
    starts = np.flatnonzero(head)
    ff, tt, amount = ff[starts], tt[starts], np.add.reduceat(amount, starts)
    # cumulative per flow, floored with the tolerance, capped at the size
    flow_start = np.r_[True, ff[1:] != ff[:-1]]
    cum = np.cumsum(amount)
    base = np.maximum.accumulate(np.where(flow_start, cum - amount, -np.inf))
    cum = cum - base
    sz = size[ff].astype(float)
    U = np.minimum(np.floor(cum + ROUNDING_RTOL * sz), sz).astype(np.int64)
    # the verified schedule sends each flow's size (within the verifier's tolerance): its last
    # entry completes it
    flow_end = np.r_[ff[1:] != ff[:-1], True]
    U[flow_end] = size[ff[flow_end]]
    prev = np.where(flow_start, 0, np.r_[0, U[:-1]])
    d = U - prev
    keep = d > 0
    return tt[keep], ff[keep], d[keep]


def _rounded_units_exact(s: Schedule, size: np.ndarray, slot: Fraction):
    """:func:`_rounded_units` in exact arithmetic (Fractions): no tolerance."""
    amounts: dict[tuple[int, int], Fraction] = {}
    for f, a, b, r in zip(s.flow.tolist(), s.start.tolist(), s.end.tolist(), s.rate.tolist()):
        a, b, r = Fraction(a) / slot, Fraction(b) / slot, Fraction(r) * slot
        for t in range(math.floor(a), max(math.ceil(b), math.floor(a) + 1)):
            lo, hi = max(a, t), min(b, t + 1)
            if hi > lo:
                amounts[(f, t)] = amounts.get((f, t), Fraction(0)) + r * (hi - lo)
    out_t, out_f, out_u = [], [], []
    cum: dict[int, Fraction] = {}
    done: dict[int, int] = {}
    keys = sorted(amounts)
    for i, (f, t) in enumerate(keys):
        c = cum.get(f, Fraction(0)) + amounts[(f, t)]
        cum[f] = c
        last = i + 1 == len(keys) or keys[i + 1][0] != f
        U = int(size[f]) if last else min(math.floor(c), int(size[f]))
        d = U - done.get(f, 0)
        done[f] = U
        if d > 0:
            out_t.append(t)
            out_f.append(f)
            out_u.append(d)
    return (np.asarray(out_t, np.int64), np.asarray(out_f, np.int64),
            np.asarray(out_u, np.int64))


def _fluid_rank(flow_completion) -> np.ndarray:
    """Flows ranked by their fluid completion (earliest first), ties by index."""
    c = np.array([float(x) for x in np.asarray(flow_completion).tolist()])
    c = np.where(np.isnan(c), np.inf, c)
    order = np.lexsort((np.arange(c.size), c))
    rank = np.empty(c.size, dtype=np.int64)
    rank[order] = np.arange(c.size)
    return rank


# ---------------------------------------------------------------------------------- step 2
def _overflowing(instance: Instance, t, f, u, cap):
    """Per distinct fluid slot (sorted): the slots its rounded demand needs,
    ``max_r ceil(L_r / c_r)``; returns (slots, need)."""
    ptr, res = instance.flow_resource_ptr, instance.flow_resource
    lens = ptr[f + 1] - ptr[f]
    e_of = np.repeat(np.arange(f.size), lens)
    r_of = res[concat_ranges(ptr[f], lens)]
    key_t = t[e_of]
    o = np.lexsort((r_of, key_t))
    kt, kr, ku = key_t[o], r_of[o], u[e_of][o]
    first = np.r_[True, (kt[1:] != kt[:-1]) | (kr[1:] != kr[:-1])]
    starts = np.flatnonzero(first)
    load = np.add.reduceat(ku, starts)
    need = -(-load // cap[kr[starts]])                 # ceil(L_r / c_r) slots
    slots_u = np.unique(t)
    need_t = np.zeros(slots_u.size, dtype=np.int64)
    np.maximum.at(need_t, np.searchsorted(slots_u, kt[starts]), need)
    return slots_u, need_t


def _carry(instance: Instance, t, f, u, cap, rank):
    """Units that do not fit their slot wait for the next slots' spare capacity (fluid order
    first): :func:`~coflowopt._slotted_kernel.carry_units`."""
    if t.size == 0:
        z = np.zeros(0, np.int64)
        return z, z, z, 0
    _, need_t = _overflowing(instance, t, f, u, cap)
    order = np.lexsort((rank[f], t))
    out = carry_units(t[order], f[order], u[order], cap,
                      instance.flow_resource_ptr.astype(np.int64),
                      instance.flow_resource.astype(np.int64), rank)
    return (*out, int(np.sum(need_t > 1)))


def _decompose(instance: Instance, t, f, u, cap, rank, method):
    """Blocks of slots for every fluid slot's demand; returns the entries and counts."""
    if t.size == 0:
        z = np.zeros(0, np.int64)
        return z, z, z, 0, 0
    order = np.lexsort((rank[f], t))
    t, f, u = t[order], f[order], u[order]
    slots_u, need_t = _overflowing(instance, t, f, u, cap)
    bounds = np.r_[np.searchsorted(t, slots_u), t.size]
    out_t = np.empty(t.size, dtype=np.int64)
    pieces_t, pieces_f, pieces_u = [], [], []
    end = 0
    overflow = extra = 0
    for j, tj in enumerate(slots_u.tolist()):
        s0 = max(tj, end)
        a, b = int(bounds[j]), int(bounds[j + 1])
        if need_t[j] <= 1:
            out_t[a:b] = s0
            end = s0 + 1
            continue
        overflow += 1
        out_t[a:b] = -1  # replaced by the block's own entries
        if method == "colouring":
            blk = _colour_block(instance, f[a:b], u[a:b], cap, int(need_t[j]), rank)
        else:
            blk = _greedy_block(instance, f[a:b], u[a:b], cap)
        bt, bf, bu = blk
        pieces_t.append(s0 + bt)
        pieces_f.append(bf)
        pieces_u.append(bu)
        length = int(bt.max()) + 1
        extra += length - 1
        end = s0 + length
    keep = out_t >= 0
    all_t = np.concatenate([out_t[keep], *pieces_t])
    all_f = np.concatenate([f[keep], *pieces_f])
    all_u = np.concatenate([u[keep], *pieces_u])
    return all_t, all_f, all_u, overflow, extra


def _greedy_block(instance: Instance, f, u, cap):
    """First-fit packing of one slot's demand (entries in fluid order) into slots."""
    ptr, res = instance.flow_resource_ptr, instance.flow_resource
    paths = [res[ptr[g]:ptr[g + 1]].tolist() for g in f.tolist()]
    rem = u.tolist()
    out_t, out_f, out_u = [], [], []
    k = 0
    while any(rem):
        resid: dict[int, int] = {}
        for i, g in enumerate(f.tolist()):
            if rem[i] == 0:
                continue
            a = rem[i]
            for r in paths[i]:
                a = min(a, resid.get(r, int(cap[r])))
            if a > 0:
                for r in paths[i]:
                    resid[r] = resid.get(r, int(cap[r])) - a
                rem[i] -= a
                out_t.append(k)
                out_f.append(g)
                out_u.append(a)
        k += 1
    return (np.asarray(out_t, np.int64), np.asarray(out_f, np.int64),
            np.asarray(out_u, np.int64))


def _colour_block(instance: Instance, f, u, cap, k: int, rank):
    """Konig: one slot's demand on a big switch into exactly ``k`` slots."""
    src = instance.flow_src[f]
    dst = instance.flow_egress_port[f]  # unified numbering: resource m_in + j
    # unit edges, each port's units spread round-robin over its capacity's copies
    flows = np.repeat(f, u)
    left, right = np.repeat(src, u), np.repeat(dst, u)
    edges_l = _copies(left, cap)
    edges_r = _copies(right, cap)
    colour = edge_colouring(edges_l, edges_r, k)
    # order the colours by the earliest fluid completion among their flows
    first_rank = np.full(k, np.iinfo(np.int64).max)
    np.minimum.at(first_rank, colour, rank[flows])
    slot_of_colour = np.empty(k, dtype=np.int64)
    slot_of_colour[np.argsort(first_rank, kind="stable")] = np.arange(k)
    return slot_of_colour[colour], flows, np.ones(flows.size, dtype=np.int64)


def _copies(port: np.ndarray, cap: np.ndarray) -> np.ndarray:
    """A vertex id per unit edge: port ``p``'s edges go round-robin to its ``cap[p]`` copies
    (vertex ``(p, j)`` as ``p x C + j``, ``C`` the largest capacity)."""
    C = int(cap.max())
    order = np.argsort(port, kind="stable")
    ps = port[order]
    head = np.r_[True, ps[1:] != ps[:-1]]
    idx = np.arange(ps.size) - np.maximum.accumulate(np.where(head, np.arange(ps.size), 0))
    out = np.empty_like(port)
    out[order] = ps * C + idx % cap[ps]
    return out


def edge_colouring(left, right, k: int) -> np.ndarray:
    """A proper edge colouring with ``k`` colours of a bipartite multigraph of maximum degree
    at most ``k`` (Konig's theorem), by alternating paths.

    Parameters
    ----------
    left, right : array_like of int
        Edge ``e`` joins left vertex ``left[e]`` and right vertex ``right[e]`` (the two sides'
        ids are separate name spaces; parallel edges allowed).
    k : int
        Number of colours, at least the maximum degree.

    Returns
    -------
    ndarray of int64
        The colour (``0..k-1``) of every edge; edges sharing a vertex differ.

    Raises
    ------
    InvalidParameterError
        If a vertex has more than ``k`` edges.

    Examples
    --------
    >>> edge_colouring([0, 0, 1, 1], [0, 1, 0, 1], 2).tolist()
    [0, 1, 1, 0]

    Notes
    -----
    For edge ``(u, v)`` use a colour free at both if there is one; else take ``a`` free at ``u``
    and ``b`` free at ``v`` and swap ``a`` and ``b`` along the path from ``v`` whose edges alternate
    ``a``, ``b``.  In a bipartite graph that path cannot end at ``u`` (it would reach ``u``
    through an edge coloured ``a``, which ``u`` lacks), so afterwards ``a`` is free at both.
    O(E (k + V)) time.  D. Konig, "Graphok es alkalmazasuk a determinansok es a halmazok
    elmeleteben", Math. Termesz. Ert. 34 (1916); A. Schrijver, "Combinatorial Optimization",
    Thm. 20.1.
    """
    left = np.asarray(left, dtype=np.int64).tolist()
    right = np.asarray(right, dtype=np.int64).tolist()
    # vertex ids: left side as given, right side shifted past every left id
    shift = (max(left) + 1) if left else 0
    at: dict[int, list] = {}
    colour = [-1] * len(left)
    for e, (a_, b_) in enumerate(zip(left, right)):
        u, v = a_, b_ + shift
        cu = at.setdefault(u, [-1] * k)
        cv = at.setdefault(v, [-1] * k)
        try:
            a = cu.index(-1)
            b = cv.index(-1)
        except ValueError:
            raise InvalidParameterError(f"a vertex of edge {e} has more than k = {k} "
                                        "edges") from None
        common = next((c for c in range(k) if cu[c] == -1 and cv[c] == -1), None)
        if common is not None:
            a = common
        else:
            # flip the a/b path from v: v -a- w -b- x -a- ...
            path = []
            x, c = v, a
            while at[x][c] != -1:
                g = at[x][c]
                path.append(g)
                y = left[g] if x >= shift else right[g] + shift
                x, c = y, (b if c == a else a)
            for g in path:
                for w in (left[g], right[g] + shift):
                    at[w][colour[g]] = -1
            for g in path:
                colour[g] = b if colour[g] == a else a
            for g in path:
                for w in (left[g], right[g] + shift):
                    at[w][colour[g]] = g
        colour[e] = a
        cu[a] = e
        cv[a] = e
    return np.asarray(colour, dtype=np.int64)
