"""The branch and bound's float DP tables read as exact values in the exact proof, where they
are exact (``subset_bounds.float_tables_exact``; proofs/bnb-exact-seed-bound.md, "DP tables
in floats").

The exact proof recomputes a closure's DP bound in rationals (``ExactSubsetBounds``, ``2^m``
subsets) only for sets of at most ``exact_proof_max_set`` coflows; above, on integral data with
capacities powers of two and every value below ``2^53``, the float tables are the rational
values themselves.  So the 4x4 family's 28-coflow optima, "proved within rtol" because of
sets of more than 16 coflows, are proved exactly.  Below it too the tables are read first
(``EXACT_PROOF_FLOAT_DP``), the rational DP only for a closure they leave short.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from coflowopt import Instance
from coflowopt.exact import enumerate_orders
from coflowopt.exact.branch_and_bound import bnb
from coflowopt.exact.subset_bounds import ExactSubsetBounds, SubsetBounds, float_tables_exact
from coflowopt.generators import uniform_random
from coflowopt.verify import verify_schedule


def with_capacities(inst: Instance, caps) -> Instance:
    caps = np.asarray(caps, dtype=float)
    m = inst.ingress_capacity.size
    return inst.replace(ingress_capacity=caps[:m], egress_capacity=caps[m:2 * m])


def test_condition():
    inst = uniform_random(3, 6, seed=0, weights=(1, 3), releases=(0, 4))
    members = range(6)
    assert float_tables_exact(inst, members)
    assert float_tables_exact(with_capacities(inst, [0.5, 2, 4, 1, 0.25, 8]), members)
    assert not float_tables_exact(with_capacities(inst, [3, 1, 1, 1, 1, 1]), members)
    assert not float_tables_exact(inst.replace(flow_size=inst.flow_size + 0.5), members)
    assert not float_tables_exact(inst.replace(weight=inst.weight * 0.1), members)
    assert not float_tables_exact(inst.replace(release=inst.release + 0.25), members)
    # every value must stay below 2^53 (in units of 2^-J)
    big = inst.replace(flow_size=inst.flow_size * 2.0 ** 30)
    assert float_tables_exact(big, members)
    assert not float_tables_exact(with_capacities(big, [2.0 ** -20] + [1] * 5), members)


@pytest.mark.parametrize("seed", range(6))
def test_float_tables_equal_the_rational_recursion(seed):
    """Where the condition holds, every table entry (all-subset tables, the compiled kernel)
    equals ExactSubsetBounds' rational MLB and DPB; releases and capacities 1/2 .. 4."""
    rng = np.random.default_rng(seed)
    inst = uniform_random(3, 8, seed=seed, weights=(1, 5), releases=(0, 6))
    inst = with_capacities(inst, 2.0 ** rng.integers(-1, 3, size=6))
    members = list(range(8))
    assert float_tables_exact(inst, members)
    sb = SubsetBounds(inst, members, kernel=True)
    esb = ExactSubsetBounds(inst, members)
    assert sb.tabulated
    for U in range(1, 1 << 8):
        assert Fraction(sb.mlb(U)) == esb.mlb(U)
        assert Fraction(sb.dpb(U)) == esb.dpb(U)


@pytest.mark.parametrize("seed", [1, 2, 4])
def test_exact_proof_above_max_set_with_exact_tables(seed):
    """exact_proof_max_set=2 leaves every closure on a larger set to the float tables: with
    integral data they are exact and the optimum (brute force's) is proved exactly; with a
    capacity 3 they are not, and the proof stays within rtol."""
    inst = uniform_random(3, 6, seed=seed, weights=(1, 3), releases=(0, 2))
    ref = enumerate_orders(inst)
    res = bnb(inst, time_limit=60, exact_proof_max_set=2, seed_bounds=False)
    assert res.kind == "optimal" and res.value == ref.value
    assert verify_schedule(inst, res.schedule, mode="exact").ok
    assert res.certificate_status == "proved exactly", res.certificate["exact"]
    assert res.certificate["exact"]["dp_from_float_tables"] > 0
    odd = with_capacities(inst, [3, 1, 1, 1, 1, 1])
    res = bnb(odd, time_limit=60, exact_proof_max_set=2, seed_bounds=False)
    assert res.kind == "optimal" and res.value == enumerate_orders(odd).value
    assert res.certificate_status == "proved within rtol"
    assert "sets of more than 2" in res.certificate["exact"]["stopped"]


def test_28_coflows_proved_exactly():
    """4x4 K=28 seed 2 (bench_exact's family): "proved within rtol" before (331 closures on
    sets of more than 16 coflows), proved exactly with the float tables."""
    inst = uniform_random(4, 28, flows_per_coflow=(1, 4), size=(1, 10), seed=2)
    # about 10 s of CPU; the limit is wall time, generous for a loaded host
    res = bnb(inst, time_limit=600)
    assert res.kind == "optimal" and res.value == 1216
    assert res.certificate_status == "proved exactly", res.certificate["exact"]
    assert res.certificate["exact"]["dp_from_float_tables"] > 0
    assert verify_schedule(inst, res.schedule, mode="exact").ok


def test_no_certificate_file_from_float_tables_without_their_values():
    """A proof that read the float tables has a certificate file only with the values it read
    (``extra["dp_values"]``, tests/test_certificate_dp.py): without them (its chain bounds
    would be rebuilt over every subset) refused at once, saying why."""
    from coflowopt.certificate_files import optimum_certificate
    from coflowopt.exceptions import InvalidParameterError
    inst = uniform_random(3, 6, seed=1, weights=(1, 3), releases=(0, 2))
    res = bnb(inst, time_limit=60, exact_proof_max_set=2, seed_bounds=False,
              certificate_nodes=True)
    assert res.certificate_status == "proved exactly"
    assert res.certificate["exact"]["dp_from_float_tables"] > 0
    res.extra.pop("dp_values")
    with pytest.raises(InvalidParameterError, match="float tables"):
        optimum_certificate(inst, res)


@pytest.mark.parametrize("seed", [1, 2, 4])
def test_exact_proof_reads_small_sets_from_exact_tables(seed, monkeypatch):
    """Sets of at most exact_proof_max_set coflows too: on integral data the exact proof
    reads DPB from the float tables and never runs the rational DP; where a table value
    falls short (here: every one lowered by 1) the closure is recomputed by the rational DP,
    and the optimum is still proved exactly; with the switch off, the rational DP as before."""
    from coflowopt.exact import branch_and_bound as B
    inst = uniform_random(3, 6, seed=seed, weights=(1, 3), releases=(0, 2))
    ref = enumerate_orders(inst)
    calls = []
    orig = ExactSubsetBounds.dpb

    def spy(self, mask):
        calls.append(mask)
        return orig(self, mask)

    monkeypatch.setattr(ExactSubsetBounds, "dpb", spy)
    res = bnb(inst, time_limit=60, seed_bounds=False)
    assert res.kind == "optimal" and res.value == ref.value
    assert res.certificate_status == "proved exactly", res.certificate["exact"]
    assert res.certificate["exact"]["closures_rechecked"] > 0
    assert calls == []
    # the tables lowered by 1 during the exact proof: the rational DP takes over
    orig_proof = B._Search.exact_proof

    def lowered(self, ub, max_set):
        dpb = self.sb.dpb
        self.sb.dpb = lambda U: dpb(U) - 1.0
        return orig_proof(self, ub, max_set)

    monkeypatch.setattr(B._Search, "exact_proof", lowered)
    res = bnb(inst, time_limit=60, seed_bounds=False)
    assert res.certificate_status == "proved exactly", res.certificate["exact"]
    assert calls
    monkeypatch.setattr(B._Search, "exact_proof", orig_proof)
    calls.clear()
    monkeypatch.setattr(B, "EXACT_PROOF_FLOAT_DP", False)
    res = bnb(inst, time_limit=60, seed_bounds=False)
    assert res.certificate_status == "proved exactly"
    assert calls
