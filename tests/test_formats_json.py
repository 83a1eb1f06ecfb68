"""The coflowopt-instance JSON format (coflowopt.formats.instance_json) and format dispatch."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from coflowopt import Coflow, Instance
from coflowopt.exceptions import InvalidInstanceError, InvalidParameterError
from coflowopt.formats import (INSTANCE_FORMATS, detect_format, dumps_instance,
                               instance_from_dict, instance_to_dict, read_instance,
                               read_instance_json, write_instance, write_instance_json)

INST = Instance.from_coflows([
    Coflow("A", [(0, 1, 2.0), (1, 0, 0.1)], weight=2.5, release=0.25, deadline=10.0),
    Coflow("B", [(1, 1, 3e-9)], weight=0.0),
], ingress_capacity=[1.0, 0.5], egress_capacity=[2.0, 1e3])


def good_doc() -> dict:
    return {"format": "coflowopt-instance", "version": 1, "ingress": [1, 1], "egress": [1, 1],
            "coflows": [{"id": "A", "weight": 1, "release": 0, "deadline": None,
                         "flows": [[0, 1, 2], [1, 0, 1.5]]},
                        {"id": "B", "flows": [[1, 1, 3]]}]}


def put(tmp_path, doc, name="i.json"):
    p = tmp_path / name
    p.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return p


# ------------------------------------------------------------------------------------ round trips
def test_round_trip_exact(tmp_path):
    write_instance_json(INST, tmp_path / "i.json")
    back = read_instance_json(tmp_path / "i.json")
    assert back == INST
    assert back.deadline[1] != back.deadline[1]  # NaN: no deadline
    assert back.meta["source_format"] == "coflowopt-instance"


def test_defaults_and_integer_ids(tmp_path):
    doc = good_doc()
    doc["coflows"][1]["id"] = 7
    inst = read_instance(put(tmp_path, doc))
    assert inst.coflow_ids == ("A", "7")
    assert inst.weight.tolist() == [1.0, 1.0] and inst.release.tolist() == [0.0, 0.0]
    assert not inst.has_deadlines


def test_writer_shape_one_coflow_per_line():
    text = dumps_instance(INST)
    lines = text.splitlines()
    assert lines[0].startswith('{"format": "coflowopt-instance", "version": 1')
    assert len(lines) == 2 + INST.num_coflows
    assert json.loads(text) == instance_to_dict(INST)
    assert instance_to_dict(INST)["coflows"][1] == {
        "id": "B", "weight": 0, "release": 0, "deadline": None, "flows": [[1, 1, 3e-9]]}


def test_meta_round_trip(tmp_path):
    inst = INST.replace(meta={"generator": "x", "seed": np.int64(3), "arr": np.arange(2)})
    write_instance_json(inst, tmp_path / "i.json", include_meta=True)
    back = read_instance_json(tmp_path / "i.json")
    assert back.meta["generator"] == "x" and back.meta["seed"] == 3 and back.meta["arr"] == [0, 1]


@st.composite
def instances(draw):
    m_in, m_out = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    # sizes and capacities over four decades, times and weights inside coflowopt.limits (and
    # H / tau far below DYNAMIC_RANGE_MAX): the whole accepted range is tested in
    # tests/test_malformed_corpus.py
    pos = st.floats(min_value=1e-2, max_value=1e2, allow_nan=False, allow_infinity=False)
    time = st.just(0.0) | st.floats(1e-6, 1e3)
    coflows = []
    ids = draw(st.lists(st.text(min_size=1, max_size=5), min_size=1, max_size=5, unique=True))
    for cid in ids:
        flows = draw(st.lists(st.tuples(st.integers(0, m_in - 1), st.integers(0, m_out - 1),
                                        pos), min_size=1, max_size=5))
        release = draw(time)
        deadline = draw(st.none() | st.floats(1.0, 1e3).map(lambda d, r=release: r + d))
        weight = draw(st.just(0.0) | st.floats(1e-9, 1e6))
        coflows.append(Coflow(cid, flows, weight=weight, release=release,
                              deadline=deadline))
    return Instance.from_coflows(
        coflows, ingress_capacity=draw(st.lists(pos, min_size=m_in, max_size=m_in)),
        egress_capacity=draw(st.lists(pos, min_size=m_out, max_size=m_out)))


@given(inst=instances())
def test_property_round_trip(tmp_path_factory, inst):
    p = tmp_path_factory.mktemp("json") / "i.json"
    write_instance_json(inst, p)
    back = read_instance_json(p)
    assert back == inst
    assert instance_from_dict(instance_to_dict(inst)) == inst


# ------------------------------------------------------------------------------------ error rules
def edit(path: str, value):
    """good_doc() with the value at ``path`` (dotted keys/indices) replaced or, for ..., deleted."""
    doc = good_doc()
    keys = [int(k) if k.isdigit() else k for k in path.split(".")]
    target = doc
    for k in keys[:-1]:
        target = target[k]
    if value is ...:
        del target[keys[-1]]
    else:
        target[keys[-1]] = value
    return doc


ERRORS = {
    "top level not an object": ([1, 2], "(top level)", "must be a JSON object"),
    "unknown top key": ({**good_doc(), "coflow": []}, "(top level)", "unknown key(s) ['coflow']"),
    "format missing": (edit("format", ...), "format", "must be 'coflowopt-instance'"),
    "format wrong": (edit("format", "coflowopt-schedule"), "format", "got 'coflowopt-schedule'"),
    "version wrong": (edit("version", 3), "version", "unsupported version 3"),
    "version 2 with ports": (edit("version", 2), "version", "is version 1"),
    "version true": (edit("version", True), "version", "unsupported version True"),
    "version float": (edit("version", 1.0), "version", "unsupported version 1.0"),
    "ingress missing": (edit("ingress", ...), "ingress", "non-empty list of port capacities"),
    "egress empty": (edit("egress", []), "egress", "non-empty list of port capacities"),
    "capacity not a number": (edit("ingress.1", "1"), "ingress[1]", "must be a number"),
    "capacity boolean": (edit("egress.0", True), "egress[0]", "must be a number"),
    "capacity zero": (edit("ingress.0", 0), "ingress[0]", "capacity must be a finite number > 0"),
    "capacity inexact integer": (edit("ingress.0", 2 ** 53 + 1), "ingress[0]",
                                 "cannot be represented exactly"),
    "capacity beyond float range": (edit("ingress.0", 10 ** 400), "ingress[0]",
                                    "an integer of 401 digits is beyond"),
    "coflows missing": (edit("coflows", ...), "coflows", "non-empty list of coflows"),
    "coflows empty": (edit("coflows", []), "coflows", "non-empty list of coflows"),
    "coflow not an object": (edit("coflows.1", [1]), "coflows[1]", "must be a JSON object"),
    "unknown coflow key": (edit("coflows.0.size", 3), "coflows[0]", "unknown key(s) ['size']"),
    "id missing": (edit("coflows.1.id", ...), "coflows[1].id", "non-empty string"),
    "id empty": (edit("coflows.0.id", ""), "coflows[0].id", "non-empty string"),
    "id boolean": (edit("coflows.0.id", False), "coflows[0].id", "non-empty string"),
    "id float": (edit("coflows.0.id", 1.5), "coflows[0].id", "non-empty string"),
    "duplicate id": (edit("coflows.1.id", "A"), "coflows[1].id", "duplicate coflow id 'A'"),
    "duplicate id after str": ({**good_doc(), "coflows": [{"id": "5", "flows": [[0, 0, 1]]},
                                                          {"id": 5, "flows": [[0, 0, 1]]}]},
                               "coflows[1].id", "duplicate coflow id '5'"),
    "weight not a number": (edit("coflows.0.weight", "1"), "coflows[0].weight",
                            "must be a number"),
    "weight null": (edit("coflows.0.weight", None), "coflows[0].weight", "must be a number"),
    "weight negative": (edit("coflows.0.weight", -1), "coflows[0].weight", "finite number >= 0"),
    "release negative": (edit("coflows.0.release", -0.5), "coflows[0].release",
                         "finite number >= 0"),
    "release not a number": (edit("coflows.0.release", [0]), "coflows[0].release",
                             "must be a number"),
    "deadline not a number": (edit("coflows.0.deadline", "soon"), "coflows[0].deadline",
                              "must be a number"),
    "deadline not after release": (edit("coflows.0.deadline", 0), "coflows[0].deadline",
                                   "after the release"),
    "flows missing": (edit("coflows.0.flows", ...), "coflows[0].flows", "non-empty list"),
    "flows empty": (edit("coflows.0.flows", []), "coflows[0].flows", "non-empty list"),
    "flow not a list": (edit("coflows.0.flows.1", {"src": 0}), "coflows[0].flows[1]",
                        "[ingress_index, egress_index, size]"),
    "flow of two": (edit("coflows.0.flows.1", [0, 1]), "coflows[0].flows[1]",
                    "[ingress_index, egress_index, size]"),
    "port not an integer": (edit("coflows.0.flows.0.0", 0.0), "coflows[0].flows[0][0]",
                            "port index must be an integer"),
    "port boolean": (edit("coflows.0.flows.0.1", True), "coflows[0].flows[0][1]",
                     "port index must be an integer"),
    "ingress out of range": (edit("coflows.1.flows.0.0", 2), "coflows[1].flows[0][0]",
                             "ingress port 2 out of range 0..1"),
    "egress negative": (edit("coflows.1.flows.0.1", -1), "coflows[1].flows[0][1]",
                        "egress port -1 out of range 0..1"),
    "port beyond int64": (edit("coflows.1.flows.0.1", 2 ** 70), "coflows[1].flows[0][1]",
                          "out of range 0..1"),
    "size zero": (edit("coflows.0.flows.1.2", 0), "coflows[0].flows[1][2]",
                  "flow size must be a finite number > 0"),
    "size negative": (edit("coflows.0.flows.1.2", -2.5), "coflows[0].flows[1][2]",
                      "flow size must be a finite number > 0"),
    "size not a number": (edit("coflows.0.flows.1.2", "2"), "coflows[0].flows[1][2]",
                          "must be a number"),
    "size overflows to inf": ('{"format": "coflowopt-instance", "version": 1, "ingress": [1], '
                              '"egress": [1], "coflows": [{"id": "A", "flows": [[0, 0, 1e999]]}'
                              ']}', "coflows[0].flows[0][2]", "beyond float64's range"),
    "meta not an object": (edit("meta", []), "meta", "meta must be a JSON object"),
    "meta null": (edit("meta", None), "meta", "meta must be a JSON object"),
}


@pytest.mark.parametrize("doc,field,rule", list(ERRORS.values()), ids=list(ERRORS))
def test_error_rules(tmp_path, doc, field, rule):
    p = put(tmp_path, doc)
    with pytest.raises(InvalidInstanceError) as ei:
        read_instance_json(p)
    e = ei.value
    assert (e.file, e.field) == (str(p), field)
    assert rule in e.rule and field in str(e) and str(p) in str(e)


@pytest.mark.parametrize("text,line,rule", [
    ('{"format": "coflowopt-instance",\n "version": 1,\n "ingress": [1,]}', 3,
     "not valid JSON"),
    # NaN / infinities: json does not say where they are; the reader finds the line (and
    # the column, in the rule), skipping tokens inside strings
    ('{"format": "coflowopt-instance", "version": 1, "ingress": [NaN]}', 1,
     "NaN is not a valid JSON number (column 60)"),
    ('{"format": "coflowopt-instance", "version": 1, "ingress": [-Infinity]}', 1,
     "-Infinity is not a valid JSON number"),
    ('{"format": "coflowopt-instance",\n "meta": {"note": "NaN \\" Infinity"},\n'
     ' "version": 1,\n "ingress": [1, Infinity]}', 4,
     "Infinity is not a valid JSON number (column 17)"),
    ('{"format": "coflowopt-instance", "version": 1, "version": 2}', None,
     "duplicate key 'version'"),
    ("", 1, "not valid JSON"),
])
def test_syntax_errors(tmp_path, text, line, rule):
    p = put(tmp_path, text)
    with pytest.raises(InvalidInstanceError) as ei:
        read_instance_json(p)
    assert ei.value.line == line and rule in ei.value.rule and ei.value.file == str(p)


def test_reading_restores_the_garbage_collector(tmp_path):
    # the reader holds the cyclic collector while it parses (a speed measure): whatever
    # happens, it leaves it as it found it
    import gc
    good = tmp_path / "i.json"
    write_instance_json(Instance.from_coflows([Coflow("A", [(0, 0, 1.0)])]), good)
    bad = put(tmp_path, '{"format": "coflowopt-instance", "version": 1, "version": 2}',
              name="bad.json")
    try:
        for state in (True, False):
            (gc.enable if state else gc.disable)()
            assert read_instance_json(good).num_flows == 1
            assert gc.isenabled() is state
            with pytest.raises(InvalidInstanceError):
                read_instance_json(bad)
            assert gc.isenabled() is state
    finally:
        gc.enable()


def test_not_utf8(tmp_path):
    p = tmp_path / "i.json"
    p.write_bytes(b'{"format": "\xff"}')
    with pytest.raises(InvalidInstanceError, match="not UTF-8 text"):
        read_instance_json(p)


def test_error_names_this_file_not_the_meta_source(tmp_path):
    """A document converted from a trace keeps meta.source_file; errors are about this file."""
    doc = edit("coflows.0.weight", -1)
    doc["meta"] = {"source_file": "/elsewhere/trace.txt"}
    p = put(tmp_path, doc)
    with pytest.raises(InvalidInstanceError) as ei:
        read_instance_json(p)
    assert ei.value.file == str(p) and "elsewhere" not in str(ei.value)


# ------------------------------------------------------------------------------------ dispatch
def test_registered_formats():
    assert {"json", "coflow-benchmark", "fb", "sincronia"} <= set(INSTANCE_FORMATS)
    assert INSTANCE_FORMATS["fb"] == INSTANCE_FORMATS["coflow-benchmark"]


def test_detect_format(tmp_path):
    assert detect_format(put(tmp_path, good_doc())) == "json"
    assert detect_format(tmp_path / "missing.json") == "json"
    fb = tmp_path / "a.txt"
    fb.write_text("3 1\n1 0 1 0 1 1:1.0\n")
    sin = tmp_path / "b.dat"
    sin.write_text("3 1\n\n1 0 1 1 1 0 1 4\n")
    assert detect_format(fb) == "coflow-benchmark"
    assert detect_format(sin) == "sincronia"


@pytest.mark.parametrize("name,text,rule", [
    ("s.json", '{"format": "coflowopt-schedule", "version": 1, "segments": []}',
     "schedule document"),
    ("s.npz", "", "schedule file"),
    ("x.txt", "3 1\n", "cannot tell the format"),
    ("y.txt", "3 1\n1 0 1\n", "cannot tell the format"),
    ("z.txt", "hello world\nthis is text of a note\n", "cannot tell the format"),
])
def test_detect_format_refusals(tmp_path, name, text, rule):
    p = tmp_path / name
    p.write_text(text)
    with pytest.raises(InvalidParameterError, match=rule):
        detect_format(p)
    with pytest.raises(InvalidParameterError):
        read_instance(p)


def test_read_write_dispatch(tmp_path):
    write_instance(INST, tmp_path / "i.json")
    assert read_instance(tmp_path / "i.json") == INST
    assert read_instance(tmp_path / "i.json", format="json") == INST
    with pytest.raises(InvalidParameterError, match="pass format="):
        write_instance(INST, tmp_path / "i.txt")
    with pytest.raises(InvalidParameterError, match="unknown instance format 'csv'"):
        read_instance(tmp_path / "i.json", format="csv")
    with pytest.raises(InvalidParameterError, match="known"):
        write_instance(INST, tmp_path / "i.json", format="csv")


# ----------------------------------------------------------------------------- the fast reader
def test_column_reader_agrees_with_the_per_flow_reader(monkeypatch):
    """Version 1 flows are read column by column when nothing is unusual
    (``_v1_flows_fast``); the per-flow reader gives the same instance, and every document the
    column reader declines goes to the per-flow reader (whose errors name the first broken
    field: ``test_error_rules``)."""
    from coflowopt.formats import instance_json as ij
    from coflowopt.generators import uniform_random
    used = []
    fast = ij._v1_flows_fast
    monkeypatch.setattr(ij, "_v1_flows_fast", lambda *a: used.append(fast(*a)) or used[-1])
    for seed, params in enumerate([
            {"num_ports": 5, "num_coflows": 30},
            {"num_ports": 4, "num_coflows": 20, "releases": (0, 10), "weights": "uniform",
             "capacities": (0.5, 2), "integer_sizes": False}]):
        inst = uniform_random(seed=seed, **params)
        doc = instance_to_dict(inst)
        got = instance_from_dict(doc)
        assert used[-1] is not None            # the column reader took it
        monkeypatch.setattr(ij, "_v1_flows_fast", lambda *a: None)
        assert instance_from_dict(doc) == got  # the per-flow reader agrees
        monkeypatch.setattr(ij, "_v1_flows_fast", lambda *a: used.append(fast(*a)) or used[-1])
    # declined: a size beyond 2^53, a sub-coflow labelling, a float port
    for path, value in (("coflows.0.flows.0.2", 2 ** 53 + 2), ("coflows.0.subcoflows", [0, 0]),
                        ("coflows.1.flows.0.0", 1.0)):
        doc = edit(path, value)
        try:
            instance_from_dict(doc)
        except InvalidInstanceError:
            pass
        assert used[-1] is None


# ------------------------------------------------------------------- the scanned reader (big files)
def _bits(inst) -> tuple:
    """Every array of an instance bit for bit (``==`` calls 0.0 and -0.0 equal), its ids and
    its meta."""
    arrays = tuple((k, v.dtype.str, v.shape, v.tobytes()) for k, v in sorted(vars(inst).items())
                   if isinstance(v, np.ndarray))
    return arrays, inst.coflow_ids, inst.meta, inst.flow_subcoflow is None


def _both_readers(monkeypatch, path):
    """``(scanned, via json)``: the instance (or the InvalidInstanceError's file, line, field
    and rule) read with the scanned reader tried first and with ``json`` alone, and whether
    the scanned reader took the file."""
    from coflowopt.formats import instance_json as ij
    took = []
    scanned = ij._read_scanned
    monkeypatch.setattr(ij, "_read_scanned", lambda p: took.append(scanned(p)) or took[-1])
    out = []
    for min_bytes in (0, 1 << 62):
        monkeypatch.setattr(ij, "SCAN_MIN_BYTES", min_bytes)
        try:
            out.append(_bits(read_instance_json(path)))
        except InvalidInstanceError as e:
            out.append((e.file, e.line, e.field, e.rule))
    return out[0], out[1], bool(took) and took[0] is not None


LIBRARY_DOCS = sorted(p for p in __import__("coflowopt.library", fromlist=["x"]).library_dir()
                      .rglob("*.json") if p.name.count(".") == 1)


def test_scanned_reader_library(monkeypatch):
    """Every library instance of version 1 is read by the scan, to the same arrays as json's
    reader (version 2 documents are declined and read by json)."""
    taken = 0
    for p in LIBRARY_DOCS:
        doc = json.loads(p.read_text())
        if doc.get("format") != "coflowopt-instance":
            continue
        a, b, took = _both_readers(monkeypatch, p)
        assert a == b, p
        assert took == (doc["version"] == 1 and not any("subcoflows" in c for c in doc["coflows"]))
        taken += took
    assert taken >= 5


HEAD = '{"format": "coflowopt-instance", "version": 1, "ingress": [1, 2], "egress": [1, 1], '


@pytest.mark.parametrize("coflows,taken", [
    # blanks of all four kinds, exponents, fractions, -0 as a port, 1.0 as a size
    ('"coflows": [\r\n {"id": "A", "flows":\t[ [0 ,1,\n2] ,[ -0, 0, 1.0], [1, 1, 25E-1],'
     '[1, 0, 2.5e+0], [0, 1, 1e0], [1, 1, 0.1], [0, 0, 4503.599627370497]]}]}', True),
    # strings with brackets, quotes, escapes and the key words inside; a "flows" key in meta
    ('"coflows": [{"id": "fl\\"ows[", "flows": [[0, 0, 3]], "release": 1e-3},'
     ' {"id": "flows", "weight": 2, "flows": [[1, 1, 999999999999]]}],'
     ' "meta": {"flows": [[0, 0, 1]], "coflows": [{"flows": [[9, 9, 9]]}]}}', True),
    # the key written with an escape: json's key "flows", not the scan's
    ('"coflows": [{"id": "A", "flo\\u0077s": [[0, 0, 1]]}]}', False),
    # integers beyond the scan's ranges: a size beyond 2^53 (exact), a 19-digit port
    ('"coflows": [{"id": "A", "flows": [[0, 0, 9007199254740994]]}]}', False),
    ('"coflows": [{"id": "A", "flows": [[0, 0000000000000000001, 1]]}]}', False),
    ('"coflows": [{"id": "A", "flows": [[0, 1000000000000000000, 1]]}]}', False),
    ('"coflows": [{"id": "A", "flows": [[0, 0, 100000000000000000000000]]}]}', False),
    # rules broken inside a flow list: json's reader names them
    ('"coflows": [{"id": "A", "flows": [[0, 2, 1]]}]}', False),
    ('"coflows": [{"id": "A", "flows": [[0, -1, 1]]}]}', False),
    ('"coflows": [{"id": "A", "flows": [[0, 1.0, 1]]}]}', False),
    ('"coflows": [{"id": "A", "flows": [[0, 0, -1]]}]}', False),
    ('"coflows": [{"id": "A", "flows": [[0, 0, -0]]}]}', False),
    ('"coflows": [{"id": "A", "flows": [[0, 0, -0.0]]}]}', False),
    ('"coflows": [{"id": "A", "flows": [[0, 0, 1e999]]}]}', False),
    ('"coflows": [{"id": "A", "flows": [[0, 0, NaN]]}]}', False),
    ('"coflows": [{"id": "A", "flows": [[0, 0, "1"]]}]}', False),
    ('"coflows": [{"id": "A", "flows": [[0, 0, 1.]]}]}', False),
    ('"coflows": [{"id": "A", "flows": [[0, 0, .5]]}]}', False),
    ('"coflows": [{"id": "A", "flows": [[0, 0, 01]]}]}', False),
    ('"coflows": [{"id": "A", "flows": [[0, 0, 1e]]}]}', False),
    ('"coflows": [{"id": "A", "flows": [[0, 0, 1], ]]}]}', False),
    ('"coflows": [{"id": "A", "flows": [[0, 0]]}]}', False),
    ('"coflows": [{"id": "A", "flows": [[0, 0, 1, 2]]}]}', False),
    ('"coflows": [{"id": "A", "flows": []}]}', False),
    ('"coflows": [{"id": "A", "flows": [[0, 0, 1]], "subcoflows": [0]}]}', False),
    # rules broken outside the flow lists (the skeleton): json's reader names them
    ('"coflows": [{"id": "A", "flows": [[0, 0, 1]], "flows": [[0, 0, 1]]}]}', False),
    ('"coflows": [{"id": "A", "flows": [[0, 0, 1]]}], "coflows": []}', False),
    ('"coflows": [{"id": "A", "flows": [[0, 0, 1]]}, {"id": "A", "flows": [[0, 0, 1]]}]}',
     False),
    ('"coflows": [{"id": "A", "flows": [[0, 0, 1]], "weight": -1}]}', False),
    ('"coflows": [{"id": "A", "flows": [[0, 0, 1]]}]} []', False),
    ('"coflows": [{"id": "A", "flows": [[0, 0, 1]]}]', False),
    ('"coflows": [{"id": "A", "flows": [[0, 0, 1]]]}]}', False),
    ('"coflows": [{"id": "A\x01", "flows": [[0, 0, 1]]}]}', False),
    ('"coflows": [{"id": "A", "flows": [[0, 0, 1]]}], "meta": NaN}', False),
    ('"coflows": [{"id": "A", "flows": [[0, 0, 1]]}], "meta": {"x": 1' + '0' * 5000 + '}}',
     False),
])
def test_scanned_reader_edges(monkeypatch, tmp_path, coflows, taken):
    """The scanned reader gives json's reader's instance, or its error (file, line, field and
    rule) when it declines; ``taken`` says whether the scan read the document."""
    p = put(tmp_path, HEAD + coflows)
    a, b, took = _both_readers(monkeypatch, p)
    assert a == b
    assert took == taken


def test_scanned_reader_byte_order_mark_and_errors(monkeypatch, tmp_path):
    """A byte order mark, a document that is not an object, every error of ``ERRORS``: the
    scanned reader's result is json's."""
    p = tmp_path / "bom.json"
    p.write_bytes(b"\xef\xbb\xbf" + (HEAD + '"coflows": [{"id": "A", "flows": [[0, 0, 1]]}]}')
                  .encode())
    assert _both_readers(monkeypatch, p)[:2] == _both_readers(monkeypatch, p)[1:2] * 2
    for name, (doc, _field, _rule) in ERRORS.items():
        a, b, took = _both_readers(monkeypatch, put(tmp_path, doc))
        assert a == b and not took, name
        assert isinstance(a[3], str), name   # an error, with its rule


@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2),
                          st.one_of(st.integers(1, 10 ** 6), st.integers(2 ** 53 - 1, 2 ** 53 + 3),
                                    st.floats(1e-3, 1e6)),
                          st.sampled_from(["repr", "e", "E+", "fixed"]),
                          st.sampled_from(["", " ", "\n", "\t ", "\r\n"])),
                min_size=1, max_size=12),
       st.integers(1, 3))
def test_scanned_reader_property(tmp_path_factory, flows, parts):
    """Random flow lists written in JSON's several number forms and blanks: the scan reads
    them to json's values (or declines, for json's reader to name the rule)."""
    import pytest as _pt
    mp = _pt.MonkeyPatch()
    try:
        def text(x, form):
            if isinstance(x, int):
                return str(x)
            return {"repr": repr(x), "e": f"{x:.17e}", "E+": f"{x:.17E}".replace("E", "E+")
                    .replace("E+-", "E-"), "fixed": f"{x:.20f}"}[form]
        cofs = []
        per = -(-len(flows) // parts)
        for k in range(0, len(flows), per):
            fl = ",".join(f"[{s},{ws}{d} ,{text(z, form)}{ws}]"
                          for s, d, z, form, ws in flows[k:k + per])
            cofs.append(f'{{"id": "c{k}", "flows":[{fl}]}}')
        doc = ('{"format": "coflowopt-instance", "version": 1, "ingress": [1, 1, 1], '
               '"egress": [1, 1, 1], "coflows": [' + ",\n".join(cofs) + "]}")
        p = tmp_path_factory.mktemp("scan") / "i.json"
        p.write_text(doc)
        a, b, took = _both_readers(mp, p)
        assert a == b
        # taken exactly when the document is an instance without integers the scan leaves
        # to json (instances with sizes of 2^53 are refused by the limits)
        assert took == (not isinstance(b[3], str) and
                        all(isinstance(z, float) or z <= 2 ** 53 for _s, _d, z, _f, _w in flows))
    finally:
        mp.undo()
