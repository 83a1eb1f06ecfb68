"""The coflowopt JSON interchange format for instances, version 1.

Shape (other tools rely on it; nothing else is written)::

    {"format": "coflowopt-instance", "version": 1,
     "ingress": [capacities], "egress": [capacities],
     "coflows": [{"id": "C1", "weight": 1, "release": 0, "deadline": null,
                  "flows": [[ingress_index, egress_index, size], ...]}, ...]}

* Port indices are 0-based; ``ingress``/``egress`` list one capacity per port.
* ``deadline`` is an absolute time or ``null``.
* ``weight``, ``release`` and ``deadline`` may be omitted (defaults 1, 0, null); ``id``,
  ``flows``, ``ingress``, ``egress``, ``format`` and ``version`` are required.
* Numbers are JSON numbers, within the ranges of :mod:`coflowopt.limits` (sizes and
  capacities in ``[1e-9, 1e12]``, weights 0 or in ``[1e-9, 1e9]``, times 0 or in
  ``[1e-30, 1e35]``, and the instance's dynamic range).  Integers beyond 2**53 that float64
  cannot hold exactly, NaN and Infinity are rejected; unknown keys are rejected (they are
  usually typos) except a top-level ``"meta"`` object, which is kept as provenance.

The writer emits integral values as integers and other values with the shortest ``repr`` that
reads back to the same float64, so write -> read is exact.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from .._numbers import plain_number, strict_float
from ..exceptions import InvalidInstanceError
from ..instance import Instance
from ._files import expect_kind, json_value_error_rule

__all__ = ["instance_from_dict", "instance_to_dict", "read_instance_json", "write_instance_json",
           "dumps_instance", "load_json_document", "FORMAT_NAME", "FORMAT_VERSION"]

FORMAT_NAME = "coflowopt-instance"
FORMAT_VERSION = 1
_TOP_KEYS = {"format", "version", "ingress", "egress", "coflows", "meta"}
_COFLOW_KEYS = {"id", "weight", "release", "deadline", "flows"}


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a valid JSON number")


def _reject_duplicate_keys(pairs):
    # json keeps the last of repeated keys silently; {"size": 1, "size": 2} is almost surely a
    # mistake, so it is an error like every other ambiguity.
    d = dict(pairs)
    if len(d) != len(pairs):
        seen = set()
        for k, _ in pairs:
            if k in seen:
                raise ValueError(f"duplicate key {k!r} in a JSON object")
            seen.add(k)
    return d


def load_json_document(path: str | Path, error: type = InvalidInstanceError) -> Any:
    """Parse a JSON file strictly: NaN/Infinity and repeated keys are errors.

    Raises ``error`` (an :class:`~coflowopt.exceptions.InputError` subclass) naming the file and,
    for syntax errors, the line.
    """
    path = str(path)
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh, parse_constant=_reject_constant,
                             object_pairs_hook=_reject_duplicate_keys)
    except json.JSONDecodeError as e:
        raise error(f"not valid JSON: {e.msg} (column {e.colno})", file=path,
                    line=e.lineno) from None
    except RecursionError:
        raise error(f"JSON nested deeper than Python's recursion limit "
                    f"({sys.getrecursionlimit()}); no coflowopt document nests more than 4 "
                    "levels", file=path) from None
    except ValueError as e:  # also UnicodeDecodeError and Python's integer-digits limit
        raise error(json_value_error_rule(e), file=path) from None


def instance_from_dict(doc: Any, *, file: str | None = None) -> Instance:
    """Validate a parsed JSON document and build the :class:`Instance`.

    Raises
    ------
    InvalidInstanceError
        Naming the field (``coflows[3].flows[2][2]``) and the rule broken.
    """
    def bad(rule, fld):
        raise InvalidInstanceError(rule, file=file, field=fld)

    if not isinstance(doc, dict):
        bad("the document must be a JSON object", "(top level)")
    unknown = set(doc) - _TOP_KEYS
    if unknown:
        bad(f"unknown key(s) {sorted(unknown)}; allowed: {sorted(_TOP_KEYS)}", "(top level)")
    if doc.get("format") != FORMAT_NAME:
        bad(f"must be {FORMAT_NAME!r}, got {doc.get('format')!r}", "format")
    if type(doc.get("version")) is not int or doc.get("version") != FORMAT_VERSION:
        bad(f"unsupported version {doc.get('version')!r}; this reader knows version "
            f"{FORMAT_VERSION}", "version")

    def num(v, fld):
        # the two ways a JSON number leaves float64, named as such (not as "inf" or as a
        # 400-digit integer): a literal like 1e999, which json reads as infinity, and a long
        # integer
        if type(v) is float and not math.isfinite(v):
            bad("must be a finite number (a literal beyond float64's range, such as 1e999, "
                "reads as infinity)", fld)
        if type(v) is int and v.bit_length() > 128:
            bad(f"an integer of {len(str(abs(v)))} digits is beyond coflowopt.limits' ranges",
                fld)
        try:
            return strict_float(v, fld)
        except ValueError as e:
            bad(str(e), fld)

    caps = {}
    for side in ("ingress", "egress"):
        lst = doc.get(side)
        if not isinstance(lst, list) or not lst:
            bad("must be a non-empty list of port capacities", side)
        caps[side] = np.array([num(c, f"{side}[{i}]") for i, c in enumerate(lst)])
    cofs = doc.get("coflows")
    if not isinstance(cofs, list) or not cofs:
        bad("must be a non-empty list of coflows", "coflows")
    ids, w, r, d, counts = [], [], [], [], []
    src, dst, size = [], [], []
    for k, c in enumerate(cofs):
        where = f"coflows[{k}]"
        if not isinstance(c, dict):
            bad("a coflow must be a JSON object", where)
        unknown = set(c) - _COFLOW_KEYS
        if unknown:
            bad(f"unknown key(s) {sorted(unknown)}; allowed: {sorted(_COFLOW_KEYS)}", where)
        cid = c.get("id")
        if isinstance(cid, bool) or not isinstance(cid, (str, int)) or cid == "":
            bad("id must be a non-empty string (or an integer)", f"{where}.id")
        ids.append(str(cid))
        w.append(num(c.get("weight", 1), f"{where}.weight"))
        r.append(num(c.get("release", 0), f"{where}.release"))
        dl = c.get("deadline")
        d.append(np.nan if dl is None else num(dl, f"{where}.deadline"))
        flows = c.get("flows")
        if not isinstance(flows, list) or not flows:
            bad("must be a non-empty list of [ingress, egress, size]", f"{where}.flows")
        for j, fl in enumerate(flows):
            fw = f"{where}.flows[{j}]"
            if not isinstance(fl, list) or len(fl) != 3:
                bad("a flow is [ingress_index, egress_index, size]", fw)
            for col, side in ((0, "ingress"), (1, "egress")):
                v = fl[col]
                if isinstance(v, bool) or not isinstance(v, int):
                    bad(f"port index must be an integer, got {v!r}", f"{fw}[{col}]")
                # Checked here (not only by Instance) so that huge integers cannot overflow int64.
                if not 0 <= v < len(caps[side]):
                    bad(f"{side} port {v} out of range 0..{len(caps[side]) - 1}", f"{fw}[{col}]")
            src.append(fl[0])
            dst.append(fl[1])
            size.append(num(fl[2], f"{fw}[2]"))
        counts.append(len(flows))
    meta = doc.get("meta", {})
    if not isinstance(meta, dict):
        bad("meta must be a JSON object", "meta")
    meta = dict(meta)
    if file is not None:
        meta.setdefault("source_file", str(file))
    meta.setdefault("source_format", FORMAT_NAME)
    try:
        return Instance.from_arrays(
            ingress_capacity=caps["ingress"], egress_capacity=caps["egress"], coflow_ids=ids,
            flow_coflow=np.repeat(np.arange(len(ids)), counts),
            flow_src=np.asarray(src, dtype=np.int64), flow_dst=np.asarray(dst, dtype=np.int64),
            flow_size=np.asarray(size, dtype=float), weight=w, release=r, deadline=d, meta=meta)
    except InvalidInstanceError as e:
        # Instance names meta["source_file"], which a document's own meta may have set to the
        # file it was once converted from; the error is about this file.
        raise InvalidInstanceError(e.rule, file=file, line=e.line, field=e.field) from None


def instance_to_dict(instance: Instance, *, include_meta: bool = False) -> dict[str, Any]:
    """The JSON document of an instance (see the module docstring for the shape)."""
    coflows = []
    src, dst, size = (instance.flow_src.tolist(), instance.flow_dst.tolist(),
                      instance.flow_size.tolist())
    ptr = instance.flow_ptr.tolist()
    for k, cid in enumerate(instance.coflow_ids):
        dl = float(instance.deadline[k])
        coflows.append({
            "id": cid,
            "weight": plain_number(float(instance.weight[k])),
            "release": plain_number(float(instance.release[k])),
            "deadline": None if np.isnan(dl) else plain_number(dl),
            "flows": [[src[i], dst[i], plain_number(size[i])] for i in range(ptr[k], ptr[k + 1])],
        })
    doc = {"format": FORMAT_NAME, "version": FORMAT_VERSION,
           "ingress": [plain_number(c) for c in instance.ingress_capacity.tolist()],
           "egress": [plain_number(c) for c in instance.egress_capacity.tolist()],
           "coflows": coflows}
    if include_meta and instance.meta:
        doc["meta"] = _jsonable(instance.meta)
    return doc


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    return x


def dumps_instance(instance: Instance, *, include_meta: bool = False) -> str:
    """Serialise with one coflow per line (readable and diff-friendly, still valid JSON)."""
    doc = instance_to_dict(instance, include_meta=include_meta)
    head = {k: v for k, v in doc.items() if k != "coflows"}
    parts = [json.dumps(head)[:-1], ', "coflows": [\n']
    parts.append(",\n".join("  " + json.dumps(c, separators=(", ", ": "))
                            for c in doc["coflows"]))
    parts.append("\n]}\n")
    return "".join(parts)


def read_instance_json(path: str | Path) -> Instance:
    """Read a coflowopt-instance JSON file.

    Raises
    ------
    InvalidInstanceError
        For malformed JSON (with line and column), a broken model rule or a value outside
        :mod:`coflowopt.limits` (with the field), or a file of another kind (a directory, an
        empty or binary file, a NumPy array or archive), named as such.
    """
    path = str(path)
    # a document starts with '{' (after blanks): any other text is named as such (a trace given
    # here says "a text file", not "Extra data (column 3)")
    expect_kind(path, ("json", "empty"), "a coflowopt-instance JSON document",
                InvalidInstanceError)
    return instance_from_dict(load_json_document(path, InvalidInstanceError), file=path)


def write_instance_json(instance: Instance, path: str | Path, *, include_meta: bool = False) -> None:
    """Write an instance as coflowopt-instance JSON (exact round trip)."""
    Path(path).write_text(dumps_instance(instance, include_meta=include_meta), encoding="utf-8")
