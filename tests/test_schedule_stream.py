"""Streaming a windowed policy's schedule to .npz (NpzPieceWriter; `coflowopt schedule --policy
fair --out FILE.npz`): the file reads back as if written at once, and the verifier gives it the
verdict and value of the held schedule."""

import json
import subprocess
import sys

import numpy as np
import pytest

from coflowopt import Coflow, Instance
from coflowopt.formats.schedule_io import NpzPieceWriter, read_schedule_npz
from coflowopt.generators import uniform_random
from coflowopt.policies.flow_level import fair, maxmin_windows
from coflowopt.verify import verify_schedule


def test_many_windows_read_back_with_the_held_value(tmp_path):
    inst = uniform_random(4, 12, seed=3)
    path = tmp_path / "s.npz"
    with NpzPieceWriter(path, inst) as w:
        stats = maxmin_windows(inst, lambda s, a, b: w.add(s), window=3)
    assert stats["windows"] > 3
    back = read_schedule_npz(path, inst)
    assert back.num_pieces == stats["pieces"] == w.count
    rep = verify_schedule(inst, back)
    held = verify_schedule(inst, fair(inst))
    assert rep.ok and held.ok
    assert rep.weighted_completion_time == pytest.approx(held.weighted_completion_time,
                                                         rel=1e-12)
    assert not list(tmp_path.glob("*.part"))


def test_a_failed_run_leaves_no_file(tmp_path):
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1.0)])])
    path = tmp_path / "s.npz"
    with pytest.raises(RuntimeError):
        with NpzPieceWriter(path, inst):
            raise RuntimeError("stop")
    assert not path.exists() and not list(tmp_path.glob("*.part"))


def test_cli_streams_fair_to_npz_and_verify_agrees(tmp_path):
    inst_file = tmp_path / "u.json"
    run = [sys.executable, "-m", "coflowopt"]
    subprocess.run(run + ["generate", "uniform_random", "-p", "num_ports=3", "-p",
                          "num_coflows=8", "--seed", "2", "--out", str(inst_file)], check=True,
                   capture_output=True)
    out = subprocess.run(run + ["schedule", str(inst_file), "--policy", "fair", "--out",
                                str(tmp_path / "s.npz"), "--json"], capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["kind"] == "feasible" and doc["extra"]["streamed"]["file"].endswith("s.npz")
    assert doc["schedule_file"].endswith("s.npz") and "write" in doc["timings"]
    ver = subprocess.run(run + ["verify", str(inst_file), str(tmp_path / "s.npz"), "--json"],
                         capture_output=True, text=True, timeout=600)
    assert ver.returncode == 0, ver.stderr
    assert json.loads(ver.stdout)["value"] == doc["value"]
    assert np.isfinite(doc["value"])
