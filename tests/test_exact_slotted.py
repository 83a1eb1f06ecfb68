"""The slotted time-indexed MIP: its matrix builder against the naive Pyomo twin, its safe
horizon, and its relation to the fluid optimum (an upper bound)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from coflowopt import Coflow, Instance
from coflowopt.exact import bnb, pyomo_slotted_mip, slotted_mip
from coflowopt.exact.slotted_mip import slotted_horizon
from coflowopt.exceptions import InvalidParameterError
from coflowopt.generators import uniform_random
from coflowopt.library import load_instance
from coflowopt.testing import digest_ts4
from coflowopt.verify import verify_schedule


@pytest.mark.parametrize("seed", range(4))
def test_matrix_mip_equals_pyomo_twin(seed):
    kw = {"releases": (0, 4)} if seed % 2 else {}
    inst = uniform_random(3, 3, flows_per_coflow=(1, 3), size=(1, 4), seed=seed,
                          weights=(1, 3), **kw)
    res = slotted_mip(inst, delta=1.0, time_limit=60)
    twin = pyomo_slotted_mip(inst, delta=1.0, time_limit=60)
    assert res.status == "slotted_optimal" and twin["status"] == "optimal"
    assert res.extra["slotted_value"] == pytest.approx(twin["objective"], rel=1e-9)
    assert twin["slots"] == res.extra["slots"]


def test_slotted_is_an_upper_bound_and_coarse_slots_cost_more():
    inst = digest_ts4()
    fluid = float(bnb(inst, time_limit=30).value)
    for delta in (1.0, 4.0):
        res = slotted_mip(inst, delta=delta, time_limit=60)
        assert res.kind == "feasible" and res.status == "slotted_optimal"
        # the bound is a certified bound on the FLUID optimum (coflowopt.bounds), never the
        # MIP's slotted bound
        assert res.bound is not None and float(res.bound) <= fluid + 1e-9
        assert res.extra["fluid_bound"] in {"lp-ov", "lp-ov-branch", "ordering-lp",
                                            "time-indexed-lp",
                                            "interval-lp", "bssi-dual", "port", "isolated"}
        assert res.extra["slotted_value"] >= fluid - 1e-9
        assert float(res.value) <= res.extra["slotted_value"] + 1e-9
        assert verify_schedule(inst, res.schedule).ok
    coarse = slotted_mip(inst, delta=4.0, time_limit=60)
    assert coarse.extra["slotted_value"] > fluid    # 33 is not reachable on a grid of 4


def test_fractional_release_waits_for_the_next_slot():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1.0)], release=0.5)])
    res = slotted_mip(inst, delta=1.0, time_limit=10)
    assert res.extra["slotted_value"] == 2.0     # the slot [1, 2)
    assert bnb(inst, time_limit=10).value == Fraction(3, 2)


def test_safe_horizon_is_not_binding():
    inst = load_instance("papers/dissertation-fig6.1")
    hz = slotted_horizon(inst, 1.0)
    a = slotted_mip(inst, delta=1.0, time_limit=60)
    b = slotted_mip(inst, delta=1.0, horizon=2 * hz["safe"], time_limit=60)
    assert a.extra["horizon_proven_safe"] and b.extra["horizon_proven_safe"]
    assert a.extra["slotted_value"] == pytest.approx(b.extra["slotted_value"])
    short = slotted_mip(inst, delta=1.0, horizon=3, time_limit=60)
    assert not short.extra["horizon_proven_safe"]
    assert short.status != "slotted_optimal"
    with pytest.raises(InvalidParameterError):
        slotted_mip(inst, horizon="long")
    with pytest.raises(InvalidParameterError):
        slotted_horizon(inst, 0.0)


def test_zero_weight_uses_the_compression_horizon():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2)], weight=0.0),
                                  Coflow("B", [(0, 0, 1)], weight=1.0)])
    hz = slotted_horizon(inst, 1.0)
    assert hz["incumbent"] is None and hz["safe"] == hz["compression"]
    res = slotted_mip(inst, delta=1.0, time_limit=10)
    assert res.extra["slotted_value"] == 1.0
