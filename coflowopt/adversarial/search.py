"""Search for instances on which an algorithm is far from optimal (or from a lower bound).

The search space (a *genome*) is a ``P x P`` unit-capacity fabric with ``N`` coflows:

* ``sizes[k, i, j]``: integer data of coflow ``k`` from ingress ``i`` to egress ``j``
  (``0`` = no flow; ``1 .. size_max`` otherwise); every coflow keeps at least one flow;
* ``release[k]``: integers ``0 .. release_max`` when releases are searched (all 0 otherwise);
* ``weight[k]``: integers ``1 .. weight_max`` when the algorithm uses weights (all 1
  otherwise).

Integer data keep the instances readable and their schedules exactly verifiable.  With
``model="integral"`` the ports get an integer capacity (``capacity``, default 1), so that every
candidate is an instance of the integral matching model, and candidates are scored in that
model (:func:`~coflowopt.adversarial.objective.evaluate_integral`: ``ALG/integral OPT`` for a
slotted algorithm, ``integral OPT/fluid OPT`` for ``"integral-opt"``).

Strategies
----------
``random``
    independent random genomes (restarts).
``local``
    hill climbing: one or two mutations (resize, move a flow to another ingress or
    egress, add or remove a flow, change a release or a weight); sideways moves
    accepted; restart after ``patience`` moves without improvement.  A restart starts
    from the incumbent (best genome scored so far, by any strategy) the first time it
    is new, then half the time from a *kick* of it (three mutations: iterated local
    search), else from a random genome.
``cma``
    CMA-ES (the ``cma`` package, Hansen's pycma) on a continuous encoding (one
    coordinate per ``(k, i, j)`` size, plus releases and weights), decoded by rounding
    and clipping; restarts when CMA-ES stops, with the incumbent as the mean the first
    time it is new, else a random mean.  Without ``cma`` installed a built-in
    (mu/mu, lambda) evolution strategy with the 1/5th success rule takes its place
    (recorded as ``engine``).
``all``
    the three in turn, with 20 / 40 / 40 % of the budget; each phase starts from the
    incumbent the previous phases found.

Reproducibility
---------------
Everything random is drawn from ``numpy.random.default_rng`` streams spawned from ``seed``, and
bnb's limit is a node count, so with the budget counted in evaluations (``evaluations=``) the
same seed gives the same candidates, the same ratios and the same best instance on every
machine.  A wall-clock budget (``seconds=``) only changes *where the same sequence stops*: the
run is then equal to the evaluation-counted run with the number of evaluations it reports.  Two
things can still depend on the machine: bnb's safety time limit (``opt_time_limit``; reported
when it fires) and the incumbent heuristics inside bnb (timed), which can change bnb's node
count near the node limit and hence whether a hard candidate is skipped; neither changes a
ratio that is reported.  CMA-ES gets its seed through its ``seed`` option.  In the integral
model integral-mip's limit is wall clock (``opt_time_limit``: it has no node limit), so whether
a hard candidate is proved, and hence skipped, can depend on the machine; a reported ratio (an
exact fraction of two proved values) never does.

References
----------
N. Hansen, "The CMA Evolution Strategy: A Tutorial", arXiv:1604.00772 (2016), and the ``cma``
package; Rechenberg's 1/5th success rule (Evolutionsstrategie, 1973) for the fallback.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
import subprocess
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..exceptions import InvalidParameterError
from ..instance import Instance
from .objective import AGAINST, DRAWS, GAP, INTEGRAL_GAP, MODELS, OBJECTIVE, AlgorithmSpec, \
    Evaluation, GapBound, check_draw, evaluate, evaluate_gap, evaluate_integral, \
    integral_proof_summary, parse_algorithm, parse_gap_bound, parse_integral_algorithm, \
    proof_summary

__all__ = ["SearchSpace", "Genome", "SearchResult", "search", "write_result", "STRATEGIES",
           "result_name", "load_search_record", "SEARCH_FORMAT"]

STRATEGIES = ("random", "local", "cma", "all")
#: ``format`` of the search record written next to a library entry.
SEARCH_FORMAT = "coflowopt-adversarial-search"
#: Budget shares of ``strategy="all"``.
ALL_SHARES = (("random", 0.2), ("local", 0.4), ("cma", 0.4))


# ------------------------------------------------------------------------------- genome
@dataclass(frozen=True)
class SearchSpace:
    """The instances a search may propose (see the module docstring).

    Parameters
    ----------
    ports : int >= 1
        ``P``: ingress and egress ports (unit capacities).
    coflows : int >= 1
    size_max : int >= 1
    max_flows : int, optional
        Flows per coflow in random genomes (default ``P``; mutations may add up to ``P^2``).
    release_max : int
        ``0`` searches zero-release instances only.
    weight_max : int
        ``1`` keeps unit weights.
    capacity : int
        The capacity of every port (default 1: unit capacities); an integer, so that a
        candidate is an instance of the integral matching model too.
    """

    ports: int
    coflows: int
    size_max: int = 10
    max_flows: int | None = None
    release_max: int = 0
    weight_max: int = 1
    capacity: int = 1

    def __post_init__(self):
        for name in ("ports", "coflows", "size_max", "weight_max", "capacity"):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or v < 1:
                raise InvalidParameterError(f"{name} must be an integer >= 1, got {v!r}")
        if not isinstance(self.release_max, (int, np.integer)) or self.release_max < 0:
            raise InvalidParameterError(f"release_max must be an integer >= 0, got "
                                        f"{self.release_max!r}")
        mf = self.max_flows
        if mf is not None and (not isinstance(mf, (int, np.integer)) or mf < 1):
            raise InvalidParameterError(f"max_flows must be an integer >= 1, got {mf!r}")

    @property
    def flows_per_coflow(self) -> int:
        return min(self.ports * self.ports, self.max_flows or self.ports)

    @property
    def dimension(self) -> int:
        """Length of the continuous encoding."""
        d = self.coflows * self.ports * self.ports
        if self.release_max > 0:
            d += self.coflows
        if self.weight_max > 1:
            d += self.coflows
        return d

    def to_dict(self) -> dict[str, Any]:
        d = {"ports": self.ports, "coflows": self.coflows, "size_max": self.size_max,
             "max_flows": self.flows_per_coflow, "release_max": self.release_max,
             "weight_max": self.weight_max}
        if self.capacity != 1:
            d["capacity"] = int(self.capacity)
        return d


@dataclass(frozen=True)
class Genome:
    """One candidate: integer sizes ``(N, P, P)``, releases ``(N,)`` and weights ``(N,)``."""

    sizes: np.ndarray
    release: np.ndarray
    weight: np.ndarray

    def key(self) -> str:
        h = hashlib.sha1()
        for a in (self.sizes, self.release, self.weight):
            h.update(np.ascontiguousarray(a, dtype=np.int64).tobytes())
        return h.hexdigest()

    def instance(self, name: str = "candidate", capacity: int = 1) -> Instance:
        """The coflowopt instance: coflow ``k`` is ``"C{k+1}"``, flows in (ingress, egress)
        order, every port of capacity ``capacity`` (default 1)."""
        N, P, _ = self.sizes.shape
        k, i, j = np.nonzero(self.sizes)
        size = self.sizes[k, i, j].astype(float)
        cap = np.full(P, float(capacity))
        return Instance.from_arrays(
            ingress_capacity=cap, egress_capacity=cap.copy(),
            coflow_ids=[f"C{c + 1}" for c in range(N)], flow_coflow=k, flow_src=i,
            flow_dst=j, flow_size=size, weight=self.weight.astype(float),
            release=self.release.astype(float), meta={"name": name})

    def to_dict(self) -> dict[str, Any]:
        return {"sizes": self.sizes.tolist(), "release": self.release.tolist(),
                "weight": self.weight.tolist()}


def _repair(sizes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Give every coflow without a flow one unit flow at a random port pair."""
    N, P, _ = sizes.shape
    for k in np.flatnonzero(sizes.reshape(N, -1).sum(axis=1) == 0):
        sizes[k, rng.integers(P), rng.integers(P)] = 1
    return sizes


def random_genome(space: SearchSpace, rng: np.random.Generator) -> Genome:
    """Each coflow: ``1 .. flows_per_coflow`` flows on distinct random port pairs, sizes
    uniform in ``1 .. size_max``; releases and weights uniform in their ranges."""
    N, P = space.coflows, space.ports
    sizes = np.zeros((N, P, P), dtype=np.int64)
    for k in range(N):
        f = int(rng.integers(1, space.flows_per_coflow + 1))
        cells = rng.choice(P * P, size=f, replace=False)
        sizes[k].flat[cells] = rng.integers(1, space.size_max + 1, size=f)
    rel = (rng.integers(0, space.release_max + 1, size=N) if space.release_max > 0
           else np.zeros(N, dtype=np.int64))
    w = (rng.integers(1, space.weight_max + 1, size=N) if space.weight_max > 1
         else np.ones(N, dtype=np.int64))
    return Genome(sizes, rel, w)


def mutate(g: Genome, space: SearchSpace, rng: np.random.Generator) -> Genome:
    """One random move: resize, move, add or remove a flow, or change a release or weight."""
    sizes, rel, w = g.sizes.copy(), g.release.copy(), g.weight.copy()
    N, P = space.coflows, space.ports
    moves = ["resize", "resize", "move", "add", "remove"]
    if space.release_max > 0:
        moves.append("release")
    if space.weight_max > 1:
        moves.append("weight")
    move = moves[int(rng.integers(len(moves)))]
    k = int(rng.integers(N))
    flows = np.argwhere(sizes[k] > 0)
    if move == "resize":
        i, j = flows[rng.integers(len(flows))]
        if rng.random() < 0.5:
            sizes[k, i, j] = rng.integers(1, space.size_max + 1)
        else:
            step = int(rng.choice([-2, -1, 1, 2]))
            sizes[k, i, j] = min(space.size_max, max(1, sizes[k, i, j] + step))
    elif move == "move":
        i, j = flows[rng.integers(len(flows))]
        free_i = [a for a in range(P) if sizes[k, a, j] == 0]
        free_j = [b for b in range(P) if sizes[k, i, b] == 0]
        if free_i and (not free_j or rng.random() < 0.5):
            a = free_i[rng.integers(len(free_i))]
            sizes[k, a, j], sizes[k, i, j] = sizes[k, i, j], 0
        elif free_j:
            b = free_j[rng.integers(len(free_j))]
            sizes[k, i, b], sizes[k, i, j] = sizes[k, i, j], 0
    elif move == "add":
        empty = np.argwhere(sizes[k] == 0)
        if len(empty):
            i, j = empty[rng.integers(len(empty))]
            sizes[k, i, j] = rng.integers(1, space.size_max + 1)
    elif move == "remove":
        if len(flows) > 1:
            i, j = flows[rng.integers(len(flows))]
            sizes[k, i, j] = 0
    elif move == "release":
        rel[k] = rng.integers(0, space.release_max + 1)
    else:
        w[k] = rng.integers(1, space.weight_max + 1)
    return Genome(_repair(sizes, rng), rel, w)


def encode(g: Genome, space: SearchSpace) -> np.ndarray:
    """The continuous encoding: sizes (absent flows at ``-1``), releases, weights."""
    x = np.where(g.sizes > 0, g.sizes, -1).astype(float).ravel()
    parts = [x]
    if space.release_max > 0:
        parts.append(g.release.astype(float))
    if space.weight_max > 1:
        parts.append(g.weight.astype(float))
    return np.concatenate(parts)


def decode(x: np.ndarray, space: SearchSpace, rng: np.random.Generator) -> Genome:
    """Round and clip a continuous vector to a genome (empty coflows repaired)."""
    N, P = space.coflows, space.ports
    n = N * P * P
    sizes = np.clip(np.rint(x[:n]), 0, space.size_max).astype(np.int64).reshape(N, P, P)
    pos = n
    rel = np.zeros(N, dtype=np.int64)
    w = np.ones(N, dtype=np.int64)
    if space.release_max > 0:
        rel = np.clip(np.rint(x[pos:pos + N]), 0, space.release_max).astype(np.int64)
        pos += N
    if space.weight_max > 1:
        w = np.clip(np.rint(x[pos:pos + N]), 1, space.weight_max).astype(np.int64)
    return Genome(_repair(sizes, rng), rel, w)


# ------------------------------------------------------------------------------- bookkeeping
@dataclass
class SearchResult:
    """The outcome of :func:`search`.

    Attributes
    ----------
    best_ratio : float or None
        The largest ``ALG / base`` found (None if no candidate could be scored).
    best : Evaluation or None
        Its evaluation (``alg`` holds the verified schedule, ``reference`` the proven optimum
        or the best certified bound).
    genome : Genome or None
    instance : Instance or None
    settings : dict
        Everything needed to rerun: algorithm, against, space, strategy, seed, budgets, limits.
    stats : dict
        ``evaluations`` (candidates proposed, cache hits included), ``scored``,
        ``opt_unproved`` (skipped), ``alg_rejected``, ``cache_hits``, ``seconds``,
        ``stopped_by`` (``"evaluations"`` or ``"seconds"``), per-strategy counts, ``engine``.
    history : list of dict
        Every improvement: evaluation index, strategy, ratio.
    findings : list of dict
        Rejected schedules (the verifier refused the algorithm's output) and bound violations
        (a certified bound above a proven optimum), with their genomes: each is a bug.
    bound_check : dict
        With ``check_bounds``: per bound, the largest ``LB / OPT`` seen and the violations.
    """

    best_ratio: float | None
    best: Evaluation | None
    genome: Genome | None
    instance: Instance | None
    settings: dict
    stats: dict
    history: list = field(default_factory=list)
    findings: list = field(default_factory=list)
    bound_check: dict = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """A JSON-ready summary (no schedule pieces)."""
        out: dict[str, Any] = {"ratio": self.best_ratio, "settings": self.settings,
                               "stats": self.stats, "history": self.history,
                               "findings": self.findings, "bound_check": self.bound_check}
        if self.best is not None and self.settings.get("against") == GAP:
            out.update(_gap_summary(self.best, self.settings["bound"]))
            out["genome"] = self.genome.to_dict()
        elif self.best is not None and self.best.model == "integral":
            out.update(_integral_summary(self.best))
            out["genome"] = self.genome.to_dict()
        elif self.best is not None:
            ev = self.best
            out["base"] = f"ALG/{ev.base}"
            out["alg"] = {"algorithm": ev.alg.algorithm, "value": float(ev.alg.value),
                          "kind": ev.alg.kind, "coflow_completion":
                              [float(c) for c in ev.alg.report.coflow_completion]}
            if ev.base == "OPT":
                out["opt"] = proof_summary(ev.reference)
            else:
                out["lb"] = {"bound": ev.reference.algorithm,
                             "value": float(ev.reference.value), "kind": ev.reference.kind,
                             "all": {k: float(v) for k, v in ev.bounds.items()}}
            out["genome"] = self.genome.to_dict()
        return out


def _integral_summary(ev: Evaluation) -> dict[str, Any]:
    """The integral model's part of :meth:`SearchResult.summary`: the model, the ratio's name
    and exact value, ALG (verified by ``verify_slotted``) and the proofs of the optima."""
    out: dict[str, Any] = {"model": "integral", "base": ev.ratio_name,
                           "ratio_exact": None if ev.ratio_exact is None
                           else str(ev.ratio_exact)}
    alg = ev.alg
    # both integral-mip and SlottedAlgorithmSpec.run keep verify_slotted's verdict there
    rep = (alg.extra or {}).get("integral_verification") or {}
    out["alg"] = {"algorithm": alg.algorithm, "value": float(alg.value),
                  "value_exact": str(Fraction(alg.value)), "kind": alg.kind,
                  "verified_by": "coflowopt.slotted.verify_slotted (exact integers)",
                  "coflow_completion": rep.get("coflow_completion")}
    if ev.base == "fluid OPT":
        out["integral_opt"] = integral_proof_summary(alg)
        out["fluid_opt"] = proof_summary(ev.reference)
        out["opt"] = out["fluid_opt"]
    else:
        out["opt"] = integral_proof_summary(ev.reference)
    return out


def _gap_summary(ev: Evaluation, bound: str) -> dict[str, Any]:
    """The gap target's part of :meth:`SearchResult.summary`: the model, the ratio's name and
    exact value, the optimum's proof and the bound's certificate."""
    gb = parse_gap_bound(bound, ev.model)
    lb = ev.reference
    return {"model": ev.model, "base": ev.ratio_name,
            "ratio_exact": None if ev.ratio_exact is None else str(ev.ratio_exact),
            "opt": (integral_proof_summary(ev.alg) if ev.model == "integral"
                    else proof_summary(ev.alg)),
            "lb": {"bound": gb.name, "bounds_model": gb.bounds_model, "function": gb.function,
                   "command": f"coflowopt bound INSTANCE {gb.command}",
                   "value": float(lb.value), "value_exact": str(Fraction(lb.value)),
                   "kind": lb.kind, "certificate_status": lb.certificate_status,
                   "params": {k: v for k, v in (lb.params or {}).items()
                              if isinstance(v, (int, float, str, bool, type(None)))},
                   "seconds": round(float(sum((lb.timings or {}).values())), 4)}}


class _Budget:
    def __init__(self, evaluations: int | None, seconds: float | None):
        self.evaluations = evaluations
        self.seconds = seconds
        self.t0 = time.perf_counter()
        self.used = 0
        self.stopped_by: str | None = None

    def exhausted(self) -> bool:
        if self.evaluations is not None and self.used >= self.evaluations:
            self.stopped_by = self.stopped_by or "evaluations"
            return True
        if self.seconds is not None and time.perf_counter() - self.t0 >= self.seconds:
            self.stopped_by = self.stopped_by or "seconds"
            return True
        return False

    def sub(self, share: float, last: bool) -> "_Budget":
        """A child budget with ``share`` of what is left (``last``: all of it)."""
        ev = sec = None
        if self.evaluations is not None:
            left = self.evaluations - self.used
            ev = left if last else int(math.floor(share * self.evaluations))
            ev = max(0, min(ev, left))
        if self.seconds is not None:
            left = self.seconds - (time.perf_counter() - self.t0)
            sec = max(0.0, left if last else min(left, share * self.seconds))
        return _Budget(ev, sec)


class _Scorer:
    """Evaluates genomes with a cache, tracks the best, the history and the findings."""

    def __init__(self, spec, against: str, opt_nodes, opt_time_limit,
                 check_bounds: bool, seed: int, progress: Callable | None,
                 model: str = "fluid", capacity: int = 1):
        self.spec, self.against = spec, against
        self.model, self.capacity = model, capacity
        self.opt_nodes, self.opt_time_limit = opt_nodes, opt_time_limit
        self.check_bounds = check_bounds and against == "opt"
        self.seed = seed
        self.cache: dict[str, float | None] = {}
        self.best: Evaluation | None = None
        self.best_genome: Genome | None = None
        self.history: list[dict] = []
        self.findings: list[dict] = []
        self.bound_check: dict[str, dict] = {}
        self.counts = {"evaluations": 0, "scored": 0, "opt_unproved": 0, "alg_rejected": 0,
                       "no_bound": 0, "cache_hits": 0, "opt_time_limit_hits": 0}
        self.per_strategy: dict[str, int] = {}
        self.progress = progress
        #: incumbents a restart has already started from (local search and CMA-ES)
        self.started_from: set = set()

    def __call__(self, g: Genome, budget: _Budget, strategy: str) -> float | None:
        """The ratio of ``g`` (None if skipped); counts one evaluation against ``budget``."""
        budget.used += 1
        self.counts["evaluations"] += 1
        self.per_strategy[strategy] = self.per_strategy.get(strategy, 0) + 1
        key = g.key()
        if key in self.cache:
            self.counts["cache_hits"] += 1
            return self.cache[key]
        if isinstance(self.spec, GapBound):
            ev = evaluate_gap(g.instance(capacity=self.capacity), self.spec, model=self.model,
                              opt_nodes=self.opt_nodes, opt_time_limit=self.opt_time_limit)
        elif self.model == "integral":
            ev = evaluate_integral(g.instance(capacity=self.capacity), self.spec,
                                   opt_nodes=self.opt_nodes,
                                   opt_time_limit=self.opt_time_limit,
                                   check_bounds=self.check_bounds, seed=self.seed)
        else:
            ev = evaluate(g.instance(), self.spec, against=self.against,
                          opt_nodes=self.opt_nodes, opt_time_limit=self.opt_time_limit,
                          check_bounds=self.check_bounds, seed=self.seed)
        if not ev.ok:
            self.counts[ev.status] = self.counts.get(ev.status, 0) + 1
        if ev.status == "opt_unproved" and ev.reference is not None and \
                ev.reference.status == "time_limit":
            self.counts["opt_time_limit_hits"] += 1
        if ev.status == "alg_rejected":
            self.findings.append({"kind": "alg_rejected", "genome": g.to_dict(),
                                  "message": ev.alg.message})
        if ev.status == "bound_above_opt":  # gap target: the relaxation above OPT, a bug
            self.findings.append({"kind": "bound_above_opt", "bound": ev.base,
                                  "value": float(ev.reference.value),
                                  "opt": float(ev.alg.value), "genome": g.to_dict()})
        if ev.status == "alg_below_opt":   # integral model: below a proved optimum, a bug
            self.findings.append({"kind": "alg_below_opt", "genome": g.to_dict(),
                                  "ratio": ev.ratio, "ratio_exact": str(ev.ratio_exact),
                                  "ratio_name": ev.ratio_name})
        if ev.ok and self.check_bounds:
            opt = float(ev.reference.value)
            for name, val in ev.bounds.items():
                rec = self.bound_check.setdefault(name, {"max_lb_over_opt": 0.0,
                                                         "violations": 0, "checked": 0})
                q = float(val) / opt if opt > 0 else 0.0
                rec["checked"] += 1
                rec["max_lb_over_opt"] = max(rec["max_lb_over_opt"], q)
                if float(val) > opt * (1 + 1e-9) + 1e-9:
                    rec["violations"] += 1
                    self.findings.append({"kind": "bound_above_opt", "bound": name,
                                          "value": float(val), "opt": opt,
                                          "genome": g.to_dict()})
        r = ev.ratio if ev.ok else None
        self.cache[key] = r
        if ev.ok:
            self.counts["scored"] += 1
            if self.best is None or r > self.best.ratio + 1e-12:
                self.best, self.best_genome = ev, g
                self.history.append({"evaluation": self.counts["evaluations"],
                                     "strategy": strategy, "ratio": r})
                if self.progress is not None:
                    self.progress(self.counts["evaluations"], r)
        return r


# ------------------------------------------------------------------------------- strategies
def _run_random(space, rng, score, budget):
    while not budget.exhausted():
        score(random_genome(space, rng), budget, "random")


def _kick(g: Genome, space: SearchSpace, rng: np.random.Generator, moves: int = 3) -> Genome:
    """A perturbation of ``g``: ``moves`` random mutations (iterated local search's kick)."""
    for _ in range(moves):
        g = mutate(g, space, rng)
    return g


def _start(space, rng, score, kick_probability: float) -> Genome:
    """A restart: the incumbent itself on the first restart after another strategy found it,
    then with probability ``kick_probability`` a kick of the incumbent, else a random genome."""
    inc = score.best_genome
    if inc is not None and inc.key() not in score.started_from:
        score.started_from.add(inc.key())
        return inc
    if inc is not None and rng.random() < kick_probability:
        return _kick(inc, space, rng)
    return random_genome(space, rng)


def _run_local(space, rng, score, budget, patience: int = 40, kick_probability: float = 0.5):
    """Hill climbing with restarts; a restart starts from the incumbent (the best genome any
    strategy has scored) the first time it is new, then half the time from a kick of it
    (iterated local search), else from a random genome."""
    while not budget.exhausted():
        cur = _start(space, rng, score, kick_probability)
        cur_r = score(cur, budget, "local")
        stale = 0
        while not budget.exhausted() and stale < patience:
            nb = mutate(cur, space, rng)
            if rng.random() < 0.3:
                nb = mutate(nb, space, rng)
            r = score(nb, budget, "local")
            if r is None:
                stale += 1
                continue
            if cur_r is None or r > cur_r + 1e-12:
                cur, cur_r, stale = nb, r, 0
            else:
                if r >= cur_r - 1e-12:     # sideways: keeps the walk moving on plateaus
                    cur = nb
                stale += 1


class _SimpleES:
    """(mu/mu, lambda)-ES with isotropic mutations and the 1/5th success rule (the fallback
    when ``cma`` is not installed)."""

    def __init__(self, x0, sigma0, rng, popsize):
        self.mean = np.asarray(x0, dtype=float)
        self.sigma = float(sigma0)
        self.rng = rng
        self.lam = popsize
        self.mu = max(1, popsize // 2)
        self.best_f = math.inf
        self.iters = 0

    def ask(self):
        return [self.mean + self.sigma * self.rng.standard_normal(self.mean.size)
                for _ in range(self.lam)]

    def tell(self, xs, fs):
        order = np.argsort(fs, kind="stable")
        sel = np.asarray([xs[i] for i in order[:self.mu]])
        self.mean = sel.mean(axis=0)
        success = np.mean(np.asarray(fs) < self.best_f)
        self.best_f = min(self.best_f, float(np.min(fs)))
        self.sigma *= math.exp((success - 0.2) / 0.6)
        self.iters += 1

    def stop(self):
        return self.sigma < 0.05 or self.iters > 200


def _run_cma(space, rng, score, budget, stats):
    try:
        import cma  # noqa: F401
        engine = f"cma {cma.__version__}"
    except ImportError:
        cma = None
        engine = "builtin (mu/mu, lambda)-ES (cma not installed)"
    stats["engine"] = engine
    dim = space.dimension
    popsize = 4 + int(3 * math.log(dim))
    while not budget.exhausted():
        # the first mean after a new incumbent is the incumbent (then random genomes)
        inc = score.best_genome
        if inc is not None and ("cma", inc.key()) not in score.started_from:
            score.started_from.add(("cma", inc.key()))
            x0 = encode(inc, space)
        else:
            x0 = encode(random_genome(space, rng), space)
        sigma0 = max(1.0, 0.3 * space.size_max)
        if cma is not None:
            es = cma.CMAEvolutionStrategy(x0, sigma0, {
                "seed": int(rng.integers(1, 2 ** 31 - 1)), "popsize": popsize,
                "verbose": -9, "verb_log": 0, "verb_disp": 0, "tolfun": 1e-6,
                "maxiter": 10 ** 6})
        else:
            es = _SimpleES(x0, sigma0, np.random.default_rng(rng.integers(2 ** 63)), popsize)
        while not budget.exhausted() and not es.stop():
            xs = es.ask()
            fs = []
            for x in xs:
                if budget.exhausted():
                    break
                r = score(decode(np.asarray(x), space, rng), budget, "cma")
                # skipped candidates get the worst score, so CMA-ES moves away from them
                fs.append(-r if r is not None else 0.0)
            if len(fs) < len(xs):
                break
            es.tell(xs, fs)


# ------------------------------------------------------------------------------- driver
def search(algorithm: str | None, *, against: str = "opt", ports: int = 3, coflows: int = 4,
           strategy: str = "local", seed: int = 0, evaluations: int | None = None,
           seconds: float | None = None, size_max: int = 10, max_flows: int | None = None,
           releases: int = 0, weights: int | None = None, opt_nodes: int | None = 20000,
           opt_time_limit: float = 30.0, check_bounds: bool = True,
           progress: Callable[[int, float], None] | None = None, model: str = "fluid",
           capacity: int = 1, bound: str | None = None, draw: str = "seed") -> SearchResult:
    """Maximise ``ALG / OPT`` (or ``ALG / LB``, or an integrality gap ``OPT / LB``) over small
    instances.

    Parameters
    ----------
    algorithm : str or None
        ``"order+rates"`` (e.g. ``"bssi+greedy"``) or a registered policy; with
        ``model="integral"`` a slotted algorithm (``"slotted-ocf"``, ``"srjf"``, ...),
        ``"ORDER+slotted-order"`` or ``"integral-opt"`` (the integral gap).  None against
        ``"gap"`` (no algorithm runs).
    against : {"opt", "lb", "gap"}
        Proven optimum (bnb; unproved candidates skipped) or best fast certified bound;
        the integral model takes ``"opt"`` (the integral optimum of integral-mip, or for
        ``"integral-opt"`` the fluid optimum of bnb) and ``"gap"``.  ``"gap"``: maximise
        ``OPT / LB`` for the relaxation ``bound`` (:func:`~.objective.evaluate_gap`: OPT
        proved by bnb, or by integral-mip in the integral model; LB its certified value).
    bound : str, optional
        The relaxation against ``"gap"`` (:func:`~.objective.gap_bounds` lists the names of
        each model).
    draw : {"seed", "default"}
        A randomised algorithm gets the search's ``seed`` (one draw, default) or runs its own
        default (``"default"``: only where that default is documented as deterministic, e.g.
        the best piece of ``slow-motion`` and ``lp-deadline-greedy``).
    ports, coflows : int
        Fabric ``ports x ports`` (unit capacities) and number of coflows.
    strategy : {"random", "local", "cma", "all"}
    seed : int
    evaluations : int, optional
        Budget in candidates (reproducible: same seed, same result on every machine).
    seconds : float, optional
        Wall-clock budget (see the module docstring for what it does to reproducibility).
        At least one of the two budgets is required; with both, the first reached stops.
    size_max, max_flows : int
        Flow sizes ``1 .. size_max``; flows per coflow in random genomes.
    releases : int
        ``0`` (default): zero releases; ``R > 0``: integer releases ``0 .. R`` are searched.
    weights : int, optional
        Integer weights ``1 .. weights``; default 5 when the algorithm uses weights (its tags
        say ``weights``), else 1.
    opt_nodes, opt_time_limit :
        bnb's node limit and safety time limit per candidate.
    check_bounds : bool
        With ``against="opt"``, also check every fast certified bound against the proven
        optimum on every scored candidate (``bound_check``).
    progress : callable, optional
        ``progress(evaluation, ratio)`` at every improvement.
    model : {"fluid", "integral"}
        ``"integral"``: the matching model (slot 1, whole units per slot and port):
        candidates are scored by :func:`~coflowopt.adversarial.objective.evaluate_integral`
        (``ALG / integral OPT`` or ``integral OPT / fluid OPT``, optima proved, unproved
        candidates skipped and counted as ``opt_unproved``); ``opt_time_limit`` is then
        integral-mip's limit too (wall clock: see the module docstring).
    capacity : int
        Integer capacity of every port (default 1).

    Returns
    -------
    SearchResult

    Raises
    ------
    InvalidParameterError
        For an unknown algorithm, strategy or base, a missing budget, or bad sizes.

    Examples
    --------
    >>> res = search("fifo+greedy", ports=2, coflows=3, evaluations=20, seed=1)
    >>> res.stats["evaluations"], res.best_ratio >= 1.0
    (20, True)
    """
    if strategy not in STRATEGIES:
        raise InvalidParameterError(f"strategy must be one of {STRATEGIES}, got {strategy!r}")
    if against not in AGAINST + (GAP,):
        raise InvalidParameterError(f"against must be one of {AGAINST + (GAP,)}, got "
                                    f"{against!r}")
    if (against == GAP) != (bound is not None):
        raise InvalidParameterError("bound= goes with against='gap' (and against='gap' needs "
                                    f"a bound), got against={against!r}, bound={bound!r}")
    if against == GAP and algorithm is not None:
        raise InvalidParameterError(f"against='gap' runs no algorithm, got algorithm="
                                    f"{algorithm!r}")
    if evaluations is None and seconds is None:
        raise InvalidParameterError("give a budget: evaluations= (reproducible) and/or "
                                    "seconds= (wall clock)")
    if evaluations is not None and (not isinstance(evaluations, (int, np.integer))
                                    or evaluations < 1):
        raise InvalidParameterError(f"evaluations must be an integer >= 1, got "
                                    f"{evaluations!r}")
    if seconds is not None and not (isinstance(seconds, (int, float)) and seconds > 0):
        raise InvalidParameterError(f"seconds must be > 0, got {seconds!r}")
    if not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InvalidParameterError(f"seed must be an integer >= 0, got {seed!r}")
    if model not in MODELS:
        raise InvalidParameterError(f"model must be one of {MODELS}, got {model!r}")
    if model != "integral" and capacity != 1:
        raise InvalidParameterError("capacity applies to model='integral' (the fluid "
                                    "search keeps unit capacities)")
    if against == GAP:
        spec = parse_gap_bound(bound, model)
    elif model == "integral":
        if against != "opt":
            raise InvalidParameterError("the integral model searches against proved optima "
                                        "only (against='opt' or 'gap'), got against="
                                        f"{against!r}")
        spec = parse_integral_algorithm(algorithm)
    else:
        spec = parse_algorithm(algorithm)
    if against != GAP:
        check_draw(spec, draw)
    if weights is None:     # every relaxation weighs its coflows
        weights = 5 if against == GAP or spec.uses_weights else 1
    space = SearchSpace(ports=ports, coflows=coflows, size_max=size_max, max_flows=max_flows,
                        release_max=releases, weight_max=weights, capacity=capacity)
    settings = {"algorithm": getattr(spec, "label", None), "against": against, "base": f"ALG/"
                f"{'OPT' if against == 'opt' else 'LB'}", "objective": OBJECTIVE,
                "strategy": strategy, "seed": int(seed), "evaluations": evaluations,
                "seconds": seconds, "space": space.to_dict(), "opt_nodes": opt_nodes,
                "opt_time_limit": opt_time_limit, "check_bounds": bool(check_bounds)}
    if against == GAP:
        settings.update(algorithm=None, bound=spec.name, model=model, check_bounds=False,
                        base=f"{'integral OPT' if model == 'integral' else 'OPT'}/{spec.name}",
                        opt_method="integral-mip" if model == "integral" else "bnb")
        check_bounds = False        # the relaxation under attack is itself checked
    elif model == "integral":
        settings["model"] = "integral"
        settings["base"] = ("integral OPT/fluid OPT" if spec.gap else "ALG/integral OPT")
        settings["opt_method"] = ("integral-mip (integral OPT) and bnb (fluid OPT)"
                                  if spec.gap else "integral-mip")
    if draw != "seed":
        settings["draw"] = draw
    score = _Scorer(spec, against, opt_nodes, opt_time_limit, check_bounds,
                    None if draw == "default" else int(seed), progress, model=model,
                    capacity=capacity)
    budget = _Budget(evaluations, seconds)
    stats: dict[str, Any] = {}
    plan = ALL_SHARES if strategy == "all" else ((strategy, 1.0),)
    streams = np.random.SeedSequence(int(seed)).spawn(len(plan))
    for idx, ((name, share), ss) in enumerate(zip(plan, streams)):
        sub = budget.sub(share, last=idx == len(plan) - 1)
        rng = np.random.default_rng(ss)
        if name == "random":
            _run_random(space, rng, score, sub)
        elif name == "local":
            _run_local(space, rng, score, sub)
        else:
            _run_cma(space, rng, score, sub, stats)
        budget.used += sub.used
    stats.update(score.counts)
    stats["per_strategy"] = score.per_strategy
    stats["seconds"] = round(time.perf_counter() - budget.t0, 3)
    stats["stopped_by"] = ("evaluations" if evaluations is not None
                           and budget.used >= evaluations else "seconds")
    inst = None
    if score.best_genome is not None:
        inst = score.best_genome.instance(name=result_name(settings), capacity=capacity)
    return SearchResult(None if score.best is None else score.best.ratio, score.best,
                        score.best_genome, inst, settings, stats, score.history,
                        score.findings, score.bound_check)


# ------------------------------------------------------------------------------- output
def result_name(settings: dict) -> str:
    """File stem of a search result, e.g. ``bssi_greedy-opt-4x4-6c-seed1``."""
    sp = settings["space"]
    extra = f"-r{sp['release_max']}" if sp.get("release_max") else ""
    if settings.get("against") == GAP:
        # gap_lp-a-integral_opt-3x3-4c-seed0, gap_ordering-lp-opt-3x3-4c-seed0
        opt = "integral_opt" if settings.get("model") == "integral" else "opt"
        cap = f"-cap{sp['capacity']}" if sp.get("capacity", 1) != 1 else ""
        return (f"gap_{settings['bound']}-{opt}-{sp['ports']}x{sp['ports']}{cap}-"
                f"{sp['coflows']}c{extra}-seed{settings['seed']}")
    label = settings["algorithm"].replace("+", "_")
    if settings.get("draw") == "default":
        label += "_default"
    if settings.get("model") == "integral":
        # integral_opt-fluid_opt-... (the gap) or slotted-ocf-integral_opt-...
        against = "fluid_opt" if settings["algorithm"] == INTEGRAL_GAP else "integral_opt"
        label = label.replace("-", "_") if settings["algorithm"] == INTEGRAL_GAP else label
        cap = f"-cap{sp['capacity']}" if sp.get("capacity", 1) != 1 else ""
        return (f"{label}-{against}-{sp['ports']}x{sp['ports']}{cap}-{sp['coflows']}c"
                f"{extra}-seed{settings['seed']}")
    return (f"{label}-{settings['against']}-{sp['ports']}x{sp['ports']}-{sp['coflows']}c"
            f"{extra}-seed{settings['seed']}")


def _git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                             cwd=Path(__file__).resolve().parent, timeout=10)
        return out.stdout.strip() or None if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def write_result(result: SearchResult, out_dir: str | Path, *, name: str | None = None
                 ) -> dict[str, Path]:
    """Write the best instance with its provenance sidecar and schedules.

    Files (``<stem>`` = :func:`result_name` unless ``name`` is given): ``<stem>.json`` (the
    instance, coflowopt-instance JSON), ``<stem>.alg.schedule.json`` (the algorithm's verified
    schedule), ``<stem>.opt.schedule.json`` (the proven optimum's schedule, against ``opt``)
    ``<stem>.provenance.json`` (exactly the library's schema, ``instances/README.md``) and
    ``<stem>.search.provenance.json`` (the search record, documented in
    ``instances/adversarial/README.md``; :func:`load_search_record`).  In the integral model
    see :func:`_write_integral`; against ``gap`` :func:`_write_gap`.

    Returns
    -------
    dict
        ``"instance"``, ``"provenance"``, ``"search"``, ``"alg_schedule"`` and (against
        opt) ``"opt_schedule"`` paths.

    Raises
    ------
    InvalidParameterError
        If the search scored no candidate.
    """
    if result.best is None or result.instance is None:
        raise InvalidParameterError("the search scored no candidate: nothing to write")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = name or result_name(result.settings)
    if result.settings.get("against") == GAP:
        return _write_gap(result, out, stem)
    if result.best.model == "integral":
        return _write_integral(result, out, stem)
    w = _EntryWriter(result, out, stem)
    ev = result.best
    claims = [w.claim("alg", ev.alg.schedule,
                      f"{ev.alg.algorithm}: its schedule, verified independently",
                      {"weighted_completion_time": repr(float(ev.alg.value))},
                      exact_failure="unverified")]
    if ev.base == "OPT":
        claims.append(w.fluid_opt_claim("opt", ev.reference,
                                        "the optimum, proved by coflowopt.exact.bnb"))
    settings = result.settings
    sp = settings["space"]
    ratio_text = f"{result.best_ratio:.6f}"
    return w.finish(
        title=(f"{settings['algorithm']} at {ratio_text} x {ev.base} ({sp['ports']}x"
               f"{sp['ports']}, {sp['coflows']} coflows), found by the adversarial search"),
        paper="coflowopt adversarial search (coflowopt.adversarial.search)",
        construction=("integer flow sizes on a unit-capacity big switch proposed by the "
                      "search; coflow k is C{k+1}, flows in (ingress, egress) order"),
        assumptions=["unit port capacities", "objective sum_k w_k C_k"],
        units_time="time units (unit capacity moves one data unit per time unit)",
        printed=[f"{settings['base']} = {ratio_text} ({settings['algorithm']}, weighted "
                 "completion time)"],
        claims=claims,
        rerun=(f"coflowopt adversarial --algo {settings['algorithm']} --against "
               f"{settings['against']} --ports {sp['ports']} --coflows {sp['coflows']} "
               f"--strategy {settings['strategy']} --seed {settings['seed']} --evaluations "
               f"{result.stats['evaluations']}"
               + (f" --releases {sp['release_max']}" if sp['release_max'] else "")),
        record_note="bnb's proof summary", algorithm_value=float(ev.alg.value))


class _EntryWriter:
    """Writes one library entry of a search result: the instance, one claim per schedule
    (:meth:`claim`, the one claim writer of every target), then the provenance and the search
    record (:meth:`finish`)."""

    def __init__(self, result: SearchResult, out: Path, stem: str):
        from ..formats.instance_json import read_instance_json, write_instance_json
        self.result, self.out, self.stem = result, out, stem
        inst_path = out / f"{stem}.json"
        write_instance_json(result.instance, inst_path)
        self.inst = read_instance_json(inst_path)
        self.paths: dict[str, Path] = {"instance": inst_path}

    def claim(self, cid: str, sched, description: str, derived: dict, *, optimality=None,
              notes: str = "", slotted=None, exact_failure: str = "raise") -> dict:
        """Write ``sched`` as ``<stem>.<cid>.schedule.json`` and verify the file in float and
        exact mode (and ``slotted``, a slotted schedule of the integral model, with
        ``verify_slotted`` at ``derived["weighted_completion_time"]``).

        ``exact_failure`` is the policy when the fluid verifier rejects the file:
        ``"unverified"`` (the claim is kept, marked unverified, with the reason: float rates
        such as MADD's 1/3 are rounded in float64 and exact mode can refuse them) or
        ``"raise"`` (InvalidParameterError: schedules of whole units per slot and bnb's exact
        optima must verify exactly)."""
        from ..formats import write_slotted_schedule
        from ..formats.schedule_io import read_schedule_json, write_schedule_json
        from ..library import schedule_metrics
        from ..slotted import verify_slotted
        from ..verify import verify_schedule
        inst, key = self.inst, cid.replace("-", "_")
        spath = self.out / f"{self.stem}.{cid}.schedule.json"
        write_schedule_json(sched, inst, spath)
        self.paths[f"{key}_schedule"] = spath
        verified = {}
        for mode in ("float", "exact"):
            rep = verify_schedule(inst, read_schedule_json(spath, inst, exact=mode == "exact"),
                                  mode=mode)
            if rep.ok:
                verified[mode] = schedule_metrics(inst, rep)
                continue
            if exact_failure == "raise":
                raise InvalidParameterError(f"{spath}: the fluid verifier rejects it in {mode} "
                                            f"mode: {rep.summary()}")
            why = (f"verifies in float mode; exact mode rejects it ({rep.summary()}): rates "
                   "such as 1/3 are rounded in float64." if mode == "exact" else
                   f"is rejected in float mode ({rep.summary()}).")
            return {"id": cid, "description": description, "tag": "DERIV", "printed": {},
                    "derived": derived, "status": "unverified", "schedule": None,
                    "verified": None, "optimality": optimality,
                    "notes": (notes + f" The schedule file {spath.name} {why}").strip()}
        if slotted is not None:
            value = Fraction(derived["weighted_completion_time"])
            p = self.out / f"{self.stem}.{cid}.slotted.schedule.json"
            write_slotted_schedule(slotted, inst, p)
            srep = verify_slotted(inst, slotted)
            if not (srep.ok and srep.weighted_completion_time == value):
                raise InvalidParameterError(f"{p}: verify_slotted gives "
                                            f"{srep.summary()}, not {value}")
            self.paths[f"{key}_slotted_schedule"] = p
            notes = (notes + f" The slotted schedule (whole units per slot) is {p.name}; "
                     f"`coflowopt verify {self.stem}.json {p.name}` checks it in the integral "
                     "model. The claim's schedule file is its fluid form (each unit sent at "
                     "rate 1 over its slot).").strip()
        return {"id": cid, "description": description, "tag": "DERIV", "printed": {},
                "derived": derived, "status": "verified", "schedule": spath.name,
                "verified": verified, "optimality": optimality, "notes": notes}

    def fluid_opt_claim(self, cid: str, ref, description: str) -> dict:
        """The claim of bnb's proved fluid optimum ``ref``."""
        ps = proof_summary(ref)
        v = ps["value_exact"] or repr(ps["value"])
        return self.claim(cid, ref.schedule, description, {"weighted_completion_time": v},
                          optimality={"claimed": True, "status": "proved", "argument": (
                              f"coflowopt.exact.bnb: search complete, verified schedule of "
                              f"value {v} equal to the proven lower bound {ps['bound']} (gap "
                              f"{ps['gap']}, {ps['certificate_status']}; "
                              f"{ps['nodes_expanded']} nodes expanded, {ps['lps_solved']} "
                              "LPs); proofs/completion-order-lp-exact.md")})

    def integral_opt_claim(self, iopt) -> dict:
        """The claim ``integral-opt`` of integral-mip's proved optimum ``iopt``."""
        ips = integral_proof_summary(iopt)
        return self.claim(
            "integral-opt", iopt.schedule.to_schedule(exact=True),
            "the optimum of the integral matching model (slot 1, whole units per slot and "
            "port), proved by coflowopt.exact.integral_mip; not a fluid optimum",
            {"weighted_completion_time": str(Fraction(iopt.value))}, slotted=iopt.schedule,
            optimality={"claimed": True, "status": "proved", "argument": (
                f"integral-mip ({ips['certificate_status']}): the verified integral value "
                f"{ips['value_exact']} equals the bound {ips['bound']} ({ips['bound_source']}); "
                "optimal in the integral matching model only (formulations/integral_mip.md)")})

    def finish(self, *, title: str, paper: str, construction: str, assumptions: list,
               units_time: str, printed: list, claims: list, rerun: str, record_note: str,
               algorithm_value: float | None, extra_record: dict | None = None
               ) -> dict[str, Path]:
        """Write ``<stem>.provenance.json`` (the library schema) and
        ``<stem>.search.provenance.json`` (the search record); the paths written."""
        from .. import __version__
        result, out, stem = self.result, self.out, self.stem
        settings, sp = result.settings, result.settings["space"]
        assumptions = assumptions + ["releases 0" if not sp["release_max"]
                                     else f"integer releases 0..{sp['release_max']}"]
        prov = {
            "format": "coflowopt-provenance", "version": 1, "name": f"{out.name}/{stem}",
            "title": title, "instance": self.paths["instance"].name,
            "source": {"paper": paper, "location": f"strategy {settings['strategy']}, seed "
                                                   f"{settings['seed']}",
                       "digest": "none: generated", "tag": "DERIV"},
            "construction": construction, "assumptions": assumptions,
            "units": {"size": "data units", "time": units_time},
            "printed": printed, "claims": claims, "discrepancies": [],
            "notes": [f"The search record (settings, statistics, history, {record_note}): "
                      f"{stem}.search.provenance.json (load_search_record).",
                      f"Rerun: {rerun}"]}
        prov_path = out / f"{stem}.provenance.json"
        search_path = out / f"{stem}.search.provenance.json"
        self.paths["provenance"] = prov_path
        self.paths["search"] = search_path
        search_rec = result.summary()
        search_rec.pop("genome", None)
        record = {
            "format": SEARCH_FORMAT, "version": 1, "name": f"{out.name}/{stem}", **search_rec,
            **(extra_record or {}),
            "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "coflowopt_version": __version__, "git_commit": _git_commit(),
            "algorithm_value": algorithm_value,
            "files": {k: Path(v).name for k, v in self.paths.items()},
        }
        prov_path.write_text(json.dumps(prov, indent=2, allow_nan=False) + "\n",
                             encoding="utf-8")
        search_path.write_text(json.dumps(record, indent=2, allow_nan=False, default=str)
                               + "\n", encoding="utf-8")
        return self.paths


def _integral_words(sp: dict) -> tuple[int, str, list]:
    """Capacity, construction and the model's assumptions of an integral-model entry."""
    cap = sp.get("capacity", 1)
    return cap, (f"integer flow sizes on a big switch with integer port capacity {cap} "
                 "proposed by the search; coflow k is C{k+1}, flows in (ingress, egress) "
                 "order"), [("unit port capacities" if cap == 1 else f"port capacities {cap}"),
                            "objective sum_k w_k C_k",
                            "integral model: slot 1, whole units per slot and port"]


def _write_integral(result: SearchResult, out: Path, stem: str) -> dict[str, Path]:
    """:func:`write_result` in the integral model.  Claims: ``alg`` (the slotted algorithm's
    schedule; absent for the gap target), ``integral-opt`` (integral-mip's proved optimum) and,
    for the gap target, ``fluid-opt`` (bnb's).  Each slotted schedule is written twice: as a
    ``coflowopt-slotted-schedule`` file (``<stem>.<id>.slotted.schedule.json``, checked by
    ``verify_slotted`` at its value) and in its fluid form (each unit at rate 1 over its slot,
    ``<stem>.<id>.schedule.json``, the claim's schedule, checked by the fluid verifier in float
    and exact mode), as ``instances/integral-gap/`` stores them."""
    w = _EntryWriter(result, out, stem)
    ev = result.best
    settings = result.settings
    gap = ev.base == "fluid OPT"
    claims = []
    if not gap:
        claims.append(w.claim("alg", ev.alg.schedule.to_schedule(exact=True),
                              f"{ev.alg.algorithm}: its slotted schedule in the integral "
                              "matching model, verified independently (verify_slotted)",
                              {"weighted_completion_time": str(Fraction(ev.alg.value))},
                              slotted=ev.alg.schedule))
    claims.append(w.integral_opt_claim(ev.alg if gap else ev.reference))
    if gap:
        claims.append(w.fluid_opt_claim("fluid-opt", ev.reference, "the optimum of the fluid "
                                        "model, proved by coflowopt.exact.bnb"))
    sp = settings["space"]
    ratio_text = f"{result.best_ratio:.6f}"
    cap, construction, assumptions = _integral_words(sp)
    return w.finish(
        title=(f"{ev.ratio_name} = {ratio_text} ({ev.ratio_exact}) in the integral matching "
               f"model ({sp['ports']}x{sp['ports']}, {sp['coflows']} coflows), found by the "
               "adversarial search"),
        paper="coflowopt adversarial search (coflowopt.adversarial.search, model integral)",
        construction=construction, assumptions=assumptions,
        units_time="time units (one slot per time unit)",
        printed=[f"{settings['base']} = {ratio_text} ({ev.ratio_exact}; "
                 f"{settings['algorithm']}, weighted completion time, integral model)"],
        claims=claims,
        rerun=(f"coflowopt adversarial --model integral --algo {settings['algorithm']} "
               f"{_space_flags(settings, result.stats)} (integral-mip's limit is wall clock: a "
               "candidate near it may be skipped on another machine)"),
        record_note="the proofs' summaries", algorithm_value=float(ev.alg.value))


def _space_flags(settings: dict, stats: dict) -> str:
    """The flags that rerun a search's space, strategy, seed and evaluations."""
    sp = settings["space"]
    cap = sp.get("capacity", 1)
    return (f"--ports {sp['ports']} --coflows {sp['coflows']} --size-max {sp['size_max']} "
            f"--max-flows {sp['max_flows']} --weights {sp['weight_max']} --strategy "
            f"{settings['strategy']} --seed {settings['seed']} --evaluations "
            f"{stats['evaluations']}"
            + (f" --capacity {cap}" if cap != 1 else "")
            + (f" --releases {sp['release_max']}" if sp['release_max'] else "")
            + (f" --opt-time-limit {settings['opt_time_limit']:g}"
               if settings.get("model") == "integral" else ""))


def _write_gap(result: SearchResult, out: Path, stem: str) -> dict[str, Path]:
    """:func:`write_result` against ``gap``.  Claims: the proved optimum (``opt``, bnb's, in
    the fluid model; ``integral-opt``, integral-mip's, in the integral model, with its slotted
    schedule) and ``lb``, the certified lower bound: a bound is not the value of a schedule,
    so the claim is ``unverified`` in the library's sense (no schedule file) and its notes say
    what certifies it and which command recomputes it; the search record keeps the bound's
    certificate summary under ``lb``."""
    w = _EntryWriter(result, out, stem)
    ev = result.best
    settings = result.settings
    integral = ev.model == "integral"
    gb = parse_gap_bound(settings["bound"], ev.model)
    claims = [w.integral_opt_claim(ev.alg) if integral else
              w.fluid_opt_claim("opt", ev.alg, "the optimum, proved by coflowopt.exact.bnb")]
    lb = ev.reference
    lbv = str(Fraction(lb.value))
    claims.append({
        "id": "lb", "description": f"the certified lower bound {gb.name} ({gb.function}; a "
                                   f"bound on the {gb.bounds_model} optimum)",
        "tag": "DERIV", "printed": {}, "derived": {"weighted_completion_time": lbv},
        "status": "unverified", "schedule": None, "verified": None, "optimality": None,
        "notes": (f"A lower bound, not the value of a schedule: certificate "
                  f"{lb.certificate_status} (HiGHS's duals checked in exact arithmetic). "
                  f"Recompute: coflowopt bound {stem}.json {gb.command}.")})
    sp = settings["space"]
    ratio_text = f"{result.best_ratio:.6f}"
    if integral:
        _, construction, assumptions = _integral_words(sp)
        units_time = "time units (one slot per time unit)"
    else:
        construction = ("integer flow sizes on a unit-capacity big switch proposed by the "
                        "search; coflow k is C{k+1}, flows in (ingress, egress) order")
        assumptions = ["unit port capacities", "objective sum_k w_k C_k"]
        units_time = "time units (unit capacity moves one data unit per time unit)"
    return w.finish(
        title=(f"{ev.ratio_name} = {ratio_text} ({ev.ratio_exact}) in the {ev.model} model "
               f"({sp['ports']}x{sp['ports']}, {sp['coflows']} coflows), found by the "
               "integrality-gap search"),
        paper=f"coflowopt adversarial search (coflowopt.adversarial.search, against gap, "
              f"model {ev.model})",
        construction=construction, assumptions=assumptions, units_time=units_time,
        printed=[f"{ev.ratio_name} = {ratio_text} ({ev.ratio_exact}; weighted completion "
                 f"time, {ev.model} model)"],
        claims=claims,
        rerun=(f"coflowopt adversarial --against gap --bound {gb.name} --model {ev.model} "
               f"{_space_flags(settings, result.stats)}"),
        record_note="the optimum's proof and the bound's certificate", algorithm_value=None)


def load_search_record(name: str) -> dict[str, Any]:
    """The search record of a library entry written by :func:`write_result` (e.g.
    ``"adversarial/bssi_greedy-opt-4x4-6c-seed0"``): ``<stem>.search.provenance.json``.

    The library's provenance file keeps the library schema exactly (``instances/README.md``);
    what the search adds (settings, statistics, history, findings, bound check, bnb's proof
    summary, date, version) lives in this sidecar, whose name ends in ``.provenance.json`` so
    that :func:`coflowopt.library.list_instances` does not list it as an instance.

    Raises
    ------
    InvalidParameterError
        For an entry without a search record.
    """
    from ..library import library_dir
    path = library_dir() / f"{name}.search.provenance.json"
    if not path.is_file():
        raise InvalidParameterError(f"no search record for {name!r} (expected {path})")
    return json.loads(path.read_text(encoding="utf-8"))
