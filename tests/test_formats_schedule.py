"""Schedule files: the JSON segment form and the .npz piece form (coflowopt.formats.schedule_io)."""

from __future__ import annotations

import bisect
import json
import re
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from coflowopt import Coflow, Instance, Schedule
from coflowopt.exceptions import InvalidParameterError, InvalidScheduleError, NotSupportedError
from coflowopt.formats import read_schedule, write_schedule
from coflowopt.formats.instance_json import load_json_document
from coflowopt.formats.schedule_io import (
    _document_chunks,
    _read_json,
    _read_lines,
    dumps_schedule,
    read_schedule_json,
    read_schedule_npz,
    schedule_from_dict,
    schedule_to_dict,
    write_schedule_npz,
)
from coflowopt.verify import verify_schedule

INST = Instance.from_coflows([
    Coflow("A", [(0, 0, 2.0), (1, 1, 1.0)]),
    Coflow("B", [(1, 0, 3.0)]),
])


def float_schedule() -> Schedule:
    # flow 0 on [0, 2) at rate 1, flow 1 on [0, 1) at rate 1, flow 2 on [2, 5) at rate 1
    return Schedule.from_pieces([0, 1, 2], [0.0, 0.0, 2.0], [2.0, 1.0, 5.0], [1.0, 1.0, 1.0])


def same_rates(a: Schedule, b: Schedule) -> bool:
    """Equal as rate functions of time (pieces may be cut differently)."""
    a, b = a.merged(), b.merged()
    return all(np.array_equal(getattr(a, n), getattr(b, n))
               for n in ("flow", "start", "end", "rate"))


# ------------------------------------------------------------------------------------ JSON
def test_json_document_shape():
    doc = schedule_to_dict(float_schedule(), INST)
    assert doc == {"format": "coflowopt-schedule", "version": 1, "segments": [
        {"start": 0, "end": 1, "rates": [[0, 0, 1], [0, 1, 1]]},
        {"start": 1, "end": 2, "rates": [[0, 0, 1]]},
        {"start": 2, "end": 5, "rates": [[1, 0, 1]]},
    ]}
    assert json.loads(dumps_schedule(float_schedule(), INST)) == doc


def test_json_round_trip_float(tmp_path):
    s = Schedule.from_pieces([0, 2, 1], [0.0, 0.1, 0.25], [1.5, 0.7, 1 / 3], [0.5, 1e-20, 2.0])
    write_schedule(s, INST, tmp_path / "s.json")
    back = read_schedule(tmp_path / "s.json", INST)
    assert not back.exact
    assert same_rates(back, s)
    assert back.meta["segment_of_piece"].dtype == np.int64
    assert back.meta["source_file"] == str(tmp_path / "s.json")


def test_json_round_trip_exact(tmp_path):
    F = Fraction
    # feasible: ingress 1 shares 1/3 + 2/3 on [2, 3); flow 2 then runs alone until 16/3
    s = Schedule.from_pieces([0, 1, 2, 2], [F(0), F(0), F(2), F(3)],
                             [F(2), F(3), F(3), F(16, 3)],
                             [F(1), F(1, 3), F(2, 3), F(1)])
    write_schedule(s, INST, tmp_path / "s.json")
    text = (tmp_path / "s.json").read_text()
    assert '"1/3"' in text and '"2/3"' in text and '"16/3"' in text
    back = read_schedule(tmp_path / "s.json", INST)
    assert back.exact and same_rates(back, s)
    assert verify_schedule(INST, back, mode="exact").ok


def test_json_exact_option(tmp_path):
    write_schedule(float_schedule(), INST, tmp_path / "s.json")
    forced = read_schedule(tmp_path / "s.json", INST, exact=True)
    assert forced.exact and same_rates(forced.to_float(), float_schedule())
    p = tmp_path / "f.json"
    p.write_text('{"format": "coflowopt-schedule", "version": 1, "segments": '
                 '[{"start": 0, "end": "1/3", "rates": [[0, 0, "2/3"]]}]}')
    as_float = read_schedule(p, INST, exact=False)
    assert not as_float.exact and as_float.end.tolist() == [1 / 3]


def test_segment_of_piece(tmp_path):
    write_schedule(float_schedule(), INST, tmp_path / "s.json")
    # merged on reading: flow 0 keeps rate 1 through segments 0 and 1 -> one piece, which
    # names its first segment
    back = read_schedule(tmp_path / "s.json", INST)
    assert back.meta["segment_of_piece"].tolist() == [0, 0, 2]
    assert back.flow.tolist() == [0, 1, 2] and back.end.tolist() == [2.0, 1.0, 5.0]
    # one piece per rate entry on request
    back = read_schedule(tmp_path / "s.json", INST, merge=False)
    assert back.meta["segment_of_piece"].tolist() == [0, 0, 1, 2]
    assert back.flow.tolist() == [0, 1, 0, 2]


def test_empty_schedule(tmp_path):
    write_schedule(Schedule.empty(), INST, tmp_path / "s.json")
    assert (tmp_path / "s.json").read_text() == \
        '{"format": "coflowopt-schedule", "version": 1, "segments": []}\n'
    assert read_schedule(tmp_path / "s.json", INST).num_pieces == 0


def test_reader_does_not_judge_feasibility(tmp_path):
    """Overlaps, negative rates and end <= start are the verifier's to report."""
    p = tmp_path / "s.json"
    p.write_text(json.dumps({"format": "coflowopt-schedule", "version": 1, "segments": [
        {"start": 0, "end": 2, "rates": [[0, 0, 1], [0, 0, 1]]},
        {"start": 1, "end": 3, "rates": [[0, 1, -1]]},
        {"start": 5, "end": 4, "rates": [[1, 0, 1]]},
    ]}))
    s = read_schedule(p, INST)
    assert s.num_pieces == 4
    report = verify_schedule(INST, s)
    assert not report.ok
    neg = [v for v in report.violations if v.piece == 2]
    assert neg and neg[0].segment == 1


def _doc(**seg):
    base = {"start": 0, "end": 1, "rates": [[0, 0, 1]]}
    base.update(seg)
    return {"format": "coflowopt-schedule", "version": 1, "segments": [base]}


JSON_ERRORS = {
    "top level not an object": ("[]", "(top level)", "JSON object"),
    "missing key": ('{"format": "coflowopt-schedule", "version": 1}', "(top level)",
                    "missing key(s) ['segments']"),
    "unknown key": ({**_doc(), "meta": {}}, "(top level)", "unknown key(s) ['meta']"),
    "wrong format": ({**_doc(), "format": "schedule"}, "format", "'coflowopt-schedule'"),
    "instance document": ({**_doc(), "format": "coflowopt-instance"}, "format",
                          "this is an instance document"),
    "version 2": ({**_doc(), "version": 2}, "version", "unsupported version 2"),
    "version true": ({**_doc(), "version": True}, "version", "unsupported version True"),
    "segments not a list": ({**_doc(), "segments": {}}, "segments", "list of segments"),
    "segment not an object": ({**_doc(), "segments": [[0, 1, []]]}, "segments[0]",
                              "JSON object"),
    "segment missing key": ({**_doc(), "segments": [{"start": 0, "end": 1}]}, "segments[0]",
                            "missing key(s) ['rates']"),
    "segment unknown key": (_doc(flows=[]), "segments[0]", "unknown key(s) ['flows']"),
    "start not a number": (_doc(start="zero"), "segments[0].start", "'p/q'"),
    "start null": (_doc(start=None), "segments[0].start", "number or a 'p/q' string"),
    "start boolean": (_doc(start=False), "segments[0].start", "number or a 'p/q' string"),
    "end infinite": ('{"format": "coflowopt-schedule", "version": 1, "segments": '
                     '[{"start": 0, "end": 1e999, "rates": []}]}', "segments[0].end",
                     "must be finite"),
    "zero denominator": (_doc(end="1/0"), "segments[0].end", "zero denominator"),
    "decimal fraction string": (_doc(end="1.5/2"), "segments[0].end", "'p/q'"),
    "rates not a list": (_doc(rates={"0": 1}), "segments[0].rates", "list of [coflow_position"),
    "entry too short": (_doc(rates=[[0, 1]]), "segments[0].rates[0]", "a rate entry is"),
    "entry not a list": (_doc(rates=[{"c": 0}]), "segments[0].rates[0]", "a rate entry is"),
    "coflow position out of range": (_doc(rates=[[0, 0, 1], [2, 0, 1]]),
                                     "segments[0].rates[1][0]", "integer in 0..1, got 2"),
    "coflow position negative": (_doc(rates=[[-1, 0, 1]]), "segments[0].rates[0][0]",
                                 "got -1"),
    "coflow position float": (_doc(rates=[[0.0, 0, 1]]), "segments[0].rates[0][0]",
                              "must be an integer"),
    "coflow position bool": (_doc(rates=[[True, 0, 1]]), "segments[0].rates[0][0]",
                             "must be an integer"),
    "flow position out of range": (_doc(rates=[[1, 1, 1]]), "segments[0].rates[0][1]",
                                   "coflow 1 has 1 flows"),
    "flow position string": (_doc(rates=[[0, "0", 1]]), "segments[0].rates[0][1]",
                             "must be an integer"),
    "rate not a number": (_doc(rates=[[0, 0, [1]]]), "segments[0].rates[0][2]",
                          "number or a 'p/q' string"),
    "end huge integer": (_doc(end=2 ** 60 + 1), "segments[0].end",
                         "cannot be represented exactly"),
    # coflowopt.limits
    "rate beyond float range": (_doc(rates=[[0, 0, 10 ** 400]]), "segments[0].rates[0][2]",
                                "RATE_MIN..RATE_MAX"),
    "rate huge integer": (_doc(rates=[[0, 0, 1], [0, 1, 2 ** 60 + 1]]),
                          "segments[0].rates[1][2]", "RATE_MIN..RATE_MAX"),
    "rate subnormal": (_doc(rates=[[0, 0, 5e-324]]), "segments[0].rates[0][2]",
                       "got 5e-324"),
    "rate 1e308": (_doc(rates=[[0, 0, -1e308]]), "segments[0].rates[0][2]", "got -1e+308"),
    "end beyond TIME_MAX": (_doc(end=1e36), "segments[0].end", "TIME_MIN..TIME_MAX"),
    "start tiny": (_doc(start=-1e-31), "segments[0].start", "TIME_MIN..TIME_MAX"),
    "fraction out of range": (_doc(end=f"{10 ** 40}/3"), "segments[0].end",
                              "TIME_MIN..TIME_MAX"),
    "fraction with 5000 digits": (_doc(end="1/" + "7" * 5000), "segments[0].end",
                                  "5000 digits (more than MAX_NUMBER_DIGITS = 1000"),
}


@pytest.mark.parametrize("doc,field,rule", list(JSON_ERRORS.values()), ids=list(JSON_ERRORS))
def test_json_error_rules(tmp_path, doc, field, rule):
    p = tmp_path / "s.json"
    p.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    with pytest.raises(InvalidScheduleError) as ei:
        read_schedule_json(p, INST)
    e = ei.value
    assert e.file == str(p) and e.field == field
    assert rule in e.rule and field in str(e)


def test_json_error_names_later_segment(tmp_path):
    segs = [{"start": i, "end": i + 1, "rates": [[0, 0, 1]] * 4} for i in range(13)]
    segs[12]["rates"][3] = [0, 5, 1]
    p = tmp_path / "s.json"
    p.write_text(json.dumps({"format": "coflowopt-schedule", "version": 1, "segments": segs}))
    with pytest.raises(InvalidScheduleError, match=r"segments\[12\]\.rates\[3\]\[1\]"):
        read_schedule(p, INST)


@pytest.mark.parametrize("text,line,rule", [
    ('{"format": "coflowopt-schedule",\n "version": 1,\n "segments": [}', 3, "not valid JSON"),
    ('{"format": "coflowopt-schedule", "version": 1, "segments": [{"start": NaN}]}', 1,
     "NaN is not a valid JSON number (column 71)"),
    # the writer's layout (one segment per line, read as a stream): the line in the file
    ('{"format": "coflowopt-schedule", "version": 1, "segments": [\n'
     '  {"start": 0, "end": 1, "rates": [[0, 0, 1]]},\n'
     '  {"start": 1, "end": 2, "rates": [[0, 0, -Infinity]]}\n]}\n', 3,
     "-Infinity is not a valid JSON number (column 43)"),
    ('{"format": "coflowopt-schedule", "version": 1, "version": 1, "segments": []}', None,
     "duplicate key 'version'"),
])
def test_json_syntax_errors(tmp_path, text, line, rule):
    p = tmp_path / "s.json"
    p.write_text(text)
    with pytest.raises(InvalidScheduleError) as ei:
        read_schedule(p, INST)
    assert ei.value.line == line and rule in ei.value.rule and ei.value.file == str(p)


@pytest.mark.parametrize("sched,rule", [
    (Schedule.from_pieces([3], [0.0], [1.0], [1.0]), "out of range 0..2"),
    (Schedule.from_pieces([0], [0.0], [np.inf], [1.0]), "end must be finite"),
    (Schedule.from_pieces([0], [0.0], [1.0], [np.nan]), "rate must be finite"),
    (Schedule.from_pieces([0], [1.0], [1.0], [1.0]), "end <= start"),
])
def test_json_writer_refuses_malformed(tmp_path, sched, rule):
    with pytest.raises(InvalidScheduleError, match=rule):
        write_schedule(sched, INST, tmp_path / "s.json")


# ------------------------------------------------------------------------------------ NPZ
def test_npz_round_trip_is_exact(tmp_path):
    s = Schedule.from_pieces([2, 0, 0, 1], [0.1, 0.0, 1.0, 0.0], [0.7, 1.0, 2.0, 1 / 3],
                             [1.5, 1.0, 1.0, 3.0], meta={"algorithm": "x"})
    for compress in (False, True):
        write_schedule(s, INST, tmp_path / "s.npz", compress=compress)
        back = read_schedule(tmp_path / "s.npz", INST)
        for n in ("flow", "start", "end", "rate"):
            assert np.array_equal(getattr(back, n), getattr(s, n))
        assert back.meta["source_format"] == "coflowopt-schedule-pieces"
    with np.load(tmp_path / "s.npz") as z:
        assert z["coflow"].tolist() == [1, 0, 0, 0]
        assert z["flow_position"].tolist() == [0, 0, 0, 1]
        assert str(z["format"]) == "coflowopt-schedule-pieces" and int(z["version"]) == 1
        assert int(z["num_flows"]) == 3 and int(z["num_coflows"]) == 2


def test_npz_written_at_the_given_name(tmp_path):
    write_schedule_npz(float_schedule(), INST, tmp_path / "pieces.bin")
    assert (tmp_path / "pieces.bin").exists() and not (tmp_path / "pieces.bin.npz").exists()
    assert read_schedule_npz(tmp_path / "pieces.bin", INST).num_pieces == 3


def test_npz_refuses_exact(tmp_path):
    s = Schedule.from_pieces([0], [Fraction(0)], [Fraction(2)], [Fraction(1)])
    with pytest.raises(NotSupportedError, match="float64 values only"):
        write_schedule(s, INST, tmp_path / "s.npz")


def _npz_arrays(**changes):
    a = {"format": np.array("coflowopt-schedule-pieces"), "version": np.array(1),
         "num_flows": np.array(3), "num_coflows": np.array(2),
         "flow": np.array([0, 2]), "coflow": np.array([0, 1]), "flow_position": np.array([0, 0]),
         "start": np.array([0.0, 0.0]), "end": np.array([1.0, 2.0]),
         "rate": np.array([1.0, 1.0])}
    a.update(changes)
    return {k: v for k, v in a.items() if v is not None}


NPZ_ERRORS = {
    "missing array": (dict(rate=None), "(arrays)", "missing key(s) ['rate']"),
    "unknown array": (dict(weight=np.ones(2)), "(arrays)", "unknown key(s) ['weight']"),
    "wrong format": (dict(format=np.array("pieces")), "format", "'coflowopt-schedule-pieces'"),
    "format not a string": (dict(format=np.array(1)), "format", "0-d array"),
    "wrong version": (dict(version=np.array(3)), "version", "unsupported version 3"),
    "other num_flows": (dict(num_flows=np.array(4)), "num_flows", "with 4 flows, this one has 3"),
    "other num_coflows": (dict(num_coflows=np.array(1)), "num_coflows",
                          "with 1 coflows, this one has 2"),
    "length differs": (dict(rate=np.ones(3)), "rate", "one entry per piece (2)"),
    "2-d array": (dict(start=np.zeros((2, 1))), "start", "1-d array"),
    "float index": (dict(coflow=np.array([0.0, 1.0])), "coflow", "integer expected"),
    "bool values": (dict(rate=np.array([True, True])), "rate", "integer or real expected"),
    "NaN value": (dict(end=np.array([1.0, np.nan])), "end[1]", "must be finite"),
    "infinite value": (dict(start=np.array([-np.inf, 0.0])), "start[0]", "must be finite"),
    "coflow out of range": (dict(coflow=np.array([0, 2])), "coflow[1]", "out of range 0..1"),
    "flow position out of range": (dict(flow_position=np.array([2, 0])), "flow_position[0]",
                                   "coflow 0 has 2 flows"),
    "flow inconsistent": (dict(flow=np.array([1, 2])), "flow[0]",
                          "flow 1 != flow_ptr[coflow] + flow_position = 0"),
}


@pytest.mark.parametrize("changes,field,rule", list(NPZ_ERRORS.values()), ids=list(NPZ_ERRORS))
def test_npz_error_rules(tmp_path, changes, field, rule):
    p = tmp_path / "s.npz"
    np.savez(p, **_npz_arrays(**changes))
    with pytest.raises(InvalidScheduleError) as ei:
        read_schedule(p, INST)
    e = ei.value
    assert e.file == str(p) and e.field == field and rule in e.rule


def test_npz_valid_fixture_reads(tmp_path):
    np.savez(tmp_path / "s.npz", **_npz_arrays())
    assert read_schedule(tmp_path / "s.npz", INST).flow.tolist() == [0, 2]


@pytest.mark.parametrize("content,rule", [
    (b"not a zip file", "this is a text file, expected a .npz archive"),
    (b"", "this is an empty file, expected a .npz archive"),
    (b"\x93NUMPY\x01\x00", "this is a single NumPy array (.npy), expected a .npz archive"),
    (b"PK\x03\x04 truncated", "not a readable .npz archive"),
])
def test_npz_not_readable(tmp_path, content, rule):
    p = tmp_path / "s.npz"
    p.write_bytes(content)
    with pytest.raises(InvalidScheduleError, match=re.escape(rule)):
        read_schedule(p, INST)


def test_npz_pickled_objects_refused(tmp_path):
    p = tmp_path / "s.npz"
    np.savez(p, **_npz_arrays(rate=np.array([1.0, Fraction(1, 3)], dtype=object)))
    with pytest.raises(InvalidScheduleError, match="holds Python objects"):
        read_schedule(p, INST)


def test_npz_large(tmp_path):
    """A few hundred thousand pieces go through in well under a second (FB-size: see report)."""
    rng = np.random.default_rng(1)
    inst = Instance.from_arrays(ingress_capacity=np.ones(10), egress_capacity=np.ones(10),
                                coflow_ids=[str(k) for k in range(1000)],
                                flow_coflow=np.repeat(np.arange(1000), 50),
                                flow_src=rng.integers(0, 10, 50000),
                                flow_dst=rng.integers(0, 10, 50000), flow_size=np.ones(50000))
    n = 400_000
    st_ = rng.random(n)
    s = Schedule(rng.integers(0, 50000, n), st_, st_ + 1.0, rng.random(n))
    write_schedule(s, inst, tmp_path / "big.npz")
    back = read_schedule(tmp_path / "big.npz", inst)
    assert np.array_equal(back.rate, s.rate) and np.array_equal(back.flow, s.flow)


# ------------------------------------------------------------------------------------ dispatch
def test_unknown_extension(tmp_path):
    with pytest.raises(InvalidParameterError, match=r"\.json"):
        write_schedule(float_schedule(), INST, tmp_path / "s.csv")
    with pytest.raises(InvalidParameterError, match="extension"):
        read_schedule(tmp_path / "s.parquet", INST)


# ------------------------------------------------------------------------------------ properties
@st.composite
def schedules(draw):
    n = draw(st.integers(0, 12))
    flows = draw(st.lists(st.integers(0, INST.num_flows - 1), min_size=n, max_size=n))
    # values within coflowopt.limits (no subnormals: nonzero magnitudes >= 1e-30)
    in_range = lambda x: x == 0 or abs(x) >= 1e-30  # noqa: E731
    times = st.floats(0, 1e6, allow_nan=False).filter(in_range)
    starts = draw(st.lists(times, min_size=n, max_size=n))
    lengths = draw(st.lists(st.floats(1e-3, 1e3), min_size=n, max_size=n))
    rates = draw(st.lists(st.floats(-1e3, 1e3, allow_nan=False).filter(in_range), min_size=n,
                          max_size=n))
    ends = [s + d for s, d in zip(starts, lengths)]
    keep = [e > s for s, e in zip(starts, ends)]
    pick = lambda xs: [x for x, k in zip(xs, keep) if k]  # noqa: E731
    return Schedule.from_pieces(np.asarray(pick(flows), dtype=np.int64), pick(starts),
                                pick(ends), pick(rates))


@st.composite
def exact_schedules(draw):
    n = draw(st.integers(0, 8))
    q = st.fractions(min_value=-100, max_value=100, max_denominator=50)
    flows = draw(st.lists(st.integers(0, INST.num_flows - 1), min_size=n, max_size=n))
    starts = draw(st.lists(q, min_size=n, max_size=n))
    lengths = draw(st.lists(st.fractions(min_value=Fraction(1, 50), max_value=10,
                                         max_denominator=50), min_size=n, max_size=n))
    rates = draw(st.lists(q, min_size=n, max_size=n))
    return Schedule(np.asarray(flows, dtype=np.int64), np.array(starts, dtype=object),
                    np.array([s + d for s, d in zip(starts, lengths)], dtype=object),
                    np.array(rates, dtype=object))


def _flow_intervals(s: Schedule) -> list:
    """Time-sorted (flow, start, end, rate) with overlapping pieces of one flow summed exactly:
    the rate function, which the JSON segment form keeps even when pieces of a flow overlap."""
    out = []
    for f in sorted(set(s.flow.tolist())):
        idx = np.flatnonzero(s.flow == f)
        cuts = sorted({*s.start[idx].tolist(), *s.end[idx].tolist()})
        for a, b in zip(cuts, cuts[1:]):
            r = sum((Fraction(s.rate[i]) for i in idx if s.start[i] <= a and s.end[i] >= b),
                    Fraction(0))
            if r != 0 and (not out or out[-1][0] != f or out[-1][2] != a or out[-1][3] != r):
                out.append([f, a, b, r])
            elif r != 0:
                out[-1][2] = b
    return out


@given(s=schedules())
def test_property_json_round_trip(tmp_path_factory, s):
    p = tmp_path_factory.mktemp("sched") / "s.json"
    write_schedule(s, INST, p)
    back = read_schedule(p, INST)
    # overlapping pieces of one flow become two entries of one segment; summing gives the same
    # rate function
    assert _flow_intervals(back) == _flow_intervals(s.merged())


@given(s=exact_schedules())
def test_property_exact_json_round_trip(tmp_path_factory, s):
    p = tmp_path_factory.mktemp("sched") / "s.json"
    write_schedule(s, INST, p)
    back = read_schedule(p, INST, exact=True)
    assert back.exact
    assert _flow_intervals(back) == _flow_intervals(s.merged())


@given(s=schedules())
def test_property_npz_round_trip(tmp_path_factory, s):
    p = tmp_path_factory.mktemp("sched") / "s.npz"
    write_schedule(s, INST, p)
    back = read_schedule(p, INST)
    assert all(np.array_equal(getattr(back, n), getattr(s, n))
               for n in ("flow", "start", "end", "rate"))


# ------------------------------------------------------------------------------------ streaming
# The writer generates the document in chunks and the reader reads it line by line (the
# compiled scanner for the writer's exact spelling, json for any other line).  Both must be
# indistinguishable from the whole-document forms: the reference writer below (one dict per
# segment from Schedule.segments(), then json.dumps) and the whole-document reader
# (load_json_document + schedule_from_dict).

def reference_dumps(s: Schedule, inst: Instance) -> str:
    """The writer's text as it was defined before streaming: Schedule.segments() + json."""
    lines = [json.dumps(seg, separators=(", ", ": "), allow_nan=False)
             for seg in schedule_to_dict(s, inst)["segments"]]
    body = ",\n".join("  " + line for line in lines)
    head = '{"format": "coflowopt-schedule", "version": 1, "segments": ['
    return head + ("\n" + body + "\n" if body else "") + "]}\n"


def layout(doc) -> str:
    """A document in the one-segment-per-line layout (as the writer spells it)."""
    lines = ["  " + json.dumps(seg, separators=(", ", ": ")) for seg in doc["segments"]]
    body = ",\n".join(lines)
    return '{"format": "coflowopt-schedule", "version": 1, "segments": [' + \
        ("\n" + body + "\n" if body else "") + "]}\n"


def whole(path, inst=INST, exact=None, merge=False) -> Schedule:
    """The whole-document reader."""
    doc = load_json_document(path, InvalidScheduleError)
    return schedule_from_dict(doc, inst, file=str(path), exact=exact, merge=merge)


def outcome(read):
    try:
        return read()
    except InvalidScheduleError as e:
        return ("error", str(e), e.file, e.line, e.field, e.rule)


def assert_same(a, b):
    """Two outcomes: the same error, or the same pieces in the same order."""
    if isinstance(a, tuple) or isinstance(b, tuple):
        assert a == b
        return
    assert a.exact == b.exact
    for n in ("flow", "start", "end", "rate"):
        x, y = getattr(a, n), getattr(b, n)
        assert x.dtype == y.dtype and x.tolist() == y.tolist(), n
        if x.dtype == float:  # also the sign of zeros
            assert np.array_equal(np.signbit(x), np.signbit(y)), n
    assert a.meta["segment_of_piece"].tolist() == b.meta["segment_of_piece"].tolist()


def same_function(a: Schedule, b: Schedule) -> bool:
    """Equal as rate functions of time, however the pieces are cut: every proper piece cut at
    every boundary of its flow in either schedule gives the same multiset of parts (so pieces
    of one flow that overlap count as such); improper pieces (end <= start) as they are."""
    cuts: dict = {}
    for s in (a, b):
        for f, x, y in zip(s.flow.tolist(), s.start.tolist(), s.end.tolist()):
            cuts.setdefault(f, set()).update((x, y))
    cuts = {f: sorted(v) for f, v in cuts.items()}

    def parts(s):
        out = []
        for f, x, y, r in zip(s.flow.tolist(), s.start.tolist(), s.end.tolist(),
                              s.rate.tolist()):
            if not x < y:
                out.append((f, x, y, r))
                continue
            c = cuts[f]
            i, j = bisect.bisect_left(c, x), bisect.bisect_left(c, y)
            out.extend((f, c[k], c[k + 1], r) for k in range(i, j))
        return sorted(out)

    return parts(a) == parts(b)


def all_readers(path, inst=INST, exact=None):
    """Every way of reading ``path``, each checked against the whole-document reader; returns
    the (merged-on-reading) outcome."""
    ref = outcome(lambda: whole(path, inst, exact, merge=False))
    merged_ref = outcome(lambda: whole(path, inst, exact, merge=True))
    for scan in (False, True):
        for merge, want in ((False, ref), (True, merged_ref)):
            assert_same(outcome(lambda m=merge, s=scan: _read_json(path, inst, exact, m, s)),
                        want)
    if not isinstance(ref, tuple):
        # merging changes how pieces are cut, never the rates as functions of time
        assert same_function(merged_ref, ref)
    return merged_ref


@given(s=schedules(), chunk=st.sampled_from([1, 2, 3, 5, 1 << 19]))
def test_property_writer_bytes(s, chunk):
    assert "".join(_document_chunks(s, INST, chunk)) == reference_dumps(s, INST)


@given(s=exact_schedules(), chunk=st.sampled_from([1, 2, 3, 1 << 19]))
def test_property_writer_bytes_exact(s, chunk):
    assert "".join(_document_chunks(s, INST, chunk)) == reference_dumps(s, INST)


def wide_instance(seed: int = 3, coflows: int = 7, width: int = 5) -> Instance:
    rng = np.random.default_rng(seed)
    n = coflows * width
    return Instance.from_arrays(ingress_capacity=np.ones(3), egress_capacity=np.ones(3),
                                coflow_ids=[str(k) for k in range(coflows)],
                                flow_coflow=np.repeat(np.arange(coflows), width),
                                flow_src=rng.integers(0, 3, n), flow_dst=rng.integers(0, 3, n),
                                flow_size=np.ones(n))


@pytest.mark.parametrize("seed", [pytest.param(i, marks=pytest.mark.slow) if i >= 8 else i
                                  for i in range(40)])
def test_writer_bytes_many_pieces(seed, tmp_path):
    """Random schedules with many overlapping pieces, shared cut times, gaps (empty
    intervals), overlapping pieces of one flow, and values of every magnitude."""
    inst = wide_instance()
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    grid = rng.integers(0, 40, n) / rng.choice([1, 2, 3, 7, 1024], n)
    st_ = grid * 10.0 ** rng.integers(-8, 8) if seed % 2 else grid
    en = st_ + rng.integers(1, 9, n) * rng.choice([0.25, 1 / 3, 1e-9, 1e9], n)
    rt = np.where(rng.random(n) < 0.5, rng.integers(-3, 4, n),
                  # magnitudes across coflowopt.limits' rate range [1e-30, 1e15]
                  rng.standard_normal(n) * 10.0 ** rng.integers(-20, 14, n))
    keep = en > st_  # (start + 1e-9 may round to start)
    s = Schedule(rng.integers(0, inst.num_flows, n)[keep], st_[keep], en[keep], rt[keep])
    want = reference_dumps(s, inst)
    for chunk in (1, 7, 64, 1 << 19):
        assert "".join(_document_chunks(s, inst, chunk)) == want
    write_schedule(s, inst, tmp_path / "s.json")
    assert (tmp_path / "s.json").read_bytes() == want.encode()
    back = all_readers(tmp_path / "s.json", inst)
    assert same_function(back, s.merged())


def test_writer_fails_before_touching_the_file(tmp_path):
    p = tmp_path / "s.json"
    p.write_text("keep")
    with pytest.raises(InvalidScheduleError, match="end <= start"):
        write_schedule(Schedule.from_pieces([0], [1.0], [1.0], [1.0]), INST, p)
    assert p.read_text() == "keep"


def test_read_back_is_the_merged_schedule(tmp_path):
    """Written from pieces that do not overlap, the file reads back as exactly those pieces."""
    inst = wide_instance()
    rng = np.random.default_rng(5)
    fl, st_, en, rt = [], [], [], []
    for f in range(inst.num_flows):  # back-to-back pieces per flow, some with equal rates
        t = float(rng.integers(0, 5))
        for _ in range(int(rng.integers(0, 4))):
            d = float(rng.integers(1, 4))
            fl.append(f), st_.append(t), en.append(t + d), rt.append(float(rng.integers(1, 3)))
            t += d + float(rng.integers(0, 2))
    s = Schedule.from_pieces(np.asarray(fl, dtype=np.int64), st_, en, rt)
    write_schedule(s, inst, tmp_path / "s.json")
    for scan in (False, True):
        back = _read_json(tmp_path / "s.json", inst, None, True, scan)
        assert back.num_pieces == s.merged().num_pieces
        assert same_rates(back, s)
        first_seg = back.meta["segment_of_piece"]
        segs = list(s.segments())
        assert all(segs[k].start == a for k, a in zip(first_seg.tolist(), back.start.tolist()))


# documents to read, of every shape the rules allow and many they do not
_NUMBERS = st.one_of(
    st.integers(-3, 3), st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.5, -0.0, 0.1, 1e-300, 2.5e22, 1e23, 2 ** 53, 2 ** 53 + 1, 2 ** 60,
                     10 ** 19, 123456789012345678901, -7, 1e16, 0.30000000000000004]),
    st.sampled_from(["1/3", "-2/3", "4/2", "1/0", "0.5", "x"]))
_TIMES = st.one_of(st.sampled_from([0, 1, 2, 3, 0.5, 1.5, 2.0, -1]), _NUMBERS)
_ENTRY = st.one_of(
    st.tuples(st.sampled_from([0, 0, 1]), st.integers(0, 1),
              st.one_of(st.sampled_from([1, 1, 2, -1, 0.5]), _NUMBERS)).map(list),
    st.sampled_from([[2, 0, 1], [1, 1, 1], [0, -1, 1], [0.0, 0, 1], [True, 0, 1], [0, 0],
                     [0, 0, None], "entry"]))
_SEGMENT = st.fixed_dictionaries(
    {"start": _TIMES, "end": _TIMES, "rates": st.lists(_ENTRY, max_size=5)})
_DOCS = st.lists(st.one_of(_SEGMENT, _SEGMENT.map(lambda s: {**s, "start": s["end"]}),
                           st.just({"start": 0, "end": 1}), st.just([])), max_size=8)


def _touching(segs):
    """Make consecutive segments touch (so that entries can merge), most of the time."""
    out, t = [], 0
    for s in segs:
        if isinstance(s, dict) and "rates" in s and type(s["start"]) is int and s["start"] >= 0:
            s = {**s, "start": t, "end": t + 1 + s["start"]}
            t = s["end"]
        out.append(s)
    return out


@given(segs=_DOCS, touch=st.booleans(), exact=st.sampled_from([None, True, False]))
def test_property_streaming_reader_is_the_whole_reader(tmp_path_factory, segs, touch, exact):
    doc = {"format": "coflowopt-schedule", "version": 1,
           "segments": _touching(segs) if touch else segs}
    p = tmp_path_factory.mktemp("sched") / "s.json"
    p.write_text(layout(doc))
    all_readers(p, exact=exact)


_MUTATIONS = st.tuples(st.sampled_from(["delete", "insert", "truncate", "replace"]),
                       st.floats(0, 1), st.sampled_from(list('[]{},:" \n\r0123456789.-eE/a')))


@given(segs=_DOCS.filter(bool), edits=st.lists(_MUTATIONS, min_size=1, max_size=3))
def test_property_streaming_reader_on_damaged_files(tmp_path_factory, segs, edits):
    """Damaged files (syntax errors, other layouts) give the same error, line and column, or
    the same schedule, as the whole-document reader."""
    text = layout({"format": "coflowopt-schedule", "version": 1, "segments": _touching(segs)})
    for kind, where, ch in edits:
        k = int(where * len(text))
        if kind == "delete":
            text = text[:k] + text[k + 1:]
        elif kind == "insert":
            text = text[:k] + ch + text[k:]
        elif kind == "truncate":
            text = text[:k]
        else:
            text = text[:k] + ch + text[k + 1:]
    p = tmp_path_factory.mktemp("sched") / "s.json"
    p.write_bytes(text.encode())
    all_readers(p)


@pytest.mark.parametrize("doc,field,rule", list(JSON_ERRORS.values()), ids=list(JSON_ERRORS))
def test_json_error_rules_streaming(tmp_path, doc, field, rule):
    """The same errors from the line-by-line reader (documents in the writer's layout)."""
    if isinstance(doc, str) or set(doc) != {"format", "version", "segments"} or \
            (doc["format"], type(doc["version"]), doc["version"]) != \
            ("coflowopt-schedule", int, 1) or \
            not isinstance(doc["segments"], list):
        pytest.skip("not a layout of segments: the header is the writer's")
    p = tmp_path / "s.json"
    p.write_text(layout(doc))
    assert p.read_text().count("\n") == len(doc["segments"]) + 2
    got = all_readers(p)
    assert isinstance(got, tuple) and got[4] == field and rule in got[5]


HEAD = '{"format": "coflowopt-schedule", "version": 1, "segments": [\n'
SEG = '  {"start": 0, "end": 1, "rates": [[0, 0, 1]]}'


@pytest.mark.parametrize("text", [
    "",
    HEAD,
    HEAD + "]}\n",
    HEAD + "]}\n  \n\t\n",
    HEAD + "]}\nx\n",
    HEAD + "]}]\n",
    HEAD + SEG + ",\n]}\n",
    HEAD + SEG + ",\n",
    HEAD + SEG + "\n",
    HEAD + SEG,
    HEAD + SEG + "\n]}",
    HEAD + SEG + '\n  ,{"start": 1, "end": 2, "rates": []}\n]}',
    HEAD + SEG + ',\n  {"start": 1, "end": 2, "rates": [[0, 0, 1]], "start": 1},\n' + SEG +
    "\n]}\n",
    HEAD + '  {"start": 0, "end": 1, "rates": [[0, 0, NaN]]},\n]}\n',
    HEAD + '  {"start": 0, "end": 1, "rates": [[0, 9, 1]]},\n  {"start": 1, "rates": [[0,\n',
    HEAD + '  {"start": 0, "end": 1,\n "rates": [[0, 0, 1]]},\n' + SEG + "\n]}\n",
    HEAD + SEG + '\n], "extra": 1}\n',
    '\ufeff{"format": "coflowopt-schedule", "version": 1, "segments": []}\n',
])
def test_streaming_reader_syntax(tmp_path, text):
    p = tmp_path / "s.json"
    p.write_text(text)
    all_readers(p)


def test_streaming_reader_bad_utf8(tmp_path):
    p = tmp_path / "s.json"
    p.write_bytes(layout(_doc()).encode().replace(b'"start": 0', b'"start": 0\xff'))
    got = all_readers(p)
    assert isinstance(got, tuple) and "not a UTF-8 text file" in got[1]


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_streaming_reader_other_newlines(tmp_path, newline):
    s = Schedule.from_pieces([0, 1, 2], [0.0, 0.5, 1.0], [2.0, 1.5, 3.0], [1.0, 0.25, 1.0])
    text = dumps_schedule(s, INST)
    p = tmp_path / "s.json"
    p.write_bytes(text.replace("\n", newline).encode())
    back = all_readers(p)
    assert same_rates(back, s)


def test_streaming_reader_small_blocks(tmp_path):
    """Blocks that end inside lines, and lines longer than a block."""
    inst = wide_instance()
    rng = np.random.default_rng(2)
    n = 200
    st_ = rng.integers(0, 30, n) / 4
    s = Schedule(rng.integers(0, inst.num_flows, n), st_, st_ + rng.integers(1, 5, n) / 3,
                 rng.random(n))
    p = tmp_path / "s.json"
    write_schedule(s, inst, p)
    p.write_bytes(p.read_bytes().replace(b"\n", b"\r\n"))
    want = whole(p, inst, merge=True)
    for scan in (False, True):
        for block in (1, 2, 7, 100, 1 << 20):
            assert_same(_read_lines(p, inst, None, True, scan, block), want)


# numbers as the writer writes them and in every other JSON spelling
_SPELLINGS = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.integers(-2 ** 60, 2 ** 60).map(str),
    st.builds(lambda sign, i, f, e: f"{sign}{i}{'.' + f if f else ''}{e}",
              st.sampled_from(["", "-"]),
              st.one_of(st.just("0"), st.from_regex(r"[1-9][0-9]{0,24}", fullmatch=True)),
              st.from_regex(r"[0-9]{0,25}", fullmatch=True),
              st.one_of(st.just(""), st.from_regex(r"[eE][+-]?[0-9]{1,3}", fullmatch=True),
                        st.sampled_from(["e0000007", "E-0000000400", "e22", "e-22", "e23"]))))


@given(tokens=st.lists(_SPELLINGS, min_size=3, max_size=12))
def test_property_scanner_numbers(tmp_path_factory, tokens):
    """The scanner converts every number as float() does (or hands it to float())."""
    rates = ", ".join(f"[0, 0, {t}]" for t in tokens[2:])
    text = ('{"format": "coflowopt-schedule", "version": 1, "segments": [\n'
            f'  {{"start": {tokens[0]}, "end": {tokens[1]}, "rates": [{rates}]}},\n'
            '  {"start": 0, "end": 1, "rates": []}\n]}\n')
    p = tmp_path_factory.mktemp("sched") / "s.json"
    p.write_text(text)
    got = all_readers(p)
    if not isinstance(got, tuple):
        values = [float(json.loads(t)) for t in tokens]  # json: "-0" is the integer 0
        assert got.start.tolist()[:1] == values[:1] or got.num_pieces < 1
        plain = _read_json(p, INST, None, False, True)
        assert plain.rate.tolist() == values[2:]
        assert np.array_equal(np.signbit(plain.rate), np.signbit(values[2:]))
