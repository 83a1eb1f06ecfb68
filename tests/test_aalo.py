"""Aalo's D-CLAS and continuous CLAS: the dissertation's numbers, the queue mechanics and
non-clairvoyance.  Every schedule goes through the verifier."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import coflowopt.simulate as simulate_mod
from coflowopt import Coflow, Instance
from coflowopt.exceptions import InvalidParameterError
from coflowopt.generators import uniform_random
from coflowopt.library import load_instance, load_provenance
from coflowopt.policies.aalo import (AaloPolicy, ClasPolicy, aalo, clas, coflow_attained,
                                     queue_thresholds)
from coflowopt.simulate import SimState, simulate
from coflowopt.testing import check_work_conserving, random_instance
from coflowopt.verify import verify_schedule


def verified(inst, sched):
    rep = verify_schedule(inst, sched)
    assert rep.ok, rep.summary()
    return rep


def rates_at(inst, sched, t):
    """Rate of every flow at time t."""
    r = np.zeros(inst.num_flows)
    m = (sched.start <= t) & (sched.end > t)
    np.add.at(r, sched.flow[m], sched.rate[m])
    return r


# ---------------------------------------------------------------------------------- Fig. 6.1
def test_fig61_clas_average_cct_is_4():
    inst = load_instance("papers/dissertation-fig6.1")
    rep = verified(inst, clas(inst))
    assert rep.average_cct == pytest.approx(4.0, abs=1e-9)
    # the library's verified CLAS claim: C1 at 6, C2 at 3, C3 at 4
    claim = next(c for c in load_provenance("papers/dissertation-fig6.1")["claims"]
                 if c["id"] == "clas")
    np.testing.assert_allclose(rep.coflow_completion,
                               claim["verified"]["float"]["coflow_completion"], atol=1e-9)
    # [0, 1): C3 alone on P1, C1 on P2 (equal attained growth); [1, 3): C1 and C3 share P1
    s = clas(inst)
    r = rates_at(inst, s, 0.5)
    assert r.tolist() == pytest.approx([0.0, 1.0, 0.0, 1.0], abs=1e-9)
    r = rates_at(inst, s, 2.0)
    assert r.tolist() == pytest.approx([0.5, 0.0, 1.0, 0.5], abs=1e-9)


def test_fig61_dclas_is_fifo_when_every_coflow_stays_in_q1():
    inst = load_instance("papers/dissertation-fig6.1")
    for sharing in ("weighted", "strict"):
        s = aalo(inst, sharing=sharing, on_flow_completion="backfill")
        rep = verified(inst, s)
        # FIFO with C1 before C3 (equal releases, index order): average CCT 5 (printed)
        assert rep.average_cct == pytest.approx(5.0)
        assert s.meta["demotions"] == [] and s.meta["final_queue"] == [0, 0, 0]


# ---------------------------------------------------------------------------------- App. C.2
def identical(N: int, S: float) -> Instance:
    return Instance.from_coflows([Coflow(f"c{i}", [(0, 0, S)]) for i in range(N)])


@pytest.mark.parametrize("N,S", [(4, 50.0), (3, 20.0), (5, 75.0)])
def test_e10_continuous_vs_discretised(N, S):
    """App. C.2: N identical coflows of size S (here f(x) = x on one unit port), all in queue k
    with Q_k^lo <= S < Q_k^hi.  CLAS: byte-level round robin, sum of CCTs N^2 S.  D-CLAS with
    strict priority: everyone reaches Q_k^lo first, then FIFO:
    N^2 Q_k^lo + N (N + 1) / 2 (S - Q_k^lo)."""
    inst = identical(N, S)
    q_lo = 10.0                                  # S in [10, 100): queue 2
    t_disc = N * N * q_lo + N * (N + 1) / 2 * (S - q_lo)
    rep_d = verified(inst, aalo(inst, sharing="strict"))
    assert rep_d.total_completion_time == pytest.approx(t_disc, rel=1e-9)
    rep_c = verified(inst, clas(inst))
    assert rep_c.total_completion_time == pytest.approx(N * N * S, rel=1e-6)


def test_e10_ratio_tends_to_2n_over_n_plus_1():
    """[DERIV] T_cont / T_disc -> 2N/(N+1) as Q_k^lo / S -> 0 (f linear)."""
    N, S = 4, 50.0
    inst = identical(N, S)
    rep_d = verified(inst, aalo(inst, sharing="strict", first_threshold=0.01,
                                multiplier=1e4))   # queue 2 = [0.01, 100)
    ratio = N * N * S / rep_d.total_completion_time
    assert ratio == pytest.approx(2 * N / (N + 1), rel=1e-3)


# ---------------------------------------------------------------------------------- mechanics
def test_thresholds_and_demotion_time():
    assert queue_thresholds().tolist() == [10.0 * 10 ** i for i in range(9)]
    # one coflow, two flows on distinct ports: attained grows at 2, crosses 10 at t = 5
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 8), (1, 1, 8)])])
    s = aalo(inst)
    verified(inst, s)
    assert s.meta["demotions"] == [[5.0, 0, 1]]
    assert s.meta["final_queue"] == [1]


@pytest.mark.parametrize("kwargs, words", [
    ({"num_queues": 10**30}, "num_queues <= 10000 (MAX_QUEUES)"),
    ({"num_queues": 400}, "beyond float64"),
    ({"num_queues": 3, "first_threshold": 1e300, "multiplier": 1e10}, "beyond float64"),
    ({"first_threshold": 1e-320}, "first_threshold must be at least 1e-09 (SIZE_MIN"),
])
def test_thresholds_out_of_range_are_refused_by_name(kwargs, words):
    """Found by a fuzz of every registered parameter: num_queues = 10^30 was an internal error
    (numpy's "Maximum allowed size exceeded"), 400 queues of multiplier 10 printed numpy's
    overflow warnings and made infinite thresholds."""
    from coflowopt.exceptions import InvalidParameterError
    with pytest.raises(InvalidParameterError, match=re.escape(words)):
        queue_thresholds(**kwargs)
    assert queue_thresholds(300).size == 299 and np.isfinite(queue_thresholds(300)).all()
    with pytest.raises(InvalidParameterError, match=re.escape("max_rounds <= 2^31 - 1")):
        AaloPolicy(max_rounds=10**30)


def test_weighted_sharing_between_two_queues():
    """B (20 units, port 0) alone is demoted to Q2 at t = 10; A (5 units) arrives at 10 in Q1.
    Weights K - i + 1 with K = 2: Q1 2, Q2 1, so A gets 2/3 and ends at 10 + 5 / (2/3) = 17.5;
    B has 10 - 7.5/3 = 7.5 left and ends at 25.  Strict priority: A ends at 15."""
    inst = Instance.from_coflows([Coflow("B", [(0, 0, 20)]),
                                  Coflow("A", [(0, 0, 5)], release=10)])
    rep = verified(inst, aalo(inst, num_queues=2))
    assert rep.coflow_completion.tolist() == pytest.approx([25.0, 17.5])
    rep = verified(inst, aalo(inst, num_queues=2, sharing="strict"))
    assert rep.coflow_completion.tolist() == pytest.approx([25.0, 15.0])
    rep = verified(inst, aalo(inst, num_queues=2, weights=[1, 1]))
    assert rep.coflow_completion.tolist() == pytest.approx([25.0, 20.0])


def test_excess_of_a_queue_goes_to_the_other_queue():
    """Ingress 0 is shared by A (Q1, to egress 0 of capacity 0.2) and B (Q2, to egress 1).
    Shares 2/3 and 1/3; A can only use 0.2, so the excess 0.8 - 1/3 goes to B: B gets 0.8."""
    inst = Instance.from_coflows([Coflow("B", [(0, 1, 100)]),
                                  Coflow("A", [(0, 0, 5)], release=20)],
                                 egress_capacity=[0.2, 1.0])
    s = aalo(inst, num_queues=2)
    verified(inst, s)
    r = rates_at(inst, s, 21.0)
    assert r.tolist() == pytest.approx([0.8, 0.2])


def test_fifo_inside_a_queue_by_release_then_index():
    inst = Instance.from_coflows([Coflow("late", [(0, 0, 2)], release=1),
                                  Coflow("b", [(0, 0, 2)]), Coflow("a", [(0, 0, 2)])])
    rep = verified(inst, aalo(inst))
    # b (index 1) before a (index 2), both before "late" although it has index 0
    assert rep.coflow_completion.tolist() == pytest.approx([6.0, 2.0, 4.0])


def test_max_min_inside_a_coflow():
    inst = Instance.from_coflows([Coflow("X", [(0, 0, 4), (0, 1, 4), (1, 1, 4)])])
    s = aalo(inst)
    verified(inst, s)
    assert rates_at(inst, s, 0.1).tolist() == pytest.approx([0.5, 0.5, 0.5])


def test_flow_completion_modes_on_fig61():
    """D-CLAS is FIFO here (C1, C3, then C2).  C1's flow at P1 ends at 3: "backfill" and
    "reallocate" give P1 to C3 at once (C3 ends at 6, C2 at 6: average 5); "idle" leaves P1
    idle until C1 completes at 4 (C3 ends at 7: average (4 + 5 + 7) / 3)."""
    inst = load_instance("papers/dissertation-fig6.1")
    for mode, avg in (("backfill", 5.0), ("reallocate", 5.0), ("idle", 16 / 3)):
        pol = AaloPolicy(on_flow_completion=mode)
        rep = verified(inst, simulate(inst, pol).schedule)
        assert rep.average_cct == pytest.approx(avg), mode
        assert ("flow_completion" in pol.reschedule_on) == (mode != "idle")


@pytest.mark.parametrize("mode", ["backfill", "reallocate"])
def test_work_conserving_in_both_modes(mode):
    rng = np.random.default_rng(17)
    for _ in range(6):
        inst = random_instance(rng, max_ports=3, max_coflows=6, max_flows=4, releases=True,
                               heterogeneous=True)
        from coflowopt.testing import Scheduler
        from coflowopt.registry import get_algorithm
        sched = Scheduler("aalo", policy=get_algorithm("policy", "aalo"),
                          policy_params={"on_flow_completion": mode})
        check_work_conserving(sched, inst)


def test_backfill_keeps_the_other_rates_at_a_flow_completion():
    """A = {0->0: 1, 1->1: 4} first (FIFO), B = {0->2: 3} waits at ingress 0.  A's short flow
    ends at 1: "backfill" hands ingress 0 to B; A's long flow keeps its rate (one piece)."""
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1), (1, 1, 4)]),
                                  Coflow("B", [(0, 2, 3)])])
    s = aalo(inst, on_flow_completion="backfill")
    rep = verified(inst, s)
    assert np.sum(s.flow == 1) == 1
    assert rates_at(inst, s, 0.5).tolist() == pytest.approx([1.0, 1.0, 0.0])
    assert rates_at(inst, s, 1.5).tolist() == pytest.approx([0.0, 1.0, 1.0])
    assert rep.coflow_completion.tolist() == pytest.approx([4.0, 4.0])


def test_parameters_are_checked():
    inst = identical(2, 1.0)
    for bad in ({"num_queues": 0}, {"num_queues": 2.5}, {"first_threshold": 0},
                {"multiplier": 1.0}, {"weights": [1, 2]}, {"weights": [1] * 9 + [0]},
                {"sharing": "fair"}, {"max_rounds": -1}, {"on_flow_completion": "wait"}):
        with pytest.raises(InvalidParameterError):
            aalo(inst, **bad)


# ------------------------------------------------------------------------------- non-clairvoyance
class PoisonedState(SimState):
    """A SimState whose ``remaining`` cannot be read."""

    @property
    def remaining(self):
        raise AssertionError("a non-clairvoyant policy read SimState.remaining")

    @remaining.setter
    def remaining(self, value):
        self.__dict__["_remaining"] = value


def _blind(policy_cls):
    """The policy, reset with an instance whose sizes are garbage: it must not read them."""

    class Blind(policy_cls):
        def reset(self, instance):
            fake = instance.replace(flow_size=np.full(instance.num_flows, 1234.5))
            super().reset(fake)

    return Blind


@pytest.mark.parametrize("cls,kwargs", [(AaloPolicy, {}), (AaloPolicy, {"sharing": "strict"}),
                                        (AaloPolicy, {"first_threshold": 1.0,
                                                      "on_flow_completion": "backfill"}),
                                        (AaloPolicy, {"on_flow_completion": "reallocate"}),
                                        (ClasPolicy, {})])
def test_non_clairvoyant(monkeypatch, cls, kwargs):
    rng = np.random.default_rng(11)
    insts = [load_instance("papers/dissertation-fig6.1")]
    insts += [random_instance(rng, max_ports=3, max_coflows=5, releases=True, weights=True)
              for _ in range(3)]
    for inst in insts:
        ref = simulate(inst, cls(**kwargs)).schedule
        monkeypatch.setattr(simulate_mod, "SimState", PoisonedState)
        blind = simulate(inst, _blind(cls)(**kwargs)).schedule
        monkeypatch.setattr(simulate_mod, "SimState", SimState)
        verified(inst, blind)
        a, b = ref.sorted(), blind.sorted()
        assert np.array_equal(a.flow, b.flow) and np.array_equal(a.rate, b.rate)
        assert np.array_equal(a.start, b.start) and np.array_equal(a.end, b.end)


def test_the_poisoned_state_does_catch_a_clairvoyant_policy(monkeypatch):
    from coflowopt.policies.varys import VarysPolicy
    monkeypatch.setattr(simulate_mod, "SimState", PoisonedState)
    with pytest.raises(AssertionError, match="remaining"):
        simulate(identical(2, 1.0), VarysPolicy())


def test_coflow_attained_sums_all_flows():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1), (1, 1, 1)]), Coflow("B", [(0, 1, 1)])])
    assert coflow_attained(inst, np.array([0.25, 0.5, 1.0]), [1, 0]).tolist() == [1.0, 0.75]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), th=st.sampled_from([0.5, 2.0, 10.0]),
       sharing=st.sampled_from(["weighted", "strict"]))
def test_dclas_verifies_on_random_instances(seed, th, sharing):
    inst = random_instance(np.random.default_rng(seed), max_ports=3, max_coflows=6,
                           max_flows=4, releases=True, weights=True,
                           heterogeneous=bool(seed % 2))
    for mode in ("idle", "backfill"):
        s = aalo(inst, first_threshold=th, sharing=sharing, num_queues=4,
                 on_flow_completion=mode)
        verified(inst, s)
        # demotions are in time order, and a coflow's queue only grows
        dem = s.meta["demotions"]
        assert [d[0] for d in dem] == sorted(d[0] for d in dem)
        for k in range(inst.num_coflows):
            qs = [d[2] for d in dem if d[1] == k]
            assert qs == sorted(qs)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1))
def test_clas_verifies_and_is_work_conserving(seed):
    inst = random_instance(np.random.default_rng(seed), max_ports=3, max_coflows=4,
                           releases=True, heterogeneous=bool(seed % 2))
    check_work_conserving("clas", inst)


# ---------------------------------------------------------------------------------- FB trace
@pytest.mark.slow
def test_fb_trace_runs(fb_trace_path):
    from coflowopt.formats.coflow_benchmark import read_coflow_benchmark
    inst = read_coflow_benchmark(fb_trace_path)
    verified(inst, aalo(inst))


# ------------------------------------------------------- the compiled event loop (engine)
def _same_run(a, b):
    """The same pieces in the same order, bit for bit, and the same meta but the engine."""
    for x, y in ((a.flow, b.flow), (a.start, b.start), (a.end, b.end), (a.rate, b.rate)):
        assert x.shape == y.shape and np.array_equal(x, y)
    assert {k: v for k, v in a.meta.items() if k != "engine"} == \
        {k: v for k, v in b.meta.items() if k != "engine"}


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), th=st.sampled_from([0.5, 2.0, 10.0]),
       sharing=st.sampled_from(["weighted", "strict"]), nq=st.sampled_from([2, 4, 10]))
def test_compiled_loop_is_the_python_engine(seed, th, sharing, nq):
    """``engine="kernel"`` (``dclas_simulate``) gives the Python engine's pieces in its order,
    its demotions, queues, events and calls: releases, weights, unequal capacities, and
    coflows of up to 20 flows (attained service summed as numpy does past 8 terms)."""
    inst = random_instance(np.random.default_rng(seed), max_ports=5, max_coflows=10,
                           max_flows=20, releases=True, weights=True,
                           heterogeneous=bool(seed % 2))
    a = aalo(inst, first_threshold=th, sharing=sharing, num_queues=nq, engine="kernel")
    b = aalo(inst, first_threshold=th, sharing=sharing, num_queues=nq, engine="python")
    assert (a.meta["engine"], b.meta["engine"]) == ("kernel", "python")
    _same_run(a, b)
    assert verified(inst, a).weighted_completion_time == \
        verified(inst, b).weighted_completion_time


@pytest.mark.parametrize("capacities", [None, (0.5, 2.0)])
def test_compiled_loop_with_many_demotions_and_crossings(capacities):
    """A larger case that exercises what the small ones may miss: hundreds of coflows over
    three queues (demotions at calls and by timers), wide coflows, releases, weights."""
    inst = uniform_random(num_ports=6, num_coflows=300, flows_per_coflow=(1, 24),
                          size=(1.0, 9.0), integer_sizes=False, weights=(0.5, 3.0),
                          releases=(0.0, 200.0), capacities=capacities, seed=31)
    a = aalo(inst, first_threshold=20.0, multiplier=4.0, num_queues=3, engine="kernel")
    b = aalo(inst, first_threshold=20.0, multiplier=4.0, num_queues=3, engine="python")
    assert a.meta["engine"] == "kernel"
    queues = {d[2] for d in a.meta["demotions"]}
    assert queues == {1, 2} and len(a.meta["demotions"]) > 100
    _same_run(a, b)
    assert verified(inst, a).weighted_completion_time == \
        verified(inst, b).weighted_completion_time


def test_compiled_loop_with_port_masks_of_several_words():
    """The compiled loop's port masks (``cmask``: a coflow's ports as bits, tested before its
    groups in a round's walk) over more than 64 ingress and 64 egress ports, so that a port's
    bit lies in a later word on both sides: the Python engine's pieces, bit for bit."""
    inst = uniform_random(num_ports=130, num_coflows=400, flows_per_coflow=(1, 6),
                          size=(1.0, 9.0), integer_sizes=False,
                          releases=(0.0, 30.0), seed=5)
    a = aalo(inst, first_threshold=3.0, multiplier=3.0, num_queues=4, engine="kernel")
    b = aalo(inst, first_threshold=3.0, multiplier=3.0, num_queues=4, engine="python")
    assert a.meta["engine"] == "kernel" and len(a.meta["demotions"]) > 50
    _same_run(a, b)
    assert verified(inst, a).weighted_completion_time == \
        verified(inst, b).weighted_completion_time


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1))
def test_port_mask_test_never_rules_out_an_open_group(seed):
    """``_may_pair`` is only a necessary condition: a coflow with an unfinished group whose
    two ports are open passes it, and the bits ``_open_mask`` / ``_close_mask`` keep are the
    open ports (ports across word boundaries, groups finished, ports closed)."""
    from coflowopt.policies.aalo import _close_mask, _mask_set, _may_pair, _open_mask
    rng = np.random.default_rng(seed)
    m_in, m_eg = int(rng.integers(1, 140)), int(rng.integers(1, 140))
    P, wi = m_in + m_eg, (m_in + 63) >> 6
    W = wi + ((m_eg + 63) >> 6)
    K = 6
    ng = rng.integers(1, 5, K)
    grp_ptr = np.concatenate([[0], np.cumsum(ng)]).astype(np.int64)
    G = int(grp_ptr[-1])
    grp_src = rng.integers(0, m_in, G).astype(np.int64)
    grp_dst = (m_in + rng.integers(0, m_eg, G)).astype(np.int64)
    gcount = rng.integers(0, 2, G).astype(np.int64)
    opn = rng.random((1, P)) < rng.random()
    cmask = np.zeros((K, W), dtype=np.uint64)
    om = np.zeros((1, W), dtype=np.uint64)
    _open_mask(om, 0, opn, 0, m_in, wi)
    for _ in range(3):
        for k in range(K):
            _mask_set(cmask, k, grp_ptr, grp_src, grp_dst, gcount, m_in, wi)
            g = range(grp_ptr[k], grp_ptr[k + 1])
            open_group = any(gcount[x] > 0 and opn[0, grp_src[x]] and opn[0, grp_dst[x]]
                             for x in g)
            if open_group:
                assert _may_pair(cmask, k, om, 0, wi)
            ports = {int(grp_src[x]) for x in g if gcount[x] > 0} | \
                {int(grp_dst[x]) for x in g if gcount[x] > 0}
            if not any(opn[0, p] for p in ports if p < m_in) or \
                    not any(opn[0, p] for p in ports if p >= m_in):
                assert not _may_pair(cmask, k, om, 0, wi)
        # close some ports of one coflow's groups, finish some groups, and check the bits
        k = int(rng.integers(0, K))
        for x in range(grp_ptr[k], grp_ptr[k + 1]):
            if rng.random() < 0.5:
                opn[0, grp_src[x]] = False
            if rng.random() < 0.5:
                opn[0, grp_dst[x]] = False
        _close_mask(om, 0, opn, 0, k, grp_ptr, grp_src, grp_dst, m_in, wi)
        fresh = np.zeros((1, W), dtype=np.uint64)
        _open_mask(fresh, 0, opn, 0, m_in, wi)
        assert np.array_equal(om, fresh)
        gcount[rng.random(G) < 0.3] = 0


def test_engine_where_the_compiled_loop_does_not_apply():
    """Flow-completion modes other than ``idle`` and instances over resources run the Python
    engine (also with ``engine="kernel"``); ``auto`` is the kernel; a bad name is refused."""
    from coflowopt.testing import big_switch_as_paths
    inst = uniform_random(num_ports=4, num_coflows=30, releases=(0, 10), seed=2)
    assert aalo(inst).meta["engine"] == "kernel"
    for mode in ("backfill", "reallocate"):
        assert aalo(inst, on_flow_completion=mode, engine="kernel").meta["engine"] == "python"
    paths = big_switch_as_paths(inst)
    s = aalo(paths, engine="kernel")
    assert s.meta["engine"] == "python"
    _same_run(s, aalo(inst))
    with pytest.raises(InvalidParameterError, match="engine"):
        aalo(inst, engine="fast")
