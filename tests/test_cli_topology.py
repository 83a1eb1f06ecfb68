"""The command line on topologies (issue 11, part 5).

* ``coflowopt generate fat-tree`` / ``leaf-spine``: the must-show counts (k = 4: 16 hosts and 20
  switches; k = 24: 3,456 hosts and 720 switches, as ``info --json`` reports them), the
  documented construction (a host-to-host pattern placed by ``on_topology``), determinism.
* ``coflowopt info`` on a version-2 instance: model, hosts, switches, links, path lengths and
  the most loaded resource, checked against a plain-Python count.
* ``--topology SPEC`` on the commands that read an instance: the placed instance is
  ``on_topology`` of the file's, ``convert`` writes it (and ``info`` reads it back the same),
  a schedule of the placed trace verifies against the converted file with the same value.
* Exit codes and one-line messages for every refusal (bad specs, flags that would be ignored,
  an instance already on a topology, big-switch-only algorithms and formats).

Most commands run in-process through ``coflowopt.cli.main`` (fast); the must-show commands and a
few refusals also run as processes, as a user runs them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from coflowopt.cli import main
from coflowopt.formats import read_instance, write_instance
from coflowopt.generators import fat_tree_coflows, leaf_spine_coflows, uniform_random
from coflowopt.instance import Instance
from coflowopt.topology import fat_tree, leaf_spine, on_topology
from coflowopt.verify import verify_schedule


def run(argv, capsys):
    """``coflowopt ARGV`` in-process: (exit code, stdout, stderr)."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(argv, capsys) -> dict:
    code, out, err = run([*argv, "--json"], capsys)
    assert code == 0, err
    return json.loads(out)


def process(argv, cwd):
    p = subprocess.run([sys.executable, "-m", "coflowopt", *map(str, argv)], cwd=cwd,
                       capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, PYTHONWARNINGS="ignore"))
    return p.returncode, p.stdout, p.stderr


def one_line_error(code, out, err, *words):
    lines = err.strip("\n").split("\n")
    assert code == 2, (code, err)
    assert len(lines) == 1 and "Traceback" not in err, err
    assert out == ""
    for w in words:
        assert w in lines[0], (w, lines[0])


@pytest.fixture
def trace(tmp_path) -> Path:
    """A host-to-host (big-switch) instance of 8 ports, 5 coflows."""
    p = tmp_path / "bs.json"
    write_instance(uniform_random(8, 5, releases=(0, 3), weights=(1, 3), seed=4), p)
    return p


# ------------------------------------------------------------------------------ must show
def test_fat_tree_k4_generate_and_info_as_processes(tmp_path):
    """``coflowopt generate fat-tree -p k=4 -o ft4.json`` works alone; info says 16 hosts,
    20 switches (5k^2/4), 96 links (3k^3/2)."""
    code, out, err = process(["generate", "fat-tree", "-p", "k=4", "-o", "ft4.json"], tmp_path)
    assert code == 0, err
    assert "16 hosts, 20 switches, 96 links" in out
    code, out, err = process(["info", "--json", "ft4.json"], tmp_path)
    assert code == 0, err
    d = json.loads(out)
    assert (d["model"], d["hosts"], d["switches"], d["links"], d["resources"]) == \
        ("resources", 16, 20, 96, 96)
    assert d["topology"] == {"kind": "fat-tree", "params": {"k": 4}, "routing": "ecmp",
                             "seed": 0, "placement": "modulo"}
    code, out, err = process(["info", "ft4.json"], tmp_path)
    assert code == 0, err
    assert "on a fat-tree (k=4): 16 hosts, 20 switches, 96 links (resources)" in out
    assert "most loaded resource: " in out


def test_fat_tree_k24_counts(tmp_path, capsys):
    """Seed 001's simulation: k = 24 gives 3,456 hosts and 720 switches (few coflows, to stay
    fast)."""
    gen = run_json(["generate", "fat-tree", "-p", "k=24", "-p", "num_coflows=3", "--seed", "5",
                    "-o", tmp_path / "ft24.json"], capsys)
    assert (gen["hosts"], gen["switches"], gen["links"]) == (3456, 720, 3 * 24 ** 3 // 2)
    d = run_json(["info", tmp_path / "ft24.json"], capsys)
    assert (d["hosts"], d["switches"], d["links"]) == (3456, 720, 20736)
    assert d["coflows"] == 3 and d["max_path_length"] <= 6


def test_leaf_spine_2x2_oversubscribed(tmp_path, capsys):
    gen = run_json(["generate", "leaf-spine", "-p", "leaves=2", "-p", "spines=2", "-p",
                    "hosts_per_leaf=2", "-p", "oversubscription=2", "--seed", "1", "-o",
                    tmp_path / "ls.json"], capsys)
    assert (gen["hosts"], gen["switches"], gen["links"]) == (4, 4, 16)
    inst = read_instance(tmp_path / "ls.json")
    # uplinks carry 1/oversubscription of what a leaf's hosts send: 2 * 1 / (2 * 2) = 0.5
    assert sorted(set(inst.capacity.tolist())) == [0.5, 1.0]
    assert inst.max_path_length == 4
    d = run_json(["info", tmp_path / "ls.json"], capsys)
    assert d["topology"]["params"] == {"leaves": 2, "spines": 2, "hosts_per_leaf": 2,
                                       "oversubscription": 2.0}


# ------------------------------------------------------------------------------ generate
def test_generators_are_the_documented_construction():
    """fat-tree / leaf-spine = the host-to-host pattern (port h = host h) placed by
    on_topology and routed; weights and releases from a second stream leave the flows as
    they are."""
    inst = fat_tree_coflows(4, 6, seed=9, routing_seed=2)
    ref = on_topology(uniform_random(16, 6, seed=9), fat_tree(4), seed=2)
    assert np.array_equal(inst.flow_resource, ref.flow_resource)
    assert np.array_equal(inst.flow_size, ref.flow_size)
    assert inst.host_ids == ref.host_ids and inst.num_resources == 96
    weighted = fat_tree_coflows(4, 6, seed=9, routing_seed=2, weights=(1, 5),
                                releases=(0, 4))
    assert np.array_equal(weighted.flow_resource, inst.flow_resource)
    assert not np.all(weighted.weight == 1) and weighted.has_releases
    ls = leaf_spine_coflows(2, 2, 2, 5, oversubscription=2, pattern="all_to_all",
                            mappers=(2, 2), reducers=(1, 2), seed=3)
    ref = on_topology(__import__("coflowopt.generators", fromlist=["x"]).all_to_all(
        4, 5, mappers=(2, 2), reducers=(1, 2), seed=3),
        leaf_spine(2, 2, 2, oversubscription=2))
    assert np.array_equal(ls.flow_resource, ref.flow_resource)
    assert ls.meta["generator"]["name"] == "leaf-spine" and ls.meta["generator"]["seed"] == 3
    assert ls.meta["topology"]["kind"] == "leaf-spine"


def test_generate_is_deterministic_and_routing_seed_moves_paths_only(tmp_path, capsys):
    for name, extra in (("a", []), ("b", []), ("c", ["-p", "routing_seed=7"])):
        run_json(["generate", "fat-tree", "-p", "k=4", "-p", "num_coflows=20", "--seed", "3",
                  *extra, "-o", tmp_path / f"{name}.json"], capsys)
    a, b, c = (tmp_path / f"{n}.json" for n in "abc")
    assert a.read_bytes() == b.read_bytes()
    ia, ic = read_instance(a), read_instance(c)
    assert np.array_equal(ia.flow_size, ic.flow_size)
    assert np.array_equal(ia.flow_src, ic.flow_src)
    assert not np.array_equal(ia.flow_resource, ic.flow_resource)
    assert ic.meta["topology"]["seed"] == 7


def test_generate_accepts_both_spellings(tmp_path, capsys):
    d = run_json(["generate", "fat_tree", "-p", "k=2", "-o", tmp_path / "x.json"], capsys)
    assert d["generator"] == "fat-tree" and d["hosts"] == 2
    d = run_json(["generate", "uniform-random", "-p", "num_ports=2", "-p", "num_coflows=2",
                  "-o", tmp_path / "y.json"], capsys)
    assert d["generator"] == "uniform_random"


def test_generate_lists_the_topology_generators(tmp_path, capsys):
    code, out, err = run(["generate", "nope", "-o", tmp_path / "x.json"], capsys)
    one_line_error(code, out, err, "fat-tree", "leaf-spine", "uniform_random")


# ------------------------------------------------------------------------------ info
def test_info_most_loaded_resource_by_hand(tmp_path, capsys):
    """The most loaded resource (data / capacity), its id and the flows crossing it, against a
    plain-Python count over the file's paths."""
    inst = leaf_spine_coflows(2, 2, 3, 12, oversubscription=3, seed=8)
    write_instance(inst, tmp_path / "ls.json")
    doc = json.loads((tmp_path / "ls.json").read_text())
    load = [0.0] * len(doc["resources"])
    cross = [0] * len(doc["resources"])
    for c in doc["coflows"]:
        for f in c["flows"]:
            for r in f["path"]:
                load[r] += f["size"]
                cross[r] += 1
    ratio = [x / r["capacity"] for x, r in zip(load, doc["resources"])]
    best = max(range(len(ratio)), key=lambda i: (ratio[i], -i))
    d = run_json(["info", tmp_path / "ls.json"], capsys)
    m = d["most_loaded_resource"]
    assert m["resource"] == best and m["id"] == doc["resources"][best]["id"]
    assert m["load_over_capacity"] == pytest.approx(ratio[best], rel=1e-12)
    assert m["flows"] == cross[best]
    assert d["max_path_length"] == max(len(f["path"]) for c in doc["coflows"]
                                       for f in c["flows"])
    assert d["hosts"] == 6 and d["switches"] == 4 and d["links"] == len(doc["resources"])
    code, out, err = run(["info", tmp_path / "ls.json"], capsys)
    assert code == 0
    assert f"most loaded resource: {m['id']} (resource {best}" in out
    assert f"crossed by {cross[best]} flows" in out


def test_info_without_a_topology_record(tmp_path, capsys):
    """Paths given by hand (no topology record): switches are unknown (null), the rest is
    counted."""
    inst = Instance.from_paths(resource_capacity=[1.0, 2.0, 1.0], coflow_ids=["A", "B"],
                               flow_coflow=[0, 1], flow_src=[0, 1], flow_dst=[1, 0],
                               flow_size=[2.0, 2.0], path_ptr=[0, 2, 4],
                               path_resource=[0, 1, 1, 2], host_ids=["a", "c"])
    write_instance(inst, tmp_path / "line.json")
    d = run_json(["info", tmp_path / "line.json"], capsys)
    assert d["switches"] is None and d["topology"] is None
    assert (d["hosts"], d["links"], d["max_path_length"]) == (2, 3, 2)
    # resource 1 carries 4 units at capacity 2; resources 0 and 2 carry 2 at 1: a tie at 2,
    # the first index wins
    assert d["most_loaded_resource"]["resource"] == 0
    assert d["most_loaded_resource"]["flows"] == 1
    code, out, err = run(["info", tmp_path / "line.json"], capsys)
    assert code == 0 and "on resources: 2 hosts, ? switches, 3 links" in out


def test_info_switches_from_a_record_without_nodes(tmp_path, capsys):
    """A record with the builder's kind and parameters but no node list: the switch count is
    rebuilt; a record whose topology is not this instance's is refused by the reader (exit 2,
    naming topology.params)."""
    inst = fat_tree_coflows(4, 3, seed=0)
    doc = json.loads(__import__("coflowopt.formats", fromlist=["x"]).dumps_instance(inst))
    for key in ("nodes", "links"):
        doc["topology"].pop(key)
    (tmp_path / "ok.json").write_text(json.dumps(doc))
    assert run_json(["info", tmp_path / "ok.json"], capsys)["switches"] == 20
    doc["topology"]["params"] = {"k": 6}           # a record that is not this instance's
    (tmp_path / "other.json").write_text(json.dumps(doc))
    code, out, err = run(["info", str(tmp_path / "other.json")], capsys)
    one_line_error(code, out, err, "other.json", "topology.params", "324 links", "96 resources")


# ------------------------------------------------------------------------------ --topology
@pytest.mark.parametrize("spec,routing,placement,build", [
    ("fat-tree:k=4", [], [], lambda: fat_tree(4)),
    ("fat-tree:k=4,core_oversubscription=2", ["--routing", "shortest"], [],
     lambda: fat_tree(4, core_oversubscription=2)),
    ("leaf-spine:leaves=2,spines=2,hosts_per_leaf=2,oversubscription=2",
     ["--routing-seed", "5"], ["--placement", "random", "--placement-seed", "3"],
     lambda: leaf_spine(2, 2, 2, oversubscription=2)),
])
def test_topology_round_trip(trace, tmp_path, capsys, spec, routing, placement, build):
    """convert --topology writes on_topology(instance) (version 2, with its record); info on
    the written file equals info with --topology; converting the v2 file again is the
    identity."""
    out = tmp_path / "placed.json"
    d = run_json(["convert", trace, out, "--topology", spec, *routing, *placement], capsys)
    assert d["model"] == "resources"
    kw = {"routing": routing[1] if routing[:1] == ["--routing"] else "ecmp",
          "seed": int(routing[1]) if routing[:1] == ["--routing-seed"] else 0,
          "placement": placement[1] if placement else "modulo",
          "placement_seed": int(placement[3]) if placement else 0}
    ref = on_topology(read_instance(trace), build(), **kw)
    got = read_instance(out)
    assert got == ref
    assert json.loads(out.read_text())["version"] == 2
    assert got.meta["topology"]["routing"] == kw["routing"]
    via_flag = run_json(["info", trace, "--topology", spec, *routing, *placement], capsys)
    via_file = run_json(["info", out], capsys)
    for key in ("hosts", "switches", "links", "max_path_length", "most_loaded_resource",
                "topology", "isolated_bound", "total_size"):
        assert via_flag[key] == via_file[key], key
    again = tmp_path / "again.json"
    run_json(["convert", out, again], capsys)
    assert again.read_bytes() == out.read_bytes()


@pytest.mark.parametrize("algo", [["--order", "fifo", "--rates", "madd"],
                                  ["--policy", "varys"]])
def test_schedule_with_topology_equals_the_converted_file(trace, tmp_path, capsys, algo):
    """schedule --topology (madd and varys run on resources) = schedule of the converted file;
    the written schedule verifies against both, and in the test, against the placed instance
    through the verifier."""
    spec = "leaf-spine:leaves=2,spines=2,hosts_per_leaf=4,oversubscription=2"
    placed = tmp_path / "placed.json"
    run_json(["convert", trace, placed, "--topology", spec], capsys)
    a = run_json(["schedule", trace, "--topology", spec, *algo, "-o", tmp_path / "a.json"],
                 capsys)
    b = run_json(["schedule", placed, *algo], capsys)
    assert a["kind"] == b["kind"] == "feasible"
    assert a["value"] == b["value"]
    v1 = run_json(["verify", trace, tmp_path / "a.json", "--topology", spec], capsys)
    v2 = run_json(["verify", placed, tmp_path / "a.json"], capsys)
    assert v1["kind"] == v2["kind"] == "feasible" and v1["value"] == v2["value"] == a["value"]
    from coflowopt.formats import read_schedule
    inst = read_instance(placed)
    rep = verify_schedule(inst, read_schedule(tmp_path / "a.json", inst))
    assert rep.ok and float(rep.weighted_completion_time) == a["value"]
    # placed on a topology the trace can only be slower than on its big switch
    big = run_json(["schedule", trace, *algo], capsys)
    assert a["value"] >= big["value"] * (1 - 1e-9)


def test_bounds_and_exact_on_a_generated_topology(tmp_path, capsys):
    """bound (every method that runs on resources) <= exact optimum <= verified schedules, on
    a small generated leaf-spine instance, through the command line."""
    f = tmp_path / "ls.json"
    run_json(["generate", "leaf-spine", "-p", "leaves=2", "-p", "spines=2", "-p",
              "hosts_per_leaf=2", "-p", "oversubscription=2", "-p", "num_coflows=4", "--seed",
              "6", "-o", f], capsys)
    # the limit is generous: in a fresh clone the first exact run also compiles the numba
    # kernels it uses (inside the limit), which took over 60 s on a loaded 2-core machine
    ex = run_json(["exact", f, "--time-limit", "900"], capsys)
    assert ex["kind"] == "optimal", ex["status"]
    bounds = run_json(["bound", f, "--time-limit", "20"], capsys)["results"]
    certified = [r for r in bounds if r.get("kind") == "lower_bound"]
    assert certified  # at least the bounds that run on resources
    for r in certified:
        assert r["value"] <= ex["value"] * (1 + 1e-9), r["algorithm"]
    for algo in (["--order", "fifo", "--rates", "madd"], ["--policy", "varys"]):
        s = run_json(["schedule", f, *algo], capsys)
        assert s["kind"] == "feasible" and s["value"] >= ex["value"] * (1 - 1e-9)


# ------------------------------------------------------------------------------ refusals
BAD = [
    (["info", "{trace}", "--topology", "torus:n=4"], ["--topology torus:n=4", "fat-tree"]),
    (["info", "{trace}", "--topology", "fat-tree:k=3"], ["--topology k", "even"]),
    (["info", "{trace}", "--topology", "fat-tree:k=0"], ["--topology k", "positive"]),
    (["info", "{trace}", "--topology", "fat-tree:k=4.5"], ["--topology k", "integer"]),
    (["info", "{trace}", "--topology", "fat-tree:k=true"], ["--topology k", "integer"]),
    (["info", "{trace}", "--topology", "fat-tree:capacity=0,k=4"],
     ["--topology capacity", "positive"]),
    (["info", "{trace}", "--topology", "fat-tree:leaves=4"],
     ["--topology leaves", "accepted: k"]),
    (["info", "{trace}", "--topology", "leaf-spine:leaves=2,spines=2"],
     ["--topology", "hosts_per_leaf=VALUE"]),
    (["info", "{trace}", "--topology", "leaf-spine:leaves=2,spines=0,hosts_per_leaf=2"],
     ["--topology spines", "positive"]),
    (["info", "{trace}", "--topology", "leaf-spine:leaves=2,spines=2,hosts_per_leaf=2,"
      "unit_links=maybe"], ["--topology unit_links", "true or false"]),
    (["info", "{trace}", "--topology", "fat-tree:,k=4"], ["--topology", "empty"]),
    (["info", "{trace}", "--topology", "fat-tree:=4"], ["--topology", "empty"]),
    (["info", "{trace}", "--topology", "fat-tree:k=300"], ["--topology k", "MAX_RESOURCES"]),
    (["info", "{trace}", "--routing", "shortest"], ["--routing", "--topology"]),
    (["info", "{trace}", "--routing-seed", "2"], ["--routing-seed", "--topology"]),
    (["info", "{trace}", "--placement", "random"], ["--placement", "--topology"]),
    (["info", "{trace}", "--topology", "fat-tree:k=4", "--placement", "modulo",
      "--placement-seed", "1"], ["--placement-seed", "random"]),
    (["info", "{placed}", "--topology", "fat-tree:k=4"], ["{placed}", "already on a topology"]),
    (["convert", "{placed}", "{tmp}/x.txt", "--to", "sincronia"],
     ["--to sincronia", "{placed}", "big switch only"]),
    (["convert", "{placed}", "{tmp}/x.txt", "--to", "fb"], ["--to fb", "big switch only"]),
    (["convert", "{trace}", "{tmp}/x.txt", "--to", "coflow-benchmark", "--topology",
      "fat-tree:k=4"], ["--to coflow-benchmark", "--topology"]),
    (["generate", "fat-tree", "-p", "k=4", "-p", "num_coflows=0", "-o", "{tmp}/g.json"],
     ["-p num_coflows", ">= 1"]),
    (["generate", "fat-tree", "-p", "k=4", "-p", "pattern=all_to_all", "-p",
      "flows_per_coflow=[1,2]", "-o", "{tmp}/g.json"], ["-p flows_per_coflow", "uniform_random"]),
    (["generate", "fat-tree", "-p", "k=2", "-p", "pattern=one_to_one", "-p", "width=[1,3]",
      "-o", "{tmp}/g.json"], ["-p width", "2 hosts"]),
    (["generate", "leaf-spine", "-p", "unit_links=true", "-p", "oversubscription=3", "-o",
      "{tmp}/g.json"], ["-p", "unit_links", "whole multiple"]),
    (["generate", "leaf-spine", "-p", "routing_seed=-1", "-o", "{tmp}/g.json"],
     ["-p routing_seed", ">= 0"]),
    (["generate", "fat-tree", "-p", "weights=heavy", "-o", "{tmp}/g.json"], ["-p weights"]),
]


@pytest.fixture
def placed(trace, tmp_path) -> Path:
    p = tmp_path / "placed.json"
    write_instance(on_topology(read_instance(trace), fat_tree(4)), p)
    return p


@pytest.mark.parametrize("argv,words", BAD, ids=[" ".join(a[:1] + a[2:4]) for a, _ in BAD])
def test_refusals_are_exit_2_with_one_line(trace, placed, tmp_path, capsys, argv, words):
    subst = {"trace": str(trace), "placed": str(placed), "tmp": str(tmp_path)}
    code, out, err = run([a.format(**subst) for a in argv], capsys)
    one_line_error(code, out, err, *(w.format(**subst) for w in words))


def _tagged(kind):
    from coflowopt.registry import algorithms
    return [a.name for a in algorithms(kind) if "big_switch_only" in a.tags]


@pytest.mark.parametrize("kind,flag,argv", [
    ("ordering", "--order", ["schedule", "{placed}", "--rates", "madd", "--order"]),
    ("rates", "--rates", ["schedule", "{placed}", "--order", "fifo", "--rates"]),
    ("policy", "--policy", ["schedule", "{placed}", "--policy"]),
    ("bound", "--method", ["bound", "{placed}", "--method"]),
    ("exact", "--method", ["exact", "{placed}", "--method"]),
])
def test_every_big_switch_only_algorithm_is_refused_by_name(placed, capsys, kind, flag, argv):
    """Each algorithm still tagged big_switch_only, named on a topology instance: exit 2, one
    line naming the flag and the algorithm, the tag, and the methods of that kind that run on
    resources.  (The set shrinks as algorithms are generalised; the loop follows the
    registry.)"""
    names = _tagged(kind)
    if not names:
        pytest.skip(f"every {kind} runs on resources")
    for name in names:
        code, out, err = run([a.format(placed=placed) for a in argv] + [name], capsys)
        one_line_error(code, out, err, f"{flag} {name}", "big_switch_only", str(placed),
                       "on resources:")


def test_fairness_on_a_topology(placed, capsys):
    """coflowopt fairness on a topology instance: its links are the resources (exit 0), or,
    where a method is defined on the big switch only, one line naming the file (exit 2)."""
    code, out, err = run(["fairness", placed, "--json"], capsys)
    if code == 0:
        d = json.loads(out)
        assert d["links"] == 96 and d["optimal_isolation_guarantee"] > 0
    else:
        one_line_error(code, out, err, str(placed), "96 resources")


def test_bound_all_skips_big_switch_only_methods(placed, capsys):
    """With --method all the methods that do not run on resources are rows 'skipped' (exit 0),
    not a refusal."""
    d = run_json(["bound", placed, "--time-limit", "10"], capsys)
    rows = {r["algorithm"]: r for r in d["results"]}
    for name in _tagged("bound"):
        assert rows[name]["status"] == "skipped" and "big_switch_only" in rows[name]["message"]


def test_not_supported_error_is_exit_2_with_its_message(capsys, monkeypatch):
    """A NotSupportedError raised inside a run (not caught by a check before it) is bad input:
    exit 2 and its message on one line, never a traceback (exit 3)."""
    from coflowopt import cli
    from coflowopt.exceptions import NotSupportedError

    def handler(args):
        raise NotSupportedError("policy 'x' is defined on the big switch only (tag "
                                "big_switch_only); this instance runs its flows over 96 "
                                "resources\n(paths of up to 6)")
    monkeypatch.setitem(cli._COMMANDS, "algorithms", handler)
    code, out, err = run(["algorithms"], capsys)
    one_line_error(code, out, err, "coflowopt algorithms: error:", "big_switch_only",
                   "(paths of up to 6)")


def test_refusals_as_processes(trace, placed, tmp_path):
    """A few refusals from a fresh interpreter, as a user meets them."""
    for argv, words in [
            (["info", trace, "--topology", "fat-tree:k=5"], ["--topology k", "even"]),
            (["info", placed, "--topology", "fat-tree:k=4"], ["already on a topology"]),
            (["convert", placed, tmp_path / "x.txt", "--to", "sincronia"], ["--to sincronia"])]:
        code, out, err = process(argv, tmp_path)
        one_line_error(code, out, err, *words)


# ------------------------------------------------------------------------------ in step
def test_parser_names_match_the_topology_module():
    """The parser lists routing, placement and kind names without importing numpy; they must
    be topology's."""
    from coflowopt import cli, topology
    assert set(cli.ROUTING_NAMES) == set(topology.ROUTINGS)
    assert set(cli.PLACEMENT_NAMES) == set(topology.PLACEMENTS)
    assert set(cli.TOPOLOGY_KINDS) <= set(topology.BUILDERS)
    for kind in cli.TOPOLOGY_KINDS:
        assert cli.parse_topology(cli.TOPOLOGY_EXAMPLES[kind]).kind == kind
    from coflowopt.formats import INSTANCE_FORMATS
    assert set(cli.BIG_SWITCH_FORMATS) == set(INSTANCE_FORMATS) - {"json"}


def test_every_instance_command_takes_topology():
    """--topology is an instance-reading option: every command with --format has it."""
    from coflowopt.cli import build_parser
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    for name, sp in sub.choices.items():
        opts = {o for a in sp._actions for o in a.option_strings}
        if "--format" in opts:
            assert {"--topology", "--routing", "--routing-seed", "--placement",
                    "--placement-seed"} <= opts, name
