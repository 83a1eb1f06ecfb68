"""The adversarial search (coflowopt.adversarial): scoring, reproducibility, output, CLI.

Small budgets only (tens of evaluations); the real searches are experiments
(``coflowopt adversarial ... --evaluations 3000``), their results in instances/adversarial/.
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from coflowopt import Coflow, Instance
from coflowopt.adversarial import evaluate, load_search_record, parse_algorithm, search, \
    write_result
from coflowopt.adversarial.objective import fast_bounds
from coflowopt.adversarial.search import SearchSpace, decode, encode, mutate, random_genome
from coflowopt.cli import main
from coflowopt.exceptions import InvalidParameterError
from coflowopt.exact import bnb
from coflowopt.generators import uniform_random
from coflowopt.library import library_dir, list_instances, load_instance, load_provenance, \
    load_schedule, schedule_metrics
from coflowopt.verify import verify_schedule

TOP_KEYS = {"format", "version", "name", "title", "instance", "source", "construction",
            "assumptions", "units", "printed", "claims", "discrepancies", "notes"}
ADVERSARIAL = [n for n in list_instances() if n.startswith("adversarial/")]


# ---------------------------------------------------------------------------- scoring
def test_alg_value_is_the_verifiers_and_opt_is_proved():
    inst = uniform_random(3, 4, seed=3)
    ev = evaluate(inst, "sebf+greedy")
    assert ev.ok and ev.base == "OPT"
    rep = verify_schedule(inst, ev.alg.schedule)
    assert rep.ok and ev.alg.value == rep.weighted_completion_time
    assert ev.reference.kind == "optimal" and ev.reference.gap == 0
    assert ev.ratio == pytest.approx(float(ev.alg.value) / float(ev.reference.value))
    assert ev.ratio >= 1


def test_unproved_optimum_is_skipped():
    # needs more than one node; above SUB_MAX coflows (14; 12 before, when 14 coflows were
    # enough), so no sub-instance search of the whole instance closes its root (7 coflows:
    # closed so, at 0 nodes, since 2026-11-29)
    inst = uniform_random(4, 18, seed=0)
    ev = evaluate(inst, "fifo+greedy", opt_nodes=1)
    assert ev.status == "opt_unproved" and ev.ratio is None


def test_bounds_are_checked_only_after_a_proof(monkeypatch):
    # an unproved candidate is skipped: its bounds would cost time for nothing (on a large
    # candidate, unbounded time: the LPs run before bnb's time limit applies)
    import coflowopt.adversarial.objective as objective
    calls = []
    real = objective._bounds
    monkeypatch.setattr(objective, "_bounds", lambda inst, names: calls.append(1) or
                        real(inst, names))
    unproved = evaluate(uniform_random(4, 18, seed=0), "fifo+greedy", opt_nodes=1,
                        check_bounds=True)
    assert unproved.status == "opt_unproved" and unproved.bounds == {} and calls == []
    proved = evaluate(uniform_random(3, 4, seed=3), "fifo+greedy", check_bounds=True)
    assert proved.ok and calls == [1] and set(proved.bounds) == set(fast_bounds())
    assert all(float(v) <= float(proved.reference.value) + 1e-9
               for v in proved.bounds.values())


def test_against_lb_uses_the_best_fast_certified_bound():
    inst = uniform_random(3, 4, seed=5)
    ev = evaluate(inst, "bssi+greedy", against="lb")
    assert ev.ok and ev.base == "LB" and ev.reference.kind == "lower_bound"
    assert set(ev.bounds) <= set(fast_bounds())
    assert float(ev.reference.value) == max(float(v) for v in ev.bounds.values())
    assert ev.ratio >= evaluate(inst, "bssi+greedy").ratio - 1e-9


def test_policy_and_bad_names():
    assert parse_algorithm("varys").policy == "varys"
    with pytest.raises(InvalidParameterError, match="valid"):
        parse_algorithm("nosuch+greedy")
    with pytest.raises(InvalidParameterError):
        evaluate(uniform_random(2, 2, seed=0), "fifo+greedy", against="upper")


def test_rejected_schedule_is_a_finding(monkeypatch):
    from coflowopt.adversarial import objective
    from coflowopt.results import Result

    def broken(self, instance, seed=0):
        return Result(value=None, kind=None, objective="weighted_completion_time",
                      status="rejected", algorithm=self.label, message="REJECTED (test)")
    monkeypatch.setattr(objective.AlgorithmSpec, "run", broken)
    res = search("fifo+greedy", ports=2, coflows=2, evaluations=3, seed=0)
    assert res.best is None and res.stats["alg_rejected"] >= 1
    assert res.findings and res.findings[0]["kind"] == "alg_rejected"


# ---------------------------------------------------------------------------- genomes
def test_genome_operators_keep_every_coflow_nonempty():
    space = SearchSpace(ports=3, coflows=4, size_max=5, release_max=3, weight_max=4)
    rng = np.random.default_rng(0)
    g = random_genome(space, rng)
    for _ in range(300):
        g = mutate(g, space, rng)
        inst = g.instance()
        assert inst.num_coflows == 4 and inst.flow_size.min() >= 1
        assert inst.flow_size.max() <= 5 and inst.release.max() <= 3
        assert 1 <= inst.weight.min() and inst.weight.max() <= 4
    assert decode(encode(g, space), space, rng).key() == g.key()


# ---------------------------------------------------------------------------- reproducibility
@pytest.mark.parametrize("strategy", ["random", "local", "cma", "all"])
def test_same_seed_same_result(strategy):
    kw = dict(ports=3, coflows=3, strategy=strategy, evaluations=12, seed=7,
              check_bounds=False)
    a, b = search("sebf+greedy", **kw), search("sebf+greedy", **kw)
    assert a.best_ratio == b.best_ratio and a.genome.key() == b.genome.key()
    assert a.history == b.history and a.stats["evaluations"] == 12


def test_cma_fallback_without_the_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "cma", None)         # import cma -> ImportError
    kw = dict(ports=2, coflows=3, strategy="cma", evaluations=12, seed=1, check_bounds=False)
    a, b = search("fifo+greedy", **kw), search("fifo+greedy", **kw)
    assert a.stats["engine"].startswith("builtin")
    assert a.best_ratio == b.best_ratio


def test_wall_clock_budget_reruns_with_evaluations():
    a = search("fifo+greedy", ports=2, coflows=3, strategy="local", seconds=0.5, seed=3,
               check_bounds=False)
    assert a.stats["stopped_by"] == "seconds" and a.stats["evaluations"] >= 1
    b = search("fifo+greedy", ports=2, coflows=3, strategy="local",
               evaluations=a.stats["evaluations"], seed=3, check_bounds=False)
    assert b.best_ratio == a.best_ratio and b.genome.key() == a.genome.key()


def test_restarts_start_from_the_incumbent_then_kick_it():
    from coflowopt.adversarial.search import _Scorer, _start
    space = SearchSpace(ports=3, coflows=3)
    rng = np.random.default_rng(0)
    score = _Scorer(parse_algorithm("fifo+greedy"), "opt", 2000, 10.0, False, 0, None)
    assert _start(space, rng, score, 1.0).sizes.shape == (3, 3, 3)    # no incumbent: random
    inc = random_genome(space, rng)
    score.best_genome = inc
    assert _start(space, rng, score, 1.0) is inc                       # new incumbent: itself
    kicked = _start(space, rng, score, 1.0)                            # then a kick of it
    assert kicked is not inc and np.abs(kicked.sizes - inc.sizes).sum() > 0


def test_budget_is_required():
    with pytest.raises(InvalidParameterError, match="budget"):
        search("fifo+greedy", ports=2, coflows=2)
    with pytest.raises(InvalidParameterError, match="strategy"):
        search("fifo+greedy", ports=2, coflows=2, evaluations=3, strategy="annealing")


def test_bound_check_never_finds_a_bound_above_opt():
    res = search("bssi+greedy", ports=3, coflows=4, strategy="random", evaluations=15, seed=2)
    assert res.bound_check and all(v["violations"] == 0 for v in res.bound_check.values())
    assert all(v["max_lb_over_opt"] <= 1 + 1e-9 for v in res.bound_check.values())


# ---------------------------------------------------------------------------- output
def _check_written(paths, inst_name_dir):
    prov = json.loads(paths["provenance"].read_text())
    assert set(prov) == TOP_KEYS                     # exactly the library's schema
    s = json.loads(paths["search"].read_text())
    assert s["format"] == "coflowopt-adversarial-search" and s["version"] == 1
    assert s["name"] == prov["name"]
    for key in ("ratio", "base", "settings", "stats", "alg", "date", "coflowopt_version",
                "git_commit", "algorithm_value", "files"):
        assert key in s, key
    assert set(s["files"]) == set(paths) and paths["search"].name.endswith(".provenance.json")
    from coflowopt.formats.instance_json import read_instance_json
    from coflowopt.formats.schedule_io import read_schedule_json
    inst = read_instance_json(paths["instance"])
    for c in prov["claims"]:
        if c["status"] != "verified":
            continue
        for mode in ("float", "exact"):
            rep = verify_schedule(inst, read_schedule_json(
                paths["instance"].parent / c["schedule"], inst, exact=mode == "exact"),
                mode=mode)
            assert rep.ok and schedule_metrics(inst, rep) == c["verified"][mode]
    return prov


def test_write_result_against_opt(tmp_path):
    res = search("sebf+greedy", ports=3, coflows=3, evaluations=15, seed=4)
    paths = write_result(res, tmp_path)
    prov = _check_written(paths, tmp_path)
    ids = {c["id"]: c for c in prov["claims"]}
    assert ids["opt"]["optimality"]["status"] == "proved"
    assert ids["alg"]["status"] == "verified" and ids["opt"]["status"] == "verified"
    rec = json.loads(paths["search"].read_text())
    assert rec["opt"]["gap"] == 0
    assert Fraction(ids["opt"]["verified"]["exact"]["weighted_completion_time"]) == \
        Fraction(rec["opt"]["value_exact"])
    assert rec["ratio"] == pytest.approx(res.best_ratio)


def test_write_result_against_lb(tmp_path):
    res = search("sebf+madd", against="lb", ports=3, coflows=3, evaluations=10, seed=4)
    paths = write_result(res, tmp_path)
    prov = _check_written(paths, tmp_path)
    assert "opt" not in {c["id"] for c in prov["claims"]}
    assert json.loads(paths["search"].read_text())["lb"]["kind"] == "lower_bound"


# ---------------------------------------------------------------------------- CLI
def test_cli_json(capsys, tmp_path):
    code = main(["adversarial", "--algo", "fifo+greedy", "--ports", "2", "--coflows", "3",
                 "--evaluations", "12", "--seed", "1", "--strategy", "random", "--json",
                 "--out", str(tmp_path)])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["base"] == "ALG/OPT" and out["stats"]["evaluations"] == 12
    assert Path(out["files"]["provenance"]).is_file()


def test_cli_text_and_bad_algorithm(capsys):
    assert main(["adversarial", "--algo", "bssi+greedy", "--ports", "2", "--coflows", "2",
                 "--evaluations", "5"]) == 0
    assert "best ALG/OPT" in capsys.readouterr().out
    assert main(["adversarial", "--algo", "nosuch+greedy", "--evaluations", "5"]) == 2


# ---------------------------------------------------------------------------- the library
STUDY = Path(__file__).resolve().parents[1] / "experiments" / "results" / \
    "adversarial_study.json"


@pytest.mark.skipif(not STUDY.is_file(), reason="no study results")
def test_study_results_match_the_stored_instances():
    """experiments/results/adversarial_study.json: each stored best is the better arm, its
    ratio is the one in the library's provenance, and search and random had the same budget
    and seed."""
    study = json.loads(STUDY.read_text())
    assert study["settings"]["base"] == "ALG/OPT"
    for algo, d in study["algorithms"].items():
        arms = {r["arm"]: r for r in d["arms"]}
        assert set(arms) == {"search", "random"}
        assert arms["search"]["budget_seconds"] == arms["random"]["budget_seconds"]
        assert arms["search"]["seed"] == arms["random"]["seed"]
        assert all(r["cpu_seconds"] > 0 for r in arms.values())
        if algo not in study["stored"]:
            continue
        name = "adversarial/" + Path(study["stored"][algo]["instance"]).stem
        assert name in ADVERSARIAL
        best = max(r["summary"]["ratio"] for r in arms.values())
        assert load_search_record(name)["ratio"] == pytest.approx(best, rel=1e-12)


@pytest.mark.parametrize("name", ADVERSARIAL)
def test_stored_adversarial_instance_reproduces(name):
    """The stored ratio: the algorithm's verified value and bnb's proven optimum, recomputed."""
    inst = load_instance(name)
    s = load_search_record(name)
    assert s["name"] == load_provenance(name)["name"] == name
    # --draw default: the algorithm's deterministic default (best piece), not a seeded draw
    seed = None if s["settings"].get("draw") == "default" else s["settings"]["seed"]
    ev = evaluate(inst, s["settings"]["algorithm"], against=s["settings"]["against"], seed=seed)
    assert ev.ok
    assert float(ev.alg.value) == pytest.approx(s["algorithm_value"], rel=1e-9)
    assert ev.ratio == pytest.approx(s["ratio"], rel=1e-9)
    if s["settings"]["against"] == "opt":
        assert str(ev.reference.value) == s["opt"]["value_exact"]
        rep = verify_schedule(inst, load_schedule(name, "opt", exact=True), mode="exact")
        assert rep.ok and str(rep.weighted_completion_time) == s["opt"]["value_exact"]


@pytest.mark.parametrize("argv,named", [
    (["--ports", "1000000"], "MAX_PORTS"), (["--coflows", "10000001"], "MAX_COFLOWS"),
    (["--ports", "100000"], "MAX_FLOWS"), (["--ports", "5000", "--coflows", "5"], "MAX_FLOWS")])
def test_cli_sizes_beyond_the_instance_limits(capsys, argv, named):
    """A search space no valid instance fits (or whose candidates, coflows x ports x ports
    sizes, exceed the flow limit) is bad usage, exit 2 naming the flag and the limit, before
    any candidate is drawn (it was 'out of memory', exit 4, allocating terabytes)."""
    assert main(["adversarial", "--algo", "sebf+madd", *argv, "--evaluations", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and argv[0] in err and named in err
