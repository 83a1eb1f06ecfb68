"""HUG, DRF, PS-P and per-flow fairness over time: verified schedules, completion times and
slowdowns; the registered policies; the ``coflowopt fairness`` command."""

import json
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from coflowopt import Coflow, Instance
from coflowopt.fairness import (POLICY_METHODS, allocate, correlation_vectors,
                                link_allocation_rates, simulate_fairness)
from coflowopt.fairness.correlation import _loads
from coflowopt.registry import get_algorithm
from coflowopt.verify import verify_schedule


def random_instance(rng, releases: bool) -> Instance:
    m = int(rng.integers(1, 5))
    K = int(rng.integers(1, 7))
    cofs = [Coflow(f"c{k}", [(int(rng.integers(0, m)), int(rng.integers(0, m)),
                              float(rng.integers(1, 9))) for _ in range(int(rng.integers(1, 6)))],
                   weight=float(rng.integers(0, 3)),
                   release=float(rng.integers(0, 5)) if releases else 0.0) for k in range(K)]
    return Instance.from_coflows(cofs, num_ingress=m, num_egress=m,
                                 ingress_capacity=rng.choice([0.5, 1.0, 2.0], m),
                                 egress_capacity=rng.choice([0.5, 1.0, 2.0], m))


@pytest.mark.parametrize("method", POLICY_METHODS)
def test_every_schedule_passes_the_verifier(method):
    rng = np.random.default_rng(11)
    for trial in range(25):
        inst = random_instance(rng, releases=trial % 2 == 1)
        for weighted in ((False, True) if method in ("hug", "drf", "hug-cooperative")
                         else (False,)):
            run = simulate_fairness(inst, method, weighted=weighted)
            assert run.report.ok, (trial, run.report.summary())
            assert np.all(run.completion >= inst.release + inst.rho * (1 - 1e-9))
            assert np.all(run.slowdown >= 1 - 1e-9)
            if trial % 2 == 0 and not weighted and method != "per-flow":
                # P*(t) >= 1/(active coflows): with zero releases every slowdown is <= K
                assert np.all(run.slowdown <= inst.num_coflows * (1 + 1e-9)), run.slowdown


def test_identical_coflows_finish_together_under_drf():
    inst = Instance.from_coflows([Coflow(c, [(0, 0, 2.0), (1, 1, 1.0)]) for c in "ABC"])
    run = simulate_fairness(inst, "drf")
    assert run.completion.tolist() == [6.0, 6.0, 6.0]       # P* = 1/3, rho = 2
    assert run.slowdown.tolist() == [3.0, 3.0, 3.0]


def test_hug_recomputes_at_arrivals_and_departures():
    # Sec. 7.7.2 dynamic scenario (scaled down): A and C one-to-one, B all-to-all, arriving over
    # time; every coflow demands the whole capacity of every machine, so P* = 1/(active coflows)
    M = 4
    A = Coflow("A", [(i, (i + 2) % M, 4.0) for i in range(M)], release=0.0)
    B = Coflow("B", [(i, j, 1.0) for i in range(M) for j in range(M)], release=1.0)
    C = Coflow("C", [(j, (j + 1) % M, 1.0) for j in range(M)], release=2.0)
    inst = Instance.from_coflows([A, B, C], num_ingress=M, num_egress=M)
    run = simulate_fairness(inst, "hug")
    assert run.report.ok
    pstars = [round(e["pstar"], 12) for e in run.trace]
    assert pstars[:3] == [1.0, 0.5, round(1 / 3, 12)]
    # C: 1 unit at 1/3 of the capacity -> done at 2 + 3 = 5
    assert run.completion[2] == pytest.approx(5.0)


def test_per_flow_fairness_penalises_narrow_coflows():
    # Sec. 7.7.2 host level: B opens n flows from A's machine; per-flow fairness gives A 1/(n+1)
    n = 4
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1.0)]),
                                  Coflow("B", [(0, j, 1.0) for j in range(1, n + 1)])])
    pf = simulate_fairness(inst, "per-flow")
    hug = simulate_fairness(inst, "hug")
    assert pf.report.ok and hug.report.ok
    assert pf.completion[0] == pytest.approx(n + 1)          # A at 1/(n+1)
    assert hug.completion[0] == pytest.approx(2.0)           # A at 1/2
    assert hug.slowdown[0] < pf.slowdown[0]


@given(st.integers(0, 10 ** 6), st.sampled_from(["hug", "hug-cooperative", "drf", "ps-p"]))
def test_rates_from_a_link_allocation_are_feasible(seed, method):
    rng = np.random.default_rng(seed)
    inst = random_instance(rng, releases=False)
    act = np.arange(inst.num_coflows)
    rem = inst.flow_size * rng.uniform(0.0, 1.0, inst.num_flows)
    rem[rng.uniform(size=rem.size) < 0.2] = 0.0
    keep = np.add.reduceat(rem, inst.flow_ptr[:-1]) > 0
    act = act[keep]
    if act.size == 0:
        return
    flows = np.concatenate([np.arange(inst.flow_ptr[k], inst.flow_ptr[k + 1]) for k in act])
    flows = flows[rem[flows] > 0]
    cv = correlation_vectors(inst, coflows=act, remaining=rem)
    res = allocate(cv, method)
    loads = _loads(inst, act, rem)
    r = link_allocation_rates(inst, act, flows, rem, res.allocation, loads)
    port_load = np.bincount(np.concatenate([inst.flow_src[flows], inst.flow_egress_port[flows]]),
                            weights=np.concatenate([r, r]), minlength=inst.num_ports)
    assert np.all(port_load <= inst.capacity * (1 + 1e-12))
    # never below MADD at the coflow's progress: r_f >= P_k rem_f / Gamma_k
    gamma = (loads / inst.capacity).max(axis=1)
    pos = np.full(inst.num_coflows, -1)
    pos[act] = np.arange(act.size)
    row = pos[inst.flow_coflow[flows]]
    floor = res.progress[row] * rem[flows] / gamma[row]
    assert np.all(r >= floor * (1 - 1e-12))
    if method == "drf":
        assert np.allclose(r, floor)                         # exactly MADD at P*


def test_registered_policies_produce_verified_schedules():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1.0), (1, 1, 2.0)]),
                                  Coflow("B", [(0, 1, 1.0)], release=0.5)])
    for name in ("hug", "hug-cooperative", "drf", "ps-p", "per-flow-maxmin"):
        alg = get_algorithm("policy", name)
        sched = alg(inst)
        rep = verify_schedule(inst, sched)
        assert rep.ok, (name, rep.summary())
        if "weights" in alg.tags:
            assert verify_schedule(inst, alg(inst, weighted=True)).ok


def test_cli_fairness(tmp_path, capsys):
    from coflowopt.cli import main
    from coflowopt.formats import write_instance
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 3), (1, 0, 3), (1, 1, 3)]),
                                  Coflow("B", [(0, 1, 6), (1, 2, 1)])],
                                 num_ingress=3, num_egress=3)
    path = tmp_path / "fig72.json"
    write_instance(inst, path)
    assert main(["fairness", str(path), "--exact", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["optimal_isolation_guarantee"] == "2/3"
    assert out["guaranteed"][1]["allocation"] == {"in0": "2/3", "in1": "1/9", "out1": "2/3",
                                                  "out2": "1/9"}
    assert out["methods"]["hug"]["isolation_guarantee"] == "2/3"
    assert out["methods"]["ps-p"]["isolation_guarantee"] == 0.5
    assert set(out["methods"]) == {"hug", "hug-cooperative", "drf", "ps-p", "per-flow"}
    assert main(["fairness", str(path), "--method", "drf"]) == 0
    text = capsys.readouterr().out
    assert "P* = 0.666667" in text and "drf" in text
    assert main(["fairness", str(tmp_path / "missing.json")]) == 2


def test_experiments_print_the_dissertation_numbers(repo_dir):
    import runpy
    payoff = runpy.run_path(str(repo_dir / "experiments" / "fairness_payoff.py"))
    text = payoff["report"]()
    for cell in ("(2/3, 2/3)", "(11/12, 1/2)", "(1/2, 3/4)", "(1/2, 1/2)"):
        assert cell in text
    fam = runpy.run_path(str(repo_dir / "experiments" / "fairness_drf_family.py"))
    rows = fam["table_rows"](ks=(2, 10, 100), n=3, eps=F(1, 100))
    assert [r["drf_utilisation"] for r in rows] == [F(101, 200), F(109, 1000), F(199, 10000)]
    assert all(r["hug_utilisation"] == 1 for r in rows)


def test_per_flow_simulation_equals_the_fair_kernel():
    # two independent computations of per-flow max-min fairness: the fairness framework's
    # event-by-event simulation and the flow-level kernel behind `fair` / `per-flow-maxmin`
    from coflowopt.api import run_schedule
    from coflowopt.testing import random_instance as registry_instance
    rng = np.random.default_rng(2)
    for i in range(12):
        inst = registry_instance(rng, max_ports=4, max_coflows=8, max_flows=4,
                                 releases=bool(i % 2), weights=True,
                                 heterogeneous=bool(i % 3 == 0))
        pf = simulate_fairness(inst, "per-flow")
        res = run_schedule(inst, policy="per-flow-maxmin")
        assert pf.report.ok and res.kind == "feasible"
        assert np.allclose(res.report.coflow_completion, pf.completion, rtol=1e-9)


@pytest.mark.parametrize("engine", ["kernel", "numpy"])
@pytest.mark.parametrize("method", ["ps-p", "hug-cooperative"])
def test_pair_allocation_is_the_dense_one_bit_for_bit(method, engine, monkeypatch):
    # FairnessPolicy(pairs=True) computes PS-P / cooperative HUG on the (coflow, resource)
    # pairs with bytes left, by the compiled kernel or its numpy reference; pairs=False builds
    # the dense K x L vectors and calls allocate(): the same schedule (every piece's bits) and
    # the same trace, on the big switch (releases, weights, capacities) and on a fat-tree
    from coflowopt.generators import uniform_random
    from coflowopt.simulate import simulate
    from coflowopt.fairness.simulation import FairnessPolicy, _CoflowPairs
    from coflowopt.topology import fat_tree, on_topology
    if engine == "numpy":
        monkeypatch.setattr(_CoflowPairs, "rates", _CoflowPairs.rates_numpy)
    rng = np.random.default_rng(5)
    cases = [random_instance(rng, releases=bool(t % 2)) for t in range(6)]
    cases.append(uniform_random(6, 40, seed=1, releases=(0, 8), weights=(0, 3),
                                capacities=(1, 3)))
    cases.append(on_topology(uniform_random(16, 30, seed=3, releases=(0, 5)), fat_tree(4)))
    for inst in cases:
        for weighted in ((False, True) if method == "hug-cooperative" else (False,)):
            out = []
            for pairs in (False, True):
                policy = FairnessPolicy(method, weighted=weighted, pairs=pairs)
                sched = simulate(inst, policy).schedule
                assert verify_schedule(inst, sched).ok
                out.append(([a.tobytes() for a in (sched.flow, sched.start, sched.end,
                                                   sched.rate)],
                            [(t["time"], t["active"], float(t["pstar"]),
                              t["isolation_guarantee"]) for t in policy.trace]))
            assert out[0] == out[1]
    with pytest.raises(Exception, match="pairs=True"):
        FairnessPolicy("hug", pairs=True)


def test_pair_rates_is_compiled_once_for_both_models(repo_dir):
    """The kernels' index arrays reach numba alike from both branches (big switch: built
    here; paths: the instance's frozen arrays): one signature, not one per model, for
    ``pair_rates``, ``hug_run`` (cooperative HUG) and ``psp_run`` (PS-P)."""
    pytest.importorskip("numba")
    from coflowopt.fairness import _pairs_kernel
    from coflowopt.formats import read_instance
    from coflowopt.testing import as_scheduler
    kernels = ("pair_rates", "hug_run", "psp_run")
    counts = []
    for path in ("instances/papers/dissertation-fig5.1.json",
                 "instances/coflowlib/v1/ft4-mixed/ft4-mixed-001.instance"):
        inst = read_instance(repo_dir / path)
        for name in ("ps-p", "hug-cooperative"):
            assert as_scheduler(name).run(inst).report.ok
        counts.append([len(getattr(_pairs_kernel, k).signatures) for k in kernels])
    # the instance over paths compiled nothing new (hug-cooperative runs hug_run, its
    # allocation inside; pair_rates is the generic FairnessPolicy's, called here only if a
    # report reruns the policy that way)
    assert counts[0] == counts[1]
    assert counts[1][1:] == [1, 1] and counts[1][0] <= 1


def _psp_cases():
    from coflowopt.generators import uniform_random
    from coflowopt.topology import fat_tree, on_topology
    rng = np.random.default_rng(7)
    # random_instance repeats port pairs inside a coflow (uniform pairs of several flows)
    cases = [random_instance(rng, releases=bool(t % 2)) for t in range(12)]
    cases.append(uniform_random(6, 40, seed=1, releases=(0, 8), capacities=(1, 3)))
    # many flows per coflow on few ports: non-uniform coflows that drift between events
    cases.append(uniform_random(5, 60, seed=2, flows_per_coflow=(1, 10), releases=(0, 20)))
    cases.append(on_topology(uniform_random(16, 30, seed=3, releases=(0, 5)), fat_tree(4)))
    # A's two flows share ingress 0 and are held by different pairs (A is non-uniform);
    # C's completion at 0.5 touches none of A's resources, yet A's rates change then
    cases.append(Instance.from_coflows([Coflow("A", [(0, 0, 2.0), (0, 1, 1.0)]),
                                        Coflow("B", [(1, 0, 1.0)]),
                                        Coflow("C", [(2, 2, 0.5)])]))
    return cases


def test_psp_incremental_is_the_reference_schedule():
    """PS-P recomputing only the coflows whose rates can change (``psp_incremental``,
    ``proofs/psp_incremental.md``) against the generic simulator recomputing every coflow
    at every event (``FairnessPolicy('ps-p')``, held bit for bit to the dense reference
    above): the same events, both schedules verified, every completion time within a
    relative 1e-9 (the two differ by rounding only; observed <= 4e-16)."""
    from coflowopt.fairness.simulation import FairnessPolicy, psp_incremental
    from coflowopt.simulate import simulate
    for inst in _psp_cases():
        ref = simulate(inst, FairnessPolicy("ps-p"))
        inc = psp_incremental(inst)
        want = verify_schedule(inst, ref.schedule)
        got = verify_schedule(inst, inc.schedule)
        assert want.ok and got.ok, got.summary()
        assert inc.events == ref.events
        np.testing.assert_allclose(got.coflow_completion, want.coflow_completion, rtol=1e-9)
        np.testing.assert_allclose(inc.coflow_completion, got.coflow_completion, rtol=1e-9)
        # no piece for rounding alone: the incremental schedule never has more pieces
        assert inc.schedule.num_pieces <= ref.schedule.num_pieces


def test_psp_incremental_recomputes_a_drifting_coflow():
    """The last case of ``_psp_cases`` by hand: at t = 0.5 (C completes) A's flow (0, 1)
    moves from 1/3 to (5/6) / (7/4 + 5/6) of ingress 0, while (0, 0) stays at 1/2."""
    from coflowopt.fairness.simulation import psp_incremental
    inst = _psp_cases()[-1]
    sched = psp_incremental(inst).schedule
    f01 = sched.flow == 1
    assert sched.rate[f01][np.argsort(sched.start[f01])][:2].tolist() == pytest.approx(
        [1 / 3, (5 / 6) / (1.75 + 5 / 6)])
    assert set(sched.rate[sched.flow == 0][sched.start[sched.flow == 0] < 2].tolist()) == {0.5}


def _hug_cases():
    from coflowopt.generators import uniform_random
    cases = _psp_cases()
    # weights (some 0), heterogeneous capacities, fractional sizes
    cases.append(uniform_random(6, 30, seed=4, releases=(0, 6), weights=(0, 3),
                                capacities=(1, 4), integer_sizes=False, size=(0.5, 20)))
    # idle spans: every released coflow done before the next release (an event with no
    # active coflow, where the fused loop once divided by a zero P* denominator)
    cases.append(Instance.from_coflows([
        Coflow("A", [(0, 0, 1.0), (1, 0, 2.0)]), Coflow("B", [(1, 1, 1.0)], release=5.0),
        Coflow("C", [(0, 1, 3.0), (0, 0, 1.0)], release=9.5, weight=2.0)]))
    return cases


def test_hug_run_loop_is_the_generic_simulator_bit_for_bit():
    """Cooperative HUG in one compiled loop (``hug_run_loop``) against the generic simulator
    with ``FairnessPolicy('hug-cooperative')``: the same pieces in the same order (flow, start,
    end, rate to the last bit), completion times, events and policy calls, held and window by
    window (the same windows, cut at the same events), weighted and not; the schedule
    verified."""
    from coflowopt.fairness.simulation import FairnessPolicy, hug_run_loop
    from coflowopt.simulate import simulate

    def windows(run, inst, w):
        got = []
        res = run(inst, lambda s, a, b: got.append(
            (s.flow.copy(), s.start.copy(), s.end.copy(), s.rate.copy(), a, b)), w)
        return got, res

    cols = ("flow", "start", "end", "rate")
    multi = 0
    for inst in _hug_cases():
        for weighted in (False, True):
            ref = simulate(inst, FairnessPolicy("hug-cooperative", weighted=weighted))
            new = hug_run_loop(inst, weighted=weighted)
            for c in cols:
                np.testing.assert_array_equal(getattr(new.schedule, c), getattr(ref.schedule, c))
            np.testing.assert_array_equal(new.coflow_completion, ref.coflow_completion)
            assert (new.events, new.policy_calls) == (ref.events, ref.policy_calls)
            assert verify_schedule(inst, new.schedule).ok
            for w in (1, 7):
                a, ra = windows(lambda i, cb, w: simulate(
                    i, FairnessPolicy("hug-cooperative", weighted=weighted), on_window=cb,
                    window=w), inst, w)
                b, rb = windows(lambda i, cb, w: hug_run_loop(
                    i, weighted=weighted, on_window=cb, window=w), inst, w)
                assert len(a) == len(b)
                multi += len(a) > 1
                for x, y in zip(a, b):
                    for u, v in zip(x, y):
                        np.testing.assert_array_equal(u, v)
                assert ra.stats["pieces"] == rb.stats["pieces"]
                assert ra.stats["unsettled"] == rb.stats["unsettled"]
    assert multi > 20       # most cases are cut into several windows
