"""The pieces of experiments/creek_ksweep_study.py (issue 14, seed 001): instances, threshold
grid, verified runs against the proved optimum, the search's choice, the summary, the report
and the plot's fonts.  Fast (a few seconds): one 4-coflow instance, synthetic rows."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def study():
    spec = importlib.util.spec_from_file_location(
        "creek_ksweep_study", ROOT / "experiments" / "creek_ksweep_study.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_thresholds_and_grid(study):
    assert study.thresholds(1, 10, 10) == []
    assert study.thresholds(4, 2, 3) == [2.0, 6.0, 18.0]
    # K = 1: one empty tuple; K = 2: one per first threshold; K >= 3: the whole grid
    assert list(study.grid_thresholds(1)) == [()]
    assert len(study.grid_thresholds(2)) == len(study.GRID_FIRST)
    assert len(study.grid_thresholds(5)) == len(study.GRID_FIRST) * len(study.GRID_MULT)
    assert tuple(study.DEFAULT_GEOMETRIC) in set(study.grid_thresholds(3).values())


def test_instances_are_seeded(study):
    a, b = study.small_instance(22, 0), study.small_instance(22, 0)
    assert a.num_coflows == b.num_coflows and a.num_flows == b.num_flows
    assert (a.flow_size == b.flow_size).all()
    assert a.is_big_switch and a.num_ingress == 6 and 4 <= a.num_coflows <= 7
    assert (a.release == 0).all()
    ft = study.large_instance(0, 0, fat_tree=True, num_coflows=4)
    bs = study.large_instance(0, 0, fat_tree=False, num_coflows=4)
    assert not ft.is_big_switch and bs.is_big_switch
    assert (ft.flow_size == bs.flow_size).all()      # the same draw, placed on the fat-tree


def test_runs_are_verified_and_above_opt(study):
    inst = study.small_instance(22, 0)            # 4 coflows, 10 flows
    opt = study._opt(inst, 30.0)
    assert opt["proved"]
    vals = [study.run_value(inst, lab, study.thresholds(K, 10, 10))
            for lab in study.SWEPT for K in (1, 3)]
    vals += [study.run_value(inst, lab) for lab in study.FIXED]
    assert min(vals) >= opt["value"] * (1 - 1e-9)
    # one queue with per-flow sharing is per-flow max-min fairness (PFS)
    from coflowopt.api import run_schedule
    pfs = run_schedule(inst, policy="per-flow-maxmin").value
    assert study.run_value(inst, "mlfq-fair", []) == pytest.approx(pfs, rel=1e-9)


def _fake_rows(study):
    rows = []
    for i, base in enumerate((10.0, 20.0)):
        vals = {}
        for lab in study.SWEPT:
            for kind in ("geometric", "searched"):
                for K in study.KS:
                    vals[f"{lab}|{kind}|{K}"] = base * (1 + 0.4 / K)
        for lab in study.FIXED:
            vals[lab] = base * 1.2
        rows.append({"family": "small", "index": i, "flows": 5, "base": base,
                     "values": vals, "opt": {"proved": True, "value": base}})
    rows.append({"family": "small", "index": 9, "flows": 5, "values": {},
                 "opt": {"proved": False, "value": None}})
    return rows


def test_choose_picks_the_best_grid_point(study):
    train = []
    for base in (1.0, 2.0):
        grid = {}
        for lab in study.SWEPT:
            for K in study.KS:
                for thr, (f, m) in study.grid_thresholds(K).items():
                    # best: first threshold 50, multiplier 3
                    grid[f"{lab}|{K}|{f}|{m}"] = base * (1 + abs(f - 50) / 100
                                                         + (0 if m in (3.0, None) else 0.1))
        train.append({"opt": {"proved": True, "value": base}, "grid": grid})
    choice, table = study.choose(train)
    assert choice["creek"]["4"] == [50.0, 3.0]
    assert choice["mlfq-fifo"]["2"][0] == 50.0
    assert table["creek"]["4"]["50.0x3.0"] == pytest.approx(1.0)


def test_summary_report_and_plot(study, tmp_path):
    rows = _fake_rows(study)
    s = study.summarise(rows)["small"]
    assert s["instances"] == 3 and s["scored"] == 2 and s["unproved"] == 1
    g = s["swept"]["creek|geometric"]
    assert g["mean"][0] == pytest.approx(1.4) and g["mean"][-1] == pytest.approx(1.05)
    assert g["marginal_gain"][0] == pytest.approx(0.2)
    assert g["share_of_gain"][-1] == pytest.approx(1.0)
    assert s["improvement_over"]["baraat"]["mean"] == pytest.approx(1.2 / 1.05, abs=1e-4)
    data = {"summary": {"small": s},
            "searched": {lab: {str(K): [10.0, 10.0] for K in study.KS} for lab in study.SWEPT},
            "meta": {"commit": "x", "date": "d", "seed": 0, "cpu_seconds": 1.0,
                     "wall_seconds": 1.0, "workers": 1, "train": 2, "train_proved": 2,
                     "large_coflows": 30}}
    md = study.markdown(data)
    assert "| creek | geometric mean | 1.400 |" in md
    paths = study.plot(data, tmp_path / "plots" / "creek_ksweep.png")
    pdf = Path([p for p in paths if p.endswith(".pdf")][0]).read_bytes()
    kinds = set(re.findall(rb"/Subtype\s*/(Type3|TrueType|Type1|Type0|CIDFontType2)", pdf))
    assert kinds and b"Type3" not in kinds


def test_eval_task_and_large_search_check(study, monkeypatch):
    monkeypatch.setattr(study, "KS", (1, 2, 3))
    searched = {lab: {str(K): [50.0, 3.0] for K in study.KS} for lab in study.SWEPT}
    row = study.eval_task(("large-bs", 0, 0, 30.0, searched, 4))
    assert row["base"] == row["lb"]["value"] > 0
    assert min(row["values"].values()) >= row["base"] * (1 - 1e-6)
    assert row["values"]["creek|geometric|1"] == row["values"]["creek|searched|1"]
    data = {"meta": {"seed": 0, "large": 1, "large_coflows": 4}, "searched": searched,
            "rows": [row]}
    chk = study.large_search_check(data, train=1)
    assert data["large_search_check"] is chk and chk["train_indices"] == [1]
    assert len(chk["mean"]) == 3 and chk["mean"][0] == pytest.approx(
        row["values"]["creek|geometric|1"] / row["base"])
