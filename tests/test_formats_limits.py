"""coflowopt.limits: the ranges, their edges, their scale invariance, and the readers and writers
at the edges (the malformed side is tests/test_malformed_corpus.py)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from coflowopt import Coflow, Instance, Schedule, limits
from coflowopt.exceptions import InvalidInstanceError, InvalidScheduleError
from coflowopt.formats import read_instance, read_schedule, write_instance, write_schedule
from coflowopt.verify import verify_schedule

ANY_FLOAT = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(
    [0.0, -0.0, 5e-324, 1e-310, 1e-30, 1e-9, 1e9, 1e12, 1e15, 1e35, 1e308, math.nan])


@given(values=st.lists(ANY_FLOAT, max_size=8), kind=st.sampled_from(sorted(limits.RANGES)))
def test_vectorised_and_scalar_rules_agree(values, kind):
    """first_out_of_range (numpy, for arrays) finds the first value value_rule (exact, for one
    number) refuses; a Fraction equal to the float gets the same verdict."""
    rules = [limits.value_rule(v, kind) for v in values]
    want = next((i for i, r in enumerate(rules) if r), None)
    assert limits.first_out_of_range(np.array(values, dtype=float), kind) == want
    for v, r in zip(values, rules):
        if math.isfinite(v):
            assert (limits.value_rule(Fraction(v), kind) is None) == (r is None)


@pytest.mark.parametrize("kind,lo,hi", [("size", limits.SIZE_MIN, limits.SIZE_MAX),
                                        ("capacity", limits.CAPACITY_MIN, limits.CAPACITY_MAX),
                                        ("weight", limits.WEIGHT_MIN, limits.WEIGHT_MAX),
                                        ("time", limits.TIME_MIN, limits.TIME_MAX),
                                        ("rate", limits.RATE_MIN, limits.RATE_MAX)])
def test_edges(kind, lo, hi):
    r = limits.RANGES[kind]
    assert limits.value_rule(lo, kind) is None and limits.value_rule(hi, kind) is None
    assert limits.value_rule(math.nextafter(lo, 0), kind)
    assert limits.value_rule(math.nextafter(hi, math.inf), kind)
    assert (limits.value_rule(0.0, kind) is None) == r.zero
    assert (limits.value_rule(-lo, kind) is None) == r.negative
    # exact comparisons: a Fraction a hair outside the float bound is outside
    assert limits.value_rule(Fraction(hi) + Fraction(1, 10 ** 40), kind)
    assert limits.value_rule(Fraction(lo) - Fraction(lo) / 10 ** 30, kind)


def test_digits_rule():
    assert limits.digits_rule("1" * 1000 + "/3") is None
    assert "1001 digits" in limits.digits_rule("-1/" + "3" * 1001)


def test_dynamic_range_by_hand():
    # sizes 1 and 2 on capacity-1 ports, a release at 3: H = 3 + 1 + 2, tau = 1
    assert limits.dynamic_range(np.array([1.0, 2.0]), np.ones(2), np.array([3.0])) == 6.0
    # a flow between ports of capacities 4 and 0.5 is limited by 0.5: size 1 takes 2
    assert limits.dynamic_range(np.array([1.0]), np.array([0.5]), np.zeros(1)) == 1.0


def two_flows(small: float, big: float, release: float = 0.0) -> Instance:
    return Instance.from_coflows([Coflow("a", [(0, 0, small)]),
                                  Coflow("b", [(1, 1, big)], release=release)])


def test_dynamic_range_edge():
    assert two_flows(1e-3, 1e9 - 1e-3).num_flows == 2  # H / tau = 1e12 exactly
    with pytest.raises(InvalidInstanceError, match="DYNAMIC_RANGE_MAX") as e:
        two_flows(1e-3, 1e9)
    assert e.value.field == "flows" and "coflows[0].flows[0]" in e.value.rule
    with pytest.raises(InvalidInstanceError, match="DYNAMIC_RANGE_MAX") as e:
        two_flows(1.0, 1.0, release=1e12)  # a late release counts too
    # ... and, when it is most of the span, is the field named
    assert e.value.field == "coflows[1].release" and "latest release, 1e+12" in e.value.rule


def test_generator_release_out_of_range_names_its_parameter(capsys, tmp_path):
    """A release range that makes the generated instance span more than DYNAMIC_RANGE_MAX is
    blamed on ``-p releases``, the parameter that produced it (the fuzz of 2026-11-29 found
    the message naming ``-p`` alone)."""
    from coflowopt.cli import main
    code = main(["generate", "uniform_random", "-p", "num_ports=4", "-p", "num_coflows=3",
                 "-p", "releases=[1,1e30]", "-o", str(tmp_path / "x.json")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert err[0].startswith("coflowopt generate: error: -p releases: generator uniform_random:")


@given(a=st.floats(1e-3, 1e3), b=st.floats(1e-3, 1e3),
       sizes=st.lists(st.floats(1e-2, 1e2), min_size=1, max_size=5),
       release=st.floats(0, 1e3))
def test_dynamic_range_is_scale_invariant(a, b, sizes, release):
    """Sizes x a, capacities x b, times x a / b: the same instance in other units, the same
    H / tau."""
    s, c, r = np.array(sizes), np.full(len(sizes), 2.0), np.array([release])
    d0 = limits.dynamic_range(s, c, r)
    d1 = limits.dynamic_range(s * a, c * b, r * (a / b))
    assert d1 == pytest.approx(d0, rel=1e-12)


def test_instance_counts():
    with pytest.raises(InvalidInstanceError, match="MAX_PORTS"):
        Instance.from_coflows([Coflow("a", [(0, 0, 1.0)])], num_ingress=limits.MAX_PORTS + 1)


# ------------------------------------------------------------------------------------ the edges
def edge_instance() -> Instance:
    """Values at the edges of every range that can share one instance (dynamic range 1e12 at
    most: here 9.94e11): sizes 1e-9 .. 990, a capacity of 1e12, weights at both edges and 0,
    a release at TIME_MIN."""
    return Instance.from_coflows([
        Coflow("1", [(0, 0, 1e-9), (1, 1, 1.0)], weight=limits.WEIGHT_MIN, release=0.0),
        Coflow("2", [(1, 0, 990.0)], weight=limits.WEIGHT_MAX, release=limits.TIME_MIN),
        Coflow("3", [(0, 1, 2.0)], weight=0.0, release=1.0, deadline=5e3),
    ], ingress_capacity=[1.0, limits.CAPACITY_MAX], egress_capacity=[1.0, 1.0])


def test_edge_instance_round_trips(tmp_path):
    inst = edge_instance()
    write_instance(inst, tmp_path / "e.json")
    assert read_instance(tmp_path / "e.json") == inst
    tiny = Instance.from_coflows([Coflow("0", [(0, 0, 1.0)])],
                                 ingress_capacity=[limits.CAPACITY_MIN], egress_capacity=[1.0])
    write_instance(tiny, tmp_path / "t.json")
    assert read_instance(tmp_path / "t.json") == tiny


@pytest.mark.parametrize("ext", [".json", ".npz"])
def test_schedule_values_at_the_edges_round_trip(tmp_path, ext):
    inst = edge_instance()
    s = Schedule.from_pieces([0, 1, 2], [0.0, limits.TIME_MIN, 1.0],
                             [1.0, 2.0, limits.TIME_MAX],
                             [limits.RATE_MIN, limits.RATE_MAX, -1.0])
    write_schedule(s, inst, tmp_path / f"s{ext}")
    back = read_schedule(tmp_path / f"s{ext}", inst)
    m = s.merged()
    assert all(np.array_equal(getattr(back.merged(), n), getattr(m, n))
               for n in ("flow", "start", "end", "rate"))
    # read and judged (infeasible: a negative rate, flows unfinished), not refused
    assert not verify_schedule(inst, back).ok


@pytest.mark.parametrize("ext", [".json", ".npz"])
@pytest.mark.parametrize("field,value", [("rate", 1e-31), ("rate", 2e15), ("end", 2e35),
                                         ("start", 5e-324)])
def test_writers_refuse_what_readers_refuse(tmp_path, ext, field, value):
    inst = edge_instance()
    cols = {"start": [0.0], "end": [1.0], "rate": [1.0]}
    cols[field] = [value]
    s = Schedule.from_pieces([0], cols["start"], cols["end"], cols["rate"])
    with pytest.raises(InvalidScheduleError, match="readers would refuse") as e:
        write_schedule(s, inst, tmp_path / f"s{ext}")
    assert e.value.field == f"{field}[0]"
    assert not (tmp_path / f"s{ext}").exists()


def test_exact_writer_refuses_out_of_range_fraction(tmp_path):
    inst = edge_instance()
    s = Schedule.from_pieces([0], [Fraction(0)], [Fraction(10) ** 36], [Fraction(1, 3)])
    with pytest.raises(InvalidScheduleError, match="TIME_MIN..TIME_MAX"):
        write_schedule(s, inst, tmp_path / "s.json")


@pytest.mark.parametrize("reader,text,rule", [
    ("coflow-benchmark", "2 1\n1 0 1 0 1 1:1e-9\n", None),
    ("coflow-benchmark", "2 1\n1 0 2 0 1 1 1:1e-9\n", "SIZE_MIN..SIZE_MAX"),
    ("coflow-benchmark", "2 1\n1 0 1 0 1 1:1e12\n", None),
    ("sincronia", "2 1\n0 0 1 1 1 0 1 1e12\n", None),
    ("sincronia", "2 1\n0 0 1 1 1 0 1 1.0000001e12\n", "SIZE_MIN..SIZE_MAX"),
])
def test_trace_sizes_at_the_edges(tmp_path, reader, text, rule):
    p = tmp_path / "t.txt"
    p.write_text(text)
    if rule is None:
        assert read_instance(p, format=reader).num_flows >= 1
    else:
        with pytest.raises(InvalidInstanceError, match=rule) as e:
            read_instance(p, format=reader)
        assert e.value.line == 2
