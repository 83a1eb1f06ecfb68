"""What the adversarial search maximises: ``ALG / OPT`` or ``ALG / LB``, with evidence.

A candidate instance is scored by

* **ALG**: the value of the algorithm's schedule *as the independent verifier computes it*
  (:func:`coflowopt.api.run_schedule` -> :func:`coflowopt.results.schedule_result`); a
  schedule the verifier rejects scores nothing and is recorded as a finding;
* **OPT** (``against="opt"``): the value of :func:`coflowopt.exact.bnb` *only when its kind is*
  ``optimal`` (verified schedule equal to a proven bound).  A candidate whose optimum the
  search cannot prove within the per-candidate node (and time) limit is skipped;
* **LB** (``against="lb"``): the largest certified ``lower_bound`` among the fast registered
  bounds (every bound not tagged ``slow`` or ``exponential``).

The ratio is :func:`coflowopt.results.ratio`, which names its base (``ALG/OPT`` or
``ALG/LB``).  The objective is ``sum_k w_k C_k`` throughout.

References
----------
Sincronia technical report (Agarwal et al., SIGCOMM 2018), Theorem 1 (BSSI with any
work-conserving order-preserving rates is within 4 of OPT with zero releases, 5 with releases);
proofs/completion-order-lp-exact.md (why a ``bnb`` optimum is a proof).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..api import run_schedule
from ..exceptions import InvalidParameterError
from ..instance import Instance
from ..registry import algorithms, get_algorithm
from ..results import Result, ratio

__all__ = ["AlgorithmSpec", "parse_algorithm", "fast_bounds", "Evaluation", "evaluate",
           "proof_summary", "AGAINST", "OBJECTIVE"]

#: The bases a search can maximise against.
AGAINST = ("opt", "lb")
#: The objective of every ratio the search reports.
OBJECTIVE = "weighted_completion_time"


@dataclass(frozen=True)
class AlgorithmSpec:
    """An algorithm under attack: ``order+rates`` or a registered policy.

    Attributes
    ----------
    label : str
        ``"bssi+greedy"`` or the policy name (registry names, aliases resolved).
    order, rates, policy : str or None
    tags : frozenset
        The sending part's tags (rates or policy) plus ``weights`` / ``randomized`` from the
        ordering; ``weights`` tells the search whether weights are worth searching over.
    """

    label: str
    order: str | None
    rates: str | None
    policy: str | None
    tags: frozenset

    @property
    def uses_weights(self) -> bool:
        return "weights" in self.tags

    def run(self, instance: Instance, seed: int = 0) -> Result:
        """Schedule ``instance`` and verify the schedule (float mode)."""
        if self.policy is not None:
            alg = get_algorithm("policy", self.policy)
            params = {"seed": seed} if "randomized" in alg.tags else {}
            return run_schedule(instance, policy=self.policy, policy_params=params,
                                objective=OBJECTIVE)
        oalg = get_algorithm("ordering", self.order)
        ralg = get_algorithm("rates", self.rates)
        op = {"seed": seed} if "randomized" in oalg.tags else {}
        rp = {"seed": seed} if "randomized" in ralg.tags else {}
        return run_schedule(instance, self.order, self.rates, order_params=op, rate_params=rp,
                            objective=OBJECTIVE)


def parse_algorithm(name: str) -> AlgorithmSpec:
    """The :class:`AlgorithmSpec` for ``"order+rates"`` or a policy name.

    Raises
    ------
    InvalidParameterError
        For an unknown ordering, rate allocation or policy (the message lists valid names).

    Examples
    --------
    >>> parse_algorithm("bssi+greedy").label
    'bssi+greedy'
    """
    if not isinstance(name, str) or not name.strip():
        raise InvalidParameterError(f"algorithm must be 'order+rates' or a policy name, got "
                                    f"{name!r}")
    if "+" in name:
        o, r = (s.strip() for s in name.split("+", 1))
        oalg, ralg = get_algorithm("ordering", o), get_algorithm("rates", r)
        tags = set(ralg.tags) | (set(oalg.tags) & {"weights", "randomized"})
        return AlgorithmSpec(f"{oalg.name}+{ralg.name}", oalg.name, ralg.name, None,
                             frozenset(tags))
    palg = get_algorithm("policy", name.strip())
    return AlgorithmSpec(palg.name, None, None, palg.name, frozenset(palg.tags))


def fast_bounds() -> list[str]:
    """Names of the registered bounds that are neither ``slow`` nor ``exponential``."""
    return [a.name for a in algorithms("bound")
            if not ({"slow", "exponential"} & set(a.tags))]


def proof_summary(res: Result) -> dict[str, Any]:
    """What proves an ``optimal`` result of :func:`coflowopt.exact.bnb`: value, bound, gap,
    nodes, LPs, the proof's status; JSON-ready."""
    cert = res.certificate if isinstance(res.certificate, dict) else {}
    search = (res.extra or {}).get("search", {})
    exact = cert.get("exact") if isinstance(cert.get("exact"), dict) else {}
    val = res.value
    return {
        "method": "coflowopt.exact.bnb",
        "kind": res.kind,
        "status": res.status,
        "value": None if val is None else float(val),
        "value_exact": str(val) if isinstance(val, Fraction) else None,
        "bound": None if res.bound is None else float(res.bound),
        "gap": res.gap,
        "certificate_status": res.certificate_status,
        "nodes_expanded": search.get("nodes_expanded"),
        "nodes_created": search.get("nodes_created"),
        "lps_solved": search.get("lps_solved"),
        "root_bound": search.get("root_bound"),
        "proved_exactly": bool(exact.get("proved")) if exact else False,
        "seconds": round(float(sum(res.timings.values())), 4) if res.timings else None,
    }


@dataclass
class Evaluation:
    """The score of one candidate.

    Attributes
    ----------
    ratio : float or None
        ``ALG / base``; None when the candidate was skipped (see ``status``).
    status : str
        ``"ok"``; ``"opt_unproved"`` (bnb hit its node or time limit: skipped);
        ``"alg_rejected"`` (the verifier rejected the algorithm's schedule: a bug worth
        reporting); ``"no_bound"`` (no certified bound was positive).
    base : str
        ``"OPT"`` or ``"LB"``.
    alg : Result
        The algorithm's verified result (kind ``feasible``) or the rejection.
    reference : Result or None
        The ``optimal`` result of bnb, or the best certified bound.
    bounds : dict
        ``name -> certified value`` of the fast bounds computed (``against="lb"``, or with
        ``check_bounds``).
    seconds : float
    """

    ratio: float | None
    status: str
    base: str
    alg: Result
    reference: Result | None = None
    bounds: dict = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def _bounds(instance: Instance, names) -> dict[str, Result]:
    out = {}
    for name in names:
        res = get_algorithm("bound", name).func(instance)
        if res.kind == "lower_bound" and res.value is not None:
            out[name] = res
    return out


def evaluate(instance: Instance, algorithm: AlgorithmSpec | str, *, against: str = "opt",
             opt_nodes: int | None = 20000, opt_time_limit: float = 30.0,
             check_bounds: bool = False, seed: int = 0) -> Evaluation:
    """Score ``instance`` for ``algorithm``: verified ALG over proven OPT or certified LB.

    Parameters
    ----------
    instance : Instance
    algorithm : AlgorithmSpec or str
    against : {"opt", "lb"}
    opt_nodes : int or None
        Node limit of bnb (the reproducible limit: a candidate not proved within it is
        skipped the same way on every machine).
    opt_time_limit : float
        Safety time limit of bnb in seconds (a wall-clock limit: if it, not the node limit,
        stops a search, the skip depends on the machine).
    check_bounds : bool
        With ``against="opt"``, also compute the fast certified bounds (their validity
        ``LB <= OPT`` is then checked on every candidate).
    seed : int
        Passed to randomised algorithms.

    Returns
    -------
    Evaluation

    Raises
    ------
    InvalidParameterError
        For an unknown ``against``.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)]), Coflow("B", [(0, 0, 2)])])
    >>> ev = evaluate(inst, "fifo+greedy")
    >>> ev.status, ev.base, ev.ratio
    ('ok', 'OPT', 1.0)
    """
    if against not in AGAINST:
        raise InvalidParameterError(f"against must be one of {AGAINST}, got {against!r}")
    spec = parse_algorithm(algorithm) if isinstance(algorithm, str) else algorithm
    t0 = time.perf_counter()
    alg = spec.run(instance, seed=seed)
    base = "OPT" if against == "opt" else "LB"
    bounds: dict[str, Result] = {}

    def done(status: str, ref: Result | None = None, r: float | None = None) -> Evaluation:
        return Evaluation(r, status, base, alg, ref, {k: v.value for k, v in bounds.items()},
                          time.perf_counter() - t0)

    if alg.kind != "feasible":
        return done("alg_rejected")
    if against == "lb" or check_bounds:
        bounds = _bounds(instance, fast_bounds())
    if against == "opt":
        from ..exact import bnb
        ref = bnb(instance, time_limit=opt_time_limit, max_nodes=opt_nodes,
                  verify_mode="exact")
        if ref.kind != "optimal":
            return done("opt_unproved", ref)
    else:
        if not bounds:
            return done("no_bound")
        ref = max(bounds.values(), key=lambda r: float(r.value))
        if not float(ref.value) > 0:
            return done("no_bound", ref)
    r = ratio(alg, ref)["ratio"]
    if r is None or not math.isfinite(r):
        return done("no_bound", ref)
    return done("ok", ref, float(r))
