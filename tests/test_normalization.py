"""Rate normalisation (seed 002, ASY), the slot-efficiency model (SYN) and the shared slowdown.

* Digest T-A1 (``../shared/reference/seeds-000-002.md`` Sec. 3.3), exactly: ``R = [[1, 1],
  [1, 0]]`` with unit capacities: cap-only Sinkhorn ``[[1/3, 1/2], [2/3, 0]]``, throughput 3/2,
  Jain 27/29; max-min 1/2 everywhere, 3/2, Jain 1; max-throughput LP 2; Sinkhorn-Knopp
  ``w_11 = 1/(2k+1)`` after ``k`` sweeps (the returned, repaired matrix has ``1/(2k+2)``).
* T-A2: slot efficiencies 916/1500 (bimodal) and 1540/3000 (MSS + ACK).
* Properties on random matrices and on topology instances: every method's rates admissible
  (line / resource sums <= capacity, ``0 <= w <= r``); the LP's throughput >= every method's;
  max-min has the bottleneck property; Sinkhorn-Knopp converges on positive square matrices;
  a big switch written as paths gives the big switch's values.
* The demand-matrix reader (malformed files, each naming file, row/column and rule) and the
  ``coflowopt normalize`` command as a process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from coflowopt import Coflow, Instance
from coflowopt.exceptions import InputError, InvalidParameterError, NotSupportedError
from coflowopt.normalization import (EXACT_METHODS, METHODS, jain_index, normalize,
                                     normalize_all, normalize_flows, read_demand_matrix)
from coflowopt.packetization import PACKET_MIXES, mean_packet_length, slot_efficiency
from coflowopt.slowdown import coflow_slowdown, normalized_fct, slowdown
from coflowopt.topology import fat_tree, leaf_spine, on_topology
from coflowopt.verify import verify_schedule

T_A1 = [[1, 1], [1, 0]]
RTOL = 1e-9


def frac_matrix(a):
    return [[F(x) for x in row] for row in a.tolist()]


# ------------------------------------------------------------------------------ T-A1
def test_t_a1_cap_only_sinkhorn_exact():
    r = normalize(T_A1, "sinkhorn-cap", exact=True)
    assert frac_matrix(r.rates) == [[F(1, 3), F(1, 2)], [F(2, 3), 0]]
    assert r.throughput == F(3, 2)
    assert r.jain == F(27, 29)            # digest: "Jain over the 3 active entries = 0.931"
    assert round(float(r.jain), 3) == 0.931
    assert r.info["passes"] == 1 and r.violations() == []
    f = normalize(T_A1, "sinkhorn-cap")   # the float run: the same numbers, rounded once
    assert np.allclose(f.rates, [[1 / 3, 1 / 2], [2 / 3, 0]], rtol=0, atol=1e-15)


def test_t_a1_max_min():
    r = normalize(T_A1, "max-min")
    assert r.rates.tolist() == [[0.5, 0.5], [0.5, 0.0]]
    assert r.throughput == 1.5 and r.jain == 1.0


def test_t_a1_max_throughput_lp():
    r = normalize(T_A1, "max-throughput")
    assert r.throughput == 2.0 and r.info["lp_objective"] == 2.0
    assert r.rates.tolist() == [[0.0, 1.0], [1.0, 0.0]]   # the unique optimum
    assert r.info["status"] == "optimal"


def test_t_a1_hug_and_madd():
    h = normalize(T_A1, "hug", exact=True)
    assert h.info["pstar"] == F(1, 2)     # 1 / max_port sum of demands, each pair one entity
    assert frac_matrix(h.rates) == [[F(1, 2), F(1, 2)], [F(1, 2), 0]]
    # the capped (non-cooperative) Stage 2 gives nothing more here either
    assert frac_matrix(normalize(T_A1, "hug", exact=True, stage2="capped").rates) == \
        frac_matrix(h.rates)
    m = normalize(T_A1, "madd", exact=True)
    assert m.info["gamma"] == 2 and m.throughput == F(3, 2)


@pytest.mark.parametrize("k", [1, 2, 3, 10])
def test_t_a1_sinkhorn_knopp_after_k_sweeps(k):
    """After ``k`` sweeps the iterate is ``[[1/(2k+1), 1], [2k/(2k+1), 0]]`` (digest: ``w_11
    = 1/(2k+1)``, only in the limit 0); row 0 is then ``1 + 1/(2k+1)``, and the final cap-only
    pass scales it down: ``[[1/(2k+2), (2k+1)/(2k+2)], [2k/(2k+1), 0]]`` (derived by hand)."""
    for cap in (True, False):   # demands 1 never bind here: capped = classic
        r = normalize(T_A1, "sinkhorn-knopp", exact=True, max_iter=k, tol=0, cap_at_demand=cap)
        assert frac_matrix(r.rates) == [[F(1, 2 * k + 2), F(2 * k + 1, 2 * k + 2)],
                                        [F(2 * k, 2 * k + 1), 0]]
        assert r.info["iterations"] == k and not r.info["converged"]
        assert r.violations() == []
    # the throughput tends to 2 (the LP's) only in the limit: 1 + 2k/(2k+1)
    assert r.throughput == 1 + F(2 * k, 2 * k + 1)


def test_t_a1_every_method_at_most_the_lp():
    res = normalize_all(T_A1)
    assert res["max-throughput"].throughput == 2.0
    for name in ("sinkhorn-cap", "max-min", "hug", "madd"):
        # "normalization maximizes throughput" fails: 3/4 of the optimum (digest T-A1)
        assert res[name].throughput == pytest.approx(1.5, rel=1e-15)


# ------------------------------------------------------------------------------ T-A2
def test_slot_efficiency_seed_mixes():
    assert slot_efficiency("bimodal") == F(916, 1500)
    assert slot_efficiency("mss-ack") == F(1540, 3000)
    assert slot_efficiency("fixed-1500") == 1
    assert mean_packet_length("bimodal") == 916
    assert round(float(slot_efficiency("bimodal")), 4) == 0.6107
    assert round(float(slot_efficiency("mss-ack")), 3) == 0.513
    assert set(PACKET_MIXES) == {"fixed-1500", "bimodal", "mss-ack"}


def test_slot_efficiency_fragmentation_and_errors():
    # a 3000 B packet fills two 1500 B slots exactly; 1501 B leaves 1499 B of the second idle
    assert slot_efficiency({3000: 1}) == 1
    assert slot_efficiency({1501: 1}) == F(1501, 3000)
    # 40 B slots: an ACK takes 1 slot, an MSS ceil(1500 / 40) = 38: 770 / (40 x 39/2)
    assert slot_efficiency({40: F(1, 2), 1500: F(1, 2)}, slot=40) == F(770, 780)
    for bad in ({40: F(1, 2)}, {0: 1}, {-1: 1}, {40: "x"}, {}, "fbw", {40: -1, 1500: 2}):
        with pytest.raises(InvalidParameterError):
            slot_efficiency(bad)
    with pytest.raises(InvalidParameterError):
        slot_efficiency("bimodal", slot=0)


# ------------------------------------------------------------------------------ slowdown
def test_slowdown_is_sincronia_cct_over_oct_and_seed_002_normalised_fct():
    from coflowopt.fairness import simulate_fairness
    inst = Instance.from_coflows([
        Coflow("A", [(0, 0, 2.0), (1, 1, 1.0)]),
        Coflow("B", [(0, 1, 1.0)], release=0.5),
        Coflow("C", [(1, 0, 3.0), (0, 0, 1.0)], release=1.0)])
    run = simulate_fairness(inst, "hug")
    assert run.report.ok
    # the same bits as the formula the fairness simulation used before sharing the function
    assert np.array_equal(run.slowdown, run.cct / inst.rho)
    assert np.array_equal(coflow_slowdown(inst, run.completion), run.slowdown)
    nf = normalized_fct(inst, run.report.flow_completion)
    assert nf.shape == (inst.num_flows,) and np.all(nf >= 1 - 1e-12)
    assert slowdown([F(3)], [F(1)], [F(4)]).tolist() == [F(1, 2)]


@pytest.mark.parametrize("topo", ["fat_tree4", "leaf_spine"])
def test_normalised_fct_on_a_topology(topo):
    from coflowopt.registry import get_algorithm
    bs = Instance.from_coflows([Coflow("A", [(0, 2, 2.0), (1, 3, 1.0)]),
                                Coflow("B", [(0, 3, 1.0), (2, 0, 3.0)], release=0.5),
                                Coflow("C", [(1, 2, 4.0)])], num_ingress=4, num_egress=4)
    t = fat_tree(4) if topo == "fat_tree4" else leaf_spine(2, 2, 2, oversubscription=2)
    inst = on_topology(bs, t, seed=1)
    sched = get_algorithm("policy", "varys")(inst)
    rep = verify_schedule(inst, sched)
    assert rep.ok
    nf = normalized_fct(inst, rep.flow_completion)
    sd = coflow_slowdown(inst, rep.coflow_completion)
    assert np.all(nf >= 1 - 1e-9) and np.all(sd >= 1 - 1e-9)
    # a flow alone in an empty network: FCT = size / bottleneck, normalised FCT 1
    alone = Instance.from_paths(resource_capacity=[1.0, 2.0], coflow_ids=["A"],
                                flow_coflow=[0], flow_src=[0], flow_dst=[1], flow_size=[3.0],
                                path_ptr=[0, 2], path_resource=[0, 1], host_ids=["a", "b"],
                                release=[1.0])
    s1 = get_algorithm("policy", "varys")(alone)
    r1 = verify_schedule(alone, s1)
    assert r1.ok and normalized_fct(alone, r1.flow_completion).tolist() == [1.0]
    assert coflow_slowdown(alone, r1.coflow_completion).tolist() == [1.0]


# ------------------------------------------------------------------------------ properties
def max_min_reference(paths, capacity, demand):
    """Plain-Python progressive filling with demand caps (each entry rises until a resource
    of its path is full or it reaches its demand)."""
    n = len(paths)
    rate = [0.0] * n
    frozen = [False] * n
    res = list(map(float, capacity))
    while not all(frozen):
        live = [e for e in range(n) if not frozen[e]]
        cnt = {}
        for e in live:
            for p in paths[e]:
                cnt[p] = cnt.get(p, 0) + 1
        step = min([res[p] / c for p, c in cnt.items()] + [demand[e] - rate[e] for e in live])
        for e in live:
            rate[e] += step
        for p, c in cnt.items():
            res[p] -= step * c
        for e in live:
            if rate[e] >= demand[e] * (1 - 1e-12) or \
                    any(res[p] <= 1e-12 * capacity[p] for p in paths[e]):
                frozen[e] = True
    return rate


def check_admissible(r, *, capped=True):
    assert not r.violations(rtol=RTOL) or not capped, r.violations(rtol=RTOL)
    load_ok = np.asarray(r.load, dtype=float) <= np.asarray(r.capacity, dtype=float) * (1 + RTOL)
    assert load_ok.all()
    w = np.asarray(r.entry_rates, dtype=float)
    assert (w >= 0).all()
    if capped:
        assert (w <= np.asarray(r.entry_demand, dtype=float) * (1 + RTOL)).all()


def check_bottleneck(paths, capacity, demand, rate):
    """Max-min fairness with demands: every entry is at its demand or crosses a full resource
    on which no entry has a larger rate (Bertsekas & Gallager, Sec. 6.5.2)."""
    load = {}
    for e, ps in enumerate(paths):
        for p in ps:
            load[p] = load.get(p, 0.0) + rate[e]
    for e, ps in enumerate(paths):
        if rate[e] >= demand[e] * (1 - 1e-9):
            continue
        ok = False
        for p in ps:
            if load[p] >= capacity[p] * (1 - 1e-9):
                top = max(rate[f] for f, qs in enumerate(paths) if p in qs)
                ok |= rate[e] >= top * (1 - 1e-9)
        assert ok, (e, rate[e], ps)


@st.composite
def matrices(draw, max_side=6, quarters=False):
    m_in = draw(st.integers(1, max_side))
    m_out = draw(st.integers(1, max_side))
    density = draw(st.sampled_from([0.2, 0.5, 1.0]))
    vals = st.integers(1, 4).map(lambda v: v / 4)
    if not quarters:
        vals = st.one_of(vals, st.floats(0.01, 1.0, allow_nan=False))
    D = np.array([[draw(vals) if draw(st.floats(0, 1)) < density else 0.0
                   for _ in range(m_out)] for _ in range(m_in)])
    het = draw(st.booleans())
    caps = st.sampled_from([0.5, 1.0, 2.0])
    cin = [draw(caps) if het else 1.0 for _ in range(m_in)]
    cout = [draw(caps) if het else 1.0 for _ in range(m_out)]
    return D, cin, cout


def matrix_paths(D):
    m_in, m_out = D.shape
    idx = np.flatnonzero(D.reshape(-1) > 0)
    return [[int(k // m_out), m_in + int(k % m_out)] for k in idx], D.reshape(-1)[idx]


@given(matrices())
@settings(max_examples=40)
def test_every_method_is_admissible_and_the_lp_is_best(case):
    D, cin, cout = case
    res = normalize_all(D, ingress_capacity=cin, egress_capacity=cout)
    best = res["max-throughput"].throughput
    for name, r in res.items():
        check_admissible(r)
        assert r.rates.shape == D.shape and np.all(r.rates[D == 0] == 0)
        assert r.throughput <= best * (1 + 1e-9) + 1e-12, (name, r.throughput, best)
        if r.entry_rates.size:
            j = r.jain
            assert j is None or 1 / r.entry_rates.size - 1e-12 <= j <= 1 + 1e-12
    paths, dem = matrix_paths(D)
    cap = list(cin) + list(cout)
    mm = res["max-min"].entry_rates
    check_bottleneck(paths, cap, dem, mm)
    assert np.allclose(mm, max_min_reference(paths, cap, dem), rtol=1e-9, atol=1e-12)
    # the uncapped classic Sinkhorn-Knopp: admissible lines, rates may exceed the demand
    sk = normalize(D, "sinkhorn-knopp", ingress_capacity=cin, egress_capacity=cout,
                   cap_at_demand=False, max_iter=50)
    check_admissible(sk, capped=False)


@given(matrices(max_side=4, quarters=True))
@settings(max_examples=25)
def test_exact_methods_agree_with_float(case):
    """Quarters and capacities 1/2, 1, 2: exact numbers stay short (exact Sinkhorn-Knopp's
    digits grow about geometrically with the sweeps: two sweeps here)."""
    D, cin, cout = case
    for m in EXACT_METHODS:
        params = {"max_iter": 2} if m == "sinkhorn-knopp" else {}
        ex = normalize(D, m, ingress_capacity=cin, egress_capacity=cout, exact=True, **params)
        fl = normalize(D, m, ingress_capacity=cin, egress_capacity=cout, **params)
        assert ex.violations() == []                      # exactly admissible
        assert np.allclose(np.asarray(ex.rates, dtype=float), fl.rates, rtol=1e-9,
                           atol=1e-12), m


@pytest.mark.parametrize("n", [2, 3, 5, 8])
@pytest.mark.parametrize("seed", range(4))
def test_sinkhorn_knopp_converges_on_positive_square_matrices(n, seed):
    """Sinkhorn (1964): a positive square matrix scales to a doubly stochastic one."""
    D = np.random.default_rng(seed).uniform(0.05, 1.0, (n, n))
    r = normalize(D, "sinkhorn-knopp", cap_at_demand=False, max_iter=10_000, tol=1e-13)
    assert r.info["converged"], r.info
    assert np.allclose(r.rates.sum(axis=0), 1, atol=1e-9)
    assert np.allclose(r.rates.sum(axis=1), 1, atol=1e-9)
    # doubly stochastic = D1 R D2: the cross ratios of R are kept
    W = r.rates
    assert np.allclose(W[0, 0] * W[1, 1] / (W[0, 1] * W[1, 0]),
                       D[0, 0] * D[1, 1] / (D[0, 1] * D[1, 0]), rtol=1e-8)
    # capped at the demand it still stops (a fixed point), admissible
    c = normalize(D, "sinkhorn-knopp", max_iter=10_000, tol=1e-13)
    assert c.info["converged"], c.info
    check_admissible(c)
    assert c.throughput <= normalize(D, "max-throughput").throughput * (1 + 1e-9)


def test_sinkhorn_cap_one_pass_is_a_fixed_point():
    rng = np.random.default_rng(3)
    for _ in range(20):
        D = rng.uniform(0, 1, (5, 7)) * (rng.uniform(0, 1, (5, 7)) < 0.6)
        r = normalize(D, "sinkhorn-cap")
        again = normalize(r.rates, "sinkhorn-cap") if r.rates.any() else r
        assert np.allclose(again.rates, r.rates, rtol=1e-12)


def test_methods_table_and_command_names_in_step():
    from coflowopt.commands.normalize import METHOD_NAMES
    assert tuple(METHODS) == METHOD_NAMES
    assert set(EXACT_METHODS) <= set(METHODS)


def test_errors():
    with pytest.raises(InvalidParameterError, match="method"):
        normalize(T_A1, "bogus")
    for m in ("max-min", "max-throughput"):
        with pytest.raises(NotSupportedError):
            normalize(T_A1, m, exact=True)
    with pytest.raises(InvalidParameterError, match=r"demand\[0, 1\]"):
        normalize([[1, -1]], "madd")
    with pytest.raises(InvalidParameterError, match=r"ingress_capacity"):
        normalize(T_A1, "madd", ingress_capacity=[1, 2, 3])
    with pytest.raises(InvalidParameterError, match=r"egress_capacity\[1\]"):
        normalize(T_A1, "madd", egress_capacity=[1, 0])
    with pytest.raises(InvalidParameterError, match="max_iter"):
        normalize(T_A1, "sinkhorn-knopp", max_iter=0)
    with pytest.raises(InvalidParameterError, match="stage2"):
        normalize(T_A1, "hug", stage2="x")
    with pytest.raises(InvalidParameterError, match="two-dimensional"):
        normalize([1, 2], "madd")
    # a zero matrix: nothing active, throughput 0, Jain undefined
    for m in METHODS:
        z = normalize([[0, 0]], m)
        assert z.throughput == 0 and z.jain is None and z.rates.tolist() == [[0.0, 0.0]]
    assert jain_index([]) is None and jain_index([0.0, 0.0]) is None
    # exact Sinkhorn-Knopp refuses numbers past MAX_NUMBER_DIGITS; normalize_all falls back
    D = np.random.default_rng(0).uniform(0.1, 1, (6, 6))
    with pytest.raises(NotSupportedError, match="MAX_NUMBER_DIGITS"):
        normalize(D, "sinkhorn-knopp", exact=True)
    sk = normalize_all(D, methods=["sinkhorn-knopp"], exact=True)["sinkhorn-knopp"]
    assert not sk.exact and "MAX_NUMBER_DIGITS" in sk.info["exact_refused"]


def test_hug_capped_stage2_on_heterogeneous_capacities():
    """With a fast egress the entities' vectors are not flat; the cooperative Stage 2 can only
    add, never exceed a line (both admissible, cooperative >= capped in throughput)."""
    D = [[1, 1, 0], [0, 1, 1]]
    coop = normalize(D, "hug", egress_capacity=[1, 2, 1], exact=True)
    capd = normalize(D, "hug", egress_capacity=[1, 2, 1], exact=True, stage2="capped")
    assert coop.violations() == [] and capd.violations() == []
    assert coop.throughput >= capd.throughput


# ------------------------------------------------------------------------------ resources
def as_paths(inst: Instance) -> Instance:
    m_in, F_ = inst.num_ingress, inst.num_flows
    return Instance.from_paths(
        resource_capacity=inst.capacity, coflow_ids=inst.coflow_ids,
        flow_coflow=inst.flow_coflow, flow_src=inst.flow_src, flow_dst=m_in + inst.flow_dst,
        flow_size=inst.flow_size, path_ptr=np.arange(0, 2 * F_ + 1, 2),
        path_resource=np.stack([inst.flow_src, m_in + inst.flow_dst], axis=1).ravel(),
        host_ids=inst.resource_names, resource_ids=inst.resource_names)


def big_switch_case():
    return Instance.from_coflows([
        Coflow("A", [(0, 2, 2.0), (1, 3, 1.0), (0, 0, 1.0)]),
        Coflow("B", [(0, 3, 1.0), (2, 0, 3.0), (3, 3, 1.0)]),
        Coflow("C", [(1, 2, 4.0), (3, 1, 2.0)])], num_ingress=4, num_egress=4,
        ingress_capacity=[1.0, 2.0, 1.0, 0.5], egress_capacity=[1.0, 1.0, 2.0, 1.0])


@pytest.mark.parametrize("method", list(METHODS))
def test_big_switch_written_as_paths_same_values(method):
    bs = big_switch_case()
    demand = np.linspace(0.2, 1.4, bs.num_flows)
    a = normalize_flows(bs, method, demand=demand)
    b = normalize_flows(as_paths(bs), method, demand=demand)
    assert np.array_equal(a.rates, b.rates) and a.throughput == b.throughput
    # and the matrix form of the same entries (one flow per (i, j) pair here) agrees
    D = np.zeros((4, 4))
    D[bs.flow_src, bs.flow_dst] = demand
    m = normalize(D, method, ingress_capacity=bs.ingress_capacity,
                  egress_capacity=bs.egress_capacity)
    if method == "max-throughput":   # the LP has several optima: the same value
        assert m.throughput == pytest.approx(a.throughput, rel=1e-12)
    else:
        assert np.allclose(m.rates[bs.flow_src, bs.flow_dst], a.rates, rtol=1e-12,
                           atol=1e-15)
    check_admissible(a)


@pytest.mark.parametrize("topo", ["fat_tree4", "leaf_spine"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_resources_admissible_lp_best_max_min_fair(topo, seed):
    rng = np.random.default_rng(seed)
    hosts = 16 if topo == "fat_tree4" else 4
    flows = [(int(rng.integers(hosts)), int(rng.integers(hosts)), 1.0) for _ in range(24)]
    bs = Instance.from_coflows([Coflow("A", flows)], num_ingress=hosts, num_egress=hosts)
    t = fat_tree(4) if topo == "fat_tree4" else leaf_spine(2, 2, 2, oversubscription=2)
    inst = on_topology(bs, t, seed=seed)
    demand = rng.uniform(0.1, 1.0, inst.num_flows)
    res = {m: normalize_flows(inst, m, demand=demand) for m in METHODS}
    best = res["max-throughput"].throughput
    for m, r in res.items():
        check_admissible(r)
        assert r.throughput <= best * (1 + 1e-9), m
    ptr, fr = inst.flow_resource_ptr, inst.flow_resource
    paths = [fr[ptr[f]:ptr[f + 1]].tolist() for f in range(inst.num_flows)]
    check_bottleneck(paths, inst.capacity.tolist(), demand, res["max-min"].rates)
    assert np.allclose(res["max-min"].rates,
                       max_min_reference(paths, inst.capacity.tolist(), demand), rtol=1e-9)
    # default demand: every flow backlogged at its path's bottleneck
    d = normalize_flows(inst, "sinkhorn-cap")
    assert np.array_equal(d.entry_demand, inst.flow_bottleneck_capacity)
    check_admissible(d)


def test_flows_selection_and_errors():
    bs = big_switch_case()
    # flows 0 (0 -> 2) and 3 (0 -> 3) share ingress 0 of capacity 1
    r = normalize_flows(bs, "max-min", flows=[0, 3], demand=[1.0, 1.0])
    assert r.rates.tolist() == [0.5, 0.5] and r.info["flows"] == 2
    # flows 0 (0 -> 2) and 1 (1 -> 3) share nothing: each gets its demand
    assert normalize_flows(bs, "max-min", flows=[0, 1], demand=[1.0, 1.0]).rates.tolist() \
        == [1.0, 1.0]
    with pytest.raises(InvalidParameterError, match="flows"):
        normalize_flows(bs, "madd", flows=[0, 0])
    with pytest.raises(InvalidParameterError, match="demand"):
        normalize_flows(bs, "madd", demand=[1.0])


# ------------------------------------------------------------------------------ the reader
#: (file text, words the error must contain besides the file name)
MALFORMED = [
    ('{"rows": [[1]]}', ["(top level)", "JSON array", "an object"]),
    ("1", ["text file", "JSON array"]),
    ('"x"', ["text file", "JSON array"]),
    ("\ufeff[[1]]", ["BOM"]),
    ("[]", ["(top level)", "no rows"]),
    ("[[]]", ["row 0", "empty"]),
    ("[[], []]", ["row 0", "empty"]),
    ("[1, 2]", ["row 0", "array"]),
    ('[[1, 1], "ab"]', ["row 1", "array", "string"]),
    ("[[1, 1], null]", ["row 1", "null"]),
    ('[[1, 1], {"a": 1}]', ["row 1", "object"]),
    ("[[1, 1], [1]]", ["row 1", "1 entries", "row 0 has 2"]),
    ("[[1], [1, 1]]", ["row 1", "2 entries", "row 0 has 1"]),
    ("[[1, 1], [1, 1, 1]]", ["row 1", "3 entries"]),
    ("[[1, -1]]", ["row 0, column 1", "positive"]),
    ("[[1, -0.5], [0, 0]]", ["row 0, column 1"]),
    ('[[1, "1"]]', ["row 0, column 1", "number", "string"]),
    ("[[1, null]]", ["row 0, column 1", "null"]),
    ("[[1, true]]", ["row 0, column 1", "boolean"]),
    ("[[1, [1]]]", ["row 0, column 1", "array"]),
    ('[[1, {"a": 1}]]', ["row 0, column 1", "object"]),
    ("[[1, NaN]]", ["NaN"]),
    ("[[1, Infinity]]", ["Infinity"]),
    ("[[1, -Infinity]]", ["Infinity"]),
    ("[[1, 1e400]]", ["row 0, column 1"]),
    ("[[1, 1e13]]", ["row 0, column 1", "CAPACITY"]),
    ("[[1, 1e-10]]", ["row 0, column 1", "CAPACITY"]),
    ("[[1, 5e-324]]", ["row 0, column 1", "CAPACITY"]),
    ("[[1, 10000000000000000000000000]]", ["row 0, column 1", "CAPACITY"]),
    ("[[1, 1]", ["not valid JSON"]),
    ("[[1, 1]] [[1]]", ["not valid JSON"]),
    ("[[1, 1],]", ["not valid JSON"]),
    ("[[1 1]]", ["not valid JSON"]),
    ("[[0x10]]", ["not valid JSON"]),
    ("[[1, 2]]\n# comment", ["not valid JSON"]),
    ("a b c\n", ["text file", "JSON array"]),
    ("", ["empty file"]),
    ("[[" + "1" * 5000 + "]]", ["digits"]),
]


@pytest.mark.parametrize("text,words", MALFORMED, ids=[str(i) for i in range(len(MALFORMED))])
def test_malformed_matrix_files(tmp_path, text, words):
    path = tmp_path / "m.json"
    path.write_text(text)
    with pytest.raises(InputError) as e:
        read_demand_matrix(path)
    msg = str(e.value)
    assert str(path) in msg and "\n" not in msg
    for w in words:
        assert w in msg, (w, msg)


def test_reader_binary_and_directory(tmp_path):
    (tmp_path / "b.json").write_bytes(b"\x00\x01\x02")
    with pytest.raises(InputError, match="binary"):
        read_demand_matrix(tmp_path / "b.json")
    with pytest.raises(InputError, match="directory"):
        read_demand_matrix(tmp_path)
    np.save(tmp_path / "a.npy", np.ones(2))
    with pytest.raises(InputError, match="NumPy"):
        read_demand_matrix(tmp_path / "a.npy")


def test_reader_good_files(tmp_path):
    p = tmp_path / "m.json"
    p.write_text("[[1, 0.25], [0, 3]]")
    assert read_demand_matrix(p).tolist() == [[1.0, 0.25], [0.0, 3.0]]
    assert read_demand_matrix(p, exact=True).tolist() == [[1, F(1, 4)], [0, 3]]
    p.write_text("  [[1e-9, 1e12]]\n")
    assert read_demand_matrix(p).tolist() == [[1e-9, 1e12]]


# ------------------------------------------------------------------------------ the command
def cli(args, cwd):
    p = subprocess.run([sys.executable, "-m", "coflowopt", *map(str, args)], cwd=cwd,
                       capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONWARNINGS="ignore"))
    return p.returncode, p.stdout, p.stderr


def test_cli_normalize(tmp_path):
    (tmp_path / "m.json").write_text(json.dumps(T_A1))
    code, out, err = cli(["normalize", "m.json", "--method", "sinkhorn-cap", "--exact",
                          "--json"], tmp_path)
    assert code == 0, err
    d = json.loads(out)
    assert d["rates"] == [["1/3", 0.5], ["2/3", 0]] and d["throughput"] == 1.5
    assert d["jain"] == "27/29"
    code, out, err = cli(["normalize", "m.json", "-m", "max-min", "--json"], tmp_path)
    d = json.loads(out)
    assert code == 0 and d["rates"] == [[0.5, 0.5], [0.5, 0]] and d["jain"] == 1
    code, out, err = cli(["normalize", "m.json", "-m", "all", "--json"], tmp_path)
    d = json.loads(out)
    assert code == 0 and d["max_throughput"] == 2
    assert d["throughput_ratio"]["sinkhorn-cap"] == 0.75
    assert set(d["results"]) == set(METHODS)
    code, out, err = cli(["normalize", "m.json", "-m", "madd", "--capacity", "2"], tmp_path)
    assert code == 0 and "throughput 3" in out
    code, out, err = cli(["normalize", "m.json", "-m", "max-min", "--ingress-capacity",
                          "1,0.5", "--egress-capacity", "2,2", "--json"], tmp_path)
    assert code == 0 and json.loads(out)["rates"] == [[0.5, 0.5], [0.5, 0]]


@pytest.mark.parametrize("argv,words", [
    (["normalize", "ragged.json", "-m", "madd"], ["ragged.json", "row 1", "row 0 has 2"]),
    (["normalize", "neg.json", "-m", "madd"], ["neg.json", "row 1, column 0", "positive"]),
    (["normalize", "str.json", "-m", "madd"], ["str.json", "row 0, column 1", "string"]),
    (["normalize", "obj.json", "-m", "madd"], ["obj.json", "(top level)", "JSON array"]),
    (["normalize", "nope.json", "-m", "madd"], ["nope.json"]),
    (["normalize", "m.json"], ["--method"]),
    (["normalize", "m.json", "-m", "bogus"], ["--method", "bogus"]),
    (["normalize", "m.json", "-m", "max-min", "--exact"], ["--exact", "max-min"]),
    (["normalize", "m.json", "-m", "sinkhorn-knopp", "-p", "foo=1"], ["-p foo"]),
    (["normalize", "m.json", "-m", "sinkhorn-knopp", "-p", "max_iter=0"], ["-p max_iter"]),
    (["normalize", "m.json", "-m", "all", "-p", "max_iter=3"], ["-p", "one method"]),
    (["normalize", "m.json", "-m", "madd", "--capacity", "0"], ["--capacity"]),
    (["normalize", "m.json", "-m", "madd", "--capacity", "1e20"], ["--capacity", "CAPACITY"]),
    (["normalize", "m.json", "-m", "madd", "--ingress-capacity", "1,2,3"],
     ["--ingress-capacity", "2 rows"]),
    (["normalize", "m.json", "-m", "madd", "--egress-capacity", "1,x"],
     ["--egress-capacity", "item 1"]),
    (["normalize", "m.json", "-m", "madd", "--capacity", "1", "--egress-capacity", "1,1"],
     ["--capacity", "--egress-capacity"]),
])
def test_cli_normalize_bad_usage(tmp_path, argv, words):
    (tmp_path / "m.json").write_text(json.dumps(T_A1))
    (tmp_path / "ragged.json").write_text("[[1, 1], [1]]")
    (tmp_path / "neg.json").write_text("[[1, 1], [-1, 0]]")
    (tmp_path / "str.json").write_text('[[1, "a"]]')
    (tmp_path / "obj.json").write_text('{"matrix": [[1]]}')
    code, out, err = cli(argv, tmp_path)
    assert code == 2, (code, err)
    assert "Traceback" not in err and err.strip("\n").count("\n") == 0, err
    for w in words:
        assert w in err, (w, err)
