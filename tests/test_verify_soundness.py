"""The float verifier is sound: what it accepts is within its stated factor of an exactly
feasible schedule (proofs/float-verifier-soundness.md), and nothing hides in a short interval.

Three kinds of check:

* adversarial schedules (tiny intervals, huge rates, long horizons, chains of slivers, overloads
  spread over many ports, oversends at large times) are rejected in float mode, one-shot and
  window by window, at every time scale, as they are in exact mode;
* the theorem itself, on hypothesis schedules that straddle the tolerances: whenever float mode
  accepts, the proof's construction (:func:`coflowopt.verify.dilated_witness`, exact arithmetic)
  is accepted by the exact verifier with completion times within ``Tolerances.dilation`` (and
  within the factor the report states);
* completeness: whatever the exact verifier accepts, float mode accepts.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coflowopt import Coflow, Instance, Schedule
from coflowopt.exceptions import InvalidParameterError
from coflowopt.verify import (Tolerances, dilated_witness, verify_in_windows, verify_schedule)


def sched(pieces) -> Schedule:
    f, s, e, r = zip(*pieces)
    return Schedule.from_pieces(list(f), list(s), list(e), list(r))


def verdicts(inst, s):
    """Float one-shot and float window by window (tiny windows), each checked to agree with
    exact mode on the kind at stake (exact mode also sees the rounding of float sizes, so it may
    add demand violations of a few ulps)."""
    exact = verify_schedule(inst, s, mode="exact")
    reps = (verify_schedule(inst, s), verify_in_windows(inst, s, pieces_per_window=1))
    for rep in reps:
        assert not exact.ok and set(rep.violation_counts) <= set(exact.violation_counts)
    return reps


def two_unit_coflows(size=1.0, cap=1.0) -> Instance:
    return Instance.from_coflows([Coflow("A", [(0, 0, size)]), Coflow("B", [(0, 0, size)])],
                                 ingress_capacity=[cap], egress_capacity=[cap])


# ------------------------------------------------------------------ the schedules
def test_short_interval_overload_is_rejected():
    # one port of capacity 1, two coflows of size 1, both sent in 1e-9 at rate 1e9: the old
    # float verifier accepted this with value 2e-9 (the optimum is 3)
    inst = two_unit_coflows()
    s = sched([(0, 0.0, 1e-9, 1e9), (1, 0.0, 1e-9, 1e9)])
    for rep in verdicts(inst, s):
        assert not rep.ok and "capacity" in rep.violation_counts, rep.violation_counts
    rep = verify_schedule(inst, s)
    assert rep.violations[0].interval == (0.0, 1e-9)
    assert "above the budget" in rep.violations[0].message


def test_long_overload_late_in_time_is_rejected():
    # a port at twice its capacity for 100 time units near t = 1e9
    inst = two_unit_coflows(size=100.0)
    s = sched([(0, 1e9, 1e9 + 100, 1.0), (1, 1e9, 1e9 + 100, 1.0)])
    for rep in verdicts(inst, s):
        assert not rep.ok and set(rep.violation_counts) == {"capacity"}


@pytest.mark.parametrize("t", [0.0, 1.0, 1e6, 1e9, 1e12])
def test_oversend_at_large_times_is_rejected(t):
    # the old size tolerance grew with rate x time: 7.6e-6 relative passed near t = 1e9
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1.0)])], ingress_capacity=[2.0],
                                 egress_capacity=[2.0])
    s = sched([(0, t, t + 1.0, 1.0 + 7.6e-6)])
    for rep in verdicts(inst, s):
        assert not rep.ok and rep.violation_counts == {"oversent": 1}, (t, rep.violation_counts)


# ------------------------------------------------------------------ adversarial schedules
@pytest.mark.parametrize("scale", [1e-2, 1.0, 1e3])
def test_chained_slivers_are_rejected(scale):
    # after a feasible prefix of length P, n slivers in a row, each a 2x overload of length d
    # (two coflows at full rate on one port).  One sliver alone is within the budget
    # (2 d < 1e-9 P: ingress and egress); the chain is not (2 n d > 1e-9 (P + n d))
    P, n, d = 1e4 * scale, 200, 1e-6 * scale
    pieces = [(0, 0.0, P, 1.0)]
    for i in range(n):
        a, b = P + i * d, P + (i + 1) * d
        pieces += [(1 + 2 * i, a, b, 1.0), (2 + 2 * i, a, b, 1.0)]
    sizes = [r * (b - a) for _, a, b, r in pieces]      # what the float pieces send
    inst = Instance.from_coflows([Coflow(f"c{i}", [(0, 0, z)]) for i, z in enumerate(sizes)])
    s = sched(pieces)
    for rep in verdicts(inst, s):
        assert not rep.ok and set(rep.violation_counts) == {"capacity"}
    assert verify_schedule(inst, s).violation_counts["capacity"] >= 2 * n  # ingress and egress
    # the first sliver alone is tolerated, and its overload is reported
    one = Instance.from_coflows([Coflow(f"c{i}", [(0, 0, z)]) for i, z in enumerate(sizes[:3])])
    rep = verify_schedule(one, sched(pieces[:3]))
    assert rep.ok and rep.overload_time == pytest.approx(2 * d, rel=1e-6)
    w, factor = dilated_witness(one, sched(pieces[:3]))
    assert verify_schedule(one, w, mode="exact").ok and factor <= rep.dilation


def test_sliver_chain_hidden_under_a_long_feasible_schedule():
    # a long exact-feasible schedule, then at its end a chain of short 1000x overloads: the
    # budget is relative to C_k - T0, but each sliver still carries 999 x its length of
    # overload; with 1e4 of them of length 1e-9 the amount (1e-2) exceeds 1e-9 x 1e4 = 1e-5
    inst_flows = [Coflow("long", [(0, 0, 1e4)])]
    k = 100
    inst_flows += [Coflow(f"s{i}", [(1, 1, 1000 * 1e-9)]) for i in range(k)]
    inst = Instance.from_coflows(inst_flows, ingress_capacity=[1.0, 1.0],
                                 egress_capacity=[1.0, 1.0])
    pieces = [(0, 0.0, 1e4, 1.0)]
    for i in range(k):
        a = 1e4 + i * 1e-9
        pieces.append((1 + i, a, a + 1e-9, 1000.0))
    rep = verify_schedule(inst, sched(pieces))
    assert not rep.ok and "capacity" in rep.violation_counts


def test_huge_rates_on_tiny_intervals():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1.0)])])
    for t, d in ((5.0, 1e-3), (5.0, 1e-12), (0.0, 1e-200)):
        s = sched([(0, t, t + d, 1.0 / d)])
        for rep in verdicts(inst, s):
            assert not rep.ok and set(rep.violation_counts) <= {"capacity", "undersent",
                                                                "oversent"}
            assert "capacity" in rep.violation_counts


def test_overload_spread_over_many_ports():
    # m flows, each on its own ingress, all into one egress of capacity 1, each at rate 1:
    # the egress carries m; the ingresses are fine
    m = 50
    inst = Instance.from_coflows([Coflow(f"c{i}", [(i, 0, 1e-6)]) for i in range(m)],
                                 ingress_capacity=[1.0] * m, egress_capacity=[1.0])
    s = sched([(i, 0.0, 1e-6, 1.0) for i in range(m)])
    for rep in verdicts(inst, s):
        assert not rep.ok and set(rep.violation_counts) == {"capacity"}
        assert {v.port for v in rep.violations} == {m}


def test_overlapping_pieces_of_one_flow_by_a_sliver():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0)])])
    one_ulp = np.nextafter(1.0, 2.0)
    s = sched([(0, 0.0, one_ulp, 1.0), (0, 1.0, 2.0, 1.0)])
    rep = verify_schedule(inst, s)
    assert rep.violation_counts.get("overlap") == 1
    assert verify_schedule(inst, s, mode="exact").violation_counts.get("overlap") == 1


def test_rounding_slivers_of_a_real_schedule_are_tolerated():
    # two boundaries that should coincide: 0.1 + 0.2 != 0.3.  Flow a ends at 0.1 + 0.2, flow b
    # starts at 0.3 on the same port: a 2x overload on [0.3, 0.30000000000000004), 5.6e-17
    # time units of overload: tolerated, reported as overload_time, and the witness exists
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 0.1 + 0.2)]),
                                  Coflow("B", [(0, 0, 0.7)])])
    s = sched([(0, 0.0, 0.1 + 0.2, 1.0), (1, 0.3, 1.0, 1.0)])
    rep = verify_schedule(inst, s)
    assert rep.ok and 0 < rep.overload_time < 1e-15
    assert not verify_schedule(inst, s, mode="exact").ok
    w, factor = dilated_witness(inst, s)
    assert verify_schedule(inst, w, mode="exact").ok
    assert 1 <= factor <= rep.dilation <= Tolerances().dilation


def test_no_witness_for_a_rejected_schedule():
    inst = two_unit_coflows()
    with pytest.raises(InvalidParameterError, match="not accepted"):
        dilated_witness(inst, sched([(0, 0.0, 1e-9, 1e9), (1, 0.0, 1e-9, 1e9)]))


def test_tolerances_are_amounts_in_a_stated_range():
    assert Tolerances().dilation == pytest.approx(1 + 3e-9, rel=1e-15)
    for bad in (-1e-9, 0.5, float("nan")):
        with pytest.raises(InvalidParameterError, match="capacity_rtol"):
            Tolerances(capacity_rtol=bad)


@pytest.mark.parametrize("scale", [1e-9, 1e-3, 1.0, 1e3, 1e9])
def test_verdicts_do_not_depend_on_the_time_scale(scale):
    # the same schedules with every time (and size) multiplied by `scale`, rates unchanged:
    # the same verdicts and violation kinds
    base_inst = two_unit_coflows()
    cases = [
        [(0, 0.0, 1.0, 1.0), (1, 1.0, 2.0, 1.0)],                     # feasible
        [(0, 0.0, 1e-9, 1e9), (1, 0.0, 1e-9, 1e9)],                   # the sliver overload
        [(0, 0.0, 1.0, 1.0), (1, 0.5, 1.5, 1.0)],                     # a real overload
        [(0, 0.0, 1.0, 1.0), (1, 1.0, 2.0, 1.0 - 1e-6)],              # undersent
    ]
    for pieces in cases:
        ref = verify_schedule(base_inst, sched(pieces))
        inst = base_inst.replace(flow_size=base_inst.flow_size * scale)
        scaled = [(f, s * scale, e * scale, r) for f, s, e, r in pieces]
        rep = verify_schedule(inst, sched(scaled))
        assert rep.ok == ref.ok and set(rep.violation_counts) == set(ref.violation_counts)


# ------------------------------------------------------------------- the theorem, as a property
@st.composite
def near_feasible(draw):
    """A small instance and a float schedule near the edge of the tolerances.

    Segments of random lengths; in each, random rates scaled so that every port is loaded to at
    most its capacity times (1 + delta), delta from exactly 0 to well past the tolerance; the
    instance's sizes are what the schedule sends, times (1 + eta); then a few piece ends are
    moved by a few ulps (rounding slivers).
    """
    m = draw(st.integers(1, 3))
    n_flows = draw(st.integers(1, 5))
    src = [draw(st.integers(0, m - 1)) for _ in range(n_flows)]
    dst = [draw(st.integers(0, m - 1)) for _ in range(n_flows)]
    cap_in = [draw(st.sampled_from([0.5, 1.0, 3.0])) for _ in range(m)]
    cap_out = [draw(st.sampled_from([0.5, 1.0, 3.0])) for _ in range(m)]
    t_scale = draw(st.sampled_from([1e-3, 1.0, 1e3]))
    delta = draw(st.sampled_from([0.0, 0.0, 1e-13, 1e-10, 5e-10, 2e-9, 1e-6]))
    eta = draw(st.sampled_from([0.0, 0.0, 1e-12, -1e-12, 5e-10, -5e-10, -3e-9, 1e-6, -1e-6]))
    t = draw(st.sampled_from([0.0, 1.0, 1e3])) * t_scale
    pieces = []
    for _ in range(draw(st.integers(1, 4))):
        length = draw(st.sampled_from([1e-3, 0.25, 1.0, 7.0])) * t_scale
        raw = [draw(st.sampled_from([0.0, 0.1, 0.3, 1.0])) for _ in range(n_flows)]
        load_in = np.zeros(m)
        load_out = np.zeros(m)
        for f, r in enumerate(raw):
            load_in[src[f]] += r
            load_out[dst[f]] += r
        scale = min([cap_in[p] / load_in[p] for p in range(m) if load_in[p] > 0] +
                    [cap_out[p] / load_out[p] for p in range(m) if load_out[p] > 0] + [1e300])
        for f, r in enumerate(raw):
            if r > 0:
                pieces.append([f, t, t + length, r * scale * (1 + delta)])
        t = t + length
    if not pieces:
        pieces.append([0, t, t + t_scale, min(cap_in[src[0]], cap_out[dst[0]])])
    for p in pieces:   # slivers: move a few ends by a few ulps (never before the start)
        k = draw(st.sampled_from([0, 0, 0, 1, -1, 3]))
        for _ in range(abs(k)):
            nxt = np.nextafter(p[2], np.inf if k > 0 else -np.inf)
            if nxt > p[1]:
                p[2] = float(nxt)
    s = sched([tuple(p) for p in pieces])
    sent = np.zeros(n_flows)
    for f, a, b, r in pieces:
        sent[f] += r * (b - a)
    coflows = [Coflow(f"c{f}", [(src[f], dst[f], float(sent[f] * (1 + eta)) if sent[f] > 0
                                 else 1.0)]) for f in range(n_flows)]
    inst = Instance.from_coflows(coflows, ingress_capacity=cap_in, egress_capacity=cap_out)
    return inst, s


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(near_feasible())
def test_float_acceptance_has_an_exact_witness(case):
    inst, s = case
    rep = verify_schedule(inst, s)
    exact = verify_schedule(inst, s, mode="exact")
    if exact.ok:          # completeness: the exact verdict's acceptances are float acceptances
        assert rep.ok, rep.violations[:3]
    if rep.ok:            # soundness: the theorem's witness is exactly feasible, within factor
        w, factor = dilated_witness(inst, s)
        wrep = verify_schedule(inst, w, mode="exact")
        assert wrep.ok, wrep.violations[:3]
        assert factor <= Fraction(rep.dilation) * (1 + Fraction(1, 10**12))
        assert rep.dilation <= Tolerances().dilation * (1 + 1e-15)
        assert float(wrep.weighted_completion_time) <= \
            Tolerances().dilation * rep.weighted_completion_time * (1 + 1e-15)
    windowed = verify_in_windows(inst, s, pieces_per_window=1)
    assert windowed.ok == rep.ok
