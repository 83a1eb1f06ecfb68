"""The adversarial search against pure random sampling (issue 6, "must show").

Run:  python experiments/adversarial_study.py [--budget 600] [--seed 0]
                                              [--algos sebf+madd bssi+greedy lp-ov+greedy]
                                              [--ports 4] [--coflows 6] [--strategy all]
                                              [--store instances/adversarial | --no-store]
                                              [--out experiments/results/adversarial_study]

For each algorithm, two arms run **concurrently, one process each** (the machine has 2 cores,
shared with other work), with the same wall-clock budget (``--budget`` seconds), the same seed
and the same search space (``ports x ports`` unit-capacity fabric, ``coflows`` coflows, integer
sizes 1..10, zero releases, unit weights unless the ordering uses weights):

* ``search``: :func:`coflowopt.adversarial.search` with ``--strategy`` (default ``all``: random
  restarts, then local search, then CMA-ES, 20/40/40 % of the budget), **from random starts**
  (no known family is injected);
* ``random``: the same function with ``strategy="random"`` (independent random instances).

Both maximise ALG/OPT with OPT proved by ``coflowopt.exact.bnb`` (kind ``optimal``; a candidate
whose optimum is not proved within 20000 nodes is skipped) and ALG the verifier's value of the
algorithm's schedule; every fast certified bound is also checked against every proven optimum.
Each arm records the CPU time it actually obtained (``time.process_time`` and ``getrusage`` in
the worker) next to its wall time, and the load average before and after.  The Sincronia
Fig. 4 member of the same size (4 singles of size 2, 2 wide coflows of 4 unit flows: 19/15 for
SEBF) is evaluated for each algorithm as the reference.

Outputs ``<out>.json`` (everything) and ``<out>.md`` (the table); with ``--store`` the best
instance per algorithm (over both arms) is written with :func:`coflowopt.adversarial.write_result`
and its search record (``<stem>.search.provenance.json``) gets the key ``study`` (CPU time,
the other arm's ratio, this command).  The other engineers' edits to the working tree can break imports mid-run:
run from a snapshot (``cp -r coflowopt /tmp/snap/``, ``PYTHONPATH=/tmp/snap``, and say so with
``--code-note``).  A quick trial: ``--budget 30 --no-store --out /tmp/adv30``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import multiprocessing as mp
import os
import platform
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_ALGOS = ("sebf+madd", "bssi+greedy", "lp-ov+greedy")
ONE_THREAD = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")


def _worker(args: dict, out_path: str) -> None:
    """One arm in its own process: run the search, write the best entry to a staging dir and a
    JSON record of the run."""
    from coflowopt.adversarial import search, write_result
    t_cpu, t_wall = time.process_time(), time.perf_counter()
    ru0 = resource.getrusage(resource.RUSAGE_SELF)
    res = search(args["algo"], against="opt", ports=args["ports"], coflows=args["coflows"],
                 strategy=args["strategy"], seed=args["seed"], seconds=args["budget"],
                 check_bounds=True)
    cpu = time.process_time() - t_cpu
    wall = time.perf_counter() - t_wall
    ru1 = resource.getrusage(resource.RUSAGE_SELF)
    rec = {"arm": args["arm"], "algorithm": args["algo"], "strategy": args["strategy"],
           "seed": args["seed"], "budget_seconds": args["budget"],
           "wall_seconds": round(wall, 3), "cpu_seconds": round(cpu, 3),
           "cpu_user_sys_rusage": round((ru1.ru_utime - ru0.ru_utime)
                                        + (ru1.ru_stime - ru0.ru_stime), 3),
           "cpu_share": round(cpu / wall, 4) if wall > 0 else None,
           "max_rss_mb": round(ru1.ru_maxrss / 1024, 1), "summary": res.summary(),
           "files": {}}
    if res.best is not None:
        files = write_result(res, Path(args["stage"]) / "adversarial")
        rec["files"] = {k: str(v) for k, v in files.items()}
    Path(out_path).write_text(json.dumps(rec, indent=1, allow_nan=False), encoding="utf-8")


def _fig4_reference(algos) -> dict:
    """ALG/OPT on Sincronia's Fig. 4 member with t = 4 singles and N = 2 wide coflows."""
    from coflowopt.adversarial import evaluate
    from coflowopt.generators import sincronia_fig4
    inst = sincronia_fig4(4, 2)
    out = {}
    for a in algos:
        ev = evaluate(inst, a)
        out[a] = {"status": ev.status, "ratio": ev.ratio, "alg": float(ev.alg.value),
                  "opt": str(ev.reference.value) if ev.reference is not None else None}
    return out


def _run_pair(algo: str, a: argparse.Namespace, stage: Path) -> list[dict]:
    ctx = mp.get_context("spawn")
    procs, outs = [], []
    for arm, strategy in (("search", a.strategy), ("random", "random")):
        out = stage / f"{algo.replace('+', '_')}-{arm}.json"
        args = {"arm": arm, "algo": algo, "strategy": strategy, "seed": a.seed,
                "budget": a.budget, "ports": a.ports, "coflows": a.coflows,
                "stage": str(stage / f"{algo.replace('+', '_')}-{arm}")}
        p = ctx.Process(target=_worker, args=(args, str(out)), name=f"{algo}-{arm}")
        procs.append(p)
        outs.append(out)
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    recs = []
    for p, out in zip(procs, outs):
        if p.exitcode != 0 or not out.is_file():
            recs.append({"arm": p.name.rsplit("-", 1)[1], "algorithm": algo,
                         "failed": f"exit code {p.exitcode}"})
        else:
            recs.append(json.loads(out.read_text(encoding="utf-8")))
    return recs


def _store(best: dict, other: dict | None, store: Path, command: str,
           code_note: str | None) -> dict:
    """Copy the best arm's entry into the library; add ``study`` to its search record and a
    note to its provenance."""
    store.mkdir(parents=True, exist_ok=True)
    copied = {}
    for key, src in best["files"].items():
        dst = store / Path(src).name
        shutil.copyfile(src, dst)
        copied[key] = str(dst.relative_to(REPO)) if dst.is_relative_to(REPO) else str(dst)
    prov_path = store / Path(best["files"]["provenance"]).name
    prov = json.loads(prov_path.read_text(encoding="utf-8"))
    search_path = store / Path(best["files"]["search"]).name
    record = json.loads(search_path.read_text(encoding="utf-8"))
    record["study"] = {
        "script": "experiments/adversarial_study.py", "command": command,
        "arm": best["arm"], "wall_seconds": best["wall_seconds"],
        "cpu_seconds": best["cpu_seconds"], "cpu_share": best["cpu_share"],
        "concurrent_arm": None if other is None or "summary" not in other else {
            "arm": other["arm"], "strategy": other["strategy"],
            "ratio": other["summary"]["ratio"], "cpu_seconds": other["cpu_seconds"],
            "evaluations": other["summary"]["stats"]["evaluations"]},
        "results": "experiments/results/adversarial_study.json", "code": code_note}
    if record.get("git_commit") is None and code_note:
        record["git_commit"] = code_note
    search_path.write_text(json.dumps(record, indent=2, allow_nan=False) + "\n",
                           encoding="utf-8")
    prov["notes"].append(
        f"Found by experiments/adversarial_study.py ({best['arm']} arm, "
        f"{best['wall_seconds']} s wall, {best['cpu_seconds']} s CPU obtained on a shared "
        f"2-core machine, run concurrently with the other arm).")
    prov_path.write_text(json.dumps(prov, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    return copied


def _claims(stored: dict) -> dict:
    """:func:`coflowopt.adversarial.claims.claim_quantities` on every stored instance (the
    intermediate inequalities of Lemmas 3 and 5 and Theorems 1 and 2)."""
    from fractions import Fraction
    from coflowopt.adversarial.claims import claim_quantities
    from coflowopt.formats.instance_json import read_instance_json
    out = {}
    for algo, files in stored.items():
        path = Path(files["instance"])
        path = path if path.is_absolute() else REPO / path
        record = json.loads(path.with_suffix(".search.provenance.json").read_text(
            encoding="utf-8"))
        orders = ("bssi",) + ((algo.split("+")[0],) if "+" in algo else ())
        q = claim_quantities(read_instance_json(path), orders=orders,
                             opt=Fraction(record["opt"]["value_exact"]))
        out[algo] = q
    return out


def _frac(x: float) -> str:
    from fractions import Fraction
    f = Fraction(x).limit_denominator(10000)
    return f"{f.numerator}/{f.denominator}" if abs(float(f) - x) < 1e-12 else ""


def markdown(payload: dict) -> str:
    s = payload["settings"]
    lines = [
        "# Adversarial search against pure random sampling",
        "",
        f"Generated by `python experiments/adversarial_study.py --budget {s['budget']:g} "
        f"--seed {s['seed']}` on {payload['date']} ({payload['machine']['cpus']} CPUs, "
        f"shared; load average before {payload['load_before']}, after "
        f"{payload['load_after']}).",
        "",
        f"Every ratio is **ALG/OPT** for `sum_k w_k C_k` on {s['ports']}x{s['ports']} "
        f"unit-capacity fabrics with {s['coflows']} coflows (integer sizes 1..10, zero "
        "releases; integer weights 1..5 when the ordering uses weights -- BSSI, LP-OV -- "
        "else unit weights): ALG is the verifier's value of the algorithm's schedule (kind `feasible`), "
        "OPT the optimum proved by `coflowopt.exact.bnb` (kind `optimal`, gap 0); candidates "
        "whose optimum was not proved within 20000 nodes are skipped.  Each ratio is therefore "
        "a proven lower bound on the algorithm's approximation ratio (proofs/"
        "adversarial-search-ratios.md).  The two arms of an algorithm ran concurrently, one "
        "process each, with the same wall-clock budget and the same seed (one seed per arm); "
        f"`search` is strategy `{s['strategy']}` (random restarts, local search, CMA-ES; 20/40/"
        "40 % of the budget) from random starts, no known family injected; `random` is "
        "independent random instances.  CPU s is the CPU time the arm actually obtained "
        "(`time.process_time`).",
        "",
        "| algorithm | arm | best ALG/OPT | ALG (verified) | OPT (proved) | candidates "
        "(scored / skipped) | wall s | CPU s obtained | Fig. 4 member ALG/OPT |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for algo, d in payload["algorithms"].items():
        fig = d["fig4"]
        figtxt = (f"{fig['ratio']:.4f} ({fig['alg']:g}/{fig['opt']})" if fig.get("ratio")
                  else fig.get("status", ""))
        for rec in d["arms"]:
            if "failed" in rec:
                lines.append(f"| {algo} | {rec['arm']} | failed: {rec['failed']} | | | | | | |")
                continue
            sm = rec["summary"]
            st = sm["stats"]
            r = sm["ratio"]
            fr = _frac(r) if r is not None else ""
            rtxt = "none scored" if r is None else f"**{r:.4f}**" + (f" ({fr})" if fr else "")
            alg = f"{sm['alg']['value']:.6g}" if "alg" in sm else ""
            opt = sm["opt"]["value_exact"] if "opt" in sm else ""
            lines.append(
                f"| {algo} | {rec['arm']} ({rec['strategy']}) | {rtxt} | {alg} | {opt} | "
                f"{st['evaluations']} ({st['scored']} / {st.get('opt_unproved', 0)}) | "
                f"{rec['wall_seconds']:.0f} | {rec['cpu_seconds']:.0f} "
                f"({100 * rec['cpu_share']:.0f} %) | {figtxt} |")
    lines += ["", "## Verdicts", ""]
    for algo, d in payload["algorithms"].items():
        lines.append(f"- {algo}: {d['verdict']}")
    bc = payload.get("bound_check", {})
    if bc:
        lines += ["", "## Bound check on every scored candidate", "",
                  "| bound | candidates checked | max LB/OPT | violations |", "|---|---|---|---|"]
        for name, v in sorted(bc.items()):
            lines.append(f"| {name} | {v['checked']} | {v['max_lb_over_opt']:.6f} | "
                         f"{v['violations']} |")
    if payload.get("stored"):
        lines += ["", "## Stored instances", ""]
        for algo, files in payload["stored"].items():
            lines.append(f"- {algo}: `{files['instance']}`")
    if payload.get("claims"):
        keys = ["lemma5_loads_over_bssi_lb", "lemma3_max_completion_over_bound",
                "theorem2_greedy_over_load_sum", "theorem1_bssi_greedy_over_bssi_lb",
                "theorem1_bssi_greedy_over_opt"]
        lines += ["", "## The proven inequalities on the stored instances", "",
                  "`coflowopt.adversarial.claims.claim_quantities` (left side / right side; "
                  "proven limit in brackets).  Lemma 3 and Theorem 2 use greedy rates in the "
                  "BSSI order and in the stored algorithm's order (the larger value).", "",
                  "| stored instance of | " + " | ".join(keys) + " |",
                  "|---|" + "---|" * len(keys)]
        for algo, q in payload["claims"].items():
            cells = [f"{q[k]:.4f}" + (f" (<= {q['limits'][k]:g})" if k in q["limits"] else "")
                     for k in keys]
            lines.append(f"| {algo} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--budget", type=float, default=600.0, help="seconds per arm (default 600)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--algos", nargs="+", default=list(DEFAULT_ALGOS))
    p.add_argument("--ports", type=int, default=4)
    p.add_argument("--coflows", type=int, default=6)
    p.add_argument("--strategy", default="all", choices=["local", "cma", "all"])
    p.add_argument("--store", default=str(REPO / "instances" / "adversarial"))
    p.add_argument("--no-store", action="store_true")
    p.add_argument("--code-note", default=None,
                   help="what code ran (recorded; e.g. when PYTHONPATH points at a snapshot of "
                        "the working tree)")
    p.add_argument("--out", default=str(REPO / "experiments" / "results" / "adversarial_study"),
                   help="output stem: writes STEM.json and STEM.md")
    p.add_argument("--from-json", action="store_true",
                   help="do not search: reread OUT.json, recompute the claims on the stored "
                        "instances and rewrite OUT.json and OUT.md")
    a = p.parse_args(argv)
    if a.from_json:
        out = Path(a.out)
        payload = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
        payload["claims"] = _claims(payload["stored"])
        out.with_suffix(".json").write_text(json.dumps(payload, indent=1, allow_nan=False)
                                            + "\n", encoding="utf-8")
        md = markdown(payload)
        out.with_suffix(".md").write_text(md, encoding="utf-8")
        print(md)
        return 0
    for var in ONE_THREAD:                      # one core per arm: no hidden solver threads
        os.environ.setdefault(var, "1")
    import coflowopt
    from coflowopt import __version__
    command = "python experiments/adversarial_study.py " + " ".join(
        argv if argv is not None else sys.argv[1:])
    payload = {"date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
               "command": command, "coflowopt_version": __version__,
               "code": {"package": str(Path(coflowopt.__file__).parent),
                        "note": a.code_note},
               "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                           "platform": platform.platform()},
               "settings": {"budget": a.budget, "seed": a.seed, "ports": a.ports,
                            "coflows": a.coflows, "strategy": a.strategy, "against": "opt",
                            "base": "ALG/OPT", "objective": "weighted_completion_time",
                            "opt_nodes": 20000},
               "load_before": [round(x, 2) for x in os.getloadavg()],
               "algorithms": {}, "stored": {}, "bound_check": {}}
    fig4 = _fig4_reference(a.algos)
    with tempfile.TemporaryDirectory(prefix="adversarial_study_") as tmp:
        stage = Path(tmp)
        for algo in a.algos:
            print(f"{algo}: search and random, {a.budget:g} s each, concurrently ...",
                  file=sys.stderr, flush=True)
            recs = _run_pair(algo, a, stage)
            ok = [r for r in recs if "summary" in r and r["summary"]["ratio"] is not None]
            by_arm = {r["arm"]: r for r in recs}
            rs, rr = (by_arm.get(k, {}).get("summary", {}).get("ratio") for k in
                      ("search", "random"))
            f4 = fig4[algo].get("ratio")
            verdict = []
            if rs is not None and rr is not None:
                verdict.append(f"search {rs:.4f} vs random {rr:.4f}: "
                               + ("search higher" if rs > rr + 1e-12 else
                                  "tie" if abs(rs - rr) <= 1e-12 else "random higher"))
            if rs is not None and f4 is not None:
                verdict.append(f"search {'>=' if rs >= f4 - 1e-12 else '<'} the Fig. 4 member "
                               f"({f4:.4f})")
            for r in recs:
                for name, v in r.get("summary", {}).get("bound_check", {}).items():
                    agg = payload["bound_check"].setdefault(
                        name, {"checked": 0, "max_lb_over_opt": 0.0, "violations": 0})
                    agg["checked"] += v["checked"]
                    agg["violations"] += v["violations"]
                    agg["max_lb_over_opt"] = max(agg["max_lb_over_opt"], v["max_lb_over_opt"])
            payload["algorithms"][algo] = {"fig4": fig4[algo], "arms": recs,
                                           "verdict": "; ".join(verdict) or "no result"}
            if ok and not a.no_store:
                best = max(ok, key=lambda r: r["summary"]["ratio"])
                other = next((r for r in recs if r is not best), None)
                payload["stored"][algo] = _store(best, other, Path(a.store), command,
                                                 a.code_note)
            for r in recs:                       # staging paths vanish with the temp dir
                r["files"] = {k: Path(v).name for k, v in r.get("files", {}).items()}
    payload["load_after"] = [round(x, 2) for x in os.getloadavg()]
    payload["claims"] = _claims(payload["stored"])
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(payload, indent=1, allow_nan=False) + "\n",
                                        encoding="utf-8")
    md = markdown(payload)
    out.with_suffix(".md").write_text(md, encoding="utf-8")
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
