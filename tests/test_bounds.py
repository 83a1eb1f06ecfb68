"""The registered bounds on the worked examples, their Result contract and the CLI."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from coflowopt import Coflow, Instance
from coflowopt.bounds import (bssi_dual, interval_lp_bound, isolated_bound, lp_ov_bound,
                              ordering_lp_bound, port_bound, time_indexed_lp_bound)
from coflowopt.cli import main
from coflowopt.exceptions import InvalidParameterError
from coflowopt.formulations.certificates import CertificateCheck
from coflowopt.registry import algorithms, get_algorithm
from coflowopt.testing import digest_ts3, digest_ts4

ALL = ["isolated", "port", "bssi-dual", "ordering-lp", "time-indexed-lp", "interval-lp",
       "lp-ov"]


def fig1(eps=0.01):
    """Sincronia Fig. 1 (anchors-algorithms.md section 2.1), float sizes 2 + eps."""
    return Instance.from_coflows(
        [Coflow("C1", [(i, i, 1.0) for i in range(4)] + [(i, (i + 1) % 4, 1.0)
                                                         for i in range(4)])] +
        [Coflow(f"C{i + 2}", [(i, i, 2 + eps)]) for i in range(4)])


def test_registry_has_every_bound():
    names = {a.name for a in algorithms("bound")}
    assert set(ALL) <= names
    for n in ALL:
        assert "certificate" in get_algorithm("bound", n).tags


@pytest.mark.parametrize("name", ALL)
def test_result_contract(name):
    res = get_algorithm("bound", name).func(digest_ts4())
    assert res.kind == "lower_bound" and res.certificate_status == "certified"
    assert isinstance(res.value, Fraction)
    assert res.objective == "weighted_completion_time" and res.status == "optimal"
    assert res.solver and "certify" in res.timings and res.certificate is not None
    d = res.to_dict()
    assert d["kind"] == "lower_bound" and "value_exact" in d
    json.dumps(d, allow_nan=False)


def test_ts3_all_bounds_at_most_opt_10():
    inst = digest_ts3()
    assert isolated_bound(inst).value == 6
    assert port_bound(inst).value == 10          # SPT on E1: 1 + 3 + 6
    assert bssi_dual(inst).value == 10
    for f in (ordering_lp_bound, time_indexed_lp_bound, interval_lp_bound, lp_ov_bound):
        v = float(f(inst).value)
        assert v <= 10 and v > 6


def test_ts4_values():
    inst = digest_ts4()
    assert isolated_bound(inst).value == 26
    r = port_bound(inst)
    assert r.value == 32 and r.extra["port"] == "egress 0"
    assert bssi_dual(inst).value == Fraction(269, 9)
    assert float(ordering_lp_bound(inst).value) == pytest.approx(32.0, rel=1e-12)
    assert float(lp_ov_bound(inst).value) == pytest.approx(32.0, rel=1e-9)
    assert float(time_indexed_lp_bound(inst).value) <= 33
    assert float(interval_lp_bound(inst).value) <= 33


def test_sincronia_fig1_bssi_dual_is_opt():
    inst = fig1()
    opt = 5 * Fraction(2.01) + 2          # C2..C5 at 2.01, C1 at 4.01
    for tb in ("paper", "first"):
        r = bssi_dual(inst, tie_break=tb)
        assert r.value == opt
        assert r.extra["orderings_value_exact"] == f"{opt.numerator}/{opt.denominator}"
    assert r.extra["order"] == ["C5", "C4", "C3", "C1", "C2"]
    assert bssi_dual(inst).extra["order"] == ["C2", "C3", "C4", "C1", "C5"]   # Table 2
    assert float(ordering_lp_bound(inst).value) == pytest.approx(12.05, rel=1e-9)


def test_port_bound_never_below_isolated():
    """Smith on a port charges a coflow only its load there: without releases a port can be
    below the isolated bound (found by hypothesis); the bound then reports the isolated one."""
    import numpy as np
    from coflowopt.bounds.simple import smith_values
    from coflowopt.testing import random_instance
    inst = random_instance(np.random.default_rng(258559198), max_ports=3, max_coflows=5,
                           max_flows=3, weights=True, heterogeneous=True)
    iso = isolated_bound(inst)
    assert not inst.has_releases and smith_values(inst).max() < float(iso.value)
    r = port_bound(inst)
    assert r.value == iso.value and r.extra["port"] is None and r.algorithm == "port"


def test_weighted_cct_subtracts_the_release_term_exactly():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2)], weight=3, release=0.1),
                                  Coflow("B", [(0, 0, 1)], weight=1, release=1.5)])
    for name in ("isolated", "port", "bssi-dual", "ordering-lp"):
        f = get_algorithm("bound", name).func
        a, b = f(inst), f(inst, objective="weighted_cct")
        assert b.objective == "weighted_cct"
        assert a.value - b.value == 3 * Fraction(0.1) + Fraction(1.5)


def test_uncertified_result_has_no_value(monkeypatch):
    import coflowopt.bounds.common as common
    monkeypatch.setattr(common, "check_certificate",
                        lambda *a, **k: CertificateCheck("rejected", None, True, "forced"))
    res = ordering_lp_bound(digest_ts4())
    assert res.kind is None and res.value is None
    assert res.certificate_status == "uncertified"
    assert "NOT a certified bound" in res.message and "uncertified_value" in res.extra


def test_ordering_lp_time_limit_status():
    from coflowopt.generators import uniform_random
    inst = uniform_random(6, 30, seed=1)
    # no LP finishes: the answer is BSSI's dual (a dual solution of the ordering LP),
    # certified, with the status saying the LP was not solved
    res = ordering_lp_bound(inst, time_limit=1e-9)
    assert res.kind == "lower_bound" and res.status == "time_limit"
    assert res.extra["dual_from"] == "bssi" and "BSSI's dual" in res.message
    assert float(res.value) == pytest.approx(float(bssi_dual(inst).value), rel=1e-9)
    # without BSSI's start there is nothing to certify
    res = ordering_lp_bound(inst, time_limit=1e-9, initial="full")
    assert res.kind is None and res.status == "time_limit"
    assert res.certificate_status == "uncertified"


def test_lp_ov_build_stops_at_the_time_limit():
    import time
    from coflowopt.formulations.linear_program import BuildDeadline
    from coflowopt.formulations.lp_ov import build_lp_ov
    from coflowopt.generators import uniform_random
    inst = uniform_random(6, 30, seed=1)
    with pytest.raises(BuildDeadline):
        build_lp_ov(inst, deadline=time.perf_counter())
    # 3,000 coflows took a minute to build whatever the limit: the build now checks the
    # clock between its steps and the bound says why it has no value
    res = lp_ov_bound(inst, time_limit=1e-9)
    assert res.status == "time_limit" and res.kind is None and res.value is None
    assert "while building the LP" in res.message
    full = lp_ov_bound(inst)
    assert full.status == "optimal" and full.kind == "lower_bound"


@pytest.mark.parametrize("limit", [-1.0, -1e-9, float("nan"), "10"])
@pytest.mark.parametrize("bound", [ordering_lp_bound, lp_ov_bound, interval_lp_bound,
                                   time_indexed_lp_bound])
def test_lp_bounds_refuse_bad_time_limits(bound, limit):
    with pytest.raises(InvalidParameterError, match="time_limit must be a number of seconds"):
        bound(digest_ts4(), time_limit=limit)


def test_time_indexed_models_are_labelled():
    inst = digest_ts4()
    r = time_indexed_lp_bound(inst, model="slotted", slot=1.0, horizon=40)
    assert "SLOTTED" in r.message and r.extra["bounds_model"].startswith("slotted")
    r = time_indexed_lp_bound(inst, horizon="safe", overflow=False, slot=1.0)
    assert r.params["overflow"] is False and float(r.value) <= 33


def test_too_large_is_refused():
    from coflowopt.exceptions import NotSupportedError
    with pytest.raises(NotSupportedError):
        time_indexed_lp_bound(digest_ts4(), slot=1e-3, horizon=40, max_nonzeros=1000)


# ----------------------------------------------------------------------------- CLI
@pytest.fixture
def ts4_file(tmp_path):
    from coflowopt.formats import write_instance
    p = tmp_path / "ts4.json"
    write_instance(digest_ts4(), str(p))
    return str(p)


def test_cli_bound_all_json(ts4_file, capsys, tmp_path):
    rc = main(["bound", ts4_file, "--json", "--export", str(tmp_path / "m.lp")])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    got = {r["algorithm"]: r for r in out["results"]}
    assert set(ALL) <= set(got)
    assert got["bssi-dual"]["value_exact"] == "269/9"
    assert all(r["kind"] == "lower_bound" and r["certificate_status"] == "certified"
               for r in got.values())
    assert (tmp_path / "m.ordering-lp.lp").exists() and (tmp_path / "m.port.lp").exists()


def test_cli_bound_single_text_and_params(ts4_file, capsys, tmp_path):
    rc = main(["bound", ts4_file, "-m", "interval-lp", "-p", "epsilon=0.1", "--time-limit",
               "10", "--export", str(tmp_path / "i.mps")])
    assert rc == 0
    out = capsys.readouterr().out
    assert "interval-lp:" in out and "lower_bound" in out and "certified" in out
    assert (tmp_path / "i.mps").exists()
    assert main(["bound", ts4_file, "-m", "port", "-p", "bogus=1"]) == 2
    assert main(["bound", ts4_file, "-m", "no-such-bound"]) == 2
    assert main(["bound", ts4_file, "--export", str(tmp_path / "x.txt")]) == 2


def test_cli_reports_skips_without_crashing(ts4_file, capsys):
    rc = main(["bound", ts4_file, "-m", "time-indexed-lp", "-p", "slot=0.0001",
               "-p", "max_nonzeros=100", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["results"][0]["status"] == "skipped"


def test_ordering_lp_falls_back_to_the_full_set_start(monkeypatch):
    """HiGHS once called the first BSSI-started restricted LP "unbounded" on an upsampled FB
    trace (not reproducible on demand); the bound then restarts from the full sets and says so."""
    from coflowopt.bounds import lp_bounds
    real = lp_bounds.solve_ordering_lp
    calls = []

    def flaky(instance, **kw):
        calls.append(kw["initial"])
        sol = real(instance, **kw)
        if kw["initial"] == "bssi":
            sol.status, sol.rounds, sol.certificate, sol.converged = "unbounded", 0, None, False
        return sol

    monkeypatch.setattr(lp_bounds, "solve_ordering_lp", flaky)
    ts4 = digest_ts4()
    res = lp_bounds.ordering_lp_bound(ts4)
    assert calls == ["bssi", "full"]
    assert res.kind == "lower_bound" and res.certificate_status == "certified"
    assert float(res.value) == pytest.approx(32.0)
    assert res.extra["fallback"] == {"first_start": "bssi", "first_status": "unbounded"}


@pytest.mark.parametrize("method,params,named", [
    ("interval-lp", dict(crossover="off"), "crossover"),
    ("interval-lp", dict(crossover=1), "crossover"),
    ("time-indexed-lp", dict(crossover="nosuch"), "crossover"),
    ("lp-ov", dict(crossover="on"), "crossover"),
    ("time-indexed-lp", dict(max_nonzeros=0), "max_nonzeros"),
    ("lp-ov", dict(max_nonzeros=-1), "max_nonzeros")])
def test_lp_bound_parameters_refused_not_read_loosely(monkeypatch, method, params, named):
    """A crossover other than True, False or "auto" was read as truthy (``"off"`` ran
    crossover); max_nonzeros 0 or -1 'skipped' every LP as too large: both refused, naming
    the parameter, before the solver starts (fuzz_edges_2026-11-30 'params')."""
    import coflowopt.formulations.backends as backends

    def no_solver(*a, **k):
        raise AssertionError("the solver ran")
    monkeypatch.setattr(backends, "solve_lp", no_solver)
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0)]), Coflow("B", [(0, 1, 1.0)])])
    with pytest.raises(InvalidParameterError, match=named):
        get_algorithm("bound", method).func(inst, **params)


def test_bool_or_none_parameter_needs_a_bool(capsys):
    """``exact: bool | None`` took any value (a string read as truthy); the command line's type
    check now names it, and null stays the default's meaning."""
    from coflowopt.introspect import parameter_problem
    f = get_algorithm("bound", "bssi-dual").func
    assert parameter_problem(f, {"exact": None}) is None
    assert parameter_problem(f, {"exact": False}) is None
    assert "true or false" in parameter_problem(f, {"exact": "nosuch"}).rule
    assert main(["bound", "--method", "bssi-dual", "-p", "exact=1", "/nonexistent.json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "-p exact" in err


@pytest.mark.parametrize("slot", [-1, 0, float("nan"), float("inf")])
def test_time_indexed_slot_refused_before_the_default_horizon(monkeypatch, slot):
    """A slot <= 0 (or not finite) is refused naming the user's value, before the default
    horizon's greedy run (``-p slot=-1`` ran the greedy horizon, compiling its kernel when
    stale, and then named the slot converted to the LP's units; fuzz_edges_2026-11-30)."""
    import coflowopt.formulations.time_indexed as ti

    def no_greedy(*a, **k):
        raise AssertionError("the default horizon's greedy run started")
    monkeypatch.setattr(ti, "_greedy_makespan", no_greedy)
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0)]), Coflow("B", [(0, 1, 1.0)])])
    with pytest.raises(InvalidParameterError, match=rf"slot must be .*got {slot!r}"):
        get_algorithm("bound", "time-indexed-lp").func(inst, slot=slot)
