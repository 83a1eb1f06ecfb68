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

In the **integral matching model** (:func:`evaluate_integral`; slot 1, whole units per slot
and port, :mod:`coflowopt.slotted`) ALG is a registered slotted algorithm's value as
:func:`coflowopt.slotted.verify_slotted` computes it (exact integers), OPT the registry's exact
``integral-mip`` when it is proved (kind ``optimal``) and its schedule verifies at that value;
the integral gap target ``integral-opt`` divides that integral optimum by bnb's proved fluid
optimum.  Those ratios are named ``ALG/integral OPT`` and ``integral OPT/fluid OPT`` and kept
as exact fractions.

References
----------
Sincronia technical report (Agarwal et al., SIGCOMM 2018), Theorem 1 (BSSI with any
work-conserving order-preserving rates is within 4 of OPT with zero releases, 5 with releases);
proofs/completion-order-lp-exact.md (why a ``bnb`` optimum is a proof).
"""

from __future__ import annotations

import json
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
           "proof_summary", "AGAINST", "OBJECTIVE", "MODELS", "INTEGRAL_GAP",
           "SlottedAlgorithmSpec", "parse_integral_algorithm", "evaluate_integral",
           "integral_proof_summary", "DRAWS", "check_draw", "randomized_parts", "GAP",
           "GapBound", "gap_bounds", "parse_gap_bound", "evaluate_gap"]

#: The bases a search can maximise against.
AGAINST = ("opt", "lb")
#: The objective of every ratio the search reports.
OBJECTIVE = "weighted_completion_time"
#: How a randomised algorithm runs in a search: ``"seed"`` (one draw, seeded with the
#: search's seed) or ``"default"`` (its own default; allowed only where the ``seed``
#: parameter's documentation says the default is deterministic, e.g. the best piece of
#: ``slow-motion`` and ``lp-deadline-greedy``).
DRAWS = ("seed", "default")


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

    def run(self, instance: Instance, seed: int | None = 0) -> Result:
        """Schedule ``instance`` and verify the schedule (float mode).  ``seed=None``: a
        randomised part runs its own default (:data:`DRAWS`)."""
        if self.policy is not None:
            alg = get_algorithm("policy", self.policy)
            params = {"seed": seed} if "randomized" in alg.tags and seed is not None else {}
            return run_schedule(instance, policy=self.policy, policy_params=params,
                                objective=OBJECTIVE)
        oalg = get_algorithm("ordering", self.order)
        ralg = get_algorithm("rates", self.rates)
        op = {"seed": seed} if "randomized" in oalg.tags and seed is not None else {}
        rp = {"seed": seed} if "randomized" in ralg.tags and seed is not None else {}
        return run_schedule(instance, self.order, self.rates, order_params=op, rate_params=rp,
                            objective=OBJECTIVE)


def randomized_parts(spec) -> list:
    """The registered algorithms of ``spec`` (an :class:`AlgorithmSpec` or
    :class:`SlottedAlgorithmSpec`) tagged ``randomized``."""
    if isinstance(spec, AlgorithmSpec):
        parts = ([get_algorithm("policy", spec.policy)] if spec.policy is not None else
                 [get_algorithm("ordering", spec.order), get_algorithm("rates", spec.rates)])
    else:
        parts = [] if spec.gap else [get_algorithm("slotted", spec.name)]
        if spec.params.get("ordering"):
            parts.append(get_algorithm("ordering", spec.params["ordering"]))
    return [a for a in parts if "randomized" in a.tags]


def check_draw(spec, draw: str) -> None:
    """Refuse ``draw="default"`` unless every randomised part of ``spec`` documents a
    deterministic default for its ``seed`` (numpydoc: the word "deterministic").

    Raises
    ------
    InvalidParameterError
        For an unknown ``draw`` or a randomised part without a deterministic default.

    Examples
    --------
    >>> check_draw(parse_algorithm("slow-motion"), "default")
    >>> check_draw(parse_algorithm("random+greedy"), "default")
    Traceback (most recent call last):
    ...
    coflowopt.exceptions.InvalidParameterError: draw='default': ordering 'random' documents no deterministic default for its seed; use draw='seed'
    """
    from ..introspect import docstring_parameters
    if draw not in DRAWS:
        raise InvalidParameterError(f"draw must be one of {DRAWS}, got {draw!r}")
    if draw == "seed":
        return
    for a in randomized_parts(spec):
        doc = docstring_parameters(a.func).get("seed", {}).get("meaning", "")
        if "deterministic" not in doc:
            raise InvalidParameterError(f"draw='default': {a.kind} {a.name!r} documents no "
                                        "deterministic default for its seed; use "
                                        "draw='seed'")


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
        ``"OPT"`` or ``"LB"``; in the integral model ``"integral OPT"`` or ``"fluid OPT"``.
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
    #: ``"fluid"`` or ``"integral"`` (:func:`evaluate_integral`)
    model: str = "fluid"
    #: what is divided: ``"ALG"``, or ``"integral OPT"`` for the integral gap
    numerator: str = "ALG"
    #: the ratio as an exact Fraction (integral model only)
    ratio_exact: Fraction | None = None

    @property
    def ratio_name(self) -> str:
        """``"ALG/OPT"``, ``"ALG/LB"``, ``"ALG/integral OPT"`` or ``"integral OPT/fluid
        OPT"``."""
        return f"{self.numerator}/{self.base}"

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
             check_bounds: bool = False, seed: int | None = 0) -> Evaluation:
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
    seed : int or None
        Passed to randomised algorithms; None: they run their own default (:data:`DRAWS`).

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
    if against == "opt":
        from ..exact import bnb
        ref = bnb(instance, time_limit=opt_time_limit, max_nodes=opt_nodes,
                  verify_mode="exact")
        if ref.kind != "optimal":
            return done("opt_unproved", ref)
        # After the proof, not before: an unproved candidate is skipped, so its bounds
        # would be computed for nothing (and on a large candidate they are not cheap).
        if check_bounds:
            bounds = _bounds(instance, fast_bounds())
    else:
        bounds = _bounds(instance, fast_bounds())
        if not bounds:
            return done("no_bound")
        ref = max(bounds.values(), key=lambda r: float(r.value))
        if not float(ref.value) > 0:
            return done("no_bound", ref)
    r = ratio(alg, ref)["ratio"]
    if r is None or not math.isfinite(r):
        return done("no_bound", ref)
    return done("ok", ref, float(r))


# ------------------------------------------------------------------------------ integral model
#: The models a search can run in (``"integral"``: the matching model of
#: :mod:`coflowopt.slotted`, slot 1, whole units per slot and port).
MODELS = ("fluid", "integral")
#: ``--algo`` name of the integral gap target: integral OPT over fluid OPT, both proved.
INTEGRAL_GAP = "integral-opt"


@dataclass(frozen=True)
class SlottedAlgorithmSpec:
    """An integral-model target: a registered slotted algorithm, or the integral gap.

    Attributes
    ----------
    label : str
        ``"slotted-ocf"``, ``"sebf+slotted-order"`` (slotted-order in a registered
        ordering's order) or ``"integral-opt"`` (the gap target).
    name : str or None
        The slotted algorithm's registry name (None for the gap target).
    params : dict
        Its parameters (``ordering`` for slotted-order).
    tags : frozenset
        The slotted algorithm's tags plus ``weights`` / ``randomized`` of the ordering.
    """

    label: str
    name: str | None
    params: dict
    tags: frozenset

    @property
    def gap(self) -> bool:
        return self.name is None

    @property
    def uses_weights(self) -> bool:
        return "weights" in self.tags

    def run(self, instance: Instance, seed: int | None = 0) -> Result:
        """Run the slotted algorithm and judge it with :func:`coflowopt.slotted.verify_slotted`
        (exact integers): a ``feasible`` Result of the verified value, or a rejection
        (``kind=None``, the verifier's summary as message).  ``seed=None``: a randomised
        algorithm runs its own default (:data:`DRAWS`)."""
        from ..slotted import verify_slotted
        alg = get_algorithm("slotted", self.name)
        params = dict(self.params)
        if "randomized" in self.tags and seed is not None:
            import inspect
            if "seed" in inspect.signature(alg.func).parameters:
                params.setdefault("seed", seed)
            elif "ordering" in params:
                params.setdefault("ordering_params", {"seed": seed})
        t0 = time.perf_counter()
        sched = alg.func(instance, **params)
        rep = verify_slotted(instance, sched)
        ok = rep.ok
        return Result(value=rep.weighted_completion_time if ok else None,
                      kind="feasible" if ok else None, objective=OBJECTIVE,
                      status="ok" if ok else "rejected", algorithm=self.label, params=params,
                      schedule=sched, message="" if ok else rep.summary(),
                      timings={"schedule": time.perf_counter() - t0},
                      extra={"model": "integral",
                             "integral_verification": rep.to_dict(per_coflow=True)})


def parse_integral_algorithm(name: str) -> SlottedAlgorithmSpec:
    """The integral-model target for ``--algo``: a slotted algorithm (``slotted-ocf``,
    ``srjf``, ``slotted-order`` = BSSI order, ...), ``ORDER+slotted-order`` (slotted-order in
    the order of a registered ordering) or ``integral-opt`` (integral OPT / fluid OPT).

    Raises
    ------
    InvalidParameterError
        For a fluid algorithm (it says so) or an unknown name (listing the valid ones).

    Examples
    --------
    >>> parse_integral_algorithm("sebf+slotted-order").params
    {'ordering': 'sebf'}
    >>> parse_integral_algorithm("integral-opt").gap
    True
    """
    from ..exceptions import InvalidParameterError as _IPE
    if not isinstance(name, str) or not name.strip():
        raise InvalidParameterError(f"algorithm must be a slotted algorithm, ORDER+slotted-"
                                    f"order or {INTEGRAL_GAP}, got {name!r}")
    name = name.strip()
    if name == INTEGRAL_GAP:
        return SlottedAlgorithmSpec(INTEGRAL_GAP, None, {}, frozenset())
    valid = ", ".join(a.name for a in algorithms("slotted"))
    if "+" in name:
        o, r = (s.strip() for s in name.split("+", 1))
        try:
            salg = get_algorithm("slotted", r)
        except _IPE:
            salg = None
        if salg is None or salg.name != "slotted-order":
            raise InvalidParameterError(
                f"{name!r}: in the integral model ORDER+X needs X = slotted-order (a fluid "
                f"ORDER+RATES pair makes fluid schedules); slotted algorithms: {valid}; or "
                f"{INTEGRAL_GAP}")
        oalg = get_algorithm("ordering", o)
        return SlottedAlgorithmSpec(f"{oalg.name}+{salg.name}", salg.name,
                                    {"ordering": oalg.name},
                                    frozenset(set(salg.tags) |
                                              (set(oalg.tags) & {"weights", "randomized"})))
    try:
        salg = get_algorithm("slotted", name)
    except _IPE:
        raise InvalidParameterError(
            f"{name!r} is not a slotted algorithm; in the integral model --algo takes one of "
            f"{valid} (aliases allowed), ORDER+slotted-order, or {INTEGRAL_GAP} (the integral "
            "gap: integral OPT / fluid OPT)") from None
    params = {"ordering": "bssi"} if salg.name == "slotted-order" else {}
    tags = set(salg.tags)
    if salg.name == "slotted-order":
        tags |= set(get_algorithm("ordering", "bssi").tags) & {"weights", "randomized"}
    return SlottedAlgorithmSpec(salg.name, salg.name, params, frozenset(tags))


def integral_proof_summary(res: Result) -> dict[str, Any]:
    """What proves an ``optimal`` result of :func:`coflowopt.exact.integral_mip.integral_mip`:
    value, bound and its source, the proof's label, MIP status; JSON-ready."""
    cert = res.certificate if isinstance(res.certificate, dict) else {}
    ex = res.extra or {}
    val = res.value
    return {
        "method": "coflowopt.exact.integral_mip", "model": "integral",
        "kind": res.kind, "status": res.status,
        "value": None if val is None else float(val),
        "value_exact": None if val is None else str(Fraction(val)),
        "bound": None if res.bound is None else float(res.bound),
        "bound_source": cert.get("bound_source"),
        "gap": res.gap, "certificate_status": res.certificate_status,
        "incumbent_source": ex.get("incumbent_source"),
        "mip_status": ex.get("mip_status", "not_run"),
        "seconds": round(float(ex.get("seconds") or (res.timings or {}).get("total", 0.0)), 4),
    }


def _integral_opt(instance: Instance, time_limit: float) -> tuple[Result, bool]:
    """integral-mip's result and whether it is a proved optimum whose schedule
    ``verify_slotted`` accepts at exactly its value."""
    from ..exact.integral_mip import integral_mip
    from ..slotted import verify_slotted
    res = integral_mip(instance, time_limit=time_limit)
    if res.kind != "optimal" or res.schedule is None:
        return res, False
    rep = verify_slotted(instance, res.schedule)
    return res, bool(rep.ok and rep.weighted_completion_time == Fraction(res.value))


def evaluate_integral(instance: Instance, algorithm: SlottedAlgorithmSpec | str, *,
                      opt_nodes: int | None = 20000, opt_time_limit: float = 30.0,
                      check_bounds: bool = False, seed: int | None = 0) -> Evaluation:
    """Score ``instance`` in the integral matching model.

    * a slotted algorithm: ``ALG / integral OPT``, ALG the value ``verify_slotted`` computes
      for its slotted schedule, integral OPT the registry's exact ``integral-mip`` when its
      kind is ``optimal`` and its schedule verifies at that value (else ``opt_unproved``:
      skipped, never scored);
    * ``integral-opt``: ``integral OPT / fluid OPT``, both proved (``bnb`` with ``opt_nodes``
      and ``opt_time_limit`` for the fluid one); either unproved: ``opt_unproved``.

    ``opt_time_limit`` is integral-mip's limit in seconds (a wall-clock limit: whether a hard
    candidate is proved can depend on the machine; a reported ratio never does).  With
    ``check_bounds`` the fast certified *fluid* bounds are computed: they are lower bounds on
    the integral optimum too (integral OPT >= fluid OPT), so ``LB <= base`` is checked.

    Returns
    -------
    Evaluation
        ``model="integral"``; ``base`` ``"integral OPT"`` (``numerator`` ``"ALG"``) or
        ``"fluid OPT"`` (``numerator`` ``"integral OPT"``).  An ``alg_below_opt`` status
        (ALG under a proved integral optimum) would be a bug and is reported as a finding.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)]), Coflow("B", [(0, 0, 2)])])
    >>> ev = evaluate_integral(inst, "slotted-srjf")
    >>> ev.status, ev.numerator, ev.base, ev.ratio
    ('ok', 'ALG', 'integral OPT', 1.0)
    """
    spec = parse_integral_algorithm(algorithm) if isinstance(algorithm, str) else algorithm
    t0 = time.perf_counter()
    bounds: dict[str, Result] = {}
    base = "fluid OPT" if spec.gap else "integral OPT"
    numerator = "integral OPT" if spec.gap else "ALG"

    def done(status: str, alg: Result, ref: Result | None = None,
             r: float | None = None, exact: Fraction | None = None) -> Evaluation:
        return Evaluation(r, status, base, alg, ref, {k: v.value for k, v in bounds.items()},
                          time.perf_counter() - t0, model="integral", numerator=numerator,
                          ratio_exact=exact)

    if spec.gap:
        alg, ok = _integral_opt(instance, opt_time_limit)
        if not ok:
            return done("opt_unproved", alg, None)
        from ..exact import bnb
        ref = bnb(instance, time_limit=opt_time_limit, max_nodes=opt_nodes,
                  verify_mode="exact")
        if ref.kind != "optimal":
            return done("opt_unproved", alg, ref)
    else:
        alg = spec.run(instance, seed=seed)
        if alg.kind != "feasible":
            return done("alg_rejected", alg)
        ref, ok = _integral_opt(instance, opt_time_limit)
        if not ok:
            return done("opt_unproved", alg, ref)
    if check_bounds:
        bounds = _bounds(instance, fast_bounds())
    num, den = Fraction(alg.value), Fraction(ref.value)
    if not den > 0:
        return done("no_bound", alg, ref)
    q = num / den
    if q < 1:
        return done("alg_below_opt", alg, ref, float(q), q)
    return done("ok", alg, ref, float(q), q)


# ------------------------------------------------------------------------- integrality gaps
#: ``--against gap``: maximise OPT / LB for one relaxation (no algorithm).
GAP = "gap"


@dataclass(frozen=True)
class GapBound:
    """A relaxation the gap search can attack (``--against gap --bound NAME``).

    Attributes
    ----------
    name : str
        The name ``--bound`` takes: a registered bound (``ordering-lp``, ``lp-ov``, ...), a
        bound of the integral model (``lp-a``, ``lp-b``, ``integral-lp``,
        ``integral-isolated``) or a named variant (``fluid-network-lp``, ``lp-a-no-cutoff``,
        ``lp-b-no-cutoff``).
    bounds_model : str
        ``"fluid"``: a bound on the fluid optimum (valid in the integral model too, since
        integral OPT >= fluid OPT); ``"integral"``: a bound on the integral optimum only.
    function : str
        What it is, in words, for the record.
    method : str
        The ``coflowopt bound`` method that computes it (a registered bound, or a bound of
        the integral model).
    params : tuple of (str, value)
        Its parameters (``cutoff=False`` for ``lp-a-no-cutoff``); :attr:`command` spells
        method and parameters as ``coflowopt bound`` options.

    Examples
    --------
    >>> gb = gap_bounds("fluid")["fluid-network-lp"]
    >>> gb.method, dict(gb.params)
    ('time-indexed-lp', {'horizon': 'safe', 'overflow': False})
    """

    name: str
    bounds_model: str
    function: str
    method: str
    params: tuple = ()

    def compute(self, instance: Instance) -> Result:
        """The certified bound on ``instance`` (a Result of kind ``lower_bound`` or not)."""
        if self.bounds_model == "integral":
            from ..commands.bound import _integral_bound
            func = _integral_bound(self.method)
        else:
            func = get_algorithm("bound", self.method).func
        return func(instance, **dict(self.params))

    @property
    def command(self) -> str:
        """The ``coflowopt bound`` options that recompute it."""
        opts = f"--method {self.method}"
        if self.bounds_model == "integral":
            opts += " --model integral"
        for k, v in self.params:
            opts += f" --param {k}={json.dumps(v)}"
        return opts


def gap_bounds(model: str = "fluid") -> dict[str, GapBound]:
    """The relaxations ``--bound`` takes in ``model``, by name.

    Fluid model: every registered bound, plus ``fluid-network-lp`` (the time-indexed LP at the
    safe horizon without the overflow slot: the LP ``slow-motion`` replays,
    ``formulations/fluid_network_lp.md``).  Integral model: those (bounds on the fluid
    optimum bound the integral one too) plus the integral model's ``integral-isolated``,
    ``integral-lp``, ``lp-a``, ``lp-b`` and LP-A / LP-B without the Delta cut-off
    (``lp-a-no-cutoff``, ``lp-b-no-cutoff``: the digest's K_{Delta,Delta} gap instance,
    section 8.3 #1).

    Examples
    --------
    >>> "lp-a" in gap_bounds("integral"), "lp-a" in gap_bounds("fluid")
    (True, False)
    >>> gap_bounds("integral")["lp-a-no-cutoff"].command
    '--method lp-a --model integral --param cutoff=false'
    """
    if model not in MODELS:
        raise InvalidParameterError(f"model must be one of {MODELS}, got {model!r}")
    out = {a.name: GapBound(a.name, "fluid", f"registered bound {a.name}", a.name)
           for a in algorithms("bound")}
    out["fluid-network-lp"] = GapBound(
        "fluid-network-lp", "fluid", "time-indexed-lp at the safe horizon, no overflow slot "
        "(formulations/fluid_network_lp.md)", "time-indexed-lp",
        (("horizon", "safe"), ("overflow", False)))
    if model == "integral":
        from ..commands.bound import INTEGRAL_BOUNDS
        for name in INTEGRAL_BOUNDS:
            out[name] = GapBound(name, "integral", f"integral-model bound {name}", name)
        for name in ("lp-a", "lp-b"):
            out[f"{name}-no-cutoff"] = GapBound(
                f"{name}-no-cutoff", "integral", f"{name} without the Delta cut-off "
                "(digest section 8.3 #1)", name, (("cutoff", False),))
    return out


def parse_gap_bound(name: str, model: str = "fluid") -> GapBound:
    """The :class:`GapBound` called ``name`` in ``model``.

    Raises
    ------
    InvalidParameterError
        For an unknown name (the message lists the names of ``model``; an integral-model bound
        asked for in the fluid model says to add the integral model).

    Examples
    --------
    >>> parse_gap_bound("ordering-lp").bounds_model
    'fluid'
    """
    table = gap_bounds(model)
    if isinstance(name, str) and name.strip() in table:
        return table[name.strip()]
    hint = ""
    if model == "fluid" and isinstance(name, str) and name.strip() in gap_bounds("integral"):
        hint = " (a bound of the integral model: use the integral model)"
    raise InvalidParameterError(f"unknown relaxation {name!r}{hint}; in the {model} model: "
                                f"{', '.join(sorted(table))}")


def evaluate_gap(instance: Instance, bound: GapBound | str, *, model: str = "fluid",
                 opt_nodes: int | None = 20000, opt_time_limit: float = 30.0) -> Evaluation:
    """Score ``instance`` for an integrality gap: proved OPT over one certified bound.

    OPT is ``bnb``'s fluid optimum (``model="fluid"``, kind ``optimal`` within ``opt_nodes``)
    or ``integral-mip``'s integral optimum (``model="integral"``, kind ``optimal`` and its
    schedule verified by ``verify_slotted`` at that value); an unproved optimum skips the
    candidate (``opt_unproved``).  LB is the bound's *certified* value (kind
    ``lower_bound``; anything else: ``no_bound``).  A bound above the proved optimum is a bug
    (status ``bound_above_opt``, a finding).

    Returns
    -------
    Evaluation
        ``numerator`` ``"OPT"`` or ``"integral OPT"``, ``base`` the bound's name, ``alg`` the
        optimum's Result (the numerator), ``reference`` the bound's, ``ratio_exact`` OPT / LB
        as a Fraction.

    Examples
    --------
    One coflow K_{2,2} of unit flows: integral OPT 2, LP-A without the cut-off 3/2.

    >>> from coflowopt import Instance, Coflow
    >>> k22 = Instance.from_coflows([Coflow("A", [(0, 0, 1), (0, 1, 1), (1, 0, 1), (1, 1, 1)])])
    >>> ev = evaluate_gap(k22, "lp-a-no-cutoff", model="integral")
    >>> ev.status, ev.ratio_name, ev.ratio_exact
    ('ok', 'integral OPT/lp-a-no-cutoff', Fraction(4, 3))
    """
    gb = parse_gap_bound(bound, model) if isinstance(bound, str) else bound
    t0 = time.perf_counter()
    numerator = "integral OPT" if model == "integral" else "OPT"

    def done(status: str, opt: Result, ref: Result | None = None,
             exact: Fraction | None = None) -> Evaluation:
        return Evaluation(None if exact is None else float(exact), status, gb.name, opt, ref,
                          {}, time.perf_counter() - t0, model=model, numerator=numerator,
                          ratio_exact=exact)

    if model == "integral":
        opt, ok = _integral_opt(instance, opt_time_limit)
    else:
        from ..exact import bnb
        opt = bnb(instance, time_limit=opt_time_limit, max_nodes=opt_nodes,
                  verify_mode="exact")
        ok = opt.kind == "optimal"
    if not ok:
        return done("opt_unproved", opt)
    lb = gb.compute(instance)
    if lb.kind != "lower_bound" or lb.value is None or not Fraction(lb.value) > 0:
        return done("no_bound", opt, lb)
    q = Fraction(opt.value) / Fraction(lb.value)
    if q < 1 and float(Fraction(lb.value)) > float(opt.value) * (1 + 1e-9):
        return done("bound_above_opt", opt, lb, q)
    return done("ok", opt, lb, q)
