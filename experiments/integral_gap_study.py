"""The integrality gap of the matching model on small random instances (issue 12, item 5).

Run:  python experiments/integral_gap_study.py [--instances 300] [--seed 0] [--workers 2]
                                               [--mip-time-limit 30] [--bnb-time-limit 30]
                                               [--budget 1380] [--store instances/integral-gap]
                                               [--quick]
      (outputs: experiments/results/integral_gap.json and .md; with --store, the instance of
      the largest ratio of each kind with its provenance, as instances/adversarial/ stores its
      instances: instances/integral-gap/README.md)

The family: a 4x4 big switch with unit capacities; 4 to 7 coflows (uniform); each coflow 1 to
4 flows on distinct (ingress, egress) pairs, sizes uniform in 1..5, weight 1; zero releases,
except on the instances with index ``i % 10 < 3`` (30 %), whose coflows get integer releases
uniform in ``0..--release-max`` (4).  Instance ``i`` is drawn from
``numpy.random.default_rng([seed, i])``, so any one of them can be rebuilt alone
(:func:`instance_for`); the stored entries keep their flows in their study record.

On every instance, in one worker process:

* **fluid OPT**: the registry's exact ``bnb`` (the fluid model, proved: kind ``optimal``),
  ``--bnb-time-limit`` seconds;
* **integral OPT**: the registry's exact ``integral-mip`` (the integral matching model, slot 1:
  whole units per slot and port, one matching per slot here), ``--mip-time-limit`` seconds;
  its schedule is re-verified with :func:`coflowopt.slotted.verify_slotted` (exact integers) at
  exactly its value, and its proof is recorded (``proved exactly``: a certified bound meets the
  value; ``proved by HiGHS``: the floating-point MIP bound, labelled);
* **slotted BSSI**: the registered slotted algorithm ``slotted-order`` in BSSI's order (a
  greedy maximal matching per slot in BSSI order), verified by ``verify_slotted``;
* for context, the fluid BSSI + greedy schedule (``bssi+greedy``, verified).

An instance whose fluid or integral optimum is not proved within its limit is skipped from
the ratios and **counted** (``unproved``).  Reported: integral OPT / fluid OPT and slotted BSSI
/ integral OPT (exact rationals, also as floats), their distributions overall and by releases
and by K, and the instances with the largest ratios.  A ratio below 1 (integral OPT < fluid
OPT, or a slotted schedule below the integral optimum) stops the study: it would be a bug.

The search (``--search-evaluations N``, after the sample): a hill climbing with restarts over
the adversarial search's genomes (:mod:`coflowopt.adversarial.search`: ``random_genome`` and
``mutate`` on a 4x4 unit-capacity fabric, ``--search-coflows`` coflows, sizes 1-5, weights 1,
zero releases) maximising integral OPT / fluid OPT, both proved (an unproved candidate is
skipped and counted); restarts start from the incumbent's kick half the time.  (The study predates
``coflowopt adversarial --model integral``, which now runs such searches with the command's
scorer, report and writer; this loop, kept for the page's figures, reuses the search's genome
and moves with the study's objective.)

Sizing: ``--instances`` is the sample; ``--budget`` (wall seconds) stops handing out new
instances when exceeded (the report says how many were done; the default 1380 s keeps a run
under about 25 minutes on the shared 2-core machine).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PORTS = 4
#: the sidecar format of a stored entry (``<stem>.study.provenance.json``)
STUDY_FORMAT = "coflowopt-integral-gap-study"


# ------------------------------------------------------------------------------- instances
def flows_for(index: int, seed: int, release_max: int = 4) -> dict:
    """The recipe of instance ``index``: ``{"flows": [[k, i, j, size], ...], "release": [...],
    "K": K, "releases": bool}`` (see the module docstring)."""
    rng = np.random.default_rng([seed, index])
    K = int(rng.integers(4, 8))
    flows = []
    for k in range(K):
        nf = int(rng.integers(1, 5))
        cells = rng.choice(PORTS * PORTS, size=nf, replace=False)
        for c in sorted(int(x) for x in cells):
            flows.append([k, c // PORTS, c % PORTS, int(rng.integers(1, 6))])
    with_rel = index % 10 < 3
    rel = [int(x) for x in rng.integers(0, release_max + 1, K)] if with_rel else [0] * K
    return {"index": index, "seed": seed, "K": K, "releases": with_rel, "release": rel,
            "flows": flows}


def build(recipe: dict, name: str | None = None):
    """The :class:`~coflowopt.instance.Instance` of a recipe: coflow ``k`` is ``C{k+1}``."""
    from coflowopt import Instance
    f = np.asarray(recipe["flows"], dtype=np.int64).reshape(-1, 4)
    K = recipe["K"]
    return Instance.from_arrays(
        ingress_capacity=np.ones(PORTS), egress_capacity=np.ones(PORTS),
        coflow_ids=[f"C{k + 1}" for k in range(K)], flow_coflow=f[:, 0], flow_src=f[:, 1],
        flow_dst=f[:, 2], flow_size=f[:, 3].astype(float),
        release=np.asarray(recipe["release"], dtype=float),
        meta={"name": name or f"integral-gap seed {recipe['seed']} instance "
                              f"{recipe['index']}"})


def instance_for(index: int, seed: int = 0, release_max: int = 4):
    """Instance ``index`` of the study with ``seed`` (rebuilt alone)."""
    return build(flows_for(index, seed, release_max))


# ------------------------------------------------------------------------------- one instance
def _warm_up() -> None:
    from coflowopt.registry import get_algorithm
    from coflowopt.slotted_greedy import slotted_order
    inst = build(flows_for(0, 12345))
    get_algorithm("exact", "bnb").func(inst, time_limit=10)
    slotted_order(inst)


def evaluate(recipe: dict, mip_time_limit: float, bnb_time_limit: float) -> dict:
    """Everything the study measures on one instance (run in a worker)."""
    from coflowopt.api import run_schedule
    from coflowopt.registry import get_algorithm
    from coflowopt.slotted import verify_slotted
    from coflowopt.slotted_greedy import slotted_order
    inst = build(recipe)
    out: dict = {"index": recipe["index"], "K": recipe["K"], "releases": recipe["releases"],
                 "flows": len(recipe["flows"])}
    c0, t0 = time.process_time(), time.perf_counter()
    fl = get_algorithm("exact", "bnb").func(inst, time_limit=bnb_time_limit)
    out["fluid_opt"] = {"kind": fl.kind, "status": fl.status,
                        "value": None if fl.value is None else str(Fraction(fl.value)),
                        "proof": fl.certificate_status,
                        "seconds": round(time.perf_counter() - t0, 4)}
    t1 = time.perf_counter()
    ig = get_algorithm("exact", "integral-mip").func(inst, time_limit=mip_time_limit)
    rep = verify_slotted(inst, ig.schedule)
    if ig.kind is not None and (not rep.ok or rep.weighted_completion_time != ig.value):
        raise AssertionError(f"instance {recipe['index']}: integral-mip's schedule does not "
                             f"verify at {ig.value}: {rep.summary()}")
    ex = ig.extra or {}
    out["integral_opt"] = {"kind": ig.kind, "status": ig.status,
                           "value": None if ig.value is None else str(Fraction(ig.value)),
                           "bound": None if ig.bound is None else str(Fraction(ig.bound)),
                           "proof": ig.certificate_status,
                           "bound_source": (ig.certificate or {}).get("bound_source"),
                           "incumbent_source": ex.get("incumbent_source"),
                           "mip_status": ex.get("mip_status", "not_run"),
                           "seconds": round(time.perf_counter() - t1, 4)}
    t2 = time.perf_counter()
    s = slotted_order(inst, ordering="bssi")
    srep = verify_slotted(inst, s)
    if not srep.ok:
        raise AssertionError(f"instance {recipe['index']}: slotted BSSI rejected: "
                             f"{srep.summary()}")
    out["slotted_bssi"] = {"value": str(srep.weighted_completion_time), "order": s.meta["order"],
                           "seconds": round(time.perf_counter() - t2, 4)}
    fb = run_schedule(inst, "bssi", "greedy")
    out["fluid_bssi"] = {"value": float(fb.value), "kind": fb.kind}
    out["seconds"] = round(time.perf_counter() - t0, 4)
    out["cpu_seconds"] = round(time.process_time() - c0, 4)
    return out


def _worker_init() -> None:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    _warm_up()


def _job(args):
    recipe, mip_tl, bnb_tl = args
    try:
        return evaluate(recipe, mip_tl, bnb_tl)
    except Exception as e:  # recorded, and the study stops on it in the parent
        return {"index": recipe["index"], "error": f"{type(e).__name__}: {e}"}


# ------------------------------------------------------------------------------- the search
def genome_recipe(g, seed: int, label: str) -> dict:
    """A recipe (as :func:`flows_for` returns) of an adversarial-search genome: flows in
    (coflow, ingress, egress) order, as ``Genome.instance`` lists them."""
    k, i, j = np.nonzero(g.sizes)
    flows = [[int(a), int(b), int(c), int(g.sizes[a, b, c])] for a, b, c in zip(k, i, j)]
    rel = [int(x) for x in g.release]
    return {"index": label, "seed": seed, "K": int(g.sizes.shape[0]),
            "releases": any(rel), "release": rel, "flows": flows}


def gap_search(*, seed: int, evaluations: int, seconds: float, coflows: int,
               mip_time_limit: float, bnb_time_limit: float, release_max: int = 0,
               patience: int = 25) -> dict:
    """Hill climbing with restarts on integral OPT / fluid OPT (module docstring)."""
    from coflowopt.adversarial.search import SearchSpace, mutate, random_genome
    from coflowopt.registry import get_algorithm
    space = SearchSpace(ports=PORTS, coflows=coflows, size_max=5, max_flows=4,
                        release_max=release_max)
    rng = np.random.default_rng([seed, 1])
    cache: dict = {}
    counts = {"evaluations": 0, "scored": 0, "unproved": 0, "cache_hits": 0}
    best = {"ratio": None, "genome": None, "evaluation": None}
    history = []
    t0 = time.perf_counter()

    def out_of_budget():
        return counts["evaluations"] >= evaluations or time.perf_counter() - t0 > seconds

    def score(g):
        counts["evaluations"] += 1
        key = g.key()
        if key in cache:
            counts["cache_hits"] += 1
            return cache[key]
        inst = g.instance()
        fl = get_algorithm("exact", "bnb").func(inst, time_limit=bnb_time_limit)
        ig = get_algorithm("exact", "integral-mip").func(inst, time_limit=mip_time_limit)
        r = None
        if fl.kind == "optimal" and ig.kind == "optimal":
            r = Fraction(ig.value) / Fraction(fl.value)
            counts["scored"] += 1
            if r < 1:
                raise SystemExit(f"search: integral OPT {ig.value} < fluid OPT {fl.value}")
            if best["ratio"] is None or r > best["ratio"]:
                best.update(ratio=r, genome=g, evaluation=counts["evaluations"])
                history.append({"evaluation": counts["evaluations"], "ratio": float(r),
                                "ratio_exact": str(r)})
                print(f"  search evaluation {counts['evaluations']}: integral/fluid "
                      f"{float(r):.6f} ({r})", flush=True)
        else:
            counts["unproved"] += 1
        cache[key] = r
        return r

    while not out_of_budget():
        if best["genome"] is not None and rng.random() < 0.5:
            cur = best["genome"]
            for _ in range(3):
                cur = mutate(cur, space, rng)
        else:
            cur = random_genome(space, rng)
        cur_r = score(cur)
        stale = 0
        while not out_of_budget() and stale < patience:
            nb = mutate(cur, space, rng)
            r = score(nb)
            if r is None:
                stale += 1
                continue
            if cur_r is None or r > cur_r:
                cur, cur_r, stale = nb, r, 0
            else:
                if r >= cur_r:
                    cur = nb        # sideways on plateaus (most candidates have no gap)
                stale += 1
    return {"settings": {"seed": seed, "evaluations": evaluations, "seconds": seconds,
                         "space": space.to_dict(), "patience": patience,
                         "mip_time_limit": mip_time_limit, "bnb_time_limit": bnb_time_limit},
            "stats": {**counts, "seconds": round(time.perf_counter() - t0, 2)},
            "best_ratio": None if best["ratio"] is None else float(best["ratio"]),
            "best_ratio_exact": None if best["ratio"] is None else str(best["ratio"]),
            "best_evaluation": best["evaluation"], "history": history,
            "best_recipe": None if best["genome"] is None else
            genome_recipe(best["genome"], seed, "search")}


# ------------------------------------------------------------------------------- ratios
def ratios(row: dict) -> dict:
    """``integral_over_fluid`` and ``slotted_over_integral`` (exact, as strings and floats)
    when both sides are proved; ``{}`` otherwise."""
    fo, io = row["fluid_opt"], row["integral_opt"]
    out = {}
    if io["kind"] == "optimal":
        I = Fraction(io["value"])
        S = Fraction(row["slotted_bssi"]["value"])
        out["slotted_over_integral"] = S / I
        if fo["kind"] == "optimal":
            out["integral_over_fluid"] = I / Fraction(fo["value"])
            out["slotted_over_fluid"] = S / Fraction(fo["value"])
            out["fluid_bssi_over_fluid"] = Fraction(row["fluid_bssi"]["value"]) / \
                Fraction(fo["value"])
    return out


def distribution(xs: list[float]) -> dict:
    if not xs:
        return {"n": 0}
    ys = sorted(xs)

    def q(p):
        return ys[min(len(ys) - 1, int(math.ceil(p * len(ys))) - 1)]
    return {"n": len(ys), "mean": statistics.fmean(ys), "median": statistics.median(ys),
            "p90": q(0.9), "p99": q(0.99), "max": ys[-1],
            "equal_to_1": sum(abs(y - 1) <= 1e-12 for y in ys),
            "above_1.05": sum(y > 1.05 for y in ys), "above_1.1": sum(y > 1.1 for y in ys)}


RATIO_NAMES = {"integral_over_fluid": "integral OPT / fluid OPT",
               "slotted_over_integral": "slotted BSSI / integral OPT",
               "slotted_over_fluid": "slotted BSSI / fluid OPT",
               "fluid_bssi_over_fluid": "fluid BSSI+greedy / fluid OPT"}


def summarise(rows: list[dict]) -> dict:
    ok = [r for r in rows if "error" not in r]
    groups = {"all": ok, "zero releases": [r for r in ok if not r["releases"]],
              "integer releases": [r for r in ok if r["releases"]]}
    for K in range(4, 8):
        groups[f"K={K}"] = [r for r in ok if r["K"] == K]
    out = {}
    for g, rs in groups.items():
        rat = [ratios(r) for r in rs]
        diff: dict[str, int] = {}
        for r in rs:
            if r["fluid_opt"]["kind"] == "optimal" and r["integral_opt"]["kind"] == "optimal":
                d = str(Fraction(r["integral_opt"]["value"]) - Fraction(r["fluid_opt"]["value"]))
                diff[d] = diff.get(d, 0) + 1
        out[g] = {"instances": len(rs),
                  # integral OPT - fluid OPT over the instances with both proved
                  "integral_minus_fluid": dict(sorted(diff.items(), key=lambda t: Fraction(t[0]))),
                  # the slotted greedy in BSSI order and Sincronia's fluid greedy in BSSI order
                  # give the same value (whole sizes, unit capacities, integer releases)
                  "slotted_bssi_equals_fluid_bssi": sum(
                      Fraction(r["slotted_bssi"]["value"]) == Fraction(r["fluid_bssi"]["value"])
                      for r in rs),
                  "fluid_unproved": sum(r["fluid_opt"]["kind"] != "optimal" for r in rs),
                  "integral_unproved": sum(r["integral_opt"]["kind"] != "optimal"
                                           for r in rs),
                  "integral_proved_exactly": sum(r["integral_opt"]["proof"] == "proved exactly"
                                                 for r in rs
                                                 if r["integral_opt"]["kind"] == "optimal"),
                  **{name: distribution([float(x[name]) for x in rat if name in x])
                     for name in RATIO_NAMES}}
    return out


def worst(rows: list[dict], name: str, top: int = 5) -> list[dict]:
    """The ``top`` rows with the largest ratio ``name`` (ties: the smaller index first)."""
    scored = [(ratios(r).get(name), r) for r in rows if "error" not in r]
    scored = [(x, r) for x, r in scored if x is not None]
    scored.sort(key=lambda t: (-t[0], t[1]["index"]))
    return [{"index": r["index"], "ratio": float(x), "ratio_exact": str(x), "K": r["K"],
             "releases": r["releases"], "fluid_opt": r["fluid_opt"]["value"],
             "integral_opt": r["integral_opt"]["value"],
             "integral_proof": r["integral_opt"]["proof"],
             "slotted_bssi": r["slotted_bssi"]["value"]} for x, r in scored[:top]]


# ------------------------------------------------------------------------------- storing
def _git_commit() -> str | None:
    try:
        p = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                           cwd=REPO, timeout=10)
        return p.stdout.strip() or None if p.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def store_entry(kind: str, recipe: dict, settings: dict, out_dir: Path, command: str,
                mip_time_limit: float, bnb_time_limit: float, *, search: dict | None = None
                ) -> dict:
    """Write the instance of the largest ratio ``kind`` with its provenance (the library
    schema, ``instances/README.md``), the claims' schedules and a study sidecar.

    ``kind`` is ``"integral_over_fluid"`` (claims ``integral-opt`` and ``fluid-opt``) or
    ``"slotted_over_integral"`` (claims ``slotted-bssi``, ``integral-opt``, ``fluid-opt``).
    Everything is recomputed here from the recipe (same methods, same limits) and each
    schedule is verified before it is written: a slotted schedule by ``verify_slotted`` and, in
    its fluid form (rate = units per slot), by the fluid verifier in float and exact mode.
    """
    from coflowopt import __version__
    from coflowopt.formats import write_slotted_schedule
    from coflowopt.formats.instance_json import read_instance_json, write_instance_json
    from coflowopt.formats.schedule_io import read_schedule_json, write_schedule_json
    from coflowopt.library import schedule_metrics
    from coflowopt.registry import get_algorithm
    from coflowopt.slotted import verify_slotted
    from coflowopt.slotted_greedy import slotted_order
    from coflowopt.verify import verify_schedule

    K = recipe["K"]
    rel = f"-r{max(recipe['release'])}" if recipe["releases"] else ""
    label = {"integral_over_fluid": "integral_opt-fluid_opt",
             "slotted_over_integral": "slotted_bssi-integral_opt"}[kind]
    where = "-search" if search is not None else f"-i{recipe['index']}"
    stem = f"{label}-{PORTS}x{PORTS}-{K}c{rel}-seed{recipe['seed']}{where}"
    out_dir.mkdir(parents=True, exist_ok=True)
    inst_path = out_dir / f"{stem}.json"
    write_instance_json(build(recipe), inst_path)
    inst = read_instance_json(inst_path)
    fl = get_algorithm("exact", "bnb").func(inst, time_limit=bnb_time_limit)
    ig = get_algorithm("exact", "integral-mip").func(inst, time_limit=mip_time_limit)
    if fl.kind != "optimal" or ig.kind != "optimal":
        raise SystemExit(f"{stem}: an optimum was not proved again ({fl.kind}, {ig.kind})")
    sl = slotted_order(inst, ordering="bssi")
    files = {"instance": inst_path.name}

    def claim(cid, sched, description, value, optimality=None, notes="", slotted=None):
        spath = out_dir / f"{stem}.{cid}.schedule.json"
        write_schedule_json(sched, inst, spath)
        files[f"{cid}_schedule"] = spath.name
        verified = {}
        for mode in ("float", "exact"):
            rep = verify_schedule(inst, read_schedule_json(spath, inst, exact=mode == "exact"),
                                  mode=mode)
            if not rep.ok:
                raise SystemExit(f"{spath}: rejected in {mode} mode: {rep.summary()}")
            verified[mode] = schedule_metrics(inst, rep)
        if Fraction(verified["exact"]["weighted_completion_time"]) != Fraction(value):
            raise SystemExit(f"{spath}: verified value {verified['exact']} != {value}")
        if slotted is not None:
            p = out_dir / f"{stem}.{cid}.slotted.schedule.json"
            write_slotted_schedule(slotted, inst, p)
            srep = verify_slotted(inst, slotted)
            assert srep.ok and srep.weighted_completion_time == Fraction(value)
            files[f"{cid}_slotted_schedule"] = p.name
            notes = (notes + f" The slotted schedule (coflowopt-slotted-schedule, whole units "
                     f"per slot) is {p.name}; `coflowopt verify {stem}.json {p.name}` checks "
                     "it in the integral model. The claim's schedule file is its fluid form "
                     "(each unit sent at rate 1 over its slot).").strip()
        return {"id": cid, "description": description, "tag": "DERIV", "printed": {},
                "derived": {"weighted_completion_time": str(Fraction(value))},
                "status": "verified", "schedule": spath.name, "verified": verified,
                "optimality": optimality, "notes": notes}

    icert = ig.certificate or {}
    claims = []
    if kind == "slotted_over_integral":
        claims.append(claim(
            "slotted-bssi", sl.to_schedule(exact=True),
            "slotted-order in BSSI's order (a greedy maximal matching per slot, whole units), "
            "in the integral matching model", verify_slotted(inst, sl).weighted_completion_time,
            slotted=sl, notes=f"BSSI order {sl.meta['order']} (0-based coflow indices)."))
    claims.append(claim(
        "integral-opt", ig.schedule.to_schedule(exact=True),
        "the optimum of the integral matching model (slot 1, whole units per slot and port: "
        "one matching per slot), proved by coflowopt.exact.integral_mip; not a fluid optimum",
        ig.value, slotted=ig.schedule,
        optimality={"claimed": True, "status": "proved", "argument": (
            f"integral-mip ({ig.certificate_status}): the verified integral value {ig.value} "
            f"equals the bound {ig.bound} ({icert.get('bound_source')}); optimal in the "
            "integral matching model only (formulations/integral_mip.md)")}))
    bnb_search = (fl.extra or {}).get("search", {})
    claims.append(claim(
        "fluid-opt", fl.schedule, "the optimum of the fluid model, proved by "
        "coflowopt.exact.bnb", fl.value,
        optimality={"claimed": True, "status": "proved", "argument": (
            f"coflowopt.exact.bnb: search complete, verified schedule of value {fl.value} "
            f"equal to the proven lower bound {fl.bound} ({fl.certificate_status}; "
            f"{bnb_search.get('nodes_expanded')} nodes expanded); "
            "proofs/completion-order-lp-exact.md")}))
    I, F = Fraction(ig.value), Fraction(fl.value)
    S = verify_slotted(inst, sl).weighted_completion_time
    value = (I / F) if kind == "integral_over_fluid" else (S / I)
    what = RATIO_NAMES[kind]
    prov = {
        "format": "coflowopt-provenance", "version": 1,
        "name": f"{out_dir.name}/{stem}",
        "title": (f"{what} = {float(value):.6f} ({value}) on a 4x4 unit-capacity switch with "
                  f"{K} coflows: the largest "
                  + ("the study's search found" if search is not None else
                     "of the integral gap study's random sample")),
        "instance": inst_path.name,
        "source": {"paper": "coflowopt integral gap study (experiments/integral_gap_study.py)",
                   "location": (f"search seed {recipe['seed']}, evaluation "
                                f"{search['best_evaluation']} of "
                                f"{search['stats']['evaluations']}") if search is not None
                   else (f"seed {recipe['seed']}, instance {recipe['index']} of "
                         f"{settings['instances_done']}"),
                   "digest": "none: generated", "tag": "DERIV"},
        "construction": ("random integer flow sizes 1-5 on a unit-capacity 4x4 big switch "
                         "(1-4 flows per coflow on distinct port pairs, weights 1); coflow k "
                         "is C{k+1}, flows in (ingress, egress) order"),
        "assumptions": ["unit port capacities", "objective sum_k w_k C_k",
                        "integral model: slot 1, whole units per slot and port (one matching "
                        "per slot)",
                        "releases 0" if not recipe["releases"] else
                        f"integer releases {recipe['release']}"],
        "units": {"size": "data units", "time": "time units (unit capacity moves one data "
                                                "unit per time unit; one slot per time unit)"},
        "printed": [f"{what} = {float(value):.6f} (weighted completion time; integral OPT "
                    f"{I}, fluid OPT {F}, slotted BSSI {S})"],
        "claims": claims,
        "discrepancies": [],
        "notes": [f"The study record: {stem}.study.provenance.json.",
                  f"Rerun: {command}",
                  "integral-opt and slotted-bssi are schedules of the integral matching model; "
                  "their fluid forms verify in the fluid verifier with the same value, which "
                  "is why an integral optimum can exceed the fluid optimum (fluid-opt)."],
    }
    record = {
        "format": STUDY_FORMAT, "version": 1, "name": f"{out_dir.name}/{stem}",
        "ratio_kind": kind, "ratio_name": what, "ratio": float(value), "ratio_exact": str(value),
        "integral_opt": {"value": str(I), "proof": ig.certificate_status,
                         "bound": str(ig.bound), "certificate": icert,
                         "incumbent_source": (ig.extra or {}).get("incumbent_source"),
                         "mip_status": (ig.extra or {}).get("mip_status", "not_run")},
        "fluid_opt": {"value": str(F), "proof": fl.certificate_status, "bound": str(fl.bound),
                      "nodes_expanded": bnb_search.get("nodes_expanded")},
        "slotted_bssi": {"value": str(S), "order": sl.meta["order"]},
        "recipe": recipe, "settings": settings, "command": command,
        "search": None if search is None else {k: search[k] for k in (
            "settings", "stats", "best_ratio", "best_ratio_exact", "best_evaluation",
            "history")},
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "coflowopt_version": __version__, "git_commit": _git_commit(),
        "files": files,
    }
    (out_dir / f"{stem}.provenance.json").write_text(
        json.dumps(prov, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    (out_dir / f"{stem}.study.provenance.json").write_text(
        json.dumps(record, indent=2, allow_nan=False, default=str) + "\n", encoding="utf-8")
    return {"name": f"{out_dir.name}/{stem}", "ratio": float(value), "ratio_exact": str(value),
            "files": files}


# ------------------------------------------------------------------------------- report
def markdown(doc: dict) -> str:
    st = doc["settings"]
    s = doc["summary"]
    lines = [
        "# Integral gap study: integral OPT / fluid OPT and slotted BSSI / integral OPT",
        "",
        f"{st['instances_done']} random instances (of {st['instances']} planned; seed "
        f"{st['seed']}): {doc['family']}.  Limits per instance: integral-mip "
        f"{st['mip_time_limit']:g} s, bnb {st['bnb_time_limit']:g} s.  "
        f"`{doc['command']}`; {doc['wall_seconds']:.0f} s wall, {doc['cpu_seconds']:.0f} s CPU "
        f"in {st['workers']} worker(s) on {doc['machine']['platform']} (load average at the "
        f"start {doc['machine']['load_start']}).",
        "",
        "| group | instances | fluid OPT unproved | integral OPT unproved | integral proved "
        "exactly | integral/fluid: n | mean | median | p90 | max | > 1 | slotted BSSI/integral: "
        "n | mean | median | p90 | max | = 1 |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for g, row in s.items():
        a, b = row["integral_over_fluid"], row["slotted_over_integral"]

        def f(d, k):
            return "-" if d.get("n", 0) == 0 else f"{d[k]:.4f}"
        lines.append(
            f"| {g} | {row['instances']} | {row['fluid_unproved']} | "
            f"{row['integral_unproved']} | {row['integral_proved_exactly']} | {a['n']} | "
            f"{f(a, 'mean')} | {f(a, 'median')} | {f(a, 'p90')} | {f(a, 'max')} | "
            f"{a['n'] - a.get('equal_to_1', 0) if a['n'] else '-'} | {b['n']} | "
            f"{f(b, 'mean')} | {f(b, 'median')} | {f(b, 'p90')} | {f(b, 'max')} | "
            f"{b.get('equal_to_1', '-')} |")
    ctx = s["all"]
    diff = ", ".join(f"{d}: {n}" for d, n in ctx["integral_minus_fluid"].items())
    lines += ["", f"integral OPT - fluid OPT over the {ctx['integral_over_fluid']['n']} "
              f"instances with both proved (value: instances): {diff}.  Slotted BSSI = fluid "
              f"BSSI+greedy on {ctx['slotted_bssi_equals_fluid_bssi']} of "
              f"{ctx['instances']} instances."]
    lines += ["", "For context (same instances, both optima proved): slotted BSSI / fluid OPT "
              f"mean {ctx['slotted_over_fluid'].get('mean', float('nan')):.4f}, max "
              f"{ctx['slotted_over_fluid'].get('max', float('nan')):.4f}; fluid BSSI+greedy / "
              f"fluid OPT mean {ctx['fluid_bssi_over_fluid'].get('mean', float('nan')):.4f}, "
              f"max {ctx['fluid_bssi_over_fluid'].get('max', float('nan')):.4f}.", ""]
    for name in ("integral_over_fluid", "slotted_over_integral"):
        lines += [f"Largest {RATIO_NAMES[name]}:", "",
                  "| instance | K | releases | ratio | exact | fluid OPT | integral OPT "
                  "(proof) | slotted BSSI |", "|---|---|---|---|---|---|---|---|"]
        for w in doc["worst"][name]:
            lines.append(f"| {w['index']} | {w['K']} | {'yes' if w['releases'] else 'no'} | "
                         f"{w['ratio']:.6f} | {w['ratio_exact']} | {w['fluid_opt']} | "
                         f"{w['integral_opt']} ({w['integral_proof']}) | {w['slotted_bssi']} |")
        stored = doc.get("stored", {}).get(name)
        if stored:
            lines.append(f"\nStored: `instances/{stored['name']}.json` (provenance, schedules "
                         "and the study record beside it).")
        lines.append("")
    srch = doc.get("search")
    if srch:
        st2 = srch["stats"]
        sp = srch["settings"]["space"]
        lines += [f"Search for integral OPT / fluid OPT ({sp['ports']}x{sp['ports']}, "
                  f"{sp['coflows']} coflows, sizes 1-{sp['size_max']}, "
                  + ("zero releases" if not sp["release_max"] else
                     f"integer releases 0-{sp['release_max']}") + "; seed "
                  f"{srch['settings']['seed']}): {st2['evaluations']} evaluations "
                  f"({st2['scored']} scored, {st2['unproved']} unproved skipped, "
                  f"{st2['cache_hits']} repeats) in {st2['seconds']:.0f} s; best "
                  + ("-" if srch["best_ratio"] is None else
                     f"**{srch['best_ratio']:.6f}** ({srch['best_ratio_exact']}) at evaluation "
                     f"{srch['best_evaluation']}") + "."]
        stored = doc.get("stored", {}).get("search")
        if stored:
            lines.append(f"\nStored: `instances/{stored['name']}.json`.")
        lines.append("")
    if doc["errors"]:
        lines += [f"Errors: {len(doc['errors'])} (see the JSON).", ""]
    return "\n".join(lines)


# ------------------------------------------------------------------------------- driver
def dump(doc: dict) -> str:
    """The results JSON: everything indented, except one line per instance row."""
    head = json.dumps({k: v for k, v in doc.items() if k != "rows"}, indent=1, default=str)
    rows = ",\n  ".join(json.dumps(r, separators=(",", ":"), default=str)
                         for r in doc.get("rows", []))
    return head[:-2] + ',\n "rows": [\n  ' + rows + "\n ]\n}\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--instances", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--release-max", type=int, default=4)
    ap.add_argument("--mip-time-limit", type=float, default=30.0)
    ap.add_argument("--bnb-time-limit", type=float, default=30.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--budget", type=float, default=1380.0,
                    help="wall seconds after which no new instance is started")
    ap.add_argument("--store", default=None, metavar="DIR",
                    help="write the instance of the largest ratio of each kind (and the "
                         "search's best) to DIR (e.g. instances/integral-gap), when that "
                         "ratio is above 1")
    ap.add_argument("--search-evaluations", type=int, default=0,
                    help="after the sample, search for integral/fluid with this many "
                         "candidates (0: no search)")
    ap.add_argument("--search-seconds", type=float, default=600.0,
                    help="wall-clock cap of the search")
    ap.add_argument("--search-coflows", type=int, default=5)
    ap.add_argument("--search-release-max", type=int, default=0,
                    help="search integer releases 0..R (default 0: zero releases)")
    ap.add_argument("--quick", action="store_true", help="12 instances, 10 s limits")
    ap.add_argument("--report-only", action="store_true",
                    help="recompute the summary and the Markdown from the rows of --out's "
                         "JSON (nothing is run)")
    ap.add_argument("--out", default=str(HERE / "results" / "integral_gap.json"))
    args = ap.parse_args(argv)
    if args.quick:
        args.instances, args.mip_time_limit, args.bnb_time_limit = 12, 10.0, 10.0
    if args.report_only:
        out = Path(args.out)
        doc = json.loads(out.read_text())
        doc["summary"] = summarise(doc["rows"])
        doc["worst"] = {name: worst(doc["rows"], name) for name in doc["worst"]}
        out.write_text(dump(doc))
        out.with_suffix(".md").write_text(markdown(doc))
        print(markdown(doc))
        return 0
    import coflowopt
    from coflowopt.formulations.highs import highs_version
    command = "python experiments/integral_gap_study.py " + " ".join(
        a for a in (argv if argv is not None else sys.argv[1:]))
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    recipes = [flows_for(i, args.seed, args.release_max) for i in range(args.instances)]
    jobs = [(r, args.mip_time_limit, args.bnb_time_limit) for r in recipes]
    rows, t0, c0 = [], time.perf_counter(), time.process_time()
    stopped_by_budget = False

    def note(row):
        rows.append(row)
        if "error" in row:
            print(f"  instance {row['index']}: ERROR {row['error']}", flush=True)
            return
        r = ratios(row)
        io, fo = row["integral_opt"], row["fluid_opt"]
        print(f"  [{len(rows)}/{len(jobs)}] instance {row['index']} K={row['K']}"
              f"{' rel' if row['releases'] else ''}: fluid {fo['kind']} {fo['value']}, "
              f"integral {io['kind']} {io['value']} ({io['proof']}), slotted "
              f"{row['slotted_bssi']['value']}; I/F "
              f"{float(r['integral_over_fluid']) if 'integral_over_fluid' in r else '-'}, "
              f"S/I {float(r['slotted_over_integral']) if 'slotted_over_integral' in r else '-'}"
              f" ({row['seconds']:.1f} s)", flush=True)

    if args.workers <= 1:
        _worker_init()
        for job in jobs:
            if time.perf_counter() - t0 > args.budget:
                stopped_by_budget = True
                break
            note(_job(job))
    else:
        import multiprocessing as mp
        ctx = mp.get_context("spawn")
        with ctx.Pool(args.workers, initializer=_worker_init) as pool:
            pending = []
            it = iter(jobs)
            for _ in range(args.workers):
                nxt = next(it, None)
                if nxt is not None:
                    pending.append(pool.apply_async(_job, (nxt,)))
            while pending:
                done = [p for p in pending if p.ready()]
                if not done:
                    time.sleep(0.05)
                    continue
                for p in done:
                    pending.remove(p)
                    note(p.get())
                    if time.perf_counter() - t0 > args.budget:
                        stopped_by_budget = True
                        continue
                    nxt = next(it, None)
                    if nxt is not None:
                        pending.append(pool.apply_async(_job, (nxt,)))
    rows.sort(key=lambda r: r["index"])
    errors = [r for r in rows if "error" in r]
    for r in rows:
        if "error" in r:
            continue
        for name, x in ratios(r).items():
            if name in ("integral_over_fluid", "slotted_over_integral") and x < 1:
                raise SystemExit(f"instance {r['index']}: {RATIO_NAMES[name]} = {x} < 1: a bug")
    settings = {"instances": args.instances, "instances_done": len(rows), "seed": args.seed,
                "release_max": args.release_max, "mip_time_limit": args.mip_time_limit,
                "bnb_time_limit": args.bnb_time_limit, "workers": args.workers,
                "budget": args.budget, "stopped_by_budget": stopped_by_budget}
    doc = {
        "study": "integral_gap_study",
        "family": ("4x4 big switch, unit capacities, 4-7 coflows, 1-4 flows per coflow on "
                   "distinct port pairs, integer sizes 1-5, weights 1; releases 0, or (30 % "
                   f"of the instances, index % 10 < 3) integer releases 0-{args.release_max}; "
                   "integral model with slot 1"),
        "command": command.strip(), "settings": settings,
        "machine": {"python": platform.python_version(), "platform": platform.platform(),
                    "cpus": os.cpu_count(), "load_start": load,
                    "load_end": " / ".join(f"{x:.1f}" for x in os.getloadavg())},
        "versions": {"coflowopt": coflowopt.__version__, "highs": highs_version(),
                     "git_commit": _git_commit()},
        "wall_seconds": time.perf_counter() - t0,
        "cpu_seconds": time.process_time() - c0 + sum(r.get("cpu_seconds", 0) for r in rows),
        "summary": summarise(rows),
        "worst": {name: worst(rows, name) for name in ("integral_over_fluid",
                                                       "slotted_over_integral")},
        "errors": errors, "rows": rows,
    }
    if args.search_evaluations > 0:
        if args.workers > 1:
            _warm_up()
        doc["search"] = gap_search(seed=args.seed, evaluations=args.search_evaluations,
                                   seconds=args.search_seconds, coflows=args.search_coflows,
                                   release_max=args.search_release_max,
                                   mip_time_limit=args.mip_time_limit,
                                   bnb_time_limit=args.bnb_time_limit)
        doc["wall_seconds"] = time.perf_counter() - t0
    if args.store:
        doc["stored"] = {}
        srch = doc.get("search")
        if srch and srch["best_recipe"] is not None and srch["best_ratio"] > 1:
            doc["stored"]["search"] = store_entry(
                "integral_over_fluid", srch["best_recipe"], settings,
                REPO / args.store if not Path(args.store).is_absolute() else Path(args.store),
                command.strip(), args.mip_time_limit, args.bnb_time_limit, search=srch)
            print(f"stored {doc['stored']['search']['name']}", flush=True)
        for name in ("integral_over_fluid", "slotted_over_integral"):
            # a largest ratio of 1 (no gap anywhere in the sample) is not worth an entry
            if doc["worst"][name] and doc["worst"][name][0]["ratio"] > 1:
                idx = doc["worst"][name][0]["index"]
                doc["stored"][name] = store_entry(
                    name, recipes[idx], settings, REPO / args.store if not Path(
                        args.store).is_absolute() else Path(args.store), command.strip(),
                    args.mip_time_limit, args.bnb_time_limit)
                print(f"stored {doc['stored'][name]['name']}", flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(dump(doc))
    md = out.with_suffix(".md")
    md.write_text(markdown(doc))
    print(markdown(doc))
    print(f"wrote {out} and {md}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
