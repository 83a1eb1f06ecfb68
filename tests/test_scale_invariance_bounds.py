"""Scale invariance of every registered bound and exact method (issue 10, item 10).

Multiplying every size (and every release and deadline) by ``s`` multiplies every completion
time, hence every lower bound and every optimum, by ``s``; multiplying every capacity by ``c``
(and every time by ``1 / c``) multiplies them by ``1 / c``.  The certified bounds and the exact
optima must follow to 1e-9 relative (the rounding of a rescaled float computation).  What used
to break it: LPs solved in the instance's units against HiGHS's absolute tolerances (the
ordering LP lost 40 % of its bound at sizes x1e-6; now every LP is built in the units of
:func:`coflowopt.formulations.certificates.unit_scaling`), an absolute snap of LP amounts in
the exact rebuild (``exact`` failed on a 1e-9 rescaling), absolute optimality tolerances.

Scale-dependent by design: the time-indexed LP's *default* grid is a power of two near
``horizon / 48``, which a non-power-of-two rescaling moves to a different grid (a different,
equally valid bound); with the grid given in the instance's time unit (``slot`` and ``horizon``
rescaled with it) the bound scales like the others.  ``slotted-mip`` solves the slotted model
for a given ``delta`` (a time); ``deadline-mip`` needs deadlines; both are checked below with
their time parameters rescaled.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from coflowopt import Coflow, Instance
from coflowopt.exact import bnb, enumerate_orders
from coflowopt.registry import algorithms
from coflowopt.testing import random_instance

RTOL = 1e-9
#: (what is scaled, the factor, the factor on completion times)
SCALINGS = [("sizes", 1e-6, 1e-6), ("sizes", 1e6, 1e6), ("capacities", 1e-6, 1e6),
            ("capacities", 1e6, 1e-6)]
BOUNDS = sorted(a.name for a in algorithms("bound"))


def scaled(inst: Instance, what: str, f: float) -> Instance:
    if what == "sizes":
        return inst.replace(flow_size=inst.flow_size * f, release=inst.release * f,
                            deadline=inst.deadline * f)
    return inst.replace(ingress_capacity=inst.ingress_capacity * f,
                        egress_capacity=inst.egress_capacity * f,
                        release=inst.release / f, deadline=inst.deadline / f)


def _close(got, want) -> bool:
    got, want = float(got), float(want)
    return abs(got - want) <= RTOL * abs(want)


def _bound(name: str, inst: Instance, time_unit: float = 1.0, grid=None):
    func = next(a.func for a in algorithms("bound") if a.name == name)
    if name == "time-indexed-lp" and grid is not None:
        return func(inst, slot=grid[0] * time_unit, horizon=grid[1] * time_unit)
    return func(inst)


instances = st.integers(0, 2 ** 32 - 1).map(
    lambda seed: random_instance(np.random.default_rng(seed), max_coflows=4, max_ports=3,
                                 releases=True, weights=True, heterogeneous=True,
                                 name=f"seed{seed}"))


@pytest.mark.parametrize("name", BOUNDS)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inst=instances)
def test_every_bound_scales(name, inst):
    base = _bound(name, inst)
    assert base.kind == "lower_bound", base.message
    grid = (base.params["slot"], base.params["horizon"]) if name == "time-indexed-lp" else None
    for what, f, t in SCALINGS:
        res = _bound(name, scaled(inst, what, f), time_unit=t, grid=grid)
        assert res.kind == "lower_bound", (name, what, f, res.message)
        assert _close(res.value, base.value * t), (name, what, f, float(res.value),
                                                   float(base.value) * t)


@pytest.mark.parametrize("method", ["bnb", "enumerate-orders"])
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          derandomize=True)   # the same examples in every run: the known failure below is kept
@given(inst=instances)      # apart, not left to chance
def test_every_exact_optimum_scales(method, inst):
    run = (lambda i: bnb(i, time_limit=30)) if method == "bnb" else enumerate_orders
    base = run(inst)
    assert base.kind == "optimal"
    for what, f, t in SCALINGS:
        res = run(scaled(inst, what, f))
        assert res.kind == "optimal", (method, what, f, res.status, res.message)
        assert _close(res.value, base.value * t), (method, what, f)
        assert _close(res.bound, base.bound * t)


def test_slotted_and_deadline_mips_scale_with_their_time_parameters():
    from coflowopt.exact import deadline_mip, slotted_mip
    # sizes away from whole slots: a flow that exactly fills its slots is a tie that a
    # rescaling's rounding may break either way (the slotted model is discrete)
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 0.9)], deadline=1.5),
                                  Coflow("B", [(0, 0, 1.7), (1, 1, 1.6)], deadline=3.5)])
    base = slotted_mip(inst, delta=1.0, time_limit=20)
    dbase = deadline_mip(inst, time_limit=20)
    for what, f, t in SCALINGS:
        s = scaled(inst, what, f)
        res = slotted_mip(s, delta=t, time_limit=20)
        assert res.status == base.status and _close(res.value, base.value * t), (what, f)
        d = deadline_mip(s, time_limit=20)
        assert (d.kind, d.value) == (dbase.kind, dbase.value)


@pytest.mark.parametrize("method", ["bnb", "enumerate-orders"])
def test_exact_on_a_1e9_rescaling_of_a_trivial_instance(method):
    """The issue: ``exact`` failed ("the LP sends nothing of flow pair 0") at sizes ~1e-9."""
    inst = Instance.from_coflows([Coflow("a", [(0, 0, 1e-9)]),
                                  Coflow("b", [(0, 0, 2e-9), (1, 1, 1e-9)])])
    res = bnb(inst, time_limit=20) if method == "bnb" else enumerate_orders(inst)
    assert res.kind == "optimal" and _close(res.value, 4e-9)
    assert res.report.ok and res.report.mode == "exact"


def test_bounds_at_the_ends_of_the_size_range():
    """Sizes at 1e-9 and 1e12 (coflowopt.limits' range): every bound certifies a value and
    the grid bounds do not overflow (subnormal sizes are refused at read, see limits)."""
    for s in (1e-9, 1e12):
        inst = Instance.from_coflows([Coflow("a", [(0, 0, s)]), Coflow("b", [(0, 0, s)])])
        for name in BOUNDS:
            res = _bound(name, inst)
            assert res.kind == "lower_bound", (name, s, res.message)
            assert float(res.value) <= 3 * s * (1 + RTOL)   # the optimum is s + 2 s


def test_enumerate_orders_at_sizes_times_1e6():
    """Was a known limitation: enumerate-orders solved its event LPs in the instance's units,
    and at sizes x1e6 HiGHS ended three of this instance's 24 order LPs with status 'unknown'
    (no order bound proved: feasible/gap_not_closed).  The event LPs are now written in the LP
    units of formulations.certificates.unit_scaling (exact powers of two), so the rescaled
    instance is solved like the original, with the same optimum times 1e6 x 1e6 / 1e6."""
    inst = random_instance(np.random.default_rng(257065), max_coflows=4, max_ports=3,
                           releases=True, weights=True, heterogeneous=True, name="seed257065")
    base = enumerate_orders(inst)
    assert base.kind == "optimal"
    res = enumerate_orders(inst.scaled(1e6, 1e6))
    assert res.kind == "optimal", res.message
    assert _close(res.value, float(base.value) * 1e6)
