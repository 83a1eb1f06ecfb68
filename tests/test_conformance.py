"""The conformance suite: every registered algorithm through :mod:`coflowopt.testing`.

Algorithms are discovered from the registry when this file is collected (every ordering with
every rate allocation, every policy, every bound and exact method), so algorithms registered
later are picked up without editing this file.  What an algorithm is checked for follows from
its tags; exceptions go in :data:`KNOWN_FAILURES`, each with its reason.

The same algorithms on instances over resources (topologies), with this file's
:data:`KNOWN_FAILURES`, are in ``tests/test_conformance_resources.py``.

The slotted algorithms of the integral matching model (kind ``slotted``) return slotted
schedules, not fluid ones: they are never run as schedulers here, but by
:func:`coflowopt.testing.check_slotted` on the hand-made instances with sizes and capacities
rounded up (:func:`coflowopt.testing.integral_version`; at most the integral optimum that
``integral-mip`` proves on the small ones) and on random integral instances.

Budget: about a minute for the whole file.  The number of random instances per algorithm
shrinks as the registry grows (:data:`EXAMPLES_BUDGET`); ``exponential`` algorithms only see
instances with at most 6 coflows (4 for the random ones).
"""

from __future__ import annotations

import fnmatch
import time
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from coflowopt import Coflow, Instance
from coflowopt.exceptions import NotSupportedError, SolverNotAvailableError
from coflowopt.registry import KINDS, Algorithm, algorithms
from coflowopt.schedule import Schedule
from coflowopt.testing import (SLOTTED_OPT_MAX_COFLOWS, SLOTTED_OPT_MAX_FLOWS, Scheduler,
                               applicable_checks, check_algorithm, check_exact,
                               check_instance_not_mutated, check_lower_bound,
                               check_order_preserving, check_same_seed_same_schedule,
                               check_scaling, check_slotted, check_work_conserving, digest_ts3,
                               digest_ts4, instances, integral_optimum, integral_version,
                               load_all_algorithms, random_instance, schedulers,
                               sincronia_fig1)

load_all_algorithms()
SCHEDULERS = schedulers()
BOUNDS = algorithms("bound")
EXACT = algorithms("exact")
SLOTTED = algorithms("slotted")
#: The kinds whose algorithms make fluid schedules (the others: bounds, exact methods, and the
#: slotted algorithms of the integral model).
FLUID_KINDS = ("ordering", "rates", "policy")

#: Random instances per scheduler: the total over all schedulers stays near this.
EXAMPLES_BUDGET = 900
EXAMPLES = max(3, min(60, EXAMPLES_BUDGET // max(1, len(SCHEDULERS))))

#: Seconds each bound or exact method may spend on the hand-made instances (at least one runs).
#: Exponential and slow ones only see instances with at most 3 coflows and 6 flows.
BOUND_SECONDS = 4.0

#: (check name, label pattern) -> why the check does not hold for it.  Labels are
#: ``"order+rates"``, policy names, and ``"bound:<name>"`` / ``"exact:<name>"``.  A listed check
#: may pass (e.g. on instances without ties); a failure of an unlisted one fails the test.
KNOWN_FAILURES = {
    ("check_coflow_permutation", "fifo+*"):
        "FIFO breaks ties in release time by instance order; with all releases 0 it is the "
        "instance order",
    ("check_coflow_permutation", "given+*"): "the instance order, by definition",
    ("check_coflow_permutation", "random+*"):
        "a seeded permutation of indices: permuting the coflows changes which coflow lands "
        "where",
    ("check_coflow_permutation", "ncf+*"):
        "widths are integers, so they tie, and ties go by instance order",
    ("check_scaling", "aalo"): "D-CLAS queue thresholds are absolute amounts of data",
    ("check_coflow_permutation", "aalo"): "FIFO inside a queue: ties in release go by index",
    ("check_scaling", "varys-online"): "T and delta are absolute times",
    ("check_scaling", "mlfq"): "level thresholds (and aging) are absolute amounts",
    ("check_scaling", "creek"): "level thresholds (and aging) are absolute amounts",
    ("check_scaling", "decentralized-las"): "level thresholds are absolute amounts of data",
    ("check_coflow_permutation", "mlfq"): "FIFO inside a level: ties in release go by index",
    ("check_coflow_permutation", "baraat"): "FIFO classes: ties in release go by index",
    ("check_scaling", "sincronia-online"): "epoch lengths are absolute times",
    ("check_port_relabelling", "qsz"):
        "the interval LP is degenerate: HiGHS returns an optimal vertex that depends on the "
        "column order, and the groups follow that vertex's completion times",
    ("check_scaling", "slow-motion"):
        "the time-indexed LP's optimal face is not a point: at twice the sizes (the same LP up "
        "to a power of two, the same LP value) HiGHS returns another optimal vertex, whose "
        "replay costs differ; the guarantee holds for every optimal solution",
    ("check_port_relabelling", "slow-motion"):
        "the time-indexed LP is degenerate: HiGHS's optimal vertex depends on the row and "
        "column order, and the replay follows that vertex",
    ("check_coflow_permutation", "slow-motion"):
        "the time-indexed LP is degenerate: HiGHS's optimal vertex depends on the column "
        "order, and the replay follows that vertex",
}

#: Registered algorithms this file deliberately does not run, with the reason.
NOT_COVERED: dict[tuple[str, str], str] = {}


def expected_failure(check: str, label: str) -> str | None:
    for (c, pattern), reason in KNOWN_FAILURES.items():
        if c == check and fnmatch.fnmatch(label, pattern):
            return reason
    return None


# ---------------------------------------------------------------------------------- instances
fig1 = sincronia_fig1


def handmade() -> list[tuple[Instance, bool]]:
    """(instance, tie_free) pairs: the papers' examples and a few with releases, weights and
    capacities."""
    ts3, ts4 = digest_ts3(), digest_ts4()
    late = Instance.from_coflows([Coflow("A", [(0, 0, 3)]),
                                  Coflow("B", [(0, 0, 1)], release=100)],
                                 meta={"name": "late-release"})
    weighted = Instance.from_coflows(
        [Coflow("A", [(0, 0, 1), (1, 2, 2)], weight=1, release=0),
         Coflow("B", [(0, 1, 2), (2, 2, 1.5)], weight=10, release=1),
         Coflow("C", [(1, 0, 3)], weight=0.5, release=0.5),
         Coflow("D", [(2, 1, 1), (2, 0, 1)], weight=0, release=0)],
        meta={"name": "weighted-releases"})
    hetero = Instance.from_coflows(
        [Coflow("A", [(0, 0, 7), (1, 1, 1)]), Coflow("B", [(0, 1, 3)], weight=2),
         Coflow("C", [(1, 0, 2), (1, 1, 2)])],
        ingress_capacity=[10.0, 0.5], egress_capacity=[2.0, 1.0],
        meta={"name": "heterogeneous"})
    single = Instance.from_coflows([Coflow("X", [(0, 1, 2), (1, 0, 3), (1, 1, 1)])],
                                   meta={"name": "single-coflow"})
    # the dissertation's Fig. 5.1 pair with a common deadline 2 (only C2 can meet it), plus a
    # third coflow whose deadline competes with C2's
    deadlines = Instance.from_coflows(
        [Coflow("C1", [(0, 0, 1), (1, 1, 2), (2, 2, 4)], deadline=2.0),
         Coflow("C2", [(0, 3, 2), (1, 4, 2)], deadline=2.0, weight=2),
         Coflow("C3", [(1, 5, 1)], deadline=1.5, release=0.5)],
        meta={"name": "deadlines"})
    out = [(fig1(), False), (fig1(Fraction(1, 100)), False), (ts3, False), (ts4, False),
           (late, False), (weighted, False), (hetero, False), (single, False),
           (deadlines, False)]
    rng = np.random.default_rng(2024)
    out += [(random_instance(rng, max_ports=4, max_coflows=6, releases=True, weights=True,
                             name="random-real-releases"), True),
            (random_instance(rng, max_ports=4, max_coflows=6, weights=True, heterogeneous=True,
                             name="random-real-capacities"), True)]
    try:  # the instance library (another module) when present: its small entries
        from coflowopt.library import list_instances, load_instance
        for name in list_instances():
            inst = load_instance(name)
            if inst.num_coflows <= 8 and inst.num_flows <= 40:
                out.append((inst, False))
    except Exception:  # pragma: no cover - the library is optional here
        pass
    return out


HANDMADE = handmade()


def supports(sched: Scheduler, inst: Instance, max_exponential: int = 6) -> bool:
    if (sched.ordering is not None and "rate_aware" in sched.ordering.tags
            and sched.rates is not None and sched.rates.name != "greedy"):
        # a rate-aware search runs K! schedules of its allocation per call, and every check
        # calls it again: 5! MADD/BvN schedules instead of 6! keep the file near a minute
        max_exponential = min(max_exponential, 5)
    if inst.has_releases and not sched.supports_releases:
        return False
    if not inst.uniform_capacity and not sched.supports_heterogeneous:
        return False
    if "exponential" in sched.tags and inst.num_coflows > max_exponential:
        return False
    return True


def run_checks(sched: Scheduler, inst: Instance, tie_free: bool) -> list[str] | None:
    """Unexpected failures of ``sched`` on ``inst`` (an empty list when all is well); None
    when the algorithm declines the instance (NotSupportedError) or lacks its solver."""
    try:
        outcome = check_algorithm(sched, inst, tie_free=tie_free)
    except (NotSupportedError, SolverNotAvailableError):
        return None
    except AssertionError as e:
        return [f"{sched.label}: {e}"]
    return [f"{name}: {msg}" for name, msg in outcome.items()
            if msg.startswith("FAILED") and expected_failure(name, sched.label) is None]


# ---------------------------------------------------------------------------------- the suite
@pytest.mark.parametrize("sched", SCHEDULERS, ids=[s.label for s in SCHEDULERS])
def test_handmade_instances(sched):
    ran = 0
    failures = []
    for inst, tie_free in HANDMADE:
        if supports(sched, inst):
            got = run_checks(sched, inst, tie_free)
            if got is not None:
                failures += got
                ran += 1
    assert ran > 0, f"{sched.label}: no hand-made instance fits its tags (or all declined)"
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("sched", SCHEDULERS, ids=[s.label for s in SCHEDULERS])
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_random_instances(sched, data):
    small = "exponential" in sched.tags
    inst = data.draw(instances(max_ports=3, max_coflows=4 if small else 6,
                               releases=sched.supports_releases,
                               heterogeneous=sched.supports_heterogeneous), label="instance")
    failures = run_checks(sched, inst, tie_free=True)
    assert not failures, "\n".join(failures)       # None (declined) passes


BOUND_LIKE = [a for a in BOUNDS + EXACT]


@pytest.mark.parametrize("alg", BOUND_LIKE, ids=[f"{a.kind}:{a.name}" for a in BOUND_LIKE])
def test_bounds_and_exact_methods(alg):
    check = check_lower_bound if alg.kind == "bound" else check_exact
    label = f"{alg.kind}:{alg.name}"
    costly = bool({"exponential", "slow"} & alg.tags)
    max_k, max_f = (3, 6) if costly else (5, 16)
    ran, failures = 0, []
    t0 = time.perf_counter()
    for inst, _ in HANDMADE:
        if ran and time.perf_counter() - t0 > BOUND_SECONDS:
            break
        if inst.num_coflows > max_k or inst.num_flows > max_f:
            continue
        if "zero_release_only" in alg.tags and inst.has_releases:
            continue
        if "uniform_capacity_only" in alg.tags and not inst.uniform_capacity:
            continue
        try:
            check(alg, inst)
        except (SolverNotAvailableError, NotSupportedError):
            continue                   # a missing optional solver is not a conformance failure
        except Exception as e:         # a crash is a failure too
            if expected_failure(check.__name__, label) is None:
                failures.append(f"{inst.meta.get('name') or inst.meta.get('library_name')}: "
                                f"{type(e).__name__}: {e}")
        ran += 1
    if ran == 0:
        pytest.skip(f"{label}: no solver or no fitting instance")
    assert not failures, "\n".join(failures)


# ---------------------------------------------------------------------------------- slotted
#: The hand-made instances in the integral model (sizes and capacities rounded up).
INTEGRAL_HANDMADE = [integral_version(inst) for inst, _ in HANDMADE]
#: slotted-order is also checked under these orderings (every registered ordering as its
#: priority is tests/test_slotted_algorithms.py's job); a randomised one gets its seed from
#: check_slotted.
SLOTTED_ORDER_VARIANTS = ({}, {"ordering": "sebf"}, {"ordering": "fifo"},
                          {"ordering": "random"})
_INTEGRAL_OPT: dict[int, object] = {}


def integral_opt(i: int):
    """The integral optimum of ``INTEGRAL_HANDMADE[i]`` proved by integral-mip (None when the
    instance is above check_slotted's size limits or unproved), once per process."""
    if i not in _INTEGRAL_OPT:
        inst = INTEGRAL_HANDMADE[i]
        small = (inst.num_coflows <= SLOTTED_OPT_MAX_COFLOWS
                 and inst.num_flows <= SLOTTED_OPT_MAX_FLOWS)
        _INTEGRAL_OPT[i] = integral_optimum(inst, time_limit=10.0) if small else None
    return _INTEGRAL_OPT[i]


def slotted_variants(alg: Algorithm) -> list[dict]:
    if alg.name != "slotted-order":
        return [{}]
    known = {a.name for a in algorithms("ordering")}
    return [v for v in SLOTTED_ORDER_VARIANTS if v.get("ordering", "bssi") in known]


@pytest.mark.parametrize("alg", SLOTTED, ids=[f"slotted:{a.name}" for a in SLOTTED])
def test_slotted_algorithms_on_handmade_instances(alg):
    ran, proved, failures = 0, 0, []
    for i, inst in enumerate(INTEGRAL_HANDMADE):
        opt = integral_opt(i)
        proved += opt is not None
        for params in slotted_variants(alg):
            try:
                check_slotted(alg, inst, params=params, optimum=opt)
            except NotSupportedError:
                continue
            except AssertionError as e:
                failures.append(f"{params}: {e}")
            ran += 1
    assert ran >= len(INTEGRAL_HANDMADE), f"slotted {alg.name}: declined instances"
    assert proved >= 5, "integral-mip proved too few hand-made optima to compare with"
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("alg", SLOTTED, ids=[f"slotted:{a.name}" for a in SLOTTED])
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_slotted_algorithms_on_random_instances(alg, data):
    """Random integral instances (whole sizes, unit or whole capacities, real releases: the
    first usable slot is rounded up); the integral optimum is proved on the small ones."""
    inst = data.draw(instances(max_ports=3, max_coflows=4, releases=True,
                               integer_sizes=True), label="instance")
    if data.draw(st.booleans(), label="whole capacities 1-3"):
        rng = np.random.default_rng(inst.num_flows)
        inst = inst.replace(ingress_capacity=rng.integers(1, 4, inst.num_ingress).astype(float),
                            egress_capacity=rng.integers(1, 4, inst.num_egress).astype(float))
    params = data.draw(st.sampled_from(slotted_variants(alg)), label="params")
    check_slotted(alg, inst, params=params)


def test_slotted_algorithms_are_not_fluid_schedulers():
    """The fluid suites (this file's SCHEDULERS, tests/test_conformance_resources.py,
    tests/test_resources_exact.py) and experiment specs' ``schedules = "all"`` see fluid kinds
    only; a slotted algorithm handed to as_scheduler is refused with the way to check it."""
    assert {a.kind for s in SCHEDULERS for a in s.parts} <= set(FLUID_KINDS)
    assert SLOTTED and all(a.kind == "slotted" for a in SLOTTED)
    with pytest.raises(TypeError, match="check_slotted"):
        from coflowopt.testing import as_scheduler
        as_scheduler(SLOTTED[0])
    from coflowopt.experiments.spec import SpecError, parse_spec
    spec = parse_spec({"instances": [{"name": "g", "generator": "uniform_random",
                                      "params": {"num_ports": 2, "num_coflows": 2},
                                      "seeds": 1}],
                       "algorithms": {"schedules": "all", "bounds": "all"}})
    labels = {a.label for a in spec.algorithms}
    assert not any(a.name in labels or a.name in {x.policy for x in spec.algorithms}
                   for a in SLOTTED)
    assert all(a.kind in ("schedule", "bound") for a in spec.algorithms)
    # named as a policy, a slotted algorithm is refused with what it is
    with pytest.raises(SpecError, match="slotted"):
        parse_spec({"instances": [{"name": "g", "generator": "uniform_random",
                                   "params": {"num_ports": 2, "num_coflows": 2}, "seeds": 1}],
                    "algorithms": {"schedules": [{"policy": "slotted-order"}]}})


# ---------------------------------------------------------------------------------- coverage
def test_every_registered_algorithm_is_covered():
    load_all_algorithms()
    covered = {(a.kind, a.name) for s in SCHEDULERS for a in s.parts}
    covered |= {(a.kind, a.name) for a in BOUND_LIKE}
    covered |= {(a.kind, a.name) for a in SLOTTED}
    registered = {(a.kind, a.name) for a in algorithms()}
    missing = registered - covered - set(NOT_COVERED)
    assert not missing, (f"registered but not run by the conformance suite: {sorted(missing)}; "
                         "make them reachable from the registry's kinds "
                         f"{KINDS} or list them in NOT_COVERED with a reason")
    # a rate allocation with no ordering, or an ordering with no rate allocation, is idle
    kinds = {k for k, _ in registered}
    assert "ordering" not in kinds or "rates" in kinds


def test_known_failures_are_current():
    labels = [s.label for s in SCHEDULERS] + [f"{a.kind}:{a.name}" for a in BOUND_LIKE]
    names = {n for s in SCHEDULERS for inst, tf in HANDMADE[:1]
             for n, _ in applicable_checks(s, inst, tie_free=True)}
    # the checks that exist on instances over resources only (tests/test_conformance_resources)
    names |= {"check_prefix_maximal", "check_refuses_resources"}
    for (check, pattern), reason in KNOWN_FAILURES.items():
        assert check in names | {"check_lower_bound", "check_exact"}, \
            f"KNOWN_FAILURES names an unknown check {check!r}"
        assert any(fnmatch.fnmatch(l, pattern) for l in labels), \
            f"KNOWN_FAILURES entry {pattern!r} matches no registered algorithm (stale?)"
        assert reason.strip()


# ---------------------------------------------------------------------------------- the checks
# The checks must catch broken algorithms, not only pass good ones.
def _alg(kind, name, func, tags=()):
    return Algorithm(name=name, kind=kind, func=func, summary="test double", reference="-",
                     tags=frozenset(tags))


def _serial(instance, order):
    """One flow at a time in priority order: feasible, but idles ports."""
    from coflowopt.rates.greedy import priority_flow_order
    t, fl, st_, en, rt = 0.0, [], [], [], []
    rel = instance.release[instance.flow_coflow]
    for f in priority_flow_order(instance, order):
        rate = min(instance.ingress_capacity[instance.flow_src[f]],
                   instance.egress_capacity[instance.flow_dst[f]])
        t = max(t, rel[f])
        fl.append(f), st_.append(t), en.append(t + instance.flow_size[f] / rate), rt.append(rate)
        t = en[-1]
    return Schedule.from_pieces(fl, st_, en, rt)


def _reversed_greedy(instance, order):
    from coflowopt.rates import greedy
    return greedy(instance, np.asarray(order)[::-1])


def _delayed_greedy(instance, order):
    from coflowopt.rates import greedy
    s = greedy(instance, order)
    return Schedule(s.flow, s.start + 1.0, s.end + 1.0, s.rate)   # an absolute 1-unit delay


def _unseeded(instance, seed=None):
    return np.random.default_rng().permutation(instance.num_coflows)


def _meta_writer(instance, order):
    from coflowopt.rates import greedy
    instance.meta["touched"] = True
    return greedy(instance, order)


BSSI = algorithms("ordering")[[a.name for a in algorithms("ordering")].index("bssi")]
TWO_FLOWS = Instance.from_coflows([Coflow("A", [(0, 0, 2)]), Coflow("B", [(1, 1, 3)]),
                                   Coflow("C", [(0, 1, 1)])])


@pytest.mark.parametrize("rates,check,match", [
    (_alg("rates", "serial", _serial, ["work_conserving"]), check_work_conserving,
     "not work-conserving"),
    (_alg("rates", "reversed", _reversed_greedy, ["order_preserving"]), check_order_preserving,
     "not order-preserving"),
    (_alg("rates", "delayed", _delayed_greedy), check_scaling, "scaling"),
    (_alg("rates", "meta-writer", _meta_writer), check_instance_not_mutated, "modified"),
])
def test_checks_catch_broken_rates(rates, check, match):
    sched = Scheduler(f"bssi+{rates.name}", ordering=BSSI, rates=rates)
    with pytest.raises(AssertionError, match=match):
        check(sched, TWO_FLOWS.replace(meta={}))


def test_checks_catch_an_unseeded_random_ordering():
    greedy_alg = algorithms("rates")[[a.name for a in algorithms("rates")].index("greedy")]
    sched = Scheduler("unseeded+greedy", ordering=_alg("ordering", "unseeded", _unseeded,
                                                       ["randomized"]), rates=greedy_alg)
    inst = Instance.from_coflows([Coflow(str(k), [(k % 3, (k * 7) % 3, 1 + k)])
                                  for k in range(8)])
    with pytest.raises(AssertionError, match="different schedules"):
        for _ in range(5):  # a permutation of 8 repeats by chance with probability 1/40320
            check_same_seed_same_schedule(sched, inst)


def test_theorem_checks_apply_to_bssi_on_zero_release_instances():
    sched = next(s for s in SCHEDULERS if s.label == "bssi+greedy")
    zero = [n for n, _ in applicable_checks(sched, fig1())]
    assert {"check_work_conserving", "check_order_preserving", "check_ordered_load_bound",
            "check_bssi_guarantees"} <= set(zero)
    late = next(i for i, _ in HANDMADE if i.meta.get("name") == "late-release")
    assert "check_bssi_guarantees" not in [n for n, _ in applicable_checks(sched, late)]
    assert all(v == "passed" for v in check_algorithm(sched, fig1()).values())
