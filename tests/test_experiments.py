"""Experiments: spec validation, the runner (resume after kill -9, failures, time limits, Dask),
the results store, report statistics and plots.

The module also holds the deliberately misbehaving "policies" the specs below refer to as
``test_experiments:<name>`` (importable in the spawned workers, which inherit ``sys.path``).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from coflowopt.experiments.spec import SpecError, load_spec, parse_spec

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


# ------------------------------------------------------------------ misbehaving "policies"
def sleepy_fifo(instance, *, delay: float = 0.05):
    """FIFO + greedy, slowly (so that a run can be killed half way)."""
    from coflowopt.registry import get_algorithm
    time.sleep(delay)
    order = get_algorithm("ordering", "fifo").func(instance)
    return get_algorithm("rates", "greedy").func(instance, order)


def boom(instance):
    raise RuntimeError("boom on purpose")


def die(instance):
    os._exit(3)


def hang(instance):
    time.sleep(120)


# ------------------------------------------------------------------ helpers
def gen_source(n=3, name="u", ports=3, coflows=4, **extra):
    return {"name": name, "generator": "uniform_random", "seeds": n,
            "params": {"num_ports": ports, "num_coflows": coflows, "flows_per_coflow": [1, 3],
                       **extra}}


def write_spec(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def physical_ids(run_dir):
    from coflowopt.experiments.store import iter_physical_rows
    return [r["task_id"] for _, _, r in iter_physical_rows(run_dir) if r is not None]


# ------------------------------------------------------------------ spec validation
BASE = {"instances": [gen_source()], "algorithms": {"schedules": [{"order": "fifo",
                                                                   "rates": "greedy"}]}}


def _with(**changes):
    raw = json.loads(json.dumps(BASE))
    for k, v in changes.items():
        raw[k] = v
    return raw


@pytest.mark.parametrize("raw, key, rule", [
    (_with(objective="makespan"), "objective", "must be one of"),
    (_with(repetitions=0), "repetitions", "integer >= 1"),
    (_with(colour="red"), "colour", "unknown key"),
    ({"algorithms": BASE["algorithms"]}, "", "missing required key 'instances'"),
    (_with(instances=[]), "instances", "non-empty array"),
    (_with(instances=[{"generator": "nope"}]), "instances[0].generator", "unknown generator"),
    (_with(instances=[{"generator": "uniform_random", "library": "x"}]), "instances[0]",
     "exactly one of"),
    (_with(instances=[gen_source() | {"seeds": 0}]), "instances[0].seeds",
     "integer >= 1"),
    (_with(instances=[gen_source() | {"params": {"num_portz": 3}}]),
     "instances[0].params.num_portz", "no parameter"),
    (_with(instances=[gen_source(), gen_source()]), "instances[1].name", "already the name"),
    (_with(instances=[{"library": "papers/no-such-*"}]), "instances[0].library[0]",
     "matches no library instance"),
    (_with(instances=[{"files": "no/such/file.json"}]), "instances[0].files[0]",
     "no such file"),
    (_with(algorithms={"schedules": [{"order": "fifo"}]}), "algorithms.schedules[0]",
     "missing 'rates'"),
    (_with(algorithms={"schedules": [{"order": "nope", "rates": "greedy"}]}),
     "algorithms.schedules[0].order", "unknown ordering 'nope'"),
    (_with(algorithms={"schedules": [{"policy": "x", "order": "fifo"}]}),
     "algorithms.schedules[0]", "either policy"),
    (_with(algorithms={"schedules": [{"order": "sebf", "rates": "greedy",
                                      "order_params": {"gama": 1}}]}),
     "algorithms.schedules[0].order_params.gama", "has no parameter 'gama'"),
    (_with(algorithms={"schedules": "some"}), "algorithms.schedules[0]", 'must be "all"'),
    (_with(algorithms={"bounds": ["nope"]}), "algorithms.bounds[0].name", "unknown bound"),
    (_with(algorithms={"exact": {"method": "bnb"}}), "algorithms.exact",
     "missing 'time_limit'"),
    (_with(algorithms={"exact": {"method": "bnb", "time_limit": -1}}),
     "algorithms.exact.time_limit", "> 0"),
    (_with(algorithms={"schedules": [{"order": "fifo", "rates": "greedy"},
                                     {"order": "fifo", "rates": "greedy"}]}),
     "algorithms", "listed twice"),
    (_with(algorithms={"skip_tags": ["fast"], "bounds": "all"}), "algorithms.skip_tags",
     "list of tags"),
    (_with(limits={"task_seconds": 0}), "limits.task_seconds", "> 0"),
    (_with(algorithms={"schedules": [{"policy": "no_such_module:f"}]}),
     "algorithms.schedules[0].policy", "cannot import"),
    (_with(instances=[gen_source() | {"topology": {"k": 4}}]), "instances[0].topology.kind",
     "is required"),
    (_with(instances=[gen_source() | {"topology": {"kind": "torus"}}]),
     "instances[0].topology.kind", "unknown topology kind 'torus'"),
    (_with(instances=[gen_source() | {"topology": {"kind": "fat-tree", "kk": 4}}]),
     "instances[0].topology.kk", "has no parameter 'kk'"),
    (_with(instances=[gen_source() | {"topology": {"kind": "fat-tree", "k": 5}}]),
     "instances[0].topology", "topology fat-tree"),
    (_with(instances=[gen_source() | {"topology": {"kind": "fat-tree", "k": 4,
                                                   "routing": "random"}}]),
     "instances[0].topology.routing", "must be one of"),
    (_with(instances=[gen_source() | {"topology": {"kind": "fat-tree", "k": 4,
                                                   "placement_seed": -1}}]),
     "instances[0].topology.placement_seed", ">= 0"),
    # the command line's parameter rules (introspect.parameter_problem): a generator's
    # required parameters (params = {} was an internal error when the instance was built) and
    # the types a signature states (a str compared with 0 inside the algorithm before)
    (_with(instances=[{"name": "g", "generator": "uniform_random", "params": {}}]),
     "instances[0].params.num_ports", "required by generator uniform_random"),
    (_with(instances=[{"name": "g", "generator": "uniform_random",
                       "params": {"num_ports": 2, "num_coflows": "x"}}]),
     "instances[0].params.num_coflows", "needs an integer, got 'x'"),
    (_with(algorithms={"schedules": [{"policy": "varys", "params": {"tol_rel": "x"}}]}),
     "algorithms.schedules[0].params.tol_rel", "policy varys needs a number"),
    (_with(algorithms={"schedules": [{"order": "sebf", "rates": "madd",
                                      "rate_params": {"order": [0, 1]}}]}),
     "algorithms.schedules[0].rate_params.order", "has no parameter 'order'"),
    (_with(algorithms={"bounds": [{"name": "interval-lp", "params": {"epsilon": "x"}}]}),
     "algorithms.bounds[0].params.epsilon", "bound interval-lp needs a number"),
    # counts beyond MAX_TASKS (a spec fuzz: seeds = 10^30 was an internal error in
    # range(), repetitions = 10^30 planned tasks one by one until killed)
    (_with(instances=[gen_source(n=10**30)]), "instances[0].seeds", "<= 10,000,000"),
    (_with(instances=[gen_source() | {"seeds": {"start": 0, "stop": 10**8}}]),
     "instances[0].seeds", "MAX_TASKS"),
    (_with(repetitions=10**30), "repetitions", "<= 10,000,000"),
    (_with(instances=[gen_source(n=10**6)], repetitions=11), "", "plans 1"),
])
def test_spec_errors_name_key_and_rule(raw, key, rule):
    with pytest.raises(SpecError) as ei:
        parse_spec(raw, path="spec.toml")
    msg = str(ei.value)
    assert msg.startswith("spec.toml"), msg
    assert ei.value.field == (key or None), msg
    assert rule in msg, msg


@pytest.mark.parametrize("params, rule", [
    ({"num_ports": 0}, "num_ports must be an integer >= 1 and <= 100000"),
    ({"num_ports": 10**30}, "(MAX_PORTS, coflowopt.limits), got 10000000000000000000000000000"),
    ({"num_coflows": 10**30}, "(MAX_COFLOWS, coflowopt.limits)"),
    ({"size": [1, 10**30]}, "size must be a pair (lo, hi) of integers with 0 < lo <= hi <= 9"),
])
def test_plan_names_the_spec_for_a_value_the_generator_refuses(params, rule):
    """A value only the generator can judge (it builds the instance at plan time) is the spec's
    error: the file and the block's params, not a bare generator message (num_ports = 0) or an
    internal error (num_ports = 10^30 reached numpy: "Maximum allowed dimension exceeded")."""
    from coflowopt.experiments.tasks import plan
    src = gen_source(n=1)
    src["params"].update(params)
    spec = parse_spec(_with(instances=[src]), path="spec.toml")
    with pytest.raises(SpecError) as ei:
        plan(spec)
    msg = str(ei.value)
    assert msg.startswith("spec.toml, instances[0].params: u/seed=0: uniform_random: "), msg
    assert ei.value.field == "instances[0].params" and rule in msg, msg


def test_spec_topology_places_the_instances():
    """A source's ``topology`` table places and routes each instance like on_topology."""
    from coflowopt.topology import fat_tree, on_topology
    raw = _with(instances=[gen_source(n=2, ports=6) | {"topology": {
        "kind": "fat-tree", "k": 4, "routing": "ecmp", "routing_seed": 3,
        "placement": "random", "placement_seed": 1}}])
    spec = parse_spec(raw)
    refs = list(spec.instances())
    assert len(refs) == 2
    inst = refs[1].load()
    base = list(parse_spec(_with(instances=[gen_source(n=2, ports=6)])).instances())[1].load()
    want = on_topology(base, fat_tree(4), routing="ecmp", seed=3, placement="random",
                       placement_seed=1)
    assert not inst.is_big_switch and inst.num_hosts == 16
    assert inst.flow_resource.tolist() == want.flow_resource.tolist()
    assert inst.meta["topology"]["placement_seed"] == 1
    # the hash sees the topology: the same trace at another oversubscription is another task
    from coflowopt.experiments.spec import instance_hash
    other = on_topology(base, fat_tree(4, core_oversubscription=2), routing="ecmp", seed=3,
                        placement="random", placement_seed=1)
    assert instance_hash(inst) == instance_hash(want) != instance_hash(other)
    assert instance_hash(inst) != instance_hash(base)


def test_spec_toml_syntax_error_and_missing_file(tmp_path):
    with pytest.raises(SpecError, match="no such spec file"):
        load_spec(tmp_path / "none.toml")
    p = write_spec(tmp_path / "bad.toml", "name = \n")
    with pytest.raises(SpecError, match=r"bad.toml: not valid TOML.*line 1"):
        load_spec(p)


def test_spec_missing_skip_lists_unavailable_names():
    spec = parse_spec(_with(algorithms={"missing": "skip", "schedules": [
        {"order": "fifo", "rates": "greedy"}, {"policy": "not-yet-registered"},
        {"order": "fifo", "rates": "not-yet"}]}))
    assert [a.label for a in spec.algorithms] == ["fifo+greedy"]
    assert spec.unavailable == ["policy not-yet-registered", "rates not-yet"]


def test_spec_expansion_limits_and_hash(tmp_path):
    from coflowopt.experiments.tasks import plan
    from coflowopt.registry import algorithms
    raw = {"instances": [gen_source(2, coflows=4), gen_source(1, name="big", coflows=12)],
           "algorithms": {"schedules": "all", "bounds": "all",
                          "exact": {"method": "bnb", "time_limit": 5, "max_coflows": 8}}}
    spec = parse_spec(raw)
    n_sched = len(algorithms("ordering")) * len(algorithms("rates")) + len(algorithms("policy"))
    assert len(spec.algorithms) == n_sched + len(algorithms("bound")) + 1
    pl = plan(spec)
    # exact methods and exponential orderings are skipped on the 12-coflow instance
    assert any("bnb: more than 8 coflows" in k for k in pl.skipped)
    assert all(t.instance.group == "u" for t in pl.tasks if t.algorithm.label == "bnb")
    # the same spec plans the same task ids; the hash ignores key order
    assert plan(parse_spec(dict(reversed(list(raw.items()))))).task_ids == pl.task_ids
    assert parse_spec(dict(reversed(list(raw.items())))).spec_hash == spec.spec_hash
    # placeholders and relative paths: a file source relative to the spec
    (tmp_path / "inst").mkdir()
    from coflowopt.formats import write_instance
    from coflowopt.generators import uniform_random
    write_instance(uniform_random(2, 2, seed=0), tmp_path / "inst" / "a.json")
    write_instance(uniform_random(2, 3, seed=1), tmp_path / "inst" / "b.json")
    p = write_spec(tmp_path / "s.toml", """
[[instances]]
files = "{spec_dir}/inst/*.json"
zero_release = true
[algorithms]
bounds = ["isolated"]
""")
    s2 = load_spec(p)
    assert [r.key for r in s2.instances()] == ["files:a.json", "files:b.json"]


def test_spec_files_in_repository_validate(shared_dir):
    for p in sorted((REPO / "experiments" / "specs").glob("*.toml")):
        spec = load_spec(p)
        assert spec.algorithms, p


def test_gap_small_plans_500_instances_with_exact_optima():
    from coflowopt.experiments.tasks import plan
    spec = load_spec(REPO / "experiments" / "specs" / "gap-small.toml")
    pl = plan(spec)
    assert pl.instances == 500
    assert sum(t.algorithm.kind == "exact" for t in pl.tasks) == 500
    assert not any(k.startswith("bnb") for k in pl.skipped)


# ------------------------------------------------------------------ runner and store
SMALL = """
name = "small"
[limits]
task_seconds = 60
[[instances]]
name = "u"
generator = "uniform_random"
params = {{ num_ports = 3, num_coflows = 4, flows_per_coflow = [1, 3] }}
seeds = {n}
[algorithms]
schedules = [{{ order = "fifo", rates = "greedy" }}, {{ order = "random", rates = "greedy" }},
             {{ order = "bssi", rates = "greedy" }}]
bounds = ["isolated", "port"]
exact = {{ method = "bnb", time_limit = 10, max_coflows = 8 }}
"""


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    """A small spec run with two local worker processes."""
    from coflowopt.experiments.runner import run
    from coflowopt.experiments.store import load_rows
    d = tmp_path_factory.mktemp("local")
    spec = load_spec(write_spec(d / "small.toml", SMALL.format(n=4)))
    summary = run(spec, d / "run", workers=2, progress=False)
    return spec, summary, load_rows(d / "run"), d / "run"


def test_local_run_writes_every_planned_row_once(local_run):
    from coflowopt.experiments.tasks import plan
    spec, summary, rows, run_dir = local_run
    ids = physical_ids(run_dir)
    assert len(ids) == len(set(ids)) == summary.planned == 4 * 6
    assert set(ids) == plan(spec).task_ids
    assert summary.failed == 0
    by = Counter((r["algorithm_kind"], r["result_kind"]) for r in rows)
    assert by == {("schedule", "feasible"): 12, ("bound", "lower_bound"): 8,
                  ("exact", "optimal"): 4}
    for r in rows:
        assert r["verified"] is True
        assert r["coflows"] == 4 and r["ingress_ports"] == 3
        assert len(r["instance_hash"]) == 64
    rnd = [r for r in rows if r["algorithm"] == "random+greedy"]
    assert {r["seed"] for r in rnd} == {0}
    man = json.loads((run_dir / "manifest.json").read_text())
    assert man["spec_hash"] == spec.spec_hash
    assert man["git"]["commit"] and man["versions"]["numpy"] and man["machine"]["cpu_count"]
    assert man["sessions"][-1]["outcome"] == "completed"


def test_rerun_skips_finished_work(local_run):
    from coflowopt.experiments.runner import run
    spec, summary, rows, run_dir = local_run
    again = run(spec, run_dir, workers=1, progress=False)
    assert again.already_done == summary.planned and again.executed == 0
    assert len(physical_ids(run_dir)) == summary.planned


def test_duckdb_views_match_rows(local_run):
    pytest.importorskip("duckdb")
    from coflowopt.experiments.store import connect
    spec, summary, rows, run_dir = local_run
    con = connect(run_dir)
    assert con.execute("select count(*) from results").fetchone()[0] == len(rows)
    got = dict(con.execute("select task_id, value from results").fetchall())
    assert got == {r["task_id"]: r["value"] for r in rows}
    assert con.execute("select spec_hash from manifest").fetchone()[0] == spec.spec_hash


def test_dask_local_cluster_gives_the_same_rows(local_run, tmp_path):
    distributed = pytest.importorskip("distributed")
    from coflowopt.experiments.runner import run
    from coflowopt.experiments.store import load_rows
    spec, summary, rows, _ = local_run
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            s = run(spec, tmp_path / "dask", dask=client, progress=False)
    assert s.executed == summary.planned and s.failed == 0
    drows = load_rows(tmp_path / "dask")

    def key(rs):
        skip = {"seconds", "load_seconds", "timings", "worker", "finished_at", "run_id",
                "session", "message"}
        return {r["task_id"]: {k: v for k, v in r.items() if k not in skip} for r in rs}
    assert key(drows) == key(rows)
    # the comparison script used for the full gap study says the same
    cmp = _compare_runs_module().compare(local_run[3], tmp_path / "dask", rtol=0.0)
    assert cmp["only_a"] == cmp["only_b"] == [] and not cmp["mismatched"]
    assert cmp["identical"] == len(rows)


def _compare_runs_module():
    import importlib.util
    path = Path(__file__).resolve().parents[1] / "experiments" / "compare_runs.py"
    spec = importlib.util.spec_from_file_location("compare_runs", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.slow
def test_dask_nanny_workers_can_start_sandboxes(tmp_path):
    """``dask worker`` (and ``LocalCluster(processes=True)``) run tasks in daemonic processes,
    which multiprocessing forbids to start children: the sandbox must start anyway."""
    distributed = pytest.importorskip("distributed")
    from coflowopt.experiments.runner import run
    spec = load_spec(write_spec(tmp_path / "one.toml", SMALL.format(n=1)))
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        s = run(spec, tmp_path / "dask", dask=cluster.scheduler_address, progress=False)
    assert s.executed == s.planned == 6 and s.failed == 0, s.by_status


def test_failures_are_recorded_and_the_sweep_goes_on(tmp_path):
    from coflowopt.experiments.runner import run
    spec = load_spec(write_spec(tmp_path / "f.toml", """
[limits]
task_seconds = 3
[[instances]]
library = "papers/sincronia-t-s4"
[algorithms]
schedules = [{ policy = "test_experiments:boom" }, { policy = "test_experiments:die" },
             { policy = "test_experiments:hang" }, { order = "fifo", rates = "greedy" },
             { order = "sebf", rates = "greedy", order_params = { gamma = "nonsense" } }]
"""))
    summary = run(spec, tmp_path / "run", workers=1, progress=False)
    from coflowopt.experiments.store import load_rows
    rows = {r["algorithm"]: r for r in load_rows(tmp_path / "run")}
    assert set(rows) == {"test_experiments:boom", "test_experiments:die",
                         "test_experiments:hang", "fifo+greedy", "sebf+greedy"}
    b = rows["test_experiments:boom"]
    assert b["status"] == "error" and b["error"]["type"] == "RuntimeError"
    assert "boom on purpose" in b["error"]["message"] and "def boom" not in b["error"]["message"]
    assert "in boom" in b["error"]["traceback"]
    assert rows["test_experiments:die"]["status"] == "crashed"
    assert "exit code 3" in rows["test_experiments:die"]["error"]["message"]
    h = rows["test_experiments:hang"]
    assert h["status"] == "time_limit" and 3 <= h["seconds"] < 30
    assert rows["fifo+greedy"]["status"] == "verified" and rows["fifo+greedy"]["verified"]
    assert rows["sebf+greedy"]["status"] == "error"
    assert summary.failed == 4
    # a rerun leaves failures alone; --retry-failed runs them again and the new rows win
    again = run(spec, tmp_path / "run", workers=1, progress=False)
    assert again.executed == 0
    spec2 = load_spec(write_spec(tmp_path / "f2.toml", """
[[instances]]
library = "papers/sincronia-t-s4"
[algorithms]
schedules = [{ policy = "test_experiments:boom" }, { order = "fifo", rates = "greedy" }]
"""))
    # a run folder belongs to one spec: another spec is refused (issue 10); a subset of the
    # spec's algorithms is run with a filtered plan, as `bench --only` does
    from coflowopt.exceptions import InvalidParameterError
    from coflowopt.experiments.tasks import Plan, plan as make_plan
    with pytest.raises(InvalidParameterError, match="spec hash"):
        run(spec2, tmp_path / "run", workers=0, retry_failed=True, progress=False)
    full = make_plan(spec)
    keep = {"test_experiments:boom", "fifo+greedy"}
    sub = Plan(tasks=[t for t in full.tasks if t.algorithm.label in keep],
               skipped=full.skipped, instances=full.instances)
    retry = run(spec, tmp_path / "run", workers=0, retry_failed=True, progress=False, plan=sub)
    assert retry.executed == 1 and retry.already_done == 1
    from coflowopt.experiments.store import load_rows as lr
    st: dict = {}
    lr(tmp_path / "run", stats=st)
    assert st["superseded"] == 1


def test_kill_9_then_rerun_loses_nothing_and_duplicates_nothing(tmp_path):
    from coflowopt.experiments.tasks import plan
    n = 40
    spec_path = write_spec(tmp_path / "k.toml", f"""
name = "kill"
warm_up = false
[[instances]]
name = "u"
generator = "uniform_random"
params = {{ num_ports = 3, num_coflows = 4 }}
seeds = {n}
[algorithms]
schedules = [{{ policy = "test_experiments:sleepy_fifo", params = {{ delay = 0.1 }} }},
             {{ order = "fifo", rates = "greedy" }}]
bounds = ["isolated"]
""")
    run_dir = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), str(REPO)])}
    cmd = [sys.executable, "-m", "coflowopt", "bench", str(spec_path), "--workers", "2",
           "--run-dir", str(run_dir), "--no-report"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    shard = run_dir / "results" / "part-0000.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if shard.is_file() and shard.read_bytes().count(b"\n") >= 10:
            break
        assert proc.poll() is None, proc.stderr.read().decode()
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    written = physical_ids(run_dir)
    planned = plan(load_spec(spec_path)).task_ids
    assert 10 <= len(written) < len(planned), "the kill should land half way"
    # and a torn last line: half of the row of a task that is not done, no newline
    torn = sorted(planned - set(written))[0]
    with open(shard, "ab") as fh:
        fh.write(b'{"task_id": "' + torn.encode() + b'", "value": 1')
    done = subprocess.run(cmd, env=env, capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    ids = physical_ids(run_dir)
    assert len(ids) == len(set(ids)), "a task was written twice"
    assert set(ids) == planned, "a planned task has no row"
    assert torn in ids
    # the first session's rows were kept, not recomputed
    assert set(written) <= set(ids) and len(ids) - len(written) == len(planned) - len(written)
    man = json.loads((run_dir / "manifest.json").read_text())
    assert [s["session"] for s in man["sessions"]] == [0, 1]
    assert "outcome" not in man["sessions"][0]  # killed: never closed
    assert man["sessions"][1]["outcome"] == "completed"


def test_bench_cli_dry_run_and_bad_spec(tmp_path):
    from coflowopt.cli import main
    p = write_spec(tmp_path / "s.toml", SMALL.format(n=2))
    assert main(["bench", str(p), "--dry-run", "--json"]) == 0
    bad = write_spec(tmp_path / "bad.toml", SMALL.format(n=2).replace('"fifo"', '"fifa"'))
    assert main(["bench", str(bad), "--dry-run"]) == 2
    assert main(["bench", str(p), "--dry-run", "--only", "nope"]) == 2


def test_bench_only_runs_the_named_algorithms_and_keeps_task_ids(tmp_path, capsys):
    from coflowopt.cli import main
    from coflowopt.experiments.store import load_rows
    from coflowopt.experiments.tasks import plan
    p = write_spec(tmp_path / "s.toml", SMALL.format(n=1))
    run_dir = tmp_path / "run"
    assert main(["bench", str(p), "--workers", "0", "--run-dir", str(run_dir), "--only",
                 "isolated,port", "--no-report"]) == 0
    assert sorted(r["algorithm"] for r in load_rows(run_dir)) == ["isolated", "port"]
    assert {r["task_id"] for r in load_rows(run_dir)} < plan(load_spec(p)).task_ids


def test_report_cli(local_run, capsys, tmp_path):
    from coflowopt.cli import main
    spec, summary, rows, run_dir = local_run
    assert main(["report", str(run_dir), "--json", "--factor", "bssi+greedy:fifo+greedy"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rows"] == summary.planned and out["missing"] == 0
    assert out["with_opt"] == 4 and not out["inconsistencies"]
    assert {s["algorithm"] for s in out["schedules"]} == {"fifo+greedy", "random+greedy",
                                                          "bssi+greedy"}
    assert out["factors"][0]["target"] == "bssi+greedy"
    assert main(["report", str(run_dir), "--json", "--factor", "bssi+greedy:fifo+greedy",
                 "--bins"]) == 0
    per_inst = json.loads(capsys.readouterr().out)["factors"][0]["instances"]
    assert len(per_inst) == 4 and all(set(i["classes"]) <= {"SN", "LN", "SW", "LW"}
                                      for i in per_inst)
    assert main(["report", str(run_dir)]) == 0
    text = capsys.readouterr().out
    assert "ALG/OPT" in text and "ALG/LB" in text and "Consistency" in text
    assert main(["report", str(tmp_path)]) == 2  # not a run folder


def _damage(run_dir, tmp_path, how):
    import shutil
    d = tmp_path / "damaged"
    shutil.copytree(run_dir, d)
    shard = sorted((d / "results").glob("part-*.jsonl"))[0]
    lines = shard.read_text().splitlines(keepends=True)
    how(d, shard, lines)
    return d


def _set(i, key, value):
    def how(d, shard, lines):
        row = json.loads(lines[i])
        if value is KeyError:
            del row[key]
        else:
            row[key] = value
        lines[i] = json.dumps(row) + "\n"
        shard.write_text("".join(lines))
    return how


#: (damage, words the one line must hold); the row and line numbers are 1-based in messages
DAMAGED_RUNS = {
    "manifest not JSON": (lambda d, s, ls: (d / "manifest.json").write_text("{oops"),
                          ["manifest.json:1", "not valid JSON"]),
    "manifest a list": (lambda d, s, ls: (d / "manifest.json").write_text("[]"),
                        ["manifest.json", "JSON object"]),
    "plan without tasks": (lambda d, s, ls: (d / "plan.json").write_text('{"recipes": {}}'),
                           ["plan.json", "tasks"]),
    "a line of garbage": (lambda d, s, ls: s.write_text("".join(ls[:2] + ["garbage\n"] + ls[2:])),
                          [":3", "not a JSON line", "torn last line"]),
    "a line that is a list": (lambda d, s, ls: s.write_text("".join(ls) + "[1, 2]\n"),
                              ["JSON object (one row)"]),
    "value a string": (_set(0, "value", "12"), [".jsonl:1", "value", "finite number"]),
    "value negative": (_set(1, "value", -3.0), [".jsonl:2", "value", ">= 0"]),
    "algorithm missing": (_set(0, "algorithm", KeyError), ["algorithm", "missing"]),
    "unknown kind": (_set(0, "algorithm_kind", "heuristic"), ["algorithm_kind", "one of"]),
    "error not an object": (_set(0, "error", "boom"), ["error", "object"]),
    "cct of the wrong length": (_set(0, "cct", [1.0]), ["cct", "one entry per coflow"]),
    "value_exact not a number": (_set(0, "value_exact", "1/0"), ["value_exact"]),
    "shard a directory": (lambda d, s, ls: (d / "results" / "part-9999.jsonl").mkdir(),
                          ["part-9999.jsonl", "not a file"]),
    # json's RecursionError (not a ValueError) was an internal error before 2026-11-29
    "a line nested too deep": (lambda d, s, ls: s.write_text(
        "".join(ls) + "[" * 100_000 + "]" * 100_000 + "\n"), ["not a JSON line", "nested"]),
    "manifest nested too deep": (lambda d, s, ls: (d / "manifest.json").write_text(
        "[" * 100_000 + "]" * 100_000), ["manifest.json", "nested"]),
}


@pytest.mark.parametrize("name", list(DAMAGED_RUNS))
def test_report_refuses_a_damaged_run_folder(local_run, tmp_path, capsys, name):
    """A run folder edited or damaged by hand: exit 2, one line naming the file (and the line
    and column of a bad row), for report and for --sql alike; never an internal error, a row
    silently skipped or a table computed from a wrong column. Only a shard's torn last line
    (no newline: the writer was killed mid-row) is skipped, as the store documents."""
    from coflowopt.cli import main
    how, words = DAMAGED_RUNS[name]
    d = _damage(local_run[3], tmp_path, how)
    for extra in ([], ["--sql", "select count(*) from results"]):
        assert main(["report", str(d), "--json", *extra]) == 2
        cap = capsys.readouterr()
        lines = cap.err.strip().splitlines()
        assert cap.out == "" and len(lines) == 1 and "Traceback" not in cap.err, cap.err
        for w in words:
            assert w in lines[0], (w, lines[0])


@pytest.mark.parametrize("argv,words", [
    (["--baseline", "nope"], ["--baseline nope", "labels: "]),
    (["--gantt", "fifo+greedy"], ["--gantt", "--plots"]),
    (["--gantt-instance", "x"], ["--gantt-instance", "--plots"]),
    (["--no-gantt"], ["--no-gantt", "--plots"]),
    (["--bins"], ["--bins", "--factor"]),
    (["--sql", "select 1", "--pairwise"], ["--pairwise", "--sql"]),
    (["--sql", "select 1", "--factor", "a:b"], ["--factor", "--sql"]),
    (["--plots", "PLOTS", "--plot-algorithms", ","], ["--plot-algorithms", "no algorithm"]),
])
def test_report_flags_that_would_do_nothing_are_refused(local_run, tmp_path, capsys, argv,
                                                        words):
    """A flag the report would ignore (an unknown baseline, a plot option without --plots, a
    table option beside --sql) is a usage error naming it, not a silent no-op."""
    from coflowopt.cli import main
    argv = [str(tmp_path / "p") if a == "PLOTS" else a for a in argv]
    assert main(["report", str(local_run[3]), *argv]) == 2
    cap = capsys.readouterr()
    lines = cap.err.strip().splitlines()
    assert cap.out == "" and len(lines) == 1, cap.err
    for w in words:
        assert w in lines[0], (w, lines[0])


def test_report_skips_only_a_torn_last_line(local_run, tmp_path, capsys):
    from coflowopt.cli import main
    d = _damage(local_run[3], tmp_path,
                lambda d, s, ls: s.write_text("".join(ls) + ls[0][: len(ls[0]) // 2]))
    assert main(["report", str(d), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["store"]["unreadable"] == 1 and out["rows"] == local_run[1].planned


# ------------------------------------------------------------------ report statistics
def _row(inst, alg, kind, value, result_kind, **kw):
    return {"task_id": f"{inst}-{alg}", "instance_key": inst, "instance_hash": inst,
            "instance_group": f"group-{inst}", "coflows": 2,
            "objective": "weighted_completion_time", "algorithm": alg, "algorithm_kind": kind,
            "value": value, "result_kind": result_kind, "repetition": 0,
            "status": "verified", **kw}


def hand_table():
    rows = []
    # instance a: LB 8 (port), 9 would be wrong; OPT 10
    rows += [_row("a", "port", "bound", 8.0, "lower_bound"),
             _row("a", "isolated", "bound", 6.0, "lower_bound"),
             _row("a", "bnb", "exact", 10.0, "optimal"),
             _row("a", "A", "schedule", 10.0, "feasible", seconds=1.0, cct=[1.0, 3.0]),
             _row("a", "B", "schedule", 12.0, "feasible", seconds=2.0, cct=[2.0, 4.0])]
    # instance b: LB 20 (isolated ties port), no optimum
    rows += [_row("b", "port", "bound", 20.0, "lower_bound"),
             _row("b", "isolated", "bound", 20.0, "lower_bound"),
             _row("b", "bnb", "exact", 22.0, "feasible", bound=21.0, status="time_limit"),
             _row("b", "A", "schedule", 30.0, "feasible", seconds=1.0, cct=[4.0, 1.0]),
             _row("b", "B", "schedule", 25.0, "feasible", seconds=4.0, cct=[1.0, 4.0]),
             _row("b", "C", "schedule", None, None, status="error",
                  error={"type": "RuntimeError", "message": "x", "traceback": ""})]
    return rows


def test_report_statistics_on_a_hand_made_table():
    from coflowopt.experiments.report import analyse
    a = analyse(hand_table(), baseline="A")
    s = {d["algorithm"]: d for d in a["schedules"]}
    # ALG/LB: A 10/8, 30/20 -> 1.25, 1.5; B 12/8, 25/20 -> 1.5, 1.25
    assert s["A"]["alg_lb"]["mean"] == pytest.approx(1.375)
    assert s["A"]["alg_lb"]["median"] == pytest.approx(1.375)
    assert s["A"]["alg_lb"]["p95"] == pytest.approx(1.25 + 0.95 * 0.25)
    assert s["A"]["alg_lb"]["max"] == pytest.approx(1.5)
    # ALG/OPT only on instance a
    assert s["A"]["alg_opt"] == pytest.approx({"n": 1, "mean": 1.0, "median": 1.0, "p95": 1.0,
                                               "max": 1.0, "min": 1.0})
    assert s["B"]["alg_opt"]["mean"] == pytest.approx(1.2)
    # wins vs best: A best on a, B best on b
    assert (s["A"]["vs_best_best"], s["B"]["vs_best_best"]) == (1, 1)
    assert s["A"]["vs_best_mean_over_best"] == pytest.approx((1.0 + 30 / 25) / 2)
    assert a["pairwise"]["A"]["B"] == {"wins": 1, "ties": 0, "losses": 1}
    assert s["C"]["feasible"] == 0 and s["C"]["statuses"] == {"error": 1}
    # LB sources: port on a; port and isolated tie on b; exact bounds do not count by default
    assert a["lb_sources"] == {"port": 2, "isolated": 1}
    b = {d["algorithm"]: d for d in a["bounds"]}
    assert b["port"]["lb_opt"]["mean"] == pytest.approx(0.8)
    assert b["isolated"]["lb_best"]["min"] == pytest.approx(0.75)
    assert a["with_opt"] == 1 and a["with_lb"] == 2 and a["failure_count"] == 1
    assert a["runtimes"]["B"]["median_vs_baseline"] == pytest.approx(3.0)
    assert not a["inconsistencies"]
    # with exact bounds: b's LB becomes 21 (the time-limited search's proven bound)
    a2 = analyse(hand_table(), lb_from_exact=True)
    s2 = {d["algorithm"]: d for d in a2["schedules"]}
    assert s2["B"]["alg_lb"]["max"] == pytest.approx(max(12 / 10, 25 / 21))


def test_report_flags_inconsistencies():
    from coflowopt.experiments.report import analyse
    rows = hand_table() + [_row("a", "bad-bound", "bound", 11.0, "lower_bound")]
    incons = analyse(rows)["inconsistencies"]
    rules = {i["rule"] for i in incons}
    assert "a verified schedule is below a certified lower bound" in rules
    assert "a proven optimum is below a certified lower bound" in rules


def test_improvement_factors_label_both_definitions():
    from coflowopt.experiments.report import improvement_factors
    f = improvement_factors(hand_table(), "B", "A", percentiles=(50,))
    a = {i["instance_key"]: i for i in f["instances"]}
    # instance a: CCT A = [1, 3], B = [2, 4]
    assert a["a"]["ratio_of_means"] == pytest.approx(4 / 6)
    assert a["a"]["mean_of_ratios"] == pytest.approx((0.5 + 0.75) / 2)
    assert a["a"]["ratio_of_p50"] == pytest.approx(2 / 3)
    assert a["a"]["slower"] == 1.0 and a["a"]["faster"] == 0.0
    # instance b: A = [4, 1], B = [1, 4]: ratio of means 1, mean of ratios (4 + 1/4) / 2
    assert a["b"]["ratio_of_means"] == pytest.approx(1.0)
    assert a["b"]["mean_of_ratios"] == pytest.approx(2.125)
    assert a["b"]["faster"] == 0.5 and a["b"]["slower"] == 0.5
    assert f["mean_over_instances"]["ratio_of_means"] == pytest.approx((4 / 6 + 1) / 2)
    f2 = improvement_factors(hand_table(), "B", "A", classes={"a": ["x", "y"]})
    cls = {i["instance_key"]: i.get("classes") for i in f2["instances"]}
    assert cls["a"]["x"]["ratio_of_means"] == pytest.approx(0.5) and cls["b"] is None


# ------------------------------------------------------------------ plots
def test_plots_are_written(tmp_path):
    pytest.importorskip("matplotlib")
    from coflowopt.api import run_schedule
    from coflowopt.experiments import plots
    from coflowopt.experiments.report import ratio_rows
    from coflowopt.library import load_instance
    rr = ratio_rows(hand_table())
    written = plots.cdf(rr, tmp_path / "cdf", base="LB")
    written += plots.ratio_vs(rr, tmp_path / "size.png", x="group")
    inst = load_instance("papers/sincronia-t-s4")
    written += plots.gantt(inst, run_schedule(inst, "bssi", "greedy").schedule,
                           tmp_path / "gantt")
    assert sorted(Path(p).name for p in written) == sorted(
        ["cdf.png", "cdf.pdf", "size.png", "size.pdf", "gantt.png", "gantt.pdf"])
    for p in written:
        assert Path(p).stat().st_size > 1000
    assert Path(written[0]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_plots_cli(local_run, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from coflowopt.cli import main
    _, _, rows, run_dir = local_run
    assert main(["report", str(run_dir), "--plots", str(tmp_path / "p"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for name in ("cdf-alg-opt", "cdf-alg-lb", "alg-opt-vs-max_port_load"):
        assert (tmp_path / "p" / f"{name}.png").is_file()
        assert (tmp_path / "p" / f"{name}.pdf").is_file()
    # Gantt charts, recomputed from the recipes: the best algorithm by mean ALG/OPT on the
    # instance where it is worst, and bnb's optimal schedule of the same instance
    gantts = sorted(Path(p).name for p in out["plots"] if "gantt-" in p)
    assert len(gantts) == 4 and any("-bnb." in g for g in gantts), gantts
    assert main(["report", str(run_dir), "--plots", str(tmp_path / "q"), "--gantt",
                 "fifo+greedy", "--gantt-instance", rows[0]["instance_key"]]) == 0
    assert len(list((tmp_path / "q").glob("gantt-*fifo+greedy.png"))) == 1
    capsys.readouterr()
    assert main(["report", str(run_dir), "--plots", str(tmp_path / "r"), "--gantt",
                 "nope"]) == 2
    assert "gantt algorithm 'nope'" in capsys.readouterr().err


def test_report_states_row_count_and_unique_keys(local_run, capsys):
    from coflowopt.cli import main
    from coflowopt.experiments.report import analyse, format_report
    spec, summary, rows, run_dir = local_run
    assert main(["report", str(run_dir), "--json"]) == 0
    integ = json.loads(capsys.readouterr().out)["integrity"]
    assert integ["rows"] == integ["distinct_keys"] == integ["planned"] == summary.planned
    assert integ["duplicated_keys"] == 0 and integ["missing_ids"] == integ["extra_ids"] == 0
    # the same (instance, algorithm) under two task ids is reported as duplicated
    dup = [dict(rows[0], task_id="another")] + list(rows)
    a = analyse(dup, planned_ids=[r["task_id"] for r in rows])
    assert a["integrity"]["duplicated_keys"] == 1 and a["integrity"]["extra_ids"] == 1
    assert "1 DUPLICATED" in format_report(a)


# ------------------------------------------------------------------ demo
def test_demo_has_bounds_optima_and_ratios():
    from coflowopt.demo import format_table, run_demo
    from coflowopt.registry import algorithms
    rows, failures = run_demo()
    assert not failures, failures
    kinds = Counter(r["algorithm_kind"] for r in rows)
    n_inst = len({r["instance"] for r in rows})
    assert kinds["bound"] == n_inst * len(algorithms("bound"))
    assert kinds["exact"] == n_inst
    for r in rows:
        if r["algorithm_kind"] == "schedule":
            assert r["verified"] and r["kind"] == "feasible"
            assert r["alg_opt"] >= 1 - 1e-9 and r["alg_lb"] >= r["alg_opt"] - 1e-9
    assert all(r["kind"] == "optimal" for r in rows if r["algorithm_kind"] == "exact")
    text = format_table(rows)
    assert "ALG/LB" in text and "ALG/OPT" in text and "certified" in text


# ------------------------------------------------------------------ the gap study itself
@pytest.mark.slow
def test_gap_small_runs_completely_on_2_workers(tmp_path):
    from coflowopt.experiments.report import analyse
    from coflowopt.experiments.runner import run
    from coflowopt.experiments.store import load_rows
    spec = load_spec(REPO / "experiments" / "specs" / "gap-small.toml")
    t0 = time.perf_counter()
    s = run(spec, tmp_path / "gap", workers=2, progress=False)
    # not a timed test: the wall time is measured and reported in
    # experiments/reproductions/gap-small.md (it depends on the machine's load)
    print(f"gap-small: {time.perf_counter() - t0:.0f} s on 2 workers")
    a = analyse(load_rows(tmp_path / "gap"), planned=s.planned)
    assert a["missing"] == 0 and a["with_opt"] == 500 and not a["inconsistencies"]
    assert a["integrity"]["duplicated_keys"] == 0


def hog(instance):
    import numpy as np
    return np.ones(2_000_000_000 // 8 * 3)  # 6 GB: more than the limit below


def test_memory_limit_turns_an_oom_into_a_recorded_memory_error(tmp_path):
    from coflowopt.experiments.runner import run
    from coflowopt.experiments.store import load_rows
    spec = load_spec(write_spec(tmp_path / "m.toml", """
[limits]
memory_mb = 3000
[[instances]]
library = "papers/sincronia-t-s4"
[algorithms]
schedules = [{ policy = "test_experiments:hog" }, { order = "bssi", rates = "greedy" }]
bounds = ["ordering-lp"]
exact = { method = "bnb", time_limit = 10 }
"""))
    run(spec, tmp_path / "run", workers=1, progress=False)
    rows = {r["algorithm"]: r for r in load_rows(tmp_path / "run")}
    assert rows["test_experiments:hog"]["status"] == "error"
    assert rows["test_experiments:hog"]["error"]["type"] == "MemoryError"
    # the limit leaves room for real work (numba, HiGHS); after a MemoryError the next task
    # runs in a fresh worker process
    assert rows["bssi+greedy"]["verified"] and rows["ordering-lp"]["verified"]
    assert rows["bnb"]["result_kind"] == "optimal"
    hog_pid = rows["test_experiments:hog"]["worker"]
    assert all(r["worker"] != hog_pid for name, r in rows.items()
               if name != "test_experiments:hog"
               and r["finished_at"] > rows["test_experiments:hog"]["finished_at"])
