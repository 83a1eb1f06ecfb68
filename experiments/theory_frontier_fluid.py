"""slow-motion (the fluid LP replay, issue 13) next to BSSI+greedy and LP-OV+greedy on small
instances with proved optima (fluid model).

    python experiments/theory_frontier_fluid.py [--n 30] [--seed 0] [--target-slots 48]
                                               [--out FILE.json]

Instances: two thirds random 4x4 big switches, one third random host-to-host instances on
leaf_spine(2, 2, 2, oversubscription=2) (ECMP); 3-5 coflows of 1-3 flows, sizes 0.5-5, weights
0.2-3, releases on 40 % of the coflows of half the instances.  Per instance: OPT (bnb, proved),
the certified LP slow-motion replays (time-indexed, no overflow, safe horizon, default slot),
slow-motion's best breakpoint (the replay's cost), its output (the compacted replay at that
lambda), the exact expectation of the replay and one seeded draw (compacted), BSSI+greedy,
LP-OV+greedy; wall times.  Every schedule is verified.  Prints a summary table; the JSON has
every row.  (The integral-model figures of lp-deadline-greedy are in
``experiments/theory_frontier_lps.py`` and ``formulations/lp_a_lp_b.md``.)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from coflowopt import Instance
from coflowopt.exact import bnb
from coflowopt.registry import get_algorithm
from coflowopt.slow_motion import slow_motion, slow_motion_pieces
from coflowopt.topology import leaf_spine, on_topology

sys.path.insert(0, str(Path(__file__).resolve().parent))
from frontier_common import frontier_parser, timed, verified_value  # noqa: E402


def instance(rng, idx: int) -> Instance:
    topo = idx % 3 == 2
    H = 8 if topo else 4
    K = int(rng.integers(3, 6))
    counts = rng.integers(1, 4, size=K)
    F = int(counts.sum())
    src = rng.integers(0, H, F)
    dst = (src + rng.integers(1, H, F)) % H
    rel = (np.round(rng.uniform(0, 3, K), 2) * (rng.random(K) < 0.4)) if idx % 2 else np.zeros(K)
    bs = Instance.from_arrays(
        ingress_capacity=np.ones(H), egress_capacity=np.ones(H),
        coflow_ids=[f"c{k}" for k in range(K)], flow_coflow=np.repeat(np.arange(K), counts),
        flow_src=src, flow_dst=dst, flow_size=np.round(rng.uniform(0.5, 5.0, F), 2),
        weight=np.round(rng.uniform(0.2, 3.0, K), 2), release=rel,
        meta={"name": f"{'ls222' if topo else 'bs4x4'}-{idx}"})
    if not topo:
        return bs
    return on_topology(bs, leaf_spine(2, 2, 2, oversubscription=2), routing="ecmp",
                       seed=int(idx))


def verified(inst, sched) -> float:
    return float(verified_value(inst, sched))


def main(argv=None):
    ap = frontier_parser(__doc__)
    ap.add_argument("--target-slots", type=int, default=48,
                    help="slow-motion's slots up to the safe horizon (finer: smaller additive "
                         "term, larger LP)")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    greedy = get_algorithm("rates", "greedy").func
    bssi = get_algorithm("ordering", "bssi").func
    lpov = get_algorithm("ordering", "lp-ov").func
    rows = []
    for i in range(args.n):
        inst = instance(rng, i)
        res, t_opt = timed(bnb, inst, time_limit=60)
        if res.kind != "optimal":
            print(f"{inst.meta.get('name')}: optimum not proved, skipped")
            continue
        opt = float(res.value)
        pieces, t_sm = timed(slow_motion_pieces, inst, target_slots=args.target_slots)
        out, t_run = timed(slow_motion, inst, target_slots=args.target_slots)
        seeded = slow_motion(inst, seed=i, target_slots=args.target_slots)
        b_sched, t_b = timed(lambda: greedy(inst, bssi(inst)))
        l_sched, t_l = timed(lambda: greedy(inst, lpov(inst)))
        row = {"name": inst.meta.get("name"), "coflows": inst.num_coflows,
               "flows": inst.num_flows, "releases": bool(inst.has_releases),
               "topology": not inst.is_big_switch, "opt": opt,
               "lp": float(pieces.rlp.bound.value), "slot": out.meta["slot"],
               "sm_best_replay": float(pieces.costs[pieces.best]),
               "sm_best": verified(inst, out), "sm_expectation": pieces.expectation,
               "sm_seeded": verified(inst, seeded), "sm_guarantee": pieces.guarantee,
               "bssi_greedy": verified(inst, b_sched), "lpov_greedy": verified(inst, l_sched),
               "seconds": {"bnb": t_opt, "slow_motion_pieces": t_sm, "slow_motion": t_run,
                           "bssi_greedy": t_b, "lpov_greedy": t_l}}
        for k in ("lp", "sm_best_replay", "sm_best", "sm_expectation", "sm_seeded",
                  "bssi_greedy", "lpov_greedy"):
            assert k == "lp" and row[k] <= opt * (1 + 1e-7) or \
                k != "lp" and row[k] >= opt * (1 - 1e-7), (k, row[k], opt)
        rows.append(row)
    print(f"{len(rows)} instances with proved OPT (seed {args.seed}, target slots "
          f"{args.target_slots})")
    print(f"{'ratio to OPT':28s} {'min':>7s} {'mean':>7s} {'max':>7s}")
    for k, label in (("lp", "LP (certified) / OPT"),
                     ("sm_best_replay", "slow-motion best replay"),
                     ("sm_best", "slow-motion (compacted)"),
                     ("sm_seeded", "slow-motion seeded"),
                     ("sm_expectation", "slow-motion E (replay)"),
                     ("bssi_greedy", "BSSI+greedy"), ("lpov_greedy", "LP-OV+greedy")):
        r = np.array([row[k] / row["opt"] for row in rows])
        print(f"{label:28s} {r.min():7.3f} {r.mean():7.3f} {r.max():7.3f}")
    e_lp = np.array([row["sm_expectation"] / row["lp"] for row in rows])
    print(f"{'E / LP':28s} {e_lp.min():7.3f} {e_lp.mean():7.3f} {e_lp.max():7.3f}")
    wins = {k: sum(row[k] <= min(row["sm_best"], row["bssi_greedy"], row["lpov_greedy"])
                   * (1 + 1e-9) for row in rows)
            for k in ("sm_best", "bssi_greedy", "lpov_greedy")}
    print("best (ties counted for each):", wins)
    for k in ("bnb", "slow_motion", "bssi_greedy", "lpov_greedy"):
        s = np.array([row["seconds"][k] for row in rows])
        print(f"seconds {k:18s} mean {s.mean():.3f} max {s.max():.3f}")
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
