"""Reading and writing schedules: the JSON segment form and the columnar ``.npz`` piece form.

JSON (``.json``), version 1 -- exactly this shape, one segment per line::

    {"format": "coflowopt-schedule", "version": 1, "segments": [
      {"start": 0, "end": 2, "rates": [[coflow_position, flow_position, rate], ...]},
      ...]}

* Positions index the instance's coflows and that coflow's flows (0-based), so a schedule
  file is meaningful only together with its instance.
* Segments are :meth:`Schedule.segments`: time order, positive-rate flows only.
* Numbers are written by :func:`~coflowopt._numbers.plain_number`: integral values as integers,
  floats as their shortest repr, and -- in exact schedules -- Fractions that are not dyadic as
  strings ``"p/q"``.  A document with such a string reads back as an exact schedule.
* The reader checks the document (keys, types, finite numbers, positions in range, times and
  rates within :mod:`coflowopt.limits`, at most ``MAX_NUMBER_DIGITS`` digits in any part of a
  ``"p/q"``) and raises :class:`~coflowopt.exceptions.InvalidScheduleError` naming the place,
  e.g. ``segments[12].rates[3][1]``.  It does not judge feasibility (overlaps, negative rates,
  capacities, completion): that is :func:`coflowopt.verify.verify_schedule`'s job, and the
  reader stores ``meta["segment_of_piece"]`` so that the verifier can name segments.
* Reading merges: a flow's entries in consecutive segments that touch (``end`` of one ==
  ``start`` of the next, both of positive length), with equal rates, the flow once in each,
  become one piece -- the rates as functions of time are unchanged, and a file written from P
  pieces reads back as those P pieces (not one per rate entry).  ``segment_of_piece`` is then
  the segment of a piece's first entry.  ``merge=False`` gives one piece per entry.
* Both directions stream.  The writer sweeps over the sorted cut times, formatting a chunk of
  segments at a time; the reader takes a file in the one-segment-per-line layout a block at a
  time (the writer's exact spelling through a compiled scanner, any other line through
  ``json``) and parses any other layout whole.  Bytes written, schedules read and errors
  raised are those of the whole-document forms (:func:`schedule_to_dict` + ``json.dumps``,
  ``json.load`` + :func:`schedule_from_dict`); the FB trace's greedy schedule (1.8M pieces,
  56M rate entries, about 1 GB) goes either way in seconds and a few hundred MB.

NPZ (``.npz``), for large schedules (millions of pieces): numpy arrays ``flow`` (global flow
index), ``coflow``, ``flow_position``, ``start``, ``end``, ``rate`` (one entry per piece) and
0-d arrays ``format = "coflowopt-schedule-pieces"``, ``version = 1``, ``num_flows``,
``num_coflows``.  Float64 only.  Before any array is allocated, each member's declared shape
and dtype must account for exactly the bytes the archive holds for it (a small file cannot make
the reader allocate a large array), pickled objects are refused, and the values must lie
within :mod:`coflowopt.limits`.

Every reader names the kind of file it got when it is not the kind it reads (a directory, an
empty or binary file, a ``.npy`` array, a zip archive, a JSON document), and every writer
refuses a value its reader would refuse.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import re
import zipfile
import zlib
from fractions import Fraction
from itertools import chain, pairwise
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from .. import limits
from .._numbers import MAX_EXACT_INT, plain_number, strict_float
from ..exceptions import InvalidParameterError, InvalidScheduleError, NotSupportedError
from ..instance import Instance
from ..schedule import Schedule
from ._files import JSONConstantError, expect_kind, json_value_error_rule, locate_json_constant
from .instance_json import _reject_constant, _reject_duplicate_keys, load_json_document
from .._index_ranges import concat_ranges

__all__ = ["read_schedule", "write_schedule", "schedule_to_dict", "schedule_from_dict",
           "dumps_schedule", "read_schedule_json", "write_schedule_json", "read_schedule_npz",
           "write_schedule_npz", "NpzPieceWriter", "SCHEDULE_FORMATS", "FORMAT_NAME", "PIECES_FORMAT_NAME",
           "FORMAT_VERSION"]

FORMAT_NAME = "coflowopt-schedule"
PIECES_FORMAT_NAME = "coflowopt-schedule-pieces"
FORMAT_VERSION = 1
_TOP_KEYS = ("format", "version", "segments")
_SEGMENT_KEYS = ("start", "end", "rates")
_FRACTION_RE = re.compile(r"[+-]?\d+/\d+")
_NPZ_SCALARS = ("format", "version", "num_flows", "num_coflows")
_NPZ_INDEX = ("flow", "coflow", "flow_position")
_NPZ_VALUES = ("start", "end", "rate")


def _check_flows(schedule: Schedule, instance: Instance) -> None:
    fl = schedule.flow
    bad = np.flatnonzero((fl < 0) | (fl >= instance.num_flows))
    if bad.size:
        raise InvalidScheduleError(
            f"flow index {fl[bad[0]]} out of range 0..{instance.num_flows - 1}: the schedule "
            "does not belong to this instance", field=f"flow[{bad[0]}]")


def _check_writable(schedule: Schedule, instance: Instance) -> None:
    """Flows in range and values the readers accept: finite, and within
    :mod:`coflowopt.limits` (so that every file written reads back)."""
    _check_flows(schedule, instance)
    for name, kind in (("start", "schedule_time"), ("end", "schedule_time"), ("rate", "rate")):
        values = getattr(schedule, name)
        if not schedule.exact:
            bad = np.flatnonzero(~np.isfinite(values))
            if bad.size:
                raise InvalidScheduleError(f"{name} must be finite, got "
                                           f"{float(values[bad[0]])!r}",
                                           field=f"{name}[{bad[0]}]")
            i = limits.first_out_of_range(values, kind)
            rule = None if i is None else limits.value_rule(float(values[i]), kind)
        else:
            i, rule = next(((i, r) for i, v in enumerate(values.tolist())
                            if (r := limits.value_rule(v, kind))), (None, None))
        if rule:
            raise InvalidScheduleError(f"cannot write a {name} the readers would refuse: "
                                       f"{name} {rule}", field=f"{name}[{i}]")


# ---------------------------------------------------------------------------------- JSON
def _segment_dicts(schedule: Schedule, instance: Instance):
    _check_writable(schedule, instance)
    cof, pos = instance.flow_coflow, instance.flow_position
    for seg in schedule.segments():
        rates = [plain_number(r) for r in seg.rates.tolist()]
        yield {"start": plain_number(seg.start), "end": plain_number(seg.end),
               "rates": [list(t) for t in zip(cof[seg.flows].tolist(), pos[seg.flows].tolist(),
                                              rates)]}


def schedule_to_dict(schedule: Schedule, instance: Instance) -> dict[str, Any]:
    """The JSON document of a schedule (see the module docstring for the shape).

    Raises
    ------
    InvalidScheduleError
        If a piece names a flow outside the instance, has a non-finite value, or has
        ``end <= start`` (segments cannot be formed).
    """
    return {"format": FORMAT_NAME, "version": FORMAT_VERSION,
            "segments": list(_segment_dicts(schedule, instance))}


def dumps_schedule(schedule: Schedule, instance: Instance) -> str:
    """Serialise with one segment per line (valid JSON, diff-friendly).

    The text of :func:`write_schedule_json`; for large schedules write the file instead, which
    never holds the whole text in memory.
    """
    return "".join(_document_chunks(schedule, instance))


def write_schedule_json(schedule: Schedule, instance: Instance, path: str | Path) -> None:
    """Write a schedule as coflowopt-schedule JSON (segment form; exact round trip).

    The document is generated and written in chunks of about ``_WRITE_CHUNK_ENTRIES`` rate
    entries, so memory stays bounded however many segments the schedule has.

    Raises
    ------
    InvalidScheduleError
        If a piece names a flow outside the instance, has a non-finite value, or has
        ``end <= start``; raised before the file is opened.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from coflowopt import Instance, Coflow, Schedule
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0)]), Coflow("B", [(1, 1, 1.0)])])
    >>> s = Schedule.from_pieces([0, 1], [0.0, 0.0], [2.0, 0.5], [1.0, 2.0])
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.json"
    >>> write_schedule_json(s, inst, p)
    >>> print(p.read_text(), end="")
    {"format": "coflowopt-schedule", "version": 1, "segments": [
      {"start": 0, "end": 0.5, "rates": [[0, 0, 1], [1, 0, 2]]},
      {"start": 0.5, "end": 2, "rates": [[0, 0, 1]]}
    ]}

    Notes
    -----
    Running time O(P log P + E) for P pieces and E rate entries (segments x active flows);
    memory O(P) plus one chunk.  The FB trace's greedy schedule (1.8M pieces, 56M entries,
    about 1 GB of text) is written in seconds.
    """
    chunks = _document_chunks(schedule, instance)  # checks the schedule before the file opens
    # The text is ASCII (json.dumps escapes the rest); encoding it ourselves and writing bytes
    # is several times faster than a text-mode file.  Lines end as Path.write_text ends them.
    with open(path, "wb") as fh:
        for text in chunks:
            if os.linesep != "\n":
                text = text.replace("\n", os.linesep)
            fh.write(text.encode("ascii"))


#: rate entries generated per chunk by the streaming writer (about 20 bytes each)
_WRITE_CHUNK_ENTRIES = 1 << 19


def _number_text(v: Any) -> str:
    """``v`` as ``json.dumps(plain_number(v))`` writes it."""
    x = plain_number(v)
    return json.dumps(x) if type(x) is str else repr(x)


def _document_chunks(schedule: Schedule, instance: Instance,
                     chunk_entries: int = _WRITE_CHUNK_ENTRIES):
    """Check the schedule, then return an iterator over the document text in chunks.

    The checks run on the call (not on the first ``next``), so that a writer fails before it
    touches the file.
    """
    _check_writable(schedule, instance)
    s = schedule.merged()
    P = s.num_pieces
    if s.exact:
        cuts = np.asarray(sorted(set(s.start.tolist()) | set(s.end.tolist())), dtype=object)
        rank = {t: i for i, t in enumerate(cuts.tolist())}
        first_cut = np.fromiter((rank[t] for t in s.start.tolist()), np.int64, P)
        stop_cut = np.fromiter((rank[t] for t in s.end.tolist()), np.int64, P)
    else:
        cuts, cut_of = np.unique(np.concatenate([s.start, s.end]), return_inverse=True)
        first_cut, stop_cut = cut_of[:P], cut_of[P:]
    if np.any(stop_cut <= first_cut):
        raise InvalidScheduleError("a piece has end <= start; cannot form segments")
    return _sweep_text(s, instance, cuts, first_cut, stop_cut, max(1, int(chunk_entries)))


def _sweep_text(s: Schedule, instance: Instance, cuts: np.ndarray, first_cut: np.ndarray,
                stop_cut: np.ndarray, chunk_entries: int):
    """Sweep over the cut intervals, a chunk of intervals at a time, yielding document text.

    Interval ``j`` is ``[cuts[j], cuts[j + 1])``; piece ``p`` covers intervals
    ``first_cut[p] .. stop_cut[p] - 1``.  The pieces are :meth:`Schedule.merged`'s, sorted by
    (flow, start), so listing a segment's pieces in piece order lists its flows in the order of
    :meth:`Schedule.segments`.  Only the pieces that touch the current chunk are formatted.
    """
    head = f'{{"format": "{FORMAT_NAME}", "version": {FORMAT_VERSION}, "segments": ['
    if s.num_pieces == 0:
        yield head + "]}\n"
        return
    n_int = cuts.size - 1
    # entries per interval: +1 where a piece starts, -1 where it stops
    active = np.cumsum(np.bincount(first_cut, minlength=cuts.size)
                       - np.bincount(stop_cut, minlength=cuts.size))[:n_int]
    before = np.concatenate([[0], np.cumsum(active)])  # entries in the intervals before j
    by_start = np.argsort(first_cut, kind="stable")
    sorted_first = first_cut[by_start]
    cof, pos = instance.flow_coflow[s.flow], instance.flow_position[s.flow]
    carried = np.zeros(0, np.int64)  # pieces still running at the chunk's first interval
    taken = 0                         # pieces of by_start already active
    opener = head + "\n  "
    j0 = 0
    while j0 < n_int:
        # as many intervals as fit the entry budget (at least one), at most 2**16 - 1 so that
        # the stable sort below is a radix sort on uint16 keys
        j1 = int(np.searchsorted(before, before[j0] + chunk_entries, side="right")) - 1
        j1 = min(max(j1, j0 + 1), j0 + 65535, n_int)
        upto = int(np.searchsorted(sorted_first, j1, side="left"))
        act = np.sort(np.concatenate([carried, by_start[taken:upto]]))
        taken = upto
        lo = np.maximum(first_cut[act], j0)
        cnt = np.minimum(stop_cut[act], j1) - lo
        carried = act[stop_cut[act] > j1]
        # (piece, interval) pairs, piece-major; a stable sort by interval keeps piece order
        # within each interval
        local = concat_ranges(lo - j0, cnt)
        entry = np.repeat(np.arange(act.size), cnt)[np.argsort(local.astype(np.uint16),
                                                                kind="stable")]
        # tokens: ", [c, f, r]" per active piece, the same without ", " (first entry of a
        # segment), then one segment opener per non-empty interval
        rates = s.rate[act]
        if s.exact:
            rate_text = [_number_text(v) for v in rates.tolist()]
        else:
            uniq, which = np.unique(rates, return_inverse=True)
            texts = [_number_text(v) for v in uniq.tolist()]
            rate_text = [texts[k] for k in which.tolist()]
        bare = [f"[{c}, {f}, {r}]" for c, f, r in zip(cof[act].tolist(), pos[act].tolist(),
                                                        rate_text)]
        tokens = [", " + t for t in bare] + bare
        counts = active[j0:j1]
        busy = np.flatnonzero(counts)
        cut_text = [_number_text(v) for v in cuts[j0:j1 + 1].tolist()]
        for j in busy.tolist():
            tokens.append(f'{opener}{{"start": {cut_text[j]}, "end": {cut_text[j + 1]}, '
                          '"rates": [')
            opener = "]},\n  "
        seg_first = np.cumsum(counts[busy]) - counts[busy]  # first entry of each segment
        entry[seg_first] += act.size
        ids = np.insert(entry, seg_first, 2 * act.size + np.arange(busy.size))
        yield "".join(map(tokens.__getitem__, ids.tolist()))
        j0 = j1
    yield "]}\n]}\n"


def schedule_from_dict(doc: Any, instance: Instance, *, file: str | None = None,
                       exact: bool | None = None, merge: bool = False) -> Schedule:
    """Validate a parsed coflowopt-schedule document and build the :class:`Schedule`.

    Parameters
    ----------
    doc : object
        The parsed JSON.
    instance : Instance
        The instance the positions refer to.
    file : str, optional
        Named in error messages and recorded in ``meta["source_file"]``.
    exact : bool, optional
        ``None`` (default): exact (Fractions) iff the document holds a ``"p/q"`` string.
        ``True``: always exact (floats convert exactly).  ``False``: always float64 (``"p/q"``
        strings are rounded to the nearest float).
    merge : bool
        ``False`` (default): one piece per rate entry, in document order.  ``True``: an entry
        continues the piece of the same flow in the previous segment when the two segments
        touch (``end == next start``, both of positive length), the rates are equal and the
        flow occurs once in each; pieces then come in the order of their first entry.

    Returns
    -------
    Schedule
        ``meta["segment_of_piece"]`` (int64 array) gives each piece's segment index -- with
        ``merge=True`` the segment of its first entry.

    Raises
    ------
    InvalidScheduleError
        Naming the place (``segments[12].rates[3][1]``) and the rule, for: a missing or unknown
        key, a wrong format name or version, a value of the wrong type, a number that is NaN,
        infinite or (in float mode) an integer float64 cannot hold exactly, a malformed
        ``"p/q"`` string, a coflow or flow position out of range.
    """
    def bad(rule: str, fld: str) -> NoReturn:
        raise InvalidScheduleError(rule, file=file, field=fld)

    if not isinstance(doc, dict):
        bad("the document must be a JSON object", "(top level)")
    if doc.get("format") == "coflowopt-instance":
        bad(f"this is an instance document, expected a {FORMAT_NAME!r} document", "format")
    _check_keys(doc, _TOP_KEYS, "(top level)", bad)
    if doc["format"] != FORMAT_NAME:
        hint = " (this is an instance document)" if doc["format"] == "coflowopt-instance" else ""
        bad(f"must be {FORMAT_NAME!r}, got {doc['format']!r}{hint}", "format")
    if type(doc["version"]) is not int or doc["version"] != FORMAT_VERSION:
        bad(f"unsupported version {doc['version']!r}; this reader knows version "
            f"{FORMAT_VERSION}", "version")
    segs = doc["segments"]
    if not isinstance(segs, list):
        bad("must be a list of segments", "segments")

    def build(exact_mode):
        pieces = _SegmentsToPieces(instance, file, exact_mode, merge)
        for seg in segs:
            pieces.add(seg)
        return pieces.finish()

    try:
        return build(exact)
    except _NeedExact:  # a "p/q" string and exact=None: the whole document is exact
        return build(True)


def _check_keys(d: dict, keys: tuple[str, ...], where: str, bad) -> None:
    missing = [k for k in keys if k not in d]
    if missing:
        bad(f"missing key(s) {missing}; required: {list(keys)}", where)
    unknown = sorted(set(d) - set(keys))
    if unknown:
        bad(f"unknown key(s) {unknown}; allowed: {list(keys)}", where)


def _check_value(v: Any, fld: str, bad, kind: str) -> bool:
    """Check a number or ``"p/q"`` string, and that it lies in :mod:`coflowopt.limits`' range
    for ``kind`` (``schedule_time`` or ``rate``); return True for a string."""
    t = type(v)
    if t is float:
        if not math.isfinite(v):  # NaN and Infinity are refused by the parser: an overflow
            bad(f"must be finite, got {v!r} (a literal beyond float64's range, such as 1e999, "
                "reads as infinity)", fld)
    elif t is str:
        if not _FRACTION_RE.fullmatch(v):
            bad(f"a string number must be an exact fraction 'p/q', got {_shorten(v)!r}", fld)
        rule = limits.digits_rule(v)
        if rule:  # before int(): no 5,000-digit conversion, and no Python digit limit
            bad(rule, fld)
        p, q = v.split("/")
        if int(q) == 0:
            bad(f"zero denominator in {v!r}", fld)
        v = Fraction(int(p), int(q))
    elif t is not int:
        bad(f"must be a number or a 'p/q' string, got {_shorten(repr(v))}", fld)
    rule = limits.value_rule(v, kind)
    if rule:
        bad(f"{'time' if kind == 'schedule_time' else kind} {rule}", fld)
    return t is str


def _shorten(text: str, most: int = 60) -> str:
    """``text``, or its two ends around an ellipsis when it is longer than ``most``: an error
    message stays one short line whatever the file holds."""
    return text if len(text) <= most else f"{text[:most // 2]}...{text[-10:]}"


def _check_segment(seg: Any, i: int, num_coflows: int, width: list[int], bad) -> None:
    """Every rule of one segment, checked in document order (the first break is raised)."""
    where = f"segments[{i}]"
    if not isinstance(seg, dict):
        bad("a segment must be a JSON object", where)
    _check_keys(seg, _SEGMENT_KEYS, where, bad)
    for key in ("start", "end"):
        _check_value(seg[key], f"{where}.{key}", bad, "schedule_time")
    entries = seg["rates"]
    if not isinstance(entries, list):
        bad("must be a list of [coflow_position, flow_position, rate]", f"{where}.rates")
    for j, e in enumerate(entries):
        if type(e) is not list or len(e) != 3:
            bad("a rate entry is [coflow_position, flow_position, rate]", f"{where}.rates[{j}]")
        c, f, r = e
        if type(c) is not int or not 0 <= c < num_coflows:
            bad(f"coflow position must be an integer in 0..{num_coflows - 1}, got {c!r}",
                f"{where}.rates[{j}][0]")
        if type(f) is not int or not 0 <= f < width[c]:
            bad(f"flow position must be an integer in 0..{width[c] - 1} (coflow {c} has "
                f"{width[c]} flows), got {f!r}", f"{where}.rates[{j}][1]")
        _check_value(r, f"{where}.rates[{j}][2]", bad, "rate")


class _NeedExact(Exception):
    """Raised in float mode with ``exact=None`` at the first ``"p/q"`` string: start again
    exact."""


class _NotStreamable(Exception):
    """The file is not in the one-segment-per-line layout: parse it whole."""


#: rate entries validated and merged per batch by the reader
_READ_BATCH_ENTRIES = 1 << 18
_NUMBER_TYPES = frozenset((int, float))
_SEGMENT_KEY_SET = frozenset(_SEGMENT_KEYS)


class _SegmentsToPieces:
    """Validate segments in document order and turn their rate entries into pieces.

    Segments come as parsed JSON (:meth:`add`) or as arrays from the line scanner
    (:meth:`add_scanned`), and are processed a batch at a time with numpy.  A batch is first
    checked with a few whole-batch type and range tests; only a batch that fails them (an error,
    a ``"p/q"`` string, an integer beyond 2**53) goes through :func:`_check_segment` entry by
    entry, which raises the first broken rule.  The first error is kept and raised by
    :meth:`finish` -- so that the streaming reader can still find a syntax error further on,
    which the whole-document parser would have raised first -- and later segments are ignored.

    Float-mode conversion errors (an integer float64 cannot hold) are raised after all
    structural checks, first those of a start, then of an end, then of a rate, as the rules
    were always applied.
    """

    def __init__(self, instance: Instance, file: str | None, exact: bool | None, merge: bool,
                 batch_entries: int = _READ_BATCH_ENTRIES):
        self.file, self.exact, self.merge = file, exact, merge
        self.fractions = exact is True
        self.num_coflows = instance.num_coflows
        self.width, self.width_list = instance.width, instance.width.tolist()
        self.flow_ptr = instance.flow_ptr
        self.batch_entries = batch_entries
        self.pending: list[Any] = []
        self.pending_entries = 0
        self.num_segments = 0   # segments processed
        self.num_entries = 0    # rate entries processed
        self.error: InvalidScheduleError | None = None
        self.conversion_errors: dict[str, tuple[str, str]] = {}
        vdt = object if self.fractions else float
        self.starts: list[np.ndarray] = []
        self.ends: list[np.ndarray] = []
        # pieces with an entry in the last processed segment: (flow, rate, first_seg, order)
        self.open = (np.zeros(0, np.int64), np.zeros(0, vdt), np.zeros(0, np.int64),
                     np.zeros(0, np.int64))
        self.closed: list[tuple[np.ndarray, ...]] = []  # (flow, rate, first, last, order)

    def bad(self, rule: str, fld: str) -> NoReturn:
        raise InvalidScheduleError(rule, file=self.file, field=fld)

    def add(self, seg: Any) -> None:
        """One parsed segment (checked with the others of its batch)."""
        if self.error is not None:
            return
        self.pending.append(seg)
        rates = seg.get("rates") if type(seg) is dict else None
        self.pending_entries += len(rates) if type(rates) is list else 1
        if self.pending_entries >= self.batch_entries:
            self._flush()

    def add_scanned(self, starts, ends, counts, cpos, fpos, rates, texts) -> None:
        """Segments read by :func:`_scan_segment_lines` (well-formed JSON of the right types);
        ``texts()`` gives their lines, parsed and checked one by one if a value is out of
        range."""
        self._flush()
        if self.error is None and not self._take(starts, ends, counts, cpos, fpos, rates):
            for text in texts():
                self.add(_STRICT_JSON.raw_decode(text, 2)[0])

    # ------------------------------------------------------------------ a batch
    def _flush(self) -> None:
        segs, self.pending, self.pending_entries = self.pending, [], 0
        if not segs or self.error is not None:
            return
        try:
            if not self._fast(segs):
                self._careful(segs)
        except InvalidScheduleError as e:
            self.error = e

    def _fast(self, segs: list) -> bool:
        """Whole-batch type checks, then :meth:`_take`; False if the batch needs
        :meth:`_careful`."""
        if not all(type(s) is dict and s.keys() == _SEGMENT_KEY_SET for s in segs):
            return False
        starts = [s["start"] for s in segs]
        ends = [s["end"] for s in segs]
        lists = [s["rates"] for s in segs]
        if not (set(map(type, starts)) <= _NUMBER_TYPES and set(map(type, ends)) <= _NUMBER_TYPES
                and set(map(type, lists)) == {list}):
            return False
        entries = list(chain.from_iterable(lists))
        n = len(entries)
        if n and (set(map(type, entries)) != {list} or set(map(len, entries)) != {3}):
            return False
        flat = list(chain.from_iterable(entries))
        kinds = set(map(type, flat))
        if not kinds <= _NUMBER_TYPES:
            return False
        cpos, fpos, rates = flat[0::3], flat[1::3], flat[2::3]
        if float in kinds and (float in set(map(type, cpos)) or float in set(map(type, fpos))):
            return False
        try:
            arrays = [np.fromiter(v, np.int64 if k < 2 else float, len(v))
                      for k, v in enumerate((cpos, fpos, starts, ends, rates))]
        except OverflowError:  # an integer beyond int64 or float64
            return False
        c, f, st, en, rt = arrays
        return self._take(st, en, np.fromiter(map(len, lists), np.int64, len(lists)), c, f, rt,
                          originals=(starts, ends, rates))

    def _take(self, starts, ends, counts, cpos, fpos, rates, originals=None) -> bool:
        """Range-check a batch of typed values and merge it; False (nothing done) if a value
        needs :meth:`_careful`.  ``originals`` are the parsed values (for exact conversion)."""
        if np.any((cpos < 0) | (cpos >= self.num_coflows)):
            return False
        if np.any((fpos < 0) | (fpos >= self.width[cpos])):
            return False
        values = (starts, ends, rates)
        for v, kind in zip(values, ("schedule_time", "schedule_time", "rate")):
            if not np.all(np.isfinite(v)):
                return False
            if limits.first_out_of_range(v, kind) is not None:
                return False  # :func:`_check_value` names it (in exact arithmetic)
            if np.any(np.abs(v) > MAX_EXACT_INT):
                # maybe an integer float64 cannot hold (float mode), or one whose float
                # rounds into range while it is not (exact mode): check each
                return False
        if self.fractions:
            values = tuple(np.asarray([Fraction(x) for x in v], dtype=object).reshape(len(v))
                           for v in (originals or [v.tolist() for v in values]))
        self._merge(values[0], values[1], np.repeat(np.arange(counts.size), counts),
                    self.flow_ptr[cpos] + fpos, values[2])
        return True

    def _careful(self, segs: list) -> None:
        """Entry-by-entry checks (raising the first broken rule), then conversion."""
        i0 = self.num_segments
        for k, seg in enumerate(segs):
            _check_segment(seg, i0 + k, self.num_coflows, self.width_list, self.bad)
        starts = self._values([s["start"] for s in segs],
                              lambda k: ("start", f"segments[{i0 + k}].start"))
        ends = self._values([s["end"] for s in segs],
                            lambda k: ("end", f"segments[{i0 + k}].end"))
        seg_of = np.repeat(np.arange(len(segs)), [len(s["rates"]) for s in segs])
        first = np.concatenate([[0], np.cumsum(np.bincount(seg_of, minlength=len(segs)))])
        entries = [e for s in segs for e in s["rates"]]
        rates = self._values([e[2] for e in entries], lambda g: (
            "rate", f"segments[{i0 + seg_of[g]}].rates[{g - first[seg_of[g]]}][2]"))
        c = np.asarray([e[0] for e in entries], dtype=np.int64)
        f = np.asarray([e[1] for e in entries], dtype=np.int64)
        self._merge(starts, ends, seg_of, self.flow_ptr[c] + f, rates)

    def _values(self, values: list, where) -> np.ndarray:
        """Checked values as Fractions (exact) or float64; in float mode an integer float64
        cannot hold is recorded (reported by :meth:`finish`), a ``"p/q"`` string rounds
        (``exact=False``) or restarts exact (``exact=None``)."""
        if self.fractions:
            return np.asarray([Fraction(v) for v in values], dtype=object).reshape(len(values))
        out = np.empty(len(values))
        for k, v in enumerate(values):
            if type(v) is float:
                out[k] = v
                continue
            if type(v) is str and self.exact is None:
                raise _NeedExact
            kind, fld = where(k)
            try:
                out[k] = float(Fraction(v)) if type(v) is str else strict_float(v, fld)
            except (ValueError, OverflowError) as e:
                rule = str(e) if isinstance(e, ValueError) else \
                    f"{fld} = {v} is too large for a float64"
                self.conversion_errors.setdefault(
                    kind, (f"{rule} (write it as a 'p/q' string for an exact schedule)", fld))
                out[k] = math.nan
        return out

    def _merge(self, starts, ends, seg_of, flow, rate) -> None:
        """Join the batch's entries to the open pieces and to each other; close the pieces
        that do not reach the batch's last segment."""
        lo, S, m = self.num_segments, len(starts), self.open[0].size
        # touch[k]: combined segment k (0 = the last segment before the batch) continues k - 1
        touch = np.zeros(S + 1, dtype=bool)
        if self.merge and S:
            prev = slice(-1, None) if lo else slice(0, 1)
            starts_c = np.concatenate([(self.starts[-1] if lo else starts)[prev], starts])
            ends_c = np.concatenate([(self.ends[-1] if lo else ends)[prev], ends])
            proper = np.asarray(starts_c < ends_c, dtype=bool)
            touch[1:] = np.asarray(ends_c[:-1] == starts_c[1:], dtype=bool) & proper[:-1] & \
                proper[1:]
            touch[1] &= lo > 0
        self.starts.append(starts)
        self.ends.append(ends)
        self.num_segments += S
        o_flow, o_rate, o_first, o_order = self.open
        # the open pieces' last entries (in combined segment 0), then the batch's entries
        fl = np.concatenate([o_flow, flow])
        sg = np.concatenate([np.zeros(m, np.int64), seg_of + 1])
        rt = np.concatenate([o_rate, rate])
        first_all = np.concatenate([o_first, lo + seg_of])
        order_all = np.concatenate([o_order, self.num_entries + np.arange(flow.size)])
        self.num_entries += flow.size
        n = fl.size
        if self.merge and n:
            # sorted by (flow, segment); with a stride of S + 2, consecutive segments of one
            # flow differ by exactly 1 and equal keys are a flow twice in one segment
            key = fl * (S + 2) + sg
            o = np.argsort(key)
            d = np.diff(key[o])
            so, ro = sg[o], rt[o]
            dup = np.zeros(n, dtype=bool)  # a flow twice in one segment never joins
            dup[1:] = d == 0
            dup[:-1] |= dup[1:]
            join = (d == 1) & touch[so[1:]] & ~dup[1:] & ~dup[:-1] & \
                np.asarray(ro[1:] == ro[:-1], dtype=bool)
            heads = np.flatnonzero(np.concatenate([[True], ~join]))
            h, last = o[heads], lo - 1 + so[np.append(heads[1:] - 1, n - 1)]
        else:
            h, last = np.arange(n), lo - 1 + sg
        # each piece: the flow, rate, first segment and order of its first entry
        fl, rt, first, order = fl[h], rt[h], first_all[h], order_all[h]
        still = last == lo + S - 1
        self.open = (fl[still], rt[still], first[still], order[still])
        done = ~still
        self.closed.append((fl[done], rt[done], first[done], last[done], order[done]))

    # ------------------------------------------------------------------ the result
    def finish(self) -> Schedule:
        self._flush()
        if self.error is not None:
            raise self.error
        for kind in ("start", "end", "rate"):
            if kind in self.conversion_errors:
                self.bad(*self.conversion_errors[kind])
        o_flow, o_rate, o_first, o_order = self.open
        self.closed.append((o_flow, o_rate, o_first,
                            np.full(o_flow.size, self.num_segments - 1, np.int64), o_order))
        columns = [list(c) for c in zip(*self.closed)]
        self.closed.clear()

        def column(k: int, perm=None) -> np.ndarray:
            # one column at a time, releasing its parts, to keep the peak low
            a = np.concatenate(columns[k])
            columns[k] = []
            return a if perm is None else a[perm]

        by_order = np.argsort(column(4), kind="stable")
        flow, rate, first, last = (column(k, by_order) for k in range(4))
        vdt = object if self.fractions else float
        starts = np.concatenate([np.zeros(0, vdt), *self.starts])
        ends = np.concatenate([np.zeros(0, vdt), *self.ends])
        meta: dict[str, Any] = {"source_format": FORMAT_NAME, "segment_of_piece": first}
        if self.file is not None:
            meta["source_file"] = str(self.file)
        return Schedule(flow, starts[first], ends[last], rate, meta=meta)


# the document up to the first segment line, as the writer writes it
_HEADER_LINE = f'{{"format": "{FORMAT_NAME}", "version": {FORMAT_VERSION}, "segments": [\n'
_STRICT_JSON = json.JSONDecoder(parse_constant=_reject_constant,
                                object_pairs_hook=_reject_duplicate_keys)
# Parser states between lines of the one-segment-per-line layout, each spelled as a prefix that
# leaves a whole-document parser in that state at the start of its line 2.
_OPEN, _COMMA, _LAST, _CLOSED = (_HEADER_LINE, _HEADER_LINE[:-1] + "0,\n",
                                 _HEADER_LINE[:-1] + "0\n", _HEADER_LINE[:-1] + "]}\n")
#: bytes read at a time by the streaming reader
_READ_BLOCK = 1 << 24


def read_schedule_json(path: str | Path, instance: Instance, *, exact: bool | None = None,
                       merge: bool = True) -> Schedule:
    """Read a coflowopt-schedule JSON file (see :func:`schedule_from_dict`).

    A file in the one-segment-per-line layout the writer produces is read a block at a time,
    in bounded memory; a valid document in any other layout is parsed whole.  Both give the
    same schedule and the same errors.

    Parameters
    ----------
    path : str or Path
    instance : Instance
    exact : bool, optional
        See :func:`schedule_from_dict`.
    merge : bool
        ``True`` (default): consecutive touching segments in which a flow keeps its rate make
        one piece (see :func:`schedule_from_dict`), so a file written from P pieces reads back
        as about P pieces, not one per rate entry; ``meta["segment_of_piece"]`` is then the
        segment of each piece's first entry.  ``False``: one piece per rate entry.

    Raises
    ------
    InvalidScheduleError
        For malformed JSON (with the line) or a document that breaks a rule (with the field).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1.0)])])
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.json"
    >>> _ = p.write_text('{"format": "coflowopt-schedule", "version": 1, "segments": '
    ...                  '[{"start": 0, "end": "3/2", "rates": [[0, 0, "2/3"]]}]}')
    >>> s = read_schedule_json(p, inst)
    >>> s.exact, s.end.tolist(), s.rate.tolist()
    (True, [Fraction(3, 2)], [Fraction(2, 3)])

    Notes
    -----
    Lines of the writer's exact spelling are read by a compiled scanner (files of at least
    ``_SCANNER_MIN_BYTES``); other lines by ``json``.  Memory is O(pieces + segments) plus one
    block.  The FB trace's greedy schedule (about 1 GB, 56M rate entries) reads back as its
    1.8M pieces in seconds.
    """
    expect_kind(path, ("json", "empty"), "a coflowopt-schedule JSON document",
                InvalidScheduleError)
    try:
        size = os.path.getsize(path)
    except OSError:
        size = 0  # open() below raises the error
    return _read_json(path, instance, exact, merge, _HAVE_NUMBA and size >= _SCANNER_MIN_BYTES)


def _read_json(path: str | Path, instance: Instance, exact: bool | None, merge: bool,
               scan: bool) -> Schedule:
    """:func:`read_schedule_json`, with or without the line scanner."""
    try:
        try:
            return _read_lines(path, instance, exact, merge, scan)
        except _NeedExact:
            return _read_lines(path, instance, True, merge, scan)
    except _NotStreamable:
        doc = load_json_document(path, InvalidScheduleError)
        return schedule_from_dict(doc, instance, file=str(path), exact=exact, merge=merge)


def _newlines(data: bytes) -> bytes:
    """``\\r\\n`` and ``\\r`` as ``\\n``, as a text-mode file reads them."""
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n") if b"\r" in data else data


def _blocks(fh, size: int, first: bytes = b""):
    """``first`` and then the bytes of ``fh`` in blocks that end at a newline (the last one: at
    the end of the file), newlines translated."""
    parts = [first]
    while True:
        data = fh.read(size)
        if not data:
            break
        cut = data.rfind(b"\n") + 1
        if not cut:  # a line longer than a block
            parts.append(data)
            continue
        parts.append(data[:cut])
        block = b"".join(parts)
        parts = [data[cut:]]
        yield _newlines(block)
    tail = b"".join(parts)
    if tail:
        yield _newlines(tail)


def _read_lines(path: str | Path, instance: Instance, exact: bool | None, merge: bool,
                scan: bool, block_size: int = _READ_BLOCK) -> Schedule:
    """Read the one-segment-per-line layout; raise :class:`_NotStreamable` for another."""
    file = str(path)
    head = _HEADER_LINE.encode()
    pieces = _SegmentsToPieces(instance, file, exact, merge)
    state, lineno = _OPEN, 1
    with open(path, "rb") as fh:
        # an entry takes at least 9 bytes ("[0, 0, 0]")
        out = _ScanOutputs(min(_SCANNER_ENTRIES, os.fstat(fh.fileno()).st_size // 9 + 1)) \
            if scan else None
        first = fh.read(len(head) + 1)  # the header, with room for a "\r\n"
        if not _newlines(first).startswith(head):
            raise _NotStreamable
        blocks = _blocks(fh, block_size, first)
        for b, block in enumerate(blocks):
            i = len(head) if b == 0 else 0
            buf = np.frombuffer(block, dtype=np.uint8) if scan else None
            while i < len(block):
                if scan and state is not _LAST and state is not _CLOSED:
                    i2, lines = out.scan(buf, i, pieces)
                    if lines:
                        i, lineno, state = i2, lineno + lines, _COMMA
                        continue
                stop = block.find(b"\n", i) + 1 or len(block)
                try:
                    line = block[i:stop].decode("utf-8")
                except UnicodeDecodeError:
                    raise _NotStreamable from None  # the whole-document reader names it
                lineno += 1
                if state is _CLOSED:
                    if line.strip(" \t\n\r"):
                        _tail_error(block, stop, blocks, line, lineno, state, file)
                elif line.startswith("  {") and state is not _LAST:
                    try:
                        seg, end = _STRICT_JSON.raw_decode(line, 2)
                    except (ValueError, RecursionError):
                        _tail_error(block, stop, blocks, line, lineno, state, file)
                    after = line[end:]
                    if after != ",\n" and after != "\n":  # another layout, or no final newline
                        _tail_error(block, stop, blocks, line, lineno, state, file)
                    state = _COMMA if after == ",\n" else _LAST
                    pieces.add(seg)
                elif (line == "]}\n" or line == "]}") and state is not _COMMA:
                    state = _CLOSED
                else:
                    _tail_error(block, stop, blocks, line, lineno, state, file)
                i = stop
        if state is not _CLOSED:
            _tail_error(b"", 0, blocks, "", lineno + 1, state, file)
    return pieces.finish()


def _tail_error(block: bytes, stop: int, blocks, line: str, lineno: int, state: str,
                file: str) -> NoReturn:
    """``line`` (number ``lineno``) leaves the layout.  Parse from it to the end of the file,
    after a prefix that puts the parser in the state the earlier lines left it in: a syntax
    error there is the whole document's first one, reported with the same line and column.
    If the rest parses, the document is valid JSON in another layout: raise
    :class:`_NotStreamable`."""
    try:
        rest = (block[stop:] + b"".join(blocks)).decode("utf-8")
    except UnicodeDecodeError:
        raise _NotStreamable from None
    try:
        _STRICT_JSON.decode(state + line + rest)
    except json.JSONDecodeError as e:
        raise InvalidScheduleError(f"not valid JSON: {e.msg} (column {e.colno})", file=file,
                                   line=e.lineno + lineno - 2) from None
    except RecursionError:
        raise InvalidScheduleError("JSON nested deeper than Python's recursion limit; no "
                                   "coflowopt document nests more than 4 levels",
                                   file=file) from None
    except JSONConstantError as e:
        where = locate_json_constant(line + rest)
        if where is None:  # pragma: no cover - the parser saw it in line + rest
            raise InvalidScheduleError(str(e), file=file) from None
        raise InvalidScheduleError(f"{e} (column {where[1]})", file=file,
                                   line=lineno + where[0] - 1) from None
    except ValueError as e:
        raise InvalidScheduleError(json_value_error_rule(e), file=file) from None
    raise _NotStreamable


class _ScanOutputs:
    """The scanner's output arrays, reused from call to call."""

    def __init__(self, entries: int):
        lines = entries // 4 + 1
        self.line_start = np.empty(lines, np.int64)
        self.starts, self.ends = np.empty(lines), np.empty(lines)
        self.counts = np.empty(lines, np.int64)
        self.cpos, self.fpos = np.empty(entries, np.int64), np.empty(entries, np.int64)
        self.rates = np.empty(entries)
        self.later_slot = np.empty(entries, np.int64)
        self.later_span = np.empty((entries, 2), np.int64)

    def scan(self, buf: np.ndarray, i: int, pieces: _SegmentsToPieces) -> tuple[int, int]:
        """Scan canonical lines from ``i`` and hand them to ``pieces``: (index after, lines)."""
        i2, n_lines, n_ent, n_later = _scanner()(
            buf, i, _POW10, *_SCAN_LITERALS, self.line_start, self.starts, self.ends,
            self.counts, self.cpos, self.fpos, self.rates, self.later_slot, self.later_span)
        if not n_lines:
            return i, 0
        values = (self.starts[:n_lines].copy(), self.ends[:n_lines].copy(),
                  self.rates[:n_ent].copy())
        raw = buf.data
        for slot, (a, b) in zip(self.later_slot[:n_later].tolist(),
                                self.later_span[:n_later].tolist()):
            values[slot % 3][slot // 3] = float(raw[a:b])
        bounds = np.append(self.line_start[:n_lines], i2).tolist()
        pieces.add_scanned(values[0], values[1], self.counts[:n_lines].copy(),
                           self.cpos[:n_ent].copy(), self.fpos[:n_ent].copy(), values[2],
                           lambda: (bytes(raw[a:b]).decode("ascii")
                                    for a, b in pairwise(bounds)))
        return i2, n_lines


# ------------------------------------------------------------------ compiled line scanner
# Why a kernel: a profile of the streaming reader on the FB greedy schedule (56M rate entries)
# spent almost all its time in json building 56M small lists and in walking them again to
# check types (about 90 s).  This scanner reads the writer's canonical segment lines straight
# into arrays.  It accepts only text that is exactly
#     '  {"start": N, "end": N, "rates": [[P, P, N], ...]},\n'
# (P a non-negative JSON integer of at most 18 digits, N a JSON number) and declines anything
# else, which then goes through json like any other line -- so it can change the speed, never
# the result.  Numbers convert exactly as float() converts them: integers up to 2**53 exactly,
# decimals of at most 18 significant digits with a decimal exponent within +-22 by one
# correctly rounded IEEE operation on two exact operands (Clinger's fast path); any other
# number is handed back as a byte span for float().  One flat loop, because numba's calls to
# small tuple-returning helpers cost several times the scanning itself.

_POW10 = np.array([float(10 ** k) for k in range(23)])  # 1e0..1e22, exactly representable
_SCAN_LITERALS = (np.frombuffer(b'  {"start": ', dtype=np.uint8),
                  np.frombuffer(b', "end": ', dtype=np.uint8),
                  np.frombuffer(b', "rates": [', dtype=np.uint8))
#: files smaller than this are read with json only (the scanner's first compilation costs
#: seconds; numba then caches it)
_SCANNER_MIN_BYTES = 1 << 22
#: most rate entries one scanner call delivers (one batch of the reader)
_SCANNER_ENTRIES = 1 << 20
# numba is a declared dependency; without it every line is read with json
_HAVE_NUMBA = importlib.util.find_spec("numba") is not None
_compiled_scanner = None


def _scanner():
    """:func:`_scan_segment_lines` compiled (on first use: importing numba is not free)."""
    global _compiled_scanner
    if _compiled_scanner is None:
        from numba import njit
        _compiled_scanner = njit(cache=True)(_scan_segment_lines)
    return _compiled_scanner


def _scan_segment_lines(buf, i, pow10, head, mid_end, mid_rates, line_start, starts, ends,
                        counts, cpos, fpos, rates, later_slot, later_span):
    """Scan canonical segment lines ending ``",\\\\n"`` from ``buf[i]`` until a line that is not
    one, or until the outputs are full.  Returns (index after the last line taken, lines,
    entries, numbers left to float()); ``later_slot`` says where such a number goes:
    ``3 * line`` (start), ``3 * line + 1`` (end) or ``3 * entry + 2`` (rate)."""
    end = buf.size
    n_lines = 0
    n_ent = 0
    n_later = 0
    while i < end and n_lines < starts.size:
        e0 = n_ent
        l0 = n_later
        j = i
        # stages: 0 head, 1 start, 2 ', "end": ', 3 end, 4 ', "rates": [', 5 an entry's
        # positions, 6 its rate, 7 the closing ']},\n'; -1 declines the line
        stage = 0
        c = 0
        f = 0
        while 0 <= stage < 7:
            if stage == 0 or stage == 2 or stage == 4:
                lit = head if stage == 0 else (mid_end if stage == 2 else mid_rates)
                if j + lit.size > end:
                    stage = -1
                    break
                for k in range(lit.size):
                    if buf[j + k] != lit[k]:
                        stage = -1
                        break
                if stage < 0:
                    break
                j += lit.size
                stage += 1
                if stage == 5 and j < end and buf[j] == 93:
                    stage = 7  # no entries
                continue
            if stage == 5:
                # '[' P ', ' P ', '
                if n_ent >= cpos.size or j >= end or buf[j] != 91:
                    stage = -1
                    break
                j += 1
                for which in range(2):
                    v = 0
                    j0 = j
                    while j < end:
                        d = np.int64(buf[j]) - 48
                        if d < 0 or d > 9:
                            break
                        v = v * 10 + d
                        j += 1
                    if j == j0 or j - j0 > 18 or (buf[j0] == 48 and j - j0 > 1) or \
                            j + 2 > end or buf[j] != 44 or buf[j + 1] != 32:
                        stage = -1
                        break
                    j += 2
                    if which == 0:
                        c = v
                    else:
                        f = v
                if stage < 0:
                    break
                stage = 6
                continue
            # stages 1, 3, 6: a JSON number
            k = j
            neg = k < end and buf[k] == 45
            if neg:
                k += 1
            if k >= end or buf[k] < 48 or buf[k] > 57:
                stage = -1
                break
            w = 0    # the significant digits, while at most 18 of them
            nd = 0   # significant digits
            frac = 0  # digits after the point that w holds or that are leading zeros
            if buf[k] == 48:
                k += 1
            else:
                while k < end:
                    d = np.int64(buf[k]) - 48
                    if d < 0 or d > 9:
                        break
                    nd += 1
                    if nd <= 18:
                        w = w * 10 + d
                    k += 1
            is_float = False
            if k < end and buf[k] == 46:
                k += 1
                k0 = k
                while k < end:
                    d = np.int64(buf[k]) - 48
                    if d < 0 or d > 9:
                        break
                    if nd > 0 or d != 0:
                        nd += 1
                        if nd <= 18:
                            w = w * 10 + d
                            frac += 1
                    else:
                        frac += 1
                    k += 1
                if k == k0:
                    stage = -1
                    break
                is_float = True
            exp = 0
            exp_digits = 0
            if k < end and (buf[k] == 101 or buf[k] == 69):
                k += 1
                eneg = False
                if k < end and (buf[k] == 43 or buf[k] == 45):
                    eneg = buf[k] == 45
                    k += 1
                k0 = k
                while k < end:
                    d = np.int64(buf[k]) - 48
                    if d < 0 or d > 9:
                        break
                    if k - k0 < 6:
                        exp = exp * 10 + d
                    k += 1
                exp_digits = k - k0
                if exp_digits == 0:
                    stage = -1
                    break
                if eneg:
                    exp = -exp
                is_float = True
            later = False
            value = 0.0
            if not is_float:
                if nd > 18 or w > 9007199254740992:
                    stage = -1  # an integer float64 may not hold: json and the full checks
                    break
                value = float(w)
                if neg and w != 0:
                    value = -value
            else:
                e10 = exp - frac
                if nd > 18 or w > 9007199254740992 or exp_digits > 6 or e10 > 22 or \
                        e10 < -22:
                    later = True
                else:
                    value = float(w) * pow10[e10] if e10 >= 0 else float(w) / pow10[-e10]
                    if neg:
                        value = -value
            slot = 3 * n_lines + (0 if stage == 1 else 1) if stage != 6 else 3 * n_ent + 2
            if later:
                if n_later >= later_slot.size:
                    stage = -1
                    break
                later_slot[n_later] = slot
                later_span[n_later, 0] = j
                later_span[n_later, 1] = k
                n_later += 1
            j = k
            if stage == 1:
                starts[n_lines] = value
                stage = 2
            elif stage == 3:
                ends[n_lines] = value
                stage = 4
            else:
                if j >= end or buf[j] != 93:
                    stage = -1
                    break
                cpos[n_ent] = c
                fpos[n_ent] = f
                rates[n_ent] = value
                n_ent += 1
                j += 1
                if j + 2 <= end and buf[j] == 44 and buf[j + 1] == 32:
                    j += 2
                    stage = 5
                else:
                    stage = 7
        # ']}' and ',\n'
        if stage != 7 or j + 4 > end or buf[j] != 93 or buf[j + 1] != 125 or \
                buf[j + 2] != 44 or buf[j + 3] != 10:
            n_ent = e0
            n_later = l0
            break
        line_start[n_lines] = i
        counts[n_lines] = n_ent - e0
        n_lines += 1
        i = j + 4
    return i, n_lines, n_ent, n_later


# ---------------------------------------------------------------------------------- NPZ
def write_schedule_npz(schedule: Schedule, instance: Instance, path: str | Path, *,
                       compress: bool = False) -> None:
    """Write the pieces as columnar ``.npz`` (see the module docstring for the arrays).

    Parameters
    ----------
    schedule : Schedule
        A float schedule.
    instance : Instance
    path : str or Path
        Written as given (no ``.npz`` is appended).
    compress : bool
        zlib-compress the arrays (smaller, several times slower to write).

    Raises
    ------
    NotSupportedError
        For an exact schedule (the columns are float64; use JSON, which keeps Fractions).
    InvalidScheduleError
        If a piece names a flow outside the instance, or a value is not finite or outside
        :mod:`coflowopt.limits` (the reader would refuse it).
    """
    if schedule.exact:
        raise NotSupportedError("the .npz schedule format holds float64 values only; write an "
                                "exact schedule as .json (or convert it with to_float())")
    _check_writable(schedule, instance)
    arrays = {
        "format": np.array(PIECES_FORMAT_NAME), "version": np.array(FORMAT_VERSION),
        "num_flows": np.array(instance.num_flows), "num_coflows": np.array(instance.num_coflows),
        "flow": schedule.flow, "coflow": instance.flow_coflow[schedule.flow],
        "flow_position": instance.flow_position[schedule.flow],
        "start": schedule.start, "end": schedule.end, "rate": schedule.rate,
    }
    with open(path, "wb") as fh:
        (np.savez_compressed if compress else np.savez)(fh, **arrays)


class NpzPieceWriter:
    """Write a ``.npz`` piece file (the format of :func:`write_schedule_npz`) a part at a time,
    holding one part in memory: for schedules too large to hold (per-flow fairness on the
    Facebook trace: 2e8 pieces, 6.4 GB as arrays), written window by window as the kernel
    produces them (``coflowopt schedule --policy fair --out FILE.npz``).

    The columns go to temporary files beside ``path`` while parts arrive; :meth:`close` writes
    the archive (uncompressed members, each an ``.npy`` header and its column streamed in
    chunks) and removes them.  The file reads back with :func:`read_schedule_npz` as if written
    at once.

    Parameters
    ----------
    path : str or Path
    instance : Instance

    Examples
    --------
    >>> import os, tempfile
    >>> from coflowopt import Instance, Coflow, Schedule
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0)])])
    >>> path = os.path.join(tempfile.mkdtemp(), "s.npz")
    >>> with NpzPieceWriter(path, inst) as w:
    ...     w.add(Schedule.from_pieces([0], [0.0], [1.0], [1.0]))
    ...     w.add(Schedule.from_pieces([0], [1.0], [2.0], [1.0]))
    >>> read_schedule_npz(path, inst).end.tolist()
    [1.0, 2.0]
    """

    _COLUMNS = (("flow", np.int64), ("coflow", np.int64), ("flow_position", np.int64),
                ("start", np.float64), ("end", np.float64), ("rate", np.float64))

    def __init__(self, path: str | Path, instance: Instance):
        self.path = Path(path)
        self.instance = instance
        self.count = 0
        self._tmp = {name: Path(f"{self.path}.{name}.part") for name, _ in self._COLUMNS}
        self._fh = {}
        try:
            for name, p in self._tmp.items():
                self._fh[name] = open(p, "wb")
        except OSError as e:   # name the file asked for, not a temporary column
            self.abort()
            raise OSError(e.errno, e.strerror, str(self.path)) from None

    def add(self, schedule: Schedule) -> None:
        """Append the pieces of ``schedule`` (a float schedule of the same instance)."""
        if schedule.exact:
            raise NotSupportedError("the .npz schedule format holds float64 values only")
        _check_writable(schedule, self.instance)
        f = np.asarray(schedule.flow, dtype=np.int64)
        cols = {"flow": f, "coflow": self.instance.flow_coflow[f],
                "flow_position": self.instance.flow_position[f], "start": schedule.start,
                "end": schedule.end, "rate": schedule.rate}
        for name, dtype in self._COLUMNS:
            self._fh[name].write(np.ascontiguousarray(cols[name], dtype=dtype).tobytes())
        self.count += int(f.size)

    def close(self) -> None:
        """Write the archive and remove the temporary columns."""
        from numpy.lib import format as npy
        for fh in self._fh.values():
            fh.close()
        inst = self.instance
        scalars = {"format": np.array(PIECES_FORMAT_NAME), "version": np.array(FORMAT_VERSION),
                   "num_flows": np.array(inst.num_flows),
                   "num_coflows": np.array(inst.num_coflows)}
        try:
            with zipfile.ZipFile(self.path, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
                for name, value in scalars.items():
                    with zf.open(f"{name}.npy", "w") as out:
                        npy.write_array(out, value, allow_pickle=False)
                for name, dtype in self._COLUMNS:
                    with zf.open(f"{name}.npy", "w", force_zip64=True) as out, \
                            open(self._tmp[name], "rb") as src:
                        npy.write_array_header_2_0(out, {
                            "descr": npy.dtype_to_descr(np.dtype(dtype)),
                            "fortran_order": False, "shape": (self.count,)})
                        while chunk := src.read(1 << 24):
                            out.write(chunk)
        finally:
            for p in self._tmp.values():
                p.unlink(missing_ok=True)

    def abort(self) -> None:
        """Give up: close and remove the temporary columns; no archive is written."""
        for fh in self._fh.values():
            fh.close()
        for p in self._tmp.values():
            p.unlink(missing_ok=True)

    def __enter__(self) -> "NpzPieceWriter":
        return self

    def __exit__(self, *exc) -> None:
        if exc[0] is None:
            self.close()
        else:  # a failed run leaves no half-written file behind
            self.abort()


def read_schedule_npz(path: str | Path, instance: Instance) -> Schedule:
    """Read a ``.npz`` piece file written by :func:`write_schedule_npz`.

    Raises
    ------
    InvalidScheduleError
        Naming the array (and the first bad index) and the rule, for: a file that is not an
        ``.npz`` without pickles; missing or unknown arrays; a wrong format or version;
        ``num_flows``/``num_coflows`` that differ from the instance; arrays that are not 1-d of
        one length or not of an integer/real dtype; NaN or infinite values; coflow or flow
        positions out of range; ``flow != flow_ptr[coflow] + flow_position``.
    """
    file = str(path)

    def bad(rule: str, fld: str | None = None) -> NoReturn:
        raise InvalidScheduleError(rule, file=file, field=fld)

    expect_kind(path, ("zip",), f"a .npz archive of schedule pieces ({PIECES_FORMAT_NAME})",
                InvalidScheduleError)
    try:
        data = _load_npz_members(path, bad)
    except InvalidScheduleError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as e:
        bad(f"not a readable .npz archive ({_shorten(str(e), 120)})")
    _check_keys(data, _NPZ_SCALARS + _NPZ_INDEX + _NPZ_VALUES, "(arrays)", bad)

    def scalar(name: str, kinds: str):
        a = data[name]
        if a.ndim != 0 or a.dtype.kind not in kinds:
            bad(f"must be a 0-d array of kind {kinds!r}, got shape {a.shape} dtype {a.dtype}",
                name)
        return a.item()

    fmt = scalar("format", "U")
    if fmt != PIECES_FORMAT_NAME:
        bad(f"must be {PIECES_FORMAT_NAME!r}, got {fmt!r}", "format")
    if scalar("version", "iu") != FORMAT_VERSION:
        bad(f"unsupported version {data['version'].item()!r}; this reader knows version "
            f"{FORMAT_VERSION}", "version")
    for name, expect in (("num_flows", instance.num_flows),
                         ("num_coflows", instance.num_coflows)):
        if scalar(name, "iu") != expect:
            bad(f"the file was written for an instance with {data[name].item()} "
                f"{name[4:]}, this one has {expect}", name)
    n = data["flow"].shape[0] if data["flow"].ndim == 1 else -1
    cols = {}
    for name in _NPZ_INDEX + _NPZ_VALUES:
        a = data[name]
        kinds = "iu" if name in _NPZ_INDEX else "iuf"
        if a.ndim != 1 or a.shape[0] != n:
            bad(f"must be a 1-d array with one entry per piece ({max(n, 0)}), got shape "
                f"{a.shape}", name)
        if a.dtype.kind not in kinds:
            bad(f"dtype {a.dtype} is not allowed (integer{'' if kinds == 'iu' else ' or real'} "
                "expected)", name)
        if name in _NPZ_VALUES:
            a = a.astype(float)
            nonfinite = np.flatnonzero(~np.isfinite(a))
            if nonfinite.size:
                bad(f"must be finite, got {a[nonfinite[0]]!r}", f"{name}[{nonfinite[0]}]")
            kind = "rate" if name == "rate" else "schedule_time"
            i = limits.first_out_of_range(a, kind)
            if i is not None:
                bad(f"{'time' if kind == 'schedule_time' else kind} "
                    f"{limits.value_rule(float(a[i]), kind)}", f"{name}[{i}]")
        else:
            a = a.astype(np.int64)
        cols[name] = a
    c, p, f = cols["coflow"], cols["flow_position"], cols["flow"]
    _check_flow_columns(instance, c, p, f, bad)
    return Schedule(f, cols["start"], cols["end"], cols["rate"],
                    meta={"source_file": file, "source_format": PIECES_FORMAT_NAME})


def _check_flow_columns(instance: Instance, c: np.ndarray, p: np.ndarray, f: np.ndarray,
                        bad) -> None:
    """The columnar files' flow identity (pieces and slotted entries alike): each row's coflow
    position, flow position within it and flow index must agree with the instance; the first
    row that does not is named through ``bad(rule, where)``."""
    out = np.flatnonzero((c < 0) | (c >= instance.num_coflows))
    if out.size:
        bad(f"coflow position {c[out[0]]} out of range 0..{instance.num_coflows - 1}",
            f"coflow[{out[0]}]")
    width = instance.width[c]
    out = np.flatnonzero((p < 0) | (p >= width))
    if out.size:
        i = out[0]
        bad(f"flow position {p[i]} out of range 0..{width[i] - 1} (coflow {c[i]} has "
            f"{width[i]} flows)", f"flow_position[{i}]")
    out = np.flatnonzero(f != instance.flow_ptr[c] + p)
    if out.size:
        i = out[0]
        bad(f"flow {f[i]} != flow_ptr[coflow] + flow_position = "
            f"{instance.flow_ptr[c[i]] + p[i]}", f"flow[{i}]")


#: deflate expands at most 1032:1 (RFC 1951: a 258-byte match costs at least 2 bits), so a
#: member declaring more uncompressed bytes than this times its compressed bytes is lying
_DEFLATE_MAX_RATIO = 1032
#: most members an .npz schedule may hold (it has 10)
_NPZ_MAX_MEMBERS = 64
#: bytes read at a time from a member
_NPZ_CHUNK = 1 << 24


def _load_npz_members(path: str | Path, bad) -> dict[str, np.ndarray]:
    """The arrays of an ``.npz`` archive, each checked against the archive before it is
    allocated.

    ``np.load`` trusts every member's ``.npy`` header: a 1 kB file that declares a
    1e11-element array makes it allocate 745 GiB before it finds the data missing.  Here each
    member's declared shape and dtype must account for exactly the bytes the archive declares
    for it, those bytes must fit the file (or what deflate can expand it to), a 1-d array may
    have at most :data:`~coflowopt.limits.MAX_PIECES` entries, object arrays (pickles) are
    refused, and the data is read a chunk at a time, so memory follows the bytes actually
    present.
    """
    file_size = os.path.getsize(path)
    out: dict[str, np.ndarray] = {}
    with zipfile.ZipFile(path) as zf:
        infos = zf.infolist()
        if len(infos) > _NPZ_MAX_MEMBERS:
            bad(f"the archive holds {len(infos)} members; a schedule has "
                f"{len(_NPZ_SCALARS + _NPZ_INDEX + _NPZ_VALUES)}")
        for info in infos:
            name = info.filename
            key = name[:-4] if name.endswith(".npy") else name
            if not name.endswith(".npy") or key in out:
                bad(f"member {_shorten(name)!r} is not one .npy array per name", "(arrays)")
            if info.compress_size > file_size or (
                    info.compress_type == zipfile.ZIP_STORED
                    and info.file_size != info.compress_size) or \
                    info.file_size > _DEFLATE_MAX_RATIO * info.compress_size + 1024:
                bad(f"the archive declares {info.file_size} bytes for this member from "
                    f"{info.compress_size} stored bytes in a {file_size}-byte file: more than "
                    "the file can hold", key)
            with zf.open(info) as fh:
                version = np.lib.format.read_magic(fh)
                if version not in ((1, 0), (2, 0)):
                    bad(f".npy format version {version} (coflowopt writes 1.0)", key)
                reader = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                          else np.lib.format.read_array_header_2_0)
                shape, fortran, dtype = reader(fh)
                if dtype.hasobject:
                    bad("holds Python objects (pickles), which are never loaded", key)
                count = math.prod(shape)  # Python ints: no overflow whatever is declared
                nbytes = count * dtype.itemsize
                held = info.file_size - fh.tell()
                if nbytes != held:
                    bad(f"declares shape {shape} of {dtype} ({nbytes} bytes) but the archive "
                        f"holds {held} bytes for it", key)
                if count > limits.MAX_PIECES:
                    bad(limits.count_rule("entries", count, limits.MAX_PIECES, "MAX_PIECES"),
                        key)
                # a stored member's bytes are in the file (checked above), so its array may be
                # allocated up front; a deflated one grows with the bytes actually inflated
                stored = info.compress_type == zipfile.ZIP_STORED
                buf = np.empty(nbytes, np.uint8) if stored else bytearray()
                got = 0
                while got < nbytes:
                    chunk = fh.read(min(_NPZ_CHUNK, nbytes - got))
                    if not chunk:
                        bad(f"truncated: {got} of the {nbytes} declared bytes", key)
                    if stored:
                        buf[got:got + len(chunk)] = np.frombuffer(chunk, np.uint8)
                    else:
                        buf += chunk
                    got += len(chunk)
            out[key] = np.frombuffer(buf, dtype=dtype).reshape(shape,
                                                              order="F" if fortran else "C")
    return out


# ---------------------------------------------------------------------------------- dispatch
#: extension -> (reader, writer).  Readers take ``(path, instance, **options)``, writers
#: ``(schedule, instance, path, **options)``.
SCHEDULE_FORMATS = {
    ".json": (read_schedule_json, write_schedule_json),
    ".npz": (read_schedule_npz, write_schedule_npz),
}


def _schedule_format(path: str | Path):
    suffix = Path(path).suffix.lower()
    if suffix not in SCHEDULE_FORMATS:
        raise InvalidParameterError(f"cannot tell the schedule format of {str(path)!r} from its "
                                    f"extension; known: {sorted(SCHEDULE_FORMATS)}")
    return SCHEDULE_FORMATS[suffix]


def read_schedule(path: str | Path, instance: Instance, **options) -> Schedule:
    """Read a schedule for ``instance``; the extension (``.json``, ``.npz``) picks the format.

    Parameters
    ----------
    path : str or Path
    instance : Instance
        The instance the file's positions refer to.
    **options
        Passed to the reader (``exact=`` and ``merge=`` for JSON).

    Raises
    ------
    InvalidScheduleError
        If the file is malformed (see :func:`schedule_from_dict`, :func:`read_schedule_npz`).
    InvalidParameterError
        For an unknown extension.
    """
    return _schedule_format(path)[0](path, instance, **options)


def write_schedule(schedule: Schedule, instance: Instance, path: str | Path, **options) -> None:
    """Write a schedule for ``instance``; the extension (``.json``, ``.npz``) picks the format.

    Raises
    ------
    NotSupportedError
        For an exact schedule written as ``.npz``.
    InvalidScheduleError
        If the schedule names flows outside the instance or has non-finite values.
    InvalidParameterError
        For an unknown extension.
    """
    _schedule_format(path)[1](schedule, instance, path, **options)
