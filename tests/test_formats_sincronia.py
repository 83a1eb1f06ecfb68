"""The Sincronia simulator trace reader and writer (coflowopt.formats.sincronia)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from coflowopt import Coflow, Instance
from coflowopt.exceptions import InvalidInstanceError, InvalidParameterError, NotSupportedError
from coflowopt.formats import read_instance, write_instance
from coflowopt.formats.coflow_benchmark import read_coflow_benchmark
from coflowopt.formats.sincronia import read_sincronia, write_sincronia

# Two coflows as trace_producer.py writes them (ids from 0, integer MB).
SMALL = "4 2\n0 12 3 2 2 0 1 5 3 1 7 3 2 2\n1 40 1 1 1 2 2 9\n"


def write(tmp_path, text: str, name: str = "t.txt"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_reads_flows_in_file_order(tmp_path):
    inst = read_sincronia(write(tmp_path, SMALL))
    assert inst.coflow_ids == ("0", "1")
    assert inst.num_ingress == inst.num_egress == 4
    assert inst.flow_src.tolist() == [0, 3, 3, 2]
    assert inst.flow_dst.tolist() == [1, 1, 2, 2]
    assert inst.flow_size.tolist() == [5.0, 7.0, 2.0, 9.0]
    assert inst.flow_ptr.tolist() == [0, 3, 4]
    assert inst.release.tolist() == [12 / 7.8125, 40 / 7.8125]
    assert inst.meta["source_format"] == "sincronia"
    assert inst.meta["units"]["size"] == "MB" and "dropped_zero_size" not in inst.meta


def test_units_options(tmp_path):
    inst = read_sincronia(write(tmp_path, SMALL), capacity=4.0, time_unit_ms=2.0)
    assert inst.ingress_capacity.tolist() == [4.0] * 4
    assert inst.release.tolist() == [6.0, 20.0]


def test_decimal_sizes_are_read(tmp_path):
    inst = read_sincronia(write(tmp_path, "2 1\n5 0 1 1 1 0 1 2.5\n"))
    assert inst.flow_size.tolist() == [2.5]


H = "4 1\n"
ERRORS = {
    "header missing field": ("4\n0 0 1 1 1 0 0 1\n", 1, "header", "got 1 field"),
    "header not integer": ("4 x\n0 0 1 1 1 0 0 1\n", 1, "NUM_COFLOWS", "non-negative integer"),
    "too few coflow lines": ("4 2\n0 0 1 1 1 0 0 1\n", 3, "NUM_COFLOWS", "only 1 coflow line"),
    "too many coflow lines": (H + "0 0 1 1 1 0 0 1\n1 0 1 1 1 0 0 1\n", 3, "NUM_COFLOWS",
                              "another non-blank line"),
    "fewer than 5 fields": (H + "0 0 1 1\n", 2, None, "got only 4 field"),
    "id not integer": (H + "c0 0 1 1 1 0 0 1\n", 2, "coflow_id", "non-negative integer"),
    "arrival negative": (H + "0 -1 1 1 1 0 0 1\n", 2, "arrival_ms", "non-negative integer"),
    "NumFlows zero": (H + "0 0 0 0 0\n", 2, "NumFlows", "at least one flow"),
    "NumFlows not integer": (H + "0 0 x 1 1 0 0 1\n", 2, "NumFlows", "non-negative integer"),
    "NumFlows too large": (H + "0 0 2 1 1 0 0 1\n", 2, "NumFlows", "got 8 (1 flow triples)"),
    "NumFlows too small": (H + "0 0 1 1 1 0 0 1 1 1 1\n", 2, "NumFlows",
                           "got 11 (2 flow triples)"),
    "partial triple": (H + "0 0 1 1 1 0 0 1 7\n", 2, "NumFlows", "5 + 3*1 = 8"),
    "NumSources wrong": (H + "0 0 2 1 1 0 0 1 1 0 1\n", 2, "NumSources",
                         "NumSources is 1 but the flows use 2 distinct sources"),
    "NumDestinations wrong": (H + "0 0 2 1 1 0 0 1 0 1 1\n", 2, "NumDestinations",
                              "NumDestinations is 1 but the flows use 2 distinct destinations"),
    "NumSources not integer": (H + "0 0 1 one 1 0 0 1\n", 2, "NumSources",
                               "non-negative integer"),
    "src out of range": (H + "0 0 1 1 1 4 0 1\n", 2, "flows[0].src", "port 4 out of range 0..3"),
    "dst out of range": (H + "0 0 2 1 2 0 0 1 0 9 1\n", 2, "flows[1].dst",
                         "port 9 out of range 0..3"),
    "src negative": (H + "0 0 1 1 1 -1 0 1\n", 2, "flows[0].src", "non-negative integer"),
    "size zero": (H + "0 0 2 1 2 0 0 1 0 1 0\n", 2, "flows[1].size", "must be > 0"),
    "size negative": (H + "0 0 1 1 1 0 0 -3\n", 2, "flows[0].size", "must be > 0"),
    "size NaN": (H + "0 0 1 1 1 0 0 nan\n", 2, "flows[0].size", "decimal number"),
    "size inf": (H + "0 0 1 1 1 0 0 1e400\n", 2, "flows[0].size", "beyond float64's range"),
    "size not a number": (H + "0 0 1 1 1 0 0 big\n", 2, "flows[0].size", "decimal number"),
    "duplicate id": ("4 2\n3 0 1 1 1 0 0 1\n3 0 1 1 1 0 0 1\n", 3, "coflow_id",
                     "duplicate coflow id '3' (first used on line 2)"),
}


@pytest.mark.parametrize("text,line,field,rule", list(ERRORS.values()), ids=list(ERRORS))
def test_error_rules(tmp_path, text, line, field, rule):
    p = write(tmp_path, text)
    with pytest.raises(InvalidInstanceError) as ei:
        read_sincronia(p)
    e = ei.value
    assert (e.file, e.line, e.field) == (str(p), line, field)
    assert rule in e.rule and f"{p}:{line}" in str(e)


def test_zero_size_drop_is_explicit_and_recorded(tmp_path):
    text = "4 3\n0 0 3 2 2 0 1 0 3 1 7 3 2 0\n1 5 1 1 1 2 2 9\n2 6 2 1 1 1 1 0 1 1 4\n"
    p = write(tmp_path, text)
    with pytest.raises(InvalidInstanceError, match="zero-size"):
        read_sincronia(p)
    inst = read_sincronia(p, on_zero_size="drop")
    assert inst.flow_ptr.tolist() == [0, 1, 2, 3]
    assert inst.flow_size.tolist() == [7.0, 9.0, 4.0]
    assert inst.meta["dropped_zero_size"] == {"0": 2, "2": 1}
    assert inst.meta["dropped_zero_size_total"] == 3


def test_zero_size_drop_leaving_no_flows_is_an_error(tmp_path):
    p = write(tmp_path, "4 1\n0 0 2 1 2 0 1 0 0 2 0\n")
    with pytest.raises(InvalidInstanceError, match="without flows") as ei:
        read_sincronia(p, on_zero_size="drop")
    assert ei.value.line == 2


def test_zero_size_drop_still_rejects_negative(tmp_path):
    with pytest.raises(InvalidInstanceError, match=">= 0"):
        read_sincronia(write(tmp_path, "4 1\n0 0 1 1 1 0 0 -1\n"), on_zero_size="drop")


@pytest.mark.parametrize("kw", [{"on_zero_size": "skip"}, {"capacity": -1.0},
                                {"time_unit_ms": float("inf")}])
def test_bad_parameters(tmp_path, kw):
    with pytest.raises(InvalidParameterError, match=next(iter(kw))):
        read_sincronia(write(tmp_path, SMALL), **kw)


# ------------------------------------------------------------------------------------ writing
def test_write_byte_identical(tmp_path):
    p = write(tmp_path, SMALL)
    out = tmp_path / "out.txt"
    write_sincronia(read_sincronia(p), out)
    assert out.read_bytes() == p.read_bytes()


def test_fractional_sizes(tmp_path):
    inst = Instance.from_coflows([Coflow("4", [(0, 1, 2.5), (1, 0, 1.0)])])
    with pytest.raises(NotSupportedError, match="%d") as ei:
        write_sincronia(inst, tmp_path / "f.txt")
    assert "flow 0 of coflow '4'" in str(ei.value) and "allow_fractional" in str(ei.value)
    write_sincronia(inst, tmp_path / "f.txt", allow_fractional=True)
    assert (tmp_path / "f.txt").read_text() == "2 1\n4 0 2 2 2 0 1 2.5 1 0 1\n"
    assert read_sincronia(tmp_path / "f.txt") == inst


def test_size_beyond_c_int_refused(tmp_path):
    inst = Instance.from_coflows([Coflow("0", [(0, 0, 2.0 ** 31)])])
    with pytest.raises(NotSupportedError, match="2147483647"):
        write_sincronia(inst, tmp_path / "f.txt")


WRITE_REFUSALS = {
    "port counts differ": (dict(num_ingress=2, num_egress=3), "one port count"),
    "capacities differ": (dict(ingress_capacity=[1.0, 2.0], egress_capacity=[1.0, 1.0]),
                          "same capacity"),
}


@pytest.mark.parametrize("kw,rule", list(WRITE_REFUSALS.values()), ids=list(WRITE_REFUSALS))
def test_writer_refusals(tmp_path, kw, rule):
    inst = Instance.from_coflows([Coflow("0", [(0, 1, 1.0)])], **kw)
    with pytest.raises(NotSupportedError, match="sincronia") as ei:
        write_sincronia(inst, tmp_path / "f.txt")
    assert rule in str(ei.value)


def test_writer_refuses_unrepresentable_release(tmp_path):
    inst = Instance.from_coflows([Coflow("0", [(0, 0, 1.0)], release=1 / 3)])
    with pytest.raises(NotSupportedError, match="integer number of ms"):
        write_sincronia(inst, tmp_path / "f.txt")
    write_sincronia(inst, tmp_path / "f.txt", time_unit_ms=3.0)
    assert read_sincronia(tmp_path / "f.txt", time_unit_ms=3.0) == inst


def test_dispatch(tmp_path):
    p = write(tmp_path, SMALL)
    inst = read_instance(p)
    assert inst == read_sincronia(p)
    write_instance(inst, tmp_path / "o.txt", format="sincronia")
    assert (tmp_path / "o.txt").read_bytes() == p.read_bytes()


# --------------------------------------------------------------------------------- properties
@st.composite
def sincronia_instances(draw):
    ports = draw(st.integers(1, 6))
    k = draw(st.integers(1, 5))
    ids = draw(st.lists(st.integers(0, 10 ** 6), min_size=k, max_size=k, unique=True))
    tu = draw(st.sampled_from([7.8125, 1.0, 0.3]))
    coflows = []
    for cid in ids:
        flows = draw(st.lists(st.tuples(st.integers(0, ports - 1), st.integers(0, ports - 1),
                                        st.integers(1, 2 ** 31 - 1).map(float)),
                              min_size=1, max_size=8))
        coflows.append(Coflow(str(cid), flows, release=draw(st.integers(0, 10 ** 9)) / tu))
    cap = draw(st.sampled_from([1.0, 2.0]))
    return tu, cap, Instance.from_coflows(coflows, ingress_capacity=np.full(ports, cap),
                                          egress_capacity=np.full(ports, cap))


@given(case=sincronia_instances())
def test_property_round_trip(tmp_path_factory, case):
    tu, cap, inst = case
    d = tmp_path_factory.mktemp("sin")
    write_sincronia(inst, d / "a.txt", time_unit_ms=tu)
    back = read_sincronia(d / "a.txt", capacity=cap, time_unit_ms=tu)
    assert back == inst
    write_sincronia(back, d / "b.txt", time_unit_ms=tu)
    assert (d / "b.txt").read_bytes() == (d / "a.txt").read_bytes()


@st.composite
def spread_sizes(draw):
    """Sizes anywhere in coflowopt.limits' [1e-9, 1e12], nine decades apart at most (so the
    instance stays within DYNAMIC_RANGE_MAX)."""
    lo = draw(st.floats(1e-9, 1e3))
    return draw(st.lists(st.floats(lo, lo * 1e9), min_size=1, max_size=6))


@given(sizes=spread_sizes())
def test_property_fractional_round_trip(tmp_path_factory, sizes):
    inst = Instance.from_coflows([Coflow("0", [(i % 2, (i + 1) % 2, s)
                                               for i, s in enumerate(sizes)])],
                                 num_ingress=2, num_egress=2)
    p = tmp_path_factory.mktemp("sin") / "f.txt"
    write_sincronia(inst, p, allow_fractional=True)
    assert read_sincronia(p) == inst


# --------------------------------------------------------------------------------- the FB trace
def test_fb_through_sincronia(fb_trace_path, tmp_path):
    fb = read_coflow_benchmark(fb_trace_path)
    write_sincronia(fb, tmp_path / "fb.txt")
    back = read_sincronia(tmp_path / "fb.txt")
    assert back == fb
    assert back.coflow_ids == fb.coflow_ids
    assert np.array_equal(back.release, fb.release)
    write_sincronia(back, tmp_path / "again.txt")
    assert (tmp_path / "again.txt").read_bytes() == (tmp_path / "fb.txt").read_bytes()
