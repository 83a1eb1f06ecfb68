"""The coflowopt JSON interchange format for instances, versions 1 (big switch) and 2
(flows over resources).

Shape (other tools rely on it; nothing else is written)::

    {"format": "coflowopt-instance", "version": 1,
     "ingress": [capacities], "egress": [capacities],
     "coflows": [{"id": "C1", "weight": 1, "release": 0, "deadline": null,
                  "flows": [[ingress_index, egress_index, size], ...]}, ...]}

* Port indices are 0-based; ``ingress``/``egress`` list one capacity per port.
* ``subcoflows`` (optional, per coflow) lists one integer sub-coflow label per flow, in
  ``0 .. len(flows) - 1``: flows with one label form one sub-coflow (Creek's per-receiver
  parts of a many-to-many coflow, :attr:`coflowopt.instance.Instance.flow_subcoflow`).  A
  coflow without it has one sub-coflow per egress port; the writer emits it (for every
  coflow) only when the instance's index is not that default.
* ``deadline`` is an absolute time or ``null``.
* ``weight``, ``release`` and ``deadline`` may be omitted (defaults 1, 0, null); ``id``,
  ``flows``, ``ingress``, ``egress``, ``format`` and ``version`` are required.
* Numbers are JSON numbers, within the ranges of :mod:`coflowopt.limits` (sizes and
  capacities in ``[1e-9, 1e12]``, weights 0 or in ``[1e-9, 1e9]``, times 0 or in
  ``[1e-30, 1e35]``, and the instance's dynamic range).  Integers beyond 2**53 that float64
  cannot hold exactly, NaN and Infinity are rejected; unknown keys are rejected (they are
  usually typos) except a top-level ``"meta"`` object, which is kept as provenance.

Version 2 (flows over shared resources, e.g. links of a topology)::

    {"format": "coflowopt-instance", "version": 2,
     "resources": [{"id": "l0", "capacity": 1.0}, ...],
     "coflows": [{"id": "C1", "weight": 1, "release": 0, "deadline": null,
                  "flows": [{"src": "h0", "dst": "h5", "size": 3.0, "path": [0, 4, 9]}]}],
     "topology": {...}}

* ``path`` lists indices into ``resources``: non-empty, no resource twice, at most
  ``limits.MAX_PATH_LENGTH``; the flow's rate counts against each.
* ``subcoflow`` (optional, per flow: on every flow of a coflow or on none) is the flow's
  sub-coflow label in ``0 .. len(flows) - 1`` (as ``subcoflows`` in version 1); a coflow
  without it has one sub-coflow per destination host.  Written only for a non-default index.
* ``src``/``dst`` name hosts (strings).  With a ``topology`` that lists ``nodes``, the hosts
  are its host nodes in that order and every ``src``/``dst`` must be one; otherwise the hosts
  are the names used, in order of first use.
* ``topology`` (optional) records how the instance was built: ``kind``, ``params``,
  ``routing``, ``seed``, ``placement`` (and ``placement_seed``), ``nodes`` (``{"id",
  "host"}``) and ``links`` (``{"id", "src", "dst", "capacity"}``; when given, one per resource
  with the resource's id and capacity).
* Version 1 is still what is written for a big-switch instance.

The writer emits integral values as integers and other values with the shortest ``repr`` that
reads back to the same float64, so write -> read is exact.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import json
import math
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

from .._numbers import MAX_EXACT_INT, plain_number, strict_float
from ..exceptions import InvalidInstanceError
from ..instance import Instance
from ..rates._jit import HAVE_NUMBA
from ._files import JSONConstantError, expect_kind, json_value_error_rule, locate_json_constant

__all__ = ["instance_from_dict", "instance_to_dict", "read_instance_json", "write_instance_json",
           "dumps_instance", "load_json_document", "FORMAT_NAME", "FORMAT_VERSION",
           "FORMAT_VERSION_RESOURCES"]

FORMAT_NAME = "coflowopt-instance"
FORMAT_VERSION = 1
#: the version for instances on resources (topologies)
FORMAT_VERSION_RESOURCES = 2
_TOP_KEYS = {"format", "version", "ingress", "egress", "coflows", "meta"}
_TOP_KEYS_V2 = {"format", "version", "resources", "coflows", "topology", "meta"}
_COFLOW_KEYS = {"id", "weight", "release", "deadline", "flows"}
_COFLOW_KEYS_V1 = _COFLOW_KEYS | {"subcoflows"}
_FLOW_KEYS_V2 = {"src", "dst", "size", "path"}
_FLOW_KEYS_V2_OPTIONAL = {"subcoflow"}
_RESOURCE_KEYS = {"id", "capacity"}
_TOPOLOGY_KEYS = {"kind", "params", "routing", "seed", "placement", "placement_seed", "nodes",
                  "links"}


def _reject_constant(name: str):
    raise JSONConstantError(name)


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


@contextlib.contextmanager
def _gc_paused():
    """Hold Python's cyclic garbage collector while a document is parsed.

    Why: the parser allocates one list per flow (5.2 million on Custom-4000), each allocation
    counts towards the collector's thresholds, and every older-generation collection walks all
    of the lists made so far: parsing that 74 MB file took 4.7 s of CPU with the collector and
    2.0 s without.  A parsed JSON document is a tree (no reference cycles), so deferring the
    collection frees nothing later than it would have been freed."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def load_json_document(path: str | Path, error: type = InvalidInstanceError) -> Any:
    """Parse a JSON file strictly: NaN/Infinity and repeated keys are errors.

    Raises ``error`` (an :class:`~coflowopt.exceptions.InputError` subclass) naming the file and,
    for syntax errors, the line.
    """
    path = str(path)
    try:
        with open(path, encoding="utf-8") as fh, _gc_paused():
            return json.load(fh, parse_constant=_reject_constant,
                             object_pairs_hook=_reject_duplicate_keys)
    except json.JSONDecodeError as e:
        raise error(f"not valid JSON: {e.msg} (column {e.colno})", file=path,
                    line=e.lineno) from None
    except RecursionError:
        raise error(f"JSON nested deeper than Python's recursion limit "
                    f"({sys.getrecursionlimit()}); no coflowopt document nests more than 4 "
                    "levels", file=path) from None
    except JSONConstantError as e:
        # an error path: read the text again to say where the token is
        with open(path, encoding="utf-8") as fh:
            where = locate_json_constant(fh.read())
        if where is None:  # pragma: no cover - json saw it, so the scan finds it
            raise error(str(e), file=path) from None
        raise error(f"{e} (column {where[1]})", file=path, line=where[0]) from None
    except ValueError as e:  # also UnicodeDecodeError and Python's integer-digits limit
        raise error(json_value_error_rule(e), file=path) from None


def instance_from_dict(doc: Any, *, file: str | None = None) -> Instance:
    """Validate a parsed JSON document and build the :class:`Instance`.

    Raises
    ------
    InvalidInstanceError
        Naming the field (``coflows[3].flows[2][2]``) and the rule broken.
    """
    return _instance_from_dict(doc, file, None)


class _Unusual(Exception):
    """A scanned document (:func:`_read_scanned`) that the column reader declines: read it
    again with ``json``."""


def _instance_from_dict(doc: Any, file: str | None, scanned) -> Instance:
    """:func:`instance_from_dict`; ``scanned`` (or None) is the flow columns of
    :func:`_read_scanned`, ``(flows per coflow, src, dst, size)``, for a document whose
    coflows' flow lists are ``[]`` placeholders.  Raises :class:`_Unusual` where such a
    document needs the per-flow reader."""
    def bad(rule, fld):
        raise InvalidInstanceError(rule, file=file, field=fld)

    if not isinstance(doc, dict):
        bad("the document must be a JSON object", "(top level)")
    if doc.get("format") != FORMAT_NAME:
        bad(f"must be {FORMAT_NAME!r}, got {doc.get('format')!r}", "format")
    version = doc.get("version")
    if type(version) is not int or version not in (FORMAT_VERSION, FORMAT_VERSION_RESOURCES):
        bad(f"unsupported version {version!r}; this reader knows versions {FORMAT_VERSION} "
            f"and {FORMAT_VERSION_RESOURCES}", "version")
    allowed = _TOP_KEYS if version == FORMAT_VERSION else _TOP_KEYS_V2
    if version == FORMAT_VERSION_RESOURCES and ("ingress" in doc or "egress" in doc) and \
            "resources" not in doc:
        bad("version 2 lists resources and paths; a document with ingress and egress ports "
            "is version 1", "version")
    unknown = set(doc) - allowed
    if unknown:
        bad(f"unknown key(s) {sorted(unknown)}; allowed in version {version}: "
            f"{sorted(allowed)}", "(top level)")

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

    if version == FORMAT_VERSION_RESOURCES:
        if scanned is not None:
            raise _Unusual
        return _instance_from_dict_v2(doc, file, bad, num)
    caps = {}
    for side in ("ingress", "egress"):
        lst = doc.get(side)
        if not isinstance(lst, list) or not lst:
            bad("must be a non-empty list of port capacities", side)
        caps[side] = np.array([num(c, f"{side}[{i}]") for i, c in enumerate(lst)])
    cofs = doc.get("coflows")
    if not isinstance(cofs, list) or not cofs:
        bad("must be a non-empty list of coflows", "coflows")
    fast = _v1_flows_fast(cofs, caps, num, bad, scanned)
    if fast is None and scanned is not None:
        raise _Unusual
    if fast is not None:
        ids, w, r, d, counts, src, dst, size = fast
        labels, given_default = [], len(ids)
    else:
        ids, w, r, d, counts, src, dst, size, labels, given_default = _v1_coflows(
            cofs, caps, num, bad)
    meta = _document_meta(doc, file, bad)
    try:
        return Instance.from_arrays(
            ingress_capacity=caps["ingress"], egress_capacity=caps["egress"], coflow_ids=ids,
            flow_coflow=np.repeat(np.arange(len(ids)), counts),
            flow_src=np.asarray(src, dtype=np.int64), flow_dst=np.asarray(dst, dtype=np.int64),
            flow_size=np.asarray(size, dtype=float), weight=w, release=r, deadline=d, meta=meta,
            flow_subcoflow=(None if given_default == len(ids) else
                            np.concatenate(labels).astype(np.int64)))
    except InvalidInstanceError as e:
        # Instance names meta["source_file"], which a document's own meta may have set to the
        # file it was once converted from; the error is about this file.
        raise InvalidInstanceError(e.rule, file=file, line=e.line, field=e.field) from None


def _document_meta(doc, file, bad) -> dict:
    """The document's ``meta`` (a copy), with the file and format it was read from."""
    meta = doc.get("meta", {})
    if not isinstance(meta, dict):
        bad("meta must be a JSON object", "meta")
    meta = dict(meta)
    if file is not None:
        meta.setdefault("source_file", str(file))
    meta.setdefault("source_format", FORMAT_NAME)
    return meta


def _v1_coflows(cofs, caps, num, bad):
    """The coflows of a version 1 document, checked one flow at a time in document order (the
    first broken field is the one reported)."""
    ids, w, r, d, counts = [], [], [], [], []
    src, dst, size = [], [], []
    labels, given_default = [], 0
    for k, c in enumerate(cofs):
        where = f"coflows[{k}]"
        if not isinstance(c, dict):
            bad("a coflow must be a JSON object", where)
        for out, x in zip((ids, w, r, d), _coflow_fields(c, where, bad, num, _COFLOW_KEYS_V1)):
            out.append(x)
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
        if "subcoflows" in c:
            labels.append(_subcoflow_labels(c["subcoflows"], len(flows), f"{where}.subcoflows",
                                            bad))
        else:  # the default: one sub-coflow per egress port
            labels.append(np.unique(dst[-len(flows):], return_inverse=True)[1].ravel())
            given_default += 1
    return ids, w, r, d, counts, src, dst, size, labels, given_default


def _v1_flows_fast(cofs, caps, num, bad, scanned=None):
    """The coflows of a version 1 document with the flows checked column by column (numpy and
    C-level ``map``) instead of one at a time, or None when anything is unusual: a coflow that
    breaks a rule, a flow that is not ``[int, int, number]``, a port out of range, a size that is
    not finite or beyond 2^53, a coflow with ``subcoflows``.  The caller then reads the document
    with :func:`_v1_coflows`, which reports the first broken field in document order; so the
    fast path only ever accepts what the slow one accepts, with the same values (Python's and
    numpy's int-to-float conversions are both correctly rounded, and exact below 2^53).  Why:
    the per-flow loop took 15 s of CPU for the 5.2 million flows of Custom-4000.

    ``scanned`` (or None): the columns :func:`_read_scanned` read, ``(flows per coflow, src,
    dst, size)``, each coflow's ``flows`` being the placeholder ``[]``; the same checks apply
    to them."""
    ids, w, r, d, counts = [], [], [], [], []
    if scanned is not None and len(scanned[0]) != len(cofs):
        return None
    try:
        for k, c in enumerate(cofs):
            if not isinstance(c, dict) or "subcoflows" in c:
                return None
            for out, x in zip((ids, w, r, d), _coflow_fields(c, f"coflows[{k}]", bad, num,
                                                            _COFLOW_KEYS_V1)):
                out.append(x)
            flows = c.get("flows")
            # a list of flows, or with scanned columns the placeholder []
            if not isinstance(flows, list) or bool(flows) == (scanned is not None):
                return None
            counts.append(len(flows))
    except InvalidInstanceError:
        return None
    if scanned is not None:
        counts, src, dst, size = scanned
    else:
        cols = _v1_columns(cofs)
        if cols is None:
            return None
        src, dst, size = cols
    if src.min() < 0 or src.max() >= len(caps["ingress"]) or dst.min() < 0 or \
            dst.max() >= len(caps["egress"]) or not np.all(np.abs(size) <= MAX_EXACT_INT):
        return None   # (NaN and infinities fail the last test too)
    return ids, w, r, d, counts, src, dst, size


def _v1_columns(cofs):
    """The flows of parsed coflows as ``(src, dst, size)`` arrays, or None unless every flow is
    ``[int, int, int or float]`` (and the ints fit int64)."""
    flows = list(itertools.chain.from_iterable(c["flows"] for c in cofs))
    if set(map(type, flows)) != {list} or set(map(len, flows)) != {3}:
        return None
    # columns by comprehension (zip(*flows) unpacks millions of arguments: 25x slower)
    s_ = [f[0] for f in flows]
    d_ = [f[1] for f in flows]
    z_ = [f[2] for f in flows]
    if set(map(type, s_)) != {int} or set(map(type, d_)) != {int} or \
            not set(map(type, z_)) <= {int, float}:
        return None
    try:
        src = np.array(s_, dtype=np.int64)
        dst = np.array(d_, dtype=np.int64)
        size = np.array(z_, dtype=float)
    except OverflowError:
        return None
    return src, dst, size


def _subcoflow_labels(v, n: int, fld: str, bad) -> np.ndarray:
    """A coflow's ``subcoflows`` list: ``n`` integers in ``0 .. n - 1``."""
    if not isinstance(v, list) or len(v) != n:
        bad(f"must be a list of {n} integer sub-coflow labels (one per flow), got "
            f"{type(v).__name__ if not isinstance(v, list) else f'{len(v)} entries'}", fld)
    return np.asarray([_subcoflow_label(x, n, f"{fld}[{j}]", bad) for j, x in enumerate(v)],
                      dtype=np.int64)


def _subcoflow_label(x, n: int, fld: str, bad) -> int:
    """One sub-coflow label: an integer in ``0 .. n - 1`` (``n`` flows in the coflow)."""
    if isinstance(x, bool) or not isinstance(x, int):
        bad(f"a sub-coflow label must be an integer, got {x!r}", fld)
    if not 0 <= x < n:  # here, so that huge integers cannot overflow int64
        bad(f"sub-coflow label {x} out of range 0..{n - 1} (at most one sub-coflow per flow "
            "of the coflow)", fld)
    return x


def _coflow_fields(c, where, bad, num, keys=None):
    """A coflow's id, weight, release and deadline, checked in that order after its keys
    (``keys``: the allowed ones, version 2's by default)."""
    keys = _COFLOW_KEYS if keys is None else keys
    unknown = set(c) - keys
    if unknown:
        bad(f"unknown key(s) {sorted(unknown)}; allowed: {sorted(keys)}", where)
    cid = c.get("id")
    if isinstance(cid, bool) or not isinstance(cid, (str, int)) or cid == "":
        bad("id must be a non-empty string (or an integer)", f"{where}.id")
    dl = c.get("deadline")
    return (str(cid), num(c.get("weight", 1), f"{where}.weight"),
            num(c.get("release", 0), f"{where}.release"),
            np.nan if dl is None else num(dl, f"{where}.deadline"))


def _instance_from_dict_v2(doc, file, bad, num) -> Instance:
    """Version 2: flows over resources (see the module docstring)."""
    res = doc.get("resources")
    if not isinstance(res, list) or not res:
        bad("must be a non-empty list of {\"id\", \"capacity\"} objects", "resources")
    rids, rcap = [], []
    for i, x in enumerate(res):
        where = f"resources[{i}]"
        if not isinstance(x, dict):
            bad("a resource is an object {\"id\": ..., \"capacity\": ...}", where)
        unknown = set(x) - _RESOURCE_KEYS
        if unknown:
            bad(f"unknown key(s) {sorted(unknown)}; allowed: {sorted(_RESOURCE_KEYS)}", where)
        rid = x.get("id", f"r{i}")
        if isinstance(rid, bool) or not isinstance(rid, (str, int)) or rid == "":
            bad("id must be a non-empty string (or an integer)", f"{where}.id")
        if "capacity" not in x:
            bad("every resource needs a capacity", f"{where}.capacity")
        rids.append(str(rid))
        rcap.append(num(x["capacity"], f"{where}.capacity"))
    R = len(rcap)
    topo = doc.get("topology")
    host_index: dict[str, int] = {}
    fixed_hosts = False
    if topo is not None:
        _check_topology(topo, rids, rcap, bad)
        if isinstance(topo.get("nodes"), list):
            for n in topo["nodes"]:
                if n.get("host"):
                    host_index.setdefault(n["id"], len(host_index))
            fixed_hosts = True
    cofs = doc.get("coflows")
    if not isinstance(cofs, list) or not cofs:
        bad("must be a non-empty list of coflows", "coflows")
    ids, w, r, d, counts = [], [], [], [], []
    src, dst, size, plen, pres = [], [], [], [], []
    labels, given_default = [], 0
    for k, c in enumerate(cofs):
        where = f"coflows[{k}]"
        if not isinstance(c, dict):
            bad("a coflow must be a JSON object", where)
        cid, wk, rk, dk = _coflow_fields(c, where, bad, num)
        ids.append(cid)
        w.append(wk)
        r.append(rk)
        d.append(dk)
        flows = c.get("flows")
        if not isinstance(flows, list) or not flows:
            bad("must be a non-empty list of {\"src\", \"dst\", \"size\", \"path\"}",
                f"{where}.flows")
        for j, fl in enumerate(flows):
            fw = f"{where}.flows[{j}]"
            if not isinstance(fl, dict):
                bad("a flow is an object {\"src\", \"dst\", \"size\", \"path\"} in "
                    "version 2", fw)
            unknown = set(fl) - _FLOW_KEYS_V2 - _FLOW_KEYS_V2_OPTIONAL
            missing = _FLOW_KEYS_V2 - set(fl)
            if unknown:
                bad(f"unknown key(s) {sorted(unknown)}; allowed: "
                    f"{sorted(_FLOW_KEYS_V2 | _FLOW_KEYS_V2_OPTIONAL)}", fw)
            if missing:
                bad(f"missing key(s) {sorted(missing)}", fw)
            for end, out in (("src", src), ("dst", dst)):
                h = fl[end]
                if isinstance(h, bool) or not isinstance(h, (str, int)) or h == "":
                    bad("a host is named by a non-empty string", f"{fw}.{end}")
                h = str(h)
                if h not in host_index:
                    if fixed_hosts:
                        bad(f"{h!r} is not a host of the topology", f"{fw}.{end}")
                    host_index[h] = len(host_index)
                out.append(host_index[h])
            size.append(num(fl["size"], f"{fw}.size"))
            path = fl["path"]
            if not isinstance(path, list) or not path:
                bad("a path is a non-empty list of resource indices", f"{fw}.path")
            for q, v in enumerate(path):
                if isinstance(v, bool) or not isinstance(v, int):
                    bad(f"a resource index must be an integer, got {v!r}", f"{fw}.path[{q}]")
                if not 0 <= v < R:  # here, so that huge integers cannot overflow int64
                    bad(f"resource index {v} out of range 0..{R - 1}", f"{fw}.path[{q}]")
            plen.append(len(path))
            pres.extend(path)
        counts.append(len(flows))
        has = [isinstance(fl, dict) and "subcoflow" in fl for fl in flows]
        if any(has):
            if not all(has):
                j = has.index(False)
                bad("a coflow gives \"subcoflow\" on every flow or on none",
                    f"{where}.flows[{j}].subcoflow")
            labels.append(np.asarray(
                [_subcoflow_label(fl["subcoflow"], len(flows), f"{where}.flows[{j}].subcoflow",
                                  bad) for j, fl in enumerate(flows)], dtype=np.int64))
        else:  # the default: one sub-coflow per destination host
            labels.append(np.unique(dst[-len(flows):], return_inverse=True)[1].ravel())
            given_default += 1
    meta = _document_meta(doc, file, bad)
    if topo is not None:
        meta["topology"] = topo
    pptr = np.zeros(len(plen) + 1, dtype=np.int64)
    np.cumsum(plen, out=pptr[1:])
    try:
        return Instance.from_paths(
            resource_capacity=np.asarray(rcap), coflow_ids=ids,
            flow_coflow=np.repeat(np.arange(len(ids)), counts),
            flow_src=np.asarray(src, dtype=np.int64), flow_dst=np.asarray(dst, dtype=np.int64),
            flow_size=np.asarray(size, dtype=float), path_ptr=pptr,
            path_resource=np.asarray(pres, dtype=np.int64), host_ids=list(host_index),
            resource_ids=rids, weight=w, release=r, deadline=d, meta=meta,
            flow_subcoflow=(None if given_default == len(ids) else
                            np.concatenate(labels).astype(np.int64)))
    except InvalidInstanceError as e:
        raise InvalidInstanceError(e.rule, file=file, line=e.line, field=e.field) from None


def _check_topology(topo, rids, rcap, bad) -> None:
    """The optional ``topology`` record: known keys, nodes and links well formed, and links
    (when listed) one per resource with its id and capacity."""
    if not isinstance(topo, dict):
        bad("must be a JSON object", "topology")
    unknown = set(topo) - _TOPOLOGY_KEYS
    if unknown:
        bad(f"unknown key(s) {sorted(unknown)}; allowed: {sorted(_TOPOLOGY_KEYS)}", "topology")
    if "params" in topo and not isinstance(topo["params"], dict):
        bad("must be a JSON object", "topology.params")
    nodes = topo.get("nodes")
    names = set()
    if nodes is not None:
        if not isinstance(nodes, list):
            bad("must be a list of {\"id\", \"host\"} objects", "topology.nodes")
        for i, n in enumerate(nodes):
            if not isinstance(n, dict) or not isinstance(n.get("id"), str) or \
                    not isinstance(n.get("host", False), bool) or set(n) - {"id", "host"}:
                bad("a node is {\"id\": string, \"host\": true|false}",
                    f"topology.nodes[{i}]")
            if n["id"] in names:
                bad(f"duplicate node id {n['id']!r}", f"topology.nodes[{i}].id")
            names.add(n["id"])
    links = topo.get("links")
    if links is None and isinstance(topo.get("kind"), str):
        _check_rebuilt_links(topo, rids, rcap, bad)
    if links is not None:
        if not isinstance(links, list):
            bad("must be a list of links", "topology.links")
        if len(links) != len(rids):
            bad(f"lists {len(links)} links for {len(rids)} resources (one link per resource, "
                "in the same order)", "topology.links")
        for i, e in enumerate(links):
            fld = f"topology.links[{i}]"
            if not isinstance(e, dict) or set(e) - {"id", "src", "dst", "capacity"}:
                bad("a link is {\"id\", \"src\", \"dst\", \"capacity\"}", fld)
            if str(e.get("id")) != rids[i]:
                bad(f"id {e.get('id')!r} differs from resources[{i}].id {rids[i]!r}",
                    f"{fld}.id")
            c = e.get("capacity")
            if isinstance(c, bool) or not isinstance(c, (int, float)) or float(c) != rcap[i]:
                bad(f"capacity {c!r} differs from resources[{i}].capacity {rcap[i]!r}",
                    f"{fld}.capacity")
            if nodes is not None:
                for end in ("src", "dst"):
                    if e.get(end) not in names:
                        bad(f"{e.get(end)!r} is not a node", f"{fld}.{end}")


def _check_rebuilt_links(topo, rids, rcap, bad) -> None:
    """A record that names a known topology ``kind`` and its ``params`` but lists no links:
    the topology is rebuilt (``coflowopt.topology.build``) and its links checked against the
    resources, one per resource with the same id and capacity.  Kinds coflowopt does not
    build are taken as they are."""
    from ..exceptions import CoflowOptError
    from ..topology import BUILDERS, build
    kind = topo["kind"]
    if kind not in BUILDERS:
        return
    try:
        t = build(kind, **(topo.get("params") or {}))
    except (CoflowOptError, TypeError, ValueError) as e:
        bad(f"a {kind} with these parameters cannot be built ({e})", "topology.params")
    ids, caps = list(t.link_names), np.asarray(t.link_capacity, dtype=float).tolist()
    if len(ids) != len(rids):
        bad(f"the {kind} these parameters build has {len(ids)} links, but the instance has "
            f"{len(rids)} resources (one link per resource, in the same order)",
            "topology.params")
    for i, (a, c) in enumerate(zip(ids, caps)):
        if str(a) != rids[i] or c != rcap[i]:
            bad(f"link {i} of the {kind} these parameters build is {a!r} (capacity {c!r}), "
                f"but resources[{i}] is {rids[i]!r} (capacity {rcap[i]!r})", "topology.params")


def _instance_to_dict_v2(instance: Instance, include_meta: bool) -> dict[str, Any]:
    hosts = instance.host_ids
    src, dst, size = (instance.flow_src.tolist(), instance.flow_dst.tolist(),
                      instance.flow_size.tolist())
    pptr, pres = instance.flow_resource_ptr.tolist(), instance.flow_resource.tolist()
    ptr = instance.flow_ptr.tolist()
    labels = None if instance.flow_subcoflow is None else instance.flow_subcoflow.tolist()
    coflows = []
    for k, cid in enumerate(instance.coflow_ids):
        dl = float(instance.deadline[k])
        coflows.append({
            "id": cid,
            "weight": plain_number(float(instance.weight[k])),
            "release": plain_number(float(instance.release[k])),
            "deadline": None if np.isnan(dl) else plain_number(dl),
            "flows": [{"src": hosts[src[i]], "dst": hosts[dst[i]],
                       "size": plain_number(size[i]), "path": pres[pptr[i]:pptr[i + 1]],
                       **({} if labels is None else {"subcoflow": labels[i]})}
                      for i in range(ptr[k], ptr[k + 1])],
        })
    doc = {"format": FORMAT_NAME, "version": FORMAT_VERSION_RESOURCES,
           "resources": [{"id": n, "capacity": plain_number(c)} for n, c in
                         zip(instance.resource_names, instance.capacity.tolist())],
           "coflows": coflows}
    topo = instance.meta.get("topology")
    if topo is not None:
        doc["topology"] = _jsonable(topo)
    if include_meta:
        rest = {k: v for k, v in instance.meta.items() if k != "topology"}
        if rest:
            doc["meta"] = _jsonable(rest)
    return doc


def instance_to_dict(instance: Instance, *, include_meta: bool = False) -> dict[str, Any]:
    """The JSON document of an instance (see the module docstring for the shape): version 1
    for a big switch, version 2 for an instance on resources."""
    if not instance.is_big_switch:
        return _instance_to_dict_v2(instance, include_meta)
    coflows = []
    src, dst, size = (instance.flow_src.tolist(), instance.flow_dst.tolist(),
                      instance.flow_size.tolist())
    ptr = instance.flow_ptr.tolist()
    labels = None if instance.flow_subcoflow is None else instance.flow_subcoflow.tolist()
    for k, cid in enumerate(instance.coflow_ids):
        dl = float(instance.deadline[k])
        coflows.append({
            "id": cid,
            "weight": plain_number(float(instance.weight[k])),
            "release": plain_number(float(instance.release[k])),
            "deadline": None if np.isnan(dl) else plain_number(dl),
            "flows": [[src[i], dst[i], plain_number(size[i])] for i in range(ptr[k], ptr[k + 1])],
            **({} if labels is None else {"subcoflows": labels[ptr[k]:ptr[k + 1]]}),
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
    if "topology" in doc:  # the (long) topology record after the coflows, one link per line
        topo = doc.pop("topology")
        head = {k: v for k, v in doc.items() if k != "coflows"}
        parts = [json.dumps(head)[:-1], ', "coflows": [\n']
        parts.append(",\n".join("  " + json.dumps(c, separators=(", ", ": "))
                                for c in doc["coflows"]))
        small = {k: v for k, v in topo.items() if k not in ("nodes", "links")}
        parts.append('\n], "topology": ' + json.dumps(small)[:-1])
        for key in ("nodes", "links"):
            if key in topo:
                parts.append((", " if small else "") + f'"{key}": [\n')
                parts.append(",\n".join("  " + json.dumps(x) for x in topo[key]))
                parts.append("\n]")
                small = True
        parts.append("}}\n")
        return "".join(parts)
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
    # the collector stays off until the parsed lists are freed (by reference counting, when
    # the document goes out of scope): enabled in between, its next collections would walk
    # every one of them (_gc_paused)
    with _gc_paused():
        if HAVE_NUMBA and os.path.getsize(path) >= SCAN_MIN_BYTES:
            inst = _read_scanned(path)
            if inst is not None:
                return inst
        return instance_from_dict(load_json_document(path, InvalidInstanceError), file=path)


#: Files at least this large are read by :func:`_read_scanned` first (smaller ones would pay
#: numba's start-up, 0.3-0.6 s, for nothing)
SCAN_MIN_BYTES = 1 << 22


def _read_scanned(path: str) -> Instance | None:
    """A version 1 document read with its flow lists scanned into columns by the compiled
    :func:`~coflowopt.formats._json_scan.scan_v1` and the rest (the skeleton, each flow list
    replaced by ``[]``) parsed by ``json``; None when anything is unusual (a rule broken, a flow
    list not of the scan's form, version 2, ...), for the caller to read the file with ``json``
    as a whole, which names the error.  The same instance as that read when it returns one
    (``_json_scan``'s docstring says why; ``tests/test_formats_json.py`` holds the two equal).
    Why: ``json`` makes a list and three numbers per flow; on Custom-4000 (74 MB, 5.2 million
    flows) parsing and converting them took 5.8 s of CPU, the scan, the skeleton and the
    checks take 1.3 s (plus 0.5-0.8 s of numba's start-up, which the schedulers pay anyway)."""
    from ._json_scan import OK, scan_v1
    with open(path, "rb") as fh:
        data = fh.read()
    buf = np.frombuffer(data, dtype=np.uint8)
    # bounds from the length: a flow takes 8 bytes or more ("[0,0,0],"), a list with its key
    # 17 or more ('"flows":[[0,0,0]]'); the arrays are not written beyond what is read, and the
    # pages never written are never resident
    flows, lists = len(data) // 8 + 1, len(data) // 17 + 1
    src, dst, size = np.empty(flows, np.int64), np.empty(flows, np.int64), np.empty(flows)
    span_lo, span_hi, span_flows = (np.empty(lists, dtype=np.int64) for _ in range(3))
    ft_flow, ft_lo, ft_hi = (np.empty(flows, dtype=np.int64) for _ in range(3))
    status, nl, nf, nt = scan_v1(buf, np.frombuffer(b"coflows", np.uint8),
                                 np.frombuffer(b"flows", np.uint8), src, dst, size, span_lo,
                                 span_hi, span_flows, ft_flow, ft_lo, ft_hi)
    if status != OK or nl == 0:
        return None
    size = size[:nf]
    for t, lo, hi in zip(ft_flow[:nt].tolist(), ft_lo[:nt].tolist(), ft_hi[:nt].tolist()):
        size[t] = float(data[lo:hi])   # json's own conversion of a number's text
    cuts = np.empty(2 * nl + 2, dtype=np.int64)
    cuts[0], cuts[1:-1:2], cuts[2:-1:2], cuts[-1] = 0, span_lo[:nl], span_hi[:nl], len(data)
    cuts = cuts.tolist()
    skeleton = b"[]".join(data[a:b] for a, b in zip(cuts[::2], cuts[1::2]))
    del data, buf
    try:
        doc = json.loads(skeleton.decode("utf-8"), parse_constant=_reject_constant,
                         object_pairs_hook=_reject_duplicate_keys)
        return _instance_from_dict(doc, path, (span_flows[:nl], src[:nf], dst[:nf], size))
    except (ValueError, RecursionError, InvalidInstanceError, _Unusual):
        return None  # json.JSONDecodeError and UnicodeDecodeError are ValueErrors


def write_instance_json(instance: Instance, path: str | Path, *, include_meta: bool = False) -> None:
    """Write an instance as coflowopt-instance JSON (exact round trip)."""
    Path(path).write_text(dumps_instance(instance, include_meta=include_meta), encoding="utf-8")
