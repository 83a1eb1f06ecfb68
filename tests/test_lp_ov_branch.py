"""LP-OV with branching on pairwise orders (``lp-ov-branch``): hand-checked values, the
covering rule, certificates (in process and standalone), limits, and bound <= OPT."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
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


def _fractional_loads_instance():
    # 0.1 is not a dyadic fraction: in normalised units the loads stay floats that are not the
    # exact volumes, so LP-OV keeps exact copies that differ from its floats
    return Instance.from_coflows([Coflow("A", [(0, 0, 0.1), (1, 1, 0.3)]),
                                  Coflow("B", [(0, 1, 0.2)]), Coflow("C", [(1, 0, 0.7)])])


def test_float_exact_drops_only_copies_equal_to_the_floats():
    from coflowopt.bounds.lp_ov_branch import float_exact
    from coflowopt.formulations.certificates import certify_lp, normalised
    from coflowopt.formulations.lp_ov import build_lp_ov
    from coflowopt.rates._jit import load_kernels
    load_kernels()
    # T-S4: integer volumes, so LP-OV's exact right-hand sides and isolation bounds are its
    # floats: the copy without them is the same LP, and the compiled exact check applies
    lp = build_lp_ov(normalised(digest_ts4())[0])
    assert lp.exact.get("row_lo") is not None
    fl = float_exact(lp)
    assert fl is not lp and not any(fl.exact.get(k) is not None
                                    for k in ("row_lo", "col_lo", "A_data"))
    assert lp.exact.get("row_lo") is not None          # the original is left as it was
    # an exact copy that differs from its float is kept: the LP itself comes back
    lp2 = build_lp_ov(normalised(_fractional_loads_instance())[0])
    lp3 = copy.copy(lp2)
    lp3.exact = dict(lp2.exact)
    row_lo = lp3.exact["row_lo"].copy()
    row_lo[0] = Fraction(row_lo[0]) + Fraction(1, 3)
    lp3.exact["row_lo"] = row_lo
    assert float_exact(lp3) is lp3
    # the same certified value with and without the copies, on both paths
    from coflowopt.formulations.certificates import _exact_bound_compiled
    for L in (lp, lp2):
        y = np.linspace(0.0, 0.5, L.num_rows)
        a, b = certify_lp(L, y, repair=True), certify_lp(float_exact(L), y, repair=True)
        assert a.ok and b.ok and a.value == b.value
    assert _exact_bound_compiled(lp, np.zeros(lp.num_rows)) is None
    assert _exact_bound_compiled(fl, np.zeros(lp.num_rows)) is not None


def test_branch_records_its_children_and_checks_leaves_compiled():
    res = lp_ov_branch_bound(digest_ts4())
    h = res.extra["history"]
    assert h and all(len(r["children"]) == 2 for r in h)
    assert all(c["value"] >= 32 - 1e-9 and c["iterations"] >= 0 for r in h for c in r["children"])
    assert res.value == 33 and res.certificate_status == "certified"


def test_two_product_is_exact_and_declines_outside_its_range():
    from coflowopt.bounds.lp_ov_branch import _two_product
    rng = np.random.default_rng(3)
    a = rng.random(2000) * 10.0 ** rng.integers(-40, 40, 2000)
    b = -rng.random(2000) * 10.0 ** rng.integers(-40, 40, 2000)
    p, e = _two_product(a, b)
    assert all(Fraction(x) + Fraction(y) == Fraction(u) * Fraction(v)
               for x, y, u, v in zip(p.tolist(), e.tolist(), a.tolist(), b.tolist()))
    assert np.any(e != 0)
    assert _two_product(np.array([1e-200]), np.array([1.0]))[0] is None
    assert _two_product(np.array([1.0, 0.0]), np.array([3.0, 1e300]))[0] is None


def test_dual_feasible_scales_exactly_the_coflows_whose_exact_sum_exceeds_w():
    from coflowopt.bounds.lp_ov_branch import FEASIBILITY_MARGINS, dual_feasible
    from coflowopt.formulations.certificates import normalised
    from coflowopt.formulations.lp_ov import build_lp_ov
    # capacities 0.7 and 0.3: the products c_q y_kq are rounded, so the exact sums differ
    # from the float ones in the last bits, where the decisions below are taken
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 0.1), (1, 1, 0.3)]),
                                  Coflow("B", [(0, 1, 0.2), (1, 0, 0.5)]),
                                  Coflow("C", [(1, 0, 0.7), (0, 1, 0.9)])],
                                 ingress_capacity=[0.7, 0.3], egress_capacity=[0.3, 0.7])
    lp = build_lp_ov(normalised(inst)[0])
    K = inst.num_coflows
    Af = lp.A[:, :K].tocsr()
    rk, coef = Af.indices, Af.data
    w = lp.c[:K]
    n = np.bincount(rk, minlength=K)

    def reference(y):
        # the Fraction rule, row by row: scale the coflows whose exact sum exceeds w_k
        for margin in FEASIBILITY_MARGINS:
            s = [Fraction(0)] * K
            for r, (k, c) in enumerate(zip(rk.tolist(), coef.tolist())):
                s[k] += Fraction(c) * Fraction(float(y[r]))
            pushed = np.bincount(rk, weights=coef * y, minlength=K)
            bad = [k for k in range(K) if pushed[k] > w[k] * (1 - 1e-9) and s[k] > w[k]]
            if not bad:
                return y
            f = np.ones(K)
            f[bad] = w[bad] / pushed[bad] * (1.0 - margin)
            y = y * f[rk]
        return y

    rng = np.random.default_rng(5)
    moved = 0
    for scale in (1.0, 1 + 1e-16, 1 + 2e-16, 1 - 1e-16, 1 + 1e-12, 1 - 1e-12):
        for _ in range(200):
            y = w[rk] / (coef * n[rk]) * scale * (1 + rng.normal(size=rk.size) * 1e-16)
            got = dual_feasible(lp, y, K)
            assert np.array_equal(got, reference(y))
            moved += not np.array_equal(got, y)
    assert moved > 0


# ------------------------------------------------------------------ the cutoff
def _fb_sample(fb_trace_path, size=100, seed=0, release_scale=0.0):
    """``size`` coflows of the FB trace; releases scaled by ``release_scale`` (the trace's
    own are an hour apart: its samples' LP-OV is integral at the root)."""
    from coflowopt.formats import read_instance
    inst = read_instance(fb_trace_path).without_deadlines()
    rng = np.random.default_rng(seed)
    sub = inst.select_coflows(np.sort(rng.choice(inst.num_coflows, size, replace=False)))
    return sub.with_releases(np.asarray(sub.release, dtype=float) * release_scale)


@pytest.mark.parametrize("objective,release_scale", [("weighted_completion_time", 0.0),
                                                     ("weighted_cct", 0.001)])
def test_cutoff_stops_children_and_keeps_the_bound(fb_trace_path, tmp_path, objective,
                                                   release_scale):
    """Children stopped at the cutoff (HiGHS objective_bound) keep a dual that certifies their
    leaf: the bound is checked in process and by the standalone checker, is at most a verified
    schedule's value, and is the bound without the cutoff (the same number of children).  A
    cutoff below that bound makes stopped leaves the smallest: they are solved again.  With
    releases (weighted_cct) the cutoff is on sum w (C - r): at the final bound no stopped leaf is
    solved again (a cutoff read as sum w C would be far lower)."""
    from coflowopt.rates.greedy import greedy
    from coflowopt.verify import verify_schedule
    inst = _fb_sample(fb_trace_path, release_scale=release_scale)
    full = lp_ov_branch_bound(inst, max_nodes=40, objective=objective)
    assert full.extra["children_capped"] == 0 and full.params["cutoff"] is None
    rep = verify_schedule(inst, greedy(inst, np.asarray(full.extra["lp_order"])))
    rep.raise_if_invalid()
    ub = float(rep.weighted_completion_time) - (float(inst.weight @ inst.release)
                                                if objective == "weighted_cct" else 0.0)
    for scale, resolved in ((1, False), (Fraction(999, 1000), True)):
        cut = float(full.value * scale)
        res = lp_ov_branch_bound(inst, max_nodes=40, cutoff=cut, objective=objective)
        assert res.kind == "lower_bound" and res.certificate_status == "certified"
        assert res.extra["children_capped"] > 0
        assert (res.extra["capped_resolved"] > 0) == resolved
        assert res.extra["node_statuses"].get("objective_bound", 0) == \
            res.extra["children_capped"]
        assert res.extra["nodes"] == full.extra["nodes"]
        assert float(res.value) == pytest.approx(float(full.value), rel=1e-9)
        assert float(res.value) <= ub * (1 + 1e-9)
        off = float(inst.weight @ inst.release) if objective == "weighted_cct" else 0.0
        assert float(res.value) == pytest.approx(
            min(v for v in res.certificate.leaf_values if v is not None) - off, rel=1e-15)
        v, why, _ = check_branch_certificate(inst, res.certificate)
        assert v is not None and float(v) - off == pytest.approx(float(res.value), rel=1e-15), why
        out = _write(tmp_path, inst, lower_bound_certificate(inst, res))
        assert out.returncode == 0 and out.stdout.startswith("CONFIRMED"), \
            out.stdout + out.stderr
        # a child stops only once its dual objective has passed the cutoff
        stopped = [c for h in res.extra["history"] for c in h.get("children", ())
                   if c.get("capped")]
        assert len(stopped) == res.extra["children_capped"]
        assert all(c["value"] - off >= cut * (1 - 1e-9) for c in stopped)


def test_cutoff_is_a_number():
    inst = digest_ts4()
    for bad in ("33", float("nan"), True):
        with pytest.raises(InvalidParameterError):
            lp_ov_branch_bound(inst, cutoff=bad)
    # a cutoff above every leaf stops no child
    res = lp_ov_branch_bound(inst, cutoff=1e9)
    assert res.value == 33 and res.extra["children_capped"] == 0


@pytest.mark.parametrize("params", [dict(cutoff=0), dict(cutoff=-1.0), dict(cutoff=-0.0),
                                    dict(cutoff=float("nan")), dict(cutoff=float("inf")),
                                    dict(cutoff=True), dict(cutoff="3"),
                                    dict(cutoff=Fraction(10) ** 400), dict(max_nonzeros=0),
                                    dict(max_nonzeros=-1), dict(ports="some")])
def test_parameters_refused_before_any_solver(monkeypatch, params):
    """A cutoff <= 0 stops no child (the cutoff acts only while the smallest leaf is below it,
    and every leaf is >= 0), an infinite one neither; max_nonzeros below 1 refuses every LP:
    each is refused, naming the parameter, before the LP is built or a solver created."""
    import coflowopt.bounds.lp_ov_branch as m

    def no_solver(*a, **k):
        raise AssertionError("a solver was created")
    monkeypatch.setattr(m, "HighsModel", no_solver)
    monkeypatch.setattr(m, "build_lp_ov", no_solver)
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0)]), Coflow("B", [(0, 0, 1.0)])])
    with pytest.raises(InvalidParameterError, match=next(iter(params))):
        lp_ov_branch_bound(inst, **params)
    monkeypatch.undo()
    assert lp_ov_branch_bound(inst, cutoff=1e-300).value == 4   # any positive number is one


def test_cli_cutoff_refused_before_any_method_runs(monkeypatch, capsys, tmp_path):
    """``bound --method all -p cutoff=0``: the other methods would run (their LPs solved) before
    lp-ov-branch saw its cutoff; the command refuses it first, exit 2, one line naming it."""
    from coflowopt import cli
    src = tmp_path / "i.json"
    write_instance(Instance.from_coflows([Coflow("A", [(0, 0, 2.0)])]), src)

    def no_load(*a, **k):
        raise AssertionError("the instance was read: a method could run")
    monkeypatch.setattr(cli, "load_instance", no_load)
    for argv in (["-p", "cutoff=0"], ["-p", "cutoff=-5", "--method", "lp-ov-branch"],
                 ["-p", "cutoff=0", "-p", "ports=used"]):
        assert cli.main(["bound", str(src), *argv, "--json"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "-p cutoff" in err and "> 0" in err
