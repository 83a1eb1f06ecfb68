"""Completion metrics in the results store and per-class factors in ``coflowopt report``
(issue 14 item 3): slowdown CCT/OCT and normalised FCT summaries, Jain's index, throughput,
factors per OCT bin (Sincronia Fig. 5e), mice/elephant and SN/LN/SW/LW; old run folders
(rows without ``metrics``) still read and report as before."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from coflowopt import Coflow, Instance
from coflowopt.experiments.report import (coflow_classes, completion_metric_table,
                                          improvement_factors, oct_bins)
from coflowopt.experiments.tasks import completion_metrics


def three_on_one_port() -> Instance:
    """C (4), B (2), A (1) share ingress 0: OCTs 4, 2, 1, so OCT bins 2, 1, 0.

    FIFO (instance order C, B, A) + greedy runs them one after the other: C = 4, B = 6,
    A = 7.  SEBF (A, B, C) + greedy: A = 1, B = 3, C = 7.
    """
    return Instance.from_coflows([Coflow("C", [(0, 2, 4.0)]), Coflow("B", [(0, 1, 2.0)]),
                                  Coflow("A", [(0, 0, 1.0)])])


def verified_completions(inst, order_name):
    from coflowopt.registry import get_algorithm
    from coflowopt.verify import verify_schedule
    order = get_algorithm("ordering", order_name).func(inst)
    sched = get_algorithm("rates", "greedy").func(inst, order)
    rep = verify_schedule(inst, sched)
    assert rep.ok, rep.summary()
    return (np.asarray(rep.coflow_completion, dtype=float),
            np.asarray(rep.flow_completion, dtype=float))


# ------------------------------------------------------------------ definitions
def test_oct_bins_are_floor_log2_of_oct_over_the_smallest():
    # "an OCT bin i contains the set of coflows whose OCT is within [2^i, 2^(i+1)) of the
    # OCT of the smallest coflow" (Sincronia Sec. 5.2)
    assert oct_bins([3.0, 6.0, 5.99, 12.0, 3.0 * 2 ** 17, 100.0]).tolist() == \
        [0, 1, 0, 2, 17, 5]
    assert oct_bins([0.1, 0.2, 0.4, 0.3999999]).tolist() == [0, 1, 2, 1]
    assert oct_bins([]).tolist() == []
    inst = three_on_one_port()
    assert inst.rho.tolist() == [4.0, 2.0, 1.0]
    assert coflow_classes(inst, "oct-bin").tolist() == [2, 1, 0]
    assert coflow_classes(inst, "mice-elephant").tolist() == ["mice"] * 3   # < 1000
    assert coflow_classes(inst, "mice-elephant:3").tolist() == ["elephant", "mice", "mice"]
    assert coflow_classes(inst, "sn-ln-sw-lw").tolist() == ["SN", "SN", "SN"]
    with pytest.raises(ValueError, match="unknown classification"):
        coflow_classes(inst, "oct-bins")


def test_completion_metrics_by_hand():
    inst = three_on_one_port()
    cc, fc = verified_completions(inst, "sebf")
    assert cc.tolist() == [7.0, 3.0, 1.0]
    m = completion_metrics(inst, cc, fc)
    sd = [7 / 4, 3 / 2, 1.0]
    assert m["slowdown"]["mean"] == pytest.approx(np.mean(sd))
    assert m["slowdown"]["max"] == pytest.approx(1.75)
    assert m["slowdown"]["p50"] == pytest.approx(1.5)
    # one flow per coflow on unit ports: the normalised FCT is the slowdown
    assert m["nfct"] == pytest.approx(m["slowdown"])
    x = np.array([4 / 7, 2 / 3, 1.0])            # OCT / CCT
    assert m["jain"] == pytest.approx(x.sum() ** 2 / (3 * (x ** 2).sum()))
    assert m["throughput"] == pytest.approx(7.0 / 7.0)
    assert m["makespan"] == 7.0 and m["mean_cct"] == pytest.approx(11 / 3)
    # equal slowdowns: Jain's index is 1
    assert completion_metrics(inst, inst.rho * 2.0)["jain"] == pytest.approx(1.0)
    assert "nfct" not in completion_metrics(inst, cc)


def test_completion_metrics_same_on_the_big_switch_written_as_paths():
    inst = three_on_one_port()
    # resources: ingress 0 (0), egress 0, 1, 2 (1, 2, 3); flow f goes [0, 1 + egress]
    paths = Instance.from_paths(
        resource_capacity=[1.0, 1.0, 1.0, 1.0], coflow_ids=["C", "B", "A"],
        flow_coflow=[0, 1, 2], flow_src=[0, 0, 0], flow_dst=[3, 2, 1],
        flow_size=[4.0, 2.0, 1.0], path_ptr=[0, 2, 4, 6], path_resource=[0, 3, 0, 2, 0, 1],
        host_ids=["h0", "e0", "e1", "e2"])
    assert not paths.is_big_switch
    cc, fc = verified_completions(inst, "sebf")
    cc2, fc2 = verified_completions(paths, "sebf")
    assert cc2.tolist() == cc.tolist()
    assert completion_metrics(paths, cc2, fc2) == completion_metrics(inst, cc, fc)
    assert coflow_classes(paths, "oct-bin").tolist() == coflow_classes(inst, "oct-bin").tolist()


def test_per_bin_factors_by_hand():
    inst = three_on_one_port()
    base, _ = verified_completions(inst, "fifo")
    tgt, _ = verified_completions(inst, "sebf")
    assert base.tolist() == [4.0, 6.0, 7.0] and tgt.tolist() == [7.0, 3.0, 1.0]
    rows = [{"algorithm": "sebf", "instance_hash": "h", "instance_key": "k",
             "cct": tgt.tolist()},
            {"algorithm": "fifo", "instance_hash": "h", "instance_key": "k",
             "cct": base.tolist()}]
    f = improvement_factors(rows, "sebf", "fifo", by={
        "oct-bin": {"h": coflow_classes(inst, "oct-bin").tolist()},
        "mice-elephant:3": {"h": coflow_classes(inst, "mice-elephant:3").tolist()}})
    inst_f = f["instances"][0]
    assert inst_f["ratio_of_means"] == pytest.approx(17 / 11)
    by = inst_f["by"]["oct-bin"]
    assert list(by) == ["0", "1", "2"]                       # numeric order, str keys
    assert [by[b]["coflows"] for b in by] == [1, 1, 1]
    assert [by[b]["mean_of_ratios"] for b in by] == pytest.approx([7.0, 2.0, 4 / 7])
    assert [by[b]["ratio_of_means"] for b in by] == pytest.approx([7.0, 2.0, 4 / 7])
    assert [by[b]["faster"] for b in by] == [1.0, 1.0, 0.0]
    me = inst_f["by"]["mice-elephant:3"]
    assert list(me) == ["elephant", "mice"]
    assert me["mice"]["coflows"] == 2
    assert me["mice"]["ratio_of_means"] == pytest.approx((6 + 7) / (3 + 1))
    assert me["mice"]["mean_of_ratios"] == pytest.approx((2 + 7) / 2)
    assert me["elephant"]["mean_of_ratios"] == pytest.approx(4 / 7)
    assert "by" not in f["mean_over_instances"]
    # a label list of the wrong length (the file changed since the run) is left out
    g = improvement_factors(rows, "sebf", "fifo", by={"oct-bin": {"h": [0, 1]}})
    assert "by" not in g["instances"][0]


def test_metric_table_skips_rows_without_metrics():
    assert completion_metric_table([{"algorithm": "a", "cct": [1.0]}]) == []
    t = completion_metric_table([
        {"algorithm": "a", "metrics": {"slowdown": {"mean": 1.0, "p99": 2.0}, "jain": 1.0,
                                       "nfct": {"mean": 3.0}, "throughput": 2.0}},
        {"algorithm": "a"}])
    assert t[0]["n"] == 1 and t[0]["slowdown_p99"] == 2.0 and t[0]["nfct_mean"] == 3.0


# ------------------------------------------------------------------ through a run folder
SPEC = """
name = "metrics"
[[instances]]
files = "{spec_dir}/three.json"
[algorithms]
schedules = [{ order = "fifo", rates = "greedy" }, { order = "sebf", rates = "greedy" }]
bounds = ["isolated"]
"""


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    from coflowopt.cli import main
    from coflowopt.formats import write_instance
    d = tmp_path_factory.mktemp("metrics")
    write_instance(three_on_one_port(), d / "three.json")
    (d / "spec.toml").write_text(SPEC)
    assert main(["bench", str(d / "spec.toml"), "--workers", "0", "--run-dir",
                 str(d / "run"), "--no-report"]) == 0
    return d / "run"


def _report(capsys, *args) -> tuple[int, str]:
    from coflowopt.cli import main
    code = main(["report", *map(str, args)])
    return code, capsys.readouterr().out


def test_rows_carry_metrics(run_folder):
    from coflowopt.experiments.store import load_rows
    rows = {r["algorithm"]: r for r in load_rows(run_folder)}
    s = rows["sebf+greedy"]
    assert s["verified"] and s["cct"] == [7.0, 3.0, 1.0]
    assert s["metrics"]["slowdown"]["max"] == pytest.approx(1.75)
    assert rows["fifo+greedy"]["metrics"]["slowdown"]["mean"] == pytest.approx(
        np.mean([4 / 4, 6 / 2, 7 / 1]))
    assert "metrics" not in rows["isolated"]


def test_report_json_shape(run_folder, capsys):
    code, out = _report(capsys, run_folder, "--json", "--factor", "sebf+greedy:fifo+greedy",
                        "--by", "oct-bin", "--by", "mice-elephant:3", "--by", "sn-ln-sw-lw")
    assert code == 0
    a = json.loads(out)
    assert [m["algorithm"] for m in a["metrics"]] == ["fifo+greedy", "sebf+greedy"]
    assert set(a["metrics"][0]) == {"algorithm", "n", "slowdown_mean", "slowdown_p50",
                                    "slowdown_p99", "slowdown_max", "nfct_mean", "nfct_p99",
                                    "jain", "throughput"}
    (inst,) = a["factors"][0]["instances"]
    assert set(inst["by"]) == {"oct-bin", "mice-elephant:3", "sn-ln-sw-lw"}
    ob = inst["by"]["oct-bin"]
    assert list(ob) == ["0", "1", "2"]
    assert [ob[b]["mean_of_ratios"] for b in ob] == pytest.approx([7.0, 2.0, 4 / 7])
    assert {"coflows", "ratio_of_means", "mean_of_ratios", "p99_of_ratios", "ratio_of_p99",
            "faster", "slower"} <= set(ob["0"])
    assert list(inst["by"]["sn-ln-sw-lw"]) == ["SN"]
    code, text = _report(capsys, run_folder, "--factor", "sebf+greedy:fifo+greedy", "--by",
                         "oct-bin")
    assert code == 0
    assert "by oct-bin (bin i = floor(log2(OCT_k / OCT_min))" in text
    assert "Completion metrics" in text


@pytest.mark.parametrize("args", [
    ["--by", "oct-bin"],                                            # without --factor
    ["--factor", "sebf+greedy:fifo+greedy", "--by", "oct-bins"],
    ["--factor", "sebf+greedy:fifo+greedy", "--by", "oct-bin:2"],
    ["--factor", "sebf+greedy:fifo+greedy", "--by", "mice-elephant:-1"],
    ["--factor", "sebf+greedy:fifo+greedy", "--by", "mice-elephant:nan"],
])
def test_report_by_usage_errors(run_folder, capsys, args):
    from coflowopt.cli import main
    assert main(["report", str(run_folder), *args]) == 2
    err = capsys.readouterr().err
    assert "--by" in err and len(err.strip().splitlines()) == 1


def _old_copy(run_folder: Path, dest: Path) -> Path:
    """The run folder as written before the metrics column: rows without ``metrics``."""
    import shutil
    shutil.copytree(run_folder, dest)
    for shard in (dest / "results").glob("part-*.jsonl"):
        lines = []
        for line in shard.read_text().splitlines():
            row = json.loads(line)
            row.pop("metrics", None)
            lines.append(json.dumps(row, separators=(",", ":")))
        shard.write_text("\n".join(lines) + "\n")
    return dest


def test_old_run_folder_still_reads(run_folder, tmp_path, capsys):
    old = _old_copy(run_folder, tmp_path / "old")
    code, new_json = _report(capsys, run_folder, "--json", "--factor",
                             "sebf+greedy:fifo+greedy")
    code_old, old_json = _report(capsys, old, "--json", "--factor", "sebf+greedy:fifo+greedy")
    assert code == code_old == 0
    a_new, a_old = json.loads(new_json), json.loads(old_json)
    assert "metrics" not in a_old                 # the report of an old folder is unchanged
    a_new.pop("metrics")
    for a in (a_new, a_old):
        a.pop("runtimes")                         # both fine; only the names matter here
    assert a_new["factors"] == a_old["factors"] and a_new["schedules"] == a_old["schedules"]
    _, text_old = _report(capsys, old)
    assert "Completion metrics" not in text_old and "ALG/LB" in text_old
    # per-class factors need only the CCTs and the recipes: they work on an old folder too
    code, out = _report(capsys, old, "--json", "--factor", "sebf+greedy:fifo+greedy", "--by",
                        "oct-bin")
    assert code == 0
    by = json.loads(out)["factors"][0]["instances"][0]["by"]["oct-bin"]
    assert [by[b]["mean_of_ratios"] for b in by] == pytest.approx([7.0, 2.0, 4 / 7])
    # and the DuckDB views read the missing column as NULL
    duckdb = pytest.importorskip("duckdb")
    from coflowopt.experiments.store import connect
    got = connect(old).execute("select count(*), count(metrics) from results").fetchone()
    assert got == (3, 0)
    got = connect(run_folder).execute("select count(metrics) from results").fetchone()
    assert got == (2,)
    del duckdb
