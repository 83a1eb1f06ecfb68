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
