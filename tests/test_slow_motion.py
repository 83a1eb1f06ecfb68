"""slow-motion (issue 13, fluid slice): the replay of the fluid time-indexed LP at speed lambda
(``coflowopt/slow_motion.py``, ``proofs/slow-motion.md``, ``formulations/fluid_network_lp.md``).

Hand-checked examples, the theory-frontier digest's section 8.3 instances that apply to the
fluid model (#1 one coflow, #2 single machine, #3 concurrent open shop, #6 releases), and the
hypothesis chain ``bound <= OPT (bnb) <= best piece <= E <= Riemann bound <= 2 (LP + (delta +
sigma) sum w)`` on 3-5 coflow instances on a big switch, fat_tree(4) and leaf_spine(2, 2, 2,
oversubscription=2).  Every schedule goes through the verifier."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from coflowopt import Coflow, Instance
from coflowopt.bounds.lp_bounds import time_indexed_lp_bound
from coflowopt.exact import bnb
from coflowopt.exceptions import InvalidParameterError
from coflowopt.registry import get_algorithm
from coflowopt.slow_motion import (compact_schedule, lambda_points, replay_lp,
                                   replay_schedule, slow_motion, slow_motion_pieces)
from coflowopt.testing import big_switch_as_paths
from coflowopt.topology import fat_tree, leaf_spine, on_topology
from coflowopt.verify import verify_schedule

pytest.importorskip("highspy")

RTOL = 1e-7          # the LP solution is optimal and feasible to about 1e-9 (IPM + crossover)


def value(inst, sched) -> float:
    rep = verify_schedule(inst, sched)
    assert rep.ok, rep.summary()
    return float(rep.weighted_completion_time)


def le(a, b, rtol=RTOL) -> bool:
    return float(a) <= float(b) + rtol * max(1.0, abs(float(a)), abs(float(b)))


def check_chain(inst, opt: float | None = None, **kw):
    """Every proved inequality of proofs/slow-motion.md on ``inst`` (and the verifier's costs
    of the best piece, of a few lambdas, with and without the compaction)."""
    p = slow_motion_pieces(inst, **kw)
    rlp = p.rlp
    assert rlp.bound.value is not None
    lb = float(rlp.bound.value)
    assert le(lb, rlp.lp_value)
    best = float(p.costs[p.best])
    assert le(best, p.expectation)
    # claim 4: the best breakpoint is the infimum over lambda; claim 2: E by a fine midpoint rule
    lam = (np.arange(4000) + 0.5) / 4000
    f = (rlp.inst_u.weight @ ((lambda_points(rlp, lam) + rlp.sigma) / lam)) * rlp.cost_factor
    assert np.all(f >= best * (1 - 1e-9))
    assert abs(np.mean(2 * lam * f) - p.expectation) <= 2e-3 * p.expectation
    assert le(p.expectation, p.riemann_bound)
    assert le(p.riemann_bound, p.guarantee)
    assert 1.0 <= rlp.gamma <= 1.0 + 1e-6
    assert 0.0 <= rlp.sigma <= rlp.delta * (1 + 1e-12)
    for lam in (float(p.ends[p.best]), 1.0, 0.5, float(p.ends[0])):
        s0 = replay_schedule(inst, rlp, lam)
        v0 = value(inst, s0)
        tau = lambda_points(rlp, [lam])[:, 0]
        closed = float(rlp.inst_u.weight @ ((tau + rlp.sigma) / lam)) * rlp.cost_factor
        assert abs(v0 - closed) <= 1e-7 * max(1.0, closed)      # C_k = (tau_k + sigma)/lambda
        v1 = value(inst, compact_schedule(inst, s0))
        assert le(v1, v0)                                        # compaction never later
        if opt is not None:
            assert le(opt, v1)
    if opt is not None:
        assert le(lb, opt)
        assert le(opt, best)
    return p


# --------------------------------------------------------------------------- hand-checked
def test_single_flow_exact_expectation():
    """One flow of size 1 at capacity 1, slot 1/4: the LP's fractional schedule is the flow at
    full rate (C = 1 is the only way to meet the rho and mean-busy-time rows with the LP value 1),
    so tau(lambda) = lambda, C(lambda) = 1 for every lambda, E = 1 = OPT."""
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)])])
    p = check_chain(inst, opt=1.0, slot=0.25)
    assert abs(p.rlp.lp_value - 1.0) <= 1e-9
    assert abs(p.expectation - 1.0) <= 1e-7
    assert np.allclose(p.costs, 1.0)
    assert abs(value(inst, slow_motion(inst, slot=0.25)) - 1.0) <= 1e-9


def test_two_coflows_on_one_port_by_hand():
    """A (2 units) and B (1 unit) on ingress 0: OPT 4 (B first).  With slot 1/16 the LP is 4
    minus the discretisation (3.953125) and every output is between OPT and the guarantee."""
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2)]), Coflow("B", [(0, 1, 1)])])
    p = check_chain(inst, opt=4.0)
    assert p.rlp.delta == 0.0625 and p.rlp.sigma == 0.0
    s = slow_motion(inst)
    assert abs(value(inst, s) - 4.0625) <= 1e-9
    assert s.meta["lambda"] == 1.0


def test_ts4_figures():
    """The digest's T-S4 (OPT 33): LP 31.83 at slot 1/2, best piece 35.00, compacted 34.55,
    E 42.67 <= 2 (LP + delta sum w) = 66.67."""
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 0, 4)]), Coflow("B", [(0, 0, 9)]),
                                  Coflow("C", [(0, 1, 5), (1, 1, 6)])])
    p = check_chain(inst, opt=33.0)
    assert abs(p.rlp.lp_value - 191 / 6) <= 1e-7
    s = slow_motion(inst)
    assert 33.0 <= value(inst, s) <= float(p.costs[p.best]) + 1e-9
    assert abs(s.meta["expectation"] - p.expectation) <= 1e-12


# ------------------------------------------------------------ digest 8.3 (fluid instances)
@pytest.mark.parametrize("D,r", [(2, 0.0), (3, 0.0), (3, 1.3)])
def test_single_coflow_is_exact_after_compaction(D, r):
    """#1: one coflow, OPT = r + rho (BvN).  The compaction turns every replay into one phase
    of length rho from r: exactly OPT for every lambda, whatever the LP's schedule."""
    inst = Instance.from_coflows([Coflow("K", [(i, j, 1) for i in range(D) for j in range(D)],
                                         release=r)])
    p = check_chain(inst, opt=r + D)
    for lam in (1.0, 0.6, 0.2):
        v = value(inst, compact_schedule(inst, replay_schedule(inst, p.rlp, lam)))
        assert abs(v - (r + D)) <= 1e-9 * (r + D)


def test_single_machine_smith():
    """#2: every flow on one ingress-egress pair; fluid OPT = Smith's rule."""
    sizes, weights = [3.0, 1.0, 2.0, 4.0], [1.0, 2.0, 1.5, 0.5]
    inst = Instance.from_coflows([Coflow(f"J{k}", [(0, 0, p)], weight=w)
                                  for k, (p, w) in enumerate(zip(sizes, weights))])
    order = sorted(range(4), key=lambda k: sizes[k] / weights[k])
    t, opt = 0.0, 0.0
    for k in order:
        t += sizes[k]
        opt += weights[k] * t
    check_chain(inst, opt=opt)


def test_concurrent_open_shop_against_permutations():
    """#3: private port pairs (machines); permutation schedules are optimal (no preemption
    helps), so OPT is the best of the 4! permutations."""
    proc = [[2, 0, 1], [1, 3, 0], [0, 1, 2], [2, 2, 1]]           # coflow x machine
    w = [1.0, 2.0, 1.0, 3.0]
    inst = Instance.from_coflows([Coflow(f"J{k}", [(m, m, float(p)) for m, p in enumerate(row)
                                                  if p > 0], weight=w[k])
                                  for k, row in enumerate(proc)])
    best = np.inf
    for perm in itertools.permutations(range(4)):
        load = np.zeros(3)
        cost = 0.0
        for k in perm:
            load += np.array(proc[k], dtype=float)
            cost += w[k] * max(load[m] for m in range(3) if proc[k][m] > 0)
        best = min(best, cost)
    check_chain(inst, opt=best)


def test_release_off_the_grid_shifts_the_replay():
    """#6: a light coflow released at 1.3 among heavy ones released at 0; slot 1/2: the LP may
    send it in [1, 1.5), so the replay is shifted by sigma <= 1/2 and nothing is sent before a
    release (the verifier checks releases)."""
    inst = Instance.from_coflows([Coflow("H1", [(0, 0, 4), (1, 1, 3)]),
                                  Coflow("H2", [(0, 1, 3)]),
                                  Coflow("L", [(0, 0, 0.5)], release=1.3, weight=4.0)])
    p = check_chain(inst, opt=float(bnb(inst).value), slot=0.5)
    assert 0.0 <= p.rlp.sigma <= 0.5
    for seed in range(3):
        value(inst, slow_motion(inst, seed=seed, slot=0.5))


def test_release_inside_the_first_slot_by_hand():
    """One flow of 0.5 released at 0.3, slot 1: the LP (value r + rho = 0.8) sends it in
    [0, 1), so sigma = 0.3; the replay at lambda = 1 runs slot 1 in [0.3, 1.3) (C = 1.3, never
    before the release), the compaction gives 0.8 = OPT."""
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 0.5)], release=0.3)])
    p = check_chain(inst, opt=0.8, slot=1.0)
    assert abs(p.rlp.lp_value - 0.8) <= 1e-9 and abs(p.rlp.sigma - 0.3) <= 1e-12
    assert abs(value(inst, replay_schedule(inst, p.rlp, 1.0)) - 1.3) <= 1e-9
    assert abs(value(inst, slow_motion(inst, lam=1.0, slot=1.0)) - 0.8) <= 1e-9


# --------------------------------------------------------------- options, seed, paths, bound
def test_seed_lam_and_options():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 1, 1)]), Coflow("B", [(0, 1, 1)])])
    a, b = slow_motion(inst, seed=7), slow_motion(inst, seed=7)
    assert a.meta["seed"] == 7 and a.meta["lambda"] == b.meta["lambda"]
    assert np.array_equal(a.start, b.start) and np.array_equal(a.rate, b.rate)
    u = float(np.random.default_rng(7).random())
    assert a.meta["lambda"] == float(np.sqrt(1.0 - u))
    s = slow_motion(inst, lam=0.4, compact=False)
    assert s.meta["lambda"] == 0.4 and not s.meta["compact"]
    assert abs(value(inst, s) - s.meta["replay_cost"]) <= 1e-7 * s.meta["replay_cost"]
    with pytest.raises(InvalidParameterError):
        slow_motion(inst, lam=0.5, seed=1)
    with pytest.raises(InvalidParameterError):
        slow_motion(inst, lam=1.5)
    alg = get_algorithm("policy", "slow-motion")
    assert {"reconstruction", "randomized"} <= alg.tags and "big_switch_only" not in alg.tags


def test_big_switch_as_paths_gives_the_same_values():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 0, 4)], weight=2.0),
                                  Coflow("B", [(0, 0, 9)], release=1.0),
                                  Coflow("C", [(0, 1, 5), (1, 1, 6)])])
    paths = big_switch_as_paths(inst)
    a, b = slow_motion_pieces(inst), slow_motion_pieces(paths)
    assert abs(a.rlp.lp_value - b.rlp.lp_value) <= 1e-9 * a.rlp.lp_value
    assert abs(a.expectation - b.expectation) <= 1e-6 * a.expectation
    assert abs(float(a.costs[a.best]) - float(b.costs[b.best])) <= 1e-6 * a.expectation
    va, vb = value(inst, slow_motion(inst)), value(paths, slow_motion(paths))
    assert abs(va - vb) <= 1e-6 * va


def test_the_lp_is_the_registered_time_indexed_bound():
    """The fluid-network LP of digest section 6 (single path) is time-indexed-lp: the bound
    slow-motion certifies is that bound with horizon='safe', overflow=False."""
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 0, 4)]), Coflow("B", [(0, 0, 9)]),
                                  Coflow("C", [(0, 1, 5), (1, 1, 6)], release=0.7)])
    rlp = replay_lp(inst)
    ref = time_indexed_lp_bound(inst, horizon="safe", overflow=False)
    assert rlp.bound.certificate_status == "certified"
    assert abs(float(rlp.bound.value) - float(ref.value)) <= 1e-7 * float(ref.value)


# ------------------------------------------------------------------------ hypothesis chain
TOPOS = {"big-switch": None, "fat-tree-k4": lambda: fat_tree(4),
         "leaf-spine-2x2-os2": lambda: leaf_spine(2, 2, 2, oversubscription=2)}


def random_instance(seed: int, K: int, topo: str, releases: bool) -> Instance:
    rng = np.random.default_rng(seed)
    H = 4 if topo == "big-switch" else (16 if topo == "fat-tree-k4" else 8)
    counts = rng.integers(1, 4, size=K)
    F = int(counts.sum())
    src = rng.integers(0, H, F)
    dst = (src + rng.integers(1, H, F)) % H
    rel = np.round(rng.uniform(0, 3, K), 2) * (rng.random(K) < 0.4) if releases else np.zeros(K)
    bs = Instance.from_arrays(
        ingress_capacity=np.ones(H), egress_capacity=np.ones(H),
        coflow_ids=[f"c{k}" for k in range(K)], flow_coflow=np.repeat(np.arange(K), counts),
        flow_src=src, flow_dst=dst, flow_size=np.round(rng.uniform(0.5, 5.0, F), 2),
        weight=np.round(rng.uniform(0.2, 3.0, K), 2), release=rel)
    if topo == "big-switch":
        return bs
    return on_topology(bs, TOPOS[topo](), routing="ecmp", seed=seed)


@pytest.mark.parametrize("topo", list(TOPOS))
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 10 ** 6), K=st.integers(3, 5), releases=st.booleans())
def test_property_bound_opt_best_expectation_guarantee(topo, seed, K, releases):
    inst = random_instance(seed, K, topo, releases)
    res = bnb(inst, time_limit=30)
    if res.kind != "optimal":
        return
    opt = float(res.value)
    p = check_chain(inst, opt=opt)
    s = slow_motion(inst, seed=seed)
    assert le(opt, value(inst, s))
    assert le(value(inst, s), s.meta["replay_cost"])        # compaction never later
    assert le(s.meta["expectation"], s.meta["guarantee"])


def test_experiment_script_runs(capsys):
    """experiments/theory_frontier_fluid.py on two instances (every schedule verified, every
    value checked against the proved optimum inside the script)."""
    import importlib.util
    import pathlib
    path = pathlib.Path(__file__).resolve().parents[1] / "experiments" / \
        "theory_frontier_fluid.py"
    spec = importlib.util.spec_from_file_location("theory_frontier_fluid", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.main(["--n", "2"])
    out = capsys.readouterr().out
    assert "instances with proved OPT" in out and "slow-motion E (replay)" in out


@pytest.mark.parametrize("slot", [-1, 0, float("nan")])
def test_replay_lp_refuses_a_bad_slot_naming_the_users_value(slot):
    """The slot is checked as given, before it is converted to the LP's units (the message
    named the converted value: -1 / 1024 here)."""
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2000.0)]), Coflow("B", [(0, 1, 1000.0)])])
    with pytest.raises(InvalidParameterError, match=rf"slot must be .*got {slot!r}"):
        replay_lp(inst, slot=slot)
