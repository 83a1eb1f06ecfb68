"""Conformance checks every registered algorithm must pass (like scikit-learn's
``check_estimator``).

Each ``check_*`` function takes ``(algorithm, instance)`` and raises :class:`AssertionError`
with a message naming the algorithm, the instance and the rule when the algorithm breaks it.
``algorithm`` is anything :func:`as_scheduler` accepts: ``"bssi+greedy"`` (an ordering and a
rate allocation), ``"varys"`` (a policy), a :class:`Scheduler`, or registry entries.

:func:`applicable_checks` lists the checks that apply to an algorithm on an instance, from its
tags (``work_conserving``, ``order_preserving``, ``randomized``, ...) and the instance (release
dates, tie-freeness); :func:`check_algorithm` runs them.  ``tests/test_conformance.py`` runs them
over the whole registry.

The checks
----------
``check_verified``
    The schedule passes the independent verifier.
``check_same_seed_same_schedule``
    Two runs with the same seed give the same pieces (every algorithm; randomised ones get a
    seed).
``check_instance_not_mutated``
    The instance's arrays and meta are unchanged (and still read-only).
``check_port_relabelling``
    Renaming ports keeps the objective (needs an instance without ties, e.g. random real
    sizes: tie-breaking by port index may legitimately change the schedule otherwise).
``check_coflow_permutation``
    Listing the coflows in another order keeps the objective (order-independent methods, on
    tie-free instances).
``check_scaling``
    Scaling all sizes and all times by 2 doubles the objective.
``check_isolated_lower_bound``
    The objective is at least ``sum_k w_k (r_k + rho_k)``.
``check_work_conserving`` (tag ``work_conserving``)
    In every interval of the schedule, no released unfinished flow has spare capacity on both
    of its ports.
``check_order_preserving`` (tag ``order_preserving``)
    A released unfinished flow of the ``k``-th coflow of the order with rate 0 has a saturated
    port carrying a flow of a coflow at position ``i <= k``.
``check_ordered_load_bound`` (both tags; Sincronia Lemma 3)
    ``C_{sigma(k)} <= max_{j<=k} r_{sigma(j)} + 2 max_p sum_{j<=k} p_{sigma(j)}^p``.
``check_bssi_guarantees`` (BSSI-type orderings with both tags; zero releases; Theorem 1)
    ``sum w C <= 4 LB_BSSI`` and ``C_{sigma(k)} <= 2 sum_{j<=k} p_{sigma(j)}^{b_k}``.
``check_lp_ordering_guarantee`` (LP orderings with both tags; zero releases)
    ``sum w C <= 4 LP`` with ``LP`` the value of the LP the ordering sorts by.
``check_lower_bound`` / ``check_exact`` (kinds ``bound`` and ``exact``)
    A bound is at most the objective of verified schedules; an optimum is verified, at most
    every heuristic and at least the BSSI dual bound.  An exact method of the *integral*
    model (tag ``integral_model``) is checked in that model instead: its slotted schedule
    verifies in :func:`coflowopt.slotted.verify_slotted` at exactly its value, which is at
    least the fluid BSSI dual bound and the integral isolation bound, and (optimal) at most
    independent integral schedules (:func:`integral_reference_schedules`); it is never
    compared with fluid schedules (the integral optimum may exceed them).

``check_slotted`` (kind ``slotted``: the integral matching model)
    The :class:`~coflowopt.slotted.SlottedSchedule` verifies in
    :func:`~coflowopt.slotted.verify_slotted` (exact integers) and its fluid form in the fluid
    verifier at the same value; two runs give the same entries; the instance is unchanged;
    the value is at least the integral isolation bound and the fluid BSSI dual bound; with
    ``work_conserving`` every slot is a maximal allocation, with ``order_preserving`` a
    prefix-maximal one in the recorded order; on tiny instances it is at least the integral
    optimum that ``integral-mip`` proves (:func:`integral_optimum`).  Slotted algorithms are
    never run as fluid schedulers (:func:`schedulers` enumerates fluid kinds only).
``check_lp_rounding_guarantee`` (slotted LP roundings with a proof, :data:`LP_ROUNDINGS`)
    ``best piece <= E <= rho LP`` with ``LP`` the rounded LP solution's value and ``rho`` the
    factor its document proves (``proofs/lp-deadline-greedy.md``, ``interval-groups.md``,
    ``lp-deadline-iterated.md``; an additive term where the proof has one); the default
    (deterministic) schedule is the best piece, so ``ALG <= rho LP``; every piece within its
    per-piece factor where one is proved; where the integral optimum is proved, ``LP <= OPT
    <= ALG <= rho OPT``.  :func:`check_slotted` runs it for these algorithms.
``check_slow_motion_guarantee`` (policy ``slow-motion``)
    ``best piece <= E <= 2 gamma (LP + delta sum w) + 2 sigma sum w`` (the recorded
    guarantee), the compacted schedule no dearer than its replay, and, given a proved fluid
    optimum, ``E <= 2 OPT + 4 delta sum w`` (``proofs/slow-motion.md``).

Tolerances are relative, 1e-9 for objectives and times and 1e-7 for port saturation.

Instances over resources (topologies)
-------------------------------------
Every check runs on an instance over resources too (``instance.is_big_switch`` false), on the
flow-to-resource incidence (``flow_resource_ptr`` / ``flow_resource``, ``capacity`` per
resource) instead of the two ports of a flow; on a big switch each check keeps its original
code path (a branch on ``is_big_switch``), so the big-switch suite is unchanged.  What the
checks become (``proofs/resource-model-guarantees.md``, ``L`` the longest path):

``check_refuses_resources`` (an algorithm tagged ``big_switch_only``)
    Running it raises :class:`~coflowopt.exceptions.NotSupportedError`; it is then the only
    check that applies (:func:`applicable_checks`).
``check_port_relabelling``
    Renumbering the resources (capacities, paths and names permuted consistently) and the
    hosts keeps the objective.
``check_work_conserving``
    No released unfinished flow has spare capacity on every resource of its path.
``check_order_preserving``
    A released unfinished flow of ``sigma(k)`` with rate 0 has a saturated resource on its
    path carrying a flow of a coflow at a position ``<= k``.
``check_prefix_maximal`` (both tags; on resources only, see its docstring)
    Every released unfinished flow of ``sigma(k)`` has a resource on its path whose capacity
    is used entirely by flows of ``sigma(1..k)`` (the hypothesis of the lemma below).
``check_ordered_load_bound``
    Lemma 3 over paths (statement 1), per flow: ``C_f <= r_{sigma(k)} + sum_{r in P(f)}
    sum_{j<=k} p_{sigma(j)}^r`` (``<= r_{sigma(k)} + L L_k``; the big switch is ``L = 2``).
``check_bssi_guarantees``
    Zero releases (statement 2): ``C_{sigma(k)} <= l_{sigma(k)} sum_{j<=k}
    p_{sigma(j)}^{b_k}`` with ``l_{sigma(k)}`` the coflow's longest path and ``b_k`` BSSI's
    bottleneck, and ``sum w C <= 2 L LB_BSSI`` (the big switch: 4); also, the load at ``b_k``
    is the largest prefix load ``L_k`` (what the proof applies Lemma 5 to).
``check_lp_ordering_guarantee``
    Zero releases (statement 4): ``sum w C <= 2 L LP``.

Nothing about release dates is checked on resources beyond the per-flow lemma (which holds
with them); the statements with releases (3, and 4's ``2 L + 1``) are not checked here, as on
the big switch, where the theorem checks also need zero releases.
:func:`random_topology_instance` and :func:`topology_instances` draw small topology instances
(fat-tree ``k = 4``, leaf-spine 2x2 with 2 hosts per leaf at oversubscription 2 or 4, a small
random graph), run by ``tests/test_conformance_resources.py``.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping

import numpy as np

from .instance import Instance
from .results import DEADLINE_OBJECTIVES
from .registry import Algorithm, algorithms, get_algorithm, rate_aware_params
from .schedule import Schedule
from .verify import VerificationReport, verify_schedule

__all__ = ["Scheduler", "RunResult", "as_scheduler", "schedulers", "load_all_algorithms",
           "applicable_checks", "random_instance",
           "check_algorithm", "check_verified", "check_same_seed_same_schedule",
           "check_instance_not_mutated", "check_port_relabelling", "check_coflow_permutation",
           "check_scaling", "check_isolated_lower_bound", "check_work_conserving",
           "check_order_preserving", "check_ordered_load_bound", "check_bssi_guarantees",
           "check_lp_ordering_guarantee", "LP_ORDERINGS",
           "check_lp_rounding_guarantee", "LP_ROUNDINGS", "check_slow_motion_guarantee",
           "check_lower_bound", "check_exact", "integral_reference_schedules",
           "check_slotted", "integral_version", "integral_optimum",
           "integral_isolation_bound",
           "interval_rates", "instances",
           "sincronia_fig1", "digest_ts3", "digest_ts4",
           "check_refuses_resources", "check_prefix_maximal", "relabel_resources",
           "big_switch_as_paths", "random_topology_instance", "topology_instances",
           "TOPOLOGIES",
           "THEOREM_ORDERINGS", "RTOL", "SATURATION_RTOL", "DEFAULT_SEED"]

#: Relative tolerance for objectives and completion times.
RTOL = 1e-9
#: A port is saturated when its load is within this fraction of its capacity.
SATURATION_RTOL = 1e-7
#: Seed given to randomised algorithms.
DEFAULT_SEED = 12345


# ---------------------------------------------------------------------------------- schedulers
@dataclass(frozen=True)
class RunResult:
    """One run: the schedule, the order used (None for policies that record none) and the
    verifier's report."""

    schedule: Schedule
    order: np.ndarray | None
    report: VerificationReport


@dataclass(frozen=True)
class Scheduler:
    """An algorithm under test: an ordering with a rate allocation, or a policy.

    Attributes
    ----------
    label : str
        ``"order+rates"`` or the policy name.
    ordering, rates, policy : Algorithm or None
    order_params, rate_params, policy_params : dict
    """

    label: str
    ordering: Algorithm | None = None
    rates: Algorithm | None = None
    policy: Algorithm | None = None
    order_params: dict = field(default_factory=dict)
    rate_params: dict = field(default_factory=dict)
    policy_params: dict = field(default_factory=dict)

    @property
    def parts(self) -> tuple[Algorithm, ...]:
        return tuple(a for a in (self.ordering, self.rates, self.policy) if a is not None)

    @property
    def tags(self) -> frozenset:
        """Tags that describe the schedule: the rate allocation's (or the policy's) tags for
        schedule properties, plus ``randomized``/``exponential``/``weights`` from either part.
        """
        if self.policy is not None:
            return self.policy.tags
        shared = {"randomized", "exponential", "slow"}
        t = set(self.rates.tags) | (set(self.ordering.tags) & shared)
        if "weights" in self.ordering.tags:
            t.add("weights")
        for restriction in ("uniform_capacity_only", "zero_release_only"):
            if restriction in self.ordering.tags:
                t.add(restriction)
        return frozenset(t)

    @property
    def big_switch_only(self) -> bool:
        """Whether some part is tagged ``big_switch_only`` (the scheduler then refuses an
        instance over resources)."""
        return any("big_switch_only" in a.tags for a in self.parts)

    @property
    def supports_releases(self) -> bool:
        """Whether the schedules respect release dates (the part that sends must say so)."""
        sender = self.policy if self.policy is not None else self.rates
        return "release_dates" in sender.tags

    @property
    def supports_heterogeneous(self) -> bool:
        if "uniform_capacity_only" in self.tags:
            return False
        sender = self.policy if self.policy is not None else self.rates
        return "heterogeneous_capacities" in sender.tags

    def _params(self, alg: Algorithm, params: Mapping, seed) -> dict:
        p = dict(params)
        if "randomized" in alg.tags and seed is not None:
            p.setdefault("seed", seed)
        return p

    def order(self, instance: Instance, seed: int | None = DEFAULT_SEED) -> np.ndarray | None:
        """The order this scheduler uses on ``instance`` (None for a policy without one)."""
        if self.ordering is None:
            return None
        params = self._params(self.ordering, self.order_params, seed)
        if self.rates is not None:
            params = rate_aware_params(self.ordering, params, self.rates, self.rate_params)
        return np.asarray(self.ordering.func(instance, **params), dtype=np.int64)

    def run(self, instance: Instance, seed: int | None = DEFAULT_SEED) -> RunResult:
        """Schedule ``instance`` and verify the schedule (float mode)."""
        if self.policy is not None:
            sched = self.policy.func(instance,
                                     **self._params(self.policy, self.policy_params, seed))
            order = sched.meta.get("order")
            order = None if order is None else np.asarray(order, dtype=np.int64)
        else:
            order = self.order(instance, seed)
            sched = self.rates.func(instance, order,
                                    **self._params(self.rates, self.rate_params, seed))
        return RunResult(sched, order, verify_schedule(instance, sched))

    def __str__(self) -> str:
        return self.label


def as_scheduler(spec, *, order_params: Mapping | None = None,
                 rate_params: Mapping | None = None,
                 policy_params: Mapping | None = None) -> Scheduler:
    """A :class:`Scheduler` from a label, registry entries or a Scheduler.

    Parameters
    ----------
    spec : str, Scheduler, Algorithm or (ordering, rates) tuple
        ``"bssi+greedy"``, ``"varys"`` (a policy), ``(get_algorithm("ordering", "bssi"),
        get_algorithm("rates", "greedy"))`` or a policy :class:`Algorithm`.

    Raises
    ------
    InvalidParameterError
        For unknown names (from the registry).
    TypeError
        For anything else.
    """
    if isinstance(spec, Scheduler):
        return spec
    op, rp, pp = dict(order_params or {}), dict(rate_params or {}), dict(policy_params or {})
    if isinstance(spec, str):
        if "+" in spec:
            o, r = spec.split("+", 1)
            spec = (get_algorithm("ordering", o), get_algorithm("rates", r))
        else:
            spec = get_algorithm("policy", spec)
    if isinstance(spec, Algorithm):
        if spec.kind == "slotted":
            raise TypeError(f"slotted {spec.name!r} schedules in the integral model (a "
                            "SlottedSchedule, not a fluid Schedule): check it with "
                            "check_slotted")
        if spec.kind != "policy":
            raise TypeError(f"a lone {spec.kind} {spec.name!r} is not a scheduler; pair an "
                            "ordering with a rate allocation")
        return Scheduler(spec.name, policy=spec, policy_params=pp)
    if isinstance(spec, tuple) and len(spec) == 2:
        o, r = spec
        return Scheduler(f"{o.name}+{r.name}", ordering=o, rates=r, order_params=op,
                         rate_params=rp)
    raise TypeError(f"cannot make a scheduler from {spec!r}")


def load_all_algorithms() -> None:
    """Import every subpackage of coflowopt, so that algorithms registered outside the
    registry's own package list (e.g. ``coflowopt.fairness``) are registered too.

    Only packages are imported (their ``__init__``), never loose modules: solver worker
    scripts that must run in a subprocess are not touched.
    """
    import importlib
    import pkgutil

    import coflowopt
    for mod in pkgutil.iter_modules(coflowopt.__path__):
        if mod.ispkg and not mod.name.startswith("_"):
            importlib.import_module(f"coflowopt.{mod.name}")


def schedulers() -> list[Scheduler]:
    """Every registered ordering combined with every registered rate allocation, then every
    policy, sorted by label (after :func:`load_all_algorithms`).  Fluid schedulers only: the
    slotted algorithms of the integral model (kind ``slotted``) are checked by
    :func:`check_slotted`."""
    load_all_algorithms()
    out = [as_scheduler((o, r)) for o in algorithms("ordering") for r in algorithms("rates")]
    out += [as_scheduler(p) for p in algorithms("policy")]
    return sorted(out, key=lambda s: s.label)


# ---------------------------------------------------------------------------------- helpers
def _name(alg: Scheduler, instance: Instance) -> str:
    iname = instance.meta.get("library_name") or instance.meta.get("name") or repr(instance)
    return f"{alg.label} on {iname}"


def _close(a: float, b: float, rtol: float = RTOL) -> bool:
    return abs(a - b) <= rtol * max(abs(a), abs(b), 1.0)


def _ok_run(alg: Scheduler, instance: Instance, run: RunResult | None = None,
            seed: int | None = DEFAULT_SEED) -> RunResult:
    run = run if run is not None else alg.run(instance, seed)
    if not run.report.ok:
        raise AssertionError(f"{_name(alg, instance)}: schedule rejected by the verifier: "
                             f"{run.report.summary()}; first violations: "
                             f"{[v.message for v in run.report.violations[:3]]}")
    return run


def _objective(alg, instance, seed=DEFAULT_SEED) -> float:
    return float(_ok_run(alg, instance, seed=seed).report.weighted_completion_time)


# ---------------------------------------------------------------------------------- checks
def check_verified(algorithm, instance: Instance, *, run: RunResult | None = None) -> None:
    """The schedule passes the independent verifier (feasible, complete)."""
    _ok_run(as_scheduler(algorithm), instance, run)


def check_same_seed_same_schedule(algorithm, instance: Instance, *,
                                  run: RunResult | None = None) -> None:
    """Two runs with the same seed produce exactly the same pieces."""
    alg = as_scheduler(algorithm)
    a = (run if run is not None else alg.run(instance)).schedule.sorted()
    b = alg.run(instance).schedule.sorted()
    same = (a.num_pieces == b.num_pieces and np.array_equal(a.flow, b.flow)
            and all(np.array_equal(x, y) for x, y in ((a.start, b.start), (a.end, b.end),
                                                       (a.rate, b.rate))))
    if not same:
        raise AssertionError(f"{_name(alg, instance)}: two runs with seed {DEFAULT_SEED} gave "
                             f"different schedules ({a.num_pieces} vs {b.num_pieces} pieces)")


_ARRAYS = ("ingress_capacity", "egress_capacity", "weight", "release", "deadline", "flow_ptr",
           "flow_src", "flow_dst", "flow_size")
#: The arrays of an instance over resources, checked in addition to :data:`_ARRAYS`.
_RESOURCE_ARRAYS = ("resource_capacity", "path_ptr", "path_resource")


def check_instance_not_mutated(algorithm, instance: Instance) -> None:
    """Running the algorithm leaves the instance's arrays, ids and meta unchanged (on
    resources also the capacities, paths, resource and host ids)."""
    alg = as_scheduler(algorithm)
    arrays = _ARRAYS if instance.is_big_switch else _ARRAYS + _RESOURCE_ARRAYS
    before = {n: np.array(getattr(instance, n), copy=True) for n in arrays}
    ids, meta = instance.coflow_ids, copy.deepcopy(instance.meta)
    names = (instance.resource_ids, instance.host_ids)
    alg.run(instance)
    if (instance.resource_ids, instance.host_ids) != names:
        raise AssertionError(f"{_name(alg, instance)}: instance resource or host ids were "
                             "modified")
    for n in arrays:
        arr = getattr(instance, n)
        if arr.flags.writeable:
            raise AssertionError(f"{_name(alg, instance)}: instance.{n} was made writeable")
        if not np.array_equal(arr, before[n], equal_nan=True):
            raise AssertionError(f"{_name(alg, instance)}: instance.{n} was modified")
    if instance.coflow_ids != ids or instance.meta != meta:
        raise AssertionError(f"{_name(alg, instance)}: instance ids or meta were modified")


def relabel_resources(instance: Instance, resource_perm, host_perm=None) -> Instance:
    """An instance over resources with resource ``r`` renamed ``resource_perm[r]`` (and host
    ``h`` renamed ``host_perm[h]``): capacities, paths (each path keeps its order, with new
    numbers), resource and host names are permuted consistently, so the model is the same.

    ``meta["topology"]`` (the record of the links in their old numbering) is dropped from the
    copy's meta; every other key is kept.

    Raises
    ------
    InvalidParameterError
        On a big switch (use :meth:`Instance.relabel_ports`) or when a permutation is not one.

    Examples
    --------
    >>> inst = Instance.from_paths(resource_capacity=[1.0, 2.0, 1.0], coflow_ids=["A"],
    ...     flow_coflow=[0], flow_src=[0], flow_dst=[1], flow_size=[2.0], path_ptr=[0, 2],
    ...     path_resource=[0, 1], host_ids=["a", "c"])
    >>> other = relabel_resources(inst, [2, 0, 1])
    >>> other.capacity.tolist(), other.flow_resource.tolist(), other.rho.tolist()
    ([2.0, 1.0, 1.0], [2, 0], [2.0])
    """
    from .exceptions import InvalidParameterError
    if instance.is_big_switch:
        raise InvalidParameterError("relabel_resources takes an instance over resources; "
                                    "relabel a big switch's ports with relabel_ports")
    R, H = instance.num_resources, instance.num_hosts
    rp = np.asarray(resource_perm, dtype=np.int64)
    hp = np.arange(H) if host_perm is None else np.asarray(host_perm, dtype=np.int64)
    if sorted(rp.tolist()) != list(range(R)) or sorted(hp.tolist()) != list(range(H)):
        raise InvalidParameterError("resource_perm and host_perm must be permutations of "
                                    "0..R-1 and 0..H-1")
    cap = np.empty_like(instance.resource_capacity)
    cap[rp] = instance.resource_capacity
    rids = hids = None
    if instance.resource_ids is not None:
        rids = [""] * R
        for r, name in enumerate(instance.resource_ids):
            rids[rp[r]] = name
    if instance.host_ids is not None:
        hids = [""] * H
        for h, name in enumerate(instance.host_ids):
            hids[hp[h]] = name
    meta = {k: v for k, v in instance.meta.items() if k != "topology"}
    return instance.replace(resource_capacity=cap, path_resource=rp[instance.path_resource],
                            resource_ids=None if rids is None else tuple(rids),
                            host_ids=None if hids is None else tuple(hids),
                            flow_src=hp[instance.flow_src], flow_dst=hp[instance.flow_dst],
                            meta=meta)


def check_port_relabelling(algorithm, instance: Instance, *, seed: int = 0) -> None:
    """Renaming the ports (a random permutation of ingress and of egress ports) keeps the
    objective.  Use tie-free instances: rules that break ties by port index may change the
    schedule when loads tie.

    On an instance over resources, the resources and the hosts are renamed
    (:func:`relabel_resources`): capacities, paths and names permuted consistently.  This
    also catches code that reads ``flow_src`` / ``flow_dst`` (hosts there) as resources."""
    alg = as_scheduler(algorithm)
    rng = np.random.default_rng(seed)
    if not instance.is_big_switch:
        other = relabel_resources(instance, rng.permutation(instance.num_resources),
                                  rng.permutation(instance.num_hosts))
        a, b = _objective(alg, instance), _objective(alg, other)
        if not _close(a, b):
            raise AssertionError(f"{_name(alg, instance)}: renumbering the resources and hosts "
                                 f"changed the objective from {a!r} to {b!r}")
        return
    other = instance.relabel_ports(rng.permutation(instance.num_ingress),
                                   rng.permutation(instance.num_egress))
    a, b = _objective(alg, instance), _objective(alg, other)
    if not _close(a, b):
        raise AssertionError(f"{_name(alg, instance)}: relabelling the ports changed the "
                             f"objective from {a!r} to {b!r}")


def check_coflow_permutation(algorithm, instance: Instance, *, seed: int = 0) -> None:
    """Listing the coflows in another order keeps the objective (for methods that do not
    break ties by instance order; use tie-free instances)."""
    alg = as_scheduler(algorithm)
    perm = np.random.default_rng(seed).permutation(instance.num_coflows)
    other = instance.select_coflows(perm)
    a, b = _objective(alg, instance), _objective(alg, other)
    if not _close(a, b):
        raise AssertionError(f"{_name(alg, instance)}: permuting the coflows ({perm.tolist()}) "
                             f"changed the objective from {a!r} to {b!r}")


def check_scaling(algorithm, instance: Instance, *, factor: float = 2.0) -> None:
    """Scaling every size and every time (releases, deadlines) by ``factor`` scales the
    objective by ``factor``: the model has no absolute time or data unit."""
    alg = as_scheduler(algorithm)
    a = _objective(alg, instance)
    b = _objective(alg, instance.scaled(factor, factor))
    if not _close(factor * a, b):
        raise AssertionError(f"{_name(alg, instance)}: scaling sizes and times by {factor} "
                             f"gave objective {b!r}, expected {factor * a!r}")


def check_isolated_lower_bound(algorithm, instance: Instance, *,
                               run: RunResult | None = None) -> None:
    """``sum_k w_k C_k >= sum_k w_k (r_k + rho_k)``: no coflow beats its isolated time."""
    alg = as_scheduler(algorithm)
    rep = _ok_run(alg, instance, run).report
    cc = np.asarray(rep.coflow_completion, dtype=float)
    iso = instance.release + instance.rho
    bad = np.flatnonzero(cc < iso - RTOL * np.maximum(iso, 1.0))
    if bad.size:
        k = int(bad[0])
        raise AssertionError(f"{_name(alg, instance)}: coflow {k} completes at {cc[k]!r}, "
                             f"before release + rho = {iso[k]!r}")
    lb = math.fsum((instance.weight * iso).tolist())
    obj = float(rep.weighted_completion_time)
    if obj < lb - RTOL * max(lb, 1.0):
        raise AssertionError(f"{_name(alg, instance)}: objective {obj!r} < isolated lower "
                             f"bound {lb!r}")


def interval_rates(instance: Instance, schedule: Schedule, flow_completion,
                   *, time_rtol: float = RTOL):
    """Cut time at every piece boundary and release; return the per-interval state.

    Returns
    -------
    dict
        ``start``, ``end`` (T,), ``rate`` (F, T) summed rates, ``active`` (F, T) released and
        unfinished flows, ``load`` (P, T) port loads (unified numbering; on an instance over
        resources, the load of every resource: the sum of the rates of the flows whose path
        contains it), ``spare`` (P, T).
        Intervals shorter than ``time_rtol * max(|t|, H)`` (float slivers) are dropped, ``H``
        the length of the schedule: relative, so that rescaling time never changes a verdict.
    """
    s = schedule.to_float() if schedule.exact else schedule
    rel_f = instance.release[instance.flow_coflow]
    t0 = float(instance.release.min())
    times = np.unique(np.concatenate([s.start, s.end, instance.release]))
    times = times[times >= t0]
    a, b = times[:-1], times[1:]
    F, T, P = instance.num_flows, a.size, instance.num_ports
    D = np.zeros((F, T + 1))
    if s.num_pieces:
        si = np.searchsorted(times, s.start)
        ei = np.searchsorted(times, s.end)
        np.add.at(D, (s.flow, si), s.rate)
        np.add.at(D, (s.flow, ei), -s.rate)
    R = np.cumsum(D, axis=1)[:, :T]
    fc = np.asarray(flow_completion, dtype=float)
    horizon = float(times[-1] - t0) if times.size else 0.0
    slack = time_rtol * np.maximum(horizon, np.abs(a))
    active = (rel_f[:, None] <= a[None, :] + slack) & (fc[:, None] > a[None, :] + slack)
    if instance.is_big_switch:
        load = np.zeros((P, T))
        np.add.at(load, instance.flow_src, R)
        np.add.at(load, instance.flow_egress_port, R)
    else:
        # (R, F) incidence times (F, T) rates: every flow's rate counts on each resource of its
        # path
        load = np.asarray(instance.resource_flow_matrix.T @ R).reshape(P, T)
    spare = instance.capacity[:, None] - load
    keep = (b - a) > slack
    return {"start": a[keep], "end": b[keep], "rate": R[:, keep], "active": active[:, keep],
            "load": load[:, keep], "spare": spare[:, keep]}


def _first(mask):
    f, t = np.nonzero(mask)
    return None if f.size == 0 else (int(f[0]), int(t[0]))


def _on_path(instance: Instance, per_resource: np.ndarray, reduce: np.ufunc) -> np.ndarray:
    """``reduce`` over every flow's path of ``per_resource`` (shape (R, T) or (R,)): shape
    (F, T) or (F,).  Paths are non-empty, so ``reduceat`` never sees an empty segment."""
    return reduce.reduceat(per_resource[instance.flow_resource],
                           instance.flow_resource_ptr[:-1], axis=0)


def _path_names(instance: Instance, f: int) -> list[str]:
    ptr = instance.flow_resource_ptr
    return [instance.resource_names[r] for r in instance.flow_resource[ptr[f]:ptr[f + 1]]]


def _positions(instance: Instance, order: np.ndarray) -> np.ndarray:
    """Position in ``order`` of every flow's coflow, shape (F,)."""
    pos = np.empty(instance.num_coflows, dtype=np.int64)
    pos[order] = np.arange(instance.num_coflows)
    return pos[instance.flow_coflow]


def check_work_conserving(algorithm, instance: Instance, *,
                          run: RunResult | None = None) -> None:
    """In every interval, no released unfinished flow has spare capacity on both its ports.

    Intervals are cut at every piece boundary and release (idle gaps included); spare means
    more than ``SATURATION_RTOL`` of the port's capacity unused.  On an instance over
    resources: no such flow has spare capacity on every resource of its path.
    """
    alg = as_scheduler(algorithm)
    r = _ok_run(alg, instance, run)
    st = interval_rates(instance, r.schedule, r.report.flow_completion)
    tol = SATURATION_RTOL * instance.capacity
    free = st["spare"] > tol[:, None]
    if not instance.is_big_switch:
        _check_work_conserving_resources(alg, instance, st, free)
        return
    bad = st["active"] & free[instance.flow_src] & free[instance.flow_egress_port]
    hit = _first(bad)
    if hit:
        f, t = hit
        raise AssertionError(
            f"{_name(alg, instance)}: not work-conserving: on [{st['start'][t]}, "
            f"{st['end'][t]}) flow {f} (coflow {int(instance.flow_coflow[f])}) is released and "
            f"unfinished, gets rate {st['rate'][f, t]!r}, and both its ports have spare "
            f"capacity ({st['spare'][instance.flow_src[f], t]!r}, "
            f"{st['spare'][instance.flow_egress_port[f], t]!r})")


def _check_work_conserving_resources(alg, instance: Instance, st: dict,
                                     free: np.ndarray) -> None:
    """The resource form of :func:`check_work_conserving`: a released unfinished flow with
    spare capacity on every resource of its path breaks it."""
    bad = st["active"] & _on_path(instance, free, np.logical_and)
    hit = _first(bad)
    if hit:
        f, t = hit
        ptr = instance.flow_resource_ptr
        spare = st["spare"][instance.flow_resource[ptr[f]:ptr[f + 1]], t]
        raise AssertionError(
            f"{_name(alg, instance)}: not work-conserving: on [{st['start'][t]}, "
            f"{st['end'][t]}) flow {f} (coflow {int(instance.flow_coflow[f])}) is released and "
            f"unfinished, gets rate {st['rate'][f, t]!r}, and every resource of its path "
            f"{_path_names(instance, f)} has spare capacity ({spare.tolist()})")


def check_order_preserving(algorithm, instance: Instance, *, run: RunResult | None = None,
                           order=None) -> None:
    """A released unfinished flow of ``sigma(k)`` with rate 0 in an interval has a saturated
    port that carries a flow (with positive rate) of some ``sigma(i)`` with ``i <= k``.

    Why ``i <= k`` and not Definition 1's ``i < k``: flows of one coflow block each other.  Two
    flows of ``sigma(k)`` sharing an ingress port cannot both have the full rate, and Algorithm
    2 serves a coflow's flows one after another, so a flow may wait for its own coflow; what
    order preservation forbids is waiting for a *later* coflow.  (Lemma 3 needs only that the
    blocking port serves coflows ``<= k``.)

    ``order`` defaults to the order the scheduler used (the ordering's output, or a policy's
    ``schedule.meta["order"]``).  On an instance over resources, "port" reads "resource of
    the flow's path"; :func:`check_prefix_maximal` is the stronger form the guarantees need.
    """
    alg = as_scheduler(algorithm)
    r = _ok_run(alg, instance, run)
    order = r.order if order is None else np.asarray(order, dtype=np.int64)
    if order is None:
        raise AssertionError(f"{_name(alg, instance)}: no order to check against (a policy "
                             "tagged order_preserving should record schedule.meta['order'])")
    st = interval_rates(instance, r.schedule, r.report.flow_completion)
    if not instance.is_big_switch:
        _check_order_preserving_resources(alg, instance, st, order)
        return
    K = instance.num_coflows
    pos = np.empty(K, dtype=np.int64)
    pos[order] = np.arange(K)
    fpos = pos[instance.flow_coflow]
    R = st["rate"]
    # a rate is "sending" relative to the smaller capacity of its two ports
    sending = R > 1e-12 * np.minimum(instance.capacity[instance.flow_src],
                                     instance.capacity[instance.flow_egress_port])[:, None]
    T = R.shape[1]
    big = np.iinfo(np.int64).max
    minpos = np.full((instance.num_ports, T), big, dtype=np.int64)
    val = np.where(sending, fpos[:, None], big)
    np.minimum.at(minpos, instance.flow_src, val)
    np.minimum.at(minpos, instance.flow_egress_port, val)
    sat = st["spare"] <= SATURATION_RTOL * instance.capacity[:, None]
    src, dst = instance.flow_src, instance.flow_egress_port
    blocked_ok = ((sat[src] & (minpos[src] <= fpos[:, None]))
                  | (sat[dst] & (minpos[dst] <= fpos[:, None])))
    bad = st["active"] & ~sending & ~blocked_ok
    hit = _first(bad)
    if hit:
        f, t = hit
        raise AssertionError(
            f"{_name(alg, instance)}: not order-preserving: on [{st['start'][t]}, "
            f"{st['end'][t]}) flow {f} of coflow {int(instance.flow_coflow[f])} (position "
            f"{int(fpos[f])} in the order) has rate 0 but neither port is saturated by a flow "
            f"of a coflow at a position <= {int(fpos[f])} (spare "
            f"{st['spare'][src[f], t]!r}, {st['spare'][dst[f], t]!r})")


def _sending(instance: Instance, rate: np.ndarray) -> np.ndarray:
    """(F, T): a rate counts as sending relative to the smallest capacity of the flow's path."""
    return rate > 1e-12 * instance.flow_bottleneck_capacity[:, None]


def _check_order_preserving_resources(alg, instance: Instance, st: dict,
                                      order: np.ndarray) -> None:
    """The resource form of :func:`check_order_preserving`: a released unfinished flow of
    ``sigma(k)`` with rate 0 has a saturated resource on its path that carries a sending flow
    of a coflow at a position ``<= k``."""
    fpos = _positions(instance, order)
    sending = _sending(instance, st["rate"])
    T = sending.shape[1]
    big = np.iinfo(np.int64).max
    # the smallest position sending through each resource in each interval
    entry_flow = np.repeat(np.arange(instance.num_flows), instance.path_length)
    minpos = np.full((instance.num_resources, T), big, dtype=np.int64)
    np.minimum.at(minpos, instance.flow_resource,
                  np.where(sending, fpos[:, None], big)[entry_flow])
    sat = st["spare"] <= SATURATION_RTOL * instance.capacity[:, None]
    # per path entry: its resource is saturated and carries a position <= the flow's
    blocks = sat[instance.flow_resource] & \
        (minpos[instance.flow_resource] <= fpos[entry_flow][:, None])
    blocked_ok = np.logical_or.reduceat(blocks, instance.flow_resource_ptr[:-1], axis=0)
    bad = st["active"] & ~sending & ~blocked_ok
    hit = _first(bad)
    if hit:
        f, t = hit
        ptr = instance.flow_resource_ptr
        spare = st["spare"][instance.flow_resource[ptr[f]:ptr[f + 1]], t]
        raise AssertionError(
            f"{_name(alg, instance)}: not order-preserving: on [{st['start'][t]}, "
            f"{st['end'][t]}) flow {f} of coflow {int(instance.flow_coflow[f])} (position "
            f"{int(fpos[f])} in the order) has rate 0 but no resource of its path "
            f"{_path_names(instance, f)} is saturated by a flow of a coflow at a position <= "
            f"{int(fpos[f])} (spare {spare.tolist()})")


def check_prefix_maximal(algorithm, instance: Instance, *, run: RunResult | None = None,
                         order=None) -> None:
    """Prefix-maximality for the order used: in every interval, every released unfinished
    flow of ``sigma(k)`` has a resource on its path whose capacity is used entirely (up to
    ``SATURATION_RTOL``) by flows of ``sigma(1..k)``.

    This is the hypothesis of Lemma 3 (``proofs/ordered-load-lemma3.md``; over paths,
    ``proofs/resource-model-guarantees.md`` statement 1), stronger than
    :func:`check_order_preserving`: a flow that runs is covered too (with its own rate, since
    it belongs to ``sigma(1..k)``), so one running at half rate on a resource shared with a
    *later* coflow while the rest of its path idles breaks it.  Greedy has it by
    construction: each flow in order takes the smallest residual on its path, leaving that
    resource saturated by flows at positions ``<= k``.

    Works on a big switch too (paths ``[i, m_in + j]``); :func:`applicable_checks` runs it on
    instances over resources, where it guards the ``L``-factor guarantees.

    Notes
    -----
    The load of every prefix at every resource is built as a (K, R, T) array: fine for the
    suite's small instances, not meant for traces.

    Examples
    --------
    >>> inst = random_topology_instance(np.random.default_rng(1), topology="fat-tree-k4")
    >>> check_prefix_maximal("bssi+greedy", inst)      # passes: returns None
    """
    alg = as_scheduler(algorithm)
    r = _ok_run(alg, instance, run)
    order = r.order if order is None else np.asarray(order, dtype=np.int64)
    if order is None:
        raise AssertionError(f"{_name(alg, instance)}: no order to check prefix-maximality "
                             "against")
    st = interval_rates(instance, r.schedule, r.report.flow_completion)
    K, R = instance.num_coflows, instance.num_resources
    T = st["rate"].shape[1]
    fpos = _positions(instance, order)
    entry_flow = np.repeat(np.arange(instance.num_flows), instance.path_length)
    by_pos = np.zeros((K, R, T))
    np.add.at(by_pos, (fpos[entry_flow], instance.flow_resource), st["rate"][entry_flow])
    prefix = np.cumsum(by_pos, axis=0)
    full = prefix >= (instance.capacity * (1 - SATURATION_RTOL))[None, :, None]
    # the first position whose prefix saturates each resource (K when none does)
    first_full = np.where(full.any(axis=0), full.argmax(axis=0), K)
    covered = _on_path(instance, first_full, np.minimum) <= fpos[:, None]
    bad = st["active"] & ~covered
    hit = _first(bad)
    if hit:
        f, t = hit
        ptr = instance.flow_resource_ptr
        res = instance.flow_resource[ptr[f]:ptr[f + 1]]
        used = prefix[fpos[f], res, t]
        raise AssertionError(
            f"{_name(alg, instance)}: not prefix-maximal: on [{st['start'][t]}, "
            f"{st['end'][t]}) flow {f} of coflow {int(instance.flow_coflow[f])} (position "
            f"{int(fpos[f])}) is released and unfinished (rate {st['rate'][f, t]!r}) but no "
            f"resource of its path {_path_names(instance, f)} is saturated by the coflows at "
            f"positions <= {int(fpos[f])} (they use {used.tolist()} of capacities "
            f"{instance.capacity[res].tolist()})")


def _ordered_loads(instance: Instance, order: np.ndarray) -> np.ndarray:
    """``max_p sum_{j<=k} p_{sigma(j)}^p`` for k = 1..K (processing times ``d / c``)."""
    from .orderings.bssi import processing_times
    M = processing_times(instance).tocsr()[order].toarray()
    return np.cumsum(M, axis=0).max(axis=1)


def check_ordered_load_bound(algorithm, instance: Instance, *,
                             run: RunResult | None = None) -> None:
    """Sincronia Lemma 3 for the order used: ``C_{sigma(k)} <= max_{j<=k} r_{sigma(j)} +
    2 max_p sum_{j<=k} d_{sigma(j)}^p / c_p``.

    Holds for any order and any work-conserving, order-preserving allocation: from the last
    release among the first ``k`` coflows until ``C_{sigma(k)}``, one port of the last flow of
    ``sigma(k)`` is saturated by coflows at positions ``<= k`` at every instant.

    On an instance over resources, Lemma 3 over paths
    (``proofs/resource-model-guarantees.md``, statement 1), per flow: ``C_f <= r_{sigma(k)} +
    sum_{r in P(f)} sum_{j<=k} p_{sigma(j)}^r`` for a flow ``f`` of ``sigma(k)`` (hence
    ``C_{sigma(k)} <= r_{sigma(k)} + L L_k``): while ``f`` waits, some resource of its path is
    saturated by ``sigma(1..k)``, and resource ``r`` can be so for at most the prefix's
    processing time at ``r``.  The release form holds per flow, so this is checked with
    releases too.
    """
    alg = as_scheduler(algorithm)
    r = _ok_run(alg, instance, run)
    if r.order is None:
        raise AssertionError(f"{_name(alg, instance)}: no order recorded")
    order = r.order
    if not instance.is_big_switch:
        _check_path_lemma(alg, instance, r, order)
        return
    cc = np.asarray(r.report.coflow_completion, dtype=float)[order]
    bound = np.maximum.accumulate(instance.release[order]) + 2 * _ordered_loads(instance, order)
    bad = np.flatnonzero(cc > bound + RTOL * np.maximum(bound, 1.0))
    if bad.size:
        i = int(bad[0])
        raise AssertionError(f"{_name(alg, instance)}: coflow {int(order[i])} (position {i}) "
                             f"completes at {cc[i]!r} > Lemma 3's bound {bound[i]!r}")


def _prefix_loads(instance: Instance, order: np.ndarray) -> np.ndarray:
    """``prefix[k, r] = sum_{j<=k} p_{sigma(j)}^r`` (position-indexed), shape (K, R)."""
    from .orderings.bssi import processing_times
    return np.cumsum(processing_times(instance).tocsr()[order].toarray(), axis=0)


def _path_lemma_bounds(instance: Instance, order: np.ndarray) -> np.ndarray:
    """Per flow ``f`` of ``sigma(k)``: ``r_{sigma(k)} + sum_{r in P(f)} prefix[k, r]``."""
    prefix = _prefix_loads(instance, order)
    fpos = _positions(instance, order)
    entry_flow = np.repeat(np.arange(instance.num_flows), instance.path_length)
    path_sum = np.add.reduceat(prefix[fpos[entry_flow], instance.flow_resource],
                               instance.flow_resource_ptr[:-1])
    return instance.release[instance.flow_coflow] + path_sum


def _check_path_lemma(alg, instance: Instance, r: RunResult, order: np.ndarray) -> None:
    bound = _path_lemma_bounds(instance, order)
    fc = np.asarray(r.report.flow_completion, dtype=float)
    bad = np.flatnonzero(fc > bound + RTOL * np.maximum(bound, 1.0))
    if bad.size:
        f = int(bad[0])
        k = int(instance.flow_coflow[f])
        raise AssertionError(
            f"{_name(alg, instance)}: flow {f} of coflow {k} (position "
            f"{int(_positions(instance, order)[f])}) completes at {fc[f]!r} > release + the "
            f"ordered loads summed over its path {_path_names(instance, f)} = {bound[f]!r} "
            "(Lemma 3 over paths, proofs/resource-model-guarantees.md)")


def _bssi_params(alg: Scheduler) -> dict:
    return {k: v for k, v in alg.order_params.items() if k in ("tie_break", "release")}


#: Orderings whose run yields BSSI's duals: name -> function(instance, scheduler) returning the
#: :class:`~coflowopt.orderings.bssi.BssiDualBound` whose order the ordering outputs.  An
#: ordering added here is checked against Theorem 1 (``4 LB``) and Lemma 3 at ``b_k``.
THEOREM_ORDERINGS: dict[str, Callable] = {
    "bssi": lambda inst, alg: _bssi_bound(inst, **_bssi_params(alg)),
    # Mastrolilli et al.'s algorithm is BSSI with first-index ties (tested in test_bssi.py)
    "mastrolilli": lambda inst, alg: _bssi_bound(inst, tie_break="first", release="ignore"),
}


def _bssi_bound(instance, **params):
    from .orderings.bssi import bssi_dual_bound
    return bssi_dual_bound(instance, **params)


def check_bssi_guarantees(algorithm, instance: Instance, *,
                          run: RunResult | None = None) -> None:
    """Theorem 1 of Sincronia on a zero-release instance, with the duals as witness.

    For a BSSI-type ordering (:data:`THEOREM_ORDERINGS`) and a work-conserving,
    order-preserving rate allocation: every coflow meets ``C_{sigma(k)} <= 2 sum_{j<=k}
    p_{sigma(j)}^{b_k}`` (Lemma 3 at BSSI's bottleneck ``b_k``) and ``sum_k w_k C_k <= 4 LB``
    with ``LB`` the BSSI dual bound (Lemma 5: ``sum_k w_k load_k <= 2 LB``).

    On an instance over resources with paths of at most ``L`` resources
    (``proofs/resource-model-guarantees.md``, statement 2): ``C_{sigma(k)} <= l_{sigma(k)}
    sum_{j<=k} p_{sigma(j)}^{b_k}`` (``l`` the coflow's longest path) and ``sum w C <= 2 L
    LB``; the big switch is ``L = 2``.
    """
    alg = as_scheduler(algorithm)
    if alg.ordering is None or alg.ordering.name not in THEOREM_ORDERINGS:
        raise AssertionError(f"{alg.label}: not a BSSI-type ordering")
    if instance.has_releases:
        raise AssertionError("check_bssi_guarantees needs an instance without release dates")
    r = _ok_run(alg, instance, run)
    lb = THEOREM_ORDERINGS[alg.ordering.name](instance, alg)
    if not np.array_equal(lb.order, r.order):
        raise AssertionError(f"{_name(alg, instance)}: the order {r.order.tolist()} is not the "
                             f"BSSI order {lb.order.tolist()}")
    if not instance.is_big_switch:
        _check_bssi_guarantees_resources(alg, instance, r, lb)
        return
    cc = np.asarray(r.report.coflow_completion, dtype=float)[lb.order]
    cap = 2 * np.asarray(lb.load, dtype=float)
    bad = np.flatnonzero(cc > cap + RTOL * np.maximum(cap, 1.0))
    if bad.size:
        i = int(bad[0])
        raise AssertionError(f"{_name(alg, instance)}: coflow {int(lb.order[i])} completes at "
                             f"{cc[i]!r} > 2 x its ordered load at b_k = {cap[i]!r} (Lemma 3)")
    obj = float(r.report.weighted_completion_time)
    if obj > 4 * lb.value * (1 + RTOL) + RTOL:
        raise AssertionError(f"{_name(alg, instance)}: objective {obj!r} > 4 x the BSSI dual "
                             f"bound {lb.value!r} (Theorem 1)")


def _check_bssi_guarantees_resources(alg, instance: Instance, r: RunResult, lb) -> None:
    """Statement 2 of ``proofs/resource-model-guarantees.md`` (zero releases): with ``L_k`` the
    load at BSSI's bottleneck ``b_k`` -- the largest prefix load, checked here since the proof
    needs it -- ``C_{sigma(k)} <= l_{sigma(k)} L_k`` (``l`` the coflow's longest path) and
    ``sum w C <= L sum w L_k <= 2 L LB``."""
    order = lb.order
    load = np.asarray(lb.load, dtype=float)
    largest = _prefix_loads(instance, order).max(axis=1)
    if not np.allclose(load, largest, rtol=1e-9, atol=0.0):
        i = int(np.flatnonzero(~np.isclose(load, largest, rtol=1e-9, atol=0.0))[0])
        raise AssertionError(f"{_name(alg, instance)}: BSSI's load at its bottleneck at "
                             f"position {i} is {load[i]!r}, not the largest prefix load "
                             f"{largest[i]!r}")
    longest = np.maximum.reduceat(instance.path_length, instance.flow_ptr[:-1])[order]
    cc = np.asarray(r.report.coflow_completion, dtype=float)[order]
    cap = longest * load
    bad = np.flatnonzero(cc > cap + RTOL * np.maximum(cap, 1.0))
    if bad.size:
        i = int(bad[0])
        raise AssertionError(f"{_name(alg, instance)}: coflow {int(order[i])} completes at "
                             f"{cc[i]!r} > its longest path ({int(longest[i])}) x its ordered "
                             f"load at b_k = {cap[i]!r} (Lemma 3 over paths)")
    L = instance.max_path_length
    obj = float(r.report.weighted_completion_time)
    if obj > 2 * L * lb.value * (1 + RTOL) + RTOL:
        raise AssertionError(f"{_name(alg, instance)}: objective {obj!r} > 2L = {2 * L} x the "
                             f"BSSI dual bound {lb.value!r} (proofs/resource-model-guarantees.md"
                             ", statement 2)")


#: Orderings that sort by the completion times of an LP with the parallel inequalities (or
#: constraints implying them), mapped to the registered *bound* that solves that LP.  In the
#: LP's order ``1/2 sum_{j<=k} p_j^p <= C_k^LP`` for every port (the parallel inequality on the
#: prefix set), so with Lemma 3 a work-conserving, order-preserving allocation has
#: ``sum w C <= 4 LP`` when releases are 0 (Shafiee and Ghaderi, ToN 2018; Queyranne 1993).
LP_ORDERINGS: dict[str, str] = {"lp-ov": "lp-ov", "ordering-lp": "ordering-lp"}


def check_lp_ordering_guarantee(algorithm, instance: Instance, *,
                                run: RunResult | None = None) -> None:
    """``sum_k w_k C_k <= 4 LP`` for an LP-based ordering (:data:`LP_ORDERINGS`) with a
    work-conserving, order-preserving allocation on a zero-release instance, ``LP`` the value
    of the registered bound that solves the ordering's LP.

    Not ``4 x`` the BSSI dual bound: the LP value is at least that bound, not at most.
    On an instance over resources ``2 L LP`` (``proofs/resource-model-guarantees.md``,
    statement 4; it assumes the LP has the parallel inequalities of every resource).
    A missing solver is not a failure (:class:`~coflowopt.exceptions.SolverNotAvailableError`
    propagates for the caller to skip).
    """
    alg = as_scheduler(algorithm)
    if alg.ordering is None or alg.ordering.name not in LP_ORDERINGS:
        raise AssertionError(f"{alg.label}: not an LP ordering")
    if instance.has_releases:
        raise AssertionError("check_lp_ordering_guarantee needs an instance without releases")
    r = _ok_run(alg, instance, run)
    res = get_algorithm("bound", LP_ORDERINGS[alg.ordering.name]).func(instance)
    if res.kind != "lower_bound" or res.value is None:
        raise AssertionError(f"bound {LP_ORDERINGS[alg.ordering.name]}: no value "
                             f"({res.status}: {res.message})")
    obj, lp = float(r.report.weighted_completion_time), float(res.value)
    if not instance.is_big_switch:
        # statement 4 of proofs/resource-model-guarantees.md: L_k <= 2 C_k^LP from the
        # parallel inequality of every resource, C_k <= L L_k (Lemma 3 over paths)
        L = instance.max_path_length
        if obj > 2 * L * lp * (1 + 1e-6) + 1e-9:
            raise AssertionError(f"{_name(alg, instance)}: objective {obj!r} > 2L = {2 * L} x "
                                 f"the LP value {lp!r} (proofs/resource-model-guarantees.md, "
                                 "statement 4)")
        return
    if obj > 4 * lp * (1 + 1e-6) + 1e-9:
        raise AssertionError(f"{_name(alg, instance)}: objective {obj!r} > 4 x the LP value "
                             f"{lp!r}")


# ---------------------------------------------------------------------------------- bounds
_SCHEDULE_OBJECTIVES = ("weighted_completion_time", "weighted_cct")


def _reference_objectives(instance: Instance, objective: str) -> dict[str, float]:
    """Verified objectives of a few schedules every bound must not exceed."""
    out = {}
    for label in ("bssi+greedy", "sebf+greedy", "fifo+greedy"):
        try:
            alg = as_scheduler(label)
        except Exception:  # pragma: no cover - the registry always has these
            continue
        rep = _ok_run(alg, instance).report
        out[label] = float(rep.objective(objective))
    if instance.num_coflows <= 6:
        from .orderings.search import best_order_search
        out["best-order+greedy"] = best_order_search(instance, objective=objective).objective
    return out


def check_lower_bound(algorithm, instance: Instance) -> None:
    """A registered bound returns ``kind="lower_bound"`` with a value at most the verified
    objective of reference schedules (BSSI, SEBF, FIFO with greedy rates; all orders when
    ``K <= 6``)."""
    alg = algorithm if isinstance(algorithm, Algorithm) else get_algorithm("bound", algorithm)
    res = alg.func(instance)
    if res.kind != "lower_bound":
        raise AssertionError(f"bound {alg.name}: kind {res.kind!r}, expected 'lower_bound' "
                             f"(status {res.status!r}: {res.message})")
    if res.objective not in _SCHEDULE_OBJECTIVES:
        return                          # e.g. deadline counts: no reference to compare with
    v = float(res.value)
    for label, obj in _reference_objectives(instance, res.objective).items():
        if v > obj * (1 + RTOL) + RTOL:
            raise AssertionError(f"bound {alg.name} = {v!r} exceeds the verified {label} "
                                 f"objective {obj!r} ({res.objective})")


def check_exact(algorithm, instance: Instance) -> None:
    """An exact method's optimum is verified, at most every reference schedule and at least
    the BSSI dual bound; a non-optimal answer's bound is at most the references."""
    alg = algorithm if isinstance(algorithm, Algorithm) else get_algorithm("exact", algorithm)
    from .orderings.bssi import bssi_dual_bound
    if "integral_model" in alg.tags:
        _check_integral_exact(alg, instance)
        return
    res = alg.func(instance)
    if res.objective in DEADLINE_OBJECTIVES:
        _check_deadline_result(alg, instance, res)
        return
    if res.objective not in _SCHEDULE_OBJECTIVES:
        raise AssertionError(f"exact {alg.name}: unknown objective {res.objective!r}")
    refs = _reference_objectives(instance, res.objective)
    best = min(refs.values())
    if res.kind == "optimal":
        v = float(res.value)
        if res.schedule is not None:
            rep = verify_schedule(instance, res.schedule)
            if not rep.ok or not _close(float(rep.objective(res.objective)), v, 1e-6):
                raise AssertionError(f"exact {alg.name}: its schedule does not verify at the "
                                     f"claimed optimum {v!r}: {rep.summary()}")
        if v > best * (1 + 1e-6):
            raise AssertionError(f"exact {alg.name}: 'optimum' {v!r} > verified heuristic "
                                 f"{best!r}")
        if res.objective == "weighted_completion_time":
            lb = bssi_dual_bound(instance).value
            if v < lb * (1 - 1e-6):
                raise AssertionError(f"exact {alg.name}: 'optimum' {v!r} < the BSSI dual "
                                     f"bound {lb!r}")
    elif res.bound is not None and float(res.bound) > best * (1 + 1e-6):
        raise AssertionError(f"exact {alg.name}: bound {float(res.bound)!r} > verified "
                             f"heuristic {best!r}")


# ---------------------------------------------------------------------------------- integral
def integral_reference_schedules(instance: Instance, slot: float = 1.0) -> dict:
    """Independent integral schedules of ``instance`` (whole units per slot), for checking
    exact methods of the integral model: ``{label: SlottedSchedule}``.

    * ``"one-flow-at-a-time"``: the flows one after another (coflows by release, then
      index), each alone at the smallest ``capacity x slot`` of its path from the first slot
      that is free and at or after its release;
    * ``"per-slot-greedy"``: in every slot the released unfinished flows in the order of the
      coflows' isolated times ``r_k + rho_k`` (then index, then flow), each sending as much
      as its path's residual capacity allows.

    Plain Python over flows (tiny instances); nothing shared with the exact methods.  Raises
    :class:`~coflowopt.exceptions.NotSupportedError` when the instance is not integral.
    """
    from fractions import Fraction
    from .slotted import SlottedSchedule, integral_capacities
    size, cap = integral_capacities(instance, slot)
    F = instance.num_flows
    ptr, res = instance.flow_resource_ptr.tolist(), instance.flow_resource.tolist()
    path = [res[ptr[f]:ptr[f + 1]] for f in range(F)]
    s = Fraction(float(slot))
    first_k = [int(-((-Fraction(float(r))) // s)) for r in instance.release.tolist()]
    k_of = instance.flow_coflow.tolist()
    d = [int(v) for v in size.tolist()]
    c = [int(v) for v in cap.tolist()]
    out = {}
    # one flow at a time
    order_k = sorted(range(instance.num_coflows), key=lambda k: (first_k[k], k))
    flows = [f for k in order_k for f in range(instance.flow_ptr[k], instance.flow_ptr[k + 1])]
    t_free, ent = 0, []
    for f in flows:
        t = max(t_free, first_k[k_of[f]])
        left, b = d[f], min(c[q] for q in path[f])
        while left:
            a = min(left, b)
            ent.append((t, f, a))
            left -= a
            t += 1
        t_free = t
    out["one-flow-at-a-time"] = SlottedSchedule.from_entries(
        [e[0] for e in ent], [e[1] for e in ent], [e[2] for e in ent], slot=slot)
    # per-slot greedy over flows
    iso = (instance.release + instance.rho).tolist()
    prio = sorted(range(F), key=lambda f: (iso[k_of[f]], k_of[f], f))
    rem, ent, t = list(d), [], min(first_k)
    while any(rem):
        resid = list(c)
        for f in prio:
            if rem[f] and first_k[k_of[f]] <= t:
                a = min([rem[f]] + [resid[q] for q in path[f]])
                if a:
                    for q in path[f]:
                        resid[q] -= a
                    rem[f] -= a
                    ent.append((t, f, a))
        t += 1
    out["per-slot-greedy"] = SlottedSchedule.from_entries(
        [e[0] for e in ent], [e[1] for e in ent], [e[2] for e in ent], slot=slot)
    return out


def _check_integral_exact(alg, instance: Instance) -> None:
    """An exact method of the integral model (tag ``integral_model``): its schedule verifies
    in the integral verifier at exactly the claimed value; the value is at least the fluid
    BSSI dual bound (integral OPT >= fluid OPT) and the integral isolation bound
    ``sum_k w_k s (ceil(r_k / s) + max_r ceil(d_k^r / (c_r s)))`` (computed here); an optimum
    is at most every independent integral schedule (:func:`integral_reference_schedules`);
    a bound is at most them and at most the value."""
    from fractions import Fraction
    from .orderings.bssi import bssi_dual_bound
    from .slotted import SlottedSchedule, integral_capacities, verify_slotted
    res = alg.func(instance)       # NotSupportedError for an instance outside the model
    slot = float(res.params.get("slot", 1.0))
    name = f"exact {alg.name}"
    if res.objective != "weighted_completion_time":
        raise AssertionError(f"{name}: objective {res.objective!r}, expected "
                             "weighted_completion_time")
    refs = {k: verify_slotted(instance, v) for k, v in
            integral_reference_schedules(instance, slot).items()}
    for label, rep in refs.items():
        if not rep.ok:       # pragma: no cover - the references are feasible by construction
            raise AssertionError(f"reference {label} does not verify: {rep.summary()}")
    best = min(rep.weighted_completion_time for rep in refs.values())
    if res.kind is not None:
        if not isinstance(res.schedule, SlottedSchedule):
            raise AssertionError(f"{name}: its schedule is a {type(res.schedule).__name__}, "
                                 "not a SlottedSchedule")
        rep = verify_slotted(instance, res.schedule)
        if not rep.ok or rep.weighted_completion_time != Fraction(res.value):
            raise AssertionError(f"{name}: its schedule does not verify at the claimed value "
                                 f"{res.value}: {rep.summary()}")
        v = Fraction(res.value)
        lb = bssi_dual_bound(instance).value
        if float(v) < float(lb) * (1 - 1e-9):
            raise AssertionError(f"{name}: integral value {float(v)!r} < the fluid BSSI dual "
                                 f"bound {float(lb)!r} (integral OPT >= fluid OPT)")
        iso = integral_isolation_bound(instance, slot)
        if v < iso:
            raise AssertionError(f"{name}: integral value {v} < the integral isolation bound "
                                 f"{iso}")
        if res.kind == "optimal" and v > best:
            raise AssertionError(f"{name}: 'optimum' {v} > an independent integral schedule "
                                 f"{best}")
    if res.bound is not None:
        b = Fraction(res.bound)
        if b > best or (res.value is not None and b > Fraction(res.value)):
            raise AssertionError(f"{name}: bound {b} above an integral schedule "
                                 f"({best}) or its value ({res.value})")


def integral_isolation_bound(instance: Instance, slot: float = 1.0):
    """``sum_k w_k s (ceil(r_k / s) + max_r ceil(d_k^r / (c_r s)))`` as a Fraction: no
    coflow of the integral model completes before its first usable slot plus the slots its
    most loaded resource needs alone (computed here, independently of the exact methods).

    Raises :class:`~coflowopt.exceptions.NotSupportedError` when the instance is not
    integral at this slot length.

    Examples
    --------
    >>> from coflowopt import Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 3)], release=0.5)])
    >>> integral_isolation_bound(inst)
    Fraction(4, 1)
    """
    from fractions import Fraction
    from .slotted import integral_capacities
    _, cap = integral_capacities(instance, slot)
    s = Fraction(float(slot))
    iso = Fraction(0)
    loads = instance.port_loads          # per coflow and resource, whole numbers here
    for k in range(instance.num_coflows):
        a = -((-Fraction(float(instance.release[k]))) // s)
        need = max(-(-int(round(x)) // int(cp)) for x, cp in zip(loads[k].tolist(),
                                                                 cap.tolist()))
        iso += Fraction(float(instance.weight[k])) * (a + need) * s
    return iso


def integral_version(instance: Instance) -> Instance:
    """``instance`` with every flow size and every capacity rounded up to a whole number: an
    instance of the integral model with slot 1 (a big switch stays a big switch; ``meta
    ["name"]`` gets ``-integral``).

    Examples
    --------
    >>> from coflowopt import Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.5)])], ingress_capacity=[0.5])
    >>> integral_version(inst).flow_size.tolist(), integral_version(inst).capacity.tolist()
    ([3.0], [1.0, 1.0])
    """
    base = instance.meta.get("name") or instance.meta.get("library_name") or "instance"
    meta = {**instance.meta, "name": f"{base}-integral"}
    if instance.is_big_switch:
        return instance.replace(flow_size=np.ceil(instance.flow_size),
                                ingress_capacity=np.ceil(instance.ingress_capacity),
                                egress_capacity=np.ceil(instance.egress_capacity), meta=meta)
    return instance.replace(flow_size=np.ceil(instance.flow_size),
                            resource_capacity=np.ceil(instance.resource_capacity), meta=meta)


def integral_optimum(instance: Instance, slot: float = 1.0, *, time_limit: float = 20.0):
    """The integral optimum of ``sum_k w_k C_k`` as ``integral-mip`` proves it (a Fraction),
    or ``None`` when it does not prove one within ``time_limit`` (or HiGHS is missing).

    The proved value is re-verified here: its slotted schedule passes
    :func:`~coflowopt.slotted.verify_slotted` at exactly that value (AssertionError
    otherwise).
    """
    from fractions import Fraction
    from .exceptions import SolverNotAvailableError
    from .slotted import verify_slotted
    try:
        res = get_algorithm("exact", "integral-mip").func(instance, slot=slot,
                                                           time_limit=time_limit)
    except SolverNotAvailableError:
        return None
    if res.kind != "optimal":
        return None
    rep = verify_slotted(instance, res.schedule)
    if not rep.ok or rep.weighted_completion_time != Fraction(res.value):
        raise AssertionError(f"exact integral-mip: its optimal schedule does not verify at "
                             f"{res.value}: {rep.summary()}")
    return Fraction(res.value)


#: ``check_slotted`` computes the integral optimum itself (``optimum="auto"``) only on
#: instances this small.
SLOTTED_OPT_MAX_COFLOWS, SLOTTED_OPT_MAX_FLOWS = 4, 10


def _slot_loads(instance: Instance, entries: list, path: list, R: int) -> np.ndarray:
    load = np.zeros(R, dtype=np.int64)
    for f, u in entries:
        load[path[f]] += u
    return load


def check_slotted(algorithm, instance: Instance, *, params: Mapping | None = None,
                  optimum="auto", opt_time_limit: float = 20.0):
    """The conformance check of a slotted algorithm (registry kind ``slotted``) on an
    instance of the integral model; returns the :class:`~coflowopt.slotted.SlottedReport`.

    Checks, each an AssertionError naming the algorithm, the instance and the rule:

    * it returns a :class:`~coflowopt.slotted.SlottedSchedule` (slot ``params["slot"]``,
      default 1) that :func:`~coflowopt.slotted.verify_slotted` accepts, and whose fluid form
      (``to_schedule``) the fluid verifier accepts in exact mode at the same value;
    * a second run gives the same entries (randomised orderings get ``seed``
      :data:`DEFAULT_SEED` through ``ordering_params``); the instance is not modified;
    * the value is at least :func:`integral_isolation_bound` and the fluid BSSI dual bound
      (integral OPT >= fluid OPT >= that bound);
    * tag ``work_conserving``: in every slot, a released flow that sends less than it still
      needs has a full resource on its path (a maximal allocation of whole units);
    * tag ``order_preserving`` with ``meta["order"]``: such a flow of the ``k``-th coflow of
      the order has a resource on its path filled by flows of coflows ``1..k``
      (prefix-maximal per slot; Sincronia Definition 1 in whole units);
    * ``optimum``: the integral optimum (a number), or ``"auto"`` to let
      :func:`integral_optimum` prove it on instances of at most
      :data:`SLOTTED_OPT_MAX_COFLOWS` coflows and :data:`SLOTTED_OPT_MAX_FLOWS` flows, or
      ``None``; the value must be at least it.

    Raises
    ------
    NotSupportedError
        When the instance is not in the integral model at the slot length (from the
        algorithm).
    AssertionError
        When a rule is broken.

    Examples
    --------
    >>> rep = check_slotted("slotted-order", integral_version(digest_ts4()))
    >>> rep.ok, rep.weighted_completion_time
    (True, Fraction(33, 1))
    """
    from fractions import Fraction
    from .orderings.bssi import bssi_dual_bound
    from .slotted import SlottedSchedule, integral_capacities, verify_slotted
    alg = algorithm if isinstance(algorithm, Algorithm) else get_algorithm("slotted",
                                                                            algorithm)
    if alg.kind != "slotted":
        raise TypeError(f"check_slotted checks slotted algorithms, not {alg.kind} "
                        f"{alg.name!r}")
    params = dict(params or {})
    if alg.name == "slotted-order" and "order" not in params:
        oname = params.get("ordering", "bssi")
        if "randomized" in get_algorithm("ordering", oname).tags:
            params["ordering_params"] = {"seed": DEFAULT_SEED,
                                         **(params.get("ordering_params") or {})}
    slot = float(params.get("slot", 1.0))
    iname = instance.meta.get("library_name") or instance.meta.get("name") or repr(instance)
    name = f"slotted {alg.name} on {iname}"
    arrays = _ARRAYS if instance.is_big_switch else _ARRAYS + _RESOURCE_ARRAYS
    before = {n: np.array(getattr(instance, n), copy=True) for n in arrays}
    ids, meta = instance.coflow_ids, copy.deepcopy(instance.meta)
    sched = alg.func(instance, **params)
    if not isinstance(sched, SlottedSchedule):
        raise AssertionError(f"{name}: returned a {type(sched).__name__}, not a "
                             "SlottedSchedule")
    if sched.slot != slot:
        raise AssertionError(f"{name}: slot {sched.slot!r}, asked for {slot!r}")
    rep = verify_slotted(instance, sched)
    if not rep.ok:
        raise AssertionError(f"{name}: rejected by the integral verifier: {rep.summary()}; "
                             f"first violations: {rep.violations[:3]}")
    fluid = verify_schedule(instance, sched.to_schedule(exact=True), mode="exact")
    if not fluid.ok or fluid.weighted_completion_time != rep.weighted_completion_time:
        raise AssertionError(f"{name}: its fluid form does not verify at the same value "
                             f"({fluid.summary()} vs {rep.weighted_completion_time})")
    if not alg.func(instance, **params).same_as(sched):
        raise AssertionError(f"{name}: two runs gave different schedules")
    for n in arrays:
        arr = getattr(instance, n)
        if arr.flags.writeable or not np.array_equal(arr, before[n], equal_nan=True):
            raise AssertionError(f"{name}: instance.{n} was modified (or made writeable)")
    if instance.coflow_ids != ids or instance.meta != meta:
        raise AssertionError(f"{name}: instance ids or meta were modified")
    v = rep.weighted_completion_time
    iso = integral_isolation_bound(instance, slot)
    if v < iso:
        raise AssertionError(f"{name}: value {v} < the integral isolation bound {iso}")
    lb = bssi_dual_bound(instance).value
    if float(v) < float(lb) * (1 - 1e-9):
        raise AssertionError(f"{name}: value {float(v)!r} < the fluid BSSI dual bound "
                             f"{float(lb)!r}")
    # per-slot maximality (plain Python over slots and flows: tiny instances)
    order = sched.meta.get("order") if "order_preserving" in alg.tags else None
    if "work_conserving" in alg.tags or order is not None:
        size, cap = integral_capacities(instance, slot)
        F, R = instance.num_flows, instance.num_resources
        ptr, res_ = instance.flow_resource_ptr.tolist(), instance.flow_resource.tolist()
        path = [res_[ptr[f]:ptr[f + 1]] for f in range(F)]
        k_of = instance.flow_coflow.tolist()
        s = Fraction(slot)
        first = [int(-((-Fraction(float(r))) // s)) for r in instance.release.tolist()]
        pos = None
        if order is not None:
            pos = [0] * instance.num_coflows
            for i, k in enumerate(order):
                pos[k] = i
        by_slot: dict[int, list] = {}
        c = sched.canonical()
        for t, f, u in zip(c.slot_index.tolist(), c.flow.tolist(), c.units.tolist()):
            by_slot.setdefault(t, []).append((f, u))
        rem = [int(x) for x in size.tolist()]
        for t in range(sched.num_slots):
            ent = by_slot.get(t, [])
            sent = dict(ent)
            load = _slot_loads(instance, ent, path, R)
            for f in range(F):
                if rem[f] == 0 or first[k_of[f]] > t or sent.get(f, 0) >= rem[f]:
                    continue
                if not any(load[r] >= cap[r] for r in path[f]):
                    raise AssertionError(f"{name}: slot {t}: flow {f} sends {sent.get(f, 0)} "
                                         f"of its {rem[f]} remaining units with room on every "
                                         "resource of its path (not a maximal allocation)")
                if pos is not None:
                    mine = [(g, u) for g, u in ent if pos[k_of[g]] <= pos[k_of[f]]]
                    pre = _slot_loads(instance, mine, path, R)
                    if not any(pre[r] >= cap[r] for r in path[f]):
                        raise AssertionError(
                            f"{name}: slot {t}: flow {f} (coflow {k_of[f]}, position "
                            f"{pos[k_of[f]]} of the order) sends {sent.get(f, 0)} of "
                            f"{rem[f]} units and no resource of its path is filled by "
                            "coflows up to its position (not order-preserving)")
            for f, u in ent:
                rem[f] -= u
    if isinstance(optimum, str):
        if optimum != "auto":
            raise ValueError(f"optimum must be a number, 'auto' or None, got {optimum!r}")
        small = (instance.num_coflows <= SLOTTED_OPT_MAX_COFLOWS
                 and instance.num_flows <= SLOTTED_OPT_MAX_FLOWS)
        optimum = integral_optimum(instance, slot, time_limit=opt_time_limit) if small \
            else None
    if optimum is not None and v < Fraction(optimum):
        raise AssertionError(f"{name}: value {v} < the integral optimum {optimum} that "
                             "integral-mip proved")
    if alg.name in LP_ROUNDINGS:
        check_lp_rounding_guarantee(alg, instance, params=params, optimum=optimum,
                                    report=rep)
    return rep


#: Slotted LP roundings whose documents prove ``E <= rho LP`` (plus an additive term where
#: stated): name -> (module, function returning the pieces, the parameters it takes, proof).
#: The pieces object has ``lp_value``, ``costs``, ``best``, ``expectation`` and either
#: ``guarantee`` (the proved bound on the expectation) or ``factor`` (``rho``); optional
#: ``piece_factor`` (a bound on every piece) and ``factor`` for the ratio to a proved optimum.
LP_ROUNDINGS: dict[str, tuple] = {
    "lp-deadline-greedy": ("coflowopt.lp_deadline", "lp_deadline_pieces",
                           ("slot", "lp", "slots", "epsilon", "time_limit"),
                           "proofs/lp-deadline-greedy.md"),
    "interval-groups": ("coflowopt.interval_groups", "interval_group_pieces",
                        ("slot", "lp", "ratio", "slots", "time_limit"),
                        "proofs/interval-groups.md"),
    "lp-deadline-iterated": ("coflowopt.lp_deadline_iterated", "iterated_pieces",
                             ("slot", "lp", "epsilon_blocks", "min_block", "slots",
                              "time_limit"),
                             "proofs/lp-deadline-iterated.md"),
}

#: The parameters that make a rounding pick one random or given draw instead of the best
#: piece (then only the expectation is bounded, not the one schedule).
_DRAW_PARAMS = ("tau", "seed", "offset")


def _le(a, b, rtol: float = 1e-9) -> bool:
    a, b = float(a), float(b)
    return a <= b + rtol * max(1.0, abs(b))


def check_lp_rounding_guarantee(algorithm, instance: Instance, *,
                                params: Mapping | None = None, optimum=None,
                                report=None) -> None:
    """The proved LP guarantee of a slotted LP rounding (:data:`LP_ROUNDINGS`).

    Checks (relative tolerance 1e-9, the LP solver's):

    * ``best piece <= E <= bound``, ``bound`` the proved bound on the expectation
      (``rho LP``, or the document's ``rho LP + A``);
    * the best piece is the cheapest piece;
    * without a draw parameter (``tau``, ``seed``, ``offset``) the schedule is the best piece:
      its verified value equals that piece's cost, hence ``ALG <= bound``;
    * ``piece_factor`` (interval-groups): every piece ``<= piece_factor LP``;
    * ``optimum`` (a proved integral optimum): ``LP <= OPT`` and, for ``rho``-forms,
      ``E <= rho OPT`` and the best piece ``<= rho OPT``.

    Raises
    ------
    AssertionError
        When a rule is broken.

    Examples
    --------
    >>> check_lp_rounding_guarantee("interval-groups", integral_version(digest_ts4()))
    """
    import importlib
    from fractions import Fraction
    from .slotted import verify_slotted
    alg = algorithm if isinstance(algorithm, Algorithm) else get_algorithm("slotted",
                                                                            algorithm)
    if alg.name not in LP_ROUNDINGS:
        raise AssertionError(f"slotted {alg.name}: no proved LP guarantee is listed")
    module, fname, takes, doc = LP_ROUNDINGS[alg.name]
    params = dict(params or {})
    iname = instance.meta.get("library_name") or instance.meta.get("name") or repr(instance)
    name = f"slotted {alg.name} on {iname} ({doc})"
    pieces = getattr(importlib.import_module(module), fname)(
        instance, **{k: v for k, v in params.items() if k in takes})
    lp = pieces.lp_value
    rho = getattr(pieces, "factor", None)
    bound = getattr(pieces, "guarantee", None)
    if bound is None:
        bound = rho * lp
    costs = pieces.costs
    best = costs[pieces.best]
    if min(costs) != best:
        raise AssertionError(f"{name}: best piece {best} is not the cheapest {min(costs)}")
    if not _le(best, pieces.expectation):
        raise AssertionError(f"{name}: best piece {float(best)!r} > the expectation "
                             f"{float(pieces.expectation)!r}")
    if not _le(pieces.expectation, bound):
        raise AssertionError(f"{name}: expectation {float(pieces.expectation)!r} > the proved "
                             f"bound {float(bound)!r} (LP {float(lp)!r})")
    pf = getattr(pieces, "piece_factor", None)
    if pf is not None:
        worst = max(costs)
        if not _le(worst, pf * lp):
            raise AssertionError(f"{name}: a piece costs {float(worst)!r} > {pf!r} x LP "
                                 f"{float(lp)!r}")
    if not any(params.get(k) is not None for k in _DRAW_PARAMS):
        if report is None:
            report = verify_slotted(instance, alg.func(instance, **params))
        v = report.weighted_completion_time
        if v != Fraction(best):
            raise AssertionError(f"{name}: the default schedule costs {v}, not the best "
                                 f"piece's {best}")
        if not _le(v, bound):
            raise AssertionError(f"{name}: ALG {float(v)!r} > the proved bound "
                                 f"{float(bound)!r}")
    if optimum is not None:
        opt = Fraction(optimum)
        if not _le(lp, opt):
            raise AssertionError(f"{name}: LP {float(lp)!r} > the integral optimum {opt}")
        if not _le(opt, best):
            raise AssertionError(f"{name}: best piece {best} < the integral optimum {opt}")
        if rho is not None and not _le(pieces.expectation, rho * opt):
            raise AssertionError(f"{name}: E / OPT = {float(pieces.expectation / opt)!r} > "
                                 f"the proved {float(rho)!r}")


def check_slow_motion_guarantee(algorithm, instance: Instance, *,
                                run: RunResult | None = None, optimum=None) -> None:
    """``slow-motion``'s proved figures (``proofs/slow-motion.md``), from its ``meta``:
    ``best piece <= E <= guarantee = 2 gamma (LP + delta sum w) + 2 sigma sum w``; the
    verified (compacted) schedule costs at most its replay at the ``lambda`` used (statement
    5); with a proved fluid ``optimum``: ``LP <= OPT`` and ``E <= 2 OPT + 4 delta sum w``
    (relative tolerance 1e-7: the cleaned LP solution moves by the solver's tolerance).

    Raises
    ------
    AssertionError
        When a rule is broken.
    """
    alg = as_scheduler(algorithm)
    if alg.policy is None or alg.policy.name != "slow-motion":
        raise AssertionError(f"{alg.label}: not slow-motion")
    r = _ok_run(alg, instance, run)
    m = r.schedule.meta
    name = f"{_name(alg, instance)} (proofs/slow-motion.md)"
    if not _le(m["best_piece_cost"], m["expectation"], 1e-7):
        raise AssertionError(f"{name}: best piece {m['best_piece_cost']!r} > E "
                             f"{m['expectation']!r}")
    if not _le(m["expectation"], m["guarantee"], 1e-7):
        raise AssertionError(f"{name}: E {m['expectation']!r} > the guarantee "
                             f"{m['guarantee']!r}")
    v = float(r.report.weighted_completion_time)
    if not _le(v, m["replay_cost"], 1e-7):
        raise AssertionError(f"{name}: the schedule costs {v!r} > its replay "
                             f"{m['replay_cost']!r} (the compaction delayed a coflow)")
    if optimum is not None:
        opt = float(optimum)
        wsum = float(np.sum(instance.weight))
        if m["lp_bound"] is not None and not _le(m["lp_bound"], opt, 1e-7):
            raise AssertionError(f"{name}: certified LP {m['lp_bound']!r} > OPT {opt!r}")
        if not _le(m["expectation"], 2 * opt + 4 * m["slot"] * wsum, 1e-7):
            raise AssertionError(f"{name}: E {m['expectation']!r} > 2 OPT + 4 delta sum w = "
                                 f"{2 * opt + 4 * m['slot'] * wsum!r}")


def _deadlines_met(instance: Instance, report, objective: str) -> float:
    met = np.asarray(report.deadline_met, dtype=bool)
    return float(met.sum()) if objective == "deadlines_met" else \
        float(np.sum(instance.weight[met]))


def _check_deadline_result(alg, instance: Instance, res) -> None:
    """A maximised deadline objective: the schedule verifies and meets exactly the claimed
    number (or weight) of deadlines; an optimum is at least what FIFO and EDF-like orders with
    greedy rates achieve, and a bound is an upper bound on them."""
    if res.kind is None:
        return
    rep = verify_schedule(instance, res.schedule)
    if not rep.ok:
        raise AssertionError(f"exact {alg.name}: its schedule does not verify: {rep.summary()}")
    got = _deadlines_met(instance, rep, res.objective)
    if not _close(got, float(res.value), 1e-9):
        raise AssertionError(f"exact {alg.name}: claims {res.objective} = {res.value}, the "
                             f"verifier counts {got}")
    edf = np.argsort(np.where(np.isnan(instance.deadline), np.inf, instance.deadline),
                     kind="stable")
    from .rates.greedy import greedy
    for label, order in (("fifo", np.argsort(instance.release, kind="stable")), ("edf", edf)):
        ref = _deadlines_met(instance, verify_schedule(instance, greedy(instance, order)),
                             res.objective)
        if res.kind == "optimal" and ref > float(res.value) + 1e-9:
            raise AssertionError(f"exact {alg.name}: 'optimum' {res.value} < {ref} met by "
                                 f"{label}+greedy")
        if res.bound is not None and ref > float(res.bound) + 1e-9:
            raise AssertionError(f"exact {alg.name}: upper bound {res.bound} < {ref} met by "
                                 f"{label}+greedy")


# ---------------------------------------------------------------------------------- refusal
def _big_switch_only_parts(algorithm) -> list[Algorithm]:
    if isinstance(algorithm, Algorithm) and algorithm.kind in ("bound", "exact"):
        parts: tuple = (algorithm,)
    else:
        parts = as_scheduler(algorithm).parts
    return [a for a in parts if "big_switch_only" in a.tags]


def check_refuses_resources(algorithm, instance: Instance) -> None:
    """An algorithm tagged ``big_switch_only`` (a scheduler with such a part, or a bound or
    exact method) raises :class:`~coflowopt.exceptions.NotSupportedError` on an instance over
    resources, with a message naming the rule (``"... defined on the big switch only"``).

    Raises
    ------
    AssertionError
        When it runs, raises something else, or is not tagged (there is nothing to check).

    Examples
    --------
    >>> inst = random_topology_instance(np.random.default_rng(1), topology="fat-tree-k4")
    >>> check_refuses_resources("bssi+greedy", inst)
    Traceback (most recent call last):
    ...
    AssertionError: bssi+greedy: not tagged big_switch_only; it must run on resources
    """
    from .exceptions import NotSupportedError
    if instance.is_big_switch:
        raise AssertionError("check_refuses_resources needs an instance over resources")
    tagged = _big_switch_only_parts(algorithm)
    if isinstance(algorithm, Algorithm) and algorithm.kind in ("bound", "exact"):
        label, call = f"{algorithm.kind} {algorithm.name}", lambda: algorithm.func(instance)
    else:
        alg = as_scheduler(algorithm)
        label, call = alg.label, lambda: alg.run(instance)
    if not tagged:
        raise AssertionError(f"{label}: not tagged big_switch_only; it must run on resources")
    iname = instance.meta.get("name") or repr(instance)
    try:
        call()
    except NotSupportedError as e:
        if "big switch" not in str(e):
            raise AssertionError(f"{label} on {iname}: refused with a message that does not "
                                 f"name the big-switch rule: {e}") from e
        return
    except Exception as e:
        raise AssertionError(f"{label} on {iname}: tagged big_switch_only "
                             f"({', '.join(a.name for a in tagged)}) but raised "
                             f"{type(e).__name__} instead of NotSupportedError: {e}") from e
    raise AssertionError(f"{label} on {iname}: tagged big_switch_only "
                         f"({', '.join(a.name for a in tagged)}) but ran on an instance over "
                         "resources")


# ---------------------------------------------------------------------------------- driver
def applicable_checks(algorithm, instance: Instance, *, tie_free: bool = False,
                      order_independent: bool = True,
                      has_order: bool | None = None) -> list[tuple[str, Callable]]:
    """The checks that apply to ``algorithm`` on ``instance``, as ``(name, function)``.

    Parameters
    ----------
    tie_free : bool
        The instance has no ties (e.g. random real sizes): enables the relabelling and
        permutation checks.
    order_independent : bool
        The method claims not to depend on the coflows' listing order.
    has_order : bool, optional
        Whether the run has an order to check against.  Default: for an ordering with rates
        always; for a policy, pass whether its schedule recorded ``meta["order"]`` (online
        policies that reorder over time have no single order and are not checked against one).

    On an instance over resources, an algorithm with a part tagged ``big_switch_only`` gets
    only ``check_refuses_resources``; any other gets the big-switch list (each check in its
    resource form) plus ``check_prefix_maximal`` where Lemma 3 is checked.
    """
    alg = as_scheduler(algorithm)
    tags = alg.tags
    if not instance.is_big_switch and alg.big_switch_only:
        return [("check_refuses_resources", check_refuses_resources)]
    out: list[tuple[str, Callable]] = [
        ("check_verified", check_verified),
        ("check_same_seed_same_schedule", check_same_seed_same_schedule),
        ("check_instance_not_mutated", check_instance_not_mutated),
        ("check_isolated_lower_bound", check_isolated_lower_bound),
        ("check_scaling", check_scaling),
    ]
    if tie_free:
        out.append(("check_port_relabelling", check_port_relabelling))
        if order_independent:
            out.append(("check_coflow_permutation", check_coflow_permutation))
    if "work_conserving" in tags:
        out.append(("check_work_conserving", check_work_conserving))
    if has_order is None:
        has_order = alg.ordering is not None
    if "order_preserving" in tags and has_order:
        out.append(("check_order_preserving", check_order_preserving))
    if {"work_conserving", "order_preserving"} <= tags and has_order:
        if not instance.is_big_switch:
            # the L-factor guarantees below rest on it (on the big switch the suite checks
            # Lemma 3's conclusion only, as it always has)
            out.append(("check_prefix_maximal", check_prefix_maximal))
        out.append(("check_ordered_load_bound", check_ordered_load_bound))
        name = alg.ordering.name if alg.ordering is not None else None
        if name in THEOREM_ORDERINGS and not instance.has_releases:
            out.append(("check_bssi_guarantees", check_bssi_guarantees))
        if name in LP_ORDERINGS and not instance.has_releases and \
                any(b.name == LP_ORDERINGS[name] for b in algorithms("bound")):
            out.append(("check_lp_ordering_guarantee", check_lp_ordering_guarantee))
    if alg.policy is not None and alg.policy.name == "slow-motion":
        out.append(("check_slow_motion_guarantee", check_slow_motion_guarantee))
    return out


_TAKES_RUN = {"check_verified", "check_same_seed_same_schedule", "check_isolated_lower_bound",
              "check_work_conserving", "check_order_preserving", "check_ordered_load_bound",
              "check_bssi_guarantees", "check_lp_ordering_guarantee", "check_prefix_maximal",
              "check_slow_motion_guarantee"}


def check_algorithm(algorithm, instance: Instance, *, tie_free: bool = False,
                    order_independent: bool = True,
                    skip: Iterable[str] = ()) -> dict[str, str]:
    """Run every applicable check; return ``{check name: "passed" | "skipped" | error}``.

    Checks named in ``skip`` are not run.  A failing check's AssertionError is not raised but
    recorded (as ``"FAILED: <message>"``), so that a caller can compare the outcome with a
    table of known failures.  The schedule is computed once and shared by the checks that only
    read it.

    Examples
    --------
    >>> outcome = check_algorithm("bssi+greedy", digest_ts4())
    >>> outcome["check_bssi_guarantees"], set(outcome.values())
    ('passed', {'passed'})
    """
    alg = as_scheduler(algorithm)
    skip = set(skip)
    out: dict[str, str] = {}
    if not instance.is_big_switch and alg.big_switch_only:
        # nothing runs: the one check is that it refuses
        for name, fn in applicable_checks(alg, instance):
            if name in skip:
                out[name] = "skipped"
                continue
            try:
                fn(alg, instance)
                out[name] = "passed"
            except AssertionError as e:
                out[name] = f"FAILED: {e}"
        return out
    run = alg.run(instance)
    for name, fn in applicable_checks(alg, instance, tie_free=tie_free,
                                      order_independent=order_independent,
                                      has_order=run.order is not None):
        if name in skip:
            out[name] = "skipped"
            continue
        try:
            fn(alg, instance, run=run) if name in _TAKES_RUN else fn(alg, instance)
            out[name] = "passed"
        except AssertionError as e:
            out[name] = f"FAILED: {e}"
    return out


# ---------------------------------------------------------------------------------- instances
def sincronia_fig1(eps=0) -> Instance:
    """Sincronia's Fig. 1 example (anchors Sec. 2.1; 0-based ports), built exactly.

    C1 sends one unit from ingress ``i`` to egress ``i`` and to egress ``i + 1 mod 4``;
    ``C{i+2}`` sends ``2 + eps`` from ingress ``i`` to egress ``i``.  Sizes are multiplied by
    the denominator ``q`` of ``eps`` (a Fraction or int) so that they are integers (2.01 is not
    exact in float64); ``meta["size_scale"] = q``.  A common scaling leaves BSSI's order and
    scaled weights unchanged and multiplies completion times by ``q``.
    """
    from fractions import Fraction
    from .instance import Coflow
    e = Fraction(eps)
    q = e.denominator
    c1 = [(i, j, q) for i in range(4) for j in (i, (i + 1) % 4)]
    big = int((2 + e) * q)
    return Instance.from_coflows([Coflow("C1", c1)] +
                                 [Coflow(f"C{i + 2}", [(i, i, big)]) for i in range(4)],
                                 meta={"name": f"sincronia-fig1(eps={e})", "size_scale": q})


def digest_ts3() -> Instance:
    """T-S3 of the seeds digest (0-based ports): A {(1,1,1)}, B {(1,1,2),(2,2,2)},
    C {(2,1,3)}; BSSI orders A, B, C with greedy CCTs 1, 3, 6 (sum 10 = OPT)."""
    from .instance import Coflow
    return Instance.from_coflows([Coflow("A", [(0, 0, 1)]),
                                  Coflow("B", [(0, 0, 2), (1, 1, 2)]),
                                  Coflow("C", [(1, 0, 3)])], meta={"name": "T-S3"})


def digest_ts4() -> Instance:
    """T-S4 of the seeds digest: A {(1,1,2),(2,1,4)}, B {(1,1,9)}, C {(1,2,5),(2,2,6)}; BSSI
    orders A, C, B (sum 33 = OPT), SEBF and TCF A, B, C (sum 37)."""
    from .instance import Coflow
    return Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 0, 4)]),
                                  Coflow("B", [(0, 0, 9)]),
                                  Coflow("C", [(0, 1, 5), (1, 1, 6)])], meta={"name": "T-S4"})


def random_instance(rng: np.random.Generator, *, max_ports: int = 3, max_coflows: int = 5,
                    max_flows: int = 3, releases: bool = False, weights: bool = False,
                    heterogeneous: bool = False, integer_sizes: bool = False,
                    name: str = "random") -> Instance:
    """A small random instance.  Real sizes, weights, releases and capacities are drawn from
    continuous distributions, so the instance is tie-free with probability 1."""
    m_in = int(rng.integers(1, max_ports + 1))
    m_out = int(rng.integers(1, max_ports + 1))
    K = int(rng.integers(1, max_coflows + 1))
    counts = rng.integers(1, max_flows + 1, size=K)
    F = int(counts.sum())
    size = (rng.integers(1, 10, size=F).astype(float) if integer_sizes
            else np.round(rng.uniform(0.5, 10.0, size=F), 6))
    cin = np.round(rng.uniform(0.5, 2.0, m_in), 4) if heterogeneous else np.ones(m_in)
    cout = np.round(rng.uniform(0.5, 2.0, m_out), 4) if heterogeneous else np.ones(m_out)
    return Instance.from_arrays(
        ingress_capacity=cin, egress_capacity=cout,
        coflow_ids=[f"c{k}" for k in range(K)], flow_coflow=np.repeat(np.arange(K), counts),
        flow_src=rng.integers(0, m_in, F), flow_dst=rng.integers(0, m_out, F),
        flow_size=size,
        weight=np.round(rng.uniform(0.1, 3.0, K), 6) if weights else None,
        release=np.round(rng.uniform(0.0, 6.0, K), 6) * (rng.random(K) < 0.7) if releases
        else None, meta={"name": name})


def instances(*, max_ports: int = 3, max_coflows: int = 5, max_flows: int = 3,
              releases: bool = False, weights: bool = True, heterogeneous: bool = False,
              integer_sizes: bool = False):
    """A hypothesis strategy for small tie-free instances (:func:`random_instance` with a
    drawn seed; hypothesis shrinks the seed and the switches, not the numbers).

    Requires ``hypothesis``.
    """
    from hypothesis import strategies as st

    @st.composite
    def build(draw):
        seed = draw(st.integers(0, 2 ** 32 - 1))
        rel = releases and draw(st.booleans())
        w = weights and draw(st.booleans())
        het = heterogeneous and draw(st.booleans())
        return random_instance(np.random.default_rng(seed), max_ports=max_ports,
                               max_coflows=max_coflows, max_flows=max_flows, releases=rel,
                               weights=w, heterogeneous=het, integer_sizes=integer_sizes,
                               name=f"random(seed={seed}, releases={rel}, weights={w}, "
                                    f"heterogeneous={het})")
    return build()


# ---------------------------------------------------------------------------------- topologies
def _random_graph(seed: int):
    """A small random fabric: a ring of 3-5 switches with one random chord (two routes of
    different lengths, or equal-cost ones for ECMP), link capacities 1 or 2 (both directions
    alike), and 4 hosts on random switches with unit links."""
    import networkx as nx

    from .topology import from_graph
    rng = np.random.default_rng(seed)
    S = int(rng.integers(3, 6))
    g = nx.Graph()
    for i in range(S):
        g.add_edge(f"s{i}", f"s{(i + 1) % S}", capacity=float(rng.choice([1.0, 2.0])))
    if S > 3:
        a = int(rng.integers(0, S))
        g.add_edge(f"s{a}", f"s{(a + 2) % S}", capacity=float(rng.choice([1.0, 2.0])))
    hosts = [f"h{h}" for h in range(4)]
    for h in hosts:
        g.add_edge(h, f"s{int(rng.integers(0, S))}", capacity=1.0)
    return from_graph(g, hosts=hosts, kind="graph", params={"random_ring": S, "seed": seed})


#: The topologies :func:`random_topology_instance` draws from: name -> builder(seed).  Small
#: enough for the exact methods (paths of 1 to 6 resources).
TOPOLOGIES: dict[str, Callable] = {
    "fat-tree-k4": lambda seed: _topology("fat_tree", 4),
    "leaf-spine-2x2-os2": lambda seed: _topology("leaf_spine", 2, 2, 2, oversubscription=2),
    "leaf-spine-2x2-os4": lambda seed: _topology("leaf_spine", 2, 2, 2, oversubscription=4),
    "random-graph": _random_graph,
}


def _topology(builder: str, *args, **kwargs):
    from . import topology
    return getattr(topology, builder)(*args, **kwargs)


def random_topology_instance(rng: np.random.Generator, *, topology: str | None = None,
                             min_coflows: int = 2, max_coflows: int = 5, max_flows: int = 3,
                             releases: bool = False, weights: bool = False,
                             name: str | None = None) -> Instance:
    """A small random instance over resources: a host-to-host instance placed at random on
    one of :data:`TOPOLOGIES` and routed by ECMP with a drawn seed.

    Sizes (0.5..5), weights (0.2..3) and releases (0..3, on about 60 % of the coflows) come
    from continuous distributions rounded to 6 digits, so the instance is tie-free for every
    practical purpose; a flow's two hosts differ (the random placement is injective).

    Parameters
    ----------
    rng : numpy.random.Generator
    topology : str, optional
        A key of :data:`TOPOLOGIES` (default: drawn).
    min_coflows, max_coflows, max_flows : int
        Coflow count range and flows per coflow (1..max_flows).
    releases, weights : bool
        Whether to draw releases and weights (else 0 and 1).
    name : str, optional
        ``meta["name"]`` (default: topology and seeds).

    Examples
    --------
    >>> inst = random_topology_instance(np.random.default_rng(0), topology="fat-tree-k4")
    >>> inst.is_big_switch, inst.num_resources, 2 <= inst.num_coflows <= 5
    (False, 96, True)
    """
    from .topology import on_topology
    names = sorted(TOPOLOGIES)
    topo_name = names[int(rng.integers(0, len(names)))] if topology is None else topology
    topo_seed = int(rng.integers(0, 2 ** 31))
    topo = TOPOLOGIES[topo_name](topo_seed)
    H = topo.num_hosts
    K = int(rng.integers(min_coflows, max_coflows + 1))
    counts = rng.integers(1, max_flows + 1, size=K)
    F = int(counts.sum())
    src = rng.integers(0, H, F)
    dst = (src + rng.integers(1, H, F)) % H              # never the source host
    rel = (np.round(rng.uniform(0.0, 3.0, K), 6) * (rng.random(K) < 0.6) if releases
           else np.zeros(K))
    routing_seed = int(rng.integers(0, 2 ** 31))
    placement_seed = int(rng.integers(0, 2 ** 31))
    label = name or (f"{topo_name}(topology seed {topo_seed}, ecmp seed {routing_seed}, "
                     f"placement seed {placement_seed}, releases={releases}, "
                     f"weights={weights})")
    hosts = Instance.from_arrays(
        ingress_capacity=np.ones(H), egress_capacity=np.ones(H),
        coflow_ids=[f"c{k}" for k in range(K)], flow_coflow=np.repeat(np.arange(K), counts),
        flow_src=src, flow_dst=dst, flow_size=np.round(rng.uniform(0.5, 5.0, F), 6),
        weight=np.round(rng.uniform(0.2, 3.0, K), 6) if weights else None, release=rel,
        meta={"name": label})
    return on_topology(hosts, topo, routing="ecmp", seed=routing_seed, placement="random",
                       placement_seed=placement_seed)


def topology_instances(*, topologies: Iterable[str] | None = None, min_coflows: int = 2,
                       max_coflows: int = 5, max_flows: int = 3, releases: bool = False,
                       weights: bool = True):
    """A hypothesis strategy for small topology instances (:func:`random_topology_instance`
    with a drawn seed and topology; releases and weights sometimes when allowed).

    Requires ``hypothesis``.
    """
    from hypothesis import strategies as st
    names = sorted(TOPOLOGIES if topologies is None else topologies)

    @st.composite
    def build(draw):
        seed = draw(st.integers(0, 2 ** 32 - 1))
        topo = draw(st.sampled_from(names))
        rel = releases and draw(st.booleans())
        w = weights and draw(st.booleans())
        return random_topology_instance(np.random.default_rng(seed), topology=topo,
                                        min_coflows=min_coflows, max_coflows=max_coflows,
                                        max_flows=max_flows, releases=rel, weights=w,
                                        name=f"{topo}(seed={seed}, releases={rel}, "
                                             f"weights={w})")
    return build()


def big_switch_as_paths(instance: Instance) -> Instance:
    """A big switch written as an instance over resources: resource ``i`` is ingress ``i``,
    resource ``m_in + j`` egress ``j`` (the port capacities), flow ``(i, j)`` has the path
    ``[i, m_in + j]``, hosts are the ports.  Every check must give the big switch's verdict.

    Examples
    --------
    >>> gen = big_switch_as_paths(digest_ts4())
    >>> gen.is_big_switch, gen.flow_resource.tolist()[:4], gen.rho.tolist()
    (False, [0, 2, 1, 2], [6.0, 9.0, 11.0])
    """
    m_in, F = instance.num_ingress, instance.num_flows
    return Instance.from_paths(
        resource_capacity=instance.capacity, coflow_ids=instance.coflow_ids,
        flow_coflow=instance.flow_coflow, flow_src=instance.flow_src,
        flow_dst=m_in + instance.flow_dst, flow_size=instance.flow_size,
        path_ptr=np.arange(0, 2 * F + 1, 2),
        path_resource=np.stack([instance.flow_src, m_in + instance.flow_dst], axis=1).ravel(),
        host_ids=instance.resource_names, resource_ids=instance.resource_names,
        weight=instance.weight, release=instance.release, deadline=instance.deadline,
        meta={**instance.meta, "name": f"{instance.meta.get('name', 'instance')} as paths"},
        flow_subcoflow=instance.flow_subcoflow)
