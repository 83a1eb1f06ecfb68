"""bnb's seed bound made exact (proofs/bnb-exact-seed-bound.md).

Seven instances of a sweep (uniform_random, 3 ports, 6 coflows, seeds 1900-2059) were closed
at the root by the ordering-LP seed bound, whose float duals certify a value 1e-14 below the
LP optimum, the optimum itself: "proved within rtol".  The seed's LP, rebuilt from the
instance and solved exactly at HiGHS's optimal basis (``exact_lp.exact_bound``), proves the
optimum exactly; the certificate file closes the root with that dual (node type
``lower-bound``) and the standalone checker confirms it.  Where the exact solve cannot be
made (the LP above the size limit, a basis that is not exactly optimal) the proof stays
"within rtol", never a wrong "optimal".
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from coflowopt.bounds.lp_bounds import ordering_lp_bound
from coflowopt.certificate_files import optimum_certificate
from coflowopt.exact import enumerate_orders
from coflowopt.exact import exact_lp
from coflowopt.exact.branch_and_bound import bnb
from coflowopt.formats.instance_json import write_instance_json
from coflowopt.generators import uniform_random
from coflowopt.verify import verify_schedule

ROOT = Path(__file__).resolve().parents[1]
CHECKER = ROOT / "tools" / "check_certificate.py"

SWEEP = dict(flows_per_coflow=(1, 3), size=(1, 5), weights=(1, 3), releases=(0, 2),
             capacities=(1, 3))
#: the seeds "proved within rtol" before (experiments/results/bench_exact_profile_2026-11-28b.md)
SEEDS = [1934, 1938, 1953, 1956, 1977, 2010, 2014]


def sweep_instance(seed):
    return uniform_random(3, 6, seed=seed, **SWEEP)


@pytest.mark.parametrize("seed", SEEDS)
def test_seed_closure_proved_exactly(seed):
    """The root closure by the ordering-LP seed is proved exactly, at brute force's optimum;
    the float seed alone falls short of it (what left these "within rtol")."""
    inst = sweep_instance(seed)
    res = bnb(inst, time_limit=60)
    ref = enumerate_orders(inst)
    assert ref.kind == "optimal"
    assert res.kind == "optimal" and res.value == ref.value
    assert verify_schedule(inst, res.schedule, mode="exact").ok
    assert res.certificate_status == "proved exactly", res.certificate["exact"]
    assert res.bound == res.value
    assert res.certificate["exact"]["seed_exact_lp"] == str(ref.value)
    # the float-certified seed is below the optimum: without the exact LP the proof fails
    assert res.extra["search"]["seed_bound"]["best"] == "ordering-lp"
    assert Fraction(ordering_lp_bound(inst).value) < ref.value


def test_exact_bound_is_the_lp_optimum_and_checks_strictly():
    """exact_bound's value is certified by its exact duals, strictly (no repair), and is at
    least the float certificate's value."""
    from coflowopt.formulations.certificates import check_certificate
    inst = sweep_instance(1934)
    res = ordering_lp_bound(inst)
    value, cert = exact_lp.exact_bound(inst, res.certificate)
    assert value == 82 > Fraction(res.value)
    chk = check_certificate(inst, cert, repair=False, claimed=value)
    assert chk.ok and chk.value == value
    # one multiplier changed: the strict check no longer proves the value
    bad = copy.deepcopy(cert)
    i = next(i for i, v in enumerate(bad.row_duals) if v != 0)
    bad.row_duals[i] = 2 * bad.row_duals[i]
    chk = check_certificate(inst, bad, repair=False, claimed=value)
    assert not (chk.ok and chk.value >= value)


@pytest.mark.parametrize("how", ["size_limit", "no_exact_basis"])
def test_without_the_exact_lp_the_proof_stays_within_rtol(how, monkeypatch):
    """Above the size limit, or when the basis is not exactly optimal, the closure keeps the
    float-safe bound: optimal "within rtol", the bound below the value."""
    if how == "size_limit":
        monkeypatch.setattr(exact_lp, "EXACT_PROOF_MAX_NONZEROS", 0)
    else:
        monkeypatch.setattr(exact_lp, "exact_lp_solution", lambda lp, **kw: None)
    inst = sweep_instance(1953)
    res = bnb(inst, time_limit=60)
    assert res.kind == "optimal" and res.value == Fraction(171, 2)
    assert res.certificate_status == "proved within rtol"
    assert res.bound < res.value and "seed_exact_lp" not in res.certificate["exact"]


def run(*args, timeout=300):
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """``coflowopt exact --certificate --json`` on the seven instances, as processes."""
    tmp = tmp_path_factory.mktemp("seed")
    out = {}
    for seed in SEEDS:
        ipath, cpath = tmp / f"i{seed}.json", tmp / f"c{seed}.json"
        write_instance_json(sweep_instance(seed), ipath)
        p = run("-m", "coflowopt", "exact", ipath, "--certificate", cpath, "--json")
        assert p.returncode == 0, p.stdout + p.stderr
        out[seed] = (ipath, cpath, json.loads(p.stdout))
    return out


def test_cli_proves_exactly_and_checker_confirms(written):
    for seed, (ipath, cpath, payload) in written.items():
        ref = enumerate_orders(sweep_instance(seed))
        assert payload["certificate_status"] == "proved exactly", (seed, payload["message"])
        assert payload["value_exact"] == str(ref.value)
        assert payload["certificate"]["exact"]["seed_exact_lp"] == str(ref.value)
        cert = json.loads(cpath.read_text())
        assert [n["bound"]["type"] for n in cert["proof"]["nodes"]] == ["lower-bound"]
        assert cert["proof"]["nodes"][0]["bound"]["proof"]["type"] == "ordering-lp-dual"
        p = run(CHECKER, ipath, cpath, timeout=120)
        assert p.returncode == 0 and p.stdout.startswith("CONFIRMED:"), p.stdout + p.stderr


def test_tampered_seed_certificate_rejected(written):
    ipath, cpath, _ = written[1934]
    cert = json.loads(cpath.read_text())
    cuts = cert["proof"]["nodes"][0]["bound"]["proof"]["cuts"]
    for change in ("halve", "double", "drop"):
        bad = copy.deepcopy(cert)
        bcuts = bad["proof"]["nodes"][0]["bound"]["proof"]["cuts"]
        if change == "drop":
            del bcuts[0]
        else:
            f = Fraction(1, 2) if change == "halve" else Fraction(2)
            bcuts[0]["multiplier"] = str(f * Fraction(cuts[0]["multiplier"]))
        path = cpath.with_name(f"bad-{change}.json")
        path.write_text(json.dumps(bad))
        p = run(CHECKER, ipath, path, timeout=120)
        assert p.returncode == 1 and p.stdout.startswith("REJECTED:"), p.stdout + p.stderr
        assert len(p.stdout.strip().splitlines()) == 1
    # a node bound naming no lower-bound proof is malformed (exit 2), not confirmed
    bad = copy.deepcopy(cert)
    bad["proof"]["nodes"][0]["bound"]["proof"]["type"] = "chain"
    path = cpath.with_name("bad-type.json")
    path.write_text(json.dumps(bad))
    p = run(CHECKER, ipath, path, timeout=120)
    assert p.returncode == 2, p.stdout + p.stderr


def test_certificate_writer_in_process_matches(written):
    """The writer in process gives the same one-node proof the CLI wrote."""
    seed = 1977
    inst = sweep_instance(seed)
    res = bnb(inst, time_limit=60, certificate_nodes=True)
    cert = optimum_certificate(inst, res)
    _, cpath, _ = written[seed]
    assert cert["proof"]["nodes"] == json.loads(cpath.read_text())["proof"]["nodes"]


def _fractional(scale):
    base = uniform_random(3, 6, seed=5, size=(1, 5), integer_sizes=False, weights=(1, 3),
                          releases=(0, 2), capacities=(1, 3))
    return base.replace(flow_size=base.flow_size * scale)


@pytest.mark.parametrize("bound", ["ordering-lp", "lp-ov", "interval-lp", "time-indexed-lp"])
@pytest.mark.parametrize("scale", [1024.3, 1e-6])
def test_exact_bound_of_every_lp_file_form_checks(bound, scale, tmp_path):
    """Every formulation exact_bound covers, in LP units 2^11 and 2^-19 of data (fractional
    sizes): the exact value is at least the float certificate's, and its file form, written
    as a lower-bound file, is confirmed by the standalone checker.  (1e-6: the fluid
    time-indexed LP stores exact zeros in its matrix, which the rational elimination once
    took as a pivot: ZeroDivisionError.)"""
    from coflowopt.certificate_files import _lower_bound_document, bound_proof
    from coflowopt.registry import get_algorithm
    inst = _fractional(scale)
    res = get_algorithm("bound", bound).func(inst)
    assert res.certificate.params["unit"]["data_exp"] != 0
    value, cert = exact_lp.exact_bound(inst, res.certificate)
    assert value >= Fraction(res.value)
    doc = _lower_bound_document(inst, res, value, bound_proof(inst, cert, value))
    ipath, cpath = tmp_path / "i.json", tmp_path / "c.json"
    write_instance_json(inst, ipath)
    cpath.write_text(json.dumps(doc))
    p = run(CHECKER, ipath, cpath, timeout=120)
    assert p.returncode == 0 and p.stdout.startswith("CONFIRMED:"), p.stdout + p.stderr


def test_solve_rational_skips_stored_zeros():
    # x0 + 0 x1 = 1, x1 = 2: the stored zero is no pivot
    rows = [{0: Fraction(1), 1: Fraction(0)}, {1: Fraction(1)}]
    assert exact_lp.solve_rational(rows, [Fraction(1), Fraction(2)], 2) == [1, 2]
    assert exact_lp.solve_rational([{0: Fraction(0)}], [Fraction(1)], 1) is None
