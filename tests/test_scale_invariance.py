"""Scale invariance of every scheduler in the registry (issue 10, item 10).

The model has no unit: multiplying every size by ``s`` (and every release and deadline by ``s``)
multiplies every completion time by ``s``; multiplying every capacity by ``c`` (and every time by
``1 / c``) multiplies them by ``1 / c``.  So each algorithm's verified objective must scale by
exactly that factor -- to 1e-9 relative, the rounding of a rescaled float computation -- and
every schedule must verify.  An absolute tolerance anywhere in an event loop (a residual
capacity below ``1e-12`` of the largest capacity counted as 0, a tie within ``1e-9`` of 1
attained byte) breaks this: that is what this test hunts.

Scale-dependent by design, so their parameters are scaled with the instance
(:func:`scaled_params`): Aalo's queue thresholds are amounts of data (scale with sizes),
Varys-online's ``T`` and ``delta`` and Sincronia-online's ``epoch`` are times (scale with
times).  Exceptions that remain are in :data:`KNOWN_FAILURES`, each with its reason.
"""

from __future__ import annotations

import fnmatch

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from coflowopt import Instance
from coflowopt.exceptions import NotSupportedError
from coflowopt.testing import Scheduler, random_instance, schedulers

SCHEDULERS = [s for s in schedulers()]
RTOL = 1e-9
FACTORS = (1e-6, 1e6)

#: label pattern -> why its objective is not scale invariant to RTOL.
KNOWN_FAILURES: dict[str, str] = {
    # (empty: the ordering LP's orderings failed here while their LP was solved in the
    # instance's units; since the LPs are built in units of powers of two near 1
    # (formulations.certificates.unit_scaling) they scale to 1e-9 like the rest)
    "slow-motion": "it replays the time-indexed LP's optimal vertex, and that LP is degenerate: "
                   "rescaled by a factor that is not a power of two (also with the slot "
                   "H / 48, which scales with the instance) HiGHS returns another optimal "
                   "vertex of the same value, whose replay costs differ (0.2-0.7 %); the "
                   "proved guarantee holds for every optimal vertex",
}


def expected_failure(label: str) -> str | None:
    for pattern, reason in KNOWN_FAILURES.items():
        if fnmatch.fnmatch(label, pattern):
            return reason
    return None


def scale_capacities(inst: Instance, c: float) -> Instance:
    """Capacities x ``c``, times (releases, deadlines) x ``1 / c``: completion times x 1/c."""
    return inst.replace(ingress_capacity=inst.ingress_capacity * c,
                        egress_capacity=inst.egress_capacity * c,
                        release=inst.release / c, deadline=inst.deadline / c)


def scaled_params(alg: Scheduler, data: float, time: float) -> Scheduler:
    """``alg`` with its absolute parameters rescaled: amounts of data by ``data``, times by
    ``time`` (defaults read from the registered function's signature)."""
    if alg.policy is None:
        return alg
    import inspect
    sig = inspect.signature(alg.policy.func).parameters
    scale = {"first_threshold": data, "T": time, "delta": time, "epoch": time}
    params = {k: sig[k].default * f for k, f in scale.items() if k in sig}
    if not params:
        return alg
    return Scheduler(alg.label, policy=alg.policy, policy_params=params)


def objective(alg: Scheduler, inst: Instance) -> float:
    run = alg.run(inst)
    assert run.report.ok, (f"{alg.label} on {inst.meta.get('name')}: schedule rejected: "
                           f"{run.report.violation_counts} {run.report.violations[:1]}")
    return float(run.report.weighted_completion_time)


def _check(alg: Scheduler, inst: Instance, what: str, f: float) -> None:
    if "exponential" in alg.tags and inst.num_coflows > 4:
        return
    if inst.has_releases and not alg.supports_releases:
        return
    try:
        base = objective(scaled_params(alg, 1.0, 1.0), inst)
    except NotSupportedError:
        return
    if what == "sizes":
        other, expect = inst.scaled(f, f), base * f
        scaled = scaled_params(alg, f, f)
    else:
        other, expect = scale_capacities(inst, f), base / f
        scaled = scaled_params(alg, 1.0, 1.0 / f)
    got = objective(scaled, other)
    if abs(got - expect) > RTOL * abs(expect):
        reason = expected_failure(alg.label)
        if reason:
            pytest.xfail(reason)
        raise AssertionError(f"{alg.label}: {what} x {f:g} gave {got!r}, expected {expect!r} "
                             f"(relative error {got / expect - 1:.3g}) on "
                             f"{inst.meta.get('name')}")


instances_st = st.builds(
    lambda seed, rel, w, het: random_instance(
        np.random.default_rng(seed), max_ports=3, max_coflows=4, max_flows=3, releases=rel,
        weights=w, heterogeneous=het,
        name=f"random(seed={seed}, releases={rel}, weights={w}, heterogeneous={het})"),
    st.integers(0, 2 ** 32 - 1), st.booleans(), st.booleans(), st.booleans())


@pytest.mark.parametrize("alg", SCHEDULERS, ids=[s.label for s in SCHEDULERS])
@settings(max_examples=4, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(inst=instances_st, what=st.sampled_from(["sizes", "capacities"]),
       f=st.sampled_from(FACTORS))
def test_objective_scales_with_the_instance(alg, inst, what, f):
    _check(alg, inst, what, f)


def wide_range_instance(seed: int, what: str) -> Instance:
    """Capacities spanning 9 decades (ports from 3e-5 to 3e4) or sizes spanning 9 decades,
    within the documented dynamic range (coflowopt.limits)."""
    rng = np.random.default_rng(seed)
    m_in, m_out, K = 3, 3, 4
    counts = rng.integers(1, 4, size=K)
    F = int(counts.sum())
    if what == "capacities":
        cin, cout = 10 ** rng.uniform(-4.5, 4.5, m_in), 10 ** rng.uniform(-4.5, 4.5, m_out)
        size = 10 ** rng.uniform(0, 1, F)
    else:
        cin, cout = 10 ** rng.uniform(0, 0.3, m_in), 10 ** rng.uniform(0, 0.3, m_out)
        size = 10 ** rng.uniform(-4.5, 4.5, F)
    return Instance.from_arrays(
        ingress_capacity=cin, egress_capacity=cout, coflow_ids=[f"c{k}" for k in range(K)],
        flow_coflow=np.repeat(np.arange(K), counts), flow_src=rng.integers(0, m_in, F),
        flow_dst=rng.integers(0, m_out, F), flow_size=size,
        release=rng.uniform(0, 5, K) * (rng.random(K) < 0.5),
        meta={"name": f"wide-{what}(seed={seed})"})


#: label pattern -> why it cannot run on the wide-range instances.
WIDE_EXCEPTIONS = {
    "*+bvn": "BvN needs equal capacities (NotSupportedError) and zero-release orderings apply",
}


@pytest.mark.parametrize("what", ["capacities", "sizes"])
@pytest.mark.parametrize("alg", SCHEDULERS, ids=[s.label for s in SCHEDULERS])
def test_wide_ranges_schedule_and_verify(alg, what):
    """Capacity ratios up to 1e9 (which stalled greedy, MADD, Varys, Aalo and priority when
    residual capacities below 1e-12 x the largest capacity counted as 0) and sizes 9 decades
    apart (which made flows ending late send 1e-8 too much; and Varys-online, whose absolute T
    alternation ran past the simulator's event budget on long schedules): every schedule
    verifies."""
    if "exponential" in alg.tags or "needs_solver" in alg.tags:
        pytest.skip("covered by the scaled small instances above (LP or exhaustive search)")
    for pattern, reason in WIDE_EXCEPTIONS.items():
        if fnmatch.fnmatch(alg.label, pattern) and (what == "capacities" or "bvn" in pattern):
            pytest.skip(reason)
    for seed in range(3):
        inst = wide_range_instance(seed, what)
        if inst.has_releases and not alg.supports_releases:
            continue
        objective(alg, inst)


def test_tiny_port_beside_a_huge_one():
    """The issue's stall, by hand: ingress capacities 1e-6 and 1e6; the small port's flow
    (1e-6 of data, time 1) must be served.  Each flow needs time 1 and they share egress 0
    (capacity 1): the optimum of the sum of completion times is 1 + (1 + 1e-6)."""
    inst = Instance.from_arrays(ingress_capacity=[1e-6, 1e6], egress_capacity=[1.0],
                                coflow_ids=["a", "b"], flow_coflow=[0, 1], flow_src=[0, 1],
                                flow_dst=[0, 0], flow_size=[1e-6, 1.0])
    for alg in SCHEDULERS:
        if "needs_solver" in alg.tags or "+bvn" in alg.label:
            continue
        v = objective(alg, inst)
        assert v >= 2 + 1e-6 - 1e-12, (alg.label, v)
