"""The theory-frontier table (issue 13): the reconstructions beside BSSI+greedy, LP-OV+greedy
and SEBF+MADD, on the gap-study instances (ALG/OPT, OPT proved) and on the FB trace with every
release at 0 (ALG / best certified bound), with run times.

    python experiments/theory_frontier_table.py [--n 40] [--seed 0] [--fb PATH | --no-fb]
        [--fb-timeout 900] [--out experiments/results/theory_frontier_table.json]
        [--reuse EARLIER.json]

Algorithms.  Fluid model: the baselines ``bssi+greedy``, ``lp-ov+greedy``, ``sebf+madd`` and
every registered *policy* tagged ``reconstruction`` (``slow-motion``); integral matching model
(slot 1, whole units per slot and port): the baseline ``slotted-order`` (greedy maximal
allocation per slot in BSSI's order) and every registered *slotted* algorithm tagged
``reconstruction`` (``lp-deadline-greedy``, ``interval-groups``, ``lp-deadline-iterated``
... whichever are registered when the script runs).  Each runs with its registered defaults
(randomised ones: their deterministic default, the best piece).  Every schedule is verified
(``verify_schedule`` or ``verify_slotted``).

Gap-study instances: instances ``0 .. n-1`` of ``experiments/integral_gap_study.py`` with its
seed (4x4 unit big switch, 4-7 coflows of 1-4 flows, sizes 1-5, unit weights; releases 0-4 on
the instances ``i % 10 < 3``).  Fluid algorithms are divided by the fluid optimum (bnb,
proved), integral ones by the integral optimum (integral-mip, proved, re-verified); an
instance whose optimum is not proved is counted and left out of that model's ratios.

FB trace (``--fb``, default ``../shared/data/FB2010-1Hr-150-0.txt``; 526 coflows, 150 ports,
1 MB per time unit of 7.8125 ms; every release set to 0): each algorithm runs in its own
process with ``--fb-timeout`` seconds; the base is the best certified lower bound among
``bssi-dual`` and ``ordering-lp`` (a bound on the fluid optimum, hence on the integral one).
An algorithm that refuses the instance or runs out of time is reported with its measured
reason.  Prints the Markdown tables (also written next to the JSON as ``.md``); the JSON has
every row.  ``--reuse`` keeps an earlier run's optima, bounds and values and runs only the
algorithms registered since (instance ``i`` is the same for the same seed; run times of reused
rows are those of the earlier run, on whatever the machine's load was then).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from frontier_common import frontier_parser, timed, verified_value  # noqa: E402

FLUID_BASELINES = ("bssi+greedy", "lp-ov+greedy", "sebf+madd")
INTEGRAL_BASELINES = ("slotted-order",)
FB_DEFAULT = HERE.parent.parent / "shared" / "data" / "FB2010-1Hr-150-0.txt"


def algorithm_list() -> list[tuple[str, str]]:
    """``(model, name)``: the baselines, then the registry's reconstructions by tag."""
    from coflowopt.registry import algorithms
    out = [("fluid", n) for n in FLUID_BASELINES]
    out += [("fluid", a.name) for a in algorithms("policy") if "reconstruction" in a.tags]
    out += [("integral", n) for n in INTEGRAL_BASELINES]
    out += [("integral", a.name) for a in algorithms("slotted") if "reconstruction" in a.tags]
    return out


def run_algorithm(inst, model: str, name: str):
    """The schedule of ``name`` on ``inst`` (registered defaults)."""
    from coflowopt.registry import get_algorithm
    if model == "integral":
        return get_algorithm("slotted", name).func(inst)
    if "+" in name:
        o, r = name.split("+")
        order = get_algorithm("ordering", o).func(inst)
        return get_algorithm("rates", r).func(inst, np.asarray(order, dtype=np.int64))
    return get_algorithm("policy", name).func(inst)


def warm_up(algs) -> None:
    """Run every algorithm once on a tiny instance, so that no run time below includes the
    compilation of a numba kernel (cached on disk after the first process)."""
    from coflowopt import Coflow, Instance
    tiny = Instance.from_coflows([Coflow("A", [(0, 0, 1), (1, 1, 2)]),
                                  Coflow("B", [(0, 1, 1)], weight=2.0)])
    for model, name in algs:
        run_algorithm(tiny, model, name)


def gap_rows(n: int, seed: int, reuse: list | None = None) -> list[dict]:
    """One row per gap-study instance; with ``reuse`` (the rows of an earlier run with the
    same seed) its optima and its algorithms' values are kept and only the algorithms it lacks
    run (a rerun after new algorithms were registered)."""
    from integral_gap_study import flows_for, build
    from coflowopt.exact import bnb
    from coflowopt.testing import integral_optimum
    algs = algorithm_list()
    old = {r["index"]: r for r in reuse or ()}
    warm_up([a for a in algs if not old or any(a[1] not in r["values"] for r in old.values())])
    rows = []
    for i in range(n):
        inst = build(flows_for(i, seed))
        if i in old:
            row = old[i]
        else:
            fo, tf = timed(bnb, inst, time_limit=60)
            io, ti = timed(integral_optimum, inst, time_limit=60)
            row = {"index": i, "coflows": inst.num_coflows, "flows": inst.num_flows,
                   "releases": bool(np.any(inst.release > 0)),
                   "fluid_opt": str(fo.value) if fo.kind == "optimal" else None,
                   "integral_opt": None if io is None else str(Fraction(io)),
                   "seconds": {"bnb": tf, "integral-mip": ti}, "values": {}}
        for model, name in algs:
            if name in row["values"]:
                continue
            sched, t = timed(run_algorithm, inst, model, name)
            row["values"][name] = str(verified_value(inst, sched))
            row["seconds"][name] = t
        for model, name in algs:
            opt = row["fluid_opt"] if model == "fluid" else row["integral_opt"]
            if opt is not None:
                assert Fraction(row["values"][name]) >= Fraction(opt) * (1 - Fraction(1, 10**9)), \
                    (i, name, row["values"][name], opt)
        rows.append(row)
        print(f"instance {i}: " + ", ".join(
            f"{name} {float(Fraction(row['values'][name])):.6g}" for _, name in algs),
            file=sys.stderr, flush=True)
    return rows


def fb_one(path: str, model: str, name: str) -> dict:
    """One algorithm on the FB trace with zero releases (run in its own process)."""
    from coflowopt.exceptions import CoflowOptError
    from coflowopt.formats import read_instance
    inst = read_instance(path, format="coflow-benchmark").with_releases(0.0)
    warm_up([(model, name)])
    try:
        sched, t = timed(run_algorithm, inst, model, name)
    except CoflowOptError as e:       # a refusal with its reason (too large, not integral...)
        return {"status": "refused", "reason": f"{type(e).__name__}: {e}"}
    v, tv = timed(verified_value, inst, sched)
    return {"status": "ok", "value": str(v), "seconds": t, "verify_seconds": tv}


def fb_bound(path: str) -> dict:
    from coflowopt.formats import read_instance
    from coflowopt.registry import get_algorithm
    inst = read_instance(path, format="coflow-benchmark").with_releases(0.0)
    out = {}
    for b in ("bssi-dual", "ordering-lp"):
        res, t = timed(get_algorithm("bound", b).func, inst)
        if res.kind == "lower_bound":
            out[b] = {"value": str(Fraction(res.value)), "seconds": t}
    return out


def fb_rows(path: str, timeout: float, reuse: dict | None = None) -> dict:
    """The FB part; with ``reuse`` (an earlier run's) its bounds and algorithm records are
    kept and only the algorithms it lacks run."""
    bounds = reuse["bounds"] if reuse else fb_bound(path)
    best = max(bounds, key=lambda b: Fraction(bounds[b]["value"]))
    out = {"bounds": bounds, "best_bound": best,
           "algorithms": dict(reuse["algorithms"]) if reuse else {}}
    for model, name in algorithm_list():
        if name in out["algorithms"]:
            continue
        t0 = time.perf_counter()
        cmd = [sys.executable, __file__, "--fb-one", model, name, "--fb", str(path)]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
            rec = (json.loads(p.stdout.strip().splitlines()[-1]) if p.returncode == 0 else
                   {"status": "error", "reason": p.stderr.strip()[-600:]})
        except subprocess.TimeoutExpired:
            rec = {"status": "timeout", "reason": f"no schedule within {timeout:g} s"}
        rec["wall_seconds"] = time.perf_counter() - t0
        rec["model"] = model
        out["algorithms"][name] = rec
        print(f"FB {name}: {rec.get('status')} {rec.get('value', rec.get('reason', ''))[:200]}",
              file=sys.stderr, flush=True)
    return out


def _stats(xs):
    return (min(xs), float(np.mean(xs)), max(xs)) if xs else (None, None, None)


def markdown(doc: dict) -> str:
    lines = []
    rows = doc.get("gap_rows", [])
    algs = doc["algorithms"]
    if rows:
        lines += [f"Gap-study instances 0-{len(rows) - 1} (seed {doc['seed']}):", "",
                  "| model | algorithm | ALG/OPT min | mean | max | best on (ties count) "
                  "| mean s | max s |", "|---|---|---|---|---|---|---|---|"]
        for model in ("fluid", "integral"):
            key = "fluid_opt" if model == "fluid" else "integral_opt"
            ok = [r for r in rows if r[key] is not None]
            names = [n for m, n in algs if m == model]
            best = {n: 0 for n in names}
            for r in ok:
                vals = {n: Fraction(r["values"][n]) for n in names}
                lo = min(vals.values())
                for n in names:
                    best[n] += vals[n] <= lo
            for n in names:
                q = [float(Fraction(r["values"][n]) / Fraction(r[key])) for r in ok]
                s = [r["seconds"][n] for r in rows]
                a, m, b = _stats(q)
                lines.append(f"| {model} (OPT: {'bnb' if model == 'fluid' else 'integral-mip'}"
                             f", proved on {len(ok)}/{len(rows)}) | {n} | {a:.3f} | {m:.3f} | "
                             f"{b:.3f} | {best[n]} | {np.mean(s):.3f} | {max(s):.3f} |")
        lines.append("")
    fb = doc.get("fb")
    if fb:
        bb = fb["best_bound"]
        lb = Fraction(fb["bounds"][bb]["value"])
        lines += [f"FB trace, every release 0; base: {bb} = {float(lb):.10g} (certified):", "",
                  "| model | algorithm | ALG / bound | ALG (verified) | run s | status |",
                  "|---|---|---|---|---|---|"]
        for n, rec in fb["algorithms"].items():
            if rec.get("status") == "ok":
                v = Fraction(rec["value"])
                lines.append(f"| {rec['model']} | {n} | {float(v / lb):.4f} | {float(v):.10g} | "
                             f"{rec['seconds']:.1f} | ok |")
            else:
                lines.append(f"| {rec['model']} | {n} | - | - | {rec['wall_seconds']:.1f} | "
                             f"{rec['status']}: {rec.get('reason', '')[:300]} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    if argv is None and len(sys.argv) > 1 and sys.argv[1] == "--fb-one":
        model, name, path = sys.argv[2], sys.argv[3], sys.argv[5]
        print(json.dumps(fb_one(path, model, name)))
        return 0
    ap = frontier_parser(__doc__, n=40)
    ap.add_argument("--fb", default=str(FB_DEFAULT), help="the FB trace (coflow-benchmark)")
    ap.add_argument("--no-fb", action="store_true", help="skip the FB trace")
    ap.add_argument("--fb-timeout", type=float, default=900.0,
                    help="seconds per algorithm on the FB trace (default 900)")
    ap.add_argument("--reuse", metavar="JSON",
                    help="an earlier run's JSON (same --seed): keep its optima, bounds and "
                         "values, run only the algorithms it lacks (newly registered ones)")
    args = ap.parse_args(argv)
    out = Path(args.out or HERE / "results" / "theory_frontier_table.json")
    prev = json.loads(Path(args.reuse).read_text(encoding="utf-8")) if args.reuse else {}
    if prev and prev.get("seed") != args.seed:
        ap.error(f"--reuse {args.reuse}: seed {prev.get('seed')} is not --seed {args.seed}")
    doc = {"command": "python experiments/theory_frontier_table.py " + " ".join(
        sys.argv[1:] if argv is None else argv), "seed": args.seed,
        "algorithms": algorithm_list()}
    if not args.no_fb and not Path(args.fb).is_file():
        ap.error(f"--fb {args.fb}: no such file (or give --no-fb)")
    t0 = time.perf_counter()
    out.parent.mkdir(parents=True, exist_ok=True)

    def save():         # after each part, so that a later failure keeps what was measured
        doc["wall_seconds"] = time.perf_counter() - t0
        out.write_text(json.dumps(doc, indent=1, default=str), encoding="utf-8")
    doc["gap_rows"] = gap_rows(args.n, args.seed, prev.get("gap_rows")) if args.n > 0 else []
    save()
    if not args.no_fb:
        doc["fb"] = fb_rows(args.fb, args.fb_timeout, prev.get("fb"))
        save()
    md = markdown(doc)
    out.with_suffix(".md").write_text(md + "\n", encoding="utf-8")
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
