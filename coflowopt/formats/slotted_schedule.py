"""Reading and writing slotted schedules (the integral matching model of :mod:`coflowopt.slotted`).

JSON (``.json``), version 1 -- exactly this shape, one slot per line::

    {"format": "coflowopt-slotted-schedule", "version": 1, "slot": 1, "slots": [
      [[coflow_position, flow_position, units], ...],
      [],
      ...]}

* Entry ``t`` of ``slots`` lists what is sent in the slot ``[t slot, (t+1) slot)``; an idle
  slot is ``[]``.  ``units`` are whole numbers ``>= 0``.
* Positions index the instance's coflows and that coflow's flows (0-based), as in the fluid
  schedule format (:mod:`.schedule_io`): a file is meaningful only with its instance.
* The writer writes :meth:`SlottedSchedule.canonical`: a flow at most once per slot, flows in
  index order, no zero entries, no trailing idle slots.
* The reader checks the document -- keys, types, a slot length in
  :mod:`coflowopt.limits`' time range, positions in range, units whole and ``>= 0`` and at most
  ``SIZE_MAX``, a flow at most once per slot, the last slot ending by ``TIME_MAX`` -- and raises
  :class:`~coflowopt.exceptions.InvalidScheduleError` naming the file, the place (e.g.
  ``slots[3][2][1]``) and the rule.  It does not judge feasibility (capacities, releases,
  demand): that is :func:`coflowopt.slotted.verify_slotted`'s job.

NPZ (``.npz``), for large schedules: int64 arrays ``slot_index``, ``flow`` (global flow index),
``coflow``, ``flow_position``, ``units`` (one entry per (slot, flow) that sends) and 0-d arrays
``format = "coflowopt-slotted-schedule-entries"``, ``version = 1``, ``slot`` (float64),
``num_flows``, ``num_coflows``.  Read with the fluid ``.npz`` reader's guards (each member's
declared shape must match the bytes the archive holds before anything is allocated, no pickles,
at most ``MAX_PIECES`` entries), and the same rules as the JSON form.

:func:`schedule_file_model` tells a slotted schedule file from a fluid one (the ``format`` field
of a JSON document, the ``format`` member of an ``.npz``), so that ``coflowopt verify`` picks the
verifier.
"""

from __future__ import annotations

import json
import math
import re
import zipfile
import zlib
from itertools import chain
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from .. import limits
from ..exceptions import InvalidParameterError, InvalidScheduleError
from ..instance import Instance
from ..slotted import SLOTTED_FORMAT, SLOTTED_VERSION, SlottedSchedule
from ._files import expect_kind, file_kind
from .instance_json import load_json_document
from .schedule_io import _check_flow_columns, _check_keys, _load_npz_members, _shorten

__all__ = ["read_slotted_schedule", "write_slotted_schedule", "slotted_from_dict",
           "slotted_to_dict", "dumps_slotted", "read_slotted_json", "write_slotted_json",
           "read_slotted_npz", "write_slotted_npz", "schedule_file_model",
           "SLOTTED_FORMATS", "SLOTTED_ENTRIES_FORMAT"]

SLOTTED_ENTRIES_FORMAT = "coflowopt-slotted-schedule-entries"
_TOP_KEYS = ("format", "version", "slot", "slots")
_NPZ_SCALARS = ("format", "version", "slot", "num_flows", "num_coflows")
_NPZ_ARRAYS = ("slot_index", "flow", "coflow", "flow_position", "units")
_ENTRY_RULE = "an entry is [coflow_position, flow_position, units]"
_FORMAT_RE = re.compile(r'"format"\s*:\s*"([^"]*)"')
_SNIFF_BYTES = 1 << 16


# ---------------------------------------------------------------------------------- rules
def _slot_rule(slot: Any) -> str | None:
    """The broken rule for a slot length, or None."""
    if type(slot) not in (int, float):
        return f"must be a number (the slot length), got {_shorten(repr(slot))}"
    if isinstance(slot, float) and not math.isfinite(slot):
        return f"must be finite, got {slot!r}"
    if slot <= 0:
        return f"the slot length must be > 0, got {slot!r}"
    rule = limits.value_rule(slot, "time")
    return None if rule is None else f"slot length {rule}"


def _units_rule(u: int) -> str | None:
    if u < 0:
        return f"units must be whole and >= 0, got {u}"
    if u > limits.SIZE_MAX:
        return (f"units must be at most SIZE_MAX = {limits.SIZE_MAX:g} (coflowopt.limits: no "
                f"flow is larger), got {u}")
    return None


def _horizon_rule(num_slots: int, slot: float) -> str | None:
    """The broken rule if ``num_slots`` slots of length ``slot`` end beyond TIME_MAX."""
    if num_slots * slot > limits.TIME_MAX:
        return (f"{num_slots} slots of length {slot!r} end at {num_slots * slot:g}, beyond "
                f"TIME_MAX = {limits.TIME_MAX:g} (coflowopt.limits)")
    return None


# ---------------------------------------------------------------------------------- JSON
def slotted_to_dict(schedule: SlottedSchedule, instance: Instance) -> dict[str, Any]:
    """The JSON document of a slotted schedule (after the checks of the writer)."""
    _check_writable(schedule, instance)
    return schedule.to_dict(instance)


def _check_writable(schedule: SlottedSchedule, instance: Instance) -> SlottedSchedule:
    """Raise unless every value is one the readers accept; return the canonical form."""
    rule = _slot_rule(schedule.slot)
    if rule:
        raise InvalidScheduleError(rule, field="slot")
    t, f, u = schedule.slot_index, schedule.flow, schedule.units
    for name, a, ok in (("slot_index", t, t >= 0), ("units", u, u >= 0),
                        ("flow", f, (f >= 0) & (f < instance.num_flows))):
        bad = np.flatnonzero(~ok)
        if bad.size:
            i = int(bad[0])
            what = (f"flow index {int(a[i])} out of range 0..{instance.num_flows - 1}: the "
                    "schedule does not belong to this instance") if name == "flow" else \
                f"{name} must be >= 0, got {int(a[i])}"
            raise InvalidScheduleError(what, field=f"{name}[{i}]")
    c = schedule.canonical()
    big = np.flatnonzero(c.units > limits.SIZE_MAX)
    if big.size:
        raise InvalidScheduleError(f"cannot write units the readers would refuse: "
                                   f"{_units_rule(int(c.units[big[0]]))}", field="units")
    rule = _horizon_rule(c.num_slots, schedule.slot)
    if rule:
        raise InvalidScheduleError(f"cannot write a schedule the readers would refuse: {rule}",
                                   field="slot_index")
    return c


def _lines(c: SlottedSchedule, instance: Instance, slots_per_chunk: int = 1 << 14):
    """The document text in chunks (one slot per line)."""
    from .._numbers import plain_number
    head = (f'{{"format": "{SLOTTED_FORMAT}", "version": {SLOTTED_VERSION}, "slot": '
            f'{json.dumps(plain_number(c.slot))}, "slots": [')
    T = c.num_slots
    if T == 0:
        yield head + "]}\n"
        return
    yield head + "\n"
    cof, pos = instance.flow_coflow[c.flow], instance.flow_position[c.flow]
    bounds = np.searchsorted(c.slot_index, np.arange(T + 1))
    for t0 in range(0, T, slots_per_chunk):
        t1 = min(T, t0 + slots_per_chunk)
        e0, e1 = int(bounds[t0]), int(bounds[t1])
        texts = [f"[{a}, {b}, {u}]" for a, b, u in zip(cof[e0:e1].tolist(),
                                                       pos[e0:e1].tolist(),
                                                       c.units[e0:e1].tolist())]
        out = []
        for t in range(t0, t1):
            a, b = int(bounds[t]) - e0, int(bounds[t + 1]) - e0
            out.append("  [" + ", ".join(texts[a:b]) + ("]" if t == T - 1 else "],") + "\n")
        yield "".join(out)
    yield "]}\n"


def dumps_slotted(schedule: SlottedSchedule, instance: Instance) -> str:
    """The text :func:`write_slotted_json` writes (one slot per line, valid JSON).

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2)]), Coflow("B", [(1, 0, 1)])])
    >>> s = SlottedSchedule.from_entries([0, 1, 2], [0, 0, 1], [1, 1, 1])
    >>> print(dumps_slotted(s, inst), end="")
    {"format": "coflowopt-slotted-schedule", "version": 1, "slot": 1, "slots": [
      [[0, 0, 1]],
      [[0, 0, 1]],
      [[1, 0, 1]]
    ]}
    """
    return "".join(_lines(_check_writable(schedule, instance), instance))


def write_slotted_json(schedule: SlottedSchedule, instance: Instance, path: str | Path) -> None:
    """Write a slotted schedule as coflowopt-slotted-schedule JSON (see the module docstring).

    Raises
    ------
    InvalidScheduleError
        If an entry names a flow outside the instance, a slot index or units are negative,
        units exceed ``SIZE_MAX`` or the last slot ends beyond ``TIME_MAX``; raised before the
        file is opened.
    """
    chunks = _lines(_check_writable(schedule, instance), instance)
    with open(path, "w", encoding="ascii") as fh:
        for text in chunks:
            fh.write(text)


def slotted_from_dict(doc: Any, instance: Instance, *, file: str | None = None
                      ) -> SlottedSchedule:
    """Validate a parsed coflowopt-slotted-schedule document and build the schedule.

    Raises
    ------
    InvalidScheduleError
        Naming the place (``slots[3][2][1]``) and the rule, for: a missing or unknown key, a
        wrong format name or version, a slot length that is not a number in the time range, a
        value of the wrong type, a position out of range, units that are not whole, negative or
        above ``SIZE_MAX``, a flow listed twice in one slot, a last slot ending beyond
        ``TIME_MAX``.
    """
    def bad(rule: str, fld: str) -> NoReturn:
        raise InvalidScheduleError(rule, file=file, field=fld)

    if not isinstance(doc, dict):
        bad("the document must be a JSON object", "(top level)")
    fmt = doc.get("format")
    if fmt == "coflowopt-instance":
        bad(f"this is an instance document, expected a {SLOTTED_FORMAT!r} document", "format")
    if fmt == "coflowopt-schedule":
        bad(f"this is a fluid schedule ('coflowopt-schedule', segments of rates), expected a "
            f"{SLOTTED_FORMAT!r} document (read it with read_schedule)", "format")
    _check_keys(doc, _TOP_KEYS, "(top level)", bad)
    if fmt != SLOTTED_FORMAT:
        bad(f"must be {SLOTTED_FORMAT!r}, got {_shorten(repr(fmt))}", "format")
    if type(doc["version"]) is not int or doc["version"] != SLOTTED_VERSION:
        bad(f"unsupported version {_shorten(repr(doc['version']))}; this reader knows version "
            f"{SLOTTED_VERSION}", "version")
    slot = doc["slot"]
    rule = _slot_rule(slot)
    if rule:
        bad(rule, "slot")
    slots = doc["slots"]
    if not isinstance(slots, list):
        bad("must be a list of slots, each a list of [coflow_position, flow_position, units]",
            "slots")
    rule = _horizon_rule(len(slots), float(slot))
    if rule:
        bad(rule, "slots")
    arrays = _fast_entries(slots, instance)
    if arrays is None:
        arrays = _careful_entries(slots, instance, bad)
    t, f, u = arrays
    _check_duplicates(t, f, lambda i, j, first: bad(
        f"coflow {instance.flow_coflow[f[i]]}'s flow {instance.flow_position[f[i]]} is listed "
        f"twice in slot {t[i]} (first as slots[{t[i]}][{first}]): list each flow at most once "
        "per slot", f"slots[{t[i]}][{j}]"))
    meta = {"source_format": SLOTTED_FORMAT}
    if file is not None:
        meta["source_file"] = str(file)
    return SlottedSchedule(float(slot), t, f, u, meta)


def _fast_entries(slots: list, instance: Instance):
    """Whole-document type and range checks; the arrays, or None if an entry needs the careful
    pass (which names it)."""
    if not all(type(s) is list for s in slots):
        return None
    entries = list(chain.from_iterable(slots))
    if entries and (set(map(type, entries)) != {list} or set(map(len, entries)) != {3}):
        return None
    flat = list(chain.from_iterable(entries))
    if flat and set(map(type, flat)) != {int}:
        return None
    try:
        a = np.fromiter(flat, np.int64, len(flat)).reshape(-1, 3)
    except OverflowError:
        return None
    c, p, u = a[:, 0], a[:, 1], a[:, 2]
    if np.any((c < 0) | (c >= instance.num_coflows)):
        return None
    if np.any((p < 0) | (p >= instance.width[c])) or np.any((u < 0) | (u > limits.SIZE_MAX)):
        return None
    t = np.repeat(np.arange(len(slots), dtype=np.int64),
                  np.fromiter(map(len, slots), np.int64, len(slots)))
    return t, instance.flow_ptr[c] + p, u


def _careful_entries(slots: list, instance: Instance, bad):
    """Entry by entry, raising the first broken rule in document order."""
    K = instance.num_coflows
    width = instance.width.tolist()
    for t, s in enumerate(slots):
        if type(s) is not list:
            bad("a slot must be a list of [coflow_position, flow_position, units]",
                f"slots[{t}]")
        for j, e in enumerate(s):
            where = f"slots[{t}][{j}]"
            if type(e) is not list or len(e) != 3:
                bad(_ENTRY_RULE, where)
            c, p, u = e
            if type(c) is not int or not 0 <= c < K:
                bad(f"coflow position must be an integer in 0..{K - 1}, got "
                    f"{_shorten(repr(c))}", f"{where}[0]")
            if type(p) is not int or not 0 <= p < width[c]:
                bad(f"flow position must be an integer in 0..{width[c] - 1} (coflow {c} has "
                    f"{width[c]} flows), got {_shorten(repr(p))}", f"{where}[1]")
            if type(u) is not int:
                hint = " (units are whole numbers: write 2, not 2.0)" if type(u) is float \
                    else ""
                bad(f"units must be a whole number >= 0, got {_shorten(repr(u))}{hint}",
                    f"{where}[2]")
            rule = _units_rule(u)
            if rule:
                bad(rule, f"{where}[2]")
    raise AssertionError("unreachable: the fast pass refused a valid document")  # pragma: no cover


def _check_duplicates(t: np.ndarray, f: np.ndarray, report) -> None:
    """Call ``report(i, j, j_first)`` for the first entry ``i`` (in document order, ``t``
    non-decreasing) whose (slot, flow) repeats an earlier entry; ``j`` and ``j_first`` are the
    two entries' indices within their slot."""
    if t.size < 2:
        return
    order = np.lexsort((f, t))  # stable: equal pairs keep document order
    ts, fs = t[order], f[order]
    rep = np.flatnonzero((ts[1:] == ts[:-1]) & (fs[1:] == fs[:-1]))
    if rep.size:
        later = order[rep + 1]
        k = int(np.argmin(later))
        i, first = int(later[k]), int(order[rep[k]])
        slot_start = int(np.searchsorted(t, t[i]))
        report(i, i - slot_start, first - slot_start)


def read_slotted_json(path: str | Path, instance: Instance) -> SlottedSchedule:
    """Read a coflowopt-slotted-schedule JSON file (see :func:`slotted_from_dict`).

    Raises
    ------
    InvalidScheduleError
        For the wrong kind of file, malformed JSON (with the line) or a document that breaks a
        rule (with the field).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2)])])
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.json"
    >>> _ = p.write_text('{"format": "coflowopt-slotted-schedule", "version": 1, "slot": 1, '
    ...                  '"slots": [[[0, 0, 1]], [], [[0, 0, 1]]]}')
    >>> s = read_slotted_json(p, inst)
    >>> s.slot_index.tolist(), s.units.tolist()
    ([0, 2], [1, 1])
    """
    expect_kind(path, ("json", "empty"), f"a {SLOTTED_FORMAT} JSON document",
                InvalidScheduleError)
    doc = load_json_document(path, InvalidScheduleError)
    return slotted_from_dict(doc, instance, file=str(path))


# ---------------------------------------------------------------------------------- NPZ
def write_slotted_npz(schedule: SlottedSchedule, instance: Instance, path: str | Path, *,
                      compress: bool = False) -> None:
    """Write the canonical entries as columnar ``.npz`` (see the module docstring).

    Raises
    ------
    InvalidScheduleError
        As :func:`write_slotted_json`.
    """
    c = _check_writable(schedule, instance)
    arrays = {
        "format": np.array(SLOTTED_ENTRIES_FORMAT), "version": np.array(SLOTTED_VERSION),
        "slot": np.array(float(c.slot)), "num_flows": np.array(instance.num_flows),
        "num_coflows": np.array(instance.num_coflows),
        "slot_index": c.slot_index, "flow": c.flow, "coflow": instance.flow_coflow[c.flow],
        "flow_position": instance.flow_position[c.flow], "units": c.units,
    }
    with open(path, "wb") as fh:
        (np.savez_compressed if compress else np.savez)(fh, **arrays)


def read_slotted_npz(path: str | Path, instance: Instance) -> SlottedSchedule:
    """Read a ``.npz`` file written by :func:`write_slotted_npz`.

    Raises
    ------
    InvalidScheduleError
        Naming the array (and the first bad index) and the rule, for: a file that is not an
        ``.npz`` without pickles; missing or unknown arrays; a wrong format or version; a slot
        length outside the time range; ``num_flows``/``num_coflows`` that differ from the
        instance; arrays that are not 1-d integer arrays of one length; negative slot indices
        or units, units above ``SIZE_MAX``, a last slot beyond ``TIME_MAX``; positions out of
        range; ``flow != flow_ptr[coflow] + flow_position``; a (slot, flow) pair twice.
    """
    file = str(path)

    def bad(rule: str, fld: str | None = None) -> NoReturn:
        raise InvalidScheduleError(rule, file=file, field=fld)

    expect_kind(path, ("zip",), f"a .npz archive of slotted schedule entries "
                f"({SLOTTED_ENTRIES_FORMAT})", InvalidScheduleError)
    try:
        data = _load_npz_members(path, bad)
    except InvalidScheduleError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as e:
        bad(f"not a readable .npz archive ({_shorten(str(e), 120)})")
    if "segments" not in data and "start" in data and "rate" in data:
        bad("this is a fluid schedule's .npz (pieces with start, end, rate), expected "
            f"{SLOTTED_ENTRIES_FORMAT!r} entries", "(arrays)")
    _check_keys(data, _NPZ_SCALARS + _NPZ_ARRAYS, "(arrays)", bad)

    def scalar(name: str, kinds: str):
        a = data[name]
        if a.ndim != 0 or a.dtype.kind not in kinds:
            bad(f"must be a 0-d array of kind {kinds!r}, got shape {a.shape} dtype {a.dtype}",
                name)
        return a.item()

    fmt = scalar("format", "U")
    if fmt != SLOTTED_ENTRIES_FORMAT:
        bad(f"must be {SLOTTED_ENTRIES_FORMAT!r}, got {_shorten(repr(fmt))}", "format")
    if scalar("version", "iu") != SLOTTED_VERSION:
        bad(f"unsupported version {data['version'].item()!r}; this reader knows version "
            f"{SLOTTED_VERSION}", "version")
    slot = float(scalar("slot", "iuf"))
    rule = _slot_rule(slot)
    if rule:
        bad(rule, "slot")
    for name, expect in (("num_flows", instance.num_flows),
                         ("num_coflows", instance.num_coflows)):
        if scalar(name, "iu") != expect:
            bad(f"the file was written for an instance with {data[name].item()} "
                f"{name[4:]}, this one has {expect}", name)
    n = data["flow"].shape[0] if data["flow"].ndim == 1 else -1
    cols = {}
    for name in _NPZ_ARRAYS:
        a = data[name]
        if a.ndim != 1 or a.shape[0] != n:
            bad(f"must be a 1-d array with one entry per (slot, flow) ({max(n, 0)}), got "
                f"shape {a.shape}", name)
        if a.dtype.kind not in "iu":
            bad(f"dtype {a.dtype} is not allowed (integer expected: slots, flows and units are "
                "whole numbers)", name)
        if a.dtype.kind == "u" and a.dtype.itemsize == 8 and a.size and \
                int(a.max()) > np.iinfo(np.int64).max:
            bad(f"value {int(a.max())} does not fit int64", name)
        cols[name] = a.astype(np.int64)
    t, f, c, p, u = (cols[k] for k in _NPZ_ARRAYS)
    for name, a in (("slot_index", t), ("units", u)):
        neg = np.flatnonzero(a < 0)
        if neg.size:
            bad(f"must be >= 0, got {a[neg[0]]}", f"{name}[{neg[0]}]")
    big = np.flatnonzero(u > limits.SIZE_MAX)
    if big.size:
        bad(_units_rule(int(u[big[0]])), f"units[{big[0]}]")
    if t.size:
        i = int(np.argmax(t))
        rule = _horizon_rule(int(t[i]) + 1, slot)
        if rule:
            bad(rule, f"slot_index[{i}]")
    _check_flow_columns(instance, c, p, f, bad)
    order = np.lexsort((f, t))
    ts, fs = t[order], f[order]
    rep = np.flatnonzero((ts[1:] == ts[:-1]) & (fs[1:] == fs[:-1]))
    if rep.size:
        i = int(order[rep + 1].min())
        bad(f"slot {t[i]} lists flow {f[i]} twice: one entry per (slot, flow)", f"flow[{i}]")
    return SlottedSchedule(slot, t, f, u, {"source_file": file,
                                           "source_format": SLOTTED_ENTRIES_FORMAT})


# ---------------------------------------------------------------------------------- dispatch
#: extension -> (reader, writer).  Readers take (path, instance), writers
#: (schedule, instance, path).
SLOTTED_FORMATS = {
    ".json": (read_slotted_json, write_slotted_json),
    ".npz": (read_slotted_npz, write_slotted_npz),
}


def _slotted_format(path: str | Path):
    suffix = Path(path).suffix.lower()
    if suffix not in SLOTTED_FORMATS:
        raise InvalidParameterError(
            f"cannot tell the slotted schedule format of {str(path)!r} from its extension; "
            f"known: {sorted(SLOTTED_FORMATS)}")
    return SLOTTED_FORMATS[suffix]


def read_slotted_schedule(path: str | Path, instance: Instance) -> SlottedSchedule:
    """Read a slotted schedule for ``instance``; the extension (``.json``, ``.npz``) picks the
    format.

    Raises
    ------
    InvalidScheduleError
        If the file is malformed (:func:`slotted_from_dict`, :func:`read_slotted_npz`).
    InvalidParameterError
        For an unknown extension.
    """
    return _slotted_format(path)[0](path, instance)


def write_slotted_schedule(schedule: SlottedSchedule, instance: Instance,
                           path: str | Path) -> None:
    """Write a slotted schedule for ``instance``; the extension (``.json``, ``.npz``) picks the
    format.

    Raises
    ------
    InvalidScheduleError
        If the schedule cannot be written as one the readers accept.
    InvalidParameterError
        For an unknown extension.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2)])])
    >>> s = SlottedSchedule.from_entries([0, 1], [0, 0], [1, 1])
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> write_slotted_schedule(s, inst, d / "s.npz")
    >>> read_slotted_schedule(d / "s.npz", inst).same_as(s)
    True
    """
    _slotted_format(path)[1](schedule, instance, path)


def schedule_file_model(path: str | Path) -> str:
    """``"integral"`` for a slotted schedule file, ``"fluid"`` for anything else.

    A JSON document is slotted when its ``format`` field (found in the first 64 kB) is
    ``coflowopt-slotted-schedule``; an ``.npz`` archive when its ``format`` member is
    ``coflowopt-slotted-schedule-entries``.  Files that cannot be read or sniffed count as
    ``fluid``: the fluid reader then names what is wrong with them.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.json"
    >>> _ = p.write_text('{"format": "coflowopt-slotted-schedule", "version": 1, "slot": 1, '
    ...                  '"slots": []}')
    >>> schedule_file_model(p), schedule_file_model(p.parent / "missing.json")
    ('integral', 'fluid')
    """
    try:
        kind = file_kind(path)
        if kind == "json":
            with open(path, encoding="utf-8", errors="replace") as fh:
                m = _FORMAT_RE.search(fh.read(_SNIFF_BYTES))
            return "integral" if m and m.group(1) == SLOTTED_FORMAT else "fluid"
        if kind == "zip":
            with zipfile.ZipFile(path) as zf:
                info = zf.getinfo("format.npy")
                if info.file_size > 4096:
                    return "fluid"
                with zf.open(info) as fh:
                    a = np.lib.format.read_array(fh, allow_pickle=False)
            return "integral" if a.ndim == 0 and a.dtype.kind == "U" and \
                a.item() == SLOTTED_ENTRIES_FORMAT else "fluid"
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile, zlib.error):
        pass
    return "fluid"
