"""The documentation site builds with warnings as errors, and its tutorials' commands work.

The build is the README's one command, ``python -m sphinx -W --keep-going -b html docs
docs/_build/html``, run on a copy of ``docs/`` in a temporary folder (``COFLOWOPT_DOCS_ROOT``
points ``docs/conf.py`` back at this checkout's ``formulations/`` and ``proofs/``), so the test
never writes into the checkout.  It needs the ``docs`` extra (sphinx, numpydoc, myst-parser;
``.[test]`` includes it) and skips cleanly without it.  About 40 s on the 2-core machine; the
subprocess is stopped after 170 s so that the test always ends within 3 minutes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
BUILD_TIMEOUT = 170  # seconds: the whole test stays under 3 minutes

pytestmark = pytest.mark.skipif(not DOCS.is_dir(), reason="no docs/ folder beside the tests")


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(extra)
    return env


def test_docs_build_warnings_as_errors(tmp_path):
    pytest.importorskip("sphinx")
    pytest.importorskip("numpydoc")
    pytest.importorskip("myst_parser")
    src = tmp_path / "docs"
    shutil.copytree(DOCS, src, ignore=shutil.ignore_patterns("_build", "_generated", "generated"))
    out = tmp_path / "html"
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html",
           "-d", str(tmp_path / "doctrees"), str(src), str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=BUILD_TIMEOUT,
                          env=_env(COFLOWOPT_DOCS_ROOT=str(REPO)), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]

    assert (out / "index.html").is_file()
    # the API reference: one page per module of the curated list, and submodules of packages
    for name in ("coflowopt.instance", "coflowopt.verify", "coflowopt.registry",
                 "coflowopt.orderings.bssi", "coflowopt.exact.branch_and_bound"):
        assert (out / "api" / "generated" / f"{name}.html").is_file(), name
    # a module its package shadows with the function of the same name (exact.order_lp,
    # rates.greedy, ...) is on the site as the module, not only the function
    for name, member in (("coflowopt.exact.order_lp", "build_event_lp"),
                         ("coflowopt.exact.slotted_mip", "slotted_horizon"),
                         ("coflowopt.rates.greedy", "fill_in_order")):
        page = (out / "api" / "generated" / f"{name}.html").read_text(encoding="utf-8")
        assert f'id="{name}.{member}"' in page, (name, member)
    # every formulation and proof document is rendered
    for folder in ("formulations", "proofs"):
        for md in (REPO / folder).glob("*.md"):
            page = "overview" if md.name == "README.md" else md.stem
            assert (out / "_generated" / folder / f"{page}.html").is_file(), md
    # the CLI reference: a page per subcommand of the parser
    from coflowopt.cli import build_parser
    import argparse
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for name in sub.choices:
        assert (out / "_generated" / "cli" / f"{name}.html").is_file(), name


def _coflowopt(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "coflowopt", *args], capture_output=True,
                          text=True, timeout=BUILD_TIMEOUT, cwd=cwd)


def test_tutorial_validate_ratio_commands(tmp_path):
    """docs/tutorials/validate-ratio.md: the compare table's optimum and ratios."""
    inst = str(REPO / "instances" / "papers" / "sincronia-t-s4.json")
    proc = _coflowopt("compare", inst, "--algos", "bssi+greedy,sebf+madd,lp-ov+greedy",
                      "--exact", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["optimum"]["value"] == 33 and doc["optimum"]["kind"] == "optimal"
    ratios = {a["algorithm"]: a["alg_over_opt"] for a in doc["algorithms"]}
    assert ratios["bssi+greedy"] == 1.0 and ratios["lp-ov+greedy"] == 1.0
    assert ratios["sebf+madd"] == pytest.approx(37 / 33)
    assert all(a["kind"] == "feasible" for a in doc["algorithms"])


def test_tutorial_benchmark_spec_runs(tmp_path):
    """docs/tutorials/benchmark-optimum.md: the spec runs, every task succeeds, and the report's
    consistency line holds (no verified schedule below a certified bound)."""
    spec = DOCS / "tutorials" / "gap-tutorial.toml"
    run_dir = tmp_path / "runs" / "gap-tutorial"
    proc = _coflowopt("bench", str(spec), "--workers", "2", "--run-dir", str(run_dir),
                      cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "60 run now (optimal 30, verified 30)" in proc.stdout
    assert "Consistency: no verified schedule below a certified bound; proven optima agree." \
        in proc.stdout
    # the worst instance of the tutorial's query: varys at 1.4226 x OPT on p4-k5-weights/seed=3
    query = ("select a.algorithm, a.instance_key, round(a.value / o.value, 4) as r from results a "
             "join results o on a.instance_key = o.instance_key and o.result_kind = 'optimal' "
             "where a.verified and a.algorithm <> o.algorithm order by 3 desc limit 1")
    proc = _coflowopt("report", str(run_dir), "--sql", query, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "varys" in proc.stdout and "p4-k5-weights/seed=3" in proc.stdout
    assert "1.4226" in proc.stdout


def test_tutorial_hunt_adversarial_commands(tmp_path):
    """docs/tutorials/hunt-adversarial.md: the search's best instance and ratio (reproducible
    from --evaluations and --seed), the independent re-verification of both schedules, and the
    compare table on the found instance."""
    proc = _coflowopt("adversarial", "--algo", "sebf+madd", "--evaluations", "80", "--seed", "0",
                      "--strategy", "local", "--out", "found", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "best ALG/OPT = 1.616667: ALG 97 (verified), OPT 60 (proved exactly" in proc.stdout
    assert "C4: w 1, r 0, flows [(1, 2, 1), (2, 0, 8)]" in proc.stdout
    assert "max LB/OPT 1.000000, 0 violations" in proc.stdout
    stem = "found/sebf_madd-opt-3x3-4c-seed0"
    for which, value in (("alg", "97"), ("opt", "60")):
        proc = _coflowopt("verify", f"{stem}.json", f"{stem}.{which}.schedule.json", cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert f"verified (float): weighted completion time {value}," in proc.stdout
    proc = _coflowopt("compare", f"{stem}.json", "--algos",
                      "sebf+madd,sebf+greedy,bssi+greedy,varys", "--exact", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["optimum"]["value"] == 60 and doc["optimum"]["kind"] == "optimal"
    ratios = {a["algorithm"]: a["alg_over_opt"] for a in doc["algorithms"]}
    assert ratios == pytest.approx({"sebf+madd": 97 / 60, "sebf+greedy": 68 / 60,
                                    "bssi+greedy": 1.0, "varys": 96 / 60})


def test_tutorial_fairness_commands(tmp_path):
    """docs/tutorials/fairness.md: P* and every method's progress on tenants.json, the compare
    table against the optimum and the per-tenant slowdowns of --cct-csv."""
    inst = str(DOCS / "tutorials" / "tenants.json")
    proc = _coflowopt("fairness", inst, "--exact", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["optimal_isolation_guarantee"] == 0.5 and doc["system_bottleneck"] == ["in0"]
    from fractions import Fraction as F
    # exact values: a dyadic one is a JSON number, any other a string such as "1/5"
    progress = {m: [F(str(c["progress"])) for c in r["coflows"]]
                for m, r in doc["methods"].items()}
    assert progress["per-flow"] == [F(1, 5), F(4, 5), 1]
    assert progress["hug"] == progress["drf"] == [F(1, 2), F(1, 2), F(1, 2)]
    assert progress["ps-p"] == progress["hug-cooperative"] == [F(1, 2), F(1, 2), 1]
    assert doc["methods"]["drf"]["utilisation_fraction"] == "3/7"
    assert doc["methods"]["hug"]["utilisation_fraction"] == "5/7"

    proc = _coflowopt("compare", inst, "--algos", "hug,drf,ps-p,fair,sebf+madd", "--exact",
                      "--cct-csv", "cct.csv", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["optimum"]["value"] == 28 and doc["optimum"]["kind"] == "optimal"
    values = {a["algorithm"]: a["value"] for a in doc["algorithms"]}
    assert values == {"hug": 36, "drf": 36, "ps-p": 32, "fair": 44, "sebf+madd": 28}
    import csv
    with open(tmp_path / "cct.csv", newline="") as fh:
        slow = {(r["algorithm"], r["id"]): float(r["slowdown"]) for r in csv.DictReader(fh)}
    table = {"hug": (2, 1.25, 2), "drf": (2, 1.25, 2), "ps-p": (2, 1.25, 1),
             "fair": (5, 1.25, 1), "sebf+madd": (1, 1.25, 1)}
    for alg, row in table.items():
        assert tuple(slow[(alg, k)] for k in "ABC") == row, alg
