"""``creek`` and ``decentralized-las`` (per-flow max-min inside a level, no aging) in their
compiled event loop (``policies/_level_kernel.levels_simulate``) give the bits of the same
policies on the generic simulator (``_Slots.compiled = False``, the reference engine): the same
pieces in the same order, the same meta (events, calls, class changes, demotions, final
levels), every schedule verified.  And the per-resource progressive filling ``_fill`` (through
``fill_groups``) gives ``serve_groups``' rates to the bit."""

from __future__ import annotations

import numpy as np
import pytest

from coflowopt import Coflow, Instance
from coflowopt.generators import creek as creek_instance, uniform_random
from coflowopt.policies import mlfq as M
from coflowopt.policies._class_kernel import serve_groups
from coflowopt.policies._level_kernel import fill_groups
from coflowopt.simulate import SimulationError
from coflowopt.testing import big_switch_as_paths, random_instance
from coflowopt.verify import verify_schedule

POLICIES = [M.creek, M.decentralized_las]


def _run(inst, func, params, compiled):
    saved = M._Slots.compiled
    M._Slots.compiled = compiled
    try:
        return func(inst, **params)
    finally:
        M._Slots.compiled = saved


def _compiled_and_python(inst, func, params, monkeypatch):
    """The compiled loop (which must not call the generic simulator) against the generic
    path: bit for bit, both verified."""
    with monkeypatch.context() as m:
        def boom(*args, **kwargs):
            raise AssertionError("the generic simulator ran")
        m.setattr(M, "simulate", boom)
        a = _run(inst, func, params, True)
    b = _run(inst, func, params, False)
    assert verify_schedule(inst, a).ok and verify_schedule(inst, b).ok
    for x, y in ((a.flow, b.flow), (a.start, b.start), (a.end, b.end), (a.rate, b.rate)):
        assert np.array_equal(x, y)
    assert a.meta == b.meta
    return a


def _params(func):
    out = [{}, {"thresholds": [1.0, 4.0]}, {"thresholds": [0.25, 0.5, 2.0, 6.0]},
           {"thresholds": []}]
    if func is M.creek:
        out.append({"thresholds": [1.0, 4.0], "subcoflow_estimate": False})
    return out


def _random_instances(seed, count):
    rng = np.random.default_rng(seed)
    for i in range(count):
        yield random_instance(rng, max_ports=5, max_coflows=16, max_flows=6,
                              releases=bool(i % 3), heterogeneous=bool(i % 2),
                              weights=bool(i % 4 > 1), integer_sizes=i % 5 == 4)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_compiled_loop_random_instances(seed, monkeypatch):
    """Seeded random big-switch instances (releases, weights, unequal capacities, integer
    sizes with their ties), several threshold sets, creek with and without its projection."""
    demoted = 0
    for inst in _random_instances(seed, 12):
        for func in POLICIES:
            for params in _params(func):
                a = _compiled_and_python(inst, func, params, monkeypatch)
                demoted += a.meta["demotions"]
    assert demoted > 50


@pytest.mark.parametrize("paths", [False, True])
def test_compiled_loop_many_coflows_few_ports(paths, monkeypatch):
    """300 coflows released over time on 6 ports (and as paths): many flows per level and per
    path, many crossings inside the allocation loop."""
    inst = uniform_random(num_ports=6, num_coflows=300, size=(1, 30), releases=(0, 40),
                          seed=11)
    if paths:
        inst = big_switch_as_paths(inst)
    for func in POLICIES:
        a = _compiled_and_python(inst, func, {"thresholds": [5.0, 20.0]}, monkeypatch)
        assert a.meta["demotions"] > 100


def test_compiled_loop_many_flows_on_one_path(monkeypatch):
    """Coflows of many equal flows on the same port pairs (the Facebook trace's shape):
    flows tie in the filling and finish together; the held rates of creek apply."""
    rng = np.random.default_rng(5)
    cof = []
    for k in range(12):
        flows = []
        for _ in range(int(rng.integers(1, 5))):
            i, j = int(rng.integers(0, 3)), int(rng.integers(0, 3))
            flows += [(i, j, float(rng.integers(1, 4)))] * int(rng.integers(1, 6))
        cof.append(Coflow(f"c{k}", flows, release=float(rng.integers(0, 6))))
    inst = Instance.from_coflows(cof)
    for func in POLICIES:
        for params in _params(func):
            _compiled_and_python(inst, func, params, monkeypatch)


def test_compiled_loop_topologies(monkeypatch):
    """Topology instances: a k=4 fat-tree, a leaf-spine, Creek's own generator."""
    from coflowopt.topology import fat_tree, leaf_spine, on_topology
    base = uniform_random(num_ports=16, num_coflows=40, size=(1, 20), releases=(0, 10),
                          seed=5)
    insts = [on_topology(base, topo, seed=1) for topo in (fat_tree(4), leaf_spine(2, 2, 4))]
    insts.append(creek_instance(num_coflows=12, fat_tree_k=4, releases=(0, 3), seed=7))
    for inst in insts:
        assert not inst.is_big_switch
        for func in POLICIES:
            _compiled_and_python(inst, func, {"thresholds": [3.0, 12.0]}, monkeypatch)
            _compiled_and_python(inst, func, {}, monkeypatch)


def test_projection_changes_the_schedule(monkeypatch):
    """The sub-coflow projection runs in the compiled loop: creek's docstring example (A's
    sub-coflow to egress 1 completes at 2, A is projected at 4 and demoted below B at once, B
    ends at 3; without the projection at 3.5), each equal to the generic path's."""
    inst = Instance.from_coflows([Coflow("A", [(1, 1, 2), (0, 0, 6)]),
                                  Coflow("B", [(0, 2, 2)])])
    a = _compiled_and_python(inst, M.creek, {"thresholds": [3.5]}, monkeypatch)
    b = _compiled_and_python(inst, M.creek, {"thresholds": [3.5],
                                             "subcoflow_estimate": False}, monkeypatch)
    assert verify_schedule(inst, a).coflow_completion.tolist() == [8.0, 3.0]
    assert verify_schedule(inst, b).coflow_completion.tolist() == [8.0, 3.5]


def test_the_generic_path_where_the_loop_does_not_apply(monkeypatch):
    """FIFO inside a level and aging stay on the generic simulator."""
    inst = uniform_random(num_ports=4, num_coflows=10, size=(1, 10), seed=2)
    calls = []
    real = M.simulate
    monkeypatch.setattr(M, "simulate", lambda *a, **k: calls.append(1) or real(*a, **k))
    M.creek(inst, within="fifo")
    M.decentralized_las(inst, aging=5.0)
    assert len(calls) == 2
    M.creek(inst)
    assert len(calls) == 2


def test_compiled_loop_event_budget():
    inst = uniform_random(num_ports=8, num_coflows=40, size=(1, 30), releases=(0, 20), seed=3)
    pol = M.CreekPolicy([2.0, 8.0], within="fair")
    pol.reset(inst)
    with pytest.raises(SimulationError, match="more than 5 events"):
        M._run_compiled(inst, pol, 5)


def _random_groups(rng):
    """A random flow-to-resource CSR (paths of 1-4 distinct resources, some repeated many
    times), capacities (some equal, some tiny) and groups."""
    R = int(rng.integers(1, 12))
    F = int(rng.integers(1, 60))
    paths = [rng.choice(R, size=int(rng.integers(1, min(R, 4) + 1)), replace=False)
             for _ in range(int(rng.integers(1, 8)))]
    rows = [paths[int(rng.integers(0, len(paths)))] for _ in range(F)]
    fr_ptr = np.zeros(F + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=fr_ptr[1:])
    fr = np.concatenate(rows).astype(np.int64)
    if rng.random() < 0.5:
        cap = rng.choice([1.0, 0.5, 2.0, 1.0 / 3.0], size=R)
    else:
        cap = rng.uniform(1e-9, 3.0, size=R)
    fl = rng.permutation(F).astype(np.int64)[:int(rng.integers(1, F + 1))]
    cuts = np.sort(rng.choice(np.arange(1, fl.size + 1), size=int(rng.integers(0, 4))))
    gptr = np.unique(np.concatenate([[0], cuts, [fl.size]])).astype(np.int64)
    return fl, gptr, fr_ptr, fr, cap


def _classes(fr_ptr, fr, by_path):
    """``_fill_paths``' classes: one per flow, or one per distinct path (resource list)."""
    F = fr_ptr.size - 1
    if not by_path:
        return np.arange(F, dtype=np.int64), fr_ptr, fr
    ids, pid = {}, np.zeros(F, dtype=np.int64)
    for f in range(F):
        pid[f] = ids.setdefault(tuple(fr[fr_ptr[f]:fr_ptr[f + 1]]), len(ids))
    paths = list(ids)
    q_ptr = np.zeros(len(paths) + 1, dtype=np.int64)
    np.cumsum([len(q) for q in paths], out=q_ptr[1:])
    return pid, q_ptr, np.concatenate(paths).astype(np.int64)


def _fill(fl, gptr, fr_ptr, fr, cap, tol, by_path=False):
    """``fill_groups`` flow by flow (``_fill``) or by classes (``_fill_paths``): by path, or
    one class per flow (``by_path=None``)."""
    return fill_groups(fl, gptr, fr_ptr, fr, cap, tol, 1e-12, by_path is not False,
                       *_classes(fr_ptr, fr, bool(by_path)))


def test_fill_groups_gives_serve_groups_bits():
    # per flow and per path class (flows of a path counted together: most classes here hold
    # several flows of a group)
    rng = np.random.default_rng(86)
    positive = shared = 0
    for _ in range(500):
        fl, gptr, fr_ptr, fr, cap = _random_groups(rng)
        shared += int(fl.size > len({tuple(fr[fr_ptr[f]:fr_ptr[f + 1]]) for f in fl}))
        for tol_rel in (1e-12, 0.1):
            a = serve_groups(fl, gptr, fr_ptr, fr, cap, tol_rel * cap, 1e-12)
            for by_path in (False, None, True):
                b = _fill(fl, gptr, fr_ptr, fr, cap, tol_rel * cap, by_path)
                assert np.array_equal(a, b)
            positive += int((a > 0).sum())
    assert positive > 1000 and shared > 300


def test_fill_groups_by_hand():
    # serve_groups' example (tests/test_mlfq_kernel.py): three unit ports; flows 0: [0, 1],
    # 1: [1], 2: [2], 3: [0, 2]; groups {1, 0}, {3}, {2}: every flow gets 1/2
    fr_ptr = np.array([0, 2, 3, 4, 6])
    fr = np.array([0, 1, 1, 2, 0, 2])
    fl = np.array([1, 0, 3, 2])
    gptr = np.array([0, 2, 3, 4])
    cap = np.ones(3)
    assert _fill(fl, gptr, fr_ptr, fr, cap, 1e-12 * cap).tolist() == [0.5] * 4
    cap = np.array([0.5, 1.0, 0.5])
    r = _fill(fl, gptr, fr_ptr, fr, cap, 1e-12 * cap)
    assert r.tolist() == [0.5, 0.5, 0.0, 0.5]
    # two flows on one path are one class of two: each gets half of the shared port
    fr_ptr, fr = np.array([0, 2, 4, 5]), np.array([0, 1, 0, 1, 1])
    r = _fill(np.arange(3), np.array([0, 3]), fr_ptr, fr, np.ones(2), 1e-12 * np.ones(2), True)
    assert r.tolist() == [1 / 3] * 3
