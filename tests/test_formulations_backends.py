"""Backends: HiGHS option read-back and status table; OR-Tools only in a subprocess; gurobipy
within its licence.  Tests of an absent backend are skipped."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

from coflowopt.exceptions import SolverError
from coflowopt.formulations.backends import available_backends, solve_lp
from coflowopt.formulations.certificates import certify_lp
from coflowopt.formulations.highs import HIGHS_STATUS, HighsModel, map_highs_status
from coflowopt.formulations.linear_program import LinearProgram
from coflowopt.formulations.lp_ov import build_lp_ov
from coflowopt.generators import uniform_random
from coflowopt.testing import digest_ts4

HAS_ORTOOLS = importlib.util.find_spec("ortools") is not None
HAS_GUROBI = importlib.util.find_spec("gurobipy") is not None


def test_highs_option_is_read_back():
    m = HighsModel(algorithm="simplex")
    assert m.options["solver"] == "simplex"
    with pytest.raises(SolverError):
        m.set_option("solver", "no-such-solver")     # HiGHS keeps its default: refused
    with pytest.raises(ValueError):
        HighsModel(algorithm="hipo")


def test_ipm_is_ipx_by_name():
    # HiGHS's own "ipm" becomes HiPO when highspy-extras is installed (another point of a
    # non-unique optimum): our "ipm" must ask for IPX by name, whatever is installed
    m = HighsModel(algorithm="ipm", crossover=False)
    assert m.options["solver"] == "ipx"
    assert m.h.getOptionValue("solver")[1] == "ipx"


def test_status_table_and_fallback():
    import highspy
    for name in highspy.HighsModelStatus.__members__:
        st = map_highs_status(name)
        assert st == HIGHS_STATUS.get(name, f"highs:{name}")
    assert map_highs_status("kSomethingNew") == "highs:kSomethingNew"


def test_time_limit_maps_to_status():
    inst = uniform_random(6, 40, seed=0)
    lp = build_lp_ov(inst)
    m = HighsModel(lp, algorithm="ipm")
    sol = m.run(time_limit=1e-6)
    assert sol.status in ("time_limit", "optimal")
    if sol.status == "time_limit":
        assert sol.row_dual is None or certify_lp(lp, sol.row_dual).status in ("certified",
                                                                               "rejected")


def test_time_limit_is_per_run_not_summed_over_runs():
    """HiGHS compares its ``time_limit`` option with the run time summed over all runs of
    the object; ``HighsModel.run(time_limit=...)`` means seconds for this run.  A second run,
    warm after a cost change, given half of what the first run took, still solves (the raw
    option would have stopped it at once: "Time limit reached")."""
    inst = uniform_random(10, 60, seed=1)
    lp = build_lp_ov(inst)
    m = HighsModel(lp, algorithm="simplex")
    first = m.run()
    assert first.status == "optimal"
    spent = m.h.getRunTime()
    assert spent > 0
    m.h.changeColCost(0, float(lp.c[0]) + 1.0)
    again = m.run(time_limit=spent / 2)
    assert again.status == "optimal", again.raw_status
    assert m.options["time_limit"] > spent        # the option is the sum plus the limit


def test_infeasible_lp_status():
    lp = LinearProgram("inf", c=np.array([1.0]), A=sp.csr_matrix(np.array([[1.0], [1.0]])),
                       row_lo=np.array([2.0, -np.inf]), row_hi=np.array([np.inf, 1.0]),
                       col_lo=np.zeros(1), col_hi=np.array([np.inf]))
    sol = solve_lp(lp, "highs", algorithm="simplex")
    assert sol.status == "infeasible" and sol.objective is None or sol.status == "infeasible"


@pytest.mark.skipif(not HAS_ORTOOLS, reason="ortools not installed")
@pytest.mark.parametrize("backend", ["ortools-glop", "ortools-pdlp"])
def test_ortools_in_subprocess_agrees_with_highs(backend):
    import highspy  # noqa: F401 - loaded here on purpose: the worker is another process
    inst = uniform_random(3, 5, seed=1, releases=(0, 5))
    lp = build_lp_ov(inst)
    ref = solve_lp(lp, "highs", algorithm="simplex")
    before = {m for m in sys.modules if m.startswith("ortools")}
    sol = solve_lp(lp, backend)
    assert sol.status == "optimal" and sol.solver["process"] == "subprocess"
    chk = certify_lp(lp, sol.row_dual)
    assert chk.ok and float(chk.value) == pytest.approx(ref.objective, rel=1e-5)
    assert float(chk.value) <= ref.objective * (1 + 1e-9)
    # nothing of OR-Tools was imported here (another test's cvxpy may have imported the bare
    # top-level package, which loads no solver library)
    assert {m for m in sys.modules if m.startswith("ortools")} == before
    assert "ortools.linear_solver" not in sys.modules


@pytest.mark.skipif(not HAS_ORTOOLS, reason="ortools not installed")
def test_ortools_worker_never_sees_highspy():
    from coflowopt.formulations.backends import run_in_ortools_worker
    out = run_in_ortools_worker("import_clash_probe")
    assert out == {"highspy_loaded": False, "ortools_loaded": True}


@pytest.mark.skipif(not HAS_ORTOOLS, reason="ortools not installed")
def test_the_clash_is_real():
    """Documents why OR-Tools runs in a subprocess (google/or-tools#5246): importing both in
    one process fails with highspy >= 1.15.  If this starts passing, the clash is fixed."""
    code = "import highspy; from ortools.linear_solver import pywraplp; print('ok')"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if r.returncode == 0:
        pytest.skip("highspy and OR-Tools import together in this environment")
    assert "undefined symbol" in r.stderr or "ImportError" in r.stderr


@pytest.mark.skipif(not HAS_GUROBI, reason="gurobipy not installed")
def test_gurobi_within_and_beyond_the_licence():
    inst = uniform_random(3, 5, seed=1)
    lp = build_lp_ov(inst)
    sol = solve_lp(lp, "gurobi")
    ref = solve_lp(lp, "highs", algorithm="simplex")
    assert sol.status == "optimal" and sol.objective == pytest.approx(ref.objective)
    assert certify_lp(lp, sol.row_dual).ok
    big = LinearProgram("big", c=np.ones(2001), A=sp.csr_matrix((1, 2001)),
                        row_lo=np.array([-np.inf]), row_hi=np.array([1.0]),
                        col_lo=np.zeros(2001), col_hi=np.ones(2001))
    out = solve_lp(big, "gurobi")
    assert out.status == "licence_limit" and out.objective is None


def test_missing_backend_is_reported(monkeypatch):
    import coflowopt.formulations.backends as b
    monkeypatch.setattr(b, "available_backends",
                        lambda: {k: k == "highs" for k in b.BACKENDS})
    from coflowopt.exceptions import SolverNotAvailableError
    with pytest.raises(SolverNotAvailableError):
        b.solve_lp(build_lp_ov(uniform_random(2, 2, seed=0)), "gurobi")
    assert available_backends()["highs"]


# ----------------------------------------------------------------------------- duals (issue 10)
@pytest.mark.parametrize("backend", ["ortools-cp-sat", "ortools-scip"])
@pytest.mark.parametrize("bound", ["lp-ov", "interval-lp", "time-indexed-lp"])
def test_mip_backends_are_refused_for_lp_bounds(backend, bound):
    """CP-SAT and SCIP return no LP duals: an LP bound refuses them (before OR-Tools is even
    looked for), instead of certifying a silently weaker figure."""
    from coflowopt.exceptions import InvalidParameterError
    from coflowopt.registry import get_algorithm
    with pytest.raises(InvalidParameterError, match="returns no LP duals"):
        get_algorithm("bound", bound).func(digest_ts4(), backend=backend)


def test_bounds_name_their_backend_and_certificate_source():
    from coflowopt.bounds import isolated_bound, lp_ov_bound
    r = lp_ov_bound(digest_ts4())
    assert (r.backend, r.certificate_source) == ("highs", "solver duals")
    assert r.to_dict()["backend"] == "highs"
    assert abs(r.extra["certificate_shortfall"]) < 1e-9
    r = isolated_bound(digest_ts4())
    assert (r.backend, r.certificate_source) == (None, "constructed")


def _fake_backend(monkeypatch, duals):
    """Make the LP bounds' solver return HiGHS's objective with the given duals (a backend that
    gives no usable duals)."""
    import coflowopt.bounds.lp_bounds as lpb
    real = lpb.solve_lp

    def fake(lp, backend, **kw):
        sol = real(lp, "highs", **kw)
        sol.row_dual = duals(sol.row_dual)
        sol.solver = {"name": "fake", "algorithm": "no-duals"}
        return sol
    monkeypatch.setattr(lpb, "solve_lp", fake)


def test_zero_duals_fall_back_to_a_weaker_bound_and_say_by_how_much(monkeypatch):
    """What CP-SAT / SCIP did: zero duals, repaired exactly into the column bounds: the figure
    is valid (26 on T-S4, the isolated bound) but the result says it is 18.75 % below the
    LP's 32."""
    from coflowopt.bounds import lp_ov_bound
    _fake_backend(monkeypatch, np.zeros_like)
    r = lp_ov_bound(digest_ts4())
    assert r.kind == "lower_bound" and r.value == 26
    assert r.extra["certificate_shortfall"] == pytest.approx(6 / 32)
    assert "WEAKER than the LP" in r.message and "32" in r.message
    assert (r.backend, r.certificate_source) == ("fake", "solver duals")


def test_no_duals_give_no_number(monkeypatch):
    from coflowopt.bounds import lp_ov_bound
    _fake_backend(monkeypatch, lambda y: None)
    r = lp_ov_bound(digest_ts4())
    assert r.kind is None and r.value is None and r.certificate_status == "uncertified"
    assert "no dual solution" in r.message
