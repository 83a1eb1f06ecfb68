"""Lemma 5b (proofs/bnb-inherited-lp-bound.md): a child of a branch-and-bound node is bounded by
its parent's node LP plus the chain step of the coflow it places.

* on random nodes of weighted, released 8x8 instances (and a 4x4 and a fractional one), the
  child's node LP optimum is at least the parent's certified LP bound plus
  ``w_k max(MLB(U), r_k + rho_k)`` (exact MLB), for every child of the node;
* the search that uses it (the default) closes children with it and proves the same optimum
  as the search without it, exactly (brute force against the default search:
  tests/test_exact_properties.py::test_bnb_equals_brute_force and
  tests/test_exact_search_v2.py::test_new_search_equals_old_and_sits_between_bound_and_schedules).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import coflowopt.exact.branch_and_bound as bb
from coflowopt.exact import bnb
from coflowopt.exact.order_lp import (build_event_lp, events_from_completions,
                                      new_event_lp_solver, pair_data, solve_event_lp)
from coflowopt.exact.subset_bounds import ExactSubsetBounds
from coflowopt.generators import uniform_random

INSTANCES = {
    "8x8 weights and releases": lambda s: uniform_random(8, 8, flows_per_coflow=(1, 8),
                                                         size=(1, 10), weights=(1, 5),
                                                         releases=(0, 5), seed=s),
    "4x4 integral": lambda s: uniform_random(4, 9, flows_per_coflow=(1, 4), size=(1, 10),
                                             seed=s),
    "fractional sizes": lambda s: uniform_random(3, 7, flows_per_coflow=(1, 4), size=(1, 10),
                                                 integer_sizes=False, weights=(1, 3),
                                                 releases=(0, 3), seed=s),
}


def _node(pd, rng):
    """A random node: (suffix codes, placed-before releases rho, block U)."""
    inst = pd.instance
    C = inst.release + rng.uniform(0.1, 10.0, inst.num_coflows)
    codes = events_from_completions(pd, C)
    cut = int(rng.integers(1, len(codes) + 1))
    head, suffix = codes[:cut], codes[cut:]
    return tuple(suffix), sum(1 for c in head if c < 0), [c for c in head if c >= 0]


@pytest.mark.parametrize("name", sorted(INSTANCES))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_child_lp_at_least_parent_lp_plus_step(name, seed):
    inst = INSTANCES[name](seed)
    pd = pair_data(inst)
    members = [int(k) for k in np.flatnonzero(inst.weight > 0)]
    esb = ExactSubsetBounds(inst, np.asarray(members))
    pos = {k: i for i, k in enumerate(members)}
    w = {k: Fraction(float(inst.weight[k])) for k in members}
    rng = np.random.default_rng(seed)
    hm = new_event_lp_solver()
    checked = strict = 0
    for _ in range(6):
        suffix, rho, U = _node(pd, rng)
        U = [k for k in U if k in pos]
        if not U:
            continue
        parent = solve_event_lp(build_event_lp(pd, suffix, num_prefix_releases=rho, block=U,
                                               reduced=True), model=hm)
        if parent.status == "infeasible":    # U cannot finish before a later release
            continue
        assert parent.status == "optimal" and parent.bound_exact is not None
        mask = sum(1 << pos[k] for k in U)
        mlb = esb.mlb(mask)
        for k in U:
            g = int(pd.coflow_group[k])
            if g >= rho:        # k is released after the block: not a child of this node
                continue
            rest = [j for j in U if j != k]
            codes = (k,) + suffix
            if rest:
                lp = build_event_lp(pd, codes, num_prefix_releases=rho, block=rest,
                                    reduced=True)
            else:   # a leaf: the whole sequence
                lp = build_event_lp(pd, tuple(-(h + 1) for h in range(rho)) + codes)
            child = solve_event_lp(lp, model=hm)
            if child.status != "optimal":
                continue
            step = w[k] * max(mlb, esb.e[pos[k]])
            want = parent.bound_exact + step
            assert Fraction(child.value) >= want - Fraction(1, 10 ** 9) * (1 + abs(want)), \
                (name, seed, suffix, rho, U, k)
            checked += 1
            strict += Fraction(child.value) > parent.bound_exact
    assert checked > 0 and strict > 0


def _without_inherited(monkeypatch):
    init = bb._Search.__init__

    def no_inherit(self, *a, **kw):
        init(self, *a, **kw)
        self.inherit_lp = False
    monkeypatch.setattr(bb._Search, "__init__", no_inherit)


def test_inherited_bound_closes_children_and_keeps_the_optimum(monkeypatch):
    inst = uniform_random(8, 10, flows_per_coflow=(1, 8), size=(1, 10), weights=(1, 5),
                          releases=(0, 5), seed=0)
    # the inherited bound alone: the sub-instance bound closes this root by a search of its own
    plain_kw = dict(sub_max=0, lns=False)
    new = bnb(inst, time_limit=120, seed_bounds=False, **plain_kw)
    assert new.kind == "optimal" and new.certificate_status == "proved exactly"
    assert new.extra["search"]["lp_inherited"] > 0
    _without_inherited(monkeypatch)
    plain = bnb(inst, time_limit=120, seed_bounds=False, **plain_kw)
    assert plain.kind == "optimal" and plain.extra["search"]["lp_inherited"] == 0
    assert new.value == plain.value                  # exact rationals
    assert new.extra["search"]["lps_solved"] <= plain.extra["search"]["lps_solved"]



@pytest.mark.parametrize("name", sorted(INSTANCES))
def test_event_lp_loads_through_arrays(name, monkeypatch):
    """The node LPs reach HiGHS through ``passModel``'s array form (no fallback to
    ``HighsModel.load``) and HiGHS solves the same LP: value, certified bound and duals equal
    to those of a model loaded through ``HighsModel.load``."""
    from coflowopt.formulations.highs import HighsModel
    inst = INSTANCES[name](4)
    pd = pair_data(inst)
    suffix, rho, U = _node(pd, np.random.default_rng(4))
    lp = build_event_lp(pd, suffix, num_prefix_releases=rho, block=U, reduced=True)
    ref_model = new_event_lp_solver()
    ref_model.load(lp.lp)
    ref = ref_model.run()

    def refuse(self, lp):
        raise AssertionError("HighsModel.load called: passModel's array form was refused")
    monkeypatch.setattr(HighsModel, "load", refuse)
    sol = solve_event_lp(lp, model=new_event_lp_solver())
    assert sol.status == ref.status
    if sol.status == "optimal":
        assert sol.solution.objective == ref.objective
        assert np.array_equal(sol.solution.row_dual, ref.row_dual)
        assert sol.bound_exact is not None
