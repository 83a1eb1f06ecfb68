"""The theory-frontier searches of issue 13: the integrality-gap search for each relaxation and
the adversarial search against the reconstructions, each a ``coflowopt adversarial`` process
with a stated wall-clock budget, one after the other.

    python experiments/theory_frontier_searches.py [--budget 150] [--seed 0]
        [--only NAME ...] [--out experiments/results/theory-frontier-searches]

Targets (name: flags): the gap search ``--against gap --bound B`` in the fluid model (OPT
proved by bnb; 3x3 unit fabric, 4 coflows, sizes 1..10, weights 1..5) for ordering-lp, lp-ov,
time-indexed-lp, interval-lp, fluid-network-lp and bssi-dual, and in the integral model (OPT
proved by integral-mip; 3x3, 4 coflows, sizes 1..6, weights 1..5) for lp-a, lp-b,
lp-a-no-cutoff, integral-lp and ordering-lp; the adversarial search ``--against opt``
against slow-motion (fluid, ``--draw default``: the best piece) and lp-deadline-greedy
(integral, ``--draw default``: the best piece), plus every other registered slotted algorithm
tagged ``reconstruction`` (``interval-groups``, ``lp-deadline-iterated`` once registered:
best piece where its seed has a deterministic default).  Each target's best instance is
written under ``<out>/<folder>/`` (instance, proofs, search record; the folder is the
library's: ``adversarial-gap``, ``adversarial`` or ``adversarial-integral``) and its JSON
report to ``<out>/<target>.json``.  Run with ``nice -n 10`` on a shared
machine; the budget is wall clock, so the report states the evaluations each target got
(``--evaluations`` with the same seed reruns exactly what was scored).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FLUID = ["--ports", "3", "--coflows", "4", "--size-max", "10", "--weights", "5"]
INTEGRAL = ["--model", "integral", "--ports", "3", "--coflows", "4", "--size-max", "6",
            "--weights", "5"]
GAPS = [(f"gap-fluid-{b}", ["--against", "gap", "--bound", b] + FLUID)
        for b in ("ordering-lp", "lp-ov", "time-indexed-lp", "interval-lp", "fluid-network-lp",
                  "bssi-dual")] + \
       [(f"gap-integral-{b}", ["--against", "gap", "--bound", b] + INTEGRAL)
        for b in ("lp-a", "lp-b", "lp-a-no-cutoff", "integral-lp", "ordering-lp")]


def algorithm_targets() -> list[tuple[str, list[str]]]:
    """slow-motion (fluid) and the slotted reconstructions (integral), best piece."""
    from coflowopt.registry import algorithms
    out = [("alg-fluid-slow-motion", ["--algo", "slow-motion", "--draw", "default"] + FLUID)]
    for a in algorithms("slotted"):
        if "reconstruction" in a.tags:
            draw = ["--draw", "default"] if "randomized" in a.tags else []
            out.append((f"alg-integral-{a.name}", ["--algo", a.name] + draw + INTEGRAL))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--budget", type=float, default=150.0, help="wall seconds per target")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", nargs="*", help="target names (default: all)")
    ap.add_argument("--out", default=str(REPO / "experiments" / "results" /
                                         "theory-frontier-searches"))
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    targets = GAPS + algorithm_targets()
    if args.only:
        targets = [t for t in targets if t[0] in args.only]
    for name, flags in targets:
        # the library's folders: a find is copied to instances/<folder>/ as it is
        folder = ("adversarial-gap" if name.startswith("gap-") else
                  "adversarial-integral" if "--model" in flags else "adversarial")
        cmd = [sys.executable, "-m", "coflowopt.cli", "adversarial", *flags, "--budget",
               str(args.budget), "--seed", str(args.seed), "--out", str(out / folder),
               "--json"]
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True)
        rec = {"target": name, "command": "coflowopt " + " ".join(cmd[3:]),
               "returncode": p.returncode, "wall_seconds": round(time.perf_counter() - t0, 1)}
        try:
            rec["report"] = json.loads(p.stdout)
        except json.JSONDecodeError:
            rec["stderr"] = p.stderr[-2000:]
        (out / f"{name}.json").write_text(json.dumps(rec, indent=1), encoding="utf-8")
        r = rec.get("report", {})
        print(f"{name}: rc {p.returncode}, {r.get('base')} = {r.get('ratio')} "
              f"({r.get('ratio_exact')}), {r.get('stats', {}).get('evaluations')} evaluations",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
