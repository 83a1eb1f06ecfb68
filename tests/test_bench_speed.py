"""experiments/bench_speed.py (issue 17's side-by-side table): without the public simulators it
skips them with the reason and still times coflowopt as a whole process; bad flags exit 2."""

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "experiments" / "bench_speed.py"


def _run(args, tmp_path):
    env = {k: v for k, v in os.environ.items()
           if k not in ("COFLOWSIM_HOME", "SINCRONIA_SIMULATOR_HOME")}
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=600)


def test_skips_absent_simulators_and_times_coflowopt(shared_dir, tmp_path):
    out = tmp_path / "rows.json"
    r = _run(["--trace", str(shared_dir / "data" / "FB2010-1Hr-150-0.txt"), "--coflows", "5",
              "--only", "bssi+greedy", "--out", str(out)], tmp_path)
    assert r.returncode == 0, r.stderr
    assert "offlinesim: skipped (no checkout" in r.stdout
    doc = json.loads(out.read_text())
    # the JIT row always; a coflowopt-aot row too where the ahead-of-time module is built
    (row,) = [x for x in doc["rows"] if x["tool"] == "coflowopt"]
    assert row["returncode"] == 0 and "ahead-of-time kernels: " in r.stdout
    assert {x["tool"] for x in doc["rows"]} <= {"coflowopt", "coflowopt-aot"}
    assert row["kind"] == "feasible" and row["seconds"] > 0 and row["peak_mb"] > 0
    assert set(row["timings"]) >= {"rates", "verify"}
    assert "offlinesim" in doc["skipped"]


def test_bad_flags_exit_2_with_one_line(tmp_path):
    r = _run(["--trace", str(tmp_path / "missing.txt")], tmp_path)
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0
    assert "--trace" in r.stderr
    r = _run(["--trace", str(SCRIPT), "--coflows", "0"], tmp_path)
    assert r.returncode == 2 and "--coflows" in r.stderr
