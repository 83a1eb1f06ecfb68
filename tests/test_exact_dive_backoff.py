"""The dive back-off of the branch and bound (``bnb(dive_backoff=True)``, the default).

* the schedule: without an improvement the gap to the next dive doubles (dives at 10, 30,
  70, 150, 310, ... expanded nodes, at most ``DIVE_BACKOFF_MAX`` periods apart); a dive that improves
  the incumbent brings the gap back to ``dive_period``; ``dive_backoff=False`` dives every
  ``dive_period`` nodes, as the search did before;
* dives yield incumbents only, never a bound: ``bnb`` with and without the back-off proves the
  same optimum as brute force over event sequences (hypothesis), exactly.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coflowopt.exact import bnb, enumerate_orders
from coflowopt.exact import branch_and_bound as B
from coflowopt.generators import uniform_random
from coflowopt.testing import instances


def _search(inst, backoff: bool, period: int = 10, max_nodes: int = 400) -> B._Search:
    return B._Search(inst, time_limit=120, rtol=B.DEFAULT_RTOL, atol=0.0, node_lp=True,
                     dominance="subset", max_nodes=max_nodes, local_search=False,
                     table_max=22, table_kernel=True, block_charge=True, dive_period=period,
                     tie_digits=10, dp_chains=True, dive_backoff=backoff)


def _dives_at(monkeypatch, backoff: bool, improve, period: int = 10,
              max_nodes: int = 400) -> list[int]:
    """The expanded-node counts at which the search dives, with a stub dive that improves the
    incumbent when ``improve(count)`` says so.  No incumbent otherwise, so nothing is pruned
    (the leaves' are dropped) and the node limit stops the search."""
    inst = uniform_random(4, 14, flows_per_coflow=(1, 4), size=(1, 10), seed=3)
    s = _search(inst, backoff, period, max_nodes)
    seen: list[int] = []

    def dive(self, U, suffix):
        seen.append(self.stats.nodes_expanded)
        if improve(self.stats.nodes_expanded):
            # a better incumbent than the one before (a value only: nothing is pruned by it
            # while it stays above every bound)
            self.inc.value = 1e12 - len(seen)

    monkeypatch.setattr(B._Search, "dive", dive)
    # leaves offer no incumbent: nothing closes the search before the node limit
    monkeypatch.setattr(B._Search, "offer", lambda self, codes, sol, source: None)
    s.run()
    assert s.stats.nodes_expanded == max_nodes and s.stop_reason == "node_limit"
    return seen


def test_gap_doubles_up_to_the_cap(monkeypatch):
    # period 1: gaps 2, 4, 8, 16, then DIVE_BACKOFF_MAX periods
    assert B.DIVE_BACKOFF_MAX == 32
    assert _dives_at(monkeypatch, True, lambda n: False, period=1, max_nodes=160) == \
        [1, 3, 7, 15, 31, 63, 95, 127, 159]


def test_improvement_resets_the_gap(monkeypatch):
    # period 2, improvements at the dives of nodes 6 and 8: the gap is 2 after each
    assert _dives_at(monkeypatch, True, lambda n: n in (6, 8), period=2, max_nodes=140) == \
        [2, 6, 8, 10, 14, 22, 38, 70, 134]


def test_without_backoff_every_period(monkeypatch):
    assert _dives_at(monkeypatch, False, lambda n: False, max_nodes=65) == \
        list(range(10, 65, 10))


def test_default_is_backoff():
    import inspect
    assert inspect.signature(bnb).parameters["dive_backoff"].default is True


@settings(max_examples=6, deadline=None)
@given(inst=instances(max_ports=3, max_coflows=4, max_flows=3, releases=True, weights=True,
                      heterogeneous=True),
       period=st.sampled_from([1, 2, 10]))
def test_same_optimum_with_and_without_backoff(inst, period):
    ref = enumerate_orders(inst)
    assert ref.kind == "optimal"
    values = []
    for backoff in (True, False):
        res = bnb(inst, time_limit=600, dive_period=period, dive_backoff=backoff,
                  seed_bounds=False)
        assert res.kind == "optimal", res.message
        assert float(res.bound) <= float(res.value)
        values.append(res.value)
    assert values[0] == values[1]
    assert float(values[0]) == pytest.approx(float(ref.value), rel=1e-8, abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_dives_happen_and_optimum_unchanged(seed):
    """A search that expands nodes dives with the back-off too (fewer times), and both prove
    the same optimum exactly."""
    inst = uniform_random(4, 12, flows_per_coflow=(1, 4), size=(1, 10), seed=seed)
    out = {}
    for backoff in (True, False):
        res = bnb(inst, time_limit=120, dive_period=2, dive_backoff=backoff)
        assert res.kind == "optimal" and res.certificate_status == "proved exactly"
        out[backoff] = res
    assert out[True].value == out[False].value
    s_on = out[True].extra["search"]
    # the first dive is due at dive_period expanded nodes (a dive of a sequence seen before
    # is skipped and not counted)
    if s_on["nodes_expanded"] >= 2:
        assert s_on["dives"] >= 1 or s_on["dive_improvements"] == 0
    assert math.isfinite(float(out[True].bound))
