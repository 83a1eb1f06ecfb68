"""The multi-level queues' compiled allocation (``policies/_class_kernel.serve_groups``) gives
the bits of the plain-numpy reference (``_ClassPolicy._serve_python``: one
``max_min_rates`` per group), for every policy of ``policies/mlfq.py``, FIFO and fair inside
a class, on the big switch (with releases and unequal capacities) and over resources."""

from __future__ import annotations

import numpy as np
import pytest

from coflowopt.generators import creek as creek_instance, uniform_random
from coflowopt.policies import mlfq as M
from coflowopt.testing import big_switch_as_paths, random_instance
from coflowopt.verify import verify_schedule

POLICIES = [M.mlfq, M.creek, M.baraat, M.decentralized_las]


def _instances():
    rng = np.random.default_rng(17)
    out = {"random-heterogeneous": random_instance(rng, max_ports=4, max_coflows=12,
                                                   max_flows=4, releases=True,
                                                   heterogeneous=True),
           "uniform-40": uniform_random(num_ports=8, num_coflows=40, size=(1, 30),
                                        releases=(0, 20), seed=3),
           "creek-fat-tree": creek_instance(num_coflows=8, fat_tree_k=4, releases=(0, 2),
                                            seed=7)}
    out["uniform-40-as-paths"] = big_switch_as_paths(out["uniform-40"])
    return out


INSTANCES = _instances()


def _run(inst, func, params, reference, incremental=True, compiled=True):
    saved_inc, saved_comp = M._Slots.incremental, M._Slots.compiled
    M._Slots.incremental = incremental and not reference
    M._Slots.compiled = compiled
    try:
        if reference:
            # the reference engine: the generic path's numpy loop over the groups
            saved = M._ClassPolicy._serve
            M._ClassPolicy._serve = M._ClassPolicy._serve_python
            try:
                return func(inst, **params)
            finally:
                M._ClassPolicy._serve = saved
        return func(inst, **params)
    finally:
        M._Slots.incremental, M._Slots.compiled = saved_inc, saved_comp


@pytest.mark.parametrize("name", sorted(INSTANCES))
@pytest.mark.parametrize("func", POLICIES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("within", ["fifo", "fair"])
def test_kernel_gives_the_reference_bits(name, func, within):
    inst = INSTANCES[name]
    params = {"within": within}
    if func is not M.baraat:
        params["thresholds"] = [2.0, 8.0]
    a = _run(inst, func, params, reference=False)
    b = _run(inst, func, params, reference=True)
    assert verify_schedule(inst, a).ok
    for x, y in ((a.flow, b.flow), (a.start, b.start), (a.end, b.end), (a.rate, b.rate)):
        assert np.array_equal(x, y)
    assert a.meta == b.meta


def _same(a, b):
    for x, y in ((a.flow, b.flow), (a.start, b.start), (a.end, b.end), (a.rate, b.rate)):
        assert np.array_equal(x, y)
    assert a.meta == b.meta


def _three_ways(inst, func, params):
    """The compiled event loop, the incremental path on the simulator, the generic one and the
    numpy reference give the same bits."""
    a = _run(inst, func, params, reference=False)
    p = _run(inst, func, params, reference=False, compiled=False)
    b = _run(inst, func, params, reference=False, incremental=False)
    c = _run(inst, func, params, reference=True)
    assert verify_schedule(inst, a).ok
    _same(a, p)
    _same(a, b)
    _same(a, c)
    return a


@pytest.mark.parametrize("name", sorted(INSTANCES))
@pytest.mark.parametrize("thresholds", [[2.0, 8.0], [0.5, 1.0, 3.0, 9.0], []])
def test_incremental_mlfq_gives_the_generic_bits(name, thresholds):
    """MlfqPolicy's incremental FIFO path (priority slots kept across events, service and
    levels of the coflows served since the last call, serve_levels) against the generic
    path (active flows sorted per event, serve_groups), and both against the numpy
    reference."""
    inst = INSTANCES[name]
    params = {"thresholds": thresholds}
    pol = M.MlfqPolicy(thresholds)
    from coflowopt.simulate import simulate
    simulate(inst, pol)
    assert pol._fast and pol.walked > 0          # the incremental path did run
    a = _three_ways(inst, M.mlfq, params)
    if thresholds:
        assert a.meta["demotions"] > 0


@pytest.mark.parametrize("paths", [False, True])
def test_incremental_mlfq_search_by_path(paths):
    """Many coflows on few ports: serve_levels walks past runs of blocked coflows and then
    finds the next coflow to serve by path (heap of the free paths' next slots); the same
    bits as the generic path."""
    inst = uniform_random(num_ports=6, num_coflows=300, size=(1, 30), releases=(0, 40),
                          seed=11)
    if paths:
        inst = big_switch_as_paths(inst)
    pol = M.MlfqPolicy([5.0, 20.0])
    from coflowopt.simulate import simulate
    simulate(inst, pol)
    assert pol.found_by_path > 0
    a = _run(inst, M.mlfq, {"thresholds": [5.0, 20.0]}, reference=False)
    b = _run(inst, M.mlfq, {"thresholds": [5.0, 20.0]}, reference=False, incremental=False)
    assert verify_schedule(inst, a).ok
    _same(a, b)


@pytest.mark.parametrize("name", sorted(INSTANCES) + ["many-on-6-ports"])
@pytest.mark.parametrize("threshold", [None, 3.0, 12.0])
def test_incremental_baraat_gives_the_generic_bits(name, threshold):
    """BaraatPolicy's incremental path (FIFO slots, groups = a light coflow with the heavy
    ones before it, found by path past runs of blocked groups) against the generic path
    and the numpy reference."""
    inst = INSTANCES.get(name) or uniform_random(num_ports=6, num_coflows=300, size=(1, 30),
                                                 releases=(0, 40), seed=11)
    params = {"heavy_threshold": threshold}
    pol = M.BaraatPolicy(threshold)
    from coflowopt.simulate import simulate
    simulate(inst, pol)
    assert pol._fast and pol.walked > 0
    if name == "many-on-6-ports":
        assert pol.found_by_path > 0 and pol.heavy.sum() > 10
    _three_ways(inst, M.baraat, params)


def test_incremental_mlfq_with_a_gap_between_releases():
    # every released coflow finishes before the next release: calls with no active flow
    # must leave the pending service updates for the next call
    from coflowopt import Coflow, Instance
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 3), (1, 1, 2)]),
                                  Coflow("B", [(0, 1, 2)], release=10.0),
                                  Coflow("C", [(1, 0, 5), (0, 0, 1)], release=10.0),
                                  Coflow("D", [(1, 1, 1)], release=30.0)])
    a = _run(inst, M.mlfq, {"thresholds": [1.0, 2.5]}, reference=False)
    b = _run(inst, M.mlfq, {"thresholds": [1.0, 2.5]}, reference=False, incremental=False)
    assert verify_schedule(inst, a).ok
    _same(a, b)
    # A sent 5 and C 6 (past 2.5), B 2 (past 1); D's last byte is sent at the last event,
    # after which the policy is not called again, so its level stays 0
    assert a.meta["final_level"] == [2, 1, 2, 0]


def test_kernel_with_aging_gives_the_reference_bits():
    inst = INSTANCES["uniform-40"]
    a = _run(inst, M.mlfq, {"thresholds": [2.0, 8.0], "aging": 3.0}, reference=False)
    b = _run(inst, M.mlfq, {"thresholds": [2.0, 8.0], "aging": 3.0}, reference=True)
    assert a.meta["promotions"] > 0
    assert np.array_equal(a.rate, b.rate) and np.array_equal(a.end, b.end)


def test_serve_groups_by_hand():
    # three unit ports 0, 1, 2; flows 0: [0, 1], 1: [1], 2: [2], 3: [0, 2]
    # group 0 = {flow 1, flow 0}: max-min on ports 0, 1 -> both 1/2 (port 1 full)
    # group 1 = {flow 3}: port 0 has 1/2 left, port 2 is free -> 1/2
    # group 2 = {flow 2}: port 2 has 1/2 left -> 1/2
    fr_ptr = np.array([0, 2, 3, 4, 6])
    fr = np.array([0, 1, 1, 2, 0, 2])
    fl = np.array([1, 0, 3, 2])
    gptr = np.array([0, 2, 3, 4])
    from coflowopt.policies._class_kernel import serve_groups
    cap = np.ones(3)
    r = serve_groups(fl, gptr, fr_ptr, fr, cap, 1e-12 * cap, 1e-12)
    assert r.tolist() == [0.5, 0.5, 0.5, 0.5]
    # a full port blocks every later flow through it: ports 0 and 2 at capacity 1/2
    cap = np.array([0.5, 1.0, 0.5])
    r = serve_groups(fl, gptr, fr_ptr, fr, cap, 1e-12 * cap, 1e-12)
    assert r.tolist() == [0.5, 0.5, 0.0, 0.5]
    assert cap.tolist() == [0.5, 1.0, 0.5]


# ------------------------------------------------ the compiled event loop (_mlfq_kernel)
def _compiled_and_python(inst, func, params):
    """The compiled event loop (``_mlfq_kernel.slots_simulate``) against the Python engine
    (the same policy, incremental path, on the generic simulator): the same pieces in the
    same order, bit for bit, and the same meta (events, calls, class changes, demotions,
    final levels / heavy coflows); both verified."""
    a = _run(inst, func, params, reference=False)
    b = _run(inst, func, params, reference=False, compiled=False)
    assert verify_schedule(inst, a).ok and verify_schedule(inst, b).ok
    _same(a, b)
    return a


def _random_instances(seed, count):
    rng = np.random.default_rng(seed)
    for i in range(count):
        yield random_instance(rng, max_ports=5, max_coflows=16, max_flows=5,
                              releases=bool(i % 3), heterogeneous=bool(i % 2),
                              weights=bool(i % 4 > 1))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_compiled_loop_random_instances(seed):
    """Seeded random big-switch instances (releases, weights, unequal capacities), several
    threshold sets for mlfq and heavy thresholds for baraat."""
    demoted = heavy = 0
    for inst in _random_instances(seed, 12):
        for th in ([1.0, 4.0], [0.25, 0.5, 2.0, 6.0], []):
            a = _compiled_and_python(inst, M.mlfq, {"thresholds": th})
            demoted += a.meta["demotions"]
        for h in (None, 0.5, 3.0):
            a = _compiled_and_python(inst, M.baraat, {"heavy_threshold": h})
            heavy += sum(a.meta["heavy"])
    assert demoted > 0 and heavy > 0          # crossings happened (inside the loop too)


@pytest.mark.parametrize("paths", [False, True])
def test_compiled_loop_many_coflows_few_ports(paths):
    """300 coflows with releases on 6 ports (and as paths): long runs of blocked coflows,
    groups found by path, many level crossings and heavy classes."""
    inst = uniform_random(num_ports=6, num_coflows=300, size=(1, 30), releases=(0, 40),
                          seed=11)
    if paths:
        inst = big_switch_as_paths(inst)
    a = _compiled_and_python(inst, M.mlfq, {"thresholds": [5.0, 20.0]})
    assert a.meta["demotions"] > 100
    b = _compiled_and_python(inst, M.baraat, {"heavy_threshold": 12.0})
    assert sum(b.meta["heavy"]) > 10


def test_compiled_loop_topologies():
    """Topology instances: a k=4 fat-tree and a leaf-spine, releases and unequal sizes."""
    from coflowopt.topology import fat_tree, leaf_spine, on_topology
    base = uniform_random(num_ports=16, num_coflows=40, size=(1, 20), releases=(0, 10),
                          seed=5)
    for topo in (fat_tree(4), leaf_spine(2, 2, 4)):
        inst = on_topology(base, topo, seed=1)
        assert not inst.is_big_switch
        _compiled_and_python(inst, M.mlfq, {"thresholds": [3.0, 12.0]})
        _compiled_and_python(inst, M.baraat, {})


def test_compiled_loop_is_used_and_reports_its_walk():
    inst = INSTANCES["uniform-40"]
    pol = M.MlfqPolicy([2.0, 8.0])
    pol.reset(inst)
    s, events, calls = M._run_compiled(inst, pol, M._max_events(inst, pol))
    assert pol.walked > 0 and events == calls > inst.num_coflows
    assert verify_schedule(inst, s).ok


def test_compiled_loop_event_budget():
    """More events than allowed: the compiled loop raises as the simulator does."""
    from coflowopt.simulate import SimulationError
    inst = INSTANCES["uniform-40"]
    for compiled in (True, False):
        pol = M.MlfqPolicy([2.0, 8.0])
        pol.reset(inst)
        if compiled:
            with pytest.raises(SimulationError, match="more than 5 events"):
                M._run_compiled(inst, pol, 5)
        else:
            from coflowopt.simulate import simulate
            with pytest.raises(SimulationError, match="more than 5 events"):
                simulate(inst, pol, max_events=5)


def test_compiled_loop_crossing_at_the_event_time():
    """A crossing that float arithmetic puts exactly at the current event (``t + (H - att) /
    rate == t``) is applied at once and the allocation redone, in the compiled loop as in the
    Python engine (a loop that took it as a timer at ``t`` would stop with "no future
    event"; the mutation ``tc <= t`` -> ``tc < t`` fails here).

    By hand, unit ports, threshold H = 1, everything released at R = 1e8 (float spacing
    1.5e-8 there): B = one flow of 2 on port pair (1, 1); A = 1 - 2e-9 on (0, 0) and 3 on
    (1, 1).  At R, B (index 0) takes port 1, A's first flow port 0.  At R + 1 (A's first
    flow's end R + 0.999999998 rounds to R + 1) B has sent 1 = H: demoted (``mlfq``) / heavy
    (``baraat``); A has sent 1 - 2e-9, below H (1 - CROSSING_RTOL), so it stays, is served,
    and its second flow's rate 1 puts its crossing at R + 1 + 2e-9 = R + 1 in float: at once.
    ``mlfq``: both in level 1, FIFO: B to R + 2, then A to R + 5.  ``baraat``: both heavy,
    one class, fair: port 1 halved until B ends at R + 3, then A alone to R + 5."""
    from coflowopt import Coflow, Instance
    R = 1e8
    inst = Instance.from_coflows([Coflow("B", [(1, 1, 2.0)], release=R),
                                  Coflow("A", [(0, 0, 1.0 - 2e-9), (1, 1, 3.0)], release=R)])
    a = _compiled_and_python(inst, M.mlfq, {"thresholds": [1.0]})
    assert a.meta["demotions"] == 2 and a.meta["final_level"] == [1, 1]
    assert a.flow.tolist() == [1, 0, 2]
    assert (a.start - R).tolist() == [0.0, 0.0, 2.0] and (a.end - R).tolist() == [1.0, 2.0, 5.0]
    b = _compiled_and_python(inst, M.baraat, {"heavy_threshold": 1.0})
    assert b.meta["heavy"] == [True, True]
    assert b.flow.tolist() == [1, 0, 0, 2, 2]
    assert (b.end - R).tolist() == [1.0, 1.0, 3.0, 3.0, 5.0]
    # A's first flow: 1 - 2e-9 sent over a piece that float time makes 1 long
    assert b.rate[1:].tolist() == [1.0, 0.5, 0.5, 1.0] and abs(b.rate[0] - 1.0) < 1e-8


@pytest.mark.parametrize("buffer", [1, 3, 64])
def test_compiled_loops_with_small_write_buffers(monkeypatch, buffer):
    """The shared step (``_mlfq_kernel.change_rates`` / ``advance``) stops when the write
    buffers are full and the loop spills them and resumes where it stopped: with buffers of 1,
    3 and 64 pieces (fewer than the flows running at once) ``slots_simulate`` (mlfq, baraat),
    ``levels_simulate`` (creek, decentralized-las) and ``aalo.dclas_simulate`` give the
    pieces of the default buffer, bit for bit (a resume that skipped, repeated or re-advanced
    a flow would lose or double a piece or change ``rem``)."""
    from coflowopt.policies.aalo import aalo
    from coflowopt.rates._pieces import PieceChunks
    inst = uniform_random(num_ports=6, num_coflows=60, size=(1, 30), releases=(0, 10), seed=4)
    runs = [(M.mlfq, {"thresholds": [5.0, 20.0]}), (M.baraat, {"heavy_threshold": 12.0}),
            (M.creek, {"thresholds": [5.0, 20.0]}),
            (M.decentralized_las, {"thresholds": [5.0, 20.0]}),
            (aalo, {"first_threshold": 5.0})]
    wide = [func(inst, **params) for func, params in runs]
    monkeypatch.setattr(PieceChunks.__init__, "__defaults__", (buffer,))
    assert PieceChunks().buffer == buffer
    for (func, params), a in zip(runs, wide):
        b = func(inst, **params)
        assert len(b.flow) > 10 * buffer        # the buffers filled (and spilt) many times
        assert verify_schedule(inst, b).ok
        _same(a, b)
