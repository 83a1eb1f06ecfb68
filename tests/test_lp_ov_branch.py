"""LP-OV with branching on pairwise orders (``lp-ov-branch``): hand-checked values, the
covering rule, certificates (in process and standalone), limits, and bound <= OPT."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings

from coflowopt import Coflow, Instance
from coflowopt.bounds.lp_bounds import lp_ov_bound
from coflowopt.bounds.lp_ov_branch import (BranchCertificate, BranchLeaf, check_branch_certificate,
                                           check_covering, decision_closure, lp_ov_branch_bound)
from coflowopt.certificate_files import lower_bound_certificate
from coflowopt.exact import bnb
from coflowopt.exceptions import InvalidParameterError
from coflowopt.formats import write_instance
from coflowopt.testing import digest_ts4, instances

CHECKER = Path(__file__).resolve().parent.parent / "tools" / "check_certificate.py"


def two_ports_three_coflows():
    """Hand-checked: A has 1 unit on ingress 0, B 1 unit on ingress 1, C 1 unit on each of
    ingress 0 and 1 (all to distinct egresses).  Unit weights.

    OPT: A and B in parallel finish at 1, C at 2: 1 + 1 + 2 = 4 (C first: 1 + 2 + 2 = 5).
    LP-OV (ports used): pairs (A, C) at ingress 0 and (B, C) at ingress 1; with x = "C before
    A" = "C before B" = t, f_A >= 1 + t, f_B >= 1 + t, f_C >= 1 + (1 - t) (both rows), so the
    objective is 4 + t >= 4: LP-OV = 4 = OPT already; the branch on (A, C) keeps it 4."""
    return Instance.from_coflows([Coflow("A", [(0, 0, 1.0)]), Coflow("B", [(1, 1, 1.0)]),
                                  Coflow("C", [(0, 2, 1.0), (1, 3, 1.0)])])


def test_ts4_branching_reaches_the_optimum():
    # Sincronia T-S4: LP-OV 32 (formulations/lp_ov.md), OPT 33 (bnb); one branching on the
    # fractional pair closes the gap: both leaves certify >= 33
    inst = digest_ts4()
    assert lp_ov_bound(inst).value == 32
    res = lp_ov_branch_bound(inst)
    assert res.kind == "lower_bound" and res.certificate_status == "certified"
    assert res.value == 33 and isinstance(res.value, Fraction)
    assert res.extra["root_value"] == pytest.approx(32.0)
    assert res.extra["leaves"] >= 2 and res.status == "optimal"
    assert float(bnb(inst, time_limit=60).value) == 33
    json.dumps(res.to_dict(), allow_nan=False)


def test_hand_checked_small_instances():
    for inst, opt in ((two_ports_three_coflows(), 4),):
        assert float(bnb(inst, time_limit=60).value) == opt
        lp = lp_ov_bound(inst).value
        res = lp_ov_branch_bound(inst)
        assert lp <= res.value <= opt


def test_closure_and_covering():
    assert decision_closure([]) == []
    assert sorted(decision_closure([(2, 0), (0, 1)])) == [(0, 1), (2, 0), (2, 1)]
    assert decision_closure([(0, 1), (1, 0)]) is None
    assert check_covering([[]]) == ""
    assert check_covering([[(0, 1)], [(1, 0)]]) == ""
    assert check_covering([[(0, 1), (1, 2)], [(0, 1), (2, 1)], [(1, 0)]]) == ""
    assert "do not cover" in check_covering([[(0, 1)]])
    assert "do not cover" in check_covering([[(0, 1)], [(1, 2)]])
    assert "do not cover" in check_covering([[(0, 1), (1, 2)], [(1, 0)]])
    assert "do not cover" in check_covering([[], [(0, 1)]])
    assert check_covering([]) == "no leaves"


def test_in_process_check_rejects_a_dropped_leaf_and_a_false_empty_leaf():
    inst = digest_ts4()
    cert = lp_ov_branch_bound(inst).certificate
    value, why, _ = check_branch_certificate(inst, cert, repair=False)
    assert value == 33 and why == ""
    dropped = BranchCertificate(params=cert.params, leaves=cert.leaves[:1])
    assert check_branch_certificate(inst, dropped)[0] is None
    emptied = BranchCertificate(params=cert.params,
                                leaves=[BranchLeaf(cert.leaves[0].decisions, None)] +
                                cert.leaves[1:])
    v, why, _ = check_branch_certificate(inst, emptied)
    assert v is None and "declared empty" in why


def _write(tmp_path, inst, cert):
    ip, cp = tmp_path / "inst.json", tmp_path / "cert.json"
    write_instance(inst, ip)
    cp.write_text(json.dumps(cert))
    return subprocess.run([sys.executable, str(CHECKER), str(ip), str(cp)],
                          capture_output=True, text=True)


def test_standalone_checker_confirms_and_rejects_tampering(tmp_path):
    inst = digest_ts4()
    cert = lower_bound_certificate(inst, lp_ov_branch_bound(inst))
    assert cert["proof"]["type"] == "lp-ov-branch-dual" and cert["claim"]["value"] == "33"
    out = _write(tmp_path, inst, cert)
    assert out.returncode == 0 and out.stdout.startswith("CONFIRMED"), out.stdout + out.stderr
    # one leaf dropped: the rest do not cover every order
    bad = json.loads(json.dumps(cert))
    bad["proof"]["leaves"] = bad["proof"]["leaves"][:1]
    out = _write(tmp_path, inst, bad)
    assert out.returncode == 1 and "cover" in out.stdout
    # a leaf's decision flipped: both leaves now say the same
    bad = json.loads(json.dumps(cert))
    d0 = bad["proof"]["leaves"][0]["decisions"][0]
    bad["proof"]["leaves"][1]["decisions"][0] = list(d0)
    out = _write(tmp_path, inst, bad)
    assert out.returncode == 1
    # one multiplier raised: the leaf's bound no longer holds (dual infeasible or below 33)
    bad = json.loads(json.dumps(cert))
    bad["proof"]["leaves"][0]["rows"][0]["multiplier"] = "5"
    out = _write(tmp_path, inst, bad)
    assert out.returncode == 1, out.stdout
    # a leaf without a cycle declared empty
    bad = json.loads(json.dumps(cert))
    leaf = bad["proof"]["leaves"][0]
    leaf.pop("rows")
    leaf["empty"] = True
    out = _write(tmp_path, inst, bad)
    assert out.returncode == 1 and "empty" in out.stdout


def test_limits_and_parameters():
    inst = digest_ts4()
    # no branching allowed: the root LP-OV, status node_limit
    res = lp_ov_branch_bound(inst, max_nodes=0)
    assert res.value == 32 and res.status == "node_limit" and res.extra["leaves"] == 1
    # a limit too short for the root: no number, never a wrong one
    res = lp_ov_branch_bound(inst, time_limit=1e-9)
    assert res.status == "time_limit"
    assert res.value is None or res.value <= 33
    with pytest.raises(InvalidParameterError):
        lp_ov_branch_bound(inst, max_nodes=-1)
    with pytest.raises(InvalidParameterError):
        lp_ov_branch_bound(inst, time_limit=-1.0)


def test_weighted_cct_subtracts_the_release_term():
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0)], release=1.0),
                                  Coflow("B", [(0, 0, 1.0)], weight=2.0)])
    a = lp_ov_branch_bound(inst)
    b = lp_ov_branch_bound(inst, objective="weighted_cct")
    assert a.value - b.value == 1


@settings(max_examples=30, deadline=None)
@given(inst=instances(max_ports=3, max_coflows=5, max_flows=3, releases=True, weights=True,
                      heterogeneous=True))
def test_bound_between_lp_ov_and_the_optimum(inst):
    res = lp_ov_branch_bound(inst, max_nodes=30)
    assert res.kind == "lower_bound"
    opt = bnb(inst, time_limit=60)
    assert opt.kind == "optimal"
    assert float(res.value) <= float(opt.value) * (1 + 1e-9) + 1e-12
    assert res.value >= lp_ov_bound(inst).value * (1 - Fraction(1, 10 ** 9))


@pytest.mark.parametrize("seed,topo,K", [(0, "fat-tree-k4", 4), (5, "leaf-spine-2x2-os2", 4)])
def test_resources_bound_at_most_optimum_and_checked(seed, topo, K, tmp_path):
    """Over resources (a topology, ECMP paths): the rows are per link; bound <= the bnb
    optimum, >= LP-OV, and the standalone checker confirms the file."""
    from tests.test_resources_lp_bounds import topology_instance
    inst = topology_instance(seed, topo, K)
    res = lp_ov_branch_bound(inst, max_nodes=20)
    assert res.kind == "lower_bound"
    assert lp_ov_bound(inst).value * (1 - Fraction(1, 10 ** 9)) <= res.value
    assert float(res.value) <= float(bnb(inst, time_limit=60).value) * (1 + 1e-9)
    out = _write(tmp_path, inst, lower_bound_certificate(inst, res))
    assert out.returncode == 0 and out.stdout.startswith("CONFIRMED"), out.stdout + out.stderr
