"""The independent verifier: the judge of every schedule coflowopt reports.

It shares no code with the schedulers: it reads the raw arrays of a schedule (pieces
``(flow, start, end, rate)``) and of an instance, and checks the rules of the big-switch fluid
model from first principles:

1. **well-formed**: flow indices in range, finite numbers, ``start < end``;
2. **non-negative rates**: every rate ``>= 0`` (no tolerance);
3. **one rate at a time**: two pieces of the same flow never overlap in time;
4. **release**: no flow of coflow k has a positive rate before ``release_k``;
5. **capacity**: at every instant, the rates through each resource (each ingress and each
   egress port on a big switch; each link of a topology, summed over the flows whose path
   crosses it) sum to at most its capacity;
6. **demand**: every flow is sent exactly its size.

From the schedule it then computes each flow's completion time (the end of its last piece with a
positive rate), each coflow's completion time ``C_k`` (its last flow), the weighted completion
time ``sum_k w_k C_k``, the weighted CCT ``sum_k w_k (C_k - r_k)`` and deadline hits.

Two modes:

``float``
    float64 arithmetic, judged so that acceptance is *sound*: the tolerances of
    :class:`Tolerances` bound amounts of data (overload rate x duration relative to capacity x
    elapsed time; data sent relative to size), never the length of an interval, and every
    rounding of the verifier's own sums is covered by a proven error bound.  The guarantee
    (``proofs/float-verifier-soundness.md``): a schedule accepted in float mode, slowed down by
    at most :attr:`Tolerances.dilation` (and its overloads, which the report states, absorbed
    by a local slow-down), is *exactly* feasible, so the reported completion times are within
    that factor of a feasible schedule's (measured from the earliest release).
``exact``
    Every number is converted exactly to a :class:`fractions.Fraction` (a float is a dyadic
    rational, so nothing is lost) and every check is exact with zero tolerance.  Pure Python: meant
    for small and medium instances.

The checks are written as plain loops (exact mode) and as the same checks vectorised (float mode);
the test-suite checks that the two agree on feasible and broken schedules.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from .exceptions import InfeasibleScheduleError, InvalidParameterError

__all__ = ["Tolerances", "Violation", "VerificationReport", "verify_schedule", "WindowedVerifier",
           "dilated_witness",
           "verify_in_windows", "VIOLATION_KINDS"]

#: Every kind of violation the verifier reports, with the rule it checks.
VIOLATION_KINDS = {
    "malformed": "flow index in range, finite numbers, start < end",
    "negative_rate": "every rate is >= 0",
    "overlap": "pieces of one flow do not overlap in time (one rate at a time)",
    "before_release": "no data of a coflow is sent before its release time",
    "capacity": "the rates through a port never exceed its capacity",
    "undersent": "every flow is sent its whole size",
    "oversent": "no flow is sent more than its size",
}


@dataclass(frozen=True)
class Tolerances:
    """Float-mode tolerances (exact mode uses zero for all of them).

    Each bounds an *amount*; none is a length of time, so nothing can hide in a short interval
    or a chain of them.  Let ``T0`` be the earliest release, ``L_p(t)`` the load of port ``p``
    (an upper bound on the exact sum of the float rates, from a proven rounding bound) and
    ``c_p`` its capacity.

    Attributes
    ----------
    capacity_rtol : float
        Pointwise: a load ``L_p(t) <= c_p (1 + capacity_rtol)`` is within tolerance.  It is
        absorbed by slowing the schedule down uniformly by ``1 + capacity_rtol``.
    overload_rtol : float
        Amount: beyond ``c_p (1 + capacity_rtol)``, the overload of every port, as time at full
        capacity (``sum over intervals of (L_p / c_p - 1 - capacity_rtol) x duration``, summed
        over ports), accumulated up to each coflow's completion ``C_k`` must be at most
        ``overload_rtol * (C_k - T0)``.  Float schedules meet capacity to the last bit except
        where two piece boundaries that should coincide differ by rounding (``0.1 + 0.2``
        against ``0.3``): such slivers carry overloads of order ``1e-16 t``.
    size_rtol : float
        Amount: every flow is sent at least ``(1 - size_rtol) size`` (undersent otherwise) and
        at most ``(1 + size_rtol) size`` (oversent otherwise), judged on the exact sum of
        ``rate x (end - start)`` (the computed sum with its rounding bound against the sender).

    The guarantee that follows (``proofs/float-verifier-soundness.md``): an accepted schedule
    can be turned into an exactly feasible one whose every completion time ``C'_k`` satisfies
    ``C'_k - T0 <= dilation (C_k - T0)``, with :attr:`dilation`
    ``= (1 + capacity_rtol + overload_rtol) / (1 - size_rtol)``.
    """

    capacity_rtol: float = 1e-9
    overload_rtol: float = 1e-9
    size_rtol: float = 1e-9

    def __post_init__(self):
        for name in ("capacity_rtol", "overload_rtol", "size_rtol"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and 0.0 <= float(v) <= 1e-3):
                raise InvalidParameterError(
                    f"tolerance {name} must be a number in [0, 1e-3], got {v!r}")

    @property
    def dilation(self) -> float:
        """The factor of the soundness theorem: ``(1 + capacity_rtol + overload_rtol + 4u) /
        (1 - size_rtol)`` (``4u = 4.4e-16`` covers the float64 rounding of the thresholds the
        verifier compares against)."""
        return (1.0 + self.capacity_rtol + self.overload_rtol + 4 * _U64) / (1.0 - self.size_rtol)


@dataclass
class Violation:
    """One broken rule, located.

    ``flow`` is the global flow index, ``coflow``/``flow_position`` its position in the instance;
    ``port`` uses the unified numbering (ingress ``i`` is ``i``, egress ``j`` is ``m_in + j``)
    on a big switch and is the resource index on a topology (``port_name`` its id);
    ``interval`` is the time interval concerned; ``piece`` the index of the offending piece (and
    ``segment`` the JSON segment it came from, when known); ``amount`` is the size of the breach,
    in the unit of its kind: time for ``overlap`` and ``before_release``, rate for ``capacity``
    and ``negative_rate``, data for ``undersent`` and ``oversent``.
    """

    kind: str
    message: str
    flow: int | None = None
    coflow: int | None = None
    flow_position: int | None = None
    port: int | None = None
    port_name: str | None = None
    interval: tuple[float, float] | None = None
    piece: int | None = None
    segment: int | None = None
    amount: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


@dataclass
class VerificationReport:
    """The verifier's verdict.

    Attributes
    ----------
    ok : bool
        True when no rule is broken.
    mode : {"float", "exact"}
    violations : list of Violation
        At most ``max_per_kind`` of each kind; ``violation_counts`` has the totals.
    flow_completion, coflow_completion : ndarray
        Completion times (NaN for a flow that sends nothing); Fractions in exact mode.
    weighted_completion_time, weighted_cct : float or Fraction
        ``sum_k w_k C_k`` and ``sum_k w_k (C_k - r_k)``; NaN when some coflow never completes.
    overload_time : float
        Float mode: the capacity overloads tolerated beyond ``capacity_rtol`` (rounding slivers),
        as time at full capacity summed over ports; 0 in exact mode.
    dilation : float
        The factor this verdict certifies: an exactly feasible schedule exists whose every
        completion satisfies ``C'_k - T0 <= dilation (C_k - T0)`` (``T0`` the earliest release);
        at most :attr:`Tolerances.dilation` for an accepted float schedule, 1 in exact mode.
    """

    ok: bool
    mode: str
    tolerances: Tolerances | None
    violations: list[Violation]
    violation_counts: dict[str, int]
    flow_completion: np.ndarray
    coflow_completion: np.ndarray
    weighted_completion_time: Any
    weighted_cct: Any
    total_completion_time: Any
    makespan: Any
    deadline_met: np.ndarray
    num_pieces: int

    @property
    def average_cct(self) -> float:
        """Unweighted mean of C_k - r_k (the papers' 'average CCT')."""
        return float(self._cct_sum_unweighted) / len(self.coflow_completion)

    _cct_sum_unweighted: Any = field(default=0.0, repr=False)
    overload_time: float = 0.0
    dilation: float = 1.0

    def objective(self, name: str = "weighted_completion_time"):
        """The objective by name: ``weighted_completion_time`` or ``weighted_cct``."""
        if name not in ("weighted_completion_time", "weighted_cct"):
            raise InvalidParameterError(
                f"objective must be 'weighted_completion_time' or 'weighted_cct', got {name!r}")
        return getattr(self, name)

    def raise_if_invalid(self) -> "VerificationReport":
        """Raise :class:`InfeasibleScheduleError` listing the violations, else return self."""
        if not self.ok:
            head = "; ".join(v.message for v in self.violations[:5])
            raise InfeasibleScheduleError(
                f"schedule rejected by the verifier ({sum(self.violation_counts.values())} "
                f"violations: {self.violation_counts}): {head}", report=self)
        return self

    def summary(self) -> str:
        if self.ok:
            return (f"verified ({self.mode}): weighted completion time "
                    f"{float(self.weighted_completion_time):.10g}, weighted CCT "
                    f"{float(self.weighted_cct):.10g}")
        return f"REJECTED ({self.mode}): {self.violation_counts}"

    def to_dict(self, per_coflow: bool = True) -> dict[str, Any]:
        def num(x):
            if isinstance(x, Fraction):
                return float(x)
            x = float(x)
            return None if math.isnan(x) else x
        d = {
            "ok": self.ok,
            "mode": self.mode,
            "tolerances": None if self.tolerances is None else self.tolerances.__dict__,
            "dilation": float(self.dilation),
            "overload_time": float(self.overload_time),
            "weighted_completion_time": num(self.weighted_completion_time),
            "weighted_cct": num(self.weighted_cct),
            "total_completion_time": num(self.total_completion_time),
            "average_cct": num(self.average_cct),
            "makespan": num(self.makespan),
            "deadlines_met": int(np.sum(self.deadline_met)),
            "num_pieces": self.num_pieces,
            "violation_counts": self.violation_counts,
            "violations": [v.to_dict() for v in self.violations],
        }
        if self.mode == "exact":
            d["exact"] = {"weighted_completion_time": str(self.weighted_completion_time),
                          "weighted_cct": str(self.weighted_cct)}
        if per_coflow:
            d["coflow_completion"] = [num(c) for c in self.coflow_completion.tolist()]
        return d


class _Collector:
    def __init__(self, instance, segment_of_piece, max_per_kind):
        self.inst = instance
        self.seg = segment_of_piece
        self.max = max_per_kind
        self.items: list[Violation] = []
        self.counts: dict[str, int] = {}

    def add(self, kind: str, message: str, *, flow=None, port=None, interval=None, piece=None,
            amount=None):
        self.counts[kind] = self.counts.get(kind, 0) + 1
        if self.counts[kind] > self.max:
            return
        v = Violation(kind=kind, message=message, amount=None if amount is None else float(amount),
                      interval=None if interval is None else (float(interval[0]),
                                                              float(interval[1])))
        inst = self.inst
        where = []
        if flow is not None:
            k = int(np.searchsorted(inst.flow_ptr, flow, side="right") - 1)
            v.flow, v.coflow, v.flow_position = int(flow), k, int(flow - inst.flow_ptr[k])
            where.append(f"coflow {inst.coflow_ids[k]!r} (position {k}), its flow "
                         f"{v.flow_position}")
        if port is not None:
            v.port = int(port)
            if inst.is_big_switch:
                m = len(inst.ingress_capacity)
                v.port_name = f"ingress {port}" if port < m else f"egress {port - m}"
                message = f"{v.port_name} (port {port} in the unified numbering) {message}"
            else:
                v.port_name = inst.resource_names[port]
                message = f"resource {v.port_name!r} (resource {port}) {message}"
        if piece is not None:
            v.piece = int(piece)
            if self.seg is not None:
                v.segment = int(self.seg[piece])
                where.append(f"segment {v.segment}")
        # the message names global indices; users read ids, positions, sides and segments
        v.message = f"{message} [{'; '.join(where)}]" if where else message
        self.items.append(v)

    def room(self, kind: str) -> int:
        """How many more violations of ``kind`` are listed (the rest are only counted)."""
        return max(self.max - self.counts.get(kind, 0), 0)

    def count(self, kind: str, k: int) -> None:
        """Count ``k`` violations of ``kind`` past those listed (a schedule that breaks a rule
        for millions of flows is not described millions of times)."""
        if k > 0:
            self.counts[kind] = self.counts.get(kind, 0) + int(k)


def verify_schedule(instance, schedule, *, mode: str = "float",
                    tolerances: Tolerances | None = None,
                    max_per_kind: int = 20) -> VerificationReport:
    """Check a schedule against an instance and compute its completion times and objectives.

    Parameters
    ----------
    instance : Instance
    schedule : Schedule
        Pieces ``(flow, start, end, rate)``.  If ``schedule.meta["segment_of_piece"]`` is present
        (schedules read from the JSON segment form), violations also name the segment.
    mode : {"float", "exact"}
        ``float`` uses :class:`Tolerances`; ``exact`` converts every number exactly to a Fraction
        and checks with zero tolerance.
    tolerances : Tolerances, optional
        Float-mode tolerances (default ``Tolerances()``).
    max_per_kind : int
        Violations listed per kind (all are counted).

    Returns
    -------
    VerificationReport

    Raises
    ------
    InvalidParameterError
        For an unknown ``mode``.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow, Schedule
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0)])])
    >>> rep = verify_schedule(inst, Schedule.from_pieces([0], [0.0], [2.0], [1.0]))
    >>> rep.ok, rep.weighted_completion_time
    (True, 2.0)
    """
    if mode == "float":
        return _verify_float(instance, schedule, tolerances or Tolerances(), max_per_kind)
    if mode == "exact":
        return _verify_exact(instance, schedule, max_per_kind)
    raise InvalidParameterError(f"mode must be 'float' or 'exact', got {mode!r}")


# ---------------------------------------------------------------------------------- float mode
def _verify_float(inst, sched, tol: Tolerances, max_per_kind: int) -> VerificationReport:
    col = _Collector(inst, sched.meta.get("segment_of_piece"), max_per_kind)
    acc = _FloatSums(inst)
    _float_pieces(inst, sched.flow, sched.start, sched.end, sched.rate, tol, col, acc)
    return _float_report(inst, tol, col, acc, int(sched.flow.shape[0]))


#: Unit roundoff of float64.
_U64 = float(np.finfo(float).eps) / 2


class _FloatSums:
    """What the float checks carry from one batch of pieces to the next: per flow the computed
    data sent (a sum of non-negative terms ``rate x (end - start)``) and the number of its terms
    (for the proven rounding bound of that sum), the latest positive-rate end, the latest end
    of any piece (for the overlap test of :func:`._verify_kernel.flow_pass`) and its release,
    all in one row per flow (the arrays ``sent``, ... are columns of it); on a big switch each
    flow's two resources (``res``); every flow's resources as CSR; and the
    capacity overloads beyond ``capacity_rtol`` (start time and amount as time at full capacity)
    whose total is judged against ``overload_rtol`` at the end."""

    def __init__(self, inst):
        from . import _verify_kernel as _vk
        from .rates._jit import read_only  # here: coflowopt.rates imports this module

        F = inst.num_flows
        # one 64-byte row per flow (_verify_kernel's column names): what a piece reads and
        # writes of its flow is one cache line, not one per array (the flows of a window come
        # in no order: at 50,000 coflows the one-call path took 117-128 -> 91-96 ms a window)
        buf = np.empty(8 * F + 8)
        first = (-buf.ctypes.data // 8) % 8
        self.rows = buf[first:first + 8 * F].reshape(F, 8)
        self.irows = self.rows.view(np.int64)
        self.last_end = self.rows[:, _vk.LAST_END]
        self.sent = self.rows[:, _vk.SENT]
        self.fc = self.rows[:, _vk.FC]
        self.release_of_flow = self.rows[:, _vk.RELEASE]
        self.sent_count = self.irows[:, _vk.COUNT]
        self.last_end[:] = -np.inf
        self.sent[:] = 0.0
        self.fc[:] = -np.inf
        self.sent_count[:] = 0
        if inst.num_coflows:
            self.release_of_flow[:] = np.repeat(np.asarray(inst.release, dtype=float),
                                                np.diff(inst.flow_ptr))
        self.over_start: list[np.ndarray] = []
        self.over_time: list[np.ndarray] = []
        self.over_port: list[np.ndarray] = []
        self.over_end: list[np.ndarray] = []
        self.over_load: list[np.ndarray] = []
        self.piece_offset = 0
        self.capacity = read_only(inst.capacity, float)
        # every flow's resources (a big switch's: ingress i, then egress m_in + j)
        self.pairs = inst.is_big_switch   # every path (ingress, egress): the sweeps' fast form
        if self.pairs:
            # an array of its own, read by the screen and the sweep while runs_flows writes
            # the rows, possibly on another core (_runs_pass); and, packed, a column of the
            # rows, which the one-thread pass reads with the rest of the row
            self.res = np.empty((F, 2), dtype=np.int32)
            self.res[:, 0] = inst.flow_src
            np.add(inst.flow_dst, len(inst.ingress_capacity), out=self.res[:, 1])
            self.irows[:, _vk.PAIR] = _vk.pack_pair(self.res)
            self._paths = None    # the general path's CSR, built from res when needed
        else:
            self._paths = (read_only(inst.flow_resource_ptr, np.int64),
                           read_only(inst.flow_resource, np.int64))
        self._scratch = np.empty((0, 2), dtype=np.int32)
        self._grid = np.empty(0)

    @property
    def paths(self):
        """Every flow's resources as CSR for ``capacity_sweep``; on a big switch without
        ``path_ptr`` (``2 f``: the sweep's pairs form does not read it; an arange of 2F + 1 was
        80 MB of fresh pages on the 5.2 million flows of Custom-4000, issue 17), built from
        ``res`` on first use (the one-call path reads ``res``)."""
        if self._paths is None:
            from .rates._jit import read_only
            self._paths = (read_only(np.zeros(0, dtype=np.int64), np.int64),
                           read_only(self.res.ravel(), np.int64))
        return self._paths

    def grid(self, cells: int):
        """Scratch for one part of the exact screen's grid (``_verify_kernel.screen_grid``),
        ``cells`` floats at least, kept from batch to batch and grown by halves."""
        g = self._grid
        if g.shape[0] < cells:
            g = np.empty(max(cells, g.shape[0] + g.shape[0] // 2))
            self._grid = g
        return g

    def scratch(self, n: int):
        """``runs_pass``'s scratch for a batch of ``n`` pieces (the sweep's: each piece's two
        resources, int32; or the exact screen's grid), kept from window to window and grown by
        halves."""
        pr = self._scratch
        if pr.shape[0] < n:
            pr = np.empty((max(n, pr.shape[0] + pr.shape[0] // 2), 2), dtype=np.int32)
            self._scratch = pr
        return pr


def _float_pieces(inst, flow, start, end, rate, tol: Tolerances, col, acc: _FloatSums,
                  window=None) -> None:
    """Checks 1-5 on one batch of pieces; adds the batch's sends, ends and capacity overloads to
    ``acc`` (the demand and the overload budget are judged in :func:`_float_report`).

    With ``window = (a, b)`` the batch is one time window of a schedule checked window by
    window (:class:`WindowedVerifier`): a piece outside ``[a, b]`` is malformed, which is what
    makes the per-window overlap and capacity checks the checks of the whole schedule.
    """
    from . import _verify_kernel as _vk  # here: the kernels' module imports coflowopt.rates

    F = inst.num_flows
    cap = acc.capacity
    off = acc.piece_offset

    fl = np.asarray(flow, dtype=np.int64)
    st = np.asarray(start, dtype=float)
    en = np.asarray(end, dtype=float)
    rt = np.asarray(rate, dtype=float)
    acc.piece_offset += int(fl.shape[0])
    lo_t, hi_t = (-np.inf, np.inf) if window is None else (float(window[0]), float(window[1]))

    # checks 1-5 in one compiled call where the pieces come in runs of equal starts and of
    # equal ends (schedulers' pieces do): the same sums, flags and overloads as the general
    # path below, which takes every batch this one declines (_verify_kernel.runs_pass)
    if acc.pairs and fl.shape[0] and _runs_pass_pays(fl.shape[0]):
        fl, st, en, rt = (np.ascontiguousarray(a) for a in (fl, st, en, rt))
        flags, *over = _runs_pass(fl, st, en, rt, F, lo_t, hi_t, acc, cap,
                                  1 + tol.capacity_rtol, _runs_pass_max_runs(fl.shape[0]))
        if flags != _vk.DECLINED:
            _name_flags(flags, fl, st, en, rt, lambda j: off + j, col, acc)
            _add_overloads(acc, tol, *over)
            return

    # 1. well-formed (times are compared exactly: no slack anywhere): counted by a kernel, named
    # here when there are any
    idx = None  # positions of the pieces kept, when some are dropped
    if _kernel(_vk.malformed_count, fl.shape[0])(fl, st, en, rt, F, lo_t, hi_t):
        bad = (fl < 0) | (fl >= F) | ~np.isfinite(st) | ~np.isfinite(en) | \
            ~np.isfinite(rt) | ~(st < en) | (st < lo_t) | (en > hi_t)
        where_bad = np.flatnonzero(bad)
        listed = where_bad[:col.room("malformed")]
        for i in listed:
            if not 0 <= fl[i] < F:
                col.add("malformed", f"piece {i + off}: flow index {fl[i]} out of range "
                        f"0..{F - 1}", piece=i + off)
            elif not (np.isfinite(st[i]) and np.isfinite(en[i]) and np.isfinite(rt[i])):
                col.add("malformed", f"piece {i + off}: non-finite start/end/rate "
                        f"({st[i]}, {en[i]}, {rt[i]})", flow=fl[i], piece=i + off)
            elif not st[i] < en[i]:
                col.add("malformed", f"piece {i + off}: start {st[i]} is not before end "
                        f"{en[i]}", flow=fl[i], piece=i + off, interval=(st[i], en[i]))
            else:
                col.add("malformed", f"piece {i + off}: [{st[i]}, {en[i]}) is outside its "
                        f"window [{window[0]}, {window[1]}]", flow=fl[i], piece=i + off,
                        interval=(st[i], en[i]))
        col.count("malformed", where_bad.size - listed.size)
        good = ~bad
        idx = np.flatnonzero(good)
        fl, st, en, rt = fl[good], st[good], en[good], rt[good]
        del bad, good

    def where(j):
        return off + (j if idx is None else int(idx[j]))

    # 3 (first pass), 6, completion times and the flags of 2 and 4: one pass in the given
    # order (a kernel) adds the sends of the pieces with a non-negative rate (pieces with a
    # negative rate are reported below and kept out of the load and size sums, where they
    # would mask other breaches), their counts (for the proven rounding bound of each sum), the
    # latest positive-rate end, and tells whether every piece starts at or after the latest end
    # of its flow's earlier pieces: then no two pieces of a flow overlap (schedulers write
    # pieces in time order); otherwise the sorting check below names the overlaps.
    flags = _kernel(_vk.flow_pass, fl.shape[0])(fl, st, en, rt, acc.release_of_flow,
                                                acc.last_end, acc.sent, acc.sent_count, acc.fc)

    # 2. non-negative rates
    if flags & _vk.NEGATIVE_RATE:
        neg = np.flatnonzero(rt < 0)
        listed = neg[:col.room("negative_rate")]
        for j in listed:
            col.add("negative_rate", f"flow {fl[j]} has rate {rt[j]} < 0 on [{st[j]}, "
                    f"{en[j]})", flow=fl[j], interval=(st[j], en[j]), piece=where(j),
                    amount=-rt[j])
        col.count("negative_rate", neg.size - listed.size)

    # 3. one rate at a time; 4. release
    _name_flags(flags, fl, st, en, rt, where, col, acc)

    # 5. capacity: one sweep over the rate changes grouped by time (a kernel), every resource's
    # load as a compensated running sum of its rate changes with a proven error bound, judged
    # after all the changes of an instant.  A load within 1 + capacity_rtol passes; anything
    # above is an overload whose amount (time at full capacity) goes to the budget judged in
    # _float_report.
    if flags & _vk.NEGATIVE_RATE:
        nonneg = rt >= 0
        fl, st, en, rt = fl[nonneg], st[nonneg], en[nonneg], rt[nonneg]
    n = fl.shape[0]
    if n:
        times, ptr, x, fx = _changes(fl, st, en, rt, F)
        path_ptr, path_res = acc.paths
        over = _kernel(_vk.capacity_sweep, n)(
            times, ptr, x, fx, path_ptr, path_res, acc.pairs, cap, 1 + tol.capacity_rtol)
        del times, ptr, x, fx
        _add_overloads(acc, tol, *over)


def _name_flags(flags, fl, st, en, rt, where, col, acc: _FloatSums) -> None:
    """Checks 3 and 4 where the flags of :func:`._verify_kernel.flow_pass` (or of
    ``runs_pass``) say a batch breaks them, each violation named (``where(j)``: the
    piece number of the batch's ``j``-th piece)."""
    from . import _verify_kernel as _vk

    # 3. one rate at a time
    if flags & _vk.NOT_CHAINED:
        _overlaps(fl, st, en, where, col)

    # 4. release (exact comparison)
    if flags & _vk.BEFORE_RELEASE:
        release_of_flow = acc.release_of_flow
        early = np.flatnonzero((rt > 0) & (st < release_of_flow[fl]))
        listed = early[:col.room("before_release")]
        for j in listed:
            r = release_of_flow[fl[j]]
            col.add("before_release", f"flow {fl[j]} sends at rate {rt[j]} from {st[j]}, "
                    f"before its coflow's release {r}", flow=fl[j],
                    interval=(st[j], min(en[j], r)), piece=where(j), amount=r - st[j])
        col.count("before_release", early.size - listed.size)


def _add_overloads(acc: _FloatSums, tol: Tolerances, ores, ot0, ot1, oload, oup) -> None:
    """The capacity sweep's overloads (resource, start, end, load, proven upper bound) to the
    budget judged in :func:`_float_report`, as time at full capacity."""
    if ores.size:
        # the duration's own rounding (one subtraction) against the schedule
        dur = (ot1 - ot0) * (1 + 2 * _U64)
        acc.over_start.append(ot0)
        acc.over_end.append(ot1)
        acc.over_port.append(ores)
        acc.over_load.append(oload)
        acc.over_time.append((oup - (1 + tol.capacity_rtol)) * dur)


#: Pieces below which the verifier's kernels run as plain Python (no numba load for small
#: schedules; the same functions either way).
_PLAIN_PYTHON_PIECES = 4096


def _runs_pass_pays(n: int) -> bool:
    """Whether a batch of ``n`` pieces tries :func:`._verify_kernel.runs_pass` (compiled only:
    for a small batch while numba is not loaded the plain-Python general path is cheaper than
    loading it)."""
    from .rates._jit import kernels_loaded
    return n >= _PLAIN_PYTHON_PIECES or kernels_loaded()


#: Batches of at least this many pieces are checked by :func:`_runs_pass` on two threads when
#: the process may run on two cores or more, one of them idle (:data:`_THREADS`).
_THREAD_PIECES = 1 << 16

#: Whether :func:`_runs_pass` may use a second thread: None (default) where the process may
#: run on two cores or more, one of them idle (:func:`_second_core_idle`), and numba is loaded
#: (compiled kernels release the interpreter's lock; an ahead-of-time module's may not, and
#: keeps the one call); False never; True always (tests).
_THREADS: bool | None = None


def _cores() -> int:
    import os
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _second_core_idle() -> bool:
    """Whether a second core is likely idle: two or more cores and the one-minute load average
    (this process included) below their number less a half.  On a busy host the second
    thread waits for a core at every hand-over: whole ``coflowopt schedule`` processes at load
    11-12 verified 0.2-0.5 s slower in wall time with it (SEBF + MADD 0.97-1.04 -> 1.28-1.32 s,
    coflowsim's backfilling 3.89-4.15 -> 4.16-4.61 s), for the same CPU.  The verdict does not
    depend on it (the same operations either way)."""
    import os
    cores = _cores()
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return False
    return cores >= 2 and load < cores - 0.5


def _runs_pass(fl, st, en, rt, F, lo_t, hi_t, acc: _FloatSums, cap, limit, max_runs):
    """:func:`._verify_kernel.runs_pass` on a batch: ``(flags, res, t0, t1, load, upper)``.

    A large batch (:data:`_THREAD_PIECES`) is checked on two threads where the process may
    use two cores and one is idle (:data:`_THREADS`): :func:`._verify_kernel.runs_check` on
    its two halves at once, then the flow pass (:func:`._verify_kernel.runs_flows`, the flows'
    rows) runs on this thread while the exact screen adds the first pieces
    (:data:`_SCREEN_SHARE`) into its grid in ``pr`` on a second one, and this thread the rest
    into a grid of its own (:func:`._verify_kernel.screen_add`; the two summed by
    :func:`._verify_kernel.screen_loads`); where the screen has no grid the second thread
    sweeps the batch instead (:func:`._verify_kernel.runs_judge`, its own state and ``pr``),
    and where it cannot prove every load within the limit this one sweeps it after.  The
    threads only read the batch and write disjoint memory, each does what it does in the one
    call, in the same order (the screen's sums are exact integers in any order), so the
    results are the one call's, bit for bit, whatever the threads' timing."""
    from . import _verify_kernel as _vk
    from .rates._jit import kernels_loaded

    n = fl.shape[0]
    pr = acc.scratch(n)
    threads = _THREADS
    if threads is None:
        threads = n >= _THREAD_PIECES and kernels_loaded() and _second_core_idle()
    if not threads:
        return _vk.runs_pass(fl, st, en, rt, F, lo_t, hi_t, acc.rows, acc.irows, acc.res, cap,
                             limit, pr, max_runs)
    # the first pass, read only, in two halves at once: each half's runs counted within it,
    # a run across the middle counted twice, so once less
    h = n // 2
    lo_half = _on_second_thread(_vk.runs_check, fl[:h], st[:h], en[:h], rt[:h], F, lo_t, hi_t,
                                2 * n + 2)
    hi_half = _vk.runs_check(fl[h:], st[h:], en[h:], rt[h:], F, lo_t, hi_t, 2 * n + 2)
    (nrs, nre), (nrs2, nre2) = lo_half(), hi_half
    if nrs < 0 or nrs2 < 0:
        return (_vk.DECLINED,)
    if h > 0:
        nrs2 -= st[h] == st[h - 1]
        nre2 -= en[h] == en[h - 1]
    nrs += nrs2
    nre += nre2
    if nrs + nre > max_runs:
        return (_vk.DECLINED,)
    # the flow pass here; on the second thread the exact screen's grid of the first pieces;
    # here, after the flow pass, the rest of the pieces into a grid of their own (the screen's
    # sums are exact in any order).  Where the screen has no grid, the second thread sweeps
    # the batch (the runs, then runs_judge) while this one does the flow pass.
    sc, thr, exact = _vk.screen_units(cap, limit)
    m = int(n * _SCREEN_SHARE)
    R = cap.shape[0]
    no_grid = []

    def sweep():
        return _vk.runs_judge(fl, rt, acc.res, *_vk.runs_prep(st, en, nrs, nre), cap, limit, pr)

    def first_part():
        if exact:
            G, vals = _vk.screen_add(fl, st, en, rt, acc.res, sc, 0, m, _vk.screen_grid(pr, R),
                                     nrs + nre)
            if G >= 0:
                return vals, None
        no_grid.append(True)
        return None, sweep()

    first = _on_second_thread(first_part)
    try:
        flags = _vk.runs_flows(fl, st, en, rt, acc.rows, acc.irows)
    except BaseException:
        try:                # the second thread is done with the scratch before this raises
            first()
        except BaseException:
            pass
        raise
    G2 = -1
    if exact and not no_grid:
        rest = _vk.screen_grid(acc.grid(n), R)
        G2, vals2 = _vk.screen_add(fl, st, en, rt, acc.res, sc, m, n, rest, nrs + nre)
    vals, over = first()
    if over is not None:
        return (flags, *over)
    if G2 >= 0 and _vk.screen_loads(_vk.screen_grid(pr, R), vals, rest, vals2, thr):
        empty = np.zeros(0)
        return (flags, np.zeros(0, dtype=np.int64), empty, empty, empty, empty)
    return (flags, *sweep())


#: The share of a batch's pieces whose units the second thread adds to the exact screen's
#: grid while this thread runs the flow pass and then adds the rest: per-flow fairness's
#: windows of the Facebook trace in a whole run, each thread's CPU a piece, 2026-11-29 (load
#: 10): at 0.9 this thread 3.13 ns, the second 2.92; at 0.94, 2.88 and 2.95.
_SCREEN_SHARE = 0.94


#: The second thread of :func:`_runs_pass`: ``[pid, inbox]`` of one long-lived worker per
#: process (a thread started for every batch cost page faults: its allocator arena's fresh
#: pages, ~1 ns a piece of system time on fairness's windows; a forked child starts its own).
_WORKER: list = [None, None]


def _on_second_thread(fn, *args):
    """``fn(*args)`` run by the worker thread (a compiled kernel, which releases the
    interpreter's lock); returns a function that waits for it and returns its result (or
    raises its exception)."""
    import os
    import queue
    import threading

    if _WORKER[0] != os.getpid():
        inbox = queue.SimpleQueue()

        def serve():
            while True:
                inbox.get()()

        threading.Thread(target=serve, name="coflowopt-verify", daemon=True).start()
        _WORKER[:] = [os.getpid(), inbox]
    box = queue.SimpleQueue()

    def job():
        try:
            box.put((True, fn(*args)))
        except BaseException as exc:   # raised on the waiting thread
            box.put((False, exc))

    _WORKER[1].put(job)

    def wait():
        ok, got = box.get()
        if not ok:
            raise got
        return got
    return wait


#: :func:`._verify_kernel.runs_pass` takes a batch whose runs of equal starts and of equal
#: ends are at least this long on average; shorter runs go the general way, which sorts the
#: pieces (BSSI + greedy on the Facebook trace at zero releases, 0.73 runs a piece: the
#: general path 0.32-0.33 s CPU, ``runs_pass`` forced 0.31-0.32 s, the same report).
_RUN_LENGTH = 8


def _runs_pass_max_runs(n: int) -> int:
    """The most runs (starts' and ends' together) :func:`._verify_kernel.runs_pass` takes in
    a batch of ``n`` pieces."""
    return 2 * n // _RUN_LENGTH


def _kernel(fn, n: int):
    """The compiled kernel, or its plain-Python body for a small batch while numba is not
    loaded (loading it costs more than checking a few thousand pieces)."""
    from .rates._jit import kernels_loaded
    if n < _PLAIN_PYTHON_PIECES and not kernels_loaded() and hasattr(fn, "py_func"):
        return fn.py_func
    return fn


def _order(t):
    """Indices that sort ``t``, or None when it is already sorted (schedulers' pieces often are,
    by end)."""
    if t.size < 2 or bool(np.all(t[1:] >= t[:-1])):
        return None
    return np.argsort(t, kind="stable")


#: :func:`_changes` hashes the times when the runs of equal times (in the pieces' order) are
#: at least this long on average, and sorts the pieces otherwise.
_HASH_RUN_LENGTH = 8


def _changes(fl, st, en, rt, num_flows, *, hashed: bool | None = None):
    """The rate changes of well-formed pieces with non-negative rates, grouped by time for the
    capacity sweep: ``(times, ptr, x, fx)`` with the changes at ``times[k]`` in
    ``x[ptr[k]:ptr[k + 1]]`` (``+rate`` at a start, ``-rate`` at an end), first the starts
    and then the ends, each in the pieces' order (:func:`._verify_kernel.bucket_by_hash`).

    Schedulers write pieces in runs of equal times (the Facebook trace's SEBF + MADD: 9.9e6
    pieces, 82,000 runs of equal starts or ends, 5,000 distinct times; a window of per-flow
    fairness: 1e6 pieces, a few thousand runs), so by default the times are hashed, once per
    run, and the changes placed by counting, without sorting the pieces.  Where the runs are
    short (fewer than :data:`_HASH_RUN_LENGTH` times a run on average: BSSI + greedy on the
    trace, 0.7 runs per piece), or with ``hashed=False``, the starts and the ends are sorted
    instead (:func:`._verify_kernel.bucket_by_order`), with the same result.  Small batches
    while numba is not loaded take the sorting path as plain Python.  ``fx`` is int32 (4 bytes
    a change) when the flow numbers fit.
    """
    from . import _verify_kernel as _vk
    from .rates._jit import kernels_loaded

    n = fl.shape[0]
    x = np.empty(2 * n)
    fx = np.empty(2 * n, dtype=np.int32 if num_flows <= np.iinfo(np.int32).max else np.int64)
    st = np.ascontiguousarray(st)
    en = np.ascontiguousarray(en)
    if hashed is None:
        hashed = (n >= _PLAIN_PYTHON_PIECES or kernels_loaded()) and _HASH_RUN_LENGTH * (
            np.count_nonzero(st[1:] != st[:-1]) + np.count_nonzero(en[1:] != en[:-1])) <= 2 * n
    if hashed:
        times, ptr = _vk.bucket_by_hash(st, en, st.view(np.int64), en.view(np.int64), rt, fl,
                                        x, fx)
    else:
        none = np.zeros(0, dtype=np.int64)
        os_, oe = _order(st), _order(en)
        times, ptr = _kernel(_vk.bucket_by_order, n)(st, en, rt, fl,
                                                     none if os_ is None else os_,
                                                     none if oe is None else oe, x, fx)
    return times, ptr, x[:ptr[-1]], fx[:ptr[-1]]


def _overlaps(fl, st, en, where, col) -> None:
    """Check 3 by sorting (when the pieces are not in time order per flow): in (flow, start,
    end) order, a piece overlaps an earlier piece of its flow iff it starts before the latest
    end among them (a running max per flow, taken on the integer keys flow * R + rank of the
    end among the R distinct ends, which increase from one flow to the next); each such piece
    is one violation.  Exact comparison: two pieces of a flow that overlap by a rounding sliver
    are two rates at once.

    Within one batch only: the pieces of different windows of :class:`WindowedVerifier` lie in
    disjoint time windows, and batches of a one-shot check are not split.
    """
    order = np.lexsort((en, st, fl))
    fo, so, eo = fl[order], st[order], en[order]
    same = fo[1:] == fo[:-1]
    ends, rank = np.unique(eo, return_inverse=True)
    runkey = np.maximum.accumulate(fo * ends.size + rank.ravel())
    del rank
    emax = ends[runkey - fo * ends.size]  # latest end among this flow's pieces so far
    del runkey, ends
    ov = same & (so[1:] < emax[:-1])
    ov = np.flatnonzero(ov)
    listed = ov[:col.room("overlap")]
    for j in listed:
        e_ov = min(emax[j], eo[j + 1])
        col.add("overlap", f"flow {fo[j]} has two rates on [{so[j + 1]}, {e_ov}) "
                "(pieces overlap)", flow=fo[j], interval=(so[j + 1], e_ov),
                piece=where(int(order[j + 1])), amount=e_ov - so[j + 1])
    col.count("overlap", ov.size - listed.size)


def _float_report(inst, tol: Tolerances, col, acc: _FloatSums, num_pieces: int
                  ) -> VerificationReport:
    """Check 6 (demand) and the overload budget on the sums of every batch, then completion
    times and objectives."""
    ptr = inst.flow_ptr
    size = np.asarray(inst.flow_size, dtype=float)  # read only here: no copy

    # 6. demand.  The computed sum of n terms rate x (end - start) (each: one subtraction and one
    # product, 2u; then n sequential additions, continued from batch to batch) is within
    # (2n + 2) u (1 + small) of the exact sum; the doubt counts against the schedule
    # for "undersent" and for it for "oversent" (sending too much is harmless for feasibility:
    # the surplus can be dropped).
    doubt = (2 * acc.sent_count + 2) * _U64 * 1.01 * acc.sent  # the terms are >= 0
    lo = acc.sent - doubt
    need = size * (1 - tol.size_rtol) * (1 + 4 * _U64)
    under = lo < need
    over_s = lo > size * (1 + tol.size_rtol) * (1 + 4 * _U64)
    under = np.flatnonzero(under)
    listed = under[:col.room("undersent")]
    for f in listed:
        col.add("undersent", f"flow {f} sent {acc.sent[f]} of its size {size[f]}", flow=f,
                amount=size[f] - acc.sent[f])
    col.count("undersent", under.size - listed.size)
    over_s = np.flatnonzero(over_s)
    listed = over_s[:col.room("oversent")]
    for f in listed:
        col.add("oversent", f"flow {f} sent {acc.sent[f]}, more than its size {size[f]}",
                flow=f, amount=acc.sent[f] - size[f])
    col.count("oversent", over_s.size - listed.size)

    # completion times
    fc = acc.fc.copy()
    fc[np.isneginf(fc)] = np.nan
    cc = np.maximum.reduceat(np.where(np.isnan(fc), np.inf, fc), ptr[:-1]) if ptr.size > 1 \
        else np.zeros(0)
    cc[np.isinf(cc)] = np.nan

    # 5'. the overload budget: up to every completion time C_k, the overloads that start before
    # it, as time at full capacity, are at most overload_rtol (C_k - T0)
    t0 = float(np.min(inst.release)) if inst.num_coflows else 0.0
    overload_time, dilation = 0.0, 1.0 + tol.capacity_rtol + 4 * _U64
    if acc.over_start:
        os_ = np.concatenate(acc.over_start)
        ot = np.concatenate(acc.over_time)
        oe = np.concatenate(acc.over_end)
        op = np.concatenate(acc.over_port)
        ol = np.concatenate(acc.over_load)
        o = np.argsort(os_, kind="stable")
        os_, ot, oe, op, ol = os_[o], ot[o], oe[o], op[o], ol[o]
        cum = np.cumsum(ot) * (1 + ot.size * _U64 * 2)
        overload_time = float(cum[-1])
        ends = cc[~np.isnan(cc)]
        if np.any(np.isnan(cc)) and np.any(~np.isnan(fc)):
            ends = np.append(ends, np.nanmax(fc))  # an incomplete schedule: up to its last end
        upto = np.searchsorted(os_, ends, side="left")
        spent = np.where(upto > 0, cum[np.maximum(upto - 1, 0)], 0.0)
        elapsed = (ends - t0) * (1 - 2 * _U64)
        budget = tol.overload_rtol * elapsed
        breach = spent > budget
        if np.any(breach):
            first = int(np.flatnonzero(breach)[np.argmin(ends[breach])])
            note = (f"overloads up to time {ends[first]} amount to {spent[first]} time units at "
                    f"full capacity, above the budget overload_rtol x (C - T0) = "
                    f"{budget[first]}")
            cap = inst.capacity
            worst = np.argsort(-ot, kind="stable")
            listed = worst[:col.room("capacity")]
            for j in listed:
                p = int(op[j])
                col.add("capacity", f"carries {ol[j]} > capacity {float(cap[p])} on "
                        f"[{os_[j]}, {oe[j]}) ({note})", port=p, interval=(os_[j], oe[j]),
                        amount=ol[j] - float(cap[p]))
            col.count("capacity", worst.size - listed.size)
        with np.errstate(divide="ignore", invalid="ignore"):
            frac = np.where(elapsed > 0, spent / np.where(elapsed > 0, elapsed, 1.0), 0.0)
        dilation += float(frac.max()) if frac.size else 0.0
    dilation /= (1 - tol.size_rtol)

    w = inst.weight
    wct = math.fsum((w * cc).tolist())
    wcct = math.fsum((w * (cc - inst.release)).tolist())
    tct = math.fsum(cc.tolist())
    cct_sum = math.fsum((cc - inst.release).tolist())
    dl = inst.deadline
    met = ~np.isnan(dl) & ~np.isnan(cc) & (cc <= dl)
    makespan = float(np.max(cc)) if cc.size and not np.any(np.isnan(cc)) else float("nan")
    return VerificationReport(
        ok=not col.counts, mode="float", tolerances=tol, violations=col.items,
        violation_counts=dict(col.counts), flow_completion=fc, coflow_completion=cc,
        weighted_completion_time=wct, weighted_cct=wcct, total_completion_time=tct,
        makespan=makespan, deadline_met=met, num_pieces=num_pieces,
        _cct_sum_unweighted=cct_sum, overload_time=overload_time, dilation=dilation)


class WindowedVerifier:
    """The float verifier for a schedule handed over in consecutive time windows, so that a
    schedule too large to hold (per-flow fairness on the Facebook trace: about 1.9e8 pieces)
    is checked holding one window at a time.

    Every piece of a window must lie in that window (``[start, end]``, else it is reported as
    malformed) and the windows must follow each other in time.  Then no two pieces of
    different windows can overlap or share a port at the same instant, so the per-window
    checks 1-5 are the checks of the whole schedule; the demand (6), the completion times and
    the objectives are computed from sums carried over every window, with the same rules and
    tolerances as :func:`verify_schedule` (the capacity tolerance counts the rate changes at a
    port from the first window on).  A piece cut at a window boundary arrives as two pieces
    with the same rate: the rates as functions of time are what is checked.

    Parameters
    ----------
    instance : Instance
    tolerances : Tolerances, optional
    max_per_kind : int

    Examples
    --------
    >>> from coflowopt import Instance, Coflow, Schedule
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0)])])
    >>> v = WindowedVerifier(inst)
    >>> v.add(0.0, 1.0, Schedule.from_pieces([0], [0.0], [1.0], [1.0]))
    >>> v.add(1.0, 2.0, Schedule.from_pieces([0], [1.0], [2.0], [1.0]))
    >>> rep = v.report()
    >>> rep.ok, rep.weighted_completion_time, v.windows
    (True, 2.0, 2)
    """

    def __init__(self, instance, *, tolerances: Tolerances | None = None,
                 max_per_kind: int = 20):
        self.inst = instance
        self.tol = tolerances or Tolerances()
        self.col = _Collector(instance, None, max_per_kind)
        self.acc = _FloatSums(instance)
        self.last_end = -np.inf
        self.windows = 0

    def add(self, start: float, end: float, schedule) -> None:
        """Check the pieces of the window ``[start, end]`` (``start`` >= the previous end)."""
        start, end = float(start), float(end)
        if not (start >= self.last_end and start <= end):
            raise InvalidParameterError(
                f"window [{start}, {end}] does not follow the previous window (which ended at "
                f"{self.last_end})")
        if schedule.exact:
            raise InvalidParameterError("WindowedVerifier checks float schedules")
        _float_pieces(self.inst, schedule.flow, schedule.start, schedule.end, schedule.rate,
                      self.tol, self.col, self.acc, window=(start, end))
        self.last_end = end
        self.windows += 1

    def report(self) -> VerificationReport:
        """The verdict on every window added so far, as :func:`verify_schedule` gives it."""
        return _float_report(self.inst, self.tol, self.col, self.acc, self.acc.piece_offset)


def verify_in_windows(instance, schedule, *, pieces_per_window: int = 1 << 19,
                      tolerances: Tolerances | None = None,
                      max_per_kind: int = 20) -> VerificationReport:
    """The float verdict of :func:`verify_schedule` for a held schedule, checked in time windows
    by :class:`WindowedVerifier` so that the checks' temporaries stay at the size of a window
    (the one-shot float checks need about 30 bytes per piece beyond the schedule's 32 where the
    pieces come in runs of equal times, 0.30 GB for the 9.9e6 pieces of SEBF+MADD on the
    Facebook trace, and about 57 where they are sorted instead, BSSI + greedy at zero releases;
    measured 2026-11-27 with ``tracemalloc``; 55-61 before the grouping by hashed times).

    The windows are cut where every ``pieces_per_window``-th start falls (in the stable sort
    of the starts, read off their sorted runs of equal values, :func:`._verify_kernel.sorted_at`)
    and each piece goes to the windows it overlaps by a counting sort of (window, piece) pairs
    (:func:`._verify_kernel.window_pieces`), each in one pass over the schedule; the pieces of
    a window are cut to it in buffers kept from window to window
    (:func:`._verify_kernel.window_batch`).

    Time is cut into windows of about ``pieces_per_window`` piece starts; a piece crossing a
    cut is checked as its two parts (same rate, so the same rates as functions of time).
    Malformed pieces (non-finite, ``start >= end``) go, uncut, to the first window, where they
    are reported as such.  Violations name pieces by their position in the windows, not in
    ``schedule``.  Exact schedules are checked by :func:`verify_schedule` in float mode.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow, Schedule
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0), (1, 1, 1.0)])])
    >>> s = Schedule.from_pieces([0, 1], [0.0, 0.5], [2.0, 1.5], [1.0, 1.0])
    >>> rep = verify_in_windows(inst, s, pieces_per_window=1)
    >>> rep.ok, rep.weighted_completion_time, rep.num_pieces
    (True, 2.0, 2)
    """
    if schedule.exact:
        return verify_schedule(instance, schedule.to_float(), tolerances=tolerances,
                               max_per_kind=max_per_kind)
    from . import _verify_kernel as _vk

    st = np.ascontiguousarray(schedule.start, dtype=float)
    en = np.ascontiguousarray(schedule.end, dtype=float)
    n = schedule.num_pieces
    # well-formed pieces (finite, start < end) are cut into windows; the others go to the first
    if _vk.malformed_count(np.asarray(schedule.flow, dtype=np.int64), st, en,
                           np.asarray(schedule.rate, dtype=float), instance.num_flows,
                           -np.inf, np.inf):
        ok = np.isfinite(st) & np.isfinite(en) & (st < en)
        bad = np.flatnonzero(~ok)
        starts, ends = st[ok], en[ok]
        del ok
    else:
        bad = np.zeros(0, dtype=np.int64)
        starts, ends = st, en
    # cut times: every pieces_per_window-th piece start in time order (order statistics, exact
    # at any time scale, where a histogram's bins are not; read off the starts' runs of equal
    # values sorted, rather than a partition at each of the cuts or a sort of every start:
    # 0.07-0.66 s, with the fresh pages of its copy, for the 3.4e7 starts of coflowsim's
    # backfilling, which come in 2.0e5 runs: 0.024 s)
    step = max(1, int(pieces_per_window))
    at = _vk.sorted_at(np.ascontiguousarray(starts), np.arange(0, starts.size, step))
    lo = float(at[0]) if starts.size else 0.0
    hi = float(ends.max()) if ends.size else 0.0
    cuts = np.unique(np.concatenate([[lo], at[1:], [hi]]))
    del starts, ends, at
    if cuts.size < 2:
        cuts = np.array([lo, hi])
    v = WindowedVerifier(instance, tolerances=tolerances, max_per_kind=max_per_kind)
    W = cuts.size - 1
    # every well-formed piece goes to the windows it overlaps, first..last (a piece lies in
    # window w iff start < cuts[w + 1] and end > cuts[w]; the last window is open to the
    # right): a counting sort of (window, piece) pairs, window after window, in piece order
    counts = np.zeros(W, dtype=np.int64)
    _vk.window_pieces(st, en, cuts, counts, np.zeros(0, dtype=np.int64))
    bounds = np.zeros(W + 1, dtype=np.int64)
    np.cumsum(counts, out=bounds[1:])
    entry_piece = np.empty(int(bounds[-1]), dtype=np.int32 if n < 2 ** 31 else np.int64)
    if entry_piece.size:
        _vk.window_pieces(st, en, cuts, counts, entry_piece)
    del counts
    # each window's pieces, cut to it, in buffers kept from window to window (the verifier
    # keeps nothing of a batch)
    fl = np.ascontiguousarray(schedule.flow, dtype=np.int64)
    rt = np.ascontiguousarray(schedule.rate, dtype=float)
    m = int(np.diff(bounds).max()) if W else 0
    buf = (np.empty(m, dtype=np.int64), np.empty(m), np.empty(m), np.empty(m))
    for w in range(W):
        a, b = float(cuts[w]), float(cuts[w + 1])
        sel = entry_piece[bounds[w]:bounds[w + 1]]
        if w == 0 and bad.size:  # malformed pieces go as they are
            sel = np.concatenate([bad, sel])
            ss = np.maximum(st[sel], a)
            ee = np.minimum(en[sel], b) if w < W - 1 else en[sel]
            ss[:bad.size] = st[bad]
            ee[:bad.size] = en[bad]
            part = type(schedule)(fl[sel], ss, ee, rt[sel])
        else:
            k = sel.size
            _vk.window_batch(fl, st, en, rt, sel, a, b if w < W - 1 else np.inf,
                             *(x[:k] for x in buf))
            part = type(schedule)(*(x[:k] for x in buf))
        v.add(a, b if w < W - 1 else max(b, hi), part)
        del sel, part
    rep = v.report()
    rep.num_pieces = n
    return rep


# ---------------------------------------------------------------------------------- exact mode
def _frac(x) -> Fraction:
    """Exact rational value of a number (floats are dyadic rationals)."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, (np.floating, float)):
        x = float(x)
        if not math.isfinite(x):
            raise ValueError("non-finite")
        return Fraction(x)
    if isinstance(x, (np.integer, int)) and not isinstance(x, bool):
        return Fraction(int(x))
    raise ValueError(f"not a number: {x!r}")


def _paths(inst) -> list[list[int]]:
    """Every flow's resources as Python lists (the exact-arithmetic paths)."""
    ptr, res = inst.flow_resource_ptr.tolist(), inst.flow_resource.tolist()
    return [res[ptr[f]:ptr[f + 1]] for f in range(inst.num_flows)]


def _verify_exact(inst, sched, max_per_kind: int) -> VerificationReport:
    F, K = inst.num_flows, inst.num_coflows
    ptr = [int(p) for p in inst.flow_ptr]
    coflow_of = []
    for k in range(K):
        coflow_of += [k] * (ptr[k + 1] - ptr[k])
    cap = [_frac(c) for c in inst.capacity.tolist()]
    size = [_frac(s) for s in inst.flow_size]
    release = [_frac(r) for r in inst.release]
    paths = _paths(inst)
    col = _Collector(inst, sched.meta.get("segment_of_piece"), max_per_kind)

    pieces = []  # (flow, start, end, rate, piece index)
    for i, (f, s, e, r) in enumerate(zip(sched.flow.tolist(), sched.start.tolist(),
                                         sched.end.tolist(), sched.rate.tolist())):
        if not 0 <= f < F:
            col.add("malformed", f"piece {i}: flow index {f} out of range 0..{F - 1}", piece=i)
            continue
        try:
            s, e, r = _frac(s), _frac(e), _frac(r)
        except ValueError:
            col.add("malformed", f"piece {i}: non-finite start/end/rate", flow=f, piece=i)
            continue
        if not s < e:
            col.add("malformed", f"piece {i}: start {s} is not before end {e}", flow=f,
                    piece=i, interval=(s, e))
            continue
        pieces.append((f, s, e, r, i))

    sent = [Fraction(0)] * F
    done: list[Fraction | None] = [None] * F
    by_flow: dict[int, list] = {}
    port_events: dict[int, dict[Fraction, Fraction]] = {}
    for f, s, e, r, i in pieces:
        if r < 0:
            col.add("negative_rate", f"flow {f} has rate {r} < 0 on [{s}, {e})", flow=f,
                    interval=(s, e), piece=i, amount=-r)
        if r > 0 and s < release[coflow_of[f]]:
            col.add("before_release", f"flow {f} sends at rate {r} from {s}, before its "
                    f"coflow's release {release[coflow_of[f]]}", flow=f,
                    interval=(s, min(e, release[coflow_of[f]])), piece=i,
                    amount=release[coflow_of[f]] - s)
        by_flow.setdefault(f, []).append((s, e, i))
        if r < 0:
            continue  # reported above; kept out of the load and size sums
        sent[f] += r * (e - s)
        if r > 0 and (done[f] is None or e > done[f]):
            done[f] = e
        for p in paths[f]:
            ev = port_events.setdefault(p, {})
            ev[s] = ev.get(s, Fraction(0)) + r
            ev[e] = ev.get(e, Fraction(0)) - r

    for f, lst in by_flow.items():
        lst.sort()
        e_max = lst[0][1]  # latest end among the earlier pieces of flow f
        for s1, e1, i1 in lst[1:]:
            if s1 < e_max:
                e_ov = min(e_max, e1)
                col.add("overlap", f"flow {f} has two rates on [{s1}, {e_ov}) "
                        "(pieces overlap)", flow=f, interval=(s1, e_ov), piece=i1,
                        amount=e_ov - s1)
            e_max = max(e_max, e1)

    for p in sorted(port_events):
        load = Fraction(0)
        times = sorted(port_events[p])
        for t, t_next in zip(times, times[1:]):
            load += port_events[p][t]
            if load > cap[p]:
                col.add("capacity", f"carries {load} > capacity {cap[p]} on "
                        f"[{t}, {t_next})", port=p, interval=(t, t_next), amount=load - cap[p])

    for f in range(F):
        if sent[f] < size[f]:
            col.add("undersent", f"flow {f} sent {sent[f]} of its size {size[f]}", flow=f,
                    amount=size[f] - sent[f])
        elif sent[f] > size[f]:
            col.add("oversent", f"flow {f} sent {sent[f]}, more than its size {size[f]}",
                    flow=f, amount=sent[f] - size[f])

    cc: list[Fraction | None] = []
    for k in range(K):
        ends = done[ptr[k]:ptr[k + 1]]
        cc.append(None if any(e is None for e in ends) else max(ends))
    w = [_frac(x) for x in inst.weight]
    complete = all(c is not None for c in cc)
    if complete:
        wct = sum((wk * c for wk, c in zip(w, cc)), Fraction(0))
        wcct = sum((wk * (c - r) for wk, c, r in zip(w, cc, release)), Fraction(0))
        tct = sum(cc, Fraction(0))
        cct_sum = sum((c - r for c, r in zip(cc, release)), Fraction(0))
    else:
        wct = wcct = tct = cct_sum = float("nan")
    met = np.array([(not math.isnan(d)) and c is not None and c <= _frac(d)
                    for c, d in zip(cc, inst.deadline.tolist())], dtype=bool)
    fc_arr = np.array([float("nan") if d is None else d for d in done], dtype=object)
    cc_arr = np.array([float("nan") if c is None else c for c in cc], dtype=object)
    makespan = max(cc) if complete else float("nan")
    return VerificationReport(
        ok=not col.counts, mode="exact", tolerances=None, violations=col.items,
        violation_counts=dict(col.counts), flow_completion=fc_arr, coflow_completion=cc_arr,
        weighted_completion_time=wct, weighted_cct=wcct, total_completion_time=tct,
        makespan=makespan, deadline_met=met, num_pieces=int(sched.flow.shape[0]),
        _cct_sum_unweighted=cct_sum)


# ------------------------------------------------------------------- the soundness witness
def dilated_witness(instance, schedule, *, tolerances: Tolerances | None = None):
    """The exactly feasible schedule that the soundness theorem promises for a float-accepted
    schedule, built in exact arithmetic (the proof's construction, run).

    1. Every flow's rates are multiplied by ``tau_f = size_f / sent_f`` (exact), so it sends
       exactly its size.
    2. Time is cut at every piece boundary.  On each elementary interval ``I_j`` where a port
       then carries more than its capacity, ``rho_j = max_p L_p / c_p > 1``, the interval is
       stretched by ``rho_j`` and its rates divided by ``rho_j`` (each piece sends the same
       data); later times shift by the accumulated stretch.  Every piece starts no earlier than
       it did (releases hold); a piece whose stretch does not change stays one piece.

    Loads are then ``<= c_p`` exactly and completions move from ``C`` to ``phi(C)`` with
    ``phi(C) - T0 <= dilation (C - T0)`` (``proofs/float-verifier-soundness.md``): only the
    roundings a float schedule carries are removed, so its exact value is its float value up to
    that factor.  A schedule the float verifier rejects has no witness.

    Pure Python on Fractions: for small and medium schedules (tests, exact certificates of
    single results).

    Parameters
    ----------
    instance : Instance
    schedule : Schedule
        A float schedule accepted by :func:`verify_schedule` in float mode with ``tolerances``
        (an exact schedule is returned as it is, with factor 1).
    tolerances : Tolerances, optional

    Returns
    -------
    witness : Schedule
        Exact (Fraction) pieces, accepted by :func:`verify_schedule` ``(mode="exact")``;
        ``meta["exact_snap"]`` records the largest rate rescaling ``|tau_f - 1|``, the largest
        stretch ``rho_j - 1`` and the number of stretched intervals.
    factor : Fraction
        ``max_k (phi(C_k) - T0) / (C_k - T0)`` over the coflows with ``C_k > T0``.

    Raises
    ------
    InvalidParameterError
        If the schedule is not accepted in float mode (there is then nothing to witness).

    Examples
    --------
    >>> from coflowopt import Instance, Coflow, Schedule
    >>> inst = Instance.from_coflows([Coflow(f"c{i}", [(0, i, 0.1)]) for i in range(10)])
    >>> s = Schedule.from_pieces(range(10), [0.0] * 10, [1.0] * 10, [0.1] * 10)
    >>> verify_schedule(inst, s, mode="exact").ok     # ten float 0.1 exceed 1 by 5.6e-17
    False
    >>> w, factor = dilated_witness(inst, s)
    >>> verify_schedule(inst, w, mode="exact").ok, float(factor) < 1 + 2e-9
    (True, True)
    """
    from bisect import bisect_left

    from .schedule import Schedule

    if schedule.exact:
        return schedule, Fraction(1)
    tol = tolerances or Tolerances()
    rep = verify_schedule(instance, schedule, tolerances=tol)
    if not rep.ok:
        raise InvalidParameterError(
            f"the schedule is not accepted in float mode ({rep.violation_counts}): no witness")
    inst = instance
    cap = [_frac(c) for c in inst.capacity.tolist()]
    size = [_frac(x) for x in inst.flow_size.tolist()]
    paths = _paths(inst)
    t0 = min((_frac(r) for r in inst.release.tolist()), default=Fraction(0))
    keep = np.flatnonzero(schedule.rate > 0)
    pieces = [(f, _frac(a), _frac(b), _frac(r)) for f, a, b, r in
              zip(schedule.flow[keep].tolist(), schedule.start[keep].tolist(),
                  schedule.end[keep].tolist(), schedule.rate[keep].tolist())]
    # 1. every flow sends its size
    sent: dict[int, Fraction] = {}
    for f, a, b, r in pieces:
        sent[f] = sent.get(f, Fraction(0)) + r * (b - a)
    tau = {f: size[f] / v for f, v in sent.items()}
    pieces = [(f, a, b, r * tau[f]) for f, a, b, r in pieces]
    # 2. loads per port, swept over each port's own boundaries; an overloaded stretch of time
    # marks the elementary intervals it covers with its rho
    times = sorted({t for _, a, b, _ in pieces for t in (a, b)})
    rho = [Fraction(1)] * max(len(times) - 1, 0)
    events: dict[int, dict[Fraction, Fraction]] = {}
    for f, a, b, r in pieces:
        for p in paths[f]:
            ev = events.setdefault(p, {})
            ev[a] = ev.get(a, Fraction(0)) + r
            ev[b] = ev.get(b, Fraction(0)) - r
    for p, ev in events.items():
        load = Fraction(0)
        ts = sorted(ev)
        for a, b in zip(ts, ts[1:]):
            load += ev[a]
            if load > cap[p]:
                q = load / cap[p]
                for j in range(bisect_left(times, a), bisect_left(times, b)):
                    rho[j] = max(rho[j], q)
    # phi: identity up to the first boundary, then stretched by rho_j on each interval
    phi = times[:1]
    for j, q in enumerate(rho):
        phi.append(phi[-1] + q * (times[j + 1] - times[j]))
    pos = {t: j for j, t in enumerate(times)}
    out = []
    for f, a, b, r in pieces:
        # split a piece where the stretch changes; one piece where it does not
        i = pos[a]
        for j in range(pos[a], pos[b]):
            if j + 1 == pos[b] or rho[j + 1] != rho[i]:
                out.append((f, phi[i], phi[j + 1], r / rho[i]))
                i = j + 1
    meta = {**schedule.meta, "exact_snap": {
        "max_rate_rescale": float(max((abs(v - 1) for v in tau.values()), default=0)),
        "max_stretch": float(max(rho, default=Fraction(1)) - 1),
        "stretched_intervals": sum(1 for q in rho if q > 1)}}
    witness = Schedule(np.array([o[0] for o in out], dtype=np.int64),
                       np.array([o[1] for o in out], dtype=object),
                       np.array([o[2] for o in out], dtype=object),
                       np.array([o[3] for o in out], dtype=object), meta=meta)
    factor = Fraction(1)
    for c in rep.coflow_completion.tolist():
        c = _frac(c)
        if c > t0:
            factor = max(factor, (phi[pos[c]] - t0) / (c - t0))
    return witness, factor
