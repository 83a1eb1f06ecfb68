"""The coflow-benchmark trace reader and writer (coflowopt.formats.coflow_benchmark)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from coflowopt import Coflow, Instance
from coflowopt.exceptions import InvalidInstanceError, InvalidParameterError, NotSupportedError
from coflowopt.formats import read_instance, write_instance
from coflowopt.formats.coflow_benchmark import (coflowsim_flow_mb, read_coflow_benchmark,
                                                write_coflow_benchmark)

SMALL = "4 2\n7 15 2 3 1 2 0:10.0 2:4.0\n9 16 1 2 1 1:2.5\n"


def write(tmp_path, text: str, name: str = "t.txt"):
    p = tmp_path / name
    p.write_text(text)
    return p


# ------------------------------------------------------------------------------------ reading
def test_reads_model_flow_order_and_units(tmp_path):
    inst = read_coflow_benchmark(write(tmp_path, SMALL))
    assert inst.coflow_ids == ("7", "9")
    assert inst.num_ingress == inst.num_egress == 4
    assert inst.ingress_capacity.tolist() == [1.0] * 4
    # for each reducer (file order), for each mapper (file order)
    assert inst.flow_src.tolist() == [3, 1, 3, 1, 2]
    assert inst.flow_dst.tolist() == [0, 0, 2, 2, 1]
    assert inst.flow_size.tolist() == [5.0, 5.0, 2.0, 2.0, 2.5]
    assert inst.flow_ptr.tolist() == [0, 4, 5]
    assert inst.release.tolist() == [15 / 7.8125, 16 / 7.8125]
    assert inst.weight.tolist() == [1.0, 1.0] and not inst.has_deadlines
    assert inst.meta["source_format"] == "coflow-benchmark"
    assert inst.meta["units"] == {"size": "MB", "time": "7.8125 ms",
                                  "capacity": "MB per time unit"}
    assert inst.meta["split"] == "uniform" and inst.meta["time_unit_ms"] == 7.8125
    assert inst.meta["source_file"].endswith("t.txt")


def test_capacity_and_time_unit(tmp_path):
    inst = read_coflow_benchmark(write(tmp_path, SMALL), capacity=2.5, time_unit_ms=1.0)
    assert inst.egress_capacity.tolist() == [2.5] * 4
    assert inst.release.tolist() == [15.0, 16.0]
    assert inst.meta["units"]["time"] == "1 ms"


def test_uniform_split_is_exact_float_division(tmp_path):
    inst = read_coflow_benchmark(write(tmp_path, "3 1\n1 0 3 0 1 2 1 0:1.0\n"))
    assert inst.flow_size.tolist() == [1.0 / 3] * 3


def test_same_rack_flow_keeps_ingress_and_egress(tmp_path):
    inst = read_coflow_benchmark(write(tmp_path, "3 1\n1 0 1 2 1 2:4.0\n"))
    assert (inst.flow_src.tolist(), inst.flow_dst.tolist()) == ([2], [2])


def test_blank_trailing_lines_and_crlf_are_fine(tmp_path):
    a = read_coflow_benchmark(write(tmp_path, SMALL + "\n\n  \n", "a.txt"))
    b = read_coflow_benchmark(write(tmp_path, SMALL.replace("\n", "\r\n"), "b.txt"))
    c = read_coflow_benchmark(write(tmp_path, SMALL.rstrip("\n"), "c.txt"))
    assert a == b == c == read_coflow_benchmark(write(tmp_path, SMALL))


# The rules: (file text, 1-based line, field, text of the rule).
L = "1 0 1 0 1 1:1.0"
ERRORS = {
    "empty file": ("", 1, "header", "2 fields"),
    "header one field": ("3\n" + L + "\n", 1, "header", "got 1 field"),
    "header trailing junk": ("3 1 x\n" + L + "\n", 1, "header", "got 3 field"),
    "header ports not int": ("3.0 1\n" + L + "\n", 1, "num_ports", "non-negative integer"),
    "header coflows not int": ("3 one\n" + L + "\n", 1, "num_coflows", "non-negative integer"),
    "header zero ports": ("0 1\n" + L + "\n", 1, "num_ports", "must be >= 1"),
    "header zero coflows": ("3 0\n", 1, "num_coflows", "must be >= 1"),
    "too few coflow lines": ("3 2\n" + L + "\n", 3, "num_coflows", "only 1 coflow line"),
    "too few, blank lines after": ("3 2\n" + L + "\n\n\n", 3, "num_coflows",
                                   "only 1 coflow line"),
    "too many coflow lines": ("3 1\n" + L + "\n2 0 1 0 1 1:1.0\n", 3, "num_coflows",
                              "another non-blank line"),
    "junk after blank lines": ("3 1\n" + L + "\n\nx\n", 4, "num_coflows",
                               "another non-blank line"),
    "blank line inside body": ("3 2\n" + L + "\n\n2 0 1 0 1 1:1.0\n", 3, None,
                               "blank line inside the body"),
    "too few fields": ("3 1\n1 0\n", 2, None, "got only 2 field"),
    "id not an integer": ("3 1\nA 0 1 0 1 1:1.0\n", 2, "coflow_id", "non-negative integer"),
    "id negative": ("3 1\n-1 0 1 0 1 1:1.0\n", 2, "coflow_id", "non-negative integer"),
    "duplicate id": ("3 2\n" + L + "\n" + L + "\n", 3, "coflow_id",
                     "duplicate coflow id '1' (first used on line 2)"),
    "arrival negative": ("3 1\n1 -5 1 0 1 1:1.0\n", 2, "arrival_ms", "non-negative integer"),
    "arrival not integer": ("3 1\n1 2.5 1 0 1 1:1.0\n", 2, "arrival_ms",
                            "non-negative integer"),
    "mappers not integer": ("3 1\n1 0 x 0 1 1:1.0\n", 2, "num_mappers", "non-negative integer"),
    "zero mappers": ("3 1\n1 0 0 1 1:1.0\n", 2, "num_mappers", "at least one mapper"),
    "mapper count too large": ("3 1\n1 0 2 0 1 1:1.0\n", 2, "num_mappers",
                               "num_mappers is 2 but 1 mapper location"),
    "mapper count too small": ("3 1\n1 0 1 0 2 1 1:1.0\n", 2, "num_mappers",
                               "num_mappers is 1 but 2 mapper location"),
    "mapper count beyond line": ("3 1\n1 0 5 0 1\n", 2, "num_mappers", "only 2 field"),
    "reducers not integer": ("3 1\n1 0 1 0 x 1:1.0\n", 2, "num_reducers",
                             "non-negative integer"),
    "reducers negative": ("3 1\n1 0 1 0 -1 1:1.0\n", 2, "num_reducers", "non-negative integer"),
    "zero reducers": ("3 1\n1 0 1 0 0\n", 2, "num_reducers", "at least one reducer"),
    "reducer count too large": ("3 1\n1 0 1 0 2 1:1.0\n", 2, "num_reducers",
                                "num_reducers is 2 but 1 reducer field"),
    "trailing reducer": ("3 1\n1 0 1 0 1 1:1.0 2:1.0\n", 2, "num_reducers",
                         "num_reducers is 1 but 2 reducer field"),
    "trailing junk": ("3 1\n1 0 1 0 1 1:1.0 junk\n", 2, "num_reducers",
                      "num_reducers is 1 but 2 reducer field"),
    "mapper not integer": ("3 1\n1 0 1 x 1 1:1.0\n", 2, "mappers[0]", "non-negative integer"),
    "mapper out of range": ("3 1\n1 0 2 0 3 1 1:1.0\n", 2, "mappers[1]",
                            "port 3 out of range 0..2"),
    "reducer out of range": ("3 1\n1 0 1 0 2 1:1.0 7:1.0\n", 2, "reducers[1].location",
                             "port 7 out of range 0..2"),
    "reducer location not integer": ("3 1\n1 0 1 0 1 a:1.0\n", 2, "reducers[0].location",
                                     "non-negative integer"),
    "empty reducer location": ("3 1\n1 0 1 0 2 :1.0 2:1.0\n", 2, "reducers[0].location",
                               "non-negative integer, got ''"),
    "empty location after a good one": ("3 1\n1 0 1 0 2 2:1.0 :1.0\n", 2,
                                        "reducers[1].location", "non-negative integer, got ''"),
    "empty MB": ("3 1\n1 0 1 0 1 1:\n", 2, "reducers[0].MB", "decimal number"),
    "no colon": ("3 1\n1 0 1 0 1 1\n", 2, "reducers[0]", "'location:MB'"),
    "two colons": ("3 1\n1 0 1 0 1 1:2:3\n", 2, "reducers[0]", "one colon"),
    "MB zero": ("3 1\n1 0 1 0 1 1:0.0\n", 2, "reducers[0].MB", "must be > 0"),
    "MB negative": ("3 1\n1 0 1 0 2 1:1.0 2:-2\n", 2, "reducers[1].MB", "must be > 0"),
    "MB NaN": ("3 1\n1 0 1 0 1 1:NaN\n", 2, "reducers[0].MB", "decimal number"),
    "MB inf word": ("3 1\n1 0 1 0 1 1:Infinity\n", 2, "reducers[0].MB", "decimal number"),
    "MB overflows to inf": ("3 1\n1 0 1 0 1 1:1e999\n", 2, "reducers[0].MB",
                            "beyond float64's range"),
    "MB not a number": ("3 1\n1 0 1 0 1 1:lots\n", 2, "reducers[0].MB", "decimal number"),
    "MB with underscore": ("3 1\n1 0 1 0 1 1:1_0\n", 2, "reducers[0].MB", "decimal number"),
    "MB underflows per flow": ("3 1\n1 0 2 0 1 1 2:5e-324\n", 2, "reducers[0].MB",
                               "underflows"),
    "duplicate mapper location": ("3 1\n1 0 2 1 1 1 2:1.0\n", 2, "mappers[1]",
                                  "duplicate mapper location 1 (also mappers[0])"),
    "duplicate reducer location": ("3 1\n1 0 1 0 2 2:1.0 2:3.0\n", 2, "reducers[1].location",
                                   "duplicate reducer location 2"),
}


@pytest.mark.parametrize("text,line,field,rule", list(ERRORS.values()), ids=list(ERRORS))
def test_error_rules(tmp_path, text, line, field, rule):
    p = write(tmp_path, text)
    with pytest.raises(InvalidInstanceError) as ei:
        read_coflow_benchmark(p)
    e = ei.value
    assert e.line == line and e.file == str(p)
    assert e.field == field
    assert rule in e.rule
    assert f"{p}:{line}" in str(e) and rule in str(e)


def test_not_utf8(tmp_path):
    p = tmp_path / "t.txt"
    p.write_bytes(b"3 1\n1 0 1 0 1 1:1.0\xff\n")
    with pytest.raises(InvalidInstanceError, match="binary file, not UTF-8 text"):
        read_coflow_benchmark(p)


@pytest.mark.parametrize("kw", [{"capacity": 0}, {"capacity": float("nan")},
                                {"time_unit_ms": -1.0}, {"time_unit_ms": True},
                                {"split": "ceil"}])
def test_bad_parameters(tmp_path, kw):
    with pytest.raises(InvalidParameterError, match=next(iter(kw))):
        read_coflow_benchmark(write(tmp_path, SMALL), **kw)


# ------------------------------------------------------------------------------ coflowsim split
@pytest.mark.parametrize("mb,m,expected", [
    (10.0, 3, 4.0),        # ceil(10 / 3)
    (9.0, 3, 3.0),
    (1.5, 1, 2.0),         # ReduceTask rounds up to whole MB first
    (1.5, 2, 1.0),         # 2 MB over 2 mappers
    (0.2, 4, 1.0),         # 1 MB, rounded up to 4 MB, 1 MB per flow
    (1e-9, 3, 1.0),        # (long) 0.001 bytes = 0 MB; Math.max(..., 1 MB)
    (2.0000001, 1, 2.0),   # 2097152.1 bytes truncate to exactly 2 MB: no round-up
    (648.0, 27, 24.0),     # FB coflow 4, reducer 0
    (5.0, 7, 1.0),
    (15.0, 7, 3.0),
])
def test_coflowsim_rounding(mb, m, expected):
    assert coflowsim_flow_mb(mb, m) == expected


def test_coflowsim_overflow_refused():
    with pytest.raises(NotSupportedError, match="64-bit"):
        coflowsim_flow_mb(1e13, 2)


def test_coflowsim_split_reader(tmp_path):
    p = write(tmp_path, "4 1\n1 0 3 0 1 2 2 0:10.0 3:0.5\n")
    inst = read_coflow_benchmark(p, split="coflowsim")
    assert inst.flow_size.tolist() == [4.0] * 3 + [1.0] * 3
    assert inst.meta["split"] == "coflowsim"
    assert read_coflow_benchmark(p).flow_size.tolist() == [10 / 3] * 3 + [0.5 / 3] * 3


def test_coflowsim_split_overflow_names_line(tmp_path):
    with pytest.raises(InvalidInstanceError, match="64-bit") as ei:
        read_coflow_benchmark(write(tmp_path, "3 1\n1 0 1 0 1 1:1e300\n"), split="coflowsim")
    assert ei.value.line == 2


# ------------------------------------------------------------------------------------ writing
def test_write_small_byte_identical(tmp_path):
    p = write(tmp_path, SMALL)
    out = tmp_path / "out.txt"
    write_coflow_benchmark(read_coflow_benchmark(p), out)
    assert out.read_bytes() == p.read_bytes()


def test_write_keeps_short_decimal_tokens(tmp_path):
    text = "7 2\n1 3 3 0 1 2 2 0:0.3 4:1e-05\n2 4 7 0 1 2 3 4 5 6 1 1:0.1\n"
    p = write(tmp_path, text)
    out = tmp_path / "out.txt"
    write_coflow_benchmark(read_coflow_benchmark(p), out)
    assert out.read_text() == text


def test_write_with_other_time_unit(tmp_path):
    p = write(tmp_path, SMALL)
    inst = read_coflow_benchmark(p, time_unit_ms=3.0)
    out = tmp_path / "out.txt"
    write_coflow_benchmark(inst, out, time_unit_ms=3.0)
    assert out.read_bytes() == p.read_bytes()


def _grid_instance(**changes):
    base = dict(ingress_capacity=np.ones(3), egress_capacity=np.ones(3), coflow_ids=["1"],
                flow_coflow=[0, 0], flow_src=[0, 1], flow_dst=[2, 2], flow_size=[1.0, 1.0])
    base.update(changes)
    return Instance.from_arrays(**base)


WRITE_REFUSALS = {
    "port counts differ": (dict(egress_capacity=np.ones(4)), "one port count for both sides"),
    "capacities differ": (dict(ingress_capacity=[1.0, 2.0, 1.0]), "same capacity"),
    "weight": (dict(weight=[2.0]), "no weights, but coflow '1' has weight 2.0 ("),
    "deadline": (dict(deadline=[5.0]), "no deadlines"),
    "id not integer": (dict(coflow_ids=["x1"]), "coflow id 'x1'"),
    "id negative": (dict(coflow_ids=["-1"]), "coflow id '-1'"),
    "release not integer ms": (dict(release=[0.1]),
                               "the release 0.1 of coflow '1' is not an integer number of ms"),
    "not a grid": (dict(flow_coflow=[0, 0, 0], flow_src=[0, 1, 0], flow_dst=[2, 2, 1],
                        flow_size=[1.0, 1.0, 1.0]), "not a mappers x reducers grid"),
    "mapper order differs": (dict(flow_coflow=[0] * 4, flow_src=[0, 1, 1, 0],
                                  flow_dst=[2, 2, 1, 1], flow_size=[1.0] * 4),
                             "complete mappers x reducers grid in the reader's order"),
    "duplicate location": (dict(flow_src=[1, 1]), "repeats"),
    "sizes differ per reducer": (dict(flow_size=[1.0, 2.0]), "differ in size"),
}


@pytest.mark.parametrize("changes,rule", list(WRITE_REFUSALS.values()),
                         ids=list(WRITE_REFUSALS))
def test_writer_refusals(tmp_path, changes, rule):
    inst = _grid_instance(**changes)
    with pytest.raises(NotSupportedError, match="coflow-benchmark") as ei:
        write_coflow_benchmark(inst, tmp_path / "out.txt")
    assert rule in str(ei.value)
    assert "np." not in str(ei.value)     # numbers as the user wrote them, not numpy reprs
    assert not (tmp_path / "out.txt").exists()


def test_writer_names_the_coflow(tmp_path):
    inst = Instance.from_coflows([Coflow("1", [(0, 0, 1.0)]),
                                  Coflow("2", [(0, 0, 1.0), (1, 1, 1.0)])],
                                 num_ingress=2, num_egress=2)
    with pytest.raises(NotSupportedError, match=r"coflow '2' \(coflows\[1\]\)"):
        write_coflow_benchmark(inst, tmp_path / "out.txt")


def test_dispatch_by_name_and_alias(tmp_path):
    p = write(tmp_path, SMALL)
    inst = read_instance(p)
    assert inst == read_instance(p, format="fb") == read_instance(p, format="coflow-benchmark")
    write_instance(inst, tmp_path / "o.txt", format="fb")
    assert (tmp_path / "o.txt").read_bytes() == p.read_bytes()


# --------------------------------------------------------------------------------- properties
@st.composite
def trace_texts(draw):
    """A small valid trace with integral-or-short-decimal MB tokens, as text."""
    ports = draw(st.integers(1, 6))
    k = draw(st.integers(1, 5))
    ids = draw(st.lists(st.integers(0, 10 ** 6), min_size=k, max_size=k, unique=True))
    lines = [f"{ports} {k}"]
    for cid in ids:
        # arrivals and MB keep H / tau well inside coflowopt.limits.DYNAMIC_RANGE_MAX
        arrival = draw(st.integers(0, 10 ** 6))
        mappers = draw(st.lists(st.integers(0, ports - 1), min_size=1, max_size=ports,
                                unique=True))
        reducers = draw(st.lists(st.integers(0, ports - 1), min_size=1, max_size=ports,
                                 unique=True))
        mbs = draw(st.lists(st.one_of(st.integers(1, 10 ** 7).map(float),
                                      st.floats(0.1, 1e7, allow_nan=False)),
                            min_size=len(reducers), max_size=len(reducers)))
        lines.append(" ".join([str(cid), str(arrival), str(len(mappers)), *map(str, mappers),
                               str(len(reducers)),
                               *(f"{r}:{mb!r}" for r, mb in zip(reducers, mbs))]))
    return "\n".join(lines) + "\n"


@given(text=trace_texts(), tu=st.sampled_from([7.8125, 1.0, 3.0, 0.1]))
def test_property_trace_round_trip(tmp_path_factory, text, tu):
    d = tmp_path_factory.mktemp("cb")
    p = write(d, text)
    inst = read_coflow_benchmark(p, time_unit_ms=tu)
    out = d / "out.txt"
    write_coflow_benchmark(inst, out, time_unit_ms=tu)
    again = read_coflow_benchmark(out, time_unit_ms=tu)
    assert again == inst
    # Several MB can divide to the same flow size, so the token may differ from the source;
    # writing is nevertheless a fixed point, and integral MB tokens come back unchanged.
    out2 = d / "out2.txt"
    write_coflow_benchmark(again, out2, time_unit_ms=tu)
    assert out2.read_bytes() == out.read_bytes()
    if all(t.endswith(".0") for t in text.split() if ":" in t):
        assert out.read_text() == text


@st.composite
def grid_instances(draw):
    ports = draw(st.integers(1, 5))
    cap = draw(st.sampled_from([1.0, 0.5, 10.0]))
    coflows = []
    for k in range(draw(st.integers(1, 4))):
        mappers = draw(st.lists(st.integers(0, ports - 1), min_size=1, max_size=ports,
                                unique=True))
        reducers = draw(st.lists(st.integers(0, ports - 1), min_size=1, max_size=ports,
                                 unique=True))
        sizes = draw(st.lists(st.floats(1e-3, 1e6, allow_nan=False), min_size=len(reducers),
                              max_size=len(reducers)))
        flows = [(m, r, s) for r, s in zip(reducers, sizes) for m in mappers]
        coflows.append(Coflow(str(k), flows, release=draw(st.integers(0, 10 ** 6)) / 7.8125))
    return Instance.from_coflows(coflows, num_ingress=ports, num_egress=ports,
                                 ingress_capacity=np.full(ports, cap),
                                 egress_capacity=np.full(ports, cap))


@given(inst=grid_instances())
def test_property_instance_round_trip(tmp_path_factory, inst):
    p = tmp_path_factory.mktemp("cb") / "g.txt"
    try:
        write_coflow_benchmark(inst, p)
    except NotSupportedError as e:  # a size that no float64 MB divides to exactly
        assert "is not MB /" in str(e)
        return
    assert read_coflow_benchmark(p, capacity=float(inst.ingress_capacity[0])) == inst


# --------------------------------------------------------------------------------- the FB trace
@pytest.fixture(scope="module")
def fb(fb_trace_path):
    return read_coflow_benchmark(fb_trace_path)


def test_fb_facts(fb):
    assert fb.num_coflows == 526
    assert fb.num_ingress == fb.num_egress == 150
    assert fb.num_flows == 706397
    assert math.fsum(fb.flow_size.tolist()) == 35533534
    assert fb.coflow_ids == tuple(str(i) for i in range(1, 527))
    bins = fb.bins(short_threshold=5.0, narrow_max_flows=50)
    assert {b: int(np.sum(bins == b)) for b in ("SN", "LN", "SW", "LW")} == \
        {"SN": 309, "LN": 90, "SW": 59, "LW": 68}
    assert math.fsum(fb.rho.tolist()) == 967927
    assert int(np.sum(fb.flow_src == fb.flow_dst)) == 4911
    assert fb.release[0] == 0 and fb.release[-1] == 3629235 / 7.8125


def test_fb_every_flow_kept(fb, fb_trace_path):
    """Independent count: mappers x reducers per line, MB per reducer summed."""
    lines = fb_trace_path.read_text().splitlines()[1:]
    flows, total = [], 0.0
    for line in lines:
        t = line.split()
        m = int(t[2])
        r = int(t[3 + m])
        flows.append(m * r)
        total += sum(float(x.split(":")[1]) for x in t[4 + m:])
    assert np.diff(fb.flow_ptr).tolist() == flows
    assert math.fsum(fb.flow_size.tolist()) == total


def test_fb_coflowsim_split_equals_uniform(fb, fb_trace_path):
    assert read_coflow_benchmark(fb_trace_path, split="coflowsim") == fb


def test_fb_write_byte_identical(fb, fb_trace_path, tmp_path):
    out = tmp_path / "fb.txt"
    write_coflow_benchmark(fb, out)
    assert out.read_bytes() == fb_trace_path.read_bytes()


def test_fb_through_json_byte_identical(fb, fb_trace_path, tmp_path):
    write_instance(fb, tmp_path / "fb.json")
    back = read_instance(tmp_path / "fb.json")
    assert back == fb
    write_coflow_benchmark(back, tmp_path / "fb.txt")
    assert (tmp_path / "fb.txt").read_bytes() == fb_trace_path.read_bytes()


def test_cli_json_to_trace_takes_the_written_time_unit(tmp_path):
    """``convert x.json y.txt --to coflow-benchmark --time-unit-ms U`` writes arrivals in ms of
    that unit (JSON has no time unit to read, so the flag is the written trace's); reading the
    trace back with the same unit gives the instance again. ``--capacity`` stays refused for a
    JSON input: the document states its own capacities."""
    from coflowopt.cli import main
    inst = Instance.from_coflows([Coflow("0", [(0, 1, 3.0)], release=0.5),
                                  Coflow("1", [(1, 0, 2.0), (0, 0, 2.0)], release=2.0)],
                                 num_ingress=2, num_egress=2)
    src, out = tmp_path / "i.json", tmp_path / "t.txt"
    write_instance(inst, src)
    assert main(["convert", str(src), str(out), "--to", "coflow-benchmark",
                 "--time-unit-ms", "1000"]) == 0
    assert out.read_text().splitlines()[1:] == ["0 500 1 0 1 1:3.0", "1 2000 2 1 0 1 0:4.0"]
    back = read_instance(out, time_unit_ms=1000)
    assert back.release.tolist() == [0.5, 2.0] and back.num_flows == 3
    assert main(["convert", str(src), str(tmp_path / "c.txt"), "--to", "coflow-benchmark",
                 "--capacity", "2"]) == 2
    assert not (tmp_path / "c.txt").exists()


# convert's overrides of the trace writers' refusals: each field the format cannot hold is
# refused (exit 2, one line naming the command-line flag, never a Python call) and written
# only with the flag that drops it
CONVERT_DROPS = {
    "weights": (dict(weight=[2.0, 1.0]), "coflow-benchmark", "--drop-weights",
                lambda b: b.weight.tolist() == [1.0, 1.0]),
    "deadlines": (dict(deadline=[50.0, np.nan]), "sincronia", "--drop-deadlines",
                  lambda b: not b.has_deadlines),
    "sub-coflows": (dict(flow_subcoflow=[0, 1, 0]), "coflow-benchmark", "--drop-subcoflows",
                    lambda b: b.flow_subcoflow is None),
    "fractional": (dict(flow_size=[1.5, 1.5, 2.0]), "sincronia", "--allow-fractional",
                   lambda b: b.flow_size.tolist() == [1.5, 1.5, 2.0]),
}


@pytest.mark.parametrize("changes,fmt,flag,check", list(CONVERT_DROPS.values()),
                         ids=list(CONVERT_DROPS))
def test_cli_convert_refuses_then_drops_with_the_flag(tmp_path, capsys, changes, fmt, flag,
                                                      check):
    from coflowopt.cli import main
    base = dict(ingress_capacity=np.ones(3), egress_capacity=np.ones(3), coflow_ids=["1", "2"],
                flow_coflow=[0, 0, 1], flow_src=[0, 1, 2], flow_dst=[2, 2, 0],
                flow_size=[1.0, 1.0, 2.0])
    src, out = tmp_path / "i.json", tmp_path / "t.txt"
    write_instance(Instance.from_arrays(**{**base, **changes}), src)
    capsys.readouterr()
    assert main(["convert", str(src), str(out), "--to", fmt]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"give {flag} to" in err and str(src) in err
    assert "instance." not in err and "Python" not in err and not out.exists()
    assert main(["convert", str(src), str(out), "--to", fmt, flag, "--json"]) == 0
    back = read_instance(out, format=fmt)
    assert check(back) and back.num_flows == 3
    assert back.flow_dst.tolist() == [2, 2, 0]


def test_cli_convert_says_what_it_dropped(tmp_path, capsys):
    """--drop-weights is an explicit request on any format (JSON too), and the output counts
    the coflows it changed; --allow-fractional is refused where nothing would be allowed."""
    import json

    from coflowopt.cli import main
    inst = _grid_instance(coflow_ids=["1"], weight=[3.0])
    src = tmp_path / "i.json"
    write_instance(inst, src)
    capsys.readouterr()
    assert main(["convert", str(src), str(tmp_path / "o.json"), "--drop-weights",
                 "--drop-deadlines", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dropped"] == [
        {"field": "weights", "coflows": 1}, {"field": "deadlines", "coflows": 0}]
    assert read_instance(tmp_path / "o.json").weight.tolist() == [1.0]
    assert main(["convert", str(src), str(tmp_path / "o.txt"), "--to", "coflow-benchmark",
                 "--drop-weights", "--allow-fractional"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--allow-fractional" in err
    assert not (tmp_path / "o.txt").exists()
