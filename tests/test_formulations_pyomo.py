"""The Pyomo models and the numpy/highspy builders give the same optima (and export)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings

pytest.importorskip("pyomo")

from coflowopt.formulations import pyomo_models as pm  # noqa: E402
from coflowopt.formulations.highs import solve_with_highs  # noqa: E402
from coflowopt.formulations.interval_lp import build_interval_lp, interval_grid  # noqa: E402
from coflowopt.formulations.lp_ov import build_lp_ov  # noqa: E402
from coflowopt.formulations.time_indexed import (TimeGrid, build_time_indexed,  # noqa: E402
                                                 safe_horizon)
from coflowopt.testing import instances  # noqa: E402


def _same(a, b):
    assert a == pytest.approx(b, rel=1e-6, abs=1e-7)


@settings(max_examples=12, deadline=None)
@given(inst=instances(max_ports=2, max_coflows=4, max_flows=2, releases=True,
                      heterogeneous=True))
def test_time_indexed_paths_agree(inst):
    # enough slots for the slotted model to be feasible: the safe horizon plus one slot per
    # coflow (a release may waste the rest of a slot)
    T = int(math.ceil(safe_horizon(inst) / 2.0)) + inst.num_coflows + 1
    grid = TimeGrid(2.0, T)
    for kw in ({}, {"mean_busy_time": False}, {"model": "slotted"}):
        a = solve_with_highs(build_time_indexed(inst, grid, **kw), algorithm="simplex")
        status, b = pm.solve_model(pm.time_indexed_model(inst, 2.0, T, **kw))
        assert a.status == status == "optimal"
        _same(a.objective, b)


def test_time_indexed_mip_paths_agree():
    from coflowopt.generators import uniform_random
    for seed in range(2):
        inst = uniform_random(2, 3, seed=seed, flows_per_coflow=(1, 2), size=(1, 4))
        T = int(math.ceil(safe_horizon(inst))) + 1
        grid = TimeGrid(1.0, T)
        a = solve_with_highs(build_time_indexed(inst, grid, model="slotted", mip=True),
                             algorithm="choose")
        status, b = pm.solve_model(pm.time_indexed_model(inst, 1.0, T, model="slotted",
                                                         mip=True))
        assert a.status == status == "optimal"
        _same(a.objective, b)


@settings(max_examples=15, deadline=None)
@given(inst=instances(max_ports=3, max_coflows=5, releases=True, heterogeneous=True))
def test_interval_and_lp_ov_paths_agree(inst):
    g = interval_grid(inst, epsilon=0.3)
    a = solve_with_highs(build_interval_lp(inst, g), algorithm="simplex")
    _same(a.objective, pm.solve_model(pm.interval_lp_model(inst, g.tau))[1])
    for ports in ("used", "all"):
        a = solve_with_highs(build_lp_ov(inst, ports=ports), algorithm="simplex")
        _same(a.objective, pm.solve_model(pm.lp_ov_model(inst, ports=ports))[1])


def test_export_lp_and_mps(tmp_path):
    from coflowopt.testing import digest_ts4
    m = pm.ordering_lp_model(digest_ts4())
    for name in ("m.lp", "m.mps"):
        path = pm.write_model(m, str(tmp_path / name))
        text = open(path).read()
        assert "C(0)" in text or "C(0)" in text.replace("_", "")
    with pytest.raises(ValueError):
        pm.write_model(m, str(tmp_path / "m.txt"))
    # the exported LP solves to the same optimum with highspy
    import highspy
    h = highspy.Highs()
    h.silent()
    h.readModel(str(tmp_path / "m.mps"))
    h.run()
    assert h.getInfo().objective_function_value == pytest.approx(32.0)


@pytest.mark.parametrize("name, words", [
    ("m.txt", "ending in .lp or .mps"), ("abc", "ending in .lp or .mps"),
    ("nope/m.lp", "no such folder"),
])
def test_highs_export_names_are_checked(tmp_path, name, words):
    """``bound --method interval-lp -p export=abc`` ran the LP, HiGHS wrote nothing (it picks
    the format by the suffix) and the command reported a solver error (exit 4): a bad name is
    the caller's, refused by name (found by the parameter fuzz)."""
    from coflowopt.exceptions import InvalidParameterError
    from coflowopt.formulations.highs import HighsModel
    from coflowopt.formulations.lp_ov import build_lp_ov
    from coflowopt.testing import digest_ts4
    model = HighsModel(build_lp_ov(digest_ts4()))
    with pytest.raises(InvalidParameterError, match=words):
        model.write(str(tmp_path / name))
    model.write(str(tmp_path / "m.LP"))
    assert (tmp_path / "m.LP").stat().st_size > 0


@pytest.mark.parametrize("threads, words", [(-1, "integer >= 0"), (10**30, "at most 1024"),
                                            (1.5, "integer >= 0")])
def test_highs_threads_are_checked(threads, words):
    """``bound --method lp-ov-branch -p threads=-1`` reached HiGHS, which refused the option,
    and the command reported a solver error (exit 4); now the caller's parameter is refused."""
    from coflowopt.exceptions import InvalidParameterError
    from coflowopt.formulations.highs import HighsModel
    with pytest.raises(InvalidParameterError, match=words):
        HighsModel(threads=threads)
    assert HighsModel(threads=1).options["threads"] == 1
