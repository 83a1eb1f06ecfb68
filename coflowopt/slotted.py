"""The integral matching model: slotted schedules and their independent verifier.

Most approximation results after Sincronia are stated in this model (Qiu, Stein and Zhong, SPAA
2015; Khuller and Purohit, SPAA 2016; Im and Purohit; Rohwedder and Schnaars, ICALP 2025):
time is cut into slots of length ``slot``; sizes are integers; in each slot every resource
carries at most ``capacity x slot`` whole units (with unit capacities and unit slots on a big
switch, one matching per slot).  A slotted schedule lists, per slot, the whole units each flow
sends.

Rules checked by :func:`verify_slotted` (exact integers, no tolerance, no code shared with the
schedulers):

1. **model**: every flow size and every ``capacity x slot`` is a whole number (otherwise the
   instance is not in this model: :class:`~coflowopt.exceptions.NotSupportedError`);
2. **well-formed**: slot indices ``>= 0``, flow indices in range, units whole and ``>= 0``;
3. **capacity**: in every slot, the units of the flows crossing a resource sum to at most its
   ``capacity x slot``;
4. **release**: a flow sends in slot ``t`` only if ``t x slot >= release`` of its coflow (a
   slot may be used only if it starts at or after the release);
5. **demand**: every flow sends exactly its size.

A coflow completes at the end of its last slot with positive units: ``C_k = (t_last + 1) x
slot``.

Data: a :class:`SlottedSchedule` holds columnar entries ``(slot_index, flow, units)``; the JSON
form is ``{"format": "coflowopt-slotted-schedule", "version": 1, "slot": 1.0, "slots": [[[
coflow_position, flow_position, units], ...], ...]}`` (entry ``t`` of ``slots`` lists what is
sent in ``[t slot, (t+1) slot)``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from .exceptions import InvalidParameterError, InvalidScheduleError, NotSupportedError
from ._index_ranges import concat_ranges

__all__ = ["SlottedSchedule", "SlottedReport", "verify_slotted", "integral_capacities",
           "SLOTTED_FORMAT", "SLOTTED_VERSION"]

SLOTTED_FORMAT = "coflowopt-slotted-schedule"
SLOTTED_VERSION = 1


@dataclass(frozen=True, eq=False)
class SlottedSchedule:
    """Whole units per (slot, flow): the schedule of the integral model.

    Attributes
    ----------
    slot : float
        Slot length (> 0, finite); slot ``t`` is ``[t slot, (t+1) slot)``.
    slot_index, flow, units : ndarray of int64, shape (N,)
        Flow ``flow[i]`` sends ``units[i]`` whole units in slot ``slot_index[i]``.  Entries
        may come in any order; a (slot, flow) pair may repeat (the units add).
    meta : dict
        Provenance (algorithm, parameters).

    Examples
    --------
    >>> s = SlottedSchedule.from_entries([0, 0, 1], [0, 1, 1], [1, 1, 1])
    >>> s.num_slots, s.units.tolist()
    (2, [1, 1, 1])
    """

    slot: float
    slot_index: np.ndarray
    flow: np.ndarray
    units: np.ndarray
    meta: dict = field(default_factory=dict)

    def __post_init__(self):
        f = object.__setattr__
        if isinstance(self.slot, bool) or not isinstance(self.slot, (int, float, np.number)) \
                or not np.isfinite(self.slot) or self.slot <= 0:
            raise InvalidParameterError(f"slot length must be a finite number > 0, got "
                                        f"{self.slot!r}")
        f(self, "slot", float(self.slot))
        for name in ("slot_index", "flow", "units"):
            a = np.asarray(getattr(self, name))
            if a.size and not np.issubdtype(a.dtype, np.integer):
                if not np.all(np.isfinite(a)) or np.any(a != np.round(a)):
                    raise InvalidScheduleError(f"{name} must hold whole numbers", field=name)
            f(self, name, np.ascontiguousarray(a, dtype=np.int64))
        n = self.flow.shape[0]
        if self.slot_index.shape != (n,) or self.units.shape != (n,):
            raise InvalidScheduleError("slot_index, flow and units must have one length",
                                       field="entries")
        f(self, "meta", dict(self.meta))

    @classmethod
    def from_entries(cls, slot_index, flow, units, *, slot: float = 1.0,
                     meta: dict | None = None) -> "SlottedSchedule":
        return cls(slot, np.asarray(slot_index), np.asarray(flow), np.asarray(units),
                   dict(meta or {}))

    @property
    def num_entries(self) -> int:
        return int(self.flow.shape[0])

    @property
    def num_slots(self) -> int:
        """One more than the last slot index used (0 for an empty schedule)."""
        return int(self.slot_index.max()) + 1 if self.num_entries else 0

    def canonical(self) -> "SlottedSchedule":
        """The same schedule with one entry per (slot, flow) that sends: the units of a
        repeated pair added, zero-unit entries dropped, sorted by (slot, flow).

        Two schedules send the same units in the same slots iff their canonical forms are
        equal (:meth:`same_as`).  Entries must already be well formed (slots and units
        ``>= 0``); a malformed entry is kept as it is, so the verifier still sees it.

        Examples
        --------
        >>> s = SlottedSchedule.from_entries([1, 0, 1, 0], [0, 1, 0, 0], [1, 2, 1, 0])
        >>> c = s.canonical()
        >>> c.slot_index.tolist(), c.flow.tolist(), c.units.tolist()
        ([0, 1], [1, 0], [2, 2])
        """
        t, f, u = self.slot_index, self.flow, self.units
        bad = (t < 0) | (f < 0) | (u < 0)
        good = ~bad & (u > 0)
        tg, fg, ug = t[good], f[good], u[good]
        if tg.size:
            order = np.lexsort((fg, tg))
            tg, fg, ug = tg[order], fg[order], ug[order]
            first = np.r_[True, (tg[1:] != tg[:-1]) | (fg[1:] != fg[:-1])]
            starts = np.flatnonzero(first)
            tg, fg, ug = tg[starts], fg[starts], np.add.reduceat(ug, starts)
        return SlottedSchedule(self.slot, np.r_[tg, t[bad]], np.r_[fg, f[bad]],
                               np.r_[ug, u[bad]], dict(self.meta))

    def same_as(self, other: "SlottedSchedule") -> bool:
        """Whether both send the same units in the same slots of the same length."""
        a, b = self.canonical(), other.canonical()
        return (a.slot == b.slot and np.array_equal(a.slot_index, b.slot_index)
                and np.array_equal(a.flow, b.flow) and np.array_equal(a.units, b.units))

    def to_schedule(self, *, exact: bool = False):
        """The fluid form: flow ``f`` at rate ``units / slot`` during its slot ``[t slot, (t+1)
        slot)``, consecutive slots at one rate merged into one piece.

        An integral schedule is a fluid schedule: the rates through a resource in slot ``t``
        sum to ``load / slot <= capacity``, and a flow's fluid completion is the end of its
        last slot, so :func:`coflowopt.verify.verify_schedule` accepts it with the same
        completion times and objective as :func:`verify_slotted` (a test checks this).

        Parameters
        ----------
        exact : bool
            Fractions (exact) instead of float64.

        Examples
        --------
        >>> s = SlottedSchedule.from_entries([0, 1, 2], [0, 0, 0], [2, 2, 1], slot=0.5)
        >>> p = s.to_schedule()
        >>> p.start.tolist(), p.end.tolist(), p.rate.tolist()
        ([0.0, 1.0], [1.0, 1.5], [4.0, 2.0])
        """
        from .schedule import Schedule
        c = self.canonical()
        meta = {**self.meta, "model": "integral", "slot": self.slot}
        if exact:
            slot = Fraction(self.slot)
            start = np.array([t * slot for t in c.slot_index.tolist()], dtype=object)
            end = np.array([(t + 1) * slot for t in c.slot_index.tolist()], dtype=object)
            rate = np.array([Fraction(u) / slot for u in c.units.tolist()], dtype=object)
            start, end, rate = (a.reshape(c.num_entries) for a in (start, end, rate))
        else:
            start = c.slot_index * self.slot
            end = (c.slot_index + 1) * self.slot
            rate = c.units / self.slot
        return Schedule(c.flow, start, end, rate, meta=meta).merged()

    def to_dict(self, instance) -> dict[str, Any]:
        """The JSON document (positions of coflow and flow, as schedules elsewhere), from the
        :meth:`canonical` form: one entry per flow that sends in a slot, by flow index."""
        c = self.canonical()
        k_of = instance.flow_coflow
        pos = instance.flow_position
        slots: list[list] = [[] for _ in range(c.num_slots)]
        for t, f, u in zip(c.slot_index.tolist(), c.flow.tolist(), c.units.tolist()):
            slots[t].append([int(k_of[f]), int(pos[f]), u])
        return {"format": SLOTTED_FORMAT, "version": SLOTTED_VERSION,
                "slot": _plain(self.slot), "slots": slots}


def _plain(x: float):
    return int(x) if float(x).is_integer() else float(x)


def integral_capacities(instance, slot: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Sizes and per-slot capacities as int64, or NotSupportedError naming the first value
    that is not whole (the integral model needs whole units).

    Returns
    -------
    size : ndarray of int64, shape (F,)
    cap : ndarray of int64, shape (R,)
        ``capacity x slot`` of every resource.
    """
    size = instance.flow_size
    bad = np.flatnonzero(size != np.round(size))
    if bad.size:
        f = int(bad[0])
        raise NotSupportedError(
            f"the integral model needs whole sizes: coflows[{instance.flow_coflow[f]}]."
            f"flows[{instance.flow_position[f]}] has size {float(size[f])!r}")
    capslot = instance.capacity * float(slot)
    exact = np.array([Fraction(float(c)) * Fraction(float(slot)) for c in
                      instance.capacity.tolist()], dtype=object)
    badc = [p for p, c in enumerate(exact.tolist()) if c.denominator != 1]
    if badc:
        p = badc[0]
        raise NotSupportedError(
            f"the integral model needs whole units per slot: resource {p} "
            f"({instance.resource_names[p]}) has capacity {float(instance.capacity[p])!r} x "
            f"slot {slot!r} = {float(capslot[p])!r}")
    if np.any(size > 2 ** 53):
        f = int(np.argmax(size > 2 ** 53))
        raise NotSupportedError(
            f"the integral model's sizes must be below 2**53: coflows[{instance.flow_coflow[f]}]"
            f".flows[{instance.flow_position[f]}] has size {float(size[f])!r}")
    if np.any(capslot > 2 ** 53):
        # named with the slot: slot = 1e30 gave only "sizes and capacities must be below
        # 2**53", which named no parameter (the parameter fuzz)
        p = int(np.argmax(capslot > 2 ** 53))
        raise NotSupportedError(
            f"the integral model's units per slot must be below 2**53: resource {p} "
            f"({instance.resource_names[p]}) has capacity {float(instance.capacity[p])!r} x "
            f"slot {slot!r} = {float(capslot[p])!r}")
    return size.astype(np.int64), np.array([int(c) for c in exact.tolist()], dtype=np.int64)


@dataclass
class SlottedReport:
    """The integral verifier's verdict.

    ``violations`` lists ``(kind, message)`` (at most ``max_per_kind`` of each kind), ``counts``
    every kind's total.  Completion times and objectives are exact (``Fraction``; integers
    with unit slots).
    """

    ok: bool
    violations: list
    counts: dict
    coflow_completion: list
    flow_completion: list
    weighted_completion_time: Any
    weighted_cct: Any
    makespan: Any
    slot: float
    num_slots: int

    def objective(self, name: str = "weighted_completion_time"):
        if name == "weighted_completion_time":
            return self.weighted_completion_time
        if name == "weighted_cct":
            return self.weighted_cct
        raise InvalidParameterError(f"unknown objective {name!r}")

    @property
    def total_completion_time(self):
        """``sum_k C_k`` (None when a coflow never completes)."""
        cc = self.coflow_completion
        return None if any(c is None for c in cc) else sum(cc, Fraction(0))

    def to_dict(self, per_coflow: bool = True) -> dict[str, Any]:
        """The verdict as JSON-ready values (``model`` is ``"integral"``, ``mode`` ``"exact"``;
        objectives as floats and, under ``exact``, as exact strings)."""
        def num(x):
            return None if x is None else float(x)
        d = {"ok": self.ok, "model": "integral", "mode": "exact", "slot": self.slot,
             "num_slots": self.num_slots,
             "weighted_completion_time": num(self.weighted_completion_time),
             "weighted_cct": num(self.weighted_cct),
             "total_completion_time": num(self.total_completion_time),
             "makespan": num(self.makespan),
             "violation_counts": dict(self.counts),
             "violations": [{"kind": k, "message": m} for k, m in self.violations],
             "exact": {"weighted_completion_time": None if self.weighted_completion_time is None
                       else str(self.weighted_completion_time),
                       "weighted_cct": None if self.weighted_cct is None
                       else str(self.weighted_cct)}}
        if per_coflow:
            d["coflow_completion"] = [num(c) for c in self.coflow_completion]
        return d

    def summary(self) -> str:
        if self.ok:
            return (f"feasible (integral model, slot {self.slot:g}): weighted completion time "
                    f"{self.weighted_completion_time}, {self.num_slots} slots")
        return "infeasible (integral model): " + ", ".join(
            f"{k} x{n}" for k, n in sorted(self.counts.items()))


def verify_slotted(instance, schedule: SlottedSchedule, *,
                   max_per_kind: int = 20) -> SlottedReport:
    """Check a slotted schedule in the integral model, in exact integer arithmetic.

    Independent of every scheduler.  See the module docstring for the rules.

    Raises
    ------
    NotSupportedError
        If the instance is not in the integral model (a size or ``capacity x slot`` is not
        whole).

    Examples
    --------
    Two unit flows through ingress 0 (capacity 1): one per slot.

    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)]), Coflow("B", [(0, 1, 1)])])
    >>> rep = verify_slotted(inst, SlottedSchedule.from_entries([0, 1], [0, 1], [1, 1]))
    >>> rep.ok, rep.coflow_completion, rep.weighted_completion_time
    (True, [Fraction(1, 1), Fraction(2, 1)], Fraction(3, 1))
    >>> verify_slotted(inst, SlottedSchedule.from_entries([0, 0], [0, 1], [1, 1])).counts
    {'capacity': 1}
    """
    size, cap = integral_capacities(instance, schedule.slot)
    F, K = instance.num_flows, instance.num_coflows
    slot = Fraction(schedule.slot)
    t, f, u = schedule.slot_index, schedule.flow, schedule.units
    viol: list[tuple[str, str]] = []
    counts: dict[str, int] = {}

    def add(kind, msg):
        counts[kind] = counts.get(kind, 0) + 1
        if counts[kind] <= max_per_kind:
            viol.append((kind, msg))

    bad = (t < 0) | (f < 0) | (f >= F) | (u < 0)
    for i in np.flatnonzero(bad).tolist():
        add("malformed", f"entry {i}: slot {int(t[i])}, flow {int(f[i])}, units {int(u[i])} "
            f"(slots >= 0, flows 0..{F - 1}, units >= 0)")
    good = ~bad & (u > 0)
    t, f, u = t[good], f[good], u[good]
    # release: slot t starts at t * slot, exactly
    rel = instance.release
    k_of = instance.flow_coflow
    # the first slot a coflow may use, ceil(release / slot), exactly (once per coflow)
    first_slot = np.array([-((-Fraction(x)) // slot) for x in rel.tolist()], dtype=np.int64)
    starts_ok = t >= first_slot[k_of[f]]
    for i in np.flatnonzero(~starts_ok).tolist():
        add("before_release", f"flow {int(f[i])} (coflow {instance.coflow_ids[k_of[f[i]]]!r}) "
            f"sends in slot {int(t[i])}, which starts at {float(t[i] * schedule.slot)!r} < "
            f"release {float(rel[k_of[f[i]]])!r}")
    # capacity per (slot, resource): expand entries over paths (integers: exact)
    ptr, res = instance.flow_resource_ptr, instance.flow_resource
    lens = ptr[f + 1] - ptr[f]
    rep_entry = np.repeat(np.arange(f.size), lens)
    r_of = res[concat_ranges(ptr[f], lens)]
    if r_of.size:
        key_t = t[rep_entry]
        order = np.lexsort((r_of, key_t))
        kt, kr, ku = key_t[order], r_of[order], u[rep_entry][order]
        first = np.r_[True, (kt[1:] != kt[:-1]) | (kr[1:] != kr[:-1])]
        starts = np.flatnonzero(first)
        load = np.add.reduceat(ku, starts)
        over = np.flatnonzero(load > cap[kr[starts]])
        for j in over.tolist():
            p = int(kr[starts[j]])
            add("capacity", f"slot {int(kt[starts[j]])}: resource {p} "
                f"({instance.resource_names[p]}) carries {int(load[j])} units > "
                f"{int(cap[p])}")
    # demand, exactly
    sent = np.zeros(F, dtype=np.int64)
    np.add.at(sent, f, u)
    for g in np.flatnonzero(sent != size).tolist():
        kind = "undersent" if sent[g] < size[g] else "oversent"
        add(kind, f"flow {g} (coflow {instance.coflow_ids[k_of[g]]!r}, position "
            f"{instance.flow_position[g]}) sent {int(sent[g])} of its size {int(size[g])}")
    last = np.full(F, -1, dtype=np.int64)
    np.maximum.at(last, f, t)
    fc = [None if last[g] < 0 else Fraction(int(last[g]) + 1) * slot for g in range(F)]
    cc: list = []
    fptr = instance.flow_ptr
    for k in range(K):
        ends = fc[fptr[k]:fptr[k + 1]]
        cc.append(None if any(e is None for e in ends) else max(ends))
    ok = not counts
    if all(c is not None for c in cc):
        w = [Fraction(float(x)) for x in instance.weight.tolist()]
        r = [Fraction(float(x)) for x in rel.tolist()]
        wct = sum((a * c for a, c in zip(w, cc)), Fraction(0))
        wcct = sum((a * (c - b) for a, c, b in zip(w, cc, r)), Fraction(0))
        mk = max(cc)
    else:
        wct = wcct = mk = None
    return SlottedReport(ok=ok, violations=viol, counts=counts, coflow_completion=cc,
                         flow_completion=fc, weighted_completion_time=wct, weighted_cct=wcct,
                         makespan=mk, slot=schedule.slot, num_slots=schedule.num_slots)
