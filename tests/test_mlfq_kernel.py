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


def _run(inst, func, params, reference):
    if reference:
        # the reference engine: the numpy loop over the groups
        saved = M._ClassPolicy._serve
        M._ClassPolicy._serve = M._ClassPolicy._serve_python
        try:
            return func(inst, **params)
        finally:
            M._ClassPolicy._serve = saved
    return func(inst, **params)


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
