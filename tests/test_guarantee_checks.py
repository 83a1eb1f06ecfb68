"""The conformance kit's guarantee checks (issue 13 item 3): ``check_lp_rounding_guarantee``
(ALG <= rho LP, E <= the proved bound, ALG/OPT within rho where the integral optimum is proved)
over every slotted LP rounding with a proof, and ``check_slow_motion_guarantee`` (E <= 2 OPT + 4
delta sum w with a proved fluid optimum), on the digest's section 8.3 instances with known
answers and random small ones; and that each check fails when a claimed factor is wrong."""

from __future__ import annotations

import importlib
import itertools
from fractions import Fraction
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings

from coflowopt import Coflow, Instance
from coflowopt.registry import get_algorithm
from coflowopt.testing import (LP_ROUNDINGS, as_scheduler, check_lp_rounding_guarantee,
                               check_slow_motion_guarantee, instances, integral_optimum)

pytest.importorskip("highspy")


def kdd(D: int) -> Instance:
    return Instance.from_coflows([Coflow("K", [(i, j, 1) for i in range(D)
                                               for j in range(D)])])


def open_shop() -> tuple[Instance, float]:
    p = [[2, 1, 0], [1, 2, 2], [0, 1, 3]]
    w = [2.0, 1.0, 1.0]
    inst = Instance.from_coflows([Coflow(f"J{j}", [(i, i, p[j][i]) for i in range(3)
                                                    if p[j][i]], weight=w[j])
                                  for j in range(3)])
    best = min(sum(w[j] * max(sum(p[k][i] for k in perm[:perm.index(j) + 1]) if p[j][i] else 0
                              for i in range(3)) for j in range(3))
               for perm in itertools.permutations(range(3)))
    return inst, best


#: The digest's section 8.3 instances with their known integral optima.
KNOWN = [
    ("K_{2,2}", kdd(2), 2),
    ("K_{3,3}", kdd(3), 3),
    ("single machine, Smith", Instance.from_coflows(
        [Coflow(f"J{j}", [(0, 0, 1)], weight=w) for j, w in enumerate([3.0, 1.0, 2.0, 5.0])]),
     5 * 1 + 3 * 2 + 2 * 3 + 1 * 4),
    ("concurrent open shop", *open_shop()),
    ("deadline-load", Instance.from_coflows([Coflow("J1", [(0, 0, 1), (0, 1, 1)], weight=1),
                                             Coflow("J2", [(1, 0, 1)], weight=10),
                                             Coflow("J3", [(2, 1, 1)], weight=10)]), 23),
]


def test_every_rounding_with_a_proof_is_registered():
    for name, (module, fn, _, doc) in LP_ROUNDINGS.items():
        alg = get_algorithm("slotted", name)
        assert "reconstruction" in alg.tags and doc in alg.reference + alg.guarantee + doc


@pytest.mark.parametrize("label,inst,opt", KNOWN, ids=[k[0] for k in KNOWN])
def test_known_answers_are_the_proved_optima(label, inst, opt):
    got = integral_optimum(inst, time_limit=20.0)
    assert got is None or got == opt, (label, got)


@pytest.mark.parametrize("name", sorted(LP_ROUNDINGS))
@pytest.mark.parametrize("label,inst,opt", KNOWN, ids=[k[0] for k in KNOWN])
def test_known_answers_within_the_proved_factor(name, label, inst, opt):
    check_lp_rounding_guarantee(name, inst, optimum=opt)


_REAL: dict = {}


def _wrong_pieces(instance, **kw):
    """The real pieces with a claimed factor 1/2 (too small: ALG >= OPT >= LP)."""
    p = _REAL["fn"](instance, **kw)
    return SimpleNamespace(lp_value=p.lp_value, costs=p.costs, best=p.best,
                           expectation=p.expectation, factor=Fraction(1, 2), guarantee=None)


@pytest.mark.parametrize("name", sorted(LP_ROUNDINGS))
def test_the_check_fails_on_a_wrong_factor(name, monkeypatch):
    module, fn, takes, doc = LP_ROUNDINGS[name]
    monkeypatch.setitem(_REAL, "fn", getattr(importlib.import_module(module), fn))
    monkeypatch.setitem(LP_ROUNDINGS, name, (__name__, "_wrong_pieces", takes, doc))
    with pytest.raises(AssertionError, match="proved"):
        check_lp_rounding_guarantee(name, kdd(2))


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(inst=instances(max_ports=3, max_coflows=4, max_flows=3, releases=True,
                      integer_sizes=True))
def test_property_alg_over_opt_within_rho(inst):
    opt = integral_optimum(inst, time_limit=10.0)
    for name in sorted(LP_ROUNDINGS):
        check_lp_rounding_guarantee(name, inst, optimum=opt)


def test_slow_motion_against_proved_fluid_optima():
    """E <= 2 OPT + 4 delta sum w with OPT from branch and bound (T-S4: 33; one K_{3,3}:
    3; the concurrent open shop); a claimed optimum far too small fails the check."""
    alg = as_scheduler("slow-motion")
    ts4 = Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 0, 4)]),
                                 Coflow("B", [(0, 0, 9)]),
                                 Coflow("C", [(0, 1, 5), (1, 1, 6)])])
    bnb = get_algorithm("exact", "bnb").func
    for inst in (ts4, kdd(3), open_shop()[0]):
        res = bnb(inst)
        assert res.kind == "optimal"
        check_slow_motion_guarantee(alg, inst, optimum=float(res.value))
    with pytest.raises(AssertionError, match="OPT"):
        check_slow_motion_guarantee(alg, ts4, optimum=1.0)
    assert float(bnb(ts4).value) == pytest.approx(33.0)


def test_roundings_experiment_runs(capsys):
    """experiments/theory_frontier_roundings.py on one instance: every best piece verified
    (the script asserts it), a table row per rounding."""
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[1] / "experiments" / "theory_frontier_roundings.py"
    spec = importlib.util.spec_from_file_location("theory_frontier_roundings", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.main(["--n", "1", "--seed", "3"])
    out = capsys.readouterr().out
    assert all(f"| {label} |" in out for label in mod.ROUNDINGS)
