"""The independent verifier: the judge of every schedule coflowopt reports.

It shares no code with the schedulers: it reads the raw arrays of a schedule (pieces
``(flow, start, end, rate)``) and of an instance, and checks the rules of the big-switch fluid
model from first principles:

1. **well-formed**: flow indices in range, finite numbers, ``start < end``;
2. **non-negative rates**: every rate ``>= 0`` (no tolerance);
3. **one rate at a time**: two pieces of the same flow never overlap in time;
4. **release**: no flow of coflow k has a positive rate before ``release_k``;
5. **capacity**: at every instant, the rates through each ingress and each egress port sum to at
   most its capacity;
6. **demand**: every flow is sent exactly its size.

From the schedule it then computes each flow's completion time (the end of its last piece with a
positive rate), each coflow's completion time ``C_k`` (its last flow), the weighted completion
time ``sum_k w_k C_k``, the weighted CCT ``sum_k w_k (C_k - r_k)`` and deadline hits.

Two modes:

``float``
    float64 arithmetic with the tolerances of :class:`Tolerances` (all stated, all relative to the
    quantity they guard).  Port loads are accumulated in extended precision (``np.longdouble``)
    and the capacity tolerance grows by ``4 eps`` per event at the port to cover the rounding of
    that accumulation.
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

    Attributes
    ----------
    capacity_rtol : float
        A port load ``L`` passes if ``L <= c (1 + capacity_rtol + 4 eps n_p)``, with ``n_p`` the
        number of rate changes at the port (the rounding bound of the accumulation).  An overload
        on an interval shorter than the time slack (below) is a rounding artefact of two piece
        boundaries that should coincide (``0.1 + 0.2`` against ``0.3``) and is not reported.
    size_rtol : float
        A flow passes if ``|sent - size| <= size_rtol * size + 4 eps sum(rate (|start| + |end|))``
        over its pieces; the second term bounds the rounding of ``rate * (end - start)`` at large
        times.
    time_rtol : float
        Times are compared with slack ``time_rtol * max(1, |t|)`` (release, overlaps, deadlines,
        capacity slivers).
    """

    capacity_rtol: float = 1e-9
    size_rtol: float = 1e-9
    time_rtol: float = 1e-9


@dataclass
class Violation:
    """One broken rule, located.

    ``flow`` is the global flow index, ``coflow``/``flow_position`` its position in the instance;
    ``port`` uses the unified numbering (ingress ``i`` is ``i``, egress ``j`` is ``m_in + j``);
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
            m = len(inst.ingress_capacity)
            v.port_name = f"ingress {port}" if port < m else f"egress {port - m}"
            message = f"{v.port_name} (port {port} in the unified numbering) {message}"
        if piece is not None:
            v.piece = int(piece)
            if self.seg is not None:
                v.segment = int(self.seg[piece])
                where.append(f"segment {v.segment}")
        # the message names global indices; users read ids, positions, sides and segments
        v.message = f"{message} [{'; '.join(where)}]" if where else message
        self.items.append(v)


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


class _FloatSums:
    """What the float checks carry from one batch of pieces to the next: the data sent and its
    rounding bound per flow, the latest positive-rate end per flow, and the number of rate
    changes seen so far at every port (for the capacity tolerance)."""

    def __init__(self, inst):
        F = inst.num_flows
        self.sent = np.zeros(F)
        self.rounding = np.zeros(F)
        self.fc = np.full(F, -np.inf)
        self.port_events = np.zeros(len(inst.ingress_capacity) + len(inst.egress_capacity),
                                    dtype=np.int64)
        self.piece_offset = 0


def _float_pieces(inst, flow, start, end, rate, tol: Tolerances, col, acc: _FloatSums,
                  window=None) -> None:
    """Checks 1-5 on one batch of pieces; adds the batch's sends and ends to ``acc``.

    With ``window = (a, b)`` the batch is one time window of a schedule checked window by
    window (:class:`WindowedVerifier`): a piece outside ``[a, b]`` is malformed, which is what
    makes the per-window overlap and capacity checks the checks of the whole schedule.
    """
    F = inst.num_flows
    K = inst.num_coflows
    m_in = len(inst.ingress_capacity)
    cap = np.concatenate([inst.ingress_capacity, inst.egress_capacity])
    ptr = inst.flow_ptr
    release_of_flow = np.repeat(inst.release, np.diff(ptr)) if K else np.zeros(0)
    off = acc.piece_offset

    fl = np.asarray(flow, dtype=np.int64)
    st = np.asarray(start, dtype=float)
    en = np.asarray(end, dtype=float)
    rt = np.asarray(rate, dtype=float)
    acc.piece_offset += int(fl.shape[0])

    def slack(t):
        return tol.time_rtol * np.maximum(1.0, np.abs(t))

    # 1. well-formed
    bad = (fl < 0) | (fl >= F) | ~np.isfinite(st) | ~np.isfinite(en) | ~np.isfinite(rt) | \
        ~(st < en)
    if window is not None:
        outside = (st < window[0] - slack(window[0])) | (en > window[1] + slack(window[1]))
        bad |= outside
    for i in np.flatnonzero(bad):
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
    good = ~bad
    idx = np.flatnonzero(good) + off
    if not good.all():
        fl, st, en, rt = fl[good], st[good], en[good], rt[good]
    del bad, good

    # 2. non-negative rates
    for j in np.flatnonzero(rt < 0):
        col.add("negative_rate", f"flow {fl[j]} has rate {rt[j]} < 0 on [{st[j]}, {en[j]})",
                flow=fl[j], interval=(st[j], en[j]), piece=idx[j], amount=-rt[j])

    # pieces with a negative rate are reported above and kept out of the load and size sums
    # below, where they would mask other breaches
    nonneg = rt >= 0

    # 3. one rate at a time: in (flow, start, end) order, a piece overlaps an earlier piece of
    # its flow iff it starts before the latest end among them (a running max per flow, taken
    # on the integer keys flow * R + rank of the end among the R distinct ends, which increase
    # from one flow to the next); each such piece is one violation
    order = np.lexsort((en, st, fl))
    fo, so, eo = fl[order], st[order], en[order]
    same = fo[1:] == fo[:-1]
    ends, rank = np.unique(eo, return_inverse=True)
    runkey = np.maximum.accumulate(fo * ends.size + rank.ravel())
    del rank
    emax = ends[runkey - fo * ends.size]  # latest end among this flow's pieces so far
    del runkey, ends
    ov = same & (so[1:] < emax[:-1] - slack(emax[:-1]))
    for j in np.flatnonzero(ov):
        e_ov = min(emax[j], eo[j + 1])
        col.add("overlap", f"flow {fo[j]} has two rates on [{so[j + 1]}, {e_ov}) "
                "(pieces overlap)", flow=fo[j], interval=(so[j + 1], e_ov),
                piece=idx[order[j + 1]], amount=e_ov - so[j + 1])
    del order, fo, so, eo, same, emax, ov

    # 4. release
    pos = rt > 0
    early = pos & (st < release_of_flow[fl] - slack(release_of_flow[fl]))
    for j in np.flatnonzero(early):
        r = release_of_flow[fl[j]]
        col.add("before_release", f"flow {fl[j]} sends at rate {rt[j]} from {st[j]}, before its "
                f"coflow's release {r}", flow=fl[j], interval=(st[j], min(en[j], r)),
                piece=idx[j], amount=r - st[j])
    del early

    # 5. capacity: per port, sweep the rate changes in time order.  Ingress ports, then egress
    # ports (two passes over 2 entries per piece instead of one over 4: the same groups, half
    # the memory)
    cf, cs, ce, cr = fl[nonneg], st[nonneg], en[nonneg], rt[nonneg]
    for side_ports in (inst.flow_src[cf], m_in + inst.flow_dst[cf]):
        tt = np.concatenate([cs, ce])
        pp2 = np.concatenate([side_ports, side_ports])
        dd = np.concatenate([cr, -cr]).astype(np.longdouble)
        if not tt.size:
            continue
        o = np.lexsort((tt, pp2))
        tt, pp2, dd = tt[o], pp2[o], dd[o]
        del o
        newgroup = np.concatenate([[True], (tt[1:] != tt[:-1]) | (pp2[1:] != pp2[:-1])])
        gstart = np.flatnonzero(newgroup)
        del newgroup
        gsum = np.add.reduceat(dd, gstart)
        gport, gtime = pp2[gstart], tt[gstart]
        del tt, pp2, dd, gstart
        portstart = np.concatenate([[True], gport[1:] != gport[:-1]])
        csum = np.cumsum(gsum)
        # index of the first group of each group's port; the port's running load is the
        # cumulative sum since that group
        base = np.maximum.accumulate(np.where(portstart, np.arange(gsum.size), 0))
        before = np.where(base > 0, csum[np.maximum(base - 1, 0)], 0)
        load = (csum - before).astype(float)  # load on [gtime[i], next time at this port)
        del csum, before
        # rate changes at the port so far (earlier batches included)
        n_events = np.arange(gsum.size) - base + 1 + acc.port_events[gport]
        limit = cap[gport] * (1.0 + tol.capacity_rtol + 4 * np.finfo(float).eps * n_events)
        last_of_port = np.concatenate([gport[1:] != gport[:-1], [True]])
        nxt = np.concatenate([gtime[1:], [np.inf]])
        over = (load > limit) & ~last_of_port & (nxt - gtime > slack(gtime))
        for j in np.flatnonzero(over):
            p = gport[j]
            col.add("capacity", f"carries {load[j]} > capacity {cap[p]} on "
                    f"[{gtime[j]}, {nxt[j]})", port=p, interval=(gtime[j], nxt[j]),
                    amount=load[j] - cap[p])
        acc.port_events += np.bincount(gport, minlength=acc.port_events.size)
        del gsum, gport, gtime, portstart, base, load, n_events, limit, last_of_port, nxt

    # 6. demand (summed here, judged in _float_report)
    if cf.size:
        acc.sent += np.bincount(cf, weights=cr * (ce - cs), minlength=F)
        acc.rounding += 4 * np.finfo(float).eps * np.bincount(
            cf, weights=cr * (np.abs(cs) + np.abs(ce)), minlength=F)

    # completion times: the end of each flow's last piece with a positive rate
    if fl.size:
        np.maximum.at(acc.fc, fl[pos], en[pos])


def _float_report(inst, tol: Tolerances, col, acc: _FloatSums, num_pieces: int
                  ) -> VerificationReport:
    """Check 6 (demand) on the sums of every batch, then completion times and objectives."""
    ptr = inst.flow_ptr
    size = inst.flow_size

    def slack(t):
        return tol.time_rtol * np.maximum(1.0, np.abs(t))

    diff = acc.sent - size
    allowed = tol.size_rtol * size + acc.rounding
    under = diff < -allowed
    over_s = diff > allowed
    for f in np.flatnonzero(under):
        col.add("undersent", f"flow {f} sent {acc.sent[f]} of its size {size[f]}", flow=f,
                amount=-diff[f])
    for f in np.flatnonzero(over_s):
        col.add("oversent", f"flow {f} sent {acc.sent[f]}, more than its size {size[f]}",
                flow=f, amount=diff[f])

    # completion times
    fc = acc.fc.copy()
    fc[np.isneginf(fc)] = np.nan
    cc = np.maximum.reduceat(np.where(np.isnan(fc), np.inf, fc), ptr[:-1])
    cc[np.isinf(cc)] = np.nan
    w = inst.weight
    wct = math.fsum((w * cc).tolist())
    wcct = math.fsum((w * (cc - inst.release)).tolist())
    tct = math.fsum(cc.tolist())
    cct_sum = math.fsum((cc - inst.release).tolist())
    dl = inst.deadline
    met = ~np.isnan(dl) & ~np.isnan(cc) & (cc <= dl + slack(dl))
    makespan = float(np.max(cc)) if not np.any(np.isnan(cc)) else float("nan")
    return VerificationReport(
        ok=not col.counts, mode="float", tolerances=tol, violations=col.items,
        violation_counts=dict(col.counts), flow_completion=fc, coflow_completion=cc,
        weighted_completion_time=wct, weighted_cct=wcct, total_completion_time=tct,
        makespan=makespan, deadline_met=met, num_pieces=num_pieces,
        _cct_sum_unweighted=cct_sum)


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
    (the one-shot float checks need about 0.3 kB per piece: 3 GB for the 1e7 pieces of SEBF+MADD
    on the Facebook trace, ten times the schedule itself).

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
    st, en = schedule.start, schedule.end
    n = schedule.num_pieces
    ok = np.isfinite(st) & np.isfinite(en) & (st < en)
    lo = float(st[ok].min()) if ok.any() else 0.0
    hi = float(en[ok].max()) if ok.any() else 0.0
    # cut times: about pieces_per_window piece starts per window (histogram of the starts)
    nb = int(min(1 << 16, max(1, 4 * n // max(1, pieces_per_window))))
    counts, edges = np.histogram(st[ok], bins=nb, range=(lo, hi if hi > lo else lo + 1.0))
    csum = np.cumsum(counts)
    marks = np.searchsorted(csum, np.arange(1, csum[-1] // max(1, pieces_per_window) + 1)
                            * pieces_per_window) if csum.size and csum[-1] else []
    cuts = np.unique(np.concatenate([[lo], edges[1:][np.minimum(marks, nb - 1)], [hi]]))
    cuts = cuts[(cuts >= lo) & (cuts <= hi)]
    if cuts.size < 2:
        cuts = np.array([lo, hi])
    v = WindowedVerifier(instance, tolerances=tolerances, max_per_kind=max_per_kind)
    bad = np.flatnonzero(~ok)
    for w in range(cuts.size - 1):
        a, b = float(cuts[w]), float(cuts[w + 1])
        sel = np.flatnonzero(ok & (st < b) & (en > a)) if w < cuts.size - 2 else \
            np.flatnonzero(ok & (en > a))
        if w == 0 and bad.size:
            sel = np.concatenate([bad, sel])
        ss = np.maximum(st[sel], a)
        ee = np.minimum(en[sel], b)
        if w == 0 and bad.size:  # malformed pieces go as they are
            ss[:bad.size] = st[bad]
            ee[:bad.size] = en[bad]
        part = type(schedule)(schedule.flow[sel], ss, ee, schedule.rate[sel])
        v.add(a, b if w < cuts.size - 2 else max(b, hi), part)
        del sel, ss, ee, part
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


def _verify_exact(inst, sched, max_per_kind: int) -> VerificationReport:
    F, K = inst.num_flows, inst.num_coflows
    m_in = len(inst.ingress_capacity)
    ptr = [int(p) for p in inst.flow_ptr]
    coflow_of = []
    for k in range(K):
        coflow_of += [k] * (ptr[k + 1] - ptr[k])
    cap = [_frac(c) for c in list(inst.ingress_capacity) + list(inst.egress_capacity)]
    size = [_frac(s) for s in inst.flow_size]
    release = [_frac(r) for r in inst.release]
    src = [int(p) for p in inst.flow_src]
    dst = [int(p) for p in inst.flow_dst]
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
        for p in (src[f], m_in + dst[f]):
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
