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

* ``int4-unit`` and ``int4-mixed``: the integral matching model (slotted schedules, slot 1;
  ``coflowopt.slotted``): ``uniform_random(4, 8, seed=s, flows_per_coflow=(1, 4), size=(1, 5),
  integer_sizes=True)`` (unit weights, releases 0, unit capacities: one matching per slot) and
  the same with ``weights=(1, 5), releases=(0, 5)`` (integer weights and releases), seeds
  ``0..29``.  Solved by :func:`solve_integral`: the fluid ``bnb`` optimum and its certificate,
  ``integral-mip`` for the best slotted schedule; ``optimal`` when the schedule, verified by
  ``coflowopt.slotted.verify_slotted``, meets the fluid bound rounded up to the objective
  lattice (``proofs/integral-lattice-bound.md``), with the integral certificate
  (``coflowopt.certificate_files.integral_certificate``: the slotted schedule and the fluid
  certificate) that ``tools/check_certificate.py`` confirms; otherwise ``open`` with that
  bound, the schedule and the gap (an optimum proved only by HiGHS's floating-point MIP bound
  is recorded under ``integral_mip`` and stays open).

* ``fb<K>-zero`` and ``fb<K>-trace`` (K = 20, 50, 100, 200): samples of the Facebook 2010
  trace ``FB2010-1Hr-150-0.txt`` (526 coflows, sha256 in :data:`FB_TRACE_SHA256`), read from
  ``../shared/data/`` (``--trace``; the trace is not in the repository) by
  ``coflowopt.formats.read_coflow_benchmark`` with its defaults (a reducer's MB split evenly
  over the coflow's mappers, 1 time unit = 7.8125 ms, every port 1 MB per time unit, unit
  weights: the trace has none).  Sample: ``numpy.random.default_rng(seed).choice(526, K,
  replace=False)``, sorted (trace order), seeds ``0..n-1`` per size (:data:`FB_SIZES`: n = 5
  for K = 20 and 50, 3 for K = 100 and 200, to keep the build and ``lib check`` within
  minutes).  ``zero``: every release 0 (Sincronia's offline setting); ``trace``: the trace's
  arrival times, shifted so that the sample's first is 0 (``release - min(release)`` in
  float64).  Nothing else is rescaled.  The instance file's ``meta`` records the trace, its
  sha256, the seed and the sampled coflow ids; :func:`build_fb` rebuilds it.

Every instance is solved by ``bnb`` (time limit ``--time-limit``, default 20 s,
``seed_bounds=False``) with ``certificate_nodes=True``.  Proved exactly: status ``optimal``,
the exact schedule and the certificate of the optimum
(``coflowopt.certificate_files.optimum_certificate``), confirmed here by
``tools/check_certificate.py`` before anything is written.  Otherwise: status ``open`` with
bnb's best verified schedule and the ``ordering-lp`` lower bound's certificate (the best bound
with a file form), and the gap ``best / bound``.  Nothing is written for an instance whose
schedule or certificate does not check.

The FB samples (10^4-4 x 10^5 flows) are beyond ``bnb``; each is solved by
``coflowopt.gap.certified_gap`` (``--fb-time-limit``, default 120 s: bounds bssi-dual,
ordering-lp, lp-ov; local search over orders from SEBF, BSSI and the LP orders; greedy rates).
The stored bound is the largest one whose certificate has a file form (today the ordering LP;
LP-OV is recorded beside it, certified inside coflowopt, with the gap it gives, and becomes the
stored bound when its file form lands: rerun the FB families).  The best schedule (10^5-10^6
pieces, too large to store) is stored as its order document (``<id>.best.order.json``: the
coflow order and ``greedy``), rebuilt and verified in exact arithmetic here and by every
``lib check``.  The K = 20 samples are also given to ``bnb`` (``--fb-exact-limit``, default
60 s); a proof makes the instance ``optimal`` with its certificate, otherwise its outcome is
recorded.

Baselines: every instance also records the value of the heuristics in :data:`BASELINES` (order
+ rate allocation, schedule verified in float mode) and its ratio to the best known value, so
that ``coflowopt lib status`` can rank them per family.  ``--baselines`` recomputes only these
for the stored instances.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
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


FB_TRACE_NAME = "FB2010-1Hr-150-0.txt"
FB_TRACE_SHA256 = "cdd0d94d26c6ab10ce3634cf6a0f836859578e914de6b6faa980a245237dbc6e"
#: coflows per sample -> number of seeds (0..n-1)
FB_SIZES = {20: 5, 50: 5, 100: 3, 200: 3}
FB_SETTINGS = {"zero": "every release 0 (Sincronia's offline setting)",
               "trace": "the trace's arrival times, shifted so that the sample's first is 0"}
#: samples with at most this many coflows are also given to bnb
FB_EXACT_MAX = 20
#: the best schedule is verified in exact arithmetic up to this many flows (exact verification
#: of 10^6 pieces takes 80 s), in float mode (the verifier's tolerances) above, or when it
#: fails exactly by rounding (MADD's rates); ``best.verified`` in the manifest says which
FB_EXACT_VERIFY_MAX_FLOWS = 50_000
#: fifo + BvN rates with backfilling is tried (trace releases) up to this many flows (BvN
#: decomposes every coflow: 20 s for 2 x 10^4 flows)
FB_BVN_MAX_FLOWS = 50_000
FB_READER = {"function": "coflowopt.formats.read_coflow_benchmark", "split": "uniform",
             "time_unit_ms": 7.8125, "capacity": 1.0,
             "units": "sizes in MB, time in units of 7.8125 ms (1 MB at 1 Gbps), every port "
                      "1 MB per time unit"}


def default_trace() -> Path:
    """``../shared/data/FB2010-1Hr-150-0.txt`` beside the repository (``COFLOWOPT_SHARED``
    overrides ``../shared``)."""
    return Path(os.environ.get("COFLOWOPT_SHARED", ROOT.parent / "shared")) / "data" / \
        FB_TRACE_NAME


def fb_families() -> dict:
    fams = {}
    for K, n in FB_SIZES.items():
        for st, words in FB_SETTINGS.items():
            fams[f"fb{K}-{st}"] = {
                "description": f"{K} coflows sampled from the Facebook 2010 trace, {words}; "
                               "unit weights, 150 ports of capacity 1",
                "source": {"trace": FB_TRACE_NAME, "trace_sha256": FB_TRACE_SHA256,
                           "reader": FB_READER, "coflows": K,
                           "sampling": f"numpy.random.default_rng(seed).choice(526, {K}, "
                                       "replace=False), sorted (trace order)",
                           "releases": st, "weights": "1 (the trace has none)",
                           "seeds": list(range(n))},
                "version": 1}
    return fams


_TRACE: dict = {}


def read_trace(path: str | Path | None = None):
    """The whole FB trace as an instance (read once per process; its sha256 checked)."""
    path = Path(path) if path is not None else default_trace()
    key = str(path.resolve())
    if key not in _TRACE:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest != FB_TRACE_SHA256:
            raise SystemExit(f"{path}: sha256 {digest}, expected {FB_TRACE_SHA256} (not the "
                             f"{FB_TRACE_NAME} the FB families were built from)")
        from coflowopt.formats.coflow_benchmark import read_coflow_benchmark
        _TRACE[key] = read_coflow_benchmark(path, capacity=FB_READER["capacity"],
                                            time_unit_ms=FB_READER["time_unit_ms"],
                                            split=FB_READER["split"])
    return _TRACE[key]


def fb_sample(num_coflows: int, K: int, seed: int) -> list[int]:
    """The sampled coflow indices (trace order)."""
    import numpy as np
    return sorted(int(i) for i in np.random.default_rng(seed).choice(num_coflows, K,
                                                                     replace=False))


def build_fb(fam: dict, seed: int, trace: str | Path | None = None, indices=None):
    """The instance of an FB family for one seed (``indices``: the trace positions of the
    coflows, default the seed's sample)."""
    src = fam["source"]
    whole = read_trace(trace)
    sel = fb_sample(whole.num_coflows, src["coflows"], seed) if indices is None else \
        list(indices)
    sub = whole.select_coflows(sel).without_deadlines()
    if src["releases"] == "zero":
        sub = sub.with_releases(0.0)
    else:
        sub = sub.with_releases(sub.release - sub.release.min())
    meta = {"provenance": "CoflowLib FB-trace sample (instances/coflowlib/make_coflowlib.py)",
            "trace": FB_TRACE_NAME, "trace_sha256": FB_TRACE_SHA256, "reader": FB_READER,
            "seed": seed, "sampling": src["sampling"], "releases": FB_SETTINGS[src["releases"]],
            "weights": src["weights"],
            "sampled_coflow_ids": [str(whole.coflow_ids[i]) for i in sel]}
    return sub.replace(meta=meta)


def solve_fb(inst, checker, gap_limit: float, exact_limit: float) -> tuple[dict, dict, object]:
    """(manifest fields, certificate, best) of an FB sample; ``best`` is an order document or,
    when bnb proves the optimum or finds a better exact schedule, a schedule."""
    from coflowopt.certificate_files import lower_bound_certificate, optimum_certificate
    from coflowopt.coflowlib import order_document
    from coflowopt.exceptions import CoflowOptError
    from coflowopt.formats.instance_json import dumps_instance
    from coflowopt.gap import certified_gap
    from coflowopt.rates.greedy import greedy
    from coflowopt.verify import verify_schedule
    t0, c0 = time.perf_counter(), time.process_time()
    rep = certified_gap(inst, time_limit=gap_limit)
    t_gap = time.perf_counter() - t0
    idoc = json.loads(dumps_instance(inst))
    # the largest bound whose certificate has a file form, confirmed by the checker
    cert, bounds = None, []
    for b in sorted((b for b in rep.bounds if b["kind"] == "lower_bound"),
                    key=lambda b: -Fraction(b["value_exact"])):
        rec = {"method": b["method"], "value": b["value_exact"], "value_float": b["value"],
               "kind": "lower_bound", "seconds": round(b["seconds"], 3)}
        if cert is None:
            try:
                c = lower_bound_certificate(inst, rep.bound_results[b["method"]])
                checker.check(idoc, json.loads(json.dumps(c)))
                cert = c
                rec["file"] = True
            except (CoflowOptError, checker.Rejected) as ex:
                rec["file"] = False
                rec["note"] = ("certified inside coflowopt (proofs/lp_certificates.md); no "
                               f"certificate file: {str(ex)[:160]}")
        bounds.append(rec)
    assert cert is not None, "no bound with a certificate file"
    # candidates: certified_gap's best (greedy rates) and MADD rates on a few orders (MADD
    # beats greedy on some samples, e.g. 20 coflows, all releases 0)
    import coflowopt.orderings  # noqa: F401 (registers)
    from coflowopt.registry import get_algorithm
    madd = get_algorithm("rates", "madd").func
    label = rep.best_schedule["algorithm"]
    cands = [(rep.best_schedule["value"], label, rep.best_order, "greedy", {})]
    for name, order in (("sebf", None), ("bssi", None),
                        (label.removesuffix("+greedy"), rep.best_order)):
        if order is None:
            order = get_algorithm("ordering", name).func(inst)
        if any(c[1] == f"{name}+madd" for c in cands):
            continue
        r = verify_schedule(inst, madd(inst, order))
        if r.ok:
            cands.append((float(r.weighted_completion_time), f"{name}+madd", order, "madd", {}))
    if inst.has_releases and inst.num_flows <= FB_BVN_MAX_FLOWS:
        # with the trace's releases the sampled coflows barely overlap: each served in its
        # isolated time (BvN, exact) and idle ports backfilled often meets the bound
        order = get_algorithm("ordering", "fifo").func(inst)
        params = {"backfill": True}
        r = verify_schedule(inst, get_algorithm("rates", "bvn").func(inst, order, **params))
        if r.ok:
            cands.append((float(r.weighted_completion_time), "fifo+bvn(backfill)", order,
                          "bvn", params))
    # the smallest value; among equal ones (float sums) MADD last: its rates miss exactness
    # by an ulp, the others' schedules verify exactly and can prove an optimum
    low = min(c[0] for c in cands)
    _, algorithm, order, rates, params = min(
        (c for c in cands if c[0] <= low * (1 + 1e-12)), key=lambda c: (c[3] == "madd", c[0]))
    t1 = time.perf_counter()
    sched = get_algorithm("rates", rates).func(inst, order, **params)
    mode = "exact" if inst.num_flows <= FB_EXACT_VERIFY_MAX_FLOWS else "float"
    vrep = verify_schedule(inst, sched, mode=mode)
    if mode == "exact" and not vrep.ok:   # e.g. MADD's rates: a port over capacity by 1 ulp
        mode = "float"
        vrep = verify_schedule(inst, sched, mode=mode)
    t_verify = time.perf_counter() - t1
    assert vrep.ok, "the best schedule must verify"
    best = Fraction(vrep.weighted_completion_time)
    stored: object = order_document(inst, order, rates, algorithm, params)
    status, exact = "open", None
    if mode == "exact" and best == Fraction(cert["claim"]["value"]):
        status = "optimal"   # a schedule verified exactly meets the certified bound
    if status == "open" and inst.num_coflows <= FB_EXACT_MAX and exact_limit > 0:
        from coflowopt.exact.branch_and_bound import bnb
        t2 = time.perf_counter()
        res = bnb(inst, time_limit=exact_limit, certificate_nodes=True, seed_bounds=False)
        exact = {"time_limit": exact_limit, "kind": res.kind, "status": res.status,
                 "certificate_status": res.certificate_status,
                 "value_float": None if res.value is None else float(res.value),
                 "nodes": (res.extra or {}).get("nodes")}
        if res.kind == "optimal" and res.certificate_status == "proved exactly":
            try:
                c = optimum_certificate(inst, res)
                checker.check(idoc, json.loads(json.dumps(c)))
                cert, status, stored = c, "optimal", res.schedule
                best, algorithm, mode = Fraction(c["claim"]["value"]), "bnb", "exact"
            except Exception as ex:  # noqa: BLE001 - recorded; the instance stays open
                exact["certificate_refused"] = str(ex)[:200]
        if status == "open" and res.schedule is not None and res.value is not None and \
                (res.value < best or (mode == "float" and res.value <= best * (1 + 1e-12))):
            brep = verify_schedule(inst, res.schedule, mode="exact")
            exact["verified_exactly"] = bool(brep.ok)
            if brep.ok and (Fraction(brep.weighted_completion_time) < best or mode == "float"):
                best, stored = Fraction(brep.weighted_completion_time), res.schedule
                mode = "exact"
                algorithm = f"bnb ({res.status})"
        exact["seconds"] = round(time.perf_counter() - t2, 3)
    bound = Fraction(cert["claim"]["value"])
    if status == "open" and mode == "exact" and best == bound:
        status = "optimal"   # bnb's schedule, verified exactly, meets the certified bound
    top = bounds[0]
    fields = {
        "status": status, "coflows": inst.num_coflows, "flows": inst.num_flows,
        "best": {"value": str(best), "value_float": float(best), "algorithm": algorithm,
                 "verified": mode},
        "candidates": [{"algorithm": c[1], "value_float": c[0]} for c in cands],
        "bound": {"value": str(bound), "value_float": float(bound),
                  "source": "optimum certificate" if cert["claim"]["kind"] == "optimum" else
                  f"{cert['claim']['algorithm']} certificate"},
        "bounds": bounds,
        "gap": float(best / bound) if bound > 0 else None,
        "gap_all_bounds": {"gap": float(best / Fraction(top["value"])),
                           "bound": top["method"],
                           "note": "best / the largest certified bound, file or not"},
        "gap_run": {"seconds": round(t_gap, 3), "cpu_seconds": round(rep.cpu_seconds, 3),
                    "time_limit": gap_limit, "schedules": [
                        {"algorithm": r["algorithm"], "value_float": r["value"]}
                        for r in rep.schedules if r.get("value") is not None]},
        "seconds": {"gap": round(t_gap, 3), "verify_exact": round(t_verify, 3),
                    "total": round(time.perf_counter() - t0, 3),
                    "cpu": round(time.process_time() - c0, 3)},
    }
    if exact is not None:
        fields["exact"] = exact
    if cert["claim"]["kind"] == "optimum":
        fields["proof_nodes"] = len(cert["proof"]["nodes"])
    return fields, cert, stored


SLOT = 1.0
INTEGRAL_VARIANTS = {"unit": {}, "mixed": {"weights": (1, 5), "releases": (0, 5)}}
#: the slotted heuristics recorded beside the integral families' best (registry "slotted")
INTEGRAL_BASELINES = ("slotted-order", "slotted-srjf", "slotted-ocf", "lp-deadline-greedy")


def integral_families() -> dict:
    fams = {}
    for var, kw in INTEGRAL_VARIANTS.items():
        params = {"num_ports": 4, "num_coflows": NUM_COFLOWS, "flows_per_coflow": [1, 4],
                  "size": [1, 5], "integer_sizes": True, **{k: list(v) for k, v in kw.items()}}
        words = "unit weights, releases 0" if not kw else "integer weights 1-5 and releases 0-5"
        fams[f"int4-{var}"] = {
            "description": f"integral matching model (slot {SLOT:g}, whole units per slot): "
                           f"4x4 big switch, unit capacities, {NUM_COFLOWS} coflows, 1-4 flows "
                           f"each, integer sizes 1-5, {words}",
            "model": "integral", "slot": SLOT,
            "source": {"generator": "coflowopt.generators.uniform_random", "params": params,
                       "seeds": list(range(SEEDS))},
            "version": 1}
    return fams


def integral_baselines(inst, best: float) -> dict:
    """``{"name": {"value", "ratio"}}``: the slotted heuristics, verified by the integral
    verifier."""
    import coflowopt.lp_deadline  # noqa: F401 (registers lp-deadline-greedy)
    import coflowopt.slotted_greedy  # noqa: F401 (registers)
    from coflowopt.registry import get_algorithm
    from coflowopt.slotted import verify_slotted
    out = {}
    for name in INTEGRAL_BASELINES:
        rep = verify_slotted(inst, get_algorithm("slotted", name).func(inst, slot=SLOT))
        assert rep.ok, f"{name}: the integral verifier rejected the schedule"
        v = float(rep.weighted_completion_time)
        out[name] = {"value": v, "ratio": v / best if best > 0 else None}
    return out


def solve_integral(inst, time_limit: float, checker, slot: float = SLOT
                   ) -> tuple[dict, dict, object]:
    """(manifest fields, certificate, slotted schedule) of an instance of the integral model.

    The fluid optimum by ``bnb`` (its certificate of the optimum; the ``ordering-lp`` bound's
    when bnb does not prove it exactly in ``time_limit``) bounds the integral optimum once
    rounded up to the lattice; ``integral-mip`` gives the best slotted schedule.  The instance
    is ``optimal`` only when the certificate of the integral model claims the optimum (the
    schedule, verified exactly, meets the rounded bound) and the checker confirms it."""
    from coflowopt.certificate_files import (integral_certificate, lower_bound_certificate,
                                             optimum_certificate)
    from coflowopt.exact.branch_and_bound import bnb
    from coflowopt.exact.integral_mip import integral_mip
    from coflowopt.formats.instance_json import dumps_instance
    import coflowopt.bounds  # noqa: F401 (registers the bounds)
    from coflowopt.registry import get_algorithm
    from coflowopt.slotted import verify_slotted
    t0 = time.perf_counter()
    res = bnb(inst, time_limit=time_limit, certificate_nodes=True, seed_bounds=False)
    fluid, fluid_opt = None, None
    if res.kind == "optimal" and res.certificate_status == "proved exactly":
        try:
            fluid = optimum_certificate(inst, res)
            fluid_opt = Fraction(fluid["claim"]["value"])
        except Exception:  # noqa: BLE001 - the ordering-LP bound below instead
            fluid = None
    if fluid is None:
        fluid = lower_bound_certificate(inst, get_algorithm("bound", "ordering-lp").func(inst))
    t_bnb = time.perf_counter() - t0
    t1 = time.perf_counter()
    im = integral_mip(inst, slot=slot, time_limit=time_limit)
    t_mip = time.perf_counter() - t1
    rep = verify_slotted(inst, im.schedule)
    assert rep.ok, "integral-mip's schedule must verify"
    best = Fraction(rep.weighted_completion_time)
    cert = integral_certificate(inst, fluid, slot=slot, schedule=im.schedule)
    idoc = json.loads(dumps_instance(inst))
    checker.check(idoc, json.loads(json.dumps(cert)))   # raises if it does not check
    bound = Fraction(cert["claim"]["value"])
    status = "optimal" if cert["claim"]["kind"] == "optimum" else "open"
    src = ("fluid bnb optimum" if fluid["claim"]["kind"] == "optimum" else
           f"fluid {fluid['claim']['algorithm']} bound")
    fields = {
        "status": status, "model": "integral", "slot": slot,
        "coflows": inst.num_coflows, "flows": inst.num_flows,
        "best": {"value": str(best), "value_float": float(best), "algorithm": "integral-mip"},
        "bound": {"value": str(bound), "value_float": float(bound),
                  "source": f"{src} rounded up to the objective lattice "
                            "(integral certificate)"},
        "gap": float(best / bound) if bound > 0 else None,
        "fluid_optimum": None if fluid_opt is None else str(fluid_opt),
        "integral_mip": {"kind": im.kind, "status": im.status,
                         "certificate_status": im.certificate_status,
                         "value": str(im.value)},
        "seconds": {"bnb": round(t_bnb, 3), "integral_mip": round(t_mip, 3),
                    "total": round(time.perf_counter() - t0, 3)},
    }
    if status == "open" and im.kind == "optimal":
        fields["integral_mip"]["note"] = ("integral-mip labels it optimal "
                                          f"({im.certificate_status}); not checkable in exact "
                                          "arithmetic here: open")
    if fluid["claim"]["kind"] == "optimum":
        fields["proof_nodes"] = len(fluid["proof"]["nodes"])
    return fields, cert, im.schedule


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
    ap.add_argument("--trace", default=str(default_trace()),
                    help=f"the FB trace for the fb* families (default: {default_trace()})")
    ap.add_argument("--fb-time-limit", type=float, default=120.0,
                    help="seconds of certified_gap per FB sample (default 120)")
    ap.add_argument("--fb-exact-limit", type=float, default=60.0,
                    help=f"seconds of bnb per FB sample of at most {FB_EXACT_MAX} coflows "
                         "(default 60; 0: none)")
    ap.add_argument("--baselines", action="store_true",
                    help="only recompute the baselines of the stored instances")
    args = ap.parse_args(argv)
    from coflowopt import __version__
    from coflowopt.coflowlib import MANIFEST, MANIFEST_FORMAT, load_checker, save_manifest
    from coflowopt.formats.instance_json import read_instance_json, write_instance_json
    from coflowopt.formats.schedule_io import write_schedule_json
    from coflowopt.formats.slotted_schedule import write_slotted_json
    checker = load_checker()
    out = Path(args.out)
    if args.baselines:
        from coflowopt.coflowlib import load_manifest
        m = load_manifest(out)
        for iid, e in sorted(m["instances"].items()):
            if args.family and e["family"] not in args.family:
                continue
            inst = read_instance_json(out / e["instance"])
            e["baselines"] = (integral_baselines if e.get("model") == "integral" else
                              baselines)(inst, float(Fraction(e["best"]["value"])))
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
        **random_families(), **topology_families(), **integral_families(), **fb_families()}
    if args.family:
        unknown = set(args.family) - set(fams)
        if unknown:
            ap.error(f"unknown families {sorted(unknown)}; known: {sorted(fams)}")
        fams = {k: v for k, v in fams.items() if k in args.family}
    if any("trace" in f["source"] for f in fams.values()) and not Path(args.trace).is_file():
        ap.error(f"--trace {args.trace}: not found (the fb* families need the FB trace; "
                 "--family picks the others)")
    old = {}
    if (out / MANIFEST).is_file():
        old = json.loads((out / MANIFEST).read_text())
    # keys of an earlier build that this run does not regenerate (its timings) are kept
    manifest = {**{k: v for k, v in old.items() if k not in ("families", "instances")},
                "format": MANIFEST_FORMAT, "version": 1, "release": RELEASE,
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
        elif "trace" in spec["source"]:
            for s in spec["source"]["seeds"][:args.seeds]:
                jobs.append((f"{fam}/{fam}-{s:03d}", build_fb(spec, s, args.trace), None))
        else:
            for s in range(min(args.seeds, SEEDS)):
                jobs.append((f"{fam}/{fam}-{s:03d}", build_random(spec, s), None))
        (out / RELEASE / fam).mkdir(parents=True, exist_ok=True)
        for iid, inst, ref in jobs:
            stem = out / RELEASE / iid
            if "trace" in spec["source"]:
                fields, cert, sched = solve_fb(inst, checker, args.fb_time_limit,
                                               args.fb_exact_limit)
                fields["sample"] = {"seed": inst.meta["seed"],
                                    "coflow_ids": inst.meta["sampled_coflow_ids"]}
                write_instance_json(inst, str(stem) + ".instance", include_meta=True)
                with open(str(stem) + ".certificate", "w", encoding="utf-8") as fh:
                    json.dump(cert, fh, separators=(",", ":"))
                for kind in ("order", "schedule"):
                    Path(f"{stem}.best.{kind}.json").unlink(missing_ok=True)
                if isinstance(sched, dict):
                    with open(f"{stem}.best.order.json", "w", encoding="utf-8") as fh:
                        json.dump(sched, fh, separators=(",", ":"))
                    fields["best"]["order"] = f"{RELEASE}/{iid}.best.order.json"
                else:
                    write_schedule_json(sched, inst, f"{stem}.best.schedule.json")
                    fields["best"]["schedule"] = f"{RELEASE}/{iid}.best.schedule.json"
                t_b = time.perf_counter()
                fields["baselines"] = baselines(inst, fields["best"]["value_float"])
                fields["seconds"]["baselines"] = round(time.perf_counter() - t_b, 3)
                manifest["instances"][iid] = {"family": fam,
                                              "instance": f"{RELEASE}/{iid}.instance",
                                              "certificate": f"{RELEASE}/{iid}.certificate",
                                              **fields}
                print(f"{iid}: {fields['status']} {fields['best']['value_float']:.10g} "
                      f"({fields['best']['algorithm']}) gap {fields['gap']:.6g} "
                      f"(all bounds {fields['gap_all_bounds']['gap']:.6g}; "
                      f"{fields['seconds']})", flush=True)
                continue
            if spec.get("model") == "integral":
                fields, cert, sched = solve_integral(inst, args.time_limit, checker,
                                                     spec["slot"])
                write_instance_json(inst, str(stem) + ".instance")
                with open(str(stem) + ".certificate", "w", encoding="utf-8") as fh:
                    json.dump(cert, fh, separators=(",", ":"))
                write_slotted_json(sched, inst, str(stem) + ".best.slotted.json")
                fields["best"]["slotted"] = f"{RELEASE}/{iid}.best.slotted.json"
                fields["baselines"] = integral_baselines(inst, fields["best"]["value_float"])
                manifest["instances"][iid] = {"family": fam,
                                              "instance": f"{RELEASE}/{iid}.instance",
                                              "certificate": f"{RELEASE}/{iid}.certificate",
                                              **fields}
                print(f"{iid}: {fields['status']} {fields['best']['value']} gap "
                      f"{fields['gap']:.6g} ({fields['seconds']['total']:.2f} s)", flush=True)
                continue
            fields, cert, sched = solve(inst, args.time_limit, checker)
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
    if args.family:      # a part of the library: its time beside the whole build's
        manifest.setdefault("build_seconds_by_families", {})[",".join(sorted(fams))] = \
            round(time.perf_counter() - t_all, 1)
    else:
        manifest["build_seconds"] = round(time.perf_counter() - t_all, 1)
    save_manifest(manifest, out)
    n = len(manifest["instances"])
    solved = sum(1 for e in manifest["instances"].values() if e["status"] == "optimal")
    print(f"CoflowLib {RELEASE}: {n} instances, {solved} proven optimal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
