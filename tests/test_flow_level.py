"""Flow-level baselines (per-flow fairness, per-flow priority, WSS): the dissertation's printed
numbers, the compiled kernels against the from-scratch reference policies, and parameters."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, strategies as st

from coflowopt import Coflow, Instance
from coflowopt.exceptions import InvalidParameterError, NotSupportedError
from coflowopt.policies import fair, max_min_rates, priority, wss
from coflowopt.rates import greedy, madd
from coflowopt.registry import get_algorithm
from coflowopt.policies.flow_level import maxmin_windows
from coflowopt.schedule import Schedule
from coflowopt.verify import WindowedVerifier, verify_in_windows, verify_schedule
from test_madd import e4_family, fig_5_1, random_instances, shuffle_3x2, verified
from test_verify_paths import broken_schedule


def library_or(name, build):
    """The instance-library entry if the library has it, else the instance built here."""
    try:
        from coflowopt.library import load_instance
        inst = load_instance(name)
    except (ImportError, FileNotFoundError, ValueError):
        return build()
    assert inst == build(), f"library entry {name} differs from the test's construction"
    return inst


def fct_cct(rep):
    """(average FCT, average CCT) from a verifier report (all releases 0)."""
    return float(np.mean(rep.flow_completion.astype(float))), rep.average_cct


# ------------------------------------------------------------------------------ Fig. 5.1
def test_fig_5_1_printed_numbers():
    # dissertation Fig. 5.1 (E5): average FCT / average CCT
    inst = library_or("papers/dissertation-fig5.1", fig_5_1)
    cases = {
        "fair": (fair(inst), (3.4, 4.0), True),
        "priority, tie toward C2": (priority(inst, tie_order=[1, 0]), (2.8, 3.5), True),
        "priority, tie toward C1": (priority(inst), (2.8, 4.0), True),
        "wss": (wss(inst), (3.6, 4.0), False),
        "optimal: MADD, order C2, C1": (madd(inst, [1, 0]), (3.0, 3.0), True),
        "optimal: greedy, order C2, C1": (greedy(inst, [1, 0]), (3.0, 3.0), True),
    }
    for name, (sched, (fct, cct), exact) in cases.items():
        rep = verified(inst, sched, exact=exact)
        assert fct_cct(rep) == pytest.approx((fct, cct), rel=1e-12), name


def test_fig_5_1_flow_completions():
    inst = fig_5_1()
    assert verified(inst, fair(inst)).flow_completion.tolist() == [2, 4, 4, 3, 4]
    assert verified(inst, wss(inst)).flow_completion.tolist() == [3, 4, 4, 3, 4]
    assert verified(inst, priority(inst, tie_order=[1, 0])).flow_completion.tolist() == \
        [1, 4, 4, 3, 2]


# ------------------------------------------------------------------------------ Fig. 3.2
def test_shuffle_3x2_madd_fair_priority():
    # Fig. 3.2: MADD 4, per-flow fairness 5, per-flow prioritisation 6; average FCT 4, 22/6,
    # 16/6 [DERIV in the digest]
    inst = library_or("papers/dissertation-fig3.2", shuffle_3x2)
    rep_m = verified(inst, madd(inst, [0]), exact=True)
    rep_f = verified(inst, fair(inst))
    rep_p = verified(inst, priority(inst), exact=True)
    assert rep_m.coflow_completion.tolist() == [4.0]
    assert rep_f.coflow_completion[0] == pytest.approx(5.0, rel=1e-12)
    assert rep_p.coflow_completion.tolist() == [6.0]
    assert fct_cct(rep_f)[0] == pytest.approx(22 / 6, rel=1e-12)
    assert fct_cct(rep_p)[0] == pytest.approx(16 / 6, rel=1e-12)
    assert fct_cct(rep_m)[0] == 4.0


@pytest.mark.parametrize("n", [2, 3, 4, 10, 100])
def test_e4_family_fair_is_3n_minus_1(n):
    inst = e4_family(n)
    assert verified(inst, fair(inst)).coflow_completion[0] == pytest.approx(3 * n - 1,
                                                                            rel=1e-12)
    assert verified(inst, madd(inst, [0])).coflow_completion[0] == pytest.approx(2 * n,
                                                                                rel=1e-12)


def fig_6_1():
    # E7: C1 (t=0) 3 at P1, 4 at P2; C2 (t=1) 2 at P2; C3 (t=0) 3 at P1; one egress per flow
    return Instance.from_coflows([Coflow("C1", [(0, 0, 3), (1, 1, 4)]),
                                  Coflow("C2", [(1, 2, 2)], release=1),
                                  Coflow("C3", [(0, 3, 3)])])


def test_fig_6_1_fair_with_a_release():
    # per-flow fairness: CCTs (6, 4, 6) measured from arrival -> 16/3
    inst = fig_6_1()
    rep = verified(inst, fair(inst), exact=True)
    assert rep.coflow_completion.tolist() == [6.0, 5.0, 6.0]
    assert rep.average_cct == pytest.approx(16 / 3, rel=1e-12)


# ------------------------------------------------------------------------------ definitions
def test_wss_rates_are_proportional_to_sizes_at_a_port():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1), (0, 1, 3)])])
    s = wss(inst)
    rep = verified(inst, s)
    assert rep.flow_completion.tolist() == [4.0, 4.0]          # the port drains together
    assert sorted(s.rate.tolist()) == [0.25, 0.75]


def test_wss_with_both_sides_constrained():
    # weights = sizes 1, 2, 2; ingress 1 and egress 0 are both shared
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1), (1, 0, 2), (1, 1, 2)])])
    a, b = wss(inst), wss(inst, engine="python")
    ra, rb = verified(inst, a), verified(inst, b)
    np.testing.assert_allclose(ra.flow_completion, rb.flow_completion, rtol=1e-12)
    # levels (capacity / weight): ingress 1 (weights 2 + 2) fills first at 1/4, freezing the
    # two 2-unit flows at rate 1/2; egress 0 then has 1/2 left for the 1-unit flow
    first = {int(f): float(r) for f, s0, r in zip(a.flow, a.start, a.rate) if s0 == 0}
    assert first == pytest.approx({0: 0.5, 1: 0.5, 2: 0.5})


def test_priority_uses_remaining_size():
    # A (4 units) starts alone; B (3 units) arrives at 2 on the same port: A has 2 left, so
    # SRTF keeps serving A (initial-size SJF would preempt it)
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 4)]), Coflow("B", [(0, 1, 3)], release=2)])
    rep = verified(inst, priority(inst), exact=True)
    assert rep.coflow_completion.tolist() == [4.0, 7.0]
    # a shorter arrival preempts
    inst2 = Instance.from_coflows([Coflow("A", [(0, 0, 4)]),
                                   Coflow("B", [(0, 1, 1)], release=2)])
    rep2 = verified(inst2, priority(inst2), exact=True)
    assert rep2.coflow_completion.tolist() == [5.0, 3.0]


def test_priority_deadline_first_is_edf():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)], deadline=10),
                                  Coflow("B", [(0, 1, 3)], deadline=3),
                                  Coflow("C", [(0, 2, 2)])])
    rep = verified(inst, priority(inst, deadline_first=True), exact=True)
    assert rep.coflow_completion.tolist() == [4.0, 3.0, 6.0]   # B (deadline 3), A, then C
    assert rep.deadline_met.tolist() == [True, True, False]
    rep_srtf = verified(inst, priority(inst), exact=True)
    assert rep_srtf.coflow_completion.tolist() == [1.0, 6.0, 3.0]
    assert get_algorithm("policy", "pfp").func is priority
    assert get_algorithm("policy", "srtf").func is priority


def test_max_min_rates():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1), (0, 1, 1), (1, 1, 1), (2, 1, 1)])])
    # ingress 0 splits 1/2, 1/2; egress 1 has three flows: 1/3 each, the flow from ingress 0
    # to egress 1 is limited by egress 1 at 1/3, so the one to egress 0 takes 2/3
    np.testing.assert_allclose(max_min_rates(inst, [0, 1, 2, 3]), [2 / 3, 1 / 3, 1 / 3, 1 / 3])


# ------------------------------------------------------------------------------ kernels
@given(random_instances(deadlines=True), st.sampled_from(["fair", "wss"]))
def test_maxmin_kernel_equals_reference(case, name):
    inst, _ = case
    fn = {"fair": fair, "wss": wss}[name]
    ra = verified(inst, fn(inst, engine="kernel"))
    rb = verified(inst, fn(inst, engine="python"))
    np.testing.assert_allclose(ra.flow_completion, rb.flow_completion, rtol=1e-9)


@given(random_instances(heterogeneous=False, deadlines=True), st.booleans(), st.data())
def test_priority_kernel_equals_reference(case, deadline_first, data):
    inst, order = case
    tie = order if data.draw(st.booleans()) else None
    ra = verified(inst, priority(inst, deadline_first=deadline_first, tie_order=tie,
                                 engine="kernel"))
    rb = verified(inst, priority(inst, deadline_first=deadline_first, tie_order=tie,
                                 engine="python"))
    np.testing.assert_allclose(ra.flow_completion, rb.flow_completion, rtol=1e-9)


@given(random_instances(heterogeneous=False))
def test_flow_level_schedules_verify_exactly_with_integer_sizes(case):
    inst, _ = case
    if not np.all(inst.flow_size == np.round(inst.flow_size)):
        return
    # greedy at full rate: every time is an integer combination of sizes
    assert verify_schedule(inst, priority(inst), mode="exact").ok


def test_wss_port_with_a_rounding_residue_is_not_a_bottleneck():
    # regression (found by the conformance suite): after its last pair froze, a port's weight
    # sum kept a float residue (16.02155 - 8.363175 - 7.658375 != 0) and the kernel took it for
    # a port filling at level 0, stalling its pairs; liveness now counts unfrozen pairs
    inst = Instance.from_arrays(
        ingress_capacity=[1.0, 1.0], egress_capacity=[1.0, 1.0],
        coflow_ids=[f"c{k}" for k in range(5)],
        flow_coflow=[0, 0, 0, 1, 2, 3, 3, 3, 4, 4, 4],
        flow_src=[0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0], flow_dst=[1, 0, 0, 0, 0, 0, 1, 1, 1, 0, 1],
        flow_size=[3.462399, 4.521601, 8.363175, 4.387392, 5.72114, 0.761812, 7.658375,
                   5.612361, 3.632451, 7.990073, 3.380351],
        release=[0.695194, 3.740939, 4.660099, 3.67802, 5.503786])
    ra = verified(inst, wss(inst))
    rb = verified(inst, wss(inst, engine="python"))
    np.testing.assert_allclose(ra.flow_completion, rb.flow_completion, rtol=1e-9)


def test_heterogeneous_priority_uses_the_reference_engine():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 0, 1)])],
                                 ingress_capacity=[1.0, 2.0], egress_capacity=[2.0])
    s = priority(inst)
    assert s.meta["engine"] == "python"
    rep = verified(inst, s)
    # the 1-unit flow goes first and takes all of egress 0 (capacity 2): done at 0.5; then
    # the 2-unit flow runs at its ingress capacity 1
    assert rep.flow_completion.tolist() == [2.5, 0.5]
    with pytest.raises(NotSupportedError, match="equal port capacities"):
        priority(inst, engine="kernel")


def test_bad_parameters_are_named():
    inst = fig_5_1()
    for fn in (fair, wss, priority):
        with pytest.raises(InvalidParameterError, match="engine"):
            fn(inst, engine="gpu")
    with pytest.raises(InvalidParameterError, match=r"tie_order\[1\] repeats"):
        priority(inst, tie_order=[0, 0])
    # the parameter's own name (it said "order", which priority has none of: the parameter fuzz)
    with pytest.raises(InvalidParameterError, match="tie_order must be a 1-d array of coflow "
                                                    "indices, got 'abc'"):
        priority(inst, tie_order="abc")


def test_exact_fair_on_dyadic_instance():
    inst = fig_5_1()
    rep = verify_schedule(inst, fair(inst), mode="exact")
    assert rep.ok and rep.weighted_completion_time == Fraction(8)


# ------------------------------------------------------------------------------ windows
@given(random_instances(deadlines=True), st.sampled_from(["unit", "size"]),
       st.integers(1, 12))
def test_windowed_maxmin_is_the_held_schedule(case, weights, window):
    # the windows of maxmin_windows, checked by the windowed verifier, give the verdict and
    # the completion times of the held schedule; and their pieces, merged, are its pieces
    inst, _ = case
    fn = fair if weights == "unit" else wss
    held = fn(inst)
    want = verified(inst, held)
    v = WindowedVerifier(inst)
    parts = []

    def take(s, a, b):
        assert np.all(s.start >= a) and np.all(s.end <= b)
        parts.append(s)
        v.add(a, b, s)

    stats = maxmin_windows(inst, take, weights=weights, window=window)
    got = v.report()
    assert got.ok, got.summary()
    np.testing.assert_array_equal(got.flow_completion, want.flow_completion)
    np.testing.assert_array_equal(got.coflow_completion, want.coflow_completion)
    np.testing.assert_array_equal(stats["coflow_completion"], want.coflow_completion)
    assert stats["windows"] == len(parts) and got.num_pieces == stats["pieces"]
    from coflowopt.schedule import concatenate
    a, b = concatenate(parts).merged(), held.merged()
    for x, y in ((a.flow, b.flow), (a.start, b.start), (a.end, b.end), (a.rate, b.rate)):
        np.testing.assert_array_equal(x, y)


@given(random_instances(), st.integers(1, 6), st.sampled_from(
    ["none", "drop", "overload", "overlap", "early", "negative"]))
def test_verify_in_windows_agrees_with_verify_schedule(case, per_window, breakage):
    inst, order = case
    broken = broken_schedule(inst, order, breakage, overlap_rate=0.0)
    want = verify_schedule(inst, broken)
    got = verify_in_windows(inst, broken, pieces_per_window=per_window)
    assert got.ok == want.ok
    assert set(got.violation_counts) == set(want.violation_counts)
    if want.ok:
        np.testing.assert_allclose(got.coflow_completion, want.coflow_completion, rtol=0)
        assert got.weighted_completion_time == pytest.approx(want.weighted_completion_time,
                                                             rel=1e-12)


def test_windowed_verifier_rejects_pieces_outside_their_window_and_bad_windows():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0)])])
    v = WindowedVerifier(inst)
    v.add(0.0, 1.0, Schedule.from_pieces([0], [0.0], [2.0], [1.0]))   # ends after 1
    rep = v.report()
    assert not rep.ok and rep.violation_counts == {"malformed": 1, "undersent": 1}
    assert "outside its window" in rep.violations[0].message
    with pytest.raises(InvalidParameterError):
        v.add(0.5, 2.0, Schedule.empty())                               # goes back in time
    # sends and ends add up over the windows
    v = WindowedVerifier(inst)
    v.add(0.0, 1.0, Schedule.from_pieces([0], [0.0], [1.0], [1.0]))
    v.add(1.0, 3.0, Schedule.from_pieces([0], [2.0], [3.0], [1.0]))
    rep = v.report()
    assert rep.ok and rep.coflow_completion.tolist() == [3.0]


def test_maxmin_windows_parameters():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0)])])
    with pytest.raises(InvalidParameterError):
        maxmin_windows(inst, lambda s, a, b: None, weights="bad")
    with pytest.raises(InvalidParameterError):
        maxmin_windows(inst, lambda s, a, b: None, window=0)


@pytest.mark.slow
def test_fb_trace_fair_verifies_window_by_window(fb_trace_path):
    # the whole trace: ~1.9e8 pieces, never held (the FB figures are in bench_rates.json)
    from coflowopt.formats import read_instance
    inst = read_instance(fb_trace_path)
    v = WindowedVerifier(inst)
    maxmin_windows(inst, lambda s, a, b: v.add(a, b, s))
    rep = v.report()
    assert rep.ok, rep.summary()


@pytest.mark.slow
def test_fb_trace_priority_verifies(fb_trace_path):
    from coflowopt.formats import read_instance
    inst = read_instance(fb_trace_path)
    s = priority(inst)
    rep = verify_schedule(inst, s)
    assert rep.ok, rep.summary()


@pytest.mark.slow
def test_fb_trace_fair_on_the_first_hundred_coflows(fb_trace_path):
    # the whole trace's fair schedule has ~1.9e8 pieces, beyond what the verifier can hold on
    # a small machine; the first 100 coflows (by id) are verified instead
    from coflowopt.formats import read_instance
    inst = read_instance(fb_trace_path).select_coflows(np.arange(100))
    for fn in (fair, wss):
        rep = verify_schedule(inst, fn(inst))
        assert rep.ok, rep.summary()


@pytest.mark.parametrize("policy", ["fair", "wss"])
def test_streamed_run_gives_the_held_runs_verdict(policy):
    # run_schedule(keep_schedule=False) verifies the kernel's windows as they come and never
    # holds the schedule (the CLI does so without --out): the same verdict and numbers
    from coflowopt.api import run_schedule
    from coflowopt.testing import random_instance
    rng = np.random.default_rng(4)
    for _ in range(5):
        inst = random_instance(rng, max_ports=4, max_coflows=8, max_flows=4, releases=True,
                               weights=True, heterogeneous=True)
        held = run_schedule(inst, policy=policy)
        streamed = run_schedule(inst, policy=policy, keep_schedule=False)
        assert streamed.schedule is None and "streamed" in streamed.extra
        assert held.kind == streamed.kind == "feasible"
        assert streamed.value == pytest.approx(held.value, rel=1e-12)
        assert np.allclose(streamed.report.coflow_completion, held.report.coflow_completion,
                           rtol=1e-12)


def test_priority_kernel_frees_a_port_one_ulp_from_done_like_the_reference():
    """Found by the property above in CI: c0's first flow is one ulp longer than c2's flow;
    the reference engine completes it at c2's completion (within COMPLETION_RTOL), freeing
    egress 0 for c1, and the kernel must too (it used to keep it one ulp longer, so c0's
    second flow took ingress 0 first and the completions differed by 0.1)."""
    a, b, c = 0.1, float(np.nextafter(0.1, 0)), float(np.nextafter(0.1, 1))
    inst = Instance.from_coflows([Coflow("c0", [(1, 0, c), (0, 1, c)]),
                                  Coflow("c1", [(0, 0, a)]), Coflow("c2", [(0, 1, b)])])
    ra = verified(inst, priority(inst, engine="kernel"))
    rb = verified(inst, priority(inst, engine="python"))
    np.testing.assert_allclose(ra.flow_completion, rb.flow_completion, rtol=1e-9)
    assert rb.flow_completion[2] < rb.flow_completion[1]   # c1 before c0's second flow


@pytest.mark.parametrize("paths", [False, True])
def test_window_cut_refuses_write_buffers_too_small_for_it(paths):
    """A sink-mode cut closes one piece per open flow; buffers without that room used to spill
    the cut's pieces to chunk lists that sink mode never hands over (lost from the windows).
    Here the first completion fills the one-piece window and the cut must close two more."""
    from coflowopt.policies import _flow_kernel as fk
    from coflowopt.policies.flow_level import _maxmin_call
    from test_resources_madd_varys import as_paths
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1.0), (1, 1, 2.0), (2, 2, 3.0)])])
    if paths:
        inst = as_paths(inst)
    chunks = fk.PieceChunks(buffer=2)
    with pytest.raises(RuntimeError, match="too small for a window cut"):
        _maxmin_call(inst, np.ones(inst.num_flows), True, 1, chunks)
