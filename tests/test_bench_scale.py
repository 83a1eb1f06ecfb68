"""experiments/bench_scale.py (issue 17's 50,000-coflow table) on a tiny instance: every row is a
whole process with its kind and objective, the certified bound is below every verified schedule,
the policies left out are exactly the registry's ``slow`` / ``exponential`` / ``integral_model``
ones; bad flags exit 2 with one line."""

import json
import subprocess
import sys
from pathlib import Path

from coflowopt.registry import algorithms

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "experiments" / "bench_scale.py"


def _run(args, tmp_path):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          cwd=tmp_path, timeout=600)


def test_tiny_instance_rows_and_bound_below_schedules(tmp_path):
    out = tmp_path / "scale.json"
    r = _run(["--coflows", "30", "--only", "greedy,varys", "--bounds", "isolated",
              "--timeout", "300", "--out", str(out)], tmp_path)
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    assert doc["coflows"] == 30 and doc["flows"] > 30 and "finished" in doc
    rows = {row["name"]: row for row in doc["rows"]}
    assert list(rows) == ["sebf+greedy", "varys", "isolated"]
    for name in ("sebf+greedy", "varys"):
        row = rows[name]
        assert row["returncode"] == 0 and row["kind"] == "feasible"
        assert row["status"] == "verified" and row["seconds"] > 0 and row["peak_gb"] > 0
        assert row["objective"] == "weighted_completion_time"
    bound = rows["isolated"]
    assert bound["kind"] == "lower_bound" and bound["peak_gb"] > 0
    assert all(bound["value"] <= rows[n]["value"] * (1 + 1e-9) for n in ("sebf+greedy", "varys"))
    excluded = {a.name for a in algorithms("policy")
                if set(a.tags) & {"slow", "exponential", "integral_model"}}
    assert set(doc["excluded"]) == excluded
    md = out.with_suffix(".md").read_text()
    assert "| varys | policy |" in md and "| isolated | bound |" in md
    assert "within 60 s / 4 GB" in r.stdout


def test_given_instance_file_with_its_own_targets(tmp_path):
    """``--instance FILE`` (the FB trace's memory row): the same processes on that file, the
    bounds as ``coflowopt bound`` processes, the "within" column against the given targets."""
    from coflowopt.generators import uniform_random
    from coflowopt.formats import write_instance
    inst = tmp_path / "small.json"
    write_instance(uniform_random(num_ports=4, num_coflows=12, seed=3), inst)
    out = tmp_path / "file.json"
    r = _run(["--instance", str(inst), "--only", "greedy", "--bounds", "port",
              "--target-s", "600", "--target-gb", "0.0001", "--out", str(out)], tmp_path)
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    assert doc["coflows"] is None and doc["instance"] == "small.json"
    assert doc["target_gb"] == 0.0001
    rows = {row["name"]: row for row in doc["rows"]}
    assert list(rows) == ["sebf+greedy", "port"]
    assert rows["sebf+greedy"]["kind"] == "feasible"
    assert rows["port"]["kind"] == "lower_bound"
    assert rows["port"]["value"] <= rows["sebf+greedy"]["value"] * (1 + 1e-9)
    # every process needs more than 0.1 MB: none is within the given memory target
    assert "within 600 s / 0.0001 GB" in r.stdout and "| yes |" not in r.stdout


def test_bad_flags_exit_2_with_one_line(tmp_path):
    for args, flag in ((["--instance", "nope.txt"], "--instance"),
                       (["--zero-release"], "--zero-release"),
                       (["--target-gb", "0"], "--target-gb"),
                       (["--coflows", "0"], "--coflows"),
                       (["--only", "no-such-policy"], "--only"),
                       (["--bounds", "lp-ov"], "--bounds"),
                       (["--timeout", "-1"], "--timeout")):
        r = _run(args, tmp_path)
        assert r.returncode == 2, (args, r.stderr)
        assert r.stderr.strip().count("\n") == 0 and flag in r.stderr
