"""Synchronous slotted (SYN) against asynchronous fluid (ASY) schedules on the same instances
(seed 002, issue 14 item 2; page ``experiments/reproductions/syn-vs-asy.md``).

    python experiments/syn_asy_slotted_study.py            # ~10 min on 2 shared cores
    python experiments/syn_asy_slotted_study.py --quick    # a smoke run (~1 min)

Writes ``experiments/results/syn_asy_slotted.{json,md}``.

What is compared.  Each instance is drawn once as *packets*: every flow is ``n`` packets, each
packet a length in bytes from a packet mix (fixed 1500 B, the seed's bimodal 0.4 x 40 B / 0.6 x
1500 B, or the MSS + ACK pattern of Sec. III-F.2).  One time unit is one 1500 B slot (one MTU
at the server link rate).

* **SYN** (Fastpass-like, Sec. II-A): time slotted, one packet per slot and link, whatever its
  length: the flow has ``n`` units in the integral matching model.  Schedulers: greedy maximal
  matching per slot with the seed's OCF, SRJF and MMF priorities and, for a coflow-aware
  reference, in BSSI's coflow order (``coflowopt.slotted_greedy``), each schedule verified in
  exact integers (``coflowopt.slotted.verify_slotted``).
* **ASY** (rate-based, Sec. II-B): fluid, the flow has ``bytes / 1500`` units and no slot is
  partially filled.  Schedulers, each recomputed at every arrival and completion and verified by
  ``coflowopt.verify``: max-min normalisation (``fair``), the seed's Sinkhorn normalisation
  (cap-only Sinkhorn of the backlogged flows' offered rates, one leaky bucket per flow: the
  policy :class:`SinkhornPolicy` below over :func:`coflowopt.normalization.normalize_flows`),
  per-flow SRTF (``priority``, the fluid twin of SRJF), FIFO + greedy (the fluid twin of OCF)
  and BSSI + greedy (the fluid twin of slotted BSSI order).

Metrics: the total CCT ``sum_k (C_k - r_k)`` and the mean normalised FCT (the flow's time in the
system over its time alone in an empty network, ``bytes / 1500`` slots: the same physical
reference for both, as the seed's "theoretical minimum FCT in an empty DCN";
:func:`coflowopt.slowdown.slowdown`).  Ratios are SYN / ASY of the total CCT on the same
instance, for twin schedulers (same priority rule) and for the seed's pairing SYN-MMF against
ASY-Sinkhorn.

Instances: a 16 x 16 big switch (unit capacities) and a 4 x 4-host leaf-spine with 2 spines at
full bisection after the seed's equivalent-topology transform (leaf uplinks of capacity 2
split into 2 unit links each: the leaf-spine builder's capacities as they are, integers);
traffic "flows" (every coflow one flow: the seed's own flow-level setting) and "coflows"
(2-4 senders x 2-4 receivers per coflow); uniform destinations or incast (every flow to one
host); sizes exponential with mean 31 packets (46 kB / 1500 B, the seed's Facebook flow
sizes) rounded up; releases a Poisson process at byte load 0.5 or 0.8 per host link, rounded
down to whole slots (SYN starts at slot boundaries); seeds 0..S-1.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from coflowopt import Instance
from coflowopt.api import run_schedule
from coflowopt.normalization import normalize_flows
from coflowopt.packetization import slot_efficiency
from coflowopt.simulate import simulate
from coflowopt.slotted_greedy import run_slotted
from coflowopt.slowdown import slowdown
from coflowopt.topology import leaf_spine, on_topology
from coflowopt.verify import verify_schedule

ROOT = Path(__file__).resolve().parent
MTU = 1500
MEAN_PACKETS = 31          # 46 kB / 1500 B (seed 002, Sec. III-A: Facebook flow sizes)
MIXES = ("fixed", "bimodal", "mss-ack")
SYN = {"syn-ocf": ("ocf", {}), "syn-srjf": ("srjf", {}), "syn-mmf": ("mmf", {}),
       "syn-bssi": ("order", {"ordering": "bssi"})}
ASY = {"asy-maxmin": dict(policy="fair"), "asy-sinkhorn": "sinkhorn",
       "asy-srtf": dict(policy="priority"), "asy-fifo": dict(order="fifo", rates="greedy"),
       "asy-bssi": dict(order="bssi", rates="greedy")}
TWINS = [("syn-ocf", "asy-fifo"), ("syn-srjf", "asy-srtf"), ("syn-mmf", "asy-maxmin"),
         ("syn-bssi", "asy-bssi"), ("syn-mmf", "asy-sinkhorn")]


class SinkhornPolicy:
    """ASY with the seed's Sinkhorn rate normalisation (Sec. II-B and III-B): every backlogged
    flow offers the rate it would take alone (its path's bottleneck capacity), and the offered
    rates are normalised by cap-only Sinkhorn (:func:`coflowopt.normalization.normalize_flows`,
    ``"sinkhorn-cap"``: lines above capacity scaled down, one reading of Sec. III-B), recomputed
    whenever the offered load changes (a release or a flow completion)."""

    reschedule_on = frozenset({"release", "flow_completion"})
    name = "asy-sinkhorn"

    def reset(self, instance):
        self.inst = instance

    def allocate(self, state):
        fl = state.active_flows
        if fl.size == 0:
            return fl, np.zeros(0)
        return fl, np.asarray(normalize_flows(self.inst, "sinkhorn-cap", flows=fl).rates,
                              dtype=float)

    def next_timer(self, state):
        return np.inf


def packet_lengths(mix: str, n: np.ndarray, rng) -> np.ndarray:
    """Bytes of every flow of ``n`` packets under a packet mix (whole packets, one per slot
    in SYN)."""
    if mix == "fixed":
        return n * MTU
    if mix == "mss-ack":          # MSS, ACK, MSS, ACK, ... (Sec. III-F.2)
        return (n + 1) // 2 * MTU + n // 2 * 40
    if mix == "bimodal":          # P(40 B) = 0.4, P(1500 B) = 0.6 (Sec. III-A)
        big = rng.binomial(n, 0.6)
        return big * MTU + (n - big) * 40
    raise ValueError(mix)


def draw(traffic: str, pattern: str, K: int, seed: int):
    """One instance drawn as packets: coflows as (src, dst, packets) lists, and unit
    exponential inter-arrival gaps (scaled to a load by :func:`releases`)."""
    rng = np.random.default_rng(seed)
    H = 16
    coflows = []
    for _ in range(K):
        if traffic == "flows":
            s = int(rng.integers(H))
            d = H - 1 if pattern == "incast" else int((s + rng.integers(1, H)) % H)
            if pattern == "incast" and s == d:
                s = int(rng.integers(H - 1))
            pairs = [(s, d)]
        else:
            m, r = int(rng.integers(2, 5)), int(rng.integers(2, 5))
            if pattern == "incast":
                srcs = rng.choice(H - 1, size=m, replace=False)
                pairs = [(int(a), H - 1) for a in srcs]
            else:
                srcs = rng.choice(H, size=m, replace=False)
                dsts = rng.choice(H, size=r, replace=False)
                pairs = [(int(a), int(b)) for a in srcs for b in dsts if a != b] or \
                    [(int(srcs[0]), int((srcs[0] + 1) % H))]
        n = np.maximum(1, np.ceil(rng.exponential(MEAN_PACKETS, size=len(pairs)))).astype(int)
        coflows.append([(a, b, int(x)) for (a, b), x in zip(pairs, n)])
    return coflows, rng.exponential(1.0, size=K)


def releases(gaps, nbytes, pattern: str, load: float) -> np.ndarray:
    """Poisson releases at byte load ``load`` per host link: the unit gaps scaled so that the
    busiest host link (the hot spot under incast, else the average host) receives ``load``
    MTU-slots of bytes per slot on average; whole slots (SYN starts at slot boundaries)."""
    work = float(np.sum(nbytes)) / MTU
    hosts = 1 if pattern == "incast" else 16
    span = work / (load * hosts)
    return np.floor((np.cumsum(gaps) - gaps[0]) * span / len(gaps))


def build(network: str, coflows, release, sizes) -> Instance:
    """The instance with the given per-flow sizes (packets for SYN, bytes / MTU for ASY)."""
    it = iter(sizes)
    inst = Instance.from_coflows(
        [{"id": f"C{k}", "release": float(release[k]),
          "flows": [(a, b, next(it)) for (a, b, _) in c]} for k, c in enumerate(coflows)],
        num_ingress=16, num_egress=16)
    if network == "leaf-spine":
        inst = on_topology(inst, leaf_spine(4, 2, 4, oversubscription=1.0), routing="ecmp",
                           seed=0)
    return inst


def one_instance(network, traffic, pattern, load, K, seed):
    coflows, gaps = draw(traffic, pattern, K, seed)
    n = np.array([x for c in coflows for (_, _, x) in c])
    rows = []
    for mix in MIXES:
        rng = np.random.default_rng(10_000 + seed)
        nbytes = packet_lengths(mix, n, rng)
        release = releases(gaps, nbytes, pattern, load)
        syn_inst = build(network, coflows, release, [int(x) for x in n])
        asy_inst = build(network, coflows, release, [float(b) / MTU for b in nbytes])
        alone = asy_inst.flow_size / asy_inst.flow_bottleneck_capacity
        rel_f = np.repeat(asy_inst.release, np.diff(asy_inst.flow_ptr))
        res = {}
        for name, (prio, params) in SYN.items():
            sched, rep = run_slotted(syn_inst, prio, **params)
            if not rep.ok:
                raise AssertionError(f"{name} failed the integral verifier: "
                                     f"{rep.violations[:2]}")
            res[name] = (np.array([float(c) for c in rep.coflow_completion]),
                         np.array([float(c) for c in rep.flow_completion]))
        for name, how in ASY.items():
            if how == "sinkhorn":
                rep = verify_schedule(asy_inst, simulate(asy_inst, SinkhornPolicy()).schedule)
            else:
                rep = run_schedule(asy_inst, **how).report
            if not rep.ok:
                raise AssertionError(f"{name} failed the verifier: {rep.summary()}")
            res[name] = (np.asarray(rep.coflow_completion, dtype=float),
                         np.asarray(rep.flow_completion, dtype=float))
        for name, (cc, fc) in res.items():
            nf = slowdown(fc, rel_f, alone)
            rows.append({"network": network, "traffic": traffic, "pattern": pattern,
                         "load": load, "K": K, "seed": seed, "mix": mix, "algorithm": name,
                         "total_cct": float(np.sum(cc - asy_inst.release)),
                         "mean_nfct": float(np.mean(nf)),
                         "p99_nfct": float(np.quantile(nf, 0.99)),
                         "makespan": float(np.max(cc))})
    return rows


def summarise(rows):
    """Per (network, traffic, pattern, load, mix): mean over seeds of the SYN / ASY total-CCT
    ratio for every twin pairing, the worst ratio, and the mean normalised FCT per scheduler."""
    from collections import defaultdict
    by = defaultdict(dict)
    for r in rows:
        key = (r["network"], r["traffic"], r["pattern"], r["load"], r["mix"], r["seed"])
        by[key][r["algorithm"]] = r
    cells = defaultdict(lambda: defaultdict(list))
    for key, algs in by.items():
        cell = key[:5]
        for s, a in TWINS:
            cells[cell][f"{s}/{a}"].append(algs[s]["total_cct"] / algs[a]["total_cct"])
        for name, r in algs.items():
            cells[cell][f"nfct:{name}"].append(r["mean_nfct"])
    out = []
    for cell, vals in sorted(cells.items()):
        d = {"network": cell[0], "traffic": cell[1], "pattern": cell[2], "load": cell[3],
             "mix": cell[4], "instances": len(next(iter(vals.values())))}
        for k, v in vals.items():
            d[k] = {"mean": float(np.mean(v)), "max": float(np.max(v)),
                    "min": float(np.min(v))}
        out.append(d)
    return out


def markdown(summary, meta) -> str:
    lines = [f"# SYN (slotted) vs ASY (fluid): total CCT ratio SYN / ASY",
             "", f"Generated by `experiments/syn_asy_slotted_study.py` ({meta['instances']} "
             f"instances x {len(MIXES)} packet mixes, {meta['seconds']:.0f} s, commit "
             f"{meta['commit']}).  Every schedule verified (slotted: exact integers; fluid: "
             "the float verifier).  Cell: mean over seeds (max).", "",
             "| network | traffic | pattern | load | mix | OCF/FIFO | SRJF/SRTF | MMF/max-min "
             "| BSSI/BSSI | MMF/Sinkhorn | nFCT SYN-MMF | nFCT ASY-max-min | nFCT ASY-Sinkhorn |",
             "|---|---|---|---:|---|---|---|---|---|---|---:|---:|---:|"]
    for d in summary:
        def c(k):
            return f"{d[k]['mean']:.3f} ({d[k]['max']:.3f})"
        lines.append(
            f"| {d['network']} | {d['traffic']} | {d['pattern']} | {d['load']} | {d['mix']} | "
            f"{c('syn-ocf/asy-fifo')} | {c('syn-srjf/asy-srtf')} | {c('syn-mmf/asy-maxmin')} | "
            f"{c('syn-bssi/asy-bssi')} | {c('syn-mmf/asy-sinkhorn')} | "
            f"{d['nfct:syn-mmf']['mean']:.2f} | {d['nfct:asy-maxmin']['mean']:.2f} | "
            f"{d['nfct:asy-sinkhorn']['mean']:.2f} |")
    lines += ["", "Slot efficiencies (`coflowopt.packetization.slot_efficiency`): bimodal "
              f"{slot_efficiency('bimodal')} = {float(slot_efficiency('bimodal')):.4f}, MSS + ACK "
              f"{slot_efficiency('mss-ack')} = {float(slot_efficiency('mss-ack')):.4f}.", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a smoke run: 2 seeds, one load")
    ap.add_argument("--seeds", type=int, default=8, help="seeds per cell (default 8)")
    ap.add_argument("--out", default=str(ROOT / "results" / "syn_asy_slotted"),
                    help="output path without extension")
    args = ap.parse_args(argv)
    seeds = 2 if args.quick else args.seeds
    loads = (0.8,) if args.quick else (0.5, 0.8)
    t0 = time.perf_counter()
    rows = []
    n_inst = 0
    for network in ("big-switch", "leaf-spine"):
        for traffic, K in (("flows", 40), ("coflows", 12)):
            for pattern in ("uniform", "incast"):
                for load in loads:
                    for seed in range(seeds):
                        rows += one_instance(network, traffic, pattern, load, K, seed)
                        n_inst += 1
                    print(f"{network} {traffic} {pattern} load {load}: "
                          f"{time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    import subprocess
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=ROOT).stdout.strip()
    meta = {"instances": n_inst, "seconds": time.perf_counter() - t0, "commit": commit,
            "seeds": seeds, "loads": list(loads)}
    summary = summarise(rows)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps({"meta": meta, "summary": summary,
                                                     "rows": rows}, indent=1))
    out.with_suffix(".md").write_text(markdown(summary, meta))
    print(markdown(summary, meta))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
