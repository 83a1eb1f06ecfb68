"""The interval LP built without exact data (``exact=False``, what qsz solves) is the exact
build's float LP to the last bit: ``c``, ``A``, row and column bounds, offset."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coflowopt.formulations.certificates import normalised
from coflowopt.formulations.interval_lp import build_interval_lp, interval_grid
from coflowopt.generators import uniform_random
from coflowopt.testing import instances


def _bits(a) -> bytes:
    return np.ascontiguousarray(np.asarray(a, dtype=float)).tobytes()


def _same(inst, grid):
    ex = build_interval_lp(inst, grid)
    fl = build_interval_lp(inst, grid, exact=False)
    assert fl.exact == {} and ex.exact
    for key in ("c", "row_lo", "row_hi", "col_lo", "col_hi"):
        assert _bits(getattr(fl, key)) == _bits(getattr(ex, key)), key
    assert fl.offset == ex.offset
    assert _bits(fl.A.data) == _bits(ex.A.data)
    assert np.array_equal(fl.A.indices, ex.A.indices)
    assert np.array_equal(fl.A.indptr, ex.A.indptr)


@settings(max_examples=60, deadline=None)
@given(inst=instances(max_ports=4, max_coflows=7, max_flows=4, releases=True,
                      heterogeneous=True),
       eps=st.sampled_from([0.05, 0.25, 1.0, 1.7, 3.0]), units=st.booleans())
def test_float_build_equals_exact_build(inst, eps, units):
    if units:
        inst, _ = normalised(inst)
    _same(inst, interval_grid(inst, epsilon=eps))


def test_float_build_equals_exact_build_weights_releases_on_the_grid():
    # fractional sizes, weights and releases (r_k + rho_k between grid points)
    inst = uniform_random(6, 40, size=(0.1, 9.7), integer_sizes=False, weights=(0, 5),
                          seed=5, releases=(0, 30))
    g = interval_grid(inst, epsilon=0.25)
    _same(inst, g)
    # a grid whose first point is a coflow's r_k + rho_k exactly
    iso_grid = interval_grid(inst, epsilon=0.5, first=float(np.median(inst.release) + 1))
    _same(inst, iso_grid)


def test_the_check_can_fail():
    inst = uniform_random(3, 6, seed=1)
    g = interval_grid(inst, epsilon=0.25)
    ex = build_interval_lp(inst, g)
    fl = build_interval_lp(inst, g, exact=False)
    fl.c[np.flatnonzero(fl.c)[0]] = np.nextafter(fl.c[np.flatnonzero(fl.c)[0]], 0)
    assert _bits(fl.c) != _bits(ex.c)


@pytest.mark.parametrize("kwargs, words", [
    ({"epsilon": 1e-320}, "more than 100000 intervals"),
    ({"epsilon": 1e-9}, "intervals (at most 100000)"),
    ({"epsilon": 1e30}, "puts the grid's last point at"),
    ({"first": 1e30}, "first and last must lie in"),
    ({"first": 1e-320}, "first and last must lie in"),
    ({"last": 1e30}, "first and last must lie in"),
])
def test_grids_beyond_float_range_are_refused_by_name(kwargs, words):
    """Found by a fuzz of every registered parameter: epsilon = 1e-320 overflowed int() (an
    internal error of ``bound --method interval-lp`` and ``qsz``); epsilon = 1e30 or first /
    last = 1e30 put grid points beyond HiGHS's infinity (1e20), whose float objective came back
    -inf and broke the JSON output."""
    from coflowopt.exceptions import InvalidParameterError
    from coflowopt.formulations.interval_lp import interval_grid
    from coflowopt.generators import uniform_random
    inst = uniform_random(3, 4, seed=0)
    with pytest.raises(InvalidParameterError, match=re.escape(words)):
        interval_grid(inst, **kwargs)
    assert interval_grid(inst, epsilon=1e6).L >= 1
