"""Property tests of the exact solvers over many small random instances (with and without
release dates, heterogeneous capacities, weights):

* branch and bound = brute force over all event sequences (proofs/completion-order-lp-exact.md,
  Theorem 1 and the B&B theorem);
* the optimum is at most every verified feasible schedule (greedy with random orders, FIFO) and
  at least the isolated bound ``sum_k w_k (r_k + rho_k)`` and the DP bound (Lemma 6);
* the slotted MIP's optimum is at least the fluid optimum;
* a run stopped by a limit never says ``optimal``, and its bound is below every schedule.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from coflowopt.exact import bnb, enumerate_orders, slotted_mip
from coflowopt.exact.subset_bounds import SubsetBounds
from coflowopt.orderings.basic import fifo
from coflowopt.rates.greedy import greedy
from coflowopt.testing import instances
from coflowopt.verify import verify_schedule

REL = 1e-9


def _check_optimal(inst, res):
    assert res.kind == "optimal", res.message
    rep = verify_schedule(inst, res.schedule, mode="exact")
    assert rep.ok and rep.weighted_completion_time == res.value
    assert float(res.bound) <= float(res.value)
    assert float(res.value) - float(res.bound) <= REL * float(res.value)


@settings(max_examples=25, deadline=None)
@given(inst=instances(max_ports=3, max_coflows=4, max_flows=3, releases=True, weights=True,
                      heterogeneous=True))
def test_bnb_equals_brute_force(inst):
    res = bnb(inst, time_limit=60)
    ref = enumerate_orders(inst)
    _check_optimal(inst, res)
    assert float(res.value) == pytest.approx(float(ref.value), rel=1e-8, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(inst=instances(max_ports=3, max_coflows=6, max_flows=3, releases=True, weights=True,
                      heterogeneous=True), seed=st.integers(0, 2 ** 31))
def test_optimum_between_bounds_and_schedules(inst, seed):
    res = bnb(inst, time_limit=60)
    _check_optimal(inst, res)
    opt = float(res.value)
    iso = math.fsum((inst.weight * (inst.release + inst.rho)).tolist())
    assert opt >= iso * (1 - REL)
    dp = SubsetBounds(inst, np.flatnonzero(inst.weight > 0)).dpb(
        (1 << int(np.sum(inst.weight > 0))) - 1)
    assert opt >= dp * (1 - REL)
    rng = np.random.default_rng(seed)
    orders = [fifo(inst)] + [rng.permutation(inst.num_coflows) for _ in range(5)]
    for order in orders:
        rep = verify_schedule(inst, greedy(inst, order))
        assert rep.ok
        assert opt <= rep.weighted_completion_time * (1 + REL)


@settings(max_examples=15, deadline=None)
@given(inst=instances(max_ports=2, max_coflows=3, max_flows=2, releases=True, weights=True,
                      integer_sizes=True))
def test_slotted_optimum_is_at_least_the_fluid_optimum(inst):
    fluid = bnb(inst, time_limit=60)
    slot = slotted_mip(inst, delta=1.0, time_limit=60)
    assert slot.kind == "feasible" and slot.status == "slotted_optimal"
    assert slot.extra["slotted_value"] >= float(fluid.value) * (1 - 1e-7)
    # the slotted solution, run as a fluid schedule, costs at most the slotted optimum
    assert float(slot.value) <= slot.extra["slotted_value"] * (1 + 1e-7)
    assert float(slot.value) >= float(fluid.value) * (1 - REL)


@settings(max_examples=20, deadline=None)
@given(inst=instances(max_ports=3, max_coflows=6, max_flows=3, releases=True, weights=True,
                      heterogeneous=True))
def test_limited_run_never_says_optimal(inst):
    full = bnb(inst, time_limit=60)
    for kw in ({"max_nodes": 0}, {"time_limit": 1e-6}):
        res = bnb(inst, **kw)
        assert res.kind != "optimal" and res.status in ("node_limit", "time_limit")
        assert verify_schedule(inst, res.schedule).ok
        assert float(res.bound) <= float(full.value) * (1 + REL)
