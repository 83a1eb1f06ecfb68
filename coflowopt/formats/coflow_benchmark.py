"""The coflow-benchmark trace format (the public Facebook 2010 trace, ``FB2010-1Hr-150-0.txt``).

Format (README of coflow/coflow-benchmark; read the same way by coflowsim)::

    Line 1: <num ports> <num coflows>
    Line i: <coflow id> <arrival ms> <#mappers> <mapper location>... <#reducers> <location:MB>...

Model used by :func:`read_coflow_benchmark`
-------------------------------------------
* Ports ``0 .. P-1`` exist on both sides.  A flow goes from the ingress port of its mapper's
  location to the egress port of its reducer's location; a mapper and a reducer in the same rack
  still use ingress ``i`` and egress ``i`` (4,911 such flows in the FB trace).
* Every reducer's MB is split over the coflow's ``M`` mappers, one flow per (reducer, mapper).
  ``split="uniform"`` divides exactly in float64 (``MB / M``); ``split="coflowsim"`` reproduces
  coflowsim's integer-MB rounding bit for bit (see :func:`coflowsim_flow_mb`).
* Flow order inside a coflow: for each reducer in file order, for each mapper in file order; so
  flow ``r * M + m`` goes from mapper ``m`` to reducer ``r``.
* Time: ``release = arrival_ms / time_unit_ms``.  The default time unit, 7.8125 ms, is the time
  1 MB takes at coflowsim's rack rate of 2**30 bit/s (128 MiB/s), so with the default capacity of
  1 MB per time unit the instance runs at coflowsim's speed.
* Coflow ids are the id tokens as strings (``"1"``, ``"2"``, ...).

Nothing is dropped, merged or rounded silently: every rule below raises
:class:`~coflowopt.exceptions.InvalidInstanceError` naming the file, the 1-based line, the field
and the rule.  A mapper (or reducer) location that appears twice in one coflow is an error: the
format stores at most one mapper and one reducer per rack and coflowsim would merge the two
(``Job.coalesceMappers``/``coalesceReducers``), so neither keeping nor merging them is faithful.

This module also holds the line-level helpers shared with :mod:`.sincronia` (same header, same
counting rules, same units).

References
----------
coflow/coflow-benchmark, README.md and FB2010-1Hr-150-0.txt.
coflow/coflowsim, src/main/java/coflowsim/traceproducers/CoflowBenchmarkTraceProducer.java,
datastructures/ReduceTask.java (``roundToNearestNMB``, ``createFlows``) and datastructures/Job.java
(``coalesceReducers``).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Iterator, NoReturn, Sequence

import numpy as np

from .. import limits
from .._numbers import MAX_EXACT_INT, plain_number
from ..exceptions import InvalidInstanceError, InvalidParameterError, NotSupportedError
from ..instance import Instance
from ._files import expect_kind

__all__ = ["read_coflow_benchmark", "write_coflow_benchmark", "coflowsim_flow_mb",
           "FORMAT_NAME", "DEFAULT_TIME_UNIT_MS", "SPLITS"]

FORMAT_NAME = "coflow-benchmark"
#: 1 MB at 2**30 bit/s (coflowsim's RACK_BITS_PER_SEC), in ms: 1000 / 128.
DEFAULT_TIME_UNIT_MS = 7.8125
SPLITS = ("uniform", "coflowsim")

_MB_BYTES = 1048576
# ASCII digits only: Python's \d (and float()) also take other scripts' digits ('１０', '١٠'),
# which Java's and C++'s readers of these formats reject
_FLOAT = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_FLOAT_RE = re.compile(_FLOAT)
_FLOATS_RE = re.compile(rf"{_FLOAT}(?: {_FLOAT})*")
# Java's BufferedReader.readLine ends lines at \n, \r or \r\n; str.splitlines would also split
# at form feeds and other separators that Java keeps inside a line.
_LINE_BREAK_RE = re.compile(r"\r\n|\r|\n")
# whitespace that str.split() separates fields at but Java's \s+ (coflowsim) and C++'s >>
# (Sincronia) do not: Unicode spaces (U+00A0, U+2003, U+3000, ...) and the ASCII
# separators U+001C..U+001F; such a character would make fields the reference readers see as one
_ODD_SPACE_RE = re.compile(r"[^\S \t\n\x0b\x0c\r]")


# ---------------------------------------------------------------------------------- shared helpers
def _shorten(text: str, most: int = 60) -> str:
    """``text``, or its two ends around an ellipsis: a message stays one short line whatever
    a token holds."""
    return text if len(text) <= most else f"{text[:most // 2]}...{text[-10:]}"


class _Line:
    """Where we are in a trace file, and strict token parsers that raise naming that place."""

    __slots__ = ("file", "line")

    def __init__(self, file: str, line: int):
        self.file = file
        self.line = line

    def bad(self, rule: str, field: str | None = None) -> NoReturn:
        raise InvalidInstanceError(rule, file=self.file, line=self.line, field=field)

    def fields(self, text: str, screen: bool = True) -> list[str]:
        """The line's fields, separated by ASCII whitespace only (see ``_ODD_SPACE_RE``);
        ``screen=False`` when the whole file is known to hold no such character."""
        odd = _ODD_SPACE_RE.search(text) if screen else None
        if odd:
            self.bad(f"character U+{ord(odd.group()):04X} at column {odd.start() + 1} is not a "
                     "field separator (fields are separated by ASCII spaces and tabs)")
        return text.split()

    def uint(self, tok: str, field: str, *, minimum: int = 0) -> int:
        """A non-negative decimal integer token (digits only: no sign, no underscores)."""
        if not (tok.isascii() and tok.isdigit()):
            self.bad(f"must be a non-negative integer, got {_shorten(tok)!r}", field)
        if len(tok.lstrip("0")) > len(str(MAX_EXACT_INT)):  # before int(): no long conversion
            self.bad(f"an integer of {len(tok.lstrip('0'))} digits is too large (at most "
                     "2**53, so that it is exact as a float64)", field)
        v = int(tok)
        if v < minimum:
            self.bad(f"must be >= {minimum}, got {v}", field)
        if v > MAX_EXACT_INT:
            self.bad(f"{v} is too large (at most 2**53, so that it is exact as a float64)", field)
        return v

    def ports(self, toks: Sequence[str], field_fmt: str, num_ports: int) -> np.ndarray:
        """Port index tokens in ``0 .. num_ports-1``; ``field_fmt`` has one ``{}`` for the index."""
        joined = "".join(toks)
        # every token non-empty too: a reducer field ":MB" gives an empty location, which the
        # joined string alone would hide ("" + "3" is digits)
        if joined.isascii() and joined.isdigit() and all(toks):
            arr = np.fromiter(map(int, toks), dtype=np.int64, count=len(toks))
        else:  # slow path only to name the first bad token
            for j, t in enumerate(toks):
                self.uint(t, field_fmt.format(j))
            raise AssertionError("unreachable")
        out = np.flatnonzero(arr >= num_ports)
        if out.size:
            j = int(out[0])
            self.bad(f"port {toks[j]} out of range 0..{num_ports - 1}", field_fmt.format(j))
        return arr

    def sizes(self, toks: Sequence[str], field_fmt: str, *, allow_zero: bool = False
              ) -> np.ndarray:
        """Decimal number tokens that must be finite and > 0 (or >= 0 with ``allow_zero``)."""
        if not _FLOATS_RE.fullmatch(" ".join(toks)):
            for j, t in enumerate(toks):
                if not _FLOAT_RE.fullmatch(t):
                    self.bad(f"size must be a decimal number, got {_shorten(t)!r}",
                             field_fmt.format(j))
        arr = np.fromiter(map(float, toks), dtype=float, count=len(toks))
        ok = np.isfinite(arr) & ((arr >= 0) if allow_zero else (arr > 0))
        bad = np.flatnonzero(~ok)
        if bad.size:
            j = int(bad[0])
            v = arr[j]
            if not np.isfinite(v):
                rule = (f"size must be a finite number; {_shorten(toks[j])!r} is beyond "
                        "float64's range")
            elif v == 0:
                rule = (f"size must be > 0, got {_shorten(toks[j])!r} (zero-size flows are not "
                        "allowed)")
            else:
                rule = f"size must be {'>= 0' if allow_zero else '> 0'}, got {_shorten(toks[j])!r}"
            self.bad(rule, field_fmt.format(j))
        return arr

    def in_range(self, values: np.ndarray, kind: str, label: str, field_fmt: str,
                 index: np.ndarray | None = None) -> None:
        """Raise if a value is outside :data:`coflowopt.limits.RANGES` ``[kind]``; ``index``
        maps positions in ``values`` to the ``{}`` of ``field_fmt`` (default: the same)."""
        j = limits.first_out_of_range(values, kind)
        if j is not None:
            self.bad(f"{label} {limits.value_rule(float(values[j]), kind)}",
                     field_fmt.format(j if index is None else int(index[j])))

    def distinct(self, arr: np.ndarray, field_fmt: str, what: str, why: str) -> None:
        """Raise if a value repeats in ``arr``, naming both positions."""
        # a set, not np.unique: a line's locations are few, and numpy 2.4's np.unique
        # imports numpy.ma (~11 ms of a process that reads the FB trace)
        values = arr.tolist()
        if len(set(values)) == len(values):
            return
        first: dict[int, int] = {}
        for j, v in enumerate(values):
            if v in first:
                self.bad(f"duplicate {what} {v} (also {field_fmt.format(first[v])}); {why}",
                         field_fmt.format(j))
            first[v] = j


def _check_units(capacity: float, time_unit_ms: float) -> None:
    for name, v in (("capacity", capacity), ("time_unit_ms", time_unit_ms)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not (
                math.isfinite(v) and v > 0):
            raise InvalidParameterError(f"{name} (--{name.replace('_', '-')} on the command "
                                        f"line) must be a finite number > 0, got {v!r}")
    rule = limits.value_rule(float(capacity), "capacity")
    if rule:
        raise InvalidParameterError(f"capacity (--capacity on the command line) {rule}")
    # time_unit_ms only divides arrivals; the releases it gives are checked line by line


def _trace_lines(path: str | Path, header_fields: tuple[str, str], format_name: str
                 ) -> tuple[int, Iterator[tuple[_Line, list[str]]]]:
    """Check the header and the coflow-line count; yield ``(where, tokens)`` per coflow line.

    Shared by both trace formats: line 1 is ``<num ports> <num coflows>``, then exactly that many
    non-blank coflow lines; only blank lines may follow them.
    """
    file = str(path)
    expect_kind(path, ("text", "empty"), f"a {format_name} trace (text; line 1 "
                f"'<{header_fields[0]}> <{header_fields[1]}>')", InvalidInstanceError)
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except UnicodeDecodeError as e:
        raise InvalidInstanceError(f"not a UTF-8 text file (bad byte at offset {e.start})",
                                   file=file) from None
    lines = _LINE_BREAK_RE.split(text)
    # the per-line screen only where the file may hold a separator other than ASCII
    # whitespace (isascii and four substring searches: 4 us on the FB trace, the screen
    # of every line ~0.6 ms)
    screen = not text.isascii() or any(c in text for c in "\x1c\x1d\x1e\x1f")
    head = _Line(file, 1)
    toks = head.fields(lines[0], screen)
    if len(toks) != 2:
        head.bad(f"the header must be '<{header_fields[0]}> <{header_fields[1]}>' "
                 f"(2 fields), got {len(toks)} field(s)", "header")
    num_ports = head.uint(toks[0], header_fields[0], minimum=1)
    num_coflows = head.uint(toks[1], header_fields[1], minimum=1)
    for n, limit, fld, name in ((num_ports, limits.MAX_PORTS, header_fields[0], "MAX_PORTS"),
                                (num_coflows, limits.MAX_COFLOWS, header_fields[1],
                                 "MAX_COFLOWS")):
        rule = limits.count_rule(fld.lower().replace("num_", ""), n, limit, name)
        if rule:
            head.bad(rule, fld)

    def body():
        for k in range(num_coflows):
            lineno = k + 2
            if lineno > len(lines) or (not lines[lineno - 1].strip()
                                       and all(not s.strip() for s in lines[lineno - 1:])):
                raise InvalidInstanceError(
                    f"the header announces {num_coflows} coflows but the file has only {k} "
                    "coflow line(s)", file=file, line=lineno, field=header_fields[1])
            where = _Line(file, lineno)
            tokens = where.fields(lines[lineno - 1], screen)
            if not tokens:
                where.bad(f"blank line inside the body: the header announces {num_coflows} "
                          f"coflows and only {k} came before it (blank lines may only follow "
                          "the last coflow)")
            yield where, tokens
        for lineno in range(num_coflows + 2, len(lines) + 1):
            if _Line(file, lineno).fields(lines[lineno - 1], screen):
                raise InvalidInstanceError(
                    f"the header announces {num_coflows} coflows but another non-blank line "
                    "follows them (only blank lines may follow the last coflow)",
                    file=file, line=lineno, field=header_fields[1])

    return num_ports, body()


class _Coflows:
    """The coflows read so far, as per-line arrays; checks ids and builds the Instance."""

    def __init__(self, time_unit_ms: float):
        self.time_unit_ms = time_unit_ms
        self.ids: list[str] = []
        self.release: list[float] = []
        self.first_line: dict[str, int] = {}
        self.src: list[np.ndarray] = []
        self.dst: list[np.ndarray] = []
        self.size: list[np.ndarray] = []
        self.num_flows = 0

    def head(self, where: _Line, toks: list[str]) -> str:
        """Parse and check ``<coflow id> <arrival ms>``; return the id."""
        cid = toks[0]
        where.uint(cid, "coflow_id")
        if cid in self.first_line:
            where.bad(f"duplicate coflow id {cid!r} (first used on line "
                      f"{self.first_line[cid]})", "coflow_id")
        self.first_line[cid] = where.line
        self.ids.append(cid)
        release = where.uint(toks[1], "arrival_ms") / self.time_unit_ms
        rule = limits.value_rule(release, "time")
        if rule:
            where.bad(f"arrival_ms / time_unit_ms = release {rule}", "arrival_ms")
        self.release.append(release)
        return cid

    def reserve(self, where: _Line, n: int) -> None:
        """Refuse a line whose ``n`` flows would take the instance past
        :data:`~coflowopt.limits.MAX_FLOWS` -- before they are allocated."""
        rule = limits.count_rule("flows", self.num_flows + n, limits.MAX_FLOWS, "MAX_FLOWS")
        if rule:
            where.bad(f"this line brings the instance to {rule}", "flows")
        self.num_flows += n

    def flows(self, src: np.ndarray, dst: np.ndarray, size: np.ndarray) -> None:
        self.src.append(src)
        self.dst.append(dst)
        self.size.append(size)

    def build(self, path, num_ports: int, capacity: float, meta: dict) -> Instance:
        counts = [a.size for a in self.src]
        try:
            return Instance.from_arrays(
                ingress_capacity=np.full(num_ports, float(capacity)),
                egress_capacity=np.full(num_ports, float(capacity)), coflow_ids=self.ids,
                flow_coflow=np.repeat(np.arange(len(self.ids), dtype=np.int64), counts),
                flow_src=np.concatenate(self.src), flow_dst=np.concatenate(self.dst),
                flow_size=np.concatenate(self.size), release=np.asarray(self.release),
                meta=meta)
        except InvalidInstanceError as e:  # rules of the whole instance (its dynamic range)
            raise InvalidInstanceError(e.rule, file=str(path), field=e.field) from None


def _unit_meta(path, fmt: str, time_unit_ms: float) -> dict:
    return {"source_file": str(path), "source_format": fmt,
            "units": {"size": "MB", "time": f"{plain_number(time_unit_ms)} ms",
                      "capacity": "MB per time unit"},
            "time_unit_ms": time_unit_ms}


def _check_writable(instance: Instance, fmt: str, *, time_unit_ms: float) -> list[str]:
    """Rules shared by both trace writers; returns the arrival tokens (integer ms)."""
    def refuse(rule: str, python: str | None = None, remedy: str | None = None) -> NoReturn:
        # ``python`` is the call that drops the field explicitly; ``remedy`` names that
        # override for a front end (the command line's --drop-* flags)
        rule = f"cannot write this instance as {fmt}: {rule}"
        raise NotSupportedError(rule if python is None else f"{rule} (use {python} to drop "
                                f"{'them' if remedy != 'drop_subcoflows' else 'the index'} "
                                "explicitly)", rule=rule, remedy=remedy)

    # a trace line names ports; flows on the paths of a topology have no place in it
    instance.require_big_switch(f"writing the {fmt} format")
    if instance.num_ingress != instance.num_egress:
        refuse(f"the format has one port count for both sides, but the instance has "
               f"{instance.num_ingress} ingress and {instance.num_egress} egress ports")
    if not instance.uniform_capacity:
        refuse("the format has no capacities, so every port must have the same capacity "
               "(read it back with capacity=that value)")
    if np.any(instance.weight != 1):
        k = int(np.flatnonzero(instance.weight != 1)[0])
        refuse(f"the format has no weights, but coflow {instance.coflow_ids[k]!r} has weight "
               f"{float(instance.weight[k])!r}", "instance.with_weights(1)", "drop_weights")
    if instance.has_deadlines:
        k = int(np.flatnonzero(~np.isnan(instance.deadline))[0])
        refuse(f"the format has no deadlines, but coflow {instance.coflow_ids[k]!r} has one",
               "instance.without_deadlines()", "drop_deadlines")
    for cid in instance.coflow_ids:
        if not (cid.isascii() and cid.isdigit()):
            refuse(f"coflow id {cid!r} is not a non-negative integer (the format's ids are)")
    if instance.flow_subcoflow is not None:
        # a trace reads back with the default sub-coflows (one per egress port), so that is
        # all it can hold
        f = int(np.flatnonzero(instance.flow_subcoflow != instance._default_subcoflow())[0])
        refuse(f"the format has no sub-coflows, but flow {int(instance.flow_position[f])} of "
               f"coflow {instance.coflow_ids[int(instance.flow_coflow[f])]!r} is not in its "
               "egress port's sub-coflow", "instance.replace(flow_subcoflow=None)",
               "drop_subcoflows")
    return _arrival_tokens(instance, fmt, time_unit_ms)


def _arrival_tokens(instance: Instance, fmt: str, time_unit_ms: float) -> list[str]:
    """Integer ms ``a`` per coflow with ``a / time_unit_ms == release`` exactly."""
    rel = instance.release
    guess = np.rint(rel * time_unit_ms)
    out = np.full(rel.shape, -1, dtype=np.int64)
    # rel * time_unit_ms is off by a rounding or two, so the exact arrival (if any) is the
    # rounded product or a neighbour of it.
    for delta in (0, -1, 1):
        cand = guess + delta
        ok = (out < 0) & (cand >= 0) & (cand <= MAX_EXACT_INT) & (cand / time_unit_ms == rel)
        out[ok] = cand[ok].astype(np.int64)
    missing = np.flatnonzero(out < 0)
    if missing.size:
        k = int(missing[0])
        raise NotSupportedError(
            f"cannot write this instance as {fmt}: the release {float(rel[k])!r} of coflow "
            f"{instance.coflow_ids[k]!r} is not an integer number of ms divided by "
            f"time_unit_ms={time_unit_ms!r} (arrivals are integer ms)")
    return [str(a) for a in out.tolist()]


# ---------------------------------------------------------------------------------- coflowsim split
def coflowsim_flow_mb(reducer_mb: float, num_mappers: int) -> float:
    """Size in MB of each flow coflowsim builds for a reducer of ``reducer_mb`` MB.

    Reproduces coflowsim's arithmetic step by step (Java ``long`` = Python int, ``double`` =
    float; ``(long) x`` truncates, ``long -> double`` rounds to nearest):

    1. ``CoflowBenchmarkTraceProducer.prepareTrace``:
       ``shuffleBytes = Double.parseDouble(MB) * 1048576.0``.
    2. ``ReduceTask`` constructor calls ``roundToNearestNMB(1)``: ``tmp = (long) shuffleBytes;
       numMB = tmp / MULT; if (tmp % MULT > 0) numMB++; shuffleBytes = MULT * numMB`` with
       ``MULT = 1 MB`` -- rounds up to whole MB.
    3. ``Job.coalesceReducers`` adds the reducer into a fresh per-rack reducer (0 + bytes) and
       calls ``roundToNearestNMB(numMappers)`` -- rounds up to a multiple of ``numMappers`` MB.
    4. ``ReduceTask.createFlows``: ``avgFlowSize = shuffleBytes / numMappers`` and
       ``flowSize = Math.max(avgFlowSize, 1048576)`` -- at least 1 MB per flow.

    So the flow is ``max(ceil(ceil(MB) / M), 1)`` MB for ordinary values.  On the FB trace (all
    MB integral and divisible by M) this equals the uniform split.

    Parameters
    ----------
    reducer_mb : float
        The reducer's MB as parsed from the trace (> 0).
    num_mappers : int
        Number of (distinct) mappers of the coflow.

    Returns
    -------
    float
        Flow size in MB (integral).

    Raises
    ------
    NotSupportedError
        If the byte count leaves Java's ``long`` range (coflowsim would overflow).

    Examples
    --------
    >>> coflowsim_flow_mb(10.0, 3), coflowsim_flow_mb(0.2, 4), coflowsim_flow_mb(648.0, 27)
    (4.0, 1.0, 24.0)
    """
    shuffle_bytes = reducer_mb * 1048576.0
    if not shuffle_bytes < 2.0 ** 62:
        raise NotSupportedError(f"{reducer_mb!r} MB overflows coflowsim's 64-bit byte counts")
    for mult in (_MB_BYTES, num_mappers * _MB_BYTES):
        tmp = int(shuffle_bytes)
        num_mb = tmp // mult + (1 if tmp % mult > 0 else 0)
        shuffle_bytes = 0.0 + float(mult * num_mb)
    return max(shuffle_bytes / num_mappers, 1048576.0) / 1048576.0


def _split_mappers_reducers(where: _Line, toks: list[str], m: int) -> tuple[int, list[str]]:
    """Check the field count of a coflow line with ``m`` mappers; return ``(R, reducer fields)``.

    When the counts do not add up, the colon-free fields before the first ``location:MB`` field
    (the mapper locations and the reducer count) tell a wrong mapper count from a wrong reducer
    count.
    """
    n = len(toks)
    plain = next((i for i in range(3, n) if ":" in toks[i]), n)
    counted = toks[3 + m] if n >= 4 + m else ""
    if (counted.isascii() and counted.isdigit() and n - 4 - m == int(counted)
            and plain in (4 + m, n)):
        r = int(counted)
    else:
        if plain < n and plain - 4 != m:
            where.bad(f"num_mappers is {m} but {max(plain - 4, 0)} mapper location(s) stand "
                      "between it and the reducer count", "num_mappers")
        if n < 4 + m:
            where.bad(f"num_mappers is {m} but only {n - 3} field(s) follow it ({m} mapper "
                      "locations and the reducer count expected)", "num_mappers")
        r = where.uint(toks[3 + m], "num_reducers")
        where.bad(f"num_reducers is {r} but {n - 4 - m} reducer field(s) follow it",
                  "num_reducers")
    if r == 0:
        where.bad("a coflow needs at least one reducer (0 reducers would leave it without "
                  "flows)", "num_reducers")
    return r, toks[4 + m:]


# ---------------------------------------------------------------------------------- reader
def read_coflow_benchmark(path: str | Path, *, capacity: float = 1.0,
                          time_unit_ms: float = DEFAULT_TIME_UNIT_MS,
                          split: str = "uniform") -> Instance:
    """Read a coflow-benchmark trace (e.g. the Facebook trace ``FB2010-1Hr-150-0.txt``).

    Parameters
    ----------
    path : str or Path
    capacity : float
        Capacity of every ingress and egress port, in MB per time unit (default 1).
    time_unit_ms : float
        Length of one time unit in ms; ``release = arrival_ms / time_unit_ms``.  The default
        7.8125 ms is the time 1 MB takes at coflowsim's 1 Gbps (2**30 bit/s = 128 MiB/s) rack rate.
    split : {"uniform", "coflowsim"}
        How a reducer's MB is divided among the coflow's ``M`` mappers.  ``"uniform"``: every flow
        gets ``MB / M`` (exact float64 division).  This is what the public simulator does --
        coflowsim's javadoc: "Each reducer's shuffle is equally divided across mappers; i.e.,
        reduce-side skew is intact, while map-side skew is lost" -- so map-side skew is lost here
        too.  ``"coflowsim"``: coflowsim's integer-MB rounding, bit for bit
        (:func:`coflowsim_flow_mb`).  The two agree on the FB trace.

    Returns
    -------
    Instance
        Ports ``0..P-1`` on both sides; coflow ids are the id tokens; flows of a coflow ordered
        reducer by reducer (file order), mapper by mapper (file order) inside each; weights 1,
        no deadlines.  ``meta`` holds ``source_file``, ``source_format``, ``units``, ``split``
        and ``time_unit_ms``.

    Raises
    ------
    InvalidInstanceError
        Naming file, line and field, for: a header that is not two integers; a coflow count that
        disagrees with the body (blank lines may only trail it); a line whose field count
        disagrees with its mapper or reducer count (or has trailing fields); counts, ids or
        arrivals that are not non-negative integers; zero mappers or zero reducers; duplicate
        coflow ids; duplicate mapper or reducer locations within a coflow; a port outside
        ``0..P-1``; a reducer field without ``location:MB``; an MB that is not a finite decimal
        number > 0; a flow size (MB / mappers), release (arrival / ``time_unit_ms``), port,
        coflow or flow count outside :mod:`coflowopt.limits` (counts refused before anything is
        allocated for them); a file that is not a text file (named as what it is).
    InvalidParameterError
        For a bad ``capacity`` (also one outside :mod:`coflowopt.limits`), ``time_unit_ms`` or
        ``split``.

    Notes
    -----
    Both splits keep the file's flow order (reducers, then mappers); coflowsim itself re-orders
    mappers and reducers by rack index, which changes no size.  Duplicate mapper (or reducer)
    locations in one coflow are refused rather than kept or merged: the format has at most one
    of each per rack, and coflowsim would merge them (``Job.coalesceMappers`` and
    ``coalesceReducers``) and divide by the number of distinct mapper racks.  Reading the FB
    trace takes about 0.03 s.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.txt"
    >>> _ = p.write_text("3 1\\n7 0 2 0 1 1 2:10.0\\n")
    >>> inst = read_coflow_benchmark(p)
    >>> inst.coflow_ids, inst.flow_src.tolist(), inst.flow_dst.tolist(), inst.flow_size.tolist()
    (('7',), [0, 1], [2, 2], [5.0, 5.0])

    References
    ----------
    coflow/coflow-benchmark README.md (the format); coflow/coflowsim
    src/main/java/coflowsim/traceproducers/CoflowBenchmarkTraceProducer.java (how it is read).
    """
    _check_units(capacity, time_unit_ms)
    if split not in SPLITS:
        raise InvalidParameterError(f"split must be one of {SPLITS}, got {split!r}")
    num_ports, body = _trace_lines(path, ("num_ports", "num_coflows"), FORMAT_NAME)
    read = _Coflows(time_unit_ms)
    for where, toks in body:
        n = len(toks)
        if n < 3:
            where.bad("expected '<coflow id> <arrival ms> <#mappers> <locations...> <#reducers> "
                      f"<location:MB...>', got only {n} field(s)")
        read.head(where, toks)
        m = where.uint(toks[2], "num_mappers")
        if m == 0:
            where.bad("a coflow needs at least one mapper (0 mappers would leave it without "
                      "flows)", "num_mappers")
        r, rtoks = _split_mappers_reducers(where, toks, m)
        mappers = where.ports(toks[3:3 + m], "mappers[{}]", num_ports)
        where.distinct(mappers, "mappers[{}]", "mapper location",
                       "the format has at most one mapper per rack (coflowsim would merge them)")
        pairs = [t.split(":") for t in rtoks]
        for j, p in enumerate(pairs):
            if len(p) != 2:
                where.bad(f"a reducer field must be 'location:MB' with one colon, got "
                          f"{_shorten(rtoks[j])!r}", f"reducers[{j}]")
        rloc = where.ports([p[0] for p in pairs], "reducers[{}].location", num_ports)
        where.distinct(rloc, "reducers[{}].location", "reducer location",
                       "the format has at most one reducer per rack (coflowsim would merge them)")
        mb = where.sizes([p[1] for p in pairs], "reducers[{}].MB")
        if split == "uniform":
            per_flow = mb / m
        else:
            try:
                per_flow = np.array([coflowsim_flow_mb(v, m) for v in mb.tolist()])
            except NotSupportedError as e:
                where.bad(str(e), "reducers")
        under = np.flatnonzero(per_flow <= 0)
        if under.size:
            where.bad(f"MB {float(mb[under[0]])!r} / {m} mappers underflows to a zero-size flow",
                      f"reducers[{under[0]}].MB")
        where.in_range(per_flow, "size", f"MB / {m} mappers = flow size", "reducers[{}].MB")
        read.reserve(where, m * r)
        read.flows(np.tile(mappers, r), np.repeat(rloc, m), np.repeat(per_flow, m))
    meta = _unit_meta(path, FORMAT_NAME, time_unit_ms)
    meta["split"] = split
    return read.build(path, num_ports, capacity, meta)


# ---------------------------------------------------------------------------------- writer
def _grid(instance: Instance, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mappers, reducers and per-reducer MB of coflow ``k``, or NotSupportedError."""
    sl = instance.coflow_flows(k)
    s, d, z = instance.flow_src[sl], instance.flow_dst[sl], instance.flow_size[sl]
    cid = instance.coflow_ids[k]

    def refuse(rule: str) -> NoReturn:
        raise NotSupportedError(f"cannot write coflow {cid!r} (coflows[{k}]) as {FORMAT_NAME}: "
                                f"{rule}")

    n = s.size
    first_run = np.flatnonzero(d != d[0])
    m = int(first_run[0]) if first_run.size else n
    if n % m:
        refuse(f"its {n} flows are not a mappers x reducers grid (the first reducer has {m} "
               "flows)")
    r = n // m
    s2, d2, z2 = s.reshape(r, m), d.reshape(r, m), z.reshape(r, m)
    if not (np.all(s2 == s2[0]) and np.all(d2 == d2[:, :1])):
        refuse("its flows are not a complete mappers x reducers grid in the reader's order "
               "(for each reducer, one flow from each mapper, mappers in the same order)")
    if np.unique(s2[0]).size != m or np.unique(d2[:, 0]).size != r:
        refuse("a mapper or reducer location repeats (the format has at most one per rack)")
    if not np.all(z2 == z2[:, :1]):
        refuse("the flows into one reducer differ in size (the format stores one MB per "
               "reducer, split equally over the mappers)")
    return s2[0], d2[:, 0], _reducer_mb(z2[:, 0], m, refuse)


def _reducer_mb(flow_size: np.ndarray, m: int, refuse) -> np.ndarray:
    """MB values whose float64 division by ``m`` gives back ``flow_size`` exactly.

    ``size * m`` is within two roundings of the MB the size was read from, so that MB is one of
    its nearest neighbours; among the neighbours that read back exactly we take the shortest
    repr, which is the token a trace file most likely held (``0.3``, not ``0.30000000000000004``).
    """
    guess = flow_size * m
    out = guess.copy()
    easy = (guess / m == flow_size) & (guess == np.round(guess))
    for i in np.flatnonzero(~easy).tolist():
        size, best = float(flow_size[i]), None
        cands = [float(guess[i])]
        for direction in (math.inf, 0.0):
            c = float(guess[i])
            for _ in range(3):
                c = math.nextafter(c, direction)
                cands.append(c)
        for c in cands:
            if math.isfinite(c) and c / m == size and (best is None
                                                       or len(repr(c)) < len(repr(best))):
                best = c
        if best is None:
            refuse(f"flow size {size!r} is not MB / {m} for any float64 MB")
        out[i] = best
    return out


def _format_line(cid: str, arrival: str, mappers, reducers, mb) -> str:
    """One coflow line: ``65:1.0``-style reducer fields, as the FB trace writes them."""
    return " ".join([cid, arrival, str(len(mappers)), *map(str, mappers), str(len(reducers)),
                     *(f"{r}:{v!r}" for r, v in zip(reducers, mb))])


def write_coflow_benchmark(instance: Instance, path: str | Path, *,
                           time_unit_ms: float = DEFAULT_TIME_UNIT_MS) -> None:
    """Write an instance as a coflow-benchmark trace that reads back to the same instance.

    Reading the file back with ``read_coflow_benchmark(path, capacity=c,
    time_unit_ms=time_unit_ms)`` (uniform split, ``c`` the instance's capacity) gives an equal
    instance; a trace read with the uniform split is written back byte for byte (reducer MB as
    Python's shortest float repr, e.g. ``65:1.0``).

    Parameters
    ----------
    instance : Instance
    path : str or Path
    time_unit_ms : float
        Arrival ms = release * time_unit_ms, written as the integer that reads back exactly.

    Raises
    ------
    NotSupportedError
        Naming the coflow and the rule, unless: ingress and egress port counts are equal; all
        capacities are equal; weights are 1 and there are no deadlines (the format has neither);
        ids are non-negative integers; each coflow is a complete mappers x reducers grid in the
        reader's order with distinct locations and equal sizes into each reducer; each release is
        ``a / time_unit_ms`` for an integer ``a`` >= 0.
    InvalidParameterError
        For a bad ``time_unit_ms``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("1", [(0, 1, 2.0), (2, 1, 2.0)])],
    ...                              num_ingress=3, num_egress=3)
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.txt"
    >>> write_coflow_benchmark(inst, p)
    >>> p.read_text()
    '3 1\\n1 0 2 0 2 1 1:4.0\\n'

    References
    ----------
    coflow/coflow-benchmark README.md.
    """
    _check_units(1.0, time_unit_ms)
    arrivals = _check_writable(instance, FORMAT_NAME, time_unit_ms=time_unit_ms)
    out = [f"{instance.num_ingress} {instance.num_coflows}"]
    for k, cid in enumerate(instance.coflow_ids):
        mappers, reducers, mb = _grid(instance, k)
        out.append(_format_line(cid, arrivals[k], mappers.tolist(),
                                 reducers.tolist(), mb.tolist()))
    Path(path).write_text("\n".join(out) + "\n", encoding="utf-8")
