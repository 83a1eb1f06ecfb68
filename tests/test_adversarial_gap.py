"""The integrality-gap search (``coflowopt adversarial --against gap --bound NAME``) and the
``--draw`` option: hand-checked gaps, the writer's library entry, the command line.

Small budgets only; the real searches are ``experiments/theory_frontier_searches.py`` (their
finds in ``instances/adversarial-gap/``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import pytest

from coflowopt import Coflow, Instance
from coflowopt.adversarial import load_search_record
from coflowopt.adversarial.objective import check_draw, evaluate_gap, gap_bounds, \
    parse_algorithm, parse_gap_bound
from coflowopt.adversarial.search import search, write_result
from coflowopt.cli import main
from coflowopt.exceptions import InvalidParameterError
from coflowopt.library import list_instances, load_instance, load_provenance, load_schedule
from coflowopt.registry import algorithms
from coflowopt.verify import verify_schedule


def kdd(d: int) -> Instance:
    """One coflow K_{d,d} of unit flows (digest section 8.3 #1)."""
    return Instance.from_coflows([Coflow("A", [(i, j, 1) for i in range(d)
                                               for j in range(d)])])


# ---------------------------------------------------------------------------- scoring
@pytest.mark.parametrize("d, lp", [(2, Fraction(3, 2)), (3, Fraction(2)), (4, Fraction(5, 2))])
def test_kdd_without_the_cutoff_is_the_digest_gap(d, lp):
    """LP-A without the Delta cut-off is (d + 1)/2 on K_{d,d}, the integral optimum d: the gap
    2d/(d+1) of the digest (1.5 vs 2, 2 vs 3, 2.5 vs 4); with the cut-off the LP is exact."""
    ev = evaluate_gap(kdd(d), "lp-a-no-cutoff", model="integral", opt_time_limit=600)
    assert ev.ok and ev.numerator == "integral OPT" and ev.base == "lp-a-no-cutoff"
    # the certificate may give up an ulp (the dual repaired into exact feasibility)
    lb = Fraction(ev.reference.value)
    assert Fraction(ev.alg.value) == d and lp * (1 - Fraction(1, 10**12)) <= lb <= lp
    assert ev.ratio_exact == d / lb and ev.ratio == pytest.approx(float(d / lp), rel=1e-12)
    assert evaluate_gap(kdd(d), "lp-a", model="integral",
                        opt_time_limit=600).ratio == pytest.approx(1.0, rel=1e-12)


def test_fluid_gap_is_bnb_over_the_certified_bound():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 1, 1)], weight=3),
                                  Coflow("B", [(0, 1, 1), (1, 0, 3)]),
                                  Coflow("C", [(0, 0, 1)], weight=2)])
    for name in ("ordering-lp", "fluid-network-lp", "isolated"):
        ev = evaluate_gap(inst, name)
        assert ev.ok and ev.ratio_name == f"OPT/{name}"
        assert ev.alg.kind == "optimal" and ev.reference.kind == "lower_bound"
        assert ev.ratio_exact == Fraction(ev.alg.value) / Fraction(ev.reference.value) >= 1
    # the isolated bound is the weakest: its gap is at least the ordering LP's
    assert evaluate_gap(inst, "isolated").ratio >= evaluate_gap(inst, "ordering-lp").ratio


def test_bound_above_opt_is_a_finding(monkeypatch):
    from coflowopt.adversarial import objective
    gb = parse_gap_bound("isolated")
    real = objective.GapBound.compute

    def inflated(self, instance):
        res = real(self, instance)
        res.value = Fraction(res.value) * 10
        return res
    monkeypatch.setattr(objective.GapBound, "compute", inflated)
    ev = evaluate_gap(kdd(2), gb)
    assert ev.status == "bound_above_opt" and ev.ratio < 1


def test_bound_names():
    fluid, integral = gap_bounds("fluid"), gap_bounds("integral")
    assert {a.name for a in algorithms("bound")} | {"fluid-network-lp"} == set(fluid)
    assert set(fluid) < set(integral)
    assert {"lp-a", "lp-b", "lp-a-no-cutoff", "lp-b-no-cutoff", "integral-lp"} <= set(integral)
    with pytest.raises(InvalidParameterError, match="integral model"):
        parse_gap_bound("lp-a", "fluid")
    with pytest.raises(InvalidParameterError, match="ordering-lp"):
        parse_gap_bound("nosuch", "integral")


# ---------------------------------------------------------------------------- --draw
def test_draw_default_runs_the_best_piece():
    """``draw="default"`` runs slow-motion's deterministic default (the best breakpoint), the
    seeded draw one lambda; the default is never worse than the draw (proofs/slow-motion.md)."""
    from coflowopt.api import run_schedule
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 1, 1)]),
                                  Coflow("B", [(0, 1, 1)], weight=2)])
    spec = parse_algorithm("slow-motion")
    best = spec.run(inst, seed=None)
    assert best.value == run_schedule(inst, policy="slow-motion",
                                      objective="weighted_completion_time").value
    assert best.value <= spec.run(inst, seed=3).value
    check_draw(spec, "default")
    with pytest.raises(InvalidParameterError, match="random"):
        check_draw(parse_algorithm("random+greedy"), "default")
    res = search("slow-motion", ports=2, coflows=2, evaluations=3, seed=0, draw="default",
                 check_bounds=False)
    assert res.settings["draw"] == "default" and res.best_ratio >= 1


# ---------------------------------------------------------------------------- search + writer
@pytest.mark.parametrize("model, bound", [("fluid", "ordering-lp"),
                                          ("integral", "lp-a-no-cutoff")])
def test_gap_search_writes_a_library_entry(tmp_path, model, bound):
    res = search(None, against="gap", bound=bound, model=model, ports=2, coflows=2,
                 evaluations=6, seed=1, strategy="random")
    again = search(None, against="gap", bound=bound, model=model, ports=2, coflows=2,
                   evaluations=6, seed=1, strategy="random")
    assert res.best_ratio == again.best_ratio and res.best_ratio >= 1
    paths = write_result(res, tmp_path / "adversarial-gap")
    prov = json.loads(paths["provenance"].read_text())
    rec = json.loads(paths["search"].read_text())
    claims = {c["id"]: c for c in prov["claims"]}
    opt_id = "integral-opt" if model == "integral" else "opt"
    assert set(claims) == {opt_id, "lb"}
    assert claims[opt_id]["status"] == "verified"
    assert claims[opt_id]["optimality"]["status"] == "proved"
    assert claims["lb"]["status"] == "unverified" and claims["lb"]["schedule"] is None
    assert Fraction(claims[opt_id]["derived"]["weighted_completion_time"]) / \
        Fraction(claims["lb"]["derived"]["weighted_completion_time"]) == \
        Fraction(rec["ratio_exact"])
    assert rec["settings"]["against"] == "gap" and rec["settings"]["bound"] == bound
    assert rec["lb"]["kind"] == "lower_bound" and rec["model"] == model
    assert prov["name"].startswith("adversarial-gap/gap_")


def test_gap_search_needs_a_bound_and_no_algorithm():
    with pytest.raises(InvalidParameterError):
        search(None, against="gap", evaluations=2)
    with pytest.raises(InvalidParameterError):
        search("bssi+greedy", against="gap", bound="ordering-lp", evaluations=2)
    with pytest.raises(InvalidParameterError):
        search("bssi+greedy", bound="ordering-lp", evaluations=2)


# ---------------------------------------------------------------------------- command line
@pytest.mark.parametrize("argv, flag", [
    (["--against", "gap", "--bound", "nosuch"], "--bound nosuch"),
    (["--against", "gap"], "--bound (missing)"),
    (["--against", "gap", "--bound", "lp-a"], "--bound lp-a"),
    (["--against", "gap", "--bound", "ordering-lp", "--algo", "bssi+greedy"], "--algo"),
    (["--algo", "bssi+greedy", "--bound", "ordering-lp"], "--bound ordering-lp"),
    (["--against", "lb"], "--algo"),
    (["--algo", "random+greedy", "--draw", "default"], "--draw default"),
])
def test_bad_usage_is_one_line_naming_the_flag(argv, flag):
    p = subprocess.run([sys.executable, "-m", "coflowopt.cli", "adversarial", *argv,
                        "--evaluations", "1"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 2 and p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and flag in lines[0], p.stderr
    if flag.startswith("--bound"):
        assert "ordering-lp" in lines[0]        # the allowed values are listed


def test_cli_gap_json(capsys, tmp_path):
    code = main(["adversarial", "--against", "gap", "--bound", "lp-a-no-cutoff", "--model",
                 "integral", "--ports", "2", "--coflows", "1", "--evaluations", "4",
                 "--strategy", "random", "--json", "--out", str(tmp_path)])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["base"] == "integral OPT/lp-a-no-cutoff"
    assert out["lb"]["command"].endswith("--method lp-a --model integral --param cutoff=false")
    assert Fraction(out["ratio_exact"]) >= 1


# ---------------------------------------------------------------------------- the library
GAP_ENTRIES = [n for n in list_instances() if n.startswith("adversarial-gap/")]


@pytest.mark.parametrize("name", GAP_ENTRIES)
def test_stored_gap_find_reproduces(name):
    """The stored OPT / LB: the optimum's schedule verifies at the recorded value, and
    evaluate_gap recomputes the optimum and the certified bound exactly."""
    inst = load_instance(name)
    rec = load_search_record(name)
    model = rec["model"]
    ev = evaluate_gap(inst, rec["settings"]["bound"], model=model)
    assert ev.ok and str(ev.ratio_exact) == rec["ratio_exact"]
    assert str(Fraction(ev.reference.value)) == rec["lb"]["value_exact"]
    cid = "integral-opt" if model == "integral" else "opt"
    rep = verify_schedule(inst, load_schedule(name, cid, exact=True), mode="exact")
    assert rep.ok and Fraction(rep.weighted_completion_time) == Fraction(ev.alg.value)
    assert load_provenance(name)["name"] == name
