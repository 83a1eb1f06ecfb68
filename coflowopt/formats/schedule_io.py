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
* The reader checks the document (keys, types, finite numbers, positions in range) and raises
  :class:`~coflowopt.exceptions.InvalidScheduleError` naming the place, e.g.
  ``segments[12].rates[3][1]``.  It does not judge feasibility (overlaps, negative rates,
  capacities, completion): that is :func:`coflowopt.verify.verify_schedule`'s job, and the
  reader stores ``meta["segment_of_piece"]`` so that the verifier can name segments.

NPZ (``.npz``), for large schedules (millions of pieces): numpy arrays ``flow`` (global flow
index), ``coflow``, ``flow_position``, ``start``, ``end``, ``rate`` (one entry per piece) and
0-d arrays ``format = "coflowopt-schedule-pieces"``, ``version = 1``, ``num_flows``,
``num_coflows``.  Float64 only.
"""

from __future__ import annotations

import json
import math
import re
import zipfile
from fractions import Fraction
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from .._numbers import MAX_EXACT_INT, plain_number, strict_float
from ..exceptions import InvalidParameterError, InvalidScheduleError, NotSupportedError
from ..instance import Instance
from ..schedule import Schedule
from .instance_json import load_json_document

__all__ = ["read_schedule", "write_schedule", "schedule_to_dict", "schedule_from_dict",
           "dumps_schedule", "read_schedule_json", "write_schedule_json", "read_schedule_npz",
           "write_schedule_npz", "SCHEDULE_FORMATS", "FORMAT_NAME", "PIECES_FORMAT_NAME",
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


# ---------------------------------------------------------------------------------- JSON
def _segment_dicts(schedule: Schedule, instance: Instance):
    _check_flows(schedule, instance)
    if not schedule.exact:
        for name in ("start", "end", "rate"):
            bad = np.flatnonzero(~np.isfinite(getattr(schedule, name)))
            if bad.size:
                raise InvalidScheduleError(f"{name} must be finite, got "
                                           f"{getattr(schedule, name)[bad[0]]!r}",
                                           field=f"{name}[{bad[0]}]")
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
    """Serialise with one segment per line (valid JSON, diff-friendly)."""
    lines = (json.dumps(s, separators=(", ", ": "), allow_nan=False)
             for s in _segment_dicts(schedule, instance))
    body = ",\n".join("  " + s for s in lines)
    head = f'{{"format": "{FORMAT_NAME}", "version": {FORMAT_VERSION}, "segments": ['
    return head + ("\n" + body + "\n" if body else "") + "]}\n"


def write_schedule_json(schedule: Schedule, instance: Instance, path: str | Path) -> None:
    """Write a schedule as coflowopt-schedule JSON (segment form; exact round trip).

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
    """
    Path(path).write_text(dumps_schedule(schedule, instance), encoding="utf-8")


def schedule_from_dict(doc: Any, instance: Instance, *, file: str | None = None,
                       exact: bool | None = None) -> Schedule:
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

    Returns
    -------
    Schedule
        One piece per rate entry, in document order; ``meta["segment_of_piece"]`` (int64 array)
        gives each piece's segment index.

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

    K = instance.num_coflows
    width = instance.width.tolist()
    starts: list[Any] = []
    ends: list[Any] = []
    cpos: list[int] = []
    fpos: list[int] = []
    rates: list[Any] = []
    seg_of: list[int] = []
    has_fraction = False
    for i, seg in enumerate(segs):
        where = f"segments[{i}]"
        if not isinstance(seg, dict):
            bad("a segment must be a JSON object", where)
        _check_keys(seg, _SEGMENT_KEYS, where, bad)
        for key, out in (("start", starts), ("end", ends)):
            v = seg[key]
            has_fraction |= _check_value(v, f"{where}.{key}", bad)
            out.append(v)
        entries = seg["rates"]
        if not isinstance(entries, list):
            bad("must be a list of [coflow_position, flow_position, rate]", f"{where}.rates")
        for j, e in enumerate(entries):
            if type(e) is not list or len(e) != 3:
                bad("a rate entry is [coflow_position, flow_position, rate]",
                    f"{where}.rates[{j}]")
            c, f, r = e
            if type(c) is not int or not 0 <= c < K:
                bad(f"coflow position must be an integer in 0..{K - 1}, got {c!r}",
                    f"{where}.rates[{j}][0]")
            if type(f) is not int or not 0 <= f < width[c]:
                bad(f"flow position must be an integer in 0..{width[c] - 1} (coflow {c} has "
                    f"{width[c]} flows), got {f!r}", f"{where}.rates[{j}][1]")
            has_fraction |= _check_value(r, f"{where}.rates[{j}][2]", bad)
            cpos.append(c)
            fpos.append(f)
            rates.append(r)
        seg_of.extend([i] * len(entries))

    seg_arr = np.asarray(seg_of, dtype=np.int64)
    flow = instance.flow_ptr[np.asarray(cpos, dtype=np.int64)] + np.asarray(fpos, dtype=np.int64)
    use_exact = has_fraction if exact is None else bool(exact)
    meta: dict[str, Any] = {"source_format": FORMAT_NAME, "segment_of_piece": seg_arr}
    if file is not None:
        meta["source_file"] = str(file)
    if use_exact:
        st = [Fraction(v) for v in starts]
        en = [Fraction(v) for v in ends]
        return Schedule(flow, np.asarray([st[i] for i in seg_of], dtype=object),
                        np.asarray([en[i] for i in seg_of], dtype=object),
                        np.asarray([Fraction(v) for v in rates], dtype=object), meta=meta)

    def rate_field(g: int) -> str:
        first = int(np.searchsorted(seg_arr, seg_arr[g]))
        return f"segments[{seg_arr[g]}].rates[{g - first}][2]"

    st = _floats(starts, lambda k: f"segments[{k}].start", bad)
    en = _floats(ends, lambda k: f"segments[{k}].end", bad)
    return Schedule(flow, st[seg_arr], en[seg_arr], _floats(rates, rate_field, bad), meta=meta)


def _check_keys(d: dict, keys: tuple[str, ...], where: str, bad) -> None:
    missing = [k for k in keys if k not in d]
    if missing:
        bad(f"missing key(s) {missing}; required: {list(keys)}", where)
    unknown = sorted(set(d) - set(keys))
    if unknown:
        bad(f"unknown key(s) {unknown}; allowed: {list(keys)}", where)


def _check_value(v: Any, fld: str, bad) -> bool:
    """Check a number or ``"p/q"`` string; return True for a string."""
    t = type(v)
    if t is int:
        return False
    if t is float:
        if not math.isfinite(v):
            bad(f"must be finite, got {v!r}", fld)
        return False
    if t is str:
        if not _FRACTION_RE.fullmatch(v):
            bad(f"a string number must be an exact fraction 'p/q', got {v!r}", fld)
        if int(v.split("/")[1]) == 0:
            bad(f"zero denominator in {v!r}", fld)
        return True
    bad(f"must be a number or a 'p/q' string, got {v!r}", fld)


def _floats(values: list, where, bad) -> np.ndarray:
    """float64 array of checked values; an integer float64 cannot hold exactly is an error."""
    if any(type(v) is not float and (type(v) is str or abs(v) > MAX_EXACT_INT) for v in values):
        out = np.empty(len(values))
        for k, v in enumerate(values):
            try:
                out[k] = float(Fraction(v)) if type(v) is str else strict_float(v, where(k))
            except ValueError as e:
                bad(f"{e} (write it as a 'p/q' string for an exact schedule)", where(k))
        return out
    return np.asarray(values, dtype=float).reshape(len(values))


def read_schedule_json(path: str | Path, instance: Instance, *,
                       exact: bool | None = None) -> Schedule:
    """Read a coflowopt-schedule JSON file (see :func:`schedule_from_dict`).

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
    """
    doc = load_json_document(path, InvalidScheduleError)
    return schedule_from_dict(doc, instance, file=str(path), exact=exact)


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
        If a piece names a flow outside the instance.
    """
    if schedule.exact:
        raise NotSupportedError("the .npz schedule format holds float64 values only; write an "
                                "exact schedule as .json (or convert it with to_float())")
    _check_flows(schedule, instance)
    arrays = {
        "format": np.array(PIECES_FORMAT_NAME), "version": np.array(FORMAT_VERSION),
        "num_flows": np.array(instance.num_flows), "num_coflows": np.array(instance.num_coflows),
        "flow": schedule.flow, "coflow": instance.flow_coflow[schedule.flow],
        "flow_position": instance.flow_position[schedule.flow],
        "start": schedule.start, "end": schedule.end, "rate": schedule.rate,
    }
    with open(path, "wb") as fh:
        (np.savez_compressed if compress else np.savez)(fh, **arrays)


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

    try:
        with np.load(path, allow_pickle=False) as z:
            data = {k: z[k] for k in z.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as e:
        bad(f"not a readable .npz file without pickled objects ({e})")
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
        else:
            a = a.astype(np.int64)
        cols[name] = a
    c, p, f = cols["coflow"], cols["flow_position"], cols["flow"]
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
    return Schedule(f, cols["start"], cols["end"], cols["rate"],
                    meta={"source_file": file, "source_format": PIECES_FORMAT_NAME})


# ---------------------------------------------------------------------------------- dispatch
#: extension -> (reader, writer).  Readers take (path, instance, **options), writers
#: (schedule, instance, path, **options).
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
        Passed to the reader (``exact=`` for JSON).

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
