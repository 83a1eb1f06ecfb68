"""qsz fixes the interval LP's settled columns (``lp_orderings.settled_columns``,
``proofs/interval-lp-settled-columns.md``): they are 1 on the whole optimal face, so the LP
keeps its optimal value, and the schedule built on the reduced LP is verified."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings

from coflowopt.formulations.certificates import normalised
from coflowopt.formulations.highs import HighsModel
from coflowopt.formulations.interval_lp import build_interval_lp, interval_grid
from coflowopt.formulations.linear_program import LinearProgram
from coflowopt.formulations.lp_orderings import qsz, settled_columns
from coflowopt.generators import uniform_random
from coflowopt.testing import instances
from coflowopt.verify import verify_schedule


def _lp(inst, eps=0.25):
    inst_u, _ = normalised(inst)
    return build_interval_lp(inst_u, interval_grid(inst_u, epsilon=eps), exact=False)


def _face_min(lp: LinearProgram, opt: float, cols: np.ndarray) -> float:
    """The least ``sum y_S`` over the LP's solutions within ``1e-9`` of its optimum (simplex):
    ``|S|`` iff every column of ``S`` is 1 on the optimal face (up to that slack)."""
    A = sp.vstack([lp.csr(), sp.csr_matrix(np.asarray(lp.c, float)[None, :])]).tocsr()
    slack = 1e-9 * max(1.0, abs(opt))
    face = LinearProgram("face", c=cols.astype(float), A=A,
                         row_lo=np.r_[lp.row_lo, -np.inf],
                         row_hi=np.r_[lp.row_hi, opt - lp.offset + slack],
                         col_lo=np.asarray(lp.col_lo, float), col_hi=np.asarray(lp.col_hi, float))
    sol = HighsModel(face, algorithm="simplex").run()
    assert sol.status == "optimal"
    return sol.objective


def _check(lp: LinearProgram) -> int:
    S = settled_columns(lp)
    full = HighsModel(lp, algorithm="simplex").run()
    assert full.status == "optimal"
    if S.any():
        # every optimal solution of the full LP has y_S = 1 ...
        assert _face_min(lp, full.objective, S) >= S.sum() - 1e-6 * S.sum()
    # ... so fixing them keeps the optimal value
    lo = np.where(S, 1.0, lp.col_lo)
    red = LinearProgram("reduced", c=lp.c, A=lp.A, row_lo=lp.row_lo, row_hi=lp.row_hi,
                        col_lo=lo, col_hi=lp.col_hi, offset=lp.offset)
    fixed = HighsModel(red, algorithm="simplex").run()
    assert fixed.status == "optimal"
    assert fixed.objective == pytest.approx(full.objective, rel=1e-9, abs=1e-9)
    return int(S.sum())


@settings(max_examples=40, deadline=None)
@given(inst=instances(max_ports=4, max_coflows=8, max_flows=4, releases=True,
                      heterogeneous=True))
def test_settled_columns_are_one_on_the_whole_optimal_face(inst):
    _check(_lp(inst))


def test_settled_columns_on_weights_zero_weights_and_releases():
    n = 0
    for seed in range(4):
        inst = uniform_random(6, 30, weights=(0, 5), releases=(0, 20), capacities=(1, 3),
                              seed=seed)
        n += _check(_lp(inst, eps=0.5))
    assert n > 0      # the instances do have settled columns: the face check ran


def test_the_face_check_can_fail():
    """A column that is not settled (0 < y < 1 at some optimum, or 0) is caught: the last
    unsettled column before a coflow's settled ones, where the capacity binds."""
    lp = _lp(uniform_random(8, 60, seed=3))
    S = settled_columns(lp)
    K, L = lp.col_blocks["y"][2]
    Sk = S.reshape(K, L)
    full = HighsModel(lp, algorithm="simplex").run()
    y = full.x.reshape(K, L)
    cand = [(k, int(np.argmax(Sk[k])) - 1) for k in range(K) if Sk[k].any()]
    cand = [(k, l) for k, l in cand if l >= 0 and y[k, l] < 1 - 1e-9]
    assert cand, "no coflow with an unsettled column below 1 before its settled ones"
    k, l = cand[0]
    wrong = S.copy()
    wrong[k * L + l] = True
    assert _face_min(lp, full.objective, wrong) < wrong.sum() - 1e-6


def test_qsz_solves_the_reduced_lp_to_the_full_lp_value_and_verifies():
    inst = uniform_random(10, 120, weights=(0, 3), releases=(0, 10), seed=7)
    lp = _lp(inst)
    full = HighsModel(lp, algorithm="ipm", crossover=False).run()
    s = qsz(inst, engine="madd")
    m = s.meta
    assert m["lp_settled_columns"] == int(settled_columns(lp).sum()) > 0
    assert m["lp_objective"] == pytest.approx(full.objective, rel=1e-7)
    assert m["lp_solver"]["name"] == "highs" and m["lp_solver"]["crossover"] is False
    rep = verify_schedule(inst, s)
    assert rep.ok, rep.summary()
    rep = verify_schedule(inst, qsz(inst), mode="exact")    # the default engine, exactly
    assert rep.ok, rep.summary()
