"""The integral matching model in the adversarial search and the bench runner (issue 12, item
5), and integral-mip's ``threads`` after HiGHS's thread pool exists (a fresh process each)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

THREADS_SCRIPT = textwrap.dedent("""
    import json, os, warnings
    import numpy as np
    from coflowopt import Instance
    from coflowopt.exact.integral_mip import integral_mip
    from coflowopt.slotted import verify_slotted
    # 4 coflows on a 3x3 unit switch: the MIP is needed (the greedy is not optimal at once)
    inst = Instance.from_arrays(
        ingress_capacity=np.ones(3), egress_capacity=np.ones(3), coflow_ids=list("ABCD"),
        flow_coflow=[0, 0, 1, 1, 2, 2, 3, 3], flow_src=[0, 1, 0, 2, 1, 2, 0, 1],
        flow_dst=[0, 1, 1, 2, 2, 0, 2, 0], flow_size=[3., 2., 2., 3., 1., 2., 2., 1.])
    out = []
    more = (os.cpu_count() or 1) + 1   # never the automatic pool's size
    for th in (FIRST, SECOND):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = integral_mip(inst, time_limit=30, threads=th, fluid_bound="none")
        out.append({"kind": r.kind, "value": str(r.value),
                    "mip_status": r.extra.get("mip_status"),
                    "note": r.extra.get("threads_note"),
                    "warned": any("threads" in str(x.message) for x in w),
                    "verified": verify_slotted(inst, r.schedule).weighted_completion_time
                    == r.value})
    print(json.dumps(out))
""")


def _threads_run(first, second):
    code = THREADS_SCRIPT.replace("FIRST", first).replace("SECOND", second)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("first,second", [("None", "more"), ("1", "more"), ("None", "None")])
def test_integral_mip_threads_after_pool_exists(first, second):
    """A thread count other than the pool's used to solve nothing (model status "Not Set",
    reported feasible/open); now the MIP runs on the existing pool, warned and noted."""
    a, b = _threads_run(first, second)
    assert a["kind"] == b["kind"] == "optimal"
    assert a["value"] == b["value"]
    assert a["verified"] and b["verified"]
    assert b["mip_status"] == "optimal"
    if second == "more":
        assert b["note"] and "ignored" in b["note"] and b["warned"]
    else:
        assert b["note"] is None and not b["warned"]


# ----------------------------------------------------------------------------- adversarial
from fractions import Fraction  # noqa: E402
from pathlib import Path  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def test_parse_integral_algorithm():
    from coflowopt.adversarial.objective import parse_integral_algorithm
    from coflowopt.exceptions import InvalidParameterError
    assert parse_integral_algorithm("ocf").name == "slotted-ocf"
    assert parse_integral_algorithm("slotted-order").params == {"ordering": "bssi"}
    s = parse_integral_algorithm("sebf+slotted-order")
    assert (s.label, s.params) == ("sebf+slotted-order", {"ordering": "sebf"})
    assert parse_integral_algorithm("integral-opt").gap
    for bad in ("bssi+greedy", "sebf+madd", "varys", "nope", "nope+slotted-order",
                "bssi+slotted-ocf", ""):
        with pytest.raises(InvalidParameterError):
            parse_integral_algorithm(bad)


def test_evaluate_integral_against_independent_optimum():
    """ALG is verify_slotted's value, OPT is integral-mip's proved optimum (checked here
    against coflowopt.testing's independent integral optimum on a tiny instance)."""
    import numpy as np
    from coflowopt import Instance
    from coflowopt.adversarial.objective import evaluate_integral
    from coflowopt.slotted import verify_slotted
    from coflowopt.slotted_greedy import slotted_ocf
    inst = Instance.from_arrays(
        ingress_capacity=np.ones(2), egress_capacity=np.ones(2), coflow_ids=["A", "B", "C"],
        flow_coflow=[0, 0, 1, 2], flow_src=[0, 1, 0, 1], flow_dst=[0, 1, 1, 0],
        flow_size=[2.0, 1.0, 1.0, 2.0], release=[0.0, 0.0, 1.0])
    ev = evaluate_integral(inst, "slotted-ocf", check_bounds=True)
    assert ev.ok and ev.model == "integral" and ev.ratio_name == "ALG/integral OPT"
    alg = verify_slotted(inst, slotted_ocf(inst)).weighted_completion_time
    assert Fraction(ev.alg.value) == alg
    assert ev.reference.kind == "optimal"
    assert verify_slotted(inst, ev.reference.schedule).weighted_completion_time == \
        Fraction(ev.reference.value)
    assert ev.ratio_exact == alg / Fraction(ev.reference.value) >= 1
    assert all(float(v) <= float(ev.reference.value) * (1 + 1e-9) for v in ev.bounds.values())


def test_evaluate_integral_gap_on_library_instance():
    """The integral gap target reproduces the study's stored 96/95 (integral/fluid)."""
    from coflowopt.adversarial.objective import evaluate_integral
    from coflowopt.formats.instance_json import read_instance_json
    inst = read_instance_json(REPO / "instances" / "integral-gap" /
                              "integral_opt-fluid_opt-4x4-5c-r4-seed0-i241.json")
    ev = evaluate_integral(inst, "integral-opt", opt_time_limit=60)
    assert ev.ok, ev.status
    assert ev.ratio_name == "integral OPT/fluid OPT"
    assert ev.ratio_exact == Fraction(96, 95)


def test_integral_search_reproducible_and_written(tmp_path):
    import json as _json
    from coflowopt.adversarial.search import search, write_result
    from coflowopt.formats import read_slotted_schedule
    from coflowopt.formats.instance_json import read_instance_json
    from coflowopt.slotted import verify_slotted
    kw = dict(model="integral", ports=3, coflows=4, evaluations=12, seed=3, size_max=4,
              strategy="all")
    a = search("sebf+slotted-order", **kw)
    b = search("sebf+slotted-order", **kw)
    assert a.best_ratio == b.best_ratio and a.genome.key() == b.genome.key()
    s = a.summary()
    assert s["model"] == "integral" and s["base"] == "ALG/integral OPT"
    assert s["settings"]["model"] == "integral"
    assert s["opt"]["method"] == "coflowopt.exact.integral_mip"
    assert Fraction(s["ratio_exact"]) == Fraction(s["alg"]["value_exact"]) / \
        Fraction(s["opt"]["value_exact"]) >= 1
    assert not a.findings
    paths = write_result(a, tmp_path)
    inst = read_instance_json(paths["instance"])
    for key, value in (("alg_slotted_schedule", s["alg"]["value_exact"]),
                       ("integral_opt_slotted_schedule", s["opt"]["value_exact"])):
        rep = verify_slotted(inst, read_slotted_schedule(paths[key], inst))
        assert rep.ok and rep.weighted_completion_time == Fraction(value)
    prov = _json.loads(Path(paths["provenance"]).read_text())
    assert "integral" in prov["title"] and prov["claims"][1]["optimality"]["claimed"]
    rec = _json.loads(Path(paths["search"]).read_text())
    assert rec["model"] == "integral" and rec["base"] == "ALG/integral OPT"


def test_integral_search_capacity_two():
    from coflowopt.adversarial.search import search
    res = search("slotted-srjf", model="integral", capacity=2, ports=2, coflows=3,
                 evaluations=6, seed=0, size_max=5, strategy="random")
    assert res.settings["space"]["capacity"] == 2
    assert float(res.instance.capacity.min()) == 2.0
    assert res.best_ratio >= 1


def _cli(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "coflowopt", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=REPO)


def test_cli_integral_json_only_and_gap():
    p = _cli("adversarial", "--model", "integral", "--algo", "integral-opt", "--ports", "3",
             "--coflows", "4", "--size-max", "4", "--evaluations", "6", "--seed", "2",
             "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["model"] == "integral" and d["base"] == "integral OPT/fluid OPT"
    assert d["settings"]["base"] == "integral OPT/fluid OPT"
    assert d["integral_opt"]["kind"] == "optimal" and d["fluid_opt"]["kind"] == "optimal"
    assert Fraction(d["ratio_exact"]) >= 1


@pytest.mark.parametrize("args", [
    ["--model", "integral", "--algo", "bssi+greedy"],
    ["--model", "integral", "--algo", "slotted-ocf", "--against", "lb"],
    ["--model", "integral", "--algo", "nope"],
    ["--model", "integral", "--algo", "ocf", "--capacity", "0"],
    ["--algo", "bssi+greedy", "--capacity", "2"],
    ["--model", "quantum", "--algo", "ocf"],
])
def test_cli_integral_bad_usage(args):
    p = _cli("adversarial", *args, "--evaluations", "1", timeout=120)
    assert p.returncode == 2
    assert p.stdout == ""
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr


# ----------------------------------------------------------------------------- bench specs
_BASE = {"instances": [{"name": "g", "generator": "uniform_random", "seeds": 2,
                        "params": {"num_ports": 3, "num_coflows": 4, "size": [1, 4]}}]}


@pytest.mark.parametrize("model,algs,key,words", [
    ("integral", {"schedules": [{"order": "bssi", "rates": "greedy"}]},
     "algorithms.schedules[0].order", "slotted algorithms only"),
    ("integral", {"schedules": [{"policy": "varys"}]}, "algorithms.schedules[0].policy",
     "slotted algorithms only"),
    ("integral", {"exact": {"method": "bnb", "time_limit": 5}}, "algorithms.exact.method",
     "fluid model"),
    ("integral", {"bounds": ["isolated"]}, "algorithms.bounds[0].name", "fluid model"),
    ("fluid", {"exact": {"method": "integral-mip", "time_limit": 5}},
     "algorithms.exact.method", 'model = "integral"'),
    ("fluid", {"schedules": [{"slotted": "slotted-ocf"}]}, "algorithms.schedules[0].slotted",
     'model = "integral"'),
    ("fluid", {"schedules": [{"policy": "slotted-ocf"}]}, "algorithms.schedules[0].policy",
     'model = "integral"'),
    ("quantum", {"schedules": "all"}, "model", "fluid, integral"),
    ("integral", {"schedules": [{"slotted": "slotted-order", "params": {"ordering": "nope"}}]},
     "algorithms.schedules[0].params.ordering", "unknown ordering"),
    ("integral", {"schedules": [{"slotted": "slotted-ocf", "params": {"ordering": "bssi"}}]},
     "algorithms.schedules[0].params.ordering", "no parameter"),
])
def test_integral_spec_validation(model, algs, key, words):
    from coflowopt.experiments.spec import SpecError, parse_spec
    with pytest.raises(SpecError) as e:
        parse_spec({**_BASE, "model": model, "algorithms": algs})
    assert key in str(e.value) and words in str(e.value)


def test_integral_spec_parses_and_fluid_identity_unchanged():
    from coflowopt.experiments.spec import parse_spec
    s = parse_spec({**_BASE, "model": "integral", "algorithms": {
        "schedules": [{"slotted": "slotted-order", "params": {"ordering": "sebf"}},
                      {"slotted": "srjf", "params": {"job": "coflow"}, "label": "srjf-c"}],
        "exact": {"method": "integral-mip", "time_limit": 30}}})
    assert s.model == "integral"
    assert [a.label for a in s.algorithms] == ["sebf+slotted-order", "srjf-c", "integral-mip"]
    assert s.algorithms[0].identity() == {"kind": "schedule", "slotted": "slotted-order",
                                          "params": {"ordering": "sebf"}}
    f = parse_spec({**_BASE, "algorithms": {"schedules": [{"order": "bssi",
                                                             "rates": "greedy"}]}})
    assert f.model == "fluid" and "slotted" not in f.algorithms[0].identity()
    assert "slotted" not in f.algorithms[0].to_dict()


def test_integral_bench_run_in_process(tmp_path):
    from coflowopt.experiments.report import analyse, format_report
    from coflowopt.experiments.runner import run
    from coflowopt.experiments.spec import parse_spec
    from coflowopt.experiments.store import load_rows, read_manifest
    spec = parse_spec({**_BASE, "name": "t-integral", "model": "integral", "warm_up": False,
                       "algorithms": {"schedules": [
                           {"slotted": "slotted-order", "params": {"ordering": "bssi"}},
                           {"slotted": "slotted-mmf"}],
                           "exact": {"method": "integral-mip", "time_limit": 30}}})
    summary = run(spec, tmp_path / "run", workers=0, progress=False)
    assert summary.failed == 0
    rows = load_rows(tmp_path / "run")
    assert len(rows) == 6 and all(r["model"] == "integral" for r in rows)
    assert all(r["verified"] for r in rows)
    assert {r["result_kind"] for r in rows if r["algorithm_kind"] == "exact"} == {"optimal"}
    assert read_manifest(tmp_path / "run")["model"] == "integral"
    a = analyse(rows)
    assert a["model"] == ["integral"] and a["with_opt"] == 2
    for s in a["schedules"]:
        assert s["alg_opt"]["n"] == 2 and s["alg_opt"]["min"] >= 1.0
    assert "model: integral" in format_report(a)


def test_integral_result_fields_judges_with_verify_slotted():
    """An exact row keeps 'optimal' only at the value verify_slotted computes."""
    from dataclasses import replace
    from coflowopt.exact.integral_mip import integral_mip
    from coflowopt.experiments.spec import load_recipe
    from coflowopt.experiments.tasks import integral_result_fields
    inst = load_recipe({"source": "generator", "generator": "uniform_random", "seed": 0,
                        "params": {"num_ports": 3, "num_coflows": 3, "size": [1, 4]}})
    res = integral_mip(inst, time_limit=30)
    good = integral_result_fields(res, inst, "weighted_completion_time", True)
    assert good["verified"] and good["result_kind"] == "optimal" and good["model"] == "integral"
    bad = integral_result_fields(replace(res, value=res.value - 1), inst,
                                 "weighted_completion_time", True)
    assert not bad["verified"] and bad["result_kind"] is None and bad["status"] == "rejected"


def test_bench_bad_integral_spec_exits_2(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('model = "integral"\n[[instances]]\nname = "g"\ngenerator = '
                   '"uniform_random"\nparams = { num_ports = 2, num_coflows = 2 }\nseeds = 1\n'
                   '[algorithms]\nexact = { method = "bnb", time_limit = 5 }\n')
    p = _cli("bench", str(bad), "--dry-run", timeout=120)
    assert p.returncode == 2 and p.stdout == ""
    assert len(p.stderr.strip().splitlines()) == 1 and "algorithms.exact.method" in p.stderr


def test_integral_gap_small_spec_is_valid():
    from coflowopt.experiments.spec import load_spec
    s = load_spec(REPO / "experiments" / "specs" / "integral-gap-small.toml")
    assert s.model == "integral"
    assert {a.label for a in s.algorithms} == {
        "bssi+slotted-order", "sebf+slotted-order", "slotted-ocf", "slotted-srjf",
        "slotted-mmf", "integral-mip"}
    assert sum(1 for _ in s.instances()) == 40


def test_integral_spec_randomized_slotted_gets_seed():
    from coflowopt.experiments.runner import run
    from coflowopt.experiments.spec import parse_spec
    spec = parse_spec({**_BASE, "model": "integral", "seed": 7, "warm_up": False,
                       "algorithms": {"schedules": [
                           {"slotted": "slotted-order", "params": {"ordering": "random"}}]}})
    assert spec.algorithms[0].randomized
    rows = run(spec, None, workers=0, progress=False).rows
    assert [r["seed"] for r in rows] == [7, 7] and all(r["verified"] for r in rows)


# ----------------------------------------------------------------------------- stored finds
def _integral_finds():
    from coflowopt.library import list_instances
    return [n for n in list_instances() if n.startswith("adversarial-integral/")]


@pytest.mark.parametrize("name", _integral_finds())
def test_stored_integral_find_reproduces(name):
    """instances/adversarial-integral/: the slotted schedules verify at the recorded values,
    and evaluate_integral (the slotted algorithm, integral-mip, bnb) gives the recorded exact
    ratio again."""
    from coflowopt.adversarial import load_search_record
    from coflowopt.adversarial.objective import evaluate_integral
    from coflowopt.formats import read_slotted_schedule
    from coflowopt.library import library_dir, load_instance, load_provenance
    from coflowopt.slotted import verify_slotted
    inst = load_instance(name)
    rec = load_search_record(name)
    assert rec["model"] == "integral" and rec["name"] == load_provenance(name)["name"] == name
    folder = (library_dir() / name).parent
    for key, value in (("alg_slotted_schedule", rec["alg"]["value_exact"]),
                       ("integral_opt_slotted_schedule",
                        (rec.get("integral_opt") or rec["opt"])["value_exact"])):
        if key not in rec["files"]:
            continue
        rep = verify_slotted(inst, read_slotted_schedule(folder / rec["files"][key], inst))
        assert rep.ok and rep.weighted_completion_time == Fraction(value)
    # --draw default: the algorithm's deterministic default (best piece), not a seeded draw
    seed = None if rec["settings"].get("draw") == "default" else rec["settings"]["seed"]
    ev = evaluate_integral(inst, rec["settings"]["algorithm"], opt_time_limit=120, seed=seed)
    assert ev.ok, ev.status
    assert str(ev.ratio_exact) == rec["ratio_exact"] and ev.ratio_name == rec["base"]


def test_integral_find_outside_library_reproduces():
    """experiments/results/adversarial-integral/ (kept out of the library, see
    instances/adversarial-integral/README.md): slotted-order in BSSI order at 37/25 of the
    integral optimum."""
    from coflowopt.adversarial.objective import evaluate_integral
    from coflowopt.formats import read_slotted_schedule
    from coflowopt.formats.instance_json import read_instance_json
    from coflowopt.slotted import verify_slotted
    folder = REPO / "experiments" / "results" / "adversarial-integral"
    stem = "bssi_slotted-order-integral_opt-4x4-5c-seed0"
    if not (folder / f"{stem}.json").is_file():
        pytest.skip("no stored find")
    inst = read_instance_json(folder / f"{stem}.json")
    rec = json.loads((folder / f"{stem}.search.provenance.json").read_text())
    for key, value in (("alg_slotted_schedule", rec["alg"]["value_exact"]),
                       ("integral_opt_slotted_schedule", rec["opt"]["value_exact"])):
        rep = verify_slotted(inst, read_slotted_schedule(folder / rec["files"][key], inst))
        assert rep.ok and rep.weighted_completion_time == Fraction(value)
    # --draw default: the algorithm's deterministic default (best piece), not a seeded draw
    seed = None if rec["settings"].get("draw") == "default" else rec["settings"]["seed"]
    ev = evaluate_integral(inst, rec["settings"]["algorithm"], opt_time_limit=120, seed=seed)
    assert ev.ok and ev.ratio_exact == Fraction(37, 25) == Fraction(rec["ratio_exact"])
