"""Time-indexed LP (fluid lower bound) and MIP (slotted model), interval LP and LP-OV."""

from __future__ import annotations

from fractions import Fraction

import re

import numpy as np
import pytest
from hypothesis import given, settings

from coflowopt.formulations.certificates import certify_lp
from coflowopt.formulations.highs import solve_with_highs
from coflowopt.formulations.interval_lp import (build_interval_lp, interval_grid,
                                                lp_completion_times)
from coflowopt.formulations.lp_ov import build_lp_ov
from coflowopt.formulations.ordering_lp import solve_ordering_lp
from coflowopt.formulations.time_indexed import (TimeGrid, build_time_indexed, default_grid,
                                                 flow_groups, safe_horizon, slotted_schedule)
from coflowopt.generators import uniform_random
from coflowopt.rates.greedy import greedy
from coflowopt.testing import digest_ts4, instances
from coflowopt.verify import verify_schedule


def _greedy_costs(inst):
    orders = [np.arange(inst.num_coflows), np.argsort(inst.rho, kind="stable"),
              np.argsort(inst.release, kind="stable")]
    out = []
    for o in orders:
        rep = verify_schedule(inst, greedy(inst, o))
        assert rep.ok
        out.append(float(rep.weighted_completion_time))
    return out


def test_flow_groups_merge_pairs():
    from coflowopt import Coflow, Instance
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1), (0, 0, 2), (1, 0, 3)])])
    g = flow_groups(inst)
    assert g.num_groups == 2 and sorted(g.size.tolist()) == [3.0, 3.0]


def test_safe_horizon_covers_a_sequential_schedule():
    inst = uniform_random(3, 6, seed=2, releases=(0, 5))
    assert safe_horizon(inst) >= float(inst.release.max())
    assert safe_horizon(inst) >= float(np.sum(inst.rho)) - 1e-9


@settings(max_examples=20, deadline=None)
@given(inst=instances(max_ports=3, max_coflows=4, releases=True, heterogeneous=True))
def test_time_indexed_lp_is_a_certified_lower_bound(inst):
    lp = build_time_indexed(inst, default_grid(inst, target_slots=12))
    sol = solve_with_highs(lp, algorithm="ipm", crossover=False)
    assert sol.status == "optimal"
    chk = certify_lp(lp, sol.row_dual)
    assert chk.ok
    assert float(chk.value) <= min(_greedy_costs(inst)) * (1 + 1e-9)
    assert float(chk.value) == pytest.approx(sol.objective, rel=1e-6)


def test_no_overflow_needs_the_safe_horizon():
    inst = uniform_random(2, 3, seed=0)
    with pytest.raises(ValueError):
        build_time_indexed(inst, TimeGrid(1.0, 2), overflow=False)
    T = int(np.ceil(safe_horizon(inst)))
    with_over = build_time_indexed(inst, TimeGrid(1.0, T))
    without = build_time_indexed(inst, TimeGrid(1.0, T), overflow=False)
    a = solve_with_highs(with_over, algorithm="simplex").objective
    b = solve_with_highs(without, algorithm="simplex").objective
    assert a <= b + 1e-7          # the overflow slot only relaxes


def test_slotted_mip_upper_bounds_the_fluid_optimum():
    for seed in range(3):
        inst = uniform_random(2, 3, seed=seed, size=(1, 4), releases=(0, 3) if seed else None)
        grid = TimeGrid(1.0, int(np.ceil(safe_horizon(inst))) + inst.num_coflows + 1)
        mip = build_time_indexed(inst, grid, model="slotted", mip=True)
        sol = solve_with_highs(mip, algorithm="choose")
        assert sol.status == "optimal"
        rep = verify_schedule(inst, slotted_schedule(inst, mip, sol.x))
        assert rep.ok
        assert float(rep.weighted_completion_time) <= sol.objective * (1 + 1e-7)
        # its LP relaxation bounds the slotted optimum (not the fluid one)
        relax = build_time_indexed(inst, grid, model="slotted")
        assert solve_with_highs(relax).objective <= sol.objective * (1 + 1e-7)
        # and the fluid LP bound is below the MIP's verified schedule
        flu = build_time_indexed(inst, grid)
        assert solve_with_highs(flu).objective <= float(rep.weighted_completion_time) + 1e-6


def test_fluid_lp_with_releases_before_a_slot_end():
    """A release inside a slot: the fluid LP may use the rest of that slot (the slotted model
    may not)."""
    from coflowopt import Coflow, Instance
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1.0)], release=0.5)])
    lp = build_time_indexed(inst, TimeGrid(1.0, 4))
    assert solve_with_highs(lp).objective == pytest.approx(1.5)


def test_ts4_time_indexed_lp_below_opt():
    inst = digest_ts4()
    lp = build_time_indexed(inst, TimeGrid(0.5, 40))
    sol = solve_with_highs(lp, algorithm="simplex")
    chk = certify_lp(lp, sol.row_dual)
    assert chk.ok and float(chk.value) <= 33


@settings(max_examples=20, deadline=None)
@given(inst=instances(max_ports=3, max_coflows=5, releases=True, heterogeneous=True))
def test_interval_lp_is_a_certified_lower_bound(inst):
    lp = build_interval_lp(inst, interval_grid(inst, epsilon=0.2))
    sol = solve_with_highs(lp, algorithm="ipm", crossover=False)
    chk = certify_lp(lp, sol.row_dual)
    assert chk.ok and float(chk.value) <= min(_greedy_costs(inst)) * (1 + 1e-9)
    C = lp_completion_times(inst, lp, sol.x)
    assert np.all(C >= inst.release + inst.rho - 1e-7)


@settings(max_examples=20, deadline=None)
@given(inst=instances(max_ports=3, max_coflows=5, releases=True, heterogeneous=True))
def test_lp_ov_dominates_ordering_lp_without_release_rows(inst):
    """LP-OV's rows imply the parallel inequalities (formulations/lp_ov.md)."""
    lp = build_lp_ov(inst)
    sol = solve_with_highs(lp, algorithm="simplex")
    chk = certify_lp(lp, sol.row_dual)
    assert chk.ok and float(chk.value) <= min(_greedy_costs(inst)) * (1 + 1e-9)
    ordering = solve_ordering_lp(inst, release_cuts=False)
    assert sol.objective >= ordering.objective * (1 - 1e-7) - 1e-9
    allp = solve_with_highs(build_lp_ov(inst, ports="all"), algorithm="simplex")
    assert allp.objective >= sol.objective * (1 - 1e-7) - 1e-9


def test_exact_data_when_float_sums_round():
    """Sizes whose float sums round: the builders carry the exact sums and the certified
    bound is still below a verified schedule."""
    from coflowopt import Coflow, Instance
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 0.1), (0, 0, 0.2), (1, 0, 0.7)]),
                                  Coflow("B", [(0, 1, 0.3), (1, 1, 0.1), (1, 1, 0.2)])])
    for lp in (build_time_indexed(inst, TimeGrid(0.125, 16)),
               build_interval_lp(inst, interval_grid(inst, epsilon=0.1)), build_lp_ov(inst)):
        assert "A_data" in lp.exact or "row_lo" in lp.exact
        sol = solve_with_highs(lp, algorithm="simplex")
        chk = certify_lp(lp, sol.row_dual)
        assert chk.ok and float(chk.value) <= min(_greedy_costs(inst)) + 1e-12
    assert isinstance(chk.value, Fraction)


@pytest.mark.parametrize("kwargs, words", [
    ({"slot": 1e-320}, "more than 10000000 slots"),
    ({"slot": 1e30}, "slot = 1e+30 is beyond"),
    ({"horizon": 1e30}, "horizon = 1e+30 is beyond"),
    ({"target_slots": 10**30}, "target_slots must be at most 10000000"),
])
def test_grids_beyond_float_range_are_refused_by_name(kwargs, words):
    """Found by a fuzz of every registered parameter: slot = 1e-320 overflowed int() (an
    internal error of ``bound --method time-indexed-lp`` and ``slow-motion``); a slot or
    horizon of 1e30 made coefficients HiGHS rejects (exit 4, "passModel returned kError");
    target_slots = 10^30 was reported as "N slots: choose a larger slot length"."""
    from coflowopt.exceptions import InvalidParameterError
    from coflowopt.formulations.time_indexed import default_grid
    from coflowopt.generators import uniform_random
    inst = uniform_random(3, 4, seed=0)
    with pytest.raises(InvalidParameterError, match=re.escape(words)):
        default_grid(inst, horizon=kwargs.pop("horizon", 31.0), **kwargs)
    assert default_grid(inst, horizon=31.0, slot=0.5).T == 62
