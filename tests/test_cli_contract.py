"""The command-line contract, checked the way a user meets it: every subcommand run as a
separate process.

1. ``--json``: standard output is one JSON document and nothing else (no solver banner, no log,
   no progress bar), for every subcommand on real inputs (library instances, a generated
   instance, a tiny benchmark spec).  In-process calls of ``main()`` cannot check this: pytest
   does not capture writes to file descriptor 1, where highspy prints its banner.
2. Bad usage: each case exits 2 with exactly one line on standard error that names the flag as
   the user typed it (``--to``, ``-p num_ports``, ``--order-param foo``) and the rule, and no
   traceback.
3. Exit codes: 1 only for a rejected schedule or a proven infeasible problem; a time limit is
   not a failure (exit 0 with status ``time_limit``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIG51 = REPO / "instances" / "papers" / "dissertation-fig5.1.json"
ADV = REPO / "instances" / "adversarial" / "sebf_madd-opt-4x4-6c-seed0.json"
T_S4 = REPO / "instances" / "papers" / "sincronia-t-s4.json"
ADV_SCHEDULE = REPO / "instances" / "adversarial" / "sebf_madd-opt-4x4-6c-seed0.opt.schedule.json"
#: seed 002's offered-rate matrix T-A1 and a matrix whose row 1 is short (coflowopt normalize)
T_A1_MATRIX = REPO / "tests" / "data" / "seed002-t-a1.matrix.json"
RAGGED_MATRIX = REPO / "tests" / "data" / "malformed-ragged.matrix.json"

#: Runs ``coflowopt.cli.main`` with some modules made unimportable (``sys.modules[name] = None``
#: makes ``import name`` raise ImportError), to simulate a missing optional extra.
_BLOCKED_MAIN = ("import sys; [sys.modules.__setitem__(m, None) for m in sys.argv[1].split(',')];"
                 " sys.argv = ['coflowopt'] + sys.argv[2:]; from coflowopt.cli import main;"
                 " sys.exit(main())")

SPEC = """\
name = "{name}"
objective = "weighted_completion_time"
repetitions = 1
seed = {seed}
[limits]
task_seconds = 20
[[instances]]
name = "p2"
generator = "uniform_random"
params = {{ num_ports = 2, num_coflows = 3, flows_per_coflow = [1, 2], size = [1, 5] }}
seeds = 1
[algorithms]
schedules = [{{ order = "fifo", rates = "greedy" }}, {{ order = "sebf", rates = "madd" }}]
bounds = ["isolated", "lp-ov"]
exact = {{ method = "bnb", time_limit = 5, max_coflows = 8 }}
"""


def cli(args, cwd, block=(), timeout=300):
    """Run ``coflowopt ARGS`` as a process; return (exit code, stdout, stderr)."""
    args = [str(a) for a in args]
    if block:
        cmd = [sys.executable, "-c", _BLOCKED_MAIN, ",".join(block), *args]
    else:
        cmd = [sys.executable, "-m", "coflowopt", *args]
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    return p.returncode, p.stdout, p.stderr


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """A folder with a generated instance, a schedule file, a tiny spec and its run."""
    d = tmp_path_factory.mktemp("cli")
    (d / "spec.toml").write_text(SPEC.format(name="tiny", seed=0))
    (d / "other.toml").write_text(SPEC.format(name="tiny", seed=1))
    (d / "escape.toml").write_text(SPEC.format(name="../escape", seed=0))
    (d / "absolute.toml").write_text(SPEC.format(name="/tmp/abs", seed=0))
    (d / "notjson.txt").write_text("this is not an instance\n")
    (d / "weird.txt").write_text("a b c\nd e f\n")
    # a named pipe: read twice (format detection, then the parser) its second reader would see
    # nothing; never opened by the cases below (refused on its file type)
    os.mkfifo(d / "pipe.json")
    (d / "adir").mkdir()
    return d


# ------------------------------------------------------------------------------ --json output
#: (id, argv) run in order in one folder; later entries use files earlier ones wrote.
GOOD = [
    ("info", ["info", FIG51]),
    ("generate", ["generate", "uniform_random", "-p", "num_ports=3", "-p", "num_coflows=4",
                  "--seed", "1", "-o", "gen.json"]),
    ("convert", ["convert", "gen.json", "gen.sincronia.txt", "--to", "sincronia"]),
    ("info-sincronia", ["info", "gen.sincronia.txt"]),
    ("schedule", ["schedule", "gen.json", "--order", "sebf", "--rates", "madd", "-o",
                  "gen.schedule.json"]),
    ("schedule-sincronia-online", ["schedule", FIG51, "--policy", "sincronia-online"]),
    ("schedule-varys", ["schedule", "gen.json", "--policy", "varys"]),
    ("verify", ["verify", "gen.json", "gen.schedule.json"]),
    ("verify-exact", ["verify", ADV, ADV_SCHEDULE, "--exact"]),
    ("algorithms", ["algorithms"]),
    ("demo", ["demo"]),
    ("bound", ["bound", FIG51, "--method", "all", "--time-limit", "5"]),
    ("bound-export", ["bound", FIG51, "--method", "lp-ov", "--export", "lpov.lp"]),
    ("bound-certificate", ["bound", FIG51, "--method", "ordering-lp", "--certificate",
                           "olp.json"]),
    ("bound-certificate-lp-ov", ["bound", FIG51, "--method", "lp-ov", "--certificate",
                                 "lpov.json"]),
    ("exact", ["exact", FIG51, "--time-limit", "5"]),
    ("generate-30", ["generate", "uniform_random", "-p", "num_ports=4", "-p", "num_coflows=30",
                     "--seed", "3", "-o", "k30.json"]),
    # a time limit is not a failure: exit 0, status time_limit, the incumbent if any
    ("exact-slotted-time-limit", ["exact", "k30.json", "--method", "slotted-mip",
                                  "--time-limit", "2"]),
    ("fairness", ["fairness", FIG51]),
    ("exact-integral", ["exact", FIG51, "--model", "integral"]),
    ("bound-integral", ["bound", FIG51, "--model", "integral", "--time-limit", "5"]),
    ("bench", ["bench", "spec.toml", "--run-dir", "run", "--workers", "0"]),
    ("report", ["report", "run"]),
    ("report-plots", ["report", "run", "--plots", "plots"]),
    ("report-sql", ["report", "run", "--sql", "select count(*) as n from results"]),
    ("adversarial", ["adversarial", "--algo", "sebf+madd", "--against", "lb", "--ports", "2",
                     "--coflows", "3", "--evaluations", "3", "--strategy", "random"]),
    ("adversarial-integral", ["adversarial", "--model", "integral", "--algo", "ocf", "--ports",
                              "2", "--coflows", "3", "--evaluations", "3", "--strategy",
                              "random"]),
    ("adversarial-gap", ["adversarial", "--against", "gap", "--bound", "ordering-lp", "--ports",
                         "2", "--coflows", "2", "--evaluations", "2", "--strategy", "random"]),
    # topologies (issue 11): instances on resources, written as format version 2
    ("generate-fat-tree", ["generate", "fat-tree", "-p", "k=4", "--seed", "1", "-o", "ft4.json"]),
    ("info-v2", ["info", "ft4.json"]),
    ("generate-leaf-spine", ["generate", "leaf-spine", "-p", "leaves=2", "-p", "spines=2", "-p",
                             "hosts_per_leaf=2", "-p", "oversubscription=2", "-p",
                             "num_coflows=4", "--seed", "2", "-o", "ls.json"]),
    ("schedule-topology-madd", ["schedule", "gen.json", "--topology", "fat-tree:k=4", "--order",
                                "fifo", "--rates", "madd", "-o", "gen-ft.schedule.json"]),
    ("schedule-topology-varys", ["schedule", "gen.json", "--topology",
                                 "leaf-spine:leaves=2,spines=2,hosts_per_leaf=2,"
                                 "oversubscription=2", "--policy", "varys"]),
    ("verify-topology", ["verify", "gen.json", "gen-ft.schedule.json", "--topology",
                         "fat-tree:k=4"]),
    ("convert-topology", ["convert", "gen.json", "gen-ft.json", "--topology", "fat-tree:k=4"]),
    ("verify-v2", ["verify", "gen-ft.json", "gen-ft.schedule.json"]),
    ("info-topology", ["info", "gen.sincronia.txt", "--topology", "fat-tree:k=4", "--routing",
                       "shortest", "--placement", "random", "--placement-seed", "3"]),
    ("bound-v2", ["bound", "ls.json", "--time-limit", "5"]),
    ("exact-v2", ["exact", "ls.json", "--time-limit", "20"]),
    # the integral matching model (issue 12): a slotted algorithm, its file verified
    ("slotted", ["slotted", "gen.json", "--policy", "order", "--order", "bssi", "-o",
                 "gen.slotted.json"]),
    ("verify-slotted", ["verify", "gen.json", "gen.slotted.json"]),
    ("slotted-topology", ["slotted", "gen.json", "--topology", "fat-tree:k=4", "--policy",
                          "srjf", "-p", "job=coflow"]),
    # rate normalisation (issue 14, seed 002): every method, one exact
    ("normalize", ["normalize", T_A1_MATRIX, "--method", "all"]),
    ("normalize-exact", ["normalize", T_A1_MATRIX, "--method", "sinkhorn-cap", "--exact"]),
    # discoverability and one-shot comparison (issue 16)
    ("algorithms-name", ["algorithms", "bssi"]),
    ("generate-list", ["generate", "--list"]),
    ("compare", ["compare", T_S4, "--algos", "bssi+greedy,sebf+madd,lp-ov+greedy", "--exact",
                 "--cct-csv", "compare.cct.csv", "--csv", "compare.csv"]),
    ("schedule-cct-csv", ["schedule", T_S4, "--order", "bssi", "--rates", "greedy",
                          "--cct-csv", "t-s4.cct.csv"]),
    ("lib-status", ["lib", "status"]),
    # the certified gap (issue 15 item 4)
    ("gap", ["gap", T_S4, "--time-limit", "60"]),
]


def _big_switch_only(kind: str, prefer: tuple[str, ...] = ()) -> str | None:
    """A registered algorithm of ``kind`` still tagged big_switch_only (others are being
    generalised as this is written), preferring ``prefer``; None when there is none."""
    from coflowopt.registry import algorithms
    names = [a.name for a in algorithms(kind) if "big_switch_only" in a.tags]
    return next((n for n in (*prefer, *names) if n in names), None)


BSO = {kind: _big_switch_only(kind, prefer) for kind, prefer in (
    ("rates", ("bvn",)), ("policy", ("hug", "drf", "ps-p")), ("ordering", ()), ("bound", ()),
    ("exact", ()))}


def test_every_subcommand_is_covered():
    """A subcommand added to the parser without a --json contract case fails here."""
    from coflowopt.cli import build_parser
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    covered = {argv[0] for _, argv in GOOD}
    assert set(sub.choices) <= covered, sorted(set(sub.choices) - covered)


def test_every_argument_has_help():
    """Positional arguments and options all say what they are (issue 16 item 2)."""
    import argparse

    from coflowopt.cli import build_parser
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    missing = [(name, a.dest) for name, sp in sub.choices.items() for a in sp._actions
               if not a.help and not isinstance(a, argparse._HelpAction)]
    assert not missing, missing


@pytest.fixture(scope="module")
def good_runs(work):
    out = {}
    for name, argv in GOOD:
        out[name] = cli([*argv, "--json"], work)
    return out


@pytest.mark.parametrize("name", [n for n, _ in GOOD])
def test_json_stdout_is_json_only(good_runs, name):
    code, out, err = good_runs[name]
    assert code == 0, (code, err[-2000:])
    assert "Traceback" not in err
    doc = json.loads(out)  # the whole of stdout: a banner line would make this fail
    assert isinstance(doc, dict)
    assert "HiGHS" not in out.split("{", 1)[0]


def test_json_values_are_labelled(good_runs):
    sched = json.loads(good_runs["schedule-sincronia-online"][1])
    assert sched["kind"] == "feasible" and sched["value"] > 0
    bounds = json.loads(good_runs["bound"][1])["results"]
    assert all(r["kind"] in ("lower_bound", None) for r in bounds)
    assert any(r["kind"] == "lower_bound" for r in bounds)
    ex = json.loads(good_runs["exact"][1])
    assert ex["kind"] == "optimal" and ex["status"] == "optimal"
    # the optimum is at least every certified lower bound
    best_lb = max(r["value"] for r in bounds if r["kind"] == "lower_bound")
    assert ex["value"] >= best_lb * (1 - 1e-9)


def test_compare_json_values(good_runs, work):
    """The issue's must-show: each algorithm's verified value, the proven optimum 33 of
    Sincronia's T-S4, ALG/OPT; and the per-coflow CSV files."""
    d = json.loads(good_runs["compare"][1])
    vals = {r["algorithm"]: (r["value"], r["kind"], r["alg_over_opt"]) for r in d["algorithms"]}
    assert vals["bssi+greedy"] == (33.0, "feasible", 1.0)
    assert vals["lp-ov+greedy"] == (33.0, "feasible", 1.0)
    assert vals["sebf+madd"][0] == 37.0 and vals["sebf+madd"][2] == pytest.approx(37 / 33)
    assert d["optimum"]["kind"] == "optimal" and d["optimum"]["value"] == 33.0
    assert d["bound"]["kind"] == "lower_bound" and d["bound"]["value"] <= 33.0
    rows = (work / "compare.cct.csv").read_text().splitlines()
    assert rows[0] == "algorithm,id,release,completion,cct,slowdown" and len(rows) == 1 + 3 * 3
    assert "bssi+greedy,A,0.0,6.0,6.0,1.0" in rows
    one = (work / "t-s4.cct.csv").read_text().splitlines()
    assert one[0] == "id,release,completion,cct,slowdown" and len(one) == 4
    assert (work / "compare.csv").read_text().startswith("algorithm,value,kind")


def test_gap_json_values(good_runs):
    """T-S4: BSSI + greedy 33 (the proven optimum); the certified bound 33 (lp-ov-branch, whose
    root LP-OV is 32: one branching closes it), gap 1."""
    d = json.loads(good_runs["gap"][1])
    assert d["best_schedule"]["value"] == 33.0 and d["best_schedule"]["kind"] == "feasible"
    assert d["best_bound"]["kind"] == "lower_bound" and d["best_bound"]["method"] == "lp-ov-branch"
    assert d["best_bound"]["value"] == 33.0
    assert d["gap"] == 1.0
    assert d["releases"] == "all 0"


def test_algorithms_name_lists_parameters(good_runs):
    d = json.loads(good_runs["algorithms-name"][1])
    (bssi,) = d["algorithms"]
    params = {p["name"]: p for p in bssi["parameters"]}
    assert params["tie_break"]["default"] == "'paper'" and params["tie_break"]["meaning"]
    assert "4 OPT" in bssi["guarantee"]
    gens = {g["name"] for g in json.loads(good_runs["generate-list"][1])["generators"]}
    assert {"uniform_random", "fat-tree", "creek"} <= gens


def test_normalize_json_values(good_runs):
    """Seed 002's T-A1: cap-only Sinkhorn 3/2 (exact [[1/3, 1/2], [2/3, 0]]), max-min 3/2
    with Jain 1, the max-throughput LP 2."""
    every = json.loads(good_runs["normalize"][1])
    assert every["max_throughput"] == 2
    assert every["results"]["max-min"]["throughput"] == 1.5
    assert every["results"]["max-min"]["jain"] == 1
    assert every["throughput_ratio"]["sinkhorn-cap"] == 0.75
    exact = json.loads(good_runs["normalize-exact"][1])
    assert exact["rates"] == [["1/3", 0.5], ["2/3", 0]] and exact["throughput"] == 1.5


def test_topology_json_values(good_runs):
    """Issue 11: the fat-tree k=4 counts (16 hosts, 20 switches, 96 links), the most loaded
    resource, schedules on a placed instance verified, the converted file verified alike."""
    gen = json.loads(good_runs["generate-fat-tree"][1])
    info = json.loads(good_runs["info-v2"][1])
    assert (gen["hosts"], gen["switches"], gen["links"]) == (16, 20, 96)
    assert (info["model"], info["hosts"], info["switches"], info["links"]) == \
        ("resources", 16, 20, 96)
    assert info["max_path_length"] <= 6 and info["topology"]["kind"] == "fat-tree"
    m = info["most_loaded_resource"]
    assert m["flows"] >= 1 and m["load_over_capacity"] > 0 and isinstance(m["id"], str)
    for name in ("schedule-topology-madd", "schedule-topology-varys", "verify-topology",
                 "verify-v2"):
        assert json.loads(good_runs[name][1])["kind"] == "feasible", name
    # the same schedule, verified against the placed trace and against the converted file
    assert json.loads(good_runs["verify-topology"][1])["value"] == \
        json.loads(good_runs["verify-v2"][1])["value"] == \
        json.loads(good_runs["schedule-topology-madd"][1])["value"]
    assert json.loads(good_runs["convert-topology"][1])["resources"] == 96
    ex = json.loads(good_runs["exact-v2"][1])
    bounds = json.loads(good_runs["bound-v2"][1])["results"]
    if ex["kind"] == "optimal":
        assert all(r["value"] <= ex["value"] * (1 + 1e-9) for r in bounds
                   if r.get("kind") == "lower_bound")


def test_slotted_json_values(good_runs):
    """``coflowopt slotted --json`` states the integral model, the verified value (exact and
    as a number) and kind feasible; ``verify`` of its file gives the same value."""
    d = json.loads(good_runs["slotted"][1])
    assert (d["model"], d["kind"], d["algorithm"], d["ordering"]) == \
        ("integral", "feasible", "slotted-order", "bssi")
    assert d["verification"]["ok"] and d["verification"]["mode"] == "exact"
    assert d["value"] == float(d["value_exact"]) > 0 and d["schedule_file"]
    v = json.loads(good_runs["verify-slotted"][1])
    assert v["kind"] == "feasible" and v["model"] == "integral" and v["value"] == d["value"]
    t = json.loads(good_runs["slotted-topology"][1])
    assert t["model"] == "integral" and t["kind"] == "feasible" and t["params"]["job"] == "coflow"


@pytest.mark.parametrize("run", ["bound-certificate", "bound-certificate-lp-ov"])
def test_certificate_file_is_confirmed_by_the_standalone_checker(good_runs, work, run):
    d = json.loads(good_runs[run][1])["results"][0]
    path = Path(work) / d["extra"]["certificate_file"]
    chk = subprocess.run([sys.executable, str(Path(__file__).resolve().parents[1] / "tools" /
                                              "check_certificate.py"), str(FIG51), str(path)],
                         capture_output=True, text=True, cwd=work)
    assert chk.returncode == 0 and chk.stdout.startswith("CONFIRMED"), chk


def test_exact_time_limit_is_exit_0_with_its_status(good_runs):
    d = json.loads(good_runs["exact-slotted-time-limit"][1])
    assert d["status"] in ("time_limit", "optimal"), d["status"]
    if d["status"] == "time_limit":
        assert d["kind"] != "optimal"
        if d["kind"] is not None:  # an incumbent: verified, with its value
            assert d["value"] is not None and d["value"] > 0


def test_exit_codes_of_exact_results():
    """The status -> exit code table of ``coflowopt exact`` (1 only for infeasible/rejected)."""
    from types import SimpleNamespace

    from coflowopt import cli
    from coflowopt.commands.exact import exit_code

    def code(kind, status):
        return exit_code(SimpleNamespace(kind=kind, status=status), cli)
    assert code("optimal", "optimal") == 0
    assert code("feasible", "time_limit") == 0
    assert code(None, "time_limit") == 0
    assert code(None, "node_limit") == 0
    assert code(None, "infeasible") == 1
    assert code(None, "rejected") == 1
    assert code(None, "error") == cli.EXIT_SOLVER == 4
    assert code(None, "highs:kSolveError") == 4


def run_python(prog: str, cwd) -> subprocess.CompletedProcess:
    """``python -c PROG`` in a fresh interpreter (exit code and file descriptors as a user's
    process sees them)."""
    return subprocess.run([sys.executable, "-c", prog], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def test_solver_failure_exits_4(work):
    """A SolverError that reaches the command line (a solver failed, the input is fine) is
    exit 4 with one line and no traceback; simulated by a handler that raises it."""
    prog = ("import sys; from coflowopt import cli; from coflowopt.exceptions import SolverError;"
            " cli._COMMANDS['algorithms'] = lambda a: (_ for _ in ()).throw("
            "SolverError('HiGHS returned kError'));"
            " sys.argv = ['coflowopt', 'algorithms']; sys.exit(cli.main())")
    p = run_python(prog, work)
    assert p.returncode == 4, p.stderr
    assert p.stderr.count("\n") == 1 and "solver failure" in p.stderr
    assert "Traceback" not in p.stderr


@pytest.mark.parametrize("body", [
    "raise KeyboardInterrupt()",
    # Ctrl-C inside a numba kernel: the dispatcher's SystemError raised while the interrupt is
    # handled (was exit 3 with a traceback, found by interrupting `schedule FB --policy fair`)
    "try:\n        raise KeyboardInterrupt()\n    except KeyboardInterrupt:\n"
    "        raise SystemError('CPUDispatcher(<function k>) returned a result with an "
    "exception set')"])
def test_interrupt_exits_130_with_one_line(work, body):
    prog = ("import sys; from coflowopt import cli\n"
            "def boom(a):\n"
            f"    {body}\n"
            "cli._COMMANDS['algorithms'] = boom\n"
            "sys.argv = ['coflowopt', 'algorithms']; sys.exit(cli.main())")
    p = run_python(prog, work)
    assert p.returncode == 130, p.stderr
    assert p.stderr == "coflowopt algorithms: interrupted\n", p.stderr


def test_out_of_memory_exits_4_with_one_line(work):
    """A real MemoryError (an address-space limit a little above what the process holds, then
    a generator asked for 10^7 coflows, MAX_COFLOWS) is exit 4 with one line saying what could not be
    allocated: the machine's limit, neither bad input (2) nor a bug with a traceback (3).
    Before, it was exit 3 with a traceback (decentralized-las on the FB trace at 8 GB)."""
    prog = ("import resource, sys; from coflowopt import cli; import numpy;"
            " vm = int([l for l in open('/proc/self/status') if l.startswith('VmSize')][0]"
            ".split()[1]) * 1024;"
            " resource.setrlimit(resource.RLIMIT_AS, (vm + 400 * 2**20, resource.RLIM_INFINITY));"
            " sys.exit(cli.main(['generate', 'uniform_random', '-p', 'num_ports=150', '-p',"
            " 'num_coflows=10000000', '--seed', '0', '-o', 'oom.json']))")
    p = run_python(prog, work)
    assert p.returncode == 4, p.stderr
    assert p.stderr.count("\n") == 1 and "out of memory" in p.stderr
    assert "allocate" in p.stderr and "Traceback" not in p.stderr


def test_solver_log_goes_to_stderr_only(work):
    """--solver-log asks for HiGHS's log: it arrives on stderr, stdout stays one JSON
    document."""
    code, out, err = cli(["bound", FIG51, "--method", "lp-ov", "--solver-log", "--json"], work)
    assert code == 0, err[-2000:]
    assert json.loads(out)["results"][0]["kind"] == "lower_bound"
    assert "HiGHS" in err and "HiGHS" not in out


def test_demo_says_what_it_does_before_the_warm_up(work):
    """Text mode: the first line on stderr announces the demo before the (possibly compiling)
    warm-up, so a first run does not look hung; the table goes to stdout."""
    code, out, err = cli(["demo"], work)
    assert code == 0, err[-2000:]
    assert err.startswith("coflowopt demo: ") and "runs" in err.splitlines()[0]
    assert out.startswith("instance ") and "Running HiGHS" not in out


def test_text_output_has_no_banner(work):
    """Without --json too, nothing of HiGHS reaches stdout (logs only when asked, on stderr)."""
    code, out, err = cli(["bound", FIG51, "--method", "lp-ov"], work)
    assert code == 0, err
    assert "Running HiGHS" not in out and "Copyright" not in out


# ------------------------------------------------------------------------------ bad usage
#: (id, argv, words that must all appear in the one stderr line, modules made unimportable)
BAD = [
    ("lib-unknown-instance", ["lib", "submit", "nope/x", "y.json"], ["nope/x"], ()),
    # info / convert / instance reading
    ("info-missing-file", ["info", "nope.json"], ["nope.json"], ()),
    ("info-format", ["info", FIG51, "--format", "bogus"], ["--format", "bogus"], ()),
    ("info-not-an-instance", ["info", "notjson.txt", "--format", "json"], ["notjson.txt"], ()),
    ("info-unknown-text", ["info", "weird.txt"], ["weird.txt", "--format"], ()),
    ("info-pipe", ["info", "pipe.json"], ["pipe.json", "not a regular file"], ()),
    ("info-directory", ["info", "adir"], ["adir", "directory"], ()),
    ("verify-schedule-pipe", ["verify", FIG51, "pipe.json"], ["pipe.json", "regular file"], ()),
    ("info-schedule-file", ["info", ADV_SCHEDULE], ["schedule", "coflowopt verify"], ()),
    ("info-trace-options-on-json", ["info", FIG51, "--capacity", "2"], ["--capacity"], ()),
    ("info-capacity-nan", ["info", FIG51, "--format", "sincronia", "--capacity", "nan"],
     ["--capacity"], ()),
    ("convert-to", ["convert", FIG51, "out.xyz", "--to", "bogus"], ["--to", "bogus"], ()),
    ("convert-format", ["convert", FIG51, "out.json", "--format", "nope"], ["--format"], ()),
    ("convert-unknown-suffix", ["convert", FIG51, "out.xyz"], ["--to", "out.xyz"], ()),
    ("convert-capacity-on-json", ["convert", FIG51, "out.txt", "--to", "coflow-benchmark",
                                  "--capacity", "2"], ["--capacity", "JSON"], ()),
    # generate
    ("generate-unknown", ["generate", "nope", "-o", "g.json"], ["nope", "uniform_random"], ()),
    ("generate-out-suffix", ["generate", "uniform_random", "-p", "num_ports=3", "-p",
                             "num_coflows=2", "-o", "g.txt"], ["--out", "g.txt", ".json"], ()),

    ("generate-missing-param", ["generate", "uniform_random", "-p", "num_ports=3",
                                "-o", "g.json"], ["-p num_coflows"], ()),
    ("generate-unknown-param", ["generate", "uniform_random", "-p", "num_ports=3", "-p",
                                "num_coflows=2", "-p", "foo=1", "-o", "g.json"],
     ["-p foo", "num_coflows"], ()),
    ("generate-param-type", ["generate", "uniform_random", "-p", "num_ports=abc", "-p",
                             "num_coflows=2", "-o", "g.json"], ["-p num_ports"], ()),
    ("generate-param-form", ["generate", "uniform_random", "-p", "num_ports", "-o", "g.json"],
     ["-p", "KEY=VALUE"], ()),
    ("generate-param-value", ["generate", "uniform_random", "-p", "num_ports=0", "-p",
                              "num_coflows=2", "-o", "g.json"], ["-p num_ports", ">= 1"], ()),
    ("generate-param-as-typed", ["generate", "uniform_random", "--param", "num_ports=2",
                                 "--param", "nope=1", "-o", "g.json"], ["--param nope"], ()),
    ("generate-seed", ["generate", "uniform_random", "-p", "num_ports=2", "-p", "num_coflows=2",
                       "--seed", "-1", "-o", "g.json"], ["--seed"], ()),
    ("generate-no-out", ["generate", "uniform_random"], ["--out"], ()),
    # schedule
    ("schedule-unknown-order", ["schedule", FIG51, "--order", "nope", "--rates", "greedy"],
     ["--order", "nope"], ()),
    ("schedule-unknown-rates", ["schedule", FIG51, "--order", "fifo", "--rates", "nope"],
     ["--rates", "nope"], ()),
    ("schedule-unknown-policy", ["schedule", FIG51, "--policy", "nope"], ["--policy", "nope"],
     ()),
    ("schedule-conflict", ["schedule", FIG51, "--order", "fifo", "--rates", "greedy",
                           "--policy", "varys"], ["--policy", "--order"], ()),
    ("schedule-order-without-rates", ["schedule", FIG51, "--order", "fifo"], ["--rates"], ()),
    ("schedule-nothing", ["schedule", FIG51], ["--policy"], ()),
    ("schedule-order-param-key", ["schedule", FIG51, "--order", "sebf", "--rates", "madd",
                                  "--order-param", "foo=1"], ["--order-param foo"], ()),
    ("schedule-rate-param-key", ["schedule", FIG51, "--order", "sebf", "--rates", "madd",
                                 "--rate-param", "foo=1"], ["--rate-param foo"], ()),
    ("schedule-policy-param-key", ["schedule", FIG51, "--policy", "varys",
                                   "--policy-param", "foo=1"], ["--policy-param foo"], ()),
    ("schedule-policy-param-without-policy", ["schedule", FIG51, "--order", "fifo", "--rates",
                                              "greedy", "--policy-param", "x=1"],
     ["--policy-param", "--policy"], ()),
    ("schedule-order-param-with-policy", ["schedule", FIG51, "--policy", "varys",
                                          "--order-param", "x=1"], ["--order-param"], ()),
    ("schedule-policy-param-value", ["schedule", FIG51, "--policy", "varys", "--policy-param",
                                     "engine=bogus"], ["--policy-param", "engine"], ()),
    ("schedule-policy-param-type", ["schedule", FIG51, "--policy", "varys", "--policy-param",
                                    "tol_rel=abc"], ["--policy-param tol_rel", "number"], ()),
    # nested parameters and names of the wrong JSON type, numbers that are not finite (each
    # an internal error before: dict("x"), a list as a registry key, inf in the JSON output)
    ("schedule-nested-params-not-object", ["schedule", FIG51, "--order", "best-order",
                                           "--rates", "greedy", "--order-param",
                                           "rate_params=x"],
     ["--order-param rate_params", "JSON object"], ()),
    ("schedule-nested-params-number", ["schedule", FIG51, "--order", "local-search", "--rates",
                                       "greedy", "--order-param", "start_params=3"],
     ["--order-param start_params", "JSON object"], ()),
    ("schedule-name-param-list", ["schedule", FIG51, "--order", "best-order", "--rates",
                                  "greedy", "--order-param", "rates=[1,2]"],
     ["--order-param rates", "a name"], ()),
    ("schedule-param-overflow", ["schedule", FIG51, "--order", "local-search", "--rates",
                                 "greedy", "--order-param", "time_limit=1e400", "--json"],
     ["--order-param time_limit", "1e400", "finite"], ()),
    ("schedule-param-json-nan", ["schedule", FIG51, "--policy", "varys", "--policy-param",
                                 "tol_rel=NaN"], ["--policy-param tol_rel", "finite"], ()),
    # numerical tolerances out of range (limits.check_tolerance): exit 3 (tol_rel=-1), or a
    # stalled kernel blamed instead of the parameter (tol_rel >= 1), or the event limit after
    # minutes (clas tie_rtol=0)
    ("schedule-tol-rel-negative", ["schedule", FIG51, "--order", "sebf", "--rates", "madd",
                                   "--rate-param", "tol_rel=-1"],
     ["--rate-param", "tol_rel", "[0, 1e-06]"], ()),
    ("schedule-tol-rel-one", ["schedule", FIG51, "--policy", "mlfq", "--policy-param",
                              "tol_rel=1"], ["--policy-param", "tol_rel", "[0, 1e-06]"], ()),
    ("schedule-tie-rtol-zero", ["schedule", FIG51, "--policy", "clas", "--policy-param",
                                "tie_rtol=0"], ["--policy-param", "tie_rtol", ">= 1e-12"], ()),
    ("schedule-aalo-weights-name", ["schedule", FIG51, "--policy", "aalo", "--policy-param",
                                    "weights=x"], ["--policy-param", "weights", "one per queue"],
     ()),
    ("schedule-local-search-start", ["schedule", FIG51, "--order", "local-search", "--rates",
                                     "greedy", "--order-param", "start=x"],
     ["--order-param", "start", "unknown ordering 'x'"], ()),
    ("schedule-local-search-start-order", ["schedule", FIG51, "--order", "local-search",
                                           "--rates", "greedy", "--order-param", "start=[0]"],
     ["--order-param", "start (an explicit order)", "entries"], ()),
    # bound --param values were not type-checked (interval-lp epsilon=x: exit 3 in a
    # comparison); slow-motion seed=-1 / target_slots=-1 were exit 3 (numpy, math.log2)
    ("bound-param-type", ["bound", FIG51, "--method", "interval-lp", "--param", "epsilon=x"],
     ["--param epsilon", "interval-lp", "a number"], ()),
    ("bound-param-type-all", ["bound", FIG51, "--param", "first=[1]"],
     ["--param first", "a number (or null)"], ()),
    ("generate-trace-path-type", ["generate", "facebook_like", "-p", "trace_path=true", "-p",
                                  "num_coflows=3", "-o", "fl.json"],
     ["-p trace_path", "the path of a coflow-benchmark trace file"], ()),
    ("bound-horizon-below-safe", ["bound", FIG51, "--method", "time-indexed-lp", "--param",
                                  "overflow=false", "--param", "horizon=2"],
     ["--param overflow", "safe horizon", "(got 2.0)"], ()),
    ("bound-horizon-name", ["bound", FIG51, "--method", "time-indexed-lp", "--param",
                            "horizon=soon"], ["--param horizon", "'safe'"], ()),
    ("slotted-seed-negative", ["slotted", FIG51, "--policy", "lp-deadline-greedy", "--param",
                               "seed=-1"], ["--param seed", "integer >= 0"], ()),
    ("schedule-slow-motion-seed", ["schedule", FIG51, "--policy", "slow-motion",
                                   "--policy-param", "seed=-1"],
     ["--policy-param seed", "integer >= 0"], ()),
    ("schedule-slow-motion-target-slots", ["schedule", FIG51, "--policy", "slow-motion",
                                           "--policy-param", "target_slots=-1"],
     ["--policy-param target_slots", "integer >= 1"], ()),
    ("schedule-optional-number-param-type", ["schedule", FIG51, "--order", "ordering-lp",
                                             "--rates", "greedy", "--order-param",
                                             "time_limit=abc"],
     ["--order-param time_limit", "a number (or null)"], ()),
    ("bound-param-json-infinity", ["bound", FIG51, "--method", "ordering-lp", "-p",
                                   "time_limit=-Infinity"], ["-p time_limit", "finite"], ()),
    ("schedule-objective", ["schedule", FIG51, "--policy", "varys", "--objective", "bogus"],
     ["--objective"], ()),
    ("schedule-out-suffix", ["schedule", FIG51, "--policy", "varys", "-o", "s.txt"],
     ["s.txt"], ()),
    # verify
    ("verify-missing-schedule", ["verify", FIG51, "nope.json"], ["nope.json"], ()),
    ("verify-instance-as-schedule", ["verify", FIG51, "notjson.txt"], ["notjson.txt"], ()),
    ("verify-objective", ["verify", "gen.json", "gen.schedule.json", "--objective", "bogus"],
     ["--objective", "bogus"], ()),
    ("verify-other-instance", ["verify", FIG51, "gen.schedule.json"], ["gen.schedule.json"],
     ()),
    # algorithms / demo
    ("algorithms-kind", ["algorithms", "--kind", "bogus"], ["--kind", "bogus"], ()),
    ("demo-flag", ["demo", "--bogus"], ["--bogus"], ()),
    ("algorithms-extra-argument", ["algorithms", "extra"], ["extra"], ()),
    ("no-command", [], ["COMMAND"], ()),
    ("unknown-command", ["bogus"], ["bogus"], ()),
    # bound
    ("bound-method", ["bound", FIG51, "--method", "nope"], ["--method", "nope"], ()),
    ("bound-time-limit-negative", ["bound", FIG51, "--time-limit", "-1"], ["--time-limit"], ()),
    ("bound-time-limit-nan", ["bound", FIG51, "--time-limit", "nan"], ["--time-limit"], ()),
    ("bound-time-limit-inf", ["bound", FIG51, "--time-limit", "inf"], ["--time-limit"], ()),
    ("bound-time-limit-word", ["bound", FIG51, "--time-limit", "soon"], ["--time-limit"], ()),
    ("bound-param-key", ["bound", FIG51, "--method", "lp-ov", "--param", "foo=1"],
     ["--param foo"], ()),
    ("bound-param-key-all", ["bound", FIG51, "--param", "foo=1"], ["--param foo"], ()),
    ("bound-param-value", ["bound", FIG51, "-m", "time-indexed-lp", "-p", "slot=-1"],
     ["-p slot", "> 0"], ()),
    ("bound-certificate-slotted", ["bound", FIG51, "--method", "time-indexed-lp", "-p",
                                   "model=slotted", "--certificate", "c.json"],
     ["--certificate", "model=slotted"], ()),
    ("bound-certificate-suffix", ["bound", FIG51, "--method", "port", "--certificate",
                                  "c.txt"], ["--certificate", "c.txt"], ()),
    ("bound-export-suffix", ["bound", FIG51, "--method", "lp-ov", "--export", "x.txt"],
     ["--export"], ()),
    # exact
    # the schedule file's name is checked before the search, not after it
    ("exact-out-suffix", ["exact", FIG51, "-o", "x"], ["--out", "x", ".json or .npz"], ()),
    ("exact-integral-out-suffix", ["exact", FIG51, "--model", "integral", "-o", "x.txt"],
     ["--out", "x.txt", "slotted"], ()),
    # an empty ordering name is not the default one
    ("slotted-empty-order", ["slotted", FIG51, "--order", ""], ["--order", "unknown"], ()),
    ("exact-method", ["exact", FIG51, "--method", "nope"], ["--method", "nope"], ()),
    ("exact-integral-fluid-method", ["exact", FIG51, "--model", "integral", "--method", "bnb"],
     ["--method bnb", "integral"], ()),
    ("exact-integral-method-fluid-model", ["exact", FIG51, "--method", "integral-mip"],
     ["--method integral-mip", "--model integral"], ()),
    ("exact-integral-float", ["exact", FIG51, "--model", "integral", "--float"],
     ["--float", "integral"], ()),
    ("bound-integral-method-fluid-model", ["bound", FIG51, "--method", "integral-lp"],
     ["--method integral-lp", "--model integral"], ()),
    ("exact-time-limit-negative", ["exact", FIG51, "--time-limit", "-2"], ["--time-limit"], ()),
    ("exact-time-limit-nan", ["exact", FIG51, "--time-limit", "nan"], ["--time-limit"], ()),
    ("exact-param-key", ["exact", FIG51, "--param", "foo=1"], ["--param foo"], ()),
    ("exact-param-type", ["exact", FIG51, "--param", "rtol=abc"], ["--param rtol"], ()),
    # fairness
    ("fairness-method", ["fairness", FIG51, "--method", "bogus"], ["--method", "bogus"], ()),
    ("fairness-missing-file", ["fairness", "nope.json"], ["nope.json"], ()),
    ("fairness-format", ["fairness", FIG51, "--format", "sincronia"], [str(FIG51), "Sincronia"],
     ()),
    # algorithms NAME, generate --list, compare (issue 16)
    ("algorithms-unknown-name", ["algorithms", "bsi"], ["NAME 'bsi'", "bssi"], ()),
    ("generate-no-name", ["generate", "-o", "x.json"], ["GENERATOR"], ()),
    ("generate-list-with-name", ["generate", "--list", "uniform_random"], ["--list"], ()),
    ("generate-no-out", ["generate", "uniform_random", "-p", "num_ports=2"], ["--out"], ()),
    ("compare-unknown-algo", ["compare", T_S4, "--algos", "bssi+greedy,nope"],
     ["--algos nope", "nope"], ()),
    ("compare-empty-algo", ["compare", T_S4, "--algos", "bssi+greedy,,madd"], ["--algos"], ()),
    ("compare-twice", ["compare", T_S4, "--algos", "varys,varys"], ["--algos", "twice"], ()),
    # an option of one value given twice: argparse kept the last and dropped the first silently
    # (before 2026-11-29 these ran: exact and gap with 60 s, info as JSON)
    ("exact-time-limit-twice", ["exact", FIG51, "--time-limit", "5", "--time-limit", "60"],
     ["coflowopt exact", "--time-limit", "given twice"], ()),
    ("gap-time-limit-twice", ["gap", T_S4, "--time-limit=5", "--time-limit", "60"],
     ["coflowopt gap", "--time-limit", "given twice"], ()),
    ("info-format-twice", ["info", FIG51, "--format", "sincronia", "--format", "json"],
     ["coflowopt info", "--format", "given twice"], ()),
    ("bound-method-twice", ["bound", FIG51, "-m", "isolated", "--method", "lp-ov"],
     ["--method", "given twice"], ()),
    ("compare-no-algos", ["compare", T_S4], ["--algos"], ()),
    ("compare-big-switch-only", ["compare", T_S4, "--topology", "fat-tree:k=4", "--algos",
                                 "bssi+bvn"], ["--algos bvn", "placed by --topology"], ()),
    ("compare-time-limit", ["compare", T_S4, "-a", "varys", "--time-limit", "nan"],
     ["--time-limit"], ()),
    ("gap-unknown-bound", ["gap", T_S4, "--bounds", "ordering-lp,nope"], ["--bounds nope"],
     ()),
    ("gap-lp-start", ["gap", T_S4, "--starts", "lp:lp-ov", "--bounds", "ordering-lp"],
     ["--starts lp:lp-ov", "--bounds"], ()),
    ("gap-max-schedules", ["gap", T_S4, "--max-schedules", "0"], ["--max-schedules"], ()),
    ("gap-time-limit", ["gap", T_S4, "--time-limit", "inf"], ["--time-limit"], ()),
    ("gap-rates", ["gap", T_S4, "--rates", "fast"], ["--rates fast"], ()),
    # normalize
    ("normalize-method", ["normalize", T_A1_MATRIX, "--method", "bogus"], ["--method", "bogus"],
     ()),
    ("normalize-no-method", ["normalize", T_A1_MATRIX], ["--method"], ()),
    ("normalize-missing-file", ["normalize", "nope.json", "-m", "madd"], ["nope.json"], ()),
    ("normalize-instance-file", ["normalize", FIG51, "-m", "madd"],
     [str(FIG51), "(top level)", "JSON array"], ()),
    ("normalize-text-file", ["normalize", "notjson.txt", "-m", "madd"],
     ["notjson.txt", "JSON array"], ()),
    ("normalize-ragged", ["normalize", RAGGED_MATRIX, "-m", "madd"],
     [str(RAGGED_MATRIX), "row 1", "row 0 has 2"], ()),
    ("normalize-exact-lp", ["normalize", T_A1_MATRIX, "-m", "max-throughput", "--exact"],
     ["--exact", "max-throughput"], ()),
    ("normalize-param-key", ["normalize", T_A1_MATRIX, "-m", "hug", "-p", "foo=1"],
     ["-p foo", "stage2"], ()),
    ("normalize-param-value", ["normalize", T_A1_MATRIX, "-m", "hug", "--param",
                               "stage2=bogus"], ["--param stage2", "cooperative"], ()),
    ("normalize-param-all", ["normalize", T_A1_MATRIX, "-m", "all", "-p", "max_iter=2"],
     ["-p", "one method"], ()),
    ("normalize-capacity", ["normalize", T_A1_MATRIX, "-m", "madd", "--capacity", "-1"],
     ["--capacity"], ()),
    ("normalize-ingress-count", ["normalize", T_A1_MATRIX, "-m", "madd", "--ingress-capacity",
                                 "1,2,3"], ["--ingress-capacity", "2 rows"], ()),
    ("normalize-capacity-conflict", ["normalize", T_A1_MATRIX, "-m", "madd", "--capacity", "2",
                                     "--egress-capacity", "1,1"],
     ["--capacity", "--egress-capacity"], ()),
    # bench
    ("bench-missing-spec", ["bench", "nope.toml"], ["nope.toml"], ()),
    ("bench-name-dotdot", ["bench", "escape.toml", "--dry-run"], ["name", "escape.toml"], ()),
    ("bench-name-absolute", ["bench", "absolute.toml", "--dry-run"], ["name", "absolute.toml"],
     ()),
    ("bench-workers", ["bench", "spec.toml", "--workers", "-1", "--run-dir", "r2"],
     ["--workers"], ()),
    ("bench-dask-address", ["bench", "spec.toml", "--dask", "bogus://x", "--run-dir", "r3"],
     ["--dask", "bogus://x"], ()),
    # empty values were taken for no flag: every algorithm, a local run
    ("bench-only-empty", ["bench", "spec.toml", "--only", "", "--dry-run"],
     ["--only", "no label"], ()),
    ("bench-dask-empty", ["bench", "spec.toml", "--dask", "", "--run-dir", "r4"],
     ["--dask", "address"], ()),
    ("bench-only", ["bench", "spec.toml", "--only", "nope", "--dry-run"], ["--only", "nope"],
     ()),
    # report
    ("report-missing-run", ["report", "no-such-run"], ["no-such-run"], ()),
    ("report-factor", ["report", "run", "--factor", "abc"], ["--factor"], ()),
    ("report-sql-error", ["report", "run", "--sql", "select nope from nowhere"], ["--sql"], ()),
    ("report-sql-empty", ["report", "run", "--sql", ""], ["--sql", "no query"], ()),
    ("report-sql-blank", ["report", "run", "--sql", " "], ["--sql", "no query"], ()),
    ("report-sql-no-table", ["report", "run", "--sql", "-- a comment"], ["--sql", "no table"],
     ()),
    ("report-plots-no-matplotlib", ["report", "run", "--plots", "p2"], ["--plots", "matplotlib"],
     ("matplotlib",)),
    ("report-sql-no-duckdb", ["report", "run", "--sql", "select 1"], ["--sql", "duckdb"],
     ("duckdb",)),
    # adversarial
    ("adversarial-algo", ["adversarial", "--algo", "nope+greedy", "--evaluations", "1"],
     ["--algo", "nope"], ()),
    ("adversarial-budget-zero", ["adversarial", "--algo", "sebf+madd", "--budget", "0"],
     ["--budget", "> 0"], ()),
    ("adversarial-seed-negative", ["adversarial", "--algo", "sebf+madd", "--seed", "-1"],
     ["--seed", ">= 0"], ()),
    ("adversarial-budget", ["adversarial", "--algo", "sebf+madd", "--budget", "-1"],
     ["--budget"], ()),
    ("adversarial-opt-time-limit", ["adversarial", "--algo", "sebf+madd", "--opt-time-limit",
                                    "nan"], ["--opt-time-limit"], ()),
    ("adversarial-gap-bound", ["adversarial", "--against", "gap", "--bound", "nope"],
     ["--bound nope", "ordering-lp"], ()),
    ("adversarial-gap-integral-bound", ["adversarial", "--against", "gap", "--bound", "lp-a"],
     ["--bound lp-a", "--model integral"], ()),
    ("adversarial-gap-algo", ["adversarial", "--against", "gap", "--bound", "ordering-lp",
                              "--algo", "bssi+greedy"], ["--algo", "--against gap"], ()),
    ("adversarial-draw", ["adversarial", "--algo", "random+greedy", "--draw", "default"],
     ["--draw default", "random"], ()),
    # --name was ignored without --out, and '' fell back to the default stem silently
    ("adversarial-name-without-out", ["adversarial", "--algo", "sebf+madd", "--name", "x"],
     ["--name x", "--out"], ()),
    ("adversarial-name-empty", ["adversarial", "--algo", "sebf+madd", "--out", "adv", "--name",
                                ""], ["--name", "needs a name"], ()),
    ("adversarial-name-path", ["adversarial", "--algo", "sebf+madd", "--out", "adv", "--name",
                               "../x"], ["--name", "plain file stem"], ()),
    # a file name of only spaces was written silently
    ("schedule-cct-csv-blank", ["schedule", FIG51, "--order", "sebf", "--rates", "greedy",
                                "--cct-csv", " "], ["--cct-csv", "needs a file name"], ()),
    ("bench-run-dir-blank", ["bench", "spec.toml", "--run-dir", "  "],
     ["--run-dir", "needs a folder name"], ()),
    # slotted (issue 12: the integral matching model)
    ("slotted-policy", ["slotted", FIG51, "--policy", "nope"],
     ["--policy nope", "slotted-order"], ()),
    ("slotted-order-unknown", ["slotted", FIG51, "--order", "nope"], ["--order nope", "bssi"],
     ()),
    ("slotted-order-with-mmf", ["slotted", FIG51, "--policy", "mmf", "--order", "bssi"],
     ["--order", "--policy mmf"], ()),
    ("slotted-order-param-with-srjf", ["slotted", FIG51, "--policy", "srjf", "--order-param",
                                       "seed=1"], ["--order-param", "--policy srjf"], ()),
    ("slotted-order-param-key", ["slotted", FIG51, "--order-param", "foo=1"],
     ["--order-param foo", "ordering bssi"], ()),
    ("slotted-param-key", ["slotted", FIG51, "-p", "foo=1"], ["-p foo", "slotted-order"], ()),
    ("slotted-param-value", ["slotted", FIG51, "--policy", "srjf", "--param", "job=pair"],
     ["--param job", "'flow' or 'coflow'"], ()),
    ("slotted-param-own-flag", ["slotted", FIG51, "-p", "slot=2"], ["-p slot", "--slot"], ()),
    ("slotted-slot-nan", ["slotted", FIG51, "--slot", "nan"], ["--slot"], ()),
    ("slotted-not-integral", ["slotted", FIG51, "--slot", "0.5"],
     ["dissertation-fig5.1.json", "--slot 0.5", "whole units"], ()),
    ("slotted-out-suffix", ["slotted", FIG51, "-o", "x.txt"], ["--out x.txt", ".npz"], ()),
    # topologies (issue 11): generate, --topology specs and flags, big-switch-only refusals
    ("generate-fat-tree-k-odd", ["generate", "fat-tree", "-p", "k=5", "-o", "g.json"],
     ["-p k", "even"], ()),
    ("generate-fat-tree-too-big", ["generate", "fat-tree", "-p", "k=2000", "-o", "g.json"],
     ["-p k", "MAX_RESOURCES"], ()),
    ("generate-fat-tree-shape", ["generate", "fat-tree", "-p", "width=[1,2]", "-o", "g.json"],
     ["-p width", "uniform_random"], ()),
    ("generate-fat-tree-pattern", ["generate", "fat-tree", "-p", "pattern=ring", "-o", "g.json"],
     ["-p pattern", "all_to_all"], ()),
    ("generate-fat-tree-routing", ["generate", "fat-tree", "-p", "routing=random", "-o",
                                   "g.json"], ["-p routing", "ecmp"], ()),
    ("generate-fat-tree-txt", ["generate", "fat-tree", "-o", "g.txt"],
     ["--out g.txt", "version 2"], ()),
    ("generate-leaf-spine-oversubscription", ["generate", "leaf-spine", "-p",
                                              "oversubscription=0", "-o", "g.json"],
     ["-p oversubscription", "positive"], ()),
    ("generate-leaf-spine-type", ["generate", "leaf-spine", "-p", "leaves=two", "-o", "g.json"],
     ["-p leaves", "integer"], ()),
    ("topology-unknown-kind", ["info", "gen.json", "--topology", "ring:n=4"],
     ["--topology ring:n=4", "unknown topology kind", "fat-tree", "leaf-spine"], ()),
    ("topology-bad-key", ["info", "gen.json", "--topology", "fat-tree:x=4"],
     ["--topology x", "accepted: k"], ()),
    ("topology-bad-value", ["info", "gen.json", "--topology", "fat-tree:k=abc"],
     ["--topology k", "integer"], ()),
    ("topology-k-odd", ["schedule", "gen.json", "--topology", "fat-tree:k=5", "--policy",
                        "varys"], ["--topology k", "even"], ()),
    ("topology-oversubscription", ["info", "gen.json", "--topology", "leaf-spine:leaves=2,"
                                   "spines=2,hosts_per_leaf=2,oversubscription=-1"],
     ["--topology oversubscription", "positive"], ()),
    ("topology-missing-key", ["info", "gen.json", "--topology", "leaf-spine:leaves=2"],
     ["--topology leaf-spine:leaves=2", "spines=VALUE", "hosts_per_leaf=VALUE"], ()),
    ("topology-no-params", ["info", "gen.json", "--topology", "fat-tree"],
     ["--topology fat-tree", "k=VALUE"], ()),
    ("topology-empty-item", ["info", "gen.json", "--topology", "fat-tree:k=4,"],
     ["--topology", "empty KEY=VALUE"], ()),
    ("topology-not-key-value", ["info", "gen.json", "--topology", "fat-tree:k"],
     ["--topology k", "KEY=VALUE"], ()),
    ("topology-key-twice", ["info", "gen.json", "--topology", "fat-tree:k=4,k=6"],
     ["--topology k", "twice"], ()),
    ("topology-too-big", ["bound", "gen.json", "--topology", "fat-tree:k=1000"],
     ["--topology k", "MAX_RESOURCES"], ()),
    ("topology-already-placed", ["info", "ft4.json", "--topology", "fat-tree:k=4"],
     ["--topology fat-tree:k=4", "ft4.json", "already on a topology"], ()),
    ("topology-capacity", ["info", "gen.sincronia.txt", "--topology", "fat-tree:k=4",
                           "--capacity", "2"], ["--capacity", "--topology"], ()),
    ("routing-without-topology", ["schedule", "gen.json", "--policy", "varys", "--routing",
                                  "ecmp"], ["--routing", "--topology"], ()),
    ("routing-choice", ["info", "gen.json", "--topology", "fat-tree:k=4", "--routing", "bogus"],
     ["--routing", "bogus"], ()),
    ("routing-seed-with-shortest", ["info", "gen.json", "--topology", "fat-tree:k=4",
                                    "--routing", "shortest", "--routing-seed", "1"],
     ["--routing-seed", "shortest"], ()),
    ("routing-seed-negative", ["info", "gen.json", "--topology", "fat-tree:k=4",
                               "--routing-seed", "-1"], ["--routing-seed"], ()),
    ("placement-seed-without-random", ["info", "gen.json", "--topology", "fat-tree:k=4",
                                       "--placement-seed", "1"], ["--placement-seed"], ()),
    ("placement-choice", ["info", "gen.json", "--topology", "fat-tree:k=4", "--placement",
                          "round-robin"], ["--placement", "round-robin"], ()),
    ("convert-v2-to-sincronia", ["convert", "ft4.json", "x.txt", "--to", "sincronia"],
     ["--to sincronia", "ft4.json", "big switch", "json"], ()),
    ("convert-topology-to-fb", ["convert", "gen.json", "x.txt", "--to", "coflow-benchmark",
                                "--topology", "fat-tree:k=4"],
     ["--to coflow-benchmark", "--topology"], ()),
    *[(f"{kind}-big-switch-only", argv + [name], [f"{flag} {name}", "big_switch_only",
                                                  "ft4.json"], ())
      for kind, flag, argv in (
          ("rates", "--rates", ["schedule", "ft4.json", "--order", "fifo", "--rates"]),
          ("policy", "--policy", ["schedule", "ft4.json", "--policy"]),
          ("ordering", "--order", ["schedule", "ft4.json", "--rates", "madd", "--order"]),
          ("bound", "--method", ["bound", "ft4.json", "--method"]),
          ("exact", "--method", ["exact", "ft4.json", "--method"]))
      for name in [BSO[kind]] if name is not None],
    *[("policy-big-switch-only-after-topology", ["schedule", "gen.json", "--topology",
                                                 "fat-tree:k=4", "--policy", name],
       [f"--policy {name}", "big_switch_only", "--topology fat-tree:k=4"], ())
      for name in [BSO["policy"]] if name is not None],
    # files and folders to write: refused when the command line is read, before any work (a
    # search of minutes must not end in a failed write), naming the flag and the rule
    ("schedule-out-missing-dir", ["schedule", FIG51, "--order", "sebf", "--rates", "greedy",
                                  "-o", "nodir/s.json"],
     ["--out", "nodir/s.json", "does not exist"], ()),
    ("schedule-out-directory", ["schedule", FIG51, "--order", "sebf", "--rates", "greedy",
                                "-o", "adir"], ["--out", "adir", "is a directory"], ()),
    ("schedule-cct-csv-under-a-file", ["schedule", FIG51, "--order", "sebf", "--rates",
                                       "greedy", "--cct-csv", "notjson.txt/c.csv"],
     ["--cct-csv", "notjson.txt", "not a directory"], ()),
    ("schedule-slotted-missing-dir", ["schedule", FIG51, "--order", "sebf", "--rates", "greedy",
                                      "--slotted", "nodir/s.json"], ["--slotted", "nodir"], ()),
    ("exact-certificate-missing-dir", ["exact", FIG51, "--certificate", "nodir/c.json"],
     ["--certificate", "nodir/c.json", "does not exist"], ()),
    ("exact-out-directory", ["exact", FIG51, "-o", "adir/"], ["--out", "adir/", "directory"], ()),
    ("bound-export-missing-dir", ["bound", FIG51, "--method", "port", "--export", "nodir/m.lp"],
     ["--export", "nodir/m.lp"], ()),
    ("bound-certificate-missing-dir", ["bound", FIG51, "--method", "port", "--certificate",
                                       "nodir/c.json"], ["--certificate", "nodir/c.json"], ()),
    ("compare-csv-missing-dir", ["compare", FIG51, "-a", "sebf+greedy", "--csv", "nodir/c.csv"],
     ["--csv", "nodir/c.csv"], ()),
    ("convert-output-missing-dir", ["convert", FIG51, "nodir/x.json"],
     ["output", "nodir/x.json", "does not exist"], ()),
    ("generate-out-missing-dir", ["generate", "uniform_random", "-p", "num_ports=3", "-o",
                                  "nodir/g.json"], ["--out", "nodir/g.json"], ()),
    ("slotted-out-missing-dir", ["slotted", FIG51, "-o", "nodir/s.json"], ["--out", "nodir"], ()),
    ("adversarial-out-is-a-file", ["adversarial", "--algo", "varys", "--budget", "1", "--out",
                                   "notjson.txt"], ["--out", "notjson.txt", "not a directory"],
     ()),
    ("report-plots-is-a-file", ["report", "run", "--plots", "notjson.txt"],
     ["--plots", "notjson.txt", "not a directory"], ()),
    ("bench-run-dir-is-a-file", ["bench", "spec.toml", "--run-dir", "notjson.txt"],
     ["--run-dir", "notjson.txt", "not a directory"], ()),
    # an unknown flag is blamed on the command it was given to, not on "coflowopt"
    ("schedule-unknown-flag", ["schedule", FIG51, "--order", "sebf", "--rates", "greedy",
                               "--nosuch", "3"],
     ["coflowopt schedule: error: unrecognized arguments: --nosuch 3",
      "coflowopt schedule --help"], ()),
    ("lib-status-unknown-flag", ["lib", "status", "--family", "x"],
     ["coflowopt lib status: error", "--family x", "coflowopt lib status --help"], ()),
]


#: Runs each bad-usage case in its own forked process: the parent imports coflowopt once
#: (0.3-0.5 s of CPU per interpreter otherwise, times 60 cases), each child gets fresh files
#: as file descriptors 1 and 2, runs ``main(argv)`` and exits with its code, so exit codes
#: and fd-level writes (a solver banner, a traceback) are observed exactly as for a process
#: started from the shell.  Cases with blocked imports need a fresh interpreter (below).
_FORK_RUNNER = r"""
import json, sys
from coflowopt.cli import main_in_fork
from coflowopt.registry import algorithms
algorithms()  # load the registry once, before forking
json.dump({name: main_in_fork(argv) for name, argv in json.load(sys.stdin)}, sys.stdout)
"""


@pytest.fixture(scope="module")
def run_dir(work, good_runs):
    """The run folder the good ``bench`` case wrote (the report cases read it)."""
    assert good_runs["bench"][0] == 0
    return work / "run"


@pytest.fixture(scope="module")
def bad_runs(work, run_dir):
    cases = [(name, [str(a) for a in argv]) for name, argv, _, block in BAD if not block]
    p = subprocess.run([sys.executable, "-c", _FORK_RUNNER], input=json.dumps(cases),
                       cwd=work, capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, PYTHONWARNINGS="ignore"))
    assert p.returncode == 0, p.stderr[-3000:]
    out = {k: tuple(v) for k, v in json.loads(p.stdout).items()}
    for name, argv, _, block in BAD:
        if block:  # a fresh interpreter in which the extra cannot be imported
            out[name] = cli(argv, work, block=block)
    return out


@pytest.mark.parametrize("name,argv,words,block", BAD, ids=[c[0] for c in BAD])
def test_bad_usage_is_exit_2_with_one_line(bad_runs, name, argv, words, block):
    code, out, err = bad_runs[name]
    lines = err.strip("\n").split("\n")
    assert code == 2, (code, err[-2000:])
    assert "Traceback" not in err, err
    assert len(lines) == 1, err
    for w in words:
        assert w in lines[0], (w, lines[0])
    # command-line words, never the Python API's (format=, read_schedule(...), TypeError)
    for api in ("format=", "read_schedule(", "TypeError", "KeyError", "kwargs"):
        assert api not in lines[0], lines[0]
    # numbers as a user writes them: "2.0", not numpy's repr "np.float64(2.0)"
    assert not re.search(r"\bnp\.[a-z]+[0-9]*\(", lines[0]), lines[0]
    assert out == ""


@pytest.mark.parametrize("name", ["schedule-conflict", "generate-unknown-param",
                                  "bound-time-limit-nan", "convert-to"])
def test_bad_usage_from_a_fresh_interpreter(work, run_dir, bad_runs, name):
    """A few cases again as plain ``python -m coflowopt`` processes: the forked runner above
    sees what a fresh process sees."""
    argv = next(c[1] for c in BAD if c[0] == name)
    assert cli(argv, work) == bad_runs[name]


#: a quick, valid command line of each subcommand in the ``work`` folder (after the good runs):
#: the base the blank-value cases below add one flag to
BLANK_BASE = {
    "info": ["info", FIG51], "convert": ["convert", FIG51, "blank-conv.json"],
    "generate": ["generate", "uniform_random", "-p", "num_ports=3", "-p", "num_coflows=4", "-o",
                 "blank-gen.json"],
    "schedule": ["schedule", "gen.json", "--order", "sebf", "--rates", "madd"],
    "verify": ["verify", "gen.json", "gen.schedule.json"], "algorithms": ["algorithms"],
    "adversarial": ["adversarial", "--algo", "sebf+madd", "--ports", "2", "--coflows", "3",
                    "--evaluations", "2", "--strategy", "random"],
    "bench": ["bench", "spec.toml", "--run-dir", "run", "--workers", "0"],
    "bound": ["bound", FIG51, "--method", "isolated"],
    "compare": ["compare", T_S4, "--algos", "bssi+greedy"],
    "exact": ["exact", FIG51, "--time-limit", "5"], "fairness": ["fairness", FIG51],
    "gap": ["gap", T_S4, "--time-limit", "5"], "normalize": ["normalize", T_A1_MATRIX, "-m",
                                                             "sinkhorn-cap"],
    "report": ["report", "run"], "slotted": ["slotted", "gen.json", "--policy", "order"],
    "lib status": ["lib", "status"], "lib check": ["lib", "check", "--family", "adversarial"],
    # the library's own best schedule (not an improvement: nothing would be recorded)
    "lib submit": ["lib", "submit", "adversarial/bssi_greedy-opt-4x4-6c-seed0",
                   REPO / "instances" / "coflowlib" / "v1" / "adversarial"
                   / "bssi_greedy-opt-4x4-6c-seed0.best.schedule.json"],
}


def _value_flags():
    """(subcommand, flag, dest) of every option that takes a value, from the parser itself:
    a flag added later is covered without a new case."""
    from coflowopt.cli import command_parsers
    return [(name, a.option_strings[-1], a.dest) for name, sp in command_parsers()
            for a in sp._actions if a.option_strings and a.nargs != 0]


def test_every_value_flag_refuses_a_blank_value(work, run_dir):
    """An empty or blank value is never a choice a user meant: every value-taking flag of every
    subcommand refuses '' and ' ' with exit 2 and one line naming the flag (found by a fuzz of
    every flag: ``bench --only ''`` ran every algorithm, ``slotted --order ''`` ran BSSI,
    ``report --sql ''`` ran the whole report, ``--cct-csv ' '`` wrote a file named ' ')."""
    flags = _value_flags()
    missing = sorted({name for name, _, _ in flags} - set(BLANK_BASE))
    assert not missing, f"add a base command line for {missing}"
    cases = [(f"{name} {flag} {v!r}", [str(a) for a in BLANK_BASE[name]] + [flag, v, "--json"])
             for name, flag, _ in flags for v in ("", " ")]
    p = subprocess.run([sys.executable, "-c", _FORK_RUNNER], input=json.dumps(cases),
                       cwd=work, capture_output=True, text=True, timeout=900,
                       env=dict(os.environ, PYTHONWARNINGS="ignore"))
    assert p.returncode == 0, p.stderr[-3000:]
    runs = json.loads(p.stdout)
    wrong = []
    for (case, _), (name, flag, dest) in zip(cases, [f for f in flags for _ in (0, 1)]):
        code, out, err = runs[case]
        lines = err.strip("\n").split("\n")
        if (code != 2 or len(lines) != 1 or "Traceback" in err or out
                or not (flag in lines[0] or dest in lines[0]
                        or any(s in lines[0] for s in _option_strings(name, dest)))):
            wrong.append((case, code, err.strip()[-200:]))
    assert not wrong, wrong
    assert len(cases) >= 300


def _option_strings(name: str, dest: str) -> list[str]:
    from coflowopt.cli import command_parsers
    sp = dict(command_parsers())[name]
    return next(a.option_strings for a in sp._actions if a.dest == dest)


def test_bad_usage_case_count():
    """The closing note of issue 10 reports this count."""
    assert len(BAD) >= 50


# ------------------------------------------------------------------------------ runs
def test_bench_refuses_a_different_spec_in_the_same_run_folder(work, run_dir):
    code, out, err = cli(["bench", "other.toml", "--run-dir", "run", "--workers", "0"], work)
    assert code == 2, err
    line = err.strip()
    assert "\n" not in line and "run" in line and "spec hash" in line
    # the same spec again is a resume, not a conflict
    code, out, err = cli(["bench", "spec.toml", "--run-dir", "run", "--workers", "0", "--json",
                          "--no-report"], work)
    assert code == 0, err
    assert json.loads(out)["summary"]["executed"] == 0


def test_bad_time_limit_is_refused_by_every_command_that_takes_one():
    """One argparse type for every time flag: the set of flags that take seconds is checked."""
    from coflowopt.cli import build_parser, seconds
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    timed = []
    for name, sp in sub.choices.items():
        for a in sp._actions:
            if any(s in opt for opt in a.option_strings for s in ("time-limit", "budget")):
                timed.append((name, a.option_strings[0]))
                assert a.type is seconds, (name, a.option_strings)
    assert ("bound", "--time-limit") in timed and ("exact", "--time-limit") in timed


def test_every_output_flag_is_checked_before_any_work():
    """One argparse type for every file or folder a command writes: the flags found by their
    names and metavars must all carry it (a new flag without it fails here)."""
    from coflowopt.cli import build_parser, output_dir, output_file
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    found = {}
    for name, sp in sub.choices.items():
        for a in sp._actions:
            writes = (a.dest in ("out", "output", "certificate", "export", "csv", "cct_csv",
                                 "slotted", "plots", "run_dir")
                      and (a.option_strings or name == "convert"))
            if writes:
                found[(name, a.dest)] = a.type
    assert found, "no output flags found"
    bad = {k: t for k, t in found.items() if t not in (output_file, output_dir)}
    assert not bad, bad
    for key in [("schedule", "out"), ("exact", "certificate"), ("bound", "export"),
                ("convert", "output"), ("adversarial", "out"), ("report", "plots")]:
        assert key in found, key


def test_output_file_rules(tmp_path):
    import argparse
    from coflowopt.cli import output_dir, output_file
    (tmp_path / "f").write_text("x")
    assert output_file(str(tmp_path / "new.json")) == str(tmp_path / "new.json")
    assert output_file(str(tmp_path / "f")) == str(tmp_path / "f")      # overwritten
    assert output_dir(str(tmp_path / "a" / "b")) == str(tmp_path / "a" / "b")  # created later
    assert output_dir(str(tmp_path)) == str(tmp_path)
    import os
    os.mkfifo(tmp_path / "pipe.json")       # a write to it would block until a reader comes
    for bad in (tmp_path / "no" / "x.json", tmp_path, tmp_path / "f" / "x.json", "", " ", "\t",
                tmp_path / "pipe.json", "-",    # '-': a file named '-', never standard output
                tmp_path / "a\nb.json", tmp_path / "a\tb.json"):  # control characters
        with pytest.raises(argparse.ArgumentTypeError):
            output_file(str(bad))
    for bad in (tmp_path / "f", tmp_path / "f" / "sub", "", "  ", tmp_path / "r\nun"):
        with pytest.raises(argparse.ArgumentTypeError):
            output_dir(str(bad))


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_a_failed_write_names_the_flag_and_the_file(tmp_path, capsys):
    """A write that fails after the checks (a full disk: /dev/full) is exit 2 naming the flag
    and the file; it printed a bare "[Errno 28] No space left on device"."""
    from coflowopt import Coflow, Instance
    from coflowopt.cli import main
    from coflowopt.formats import write_instance
    src = tmp_path / "i.json"
    write_instance(Instance.from_coflows([Coflow("A", [(0, 0, 2.0)])]), src)
    capsys.readouterr()
    full = tmp_path / "full.json"      # a name the schedule writers take, on a full disk
    full.symlink_to("/dev/full")
    for argv, flag, path in (
            (["schedule", str(src), "--order", "sebf", "--rates", "greedy", "--cct-csv",
              "/dev/full"], "--cct-csv", "/dev/full"),
            (["schedule", str(src), "--order", "sebf", "--rates", "greedy", "--out", str(full)],
             "--out", str(full)),
            (["compare", str(src), "-a", "sebf+greedy", "--csv", "/dev/full"], "--csv",
             "/dev/full"),
            (["slotted", str(src), "--out", str(full)], "--out", str(full)),
            (["exact", str(src), "--out", str(full)], "--out", str(full)),
            (["convert", str(src), str(full)], "output", str(full))):
        assert main([*argv, "--json"]) == 2, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"{flag} {path}: cannot write it" in err, err


# ------------------------------------------------------------------------------ HiGHS banner
def test_format_names_match_the_readers():
    from coflowopt.cli import INSTANCE_FORMAT_NAMES
    from coflowopt.formats import INSTANCE_FORMATS
    assert set(INSTANCE_FORMAT_NAMES) == set(INSTANCE_FORMATS)


def test_every_highs_object_comes_from_new_highs():
    """``highspy.Highs()`` is created in one place (formulations/highs.py: new_highs), the
    only place that silences its constructor's banner; pyomo's APPSI wrapper is wrapped."""
    import re
    pkg = REPO / "coflowopt"
    offenders = []
    for f in pkg.rglob("*.py"):
        text = f.read_text(encoding="utf-8")
        for m in re.finditer(r"\bHighs\(\)", text):
            line = text[:m.start()].count("\n") + 1
            offenders.append(f"{f.relative_to(REPO)}:{line}")
    assert sorted(offenders) == ["coflowopt/formulations/highs.py:" + str(_line_of(
        pkg / "formulations" / "highs.py", "h = hp.Highs()")),
        "coflowopt/formulations/pyomo_models.py:" + str(_line_of(
            pkg / "formulations" / "pyomo_models.py", "opt = Highs()"))], offenders


def _line_of(path: Path, needle: str) -> int:
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if needle in line:
            return i
    raise AssertionError(f"{needle!r} not in {path}")


def test_new_highs_keeps_fd1_clean_and_restores_it(tmp_path):
    """At the file-descriptor level: nothing of HiGHS on stdout, Python's own prints before and
    after intact and in order; with log=True the log goes to stderr."""
    prog = ("import sys\n"
            "print('before', flush=True)\n"
            "from coflowopt.formulations.highs import new_highs, highs_version\n"
            "h = new_highs(); v = highs_version()\n"
            "g = new_highs(log=True); g.addVar(0, 1); g.changeColCost(0, 1.0); g.run()\n"
            "print('after', v)\n")
    p = subprocess.run([sys.executable, "-c", prog], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    from coflowopt.formulations.highs import highs_version
    assert p.stdout == f"before\nafter {highs_version()}\n"
    assert "Model status" in p.stderr  # the log that was asked for, on stderr


def test_new_highs_from_threads_restores_fd1(tmp_path):
    """Several threads creating models at once: the lock serialises the descriptor swap, so
    fd 1 ends up where it started and Python's own output arrives whole."""
    prog = ("import threading\n"
            "from coflowopt.formulations.highs import new_highs\n"
            "hs = []\n"
            "def work():\n"
            "    for _ in range(20):\n"
            "        hs.append(new_highs())\n"
            "ts = [threading.Thread(target=work) for _ in range(4)]\n"
            "[t.start() for t in ts]; [t.join() for t in ts]\n"
            "print('models', len(hs), flush=True)\n")
    p = subprocess.run([sys.executable, "-c", prog], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "models 80\n"
