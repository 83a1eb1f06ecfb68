"""Benchmark: every rate allocation, every policy that claims the FB trace, and the cheap bounds
on the 50,000-coflow random instance, each as a whole process (issue 17, "no cliff at 50,000
coflows").

Run:  python experiments/bench_scale.py [--coflows 50000] [--order sebf] [--timeout 300]
          [--memory-gb 8] [--only NAME,NAME,...] [--bounds isolated,port,bssi-dual,ordering-lp]
          [--out experiments/results/bench_scale.json]
      python experiments/bench_scale.py --instance FB2010-1Hr-150-0.txt [--zero-release]
          --target-gb 0.5 --bounds none --out experiments/results/bench_scale_fb.json

With ``--instance FILE`` the same processes run on that file instead of the generated instance
(issue 17's "peak memory for each FB run under 500 MB": ``--target-gb 0.5``); the bounds then
run as ``coflowopt bound FILE --method M --json`` processes.  ``--target-s`` / ``--target-gb``
set the "within" column (default 60 s and 4 GB, the 50,000-coflow target).

Instance: ``coflowopt generate uniform_random -p num_ports=150 -p num_coflows=K --seed 0``
(150 x 150 ports, 1-4 flows per coflow, about 2.5 K flows, integer sizes 1-10, zero
releases, unit weights and capacities), generated once by that command into a temporary
directory.

What runs, each in its own process under ``nice -n 10`` (the script renices itself, so every
child inherits it), with an address-space limit (``prlimit --as``, ``--memory-gb``) and a
timeout (``timeout``, exit 124 -> TIMEOUT):

* every registered rate allocation (``coflowopt algorithms --kind rates --json``) as
  ``coflowopt schedule INSTANCE --order ORDER --rates R --json`` with one fixed cheap order
  (``--order``, default ``sebf``);
* every registered policy that claims the FB trace, as ``coflowopt schedule INSTANCE --policy
  P --json``.  **Rule**: a policy claims the FB trace unless the registry tags it ``slow``
  ("too slow for the 706k-flow FB trace"), ``exponential`` or ``integral_model`` (exact or
  slotted methods that refuse large instances by design); the excluded ones are listed with
  their tag in the output.  Rate allocations are all run, ``slow`` or not (issue 17 asks for
  every registered one);
* the cheap bounds through ``experiments/bench_bounds_scale.py``'s child runner (its
  ``run_child``: one process per bound that generates the same instance and runs the bound with
  its exact certificate check; peak RSS of that process), not duplicated here.

Each row records wall seconds (process start to exit, so reading the instance, the algorithm and
the independent verifier are inside), peak resident memory (``os.wait4`` of the child, which
includes the descendants it waited for), the exit status, the objective and its kind
(``feasible`` = passed the verifier; ``lower_bound`` = certificate checked), and whether it is
within the target (60 s and 4 GB).  The machine's load average (``uptime``) is recorded before
and after each run: on a shared 2-core machine the wall times are inflated by the load.

Output: the table on standard output, ``--out`` (JSON, rewritten after every run so a partial
run is kept) and the same table as Markdown beside it (``.md``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_bounds_scale import run_child as bound_child  # noqa: E402
from bench_speed import run_process  # noqa: E402

BOUNDS = ("isolated", "port", "bssi-dual", "ordering-lp")
#: Policy tags that say "does not claim the FB trace" (registry.TAGS).
EXCLUDING_TAGS = ("slow", "exponential", "integral_model")
TARGET = {"s": 60.0, "gb": 4.0}
#: ``run_process`` reports peak RSS in MiB; the tables' GB are 10^9 bytes, as in the README
#: (before 2026-11-28 this script printed GiB, 7 % less).
MIB = 2 ** 20
ENV = {**os.environ, "COFLOWOPT_QUIET_JIT": "1"}


def coflowopt(*args: str) -> list[str]:
    return [sys.executable, "-m", "coflowopt", *args]


def registered(kind: str) -> list[dict]:
    """The registry's algorithms of one kind, as ``coflowopt algorithms --json`` lists them."""
    p = subprocess.run(coflowopt("algorithms", "--kind", kind, "--json"), capture_output=True,
                       text=True, env=ENV, check=True)
    return json.loads(p.stdout)["algorithms"]


def load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def schedule_row(name: str, what: str, cmd: list[str], *, timeout: float,
                 memory_gb: float) -> dict:
    """One ``coflowopt schedule`` process: time, peak RSS, exit status, objective, kind."""
    wrapped = ["timeout", "-k", "10", f"{timeout:g}",
               "prlimit", f"--as={int(memory_gb * 2 ** 30)}", *cmd]
    before = os.getloadavg()
    r = run_process(wrapped, env=ENV)
    row = {"name": name, "what": what, "command": " ".join(cmd[2:]), "seconds": r["seconds"],
           "peak_gb": r["peak_mb"] * MIB / 1e9, "returncode": r["returncode"],
           "load_before": before, "load_after": os.getloadavg()}
    if r["returncode"] in (124, 137, -9):
        row["kind"] = "TIMEOUT"
        row["error"] = f"timeout {timeout:g} s"
    elif r["returncode"] != 0:
        err = r["stderr"]
        last = (err.strip().splitlines() or ["?"])[-1]
        if ("MemoryError" in err or "Unable to allocate" in err or "std::bad_alloc" in err
                or "out of memory" in err):
            last = f"out of memory (limit {memory_gb:g} GB): {last}"
        row["kind"] = "FAILED"
        row["error"] = last[:200]
    else:
        doc = json.loads(r["stdout"])
        if "results" in doc:      # `coflowopt bound --json`: one result per method
            doc = doc["results"][0]
        row.update(kind=doc.get("kind"), status=doc.get("status"), value=doc.get("value"),
                   objective=doc.get("objective"), timings=doc.get("timings", {}))
    return row


def bound_row(method: str, K: int, *, timeout: float, memory_gb: float) -> dict:
    before = os.getloadavg()
    r = bound_child(method, K, pythonpath=None, timeout=timeout, memory_gb=memory_gb,
                    time_limit=None)
    row = {"name": method, "what": "bound", "command": f"bench_bounds_scale.py --worker "
           f"{method} {K}", "load_before": before, "load_after": os.getloadavg()}
    if "failed" in r:
        row.update(kind="TIMEOUT" if r["failed"].startswith("timeout") else "FAILED",
                   error=r["failed"], seconds=None, peak_gb=None)
    else:
        row.update(seconds=r["process_s"], peak_gb=r["peak_mb"] * MIB / 1e9, kind=r["kind"],
                   status=r["status"], value=r["value"], value_exact=r["value_exact"],
                   objective="weighted_completion_time",
                   timings={"generate": r["generate_s"], "bound": r["bound_s"]})
    return row


def within(row: dict) -> bool:
    ok_kind = row.get("kind") in ("feasible", "lower_bound", "optimal") and \
        row.get("value") is not None
    return bool(ok_kind and row["seconds"] <= TARGET["s"] and row["peak_gb"] <= TARGET["gb"])


def table(rows: list[dict]) -> str:
    out = [f"| name | what | seconds | peak GB | kind | objective | within {TARGET['s']:g} s / "
           f"{TARGET['gb']:g} GB |",
           "|---|---|---|---|---|---|---|"]
    for r in rows:
        s = "-" if r.get("seconds") is None else f"{r['seconds']:.1f}"
        g = "-" if r.get("peak_gb") is None else f"{r['peak_gb']:.2f}"
        v = r.get("value")
        obj = f"{v:,.2f}" if v is not None else r.get("error", "-")
        out.append(f"| {r['name']} | {r['what']} | {s} | {g} | {r.get('kind')} | {obj} | "
                   f"{'yes' if within(r) else 'no'} |")
    return "\n".join(out)


def write(out: Path, doc: dict) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1, default=str) + "\n")
    head = (f"# bench_scale: {doc['coflows']:,} coflows (uniform_random, 150 x 150 ports, "
            f"seed 0; {doc.get('flows') or '?'} flows)") if doc.get("coflows") else \
        f"# bench_scale: `{doc['instance']}`"
    lines = [head, "",
             f"Started {doc['started']} ({doc['load_start']}); "
             + (f"finished {doc['finished']} ({doc['load_end']}). " if "finished" in doc
                else "not finished. ")
             + f"Whole processes under nice 10, timeout {doc['timeout']:g} s, address space "
             f"{doc['memory_gb']:g} GB; rates with `--order {doc['order']}`; target "
             f"{doc['target_s']:g} s and {doc['target_gb']:g} GB.", "", table(doc["rows"]), "",
             "Policies not run (registry tag says they do not claim the FB trace): "
             + (", ".join(f"{n} ({t})" for n, t in doc["excluded"].items()) or "none") + "."]
    lines += [f"\n{r['name']}: {r['note']}." for r in doc["rows"] if r.get("note")]
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--coflows", type=int, default=50000, help="number of coflows K")
    ap.add_argument("--order", default="sebf", help="the fixed order for the rate allocations")
    ap.add_argument("--timeout", type=float, default=300.0, help="per-run timeout (s)")
    ap.add_argument("--memory-gb", type=float, default=8.0, help="per-run address-space limit")
    ap.add_argument("--only", default=None,
                    help="comma-separated rate/policy names to run (default: all that qualify; "
                         "'none': the bounds only)")
    ap.add_argument("--bounds", default=",".join(BOUNDS),
                    help="comma-separated bounds, or 'none'")
    ap.add_argument("--instance", default=None,
                    help="run on this instance file instead of the generated one")
    ap.add_argument("--zero-release", action="store_true",
                    help="with --instance: pass --zero-release to every command")
    ap.add_argument("--target-s", type=float, default=60.0, help="the 'within' time target")
    ap.add_argument("--target-gb", type=float, default=4.0, help="the 'within' memory target")
    ap.add_argument("--out", default=str(HERE / "results" / "bench_scale.json"))
    args = ap.parse_args(argv)
    if args.instance is not None and not Path(args.instance).is_file():
        print(f"bench_scale: --instance {args.instance}: no such file", file=sys.stderr)
        return 2
    if args.zero_release and args.instance is None:
        print("bench_scale: --zero-release needs --instance", file=sys.stderr)
        return 2
    if not (args.target_s > 0 and args.target_gb > 0):
        print("bench_scale: --target-s and --target-gb must be > 0", file=sys.stderr)
        return 2
    TARGET.update(s=args.target_s, gb=args.target_gb)
    if args.coflows < 1:
        print("bench_scale: --coflows must be >= 1", file=sys.stderr)
        return 2
    if args.timeout <= 0 or args.memory_gb <= 0:
        print("bench_scale: --timeout and --memory-gb must be > 0", file=sys.stderr)
        return 2
    bounds = [] if args.bounds == "none" else args.bounds.split(",")
    if set(bounds) - set(BOUNDS):
        print(f"bench_scale: --bounds: unknown {sorted(set(bounds) - set(BOUNDS))}; "
              f"known: {', '.join(BOUNDS)} or none", file=sys.stderr)
        return 2
    os.nice(10)
    rates = [a["name"] for a in registered("rates")]
    policies, excluded = [], {}
    for a in registered("policy"):
        bad = sorted(set(a["tags"]) & set(EXCLUDING_TAGS))
        if bad:
            excluded[a["name"]] = ",".join(bad)
        else:
            policies.append(a["name"])
    if args.only:
        only = [] if args.only == "none" else args.only.split(",")
        unknown = set(only) - set(rates) - set(policies)
        if unknown:
            print(f"bench_scale: --only: {sorted(unknown)} is neither a rate allocation nor a "
                  f"policy that claims the FB trace", file=sys.stderr)
            return 2
        rates = [n for n in rates if n in only]
        policies = [n for n in policies if n in only]
    work = Path(tempfile.mkdtemp(prefix="coflowopt-bench-scale-"))
    try:
        return run(args, work, rates, policies, excluded, bounds)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(args, work: Path, rates: list[str], policies: list[str], excluded: dict,
        bounds: list[str]) -> int:
    """Generate the instance into ``work`` (or take ``--instance``), run every process, write
    the table."""
    extra = ["--zero-release"] if args.zero_release else []
    if args.instance is None:
        inst = work / f"uniform-{args.coflows}.json"
        g = run_process(coflowopt("generate", "uniform_random", "-p", "num_ports=150", "-p",
                                  f"num_coflows={args.coflows}", "--seed", "0", "--out",
                                  str(inst), "--json"), env=ENV)
        if g["returncode"] != 0:
            print(f"bench_scale: generate failed: {g['stderr'].strip()[-200:]}",
                  file=sys.stderr)
            return 1
        try:
            flows = json.loads(g["stdout"]).get("flows")
        except (ValueError, AttributeError):
            flows = None
        described = ("coflowopt generate uniform_random -p num_ports=150 -p "
                     f"num_coflows={args.coflows} --seed 0")
        coflows, generate_s = args.coflows, g["seconds"]
    else:
        inst = Path(args.instance).resolve()
        flows, coflows, generate_s = None, None, None
        described = f"{inst.name}{' --zero-release' if extra else ''}"
    doc = {"coflows": coflows, "flows": flows, "instance": described,
           "target_s": TARGET["s"], "target_gb": TARGET["gb"], "order": args.order, "timeout": args.timeout, "memory_gb": args.memory_gb,
           "niceness": os.nice(0), "rule": "policies tagged " + "/".join(EXCLUDING_TAGS)
           + " are excluded; every rate allocation runs", "excluded": excluded,
           "machine": platform.platform(), "cpus": os.cpu_count(),
           "python": sys.version.split()[0],
           "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "load_start": load(), "generate_s": generate_s, "rows": []}
    out = Path(args.out)
    print(f"instance: {doc['instance']} ({flows} flows); {doc['load_start']}", flush=True)
    if excluded:
        print("not run: " + ", ".join(f"{n} (tag {t})" for n, t in excluded.items()), flush=True)
    kw = dict(timeout=args.timeout, memory_gb=args.memory_gb)
    jobs = [(r, "rates", coflowopt("schedule", str(inst), "--order", args.order, "--rates", r,
                                   "--json", *extra)) for r in rates]
    jobs += [(p, "policy", coflowopt("schedule", str(inst), "--policy", p, "--json", *extra))
             for p in policies]
    for name, what, cmd in jobs:
        label = f"{args.order}+{name}" if what == "rates" else name
        doc["rows"].append(schedule_row(label, what, cmd, **kw))
        r = doc["rows"][-1]
        print(f"{label:20s} {r['seconds']:7.1f} s {r['peak_gb']:6.2f} GB  {r['kind']}  "
              f"{r.get('value', r.get('error'))}  load {r['load_after'][0]:.1f}", flush=True)
        write(out, doc)
    for method in bounds:
        if args.instance is None:
            doc["rows"].append(bound_row(method, args.coflows, **kw))
        else:
            doc["rows"].append(schedule_row(method, "bound", coflowopt(
                "bound", str(inst), "--method", method, "--json", *extra), **kw))
        r = doc["rows"][-1]
        print(f"{method:20s} {r['seconds'] or 0:7.1f} s {r['peak_gb'] or 0:6.2f} GB  "
              f"{r['kind']}  {r.get('value', r.get('error'))}", flush=True)
        write(out, doc)
    doc["finished"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    doc["load_end"] = load()
    write(out, doc)
    print()
    print(table(doc["rows"]))
    print(f"\n{doc['load_end']}\nwrote {out} and {out.with_suffix('.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
