"""Readers and writers for instances and schedules.

Instance formats (each with a reader and a writer, exact round trips):

``json``
    The coflowopt interchange format (:mod:`.instance_json`).
``coflow-benchmark`` (alias ``fb``)
    The coflow-benchmark trace, e.g. the Facebook trace (:mod:`.coflow_benchmark`).
``sincronia``
    The Sincronia simulator's per-flow trace (:mod:`.sincronia`).

Schedules (:mod:`.schedule_io`): JSON segment form (``.json``) and columnar pieces (``.npz``),
through :func:`read_schedule` / :func:`write_schedule`.

Slotted schedules of the integral model (:mod:`.slotted_schedule`): JSON slot form (``.json``)
and columnar entries (``.npz``), through :func:`read_slotted_schedule` /
:func:`write_slotted_schedule`; :func:`schedule_file_model` tells the two kinds of schedule file
apart.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..exceptions import InvalidInstanceError, InvalidParameterError
from ._files import KINDS, file_kind
from .coflow_benchmark import read_coflow_benchmark, write_coflow_benchmark
from .instance_json import (dumps_instance, instance_from_dict, instance_to_dict,
                            read_instance_json, write_instance_json)
from .schedule_io import (SCHEDULE_FORMATS, dumps_schedule, read_schedule, schedule_from_dict,
                          schedule_to_dict, write_schedule)
from .sincronia import read_sincronia, write_sincronia
from .slotted_schedule import (SLOTTED_FORMATS, read_slotted_schedule, schedule_file_model,
                               write_slotted_schedule)

__all__ = ["read_instance", "write_instance", "detect_format", "INSTANCE_FORMATS",
           "instance_from_dict", "instance_to_dict", "dumps_instance", "read_instance_json",
           "write_instance_json", "read_coflow_benchmark", "write_coflow_benchmark",
           "read_sincronia", "write_sincronia", "read_schedule", "write_schedule",
           "schedule_to_dict", "schedule_from_dict", "dumps_schedule", "SCHEDULE_FORMATS",
           "read_slotted_schedule", "write_slotted_schedule", "schedule_file_model",
           "SLOTTED_FORMATS"]

#: name -> (reader, writer).  Readers take ``(path, **options)``; writers
#: ``(instance, path, **options)``.
INSTANCE_FORMATS = {
    "json": (read_instance_json, write_instance_json),
    "coflow-benchmark": (read_coflow_benchmark, write_coflow_benchmark),
    "fb": (read_coflow_benchmark, write_coflow_benchmark),
    "sincronia": (read_sincronia, write_sincronia),
}

_JSON_FORMAT_RE = re.compile(r'"format"\s*:\s*"([^"]*)"')
_SNIFF_BYTES = 1 << 16


def detect_format(path: str | Path) -> str:
    """Tell an existing instance file's format.

    ``.json`` files are ``json`` (a coflowopt schedule document is refused), and so are other
    files that hold a JSON document.  Other text files are sniffed on their second line: a
    coflow-benchmark coflow line has ``location:MB`` fields with a colon, a Sincronia line has
    only plain numbers.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    str
        A key of :data:`INSTANCE_FORMATS`.

    Raises
    ------
    InvalidParameterError
        If the file is a schedule, or its second line fits neither trace format.
    InvalidInstanceError
        If the file is a directory, a NumPy array or archive, or binary (named as such).
    FileNotFoundError
        For a non-JSON path that does not exist.
    """
    p = str(path)
    if p.lower().endswith(".json"):
        if os.path.isdir(p):
            return "json"  # the reader names what it got
        try:
            with open(p, encoding="utf-8", errors="replace") as fh:
                head = fh.read(_SNIFF_BYTES)
        except FileNotFoundError:
            return "json"  # the reader reports the missing file
        m = _JSON_FORMAT_RE.search(head)
        if m and m.group(1).startswith(("coflowopt-schedule", "coflowopt-slotted-schedule")):
            reader = "read_slotted_schedule" if "slotted" in m.group(1) else "read_schedule"
            raise InvalidParameterError(
                f"{p!r} is a schedule document ({m.group(1)!r}), not an instance; read it with "
                f"{reader}(path, instance)")
        return "json"
    if p.lower().endswith(tuple(SCHEDULE_FORMATS)):
        raise InvalidParameterError(f"{p!r} is a schedule file, not an instance; read it with "
                                    "read_schedule(path, instance)")
    kind = file_kind(p)
    if kind == "json":
        return "json"  # a JSON document under another name; the JSON reader judges it
    if kind not in ("text", "empty"):
        raise InvalidInstanceError(
            f"this is {KINDS[kind]}, expected an instance file (a coflowopt-instance JSON "
            "document, a coflow-benchmark trace or a Sincronia trace)", file=p)
    with open(p, "rb") as fh:
        head = fh.read(_SNIFF_BYTES).decode("utf-8", errors="replace")
    lines = [ln for ln in re.split(r"\r\n|\r|\n", head)[1:] if ln.strip()]
    second = lines[0] if lines else ""
    toks = second.split()
    if toks and any(":" in t for t in toks):
        return "coflow-benchmark"
    if len(toks) >= 5 and all(re.fullmatch(r"[-+0-9.eE]+", t) for t in toks):
        return "sincronia"
    raise InvalidParameterError(
        f"cannot tell the format of {p!r}: its second line has neither coflow-benchmark "
        "'location:MB' fields nor Sincronia's plain numbers; pass format= (--format on the "
        "command line) one of "
        f"{sorted(INSTANCE_FORMATS)}")


def _format_reader_writer(fmt: str):
    if fmt not in INSTANCE_FORMATS:
        raise InvalidParameterError(
            f"unknown instance format {fmt!r}; known: {sorted(INSTANCE_FORMATS)}")
    return INSTANCE_FORMATS[fmt]


def read_instance(path: str | Path, format: str = "auto", **options):
    """Read an instance file in any registered format (``format="auto"`` detects it).

    ``options`` go to the reader (e.g. ``capacity``, ``time_unit_ms``, ``split`` for traces).
    """
    fmt = detect_format(path) if format == "auto" else format
    return _format_reader_writer(fmt)[0](path, **options)


def write_instance(instance, path: str | Path, format: str = "auto", **options) -> None:
    """Write an instance in any registered format.

    ``format="auto"`` goes by the file name, which only works for ``.json``: a ``.txt`` name
    does not say which trace format is meant, so pass ``format="coflow-benchmark"`` or
    ``"sincronia"``.
    """
    if format == "auto":
        if not str(path).lower().endswith(".json"):
            raise InvalidParameterError(
                f"cannot tell which format to write {str(path)!r} in from its name; pass "
                f"format= one of {sorted(INSTANCE_FORMATS)}")
        format = "json"
    _format_reader_writer(format)[1](instance, path, **options)
