"""The algorithms' numerical tolerances are checked where they enter (issue: trust at the
edges): ``tol_rel`` of every event-driven allocation in ``[0, TOL_REL_MAX]`` and CLAS'
``tie_rtol`` at least ``TIE_RTOL_MIN``, on every path (the registered function, its compiled
and Python engines, its windowed form), as an :class:`InvalidParameterError` naming the
parameter, not an internal error, a stalled kernel or an event limit."""

from __future__ import annotations

import functools
import importlib
import inspect
import math

import numpy as np
import pytest

from coflowopt import Coflow, Instance
from coflowopt.api import POLICY_WINDOWS, RATES_WINDOWS
from coflowopt.exceptions import InvalidParameterError
from coflowopt.limits import TIE_RTOL_MIN, TOL_REL_MAX, check_tolerance
from coflowopt.registry import algorithms
from coflowopt.verify import verify_schedule

INST = Instance.from_coflows([Coflow("A", [(0, 0, 2), (1, 1, 1)], release=0.0),
                              Coflow("B", [(0, 1, 1)], release=0.5),
                              Coflow("C", [(1, 0, 3), (1, 1, 1)], weight=2.0)])
BAD_TOL_REL = [-1, -1e-300, 1.5, 1, 0.5, 2e-6, math.nan, math.inf, "x", None, True, 10 ** 400]


def _with_tol_rel():
    """Every registered algorithm with a ``tol_rel`` parameter, per engine it offers."""
    out = []
    for a in algorithms():
        params = inspect.signature(a.func).parameters
        if "tol_rel" not in params:
            continue
        engines = ["auto"]
        if "engine" in params:
            engines.append("python")
        for e in engines:
            out.append(pytest.param(a, e, id=f"{a.kind}-{a.name}-{e}"))
    return out


def _call(alg, engine, **kw):
    if "engine" in inspect.signature(alg.func).parameters:
        kw["engine"] = engine
    if alg.kind == "rates":
        return alg.func(INST, np.arange(INST.num_coflows), **kw)
    return alg.func(INST, **kw)


def test_the_registry_has_the_tolerances_we_check():
    names = {(a.kind, a.name) for a in algorithms()
             if "tol_rel" in inspect.signature(a.func).parameters}
    # the ones that existed when the check was added: a new one is checked by the tests below
    assert {("rates", "madd"), ("policy", "varys"), ("policy", "aalo"), ("policy", "clas"),
            ("policy", "mlfq"), ("policy", "baraat")} <= names


@pytest.mark.parametrize("alg,engine", _with_tol_rel())
@pytest.mark.parametrize("value", BAD_TOL_REL, ids=repr)
def test_bad_tol_rel_is_refused_naming_it(alg, engine, value):
    with pytest.raises(InvalidParameterError, match=r"tol_rel must be a number in \[0, 1e-06\]"):
        _call(alg, engine, tol_rel=value)


@pytest.mark.parametrize("alg,engine", _with_tol_rel())
@pytest.mark.parametrize("value", [0.0, 1e-300, TOL_REL_MAX], ids=repr)
def test_tol_rel_in_range_gives_a_verified_schedule(alg, engine, value):
    s = _call(alg, engine, tol_rel=value)
    assert verify_schedule(INST, s).ok


def _windowed():
    out = []
    for table in (POLICY_WINDOWS, RATES_WINDOWS):
        for name, (module, function, bound, takes) in table.items():
            func = functools.partial(getattr(importlib.import_module(module), function),
                                     **bound)
            if takes and "tol_rel" in inspect.signature(func).parameters:
                out.append(pytest.param(func, table is RATES_WINDOWS, id=name))
    return out


@pytest.mark.parametrize("func,rates", _windowed())
@pytest.mark.parametrize("value", [-1, 1, math.nan], ids=repr)
def test_windowed_forms_refuse_bad_tol_rel_before_any_window(func, rates, value):
    got = []
    args = (INST, np.arange(INST.num_coflows)) if rates else (INST,)
    with pytest.raises(InvalidParameterError, match="tol_rel"):
        func(*args, lambda s, a, b: got.append(a), tol_rel=value)
    assert got == []


@pytest.mark.parametrize("value", [0, -1e-9, 1e-13, math.nan, math.inf, "x"], ids=repr)
def test_clas_tie_rtol_below_its_minimum_is_refused(value):
    from coflowopt.policies.aalo import clas
    with pytest.raises(InvalidParameterError, match=r"tie_rtol must be a number >= 1e-12"):
        clas(INST, tie_rtol=value)


@pytest.mark.parametrize("value", [TIE_RTOL_MIN, 1e-9, 5.0], ids=repr)
def test_clas_tie_rtol_in_range_gives_a_verified_schedule(value):
    from coflowopt.policies.aalo import clas
    assert verify_schedule(INST, clas(INST, tie_rtol=value)).ok


def test_check_tolerance_rules():
    assert check_tolerance(np.float32(1e-7), "t", 0.0, TOL_REL_MAX) == pytest.approx(1e-7)
    assert check_tolerance(0, "t", 0.0, TOL_REL_MAX) == 0.0
    for bad in (np.True_, [1e-9], "1e-9"):
        with pytest.raises(InvalidParameterError, match="t must be a number"):
            check_tolerance(bad, "t", 0.0, TOL_REL_MAX)
