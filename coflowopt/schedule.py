"""Schedules: piecewise-constant flow rates.

A :class:`Schedule` is a set of *pieces* ``(flow, start, end, rate)``: flow ``flow`` (a global flow
index of the instance) is sent at constant ``rate`` during ``[start, end)``.  This columnar form
is compact even for the 706,397-flow Facebook trace, because a piece ends only when that flow's
rate changes.  The *segment* form of the JSON interchange format, where each segment
``[start, end)`` lists the rate of every active flow, is derived from the pieces by cutting time
at every piece boundary (:meth:`Schedule.segments`).

A schedule is only data.  Whether it is feasible, and what it costs, is decided by the
independent verifier in :mod:`coflowopt.verify`.

Values are float64 arrays, or object arrays of :class:`fractions.Fraction` for schedules built in
exact arithmetic (``schedule.exact``); the verifier checks the latter without tolerances.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Iterable, Iterator, Mapping, Sequence

import numpy as np

from .exceptions import InvalidScheduleError
from ._index_ranges import concat_ranges

__all__ = ["Schedule", "Segment"]


@dataclass(frozen=True)
class Segment:
    """One segment ``[start, end)`` of a schedule: the rate of every flow active in it."""

    start: Any
    end: Any
    flows: np.ndarray  # global flow indices
    rates: np.ndarray


def _as_values(a, name: str) -> np.ndarray:
    arr = np.asarray(a)
    if arr.dtype == object:
        out = np.empty(arr.shape, dtype=object)
        for i, v in enumerate(arr.ravel().tolist()):
            if isinstance(v, bool) or not isinstance(v, (int, float, Fraction)):
                raise InvalidScheduleError(f"{name} values must be numbers, got {v!r}",
                                           field=f"{name}[{i}]")
            out[i] = Fraction(v)
        return out
    if not np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.complexfloating):
        raise InvalidScheduleError(f"{name} must be numeric, got dtype {arr.dtype}", field=name)
    return arr.astype(float, copy=False)


@dataclass(frozen=True, eq=False)
class Schedule:
    """Piecewise-constant rates as pieces ``(flow, start, end, rate)``.

    Parameters
    ----------
    flow : array_like of int, shape (N,)
        Global flow index (``instance.flow_ptr[k] + position``).
    start, end, rate : array_like, shape (N,)
        Floats, or Fractions for an exact schedule.
    meta : dict
        What produced the schedule (algorithm, parameters, seed); not checked by the verifier.

    Examples
    --------
    >>> s = Schedule.from_pieces([0, 1], [0.0, 0.0], [1.0, 2.0], [1.0, 1.0])
    >>> s.num_pieces, s.makespan
    (2, 2.0)
    """

    flow: np.ndarray
    start: np.ndarray
    end: np.ndarray
    rate: np.ndarray
    meta: dict = field(default_factory=dict)

    def __post_init__(self):
        f = object.__setattr__
        fl = np.asarray(self.flow)
        if fl.size == 0:
            fl = fl.astype(np.int64)
        if fl.ndim != 1 or not np.issubdtype(fl.dtype, np.integer):
            raise InvalidScheduleError("flow indices must be a 1-d integer array", field="flow")
        # copy=False: a kernel's output arrays are taken over as they are; copying them would
        # double the peak memory of a 10^7-piece schedule (bench_rates.py, FB trace)
        f(self, "flow", fl.astype(np.int64, copy=False))
        vals = [_as_values(getattr(self, n), n) for n in ("start", "end", "rate")]
        exact = any(v.dtype == object for v in vals)
        if exact:
            vals = [v if v.dtype == object else _as_values(v.astype(object), n)
                    for v, n in zip(vals, ("start", "end", "rate"))]
        for v, n in zip(vals, ("start", "end", "rate")):
            if v.shape != fl.shape:
                raise InvalidScheduleError(
                    f"{n} has {v.shape[0] if v.ndim else 0} entries but flow has {fl.shape[0]}",
                    field=n)
            f(self, n, v)
        f(self, "meta", dict(self.meta))

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_pieces(cls, flow, start, end, rate, meta: Mapping[str, Any] | None = None):
        return cls(flow=flow, start=start, end=end, rate=rate, meta=dict(meta or {}))

    @classmethod
    def empty(cls, exact: bool = False) -> "Schedule":
        dt = object if exact else float
        return cls(np.zeros(0, np.int64), np.zeros(0, dt), np.zeros(0, dt), np.zeros(0, dt))

    @classmethod
    def from_segments(cls, segments: Iterable[tuple[Any, Any, Iterable[tuple[int, Any]]]],
                      meta: Mapping[str, Any] | None = None) -> "Schedule":
        """Build from ``(start, end, [(global_flow, rate), ...])`` segments (one piece each)."""
        fl, st, en, rt = [], [], [], []
        for start, end, rates in segments:
            for f, r in rates:
                fl.append(f)
                st.append(start)
                en.append(end)
                rt.append(r)
        exact = any(isinstance(v, Fraction) for v in st + en + rt)
        dt = object if exact else float
        return cls(np.asarray(fl, dtype=np.int64), np.asarray(st, dtype=dt),
                   np.asarray(en, dtype=dt), np.asarray(rt, dtype=dt), meta=dict(meta or {}))

    # ------------------------------------------------------------------ views
    @property
    def num_pieces(self) -> int:
        return int(self.flow.shape[0])

    @property
    def exact(self) -> bool:
        """True if the values are Fractions (exact arithmetic)."""
        return self.rate.dtype == object

    @property
    def makespan(self):
        """End of the last piece (0 for an empty schedule)."""
        return max(self.end.tolist(), default=0.0 if not self.exact else Fraction(0))

    def to_float(self) -> "Schedule":
        """The same schedule with float64 values."""
        if not self.exact:
            return self
        return Schedule(self.flow, self.start.astype(float), self.end.astype(float),
                        self.rate.astype(float), meta=self.meta)

    def sorted(self) -> "Schedule":
        """Pieces sorted by (flow, start)."""
        order = np.lexsort((self.start, self.flow)) if not self.exact else \
            np.asarray(sorted(range(self.num_pieces),
                              key=lambda i: (self.flow[i], self.start[i])), dtype=np.int64)
        return Schedule(self.flow[order], self.start[order], self.end[order], self.rate[order],
                        meta=self.meta)

    def merged(self) -> "Schedule":
        """Merge consecutive pieces of one flow that touch and have equal rates; drop
        zero-rate pieces.  The rates as functions of time are unchanged."""
        s = self.sorted()
        keep = s.rate != 0
        if self.exact:
            keep = np.asarray([r != 0 for r in s.rate], dtype=bool)
        fl, st, en, rt = s.flow[keep], s.start[keep], s.end[keep], s.rate[keep]
        if fl.size == 0:
            return Schedule(fl, st, en, rt, meta=self.meta)
        joins = (fl[1:] == fl[:-1]) & (st[1:] == en[:-1]) & (rt[1:] == rt[:-1])
        joins = np.asarray(joins, dtype=bool)
        first = np.concatenate([[True], ~joins])
        group = np.cumsum(first) - 1
        last_of_group = np.concatenate([np.flatnonzero(first)[1:] - 1, [fl.size - 1]])
        return Schedule(fl[first], st[first], en[last_of_group], rt[first], meta=self.meta)

    def segments(self) -> Iterator[Segment]:
        """The segment form: cut time at every piece boundary; yield the non-empty segments.

        Segments come in time order; each lists the flows with a positive rate in it.
        """
        s = self.merged()
        if s.num_pieces == 0:
            return
        if s.exact:
            cuts = sorted(set(s.start.tolist()) | set(s.end.tolist()))
            index = {t: i for i, t in enumerate(cuts)}
            si = np.asarray([index[t] for t in s.start.tolist()], dtype=np.int64)
            ei = np.asarray([index[t] for t in s.end.tolist()], dtype=np.int64)
            cuts_arr = np.asarray(cuts, dtype=object)
        else:
            cuts_arr = np.unique(np.concatenate([s.start, s.end]))
            si = np.searchsorted(cuts_arr, s.start)
            ei = np.searchsorted(cuts_arr, s.end)
        n = ei - si
        if np.any(n <= 0):
            raise InvalidScheduleError("a piece has end <= start; cannot form segments")
        piece = np.repeat(np.arange(s.num_pieces), n)
        seg = concat_ranges(si, n)
        order = np.lexsort((s.flow[piece], seg))
        piece, seg = piece[order], seg[order]
        bounds = np.flatnonzero(np.diff(seg)) + 1
        for chunk_p, chunk_s in zip(np.split(piece, bounds), np.split(seg, bounds)):
            j = int(chunk_s[0])
            yield Segment(cuts_arr[j], cuts_arr[j + 1], s.flow[chunk_p], s.rate[chunk_p])

    def __repr__(self) -> str:
        kind = "exact" if self.exact else "float"
        return f"Schedule({self.num_pieces} pieces, {kind}, makespan={self.makespan})"


def concatenate(schedules: Sequence[Schedule], meta: Mapping[str, Any] | None = None) -> Schedule:
    """Union of the pieces of several schedules (no checks)."""
    if not schedules:
        return Schedule.empty()
    exact = any(s.exact for s in schedules)
    conv = [s if (s.exact or not exact) else Schedule(s.flow, s.start.astype(object),
                                                       s.end.astype(object),
                                                       s.rate.astype(object)) for s in schedules]
    return Schedule(np.concatenate([s.flow for s in conv]),
                    np.concatenate([s.start for s in conv]),
                    np.concatenate([s.end for s in conv]),
                    np.concatenate([s.rate for s in conv]), meta=dict(meta or {}))
