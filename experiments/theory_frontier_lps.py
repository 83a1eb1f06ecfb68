"""LP-A, LP-B and lp-deadline-greedy next to the fluid time-indexed LP and the integral optimum
(issue 13, first slice): small random unit-capacity big switches.

    python experiments/theory_frontier_lps.py [--n 30] [--seed 0] [--epsilon 0.25]
                                              [--out FILE.json]

Per instance: LP-A, LP-B (certified, integral model), time-indexed-lp (fluid, default grid;
a fluid bound is an integral bound too), the integral optimum (integral-mip, re-verified),
lp-deadline-greedy's best piece and exact expectation (LP-A CDFs), slotted-order in BSSI order;
every schedule verified by verify_slotted; wall times per method; with ``--epsilon`` also LP-A
and lp-deadline-greedy over geometric intervals ``(1+eps)^l``.  Prints a summary; the JSON
has every row.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from coflowopt import Coflow, Instance
from coflowopt.bounds.integral_time_indexed import lp_a_bound, lp_b_bound
from coflowopt.lp_deadline import lp_deadline_greedy, lp_deadline_pieces
from coflowopt.registry import get_algorithm
from coflowopt.slotted import verify_slotted
from coflowopt.testing import integral_optimum

sys.path.insert(0, str(Path(__file__).resolve().parent))
from frontier_common import frontier_parser, timed  # noqa: E402


def instance(rng, m=4, kmin=4, kmax=6, smax=5, p_release=0.3) -> Instance:
    K = int(rng.integers(kmin, kmax + 1))
    rel = rng.random() < p_release
    cofs = []
    for k in range(K):
        nf = int(rng.integers(1, 5))
        flows = [(int(rng.integers(0, m)), int(rng.integers(0, m)), int(rng.integers(1, smax + 1)))
                 for _ in range(nf)]
        cofs.append(Coflow(f"c{k}", flows, weight=float(rng.integers(1, 4)),
                           release=int(rng.integers(0, 5)) if rel else 0))
    return Instance.from_coflows(cofs)


def main(argv=None):
    ap = frontier_parser(__doc__)
    ap.add_argument("--epsilon", type=float,
                    help="also LP-A and lp-deadline-greedy on intervals (1+eps)^l")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    ti = get_algorithm("bound", "time-indexed-lp").func
    so = get_algorithm("slotted", "slotted-order").func
    rows = []
    for i in range(args.n):
        inst = instance(rng)
        a, ta = timed(lp_a_bound, inst)
        b, tb = timed(lp_b_bound, inst)
        f, tf = timed(ti, inst)
        opt, to = timed(integral_optimum, inst, time_limit=60)
        s, tg = timed(lp_deadline_greedy, inst)
        P = lp_deadline_pieces(inst)
        g = verify_slotted(inst, s)
        bs = verify_slotted(inst, so(inst))
        assert g.ok and bs.ok
        row = {"i": i, "coflows": inst.num_coflows, "flows": inst.num_flows,
               "releases": bool(np.any(inst.release > 0)), "lp_a": float(a.value),
               "lp_b": float(b.value), "fluid_ti": float(f.value),
               "opt": None if opt is None else float(opt),
               "alg": float(g.weighted_completion_time), "expectation": float(P.expectation),
               "lp_value": float(P.lp_value), "factor": float(P.factor), "pieces": len(P.ends),
               "bssi_slotted": float(bs.weighted_completion_time), "slots": a.params["slots"],
               "t_lp_a": ta, "t_lp_b": tb, "t_fluid_ti": tf, "t_opt": to, "t_alg": tg}
        if args.epsilon:
            ag, tag = timed(lp_a_bound, inst, epsilon=args.epsilon)
            sg = lp_deadline_greedy(inst, epsilon=args.epsilon)
            rg = verify_slotted(inst, sg)
            assert rg.ok
            row.update({"lp_a_eps": float(ag.value), "alg_eps": float(rg.weighted_completion_time),
                        "intervals_eps": ag.params["intervals"], "t_lp_a_eps": tag})
        rows.append(row)
        print(json.dumps({k: (round(v, 4) if isinstance(v, float) else v)
                          for k, v in row.items()}), flush=True)
    ok = [r for r in rows if r["opt"]]
    def st(xs):
        return f"min {min(xs):.3f} mean {np.mean(xs):.3f} max {max(xs):.3f}"
    print(f"{len(ok)}/{len(rows)} optima proved")
    print("LP-A/OPT", st([r["lp_a"] / r["opt"] for r in ok]))
    print("LP-B/OPT", st([r["lp_b"] / r["opt"] for r in ok]))
    print("fluid time-indexed/OPT", st([r["fluid_ti"] / r["opt"] for r in ok]))
    print("LP-B > LP-A (1e-9 rel):", sum(r["lp_b"] > r["lp_a"] * (1 + 1e-9) for r in rows))
    print("fluid TI > LP-A:", sum(r["fluid_ti"] > r["lp_a"] * (1 + 1e-9) for r in rows),
          "LP-A > fluid TI:", sum(r["lp_a"] > r["fluid_ti"] * (1 + 1e-9) for r in rows))
    print("ALG/OPT", st([r["alg"] / r["opt"] for r in ok]))
    print("E/LP", st([r["expectation"] / r["lp_value"] for r in rows]), "(proved <= factor)")
    print("ALG/LP-A", st([r["alg"] / r["lp_a"] for r in rows]))
    print("slotted BSSI/OPT", st([r["bssi_slotted"] / r["opt"] for r in ok]))
    print("ALG < slotted BSSI:", sum(r["alg"] < r["bssi_slotted"] for r in rows),
          "ALG > slotted BSSI:", sum(r["alg"] > r["bssi_slotted"] for r in rows))
    if args.epsilon:
        print(f"epsilon {args.epsilon}: LP-A(eps)/LP-A", st([r["lp_a_eps"] / r["lp_a"] for r in rows]),
              "ALG(eps)/OPT", st([r["alg_eps"] / r["opt"] for r in ok]),
              "intervals/slots", st([r["intervals_eps"] / r["slots"] for r in rows]))
    for k in ("t_lp_a", "t_lp_b", "t_fluid_ti", "t_opt", "t_alg"):
        print(k, f"median {np.median([r[k] for r in rows]):.3f}s max {max(r[k] for r in rows):.3f}s")
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
