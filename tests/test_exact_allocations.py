"""Every float rate allocation and policy yields schedules that the EXACT verifier accepts.

Float schedules meet capacities and sizes only up to rounding (a port carrying
``9007199254740993/9007199254740992`` of its capacity 1 under SEBF+MADD, flows sent
``size (1 +- 1e-16)``); :func:`coflowopt.simulate.exact_schedule` removes exactly those roundings
and the exact-mode pathway (``schedule_result(..., mode="exact")``, ``coflowopt schedule
--exact``) certifies that snap.  Here every registered ordering x rate allocation and every
policy runs on every library instance, and each snapped schedule must pass
``verify_schedule(..., mode="exact")`` with the float schedule's value up to rounding.
"""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

from coflowopt import Coflow, Instance
from coflowopt.exceptions import NotSupportedError
from coflowopt.library import list_instances, load_instance
from coflowopt.results import schedule_result
from coflowopt.schedule import Schedule
from coflowopt.simulate import SETTLE_RTOL, exact_schedule, settle_sizes
from coflowopt.testing import schedulers
from coflowopt.verify import Tolerances, verify_schedule

SCHEDULERS = schedulers()
DILATION = Tolerances().dilation
LIBRARY = {name: load_instance(name) for name in list_instances()}

#: (scheduler label, reason): schedulers whose exact verification may fail.  None today.
KNOWN_FAILURES: dict[str, str] = {}


def _applies(alg, inst: Instance) -> bool:
    if inst.has_releases and not alg.supports_releases:
        return False
    if "zero_release_only" in alg.tags and inst.has_releases:
        return False
    # exhaustive order search: only where it is cheap
    return not ("exponential" in alg.tags and inst.num_coflows > 3)


@pytest.mark.parametrize("alg", SCHEDULERS, ids=[s.label for s in SCHEDULERS])
def test_every_allocation_verifies_exactly_on_the_library(alg):
    ran = 0
    for name, inst in LIBRARY.items():
        if not _applies(alg, inst):
            continue
        try:
            run = alg.run(inst)
        except NotSupportedError:
            continue  # a documented restriction (e.g. BvN on unequal capacities)
        assert run.report.ok, f"{alg.label} on {name}: rejected in float mode"
        snap = exact_schedule(inst, run.schedule)
        rep = verify_schedule(inst, snap, mode="exact")
        if alg.label in KNOWN_FAILURES:
            continue
        assert rep.ok, (f"{alg.label} on {name}: exact verifier rejects the snapped schedule: "
                        f"{rep.violation_counts} {rep.violations[:2]}")
        exact_v = rep.weighted_completion_time
        assert isinstance(exact_v, Fraction)
        float_v = float(run.report.weighted_completion_time)
        # the soundness theorem's bound: rounding (1e-16) for event loops, the LP tolerance for
        # LP-based policies (CLAS: 1.4e-12), never more than the float verifier's dilation
        assert abs(float(exact_v) - float_v) <= (DILATION - 1) * float_v, \
            f"{alg.label} on {name}: the snap moved the value {float_v!r} -> {float(exact_v)!r}"
        # the pathway the CLI's --exact takes reports the snapped value, exactly verified
        res = schedule_result(inst, run.schedule, algorithm=alg.label, mode="exact")
        assert res.kind == "feasible" and res.value == exact_v and res.schedule.exact
        ran += 1
    assert ran > 0, f"{alg.label}: no library instance applies"


def test_the_reported_madd_overshoot_is_removed():
    """The issue's case: SEBF+MADD on the adversarial 4x4 instance overloads a port of capacity
    1 by one unit in the last place and misses sizes by rounding; the snap verifies exactly."""
    from coflowopt.api import run_schedule
    inst = LIBRARY["adversarial/sebf_madd-opt-4x4-6c-seed0"]
    alg = next(s for s in SCHEDULERS if s.label == "sebf+madd")
    raw = alg.run(inst).schedule
    assert not verify_schedule(inst, raw, mode="exact").ok   # what the issue saw
    res = run_schedule(inst, "sebf", "madd", verify_mode="exact")
    assert res.kind == "feasible" and res.report.mode == "exact"
    assert res.schedule.meta["exact_snap"]["max_stretch"] < 1e-15
    assert float(res.value) == pytest.approx(235.0, rel=1e-14)


def test_cli_schedule_exact_verifies():
    out = subprocess.run([sys.executable, "-m", "coflowopt", "schedule",
                          "instances/adversarial/sebf_madd-opt-4x4-6c-seed0.json", "--order",
                          "sebf", "--rates", "madd", "--exact", "--json"],
                         capture_output=True, text=True, cwd=_repo())
    assert out.returncode == 0, out.stderr
    import json
    d = json.loads(out.stdout)
    assert d["kind"] == "feasible" and d["verification"]["mode"] == "exact"


def _repo():
    from pathlib import Path
    return Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------ the snap, by hand
def test_snap_ten_tenths():
    """Ten flows of 0.1 on one ingress port of capacity 1, all at rate 0.1 for [0, 1): the
    float rates sum to 1 + 5.55e-17 exactly, so the interval is stretched by that factor and
    the rates divided by it; sizes are sent exactly."""
    inst = Instance.from_coflows([Coflow(f"c{i}", [(0, i, 0.1)]) for i in range(10)])
    s = Schedule.from_pieces(range(10), [0.0] * 10, [1.0] * 10, [0.1] * 10)
    rho = sum(Fraction(0.1) for _ in range(10))           # the exact load
    assert rho > 1
    x = exact_schedule(inst, s)
    rep = verify_schedule(inst, x, mode="exact")
    assert rep.ok
    assert all(e == rho for e in x.end)                   # [0, 1) stretched to [0, rho)
    assert all(r == Fraction(0.1) / rho for r in x.rate)
    assert x.meta["exact_snap"]["stretched_intervals"] == 1


def test_snap_rescales_sizes_only():
    """A flow sent 1 + 2^-52 of its size 1 at rate 1 + 2^-52: rates x size/sent, times kept."""
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1.0)])])
    r = 1.0 + 2.0 ** -52
    s = Schedule.from_pieces([0], [0.0], [1.0], [r])
    assert not verify_schedule(inst, s, mode="exact").ok
    x = exact_schedule(inst, s)
    assert x.rate.tolist() == [Fraction(1)] and x.end.tolist() == [Fraction(1)]
    assert verify_schedule(inst, x, mode="exact").weighted_completion_time == 1


def test_snap_never_repairs_a_wrong_schedule():
    """Twice the capacity for the whole schedule is not rounding: returned as it is."""
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 1.0)]), Coflow("B", [(0, 0, 1.0)])])
    s = Schedule.from_pieces([0, 1], [0.0, 0.0], [1.0, 1.0], [1.0, 1.0])
    assert exact_schedule(inst, s) is s
    assert not verify_schedule(inst, exact_schedule(inst, s), mode="exact").ok


def test_snap_keeps_exact_float_schedules():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0)]), Coflow("B", [(0, 0, 1.0)])])
    s = Schedule.from_pieces([1, 0], [0.0, 1.0], [1.0, 3.0], [1.0, 1.0])
    x = exact_schedule(inst, s)
    assert x.exact and x.meta["exact_snap"]["max_stretch"] == 0.0
    assert [float(v) for v in x.end] == [1.0, 3.0]


def test_settle_sizes_fixes_a_coarse_late_completion():
    """A flow of size 5.6e-5 at rate ~1.1 ending near t = 9399, where ulp(t) = 1.8e-12, sends
    a relative 1e-8 too much in float; settle_sizes rescales its rate only."""
    c = 1.0970148566434597   # the flow runs at its ports' full capacity
    inst = Instance.from_arrays(ingress_capacity=[c, 1.0], egress_capacity=[c],
                                coflow_ids=["A", "B"], flow_coflow=[0, 1], flow_src=[0, 1],
                                flow_dst=[0, 0], flow_size=[5.597988722114732e-05, 1.0])
    s = Schedule.from_pieces([0, 1], [9399.106386022051, 0.0], [9399.10643705134, 1.0],
                             [1.0970148566434597, 1.0])
    sent0 = 1.0970148566434597 * (9399.10643705134 - 9399.106386022051)
    assert abs(sent0 / 5.597988722114732e-05 - 1) > 1e-9           # the verifier rejects
    t = settle_sizes(inst, s)
    assert t.rate[1] == 1.0 and t.rate[0] < 1.0970148566434597
    sent = t.rate[0] * (t.end[0] - t.start[0])
    assert abs(sent / 5.597988722114732e-05 - 1) <= 4 * SETTLE_RTOL
    assert verify_schedule(inst, t).ok
    assert settle_sizes(inst, t) is t                              # nothing left to settle


def test_snap_stretch_spans_later_pieces():
    """An overload on [0, 1) delays everything after it by the stretch; releases still hold."""
    inst = Instance.from_arrays(ingress_capacity=[1.0], egress_capacity=[1.0, 1.0],
                                coflow_ids=["a", "b"], flow_coflow=[0, 0, 1],
                                flow_src=[0, 0, 0], flow_dst=[0, 1, 0],
                                flow_size=[0.1, 0.2, 1.0], release=[0.0, 1.0])
    # float 0.1 + 0.9000000000000001 is 1 + 1.4e-16 in exact arithmetic: a rounding overload
    # of ingress 0 on [0, 0.2 / r2), before coflow b's release at 1
    r1, r2 = 0.1, 0.9000000000000001
    s = Schedule.from_pieces([0, 1, 2], [0.0, 0.0, 1.0],
                             [1.0, 0.2 / r2, 2.0], [r1, r2, 1.0])
    x = exact_schedule(inst, s)
    rep = verify_schedule(inst, x, mode="exact")
    assert rep.ok, rep.violations
    assert min(x.start[x.flow == 2]) >= 1
    assert float(rep.weighted_completion_time) == pytest.approx(
        float(verify_schedule(inst, s).weighted_completion_time), rel=1e-14)
