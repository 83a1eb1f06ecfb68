"""Online Varys (T/delta starvation freedom) and Varys' deadline mode.

Every schedule goes through the verifier.  Hand-checked admission decisions are worked out in
the comments.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

from coflowopt import Coflow, Instance
from coflowopt.exceptions import InvalidParameterError
from coflowopt.generators import uniform_random, with_deadlines
from coflowopt.policies.online_varys import (DEFAULT_DELTA, DEFAULT_T, VarysDeadlinePolicy,
                                             max_service_gap, varys_deadline, varys_online)
from coflowopt.policies.varys import varys
from coflowopt.simulate import simulate
from coflowopt.testing import random_instance
from coflowopt.verify import verify_schedule


def verified(inst, sched):
    rep = verify_schedule(inst, sched)
    assert rep.ok, rep.summary()
    return rep


def same_pieces(a, b):
    a, b = a.sorted(), b.sorted()
    return (a.num_pieces == b.num_pieces and np.array_equal(a.flow, b.flow)
            and np.array_equal(a.start, b.start) and np.array_equal(a.end, b.end)
            and np.array_equal(a.rate, b.rate))


def stream(n_small: int, big: float = 20.0, ports: int = 1) -> Instance:
    """A big coflow released at 0 behind a stream of unit coflows, one per time unit, on the
    same ports: SEBF (remaining Gamma 1 < the big one's) serves the stream first, so plain
    Varys starves the big coflow until the stream ends."""
    big_c = Coflow("big", [(p, p, big) for p in range(ports)])
    small = [Coflow(f"s{i}", [(p, p, 1.0) for p in range(ports)], release=float(i))
             for i in range(n_small)]
    return Instance.from_coflows([big_c] + small, meta={"name": f"stream({n_small})"})


def service_times(inst, sched):
    """Per coflow, the sorted (start, end) pieces with a positive rate."""
    cf = inst.flow_coflow[sched.flow]
    out = []
    for k in range(inst.num_coflows):
        m = (cf == k) & (sched.rate > 0)
        o = np.argsort(sched.start[m], kind="stable")
        out.append((sched.start[m][o], sched.end[m][o]))
    return out


def first_service_delay(inst, sched, k):
    st_, _ = service_times(inst, sched)[k]
    return float(st_[0] - inst.release[k])


# ---------------------------------------------------------------------------------- varys-online
def test_defaults_are_varys_ec2_settings_in_fb_time_units():
    # 2 s and 200 ms in the FB trace's 7.8125 ms unit (1 MB at 1 Gbit/s)
    assert DEFAULT_T == 256.0 and DEFAULT_DELTA == 25.6


def test_plain_varys_starves_the_big_coflow_online_varys_does_not():
    inst = stream(40)
    T, delta = 5.0, 1.0
    off = varys(inst, engine="python")
    rep_off = verified(inst, off)
    # offline: the big coflow waits for the whole stream (40 units)
    assert first_service_delay(inst, off, 0) >= 39
    on = varys_online(inst, T=T, delta=delta)
    rep = verified(inst, on)
    assert on.meta["delta_intervals"], "the big coflow must be starved and served in delta"
    assert all(d[2][0] == 0 for d in on.meta["delta_intervals"])
    gaps = max_service_gap(inst, on, rep.coflow_completion)
    assert gaps.max() <= 2 * T + delta + 1e-9
    for k in range(inst.num_coflows):
        assert first_service_delay(inst, on, k) <= T + delta + 1e-9
    # by the end of the stream the big coflow has received service (offline: none); one port,
    # so it ends at 60 either way
    def sent_by(sched, t):
        m = sched.flow == 0
        return float(np.sum(sched.rate[m] * np.clip(np.minimum(sched.end[m], t)
                                                    - sched.start[m], 0, None)))
    assert sent_by(off, 40.0) == 0.0 and sent_by(on, 40.0) >= 5.0
    assert rep.coflow_completion[0] == rep_off.coflow_completion[0] == 60.0


def check_cycles(inst, sched, rep):
    """A coflow released by the start of a cycle and unfinished at its end is served in it."""
    starts = list(sched.meta["T_starts"])
    serv = service_times(inst, sched)
    cc = rep.coflow_completion
    for a, b in zip(starts, starts[1:]):
        for k in range(inst.num_coflows):
            if inst.release[k] <= a and cc[k] >= b:
                s, e = serv[k]
                assert np.any((s < b) & (e > a)), (k, a, b)


@pytest.mark.parametrize("ports", [1, 3])
def test_every_cycle_serves_every_coflow_active_throughout(ports):
    inst = stream(30, big=15.0, ports=ports)
    s = varys_online(inst, T=3.0, delta=0.5)
    rep = verified(inst, s)
    check_cycles(inst, s, rep)
    assert len(s.meta["T_starts"]) > 5


def test_an_arbitrary_window_of_length_T_plus_delta_is_not_guaranteed():
    """Why the guarantee is stated per cycle: served at the start of a T-interval only, a
    coflow can wait almost 2T + delta (module docstring)."""
    # two ports: the big coflow B also has a flow on port 1 that runs while port 0 is busy
    inst = stream(60, big=30.0)
    s = varys_online(inst, T=5.0, delta=1.0)
    rep = verified(inst, s)
    gap = max_service_gap(inst, s, rep.coflow_completion)
    assert gap.max() <= 2 * 5.0 + 1.0 + 1e-9
    check_cycles(inst, s, rep)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), T=st.sampled_from([0.5, 1.0, 3.0]),
       delta=st.sampled_from([0.1, 0.5, 2.0]))
def test_starvation_freedom_on_random_instances(seed, T, delta):
    inst = random_instance(np.random.default_rng(seed), max_ports=3, max_coflows=6,
                           releases=True, weights=True, heterogeneous=bool(seed % 2))
    s = varys_online(inst, T=T, delta=delta)
    rep = verified(inst, s)
    gaps = max_service_gap(inst, s, rep.coflow_completion)
    assert gaps.max() <= 2 * T + delta + 1e-9 * (1 + rep.makespan)
    for k in range(inst.num_coflows):
        assert first_service_delay(inst, s, k) <= T + delta + 1e-9 * (1 + rep.makespan)
    check_cycles(inst, s, rep)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1))
def test_delta_zero_is_offline_varys(seed):
    inst = random_instance(np.random.default_rng(seed), max_ports=3, max_coflows=6,
                           releases=True, weights=True, heterogeneous=bool(seed % 2))
    a = varys_online(inst, T=0.7, delta=0.0)
    b = varys(inst, engine="python")
    verified(inst, a)
    assert same_pieces(a, b)
    assert a.meta["delta_intervals"] == [] and a.meta["T_starts"] == []


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1))
def test_without_starvation_it_is_offline_varys(seed):
    """T longer than the whole schedule: no T-interval ends with a starved coflow, the timers
    fire without recomputation, and the pieces are offline Varys' exactly."""
    inst = random_instance(np.random.default_rng(seed), max_ports=3, max_coflows=6,
                           releases=True, weights=True)
    a = varys_online(inst, T=1e6, delta=1.0)
    verified(inst, a)
    assert same_pieces(a, varys(inst, engine="python"))


def test_small_delta_converges_to_offline_varys_when_starvation_is_short():
    """delta -> 0: the delta-intervals shrink; with one starved T-interval boundary the
    objective tends to that of Varys recomputed at that boundary, which here is Varys'."""
    inst = stream(8, big=4.0)
    off = verified(inst, varys(inst, engine="python")).weighted_completion_time
    vals = [verified(inst, varys_online(inst, T=3.0, delta=d)).weighted_completion_time
            for d in (1e-1, 1e-3, 1e-6)]
    assert abs(vals[-1] - off) <= abs(vals[0] - off) + 1e-12
    assert abs(vals[-1] - off) < 1e-4 * off


def test_delta_interval_serves_only_the_starved_union_with_madd():
    inst = stream(10, big=6.0)
    s = varys_online(inst, T=3.0, delta=1.0)
    verified(inst, s)
    a, b, starved = s.meta["delta_intervals"][0]
    assert (a, b) == (3.0, 4.0) and starved == [0]
    inside = (s.start < b) & (s.end > a) & (s.rate > 0)
    assert set(inst.flow_coflow[s.flow[inside]].tolist()) <= set(starved)


def test_online_varys_parameters_are_checked():
    inst = stream(2)
    for bad in ({"T": 0}, {"T": -1}, {"delta": -0.1}, {"T": math.inf}, {"delta": "x"}):
        with pytest.raises(InvalidParameterError):
            varys_online(inst, **bad)


# ---------------------------------------------------------------------------------- deadlines
def test_hand_checked_admission_one_port():
    """Port capacity 1.  t = 0: A (2 units, D = 4) alone: Gamma 2 <= 4, admitted, reserves 1/2.
    t = 1: A has 1 left (MADD 1/2 plus backfill 1/2 during [0, 1)), re-reserves 1/(4-1) = 1/3;
    residual 2/3; B (2 units, D = 3): Gamma = 2 / (2/3) = 3 > 3 - 1 = 2: rejected.
    t = 1: C (1 unit, D = 5): Gamma = 1 / (2/3) = 1.5 <= 4: admitted (examined after B)."""
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2)], deadline=4),
                                  Coflow("B", [(0, 0, 2)], release=1, deadline=3),
                                  Coflow("C", [(0, 0, 1)], release=1, deadline=5)])
    s = varys_deadline(inst)
    rep = verified(inst, s)
    assert s.meta["admitted_coflows"] == [0, 2] and s.meta["rejected_coflows"] == [1]
    assert s.meta["num_met_admitted"] == 2 and s.meta["num_met"] == 2
    assert s.meta["num_met"] == int(rep.deadline_met.sum())   # the verifier's count
    # from t = 1: A 1/3, C 1/4 (= 1/(5-1)); backfilling in admission order gives A the other
    # 5/12, so A ends at 1 + 1/(3/4) = 7/3; then C (2/3 left) alone ends at 3
    assert rep.coflow_completion[0] == pytest.approx(7 / 3)
    assert rep.coflow_completion[2] == pytest.approx(3.0)
    assert np.all(rep.deadline_met[[0, 2]])
    # "after": B runs only once A and C are done, so it ends last
    assert rep.coflow_completion[1] == pytest.approx(rep.coflow_completion.max())


def test_hand_checked_admission_two_ports():
    """2x2 switch, capacity 1.  A = {0->0: 4}, D = 8: admitted, reserves 1/2 on in0 and out0.
    B = {0->1: 2, 1->0: 2}, D = 3, at t = 0 (examined after A): residual 1/2 on in0 and out0,
    1 on in1 and out1; Gamma = max(2/(1/2), 2/(1/2)) = 4 > 3: rejected.
    C = {1->1: 3}, D = 3: residual 1 on in1/out1: Gamma 3 <= 3: admitted (exactly)."""
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 4)], deadline=8),
                                  Coflow("B", [(0, 1, 2), (1, 0, 2)], deadline=3),
                                  Coflow("C", [(1, 1, 3)], deadline=3)])
    s = varys_deadline(inst, serve_rejected="backfill")
    rep = verified(inst, s)
    assert s.meta["admitted_coflows"] == [0, 2] and s.meta["rejected_coflows"] == [1]
    assert rep.coflow_completion[2] == pytest.approx(3.0)          # MADD to its deadline
    assert rep.deadline_met[0] and rep.deadline_met[2]
    assert s.meta["weight_admitted"] == 2.0 and s.meta["weight_rejected"] == 1.0


def test_rejected_in_the_empty_network_when_gamma_exceeds_the_deadline():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 3)], release=1, deadline=3)])
    s = varys_deadline(inst)
    rep = verified(inst, s)
    assert s.meta["rejected_coflows"] == [0] and s.meta["num_met"] == 0
    assert rep.coflow_completion[0] == 4.0     # still sent (verifier completeness), then late


def test_without_deadlines_it_is_offline_varys():
    rng = np.random.default_rng(5)
    for _ in range(10):
        inst = random_instance(rng, max_ports=3, max_coflows=6, releases=True, weights=True,
                               heterogeneous=True)
        a = varys_deadline(inst)
        verified(inst, a)
        assert same_pieces(a, varys(inst, engine="python"))
        assert a.meta["num_best_effort"] == inst.num_coflows


def _run_both(inst):
    out = {}
    for mode in ("after", "backfill"):
        pol = VarysDeadlinePolicy(serve_rejected=mode)
        res = simulate(inst, pol)
        rep = verified(inst, res.schedule)
        out[mode] = (pol, res, rep)
    return out


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), x=st.sampled_from([0.1, 0.5, 1.0, 3.0]))
@example(seed=11700051, x=1.0)   # MADD aimed at D itself ended one ulp after it
def test_admitted_coflows_meet_their_deadlines_and_modes_agree(seed, x):
    base = uniform_random(3, 8, flows_per_coflow=(1, 4), size=(1, 10), releases=(0, 10),
                          seed=seed)
    inst = with_deadlines(base, x=x, seed=seed)
    both = _run_both(inst)
    pa, ra, repa = both["after"]
    pb, rb, repb = both["backfill"]
    # the same admission decisions, and the same schedule for the admitted coflows
    assert np.array_equal(pa.admitted, pb.admitted)
    assert np.array_equal(pa.rejected, pb.rejected)
    assert not np.any(pa.admitted & pa.rejected)
    assert np.all(pa.admitted | pa.rejected)          # every coflow has a deadline here
    for rep, pol in ((repa, pa), (repb, pb)):
        assert np.all(rep.deadline_met[pol.admitted])
    adm = np.flatnonzero(pa.admitted)
    np.testing.assert_allclose(repa.coflow_completion[adm], repb.coflow_completion[adm],
                               rtol=1e-12)
    # "after": no rejected flow is sent while an admitted coflow is unfinished
    s = ra.schedule
    rej_f = pa.rejected[inst.flow_coflow[s.flow]] & (s.rate > 0)
    if adm.size and rej_f.any():
        assert s.start[rej_f].min() >= repa.coflow_completion[adm].max() - 1e-9


def test_a_rejected_coflow_that_finishes_in_time_still_counts_as_rejected():
    """A (1 unit, D = 1.2) reserves 1/1.2 and backfills to rate 1.  B (1 unit) at t = 0.1 with
    D = 2.5: A re-reserves 0.9/1.1, residual 2/11, Gamma_B = 5.5 > 2.4: rejected.  A ends at 1,
    then B runs alone and ends at 2 <= 2.5: met, but not admitted."""
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)], deadline=1.2),
                                  Coflow("B", [(0, 0, 1)], release=0.1, deadline=2.5)])
    for mode in ("after", "backfill"):
        s = varys_deadline(inst, serve_rejected=mode)
        rep = verified(inst, s)
        assert s.meta["rejected_coflows"] == [1]
        assert rep.coflow_completion.tolist() == pytest.approx([1.0, 2.0])
        assert (s.meta["num_met"], s.meta["num_met_admitted"]) == (2, 1)


def test_fb_like_deadlines_generator_instances_verify():
    for seed in range(3):
        inst = with_deadlines(uniform_random(6, 20, flows_per_coflow=(1, 6), releases=(0, 30),
                                             seed=seed), x=1.0, seed=seed)
        s = varys_deadline(inst)
        rep = verified(inst, s)
        m = s.meta
        assert m["num_admitted"] + m["num_rejected"] == inst.num_coflows
        assert m["num_met_admitted"] == m["num_admitted"]
        assert m["num_met"] == int(rep.deadline_met.sum())


def test_deadline_parameters_are_checked():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)], deadline=2)])
    with pytest.raises(InvalidParameterError, match="serve_rejected"):
        varys_deadline(inst, serve_rejected="drop")
    with pytest.raises(InvalidParameterError, match="backfill"):
        varys_deadline(inst, backfill="sometimes")


# ---------------------------------------------------------------------------------- FB trace
@pytest.mark.slow
def test_fb_trace_runs(fb_trace_path):
    from coflowopt.formats.coflow_benchmark import read_coflow_benchmark
    inst = read_coflow_benchmark(fb_trace_path)
    s = varys_online(inst)
    verified(inst, s)
    d = with_deadlines(inst, x=1.0, seed=1)
    s = varys_deadline(d)
    rep = verified(d, s)
    assert s.meta["num_met_admitted"] == s.meta["num_admitted"]
    assert rep.ok


# ------------------------------------------------------------------- compiled loop = reference
def same_run(a, b):
    """Same pieces and the same clock: T starts, delta-intervals, events, policy calls."""
    return same_pieces(a, b) and all(a.meta[k] == b.meta[k] for k in (
        "T_starts", "delta_intervals", "events", "policy_calls"))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1),
       T_delta=st.sampled_from([(0.7, 0.3), (2.0, 0.5), (1.0, 1.0), (0.3, 0.05)]),
       backfill=st.sampled_from(["varys", None]))
@example(seed=3, T_delta=(0.3, 0.05), backfill="varys")
def test_compiled_online_varys_is_the_python_engine(seed, T_delta, backfill):
    """The compiled loop's T/delta clock (_madd_kernel, "online Varys' clock") against
    VarysOnlinePolicy in the generic simulator: the same pieces, starved sets, interval
    boundaries, events and calls, on instances with releases, weights and unequal
    capacities (most of them with delta-intervals)."""
    inst = random_instance(np.random.default_rng(seed), max_ports=4, max_coflows=12,
                           max_flows=4, releases=True, weights=True,
                           heterogeneous=bool(seed % 2))
    T, delta = T_delta
    a = varys_online(inst, T=T, delta=delta, backfill=backfill, engine="python")
    b = varys_online(inst, T=T, delta=delta, backfill=backfill, engine="kernel")
    verified(inst, b)
    assert same_run(a, b)


def test_compiled_online_varys_with_many_starved_coflows():
    """Every coflow released at 0 on a few ports: most are starved at each T boundary, the
    delta-intervals serve unions of tens of coflows with backfilling; a stream starves the
    big coflow in every cycle."""
    inst = uniform_random(6, 120, flows_per_coflow=(1, 5), size=(1, 10), seed=4)
    a = varys_online(inst, T=8.0, delta=2.0, engine="python")
    b = varys_online(inst, engine="kernel", T=8.0, delta=2.0)
    assert len(a.meta["delta_intervals"]) >= 5
    assert max(len(c) for _, _, c in a.meta["delta_intervals"]) >= 20
    assert same_run(a, b)
    inst = stream(12, big=6.0, ports=2)
    a = varys_online(inst, T=3.0, delta=1.0, engine="python")
    b = varys_online(inst, T=3.0, delta=1.0)
    assert a.meta["delta_intervals"] and same_run(a, b)


def test_online_varys_engines_where_the_kernel_does_not_apply():
    """coflowsim's backfilling and instances on resources run the Python engine (auto); delta
    = 0 runs offline Varys' compiled loop, on any instance."""
    from coflowopt.topology import fat_tree, on_topology
    inst = random_instance(np.random.default_rng(8), max_ports=3, max_coflows=8,
                           releases=True)
    a = varys_online(inst, T=0.5, delta=0.2, backfill="coflowsim")
    assert same_run(a, varys_online(inst, T=0.5, delta=0.2, backfill="coflowsim",
                                    engine="python"))
    net = on_topology(uniform_random(4, 10, releases=(0, 5), seed=2), fat_tree(4))
    assert same_run(varys_online(net, T=2.0, delta=0.5),
                    varys_online(net, T=2.0, delta=0.5, engine="python"))
    for x in (inst, net):
        assert same_pieces(varys_online(x, delta=0.0), varys(x, engine="python"))
    with pytest.raises(InvalidParameterError, match="engine"):
        varys_online(inst, engine="fast")


def test_attained_service_sums_as_numpy_reduceat():
    """The kernel's attained service (starved or not: a comparison of two sums) is summed in
    numpy's order, so that the starved sets are the Python engine's to the last bit; lengths
    around numpy's pairwise blocks (8, 128) included, where a plain running sum differs."""
    from coflowopt.rates._madd_kernel import _attained
    rng = np.random.default_rng(0)
    counts = np.array([1, 2, 3, 7, 8, 9, 15, 16, 17, 100, 128, 129, 130, 257, 1000, 5000] * 4)
    ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    size = rng.random(ptr[-1]) * 10.0 ** rng.uniform(-3, 6, ptr[-1])
    rem = size * rng.random(ptr[-1]) * (rng.random(ptr[-1]) < 0.7)
    ref = np.add.reduceat(size - rem, ptr[:-1])
    mine = np.array([_attained(k, ptr, size, rem) for k in range(counts.size)])
    assert np.array_equal(mine, ref)
    running = np.array([sum((size - rem)[ptr[k]:ptr[k + 1]].tolist())
                        for k in range(counts.size)])
    assert not np.array_equal(running, ref)   # the order matters on these sums


def test_deadline_engines_agree():
    """Without deadlines varys-deadline is offline Varys' compiled loop; with deadlines the
    Python engine (auto); engine="python" is the reference in both cases."""
    rng = np.random.default_rng(9)
    for _ in range(5):
        inst = random_instance(rng, max_ports=3, max_coflows=8, releases=True, weights=True,
                               heterogeneous=True)
        a, b = varys_deadline(inst), varys_deadline(inst, engine="python")
        assert same_pieces(a, b)
        # the same meta but for the engine that ran (and its event counts)
        assert (a.meta["engine"], b.meta["engine"]) == ("kernel", "python")
        own = ("events", "policy_calls", "engine")
        assert {k: v for k, v in a.meta.items() if k not in own} == \
            {k: v for k, v in b.meta.items() if k not in own}
        d = with_deadlines(inst, x=1.0, seed=1)
        assert same_pieces(varys_deadline(d), varys_deadline(d, engine="python"))


def test_meta_says_which_engine_ran():
    """``engine="kernel"`` / ``"auto"`` falls back to the Python engine where the compiled
    loop does not apply (documented): the schedule's meta says which engine produced it."""
    from coflowopt import Coflow, Instance
    from coflowopt.policies.online_varys import varys_deadline, varys_online
    flows = [(0, 0, 2.0), (1, 1, 1.0)]
    inst = Instance.from_coflows([Coflow("A", flows), Coflow("B", [(0, 1, 1.0)], release=0.5)])
    assert varys_online(inst, T=1.0, delta=0.1).meta["engine"] == "kernel"
    assert varys_online(inst, T=1.0, delta=0.1, engine="python").meta["engine"] == "python"
    assert varys_online(inst, T=1.0, delta=0.1, backfill="coflowsim").meta["engine"] == "python"
    assert varys_deadline(inst).meta["engine"] == "kernel"
    dl = Instance.from_coflows([Coflow("A", flows, deadline=5.0), Coflow("B", [(0, 1, 1.0)])])
    assert varys_deadline(dl).meta["engine"] == "python"
