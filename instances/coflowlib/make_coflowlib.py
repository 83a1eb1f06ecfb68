#!/usr/bin/env python3
"""Build CoflowLib (``instances/coflowlib/``): instances, best schedules, certificates, manifest.

Run from the repository root::

    python instances/coflowlib/make_coflowlib.py            # the whole release (v1)
    python instances/coflowlib/make_coflowlib.py --family bs4-unit --seeds 3   # a trial

Families of release v1 (objective ``sum_k w_k C_k``, fluid model):

* ``papers``: every instance of ``instances/papers/`` (the papers' worked examples; provenance
  in their sidecars), referenced in place;
* ``adversarial``: the fluid adversarial finds of ``instances/adversarial/``, in place;
* ``bs4-*`` and ``bs8-*``: random big switches from
  ``coflowopt.generators.uniform_random(m, 8, seed=s, ...)`` with ``m = 4`` (1-4 flows per
  coflow) or ``m = 8`` (1-8 flows per coflow), integer sizes 1-10, seeds ``0..29``, in five
  variants: ``unit`` (unit weights and capacities, releases 0), ``weights`` (integer weights
  1-5), ``releases`` (integer releases 0-5), ``hetcap`` (integer capacities 1-3 per port),
  ``mixed`` (all three);
* ``bs4k12-weights``: the harder one, ``uniform_random(4, 12, seed=s, weights=(1, 5))`` (12
  coflows, 1-4 flows each, integer sizes 1-10), seeds ``0..29``;
* ``ls222-*`` and ``ft4-*``: topologies (instance format version 2, flows over links):
  ``coflowopt.generators.leaf_spine_coflows(2, 2, 2, 8, oversubscription=2, ...)`` (a 2-leaf,
  2-spine, 4-host leaf-spine at 2:1 oversubscription, 16 directed links) and
  ``fat_tree_coflows(4, 8, ...)`` (the k = 4 fat-tree, 16 hosts, 64 directed links), 1-4
  flows per coflow, integer sizes 1-10, ECMP routing (seed 0), seeds ``0..29``, variants
  ``unit`` and ``mixed`` (weights 1-5 and releases 0-5; the capacities are the topology's).

Every instance is solved by ``bnb`` (time limit ``--time-limit``, default 20 s,
``seed_bounds=False``) with ``certificate_nodes=True``.  Proved exactly: status ``optimal``,
the exact schedule and the certificate of the optimum
(``coflowopt.certificate_files.optimum_certificate``), confirmed here by
``tools/check_certificate.py`` before anything is written.  Otherwise: status ``open`` with
bnb's best verified schedule and the ``ordering-lp`` lower bound's certificate (the best bound
with a file form), and the gap ``best / bound``.  Nothing is written for an instance whose
schedule or certificate does not check.

Baselines: every instance also records the value of the heuristics in :data:`BASELINES` (order
+ rate allocation, schedule verified in float mode) and its ratio to the best known value, so
that ``coflowopt lib status`` can rank them per family.  ``--baselines`` recomputes only these
for the stored instances.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RELEASE = "v1"
SEEDS = 30
VARIANTS = {
    "unit": {},
    "weights": {"weights": (1, 5)},
    "releases": {"releases": (0, 5)},
    "hetcap": {"capacities": (1, 3)},
    "mixed": {"weights": (1, 5), "releases": (0, 5), "capacities": (1, 3)},
}
SWITCHES = {"bs4": (4, (1, 4)), "bs8": (8, (1, 8))}
NUM_COFLOWS = 8
#: The heuristics whose ratio to the best known value is recorded (order, rate allocation).
BASELINES = (("bssi", "greedy"), ("ordering-lp", "greedy"), ("sebf", "madd"),
             ("fifo", "greedy"))


def baselines(inst, best: float) -> dict:
    """``{"order+rates": {"value", "ratio"}}``: verified (float mode) heuristic schedules."""
    import coflowopt.orderings  # noqa: F401 (registers)
    import coflowopt.rates  # noqa: F401
    from coflowopt.registry import get_algorithm
    from coflowopt.verify import verify_schedule
    out = {}
    for o, r in BASELINES:
        order = get_algorithm("ordering", o).func(inst)
        sched = get_algorithm("rates", r).func(inst, order)
        rep = verify_schedule(inst, sched)
        assert rep.ok, f"{o}+{r}: the verifier rejected the schedule"
        v = float(rep.weighted_completion_time)
        out[f"{o}+{r}"] = {"value": v, "ratio": v / best if best > 0 else None}
    return out


def random_families() -> dict:
    fams = {}
    for sw, (m, fpc) in SWITCHES.items():
        for var, kw in VARIANTS.items():
            params = {"num_ports": m, "num_coflows": NUM_COFLOWS, "flows_per_coflow": list(fpc),
                      "size": [1, 10], "integer_sizes": True,
                      **{k: list(v) for k, v in kw.items()}}
            fams[f"{sw}-{var}"] = {
                "description": f"{m}x{m} big switch, {NUM_COFLOWS} coflows, {fpc[0]}-{fpc[1]} "
                               f"flows each, integer sizes 1-10, variant {var!r}",
                "source": {"generator": "coflowopt.generators.uniform_random",
                           "params": params, "seeds": list(range(SEEDS))},
                "version": 1}
    fams["bs4k12-weights"] = {
        "description": "4x4 big switch, 12 coflows, 1-4 flows each, integer sizes 1-10, "
                       "integer weights 1-5 (the harder family)",
        "source": {"generator": "coflowopt.generators.uniform_random",
                   "params": {"num_ports": 4, "num_coflows": 12, "flows_per_coflow": [1, 4],
                              "size": [1, 10], "integer_sizes": True, "weights": [1, 5]},
                   "seeds": list(range(SEEDS))},
        "version": 1}
    return fams


TOPOLOGIES = {
    "ls222": ("coflowopt.generators.leaf_spine_coflows",
              {"leaves": 2, "spines": 2, "hosts_per_leaf": 2, "oversubscription": 2},
              "2-leaf 2-spine leaf-spine, 2 hosts per leaf, 2:1 oversubscription"),
    "ft4": ("coflowopt.generators.fat_tree_coflows", {"k": 4}, "k = 4 fat-tree, 16 hosts"),
}
TOPOLOGY_VARIANTS = {"unit": {}, "mixed": {"weights": (1, 5), "releases": (0, 5)}}


def topology_families() -> dict:
    fams = {}
    for tp, (gen, base, words) in TOPOLOGIES.items():
        for var, kw in TOPOLOGY_VARIANTS.items():
            params = {**base, "num_coflows": NUM_COFLOWS, "flows_per_coflow": [1, 4],
                      "size": [1, 10], "integer_sizes": True, "routing": "ecmp",
                      "routing_seed": 0, **{k: list(v) for k, v in kw.items()}}
            fams[f"{tp}-{var}"] = {
                "description": f"{words}; {NUM_COFLOWS} coflows of 1-4 host-to-host flows, "
                               f"integer sizes 1-10, ECMP routing, variant {var!r}",
                "source": {"generator": gen, "params": params, "seeds": list(range(SEEDS))},
                "version": 1}
    return fams


def build_random(fam: dict, seed: int):
    import coflowopt.generators as g
    p = {k: tuple(v) if isinstance(v, list) else v for k, v in fam["source"]["params"].items()}
    gen = fam["source"]["generator"].rsplit(".", 1)[1]
    if gen == "uniform_random":
        m, K = p.pop("num_ports"), p.pop("num_coflows")
        return g.uniform_random(m, K, seed=seed, **p)
    return getattr(g, gen)(seed=seed, **p)


def folder_instances(sub: str) -> list[Path]:
    return sorted(p for p in (ROOT / "instances" / sub).glob("*.json")
                  if not p.name.endswith((".provenance.json", ".schedule.json")))


def solve(inst, time_limit: float, checker) -> tuple[dict, dict, object]:
    """(manifest fields, certificate, schedule) of one instance, everything checked."""
    from coflowopt.certificate_files import (lower_bound_certificate, optimum_certificate)
    from coflowopt.exact.branch_and_bound import bnb
    from coflowopt.formats.instance_json import dumps_instance
    import coflowopt.bounds  # noqa: F401 (registers the bounds)
    from coflowopt.registry import get_algorithm
    from coflowopt.verify import verify_schedule
    t0 = time.perf_counter()
    res = bnb(inst, time_limit=time_limit, certificate_nodes=True, seed_bounds=False)
    t_bnb = time.perf_counter() - t0
    rep = verify_schedule(inst, res.schedule, mode="exact")
    assert rep.ok, "bnb's schedule must verify"
    best = Fraction(rep.weighted_completion_time)
    cert, status, refused = None, "open", None
    if res.kind == "optimal" and res.certificate_status == "proved exactly":
        try:
            cert = optimum_certificate(inst, res)
            status = "optimal"
        except Exception as e:  # noqa: BLE001 - recorded; the instance stays open
            refused = str(e)
    if cert is None:
        lb = get_algorithm("bound", "ordering-lp").func(inst)
        cert = lower_bound_certificate(inst, lb)
    idoc = json.loads(dumps_instance(inst))
    checker.check(idoc, json.loads(json.dumps(cert)))   # raises if it does not check
    bound = Fraction(cert["claim"]["value"])
    fields = {
        "status": status, "coflows": inst.num_coflows, "flows": inst.num_flows,
        "best": {"value": str(best), "value_float": float(best),
                 "algorithm": "bnb" + ("" if status == "optimal" else f" ({res.status})")},
        "bound": {"value": str(bound), "value_float": float(bound),
                  "source": "optimum certificate" if status == "optimal" else
                  f"{cert['claim']['algorithm']} certificate"},
        "gap": float(best / bound) if bound > 0 else None,
        "seconds": {"bnb": round(t_bnb, 3), "total": round(time.perf_counter() - t0, 3)},
    }
    if refused:
        fields["certificate_refused"] = refused
    if status == "optimal":
        fields["proof_nodes"] = len(cert["proof"]["nodes"])
    return fields, cert, res.schedule


def main(argv=None) -> int:
    sys.path.insert(0, str(ROOT))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--family", action="append", help="only these families")
    ap.add_argument("--seeds", type=int, default=SEEDS, help="seeds per random family")
    ap.add_argument("--time-limit", type=float, default=20.0)
    ap.add_argument("--out", default=str(HERE), help="library folder (default: this one)")
    ap.add_argument("--baselines", action="store_true",
                    help="only recompute the baselines of the stored instances")
    args = ap.parse_args(argv)
    from coflowopt import __version__
    from coflowopt.coflowlib import MANIFEST, MANIFEST_FORMAT, load_checker, save_manifest
    from coflowopt.formats.instance_json import read_instance_json, write_instance_json
    from coflowopt.formats.schedule_io import write_schedule_json
    checker = load_checker()
    out = Path(args.out)
    if args.baselines:
        from coflowopt.coflowlib import load_manifest
        m = load_manifest(out)
        for iid, e in sorted(m["instances"].items()):
            if args.family and e["family"] not in args.family:
                continue
            inst = read_instance_json(out / e["instance"])
            e["baselines"] = baselines(inst, float(Fraction(e["best"]["value"])))
        save_manifest(m, out)
        print(f"baselines of {len(m['instances'])} instances updated")
        return 0
    fams = {
        "papers": {"description": "the papers' worked examples (instances/papers/, provenance "
                                  "in their .provenance.json sidecars)",
                   "source": {"folder": "instances/papers"}, "version": 1},
        "adversarial": {"description": "fluid adversarial finds (instances/adversarial/, "
                                       "search records in their sidecars)",
                        "source": {"folder": "instances/adversarial"}, "version": 1},
        **random_families(), **topology_families()}
    if args.family:
        unknown = set(args.family) - set(fams)
        if unknown:
            ap.error(f"unknown families {sorted(unknown)}; known: {sorted(fams)}")
        fams = {k: v for k, v in fams.items() if k in args.family}
    old = {}
    if (out / MANIFEST).is_file():
        old = json.loads((out / MANIFEST).read_text())
    manifest = {"format": MANIFEST_FORMAT, "version": 1, "release": RELEASE,
                "objective": "weighted_completion_time", "model": "fluid",
                "generator": "instances/coflowlib/make_coflowlib.py",
                "coflowopt_version": __version__,
                "checker": "tools/check_certificate.py",
                "families": {**old.get("families", {}), **fams},
                "instances": {k: v for k, v in old.get("instances", {}).items()
                              if v["family"] not in fams}}
    t_all = time.perf_counter()
    for fam, spec in fams.items():
        jobs = []
        if "folder" in spec["source"]:
            for p in folder_instances(spec["source"]["folder"].split("/", 1)[1]):
                jobs.append((f"{fam}/{p.stem}", read_instance_json(p),
                             Path("..") / p.parent.name / p.name))
        else:
            for s in range(min(args.seeds, SEEDS)):
                jobs.append((f"{fam}/{fam}-{s:03d}", build_random(spec, s), None))
        (out / RELEASE / fam).mkdir(parents=True, exist_ok=True)
        for iid, inst, ref in jobs:
            fields, cert, sched = solve(inst, args.time_limit, checker)
            stem = out / RELEASE / iid
            if ref is None:
                write_instance_json(inst, str(stem) + ".instance")
                ipath = f"{RELEASE}/{iid}.instance"
            else:
                ipath = ref.as_posix()
            with open(str(stem) + ".certificate", "w", encoding="utf-8") as fh:
                json.dump(cert, fh, separators=(",", ":"))
            write_schedule_json(sched, inst, str(stem) + ".best.schedule.json")
            fields["best"]["schedule"] = f"{RELEASE}/{iid}.best.schedule.json"
            fields["baselines"] = baselines(inst, fields["best"]["value_float"])
            manifest["instances"][iid] = {"family": fam, "instance": ipath,
                                          "certificate": f"{RELEASE}/{iid}.certificate",
                                          **fields}
            print(f"{iid}: {fields['status']} {fields['best']['value']} gap {fields['gap']:.6g} "
                  f"({fields['seconds']['total']:.2f} s)", flush=True)
    manifest["build_seconds"] = round(time.perf_counter() - t_all, 1)
    save_manifest(manifest, out)
    n = len(manifest["instances"])
    solved = sum(1 for e in manifest["instances"].values() if e["status"] == "optimal")
    print(f"CoflowLib {RELEASE}: {n} instances, {solved} proven optimal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
