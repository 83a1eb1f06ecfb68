"""One registry of every algorithm: orderings, rate allocations, whole policies, bounds, exact.

Modelled on networkx's pluggable algorithms and scikit-learn's tags: each entry records its name,
kind, the function, a one-line summary, the guarantee it carries (if any), capability tags and the
reference it implements.  A wrong name fails with the list of valid ones.

Function contracts by kind
--------------------------
=============  =================================================================================
``ordering``   ``func(instance, **params) -> ndarray`` of coflow indices, highest priority first.
``rates``      ``func(instance, order, **params) -> Schedule``.
``policy``     ``func(instance, **params) -> Schedule`` (online or whole-schedule methods).
``bound``      ``func(instance, **params) -> Result`` with kind ``lower_bound``.
``exact``      ``func(instance, **params) -> Result`` (``optimal`` or a bound and incumbent).
``slotted``    ``func(instance, **params) -> SlottedSchedule``: a schedule of the integral
               matching model (time slotted, whole units per slot and resource;
               :mod:`coflowopt.slotted`), judged by :func:`coflowopt.slotted.verify_slotted`
               (exact integers), not a fluid ``Schedule``: the fluid suites and experiment
               specs never run these as schedules (``coflowopt.testing.check_slotted`` does).
=============  =================================================================================
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from .exceptions import InvalidParameterError

__all__ = ["Algorithm", "register", "get_algorithm", "algorithms", "KINDS", "TAGS"]

KINDS = ("ordering", "rates", "policy", "bound", "exact", "slotted")

#: Capability tags and what they promise.
TAGS = {
    "release_dates": "uses release dates correctly (never sends before a release)",
    "weights": "takes coflow weights into account",
    "heterogeneous_capacities": "handles ports of different capacities",
    "deadlines": "uses coflow deadlines",
    "needs_solver": "solves an LP/MIP (HiGHS unless stated)",
    "exponential": "exponential time: small instances only",
    "randomized": "takes a seed; deterministic for a given seed",
    "order_preserving": "rates respect the given order (Sincronia Definition 1)",
    "work_conserving": "no port idles while a flow that could use it waits",
    "preemptive": "may preempt flows at any event",
    "online": "uses only coflows released so far",
    "non_clairvoyant": "does not read flow sizes",
    "certificate": "returns a certificate that can be checked independently",
    "slow": "too slow for the 706k-flow FB trace",
    "zero_release_only": "its guarantee or definition assumes every release is 0 (it still runs "
                         "with releases, without the guarantee)",
    "uniform_capacity_only": "assumes every port has the same capacity",
    "flow_level": "ignores coflow structure (allocates per flow)",
    "starvation_free": "every coflow gets service within a bounded time",
    "exact_arithmetic": "can compute in exact rational arithmetic",
    "big_switch_only": "defined on the big switch only (each flow uses its ingress and egress "
                       "port); given an instance on resources (a topology) it raises "
                       "NotSupportedError",
    "integral_model": "works in the integral matching model (time slotted, whole units per "
                      "slot and resource): its value is an integral optimum, >= the fluid "
                      "optimum, and its schedule is a coflowopt.slotted.SlottedSchedule checked "
                      "by verify_slotted (not a fluid Schedule)",
    "reconstruction": "reconstructs an algorithm from a digest of papers whose bodies were not "
                      "read (../shared/reference/theory-frontier.md): not any paper's algorithm; "
                      "its guarantee is the one proved in proofs/, never the paper's constant",
    "rate_aware": "an ordering that evaluates orders with a rate allocation; paired with one, it "
                  "is given that allocation (``rates=``, ``rate_params=``) unless told otherwise",
}


@dataclass(frozen=True)
class Algorithm:
    """A registered algorithm (see the module docstring for the contract of ``func``)."""

    name: str
    kind: str
    func: Callable
    summary: str
    reference: str
    guarantee: str | None = None
    tags: frozenset = field(default_factory=frozenset)
    aliases: tuple = ()

    def __call__(self, *args, **kwargs):
        return self.func(*args, **kwargs)

    def check_parameters(self, params: dict[str, Any]) -> None:
        """Refuse bad parameter values before anything runs, where ``func`` says how: a
        function with a ``check_parameters`` attribute (keyword arguments: the signature's
        defaults updated with ``params``) raises InvalidParameterError for a value no instance
        makes right (e.g. lp-ov-branch's ``cutoff <= 0``); a front end running several
        methods calls this for each before the first, so that no solver runs for minutes
        before a later method refuses its parameter.  Without the attribute: nothing (the
        function checks its parameters when called)."""
        check = getattr(self.func, "check_parameters", None)
        if check is None:
            return
        import inspect
        given = {p.name: p.default for p in
                 list(inspect.signature(self.func).parameters.values())[1:]
                 if p.default is not p.empty}
        check(**{**given, **params})

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "summary": self.summary,
                "guarantee": self.guarantee, "tags": sorted(self.tags),
                "reference": self.reference, "aliases": list(self.aliases),
                "function": f"{self.func.__module__}.{self.func.__qualname__}"}


_REGISTRY: dict[tuple[str, str], Algorithm] = {}
_ALIASES: dict[tuple[str, str], str] = {}


def register(kind: str, name: str, *, summary: str, reference: str,
             guarantee: str | None = None, tags: Iterable[str] = (),
             aliases: Iterable[str] = ()) -> Callable[[Callable], Callable]:
    """Decorator registering ``func`` under ``(kind, name)``."""
    if kind not in KINDS:
        raise InvalidParameterError(f"kind must be one of {KINDS}, got {kind!r}")
    tags = frozenset(tags)
    unknown = tags - set(TAGS)
    if unknown:
        raise InvalidParameterError(f"unknown tags {sorted(unknown)}; known: {sorted(TAGS)}")

    def deco(func: Callable) -> Callable:
        if "big_switch_only" in tags:
            func = _big_switch_guard(func, f"{kind} {name!r}")
        key = (kind, name)
        if key in _REGISTRY and _REGISTRY[key].func is not func:
            raise InvalidParameterError(f"{kind} {name!r} is registered twice")
        _REGISTRY[key] = Algorithm(name=name, kind=kind, func=func, summary=summary,
                                   reference=reference, guarantee=guarantee, tags=tags,
                                   aliases=tuple(aliases))
        for a in aliases:
            _ALIASES[(kind, a)] = name
        return func
    return deco


def _big_switch_guard(func: Callable, what: str) -> Callable:
    """``func`` refusing an instance on resources with a clear error (its first argument, or
    ``instance=``, is the instance)."""
    import functools

    @functools.wraps(func)
    def guarded(*args, **kwargs):
        inst = args[0] if args else kwargs.get("instance")
        if inst is not None and not getattr(inst, "is_big_switch", True):
            inst.require_big_switch(what)
        return func(*args, **kwargs)
    guarded.big_switch_only = True
    return guarded


def get_algorithm(kind: str, name: str) -> Algorithm:
    """Look up an algorithm; a wrong name raises with the list of valid names.

    The kind's own package is imported first and every package only when the name is not
    there: a process that runs one ordering and one allocation need not import the policies,
    bounds, exact solvers and fairness packages (0.04 s of CPU of the FB trace's BSSI + greedy
    process, ``experiments/results/fb_process_2026-11-29.md``).  A miss loads everything, so
    a name registered outside its kind's package (``ordering-lp`` in ``formulations``) and the
    list of valid names are the same as with everything loaded.
    """
    home = _KIND_HOME.get(kind)
    if home is not None:
        _load((home,))
        key = (kind, _ALIASES.get((kind, name), name))
        if key in _REGISTRY:
            return _REGISTRY[key]
    _load_all()
    key = (kind, _ALIASES.get((kind, name), name))
    if key not in _REGISTRY:
        valid = sorted(n for k, n in _REGISTRY if k == kind)
        raise InvalidParameterError(f"unknown {kind} {name!r}; valid: {', '.join(valid)}")
    return _REGISTRY[key]


def rate_aware_params(ordering: Algorithm, order_params: Mapping[str, Any] | None,
                      rates: Algorithm, rate_params: Mapping[str, Any] | None) -> dict:
    """The ordering's keyword arguments when it is paired with ``rates``.

    An ordering tagged ``rate_aware`` (``best-order``) searches for the order that is best
    *under a rate allocation*; paired with one, it must judge orders by that allocation, or
    ``best-order+bvn`` would be "the best greedy order, then BvN", whose ties depend on the
    coflows' positions.  Explicit ``order_params`` win.
    """
    params = dict(order_params or {})
    if "rate_aware" in ordering.tags:
        params.setdefault("rates", rates.name)
        params.setdefault("rate_params", dict(rate_params or {}))
    return params


def algorithms(kind: str | None = None) -> list[Algorithm]:
    """All registered algorithms (of one kind), sorted by kind and name."""
    _load_all()
    return sorted((a for (k, _), a in _REGISTRY.items() if kind is None or k == kind),
                  key=lambda a: (KINDS.index(a.kind), a.name))


#: Packages (and modules) whose import registers algorithms (those not present yet are
#: skipped); ``slotted_greedy`` and ``lp_deadline`` register the slotted algorithms of the
#: integral model.
ALGORITHM_PACKAGES = ("orderings", "rates", "policies", "bounds", "exact", "fairness",
                      "slotted_greedy", "lp_deadline", "slow_motion",
                      "interval_groups", "lp_deadline_iterated")


#: The package where most algorithms of a kind live (:func:`get_algorithm` tries it first).
_KIND_HOME = {"ordering": "orderings", "rates": "rates", "policy": "policies",
              "bound": "bounds", "exact": "exact"}


def _load_all() -> None:
    _load(ALGORITHM_PACKAGES)


def _load(packages: Iterable[str]) -> None:
    import importlib
    import importlib.util
    for name in packages:
        full = f"{__package__}.{name}"
        if importlib.util.find_spec(full) is not None:
            importlib.import_module(full)  # errors inside a package propagate
